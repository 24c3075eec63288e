/*
 * The combine rule of gathered state records on the host, for the tests'
 * oracles (see state_host.h): integers, DOT's sums, and the moments' states
 * merged by kernels-src/stats.cuh's formulas, transcribed.
 */
#include <config.h>

#include "state_host.h"
#include "oracle.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Integers widened to 64 bits (signed or not, by class: the oracle's reading) and back. */
static uint64_t get(const void *p, cured_type t)
{
    return ref_get_u(t, p, 0);
}

static void put(void *p, cured_type t, uint64_t v)
{
    memcpy(p, &v, cr_type_size(t)); /* little-endian: the low bytes */
}

/* a before b in the order of type t. */
static int less(uint64_t a, uint64_t b, cured_type t)
{
    return cr_type(t)->cls == CR_SIGNED ? (int64_t)a < (int64_t)b : a < b;
}

static int stats_combine(const struct cr_request *r, const unsigned char *records, size_t stride, int nranks,
                         void *out);

int cr_state_combine_host(const struct cr_request *r, const void *records, size_t stride, int nranks, void *out)
{
    if (!r->state && (cr_op(r->op)->flags & CR_OP_STATS))
        return stats_combine(r, records, stride, nranks, out);
    const struct cr_type_info *ti = cr_type(r->in);
    if (r->state || (ti->cls != CR_SIGNED && ti->cls != CR_UNSIGNED) || (cr_op(r->op)->flags & CR_OP_STATS) ||
        r->op == CURED_OP_NORM2)
        return 0;
    const cured_type st = cr_state_raw(r) ? r->acc.scalar : r->out; /* the type in the record */
    uint64_t acc = 0, lo = 0, hi = 0, total = 0, value = 0;
    int64_t best = -1;
    for (int k = 0; k < nranks; k++) {
        const unsigned char *s = (const unsigned char *)records + (size_t)k * stride;
        uint64_t n;
        memcpy(&n, s, 8);
        if (n == 0)
            continue;
        const int first = total == 0;
        uint64_t v = get(s + 8, st);
        switch (r->op) {
        case CURED_OP_SUM: case CURED_OP_SUM_SQUARES: case CURED_OP_SUM_ABS: case CURED_OP_COUNT_NONZERO:
        case CURED_OP_DOT:
            acc = first ? v : acc + v; break;
        case CURED_OP_PRODUCT: acc = first ? v : acc * v; break;
        case CURED_OP_AND: acc = first ? v : acc & v; break;
        case CURED_OP_OR: acc = first ? v : acc | v; break;
        case CURED_OP_XOR: acc = first ? v : acc ^ v; break;
        case CURED_OP_MIN: acc = first || less(v, acc, st) ? v : acc; break;
        case CURED_OP_MAX: acc = first || less(acc, v, st) ? v : acc; break;
        case CURED_OP_MINMAX: {
            uint64_t h = get(s + 8 + cr_type_size(st), st);
            lo = first || less(v, lo, st) ? v : lo;
            hi = first || less(hi, h, st) ? h : hi;
            break;
        }
        case CURED_OP_ARGMIN: case CURED_OP_ARGMAX: {
            int64_t i;
            memcpy(&i, s + 8, 8);
            uint64_t x = get(s + 16, st);
            /* Strictly better wins: a tie keeps the earlier rank's (lower) index. */
            if (best < 0 || (r->op == CURED_OP_ARGMIN ? less(x, value, st) : less(value, x, st)))
                best = i + (int64_t)total, value = x;
            break;
        }
        default: return 0;
        }
        total += n;
    }
    const size_t rs = cr_type_size(r->out);
    memset(out, 0, r->acc.result_size);
    if (r->acc.layout == CR_LAYOUT_ARG) {
        int64_t i = total ? best : -1;
        memcpy(out, &i, 8);
        put((unsigned char *)out + 8, r->out, total ? value : 0);
    } else if (r->acc.layout == CR_LAYOUT_PAIR) {
        put(out, r->out, lo);
        put((unsigned char *)out + rs, r->out, hi);
    } else {
        put(out, r->out, acc);
    }
    return 1;
}

/* ---- the statistics' records on the host: stats.cuh's merges, transcribed ---- */
static int finite_(double x)
{
    return fabs(x) < DBL_MAX; /* stats_finite: DBL_MAX counts as an overflow */
}

static void renorm(double *hi, double *lo)
{
    const double s = *hi + *lo, bb = s - *hi, e = (*hi - (s - bb)) + (*lo - bb);
    *lo = finite_(s) ? e : 0.0;
    *hi = s;
}

static struct cr_mv_state mv_merge(struct cr_mv_state a, struct cr_mv_state b)
{
    if (b.n == 0.0)
        return a;
    if (a.n == 0.0)
        return b;
    struct cr_mv_state r = {a.n + b.n, a.hi, b.hi, 0.0};
    if (finite_(a.hi) && finite_(b.hi)) {
        renorm(&r.hi, &r.lo);
        r.lo += a.lo + b.lo;
        renorm(&r.hi, &r.lo);
        const double pb = b.hi * a.n, eb = fma(b.hi, a.n, -pb);
        const double pa = a.hi * b.n, ea = fma(a.hi, b.n, -pa);
        const double num = (pb - pa) + ((eb - ea) + (b.lo * a.n - a.lo * b.n));
        r.m2 = a.m2 + b.m2 + num / (a.n * b.n) * (num / r.n);
    } else {
        r.hi = a.hi + b.hi;
        r.lo = 0.0;
        r.m2 = NAN;
    }
    return r;
}

struct cr_mv_state cr_mv_host(const double *x, size_t n)
{
    struct cr_mv_state s = {0.0, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < n; i++) /* map() then merge, as segmented.cu's columns */
        s = mv_merge(s, (struct cr_mv_state){1.0, x[i], 0.0, finite_(x[i]) ? 0.0 : NAN});
    return s;
}

static void put_real(void *out, size_t k, cured_type t, double v)
{
    if (t == CURED_TYPE_FLOAT32)
        ((float *)out)[k] = (float)v;
    else
        ((double *)out)[k] = v;
}

/* MEAN, VAR, STD, MEAN_VAR (and NANMEAN, NANVAR, NANSTD) records (count, then the state) in rank
 * order, and MeanVarOf's write: the NaN-skipping ones' too-few NaN where their count is too small. */
static int stats_combine(const struct cr_request *r, const unsigned char *records, size_t stride, int nranks,
                         void *out)
{
    if (r->op == CURED_OP_LOGSUMEXP || (r->out != CURED_TYPE_FLOAT32 && r->out != CURED_TYPE_FLOAT64))
        return 0;
    struct cr_mv_state acc = {0.0, 0.0, 0.0, 0.0};
    uint64_t total = 0;
    for (int k = 0; k < nranks; k++) {
        const unsigned char *s = records + (size_t)k * stride;
        uint64_t n;
        struct cr_mv_state v;
        memcpy(&n, s, 8);
        memcpy(&v, s + 8, sizeof v);
        if (n == 0)
            continue;
        acc = total == 0 ? v : mv_merge(acc, v);
        total += n;
    }
    double mean = NAN, var = NAN;
    if (acc.n > 0.0) {
        const double q = acc.hi / acc.n;
        mean = finite_(q) ? q + (fma(-q, acc.n, acc.hi) + acc.lo) / acc.n : q;
    }
    if (acc.n - r->ddof > 0.0)
        var = acc.m2 / (acc.n - r->ddof);
    const cured_op base = cr_op_base(r->op);
    if (base != r->op && (base == CURED_OP_MEAN ? !(acc.n > 0.0) : !(acc.n - r->ddof > 0.0))) {
        const uint32_t f = CR_TOO_FEW_F32;
        const uint64_t d = CR_TOO_FEW_F64;
        memcpy(out, r->out == CURED_TYPE_FLOAT32 ? (const void *)&f : (const void *)&d, cr_type_size(r->out));
        return 1;
    }
    switch (base) {
    case CURED_OP_MEAN: put_real(out, 0, r->out, mean); break;
    case CURED_OP_VAR: put_real(out, 0, r->out, var); break;
    case CURED_OP_STD: put_real(out, 0, r->out, sqrt(var)); break;
    default: put_real(out, 0, r->out, mean); put_real(out, 1, r->out, var); break;
    }
    return 1;
}
