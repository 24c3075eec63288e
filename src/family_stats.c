/*
 * The statistics family (kernels-src/stats.cu): the operators flagged
 * CR_OP_STATS in the operator table (MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP),
 * each with its own per-thread loop and struct state (stats.cuh). Launched
 * as the AUTO one-input kernel is, with one more parameter: the request's
 * delta degrees of freedom.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define BLOCK 256
#define UNROLL 4 /* 16-byte loads in flight per thread, as AUTO */

static int is_stats(cured_op op)
{
    const struct cr_op_info *o = cr_op(op);
    return o != NULL && (o->flags & CR_OP_STATS) != 0;
}

static int offers(const struct cr_request *r)
{
    return r->algo == CURED_ALGO_AUTO && r->ninputs == 1 && r->user == NULL && is_stats(r->op);
}

/* reduce_stats<T, Functor<T, P, R>, BLOCK, UNROLL>: P, the precision of
 * LOGSUMEXP's exponentials, is the accumulator scalar of the operator table. */
static void build(const struct cr_request *r, struct cr_unit *u)
{
    memset(u, 0, sizeof *u);
    const struct cr_op_info *o = cr_op(r->op);
    const char *t = cr_type_cxx(r->in);
    u->file = "stats.cu";
    u->block = BLOCK;
    u->unroll = UNROLL;
    u->nkernels = 1;
    char f[96];
    snprintf(f, sizeof f, "%s<%s, %s, %s>", o->functor, t, cr_type_cxx(r->acc.scalar), cr_type_cxx(r->out));
    if (r->state) /* kernels-src/state.cuh: the raw state record */
        snprintf(u->kernels[0], sizeof u->kernels[0], "reduce_stats<%s, Record<%s, %s::State, true>, %d, %d>", t, f, f,
                 BLOCK, u->unroll);
    else
        snprintf(u->kernels[0], sizeof u->kernels[0], "reduce_stats<%s, %s, %d, %d>", t, f, BLOCK, u->unroll);
    snprintf(u->label, sizeof u->label, "auto %s %s->%s%s (kernels-src/stats.cu)", o->name, cr_type_name(r->in),
             cr_type_name(r->out), r->state ? " state" : "");
}

/* AUTO's launch, and ddof after its parameters (as the kernel takes it). */
static void plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p)
{
    cr_family_auto.plan(r, u, k, dev, a, p);
    uint64_t bits;
    memcpy(&bits, &a->ddof, sizeof bits);
    cr_plan_param(p, &p->l[p->nlaunch - 1], bits);
}

static int enumerate(size_t i, struct cr_request *r)
{
    return cr_request_enumerate(i, CR_OP_STATS, 0, r);
}

const struct cr_family cr_family_stats = {"stats", "stats.cu", 0, offers, build, plan, enumerate};
