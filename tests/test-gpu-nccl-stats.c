/*
 * DOT and the statistics across ranks on one GPU, through a real 1-rank
 * NCCL communicator (ncclCommInitAll with device 0): cured_comm_dot_async
 * gives cured_dot_async's bits for every offered (type, result) and
 * cured_comm_reduce_stats_async gives cured_reduce_stats_async's for every
 * statistic, type and result with ddof 0, 1 and 2 (nothing written past the
 * result); empty shards give the empty values; the synchronous calls'
 * statuses (n <= ddof); statistics along a sharded axis 0 against
 * cured_reduce_axes_stats_async (bitwise with at most max_outputs outputs;
 * in chunks within rounding, the bitwise share printed); graph capture.
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

#define MAX_OUT 64 /* the communicator's max_outputs */

static cured_comm CC;
static struct ncclComm *NCCL;

static const char *nccl_path(void)
{
    const char *p = getenv("CURED_NCCL_LIBRARY");
    return p && *p ? p : "libnccl.so.2";
}

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
    CURED_OK(cured_comm_create(H, NCCL, MAX_OUT, &CC));
}

static int is_stats(int op) /* the operator table's statistics, the NaN-skipping ones too */
{
    return (cr_op((cured_op)op)->flags & CR_OP_STATS) != 0;
}

/* Rounding data; NaNs among them for the NaN-skipping operators. */
static enum ref_flavour flavour_of(int op, cured_type in)
{
    if (!ref_is_float(in))
        return FL_RAND;
    return (cr_op((cured_op)op)->flags & CR_OP_SKIPS_NAN) ? FL_REAL_NAN : FL_REAL;
}

/* Compile the plain, state and combine kernels of DOT and the statistics on all CPUs first. */
static int warm_wanted(cured_op op)
{
    return op == CURED_OP_DOT || is_stats(op);
}

static void warm_all(void)
{
    CURED_OK(comm_warm(H, warm_wanted));
}

static void dump(const char *what, const unsigned char *a, const unsigned char *b, size_t n)
{
    printf("MISMATCH %s:", what);
    for (size_t k = 0; k < n; k++)
        printf(" %02x/%02x", a[k], b[k]);
    printf("\n");
}

/* Every offered DOT (type, result): the bits of cured_dot_async; an empty shard gives 0. */
START_TEST(test_dot)
{
    warm_all();
    CUstream s = stream_new();
    CUdeviceptr slots = dev_alloc(2 * 64);
    unsigned char a[64], b[64];
    int cases = 0, bad = 0;
    const size_t n = ops_big();
    for (int in = 0; in < CURED_TYPE_COUNT; in++)
        for (int out = 0; out < CURED_TYPE_COUNT; out++) {
            if (!cr_op_accumulator(CURED_OP_DOT, (cured_type)in, (cured_type)out, NULL))
                continue;
            const int real = ref_is_float((cured_type)in);
            const struct ops_input *x = ops_input((cured_type)in, real ? FL_REAL : FL_RAND);
            const struct ops_input *y = ops_input((cured_type)in, real ? FL_REAL2 : FL_RAND2);
            const size_t rs = ref_size((cured_type)out);
            poison(slots, 128);
            CURED_OK(cured_dot_async(H, DP(x->dev), DP(y->dev), (cured_type)in, n, DP(slots), (cured_type)out, s));
            CURED_OK(cured_comm_dot_async(CC, DP(x->dev), DP(y->dev), (cured_type)in, n, DP(slots + 64),
                                          (cured_type)out, 0, s));
            CU_OK(D->StreamSynchronize(s));
            download(a, slots, 64);
            download(b, slots + 64, 64);
            cases++;
            if (memcmp(a, b, 64) != 0 && bad++ < 12)
                dump(cured_type_name((cured_type)in), a, b, 16);
            /* The synchronous call, and an empty shard (0). */
            unsigned char h[16], z[16] = {0};
            memset(h, 0x5a, sizeof h);
            CURED_OK(cured_comm_dot(CC, DP(x->dev), DP(y->dev), (cured_type)in, n, h, (cured_type)out, 0, s));
            ck_assert_msg(memcmp(h, a, rs) == 0, "DOT %s: the synchronous call differs", cured_type_name(in));
            poison(slots, 64);
            CURED_OK(cured_comm_dot_async(CC, NULL, NULL, (cured_type)in, 0, DP(slots), (cured_type)out, 0, s));
            CU_OK(D->StreamSynchronize(s));
            download(a, slots, 64);
            ck_assert_msg(memcmp(a, z, rs) == 0, "DOT %s: an empty shard is not 0", cured_type_name(in));
            ops_expect_poison(a, rs, 64, "after an empty DOT");
        }
    printf("DOT: %d (type, result) cases, %d differ from cured_dot_async\n", cases, bad);
    ck_assert_int_gt(cases, 10);
    ck_assert_msg(bad == 0, "%d of %d DOT cases differ (seed %llu)", bad, cases, test_seed);
}
END_TEST

/* Every statistic, type and result with ddof 0, 1, 2: the bits of cured_reduce_stats_async. */
START_TEST(test_stats_ddof)
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
                if (!is_stats(op) || !cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, NULL))
                    continue;
                const struct ops_input *x = ops_input((cured_type)in, flavour_of(op, (cured_type)in));
                for (int d = 0; d < 3; d++) {
                    poison(slots, 128);
                    CURED_OK(cured_reduce_stats_async(H, (cured_op)op, DP(x->dev), (cured_type)in, n, d, DP(slots),
                                                      (cured_type)out, s));
                    CURED_OK(cured_comm_reduce_stats_async(CC, (cured_op)op, DP(x->dev), (cured_type)in, n, d,
                                                           DP(slots + 64), (cured_type)out, 0, s));
                    CU_OK(D->StreamSynchronize(s));
                    download(a, slots, 64);
                    download(b, slots + 64, 64);
                    cases++;
                    if (memcmp(a, b, 64) != 0 && bad++ < 12) {
                        printf("%s %s->%s ddof %d: ", cured_op_name((cured_op)op), cured_type_name((cured_type)in),
                               cured_type_name((cured_type)out), d);
                        dump("stats", a, b, 16);
                    }
                }
            }
    printf("statistics: %d (op, type, result, ddof) cases, %d differ from cured_reduce_stats_async\n", cases, bad);
    ck_assert_int_gt(cases, 100);
    ck_assert_msg(bad == 0, "%d of %d cases differ (seed %llu)", bad, cases, test_seed);
}
END_TEST

/* n <= ddof, empty shards, the synchronous statuses. */
START_TEST(test_stats_edges)
{
    const struct ops_input *x = ops_input(CURED_TYPE_FLOAT32, FL_REAL);
    CUstream s = stream_new();
    double v[2] = {7, 7}, w[2] = {0, 0};
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_comm_reduce_stats(CC, CURED_OP_VAR, DP(x->dev),
                                                                       CURED_TYPE_FLOAT32, 2, 2, v, CURED_TYPE_FLOAT64,
                                                                       0, s));
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_comm_reduce_stats(CC, CURED_OP_MEAN_VAR, DP(x->dev),
                                                                       CURED_TYPE_FLOAT32, 1, 1.5, v,
                                                                       CURED_TYPE_FLOAT64, 0, s));
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_comm_reduce_stats(CC, CURED_OP_MEAN, NULL, CURED_TYPE_FLOAT32,
                                                                       0, 0, v, CURED_TYPE_FLOAT64, 0, s));
    ck_assert(v[0] == 7 && v[1] == 7);
    for (size_t k = 3; k < 6; k++) { /* n > ddof = 2: as cured_reduce_stats */
        CURED_OK(cured_comm_reduce_stats(CC, CURED_OP_MEAN_VAR, DP(x->dev), CURED_TYPE_FLOAT32, k, 2, v,
                                         CURED_TYPE_FLOAT64, 0, s));
        CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN_VAR, DP(x->dev), CURED_TYPE_FLOAT32, k, 2, w, CURED_TYPE_FLOAT64,
                                    s));
        ck_assert_msg(memcmp(v, w, sizeof v) == 0, "n %zu: %.17g %.17g, want %.17g %.17g", k, v[0], v[1], w[0], w[1]);
    }
    /* The asynchronous empty values: NaN mean and variance, -inf LOGSUMEXP; n <= ddof: NaN variance. */
    CUdeviceptr d = dev_alloc(64);
    double got[8];
    poison(d, 64);
    CURED_OK(cured_comm_reduce_stats_async(CC, CURED_OP_MEAN_VAR, NULL, CURED_TYPE_FLOAT32, 0, 1, DP(d),
                                           CURED_TYPE_FLOAT64, 0, s));
    CURED_OK(cured_comm_reduce_stats_async(CC, CURED_OP_LOGSUMEXP, NULL, CURED_TYPE_FLOAT32, 0, 0, DP(d + 16),
                                           CURED_TYPE_FLOAT64, 0, s));
    CURED_OK(cured_comm_reduce_stats_async(CC, CURED_OP_VAR, DP(x->dev), CURED_TYPE_FLOAT32, 2, 2, DP(d + 24),
                                           CURED_TYPE_FLOAT64, 0, s));
    CU_OK(D->StreamSynchronize(s));
    download(got, d, 64);
    ck_assert(isnan(got[0]) && isnan(got[1]));
    ck_assert(isinf(got[2]) && got[2] < 0);
    ck_assert(isnan(got[3]));
    ops_expect_poison((const unsigned char *)got, 32, 64, "after the empty statistics");
    /* The NaN-skipping statistics: a shard of one NaN (element 20 of FL_REAL_NAN) leaves too few, which
     * only the run finds: TOO_FEW_ELEMENTS as from cured_reduce_stats, nothing written; NaN asynchronously. */
    const struct ops_input *xn = ops_input(CURED_TYPE_FLOAT32, FL_REAL_NAN);
    const CUdeviceptr one_nan = xn->dev + 20 * sizeof(float);
    static const cured_op skip[] = {CURED_OP_NANMEAN, CURED_OP_NANVAR, CURED_OP_NANSTD};
    for (size_t k = 0; k < 3; k++) {
        v[0] = v[1] = 7;
        CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_comm_reduce_stats(CC, skip[k], DP(one_nan), CURED_TYPE_FLOAT32,
                                                                           1, 0, v, CURED_TYPE_FLOAT64, 0, s));
        CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_reduce_stats(H, skip[k], DP(one_nan), CURED_TYPE_FLOAT32, 1,
                                                                      0, v, CURED_TYPE_FLOAT64, s));
        CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS, cured_comm_reduce(CC, skip[k], DP(one_nan), CURED_TYPE_FLOAT32, 1,
                                                                     v, CURED_TYPE_FLOAT64, 0, s));
        ck_assert(v[0] == 7 && v[1] == 7);
        poison(d, 64);
        CURED_OK(cured_comm_reduce_stats_async(CC, skip[k], DP(one_nan), CURED_TYPE_FLOAT32, 1, 0, DP(d),
                                               CURED_TYPE_FLOAT64, 0, s));
        CU_OK(D->StreamSynchronize(s));
        download(got, d, 64);
        ck_assert(isnan(got[0]));
        ops_expect_poison((const unsigned char *)got, 8, 64, "after a NaN-skipping statistic of one NaN");
    }
    /* NANSUM of it: 0, no status. */
    float f = 7;
    CURED_OK(cured_comm_reduce(CC, CURED_OP_NANSUM, DP(one_nan), CURED_TYPE_FLOAT32, 1, &f, CURED_TYPE_FLOAT32, 0, s));
    ck_assert(f == 0);
}
END_TEST

static int close_enough(cured_type t, const unsigned char *a, const unsigned char *b, size_t bytes)
{
    const size_t w = t == CURED_TYPE_FLOAT32 ? 4 : 8;
    for (size_t i = 0; i < bytes; i += w) {
        double x = ref_get_f(t, a, i / w), y = ref_get_f(t, b, i / w);
        if (memcmp(a + i, b + i, w) != 0 && !(isnan(x) && isnan(y)) &&
            !(fabs(x - y) <= (w == 4 ? 2.4e-7 : 1e-13) * fabs(x)))
            return 0;
    }
    return 1;
}

/* Axis 0 of a rows x cols slab (row-major and transposed): 50 columns
 * (one gather: bitwise) and 300 (chunks of 64: within rounding); and 50
 * columns of ops_big() / 50 rows, whose splits are bound by the column
 * kernel's occupancy: bitwise too (it tells the paths apart only where the
 * state and plain kernels' occupancies differ). */
START_TEST(test_axes_stats)
{
    static const struct { cured_op op; cured_type in, out; } cases[] = {
        {CURED_OP_VAR, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64}, {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32},
        {CURED_OP_STD, CURED_TYPE_INT16, CURED_TYPE_FLOAT64},   {CURED_OP_MEAN, CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64},
        {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32},
    };
    const int64_t rows = ops_big() >= 300000 ? 1000 : 40;
    CUstream s = stream_new();
    const size_t bytes = 300 * 16;
    CUdeviceptr o1 = dev_alloc(bytes), o2 = dev_alloc(bytes);
    unsigned char *a = ops_malloc(bytes), *b = ops_malloc(bytes);
    int chunked = 0, chunked_same = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const struct ops_input *x = ops_input(cases[c].in, ref_is_float(cases[c].in) ? FL_REAL : FL_RAND);
        const size_t per = ref_size(cases[c].out) * (cases[c].op == CURED_OP_MEAN_VAR ? 2 : 1);
        for (int v = 0; v < 5; v++) {
            const int64_t cols = v < 2 || v == 4 ? 50 : 300;
            const int64_t r2 = v == 4 ? (int64_t)(ops_big() / 50) : v % 2 ? 2 : rows; /* 2 rows: n <= ddof 2 */
            for (int k = 0; k < 2; k++) {
                cured_layout lay = {2, {r2, cols}, {cols, 1}};
                if (k == 1)
                    lay.stride[0] = 1, lay.stride[1] = r2;
                const double ddof = (double)(c % 3);
                poison(o1, bytes);
                poison(o2, bytes);
                CURED_OK(cured_reduce_axes_stats_async(H, cases[c].op, DP(x->dev), cases[c].in, &lay, 1, ddof, DP(o1),
                                                       cases[c].out, NULL, s));
                CURED_OK(cured_comm_reduce_axes_stats_async(CC, cases[c].op, DP(x->dev), cases[c].in, &lay, 1, ddof,
                                                            DP(o2), cases[c].out, 0, s));
                CU_OK(D->StreamSynchronize(s));
                download(a, o1, bytes);
                download(b, o2, bytes);
                const size_t used = (size_t)cols * per;
                ops_expect_poison(b, used, bytes, "after the axis results");
                const int same = memcmp(a, b, used) == 0;
                if (cols > MAX_OUT)
                    chunked++, chunked_same += same;
                ck_assert_msg(cols > MAX_OUT ? close_enough(cases[c].out, a, b, used) : same,
                              "axes %s %s->%s ddof %g, %lld x %lld (layout %d) differ from cured_reduce_axes_stats_async",
                              cured_op_name(cases[c].op), cured_type_name(cases[c].in), cured_type_name(cases[c].out),
                              ddof, (long long)r2, (long long)cols, k);
            }
        }
    }
    /* ddof 0 through cured_comm_reduce_axes_async: cured_reduce_axes_async's bits (one gather). */
    const struct ops_input *x = ops_input(CURED_TYPE_FLOAT32, FL_REAL);
    cured_layout lay = {2, {rows, 50}, {50, 1}};
    CURED_OK(cured_reduce_axes_async(H, CURED_OP_VAR, DP(x->dev), CURED_TYPE_FLOAT32, &lay, 1, DP(o1),
                                     CURED_TYPE_FLOAT64, NULL, s));
    CURED_OK(cured_comm_reduce_axes_async(CC, CURED_OP_VAR, DP(x->dev), CURED_TYPE_FLOAT32, &lay, 1, DP(o2),
                                          CURED_TYPE_FLOAT64, 0, s));
    CU_OK(D->StreamSynchronize(s));
    download(a, o1, 50 * 8);
    download(b, o2, 50 * 8);
    ck_assert_msg(memcmp(a, b, 50 * 8) == 0, "VAR along axis 0 (ddof 0) differs");
    printf("axes statistics: %d of %d chunked cases bitwise equal (the rest within rounding)\n", chunked_same,
           chunked);
}
END_TEST

/* Captured graphs of DOT and VAR with ddof 1 give the synchronous calls' results. */
START_TEST(test_graph_capture)
{
    const struct ops_input *x = ops_input(CURED_TYPE_FLOAT32, FL_REAL), *y = ops_input(CURED_TYPE_FLOAT32, FL_REAL2);
    CUstream s = stream_new();
    CUdeviceptr d = dev_alloc(16);
    double want[2], got[2];
    CURED_OK(cured_comm_dot(CC, DP(x->dev), DP(y->dev), CURED_TYPE_FLOAT32, x->n, &want[0], CURED_TYPE_FLOAT64, 0, s));
    CURED_OK(cured_comm_reduce_stats(CC, CURED_OP_VAR, DP(x->dev), CURED_TYPE_FLOAT32, x->n, 1, &want[1],
                                     CURED_TYPE_FLOAT64, 0, s));
    poison(d, 16);
    CUgraph g;
    CUgraphExec e;
    CU_OK(D->StreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    cured_status st = cured_comm_dot_async(CC, DP(x->dev), DP(y->dev), CURED_TYPE_FLOAT32, x->n, DP(d),
                                           CURED_TYPE_FLOAT64, 0, s);
    if (st == CURED_SUCCESS)
        st = cured_comm_reduce_stats_async(CC, CURED_OP_VAR, DP(x->dev), CURED_TYPE_FLOAT32, x->n, 1, DP(d + 8),
                                           CURED_TYPE_FLOAT64, 0, s);
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
    download(got, d, 16);
    ck_assert_msg(memcmp(got, want, sizeof got) == 0, "captured: %.17g %.17g, want %.17g %.17g", got[0], got[1],
                  want[0], want[1]);
    CU_OK(D->GraphExecDestroy(e));
    CU_OK(D->GraphDestroy(g));
    printf("graph capture: the captured DOT and VAR give the synchronous calls' results\n");
}
END_TEST

static Suite *nccl_stats_suite(void)
{
    Suite *s = suite_create("gpu-nccl-stats");
    TCase *tc = tcase_create("comm-stats");
    tcase_add_checked_fixture(tc, comm_setup, ops_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dot);
    tcase_add_test(tc, test_stats_ddof);
    tcase_add_test(tc, test_stats_edges);
    tcase_add_test(tc, test_axes_stats);
    tcase_add_test(tc, test_graph_capture);
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
        printf("SKIP: test-gpu-nccl-stats needs NCCL (%s does not load)\n", nccl_path());
        return 77;
    }
    return gpu_main("test-gpu-nccl-stats", nccl_stats_suite());
}
