/*
 * From a request to launches: which family serves it, the request's key,
 * and the plan helpers the families share.
 */
#include "internal.h"

#include <stdint.h>
#include <string.h>

static const char *const algo_names[CURED_ALGO_COUNT] = {
    "auto", "two_pass_shared", "two_pass_shuffle", "two_pass_cg", "single_pass_ticket",
    "single_pass_atomic", "listing_12_4"};

const char *cr_algo_name(cured_algorithm a)
{
    return (unsigned)a < CURED_ALGO_COUNT ? algo_names[a] : "unknown";
}

const struct cr_family *const cr_families[] = {
    &cr_family_comm,
    &cr_family_exact,
    &cr_family_segmented,
    &cr_family_auto,
    &cr_family_auto2,
    &cr_family_stats,
    &cr_family_two_pass_shared,
    &cr_family_two_pass_shuffle,
    &cr_family_two_pass_cg,
    &cr_family_single_pass_ticket,
    &cr_family_single_pass_atomic,
    &cr_family_listing_12_4,
};
const size_t cr_nfamilies = sizeof cr_families / sizeof *cr_families;

const struct cr_family *cr_family_for(const struct cr_request *r)
{
    for (size_t i = 0; i < cr_nfamilies; i++)
        if (cr_families[i]->offers(r))
            return cr_families[i];
    return NULL;
}

cured_status cr_request_make(cured_op op, cured_algorithm algo, cured_type in, cured_type out,
                             struct cr_request *r)
{
    memset(r, 0, sizeof *r);
    op = cr_op_for_type(op, in); /* integers hold no NaN: NANSUM of them is SUM, and so on */
    const struct cr_op_info *o = cr_op(op);
    if (!cr_op_accumulator(op, in, out, &r->acc))
        return cr_fail(CURED_ERROR_TYPE_MISMATCH, "%s of %s with a %s result is not offered (see cured_op)",
                       o->name, cr_type_name(in), cr_type_name(out));
    r->op = op;
    r->algo = algo;
    r->in = in;
    r->out = out;
    r->ninputs = o->flags & CR_OP_TWO_INPUTS ? 2 : 1;
    if (cr_family_for(r) == NULL)
        return cr_fail(CURED_ERROR_NOT_SUPPORTED,
                       "algorithm %s offers only int32 sums (Table 12-1); use CURED_ALGO_AUTO for %s %s->%s",
                       cr_algo_name(algo), o->name, cr_type_name(in), cr_type_name(out));
    return CURED_SUCCESS;
}

uint64_t cr_request_code(const struct cr_request *r)
{
    return (uint64_t)r->algo | (uint64_t)r->op << 8 | (uint64_t)r->in << 16 | (uint64_t)r->out << 24 |
           (uint64_t)r->ninputs << 32 | (uint64_t)r->shape << 36 | (uint64_t)r->group << 40 |
           (uint64_t)r->vec << 50 | (uint64_t)(r->shape == CR_SHAPE_SEGMENTS ? r->offsets : 0) << 56 | (uint64_t)(r->state != 0) << 62;
}

unsigned cr_div_up(size_t a, size_t b)
{
    size_t q = (a + b - 1) / b;
    return q == 0 ? 1 : (unsigned)(q < 0x7fffffffu ? q : 0x7fffffffu); /* CUDA's gridDim.x limit */
}

unsigned cr_resident(const struct cr_kernel *k, const struct cr_device_facts *dev)
{
    size_t resident = (size_t)k->blocks_per_sm * (size_t)dev->sms;
    return (unsigned)(resident < dev->partials_capacity ? resident : dev->partials_capacity);
}

size_t cr_partials_area(const struct cr_device_facts *dev)
{
    return dev->partials_capacity * CR_MAX_ACC + CR_WS_COLS_BYTES;
}

struct cr_launch *cr_plan_launch(struct cr_plan *p, int fn, unsigned grid, unsigned block)
{
    struct cr_launch *l = &p->l[p->nlaunch++];
    l->fn = fn;
    l->grid = grid;
    l->grid_y = 1;
    l->block = block;
    l->nparams = 0;
    return l;
}

void cr_plan_param(struct cr_plan *p, struct cr_launch *l, uint64_t value)
{
    if (l->nparams >= CR_MAX_PARAMS || p->nvalues >= (int)(sizeof p->values / sizeof *p->values)) {
        p->overflow = 1;
        return;
    }
    p->values[p->nvalues] = value;
    l->params[l->nparams++] = &p->values[p->nvalues++];
}

void cr_plan_gather(struct cr_plan *p, struct cr_launch *l, const struct cr_args *a)
{
    const struct cr_gather *g = a->gather;
    cr_plan_param(p, l, g->records);
    cr_plan_param(p, l, g->record_bytes);
    cr_plan_param(p, l, (uint64_t)(unsigned)g->nranks);
    cr_plan_param(p, l, g->nout);
    cr_plan_param(p, l, g->slot);
    cr_plan_param(p, l, a->out);
}

void cr_plan_struct(struct cr_plan *p, struct cr_launch *l, const void *value, size_t size)
{
    if (l->nparams >= CR_MAX_PARAMS || p->nblob + (size + 7) / 8 > sizeof p->blob / sizeof *p->blob) {
        p->overflow = 1;
        return;
    }
    uint64_t *at = p->blob + p->nblob;
    memcpy(at, value, size);
    p->nblob += (size + 7) / 8;
    l->params[l->nparams++] = at;
}

cured_status cr_launch_plan(cured_handle h, const struct cr_kernel *k, const struct cr_plan *p, CUstream s)
{
    if (p->overflow)
        return cr_fail(CURED_ERROR_INTERNAL, "a launch plan has more parameters than cr_plan holds");
    for (int i = 0; i < p->nlaunch; i++) {
        const struct cr_launch *l = &p->l[i];
        CUresult r = h->d->LaunchKernel(k->fn[l->fn], l->grid, l->grid_y, 1, l->block, 1, 1, 0, s,
                                        (void **)l->params, NULL);
        if (r != CUDA_SUCCESS)
            return cr_fail_cuda(r, "cuLaunchKernel");
    }
    return CURED_SUCCESS;
}

int cr_request_enumerate(size_t i, unsigned need, unsigned refuse, struct cr_request *r)
{
    for (int op = 0; op < CURED_OP_COUNT; op++) {
        const unsigned f = cr_op((cured_op)op)->flags;
        if ((f & need) != need || (f & refuse) != 0)
            continue;
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++)
                if (cr_op_for_type((cured_op)op, (cured_type)in) == (cured_op)op && /* else its base's request */
                    cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, NULL) && i-- == 0)
                    return cr_request_make((cured_op)op, CURED_ALGO_AUTO, (cured_type)in, (cured_type)out, r) ==
                           CURED_SUCCESS;
    }
    return 0;
}
