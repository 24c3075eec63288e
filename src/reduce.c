/* The reduce calls: argument checks, then the common path to a planned launch. */
#include "internal.h"

#include <stdint.h>
#include <string.h>

cured_status cr_check_args(cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                           size_t n, const void *out, cured_type out_type, struct cr_request *r)
{
    if (cr_op(op) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown operator %d", (int)op);
    if ((unsigned)algo >= CURED_ALGO_COUNT)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown algorithm %d", (int)algo);
    if (cr_type(in_type) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown input type %d", (int)in_type);
    if (cr_type(out_type) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown result type %d", (int)out_type);
    cured_status st = cr_request_make(op, algo, in_type, out_type, r);
    if (st != CURED_SUCCESS)
        return st;
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the output pointer is NULL");
    if (in == NULL && n > 0)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the input pointer is NULL and n = %zu", n);
    size_t size = cr_type_size(in_type);
    if (n > SIZE_MAX / size)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "n = %zu elements of %zu bytes overflows size_t", n,
                       size);
    if ((uintptr_t)in % size != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the input %p is not aligned to its %zu-byte elements",
                       in, size);
    if ((uintptr_t)out % r->acc.result_align != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to %zu bytes", out,
                       r->acc.result_align);
    if (n == 0 && (cr_op(op)->flags & CR_OP_NO_EMPTY))
        return cr_fail(CURED_ERROR_EMPTY_INPUT, "this operator has no value for an empty input (n = 0)");
    return CURED_SUCCESS;
}

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
        ;
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

static cured_status reduce(cured_handle h, const char *call, cured_op op, cured_algorithm algo, const void *in,
                           cured_type in_type, size_t n, void *out, cured_type out_type, int host_out,
                           CUstream stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "%s: the handle is NULL", call);
    struct cr_request r;
    cured_status st = cr_check_args(op, algo, in, in_type, n, cr_checked_out(out, host_out), out_type, &r);
    if (st == CURED_SUCCESS && r.ninputs != 1)
        st = cr_fail(CURED_ERROR_INVALID_VALUE, "CURED_OP_%s takes two inputs: use %s()", cr_op(op)->name,
                     host_out ? "cured_dot" : "cured_dot_async");
    if (st == CURED_SUCCESS && host_out)
        st = cr_stats_check_sync(&r, n);
    return st != CURED_SUCCESS ? st : cr_reduce_run(h, &r, in, NULL, n, out, host_out, stream, cr_builtin_target, &r);
}

CR_API cured_status cured_reduce_async(cured_handle h, cured_op op, cured_algorithm algo,
                                       const void *in, cured_type in_type, size_t n, void *out,
                                       cured_type out_type, struct CUstream_st *stream)
{
    return reduce(h, "cured_reduce_async", op, algo, in, in_type, n, out, out_type, 0, stream);
}

CR_API cured_status cured_reduce(cured_handle h, cured_op op, cured_algorithm algo, const void *in,
                                 cured_type in_type, size_t n, void *host_out, cured_type out_type,
                                 struct CUstream_st *stream)
{
    return reduce(h, "cured_reduce", op, algo, in, in_type, n, host_out, out_type, 1, stream);
}

static cured_status dot(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                        void *out, cured_type out_type, int host_out, struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_dot: the handle is NULL");
    struct cr_request r;
    cured_status st =
        cr_check_args(CURED_OP_DOT, CURED_ALGO_AUTO, x, type, n, cr_checked_out(out, host_out), out_type, &r);
    if (st == CURED_SUCCESS)
        st = cr_check_second_input(y, type, n);
    return st != CURED_SUCCESS ? st : cr_reduce_run(h, &r, x, y, n, out, host_out, stream, cr_builtin_target, &r);
}

CR_API cured_status cured_dot_async(cured_handle h, const void *x, const void *y, cured_type type,
                                    size_t n, void *out, cured_type out_type, struct CUstream_st *stream)
{
    return dot(h, x, y, type, n, out, out_type, 0, stream);
}

CR_API cured_status cured_dot(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                              void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    return dot(h, x, y, type, n, host_out, out_type, 1, stream);
}

CR_API cured_status cured_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type,
                                  cured_type out_type)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_prepare: the handle is NULL");
    struct cr_request r;
    /* Valid stand-in pointers: only the enums matter here. */
    cured_status st = cr_check_args(op, algo, (const void *)(uintptr_t)64, in_type, 1, (const void *)(uintptr_t)64,
                                    out_type, &r);
    if (st != CURED_SUCCESS)
        return st;
    CUcontext saved;
    if ((st = cr_enter(h, &saved)) != CURED_SUCCESS)
        return st;
    const struct cr_loaded *l;
    st = cr_loaded_get(h, &r, &l);
    cr_leave(h, saved);
    return st;
}
