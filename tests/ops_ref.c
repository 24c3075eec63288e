/* Host references for tests/test-ops; see ops_ref.h. */
#include "ops_ref.h"
#include "stats_ref.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- types ------------------------------------------------------------------------ */

size_t ref_size(cured_type t)
{
    static const size_t sizes[CURED_TYPE_COUNT] = {4, 8, 1, 1, 2, 2, 4, 8, 2, 2, 4, 8};
    return (unsigned)t < CURED_TYPE_COUNT ? sizes[t] : 0;
}

int ref_is_float(cured_type t)
{
    return t == CURED_TYPE_FLOAT16 || t == CURED_TYPE_BFLOAT16 || t == CURED_TYPE_FLOAT32 ||
           t == CURED_TYPE_FLOAT64;
}

int ref_is_signed(cured_type t)
{
    return t == CURED_TYPE_INT8 || t == CURED_TYPE_INT16 || t == CURED_TYPE_INT32 || t == CURED_TYPE_INT64;
}

const char *ref_flavour_name(enum ref_flavour fl)
{
    static const char *const names[FL_COUNT] = {"rand", "rand2", "odd", "and", "or",
                                                "wide", "wide+nan", "real", "real2", "rand+nan", "real+nan"};
    return (unsigned)fl < FL_COUNT ? names[fl] : "?";
}

/* Raw bits of element i, zero-extended (the host is little-endian, as the device). */
static uint64_t raw_bits(size_t size, const void *buf, size_t i)
{
    const unsigned char *p = (const unsigned char *)buf + i * size;
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void put_bits(size_t size, void *buf, size_t i, uint64_t v)
{
    unsigned char *p = (unsigned char *)buf + i * size;
    switch (size) {
    case 1: *p = (unsigned char)v; break;
    case 2: { uint16_t w = (uint16_t)v; memcpy(p, &w, 2); break; }
    case 4: { uint32_t w = (uint32_t)v; memcpy(p, &w, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static inline uint64_t get_u(cured_type t, const void *buf, size_t i)
{
    size_t size = ref_size(t);
    uint64_t v = raw_bits(size, buf, i);
    if (ref_is_signed(t) && size < 8 && (v >> (8 * size - 1)) & 1u)
        v |= ~0ull << (8 * size);
    return v;
}

static inline double get_f(cured_type t, const void *buf, size_t i)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return half_to_float((uint16_t)raw_bits(2, buf, i));
    case CURED_TYPE_BFLOAT16: return bf16_to_float((uint16_t)raw_bits(2, buf, i));
    case CURED_TYPE_FLOAT32: return bits_float((uint32_t)raw_bits(4, buf, i));
    case CURED_TYPE_FLOAT64: { double d; memcpy(&d, (const char *)buf + i * 8, 8); return d; }
    default: ck_abort_msg("test bug: ref_get_f on %s", cured_type_name(t));
    }
    return 0;
}

uint64_t ref_get_u(cured_type t, const void *buf, size_t i)
{
    return get_u(t, buf, i);
}

double ref_get_f(cured_type t, const void *buf, size_t i)
{
    return get_f(t, buf, i);
}

void ref_put_u(cured_type t, void *buf, size_t i, uint64_t v)
{
    put_bits(ref_size(t), buf, i, v);
}

void ref_put_f(cured_type t, void *buf, size_t i, double v)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: put_bits(2, buf, i, float_to_half((float)v)); break;
    case CURED_TYPE_BFLOAT16: put_bits(2, buf, i, float_to_bf16((float)v)); break;
    case CURED_TYPE_FLOAT32: put_bits(4, buf, i, float_bits((float)v)); break;
    case CURED_TYPE_FLOAT64: { uint64_t u; memcpy(&u, &v, 8); put_bits(8, buf, i, u); break; }
    default: ck_abort_msg("test bug: ref_put_f on %s", cured_type_name(t));
    }
}

uint64_t ref_int_max(cured_type t)
{
    unsigned bits = 8 * (unsigned)ref_size(t);
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    return ref_is_signed(t) ? all >> 1 : all;
}

uint64_t ref_int_min(cured_type t)
{
    return ref_is_signed(t) ? ~ref_int_max(t) : 0;
}

/* a < b in the order of integer type t (values as from ref_get_u). */
static int int_less(cured_type t, uint64_t a, uint64_t b)
{
    return ref_is_signed(t) ? (int64_t)a < (int64_t)b : a < b;
}

size_t ref_result_size(cured_op op, cured_type out)
{
    if (op == CURED_OP_MINMAX || op == CURED_OP_MEAN_VAR)
        return 2 * ref_size(out);
    if (op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX || op == CURED_OP_NANARGMIN ||
        op == CURED_OP_NANARGMAX)
        return 16;
    return ref_size(out);
}

/* ---- references ------------------------------------------------------------------- */

static void sum_like(cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
                     int exact, struct ref_result *r)
{
    if (!ref_is_float(in) && op != CURED_OP_NORM2) { /* modulo 2^64, then the result's width */
        const int sign = ref_is_signed(in);
        uint64_t acc = op == CURED_OP_PRODUCT ? 1 : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = get_u(in, x, i);
            switch (op) {
            case CURED_OP_SUM:
            case CURED_OP_NANSUM: acc += v; break; /* (integers hold no NaN) */
            case CURED_OP_PRODUCT: acc *= v; break;
            case CURED_OP_SUM_SQUARES: acc += v * v; break;
            case CURED_OP_SUM_ABS: acc += sign && (int64_t)v < 0 ? 0 - v : v; break;
            case CURED_OP_DOT: acc += v * get_u(in, y, i); break;
            default: ck_abort_msg("test bug: op %d", (int)op);
            }
        }
        r->v[0].u = acc;
        return;
    }
    /* Floats, and the integer norm: long double with Neumaier's compensation (so the
     * reference stays far more accurate than the tolerance even where long double is
     * only double), and the terms' magnitudes for the tolerance. */
    long double acc = op == CURED_OP_PRODUCT ? 1 : 0, comp = 0, mag = 0;
    for (size_t i = 0; i < n; i++) {
        long double v = ref_is_float(in) ? (long double)get_f(in, x, i)
                        : ref_is_signed(in) ? (long double)(int64_t)get_u(in, x, i)
                                            : (long double)get_u(in, x, i);
        long double t;
        switch (op) {
        case CURED_OP_SUM: t = v; break;
        case CURED_OP_NANSUM: /* NaN elements skipped (numpy.nansum) */
            if (isnan(v))
                continue;
            t = v;
            break;
        case CURED_OP_PRODUCT: acc *= v; continue;
        case CURED_OP_SUM_SQUARES:
        case CURED_OP_NORM2: t = v * v; break;
        case CURED_OP_SUM_ABS: t = fabsl(v); break;
        case CURED_OP_DOT: t = v * (long double)get_f(in, y, i); break;
        default: ck_abort_msg("test bug: op %d", (int)op); return;
        }
        long double sum = acc + t;
        if (sum - sum == 0) /* finite (isfinite on long double misleads valgrind) */
            comp += fabsl(acc) >= fabsl(t) ? (acc - sum) + t : (t - sum) + acc;
        acc = sum;
        mag += fabsl(t);
    }
    if (acc - acc == 0)
        acc += comp;
    /* Float accumulation except for FLOAT64 results (see cured_op). */
    const long double eps = out == CURED_TYPE_FLOAT64 ? ldexpl(1, -53) : ldexpl(1, -24);
    if (!ref_is_float(in)) /* the integer norm is exact in double up to 16-bit elements */
        exact = ref_size(in) <= 2;
    /* float64 results: a thread's run down a long reduced axis adds one rounding per element,
     * whose errors grow like sqrt(run) ulps of the magnitude (~250 at 93060 elements along a
     * broadcast axis): 64 plus 8 sqrt(n), well past that and far below a lost element. */
    const long double chain = out == CURED_TYPE_FLOAT64 ? 64 + 8 * sqrtl((long double)n) : 64;
    if (op == CURED_OP_PRODUCT)
        r->tol = exact ? 0 : ((long double)n + 64) * eps * fabsl(acc);
    else
        r->tol = exact ? 0 : chain * eps * mag;
    if (op == CURED_OP_NORM2 && !isnan(acc)) {
        if (exact) /* the accumulator's sqrt of the exact sum, correctly rounded */
            acc = out == CURED_TYPE_FLOAT32 ? (long double)sqrtf((float)acc) : (long double)sqrt((double)acc);
        else {
            long double s = sqrtl(acc);
            r->tol = s > 0 ? r->tol / (2 * s) : sqrtl(r->tol);
            acc = s;
        }
    }
    r->v[0].is_nan = isnan(acc) != 0;
    r->v[0].f = acc;
}

static void bitwise(cured_op op, cured_type in, const void *x, size_t n, struct ref_result *r)
{
    uint64_t acc = op == CURED_OP_AND ? ~0ull : 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = get_u(in, x, i);
        acc = op == CURED_OP_AND ? acc & v : op == CURED_OP_OR ? acc | v : acc ^ v;
    }
    r->v[0].u = acc;
}

static void extremes(cured_op op, cured_type in, const void *x, size_t n, struct ref_result *r)
{
    const int ignore = op == CURED_OP_NANMIN || op == CURED_OP_NANMAX;
    if (n == 0 && op == CURED_OP_MINMAX) {
        r->status = CURED_ERROR_EMPTY_INPUT;
        return;
    }
    if (op == CURED_OP_MINMAX)
        r->nvalues = 2;
    if (!ref_is_float(in)) {
        uint64_t lo = ref_int_max(in), hi = ref_int_min(in); /* also the results for n == 0 */
        for (size_t i = 0; i < n; i++) {
            uint64_t v = get_u(in, x, i);
            if (int_less(in, v, lo))
                lo = v;
            if (int_less(in, hi, v))
                hi = v;
        }
        r->v[0].u = op == CURED_OP_MAX ? hi : lo;
        r->v[1].u = hi;
        return;
    }
    long double lo = INFINITY, hi = -INFINITY; /* the results for n == 0 */
    size_t nans = 0;
    for (size_t i = 0; i < n; i++) {
        double v = get_f(in, x, i);
        if (isnan(v)) {
            nans++;
            continue;
        }
        if (v < lo)
            lo = v;
        if (v > hi)
            hi = v;
    }
    const int is_max = op == CURED_OP_MAX || op == CURED_OP_NANMAX;
    r->v[0].f = is_max ? hi : lo;
    r->v[1].f = hi;
    if (n > 0 && nans == n && ignore)
        r->status = CURED_ERROR_ALL_NAN; /* the asynchronous call writes NaN */
    if (nans > 0 && (!ignore || nans == n))
        r->v[0].is_nan = r->v[1].is_nan = 1;
}

static void arg_search(cured_op op, cured_type in, const void *x, size_t n, struct ref_result *r)
{
    const int ignore = op == CURED_OP_NANARGMIN || op == CURED_OP_NANARGMAX;
    const int is_max = op == CURED_OP_ARGMAX || op == CURED_OP_NANARGMAX;
    if (!ref_is_float(in)) {
        uint64_t best = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = get_u(in, x, i);
            if (r->index < 0 || (is_max ? int_less(in, best, v) : int_less(in, v, best))) {
                best = v;
                r->index = (int64_t)i;
            }
        }
        r->v[0].u = best;
        return;
    }
    double best = 0;
    for (size_t i = 0; i < n; i++) {
        double v = get_f(in, x, i);
        if (isnan(v)) {
            if (ignore)
                continue;
            r->index = (int64_t)i; /* NaN propagates: the first NaN */
            r->v[0].is_nan = 1;
            return;
        }
        if (r->index < 0 || (is_max ? v > best : v < best)) { /* strict: ties keep the first */
            best = v;
            r->index = (int64_t)i;
        }
    }
    if (r->index < 0) /* only NaNs, ignored */
        r->status = CURED_ERROR_ALL_NAN;
    r->v[0].f = best;
}

static void arg(cured_op op, cured_type in, const void *x, size_t n, struct ref_result *r)
{
    r->is_arg = 1;
    r->index = -1;
    if (n == 0) {
        r->status = CURED_ERROR_EMPTY_INPUT;
        return;
    }
    arg_search(op, in, x, n, r);
    r->arg_bits = raw_bits(ref_size(in), x, r->index < 0 ? 0 : (size_t)r->index);
}

void ref_reduce(cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
                int exact, struct ref_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = CURED_SUCCESS;
    r->nvalues = 1;
    switch (op) {
    case CURED_OP_SUM:
    case CURED_OP_NANSUM:
    case CURED_OP_PRODUCT:
    case CURED_OP_SUM_SQUARES:
    case CURED_OP_SUM_ABS:
    case CURED_OP_NORM2:
    case CURED_OP_DOT:
        sum_like(op, in, out, x, y, n, exact, r);
        break;
    case CURED_OP_AND:
    case CURED_OP_OR:
    case CURED_OP_XOR:
        bitwise(op, in, x, n, r);
        break;
    case CURED_OP_COUNT_NONZERO: /* x != 0: NaN counts, -0 does not */
        for (size_t i = 0; i < n; i++)
            r->v[0].u += ref_is_float(in) ? ref_get_f(in, x, i) != 0.0 : ref_get_u(in, x, i) != 0;
        break;
    case CURED_OP_MIN:
    case CURED_OP_MAX:
    case CURED_OP_NANMIN:
    case CURED_OP_NANMAX:
    case CURED_OP_MINMAX:
        extremes(op, in, x, n, r);
        break;
    case CURED_OP_MEAN:
    case CURED_OP_VAR:
    case CURED_OP_STD:
    case CURED_OP_MEAN_VAR:
    case CURED_OP_LOGSUMEXP:
    case CURED_OP_NANMEAN:
    case CURED_OP_NANVAR:
    case CURED_OP_NANSTD:
        stats_ref_reduce(op, in, out, x, n, r);
        break;
    default:
        arg(op, in, x, n, r);
        break;
    }
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
        uint64_t got = raw_bits(size, p, 0);
        uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1, want = v->u & mask;
        ck_assert_msg(got == want, "%s: %s is 0x%llx (%lld), want 0x%llx (%lld)%s (seed %llu)", what, part,
                      (unsigned long long)got, (long long)get_u(t, p, 0), (unsigned long long)want,
                      (long long)get_u(t, &v->u, 0), got == (POISON64 & mask) ? " (not written?)" : "",
                      test_seed);
        return;
    }
    double got = get_f(t, p, 0);
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
        const uint64_t value = raw_bits(size, got + 8, 0);
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
            uint64_t bit = 1ull << rng_below(r, bits), v = get_u(t, buf, i);
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
