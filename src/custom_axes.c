/*
 * User-defined ops (one-field and multi-field) along axes and over
 * segments: the planner and checks of axes.c, the kernels of
 * kernels-src/segmented.cu around the op's own UserOp. Each shape the
 * planner picks (rows of G threads, split rows, segments, columns, strided)
 * is its own compile unit, made and loaded on first use in a context and
 * kept with the op until cured_custom_destroy().
 */
#include "internal.h"
#include "custom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct want {
    cured_custom op;
    const struct cr_request *req; /* the op's request with the planned shape */
};

/* The variant of a shape in h's context (current), built and loaded on first use. */
static cured_status variant_target(cured_handle h, const void *arg, struct cr_target *t)
{
    const struct want *w = arg;
    cured_custom op = w->op;
    const uint64_t code = cr_request_code(w->req);
    cured_status st = CURED_SUCCESS;
    struct cr_variant *v = NULL;
    pthread_mutex_lock(&op->lock);
    for (size_t i = 0; i < op->nvariants && v == NULL; i++)
        if (op->variants[i]->l.ctx_id == h->ctx_id && op->variants[i]->code == code)
            v = op->variants[i];
    if (v == NULL) { /* cr_custom_variant_load releases the op's lock while it compiles */
        struct cr_variant **grown = realloc(op->variants, (op->nvariants + 1) * sizeof *grown);
        v = calloc(1, sizeof *v);
        if (grown != NULL)
            op->variants = grown;
        if (grown == NULL || v == NULL) {
            st = cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
        } else {
            v->req = *w->req;
            v->code = code;
            cr_family_segmented.build(&v->req, &v->unit);
            if ((st = cr_custom_variant_load(h, op, v)) == CURED_SUCCESS) {
                v->l.ctx = h->ctx;
                v->l.ctx_id = h->ctx_id;
                v->l.d = h->d;
                op->variants[op->nvariants++] = v;
            }
        }
        if (st != CURED_SUCCESS) {
            free(v);
            v = NULL;
        }
    }
    pthread_mutex_unlock(&op->lock);
    if (v != NULL) { /* a variant is never moved or freed before the op is destroyed */
        t->fam = &cr_family_segmented;
        t->req = &v->req;
        t->unit = &v->unit;
        t->k = &v->l.k;
    }
    return st;
}

void cr_custom_variants_free(cured_custom op)
{
    for (size_t i = 0; i < op->nvariants; i++) {
        cr_loaded_unload(&op->variants[i]->l);
        free(op->variants[i]);
    }
    free(op->variants);
    op->variants = NULL;
    op->nvariants = 0;
}

/* The op's request for a many-result call, or a recorded failure. */
static cured_status user_request(cured_handle h, cured_custom op, const char *call, struct cr_request *r)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "%s: the handle is NULL", call);
    if (op == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "%s: the user-defined op is NULL", call);
    *r = op->req;
    if (r->ninputs != 1)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: the op takes two inputs; axis and segmented reductions take one",
                       call);
    return CURED_SUCCESS;
}

CR_API cured_status cured_custom_reduce_axes_async(cured_handle h, cured_custom op, const void *in,
                                                   const cured_layout *in_layout, uint32_t axes, void *out,
                                                   const cured_layout *out_layout, struct CUstream_st *stream)
{
    struct cr_request r;
    struct cr_geometry g;
    memset(&g, 0, sizeof g);
    int whole = 0;
    cured_status st = user_request(h, op, "cured_custom_reduce_axes_async", &r);
    if (st == CURED_SUCCESS)
        st = cr_axes_layout(h, in, in_layout, axes, out, out_layout, &r, &g, &whole);
    if (st != CURED_SUCCESS || g.nout == 0)
        return st;
    if ((uintptr_t)out % r.acc.result_align)
        return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to %zu bytes", out, r.acc.result_align);
    if (whole)
        return cured_custom_reduce_async(h, op, in, NULL, (size_t)g.len, out, stream);
    struct cr_args a = {in, NULL, 0, (CUdeviceptr)(uintptr_t)out, 0, &g, 0.0, NULL};
    struct want w = {op, &r};
    return cr_reduce_run_many(h, &a, stream, variant_target, &w);
}

CR_API cured_status cured_custom_segmented_reduce_async(cured_handle h, cured_custom op, const void *in,
                                                        size_t num_segments, const void *begin, const void *end,
                                                        cured_type offset_type, void *out,
                                                        struct CUstream_st *stream)
{
    struct cr_request r;
    struct cr_geometry g;
    cured_status st = user_request(h, op, "cured_custom_segmented_reduce_async", &r);
    if (st == CURED_SUCCESS)
        st = cr_segments_layout(in, num_segments, begin, end, offset_type, out, &r, &g);
    if (st != CURED_SUCCESS || g.nout == 0 || (st = cr_segment_limit(h, in, out, &g)) != CURED_SUCCESS)
        return st;
    struct cr_args a = {in, NULL, 0, (CUdeviceptr)(uintptr_t)out, 0, &g, 0.0, NULL};
    struct want w = {op, &r};
    return cr_reduce_run_many(h, &a, stream, variant_target, &w);
}
