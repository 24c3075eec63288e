/*
 * The statistics operators and the multi-field user-defined reductions
 * without a GPU: cured_reduce_stats(_async)'s argument checks and the
 * synchronous n <= ddof rule, the stats family (which requests it serves,
 * its kernel names, its launch plan with ddof), the host references of
 * tests/stats_ref.c against exact integer arithmetic and closed forms, and
 * cured_custom_create_multi (stats_multi.c): argument and expression checks,
 * the state's layout, the header's examples compiled by NVRTC, compile
 * errors that name the expression, and the memory cache.
 *
 * Needs NVRTC (exit 77 without it), as test-compile.
 */
#include "api_test.h"
#include "ops_ref.h"
#include "stats_ref.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#define IN_OK ((const void *)(uintptr_t)0x1000)
#define OUT_OK ((const void *)(uintptr_t)0x2000)

TCase *stats_multi_tcase(void); /* stats_multi.c */

static const cured_op stats_ops[] = {CURED_OP_MEAN,    CURED_OP_VAR,     CURED_OP_STD,    CURED_OP_MEAN_VAR,
                                     CURED_OP_LOGSUMEXP, CURED_OP_NANMEAN, CURED_OP_NANVAR, CURED_OP_NANSTD};
#define NSTATS 8
#define NSKIP 3 /* the last three skip NaNs: integer inputs run their base (MEAN, VAR, STD) */

static cured_status args(cured_op op, size_t n, double ddof, int host_out, struct cr_request *r)
{
    clear_error();
    return cr_stats_check_args("call", op, IN_OK, CURED_TYPE_FLOAT32, n, ddof, OUT_OK, CURED_TYPE_FLOAT32, host_out,
                               r);
}

START_TEST(test_stats_args)
{
    struct cr_request r;
    /* The request carries ddof; MEAN and LOGSUMEXP take any. */
    ck_assert_int_eq(args(CURED_OP_VAR, 10, 1.5, 0, &r), CURED_SUCCESS);
    ck_assert(r.ddof == 1.5 && r.op == CURED_OP_VAR && r.out == CURED_TYPE_FLOAT32);
    ck_assert_int_eq(args(CURED_OP_LOGSUMEXP, 10, 7, 1, &r), CURED_SUCCESS);
    ck_assert_int_eq(args(CURED_OP_MEAN, 1, 5, 1, &r), CURED_SUCCESS);
    /* Not a statistic. */
    ck_assert_int_eq(args(CURED_OP_SUM, 10, 0, 0, &r), CURED_ERROR_INVALID_VALUE);
    assert_message_contains("SUM", "cured_reduce_async()");
    ck_assert_int_eq(args(CURED_OP_ARGMAX, 10, 0, 1, &r), CURED_ERROR_INVALID_VALUE);
    assert_message_contains("ARGMAX", "a statistic (MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR, NANSTD)");
    /* ddof: finite and >= 0. */
    static const double bad[] = {-1, -0.5, INFINITY, -INFINITY, NAN};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        ck_assert_int_eq(args(CURED_OP_STD, 10, bad[k], 0, &r), CURED_ERROR_INVALID_VALUE);
        assert_message_contains("ddof", "ddof");
        /* MEAN and LOGSUMEXP do not use ddof's value, and refuse a bad one all the same (cured.h) */
        ck_assert_int_eq(args(CURED_OP_MEAN, 10, bad[k], 1, &r), CURED_ERROR_INVALID_VALUE);
        assert_message_contains("MEAN's ddof", "ddof must be finite and >= 0");
        ck_assert_int_eq(args(CURED_OP_LOGSUMEXP, 10, bad[k], 0, &r), CURED_ERROR_INVALID_VALUE);
        assert_message_contains("LOGSUMEXP's ddof", "ddof must be finite and >= 0");
    }
    /* Another operator is INVALID_VALUE before its types or its empty input are looked at
     * (SUM has no int32 -> float64; ARGMAX of nothing is EMPTY_INPUT elsewhere). */
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_SUM, IN_OK, CURED_TYPE_INT32, 4, 0, OUT_OK,
                                         CURED_TYPE_FLOAT64, 1, &r),
                     CURED_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_ARGMAX, NULL, CURED_TYPE_FLOAT32, 0, 0, OUT_OK,
                                         CURED_TYPE_FLOAT32, 0, &r),
                     CURED_ERROR_INVALID_VALUE);
    /* Then the common checks: enums, types, pointers, alignment (of a device output only:
     * a synchronous call's host buffer is filled by memcpy). */
    clear_error();
    ck_assert_int_eq(cr_stats_check_args("c", (cured_op)CURED_OP_COUNT, IN_OK, CURED_TYPE_FLOAT32, 1, 0, OUT_OK,
                                         CURED_TYPE_FLOAT32, 0, &r),
                     CURED_ERROR_INVALID_ENUM);
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_VAR, IN_OK, CURED_TYPE_INT32, 1, 0, OUT_OK,
                                         CURED_TYPE_FLOAT32, 0, &r),
                     CURED_ERROR_TYPE_MISMATCH);
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT64, 1, 0, OUT_OK,
                                         CURED_TYPE_FLOAT32, 0, &r),
                     CURED_ERROR_TYPE_MISMATCH);
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_VAR, NULL, CURED_TYPE_FLOAT32, 1, 0, OUT_OK,
                                         CURED_TYPE_FLOAT32, 0, &r),
                     CURED_ERROR_NULL_POINTER);
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_MEAN_VAR, IN_OK, CURED_TYPE_FLOAT32, 1, 0,
                                         (const void *)(uintptr_t)0x2004, CURED_TYPE_FLOAT64, 0, &r),
                     CURED_ERROR_MISALIGNED);
    ck_assert_int_eq(cr_stats_check_args("c", CURED_OP_MEAN_VAR, IN_OK, CURED_TYPE_FLOAT32, 4, 0,
                                         (const void *)(uintptr_t)0x2004, CURED_TYPE_FLOAT64, 1, &r),
                     CURED_SUCCESS);
    /* A bad ddof is reported before the n <= ddof rule. */
    ck_assert_int_eq(args(CURED_OP_VAR, 0, -1, 1, &r), CURED_ERROR_INVALID_VALUE);
    /* cured_reduce_stats with a NULL handle. */
    float host[2];
    ck_assert_int_eq(cured_reduce_stats(NULL, CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT32, 1, 0, host,
                                        CURED_TYPE_FLOAT32, NULL),
                     CURED_ERROR_NULL_HANDLE);
    ck_assert_int_eq(cured_reduce_stats_async(NULL, CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT32, 1, 0, (void *)OUT_OK,
                                              CURED_TYPE_FLOAT32, NULL),
                     CURED_ERROR_NULL_HANDLE);
}
END_TEST

/* n <= ddof: TOO_FEW_ELEMENTS from the synchronous calls only, MEAN with n == 0 only. */
START_TEST(test_too_few)
{
    static const struct {
        cured_op op;
        size_t n;
        double ddof;
        int too_few;
    } cases[] = {
        {CURED_OP_MEAN, 0, 0, 1},     {CURED_OP_MEAN, 1, 0, 0},       {CURED_OP_MEAN, 1, 3, 0},
        {CURED_OP_VAR, 0, 0, 1},      {CURED_OP_VAR, 1, 0, 0},        {CURED_OP_VAR, 1, 1, 1},
        {CURED_OP_VAR, 2, 1, 0},      {CURED_OP_VAR, 2, 1.5, 0},      {CURED_OP_VAR, 2, 2, 1},
        {CURED_OP_STD, 3, 3.5, 1},    {CURED_OP_MEAN_VAR, 1, 1, 1},   {CURED_OP_MEAN_VAR, 5, 4, 0},
        {CURED_OP_LOGSUMEXP, 0, 0, 0}, {CURED_OP_LOGSUMEXP, 0, 5, 0},
        /* the NaN-skipping ones: n itself too few (their NaNs found after the run: test_too_few_nan) */
        {CURED_OP_NANMEAN, 0, 0, 1},  {CURED_OP_NANMEAN, 1, 3, 0},    {CURED_OP_NANVAR, 2, 2, 1},
        {CURED_OP_NANVAR, 3, 2, 0},   {CURED_OP_NANSTD, 1, 1, 1},     {CURED_OP_NANSTD, 2, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct cr_request r;
        cured_status st = args(cases[k].op, cases[k].n, cases[k].ddof, 1, &r);
        ck_assert_msg(st == (cases[k].too_few ? CURED_ERROR_TOO_FEW_ELEMENTS : CURED_SUCCESS),
                      "%s n %zu ddof %g: %s", cured_op_name(cases[k].op), cases[k].n, cases[k].ddof,
                      cured_status_string(st));
        if (cases[k].too_few)
            assert_message_contains(cured_op_name(cases[k].op), "NaN");
        ck_assert_int_eq(args(cases[k].op, cases[k].n, cases[k].ddof, 0, &r), CURED_SUCCESS);
    }
    /* cured_reduce()'s rule (ddof 0) through the same function. */
    struct cr_request r;
    ck_assert_int_eq(cr_check_args(CURED_OP_STD, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT64, 0, OUT_OK,
                                   CURED_TYPE_FLOAT64, &r),
                     CURED_SUCCESS);
    ck_assert(r.ddof == 0);
    ck_assert_int_eq(cr_stats_check_sync(&r, 0), CURED_ERROR_TOO_FEW_ELEMENTS);
    ck_assert_int_eq(cr_stats_check_sync(&r, 1), CURED_SUCCESS);
    ck_assert_int_eq(cr_check_args(CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT64, 0, OUT_OK,
                                   CURED_TYPE_FLOAT64, &r),
                     CURED_SUCCESS);
    ck_assert_int_eq(cr_stats_check_sync(&r, 0), CURED_SUCCESS);
    ck_assert_str_eq(cured_status_string(CURED_ERROR_TOO_FEW_ELEMENTS), "CURED_ERROR_TOO_FEW_ELEMENTS");
    ck_assert_int_eq(CURED_ERROR_TOO_FEW_ELEMENTS, 22); /* 21 belongs to another change */
}
END_TEST

/* Every statistic and type: the stats family, its kernel, in the catalog once; AUTO does not offer them. */
START_TEST(test_family)
{
    size_t offered = 0;
    for (int k = 0; k < NSTATS; k++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++) {
                struct cr_request r;
                if (cr_request_make(stats_ops[k], CURED_ALGO_AUTO, (cured_type)in, (cured_type)out, &r) !=
                    CURED_SUCCESS)
                    continue;
                const int skip = k >= NSTATS - NSKIP, is_float = cr_type((cured_type)in)->cls == CR_HALF ||
                                                                  cr_type((cured_type)in)->cls == CR_FLOAT;
                ck_assert_int_eq(r.op, skip && !is_float ? stats_ops[k - 5] : stats_ops[k]);
                offered += r.op == stats_ops[k]; /* a base's request counts once */
                ck_assert_ptr_eq(cr_family_for(&r), &cr_family_stats);
                ck_assert_int_eq(cr_family_auto.offers(&r), 0);
                const int c = cr_catalog_index(&r);
                ck_assert_int_ge(c, 0);
                const struct cr_unit *u = cr_catalog_unit((size_t)c);
                ck_assert_str_eq(u->file, "stats.cu");
                ck_assert_msg(strncmp(u->kernels[0], "reduce_stats<", 13) == 0, "%s", u->kernels[0]);
                ck_assert_msg(strstr(u->label, cured_op_name(r.op)) != NULL, "%s", u->label);
                ck_assert_msg((strstr(u->kernels[0], "Nan") != NULL) == (skip && is_float), "%s", u->kernels[0]);
                ck_assert_uint_eq(r.acc.size, stats_ops[k] == CURED_OP_LOGSUMEXP ? 16 : 32);
                ck_assert_uint_eq(r.acc.result_size, cured_type_size((cured_type)out) *
                                                         (stats_ops[k] == CURED_OP_MEAN_VAR ? 2 : 1));
                /* LOGSUMEXP's precision is the result type; the moments are float64 inside. */
                ck_assert_msg(strstr(u->kernels[0], out == CURED_TYPE_FLOAT32 ? "float, float>" : "double, double>"),
                              "%s", u->kernels[0]);
            }
    /* 3 float types x {float32, float64} + float64 + 8 integer types, for each of the five; the
     * float ones for each NaN-skipping one */
    ck_assert_uint_eq(offered, (NSTATS - NSKIP) * (3 * 2 + 1 + 8) + NSKIP * (3 * 2 + 1));
    size_t in_catalog = 0;
    for (size_t c = 0; c < cr_catalog_count(); c++)
        in_catalog += stats_is_op(cr_catalog(c)->req.op);
    ck_assert_uint_eq(in_catalog, offered);
}
END_TEST

/* A synchronous call's status from its result: the NaN-skipping statistics' too-few NaN
 * (stats.cuh's stats_too_few: 0x7fc0c0de, 0x7ff8c0de00000000) is TOO_FEW_ELEMENTS; any other
 * NaN is their value (inf - inf); NANMIN's NaN is ALL_NAN; NANSUM has no NaN rule. */
START_TEST(test_too_few_nan)
{
    const uint32_t few32 = 0x7fc0c0de, nan32 = 0x7fffffff, one32 = 0x3f800000;
    const uint64_t few64 = 0x7ff8c0de00000000ull, nan64 = 0x7fffffffffffffffull;
    static const cured_op skip[] = {CURED_OP_NANMEAN, CURED_OP_NANVAR, CURED_OP_NANSTD};
    for (size_t k = 0; k < 3; k++) {
        clear_error();
        ck_assert_int_eq(cr_op_result_status(skip[k], CURED_TYPE_FLOAT32, &few32), CURED_ERROR_TOO_FEW_ELEMENTS);
        assert_message_contains(cured_op_name(skip[k]), cured_op_name(skip[k]));
        ck_assert_int_eq(cr_op_result_status(skip[k], CURED_TYPE_FLOAT64, &few64), CURED_ERROR_TOO_FEW_ELEMENTS);
        ck_assert_int_eq(cr_op_result_status(skip[k], CURED_TYPE_FLOAT32, &nan32), CURED_SUCCESS);
        ck_assert_int_eq(cr_op_result_status(skip[k], CURED_TYPE_FLOAT64, &nan64), CURED_SUCCESS);
        ck_assert_int_eq(cr_op_result_status(skip[k], CURED_TYPE_FLOAT32, &one32), CURED_SUCCESS);
        ck_assert_int_eq(cr_op_result_status(cr_op_base(skip[k]), CURED_TYPE_FLOAT32, &few32), CURED_SUCCESS);
    }
    ck_assert_int_eq(cr_op_result_status(CURED_OP_NANSUM, CURED_TYPE_FLOAT32, &few32), CURED_SUCCESS);
    ck_assert_int_eq(cr_op_result_status(CURED_OP_NANSUM, CURED_TYPE_FLOAT64, &nan64), CURED_SUCCESS);
    ck_assert_int_eq(cr_op_result_status(CURED_OP_NANMIN, CURED_TYPE_FLOAT32, &nan32), CURED_ERROR_ALL_NAN);
    ck_assert_int_eq(cr_op_result_status(CURED_OP_NANMIN, CURED_TYPE_FLOAT32, &one32), CURED_SUCCESS);
    /* the table: each names its base, and integers run the base */
    ck_assert_int_eq(cr_op_base(CURED_OP_NANSUM), CURED_OP_SUM);
    ck_assert_int_eq(cr_op_base(CURED_OP_NANSTD), CURED_OP_STD);
    ck_assert_int_eq(cr_op_base(CURED_OP_VAR), CURED_OP_VAR);
    ck_assert_int_eq(cr_op_for_type(CURED_OP_NANMEAN, CURED_TYPE_INT16), CURED_OP_MEAN);
    ck_assert_int_eq(cr_op_for_type(CURED_OP_NANMEAN, CURED_TYPE_BFLOAT16), CURED_OP_NANMEAN);
}
END_TEST

/* The plan: AUTO's launch (grid, block, parameters) and ddof's bits last. */
START_TEST(test_plan_ddof)
{
    struct cr_request r;
    ck_assert_int_eq(cr_request_make(CURED_OP_MEAN_VAR, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, &r),
                     CURED_SUCCESS);
    struct cr_unit u;
    cr_family_stats.build(&r, &u);
    struct cr_kernel k;
    memset(&k, 0, sizeof k);
    k.blocks_per_sm = 5;
    const struct cr_device_facts dev = {132, 132 * 8};
    const double ddofs[] = {0, 1, 0.25, 1e6};
    for (size_t d = 0; d < sizeof ddofs / sizeof *ddofs; d++)
        for (size_t n = 0; n < ((size_t)1 << 28); n = n * 7 + 1) {
            struct cr_args a = {(const void *)(uintptr_t)0x1000, NULL, n, 0x2000, 0x3000, NULL, ddofs[d], NULL};
            struct cr_plan p, q;
            memset(&p, 0, sizeof p);
            memset(&q, 0, sizeof q);
            cr_family_stats.plan(&r, &u, &k, &dev, &a, &p);
            cr_family_auto.plan(&r, &u, &k, &dev, &a, &q);
            ck_assert_int_eq(p.nlaunch, 1);
            ck_assert_int_eq(p.l[0].nparams, q.l[0].nparams + 1);
            ck_assert_uint_eq(p.l[0].grid, q.l[0].grid);
            ck_assert_uint_le(p.l[0].grid, 5 * 132);
            ck_assert_uint_eq(p.l[0].block, 256);
            for (int i = 0; i < q.l[0].nparams; i++)
                ck_assert_uint_eq(*(uint64_t *)p.l[0].params[i], *(uint64_t *)q.l[0].params[i]);
            double got;
            memcpy(&got, p.l[0].params[p.l[0].nparams - 1], sizeof got);
            ck_assert(got == ddofs[d]);
        }
}
END_TEST

/* ---- the host references ----------------------------------------------------------------- */

/* Integer data: n m2 = n sum(x^2) - (sum x)^2 exactly in 128 bits, so var = that / n^2. */
static void exact_int(const int32_t *x, size_t n, long double *mean, long double *var)
{
    __int128 s = 0, q = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        q += (__int128)x[i] * x[i];
    }
    const __int128 num = (__int128)n * q - s * s;
    *mean = (long double)s / (long double)n;
    *var = (long double)num / ((long double)n * (long double)n);
}

START_TEST(test_reference_exact)
{
    struct rng g;
    rng_init(&g, "stats-ref", 0);
    const size_t n = 100003;
    int32_t *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    /* mean / std up to ~1e6 with large values, int32 range */
    static const int32_t base[] = {0, 1000000, -2000000000, 2000000000};
    static const int spread[] = {3, 1000, 100};
    for (size_t b = 0; b < sizeof base / sizeof *base; b++)
        for (size_t s = 0; s < sizeof spread / sizeof *spread; s++) {
            for (size_t i = 0; i < n; i++) {
                int64_t v = (int64_t)base[b] + (int64_t)(rng_u32(&g) % (2u * spread[s] + 1)) - spread[s];
                x[i] = (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
            }
            long double mean, var;
            exact_int(x, n, &mean, &var);
            struct stats_ref r;
            stats_ref_compute(CURED_TYPE_INT32, x, n, &r);
            ck_assert_msg(fabsl(r.mean - mean) <= ldexpl(fabsl(mean), -60) + LDBL_MIN, "mean %.21Lg, exact %.21Lg",
                          r.mean, mean);
            ck_assert_msg(fabsl(r.m2 / n - var) <= ldexpl(var, -56), "base %d spread %d: var %.21Lg, exact %.21Lg",
                          base[b], spread[s], r.m2 / n, var);
            /* and the float64 two-pass it judges by is no better than float64 */
            ck_assert(fabsl(r.m2_64 / n - var) <= ldexpl(var, -30));
        }
    /* constant input: m2 exactly 0, also in float64 */
    for (size_t i = 0; i < n; i++)
        x[i] = 123456789;
    struct stats_ref r;
    stats_ref_compute(CURED_TYPE_INT32, x, n, &r);
    ck_assert(r.m2 == 0 && r.m2_64 == 0 && r.mean == 123456789);
    /* logsumexp of n copies of c: c + log(n); of {0, log 2 ...}: closed forms */
    float *f = (float *)x;
    for (size_t i = 0; i < n; i++)
        f[i] = -3.5f;
    stats_ref_compute(CURED_TYPE_FLOAT32, f, n, &r);
    ck_assert_msg(fabsl(r.lse - (-3.5L + logl((long double)n))) <= 1e-17L, "%.21Lg", r.lse);
    ck_assert(r.w == 0 && r.max == -3.5L);
    f[0] = 0;
    f[1] = -INFINITY;
    stats_ref_compute(CURED_TYPE_FLOAT32, f, 2, &r);
    ck_assert(r.lse == 0 && r.ninf);
    free(x);
}
END_TEST

/* The expected results: NaN / inf rules, TOO_FEW, tolerances and the result type's range. */
START_TEST(test_reference_rules)
{
    struct ref_result e;
    struct stats_ref r;
    double x[4] = {1, 2, 3, 4};
    stats_ref_compute(CURED_TYPE_FLOAT64, x, 4, &r);
    stats_ref_result(CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT64, &r, 1, &e);
    ck_assert(e.nvalues == 2 && e.status == CURED_SUCCESS);
    ck_assert(e.v[0].f == 2.5L && fabsl(e.v[1].f - 5.0L / 3) < 1e-18L && e.v[0].tol > 0 && e.v[1].tol > 0);
    stats_ref_result(CURED_OP_VAR, CURED_TYPE_FLOAT64, &r, 4, &e);
    ck_assert(e.status == CURED_ERROR_TOO_FEW_ELEMENTS && e.v[0].is_nan);
    stats_ref_result(CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT64, &r, 4, &e);
    ck_assert(e.status == CURED_ERROR_TOO_FEW_ELEMENTS && !e.v[0].is_nan && e.v[1].is_nan);
    stats_ref_compute(CURED_TYPE_FLOAT64, x, 0, &r);
    stats_ref_result(CURED_OP_MEAN, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.status == CURED_ERROR_TOO_FEW_ELEMENTS && e.v[0].is_nan);
    stats_ref_result(CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.status == CURED_SUCCESS && e.v[0].f == -INFINITY);
    x[2] = INFINITY;
    stats_ref_compute(CURED_TYPE_FLOAT64, x, 4, &r);
    stats_ref_result(CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.v[0].f == INFINITY && e.v[1].is_nan);
    stats_ref_result(CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.v[0].f == INFINITY);
    x[1] = -INFINITY;
    stats_ref_compute(CURED_TYPE_FLOAT64, x, 4, &r);
    stats_ref_result(CURED_OP_MEAN, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.v[0].is_nan);
    x[0] = NAN;
    stats_ref_compute(CURED_TYPE_FLOAT64, x, 4, &r);
    stats_ref_result(CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.v[0].is_nan);
    /* A float32 variance beyond float32's range is inf; LOGSUMEXP float32 gets its allowance. */
    double big[2] = {-1e30, 1e30};
    stats_ref_compute(CURED_TYPE_FLOAT64, big, 2, &r);
    stats_ref_result(CURED_OP_VAR, CURED_TYPE_FLOAT32, &r, 0, &e);
    ck_assert(e.v[0].f == INFINITY);
    stats_ref_result(CURED_OP_STD, CURED_TYPE_FLOAT32, &r, 0, &e);
    ck_assert(fabsl(e.v[0].f - 1e30L) < 1e15L);
    float g[3] = {0, -1, -2};
    stats_ref_compute(CURED_TYPE_FLOAT32, g, 3, &r);
    stats_ref_result(CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32, &r, 0, &e);
    ck_assert(e.v[0].tol >= ldexpl(1, -21) && r.w > 0.3L && r.w < 0.6L);
    stats_ref_result(CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT64, &r, 0, &e);
    ck_assert(e.v[0].tol < 1e-14L);
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *host = tcase_create("host");
    tcase_add_test(host, test_stats_args);
    tcase_add_test(host, test_too_few);
    tcase_add_test(host, test_too_few_nan);
    tcase_add_test(host, test_family);
    tcase_add_test(host, test_plan_ddof);
    tcase_add_test(host, test_reference_exact);
    tcase_add_test(host, test_reference_rules);
    suite_add_tcase(s, host);
    suite_add_tcase(s, stats_multi_tcase());
    return s;
}

int main(void)
{
    /* NVRTC only (no CUDA driver), so loading it here, before the forks, is safe. */
    int major, minor;
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        printf("SKIP: NVRTC is not available: %s\n", cured_last_error());
        return 77;
    }
    return run_suite(stats_suite());
}
