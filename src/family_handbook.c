/*
 * The Handbook's variants (chapter 12, Table 12-1), for int32 sums with an
 * int32 or int64 result: two passes (shared-memory tree, shuffles,
 * cg::reduce), single pass with a ticket or one atomic per block, and
 * Listing 12-4. One family per cured_algorithm.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define BLOCK 256

/* The kernel template of each variant. */
struct variant {
    cured_algorithm algo;
    const char *kernel;
};
static const struct variant variants[] = {
    {CURED_ALGO_TWO_PASS_SHARED, "reduce_pass_shared"},
    {CURED_ALGO_TWO_PASS_SHUFFLE, "reduce_pass_shuffle"},
    {CURED_ALGO_TWO_PASS_CG, "reduce_pass_cg"},
    {CURED_ALGO_SINGLE_PASS_TICKET, "reduce_ticket"},
    {CURED_ALGO_SINGLE_PASS_ATOMIC, "reduce_atomic"},
    {CURED_ALGO_LISTING_12_4, "reduce_listing_12_4"},
};

static const struct variant *variant_of(cured_algorithm a)
{
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++)
        if (variants[i].algo == a)
            return &variants[i];
    return NULL;
}

static int two_pass(cured_algorithm a)
{
    return a == CURED_ALGO_TWO_PASS_SHARED || a == CURED_ALGO_TWO_PASS_SHUFFLE || a == CURED_ALGO_TWO_PASS_CG;
}

static int offers(const struct cr_request *r)
{
    return variant_of(r->algo) != NULL && r->user == NULL && r->shape == CR_SHAPE_WHOLE &&
           (cr_op(r->op)->flags & CR_OP_HANDBOOK) &&
           r->in == CURED_TYPE_INT32 && (r->out == CURED_TYPE_INT32 || r->out == CURED_TYPE_INT64);
}

static void build(const struct cr_request *r, struct cr_unit *u)
{
    const struct variant *v = variant_of(r->algo);
    const struct cr_family *f = cr_family_for(r);
    const char *t = cr_type_cxx(r->in), *a = cr_type_cxx(r->acc.scalar);
    memset(u, 0, sizeof *u);
    u->file = f->file;
    u->needs_toolkit = f->needs_toolkit;
    u->block = BLOCK;
    u->unroll = 1;
    u->nkernels = two_pass(r->algo) ? 2 : 1;
    snprintf(u->kernels[0], sizeof u->kernels[0], "%s<%s, %s, %d, Sum<%s, %s, %s> >", v->kernel, t, a, BLOCK, t, a, a);
    if (u->nkernels == 2) /* pass 2 reduces the partials */
        snprintf(u->kernels[1], sizeof u->kernels[1], "%s<%s, %s, %d, Sum<%s, %s, %s> >", v->kernel, a, a, BLOCK, a,
                 a, a);
    snprintf(u->label, sizeof u->label, "%s %s %s->%s (kernels-src/%s)", cr_algo_name(r->algo), cr_op(r->op)->name,
             cr_type_name(r->in), cr_type_name(r->out), f->file);
}

static void plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p)
{
    unsigned resident = cr_resident(k, dev), grid;
    if (r->algo == CURED_ALGO_LISTING_12_4) { /* as in the seed: 4 blocks per SM, one int4 per thread */
        unsigned cap = (unsigned)dev->sms * 4 < resident ? (unsigned)dev->sms * 4 : resident;
        grid = cr_div_up(a->n, (size_t)u->block * 4);
        grid = grid < cap ? grid : cap;
    } else {
        grid = cr_div_up(a->n, (size_t)u->block);
        grid = grid < resident ? grid : resident;
    }
    const uint64_t in = (uint64_t)(uintptr_t)a->in, partials = a->ws + CR_WS_PARTIALS;
    struct cr_launch *l = cr_plan_launch(p, 0, grid, (unsigned)u->block);
    cr_plan_param(p, l, in);
    cr_plan_param(p, l, a->n);
    if (two_pass(r->algo)) {
        cr_plan_param(p, l, partials);
        l = cr_plan_launch(p, 1, 1, (unsigned)u->block);
        cr_plan_param(p, l, partials);
        cr_plan_param(p, l, grid);
        cr_plan_param(p, l, a->out);
        return;
    }
    cr_plan_param(p, l, a->out);
    cr_plan_param(p, l, r->algo == CURED_ALGO_SINGLE_PASS_TICKET ? partials : a->ws + CR_WS_ACCUM);
    cr_plan_param(p, l, a->ws + CR_WS_TICKET);
}

/* The two int32 sums of Table 12-1 for one algorithm. */
static int enumerate_algo(size_t i, struct cr_request *r, cured_algorithm algo)
{
    static const cured_type outs[] = {CURED_TYPE_INT32, CURED_TYPE_INT64};
    return i < 2 && cr_request_make(CURED_OP_SUM, algo, CURED_TYPE_INT32, outs[i], r) == CURED_SUCCESS;
}

#define CR_HANDBOOK_FAMILY(ident, ALGO, file, toolkit)                                                      \
    static int enumerate_##ident(size_t i, struct cr_request *r) { return enumerate_algo(i, r, ALGO); }    \
    static int offers_##ident(const struct cr_request *r) { return r->algo == ALGO && offers(r); }          \
    const struct cr_family cr_family_##ident = {#ident, file, toolkit, offers_##ident, build, plan,         \
                                                enumerate_##ident};
CR_HANDBOOK_FAMILY(two_pass_shared, CURED_ALGO_TWO_PASS_SHARED, "two_pass.cu", 0)
CR_HANDBOOK_FAMILY(two_pass_shuffle, CURED_ALGO_TWO_PASS_SHUFFLE, "two_pass.cu", 0)
CR_HANDBOOK_FAMILY(two_pass_cg, CURED_ALGO_TWO_PASS_CG, "two_pass_cg.cu", 1)
CR_HANDBOOK_FAMILY(single_pass_ticket, CURED_ALGO_SINGLE_PASS_TICKET, "single_pass.cu", 0)
CR_HANDBOOK_FAMILY(single_pass_atomic, CURED_ALGO_SINGLE_PASS_ATOMIC, "single_pass.cu", 0)
CR_HANDBOOK_FAMILY(listing_12_4, CURED_ALGO_LISTING_12_4, "listing_12_4.cu", 1)
#undef CR_HANDBOOK_FAMILY
