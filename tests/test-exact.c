/*
 * test-exact: the exact sums' arithmetic (kernels-src/exact.cuh, run on the
 * CPU by exact_emu.cc) against a reference written without it (exact_ref.c): the
 * terms' sum as one wide two's complement integer, and each result found by
 * a binary search over the result type's bit patterns with exact
 * comparisons (so the rounding is checked by a different method, not the
 * header's bit extraction). Adversarial sums for every input and result
 * type; random data summed through random splits and random merge trees,
 * through the fronts with random flush periods, and through an integer
 * allreduce of the digits, which must all give the same state and result.
 * For float64, a few sums are also checked against Python's math.fsum when
 * python3 is installed.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exact_emu.h"
#include "exact_ref.h"
#include "halfbits.h"
#include "family.h" /* cr_exact_quick_vec, cr_exact_quick_group */

static unsigned long long seed;

/* Each case seeds its own generator (exact_ref.h) from the run's seed and its name. */
static void rng_for(struct rng *r, const char *name, long i)
{
    rng_seed(r, name, i, seed);
}

/* ---- Running the header ---- */
#define STATE_BYTES 1280
#define MAX_PARTS 12
static _Alignas(16) unsigned char st_a[STATE_BYTES], st_b[STATE_BYTES], parts[MAX_PARTS][STATE_BYTES];
#define EXACT_BIN_TERMS_TEST 16384 /* exact.cuh's EXACT_BIN_TERMS */
#define EXACT_HALF_TERMS_TEST 8192 /* exact.cuh's EXACT_HALF_TERMS */
static struct rng case_rng; /* the splits, trees and flush periods of the current case */

static const char *tname(int t) { return tys[t].name; }
#define FAIL_AT(what, ...)                                                                                \
    ck_abort_msg("%s: " what " (seed %llu; rerun with: CURED_TEST_SEED=%llu ./tests/test-exact)", case_name, \
                 __VA_ARGS__, seed, seed)
static const char *case_name = "";

static void print_terms(int t, const uint64_t *x, size_t n)
{
    fprintf(stderr, "  terms (%s):", tname(t));
    for (size_t i = 0; i < n && i < 24; i++)
        fprintf(stderr, " %.17g", value(t, x[i]));
    fprintf(stderr, n > 24 ? " ... (%zu)\n" : "\n", n);
}

/* The sum (or sum of products when y) of n terms of type t, every result type
 * and MEAN and NORM2 against the reference, with the given state filled by
 * the caller. */
static void check_results(int t, const uint64_t *x, const uint64_t *y, size_t n, const void *st, int fmt, const char *how)
{
    struct ref r;
    ref_init(&r);
    for (size_t i = 0; i < n; i++)
        if (y)
            ref_product(&r, value(t, x[i]), value(t, y[i]));
        else
            ref_term(&r, value(t, x[i]));
    for (int rt = 0; rt < 4; rt++) {
        const uint64_t want = ref_round(&r, rt, 1), got = emu_exact_round(fmt, st, rt);
        if (got != want) {
            print_terms(t, x, n);
            FAIL_AT("%s sum of %zu %s %s into %s: got 0x%llx, want 0x%llx", how, n, tname(t), y ? "products" : "terms",
                    tname(rt), (unsigned long long)got, (unsigned long long)want);
        }
        const uint64_t wm = ref_round(&r, rt, n), gm = emu_exact_mean(fmt, st, n, rt);
        if (gm != wm) {
            print_terms(t, x, n);
            FAIL_AT("%s mean of %zu %s into %s: got 0x%llx, want 0x%llx", how, n, tname(t), tname(rt),
                    (unsigned long long)gm, (unsigned long long)wm);
        }
        if (y == x) {
            const uint64_t wn = ref_norm2(&r, rt), gn = emu_exact_norm2(fmt, st, rt);
            if (gn != wn) {
                print_terms(t, x, n);
                FAIL_AT("%s norm2 of %zu %s into %s: got 0x%llx, want 0x%llx", how, n, tname(t), tname(rt),
                        (unsigned long long)gn, (unsigned long long)wn);
            }
        }
    }
}

/* One state, term after term (normalized every `every` terms), then checked. */
static void sum_into(void *st, int fmt, int t, const uint64_t *x, const uint64_t *y, size_t lo, size_t hi)
{
    emu_exact_init(fmt, st);
    for (size_t i = lo; i < hi; i++)
        if (y)
            emu_exact_add_product(fmt, st, t, x[i], y[i]);
        else
            emu_exact_add(fmt, st, t, x[i]);
    emu_exact_normalize(fmt, st);
}
static void check_sum(int t, const uint64_t *x, const uint64_t *y, size_t n)
{
    const int fmt = y ? tys[t].pfmt : tys[t].fmt;
    if (emu_exact_bytes(fmt) > sizeof st_a)
        ck_abort_msg("test bug: a state of %zu bytes", emu_exact_bytes(fmt));
    sum_into(st_a, fmt, t, x, y, 0, n);
    check_results(t, x, y, n, st_a, fmt, "sequential");
    if (t != ET_DOUBLE || !y) { /* the strided digits, the terms as doubles (exact but for float64 products) */
        emu_exact_strided(fmt, st_b, t, x, y, n);
        if (!emu_exact_same(fmt, st_a, st_b)) {
            print_terms(t, x, n);
            FAIL_AT("%s: the strided state differs from the sequential one", tname(t));
        }
    }
    /* the fronts give the same results */
    if (!y && (t == ET_FLOAT || t == ET_BF16)) {
        emu_exact_init(fmt, st_b);
        emu_exact_bins(fmt, st_b, t, x, n, EXACT_BIN_TERMS_TEST);
        emu_exact_normalize(fmt, st_b);
        check_results(t, x, y, n, st_b, fmt, "bins");
    }
    if (!y && t == ET_HALF) {
        emu_exact_init(fmt, st_b);
        emu_exact_half(st_b, x, n, 1000);
        emu_exact_normalize(fmt, st_b);
        check_results(t, x, y, n, st_b, fmt, "half sum");
    }
    if (y && t == ET_HALF) {
        emu_exact_init(fmt, st_b);
        emu_exact_bins_half_products(st_b, x, y, n, EXACT_BIN_TERMS_TEST);
        emu_exact_normalize(fmt, st_b);
        check_results(t, x, y, n, st_b, fmt, "bins");
    }
}

/* Random splits into parts, each summed alone, merged in a random tree; and
 * the same parts' raw digits added (an integer allreduce) and normalized: the
 * same state as the sequential sum. */
static void check_merges(int t, const uint64_t *x, const uint64_t *y, size_t n, int fmt)
{
    const int k = 1 + (int)rnd_below(&case_rng, MAX_PARTS);
    size_t cut[MAX_PARTS + 1];
    cut[0] = 0;
    cut[k] = n;
    for (int j = 1; j < k; j++)
        cut[j] = rnd_below(&case_rng, n + 1);
    for (int j = 1; j < k; j++) /* sort the cuts (parts may be empty) */
        for (int i = j; i > 0 && cut[i] < cut[i - 1]; i--) {
            const size_t c = cut[i];
            cut[i] = cut[i - 1];
            cut[i - 1] = c;
        }
    emu_exact_init(fmt, st_b);
    for (int j = 0; j < k; j++) {
        sum_into(parts[j], fmt, t, x, y, cut[j], cut[j + 1]);
        emu_exact_add_raw(fmt, st_b, parts[j]);
    }
    emu_exact_normalize(fmt, st_b);
    if (!emu_exact_same(fmt, st_a, st_b)) {
        print_terms(t, x, n);
        FAIL_AT("%s: the raw sum of %d parts' digits differs from the sequential state", tname(t), k);
    }
    int live[MAX_PARTS], nl = k;
    for (int j = 0; j < k; j++)
        live[j] = j;
    while (nl > 1) { /* merge two random live states, in a random order */
        const int i = (int)rnd_below(&case_rng, (uint64_t)nl);
        int j = (int)rnd_below(&case_rng, (uint64_t)nl - 1);
        j += j >= i;
        emu_exact_merge(fmt, parts[live[i]], parts[live[j]]);
        live[j] = live[--nl];
        if (i == nl)
            live[j] = live[i];
    }
    if (!emu_exact_same(fmt, st_a, parts[live[0]])) {
        print_terms(t, x, n);
        FAIL_AT("%s: a merge tree of %d parts differs from the sequential state", tname(t), k);
    }
}

static void check_all(int t, const uint64_t *x, const uint64_t *y, size_t n)
{
    check_sum(t, x, y, n);
    check_merges(t, x, y, n, y ? tys[t].pfmt : tys[t].fmt);
}

/* ---- Adversarial sums ---- */
#define MAXN 20000
static uint64_t xs[MAXN], ys[MAXN];

/* Terms given as doubles, each a value of t (the case is skipped when one is not). */
static int load(int t, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xs[i] = bits_of(t, v[i]);
        const double back = value(t, xs[i]);
        if (!(back == v[i] || (isnan(back) && isnan(v[i]))) || signbit(back) != signbit(v[i]))
            return 0;
    }
    return 1;
}
#define TERMS(...)                                                              \
    do {                                                                        \
        const double v_[] = {__VA_ARGS__};                                      \
        if (load(t, v_, sizeof v_ / sizeof *v_))                                \
            check_all(t, xs, NULL, sizeof v_ / sizeof *v_);                     \
    } while (0)
#define PAIRS(...)                                                              \
    do {                                                                        \
        const double v_[] = {__VA_ARGS__};                                      \
        const size_t n_ = sizeof v_ / sizeof *v_ / 2;                           \
        double a_[sizeof v_ / sizeof *v_ / 2], b_[sizeof v_ / sizeof *v_ / 2];  \
        for (size_t i_ = 0; i_ < n_; i_++) {                                    \
            a_[i_] = v_[2 * i_];                                                \
            b_[i_] = v_[2 * i_ + 1];                                            \
        }                                                                       \
        if (load(t, b_, n_)) {                                                  \
            memcpy(ys, xs, n_ * sizeof *xs);                                    \
            if (load(t, a_, n_))                                                \
                check_all(t, xs, ys, n_);                                       \
        }                                                                       \
    } while (0)

START_TEST(test_adversarial)
{
    const int t = _i;
    rng_for(&case_rng, "adversarial", t);
    const int p = tys[t].p, emax = tys[t].emax, emin = 1 - emax;
    const double mx = value(t, max_bits(t)), tiny = value(t, 1), inf = INFINITY, nan = NAN;
    const double huge = t == ET_HALF ? 32768.0 : value(t, bits_of(t, 1e30)), hulp = ldexp(1.0, emax - p);
    case_name = "cancellation";
    TERMS(huge, 1, -huge);
    TERMS(1e30, 1, -1e30);
    TERMS(huge, tiny, -huge, -tiny, tiny);
    case_name = "largest finite";
    TERMS(mx, -mx, mx, 1);
    TERMS(mx, mx, -mx);
    TERMS(mx, mx);
    TERMS(-mx, -mx, -mx, mx, mx, 1);
    case_name = "overflow when rounded";
    TERMS(mx, hulp);
    TERMS(mx, hulp, -tiny);
    TERMS(-mx, -hulp);
    TERMS(mx, hulp / 2, hulp / 2);
    TERMS(mx, hulp, hulp, -hulp);
    case_name = "ties";
    for (int q = 8; q <= 53; q++) { /* the ties of every result type's precision, each way */
        const double h = ldexp(1.0, -q), odd = 1 + ldexp(1.0, 1 - q);
        TERMS(1, h);
        TERMS(odd, h);
        TERMS(1, h, tiny);
        TERMS(1, h, -tiny);
        TERMS(-1, -h);
        TERMS(h, -odd);
    }
    case_name = "specials";
    TERMS(inf, 1);
    TERMS(inf, -inf);
    TERMS(nan, 1);
    TERMS(1, -inf, mx);
    TERMS(inf, inf, -0.0);
    TERMS(nan, inf, -inf);
    TERMS(-0.0, -0.0);
    TERMS(-0.0, 0.0);
    TERMS(-0.0);
    TERMS(0.0);
    TERMS(1, -1);
    TERMS(-1, 1, -0.0);
    TERMS(-inf, -0.0);
    TERMS(-0.0, -0.0, -0.0, tiny, -tiny);
    check_all(t, xs, NULL, 0); /* n = 0 */
    check_all(t, xs, xs, 0);

    case_name = "every exponent";
    size_t n = 0;
    for (int e = emin - p + 1; e <= emax; e++)
        xs[n] = bits_of(t, ldexp(n % 2 ? -1.0 : 1.0, e)), n++;
    check_all(t, xs, NULL, n);
    n = 0;
    for (int e = emin - p + 1; e <= emax; e++) /* all positive: every bit of the range set at once */
        xs[n++] = bits_of(t, ldexp(1.0, e));
    check_all(t, xs, NULL, n);
    for (size_t i = 0; i < n; i++)
        xs[i] = (max_bits(t) - i * 3) | (i % 3 ? 0 : sign_bit(t)); /* large significands, mixed signs */
    check_all(t, xs, NULL, n);

    case_name = "subnormals";
    n = 0;
    for (uint64_t k = 1; k < (1ull << (p - 1)) && n < 4096; k += 1 + (k >> 8))
        xs[n] = k | (n % 5 == 4 ? sign_bit(t) : 0), n++;
    check_all(t, xs, NULL, n);

    case_name = "tiny beside huge";
    n = 0;
    xs[n++] = bits_of(t, huge);
    while (n < 12001)
        xs[n++] = 1; /* the smallest subnormal */
    check_all(t, xs, NULL, n);
    xs[n++] = bits_of(t, -huge);
    check_all(t, xs, NULL, n);
    xs[0] = max_bits(t);
    xs[n - 1] = max_bits(t) | sign_bit(t);
    check_all(t, xs, NULL, n);

    case_name = "products";
    PAIRS(mx, mx, -mx, mx, 1, 1);
    PAIRS(mx, mx, -mx, mx, tiny, tiny);
    PAIRS(tiny, tiny, tiny, -tiny);
    PAIRS(tiny, tiny);
    PAIRS(-tiny, tiny);
    PAIRS(mx, mx);
    PAIRS(mx, -mx, mx, mx, mx, tiny);
    PAIRS(huge, huge, 1, 1, -huge, huge);
    PAIRS(0.0, inf);
    PAIRS(inf, 2, -inf, 3);
    PAIRS(inf, -2, 1, 1);
    PAIRS(nan, 0.0);
    PAIRS(-0.0, 1);
    PAIRS(-0.0, 1, 0.0, -1);
    PAIRS(0.0, 1, -0.0, 1);
    PAIRS(-0.0, -0.0);
    PAIRS(1, ldexp(1.0, -p), 1, 1); /* the tie of t itself */
    n = 0;
    for (int e = emin - p + 1; e <= emax; e++, n++) {
        xs[n] = bits_of(t, ldexp(n % 2 ? -1.0 : 1.0, e));
        ys[n] = bits_of(t, ldexp(1.0, (emin - p + 1 + emax) - e)); /* products near 1 */
    }
    check_all(t, xs, ys, n);
    for (size_t i = 0; i < n; i++)
        ys[i] = xs[n - 1 - i];
    check_all(t, xs, ys, n);
    for (size_t i = 0; i < n; i++)
        ys[i] = xs[i] & ~sign_bit(t); /* x |x|: squares with signs, the whole product range */
    check_all(t, xs, ys, n);
    check_all(t, xs, xs, n); /* squares: NORM2 */
}
END_TEST

/* ---- Random data ---- */
/* A random finite pattern of type t in one of several shapes. */
static uint64_t random_term(struct rng *r, int t, int mode, int e0)
{
    const int p = tys[t].p, emax = tys[t].emax, bias = emax;
    const uint64_t frac = rnd(r) & ((1ull << (p - 1)) - 1), sign = rnd(r) & 1 ? sign_bit(t) : 0;
    uint64_t b;
    switch (mode) {
    case 0: /* any finite pattern */
        do
            b = rnd(r) & (sign_bit(t) * 2 - 1);
        while ((b & ~sign_bit(t)) >= inf_bits(t));
        return b;
    case 1: /* a biased exponent near e0 (a narrow range), both signs */
        b = (uint64_t)(e0 + (int)rnd_below(r, 4));
        return sign | b << (p - 1) | frac;
    case 2: /* positive, one binade (the ordinary sum) */
        return (uint64_t)e0 << (p - 1) | frac;
    case 3: /* the extremes: subnormals, huge, and zeros of both signs */
        switch (rnd_below(r, 4)) {
        case 0:
            return sign | (frac & 0xff);
        case 1:
            return sign | (max_bits(t) - (frac & 0xff));
        case 2:
            return sign;
        default:
            return sign | (uint64_t)(bias + 1) << (p - 1) | frac;
        }
    default: /* exponents over the whole range, alternating signs */
        b = rnd_below(r, (uint64_t)2 * emax + 1);
        return (rnd(r) & 1 ? sign_bit(t) : 0) | b << (p - 1) | frac;
    }
}
#define NMODES 6
START_TEST(test_random)
{
    const int t = _i % 4, mode = _i / 4 % NMODES, products = _i / (4 * NMODES) % 2;
    struct rng r;
    rng_for(&r, "random", _i);
    case_rng = r;
    rnd(&case_rng);
    static const char *names[NMODES] = {"any pattern", "narrow range", "one binade", "extremes", "whole range",
                                        "cancelling pairs"};
    case_name = names[mode];
    const size_t n = rnd_below(&r, 4) == 0 ? rnd_below(&r, 40) : rnd_below(&r, 3000);
    const int e0 = 1 + (int)rnd_below(&r, (uint64_t)2 * tys[t].emax - 4);
    for (size_t i = 0; i < n; i++) {
        if (mode == 5) { /* x and -x, with a few others: the sum is the others' */
            xs[i] = i % 2 && rnd_below(&r, 8) ? xs[i - 1] ^ sign_bit(t) : random_term(&r, t, 4, e0);
            ys[i] = i % 2 && rnd_below(&r, 8) ? ys[i - 1] : random_term(&r, t, 4, e0);
        } else {
            xs[i] = random_term(&r, t, mode, e0);
            ys[i] = random_term(&r, t, mode, e0);
        }
    }
    for (size_t i = n; i > 1; i--) { /* shuffle the pairs */
        const size_t j = rnd_below(&r, i), k = i - 1;
        uint64_t c = xs[j];
        xs[j] = xs[k];
        xs[k] = c;
        c = ys[j];
        ys[j] = ys[k];
        ys[k] = c;
    }
    check_all(t, xs, products ? ys : NULL, n);
    if (products)
        check_all(t, xs, xs, n);
}
END_TEST

/* The fronts flushed at random periods (down to every term) give the sequential state. */
START_TEST(test_fronts)
{
    const int t = _i % 3; /* float16, bfloat16, float32 */
    struct rng r;
    rng_for(&r, "fronts", _i);
    case_name = "fronts";
    const size_t n = rnd_below(&r, MAXN);
    const int mode = (int)rnd_below(&r, 5), e0 = 1 + (int)rnd_below(&r, (uint64_t)2 * tys[t].emax - 4);
    for (size_t i = 0; i < n; i++) {
        xs[i] = random_term(&r, t, mode, e0);
        ys[i] = random_term(&r, t, mode, e0);
    }
    const int fmt = tys[t].fmt;
    const size_t bound = t == ET_HALF ? EXACT_HALF_TERMS_TEST : EXACT_BIN_TERMS_TEST,
                 every = 1 + rnd_below(&r, rnd_below(&r, 2) ? 64 : bound);
    sum_into(st_a, fmt, t, xs, NULL, 0, n);
    emu_exact_init(fmt, st_b);
    if (t == ET_HALF)
        emu_exact_half(st_b, xs, n, every);
    else
        emu_exact_bins(fmt, st_b, t, xs, n, every);
    emu_exact_normalize(fmt, st_b);
    if (!emu_exact_same(fmt, st_a, st_b)) {
        print_terms(t, xs, n);
        FAIL_AT("%s: the front flushed every %zu terms differs from the sequential state", tname(t), every);
    }
    /* a warp's lanes, merged by a shuffle tree: up to bound / lanes terms a lane */
    const int lanes = 1 << rnd_below(&r, 6);
    const size_t lane_every = 1 + rnd_below(&r, bound / (size_t)lanes);
    emu_exact_init(fmt, st_b);
    emu_exact_warp(fmt, st_b, t, xs, n, lanes, lane_every);
    emu_exact_normalize(fmt, st_b);
    if (!emu_exact_same(fmt, st_a, st_b)) {
        print_terms(t, xs, n);
        FAIL_AT("%s: %d lanes' fronts (flushed every %zu terms a lane) differ from the sequential state", tname(t),
                lanes, lane_every);
    }
    if (t == ET_HALF) {
        sum_into(st_a, EF_HALF_PRODUCTS, t, xs, ys, 0, n);
        emu_exact_init(EF_HALF_PRODUCTS, st_b);
        emu_exact_bins_half_products(st_b, xs, ys, n, every);
        emu_exact_normalize(EF_HALF_PRODUCTS, st_b);
        if (!emu_exact_same(EF_HALF_PRODUCTS, st_a, st_b))
            FAIL_AT("float16 products: the bins flushed every %zu terms differ from the sequential state", every);
    }
}
END_TEST

/* The bins' bound: 2^14 terms of the largest significand of a bin's top
 * exponent, all one sign, in one bin without a flush. */
START_TEST(test_bins_bound)
{
    const int t = ET_FLOAT;
    case_name = "bins bound";
    for (int b = 0; b < 16; b++) {
        const uint64_t top = (uint64_t)(16 * b + 15 > 254 ? 254 : 16 * b + 15) << 23 | 0x7fffff;
        for (size_t i = 0; i < EXACT_BIN_TERMS_TEST; i++)
            xs[i] = i % 7 == 3 ? (uint64_t)(16 * b) << 23 | 1 : top; /* with the bin's smallest ulp among them */
        emu_exact_init(EF_SINGLE, st_b);
        emu_exact_bins(EF_SINGLE, st_b, t, xs, EXACT_BIN_TERMS_TEST, EXACT_BIN_TERMS_TEST);
        emu_exact_normalize(EF_SINGLE, st_b);
        check_results(t, xs, NULL, EXACT_BIN_TERMS_TEST, st_b, EF_SINGLE, "bins at their bound");
    }
    /* and ExactHalfSum's: 2^13 float16 terms of the largest magnitude beside the smallest */
    for (size_t i = 0; i < EXACT_HALF_TERMS_TEST; i++)
        xs[i] = i % 5 == 2 ? 1 : 0x7bff;
    emu_exact_init(EF_HALF, st_b);
    emu_exact_half(st_b, xs, EXACT_HALF_TERMS_TEST, EXACT_HALF_TERMS_TEST);
    emu_exact_normalize(EF_HALF, st_b);
    check_results(ET_HALF, xs, NULL, EXACT_HALF_TERMS_TEST, st_b, EF_HALF, "half sum at its bound");
}
END_TEST

/* MEAN with counts beyond 2^32 (the 128-by-64-bit division's long path). */
START_TEST(test_mean_large_n)
{
    struct rng r;
    rng_for(&r, "mean", _i);
    const int t = _i % 4;
    case_name = "mean, large n";
    const size_t n = 1 + rnd_below(&r, 50);
    for (size_t i = 0; i < n; i++)
        xs[i] = random_term(&r, t, (int)rnd_below(&r, 5), 1 + (int)rnd_below(&r, (uint64_t)2 * tys[t].emax - 4));
    const int fmt = tys[t].fmt;
    sum_into(st_a, fmt, t, xs, NULL, 0, n);
    struct ref ref;
    ref_init(&ref);
    for (size_t i = 0; i < n; i++)
        ref_term(&ref, value(t, xs[i]));
    const uint64_t kinds[4] = {rnd(&r) | 1ull << 63, rnd(&r) >> rnd_below(&r, 40) | 1,
                               (1ull << 32) + rnd_below(&r, 5) - 2, 1 + rnd_below(&r, 1000)};
    const uint64_t big_n = kinds[_i / 4 % 4]; /* the top bit set (the division's 65th bit), any, near 2^32, small */
    for (int rt = 0; rt < 4; rt++) {
        const uint64_t want = ref_round(&ref, rt, big_n), got = emu_exact_mean(fmt, st_a, big_n, rt);
        if (got != want) {
            print_terms(t, xs, n);
            FAIL_AT("mean of %s by n = %llu into %s: got 0x%llx, want 0x%llx", tname(t), (unsigned long long)big_n,
                    tname(rt), (unsigned long long)got, (unsigned long long)want);
        }
    }
}
END_TEST

/* MEAN on its ties: sums with more bits than the division keeps (1 + 2^-q
 * +- the smallest subnormal), divided by powers of two, so that only the bits
 * below the division's window break the tie. */
START_TEST(test_mean_ties)
{
    const int t = _i;
    case_name = "mean ties";
    const double tiny = value(t, 1);
    for (int q = 8; q <= 53; q++)
        for (int sgn = -1; sgn <= 1; sgn++) {
            const double v[3] = {1, ldexp(1.0, -q), sgn * tiny};
            if (!load(t, v, 3))
                continue;
            sum_into(st_a, tys[t].fmt, t, xs, NULL, 0, 3);
            struct ref ref;
            ref_init(&ref);
            for (int i = 0; i < 3; i++)
                ref_term(&ref, v[i]);
            for (int k = 0; k < 64; k += 7)
                for (int rt = 0; rt < 4; rt++) {
                    const uint64_t n = 1ull << k, want = ref_round(&ref, rt, n),
                                   got = emu_exact_mean(tys[t].fmt, st_a, n, rt);
                    if (got != want)
                        FAIL_AT("(1 + 2^-%d + %d tiny) / 2^%d in %s into %s: got 0x%llx, want 0x%llx", q, sgn, k,
                                tname(t), tname(rt), (unsigned long long)got, (unsigned long long)want);
                }
        }
}
END_TEST

/* float64 sums against Python's math.fsum (skipped without python3). */
START_TEST(test_fsum)
{
    struct rng r;
    rng_for(&r, "fsum", 0);
    case_name = "math.fsum";
    if (system("python3 -c pass >/dev/null 2>&1") != 0) {
        printf("test-exact: no python3: the math.fsum comparison is skipped\n");
        return;
    }
    char path[] = "/tmp/cured-test-exact-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    static const int nv = 12;
    size_t len[12], total = 0;
    for (int v = 0; v < nv; v++) {
        len[v] = v < 2 ? 3 : rnd_below(&r, 500);
        for (size_t i = 0; i < len[v]; i++) {
            uint64_t b = v == 0 ? bits_of(ET_DOUBLE, (double[]){0x1p1023, 0x1p-1074, -0x1p1023}[i])
                         : v == 1 ? bits_of(ET_DOUBLE, (double[]){1e100, 1.0, -1e100}[i])
                                  : random_term(&r, ET_DOUBLE, v % 2 ? 1 : 4, 1000 + (int)rnd_below(&r, 40));
            if (((b >> 52) & 2047) > 2000) /* math.fsum raises on an intermediate overflow */
                b -= (uint64_t)100 << 52;
            xs[total + i] = b;
            fprintf(f, "%a%c", value(ET_DOUBLE, b), i + 1 < len[v] ? ' ' : '\n');
        }
        if (len[v] == 0)
            fprintf(f, "\n");
        total += len[v];
    }
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import math,sys\nfor l in open(sys.argv[1]): print(math.fsum(float.fromhex(w) for w in "
             "l.split()).hex())' %s 2>/dev/null",
             path);
    FILE *py = popen(cmd, "r");
    ck_assert_ptr_nonnull(py);
    char line[128];
    int got_lines = 0;
    total = 0;
    while (got_lines < nv && fgets(line, sizeof line, py)) {
        const double want = strtod(line, NULL);
        emu_exact_init(EF_DOUBLE, st_a);
        for (size_t i = 0; i < len[got_lines]; i++)
            emu_exact_add(EF_DOUBLE, st_a, ET_DOUBLE, xs[total + i]);
        emu_exact_normalize(EF_DOUBLE, st_a);
        const uint64_t got = emu_exact_round(EF_DOUBLE, st_a, ET_DOUBLE);
        if (got != bits_of(ET_DOUBLE, want))
            FAIL_AT("vector %d (%zu terms): got %a, math.fsum %a", got_lines, len[got_lines], value(ET_DOUBLE, got),
                    want);
        total += len[got_lines++];
    }
    const int status = pclose(py);
    unlink(path);
    ck_assert_msg(status == 0 && got_lines == nv, "python3 answered %d of %d sums (status %d)", got_lines, nv, status);
}
END_TEST

void exact_compile_sketches(void); /* exact_compile.c */
/* exact_quick's plan: which rows it reads by 16-byte vectors, and its lanes an output. */
static struct cr_exact_job rows_job(uint64_t in, uint64_t nout, uint64_t len, long long row_stride)
{
    struct cr_exact_job j;
    memset(&j, 0, sizeof j);
    j.in = in;
    j.nout = nout;
    j.len = len;
    j.view = EXACT_VIEW_LINEAR;
    j.kept.n = 1;
    j.kept.extent[0] = (long long)nout;
    j.kept.in_stride[0] = row_stride;
    j.red.n = 1;
    j.red.extent[0] = (long long)len;
    j.red.stride[0] = 1;
    return j;
}

START_TEST(test_quick_plan)
{
    static const struct {
        uint64_t in, len;
        long long row_stride;
        size_t elem;
        int vec;
        unsigned group;
    } cases[] = {
        /* aligned rows of whole vectors: about four vectors a lane, two lanes from two vectors */
        {0x10000, 8, 8, 4, 1, 2},     {0x10000, 16, 16, 4, 1, 2},     {0x10000, 64, 64, 4, 1, 4},
        {0x10000, 256, 256, 4, 1, 16}, {0x10000, 32, 32, 2, 1, 2},    {0x10000, 4096, 4096, 4, 1, 32},
        {0x10000, 16, 20, 4, 1, 2},   {0x10000, 16, 16, 2, 1, 2},
        /* rows of 2, 4 or 8 neighbouring terms dividing the vector: a lane a vector of rows (3); a row
         * stride of its own (4 terms 8 apart: 1), or misaligned, not */
        {0x10000, 4, 4, 4, 3, 1},     {0x10000, 8, 8, 2, 3, 1},       {0x10000, 2, 2, 4, 3, 1},
        {0x10000, 2, 2, 2, 3, 1},     {0x10000, 4, 4, 2, 3, 1},       {0x10000, 4, 8, 4, 1, 1},
        {0x10004, 4, 4, 4, 0, 2},     {0x10000, 3, 3, 2, 0, 2},       {0x10000, 6, 6, 2, 0, 2},
        /* terms: misaligned, a length or a row stride off the vector; about four terms a lane (rows of one term
         * are the columns' vectors: 2) */
        {0x10004, 16, 16, 4, 0, 4},   {0x10000, 6, 6, 4, 0, 2},       {0x10000, 16, 18, 4, 0, 4},
        {0x10000, 12, 12, 2, 0, 2},   {0x10000, 1, 1, 4, 2, 1},       {0x10000, 3, 3, 4, 0, 2},
        {0x10000, 128, 130, 4, 0, 32}, {0x10000, 64, 66, 4, 0, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cr_exact_job j = rows_job(cases[i].in, 1000, cases[i].len, cases[i].row_stride);
        j.vec = (unsigned)cr_exact_quick_vec(&j, cases[i].elem);
        const unsigned g = cr_exact_quick_group(&j, cases[i].elem);
        ck_assert_msg((int)j.vec == cases[i].vec && g == cases[i].group,
                      "case %zu (rows of %llu %zu-byte terms, stride %lld, at 0x%llx): vec %u group %u, want %d and %u", i,
                      (unsigned long long)cases[i].len, cases[i].elem, cases[i].row_stride,
                      (unsigned long long)cases[i].in, j.vec, g, cases[i].vec, cases[i].group);
    }
    struct cr_exact_job pk = rows_job(0x10000, 1002, 2, 2); /* rows of 2: 1002 is whole vectors of float32 rows */
    ck_assert_int_eq(cr_exact_quick_vec(&pk, 4), 3);
    ck_assert_int_eq(cr_exact_quick_vec(&pk, 2), 0); /* not of float16 ones (4 a vector) */
    /* two kept dimensions: every stride a multiple of the vector */
    struct cr_exact_job k2 = rows_job(0x10000, 1000, 16, 16);
    k2.kept.n = 2;
    k2.kept.extent[0] = 10, k2.kept.extent[1] = 100;
    k2.kept.in_stride[0] = 1616, k2.kept.in_stride[1] = 16;
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 4), 1);
    k2.kept.in_stride[0] = 1618;
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 4), 0);
    k2.kept.in_stride[0] = 1616, k2.kept.in_stride[1] = 18;
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 4), 0);
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 2), 0); /* 16 is 2 vectors of float16, 18 is not */
    k2.kept.in_stride[0] = 1612, k2.kept.in_stride[1] = 24;
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 4), 1);
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 2), 0); /* 1612 is not a multiple of 8 */
    k2.kept.in_stride[0] = 1624;
    ck_assert_int_eq(cr_exact_quick_vec(&k2, 2), 1);
    /* columns by vectors of neighbouring outputs (2) where those, the rows' stride and the start are whole
     * aligned vectors, a lane a vector; outputs of one term likewise; segments in lines (4) where aligned */
    struct cr_exact_job c = rows_job(0x10000, 1000, 16, 1);
    c.red.stride[0] = 1000;
    ck_assert_int_eq(cr_exact_quick_vec(&c, 4), 2);
    ck_assert_int_eq(cr_exact_quick_vec(&c, 2), 2);
    c.vec = 2;
    ck_assert_uint_eq(cr_exact_quick_group(&c, 4), 1);
    c.vec = 0;
    ck_assert_uint_eq(cr_exact_quick_group(&c, 4), 1);
    c.red.stride[0] = 1004; /* rows whole float32 vectors apart, not float16 ones */
    ck_assert_int_eq(cr_exact_quick_vec(&c, 4), 2);
    ck_assert_int_eq(cr_exact_quick_vec(&c, 2), 0);
    c.red.stride[0] = 1002;
    ck_assert_int_eq(cr_exact_quick_vec(&c, 4), 0);
    c.red.stride[0] = 1000;
    c.in = 0x10004; /* misaligned */
    ck_assert_int_eq(cr_exact_quick_vec(&c, 4), 0);
    c.in = 0x10000;
    c.kept.extent[0] = 1002, c.nout = 1002; /* a last vector not whole */
    ck_assert_int_eq(cr_exact_quick_vec(&c, 4), 0);
    c.kept.extent[0] = 1000, c.nout = 1000;
    c.kept.in_stride[0] = 2; /* neighbouring outputs not neighbours */
    ck_assert_int_eq(cr_exact_quick_vec(&c, 4), 0);
    struct cr_exact_job one = rows_job(0x10000, 1000, 1, 1); /* outputs of one term, of every type */
    ck_assert_int_eq(cr_exact_quick_vec(&one, 4), 2);
    ck_assert_int_eq(cr_exact_quick_vec(&one, 2), 2);
    one.kept.extent[0] = 1004, one.nout = 1004; /* whole float32 vectors, not float16 ones */
    ck_assert_int_eq(cr_exact_quick_vec(&one, 4), 2);
    ck_assert_int_eq(cr_exact_quick_vec(&one, 2), 0);
    one.kept.extent[0] = 999, one.nout = 999;
    ck_assert_int_eq(cr_exact_quick_vec(&one, 4), 0);
    struct cr_exact_job sg = rows_job(0x10000, 1000, 16, 16);
    sg.view = EXACT_VIEW_SEGMENTS;
    sg.guard.limit = 64000; /* a mean of 64 terms: 17 float32 lines, 9 of float16, about two a lane */
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 4), 4);
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 2), 4);
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 8), 0); /* exact_quick has no float64 terms */
    sg.vec = 4;
    ck_assert_uint_eq(cr_exact_quick_group(&sg, 4), 8);
    ck_assert_uint_eq(cr_exact_quick_group(&sg, 2), 4);
    sg.guard.limit = 1000; /* a mean under one line: one lane a segment */
    ck_assert_uint_eq(cr_exact_quick_group(&sg, 4), 1);
    sg.guard.limit = 1000 * 4096; /* 1025 lines: 32 lanes */
    ck_assert_uint_eq(cr_exact_quick_group(&sg, 4), 32);
    sg.guard.limit = (uint64_t)1 << 34; /* 2^32 float32 lines (a line's index is 32 bits): terms */
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 4), 0);
    sg.guard.limit = ((uint64_t)1 << 34) - 1;
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 4), 4);
    sg.guard.limit = (uint64_t)INT64_MAX;
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 2), 0);
    sg.guard.limit = 64000;
    sg.in = 0x10008; /* misaligned: terms, about four a lane */
    ck_assert_int_eq(cr_exact_quick_vec(&sg, 4), 0);
    sg.vec = 0;
    ck_assert_uint_eq(cr_exact_quick_group(&sg, 4), 16);
}
END_TEST

START_TEST(test_compile)
{
    exact_compile_sketches();
}
END_TEST

int main(void)
{
    const char *env = getenv("CURED_TEST_SEED");
    seed = env && *env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    printf("test-exact: seed %llu\n", seed);
    Suite *s = suite_create("exact");
    TCase *tc = tcase_create("host");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_adversarial, 0, 4);
    tcase_add_loop_test(tc, test_random, 0, 4 * NMODES * 2 * 6);
    tcase_add_loop_test(tc, test_fronts, 0, 3 * 20);
    tcase_add_test(tc, test_bins_bound);
    tcase_add_loop_test(tc, test_mean_large_n, 0, 4 * 20);
    tcase_add_loop_test(tc, test_mean_ties, 0, 4);
    tcase_add_test(tc, test_fsum);
    tcase_add_test(tc, test_quick_plan);
    suite_add_tcase(s, tc);
    TCase *jit = tcase_create("compile");
    tcase_set_timeout(jit, 300);
    tcase_add_test(jit, test_compile);
    suite_add_tcase(s, jit);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("test-exact: %d failure(s); rerun with: CURED_TEST_SEED=%llu ./tests/test-exact\n", failed, seed);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
