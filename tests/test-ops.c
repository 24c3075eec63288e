/*
 * Every operator, element type and result type the library offers, on the
 * GPU, against host references computed in higher precision (ops_ref.c):
 * sizes 0, 1, 33 and 2^20 + 7, starts misaligned within 16 bytes, several
 * kinds of data per type (exact float sums, wrapping integer products,
 * sparse bit patterns, random bit patterns with and without NaNs, random
 * reals with a tolerance), results written only where documented; float
 * sums are bitwise repeatable. Edge values are in ops_edge.c, user-defined
 * operators in ops_custom.c.
 *
 * Exits 77 (SKIP) without a GPU. The seed is printed with any failure;
 * CURED_TEST_SEED=<seed> reproduces the data. CURED_TEST_NO_HUGE=1 (e.g.
 * under compute-sanitizer) runs 2^14 + 7 instead of 2^20 + 7 elements and
 * 2^20 instead of 2^26 for the repeatability test.
 */
#include "ops_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The result is one of the elements (or its index): tests/ops_ref.c's oracle. */
static int is_extreme(cured_op op)
{
    return ref_op(op)->kind == REF_EXTREME || ref_op(op)->kind == REF_ARG;
}

static int is_sum_like(cured_op op)
{
    return ref_op(op)->kind == REF_SUM_LIKE;
}

/* The data each operator is checked on first (see enum ref_flavour): the oracle's, without NaNs
 * (the NaN cases come after) and with exact sums for the statistics. */
static enum ref_flavour main_flavour(cured_op op)
{
    const enum ref_flavour fl = ref_op(op)->data;
    return fl == FL_WIDE_NAN ? FL_WIDE : fl == FL_REAL ? FL_RAND : fl;
}

enum mode { ASYNC, SYNC_DEFAULT, SYNC_STREAM };

/* The synchronous cases repeat asynchronous ones: the last references of a
 * test (the inputs' host copies live as long as it). */
static struct memo {
    cured_op op;
    cured_type in, out;
    enum ref_flavour fl;
    size_t n, xoff, yoff;
    const void *host;
    struct ref_result r;
} memo[8];
static unsigned memo_next;

/* One case: op over n elements of flavour fl from element offset xoff (DOT: the
 * second input, of the matching second flavour, from yoff). */
static void run_case(struct ops_batch *b, cured_op op, cured_type in, cured_type out, enum ref_flavour fl,
                     size_t n, size_t xoff, size_t yoff, enum mode mode)
{
    const size_t size = ref_size(in);
    const struct ops_input *x = ops_input(in, fl), *y = NULL;
    if (cr_op(op)->flags & CR_OP_TWO_INPUTS)
        y = ops_input(in, fl == FL_REAL ? FL_REAL2 : FL_RAND2);
    ck_assert_msg(xoff + n <= x->n && yoff + n <= x->n, "test bug: case past the input");
    struct ref_result r;
    struct memo key = {op, in, out, fl, n, xoff, yoff, x->host, {0}};
    int found = 0;
    for (int k = 0; k < 8 && !found; k++)
        if (memo[k].host == key.host && memo[k].op == op && memo[k].in == in && memo[k].out == out &&
            memo[k].fl == fl && memo[k].n == n && memo[k].xoff == xoff && memo[k].yoff == yoff) {
            r = memo[k].r;
            found = 1;
        }
    if (!found) {
        ref_reduce(op, in, out, (const char *)x->host + xoff * size,
                   y ? (const char *)y->host + yoff * size : NULL, n, fl != FL_REAL && fl != FL_REAL_NAN, &r);
        key.r = r;
        memo[memo_next++ % 8] = key;
    }
    char what[200], yo[40] = "";
    if (y)
        snprintf(yo, sizeof yo, " (y offset %zu)", yoff);
    snprintf(what, sizeof what, "%s %s->%s n=%zu offset %zu%s, %s data", cured_op_name(op), cured_type_name(in),
             cured_type_name(out), n, xoff, yo, ref_flavour_name(fl));
    CUdeviceptr dx = n ? x->dev + xoff * size : 0, dy = y && n ? y->dev + yoff * size : 0;
    if (mode == ASYNC)
        ops_add(b, op, in, out, dx, dy, n, &r, what);
    else
        ops_sync(op, in, out, dx, dy, n, &r, what, mode == SYNC_STREAM ? b->stream : NULL);
}

static void run_spec(cured_op op, cured_type in, cured_type out, size_t spec)
{
    const size_t big = ops_big(), vec = 16 / ref_size(in);
    const enum ref_flavour fl = main_flavour(op);
    struct rng r;
    rng_init(&r, "ops-offsets", (long)spec);
    /* Random starts within 16 bytes (never 0); o3 differs from o1 for two-input calls. */
    const size_t o1 = 1 + rng_u32(&r) % (vec - 1), o2 = 1 + rng_u32(&r) % (vec - 1);
    const size_t o3 = o1 + 1 < vec ? o1 + 1 : 0;

    struct ops_batch b;
    ops_begin(&b, 64);
    run_case(&b, op, in, out, fl, 0, 0, 0, ASYNC); /* the identity, or EMPTY_INPUT */
    run_case(&b, op, in, out, fl, 1, 0, 0, ASYNC);
    run_case(&b, op, in, out, fl, 33, 0, 0, ASYNC);
    run_case(&b, op, in, out, fl, 33, o1, o1, ASYNC);
    run_case(&b, op, in, out, fl, big, 0, 0, ASYNC);
    run_case(&b, op, in, out, fl, big, o2, o2, ASYNC);
    if (cr_op(op)->flags & CR_OP_TWO_INPUTS) { /* inputs at different offsets within 16 bytes: the scalar path */
        run_case(&b, op, in, out, fl, 33, 0, 1, ASYNC);
        run_case(&b, op, in, out, fl, 33, o1, o3, ASYNC);
        run_case(&b, op, in, out, fl, big, 1, 0, ASYNC);
        run_case(&b, op, in, out, fl, big, o3, o1, ASYNC);
    }
    if (op == CURED_OP_SUM || op == CURED_OP_ARGMAX) /* every misaligned start, two sizes */
        for (size_t o = 1; o < vec; o++) {
            run_case(&b, op, in, out, fl, 33, o, o, ASYNC);
            run_case(&b, op, in, out, fl, ops_mid(), o, o, ASYNC);
        }
    if (ref_is_float(in) && is_sum_like(op)) { /* inexact sums: within a tolerance */
        run_case(&b, op, in, out, FL_REAL, 33, o1, o1, ASYNC);
        run_case(&b, op, in, out, FL_REAL, big, 0, 0, ASYNC);
        run_case(&b, op, in, out, FL_REAL, big, o2, o2, ASYNC);
    }
    const enum ref_flavour skip = op == CURED_OP_NANSUM ? FL_RAND_NAN : FL_REAL_NAN;
    if (ref_is_float(in) && (cr_op(op)->flags & CR_OP_SKIPS_NAN)) { /* NaN elements skipped */
        run_case(&b, op, in, out, skip, 1, 20, 20, ASYNC); /* one NaN: the empty value */
        run_case(&b, op, in, out, skip, 33, 0, 0, ASYNC);
        run_case(&b, op, in, out, skip, 33, o1, o1, ASYNC);
        run_case(&b, op, in, out, skip, big, 0, 0, ASYNC);
        run_case(&b, op, in, out, skip, big, o2, o2, ASYNC);
    }
    if (ref_is_float(in) && is_extreme(op)) { /* NaNs propagate or are ignored */
        run_case(&b, op, in, out, FL_WIDE_NAN, 33, 0, 0, ASYNC);
        run_case(&b, op, in, out, FL_WIDE_NAN, 33, o1, o1, ASYNC);
        run_case(&b, op, in, out, FL_WIDE_NAN, big, 0, 0, ASYNC);
        run_case(&b, op, in, out, FL_WIDE_NAN, big, o2, o2, ASYNC);
    }
    ops_finish(&b);

    run_case(&b, op, in, out, fl, 0, 0, 0, SYNC_STREAM);
    run_case(&b, op, in, out, fl, 33, 0, 0, SYNC_DEFAULT);
    run_case(&b, op, in, out, fl, big, o2, o2, SYNC_STREAM);
    if (ref_is_float(in) && is_extreme(op))
        run_case(&b, op, in, out, FL_WIDE_NAN, big, 0, 0, SYNC_DEFAULT);
    if (ref_is_float(in) && (cr_op(op)->flags & CR_OP_SKIPS_NAN)) {
        run_case(&b, op, in, out, skip, 1, 20, 20, SYNC_DEFAULT); /* NANMEAN...: TOO_FEW_ELEMENTS */
        run_case(&b, op, in, out, skip, big, o2, o2, SYNC_STREAM);
    }
}

/*
 * Loop test over operators: every AUTO specialization of the operator (DOT
 * through cured_dot), each on its own random offsets.
 */
START_TEST(test_op)
{
    const cured_op op = (cured_op)_i;
    size_t tested = 0;
    memset(memo, 0, sizeof memo);
    for (size_t k = 0; k < cr_catalog_count(); k++) {
        const struct cr_request *p = &cr_catalog(k)->req;
        if (p->algo != CURED_ALGO_AUTO || p->op != op)
            continue;
        run_spec(op, p->in, p->out, k);
        tested++;
    }
    ck_assert_msg(tested > 0, "no AUTO specialization of %s", cured_op_name(op));
}
END_TEST

/*
 * Determinism: one float32 sum of 2^26 random values (2^20 with
 * CURED_TEST_NO_HUGE), 20 times, alternately on a created and the default
 * stream, gives the same bits each time (and a correct value).
 */
START_TEST(test_determinism)
{
    enum { RUNS = 20 };
    const size_t n = ops_reduced() ? (size_t)1 << 20 : (size_t)1 << 26;
    float *h = ops_malloc(n * sizeof *h);
    struct rng r;
    rng_init(&r, "determinism", 0);
    ref_fill(CURED_TYPE_FLOAT32, FL_REAL, &r, h, n);
    struct ref_result ref;
    ref_reduce(CURED_OP_SUM, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, h, NULL, n, 0, &ref);
    CUdeviceptr d = dev_alloc(n * sizeof *h);
    upload(d, h, n * sizeof *h);
    ops_free(h);

    CUstream s = stream_new();
    uint32_t bits[RUNS];
    for (int i = 0; i < RUNS; i++) {
        unsigned char got[4];
        memset(got, POISON_BYTE, sizeof got);
        CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(d), CURED_TYPE_FLOAT32, n, got,
                              CURED_TYPE_FLOAT32, i % 2 ? NULL : s));
        memcpy(&bits[i], got, 4);
        if (i == 0)
            ref_check(CURED_OP_SUM, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, got, &ref,
                      "float32 sum for the determinism test");
        ck_assert_msg(bits[i] == bits[0], "float32 sum of %zu values, run %d: bits 0x%08x, run 0: 0x%08x (seed %llu)",
                      n, i, bits[i], bits[0], test_seed);
    }
    /* And the asynchronous calls, queued back to back, agree with them. */
    CUdeviceptr out = dev_alloc(RUNS * 4);
    poison(out, RUNS * 4);
    for (int i = 0; i < RUNS; i++)
        CURED_OK(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(d), CURED_TYPE_FLOAT32, n,
                                    DP(out + (size_t)i * 4), CURED_TYPE_FLOAT32, s));
    CU_OK(D->StreamSynchronize(s));
    uint32_t async_bits[RUNS];
    download(async_bits, out, sizeof async_bits);
    for (int i = 0; i < RUNS; i++)
        ck_assert_msg(async_bits[i] == bits[0], "async float32 sum %d: bits 0x%08x, sync: 0x%08x (seed %llu)", i,
                      async_bits[i], bits[0], test_seed);
}
END_TEST

static Suite *ops_suite(void)
{
    Suite *s = suite_create("ops");
    TCase *every = tcase_create("every_op");
    tcase_add_checked_fixture(every, ops_setup, ops_teardown);
    tcase_set_timeout(every, 600);
    tcase_add_loop_test(every, test_op, 0, CURED_OP_COUNT);
    tcase_add_test(every, test_determinism);
    suite_add_tcase(s, every);
    suite_add_tcase(s, ops_edge_tcase());
    suite_add_tcase(s, ops_custom_tcase());
    return s;
}

int main(void)
{
    return gpu_main("test-ops", ops_suite());
}
