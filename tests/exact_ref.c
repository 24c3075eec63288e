/*
 * The exact sums' reference, written without kernels-src/exact.cuh (shared
 * by test-exact and test-exact-emu): the terms' sum as one wide two's
 * complement integer, and each result found by a binary search over the
 * result type's bit patterns with exact comparisons, so that the rounding is
 * checked by a different method than the header's bit extraction.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "exact_ref.h"
#include "halfbits.h"

/* ---- The types: IEEE layouts, values as doubles (every value of every type is one) ---- */
const struct ty tys[4] = {
    {"float16", 11, 15, 5, EF_HALF, EF_HALF_PRODUCTS},
    {"bfloat16", 8, 127, 8, EF_SINGLE, EF_SINGLE_PRODUCTS},
    {"float32", 24, 127, 8, EF_SINGLE, EF_SINGLE_PRODUCTS},
    {"float64", 53, 1023, 11, EF_DOUBLE, EF_DOUBLE_PRODUCTS},
};
uint64_t sign_bit(int t) { return 1ull << (tys[t].ebits + tys[t].p - 1); }
uint64_t inf_bits(int t) { return ((1ull << tys[t].ebits) - 1) << (tys[t].p - 1); }
uint64_t nan_bits(int t) { return inf_bits(t) | 1ull << (tys[t].p - 2); }
uint64_t max_bits(int t) { return inf_bits(t) - 1; }
double value(int t, uint64_t b)
{
    switch (t) {
    case ET_HALF:
        return half_to_float((uint16_t)b);
    case ET_BF16:
        return bf16_to_float((uint16_t)b);
    case ET_FLOAT:
        return bits_float((uint32_t)b);
    default: {
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    }
}
/* The pattern of a value of type t (x must be one). */
uint64_t bits_of(int t, double x)
{
    if (t == ET_DOUBLE) {
        uint64_t b;
        memcpy(&b, &x, 8);
        return b;
    }
    if (t == ET_FLOAT)
        return float_bits((float)x);
    return t == ET_HALF ? float_to_half((float)x) : float_to_bf16((float)x);
}
int is_nan_bits(int t, uint64_t b) { return (b & ~sign_bit(t)) > inf_bits(t); }

/* ---- The reference: a two's complement integer of RW words, bit 0 weighing 2^RLOW ---- */
static void big_addsh(big *b, unsigned __int128 m, int e, int neg) /* b += (neg ? -m : m) 2^e */
{
    const int p = e - RLOW;
    if (p < 0 || p / 32 + 6 >= RW) /* (not ck_assert: a passing one writes to a pipe, and this runs millions of times) */
        ck_abort_msg("test bug: 2^%d outside the reference", e);
    uint32_t t[6] = {0};
    for (int j = 0; j < 4; j++)
        t[j] = (uint32_t)(m >> (32 * j));
    if (p % 32)
        for (int j = 5; j >= 0; j--)
            t[j] = t[j] << (p % 32) | (j ? t[j - 1] >> (32 - p % 32) : 0);
    uint64_t carry = neg; /* b + ~t + 1 for subtraction */
    for (int i = p / 32, j = 0; i < RW; i++, j++) {
        const uint32_t x = j < 6 ? t[j] : 0;
        const uint64_t s = (uint64_t)b->w[i] + (neg ? (uint32_t)~x : x) + carry;
        b->w[i] = (uint32_t)s;
        carry = s >> 32;
        if (j >= 6 && !neg && !carry)
            break;
    }
}
static int big_neg_p(const big *b) { return b->w[RW - 1] >> 31; }
static int big_zero_p(const big *b)
{
    for (int i = 0; i < RW; i++)
        if (b->w[i])
            return 0;
    return 1;
}
static void big_negate(big *b)
{
    uint64_t carry = 1;
    for (int i = 0; i < RW; i++) {
        const uint64_t s = (uint64_t)(uint32_t)~b->w[i] + carry;
        b->w[i] = (uint32_t)s;
        carry = s >> 32;
    }
}
static int big_cmp(const big *a, const big *b) /* both non-negative */
{
    for (int i = RW - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}
static void big_mul(big *b, uint64_t n) /* b non-negative, b n fits */
{
    uint32_t r[RW] = {0};
    for (int h = 0; h < 2; h++) {
        const uint64_t f = (uint32_t)(n >> (32 * h));
        uint64_t carry = 0;
        for (int i = 0; i + h < RW; i++) {
            const uint64_t s = (uint64_t)b->w[i] * f + r[i + h] + carry;
            r[i + h] = (uint32_t)s;
            carry = s >> 32;
        }
    }
    memcpy(b->w, r, sizeof r);
}
static void big_of(big *b, unsigned __int128 m, int e)
{
    memset(b, 0, sizeof *b);
    big_addsh(b, m, e, 0);
}

/* (m, e) of a finite nonzero double: |x| = m 2^e, by frexp (not by its bits). */
static void split(double x, uint64_t *m, int *e)
{
    int ex;
    const double f = frexp(fabs(x), &ex);
    *m = (uint64_t)ldexp(f, 53);
    *e = ex - 53;
}

void ref_init(struct ref *r)
{
    memset(r, 0, sizeof *r);
    r->negzero = 1;
}
void ref_term(struct ref *r, double x)
{
    r->n++;
    r->negzero &= x == 0 && signbit(x);
    if (isnan(x))
        r->nan = 1;
    else if (isinf(x))
        *(x > 0 ? &r->pinf : &r->ninf) = 1;
    else if (x != 0) {
        uint64_t m;
        int e;
        split(x, &m, &e);
        big_addsh(&r->v, m, e, x < 0);
    }
}
void ref_product(struct ref *r, double x, double y)
{
    const int neg = !!signbit(x) != !!signbit(y);
    r->n++;
    if (isnan(x) || isnan(y) || (isinf(x) && y == 0) || (isinf(y) && x == 0)) {
        r->nan = 1;
        r->negzero = 0;
    } else if (isinf(x) || isinf(y)) {
        *(neg ? &r->ninf : &r->pinf) = 1;
        r->negzero = 0;
    } else if (x == 0 || y == 0) {
        r->negzero &= neg;
    } else {
        uint64_t mx, my;
        int ex, ey;
        split(x, &mx, &ex);
        split(y, &my, &ey);
        big_addsh(&r->v, (unsigned __int128)mx * my, ex + ey, neg);
        r->negzero = 0;
    }
}

/* (m, e) of a non-negative finite pattern k of type t. */
static void pattern(int t, uint64_t k, unsigned __int128 *m, int *e)
{
    const int p = tys[t].p, biased = (int)(k >> (p - 1));
    const uint64_t frac = k & ((1ull << (p - 1)) - 1);
    *m = biased ? frac | 1ull << (p - 1) : frac;
    *e = (biased ? biased : 1) - tys[t].emax - (p - 1);
}

/* |V| / n rounded to nearest-even in t, by binary search over the patterns:
 * the largest k with n value(k) <= |V|, then 2|V| against n (value(k) + value(k + 1)). */
static uint64_t search(int t, const big *mag, uint64_t n, int neg)
{
    uint64_t lo = 0, hi = max_bits(t);
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        unsigned __int128 m;
        int e;
        big v;
        pattern(t, mid, &m, &e);
        big_of(&v, m, e);
        big_mul(&v, n);
        if (big_cmp(&v, mag) <= 0)
            lo = mid;
        else
            hi = mid - 1;
    }
    unsigned __int128 m;
    int e;
    big v, twice = *mag, sum;
    pattern(t, lo, &m, &e);
    big_of(&v, m, e);
    big_mul(&v, n);
    uint64_t k = lo;
    if (big_cmp(&v, mag) != 0) {
        /* value(k) + value(k + 1) = 2 value(k) + ulp: (2 m + 1) 2^e */
        big_of(&sum, 2 * m + 1, e);
        big_mul(&sum, n);
        uint64_t carry = 0; /* twice = 2 |V| */
        for (int i = 0; i < RW; i++) {
            const uint64_t s = ((uint64_t)mag->w[i] << 1) + carry;
            twice.w[i] = (uint32_t)s;
            carry = s >> 32;
        }
        const int c = big_cmp(&twice, &sum);
        if (c > 0 || (c == 0 && (k & 1)))
            k++; /* past the largest finite: k + 1 is infinity's pattern */
    }
    return k | (neg ? sign_bit(t) : 0);
}
uint64_t ref_round(const struct ref *r, int t, uint64_t n) /* n: 1 for the sum, the count for the mean */
{
    if (r->nan || (r->pinf && r->ninf) || n == 0)
        return nan_bits(t);
    if (r->pinf || r->ninf)
        return inf_bits(t) | (r->ninf ? sign_bit(t) : 0);
    if (big_zero_p(&r->v))
        return r->n && r->negzero ? sign_bit(t) : 0;
    big mag = r->v;
    const int neg = big_neg_p(&mag);
    if (neg)
        big_negate(&mag);
    return search(t, &mag, n, neg);
}
/* The correctly rounded square root of the sum of squares correctly rounded to t. */
static uint64_t sqrt_of_rounded(const struct ref *r, int t)
{
    const uint64_t s = ref_round(r, t, 1);
    if (is_nan_bits(t, s) || s == inf_bits(t) || (s & ~sign_bit(t)) == 0)
        return s;
    unsigned __int128 sm;
    int se;
    big sq;
    pattern(t, s, &sm, &se);
    big_of(&sq, sm, se);
    uint64_t lo = 0, hi = max_bits(t);
    while (lo < hi) { /* the largest k with value(k)^2 <= s */
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        unsigned __int128 m;
        int e;
        big v;
        pattern(t, mid, &m, &e);
        big_of(&v, m * m, 2 * e);
        if (big_cmp(&v, &sq) <= 0)
            lo = mid;
        else
            hi = mid - 1;
    }
    unsigned __int128 m;
    int e;
    big mid2;
    pattern(t, lo, &m, &e);
    big_of(&mid2, (2 * m + 1) * (2 * m + 1), 2 * e - 2); /* the midpoint's square: never a tie */
    return big_cmp(&sq, &mid2) > 0 ? lo + 1 : lo;
}
/* NORM2: the square root of the sum of squares rounded to float64, correctly rounded in float64, then rounded once
 * to t (for float64: the square root of the correctly rounded sum). */
uint64_t ref_norm2(const struct ref *r, int t)
{
    const uint64_t d = sqrt_of_rounded(r, ET_DOUBLE);
    if (t == ET_DOUBLE)
        return d;
    struct ref one;
    ref_init(&one);
    ref_term(&one, value(ET_DOUBLE, d));
    return ref_round(&one, t, 1);
}
