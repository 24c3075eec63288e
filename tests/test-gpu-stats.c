/*
 * The statistics on the GPU against host references (tests/stats_ref.c:
 * exact long double two-pass values; a result must be within twice the
 * float64 two-pass error plus one ulp of the result type, LOGSUMEXP with a
 * float32 result within its documented absolute allowance): normal data with
 * |mean| / std up to 1e12, magnitudes 1e-30 and 1e30 and spreads of 60
 * decades, float16 and bfloat16 inputs with large means, constant inputs
 * (variance exactly 0), NaN and inf at the first, last, head, tail and
 * middle positions, NaNs sprinkled (the NaN-skipping statistics, also all
 * NaN and fewer elements than ddof left), sorted data and outliers, every integer type, ddof 0,
 * 1, n - 1 and n, n = 0 and 1, pytorch issue 180156's input, logsumexp
 * inputs (wide, sorted, log-probabilities), bitwise repeatability, and the
 * multi-field user-defined ops (gpu_stats_custom.c).
 *
 * Exits 77 (SKIP) without a GPU. CURED_TEST_SEED=<seed> reproduces the
 * data; CURED_TEST_NO_HUGE=1 uses 2^14 + 7 for 2^20 + 7 and 2^20 for 2^26.
 */
#include "gpu_stats.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library's floating and integer types (stats_suite() fills them). */
static cured_type float_types[CURED_TYPE_COUNT], int_types[CURED_TYPE_COUNT];
static int nfloat, nint;

/* mu + sd * N(0,1), rounded to t. */
static void *normal_data(struct rng *g, cured_type t, size_t n, double mu, double sd)
{
    void *h = gs_malloc(n * ref_size(t) + 1);
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, mu + sd * gs_normal(g));
    return h;
}

/* The sizes of the accuracy cases, each at a misaligned start and at a 16-byte one. */
static void check_sizes(const char *what, struct rng *g, cured_type t, const void *h, size_t n)
{
    const size_t vec = 16 / ref_size(t), off = 1 + rng_u32(g) % (vec - 1);
    const size_t sizes[] = {1, 33, 1003, n};
    char w[200];
    for (size_t k = 0; k < 4 && !gs_light(); k++) {
        if (sizes[k] > n)
            continue;
        snprintf(w, sizeof w, "%s, offset %zu", what, k % 2 ? off : 0);
        gs_check_all(w, t, h, gs_upload(t, h, sizes[k], k % 2 ? off : 0), sizes[k]);
    }
    snprintf(w, sizeof w, "%s, offset %zu", what, off);
    gs_check_all(w, t, h, gs_upload(t, h, n, off), n);
}

/* Loop over the float types: normal data, |mean| / std from 0 to 1e12 (what the type holds). */
START_TEST(test_normal)
{
    const cured_type t = float_types[_i];
    static const double f16[][2] = {{0, 1}, {1000, 4}, {-20000, 100}, {0.5, 1e-3}};
    static const double bf16[][2] = {{0, 1}, {1e6, 1e4}, {1e30, 1e28}, {-3, 1e-3}};
    static const double f32[][2] = {{0, 1}, {1e4, 1}, {1e8, 1}, {-3e7, 0.01}};
    static const double f64[][2] = {{0, 1}, {1e4, 1}, {1e8, 1}, {1e12, 1}};
    const double(*p)[2] = t == CURED_TYPE_FLOAT16 ? f16 : t == CURED_TYPE_BFLOAT16 ? bf16 : t == CURED_TYPE_FLOAT32 ? f32 : f64;
    struct rng g;
    rng_init(&g, "stats-normal", _i);
    for (int k = 0; k < 4; k++) {
        const size_t n = gs_big();
        char w[120];
        snprintf(w, sizeof w, "%g + %g N(0,1)", p[k][0], p[k][1]);
        check_sizes(w, &g, t, normal_data(&g, t, n, p[k][0], p[k][1]), n);
    }
}
END_TEST

/* Magnitudes 1e-30 and 1e30 (float32, bfloat16, float64), and values spread over 60 decades. */
START_TEST(test_magnitudes)
{
    static const cured_type types[] = {CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64};
    struct rng g;
    rng_init(&g, "stats-magnitudes", 0);
    const size_t n = gs_big();
    for (size_t k = 0; k < 3; k++) {
        const cured_type t = types[k];
        for (double scale = 1e-30; scale < 1e31; scale *= 1e60)
            check_sizes(scale < 1 ? "1e-30 (3 + N(0,1))" : "1e30 (3 + N(0,1))", &g, t,
                        normal_data(&g, t, n, 3 * scale, scale), n);
        void *h = gs_malloc(n * ref_size(t));
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, (rng_u32(&g) & 1 ? -1 : 1) * pow(10, -30 + 60 * (rng_u32(&g) / 4294967296.0)));
        check_sizes("+-10^U(-30, 30)", &g, t, h, n);
    }
}
END_TEST

/* Constant inputs: the variance exactly 0, the mean exactly the constant. */
START_TEST(test_constant)
{
    const cured_type t = float_types[_i];
    static const double values[] = {0, 1, -3.14159, 1000.5, 1e30};
    const size_t n = gs_big();
    for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        if (values[v] > 60000 && t == CURED_TYPE_FLOAT16)
            continue;
        void *h = gs_malloc(n * ref_size(t));
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, values[v]);
        const double c = ref_get_f(t, h, 0);
        CUdeviceptr d = gs_upload(t, h, n, 3 % (16 / ref_size(t)));
        gs_check_all("constant", t, h, d, n);
        for (int out = CURED_TYPE_FLOAT32; out <= CURED_TYPE_FLOAT64; out++) {
            double mv[2] = {-1, -1};
            float mf[2] = {-1, -1};
            void *o = out == CURED_TYPE_FLOAT32 ? (void *)mf : (void *)mv;
            if (cured_reduce_stats(H, CURED_OP_MEAN_VAR, DP(d), t, n, 1, o, (cured_type)out, NULL) ==
                CURED_ERROR_TYPE_MISMATCH)
                continue;
            const double mean = out == CURED_TYPE_FLOAT32 ? mf[0] : mv[0], var = out == CURED_TYPE_FLOAT32 ? mf[1] : mv[1];
            ck_assert_msg(var == 0 && mean == (out == CURED_TYPE_FLOAT32 ? (double)(float)c : c),
                          "%s constant %.17g -> %s: mean %.17g, variance %.17g (seed %llu)", cured_type_name(t), c,
                          cured_type_name((cured_type)out), mean, var, test_seed);
        }
    }
}
END_TEST

/* Constant float64 inputs near the top of the range whose sums do not overflow: variance and standard
 * deviation exactly 0 (their merges' products n_a S_b overflow float64 unless scaled), the mean exactly. */
START_TEST(test_constant_large)
{
    static const struct {
        double c;
        size_t n;
    } cases[] = {{1e305, 1000}, {-1e305, 1000}, {1e300, 65539}, {-1e300, 65539}, {1.7e308, 1}, {1e308, 1 << 20}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t n = cases[k].n;
        if (n > gs_big())
            n = gs_big();
        const double c = cases[k].n > 1 && n * cases[k].c > 1e308 ? 1e308 / (double)n : cases[k].c;
        double *h = gs_malloc(n * sizeof *h);
        for (size_t i = 0; i < n; i++)
            h[i] = c;
        for (size_t off = 0; off < 2; off++) {
            CUdeviceptr d = gs_upload(CURED_TYPE_FLOAT64, h, n, off);
            double mean = -1, var = -1, sd = -1, mv[2] = {-1, -1};
            CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN, DP(d), CURED_TYPE_FLOAT64, n, 0, &mean, CURED_TYPE_FLOAT64,
                                        NULL));
            CURED_OK(cured_reduce_stats(H, CURED_OP_VAR, DP(d), CURED_TYPE_FLOAT64, n, 0, &var, CURED_TYPE_FLOAT64,
                                        NULL));
            CURED_OK(cured_reduce_stats(H, CURED_OP_STD, DP(d), CURED_TYPE_FLOAT64, n, 0, &sd, CURED_TYPE_FLOAT64,
                                        NULL));
            CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN_VAR, DP(d), CURED_TYPE_FLOAT64, n, 0, mv,
                                        CURED_TYPE_FLOAT64, NULL));
            ck_assert_msg(mean == c && mv[0] == c && var == 0 && sd == 0 && mv[1] == 0,
                          "constant %.17g, n = %zu, offset %zu: mean %.17g / %.17g, variance %.17g / %.17g, "
                          "std %.17g (seed %llu)",
                          c, n, off, mean, mv[0], var, mv[1], sd, test_seed);
        }
        gs_free(h);
    }
}
END_TEST

/* NaN and inf at the first element (in the misaligned head), the second, the middle, the tail and the last. */
START_TEST(test_specials)
{
    const cured_type t = float_types[_i];
    const size_t size = ref_size(t), vec = 16 / size;
    struct rng g;
    rng_init(&g, "stats-specials", _i);
    const double inf = INFINITY, nan = NAN;
    static const char *const kinds[] = {"+inf", "-inf", "+inf and -inf", "NaN", "NaN and +inf", "-inf and NaN"};
    const double first[] = {inf, -inf, inf, nan, nan, -inf}, second[] = {inf, -inf, -inf, nan, inf, nan};
    const size_t sizes[] = {1005, gs_big()};
    for (size_t s = 0; s < 2; s++) {
        const size_t n = sizes[s], where[] = {0, 1, n / 2, n - 2, n - 1};
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            for (size_t p = 0; p < 5; p++) {
                void *h = normal_data(&g, t, n, 1, 1);
                ref_put_f(t, h, where[p], first[k]);
                ref_put_f(t, h, where[(p + 2) % 5], second[k]);
                char w[160];
                snprintf(w, sizeof w, "%s at %zu and %zu", kinds[k], where[p], where[(p + 2) % 5]);
                gs_check_all(w, t, h, gs_upload(t, h, n, (p + 1) % vec), n);
                gs_free(h);
            }
        for (size_t k = 0; k < 3; k++) { /* all +inf, all -inf, all NaN */
            void *h = gs_malloc(n * size);
            for (size_t i = 0; i < n; i++)
                ref_put_f(t, h, i, k == 0 ? inf : k == 1 ? -inf : nan);
            gs_check_all(k == 0 ? "all +inf" : k == 1 ? "all -inf" : "all NaN", t, h, gs_upload(t, h, n, 1), n);
            gs_free(h);
        }
    }
}
END_TEST

/* NaNs sprinkled over normal data (the NaN-skipping statistics against the references of the
 * other elements; every statistic is checked): rates from 1% to all but a few, NaN at every
 * vector's first element (the threads' shifts), all NaN, and NaN beside +-inf. */
START_TEST(test_nan_sprinkled)
{
    const cured_type t = float_types[_i];
    const size_t size = ref_size(t), vec = 16 / size;
    struct rng g;
    rng_init(&g, "stats-nan", _i);
    const double mu = t == CURED_TYPE_FLOAT16 ? 1000 : t == CURED_TYPE_BFLOAT16 ? 1e6 : 1e4;
    const double sd = t == CURED_TYPE_BFLOAT16 ? 1e4 : t == CURED_TYPE_FLOAT16 ? 4 : 1;
    const size_t n = gs_big() / 4 + 3; /* several waves of blocks still; every statistic is checked 7 times a type */
    static const unsigned rates[] = {1, 30, 90, 100}; /* percent; 100: all but a few (0 to 3) */
    for (size_t k = 0; k < sizeof rates / sizeof *rates; k++) {
        void *h = normal_data(&g, t, n, mu, sd);
        for (size_t i = 0; i < n; i++)
            if (rng_u32(&g) % 100 < rates[k])
                ref_put_f(t, h, i, NAN);
        const size_t keep = rates[k] == 100 ? rng_u32(&g) % 4 : 0;
        for (size_t j = 0; j < keep; j++)
            ref_put_f(t, h, rng_u32(&g) % n, mu + sd * gs_normal(&g));
        char w[120];
        snprintf(w, sizeof w, "%g + %g N(0,1), %u%% NaN%s", mu, sd, rates[k], keep || rates[k] == 100 ? " (a few kept)" : "");
        check_sizes(w, &g, t, h, n);
        gs_free(h);
    }
    void *h = normal_data(&g, t, n, mu, sd);
    for (size_t i = 0; i < n; i += vec)
        ref_put_f(t, h, i, NAN);
    check_sizes("NaN at each 16-byte vector's first element", &g, t, h, n);
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, i % 3 ? NAN : i % 2 ? INFINITY : mu);
    check_sizes("NaN, +inf and finite values", &g, t, h, n);
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, NAN);
    check_sizes("all NaN", &g, t, h, n);
    gs_free(h);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorted data (a new maximum at every vector), outliers at the threads' first elements, one huge first element. */
START_TEST(test_sorted_outliers)
{
    static const cured_type types[] = {CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64};
    struct rng g;
    rng_init(&g, "stats-sorted", 0);
    const size_t n = gs_big();
    for (size_t k = 0; k < 2; k++) {
        const cured_type t = types[k];
        double *v = gs_malloc(n * sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = 1e6 + gs_normal(&g);
        qsort(v, n, sizeof *v, cmp_double);
        void *h = gs_malloc(n * ref_size(t));
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, v[i]);
        check_sizes("ascending", &g, t, h, n);
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, -(double)i * 1e-3 + (t == CURED_TYPE_FLOAT64 ? 1e8 : 0));
        check_sizes("descending", &g, t, h, n);
        h = normal_data(&g, t, n, 0, 1);
        for (size_t i = 0; i < n; i += 4096)
            ref_put_f(t, h, i, 1e7);
        check_sizes("outliers every 4096", &g, t, h, n);
        ref_put_f(t, h, 0, t == CURED_TYPE_FLOAT64 ? 1e200 : 1e30);
        check_sizes("one huge first element", &g, t, h, n);
    }
}
END_TEST

/* Every integer type: the full range, and values near the type's top with a small spread. */
START_TEST(test_integers)
{
    const cured_type t = int_types[_i];
    struct rng g;
    rng_init(&g, "stats-int", _i);
    const size_t n = gs_big();
    void *h = gs_malloc(n * ref_size(t));
    for (size_t i = 0; i < n; i++)
        ref_put_u(t, h, i, (uint64_t)rng_u32(&g) << 32 | rng_u32(&g));
    check_sizes("full range", &g, t, h, n);
    for (size_t i = 0; i < n; i++)
        ref_put_u(t, h, i, ref_int_max(t) - rng_u32(&g) % (ref_int_max(t) < 4000 ? 16 : 1000));
    check_sizes("near the largest value", &g, t, h, n);
    /* Small values after one extreme element, which the first block takes as its shift: its
     * sums of squares about it are n times the variance's, and (not compensated for the
     * integers up to 32 bits) round relative to that, within cured.h's allowance for it. */
    for (size_t i = 0; i < n; i++)
        ref_put_u(t, h, i, rng_u32(&g) % 1001);
    ref_put_u(t, h, 0, ref_int_max(t));
    check_sizes("small values after the largest one", &g, t, h, n);
}
END_TEST

/* pytorch issue 180156: float32 randn * 1e19 + 1e20; torch's float32 std is inf. */
START_TEST(test_pytorch_180156)
{
    struct rng g;
    rng_init(&g, "stats-180156", 0);
    const size_t n = gs_reduced() ? (size_t)1 << 16 : (size_t)1 << 24;
    void *h = normal_data(&g, CURED_TYPE_FLOAT32, n, 1e20, 1e19);
    CUdeviceptr d = gs_upload(CURED_TYPE_FLOAT32, h, n, 0);
    gs_check_all("randn * 1e19 + 1e20", CURED_TYPE_FLOAT32, h, d, n);
    float sd = 0;
    CURED_OK(cured_reduce_stats(H, CURED_OP_STD, DP(d), CURED_TYPE_FLOAT32, n, 1, &sd, CURED_TYPE_FLOAT32, NULL));
    ck_assert_msg(isfinite(sd) && fabs(sd / 1e19 - 1) < 0.01, "std %g (seed %llu)", sd, test_seed);
}
END_TEST

/* LOGSUMEXP inputs for every float type: wide, sorted (two ways), tiny, huge, log-probabilities, repeated values. */
START_TEST(test_logsumexp)
{
    const cured_type t = float_types[_i];
    struct rng g;
    rng_init(&g, "stats-lse", _i);
    const size_t n = gs_big();
    const double wide = t == CURED_TYPE_FLOAT16 ? 8 : 30;
    check_sizes("N(0, wide^2)", &g, t, normal_data(&g, t, n, 0, wide), n);
    void *h = gs_malloc(n * ref_size(t));
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, -5 + 10 * (double)i / (double)n);
    check_sizes("ascending -5..5", &g, t, h, n);
    for (size_t i = 0; i < n; i++) /* within LSE_SLACK (2) of the maximum, a result near 0: the bound's + 2 */
        ref_put_f(t, h, i, -log((double)n) - 2 + 2 * (double)i / (double)n);
    check_sizes("ascending by 2 up to -log(n)", &g, t, h, n);
    for (size_t i = 0; i < n; i++) /* far above a thread's first vector: its reference must rise to it */
        ref_put_f(t, h, i, i == n / 2 + 5 ? -0.1 : -40);
    check_sizes("one -0.1 among -40s", &g, t, h, n);
    if (t == CURED_TYPE_FLOAT32) { /* the largest finite values are numbers, not infinities (float64 sums
                                        * of float64 ones would overflow the moments) */
        const double big = FLT_MAX;
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, i == n / 2 + 3 ? big : -big);
        check_sizes("one largest value among lowest ones", &g, t, h, n);
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, -big);
        check_sizes("all the lowest finite value", &g, t, h, n);
    }
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, log(1.0 / 1000) + 1e-3 * gs_normal(&g));
    check_sizes("log-probabilities", &g, t, h, 1000 < n ? 1000 : n);
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, i == n / 3 ? 0 : -10.123456);
    check_sizes("-10.123456 and one 0", &g, t, h, n);
    if (t != CURED_TYPE_FLOAT16) {
        check_sizes("1e30 N(0,1)", &g, t, normal_data(&g, t, n, 0, 1e30), n);
        check_sizes("1e-30 N(0,1)", &g, t, normal_data(&g, t, n, 0, 1e-30), n);
    }
}
END_TEST

/* n = 0 and small n for every statistic and type (also ddof up to n). */
START_TEST(test_small)
{
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        struct rng g;
        rng_init(&g, "stats-small", t);
        unsigned char h[8 * 5];
        for (size_t n = 0; n <= 5; n++) {
            for (size_t i = 0; i < n; i++)
                ref_is_float((cured_type)t) ? ref_put_f((cured_type)t, h, i, gs_normal(&g))
                                            : ref_put_u((cured_type)t, h, i, rng_u32(&g));
            gs_check_all("small", (cured_type)t, h, gs_upload((cured_type)t, h, n, n % 2), n);
        }
    }
}
END_TEST

/* Finite float64 elements whose sum overflows (cured.h): MEAN is +inf (or -inf), as NumPy's,
 * and the variance NaN (NumPy: inf), through both calls and for every layout of the threads. */
START_TEST(test_sum_overflow)
{
    struct rng g;
    rng_init(&g, "stats-overflow", 0);
    const size_t sizes[] = {5, 1003, gs_big()};
    for (size_t k = 0; k < 3; k++)
        for (int sign = 0; sign < 2; sign++) {
            const size_t n = sizes[k];
            double *h = gs_malloc(n * sizeof *h);
            for (size_t i = 0; i < n; i++)
                h[i] = (sign ? -1.5e308 : 1.5e308) * (1.0 - 1e-3 * (rng_u32(&g) / 4294967296.0));
            CUdeviceptr d = gs_upload(CURED_TYPE_FLOAT64, h, n, k % 2);
            double mean = 0.0, var = 0.0, mv[2] = {0.0, 0.0};
            CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN, DP(d), CURED_TYPE_FLOAT64, n, 0, &mean, CURED_TYPE_FLOAT64,
                                        NULL));
            CURED_OK(cured_reduce_stats(H, CURED_OP_VAR, DP(d), CURED_TYPE_FLOAT64, n, 1, &var, CURED_TYPE_FLOAT64,
                                        NULL));
            CUdeviceptr slot = dev_alloc(16);
            CURED_OK(cured_reduce_stats_async(H, CURED_OP_MEAN_VAR, DP(d), CURED_TYPE_FLOAT64, n, 0, DP(slot),
                                              CURED_TYPE_FLOAT64, NULL));
            CU_OK(D->CtxSynchronize());
            download(mv, slot, sizeof mv);
            const double want = sign ? -INFINITY : INFINITY;
            ck_assert_msg(mean == want && mv[0] == want, "n = %zu: mean %g / %g, want %g", n, mean, mv[0], want);
            ck_assert_msg(isnan(var) && isnan(mv[1]), "n = %zu: variance %g / %g, want NaN", n, var, mv[1]);
            dev_free(slot);
            gs_free(h);
        }
}
END_TEST

/* Bitwise repeatability of MEAN_VAR and LOGSUMEXP over 2^26 float32 values, sync and async. */
START_TEST(test_determinism)
{
    enum { RUNS = 10 };
    const size_t n = gs_reduced() ? (size_t)1 << 20 : (size_t)1 << 26;
    struct rng g;
    rng_init(&g, "stats-determinism", 0);
    float *h = gs_malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)(1000 + gs_normal(&g));
    CUdeviceptr d = gs_upload(CURED_TYPE_FLOAT32, h, n, 0);
    static const cured_op ops[] = {CURED_OP_MEAN_VAR, CURED_OP_LOGSUMEXP};
    CUstream s = stream_new();
    for (int k = 0; k < 2; k++)
        for (int out = CURED_TYPE_FLOAT32; out <= CURED_TYPE_FLOAT64; out++) {
            const size_t bytes = ref_result_size(ops[k], (cured_type)out);
            unsigned char first[16], got[16];
            CUdeviceptr slots = dev_alloc(RUNS * 16);
            for (int i = 0; i < RUNS; i++) {
                CURED_OK(cured_reduce_stats(H, ops[k], DP(d), CURED_TYPE_FLOAT32, n, 1, i ? got : first,
                                            (cured_type)out, i % 2 ? s : NULL));
                ck_assert_msg(i == 0 || memcmp(got, first, bytes) == 0, "%s -> %s run %d differs (seed %llu)",
                              cured_op_name(ops[k]), cured_type_name((cured_type)out), i, test_seed);
                CURED_OK(cured_reduce_stats_async(H, ops[k], DP(d), CURED_TYPE_FLOAT32, n, 1, DP(slots + 16 * i),
                                                  (cured_type)out, s));
            }
            CU_OK(D->StreamSynchronize(s));
            for (int i = 0; i < RUNS; i++) {
                download(got, slots + 16 * i, bytes);
                ck_assert_msg(memcmp(got, first, bytes) == 0, "%s -> %s async run %d differs (seed %llu)",
                              cured_op_name(ops[k]), cured_type_name((cured_type)out), i, test_seed);
            }
            dev_free(slots);
        }
    struct stats_ref r;
    stats_ref_compute(CURED_TYPE_FLOAT32, h, n, &r);
    gs_check("determinism input", CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, &r, d);
    gs_check("determinism input", CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 0, &r, d);
}
END_TEST

/* Arguments through a real handle: nothing written, nothing launched; cured_prepare finds the kernel
 * (the warm-up loaded it; run alone, the test compiles it). */
START_TEST(test_arguments)
{
    CUdeviceptr d = dev_alloc(64);
    poison(d, 64);
    unsigned char host[16];
    memset(host, POISON_BYTE, sizeof host);
    CURED_EXPECT(CURED_ERROR_INVALID_VALUE,
                 cured_reduce_stats(H, CURED_OP_VAR, DP(d), CURED_TYPE_FLOAT32, 4, -1, host, CURED_TYPE_FLOAT32, NULL));
    CURED_EXPECT(CURED_ERROR_INVALID_VALUE, cured_reduce_stats(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, 4, 0, host,
                                                               CURED_TYPE_FLOAT32, NULL));
    CURED_EXPECT(CURED_ERROR_INVALID_VALUE, cured_reduce_stats_async(H, CURED_OP_STD, DP(d), CURED_TYPE_FLOAT32, 4, NAN,
                                                                     DP(d + 32), CURED_TYPE_FLOAT32, NULL));
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS,
                 cured_reduce(H, CURED_OP_VAR, CURED_ALGO_AUTO, DP(d), CURED_TYPE_FLOAT32, 0, host, CURED_TYPE_FLOAT32,
                              NULL));
    CURED_EXPECT(CURED_ERROR_NOT_DEVICE_POINTER, cured_reduce_stats(H, CURED_OP_MEAN, host, CURED_TYPE_FLOAT32, 2, 0,
                                                                    host + 8, CURED_TYPE_FLOAT32, NULL));
    /* another operator is INVALID_VALUE even where its types would not do (no SUM int32 -> float64) */
    CURED_EXPECT(CURED_ERROR_INVALID_VALUE, cured_reduce_stats(H, CURED_OP_SUM, DP(d), CURED_TYPE_INT32, 4, 0, host,
                                                               CURED_TYPE_FLOAT64, NULL));
    for (size_t k = 0; k < sizeof host; k++)
        ck_assert_int_eq(host[k], POISON_BYTE);
    unsigned char dev[64];
    download(dev, d, 64);
    for (size_t k = 32; k < 64; k++)
        ck_assert_int_eq(dev[k], POISON_BYTE);
    /* a synchronous call's host buffer needs no alignment: the same bits at host + 1 */
    float aligned = 0;
    unsigned char odd[16];
    memset(odd, POISON_BYTE, sizeof odd);
    CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN, DP(d), CURED_TYPE_FLOAT32, 16, 0, &aligned, CURED_TYPE_FLOAT32,
                                NULL));
    CURED_OK(cured_reduce_stats(H, CURED_OP_MEAN, DP(d), CURED_TYPE_FLOAT32, 16, 0, odd + 1, CURED_TYPE_FLOAT32,
                                NULL));
    ck_assert_msg(memcmp(odd + 1, &aligned, 4) == 0, "the unaligned host result differs");
    CURED_OK(cured_prepare(H, CURED_OP_MEAN_VAR, CURED_ALGO_AUTO, CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT64));
    CURED_EXPECT(CURED_ERROR_TYPE_MISMATCH,
                 cured_prepare(H, CURED_OP_LOGSUMEXP, CURED_ALGO_AUTO, CURED_TYPE_INT32, CURED_TYPE_FLOAT32));
    CURED_EXPECT(CURED_ERROR_NOT_SUPPORTED,
                 cured_prepare(H, CURED_OP_MEAN, CURED_ALGO_TWO_PASS_SHUFFLE, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32));
}
END_TEST

/* CURED_TEST_ONLY=name,name...: only the tests whose names contain one of them
 * (the seed sweep, tests/stats-emu-seeds.sh, runs the randomized ones). */
static int wanted(const char *name)
{
    const char *only = getenv("CURED_TEST_ONLY");
    if (only == NULL || *only == '\0')
        return 1;
    char list[256];
    snprintf(list, sizeof list, "%s", only);
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (strstr(name, w) != NULL)
            return 1;
    return 0;
}

#define ADD(t) (wanted(#t) ? tcase_add_test(acc, t) : (void)0)
#define ADD_LOOP(t, n) (wanted(#t) ? tcase_add_loop_test(acc, t, 0, n) : (void)0)

static Suite *stats_suite(void)
{
    nfloat = ref_types(1, float_types);
    nint = ref_types(0, int_types);
    Suite *s = suite_create("gpu-stats");
    TCase *acc = tcase_create("accuracy");
    tcase_add_checked_fixture(acc, gs_setup, gs_teardown);
    tcase_set_timeout(acc, 900);
    ADD_LOOP(test_normal, nfloat);
    ADD(test_magnitudes);
    ADD_LOOP(test_constant, nfloat);
    ADD(test_constant_large);
    ADD_LOOP(test_specials, nfloat);
    ADD_LOOP(test_nan_sprinkled, nfloat);
    ADD(test_sorted_outliers);
    ADD_LOOP(test_integers, nint);
    ADD(test_pytorch_180156);
    ADD_LOOP(test_logsumexp, nfloat);
    ADD(test_small);
    ADD(test_sum_overflow);
    ADD(test_determinism);
    ADD(test_arguments);
    suite_add_tcase(s, acc);
    suite_add_tcase(s, gs_custom_tcase());
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-stats", stats_suite());
}
