/*
 * Reductions across the ranks of an NCCL communicator (cured.h's cured_comm):
 * each rank reduces its shard to state records (state.c), one in-place
 * ncclAllGather moves them, and the combine kernel (family_comm.c) writes the
 * result from them on every rank, in rank order.
 */
#include "call.h"
#include "comm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

CR_API cured_status cured_comm_create(cured_handle h, struct ncclComm *nccl, size_t max_outputs, cured_comm *out)
{
    if (out != NULL)
        *out = NULL;
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_comm_create: the handle is NULL");
    if (nccl == NULL || out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_comm_create: %s is NULL", nccl == NULL ? "nccl" : "out");
    const struct cr_nccl *n;
    cured_status st = cr_nccl(&n);
    if (st != CURED_SUCCESS)
        return st;
    int rank, nranks, dev, r;
    if ((r = n->CommCount(nccl, &nranks)) != CR_NCCL_SUCCESS)
        return cr_fail_nccl(n, r, "ncclCommCount");
    if ((r = n->CommUserRank(nccl, &rank)) != CR_NCCL_SUCCESS)
        return cr_fail_nccl(n, r, "ncclCommUserRank");
    if ((r = n->CommCuDevice(nccl, &dev)) != CR_NCCL_SUCCESS)
        return cr_fail_nccl(n, r, "ncclCommCuDevice");
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return cr_fail(CURED_ERROR_NCCL, "the communicator reports rank %d of %d", rank, nranks);
    if ((CUdevice)dev != h->dev)
        return cr_fail(CURED_ERROR_INVALID_DEVICE, "the communicator's device is %d, the handle's is %d", dev,
                       (int)h->dev);
    if (max_outputs == 0)
        max_outputs = CR_COMM_DEFAULT_OUTPUTS;
    if (max_outputs > (SIZE_MAX - CR_MAX_RESULT) / CR_COMM_SLOT_MAX / (size_t)nranks)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "max_outputs %zu over %d ranks overflows", max_outputs, nranks);
    cured_comm cc = calloc(1, sizeof *cc);
    if (cc == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "cured_comm_create: no memory");
    *cc = (struct cured_comm_st){h, nccl, n, rank, nranks, max_outputs, 0, 0, PTHREAD_MUTEX_INITIALIZER, NULL, 0};
    const size_t bytes = (size_t)nranks * max_outputs * CR_COMM_SLOT_MAX;
    CUcontext saved;
    if ((st = cr_enter(h, &saved)) != CURED_SUCCESS) {
        free(cc);
        return st;
    }
    CUresult res = h->d->MemAlloc(&cc->records, bytes + CR_MAX_RESULT);
    cr_leave(h, saved);
    if (res != CUDA_SUCCESS) {
        free(cc);
        return res == CUDA_ERROR_OUT_OF_MEMORY
                   ? cr_fail(CURED_ERROR_OUT_OF_MEMORY, "cured_comm_create: %zu bytes of device memory", bytes)
                   : cr_fail_cuda(res, "cuMemAlloc (communicator buffers)");
    }
    cc->result = cc->records + bytes;
    *out = cc;
    return CURED_SUCCESS;
}

CR_API cured_status cured_comm_destroy(cured_comm cc)
{
    if (cc == NULL)
        return CURED_SUCCESS;
    CUcontext saved;
    cured_status st = cr_enter(cc->h, &saved);
    cr_comm_users_free(cc, st == CURED_SUCCESS); /* modules only with the context current */
    if (st == CURED_SUCCESS) {
        CUresult r = cc->h->d->MemFree(cc->records);
        cr_leave(cc->h, saved);
        if (r != CUDA_SUCCESS)
            st = cr_fail_cuda(r, "cuMemFree (communicator buffers)");
    }
    pthread_mutex_destroy(&cc->lock);
    free(cc);
    return st;
}

CR_API cured_status cured_comm_rank(cured_comm cc, int *rank, int *nranks)
{
    if (cc == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_comm_rank: the communicator is NULL");
    if (rank)
        *rank = cc->rank;
    if (nranks)
        *nranks = cc->nranks;
    return CURED_SUCCESS;
}

static void combine_request(const struct cr_request *r, struct cr_request *c)
{
    *c = *r;
    c->state = 0;
    c->shape = CR_SHAPE_COMBINE;
    c->group = c->vec = 0;
}

cured_status cr_comm_prepare(cured_comm cc, const struct cr_request *r)
{
    struct cr_request c;
    combine_request(r, &c);
    CUcontext saved;
    cured_status st = cr_enter(cc->h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    const struct cr_loaded *l;
    st = cr_loaded_get(cc->h, &c, &l);
    cr_leave(cc->h, saved);
    return st;
}

cured_status cr_comm_finish(cured_comm cc, const struct cr_request *r, uint64_t nout, CUdeviceptr out, CUstream s,
                            cr_target_fn target, const void *arg)
{
    struct cr_request sr = *r, c;
    cr_request_state(&sr);
    combine_request(r, &c);
    const uint64_t slot = cr_state_slot(&sr), count = nout * slot;
    CUcontext saved;
    cured_status st = cr_enter(cc->h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    struct cr_target t;
    struct cr_plan plan = {0};
    int res = cc->n->AllGather((const void *)(uintptr_t)cr_comm_mine(cc, &sr, nout), (void *)(uintptr_t)cc->records,
                               (size_t)count, CR_NCCL_UINT8, cc->nccl, s);
    if (res != CR_NCCL_SUCCESS) {
        st = cr_fail_nccl(cc->n, res, "ncclAllGather of the states");
    } else if ((st = target ? target(cc->h, arg, &t) : cr_builtin_target(cc->h, &c, &t)) == CURED_SUCCESS) {
        struct cr_gather g = {cc->records, count, nout, slot, cc->nranks};
        struct cr_args a = {NULL, NULL, 0, out, 0, NULL, r->ddof, &g};
        t.fam->plan(t.req, t.unit, t.k, &cc->h->facts, &a, &plan);
        st = cr_launch_plan(cc->h, t.k, &plan, s);
    }
    cr_leave(cc->h, saved);
    return st;
}

cured_status cr_comm_check_memory(cured_comm cc, const struct cr_request *r, const void *in, const void *in2,
                                  size_t n, const void *out)
{
    CUcontext saved;
    cured_status st = cr_enter(cc->h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    if (n > 0)
        st = cr_check_device_range(cc->h, in, n * cr_type_size(r->in), "input");
    if (st == CURED_SUCCESS && n > 0 && in2 != NULL)
        st = cr_check_device_range(cc->h, in2, n * cr_type_size(r->in), "second input (y)");
    if (st == CURED_SUCCESS && out != NULL)
        st = cr_check_device_range(cc->h, out, r->acc.result_size, "output");
    cr_leave(cc->h, saved);
    return st;
}

cured_status cr_comm_state_target(cured_handle h, const void *arg, struct cr_target *t)
{
    struct cr_comm_state_target *s = (struct cr_comm_state_target *)(uintptr_t)arg;
    const struct cr_loaded *ls, *lp;
    cured_status st = cr_loaded_get(h, s->state, &ls);
    if (st == CURED_SUCCESS)
        st = cr_loaded_get(h, s->plain, &lp);
    if (st != CURED_SUCCESS)
        return st;
    s->k = ls->k;
    s->k.blocks_per_sm = lp->k.blocks_per_sm;
    t->fam = ls->fam;
    t->req = &ls->req;
    t->unit = &ls->unit;
    t->k = &s->k;
    return CURED_SUCCESS;
}

cured_status cr_comm_run(cured_comm cc, const struct cr_request *r, const void *in, const void *in2, size_t n,
                         CUdeviceptr out, CUstream s)
{
    struct cr_request sr = *r;
    cr_request_state(&sr);
    cured_status st = cr_comm_prepare(cc, r);
    if (st == CURED_SUCCESS)
        st = cr_reduce_run(cc->h, &sr, in, in2, n, (void *)(uintptr_t)cr_comm_mine(cc, &sr, 1), 0, s,
                           cr_comm_state_target, &(struct cr_comm_state_target){&sr, r, {0}});
    return st != CURED_SUCCESS ? st : cr_comm_finish(cc, r, 1, out, s, NULL, NULL);
}

cured_status cr_comm_sync(cured_comm cc, const struct cr_request *r, const void *in, const void *in2, size_t n,
                          void *host_out, CUstream s)
{
    struct cr_request sr = *r;
    cr_request_state(&sr);
    cured_status st = cr_comm_check_memory(cc, r, in, in2, n, NULL);
    if (st == CURED_SUCCESS)
        st = cr_comm_run(cc, r, in, in2, n, cc->result, s);
    return st != CURED_SUCCESS ? st : cr_comm_read_back(cc, r, cr_state_slot(&sr), host_out, s);
}

cured_status cr_comm_call(const struct cr_call *c, struct cr_planned *p)
{
    if (c->view != CR_VIEW_ARRAY)
        return cr_comm_axes(c, p);
    if (c->is_user)
        return cr_comm_custom(c, &p->r);
    cured_comm cc = c->comm;
    const void *in2 = p->r.ninputs == 2 ? c->in2 : NULL;
    if (cr_comm_room(cc, &p->r) == 0)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: one %s record outgrows the communicator's %zu outputs (max_outputs)",
                       c->name, cr_op(p->r.op)->name, cc->max_outputs);
    if (c->host_out)
        return cr_comm_sync(cc, &p->r, c->in, in2, c->n, c->out, c->stream);
    cured_status st = cr_comm_check_memory(cc, &p->r, c->in, in2, c->n, c->out);
    return st != CURED_SUCCESS ? st : cr_comm_run(cc, &p->r, c->in, in2, c->n, (CUdeviceptr)(uintptr_t)c->out, c->stream);
}

/* The synchronous call's statuses, from the result and the gathered counts (as cured_reduce's). */
static cured_status sync_status(const struct cr_request *r, uint64_t total, const void *result)
{
    const struct cr_op_info *o = cr_op(r->op);
    if (total == 0 && (o->flags & CR_OP_NO_EMPTY))
        return cr_fail(CURED_ERROR_EMPTY_INPUT, "every rank's shard is empty, and this operator has no value for that");
    const int mean = cr_op_base(r->op) == CURED_OP_MEAN;
    if ((o->flags & (CR_OP_STATS | CR_OP_DOF)) && ((mean && total == 0) ||
                                     ((o->flags & CR_OP_DOF) && !mean && (double)total <= r->ddof)))
        return cr_fail(CURED_ERROR_TOO_FEW_ELEMENTS, "%llu elements over all ranks are too few for CURED_OP_%s",
                       (unsigned long long)total, o->name);
    return cr_op_result_status(r->op, r->out, result);
}

cured_status cr_comm_read_back(cured_comm cc, const struct cr_request *r, size_t slot, void *host_out, CUstream s)
{
    cured_status st;
    unsigned char result[CR_MAX_RESULT], *records = malloc((size_t)cc->nranks * slot);
    if (records == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "no memory for %d records", cc->nranks);
    CUcontext saved;
    if ((st = cr_enter(cc->h, &saved)) == CURED_SUCCESS) {
        const struct cr_driver *d = cc->h->d;
        CUresult res = d->MemcpyDtoHAsync(result, cc->result, r->acc.result_size, s);
        if (res == CUDA_SUCCESS)
            res = d->MemcpyDtoHAsync(records, cc->records, (size_t)cc->nranks * slot, s);
        if (res == CUDA_SUCCESS)
            res = d->StreamSynchronize(s);
        cr_leave(cc->h, saved);
        if (res != CUDA_SUCCESS)
            st = cr_fail_cuda(res, "reading the result back");
    }
    uint64_t total = 0;
    for (int k = 0; st == CURED_SUCCESS && k < cc->nranks; k++) {
        uint64_t nk;
        memcpy(&nk, records + (size_t)k * slot, sizeof nk);
        total += nk;
    }
    free(records);
    if (st == CURED_SUCCESS && (r->user != NULL || (st = sync_status(r, total, result)) == CURED_SUCCESS))
        memcpy(host_out, result, r->acc.result_size);
    return st;
}
