/*
 * test-gpu-stats: multi-field user-defined reductions on the GPU. The
 * header's two examples (mean and variance from two sums, against the
 * built-in MEAN_VAR and the host; a count-weighted average of two inputs,
 * at the same and at different offsets within 16 bytes), a four-field op
 * of four types with four results (exact), n = 0, results written only
 * where they belong, and compile errors reported at creation.
 */
#include "gpu_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const cured_custom_field meanvar_fields[2] = {{CURED_TYPE_FLOAT64, "x", "a0 + b0", "0"},
                                                     {CURED_TYPE_FLOAT64, "(double)x * x", "a1 + b1", "0"}};
static const char *const meanvar_fin[2] = {"a0 / n", "(a1 - a0 * a0 / n) / n"};
static const cured_custom_field wavg_fields[2] = {{CURED_TYPE_FLOAT64, "(double)x * y", "a0 + b0", "0"},
                                                  {CURED_TYPE_FLOAT64, "y", "a1 + b1", "0"}};
static const char *const wavg_fin[1] = {"a0 / a1"};

/* Async into a poisoned device slot and sync into a poisoned host buffer: the
 * same bytes, bytes bytes of them, and nothing written after. */
static void run_both(cured_custom op, CUdeviceptr x, CUdeviceptr y, size_t n, size_t bytes, void *got)
{
    CUdeviceptr slot = dev_alloc(64);
    poison(slot, 64);
    CURED_OK(cured_custom_reduce_async(H, op, DP(x), y ? DP(y) : NULL, n, DP(slot), NULL));
    unsigned char a[64], s[64];
    download(a, slot, 64);
    dev_free(slot);
    memset(s, POISON_BYTE, sizeof s);
    CURED_OK(cured_custom_reduce(H, op, DP(x), y ? DP(y) : NULL, n, s, NULL));
    for (size_t k = bytes; k < 64; k++)
        ck_assert_msg(a[k] == POISON_BYTE && s[k] == POISON_BYTE, "byte %zu past the results was written", k);
    ck_assert_msg(memcmp(a, s, bytes) == 0, "the asynchronous and synchronous results differ");
    memcpy(got, a, bytes);
}

/* Example 1 against the built-in MEAN_VAR and the host reference. */
START_TEST(test_custom_meanvar)
{
    cured_custom op = NULL;
    CURED_OK(cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 1, meanvar_fields, 2, CURED_TYPE_FLOAT64, meanvar_fin,
                                       2, &op));
    struct rng g;
    rng_init(&g, "custom-meanvar", 0);
    const size_t big = gs_big(), sizes[] = {1, 33, 1003, big};
    float *h = gs_malloc(big * sizeof *h);
    for (size_t i = 0; i < big; i++)
        h[i] = (float)(0.5 + gs_normal(&g));
    for (size_t k = 0; k < 4; k++) {
        const size_t n = sizes[k];
        CUdeviceptr d = gs_upload(CURED_TYPE_FLOAT32, h, n, k % 4);
        double user[2], builtin[2];
        run_both(op, d, 0, n, 16, (unsigned char *)user);
        CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN_VAR, DP(d), CURED_TYPE_FLOAT32, n, 0, builtin, CURED_TYPE_FLOAT64,
                                    NULL));
        struct stats_ref r;
        stats_ref_compute(CURED_TYPE_FLOAT32, h, n, &r);
        /* two sums in float64: the mean to ~1e-15, the variance (a difference) to ~1e-12 here */
        ck_assert_msg(fabs(user[0] - builtin[0]) <= 1e-14 * (1 + fabs(builtin[0])) &&
                          fabsl(user[0] - r.mean) <= 1e-14L * (1 + fabsl(r.mean)),
                      "n %zu: user mean %.17g, built-in %.17g, exact %.17Lg (seed %llu)", n, user[0], builtin[0],
                      r.mean, test_seed);
        ck_assert_msg(fabs(user[1] - builtin[1]) <= 1e-11 * (1 + builtin[1]) &&
                          fabsl(user[1] - r.m2 / n) <= 1e-11L * (1 + r.m2 / n),
                      "n %zu: user variance %.17g, built-in %.17g, exact %.17Lg (seed %llu)", n, user[1],
                      builtin[1], r.m2 / n, test_seed);
    }
    /* n = 0: the identity, finalized: 0 / 0 */
    double e[2];
    run_both(op, gs_upload(CURED_TYPE_FLOAT32, h, 0, 0), 0, 0, 16, (unsigned char *)e);
    ck_assert(isnan(e[0]) && isnan(e[1]));
    CURED_OK(cured_custom_destroy(op));
}
END_TEST

/* Example 2: values x, counts y; y at the same offset within 16 bytes as x (vector loads) and at another. */
START_TEST(test_custom_weighted)
{
    cured_custom op = NULL;
    CURED_OK(cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 2, wavg_fields, 2, CURED_TYPE_FLOAT64, wavg_fin, 1, &op));
    struct rng g;
    rng_init(&g, "custom-weighted", 0);
    const size_t n = gs_big();
    float *x = gs_malloc(n * sizeof *x), *y = gs_malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(10 + gs_normal(&g));
        y[i] = (float)(rng_u32(&g) % 100);
    }
    static const size_t offs[][2] = {{0, 0}, {1, 1}, {1, 2}, {3, 0}};
    for (size_t k = 0; k < 4; k++) {
        const size_t m = k % 2 ? n : 1003;
        long double sxy = 0, sy = 0;
        for (size_t i = 0; i < m; i++) {
            sxy += (long double)x[i] * y[i];
            sy += y[i];
        }
        double got;
        run_both(op, gs_upload(CURED_TYPE_FLOAT32, x, m, offs[k][0]), gs_upload(CURED_TYPE_FLOAT32, y, m, offs[k][1]),
                 m, 8, (unsigned char *)&got);
        ck_assert_msg(fabsl(got - sxy / sy) <= 1e-13L * fabsl(sxy / sy), "n %zu offsets %zu %zu: %.17g, want %.17Lg",
                      m, offs[k][0], offs[k][1], got, sxy / sy);
    }
    CURED_OK(cured_custom_destroy(op));
}
END_TEST

/* Four fields of four types, four results: OR of signs, count, max-abs, xor, all exact. */
START_TEST(test_custom_four_fields)
{
    const cured_custom_field f[4] = {{CURED_TYPE_INT8, "x < 0", "a0 | b0", "0"},
                                     {CURED_TYPE_INT64, "x % 3 == 0", "a1 + b1", "0"},
                                     {CURED_TYPE_FLOAT32, "fabsf((float)x)", "fmaxf(a2, b2)", "0"},
                                     {CURED_TYPE_UINT16, "(unsigned short)x", "(unsigned short)(a3 ^ b3)", "0"}};
    const char *fin[4] = {"a0", "a1 / n", "a2", "a3"};
    cured_custom op = NULL;
    CURED_OK(cured_custom_create_multi(H, CURED_TYPE_INT32, 1, f, 4, CURED_TYPE_FLOAT64, fin, 4, &op));
    struct rng g;
    rng_init(&g, "custom-four", 0);
    const size_t n = gs_big();
    int32_t *h = gs_malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = (int32_t)(rng_u32(&g) % 2000001) - 1000000;
    for (size_t m = 1; m <= n; m = m * 33 + 7) {
        int neg = 0;
        int64_t count = 0;
        float maxabs = 0;
        unsigned short xr = 0;
        for (size_t i = 0; i < m; i++) {
            neg |= h[i] < 0;
            count += h[i] % 3 == 0;
            maxabs = fabsf((float)h[i]) > maxabs ? fabsf((float)h[i]) : maxabs;
            xr ^= (unsigned short)h[i];
        }
        double got[4];
        run_both(op, gs_upload(CURED_TYPE_INT32, h, m, m % 4), 0, m, 32, (unsigned char *)got);
        ck_assert_msg(got[0] == neg && got[1] == (double)count / (double)m && got[2] == maxabs && got[3] == xr,
                      "n %zu: %g %g %g %g, want %d %g %g %u", m, got[0], got[1], got[2], got[3], neg,
                      (double)count / (double)m, maxabs, xr);
    }
    CURED_OK(cured_custom_destroy(op));
}
END_TEST

/* A compile error at creation: CURED_ERROR_COMPILE naming the expression, no op;
 * a name the slot does not have (another letter, or a field past nfields) is
 * refused before that. */
START_TEST(test_custom_errors)
{
    cured_custom_field f[2] = {meanvar_fields[0], meanvar_fields[1]};
    f[1].combine = "a1 + c1";
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    CURED_EXPECT(CURED_ERROR_INVALID_EXPRESSION,
                 cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op));
    ck_assert_ptr_null(op);
    ck_assert_msg(strstr(cured_last_error(), "fields[1].combine") != NULL && strstr(cured_last_error(), "'c1'"), "%s",
                  cured_last_error());
    f[1].combine = "a1 + b3"; /* a combine name, but this state has two fields */
    op = (cured_custom)(uintptr_t)0x1;
    CURED_EXPECT(CURED_ERROR_INVALID_EXPRESSION,
                 cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op));
    ck_assert_ptr_null(op);
    ck_assert_msg(strstr(cured_last_error(), "fields[1].combine") != NULL && strstr(cured_last_error(), "'b3'"), "%s",
                  cured_last_error());
    f[1].combine = "a1 % b1"; /* allowed names, but % of two doubles does not compile */
    op = (cured_custom)(uintptr_t)0x1;
    CURED_EXPECT(CURED_ERROR_COMPILE,
                 cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op));
    ck_assert_ptr_null(op);
    ck_assert_msg(strstr(cured_last_error(), "fields[1].combine(1)") != NULL, "%s", cured_last_error());
    const char *bad[1] = {"a0; a1"};
    op = (cured_custom)(uintptr_t)0x1;
    CURED_EXPECT(CURED_ERROR_INVALID_EXPRESSION,
                 cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 1, meanvar_fields, 2, CURED_TYPE_FLOAT64, bad, 1, &op));
    ck_assert_ptr_null(op);
    ck_assert_msg(strstr(cured_last_error(), "finalize[0]") != NULL, "%s", cured_last_error());
}
END_TEST

TCase *gs_custom_tcase(void)
{
    TCase *tc = tcase_create("user_defined_multi");
    tcase_add_checked_fixture(tc, gs_setup, gs_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_custom_meanvar);
    tcase_add_test(tc, test_custom_weighted);
    tcase_add_test(tc, test_custom_four_fields);
    tcase_add_test(tc, test_custom_errors);
    return tc;
}
