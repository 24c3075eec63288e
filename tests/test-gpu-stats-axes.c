/*
 * The statistics with ddof and user-defined ops along axes and over
 * segments, on the GPU, against host references: random strided views
 * (rank 1-4, random axis subsets, broadcast and sliced strides, zero
 * extents, shifted means), random segments (empty, reversed, long) with
 * either offset type, bitwise determinism at every shape, and one-field
 * and multi-field user ops (their finalize sees n, and the identity's for
 * an empty output). Statistics of every type with ddof 0 along random
 * views: test-gpu-axes.
 *
 * Exits 77 (SKIP) without a GPU.
 */
#include "ops_test.h"
#include "stats_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Random data of type t for op: FL_REAL, floats shifted by `shift` (|mean| / std up to ~1e5 at
 * shift 1e3); a negative shift makes floats small integers -8..7 (-1) or one constant (-2): exact
 * sums, equal means and zero variances, whose zero dividends the kernels skip (stats_div). For a
 * NaN-skipping op a quarter of the floats are NaN (short outputs all NaN, some with n - NaNs <= ddof). */
static void fill(struct rng *r, cured_op op, cured_type t, void *host, size_t n, double shift)
{
    ref_fill(t, ref_is_float(t) ? FL_REAL : FL_RAND, r, host, n);
    if (!ref_is_float(t))
        return;
    const double c = (double)(rng_u32(r) % 16) - 8.0;
    for (size_t i = 0; i < n && shift != 0.0; i++)
        ref_put_f(t, host, i,
                  shift > 0 ? ref_get_f(t, host, i) + shift : shift == -1.0 ? (double)(rng_u32(r) % 16) - 8.0 : c);
    for (size_t i = 0; i < n && (cr_op(op)->flags & CR_OP_SKIPS_NAN); i++)
        if (rng_u32(r) % 4 == 0)
            ref_put_f(t, host, i, NAN);
}

/* A random view of up to 4 axes (some extents 0 or 1, one sometimes long,
 * strides of a permuted padded parent, some 0), its axis subset, and span. */
static void random_view(struct rng *r, cured_layout *l, uint32_t *axes, int64_t *span)
{
    memset(l, 0, sizeof *l);
    l->rank = 1 + (int)(rng_u32(r) % 4);
    int perm[4] = {0, 1, 2, 3};
    for (int k = l->rank - 1; k > 0 && rng_u32(r) % 3 == 0; k--) {
        int j = (int)(rng_u32(r) % (uint32_t)(k + 1)), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (int k = 0; k < l->rank; k++) {
        const uint32_t u = rng_u32(r) % 16;
        l->extent[k] = u < 1 ? 0 : u < 3 ? 1 : (int64_t)(2 + rng_u32(r) % 12);
    }
    if (rng_u32(r) % 3 == 0)
        l->extent[rng_u32(r) % l->rank] = 2000 + rng_u32(r) % 6000;
    int64_t parent = 1;
    for (int k = l->rank - 1; k >= 0; k--) {
        const int a = perm[k];
        const int step = rng_u32(r) % 5 == 0 ? 2 : 1;
        l->stride[a] = rng_u32(r) % 8 == 0 ? 0 : parent * step;
        parent *= (l->extent[a] > 0 ? l->extent[a] : 1) * step;
    }
    *span = 1;
    for (int k = 0; k < l->rank; k++)
        if (l->extent[k] > 0)
            *span += (l->extent[k] - 1) * l->stride[k];
    *axes = rng_u32(r) & ((1u << l->rank) - 1);
}

/* Output j's elements (row-major over the reduced axes) gathered into g; returns their count. */
static size_t gather(cured_type t, const unsigned char *host, const cured_layout *l, uint32_t axes, int64_t j,
                     unsigned char *g)
{
    const size_t size = ref_size(t);
    int64_t base = 0;
    for (int k = l->rank - 1; k >= 0; k--)
        if (!((axes >> k) & 1)) {
            base += (j % l->extent[k]) * l->stride[k];
            j /= l->extent[k];
        }
    size_t len = 1;
    for (int k = 0; k < l->rank; k++)
        if ((axes >> k) & 1)
            len *= (size_t)l->extent[k];
    for (size_t i = 0; i < len; i++) {
        size_t rem = i;
        int64_t off = base;
        for (int k = l->rank - 1; k >= 0; k--)
            if ((axes >> k) & 1) {
                off += (int64_t)(rem % (size_t)l->extent[k]) * l->stride[k];
                rem /= (size_t)l->extent[k];
            }
        memcpy(g + i * size, host + (size_t)off * size, size);
    }
    return len;
}

/* Elements in the whole view (an upper bound on one output's, broadcasts included). */
static size_t elements(const cured_layout *l)
{
    size_t n = 1;
    for (int k = 0; k < l->rank; k++)
        n *= (size_t)l->extent[k];
    return n;
}

static int64_t outputs(const cured_layout *l, uint32_t axes)
{
    int64_t n = 1;
    for (int k = 0; k < l->rank; k++)
        if (!((axes >> k) & 1))
            n *= l->extent[k];
    return n;
}

struct combo {
    cured_op op;
    cured_type in;
};
static const struct combo combos[] = {
    {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32}, {CURED_OP_VAR, CURED_TYPE_BFLOAT16}, {CURED_OP_STD, CURED_TYPE_FLOAT64},
    {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32}, {CURED_OP_MEAN, CURED_TYPE_INT16}, {CURED_OP_VAR, CURED_TYPE_FLOAT16},
    {CURED_OP_NANVAR, CURED_TYPE_FLOAT32}, {CURED_OP_NANMEAN, CURED_TYPE_BFLOAT16}, {CURED_OP_NANSTD, CURED_TYPE_FLOAT64},
    {CURED_OP_NANVAR, CURED_TYPE_FLOAT16},
};
#define NCOMBOS (sizeof combos / sizeof *combos)
static const double ddofs[] = {0.0, 1.0, 0.5, 3.0, 9.0};

/* Random views with a random ddof: every output against the reference, nothing else written. */
START_TEST(test_stats_axes_random)
{
    const struct combo c = combos[_i];
    cured_type out;
    ck_assert_int_eq(cured_default_result(c.op, c.in, &out), CURED_SUCCESS);
    struct rng r;
    rng_init(&r, "stats-axes", _i);
    const size_t size = ref_size(c.in), rsize = ref_result_size(c.op, out);
    const int cases = ops_reduced() ? 6 : 14;
    for (int k = 0; k < cases; k++) {
        cured_layout l;
        uint32_t axes;
        int64_t span;
        random_view(&r, &l, &axes, &span);
        const double ddof = ddofs[rng_u32(&r) % 5], shift = k % 3 == 2 ? 1000.0 : k % 5 == 3 ? -1.0 : k % 7 == 4 ? -2.0 : 0.0;
        unsigned char *host = ops_malloc((size_t)span * size);
        fill(&r, c.op, c.in, host, (size_t)span, shift);
        CUdeviceptr d = dev_alloc((size_t)span * size);
        upload(d, host, (size_t)span * size);
        const int64_t nout = outputs(&l, axes);
        const size_t obytes = (size_t)(nout > 0 ? nout : 1) * rsize + 64;
        CUdeviceptr o = dev_alloc(obytes);
        poison(o, obytes);
        char what[240];
        snprintf(what, sizeof what, "%s %s->%s case %d rank %d extents %lld %lld %lld %lld strides %lld %lld %lld %lld "
                 "axes 0x%x ddof %g shift %g",
                 cured_op_name(c.op), cured_type_name(c.in), cured_type_name(out), k, l.rank, (long long)l.extent[0],
                 (long long)l.extent[1], (long long)l.extent[2], (long long)l.extent[3], (long long)l.stride[0],
                 (long long)l.stride[1], (long long)l.stride[2], (long long)l.stride[3], axes, ddof, shift);
        cured_status st = cured_reduce_axes_stats_async(H, c.op, DP(d), c.in, &l, axes, ddof, DP(o), out, NULL, NULL);
        ck_assert_msg(st == CURED_SUCCESS, "%s: %s", what, cured_last_error());
        CU_OK(D->CtxSynchronize());
        unsigned char *got = ops_malloc(obytes), *g = ops_malloc((elements(&l) + 1) * size);
        download(got, o, obytes);
        for (int64_t j = 0; j < nout; j++) {
            const size_t len = gather(c.in, host, &l, axes, j, g);
            struct stats_ref s;
            struct ref_result want;
            stats_ref_compute_op(c.op, c.in, g, len, &s);
            stats_ref_result(c.op, out, &s, ddof, &want);
            char w[300];
            snprintf(w, sizeof w, "%s, output %lld of %zu elements", what, (long long)j, len);
            ref_check(c.op, c.in, out, got + (size_t)j * rsize, &want, w);
        }
        for (size_t b = (size_t)(nout > 0 ? nout : 0) * rsize; b < obytes; b++)
            ck_assert_msg(got[b] == POISON_BYTE, "%s: byte %zu past the results was written", what, b);
        ops_free(got);
        ops_free(g);
        ops_free(host);
        dev_free(d);
        dev_free(o);
    }
}
END_TEST

/* Random segments (empty, reversed, overlapping, some long), both offset types, random ddof. */
START_TEST(test_stats_segments_random)
{
    const struct combo c = combos[_i % NCOMBOS];
    const cured_type ot = _i < (int)NCOMBOS ? CURED_TYPE_INT32 : CURED_TYPE_INT64;
    cured_type out;
    ck_assert_int_eq(cured_default_result(c.op, c.in, &out), CURED_SUCCESS);
    struct rng r;
    rng_init(&r, "stats-segments", _i);
    const size_t size = ref_size(c.in), rsize = ref_result_size(c.op, out);
    const size_t n = 40000, nseg = ops_reduced() ? 300 : 3000;
    unsigned char *host = ops_malloc(n * size);
    fill(&r, c.op, c.in, host, n, _i % 2 ? 500.0 : _i % 4 == 2 ? -1.0 : 0.0);
    int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
    for (size_t s = 0; s < nseg; s++) {
        const uint32_t kind = rng_u32(&r) % 10;
        const size_t len = kind == 0 ? 0 : kind == 1 ? 2000 + rng_u32(&r) % 8000 : rng_u32(&r) % 300;
        b[s] = (int64_t)(rng_u32(&r) % (uint32_t)(n - len));
        e[s] = kind == 2 ? b[s] - 3 : b[s] + (int64_t)len; /* kind 2: end < begin, empty */
    }
    const size_t osize = ref_size(ot);
    unsigned char *bo = ops_malloc(nseg * osize), *eo = ops_malloc(nseg * osize);
    for (size_t s = 0; s < nseg; s++) {
        ref_put_u(ot, bo, s, (uint64_t)b[s]);
        ref_put_u(ot, eo, s, (uint64_t)e[s]);
    }
    CUdeviceptr d = dev_alloc(n * size), db = dev_alloc(nseg * osize), de = dev_alloc(nseg * osize);
    upload(d, host, n * size);
    upload(db, bo, nseg * osize);
    upload(de, eo, nseg * osize);
    const size_t obytes = nseg * rsize + 64;
    CUdeviceptr o = dev_alloc(obytes);
    poison(o, obytes);
    const double ddof = ddofs[_i % 5];
    CURED_OK(cured_segmented_reduce_stats_async(H, c.op, DP(d), c.in, nseg, DP(db), DP(de), ot, ddof, DP(o), out, NULL));
    CU_OK(D->CtxSynchronize());
    unsigned char *got = ops_malloc(obytes);
    download(got, o, obytes);
    for (size_t s = 0; s < nseg; s++) {
        const size_t len = e[s] > b[s] ? (size_t)(e[s] - b[s]) : 0;
        struct stats_ref sr;
        struct ref_result want;
        stats_ref_compute_op(c.op, c.in, host + (size_t)b[s] * size, len, &sr);
        stats_ref_result(c.op, out, &sr, ddof, &want);
        char w[200];
        snprintf(w, sizeof w, "%s %s->%s %s offsets, ddof %g, segment %zu [%lld, %lld)", cured_op_name(c.op),
                 cured_type_name(c.in), cured_type_name(out), cured_type_name(ot), ddof, s, (long long)b[s],
                 (long long)e[s]);
        ref_check(c.op, c.in, out, got + s * rsize, &want, w);
    }
    for (size_t k = nseg * rsize; k < obytes; k++)
        ck_assert_msg(got[k] == POISON_BYTE, "byte %zu past the results was written", k);
}
END_TEST

/* Rows of one vector or less, and views that reduce nothing (rows of one
 * element, or no axis): the packed kernel, rows of whole vectors across row
 * boundaries and the rows after the last whole vector; dense and strided
 * outputs, ddof 0 and 1, infinities and NaNs in some rows. */
static const struct combo short_combos[] = {
    {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32}, {CURED_OP_VAR, CURED_TYPE_BFLOAT16}, {CURED_OP_STD, CURED_TYPE_FLOAT64},
    {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32}, {CURED_OP_MEAN, CURED_TYPE_INT16}, {CURED_OP_VAR, CURED_TYPE_FLOAT16},
    {CURED_OP_LOGSUMEXP, CURED_TYPE_BFLOAT16}, {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT64}, {CURED_OP_MEAN, CURED_TYPE_FLOAT32},
    {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT16}, {CURED_OP_NANVAR, CURED_TYPE_FLOAT32}, {CURED_OP_NANMEAN, CURED_TYPE_FLOAT16},
    {CURED_OP_NANSTD, CURED_TYPE_FLOAT64},
};
#define NSHORT (sizeof short_combos / sizeof *short_combos)

START_TEST(test_stats_short_rows)
{
    const struct combo c = short_combos[_i];
    cured_type out;
    ck_assert_int_eq(cured_default_result(c.op, c.in, &out), CURED_SUCCESS);
    struct rng r;
    rng_init(&r, "stats-short-rows", _i);
    const size_t size = ref_size(c.in), rsize = ref_result_size(c.op, out);
    for (size_t len = 1; len * size <= 32; len *= 2)
        for (int variant = 0; variant < 3; variant++) {
            const size_t nout = 2003 + rng_u32(&r) % 500, n = nout * len;
            const int none = len == 1 && variant == 2, strided = variant == 1;
            const double ddof = (double)(variant & 1);
            cured_layout l = {2, {(int64_t)nout, (int64_t)len}, {(int64_t)len, 1}};
            if (none)
                l = (cured_layout){1, {(int64_t)nout}, {1}};
            const cured_layout ol = {1, {(int64_t)nout}, {3}};
            unsigned char *host = ops_malloc(n * size);
            fill(&r, c.op, c.in, host, n, variant == 2 ? 1000.0 : 0.0);
            if (ref_is_float(c.in))
                for (size_t k = 0; k < 6; k++) {
                    const size_t at = rng_u32(&r) % n;
                    ref_put_f(c.in, host, at, k % 3 == 0 ? NAN : k % 3 == 1 ? INFINITY : -INFINITY);
                }
            CUdeviceptr d = dev_alloc(n * size);
            upload(d, host, n * size);
            const size_t span = strided ? 3 * nout : nout, obytes = span * rsize + 64;
            CUdeviceptr o = dev_alloc(obytes);
            poison(o, obytes);
            char what[200];
            snprintf(what, sizeof what, "%s %s->%s, %zu rows of %zu%s, ddof %g", cured_op_name(c.op),
                     cured_type_name(c.in), cured_type_name(out), nout, len,
                     none ? " (no axis)" : strided ? " (output stride 3)" : "", ddof);
            cured_status st = cured_reduce_axes_stats_async(H, c.op, DP(d), c.in, &l, none ? 0u : 2u, ddof, DP(o), out,
                                                            strided ? &ol : NULL, NULL);
            ck_assert_msg(st == CURED_SUCCESS, "%s: %s", what, cured_last_error());
            CU_OK(D->CtxSynchronize());
            unsigned char *got = ops_malloc(obytes);
            download(got, o, obytes);
            for (size_t j = 0; j < nout; j++) {
                struct stats_ref sr;
                struct ref_result want;
                stats_ref_compute_op(c.op, c.in, host + j * len * size, len, &sr);
                stats_ref_result(c.op, out, &sr, ddof, &want);
                char w[260];
                snprintf(w, sizeof w, "%s, row %zu", what, j);
                const size_t at = (strided ? 3 * j : j) * rsize;
                ref_check(c.op, c.in, out, got + at, &want, w);
                if (strided)
                    for (size_t b = at + rsize; b < at + 3 * rsize; b++)
                        ck_assert_msg(got[b] == POISON_BYTE, "%s: byte %zu between results was written", what, b);
            }
            for (size_t b = span * rsize; b < obytes; b++)
                ck_assert_msg(got[b] == POISON_BYTE, "%s: byte %zu past the results was written", what, b);
            ops_free(got);
            ops_free(host);
            dev_free(d);
            dev_free(o);
        }
}
END_TEST

/* LOGSUMEXP along rows that a group of 8 to 32 lanes shares (113 to 4000 elements):
 * the lanes start from the largest of their first elements, so place NaN, +inf and
 * -inf there and elsewhere, rows of -inf, rows whose first elements are -inf,
 * ramps (a raise every few elements) and large first elements; float32 and float64. */
static const cured_type lse_rows_types[] = {CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64};
START_TEST(test_lse_rows_specials)
{
    const cured_type in = lse_rows_types[_i];
    cured_type out;
    ck_assert_int_eq(cured_default_result(CURED_OP_LOGSUMEXP, in, &out), CURED_SUCCESS);
    struct rng r;
    rng_init(&r, "lse-rows", _i);
    const size_t size = ref_size(in), rsize = ref_result_size(CURED_OP_LOGSUMEXP, out);
    static const size_t lens[] = {113, 128, 200, 256, 257, 500, 1024, 1531, 4000};
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        const size_t len = lens[li], nout = 64, n = nout * len;
        unsigned char *host = ops_malloc(n * size);
        fill(&r, CURED_OP_LOGSUMEXP, in, host, n, 0.0);
        for (size_t j = 0; j < nout; j++) {
            unsigned char *row = host + j * len * size;
            const size_t at = rng_u32(&r) % len, lane_first = (rng_u32(&r) % 8) * 4;
            switch (j % 8) {
            case 1: ref_put_f(in, row, at, NAN); break;
            case 2: ref_put_f(in, row, lane_first < len ? lane_first : 0, INFINITY); break;
            case 3: ref_put_f(in, row, lane_first < len ? lane_first : 0, NAN); break;
            case 4:
                for (size_t i = 0; i < len; i++)
                    ref_put_f(in, row, i, -INFINITY);
                break;
            case 5: /* the lanes' first elements -inf, the rest finite */
                for (size_t i = 0; i < len && i < 32 * 4; i += 4)
                    ref_put_f(in, row, i, -INFINITY);
                break;
            case 6:
                for (size_t i = 0; i < len; i++)
                    ref_put_f(in, row, i, 0.75 * (double)i - 30.0);
                break;
            case 7: ref_put_f(in, row, 0, 80.0); ref_put_f(in, row, at, 85.0); break;
            default: break;
            }
        }
        CUdeviceptr d = dev_alloc(n * size);
        upload(d, host, n * size);
        const size_t obytes = nout * rsize + 64;
        CUdeviceptr o = dev_alloc(obytes);
        poison(o, obytes);
        const cured_layout l = {2, {(int64_t)nout, (int64_t)len}, {(int64_t)len, 1}};
        char what[160];
        snprintf(what, sizeof what, "LOGSUMEXP %s->%s, %zu rows of %zu", cured_type_name(in), cured_type_name(out),
                 nout, len);
        cured_status st = cured_reduce_axes_stats_async(H, CURED_OP_LOGSUMEXP, DP(d), in, &l, 2u, 0.0, DP(o), out,
                                                        NULL, NULL);
        ck_assert_msg(st == CURED_SUCCESS, "%s: %s", what, cured_last_error());
        CU_OK(D->CtxSynchronize());
        unsigned char *got = ops_malloc(obytes);
        download(got, o, obytes);
        for (size_t j = 0; j < nout; j++) {
            struct stats_ref sr;
            struct ref_result want;
            stats_ref_compute(in, host + j * len * size, len, &sr);
            stats_ref_result(CURED_OP_LOGSUMEXP, out, &sr, 0.0, &want);
            char w[200];
            snprintf(w, sizeof w, "%s, row %zu (kind %zu)", what, j, j % 8);
            ref_check(CURED_OP_LOGSUMEXP, in, out, got + j * rsize, &want, w);
        }
        for (size_t b = nout * rsize; b < obytes; b++)
            ck_assert_msg(got[b] == POISON_BYTE, "%s: byte %zu past the results was written", what, b);
        ops_free(got);
        ops_free(host);
        dev_free(d);
        dev_free(o);
    }
}
END_TEST

/* Every shape, three runs: bitwise the same results. */
/* Large float64 constants whose sums fit (cured.h: variance exactly 0, the mean exactly) through the row,
 * column, strided, packed and segment kernels: 1e305 in rows of 1000, 1e300 in rows of 65,539. */
START_TEST(test_constant_large_axes)
{
    static const struct {
        double c;
        int64_t len;
    } cases[] = {{1e305, 1000}, {-1e300, 65539}};
    for (size_t k = 0; k < 2; k++) {
        enum { rows = 6 };
        const int64_t len = cases[k].len;
        const size_t n = (size_t)len * rows;
        double *host = ops_malloc(n * 8);
        for (size_t i = 0; i < n; i++)
            host[i] = cases[k].c;
        CUdeviceptr d = dev_alloc(n * 8), out = dev_alloc(16 * (size_t)len), off = dev_alloc(16 * 8);
        upload(d, host, n * 8);
        int64_t offs[rows + 1];
        for (int64_t i = 0; i <= rows; i++)
            offs[i] = i * len;
        upload(off, offs, sizeof offs);
        /* rows (axis 1 of rows x len), columns (axis 0 of len x rows), every other row element (stride 2) */
        const cured_layout row = {2, {rows, len}, {len, 1}}, col = {2, {len, rows}, {rows, 1}},
                           strided = {2, {rows, len / 2}, {len, 2}};
        const cured_layout *views[3] = {&row, &col, &strided};
        const uint32_t axes[3] = {2u, 1u, 2u};
        for (int v = 0; v < 4; v++) {
            const size_t nout = (size_t)rows; /* one result per row, column or segment */
            poison(out, 16 * nout);
            if (v < 3)
                CURED_OK(cured_reduce_axes_stats_async(H, CURED_OP_MEAN_VAR, DP(d), CURED_TYPE_FLOAT64, views[v],
                                                       axes[v], 0.0, DP(out), CURED_TYPE_FLOAT64, NULL, NULL));
            else
                CURED_OK(cured_segmented_reduce_stats_async(H, CURED_OP_MEAN_VAR, DP(d), CURED_TYPE_FLOAT64,
                                                            (size_t)rows, DP(off), DP(off + 8), CURED_TYPE_INT64,
                                                            0.0, DP(out), CURED_TYPE_FLOAT64, NULL));
            CU_OK(D->CtxSynchronize());
            double got[2 * rows];
            download(got, out, sizeof got);
            for (size_t j = 0; j < nout; j++)
                ck_assert_msg(got[2 * j] == cases[k].c && got[2 * j + 1] == 0,
                              "constant %g, %s %zu: mean %.17g, variance %.17g", cases[k].c,
                              v == 0 ? "row" : v == 1 ? "column" : v == 2 ? "strided row" : "segment", j,
                              got[2 * j], got[2 * j + 1]);
        }
        ops_free(host);
        dev_free(d);
        dev_free(out);
        dev_free(off);
    }
}
END_TEST

START_TEST(test_stats_determinism)
{
    const cured_layout ls[] = {{2, {4096, 40}, {40, 1}}, {2, {3, 300000}, {300000, 1}}, {2, {20000, 48}, {48, 1}},
                               {3, {40, 50, 60}, {3000, 60, 1}}};
    const uint32_t axes[] = {2u, 2u, 1u, 5u};
    const cured_op ops[] = {CURED_OP_MEAN_VAR, CURED_OP_LOGSUMEXP};
    struct rng r;
    rng_init(&r, "stats-determinism", 0);
    for (size_t k = 0; k < sizeof ls / sizeof *ls; k++)
        for (int o = 0; o < 2; o++) {
            const size_t n = (size_t)ls[k].extent[0] * ls[k].extent[1] * (ls[k].rank == 3 ? ls[k].extent[2] : 1);
            float *host = ops_malloc(n * 4);
            fill(&r, ops[o], CURED_TYPE_FLOAT32, host, n, 3.0);
            CUdeviceptr d = dev_alloc(n * 4), out = dev_alloc(1 << 20);
            upload(d, host, n * 4);
            unsigned char *first = ops_malloc(1 << 20), *again = ops_malloc(1 << 20);
            for (int rep = 0; rep < 3; rep++) {
                poison(out, 1 << 20);
                CURED_OK(cured_reduce_axes_stats_async(H, ops[o], DP(d), CURED_TYPE_FLOAT32, &ls[k], axes[k], 1.0,
                                                       DP(out), CURED_TYPE_FLOAT32, NULL, NULL));
                CU_OK(D->CtxSynchronize());
                download(rep == 0 ? first : again, out, 1 << 20);
                if (rep > 0)
                    ck_assert_msg(memcmp(first, again, 1 << 20) == 0, "layout %zu %s: run %d differs", k,
                                  cured_op_name(ops[o]), rep);
            }
            ops_free(first);
            ops_free(again);
            ops_free(host);
            dev_free(d);
            dev_free(out);
        }
}
END_TEST

/* User ops along random views and over segments: a sum of squares (exact
 * data, exact results) and a two-field mean whose finalize reports n. */
START_TEST(test_user_ops)
{
    cured_custom op;
    if (_i == 0) {
        CURED_OK(cured_custom_create(H, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "(double)x * x", "a + b", "0", &op));
    } else {
        const cured_custom_field f[2] = {{CURED_TYPE_FLOAT64, "x", "a0 + b0", "0"},
                                         {CURED_TYPE_INT64, "1", "a1 + b1", "0"}};
        const char *fin[2] = {"a1 > 0 ? a0 / (double)a1 : -1.0", "n"};
        CURED_OK(cured_custom_create_multi(H, CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, &op));
    }
    const size_t rsize = _i == 0 ? 8 : 16;
    struct rng r;
    rng_init(&r, "user-axes", _i);
    for (int k = 0; k < (ops_reduced() ? 8 : 20); k++) {
        cured_layout l;
        uint32_t axes;
        int64_t span;
        random_view(&r, &l, &axes, &span);
        float *host = ops_malloc((size_t)span * 4);
        ref_fill(CURED_TYPE_FLOAT32, FL_RAND, &r, host, (size_t)span); /* k/64: every sum exact */
        CUdeviceptr d = dev_alloc((size_t)span * 4);
        upload(d, host, (size_t)span * 4);
        const int64_t nout = outputs(&l, axes);
        const size_t obytes = (size_t)(nout > 0 ? nout : 1) * rsize + 64;
        CUdeviceptr o = dev_alloc(obytes);
        poison(o, obytes);
        CURED_OK(cured_custom_reduce_axes_async(H, op, DP(d), &l, axes, DP(o), NULL, NULL));
        CU_OK(D->CtxSynchronize());
        unsigned char *got = ops_malloc(obytes);
        float *g = ops_malloc((elements(&l) + 1) * 4);
        download(got, o, obytes);
        for (int64_t j = 0; j < nout; j++) {
            const size_t len = gather(CURED_TYPE_FLOAT32, (const unsigned char *)host, &l, axes, j, (unsigned char *)g);
            double want[2] = {0.0, (double)len};
            for (size_t i = 0; i < len; i++)
                want[0] += _i == 0 ? (double)g[i] * g[i] : g[i];
            if (_i == 1)
                want[0] = len > 0 ? want[0] / (double)len : -1.0;
            double v[2];
            memcpy(v, got + (size_t)j * rsize, rsize);
            ck_assert_msg(v[0] == want[0] && (_i == 0 || v[1] == want[1]),
                          "user op %d case %d (rank %d axes 0x%x) output %lld of %zu: %.17g %.17g, want %.17g %.17g "
                          "(seed %llu)", _i, k, l.rank, axes, (long long)j, len, v[0], _i ? v[1] : 0.0, want[0],
                          want[1], test_seed);
        }
        for (size_t b = (size_t)(nout > 0 ? nout : 0) * rsize; b < obytes; b++)
            ck_assert_msg(got[b] == POISON_BYTE, "user op %d case %d: byte %zu past the results was written", _i, k, b);
        ops_free(got);
        ops_free(g);
        ops_free(host);
        dev_free(d);
        dev_free(o);
    }
    /* segments: empty, reversed and long ones */
    const size_t n = 20000, nseg = 500;
    float *host = ops_malloc(n * 4);
    ref_fill(CURED_TYPE_FLOAT32, FL_RAND, &r, host, n);
    int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
    for (size_t s = 0; s < nseg; s++) {
        const uint32_t kind = rng_u32(&r) % 8;
        const size_t len = kind == 0 ? 0 : kind == 1 ? 3000 + rng_u32(&r) % 5000 : rng_u32(&r) % 200;
        b[s] = (int64_t)(rng_u32(&r) % (uint32_t)(n - len));
        e[s] = kind == 2 ? b[s] - 1 : b[s] + (int64_t)len;
    }
    CUdeviceptr d = dev_alloc(n * 4), db = dev_alloc(nseg * 8), de = dev_alloc(nseg * 8), o = dev_alloc(nseg * rsize);
    upload(d, host, n * 4);
    upload(db, b, nseg * 8);
    upload(de, e, nseg * 8);
    poison(o, nseg * rsize);
    CURED_OK(cured_custom_segmented_reduce_async(H, op, DP(d), nseg, DP(db), DP(de), CURED_TYPE_INT64, DP(o), NULL));
    CU_OK(D->CtxSynchronize());
    unsigned char *got = ops_malloc(nseg * rsize);
    download(got, o, nseg * rsize);
    for (size_t s = 0; s < nseg; s++) {
        const size_t len = e[s] > b[s] ? (size_t)(e[s] - b[s]) : 0;
        double want[2] = {0.0, (double)len}, v[2];
        for (size_t i = 0; i < len; i++) {
            const double x = host[b[s] + (int64_t)i];
            want[0] += _i == 0 ? x * x : x;
        }
        if (_i == 1)
            want[0] = len > 0 ? want[0] / (double)len : -1.0;
        memcpy(v, got + s * rsize, rsize);
        ck_assert_msg(v[0] == want[0] && (_i == 0 || v[1] == want[1]),
                      "user op %d segment %zu of %zu: %.17g, want %.17g (seed %llu)", _i, s, len, v[0], want[0],
                      test_seed);
    }
    CURED_OK(cured_custom_destroy(op));
}
END_TEST

static Suite *stats_axes_suite(void)
{
    Suite *s = suite_create("gpu-stats-axes");
    TCase *tc = tcase_create("stats-axes");
    tcase_add_checked_fixture(tc, ops_setup, ops_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_stats_axes_random, 0, (int)NCOMBOS);
    tcase_add_loop_test(tc, test_stats_segments_random, 0, 2 * (int)NCOMBOS);
    tcase_add_loop_test(tc, test_stats_short_rows, 0, (int)NSHORT);
    tcase_add_loop_test(tc, test_lse_rows_specials, 0, 2);
    tcase_add_test(tc, test_stats_determinism);
    tcase_add_test(tc, test_constant_large_axes);
    tcase_add_loop_test(tc, test_user_ops, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-stats-axes", stats_axes_suite());
}
