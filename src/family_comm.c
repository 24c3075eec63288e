/*
 * The combine family (kernels-src/combine.cu): a communicator's gathered
 * state records, combined in rank order with the operator's own combine and
 * written with its own write (src/comm.c). The request is the operator's
 * (op, types), with shape CR_SHAPE_COMBINE; the records' layout is the
 * state request's (state.c). One thread per output: the records are few and
 * small, and one thread reads a record in a fixed order.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define BLOCK 128

static int offers(const struct cr_request *r)
{
    return r->algo == CURED_ALGO_AUTO && r->shape == CR_SHAPE_COMBINE && r->user == NULL && /* DOT too: sums */
           !(cr_op(r->op)->flags & CR_OP_EXACT); /* exact records: the exact family's combine */
}

/* combine_states<Functor, Accumulator, RAW>, the accumulator named as the state records name it. */
static void build(const struct cr_request *r, struct cr_unit *u)
{
    memset(u, 0, sizeof *u);
    const struct cr_op_info *o = cr_op(r->op);
    const char *t = cr_type_cxx(r->in);
    char f[96], a[104];
    if (o->flags & CR_OP_STATS) {
        snprintf(f, sizeof f, "%s<%s, %s, %s>", o->functor, t, cr_type_cxx(r->acc.scalar), cr_type_cxx(r->out));
        snprintf(a, sizeof a, "%s::State", f);
    } else {
        struct cr_request plain = *r;
        plain.state = 0;
        cr_functor_cxx(&plain, f, sizeof f);
        cr_acc_cxx(&r->acc, a, sizeof a);
    }
    u->file = "combine.cu";
    u->block = BLOCK;
    u->unroll = 1;
    u->nkernels = 1;
    snprintf(u->kernels[0], sizeof u->kernels[0], "combine_states<%s, %s, %s>", f, a,
             cr_state_raw(r) ? "true" : "false");
    snprintf(u->label, sizeof u->label, "combine %s %s->%s (kernels-src/combine.cu)", o->name, cr_type_name(r->in),
             cr_type_name(r->out));
}

static void plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p)
{
    (void)k;
    (void)dev;
    const struct cr_gather *g = a->gather;
    /* The unit's last kernel: a user op's unit (comm_custom.c) has its state kernel first. */
    /* (The kernel strides over the grid, which cr_div_up keeps within CUDA's limit.) */
    struct cr_launch *l = cr_plan_launch(p, u->nkernels - 1, cr_div_up(g->nout, (size_t)u->block), (unsigned)u->block);
    uint64_t ddof;
    memcpy(&ddof, &a->ddof, sizeof ddof);
    cr_plan_gather(p, l, a);
    cr_plan_param(p, l, r->acc.result_size);
    cr_plan_param(p, l, ddof);
}

/* Not in the catalog: a combine kernel is made on a communicator's first use of a request. */
static int enumerate(size_t i, struct cr_request *r)
{
    (void)i;
    (void)r;
    return 0;
}

const struct cr_family cr_family_comm = {"comm", "combine.cu", 0, offers, build, plan, enumerate};
