/*
 * Axis reductions whose axis 0 is sharded over a communicator's ranks
 * (cured_comm_reduce_axes_async; cured_comm_reduce_axes_stats_async with a
 * ddof): ncclAllReduce of the local results where NCCL computes the operator
 * itself, else the state records of each output (a statistic's: its state)
 * gathered and combined as comm.c does, in chunks that fit the buffers.
 */
#include "call.h"
#include "comm.h"

#include <string.h>

/* NCCL's type and operator for a request whose result is its own accumulator, or 0. */
static int nccl_maps(const struct cr_request *r, int *type, int *op)
{
    const struct cr_type_info *ti = cr_type(r->out);
    const int is_int = ti->cls == CR_SIGNED || ti->cls == CR_UNSIGNED;
    if (r->acc.layout != CR_LAYOUT_VALUE || r->acc.scalar != r->out || ti->size < 4)
        return 0;
    switch (r->op) {
    case CURED_OP_SUM: *op = CR_NCCL_SUM; break;
    case CURED_OP_PRODUCT: *op = CR_NCCL_PROD; break;
    case CURED_OP_MIN: if (!is_int) return 0; *op = CR_NCCL_MIN; break; /* NCCL's float min/max: no NaN rule */
    case CURED_OP_MAX: if (!is_int) return 0; *op = CR_NCCL_MAX; break;
    default: return 0;
    }
    switch (r->out) {
    case CURED_TYPE_INT32: *type = CR_NCCL_INT32; break;
    case CURED_TYPE_UINT32: *type = CR_NCCL_UINT32; break;
    case CURED_TYPE_INT64: *type = CR_NCCL_INT64; break;
    case CURED_TYPE_UINT64: *type = CR_NCCL_UINT64; break;
    case CURED_TYPE_FLOAT32: *type = CR_NCCL_FLOAT32; break;
    case CURED_TYPE_FLOAT64: *type = CR_NCCL_FLOAT64; break;
    default: return 0;
    }
    return 1;
}

/* One chunk: the slab's states into this rank's records, then gather and
 * combine. The state kernel launches with the plain kernel's grid (comm.c's
 * target), as cured_reduce_axes_async() would plan it: whole-array grids and
 * column splits follow the plain kernel's occupancy. */
static cured_status chunk(cured_comm cc, cured_op op, const void *in, cured_type in_type, const cured_layout *lay,
                          uint32_t axes, cured_type out_type, const struct cr_request *plain, uint64_t nout,
                          CUdeviceptr out, CUstream s)
{
    struct cr_request sr;
    struct cr_geometry g;
    memset(&g, 0, sizeof g);
    int whole = 0;
    struct cr_request probe = *plain;
    cr_request_state(&probe);
    CUdeviceptr mine = cr_comm_mine(cc, &probe, nout);
    cured_status st = cr_axes_request(cc->h, op, in, in_type, lay, axes, (const void *)(uintptr_t)mine, out_type,
                                      NULL, 1, &sr, &g, &whole);
    if (st != CURED_SUCCESS)
        return st;
    sr.ddof = plain->ddof;
    /* The plain request of the same plan: the state kernel launches with its grid (and, for
     * columns, its splits, which follow its occupancy), so one rank gives the local call's bits. */
    struct cr_request p = sr;
    p.state = 0;
    p.acc.result_size = plain->acc.result_size;
    p.acc.result_align = plain->acc.result_align;
    struct cr_comm_state_target t = {&sr, &p, {0}};
    if (whole) {
        st = cr_reduce_run(cc->h, &sr, in, NULL, (size_t)g.len, (void *)(uintptr_t)mine, 0, s, cr_comm_state_target,
                           &t);
    } else {
        struct cr_args a = {in, NULL, 0, mine, 0, &g, sr.ddof, NULL};
        st = cr_reduce_run_many(cc->h, &a, s, cr_comm_state_target, &t);
    }
    return st != CURED_SUCCESS ? st : cr_comm_finish(cc, plain, nout, out, s, NULL, NULL);
}

/* The slab and the dense results, checked before the first chunk is launched. */
static cured_status check_ranges(cured_comm cc, const void *in, const struct cr_geometry *g, const void *out)
{
    CUcontext saved;
    cured_status st = cr_enter(cc->h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    if (in != NULL && g->in_bytes > 0)
        st = cr_check_device_range(cc->h, in, g->in_bytes, "input");
    if (st == CURED_SUCCESS)
        st = cr_check_device_range(cc->h, out, g->out_bytes, "output");
    cr_leave(cc->h, saved);
    return st;
}

/* A planned axis call across the ranks (cr_comm_call). */
cured_status cr_comm_axes(const struct cr_call *c, struct cr_planned *p)
{
    cured_comm cc = c->comm;
    const cured_op op = c->op;
    const void *in = c->in;
    const cured_type in_type = c->in_type, out_type = c->out_type;
    const cured_layout *lay = c->lay;
    const uint32_t axes = c->axes;
    void *out = c->out;
    const CUstream stream = c->stream;
    const struct cr_request r = p->r;
    const struct cr_geometry g = p->g;
    cured_status st = check_ranges(cc, in, &g, out);
    if (st != CURED_SUCCESS)
        return st;
    int ntype, nop;
    if (!(c->flags & CURED_COMM_BITWISE) && g.nout > cc->max_outputs && nccl_maps(&r, &ntype, &nop)) {
        struct cr_call local = *c; /* the same plan on this rank, then NCCL's sum of the results */
        local.dest = CR_DEST_LOCAL;
        if ((st = cr_call_local(&local, p)) != CURED_SUCCESS)
            return st;
        int res = cc->n->AllReduce(out, out, (size_t)g.nout, ntype, nop, cc->nccl, stream);
        return res == CR_NCCL_SUCCESS ? CURED_SUCCESS : cr_fail_nccl(cc->n, res, "ncclAllReduce of the results");
    }
    /* Chunks of whole rows of the outermost kept axis: its inner outputs must fit. */
    int k0 = -1;
    uint64_t inner = 1;
    for (int k = 0; k < lay->rank; k++)
        if (!((axes >> k) & 1u)) {
            if (k0 < 0)
                k0 = k;
            else
                inner *= (uint64_t)lay->extent[k];
        }
    if ((st = cr_comm_prepare(cc, &r)) != CURED_SUCCESS)
        return st;
    const uint64_t room = cr_comm_room(cc, &r);
    if (room == 0)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "one %s record outgrows the communicator's %zu outputs (max_outputs)",
                       cr_op(r.op)->name, cc->max_outputs);
    if (g.nout <= room || k0 < 0)
        return chunk(cc, op, in, in_type, lay, axes, out_type, &r, g.nout, (CUdeviceptr)(uintptr_t)out, stream);
    if (inner > room)
        return cr_fail(CURED_ERROR_INVALID_VALUE,
                       "%llu outputs per index of the outermost kept axis exceed the communicator's room for %llu "
                       "(max_outputs %zu)", (unsigned long long)inner, (unsigned long long)room, cc->max_outputs);
    const int64_t rows = (int64_t)(room / inner), extent = lay->extent[k0];
    for (int64_t i = 0; i < extent && st == CURED_SUCCESS; i += rows) {
        cured_layout part = *lay;
        part.extent[k0] = extent - i < rows ? extent - i : rows;
        const char *at = (const char *)in + (size_t)(i * lay->stride[k0]) * cr_type_size(in_type);
        st = chunk(cc, op, in ? at : in, in_type, &part, axes, out_type, &r, (uint64_t)part.extent[k0] * inner,
                   (CUdeviceptr)(uintptr_t)out + (CUdeviceptr)((uint64_t)i * inner * r.acc.result_size), stream);
    }
    return st;
}
