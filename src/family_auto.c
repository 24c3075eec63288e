/*
 * The AUTO families (kernels-src/fast.cu): one launch over the whole grid,
 * several 16-byte loads in flight per thread, the last block combining the
 * blocks' partials in order. One input (reduce_fast) or two read in step
 * (reduce_fast2, dot products); user-defined operators use the same kernels
 * with their generated functor.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define BLOCK 256
#define UNROLL 4       /* 16-byte loads in flight per thread */
#define UNROLL_ARG16 8 /* ARG over 16-bit floats (bench/NOTES.md) */

/* The accumulator's C++ type: the scalar, Pair<value> or Arg<key>. */
void cr_acc_cxx(const struct cr_acc *a, char *buf, size_t cap)
{
    const char *s = cr_type_cxx(a->scalar);
    switch (a->layout) {
    case CR_LAYOUT_VALUE: snprintf(buf, cap, "%s", s); break;
    case CR_LAYOUT_PAIR: snprintf(buf, cap, "Pair<%s>", s); break;
    case CR_LAYOUT_ARG: snprintf(buf, cap, "Arg<%s>", s); break;
    }
}

/* Functors take <element, accumulator (a Pair's value or an Arg's key type), result>. */
void cr_functor_cxx(const struct cr_request *r, char *buf, size_t cap)
{
    char a[48];
    cr_acc_cxx(&r->acc, a, sizeof a);
    if (r->user != NULL) {
        snprintf(buf, cap, "UserOp");
        return;
    }
    const char *t = cr_type_cxx(r->in);
    const char *fa = r->acc.layout == CR_LAYOUT_VALUE ? a : cr_type_cxx(r->acc.scalar);
    if (r->state && (cr_op(r->op)->flags & CR_OP_STATS)) /* a statistic's record is its State struct */
        snprintf(buf, cap, "Record<%s<%s, %s, %s>, %s<%s, %s, %s>::State, true>", cr_op(r->op)->functor, t, fa,
                 cr_type_cxx(r->out), cr_op(r->op)->functor, t, fa, cr_type_cxx(r->out));
    else if (r->state) /* kernels-src/state.cuh: the record instead of the result */
        snprintf(buf, cap, "Record<%s<%s, %s, %s>, %s, %s>", cr_op(r->op)->functor, t, fa, cr_type_cxx(r->out), a,
                 cr_state_raw(r) ? "true" : "false");
    else
        snprintf(buf, cap, "%s<%s, %s, %s>", cr_op(r->op)->functor, t, fa, cr_type_cxx(r->out));
}

/* Statistics have their own family (family_stats.c). */
static int is_stats(cured_op op)
{
    return (cr_op(op)->flags & CR_OP_STATS) != 0;
}

static int offers1(const struct cr_request *r)
{
    return r->algo == CURED_ALGO_AUTO && r->shape == CR_SHAPE_WHOLE && r->ninputs == 1 &&
           (r->user != NULL || !is_stats(r->op));
}

static int offers2(const struct cr_request *r)
{
    return r->algo == CURED_ALGO_AUTO && r->shape == CR_SHAPE_WHOLE && r->ninputs == 2;
}

static void build(const struct cr_request *r, struct cr_unit *u)
{
    memset(u, 0, sizeof *u);
    const char *kernel = r->ninputs == 2 ? "reduce_fast2" : "reduce_fast";
    const char *t = cr_type_cxx(r->in);
    char a[48], f[160];
    cr_acc_cxx(&r->acc, a, sizeof a);
    cr_functor_cxx(r, f, sizeof f);
    u->block = BLOCK;
    u->nkernels = 1;
    if (r->user != NULL) {
        u->file = "user-op.cu";
        u->source = r->user->source;
        u->unroll = UNROLL;
        /* The generated UserOp names its accumulator (a scalar, or a struct of fields). */
        snprintf(u->kernels[0], sizeof u->kernels[0], "%s<%s, UserOp::A, UserOp, %d, %d>", kernel, t, BLOCK,
                 u->unroll);
        snprintf(u->label, sizeof u->label, "user-defined %s->%s", cr_type_name(r->in), cr_type_name(r->out));
        return;
    }
    const struct cr_op_info *o = cr_op(r->op);
    u->file = "fast.cu";
    u->unroll = cr_type(r->in)->cls == CR_HALF && r->acc.layout == CR_LAYOUT_ARG ? UNROLL_ARG16 : UNROLL;
    snprintf(u->kernels[0], sizeof u->kernels[0], "%s<%s, %s, %s, %d, %d>", kernel, t, a, f, BLOCK, u->unroll);
    snprintf(u->label, sizeof u->label, "auto %s %s->%s%s (kernels-src/fast.cu)", o->name, cr_type_name(r->in),
             cr_type_name(r->out), r->state ? " state" : "");
}

/* One unrolled group of 16-byte loads per thread at least, at most the resident blocks. */
static void plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p)
{
    const size_t vec = 16 / cr_type_size(r->in);
    unsigned grid = cr_div_up(a->n, (size_t)u->block * vec * (size_t)u->unroll);
    unsigned resident = cr_resident(k, dev);
    struct cr_launch *l = cr_plan_launch(p, 0, grid < resident ? grid : resident, (unsigned)u->block);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)a->in);
    if (r->ninputs == 2)
        cr_plan_param(p, l, (uint64_t)(uintptr_t)a->in2);
    cr_plan_param(p, l, a->n);
    cr_plan_param(p, l, a->out);
    cr_plan_param(p, l, a->ws + CR_WS_PARTIALS);
    cr_plan_param(p, l, a->ws + CR_WS_TICKET);
}

static int enumerate1(size_t i, struct cr_request *r)
{
    return cr_request_enumerate(i, 0, CR_OP_TWO_INPUTS | CR_OP_STATS | CR_OP_EXACT, r);
}

static int enumerate2(size_t i, struct cr_request *r)
{
    return cr_request_enumerate(i, CR_OP_TWO_INPUTS, CR_OP_STATS | CR_OP_EXACT, r);
}

const struct cr_family cr_family_auto = {"auto", "fast.cu", 0, offers1, build, plan, enumerate1};
const struct cr_family cr_family_auto2 = {"auto2", "fast.cu", 0, offers2, build, plan, enumerate2};
