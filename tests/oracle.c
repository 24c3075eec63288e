/* The tests' oracle: see oracle.h. Public API only, and no Check: the tools link it too. */
#include "oracle.h"
#include "halfbits.h"
#include "stats_ref.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bug in a test or tool: say what and stop (a Check suite reports the signal). */
static void ref_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("oracle: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* ---- types ------------------------------------------------------------------------ */

size_t ref_size(cured_type t)
{
    return cured_type_size(t);
}

/* The kind of each type from its name, as the library spells it ("int32", "uint8", "float16",
 * "bfloat16"), read once: the references ask per element. */
enum { CLS_UNKNOWN, CLS_SIGNED, CLS_UNSIGNED, CLS_FLOAT };
static unsigned char classes[CURED_TYPE_COUNT];
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static void read_classes(void)
{
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        const char *name = cured_type_name((cured_type)t);
        classes[t] = strncmp(name, "int", 3) == 0                                            ? CLS_SIGNED
                     : strncmp(name, "uint", 4) == 0                                         ? CLS_UNSIGNED
                     : strncmp(name, "float", 5) == 0 || strncmp(name, "bfloat", 6) == 0 ? CLS_FLOAT
                                                                                             : CLS_UNKNOWN;
    }
}

static int type_class(cured_type t)
{
    pthread_once(&classes_once, read_classes);
    return (unsigned)t < CURED_TYPE_COUNT ? classes[t] : CLS_UNKNOWN;
}

int ref_is_float(cured_type t)
{
    return type_class(t) == CLS_FLOAT;
}

int ref_is_signed(cured_type t)
{
    return type_class(t) == CLS_SIGNED;
}

int ref_types(int floats, cured_type types[CURED_TYPE_COUNT])
{
    int n = 0;
    for (int t = 0; t < CURED_TYPE_COUNT && cured_type_size((cured_type)t) != 0; t++)
        if (ref_is_float((cured_type)t) == (floats != 0))
            types[n++] = (cured_type)t;
    return n;
}

/* Raw bits of element i, zero-extended (the host is little-endian, as the device). */
uint64_t ref_bits(size_t size, const void *buf, size_t i)
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
    uint64_t v = ref_bits(size, buf, i);
    if (ref_is_signed(t) && size < 8 && (v >> (8 * size - 1)) & 1u)
        v |= ~0ull << (8 * size);
    return v;
}

static inline double get_f(cured_type t, const void *buf, size_t i)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return half_to_float((uint16_t)ref_bits(2, buf, i));
    case CURED_TYPE_BFLOAT16: return bf16_to_float((uint16_t)ref_bits(2, buf, i));
    case CURED_TYPE_FLOAT32: return bits_float((uint32_t)ref_bits(4, buf, i));
    case CURED_TYPE_FLOAT64: { double d; memcpy(&d, (const char *)buf + i * 8, 8); return d; }
    default: ref_fail("test bug: ref_get_f on %s", cured_type_name(t));
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
    default: ref_fail("test bug: ref_put_f on %s", cured_type_name(t));
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
    return cured_result_size(op, out);
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
            case CURED_OP_SUM: acc += v; break;
            case CURED_OP_PRODUCT: acc *= v; break;
            case CURED_OP_SUM_SQUARES: acc += v * v; break;
            case CURED_OP_SUM_ABS: acc += sign && (int64_t)v < 0 ? 0 - v : v; break;
            case CURED_OP_DOT: acc += v * get_u(in, y, i); break;
            default: ref_fail("test bug: op %d", (int)op);
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
        case CURED_OP_PRODUCT: acc *= v; continue;
        case CURED_OP_SUM_SQUARES:
        case CURED_OP_NORM2: t = v * v; break;
        case CURED_OP_SUM_ABS: t = fabsl(v); break;
        case CURED_OP_DOT: t = v * (long double)get_f(in, y, i); break;
        default: ref_fail("test bug: op %d", (int)op); return;
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
    r->v[0].f = op == CURED_OP_MAX ? hi : lo;
    r->v[1].f = hi;
    if (nans > 0) /* NaN propagates */
        r->v[0].is_nan = r->v[1].is_nan = 1;
}

static void arg_search(cured_op op, cured_type in, const void *x, size_t n, struct ref_result *r)
{
    const int is_max = op == CURED_OP_ARGMAX;
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
            r->index = (int64_t)i; /* NaN propagates: the first NaN */
            r->v[0].is_nan = 1;
            return;
        }
        if (r->index < 0 || (is_max ? v > best : v < best)) { /* strict: ties keep the first */
            best = v;
            r->index = (int64_t)i;
        }
    }
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
    r->arg_bits = ref_bits(ref_size(in), x, r->index < 0 ? 0 : (size_t)r->index);
}

/* ---- the oracle: one row per operator of the library's table -------------------- */

static const struct ref_op oracle[CURED_OP_COUNT] = {
    /* kind          NaN rule (base: the operator over the non-NaN elements)   data */
    [CURED_OP_SUM] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_SUM, FL_RAND},
    [CURED_OP_PRODUCT] = {REF_PRODUCT, REF_NAN_PROPAGATES, CURED_OP_PRODUCT, FL_ODD},
    [CURED_OP_MIN] = {REF_EXTREME, REF_NAN_PROPAGATES, CURED_OP_MIN, FL_WIDE_NAN},
    [CURED_OP_MAX] = {REF_EXTREME, REF_NAN_PROPAGATES, CURED_OP_MAX, FL_WIDE_NAN},
    [CURED_OP_MINMAX] = {REF_EXTREME, REF_NAN_PROPAGATES, CURED_OP_MINMAX, FL_WIDE_NAN},
    [CURED_OP_ARGMIN] = {REF_ARG, REF_NAN_PROPAGATES, CURED_OP_ARGMIN, FL_WIDE_NAN},
    [CURED_OP_ARGMAX] = {REF_ARG, REF_NAN_PROPAGATES, CURED_OP_ARGMAX, FL_WIDE_NAN},
    [CURED_OP_AND] = {REF_BITWISE, REF_NAN_PROPAGATES, CURED_OP_AND, FL_AND},
    [CURED_OP_OR] = {REF_BITWISE, REF_NAN_PROPAGATES, CURED_OP_OR, FL_OR},
    [CURED_OP_XOR] = {REF_BITWISE, REF_NAN_PROPAGATES, CURED_OP_XOR, FL_RAND},
    [CURED_OP_SUM_SQUARES] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_SUM_SQUARES, FL_RAND},
    [CURED_OP_SUM_ABS] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_SUM_ABS, FL_RAND},
    [CURED_OP_NORM2] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_NORM2, FL_RAND},
    [CURED_OP_DOT] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_DOT, FL_RAND},
    [CURED_OP_NANMIN] = {REF_EXTREME, REF_NAN_SKIPPED_ALL_NAN, CURED_OP_MIN, FL_WIDE_NAN},
    [CURED_OP_NANMAX] = {REF_EXTREME, REF_NAN_SKIPPED_ALL_NAN, CURED_OP_MAX, FL_WIDE_NAN},
    [CURED_OP_NANARGMIN] = {REF_ARG, REF_NAN_SKIPPED_ALL_NAN, CURED_OP_ARGMIN, FL_WIDE_NAN},
    [CURED_OP_NANARGMAX] = {REF_ARG, REF_NAN_SKIPPED_ALL_NAN, CURED_OP_ARGMAX, FL_WIDE_NAN},
    [CURED_OP_COUNT_NONZERO] = {REF_COUNT, REF_NAN_PROPAGATES, CURED_OP_COUNT_NONZERO, FL_RAND},
    [CURED_OP_MEAN] = {REF_STATS, REF_NAN_PROPAGATES, CURED_OP_MEAN, FL_REAL},
    [CURED_OP_VAR] = {REF_STATS, REF_NAN_PROPAGATES, CURED_OP_VAR, FL_REAL},
    [CURED_OP_STD] = {REF_STATS, REF_NAN_PROPAGATES, CURED_OP_STD, FL_REAL},
    [CURED_OP_MEAN_VAR] = {REF_STATS, REF_NAN_PROPAGATES, CURED_OP_MEAN_VAR, FL_REAL},
    [CURED_OP_LOGSUMEXP] = {REF_STATS, REF_NAN_PROPAGATES, CURED_OP_LOGSUMEXP, FL_REAL},
    [CURED_OP_NANSUM] = {REF_SUM_LIKE, REF_NAN_SKIPPED_EMPTY, CURED_OP_SUM, FL_RAND_NAN},
    [CURED_OP_NANMEAN] = {REF_STATS, REF_NAN_SKIPPED_EMPTY, CURED_OP_MEAN, FL_REAL_NAN},
    [CURED_OP_NANVAR] = {REF_STATS, REF_NAN_SKIPPED_EMPTY, CURED_OP_VAR, FL_REAL_NAN},
    [CURED_OP_NANSTD] = {REF_STATS, REF_NAN_SKIPPED_EMPTY, CURED_OP_STD, FL_REAL_NAN},
    /* exact sums: their base's math, whose data sum exactly (test-gpu-exact checks the rounding itself) */
    [CURED_OP_EXACT_SUM] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_SUM, FL_RAND},
    [CURED_OP_EXACT_MEAN] = {REF_STATS, REF_NAN_PROPAGATES, CURED_OP_MEAN, FL_REAL},
    [CURED_OP_EXACT_SUM_SQUARES] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_SUM_SQUARES, FL_RAND},
    [CURED_OP_EXACT_NORM2] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_NORM2, FL_RAND},
    [CURED_OP_EXACT_DOT] = {REF_SUM_LIKE, REF_NAN_PROPAGATES, CURED_OP_DOT, FL_RAND},
};

const struct ref_op *ref_op(cured_op op)
{
    return (unsigned)op < CURED_OP_COUNT && oracle[op].kind != REF_NONE ? &oracle[op] : NULL;
}

/* The reference of an operator whose NaNs propagate (or of any operator over data without NaN). */
static void reduce_plain(cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
                         int exact, struct ref_result *r)
{
    switch (ref_op(op)->kind) {
    case REF_SUM_LIKE:
    case REF_PRODUCT:
        sum_like(op, in, out, x, y, n, exact, r);
        break;
    case REF_BITWISE:
        bitwise(op, in, x, n, r);
        break;
    case REF_COUNT: /* x != 0: NaN counts, -0 does not */
        for (size_t i = 0; i < n; i++)
            r->v[0].u += ref_is_float(in) ? ref_get_f(in, x, i) != 0.0 : ref_get_u(in, x, i) != 0;
        break;
    case REF_EXTREME:
        extremes(op, in, x, n, r);
        break;
    case REF_STATS:
        stats_ref_reduce(op, in, out, x, n, r);
        break;
    case REF_ARG:
        arg(op, in, x, n, r);
        break;
    case REF_NONE:
        break;
    }
}

/*
 * A NaN-skipping operator: its base operator over the non-NaN elements (and
 * the elements of y at the same places), the ARG index mapped back to x.
 * When every one of n > 0 elements is NaN, REF_NAN_SKIPPED_ALL_NAN gives
 * the status ALL_NAN and what the asynchronous call writes (NaN, index -1
 * with the first element); REF_NAN_SKIPPED_EMPTY the base's result of no
 * element.
 */
static void reduce_skipping_nan(const struct ref_op *o, cured_type in, cured_type out, const void *x,
                                const void *y, size_t n, int exact, struct ref_result *r)
{
    const size_t size = ref_size(in);
    unsigned char *xs = malloc(n * size + 1), *ys = y != NULL ? malloc(n * size + 1) : NULL;
    size_t *from = malloc(n * sizeof *from + 1), m = 0;
    if (xs == NULL || from == NULL || (y != NULL && ys == NULL))
        ref_fail("out of memory");
    for (size_t i = 0; i < n; i++)
        if (!isnan(get_f(in, x, i))) {
            memcpy(xs + m * size, (const unsigned char *)x + i * size, size);
            if (ys != NULL)
                memcpy(ys + m * size, (const unsigned char *)y + i * size, size);
            from[m++] = i;
        }
    reduce_plain(o->base, in, out, xs, ys, m, exact, r);
    if (r->is_arg && r->index >= 0) {
        r->index = (int64_t)from[r->index];
        r->arg_bits = ref_bits(size, x, (size_t)r->index);
    }
    if (n > 0 && m == 0 && o->nan == REF_NAN_SKIPPED_ALL_NAN) {
        r->status = CURED_ERROR_ALL_NAN;
        if (r->is_arg) {
            r->index = -1;
            r->arg_bits = ref_bits(size, x, 0);
            memset(&r->v[0], 0, sizeof r->v[0]);
        } else {
            r->v[0].is_nan = r->v[1].is_nan = 1;
        }
    }
    free(xs);
    free(ys);
    free(from);
}

void ref_reduce(cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
                int exact, struct ref_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = CURED_SUCCESS;
    r->nvalues = 1;
    const struct ref_op *o = ref_op(op);
    if (o == NULL)
        ref_fail("tests/oracle.c has no row for %s", cured_op_name(op));
    if (o->nan != REF_NAN_PROPAGATES && ref_is_float(in))
        reduce_skipping_nan(o, in, out, x, y, n, exact, r);
    else
        reduce_plain(o->base, in, out, x, y, n, exact, r);
}

