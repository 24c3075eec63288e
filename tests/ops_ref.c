/* Checks of results against the oracle, and the test data; see ops_ref.h. */
#include "ops_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ref_flavour_name(enum ref_flavour fl)
{
    static const char *const names[FL_COUNT] = {"rand", "rand2", "odd", "and", "or",
                                                "wide", "wide+nan", "real", "real2", "rand+nan", "real+nan"};
    return (unsigned)fl < FL_COUNT ? names[fl] : "?";
}

/* ---- checks ----------------------------------------------------------------------- */

/* One unit in the last place of v in type t (the spacing at v's binade). */
static long double ulp(cured_type t, long double v)
{
    static const int mant[] = {[CURED_TYPE_FLOAT16] = 10, [CURED_TYPE_BFLOAT16] = 7,
                               [CURED_TYPE_FLOAT32] = 23, [CURED_TYPE_FLOAT64] = 52};
    static const int emin[] = {[CURED_TYPE_FLOAT16] = -14, [CURED_TYPE_BFLOAT16] = -126,
                               [CURED_TYPE_FLOAT32] = -126, [CURED_TYPE_FLOAT64] = -1022};
    int e = 0;
    frexpl(v, &e); /* v = m * 2^e, 0.5 <= |m| < 1 */
    e -= 1;
    if (v == 0 || e < emin[t])
        e = emin[t];
    return ldexpl(1, e - mant[t]);
}

/* v rounded to nearest even in type t, as a double. */
static double round_to(cured_type t, long double v)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return half_to_float(float_to_half((float)v));
    case CURED_TYPE_BFLOAT16: return bf16_to_float(float_to_bf16((float)v));
    case CURED_TYPE_FLOAT32: return (float)v;
    default: return (double)v;
    }
}

static void check_value(cured_type t, const unsigned char *p, const struct ref_value *v, long double tol,
                        const char *what, const char *part)
{
    if (!ref_is_float(t)) {
        size_t size = ref_size(t);
        uint64_t got = ref_bits(size, p, 0);
        uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1, want = v->u & mask;
        ck_assert_msg(got == want, "%s: %s is 0x%llx (%lld), want 0x%llx (%lld)%s (seed %llu)", what, part,
                      (unsigned long long)got, (long long)ref_get_u(t, p, 0), (unsigned long long)want,
                      (long long)ref_get_u(t, &v->u, 0), got == (POISON64 & mask) ? " (not written?)" : "",
                      test_seed);
        return;
    }
    double got = ref_get_f(t, p, 0);
    if (v->is_nan) {
        ck_assert_msg(isnan(got), "%s: %s is %.17g, want NaN (seed %llu)", what, part, got, test_seed);
        return;
    }
    ck_assert_msg(!isnan(got), "%s: %s is NaN, want %.21Lg (seed %llu)", what, part, v->f, test_seed);
    if (tol == 0 || isinf(v->f)) {
        double want = round_to(t, v->f);
        ck_assert_msg(got == want, "%s: %s is %.17g (%a), want %.17g (%a; reference %.21Lg) (seed %llu)",
                      what, part, got, got, want, want, v->f, test_seed);
        return;
    }
    long double err = fabsl((long double)got - v->f), bound = tol + ulp(t, v->f);
    ck_assert_msg(err <= bound, "%s: %s is %.17g, want %.21Lg within %.3Lg (off by %.3Lg) (seed %llu)", what,
                  part, got, v->f, bound, err, test_seed);
}

void ref_check(cured_op op, cured_type in, cured_type out, const unsigned char *got,
               const struct ref_result *r, const char *what)
{
    if (r->is_arg) {
        int64_t index;
        memcpy(&index, got, 8);
        ck_assert_msg(index == r->index, "%s: index %lld, want %lld (seed %llu)", what, (long long)index,
                      (long long)r->index, test_seed);
        const size_t size = ref_size(in);
        const uint64_t value = ref_bits(size, got + 8, 0);
        ck_assert_msg(value == r->arg_bits, "%s: the value's bits are 0x%llx, want 0x%llx: element %lld's (seed %llu)",
                      what, (unsigned long long)value, (unsigned long long)r->arg_bits,
                      (long long)(r->index < 0 ? 0 : r->index), test_seed);
        return;
    }
    size_t size = ref_size(out);
    const char *part[2] = {"the minimum", "the maximum"};
    if (op == CURED_OP_MEAN_VAR)
        part[0] = "the mean", part[1] = "the variance";
    for (int k = 0; k < r->nvalues; k++)
        check_value(out, got + (size_t)k * size, &r->v[k], r->v[k].tol > r->tol ? r->v[k].tol : r->tol, what,
                    r->nvalues == 1 ? "the result" : part[k]);
}

/* ---- data --------------------------------------------------------------------------- */

static uint64_t rng_u64(struct rng *r)
{
    uint64_t hi = rng_u32(r);
    return hi << 32 | rng_u32(r);
}

static size_t rng_below(struct rng *r, size_t n)
{
    return (size_t)(rng_u64(r) % n);
}

/* A random NaN of a float type (any sign, any nonzero payload), as bits. */
static uint64_t random_nan(cured_type t, struct rng *r)
{
    uint64_t x = rng_u64(r);
    switch (t) {
    case CURED_TYPE_FLOAT16: return (x & 0x8000u) | 0x7c00u | ((x >> 16) % 0x3ffu + 1);
    case CURED_TYPE_BFLOAT16: return (x & 0x8000u) | 0x7f80u | ((x >> 16) % 0x7fu + 1);
    case CURED_TYPE_FLOAT32: return (x & 0x80000000u) | 0x7f800000u | ((x >> 32) % 0x7fffffu + 1);
    default: return (x & 0x8000000000000000ull) | 0x7ff0000000000000ull | (x % 0xfffffffffffffull + 1);
    }
}

/* A random finite bit pattern of a float type (zeros and subnormals included). */
static uint64_t random_finite(cured_type t, struct rng *r)
{
    for (;;) {
        uint64_t x = rng_u64(r);
        switch (t) {
        case CURED_TYPE_FLOAT16: if ((x & 0x7c00u) != 0x7c00u) return x & 0xffffu; break;
        case CURED_TYPE_BFLOAT16: if ((x & 0x7f80u) != 0x7f80u) return x & 0xffffu; break;
        case CURED_TYPE_FLOAT32: if ((x & 0x7f800000u) != 0x7f800000u) return x & 0xffffffffu; break;
        default: if ((x & 0x7ff0000000000000ull) != 0x7ff0000000000000ull) return x; break;
        }
    }
}

static void fill_int(cured_type t, enum ref_flavour fl, struct rng *r, void *buf, size_t n)
{
    const unsigned bits = 8 * (unsigned)ref_size(t);
    if (fl == FL_AND || fl == FL_OR) {
        /* Holes (AND) or single bits (OR): about 0.7 per bit position in the whole
         * buffer, and bits/2 more among the first 48 elements for the small cases. */
        for (size_t i = 0; i < n; i++)
            ref_put_u(t, buf, i, fl == FL_AND ? ~0ull : 0);
        const size_t many = bits * 7 / 10, few = bits / 2;
        for (size_t k = 0; n > 0 && k < many + few; k++) {
            size_t i = rng_below(r, k < many ? n : (n < 48 ? n : 48));
            uint64_t bit = 1ull << rng_below(r, bits), v = ref_get_u(t, buf, i);
            ref_put_u(t, buf, i, fl == FL_AND ? v & ~bit : v | bit);
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        ref_put_u(t, buf, i, rng_u64(r) | (fl == FL_ODD ? 1 : 0));
}

void ref_fill(cured_type t, enum ref_flavour fl, struct rng *r, void *buf, size_t n)
{
    if (!ref_is_float(t)) {
        fill_int(t, fl, r, buf, n);
        return;
    }
    switch (fl) {
    case FL_ODD: {
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, buf, i, rng_u32(r) & 1 ? -1.0 : 1.0);
        /* Two 2s and one 0.5 in [16, 40) for the small cases, the rest anywhere. */
        static const double factor[15] = {2, 2, 0.5, 2, 2, 2, 2, 2, 2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
        for (size_t k = 0; k < 15 && n > 0; k++) {
            size_t i = k < 3 && n > 40 ? 16 + rng_below(r, 24) : rng_below(r, n);
            ref_put_f(t, buf, i, rng_u32(r) & 1 ? -factor[k] : factor[k]);
        }
        break;
    }
    case FL_WIDE:
    case FL_WIDE_NAN:
        for (size_t i = 0; i < n; i++)
            ref_put_u(t, buf, i, fl == FL_WIDE_NAN && rng_u32(r) % 2048 == 0 ? random_nan(t, r)
                                                                             : random_finite(t, r));
        if (fl == FL_WIDE_NAN && n > 40) /* a NaN that every case from offset 0..15 of 33+ elements sees */
            ref_put_u(t, buf, 20 + rng_below(r, 11), random_nan(t, r));
        break;
    case FL_REAL:
    case FL_REAL2:
    case FL_REAL_NAN:
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, buf, i, ldexp((double)rng_u32(r), -36) - 1.0 / 32);
        break;
    default: /* FL_RAND, FL_RAND2 (and the integer-only flavours): k/64, |k| <= 3 */
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, buf, i, ((int)(rng_u32(r) % 7) - 3) / 64.0);
        break;
    }
    if (fl == FL_RAND_NAN || fl == FL_REAL_NAN) {
        for (size_t i = 0; i < n; i++)
            if (rng_u32(r) % 4 == 0)
                ref_put_u(t, buf, i, random_nan(t, r));
        if (n > 40) /* element 20: a case of one element there reduces only a NaN */
            ref_put_u(t, buf, 20, random_nan(t, r));
    }
}
