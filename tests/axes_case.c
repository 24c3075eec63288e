/*
 * One axis reduction checked on the host (the GPU axis suites): random data
 * over a view, every output gathered in row-major order of the reduced
 * axes and reduced by tests/ops_ref.c, empty outputs against the values of
 * cured_reduce_axes_async, and nothing written outside the results.
 */
#include "axes_case.h"
#include "ops_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ref_flavour axes_flavour(cured_op op)
{
    switch (op) {
    case CURED_OP_PRODUCT: return FL_ODD;
    case CURED_OP_AND: return FL_AND;
    case CURED_OP_OR: return FL_OR;
    case CURED_OP_SUM: case CURED_OP_SUM_SQUARES: case CURED_OP_SUM_ABS: case CURED_OP_NORM2:
    case CURED_OP_COUNT_NONZERO: case CURED_OP_XOR: return FL_RAND;
    case CURED_OP_MEAN: case CURED_OP_VAR: case CURED_OP_STD: case CURED_OP_MEAN_VAR:
    case CURED_OP_LOGSUMEXP: return FL_REAL; /* tests/stats_ref.c's bounds; NaN placement: test-gpu-stats */
    case CURED_OP_NANSUM: return FL_RAND_NAN;
    case CURED_OP_NANMEAN: case CURED_OP_NANVAR: case CURED_OP_NANSTD: return FL_REAL_NAN;
    default: return FL_WIDE_NAN;
    }
}

/* The expected result of an empty reduction (cured.h, cured_reduce_axes_async). */
static void empty_result(cured_op op, cured_type in, cured_type out, struct ref_result *r)
{
    if (op == CURED_OP_MINMAX) {
        struct ref_result lo, hi;
        ref_reduce(CURED_OP_MIN, in, out, NULL, NULL, 0, 1, &lo);
        ref_reduce(CURED_OP_MAX, in, out, NULL, NULL, 0, 1, &hi);
        *r = lo;
        r->nvalues = 2;
        r->v[1] = hi.v[0];
        return;
    }
    ref_reduce(op, in, out, NULL, NULL, 0, 1, r);
}

static int is_arg(cured_op op)
{
    return op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX || op == CURED_OP_NANARGMIN || op == CURED_OP_NANARGMAX;
}

/* Check output j of an axis reduction: gather, reduce, compare. */
void axes_check_output(cured_op op, cured_type t, cured_type out, const unsigned char *host, const cured_layout *l,
                         uint32_t axes, const int64_t *kept_idx, const unsigned char *got, unsigned char *gather,
                         const char *what)
{
    const size_t size = ref_size(t);
    int64_t red_ext[CURED_MAX_RANK], red_str[CURED_MAX_RANK], base = 0;
    int nr = 0;
    size_t len = 1;
    for (int k = 0, j = 0; k < l->rank; k++) {
        if ((axes >> k) & 1) {
            red_ext[nr] = l->extent[k];
            red_str[nr++] = l->stride[k];
            len *= (size_t)l->extent[k];
        } else {
            base += kept_idx[j++] * l->stride[k];
        }
    }
    for (size_t i = 0; i < len; i++) {
        size_t rem = i;
        int64_t off = base;
        for (int d = nr - 1; d >= 0; d--) {
            off += (int64_t)(rem % (size_t)red_ext[d]) * red_str[d];
            rem /= (size_t)red_ext[d];
        }
        memcpy(gather + i * size, host + (size_t)off * size, size);
    }
    struct ref_result r;
    if (len == 0) {
        empty_result(op, t, out, &r);
        if (is_arg(op)) {
            int64_t index;
            memcpy(&index, got, 8);
            ck_assert_msg(index == -1, "%s: empty ARG index %lld", what, (long long)index);
            for (size_t b = 0; b < size; b++)
                ck_assert_msg(got[8 + b] == 0, "%s: empty ARG value is not zero", what);
            return;
        }
    } else { /* float sums of integers (NORM2 of 64-bit values) round: a tolerance */
        ref_reduce(op, t, out, gather, NULL, len, !(op == CURED_OP_NORM2 && !ref_is_float(t)), &r);
    }
    ref_check(op, t, out, got, &r, what);
}

/* A random view of min_rank..max_rank axes over a buffer, and a random axis
 * subset. Above rank 4 the extents are at most 3 and nothing is sliced, so
 * that a view of 8 axes stays small; rank 0 is one element. */
void axes_random_view(struct rng *r, cured_layout *l, uint32_t *axes, int64_t *span, int big, int min_rank,
                      int max_rank)
{
    memset(l, 0, sizeof *l);
    l->rank = min_rank + (int)(rng_u32(r) % (uint32_t)(max_rank - min_rank + 1));
    const int small = l->rank > 4;
    int64_t ext[CURED_MAX_RANK], parent = 1;
    for (int k = 0; k < l->rank; k++) {
        const uint32_t u = rng_u32(r) % 16;
        ext[k] = u < 1 ? 0 : u < 4 ? 1 : (int64_t)(2 + rng_u32(r) % (small ? 2 : 9));
    }
    if (big && l->rank > 0) /* one long axis: long rows, split rows, columns of many rows */
        ext[rng_u32(r) % l->rank] = 3000 + rng_u32(r) % 9000;
    /* strides of a padded, possibly permuted parent; some broadcast, some sliced */
    int perm[CURED_MAX_RANK] = {0, 1, 2, 3, 4, 5, 6, 7};
    if (rng_u32(r) % 3 == 0)
        for (int k = l->rank - 1; k > 0; k--) {
            int j = (int)(rng_u32(r) % (uint32_t)(k + 1)), t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
        }
    int64_t stride[CURED_MAX_RANK];
    for (int k = l->rank - 1; k >= 0; k--) {
        const int a = perm[k];
        const int step = rng_u32(r) % 5 == 0 && !small ? 2 : 1;
        stride[a] = rng_u32(r) % 8 == 0 ? 0 : parent * step;
        parent *= (ext[a] > 0 ? ext[a] : 1) * step + (rng_u32(r) % 4 == 0 ? 1 : 0);
    }
    *span = 1;
    for (int k = 0; k < l->rank; k++) {
        l->extent[k] = ext[k];
        l->stride[k] = stride[k];
        if (ext[k] > 0)
            *span += (ext[k] - 1) * stride[k];
    }
    *axes = rng_u32(r) & ((1u << l->rank) - 1);
}

/* One random axis reduction of (op, t): checks every output and that nothing else was written. */
void axes_one_case(struct rng *rg, cured_op op, cured_type t, cured_type out, int big, int min_rank, int max_rank,
                   CUstream s, long id)
{
    cured_layout l;
    uint32_t axes;
    int64_t span;
    axes_random_view(rg, &l, &axes, &span, big, min_rank, max_rank);
    char what[64];
    snprintf(what, sizeof what, "case %ld", id);
    axes_run_case(rg, op, t, out, &l, axes, span, s, what);
}

/* op along the axes of l (span elements from its base) on random data, at a
 * random misaligned base, into a dense or padded output. */
void axes_run_case(struct rng *rg, cured_op op, cured_type t, cured_type out, const cured_layout *lp, uint32_t axes,
                   int64_t span, CUstream s, const char *label)
{
    const size_t size = ref_size(t), rsize = ref_result_size(op, out);
    const cured_layout l = *lp;
    const size_t shift = rng_u32(rg) % 4; /* misaligned base */
    const size_t nelem = (size_t)span + shift;
    unsigned char *host = ops_malloc(nelem * size);
    ref_fill(t, axes_flavour(op), rg, host, nelem);
    CUdeviceptr d = dev_alloc(nelem * size);
    upload(d, host, nelem * size);
    /* outputs: dense, or padded strides (keepdims style) */
    int nk = 0;
    int64_t kext[CURED_MAX_RANK], nout = 1;
    for (int k = 0; k < l.rank; k++)
        if (!((axes >> k) & 1))
            kext[nk++] = l.extent[k], nout *= l.extent[k];
    cured_layout ol = {nk, {0}, {0}};
    const int padded = rng_u32(rg) % 3 == 0;
    int64_t ospan = 1, s_ = 1;
    for (int k = nk - 1; k >= 0; k--) {
        ol.extent[k] = kext[k];
        ol.stride[k] = s_;
        s_ *= (kext[k] > 0 ? kext[k] : 1) + (padded ? 1 : 0);
    }
    for (int k = 0; k < nk; k++)
        if (kext[k] > 0)
            ospan += (kext[k] - 1) * ol.stride[k];
    const size_t obytes = (size_t)(nout > 0 ? ospan : 1) * rsize + 64;
    CUdeviceptr o = dev_alloc(obytes);
    poison(o, obytes);
    char what[320];
    int len_ = snprintf(what, sizeof what, "%s: %s %s->%s rank %d axes 0x%x shift %zu%s, extent:stride", label,
                        cured_op_name(op), cured_type_name(t), cured_type_name(out), l.rank, axes, shift,
                        padded ? " padded output" : "");
    for (int k = 0; k < l.rank && len_ > 0 && (size_t)len_ < sizeof what; k++)
        len_ += snprintf(what + len_, sizeof what - (size_t)len_, " %lld:%lld", (long long)l.extent[k],
                         (long long)l.stride[k]);
    cured_status st = cured_reduce_axes_async(H, op, DP(d + shift * size), t, &l, axes, DP(o), out,
                                              padded ? &ol : NULL, s);
    ck_assert_msg(st == CURED_SUCCESS, "%s: %s", what, cured_last_error());
    CU_OK(D->StreamSynchronize(s));
    unsigned char *got = ops_malloc(obytes);
    download(got, o, obytes);
    size_t len = 1;
    for (int k = 0; k < l.rank; k++)
        if ((axes >> k) & 1)
            len *= (size_t)l.extent[k];
    unsigned char *gather = ops_malloc((len ? len : 1) * size);
    unsigned char *written = ops_malloc(obytes);
    for (int64_t j = 0; j < nout; j++) {
        int64_t idx[CURED_MAX_RANK], rem = j, off = 0;
        for (int k = nk - 1; k >= 0; k--) {
            idx[k] = rem % kext[k];
            rem /= kext[k];
            off += idx[k] * ol.stride[k];
        }
        char w[400];
        snprintf(w, sizeof w, "%s, output %lld", what, (long long)j);
        axes_check_output(op, t, out, host + shift * size, &l, axes, idx, got + (size_t)off * rsize, gather, w);
        memset(written + (size_t)off * rsize, 1, rsize);
    }
    for (size_t b = 0; b < obytes; b++)
        if (!written[b])
            ck_assert_msg(got[b] == POISON_BYTE, "%s: byte %zu outside the results was written", what, b);
    ops_free(written);
    ops_free(gather);
    ops_free(got);
    ops_free(host);
    dev_free(o);
    dev_free(d);
}
