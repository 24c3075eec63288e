/*
 * cured-multirank's data and comparisons. The global array is a function of
 * (seed, flavour, global index), so every rank makes its own shard and rank 0
 * the whole array without communication. Shards are unequal (rank 1's is
 * empty when K >= 3); the extremes' ties sit on both sides of rank 0's end
 * and in the last shard, and the NaNs of MRF_NAN only in the last shard, so
 * ARG indices must carry the ranks' offsets.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "multirank.h"

#include <math.h>
#include <string.h>

#include "halfbits.h"
#include "oracle.h"

void mr_shards_make(struct mr_shards *s, int nranks, int64_t rows, int64_t cols)
{
    memset(s, 0, sizeof *s);
    s->nranks = nranks, s->rows = rows, s->cols = cols;
    int64_t w[64], total = 0, cum = 0;
    for (int r = 0; r < nranks; r++)
        total += w[r] = r == 1 && nranks >= 3 ? 0 : r + 2; /* unequal; one empty from K = 3 */
    for (int r = 0; r < nranks; r++) {
        s->start[r] = rows * cum / total;
        cum += w[r];
        s->len[r] = rows * cum / total - s->start[r];
    }
    const int last = nranks - 1;
    /* Rank 0's end is the next non-empty shard's start; one rank: the middle. */
    const int64_t a = nranks == 1 ? rows / 2 : s->len[0];
    const int64_t mid = nranks == 1 ? rows * 3 / 4 : s->start[last] + s->len[last] / 2;
    s->tie_max[0] = a - 1, s->tie_max[1] = a, s->tie_max[2] = mid;
    s->tie_min[0] = a - 2, s->tie_min[1] = a + 1, s->tie_min[2] = mid + 1;
    s->nan_from = nranks == 1 ? rows / 2 : s->start[last];
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int mr_is_float(cured_type t)
{
    return ref_is_float(t);
}

static int is_signed(cured_type t)
{
    return ref_is_signed(t);
}

static int in_rows(const int64_t *rows, int64_t row)
{
    return rows[0] == row || rows[1] == row || rows[2] == row;
}

/* An integer element as the low bits of a uint64_t. */
static uint64_t int_value(const struct mr_shards *s, cured_type t, enum mr_flavour f, uint64_t h, int64_t g)
{
    const int bits = (int)cured_type_size(t) * 8;
    const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    const int64_t row = g / s->cols;
    switch (f) {
    case MRF_PROD: return (h | 1) & mask; /* odd: the product does not become 0 */
    case MRF_BITS: return h & mask;
    case MRF_AND: return g % 4099 == 0 ? mask & ~(1ull << ((g / 4099) % bits)) : mask;
    case MRF_OR: return g % 4099 == 0 ? 1ull << (h % (uint64_t)bits) : 0;
    default: break;
    }
    /* Small enough that the sums of squares of a million stay exact in 64 bits. */
    const int64_t m = bits <= 16 ? (int64_t)(mask >> (is_signed(t) ? 1 : 0)) : (int64_t)1 << 20;
    int64_t v = g % 7 == 3 ? 0 : is_signed(t) ? (int64_t)(h % (uint64_t)(2 * m + 1)) - m : (int64_t)(h % (uint64_t)(m + 1));
    if (f == MRF_REAL)
        return (uint64_t)v & mask;
    v = is_signed(t) ? v / 2 : v / 2 + 1; /* strictly inside the type's range */
    const uint64_t top = is_signed(t) ? mask >> 1 : mask, bottom = is_signed(t) ? ~top & mask : 0;
    if (in_rows(s->tie_max, row))
        return top;
    if (in_rows(s->tie_min, row))
        return bottom;
    return (uint64_t)v & mask;
}

static double float_value(const struct mr_shards *s, enum mr_flavour f, uint64_t h, int64_t g)
{
    const int64_t row = g / s->cols;
    const double u = (double)(h >> 11) * 0x1p-53;
    if (f == MRF_PROD)
        return 1 + (u - 0.5) / 256;
    const double x = g % 7 == 3 ? 0 : 2 * u - 1;
    if (f != MRF_TIES && f != MRF_NAN)
        return x;
    if (in_rows(s->tie_max, row))
        return 2;
    if (in_rows(s->tie_min, row))
        return -2;
    if (f == MRF_NAN && row >= s->nan_from && (h >> 3) % 97 == 0)
        return NAN;
    return x;
}

void mr_fill(const struct mr_shards *s, cured_type t, enum mr_flavour f, uint64_t seed, int64_t first_row,
             int64_t nrows, void *dst)
{
    const int64_t g0 = first_row * s->cols, n = nrows * s->cols;
    const size_t size = cured_type_size(t);
    unsigned char *p = dst;
    for (int64_t k = 0; k < n; k++) {
        const int64_t g = g0 + k;
        const uint64_t h = mix(seed ^ mix((uint64_t)f * 0x1234567ull + (uint64_t)t) ^ mix((uint64_t)g));
        if (!mr_is_float(t)) {
            const uint64_t v = int_value(s, t, f, h, g);
            memcpy(p + (size_t)k * size, &v, size); /* little-endian: the low bytes */
            continue;
        }
        const double x = float_value(s, f, h, g);
        if (t == CURED_TYPE_FLOAT64) {
            memcpy(p + (size_t)k * 8, &x, 8);
        } else if (t == CURED_TYPE_FLOAT32) {
            const float y = (float)x;
            memcpy(p + (size_t)k * 4, &y, 4);
        } else {
            const uint16_t b = t == CURED_TYPE_FLOAT16 ? float_to_half((float)x) : float_to_bf16((float)x);
            memcpy(p + (size_t)k * 2, &b, 2);
        }
    }
}

double mr_value(cured_type t, const void *p, size_t i)
{
    if (ref_is_float(t))
        return ref_get_f(t, p, i);
    const uint64_t v = ref_get_u(t, p, i);
    return ref_is_signed(t) ? (double)(int64_t)v : (double)v;
}

double mr_eps(cured_type t)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return 0x1p-11;
    case CURED_TYPE_BFLOAT16: return 0x1p-8;
    case CURED_TYPE_FLOAT32: return 0x1p-24;
    default: return 0x1p-53;
    }
}

size_t mr_result_bytes(cured_op op, cured_type out)
{
    return cured_result_size(op, out);
}

/* Bitwise, within cured_op's latitude for MIN, MAX, NANMIN, NANMAX and MINMAX of
 * floats: which NaN a NaN result is, which zero a tie of -0 and +0 gives. */
int mr_same_latitude(cured_op op, cured_type out, const unsigned char *a, const unsigned char *b, size_t bytes)
{
    if (memcmp(a, b, bytes) == 0)
        return 1;
    if ((op != CURED_OP_MIN && op != CURED_OP_MAX && op != CURED_OP_MINMAX && op != CURED_OP_NANMIN &&
         op != CURED_OP_NANMAX) || !mr_is_float(out))
        return 0;
    const size_t w = cured_type_size(out);
    for (size_t k = 0; k < bytes / w; k++) {
        const double x = mr_value(out, a, k), y = mr_value(out, b, k);
        if (memcmp(a + k * w, b + k * w, w) != 0 && !(isnan(x) && isnan(y)) && !(x == 0 && y == 0))
            return 0;
    }
    return 1;
}

/* "Equal up to rounding" (cured.h: float sums, DOT, NORM2, the statistics
 * combine per-rank partials): a bound per operator from the result's and the
 * accumulator's rounding, n and the input's sums s1 = sum |x| (DOT: |x y|) and
 * s2 = sum x^2. a: the communicator's values, b: the single GPU's. */
int mr_close(cured_op op, cured_type in, cured_type out, const unsigned char *a, const unsigned char *b,
             size_t count, double n, double s1, double s2, double ddof)
{
    (void)in;
    const double eo = mr_eps(out), ea = out == CURED_TYPE_FLOAT64 ? 0x1p-53 : 0x1p-24;
    const double dof = n - ddof > 1 ? n - ddof : 1;
    const double ks = out == CURED_TYPE_FLOAT64 ? 64 : 8; /* float64 statistics: a few ulps, compensated */
    for (size_t k = 0; k < count; k++) {
        const double x = mr_value(out, a, k), y = mr_value(out, b, k);
        if ((isnan(x) && isnan(y)) || x == y)
            continue;
        const double ay = fabs(y);
        double tol;
        switch (op == CURED_OP_MEAN_VAR ? (k % 2 == 0 ? CURED_OP_MEAN : CURED_OP_VAR)
                : op == CURED_OP_NANSUM ? CURED_OP_SUM : op == CURED_OP_NANMEAN ? CURED_OP_MEAN
                : op == CURED_OP_NANVAR ? CURED_OP_VAR : op == CURED_OP_NANSTD ? CURED_OP_STD : op) {
        case CURED_OP_SUM: case CURED_OP_SUM_ABS: case CURED_OP_DOT: tol = 4 * eo * ay + 64 * ea * s1; break;
        case CURED_OP_SUM_SQUARES: tol = 4 * eo * ay + 64 * ea * s2; break;
        case CURED_OP_NORM2: tol = (4 * eo + 64 * ea) * ay; break;
        case CURED_OP_PRODUCT: tol = (8 * eo + 8 * sqrt(n) * ea) * ay; break;
        case CURED_OP_MEAN: tol = ks * eo * ay + 2 * ks * eo * s1 / (n > 0 ? n : 1); break;
        case CURED_OP_VAR: tol = ks * eo * ay + 2 * ks * eo * s2 / dof; break;
        case CURED_OP_STD: tol = ks * eo * ay + 2 * ks * eo * sqrt(s2 / dof); break;
        case CURED_OP_LOGSUMEXP:
            tol = ks * eo * ay + (out == CURED_TYPE_FLOAT64 ? 1e-12 : 2 * (0x1p-21 + 0x1p-24 * 8));
            break;
        default: tol = 8 * eo * ay; break;
        }
        if (!(fabs(x - y) <= tol))
            return 0;
    }
    return 1;
}
