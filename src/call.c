/*
 * The planner and the runner of every public reduction: cr_call_plan checks
 * a struct cr_call once, on its real pointers, and turns it into a request
 * and a geometry (axes.c and segments.c read the views); cr_call runs the
 * plan here, or across a communicator's ranks (comm.c).
 */
#include "call.h"

#include <stdint.h>
#include <string.h>

cured_status cr_check_op(cured_op op, cured_algorithm algo, cured_type in_type, cured_type out_type,
                         struct cr_request *r)
{
    if (cr_op(op) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown operator %d", (int)op);
    if ((unsigned)algo >= CURED_ALGO_COUNT)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown algorithm %d", (int)algo);
    if (cr_type(in_type) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown input type %d", (int)in_type);
    if (cr_type(out_type) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown result type %d", (int)out_type);
    return cr_request_make(op, algo, in_type, out_type, r);
}

cured_status cr_check_array(const struct cr_request *r, const void *in, size_t n, const void *out, int host_out,
                            int allow_empty)
{
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the output pointer is NULL");
    if (in == NULL && n > 0)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the input pointer is NULL and n = %zu", n);
    const size_t size = cr_type_size(r->in);
    if (n > SIZE_MAX / size)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "n = %zu elements of %zu bytes overflows size_t", n, size);
    if ((uintptr_t)in % size != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the input %p is not aligned to its %zu-byte elements", in, size);
    /* a synchronous call's host buffer is filled by memcpy: any alignment */
    if (!host_out && (uintptr_t)out % r->acc.result_align != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to %zu bytes", out,
                       r->acc.result_align);
    if (n == 0 && !allow_empty && r->user == NULL && (cr_op(r->op)->flags & CR_OP_NO_EMPTY))
        return cr_fail(CURED_ERROR_EMPTY_INPUT, "this operator has no value for an empty input (n = 0)");
    return CURED_SUCCESS;
}

cured_status cr_check_args(cured_op op, cured_algorithm algo, const void *in, cured_type in_type, size_t n,
                           const void *out, cured_type out_type, struct cr_request *r)
{
    cured_status st = cr_check_op(op, algo, in_type, out_type, r);
    return st != CURED_SUCCESS ? st : cr_check_array(r, in, n, out, 0, 0);
}

/* The operator of a call: a user op's request, or a built-in row checked against the types, the call's
 * ddof and its number of inputs. */
static cured_status plan_operator(const struct cr_call *c, struct cr_request *r)
{
    cured_status st;
    if (c->is_user) {
        if (c->user == NULL)
            return cr_fail(CURED_ERROR_NULL_POINTER, "%s: the user-defined op is NULL", c->name);
        *r = *cr_custom_request(c->user);
    } else {
        if (c->takes_ddof) { /* another operator is INVALID_VALUE whatever its types */
            static const char *const other[] = {": use cured_reduce_async()", ": use cured_reduce()",
                                                 ": use cured_reduce_axes_async()",
                                                 ": use cured_segmented_reduce_async()"};
            const char *hint = c->dest == CR_DEST_COMM     ? NULL
                               : c->view == CR_VIEW_ARRAY  ? other[c->host_out ? 1 : 0]
                               : c->view == CR_VIEW_AXES   ? other[2]
                                                           : other[3];
            if ((st = cr_stats_check_ddof(c->name, c->op, c->ddof, hint)) != CURED_SUCCESS)
                return st;
        }
        if ((st = cr_check_op(c->op, c->algo, c->in_type, c->out_type, r)) != CURED_SUCCESS)
            return st;
        r->ddof = c->takes_ddof ? c->ddof : 0.0;
    }
    if (c->state) /* results are state records (state.c): the view's output bytes are theirs */
        cr_request_state(r);
    const int want = c->view != CR_VIEW_ARRAY ? 1 : c->is_user ? r->ninputs : c->two_inputs ? 2 : 1;
    if (r->ninputs == want)
        return CURED_SUCCESS;
    if (c->view != CR_VIEW_ARRAY)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: %s takes two inputs; axis and segmented reductions take one",
                       c->name, c->is_user ? "the op" : cr_op(c->op)->name);
    return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: CURED_OP_%s takes two inputs: use %s%s%s()", c->name,
                   cr_op(c->op)->name, c->dest == CR_DEST_COMM ? "cured_comm_" : "cured_",
                   (cr_op(c->op)->flags & CR_OP_EXACT) ? "exact_dot" : "dot", c->host_out ? "" : "_async");
}

/* The view of a call: its checks and geometry. */
static cured_status plan_view(const struct cr_call *c, struct cr_planned *p)
{
    struct cr_request *r = &p->r;
    cured_status st;
    switch (c->view) {
    case CR_VIEW_ARRAY: {
        const int comm = c->dest == CR_DEST_COMM;
        if ((st = cr_check_array(r, c->in, c->n, c->out, c->host_out, comm)) != CURED_SUCCESS)
            return st;
        if (r->ninputs == 2 && (st = cr_check_second_input(c->in2, r->in, c->n)) != CURED_SUCCESS)
            return st;
        /* a synchronous call reports n <= ddof; across ranks, from the global count (cr_comm_read_back) */
        if (c->host_out && !comm && (st = cr_stats_check_sync(r, c->n)) != CURED_SUCCESS)
            return st;
        p->whole = 1;
        p->n = c->n;
        return CURED_SUCCESS;
    }
    case CR_VIEW_UNIFORM:
    case CR_VIEW_AXES: {
        cured_layout uniform;
        const cured_layout *lay = c->lay;
        uint32_t axes = c->axes;
        if (c->view == CR_VIEW_UNIFORM) {
            if ((st = cr_uniform_layout(c->num_segments, c->segment_size, &uniform)) != CURED_SUCCESS)
                return st;
            lay = &uniform;
            axes = 2u;
        }
        if (c->dest == CR_DEST_COMM && lay != NULL && (lay->rank < 1 || !(axes & 1u)))
            return cr_fail(CURED_ERROR_INVALID_VALUE,
                           "the sharded axis 0 must exist and be reduced (rank %d, axes 0x%x)", lay->rank, axes);
        if ((st = cr_axes_layout(c->h, c->in, lay, axes, c->out, c->out_lay, r, &p->g, &p->whole)) != CURED_SUCCESS)
            return st;
        if (p->g.nout == 0) {
            p->nothing = 1;
            return CURED_SUCCESS;
        }
        if ((uintptr_t)c->out % r->acc.result_align)
            return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to %zu bytes", c->out,
                           r->acc.result_align);
        p->n = p->whole ? (size_t)p->g.len : 0;
        return CURED_SUCCESS;
    }
    case CR_VIEW_SEGMENTS:
        if ((st = cr_segments_layout(c->in, c->num_segments, c->begin, c->end, c->offset_type, c->out, r, &p->g)) !=
            CURED_SUCCESS)
            return st;
        p->nothing = p->g.nout == 0;
        return CURED_SUCCESS;
    }
    return cr_fail(CURED_ERROR_INTERNAL, "%s: unknown view %d", c->name, (int)c->view);
}

cured_status cr_call_check(const struct cr_call *c, struct cr_planned *p)
{
    memset(p, 0, sizeof *p);
    if (c->dest == CR_DEST_COMM && (c->flags & ~(c->view == CR_VIEW_AXES ? (unsigned)CURED_COMM_BITWISE : 0u)))
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: unknown flags 0x%x", c->name, c->flags);
    cured_status st = plan_operator(c, &p->r);
    if (st == CURED_SUCCESS)
        st = plan_view(c, p);
    if (st == CURED_SUCCESS && !c->is_user && (cr_op(p->r.op)->flags & CR_OP_EXACT)) {
        /* the exact family reads every view from the geometry: one compiled request an operator and types */
        p->r.shape = CR_SHAPE_WHOLE;
        p->r.group = p->r.vec = 0;
        p->r.offsets = 0;
    }
    return st;
}

cured_status cr_call_plan(const struct cr_call *c, struct cr_planned *p)
{
    if (c->dest == CR_DEST_COMM ? c->comm == NULL : c->h == NULL) {
        memset(p, 0, sizeof *p);
        return cr_fail(CURED_ERROR_NULL_HANDLE, "%s: the %s is NULL", c->name,
                       c->dest == CR_DEST_COMM ? "communicator" : "handle");
    }
    return cr_call_check(c, p);
}

cured_status cr_call_local(const struct cr_call *c, struct cr_planned *p)
{
    cr_target_fn target = cr_builtin_target;
    const void *arg = &p->r;
    struct cr_user_want want = {c->user, &p->r};
    if (c->is_user) {
        target = p->whole ? cr_custom_target : cr_custom_variant_target;
        arg = p->whole ? (const void *)c->user : (const void *)&want;
    }
    if (p->whole)
        return cr_reduce_run(c->h, &p->r, c->in, p->r.ninputs == 2 ? c->in2 : NULL, p->n, c->out, c->host_out,
                             c->stream, target, arg);
    cured_status st;
    if (c->view == CR_VIEW_SEGMENTS && (st = cr_segment_limit(c->h, c->in, c->out, &p->g)) != CURED_SUCCESS)
        return st;
    struct cr_args a = {c->in, NULL, 0, (CUdeviceptr)(uintptr_t)c->out, 0, &p->g, p->r.ddof, NULL};
    return cr_reduce_run_many(c->h, &a, c->stream, target, arg);
}

cured_status cr_call(const struct cr_call *c)
{
    struct cr_planned p;
    cured_status st = cr_call_plan(c, &p);
    if (st != CURED_SUCCESS || p.nothing)
        return st;
    return c->dest == CR_DEST_COMM ? cr_comm_call(c, &p) : cr_call_local(c, &p);
}

cured_status cr_call_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type,
                             cured_type out_type)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_prepare: the handle is NULL");
    struct cr_request r;
    cured_status st = cr_check_op(op, algo, in_type, out_type, &r);
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
