/*
 * cured_comm on one GPU, through a real 1-rank NCCL communicator
 * (ncclCommInitAll with device 0): every operator and type of
 * cured_reduce_async on random data (NaNs included) gives, through the
 * state records, one allgather and the combine kernel, the same bits as
 * cured_reduce_async on the same data (ARG indices included), nothing
 * written past the result; an empty shard gives the empty value; the
 * synchronous call's statuses; user-defined ops (integer combines: the bits
 * of cured_custom_reduce_async); axis reductions (state path in chunks and
 * NCCL's allreduce) against cured_reduce_axes_async; determinism; graph
 * capture (skipped, saying so, where NCCL refuses it).
 *
 * Exits 77 (SKIP) without a GPU or without libnccl.so.2 (CURED_NCCL_LIBRARY).
 */
#include "ops_test.h"

#include "comm_warm.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static cured_comm CC;
static struct ncclComm *NCCL;

static const char *nccl_path(void)
{
    const char *p = getenv("CURED_NCCL_LIBRARY");
    return p && *p ? p : "libnccl.so.2";
}

/* The communicator, made once (the test's own use of NCCL: the caller's part). */
static void comm_setup(void)
{
    ops_setup();
    if (CC != NULL)
        return;
    void *lib = dlopen(nccl_path(), RTLD_NOW);
    ck_assert_msg(lib != NULL, "dlopen %s: %s", nccl_path(), dlerror());
    int (*init_all)(struct ncclComm **, int, const int *);
    *(void **)&init_all = dlsym(lib, "ncclCommInitAll");
    ck_assert_ptr_nonnull(init_all);
    int dev = 0;
    ck_assert_int_eq(init_all(&NCCL, 1, &dev), 0);
    CURED_OK(cured_comm_create(H, NCCL, 64, &CC));
    int rank, size;
    CURED_OK(cured_comm_rank(CC, &rank, &size));
    ck_assert_int_eq(rank, 0);
    ck_assert_int_eq(size, 1);
}

/* The oracle's data (tests/ops_ref.c), with float sums that round: the combine must still match. */
static enum ref_flavour flavour_of(cured_op op)
{
    const enum ref_flavour fl = ref_op(op)->data;
    return fl == FL_RAND ? FL_REAL : fl;
}

/* Bitwise, except that a NaN of MIN/MAX/MINMAX need not be the same NaN (cured.h). */
static int same(cured_op op, cured_type out, const unsigned char *a, const unsigned char *b, size_t size)
{
    if (memcmp(a, b, size) == 0)
        return 1;
    if (op != CURED_OP_MIN && op != CURED_OP_MAX && op != CURED_OP_MINMAX && op != CURED_OP_NANMIN &&
        op != CURED_OP_NANMAX)
        return 0;
    const size_t s = ref_size(out);
    for (size_t k = 0; k < size / s; k++)
        if (memcmp(a + k * s, b + k * s, s) != 0 &&
            !(isnan(ref_get_f(out, a, k)) && isnan(ref_get_f(out, b, k)) && ref_is_float(out)))
            return 0;
    return 1;
}

/* Compile every kernel the big test uses on all CPUs first (the memory cache keeps them). */
static int warm_wanted(cured_op op)
{
    return !(cr_op(op)->flags & CR_OP_TWO_INPUTS);
}

static void warm_all(void)
{
    CURED_OK(comm_warm(H, warm_wanted));
}

/* Every (op, in, out): cured_comm_reduce_async == cured_reduce_async, bit for bit. */
START_TEST(test_every_operator)
{
    warm_all();
    CUstream s = stream_new();
    CUdeviceptr slots = dev_alloc(2 * 64);
    unsigned char a[64], b[64];
    int cases = 0, bad = 0;
    const size_t n = ops_big();
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++) {
                if ((cr_op((cured_op)op)->flags & CR_OP_TWO_INPUTS) || !cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, NULL))
                    continue;
                const struct ops_input *x = ops_input((cured_type)in, flavour_of((cured_op)op));
                struct cr_request r;
                CURED_OK(cr_request_make((cured_op)op, CURED_ALGO_AUTO, (cured_type)in, (cured_type)out, &r));
                poison(slots, 128);
                CURED_OK(cured_reduce_async(H, (cured_op)op, CURED_ALGO_AUTO, DP(x->dev), (cured_type)in, n,
                                            DP(slots), (cured_type)out, s));
                CURED_OK(cured_comm_reduce_async(CC, (cured_op)op, DP(x->dev), (cured_type)in, n, DP(slots + 64),
                                                 (cured_type)out, 0, s));
                CU_OK(D->StreamSynchronize(s));
                download(a, slots, 64);
                download(b, slots + 64, 64);
                cases++;
                if (!same((cured_op)op, (cured_type)out, a, b, r.acc.result_size) ||
                    memcmp(a + r.acc.result_size, b + r.acc.result_size, 64 - r.acc.result_size) != 0) {
                    if (bad++ < 12) {
                        printf("MISMATCH %s %s->%s:", cured_op_name((cured_op)op), cured_type_name((cured_type)in),
                               cured_type_name((cured_type)out));
                        for (size_t k = 0; k < 24; k++)
                            printf(" %02x/%02x", a[k], b[k]);
                        printf("\n");
                    }
                }
            }
    printf("every operator: %d (op, type, result) cases, %d differ from cured_reduce_async\n", cases, bad);
    ck_assert_int_gt(cases, 300);
    ck_assert_msg(bad == 0, "%d of %d cases differ (seed %llu)", bad, cases, test_seed);
}
END_TEST

/* Empty shards, the synchronous call and its statuses, determinism. */
START_TEST(test_sync_and_empty)
{
    const struct ops_input *x = ops_input(CURED_TYPE_INT32, FL_RAND);
    const struct ops_input *f = ops_input(CURED_TYPE_FLOAT32, FL_REAL);
    CUstream s = stream_new();
    int64_t want = 0, got = 0;
    CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(x->dev), CURED_TYPE_INT32, x->n, &want,
                          CURED_TYPE_INT64, s));
    CURED_OK(cured_comm_reduce(CC, CURED_OP_SUM, DP(x->dev), CURED_TYPE_INT32, x->n, &got, CURED_TYPE_INT64, 0, s));
    ck_assert_int_eq(got, want);
    cured_arg_result ar;
    memset(&ar, 0x5a, sizeof ar);
    CURED_EXPECT(CURED_ERROR_EMPTY_INPUT,
                 cured_comm_reduce(CC, CURED_OP_ARGMAX, NULL, CURED_TYPE_INT32, 0, &ar, CURED_TYPE_INT32, 0, s));
    ck_assert_int_eq(ar.index, 0x5a5a5a5a5a5a5a5all);
    double mean = 7;
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS,
                 cured_comm_reduce(CC, CURED_OP_MEAN, NULL, CURED_TYPE_FLOAT32, 0, &mean, CURED_TYPE_FLOAT64, 0, s));
    ck_assert(mean == 7);
    /* The async empty value: ARG index -1, zero value. */
    CUdeviceptr d = dev_alloc(32);
    poison(d, 32);
    CURED_OK(cured_comm_reduce_async(CC, CURED_OP_ARGMIN, NULL, CURED_TYPE_INT32, 0, DP(d), CURED_TYPE_INT32, 0, s));
    CU_OK(D->StreamSynchronize(s));
    download(&ar, d, 16);
    ck_assert_int_eq(ar.index, -1);
    ck_assert_int_eq(ar.value.i32, 0);
    /* A float sum: the same bits twice. */
    float f1, f2;
    CURED_OK(cured_comm_reduce(CC, CURED_OP_SUM, DP(f->dev), CURED_TYPE_FLOAT32, f->n, &f1, CURED_TYPE_FLOAT32, 0, s));
    CURED_OK(cured_comm_reduce(CC, CURED_OP_SUM, DP(f->dev), CURED_TYPE_FLOAT32, f->n, &f2, CURED_TYPE_FLOAT32, 0, s));
    ck_assert(memcmp(&f1, &f2, 4) == 0);
}
END_TEST

/* Equal results, within cured_op's latitude for MIN, MAX and MINMAX of
 * floats: which NaN a NaN result is, and which zero a tie of -0 and +0
 * gives (the state path plans its columns in chunks, so its order differs). */
static int same_results(cured_op op, cured_type t, const unsigned char *a, const unsigned char *b, size_t bytes)
{
    if (memcmp(a, b, bytes) == 0)
        return 1;
    if ((op != CURED_OP_MIN && op != CURED_OP_MAX && op != CURED_OP_MINMAX) ||
        (t != CURED_TYPE_FLOAT32 && t != CURED_TYPE_FLOAT64))
        return 0;
    const size_t w = t == CURED_TYPE_FLOAT32 ? 4 : 8;
    for (size_t i = 0; i + w <= bytes; i += w) {
        double x, y;
        if (w == 4) {
            float fx, fy;
            memcpy(&fx, a + i, 4), memcpy(&fy, b + i, 4);
            x = fx, y = fy;
        } else {
            memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
        }
        if (memcmp(a + i, b + i, w) != 0 && !(x != x && y != y) && !(x == 0 && y == 0))
            return 0;
    }
    return 1;
}

/* Axis 0 of a 1000 x 300 slab: the state path (in chunks of 64 outputs) and NCCL's allreduce. */
START_TEST(test_axes)
{
    static const struct { cured_op op; cured_type in, out; unsigned flags; } cases[] = {
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, 0},
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, CURED_COMM_BITWISE},
        {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 0},
        {CURED_OP_MINMAX, CURED_TYPE_INT16, CURED_TYPE_INT16, 0},
        {CURED_OP_XOR, CURED_TYPE_UINT8, CURED_TYPE_UINT8, 0},
        {CURED_OP_MIN, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 0},
        {CURED_OP_MAX, CURED_TYPE_INT64, CURED_TYPE_INT64, 0},
    };
    const int64_t rows = ops_big() >= 300000 ? 1000 : 40, cols = 300;
    CUstream s = stream_new();
    const size_t bytes = (size_t)cols * 16;
    CUdeviceptr o1 = dev_alloc(bytes), o2 = dev_alloc(bytes);
    unsigned char *a = ops_malloc(bytes), *b = ops_malloc(bytes);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const struct ops_input *x = ops_input(cases[c].in, flavour_of(cases[c].op));
        cured_layout lay = {2, {rows, cols}, {cols, 1}};
        for (int k = 0; k < 2; k++) { /* row-major, and a transposed view */
            if (k == 1)
                lay.stride[0] = 1, lay.stride[1] = rows;
            poison(o1, bytes);
            poison(o2, bytes);
            CURED_OK(cured_reduce_axes_async(H, cases[c].op, DP(x->dev), cases[c].in, &lay, 1, DP(o1), cases[c].out,
                                             NULL, s));
            CURED_OK(cured_comm_reduce_axes_async(CC, cases[c].op, DP(x->dev), cases[c].in, &lay, 1, DP(o2),
                                                  cases[c].out, cases[c].flags, s));
            CU_OK(D->StreamSynchronize(s));
            download(a, o1, bytes);
            download(b, o2, bytes);
            const int same = same_results(cases[c].op, cases[c].out, a, b, bytes);
            if (!same) { /* say where, and whether the plain call repeats itself */
                size_t at = 0;
                while (a[at] == b[at])
                    at++;
                printf("first difference at byte %zu of %zu:", at, bytes);
                for (size_t i = at & ~(size_t)7; i < (at & ~(size_t)7) + 8 && i < bytes; i++)
                    printf(" %02x/%02x", a[i], b[i]);
                unsigned char *again = ops_malloc(bytes);
                poison(o2, bytes);
                CURED_OK(cured_reduce_axes_async(H, cases[c].op, DP(x->dev), cases[c].in, &lay, 1, DP(o2),
                                                 cases[c].out, NULL, s));
                CU_OK(D->StreamSynchronize(s));
                download(again, o2, bytes);
                printf("; cured_reduce_axes_async again: %s\n", memcmp(a, again, bytes) ? "differs" : "the same");
                free(again);
            }
            ck_assert_msg(same, "axes %s %s->%s (flags %u, layout %d) differ from cured_reduce_axes_async",
                          cured_op_name(cases[c].op), cured_type_name(cases[c].in), cured_type_name(cases[c].out),
                          cases[c].flags, k);
        }
    }
}
END_TEST

/* User-defined ops with exact (integer) combines: the bits of cured_custom_reduce_async. */
START_TEST(test_custom)
{
    const struct ops_input *x = ops_input(CURED_TYPE_INT32, FL_RAND);
    CUstream s = stream_new();
    cured_custom sq = NULL, mv = NULL;
    CURED_OK(cured_custom_create(H, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "(long long)x * x", "a + b", "0", &sq));
    cured_custom_field f[2] = {{CURED_TYPE_INT64, "x", "a0 + b0", "0"},
                               {CURED_TYPE_INT64, "(long long)x * x", "a1 + b1", "0"}};
    const char *fin[2] = {"(double)a0", "(double)a1 / n"};
    CURED_OK(cured_custom_create_multi(H, CURED_TYPE_INT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, &mv));
    int64_t a = 0, b = 1;
    double m[2] = {0, 0}, w[2] = {1, 1};
    CURED_OK(cured_custom_reduce(H, sq, DP(x->dev), NULL, x->n, &a, s));
    CURED_OK(cured_comm_custom_reduce(CC, sq, DP(x->dev), NULL, x->n, &b, 0, s));
    ck_assert_int_eq(a, b);
    CURED_OK(cured_custom_reduce(H, mv, DP(x->dev), NULL, x->n, w, s));
    CURED_OK(cured_comm_custom_reduce(CC, mv, DP(x->dev), NULL, x->n, m, 0, s));
    ck_assert_msg(memcmp(m, w, sizeof m) == 0, "two fields: %.17g %.17g, want %.17g %.17g", m[0], m[1], w[0], w[1]);
    CUdeviceptr d = dev_alloc(16);
    poison(d, 16);
    CURED_OK(cured_comm_custom_reduce_async(CC, sq, DP(x->dev), NULL, 0, DP(d), 0, s)); /* an empty shard */
    CU_OK(D->StreamSynchronize(s));
    download(&a, d, 8);
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(cured_custom_destroy(sq), CURED_SUCCESS);
    ck_assert_int_eq(cured_custom_destroy(mv), CURED_SUCCESS);
}
END_TEST

/* A captured graph of the call gives the same result when launched. */
START_TEST(test_graph_capture)
{
    const struct ops_input *x = ops_input(CURED_TYPE_INT32, FL_RAND);
    CUstream s = stream_new();
    CUdeviceptr d = dev_alloc(16);
    int64_t want, got = 0;
    CURED_OK(cured_comm_reduce(CC, CURED_OP_SUM, DP(x->dev), CURED_TYPE_INT32, x->n, &want, CURED_TYPE_INT64, 0, s));
    poison(d, 16);
    CUgraph g;
    CUgraphExec e;
    CU_OK(D->StreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    cured_status st = cured_comm_reduce_async(CC, CURED_OP_SUM, DP(x->dev), CURED_TYPE_INT32, x->n, DP(d),
                                              CURED_TYPE_INT64, 0, s);
    CUresult end = D->StreamEndCapture(s, &g);
    if (st == CURED_ERROR_NCCL || end != CUDA_SUCCESS) {
        printf("graph capture: not supported here (%s; end of capture: %s): case skipped\n", cured_last_error(),
               cr_driver_error_text(end));
        return;
    }
    CURED_OK(st);
    CU_OK(D->GraphInstantiate(&e, g, 0));
    CU_OK(D->GraphLaunch(e, s));
    CU_OK(D->StreamSynchronize(s));
    download(&got, d, 8);
    ck_assert_int_eq(got, want);
    CU_OK(D->GraphExecDestroy(e));
    CU_OK(D->GraphDestroy(g));
    printf("graph capture: the captured call gives the synchronous call's sum\n");
}
END_TEST

/* The exact sums through the communicator: the same bits as the local calls, for whole arrays, DOT and
 * axis 0 of a slab whose records (104 bytes for float32) take several chunks of the buffers; the
 * synchronous mean of no element anywhere refuses. */
START_TEST(test_exact)
{
    enum { R = 300, C = 1000 };
    const size_t n = (size_t)R * C;
    struct rng r;
    rng_init(&r, "nccl-exact", 0);
    float *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < n; i++) /* magnitudes over 2^-20 .. 2^20, both signs: sums that round */
        h[i] = ldexpf((float)(rng_u32(&r) % 2001) - 1000.0f, (int)(rng_u32(&r) % 41) - 30);
    CUdeviceptr x = dev_alloc(n * 4), a = dev_alloc(C * 8), b = dev_alloc(C * 8);
    upload(x, h, n * 4);
    static const cured_op ops[] = {CURED_OP_EXACT_SUM, CURED_OP_EXACT_MEAN, CURED_OP_EXACT_SUM_SQUARES,
                                   CURED_OP_EXACT_NORM2};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        poison(a, 8);
        poison(b, 8);
        CURED_OK(cured_reduce_async(H, ops[k], CURED_ALGO_AUTO, DP(x), CURED_TYPE_FLOAT32, n, DP(a),
                                    CURED_TYPE_FLOAT64, NULL));
        CURED_OK(cured_comm_reduce_async(CC, ops[k], DP(x), CURED_TYPE_FLOAT32, n, DP(b), CURED_TYPE_FLOAT64, 0, NULL));
        CU_OK(D->CtxSynchronize());
        uint64_t va, vb;
        download(&va, a, 8);
        download(&vb, b, 8);
        ck_assert_msg(va == vb, "%s: local 0x%llx, communicator 0x%llx (seed %llu)", cured_op_name(ops[k]),
                      (unsigned long long)va, (unsigned long long)vb, test_seed);
    }
    poison(a, 8);
    poison(b, 8);
    CURED_OK(cured_exact_dot_async(H, DP(x), DP(x + 4), CURED_TYPE_FLOAT32, n - 1, DP(a), CURED_TYPE_FLOAT32, NULL));
    CURED_OK(cured_comm_exact_dot_async(CC, DP(x), DP(x + 4), CURED_TYPE_FLOAT32, n - 1, DP(b), CURED_TYPE_FLOAT32, 0,
                                        NULL));
    CU_OK(D->CtxSynchronize());
    uint32_t da, db;
    download(&da, a, 4);
    download(&db, b, 4);
    ck_assert_msg(da == db, "EXACT_DOT: local 0x%x, communicator 0x%x (seed %llu)", da, db, test_seed);
    const cured_layout lay = {2, {R, C}, {C, 1}};
    poison(a, C * 8);
    poison(b, C * 8);
    CURED_OK(cured_reduce_axes_async(H, CURED_OP_EXACT_SUM, DP(x), CURED_TYPE_FLOAT32, &lay, 1u, DP(a),
                                     CURED_TYPE_FLOAT32, NULL, NULL));
    CURED_OK(cured_comm_reduce_axes_async(CC, CURED_OP_EXACT_SUM, DP(x), CURED_TYPE_FLOAT32, &lay, 1u, DP(b),
                                          CURED_TYPE_FLOAT32, 0, NULL));
    CU_OK(D->CtxSynchronize());
    uint32_t *ga = malloc(C * 4), *gb = malloc(C * 4);
    ck_assert(ga && gb);
    download(ga, a, C * 4);
    download(gb, b, C * 4);
    for (int c = 0; c < C; c++)
        ck_assert_msg(ga[c] == gb[c], "EXACT_SUM axis 0, column %d: local 0x%x, communicator 0x%x (seed %llu)", c,
                      ga[c], gb[c], test_seed);
    double mean = 0;
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_comm_reduce(CC, CURED_OP_EXACT_MEAN, NULL, CURED_TYPE_FLOAT32, 0,
                                                                 &mean, CURED_TYPE_FLOAT64, 0, NULL));
    free(ga);
    free(gb);
    free(h);
    dev_free(x);
    dev_free(a);
    dev_free(b);
}
END_TEST

static Suite *nccl_suite(void)
{
    Suite *s = suite_create("gpu-nccl");
    TCase *tc = tcase_create("comm");
    tcase_add_checked_fixture(tc, comm_setup, ops_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_every_operator);
    tcase_add_test(tc, test_sync_and_empty);
    tcase_add_test(tc, test_axes);
    tcase_add_test(tc, test_custom);
    tcase_add_test(tc, test_graph_capture);
    tcase_add_test(tc, test_exact);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    /* NCCL loads in a child first, so the parent touches neither it nor CUDA. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(dlopen(nccl_path(), RTLD_NOW) != NULL ? 0 : 1);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("SKIP: test-gpu-nccl needs NCCL (%s does not load)\n", nccl_path());
        return 77;
    }
    return gpu_main("test-gpu-nccl", nccl_suite());
}
