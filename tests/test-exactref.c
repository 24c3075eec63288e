/*
 * test-exactref: the benchmarks' host reference for the exact sums
 * (tools/exactref.c, which `cured bench ops` checks the GPU's bits
 * against) by other methods: float64 sums against Shewchuk's exactly
 * rounded msum (Python's math.fsum); narrower results of sums that double
 * holds exactly (integers on a narrow grid) against a rounding written
 * here with nearbyint(); MEAN into float64 against IEEE division of such a
 * sum; NaN, infinity and signed-zero rules; and more terms than one
 * carry period, for the digits' normalisation.
 */
#include <check.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exactref.h"
#include "halfbits.h"

static unsigned long long seed;

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Shewchuk's msum (as Python's math.fsum): the sum of finite x[0..n) rounded once to double. */
static double msum(const double *x, int n)
{
    double p[2100];
    int np = 0;
    for (int i = 0; i < n; i++) {
        double v = x[i];
        int k = 0;
        for (int j = 0; j < np; j++) {
            double y = p[j];
            if (fabs(v) < fabs(y)) {
                double t = v;
                v = y, y = t;
            }
            const double hi = v + y, lo = y - (hi - v);
            if (lo != 0)
                p[k++] = lo;
            v = hi;
        }
        np = k;
        p[np++] = v;
    }
    double hi = 0, lo = 0;
    if (np > 0) {
        hi = p[--np];
        while (np > 0) {
            const double v = hi, y = p[--np];
            hi = v + y;
            const double yr = hi - v;
            lo = y - yr;
            if (lo != 0)
                break;
        }
        /* half-way cases: the remaining partials decide the direction */
        if (np > 0 && ((lo < 0 && p[np - 1] < 0) || (lo > 0 && p[np - 1] > 0))) {
            const double y = lo * 2, v = hi + y, yr = v - hi;
            if (y == yr)
                hi = v;
        }
    }
    return hi;
}

/* A double v rounded once to a format of p significand bits, smallest normal exponent emin and largest emax. */
static double round_to(double v, int p, int emin, int emax)
{
    if (v == 0)
        return v;
    int e = ilogb(v);
    const int q = e - p + 1 > emin - p + 1 ? e - p + 1 : emin - p + 1;
    const double m = nearbyint(ldexp(v, -q)), r = ldexp(m, q);
    return fabs(r) >= ldexp(1.0, emax + 1) ? copysign(INFINITY, v) : r;
}

static double got(const struct xr_acc *a, uint64_t div, cured_type out)
{
    unsigned char b[8];
    xr_result(a, div, out, b);
    return xr_bits_value(out, b);
}

#define same(a, b) (memcmp(&(double){a}, &(double){b}, 8) == 0)

START_TEST(test_fsum)
{
    uint64_t s = seed ^ (uint64_t)_i * 0x632be59bd9b4e019ull;
    for (int c = 0; c < 200; c++) {
        double x[64];
        const int n = 1 + (int)(rnd(&s) % 64), mode = (int)(rnd(&s) % 3);
        struct xr_acc a;
        xr_init(&a);
        for (int i = 0; i < n; i++) {
            const uint64_t u = rnd(&s);
            if (mode == 0) { /* any finite double, subnormals too */
                memcpy(&x[i], &u, 8);
                if (!isfinite(x[i]) || fabs(x[i]) > 0x1p1000)
                    x[i] = ldexp((double)(u >> 11), -1100);
            } else if (mode == 1) { /* cancellation: pairs, then a small rest */
                x[i] = i % 2 ? -x[i - 1] : ldexp((double)(u >> 11), (int)(rnd(&s) % 1800) - 960);
                if (i == n - 1)
                    x[i] = ldexp(1.0, -(int)(rnd(&s) % 1000));
            } else { /* ties: a large power of two and half-ulps */
                x[i] = i == 0 ? 0x1p53 : (u & 1 ? 1.0 : -1.0) * (u & 2 ? 0.5 : 1.0);
            }
            xr_add(&a, x[i]);
        }
        const double want = msum(x, n), v = got(&a, 0, CURED_TYPE_FLOAT64);
        ck_assert_msg(same(v, want) || (v == 0 && want == 0), "case %d (mode %d, %d terms): %a, msum %a (seed %llu)", c,
                      mode, n, v, want, seed);
    }
}
END_TEST

static const struct {
    cured_type t;
    int p, emin, emax;
} fmts[] = {{CURED_TYPE_FLOAT16, 11, -14, 15}, {CURED_TYPE_BFLOAT16, 8, -126, 127}, {CURED_TYPE_FLOAT32, 24, -126, 127},
            {CURED_TYPE_FLOAT64, 53, -1022, 1023}};

/* Integers under 2^20 times 2^e, e in a window of 16 (at most 64 terms: double holds the sum). */
START_TEST(test_narrow)
{
    uint64_t s = seed ^ (uint64_t)(_i + 100) * 0x632be59bd9b4e019ull;
    const int f = _i % 4;
    for (int c = 0; c < 300; c++) {
        const int n = 1 + (int)(rnd(&s) % 64), base = (int)(rnd(&s) % 300) - 170;
        double sum = 0, sq = 0;
        struct xr_acc a, q;
        xr_init(&a);
        xr_init(&q);
        for (int i = 0; i < n; i++) {
            const int64_t k = (int64_t)(rnd(&s) % (1u << 20)) - (1 << 19);
            const double v = ldexp((double)k, base + (int)(rnd(&s) % 16));
            const double w = ldexp((double)(k >> 8), base / 4 + (int)(rnd(&s) % 8)); /* for the squares */
            sum += v, sq += w * w;
            xr_add(&a, v);
            xr_add_product(&q, w, w);
        }
        const double want = round_to(sum, fmts[f].p, fmts[f].emin, fmts[f].emax);
        const double v = got(&a, 0, fmts[f].t), v2 = got(&q, 0, fmts[f].t);
        const double want2 = round_to(sq, fmts[f].p, fmts[f].emin, fmts[f].emax);
        ck_assert_msg(v == want || (isinf(v) && isinf(want) && v == want), "%s sum case %d: %a, want %a (seed %llu)",
                      cured_type_name(fmts[f].t), c, v, want, seed);
        ck_assert_msg(v2 == want2, "%s squares case %d: %a, want %a (seed %llu)", cured_type_name(fmts[f].t), c, v2,
                      want2, seed);
        if (fmts[f].t == CURED_TYPE_FLOAT64) {
            const double m = got(&a, (uint64_t)n, CURED_TYPE_FLOAT64);
            ck_assert_msg(same(m, sum / n) || (m == 0 && sum == 0), "mean case %d: %a, want %a (seed %llu)", c, m,
                          sum / n, seed);
        }
    }
}
END_TEST

START_TEST(test_rules)
{
    struct xr_acc a;
    xr_init(&a);
    ck_assert(same(got(&a, 0, CURED_TYPE_FLOAT32), 0.0)); /* no terms: +0 */
    xr_add(&a, -0.0);
    xr_add(&a, -0.0);
    ck_assert(same(got(&a, 0, CURED_TYPE_FLOAT32), -0.0));
    xr_add(&a, 0.0);
    ck_assert(same(got(&a, 0, CURED_TYPE_FLOAT64), 0.0));
    xr_add(&a, 1.0);
    xr_add(&a, -1.0); /* an exact zero of nonzero terms: +0 */
    ck_assert(same(got(&a, 0, CURED_TYPE_FLOAT16), 0.0));
    xr_add(&a, INFINITY);
    ck_assert(got(&a, 0, CURED_TYPE_BFLOAT16) == INFINITY);
    xr_add(&a, -INFINITY);
    ck_assert(isnan(got(&a, 0, CURED_TYPE_FLOAT32)));
    xr_init(&a);
    xr_add(&a, 65504.0);
    xr_add(&a, 16.0); /* 65520 rounds past float16's largest */
    ck_assert(got(&a, 0, CURED_TYPE_FLOAT16) == INFINITY);
    ck_assert(got(&a, 0, CURED_TYPE_FLOAT32) == 65520.0);
    xr_init(&a);
    xr_add(&a, DBL_MAX);
    xr_add(&a, DBL_MAX);
    ck_assert(got(&a, 0, CURED_TYPE_FLOAT64) == INFINITY);
    ck_assert(got(&a, 2, CURED_TYPE_FLOAT64) == DBL_MAX); /* the mean does not overflow */
    xr_init(&a);
    xr_add_product(&a, INFINITY, 0.0);
    ck_assert(isnan(got(&a, 0, CURED_TYPE_FLOAT64)));
    xr_init(&a);
    xr_add_product(&a, 0x1p-1074, 0x1p-1074); /* 2^-2148: the lowest digit */
    xr_add_product(&a, DBL_MAX, DBL_MAX);
    ck_assert(got(&a, 0, CURED_TYPE_FLOAT64) == INFINITY);
    unsigned char b[8];
    xr_init(&a);
    xr_add_product(&a, 3.0, 3.0);
    xr_add_product(&a, 4.0, 4.0);
    xr_norm2(&a, CURED_TYPE_FLOAT32, b);
    ck_assert(xr_bits_value(CURED_TYPE_FLOAT32, b) == 5.0);
}
END_TEST

/* More terms than one carry period (2^26): 2^26 + 3 of 0.75, then one -2^-1074
 * (far under half an ulp of the sum and of the mean: both round to the sum of the 0.75s). */
START_TEST(test_many)
{
    struct xr_acc a;
    xr_init(&a);
    const uint64_t n = ((uint64_t)1 << 26) + 3;
    for (uint64_t i = 0; i < n; i++)
        xr_add(&a, 0.75);
    xr_add(&a, -0x1p-1074);
    const double want = 0.75 * (double)n;
    ck_assert_msg(got(&a, 0, CURED_TYPE_FLOAT64) == want, "%a", got(&a, 0, CURED_TYPE_FLOAT64));
    ck_assert(got(&a, 0, CURED_TYPE_FLOAT32) == round_to(want, 24, -126, 127));
    ck_assert(got(&a, n, CURED_TYPE_FLOAT64) == 0.75);
}
END_TEST

int main(void)
{
    const char *env = getenv("CURED_TEST_SEED");
    seed = env && *env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    printf("test-exactref: seed %llu\n", seed);
    fesetround(FE_TONEAREST);
    Suite *s = suite_create("exactref");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_fsum, 0, 8);
    tcase_add_loop_test(tc, test_narrow, 0, 16);
    tcase_add_test(tc, test_rules);
    tcase_add_test(tc, test_many);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("test-exactref: %d failure(s); rerun with: CURED_TEST_SEED=%llu ./tests/test-exactref\n", failed, seed);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
