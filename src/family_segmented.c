/*
 * The many-result family (kernels-src/segmented.cu): rows, rows split over
 * blocks, segments from offset arrays, columns, any strided layout. The
 * planner in axes.c chooses the shape and its variant (threads per row,
 * columns per thread) and fills the geometry; here the kernel is named and
 * its launch sized.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define BLOCK 256
#define UNROLL 4

static int offers(const struct cr_request *r)
{
    return r->algo == CURED_ALGO_AUTO && r->shape != CR_SHAPE_WHOLE && r->shape != CR_SHAPE_COMBINE &&
           r->ninputs == 1;
}

/* The accumulator's C++ type: a statistic's and a user op's state are named by their functor. */
static void state_cxx(const struct cr_request *r, const char *functor, char *buf, size_t cap)
{
    if (r->user != NULL)
        snprintf(buf, cap, "UserOp::A");
    else if (cr_op(r->op)->flags & CR_OP_STATS)
        snprintf(buf, cap, "%s::State", functor);
    else
        cr_acc_cxx(&r->acc, buf, cap);
}

static void build(const struct cr_request *r, struct cr_unit *u)
{
    char a[144], f[128];
    const char *t = cr_type_cxx(r->in);
    cr_functor_cxx(r, f, sizeof f);
    state_cxx(r, f, a, sizeof a);
    memset(u, 0, sizeof *u);
    u->file = r->user != NULL ? "user-op.cu" : "segmented.cu";
    u->source = r->user != NULL ? r->user->axes_source : NULL;
    u->block = BLOCK;
    u->unroll = cr_type(r->in)->cls == CR_HALF && r->acc.layout == CR_LAYOUT_ARG ? 8 : UNROLL;
    /* reduce_segments: 2 vectors in flight a lane, which keep its registers from spilling
     * (bench/NOTES.md, Segments); reduce_long_segments' blocks keep the usual number. */
    const unsigned long_unroll = u->unroll;
    if (r->shape == CR_SHAPE_SEGMENTS && u->unroll == UNROLL)
        u->unroll = 2;
    u->nkernels = 1;
    char *k = u->kernels[0];
    const size_t cap = sizeof u->kernels[0];
    const char *what = "";
    switch (r->shape) {
    case CR_SHAPE_ROWS:
        snprintf(k, cap, "reduce_rows<%s, %s, %s, %d, %d, %d>", t, a, f, BLOCK, r->group, u->unroll);
        what = "rows";
        break;
    case CR_SHAPE_ROWS_SPLIT:
        snprintf(k, cap, "reduce_rows_split<%s, %s, %s, %d, %d>", t, a, f, BLOCK, u->unroll);
        what = "long rows";
        break;
    case CR_SHAPE_SEGMENTS:
        snprintf(k, cap, "reduce_segments<%s, %s, %s, %s, %d, %d, %d>", t, a, f, cr_type_cxx(r->offsets), BLOCK,
                 r->group, u->unroll);
        snprintf(u->kernels[1], cap, "reduce_long_segments<%s, %s, %s, %s, %d, %u>", t, a, f, cr_type_cxx(r->offsets),
                 BLOCK, long_unroll);
        u->nkernels = 2;
        what = "segments";
        break;
    case CR_SHAPE_COLS:
        snprintf(k, cap, "reduce_cols<%s, %s, %s, %d, %d, %d, %zu>", t, a, f, BLOCK, r->group, r->vec,
                 r->acc.result_size);
        what = "columns";
        break;
    case CR_SHAPE_PACKED:
        snprintf(k, cap, "reduce_packed<%s, %s, %s, %d, %d, %zu>", t, a, f, BLOCK, r->group, r->acc.result_size);
        what = "short rows";
        break;
    default:
        snprintf(k, cap, "reduce_strided<%s, %s, %s, %d>", t, a, f, BLOCK);
        what = "strided";
        break;
    }
    snprintf(u->label, sizeof u->label, "%s %s %s->%s (kernels-src/segmented.cu)", what,
             r->user != NULL ? "user-defined" : cr_op(r->op)->name, cr_type_name(r->in), cr_type_name(r->out));
}

/* Segments over LONG_BYTES go to reduce_long_segments (segments_long.cuh):
 * up to the list's cap of them in a call (CR_LONG_MAX, fewer where the
 * workspace holds fewer), shared out over one wave of its blocks (its own
 * occupancy; LONG_PER_SM an SM for a kernel never loaded, as in the planner
 * tests) as chunks of about a block's share over LONG_CHUNKS, which the
 * blocks take from a counter; up to CR_LONG_LISTED, the blocks take whole
 * entries from the counter; any more, and every one of them gets one block
 * of a fixed share.
 * Why 16 KiB: a segment much longer than a warp's share of the call would
 * hold its warp long after the others end; past the threshold the blocks
 * share it out instead (bench/NOTES.md, Segments). */
#define LONG_BYTES ((uint64_t)16 << 10)
#define LONG_CHUNKS 8u
#define LONG_PER_SM 4u
/* The list's count, done word and chunk counter are the slot's first three
 * tickets; the pool of the parts' partials (cap + chunks x grid of them,
 * one a chunk), then the entries and their lengths fill the partials and
 * column area. */
_Static_assert(3 <= CR_WS_NTICKETS, "the long list's counters");
_Static_assert(CR_LONG_MAX % BLOCK == 0, "the long list's prefix sum");
_Static_assert(CR_MAX_ACC % 16 == 0, "the entries after the partials are 16-byte aligned");

/* The list of the long kernel's grid: the chunks a block aims at (halved
 * until the pool fits beside one entry) and the entries the rest holds. */
static struct cr_long_list long_list(const struct cr_device_facts *dev, uint64_t ws, unsigned grid)
{
    const uint64_t tickets = ws + CR_WS_TICKETS, partials = ws + CR_WS_PARTIALS, room = cr_partials_area(dev);
    const uint64_t entry = sizeof(struct cr_long_entry) + 4 + CR_MAX_ACC; /* an entry, its length and its first partial */
    unsigned chunks = LONG_CHUNKS;
    while (chunks > 1 && (uint64_t)chunks * grid * CR_MAX_ACC + entry > room)
        chunks /= 2;
    const uint64_t pool = (uint64_t)chunks * grid * CR_MAX_ACC, left = room > pool ? (room - pool) / entry : 0;
    const unsigned cap = left < CR_LONG_MAX ? (unsigned)left : CR_LONG_MAX;
    /* past the chunks' cap, entries alone (no length, no partial): as many as the rest holds */
    const uint64_t used = pool + (uint64_t)cap * entry, rest = room > used ? room - used : 0,
                   more = rest / sizeof(struct cr_long_entry);
    const unsigned listed = cap + (more < CR_LONG_LISTED - cap ? (unsigned)more : CR_LONG_LISTED - cap);
    const uint64_t seg = partials + pool + (uint64_t)cap * CR_MAX_ACC;
    struct cr_long_list list = {seg, seg + (uint64_t)listed * sizeof(struct cr_long_entry), tickets, tickets + 4,
                                tickets + 8, cap, chunks, listed, 0};
    return list;
}

static void plan_segments(const struct cr_request *r, const struct cr_kernel *k, const struct cr_device_facts *dev,
                          const struct cr_args *a, unsigned grid, uint64_t ddof, struct cr_plan *p)
{
    const struct cr_geometry *g = a->geo;
    const uint64_t partials = a->ws + CR_WS_PARTIALS;
    const unsigned per_sm = k->fn_blocks_per_sm[1] > 0 ? (unsigned)k->fn_blocks_per_sm[1] : LONG_PER_SM;
    const unsigned long_grid = per_sm * (unsigned)dev->sms;
    const struct cr_long_list list = long_list(dev, a->ws, long_grid);
    const struct cr_seg_guard guard = {g->limit, a->ws + CR_WS_ERROR};
    struct cr_launch *l = cr_plan_launch(p, 0, grid, BLOCK);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)a->in);
    cr_plan_param(p, l, g->nout);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)g->begin);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)g->end);
    cr_plan_param(p, l, a->out);
    cr_plan_param(p, l, r->acc.result_size);
    cr_plan_param(p, l, LONG_BYTES / cr_type_size(r->in));
    cr_plan_struct(p, l, &list, sizeof list);
    cr_plan_struct(p, l, &guard, sizeof guard);
    cr_plan_param(p, l, ddof);
    l = cr_plan_launch(p, 1, long_grid, BLOCK);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)a->in);
    cr_plan_param(p, l, g->nout);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)g->begin);
    cr_plan_param(p, l, (uint64_t)(uintptr_t)g->end);
    cr_plan_param(p, l, a->out);
    cr_plan_param(p, l, r->acc.result_size);
    cr_plan_param(p, l, LONG_BYTES / cr_type_size(r->in));
    cr_plan_struct(p, l, &list, sizeof list);
    cr_plan_struct(p, l, &guard, sizeof guard);
    cr_plan_param(p, l, partials);
    cr_plan_param(p, l, ddof);
}

static unsigned at_most(uint64_t want, unsigned cap)
{
    return want == 0 ? 1 : want < cap ? (unsigned)want : cap;
}

static void plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p)
{
    const struct cr_geometry *g = a->geo;
    const unsigned resident = (unsigned)k->blocks_per_sm * (unsigned)dev->sms;
    const uint64_t in = (uint64_t)(uintptr_t)a->in, partials = a->ws + CR_WS_PARTIALS;
    const uint64_t tickets = a->ws + CR_WS_TICKETS, result = r->acc.result_size;
    uint64_t ddof; /* the statistics' (every kernel takes it last) */
    memcpy(&ddof, &a->ddof, sizeof ddof);
    struct cr_launch *l;
    switch (r->shape) {
    case CR_SHAPE_ROWS:
        l = cr_plan_launch(p, 0, at_most((g->nout + BLOCK / r->group - 1) / (BLOCK / r->group), resident), BLOCK);
        cr_plan_param(p, l, in);
        cr_plan_param(p, l, g->nout);
        cr_plan_param(p, l, g->len);
        cr_plan_struct(p, l, &g->kept, sizeof g->kept);
        cr_plan_param(p, l, a->out);
        cr_plan_param(p, l, result);
        break;
    case CR_SHAPE_ROWS_SPLIT:
        /* one block per row when rows are many (as CUB does): the resident blocks striding over rows
         * each ended a row (block reduce, sync) before loading the next */
        l = cr_plan_launch(p, 0, g->per == 1 ? at_most(g->nout, 1u << 30) : at_most(g->nout * g->per, resident), BLOCK);
        cr_plan_param(p, l, in);
        cr_plan_param(p, l, g->nout);
        cr_plan_param(p, l, g->len);
        cr_plan_struct(p, l, &g->kept, sizeof g->kept);
        cr_plan_param(p, l, a->out);
        cr_plan_param(p, l, result);
        cr_plan_param(p, l, g->per);
        cr_plan_param(p, l, partials);
        cr_plan_param(p, l, tickets);
        break;
    case CR_SHAPE_SEGMENTS:
        plan_segments(r, k, dev, a, at_most((g->nout + BLOCK / r->group - 1) / (BLOCK / r->group), resident), ddof, p);
        (void)u;
        return; /* both launches took ddof */
    case CR_SHAPE_COLS: {
        /* how many blocks share a tile's rows: one wave of the blocks this kernel fits (cols_split.c) */
        struct cr_cols c = g->cols;
        cr_cols_splits(&c, (uint64_t)k->blocks_per_sm * (uint64_t)dev->sms, BLOCK / (unsigned)r->group,
                       cr_cols_room(dev, r->acc.size));
        l = cr_plan_launch(p, 0, c.tiles, BLOCK);
        l->grid_y = (unsigned)c.batches * c.splits;
        cr_plan_param(p, l, in);
        cr_plan_struct(p, l, &c, sizeof c);
        cr_plan_param(p, l, a->out);
        cr_plan_param(p, l, result);
        cr_plan_param(p, l, partials);
        cr_plan_param(p, l, tickets);
        break;
    }
    case CR_SHAPE_PACKED: {
        /* whole vectors: rows of group bytes, four vectors in flight per thread */
        const uint64_t rpv = r->group < 16 ? 16 / (uint64_t)r->group : 1;
        const uint64_t vpr = r->group > 16 ? (uint64_t)r->group / 16 : 1;
        const uint64_t items = vpr >= 4 ? 1 : 4 / vpr, per_block = (uint64_t)BLOCK * items;
        l = cr_plan_launch(p, 0, at_most((g->nout / rpv + per_block - 1) / per_block, resident), BLOCK);
        cr_plan_param(p, l, in);
        cr_plan_param(p, l, g->nout);
        cr_plan_param(p, l, (uint64_t)g->kept.out_stride[0]);
        cr_plan_param(p, l, a->out);
        cr_plan_param(p, l, g->dense);
        break;
    }
    default:
        l = cr_plan_launch(p, 0, at_most((g->nout + BLOCK / 32 - 1) / (BLOCK / 32), resident), BLOCK);
        cr_plan_param(p, l, in);
        cr_plan_param(p, l, g->nout);
        cr_plan_param(p, l, g->len);
        cr_plan_struct(p, l, &g->kept, sizeof g->kept);
        cr_plan_struct(p, l, &g->red, sizeof g->red);
        cr_plan_param(p, l, a->out);
        cr_plan_param(p, l, result);
        break;
    }
    cr_plan_param(p, l, ddof);
    (void)u;
}

/* The many-result kernels have too many variants to list ahead (shapes,
 * threads per row, columns per thread): each is made on first use. */
static int enumerate(size_t i, struct cr_request *r)
{
    (void)i;
    (void)r;
    return 0;
}

const struct cr_family cr_family_segmented = {"segmented", "segmented.cu", 0, offers, build, plan, enumerate};
