/* Host references for the statistics operators; see stats_ref.h. */
#include "stats_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int stats_is_op(cured_op op)
{
    const struct ref_op *o = ref_op(op);
    /* a row whose base is another operator with NaNs propagating is an exact sum's (EXACT_MEAN): test-gpu-exact's */
    return o != NULL && o->kind == REF_STATS && (o->base == op || o->nan != REF_NAN_PROPAGATES);
}

int stats_ref_skips_nan(cured_op op, cured_type t)
{
    return ref_op(op)->base != op && ref_is_float(t); /* the oracle's row names its base */
}

size_t stats_ref_compute_op(cured_op op, cured_type t, const void *x, size_t n, struct stats_ref *s)
{
    if (!stats_ref_skips_nan(op, t)) {
        stats_ref_compute(t, x, n, s);
        return n;
    }
    const size_t size = ref_size(t);
    unsigned char *kept = malloc(n * size + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(ref_get_f(t, x, i)))
            memcpy(kept + m++ * size, (const unsigned char *)x + i * size, size);
    stats_ref_compute(t, kept, m, s);
    free(kept);
    return m;
}

/* Element i as a long double: floats exactly, integers exactly (64-bit mantissa). */
static long double value(cured_type t, const void *x, size_t i)
{
    if (ref_is_float(t))
        return ref_get_f(t, x, i);
    uint64_t u = ref_get_u(t, x, i);
    return ref_is_signed(t) ? (long double)(int64_t)u : (long double)u;
}

/* Neumaier's compensated sum, one term at a time (finite terms only). */
struct csum {
    long double s, c;
};
static void cadd(struct csum *a, long double t)
{
    const long double y = a->s + t;
    a->c += fabsl(a->s) >= fabsl(t) ? (a->s - y) + t : (t - y) + a->s;
    a->s = y;
}

void stats_ref_compute(cured_type t, const void *x, size_t n, struct stats_ref *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    struct csum sum = {0, 0};
    long double inf_sum = 0; /* the infinities and NaNs, summed as IEEE does */
    double s64 = 0;
    s->max = -INFINITY;
    double max64 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const long double v = value(t, x, i);
        if (isnan(v))
            s->nan = 1;
        else if (isinf(v))
            *(v > 0 ? &s->pinf : &s->ninf) = 1;
        if (isfinite(v))
            cadd(&sum, v);
        else
            inf_sum += v;
        s64 += (double)v;
        if (v > s->max)
            s->max = v;
        if ((double)v > max64)
            max64 = (double)v;
    }
    s->sum = sum.s + sum.c + inf_sum;
    s->mean = n ? s->sum / (long double)n : NAN;
    s->mean64 = n ? s64 / (double)n : NAN;
    /* m2 about the exact mean, less the first-order term of the mean's own rounding. */
    struct csum m2 = {0, 0}, d1 = {0, 0};
    double m64 = 0;
    for (size_t i = 0; i < n && isfinite(s->mean); i++) {
        const long double d = value(t, x, i) - s->mean;
        cadd(&m2, d * d);
        cadd(&d1, d);
        const double d64 = (double)value(t, x, i) - s->mean64;
        m64 += d64 * d64;
        const long double d0 = value(t, x, i) - value(t, x, 0);
        s->sq += d0 * d0;
        const long double r = fabsl(value(t, x, i) - (long double)(double)value(t, x, i));
        s->conv += r;
        s->conv_m2 += 2 * fabsl(d) * r + r * r;
    }
    const long double dsum = d1.s + d1.c;
    s->m2 = isfinite(s->mean) ? m2.s + m2.c - (n ? dsum * dsum / (long double)n : 0) : NAN;
    s->m2_64 = isfinite(s->mean) ? m64 : NAN;
    /* logsumexp about the maximum */
    struct csum e = {0, 0}, we = {0, 0};
    double e64 = 0;
    for (size_t i = 0; i < n && isfinite(s->max) && !s->nan; i++) {
        const long double v = value(t, x, i), ex = expl(v - s->max);
        cadd(&e, ex);
        if (ex > 0)
            cadd(&we, ex * (s->max - v));
        e64 += exp((double)v - max64);
    }
    const long double es = e.s + e.c;
    s->lse = s->max + logl(es);
    s->w = es > 0 ? (we.s + we.c) / es : 0;
    s->lse64 = max64 + log(e64);
}

/* A finite expected value v of type out (inf beyond the type's range), its
 * float64 computation e64, and the extra absolute allowance. */
static void expect(struct ref_value *r, cured_type out, long double v, long double e64, long double extra)
{
    const long double top = out == CURED_TYPE_FLOAT32 ? FLT_MAX : DBL_MAX;
    r->is_nan = 0;
    r->f = fabsl(v) > top ? copysignl(INFINITY, v) : v;
    /* twice the float64 error (an overflowed float64 computation says nothing: no bound),
     * and a tolerance that is never 0, so that ref_check allows the one ulp */
    const long double e = fabsl(e64 - v);
    /* float64 results: 5 ulps in all (ref_check adds one; the variances add their shifted
     * sums' share, stats_ref_result): merging partial states rounds
     * several times where a float64 two-pass over a few elements may happen to round
     * once; a host emulation of the kernels' merges (test-stats-emu) reached 3.3 ulps
     * over 4000 random inputs of 2 to 3000 elements. */
    const long double ulp64 = v != 0 && isfinite(v) ? ldexpl(1, ilogbl(v) - 52) : 0;
    r->tol = isfinite(e) ? 2 * e + extra + (out == CURED_TYPE_FLOAT64 ? 4 * ulp64 : 0) + LDBL_MIN : INFINITY;
}

static void expect_nan(struct ref_value *r)
{
    r->is_nan = 1;
    r->f = NAN;
}

static void expect_exact(struct ref_value *r, long double v)
{
    r->is_nan = 0;
    r->f = v;
    r->tol = 0;
}

void stats_ref_result(cured_op op, cured_type out, const struct stats_ref *s, double ddof, struct ref_result *r)
{
    memset(r, 0, sizeof *r);
    op = ref_op(op)->base; /* a NaN-skipping one: s holds the elements that are not NaN */
    r->status = CURED_SUCCESS;
    r->nvalues = op == CURED_OP_MEAN_VAR ? 2 : 1;
    const long double n = (long double)s->n, dof = n - ddof;
    if (op == CURED_OP_LOGSUMEXP) {
        /* float64: the result is max + log(S) with S >= 1, so S's few roundings (relative)
         * are an absolute error of a few 2^-53 in log(S): several ulps of a result near 0
         * (max + log(S) cancels), where the float64 two-pass may happen to round once. */
        const long double logs = fabsl(s->lse - s->max);
        const long double extra = out == CURED_TYPE_FLOAT32 ? ldexpl(1, -21) + ldexpl(1, -24) * (s->w + 3) /* cured.h */
                                                            : 4 * ldexpl(1, (logs > 1 ? ilogbl(logs) : 0) - 53);
        if (s->nan)
            expect_nan(&r->v[0]);
        else if (s->pinf)
            expect_exact(&r->v[0], INFINITY);
        else if (s->n == 0 || isinf(s->max))
            expect_exact(&r->v[0], -INFINITY);
        else
            expect(&r->v[0], out, s->lse, s->lse64, extra);
        return;
    }
    const int nonfinite = s->nan || s->pinf || s->ninf;
    struct ref_value *mean = &r->v[0], *var = &r->v[op == CURED_OP_MEAN_VAR ? 1 : 0];
    if (op == CURED_OP_MEAN || op == CURED_OP_MEAN_VAR) {
        if (s->n == 0 || s->nan || (s->pinf && s->ninf))
            expect_nan(mean);
        else if (s->pinf || s->ninf)
            expect_exact(mean, s->pinf ? INFINITY : -INFINITY);
        else
            expect(mean, out, s->mean, s->mean64, s->conv / n);
        if (s->n == 0)
            r->status = CURED_ERROR_TOO_FEW_ELEMENTS;
        if (op == CURED_OP_MEAN)
            return;
    }
    if (dof <= 0)
        r->status = CURED_ERROR_TOO_FEW_ELEMENTS;
    /* The kernels' shifted float64 sums of squares round relative to sum (x - shift)^2, not to m2:
     * beyond the 5 ulps of m2 that expect() allows, 2^-52 of the excess n (mean - x0)^2 (large
     * where the shift is far from the mean: integers near 2^32, say). 0 for constant inputs. */
    const long double excess = s->sq - s->m2, shifted = excess > 0 ? ldexpl(1, -52) * excess : 0;
    if (dof <= 0 || nonfinite)
        expect_nan(var);
    else if (op == CURED_OP_STD)
        expect(var, out, sqrtl(s->m2 / dof), sqrtl(s->m2_64 / dof),
               sqrtl((s->m2 + s->conv_m2 + shifted) / dof) - sqrtl(s->m2 / dof));
    else
        expect(var, out, s->m2 / dof, s->m2_64 / dof, (s->conv_m2 + shifted) / dof);
}

void stats_ref_reduce(cured_op op, cured_type in, cured_type out, const void *x, size_t n, struct ref_result *r)
{
    struct stats_ref s;
    stats_ref_compute_op(op, in, x, n, &s);
    stats_ref_result(op, out, &s, 0.0, r);
}
