/*
 * The runner's path from a planned request to its launches: the context, the
 * range and overlap checks on the real pointers, the stream's workspace
 * slot, the kernels (target), the family's launch plan, and a synchronous
 * call's result read back.
 */
#include "internal.h"

#include <stdint.h>
#include <string.h>

cured_status cr_reduce_run(cured_handle h, const struct cr_request *r, const void *in, const void *in2, size_t n,
                           void *out, int host_out, CUstream stream, cr_target_fn target, const void *arg)
{
    const size_t in_bytes = n * cr_type_size(r->in); /* the callers checked it for overflow */
    CUcontext saved;
    cured_status st = cr_enter(h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    struct cr_args a = {in, in2, n, (CUdeviceptr)(uintptr_t)out, 0, NULL, r->ddof, NULL};
    struct cr_target t;
    struct cr_plan plan = {0};
    if (n > 0 && (st = cr_check_device_range(h, in, in_bytes, "input")) != CURED_SUCCESS)
        goto done;
    if (n > 0 && in2 && (st = cr_check_device_range(h, in2, in_bytes, "second input (y)")) != CURED_SUCCESS)
        goto done;
    if (!host_out && (st = cr_check_device_range(h, out, r->acc.result_size, "output")) != CURED_SUCCESS)
        goto done;
    /* The kernels write the result while other blocks still read: no input may hold it (checked
     * after the ranges, so that an input running past its allocation is OUT_OF_RANGE). */
    if (!host_out) {
        const void *hit = cr_ranges_overlap(out, r->acc.result_size, in, in_bytes) ? in
                          : in2 != NULL && cr_ranges_overlap(out, r->acc.result_size, in2, in_bytes) ? in2
                                                                                                   : NULL;
        if (hit != NULL) {
            st = cr_fail(CURED_ERROR_OVERLAP, "the output [%p, %p + %zu) overlaps the %s [%p, %p + %zu)", out, out,
                         r->acc.result_size, hit == in ? "input" : "second input (y)", hit, hit, in_bytes);
            goto done;
        }
    }
    if ((st = cr_slot_for(h, stream, &a.ws)) != CURED_SUCCESS || (st = target(h, arg, &t)) != CURED_SUCCESS)
        goto done;
    if (host_out)
        a.out = a.ws + CR_WS_RESULT;
    t.fam->plan(t.req, t.unit, t.k, &h->facts, &a, &plan);
    if ((st = cr_launch_plan(h, t.k, &plan, stream)) != CURED_SUCCESS || !host_out)
        goto done;
    unsigned char result[CR_MAX_RESULT];
    CUresult res = h->d->MemcpyDtoHAsync(result, a.out, r->acc.result_size, stream);
    if (res == CUDA_SUCCESS)
        res = h->d->StreamSynchronize(stream);
    if (res != CUDA_SUCCESS)
        st = cr_fail_cuda(res, "reading the result back");
    else if (r->user == NULL && (st = cr_op_result_status(r->op, r->out, result)) != CURED_SUCCESS)
        ; /* the operator's status from its result (all NaN, too few that are not NaN): nothing written */
    else
        memcpy(out, result, r->acc.result_size); /* written only on success */
done:
    cr_leave(h, saved);
    return st;
}

/* A many-result request: target gives its family, unit and kernels. */
cured_status cr_reduce_run_many(cured_handle h, struct cr_args *a, CUstream stream,
                                cr_target_fn target, const void *arg)
{
    CUcontext saved;
    cured_status st = cr_enter(h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    struct cr_target t;
    struct cr_plan plan = {0};
    const struct cr_geometry *g = a->geo;
    if ((a->in && (st = cr_check_device_range(h, a->in, g->in_bytes, "input")) != CURED_SUCCESS) ||
        (st = cr_check_device_range(h, (const void *)(uintptr_t)a->out, g->out_bytes, "output")) != CURED_SUCCESS ||
        (g->begin && (st = cr_check_device_range(h, g->begin, g->offset_bytes, "begin offsets")) != CURED_SUCCESS) ||
        (g->end && (st = cr_check_device_range(h, g->end, g->offset_bytes, "end offsets")) != CURED_SUCCESS) ||
        (g->overlap != NULL && (st = cr_fail(CURED_ERROR_OVERLAP, "the output [%p, %p + %zu) overlaps the %s",
                                             (void *)(uintptr_t)a->out, (void *)(uintptr_t)a->out, g->out_bytes,
                                             g->overlap)) != CURED_SUCCESS) ||
        (st = cr_slot_for(h, stream, &a->ws)) != CURED_SUCCESS || (st = target(h, arg, &t)) != CURED_SUCCESS)
        goto done;
    t.fam->plan(t.req, t.unit, t.k, &h->facts, a, &plan);
    st = cr_launch_plan(h, t.k, &plan, stream);
done:
    cr_leave(h, saved);
    return st;
}

cured_status cr_builtin_target(cured_handle h, const void *arg, struct cr_target *t)
{
    const struct cr_loaded *l;
    cured_status st = cr_loaded_get(h, arg, &l);
    if (st == CURED_SUCCESS) {
        t->fam = l->fam;
        t->req = &l->req;
        t->unit = &l->unit;
        t->k = &l->k;
    }
    return st;
}
