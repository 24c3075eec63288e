/*
 * Many results at once: the checks of an axis request, and the planner that
 * maps any layout onto one of the shapes of family_segmented.c (or the
 * whole-array kernels when one contiguous result is asked for). Segments
 * given by offsets are checked in segments.c. The model behind its choices
 * is bench/NOTES.md's "Axes and segments"; what each operator allows
 * (packing, folding, warps a row) is its row's traits (cr_request_traits).
 */
#include "call.h"

#include <stdint.h>
#include <string.h>

/* One dimension of the problem, after the view is read. */
struct dim {
    int64_t extent, in, out; /* extent, input stride, output stride (kept dims) */
    int reduced;
};

/* a * b, or 0 and *overflow set. */
static uint64_t mul(uint64_t a, uint64_t b, int *overflow)
{
    if (a != 0 && b > UINT64_MAX / a) {
        *overflow = 1;
        return 0;
    }
    return a * b;
}

/* The last offset a view reaches, in elements (extents all > 0), or overflow;
 * UINT64_MAX counts as overflow, since the caller's count of elements, last + 1, wraps. */
static uint64_t last_offset(const struct dim *d, int n, int out, int *overflow)
{
    uint64_t last = 0;
    for (int k = 0; k < n; k++) {
        if (out && d[k].reduced)
            continue;
        uint64_t step = mul((uint64_t)(d[k].extent - 1), (uint64_t)(out ? d[k].out : d[k].in), overflow);
        if (step >= UINT64_MAX - last)
            *overflow = 1;
        last += step;
    }
    return last;
}

/* Do the kept dims place two results at one address? Sufficient test: with
 * the dims ordered by stride, each stride reaches past the span of the
 * smaller ones. */
static int outputs_overlap(const struct dim *d, int n)
{
    struct dim k[CURED_MAX_RANK];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!d[i].reduced && d[i].extent > 1)
            k[m++] = d[i];
    for (int i = 1; i < m; i++) /* insertion sort by stride */
        for (int j = i; j > 0 && k[j].out < k[j - 1].out; j--) {
            struct dim t = k[j];
            k[j] = k[j - 1];
            k[j - 1] = t;
        }
    uint64_t span = 1; /* elements a result of the smaller dims covers */
    for (int i = 0; i < m; i++) {
        if ((uint64_t)k[i].out < span)
            return 1;
        span = (uint64_t)k[i].out * (uint64_t)k[i].extent;
    }
    return 0;
}

/* Drop extent-1 dims and merge neighbours of one class whose strides nest. */
static int coalesce(struct dim *d, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (d[i].extent == 1)
            continue;
        /* unsigned products: a stride times an extent may pass 2^63 (then it cannot match); a
         * merged extent stays below 2^63 (an empty view's reduced extents may not: not merged) */
        if (m > 0 && d[m - 1].reduced == d[i].reduced && d[i].extent != 0 &&
            (uint64_t)d[m - 1].extent <= (uint64_t)INT64_MAX / (uint64_t)d[i].extent &&
            (uint64_t)d[m - 1].in == (uint64_t)d[i].in * (uint64_t)d[i].extent &&
            (d[i].reduced || (uint64_t)d[m - 1].out == (uint64_t)d[i].out * (uint64_t)d[i].extent)) {
            d[m - 1].extent *= d[i].extent;
            d[m - 1].in = d[i].in;
            d[m - 1].out = d[i].out;
            continue;
        }
        d[m++] = d[i];
    }
    return m;
}

static unsigned pow2_at_least(uint64_t x, unsigned cap)
{
    unsigned p = 1;
    while (p < x && p < cap)
        p *= 2;
    return p;
}

/* Short contiguous rows (up to the operator's packed_max bytes, a power of
 * two, 16-byte aligned input) and views that reduce nothing: whole vectors
 * per thread across row boundaries (packed.cuh). 1 if chosen. */
static int plan_packed(struct cr_request *r, struct cr_geometry *g, const void *in, const void *out, size_t size)
{
    const struct cr_kept *k = &g->kept;
    const uint64_t rb = g->len * size;
    const uint64_t most = cr_request_traits(r).packed_max;
    if (k->n != 1 || (uint64_t)k->in_stride[0] != g->len || (uintptr_t)in % 16 || rb > most || (rb & (rb - 1)))
        return 0;
    const size_t rs = r->acc.result_size, rpv = rb < 16 ? 16 / rb : 1, w = rpv * rs < 16 ? rpv * rs : 16;
    r->shape = CR_SHAPE_PACKED;
    r->group = (int)rb;
    g->dense = k->out_stride[0] == 1 && (rs & (rs - 1)) == 0 && (uintptr_t)out % w == 0;
    return 1;
}

/* The planner: the shape, its variant and its geometry. */
static void plan_shape(cured_handle h, struct cr_request *r, const struct dim *d, int n, const void *in,
                       const void *out, struct cr_geometry *g)
{
    const size_t size = cr_type_size(r->in);
    /* Resident blocks of 256 threads: 2048 threads per SM at most. */
    const uint64_t per_sm = h->max_blocks_per_sm < 8 ? (uint64_t)h->max_blocks_per_sm : 8;
    const uint64_t guess = (uint64_t)h->facts.sms * per_sm;
    const uint64_t partial_room = cr_cols_room(&h->facts, r->acc.size);
    int nk = 0, nr = 0, red_at = -1;
    for (int k = 0; k < n; k++) {
        if (d[k].reduced) {
            g->red.extent[nr] = d[k].extent;
            g->red.stride[nr++] = d[k].in;
            red_at = k;
        } else {
            g->kept.extent[nk] = d[k].extent;
            g->kept.in_stride[nk] = d[k].in;
            g->kept.out_stride[nk++] = d[k].out;
        }
    }
    g->kept.n = nk;
    g->red.n = nr;
    g->len = 1;
    for (int k = 0; k < nr; k++)
        g->len *= (uint64_t)g->red.extent[k];

    if ((nr == 0 || (nr == 1 && g->red.stride[0] == 1)) && plan_packed(r, g, in, out, size))
        return;
    if (nr == 0 && nk >= 1 && nk <= 2 && g->kept.in_stride[nk - 1] == 1) {
        /* Nothing reduced, contiguous outputs: columns of one row (16-byte loads across outputs). */
        g->red.n = 1;
        g->red.extent[0] = 1;
        g->red.stride[0] = 0;
        nr = 1;
        red_at = 0;
    } else if (nr == 0 || (nr == 1 && g->red.stride[0] == 1)) { /* a contiguous row per output */
        const uint64_t bytes = g->len * size;
        /* An operator whose block-level merge is dear keeps a warp a row up to 64 KiB rows
         * while there are rows enough for that many waves of blocks (its row_warp_waves). */
        const uint64_t warps_from = (uint64_t)cr_request_traits(r).row_warp_waves * guess;
        if (bytes < 16384 || (warps_from > 0 && bytes <= 65536 && g->nout >= warps_from)) {
            r->shape = CR_SHAPE_ROWS;
            r->group = (int)pow2_at_least((bytes + 63) / 64, 32);
            return;
        }
        r->shape = CR_SHAPE_ROWS_SPLIT;
        uint64_t per = g->nout >= guess ? 1 : (guess + g->nout - 1) / g->nout; /* one wave */
        uint64_t most = bytes / 16384; /* at least 16 KiB a block */
        per = per < most ? per : most;
        if (per > 1 && (g->nout > CR_WS_NTICKETS || g->nout * per > partial_room))
            per = g->nout > CR_WS_NTICKETS ? 1 : partial_room / g->nout;
        g->per = per < 1 ? 1 : (unsigned)per;
        return;
    }
    const int last_kept = nk - 1;
    if (nr == 1 && nk >= 1 && nk <= 2 && g->kept.in_stride[last_kept] == 1 && red_at >= 0) {
        struct cr_cols *c = &g->cols;
        c->rows = g->red.extent[0];
        c->row = g->red.stride[0];
        c->cols = g->kept.extent[last_kept];
        c->out_col = g->kept.out_stride[last_kept];
        c->batches = nk == 2 ? g->kept.extent[0] : 1;
        c->batch = nk == 2 ? g->kept.in_stride[0] : 0;
        c->out_batch = nk == 2 ? g->kept.out_stride[0] : 0;
        c->len = c->rows;
        c->fold = c->spare = 0;
        if (c->batches <= 65535) {
            int vec = 16 / (int)size;
            /* Only the residues mod 16 matter, and unsigned products keep them (strides may be huge). */
            const int aligned = (uintptr_t)in % 16 == 0 && ((uint64_t)c->batch * size) % 16 == 0;
            if (aligned && c->cols < vec && c->row == c->cols && vec % c->cols == 0 &&
                ((uint64_t)c->rows * (uint64_t)c->cols) % (uint64_t)vec == 0 && cr_request_traits(r).foldable) {
                /* Dense rows narrower than 16 bytes: read as 16-byte rows of VEC / cols rows each. */
                c->fold = (uint32_t)c->cols;
                c->rows = c->rows * c->cols / vec;
                c->row = vec;
            } else if (!aligned || ((uint64_t)c->row * size) % 16 || c->cols < vec) {
                vec = 1;
            }
            /* Few rows: each thread takes them all (loads in flight down the rows, no phase
             * combine); many: 32 lanes across (512-byte row pieces) and up to 8 phases down. */
            const uint64_t vc = ((uint64_t)c->cols + vec - 1) / vec; /* folded: 1 (cols < vec) */
            const unsigned tx = pow2_at_least(vc, c->rows <= 64 ? 256 : 32);
            const uint64_t tiles = ((uint64_t)c->cols + (uint64_t)tx * vec - 1) / ((uint64_t)tx * vec);
            c->tiles = tiles <= 0x7fffffffu ? (uint32_t)tiles : 0;
            /* the rows' splits follow the loaded kernel's occupancy: the launch plan chooses them */
            c->splits = c->group = c->ngroups = 1;
            if (tiles <= 0x7fffffffu) {
                r->shape = CR_SHAPE_COLS;
                r->group = (int)tx;
                r->vec = vec;
                return;
            }
        }
    }
    r->shape = CR_SHAPE_STRIDED;
}

static cured_status layout_head(const cured_layout *lay, uint32_t axes)
{
    if (lay == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the input layout is NULL");
    if (lay->rank < 0 || lay->rank > CURED_MAX_RANK)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "rank %d is not in 0..%d", lay->rank, CURED_MAX_RANK);
    if (lay->rank < 32 && (axes >> lay->rank) != 0)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "axes 0x%x name an axis at or above the rank %d", axes, lay->rank);
    return CURED_SUCCESS;
}

cured_status cr_axes_request(cured_handle h, cured_op op, const void *in, cured_type in_type,
                             const cured_layout *lay, uint32_t axes, const void *out, cured_type out_type,
                             const cured_layout *out_lay, int state, struct cr_request *r, struct cr_geometry *g,
                             int *whole)
{
    const struct cr_call c = {.name = "cr_axes_request", .h = h, .op = op, .in_type = in_type, .out_type = out_type,
                              .view = CR_VIEW_AXES, .in = in, .lay = lay, .axes = axes, .out_lay = out_lay,
                              .out = (void *)(uintptr_t)out, .state = state};
    struct cr_planned p;
    cured_status st = cr_call_check(&c, &p);
    *r = p.r;
    *g = p.g;
    *whole = p.whole;
    return st;
}

cured_status cr_axes_layout(cured_handle h, const void *in, const cured_layout *lay, uint32_t axes, const void *out,
                            const cured_layout *out_lay, struct cr_request *r, struct cr_geometry *g, int *whole)
{
    cured_status st = layout_head(lay, axes);
    if (st != CURED_SUCCESS)
        return st;
    const cured_type in_type = r->in;
    struct dim d[CURED_MAX_RANK];
    int nkept = 0, empty = 0, kept_empty = 0, overflow = 0, total_over = 0, nout_over = 0;
    uint64_t nout = 1, total = 1;
    for (int k = 0; k < lay->rank; k++) {
        if (lay->extent[k] < 0 || lay->stride[k] < 0)
            return cr_fail(CURED_ERROR_INVALID_VALUE, "axis %d has extent %lld and stride %lld (both must be >= 0)", k,
                           (long long)lay->extent[k], (long long)lay->stride[k]);
        d[k].extent = lay->extent[k];
        d[k].in = lay->stride[k];
        d[k].reduced = (axes >> k) & 1;
        d[k].out = 0;
        empty |= d[k].extent == 0;
        total = mul(total, (uint64_t)d[k].extent, &total_over);
        if (!d[k].reduced) {
            nkept++, nout = mul(nout, (uint64_t)d[k].extent, &nout_over);
            kept_empty |= d[k].extent == 0;
        }
    }
    /* a zero extent makes the count zero, whatever the others multiplied to before it */
    if (empty)
        total = 0;
    if (kept_empty)
        nout = 0;
    if ((total_over && !empty) || (nout_over && !kept_empty))
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "the layout's element count overflows");
    /* A count the kernels could not finish (a broadcast view of 2^62 elements reads 4 bytes for ever). */
    if (total > (uint64_t)CURED_MAX_ELEMENTS || nout > (uint64_t)CURED_MAX_ELEMENTS)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW,
                       "the view has %llu elements and %llu results; the most is CURED_MAX_ELEMENTS (2^53)",
                       (unsigned long long)total, (unsigned long long)nout);
    /* Output strides: the caller's, or dense row-major over the kept axes. */
    if (out_lay != NULL) {
        if (out_lay->rank != nkept)
            return cr_fail(CURED_ERROR_INVALID_VALUE, "the output layout has rank %d; %d axes are kept", out_lay->rank,
                           nkept);
        for (int k = 0, j = 0; k < lay->rank; k++) {
            if (d[k].reduced)
                continue;
            if (out_lay->extent[j] != d[k].extent || out_lay->stride[j] < 0)
                return cr_fail(CURED_ERROR_INVALID_VALUE,
                               "output axis %d has extent %lld and stride %lld; the kept axis %d has extent %lld", j,
                               (long long)out_lay->extent[j], (long long)out_lay->stride[j], k,
                               (long long)d[k].extent);
            d[k].out = out_lay->stride[j++];
        }
    } else if (nout > 0) { /* (no results: no strides, and no product of extents to overflow) */
        int64_t s = 1;
        for (int k = lay->rank - 1; k >= 0; k--)
            if (!d[k].reduced) {
                d[k].out = s;
                s = (int64_t)((uint64_t)s * (uint64_t)(d[k].extent > 0 ? d[k].extent : 1)); /* the last is unused */
            }
    }
    if (nout == 0)
        return CURED_SUCCESS; /* no result: nothing to do */
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the output pointer is NULL");
    if (outputs_overlap(d, lay->rank))
        return cr_fail(CURED_ERROR_INVALID_VALUE, "the output layout places two results at one address");
    uint64_t last_out = last_offset(d, lay->rank, 1, &overflow);
    g->out_bytes = (size_t)mul(last_out + 1, r->acc.result_size, &overflow);
    uint64_t last_in = empty ? 0 : last_offset(d, lay->rank, 0, &overflow);
    g->in_bytes = empty ? 0 : (size_t)mul(last_in + 1, cr_type_size(in_type), &overflow);
    if (overflow)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "the layout's byte range overflows");
    if (in == NULL && total > 0)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the input pointer is NULL and the view has %llu elements",
                       (unsigned long long)total);
    if ((uintptr_t)in % cr_type_size(in_type))
        return cr_fail(CURED_ERROR_MISALIGNED, "the input %p is not aligned to its %zu-byte elements", in,
                       cr_type_size(in_type));
    /* The kernels write the results while they read the input: the two byte ranges may not meet
     * (refused by cr_reduce_run_many after the range checks, so that a view past its allocation
     * is OUT_OF_RANGE first, as for the whole-array calls). */
    if (total > 0 && cr_ranges_overlap(in, g->in_bytes, out, g->out_bytes))
        g->overlap = "input (the bytes from in to the last element the view reaches)";
    int n = coalesce(d, lay->rank);
    g->nout = nout;
    if (empty) { /* every result is an empty reduction: rows of length 0 */
        int m = 0;
        for (int k = 0; k < n; k++)
            if (!d[k].reduced)
                d[m++] = d[k];
        n = m;
        g->len = 0;
        for (int k = 0; k < n; k++) {
            g->kept.extent[k] = d[k].extent;
            g->kept.in_stride[k] = 0;
            g->kept.out_stride[k] = d[k].out;
        }
        g->kept.n = n;
        r->shape = CR_SHAPE_ROWS;
        r->group = 1;
        return CURED_SUCCESS;
    }
    /* One contiguous result of a contiguous input: the whole-array kernels. */
    *whole = nout == 1 && (n == 0 || (n == 1 && d[0].reduced && d[0].in == 1));
    if (*whole) {
        g->len = n == 0 ? 1 : (uint64_t)d[0].extent;
        return CURED_SUCCESS;
    }
    plan_shape(h, r, d, n, in, out, g);
    return CURED_SUCCESS;
}
