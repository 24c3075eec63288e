/*
 * The exact family (kernels-src/exact.cu): the operators flagged
 * CR_OP_EXACT, over every view. One kernel takes a part of an output a unit
 * (a warp, or a block's warps); the parts of an output split into several
 * add their states into the output's accumulator in the stream's workspace,
 * and the last to arrive rounds it (or, with more outputs than
 * accumulators, each leaves a state record, and a second kernel merges and
 * rounds them). The split follows the loaded kernel's occupancy:
 * one wave of units, within the workspace's partials area. Short SUM and
 * MEAN outputs of 16- and 32-bit floats take exact_quick first (doubles,
 * rounded where no bit was lost), and the lanes only the groups of outputs it
 * marks; their columns for warp units exact_quick_columns, and the units only
 * what it marks.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

struct cr_exact_force cr_exact_force;

/* What exact.cu's ExactPlan gives a request (abi.h's constants, which exact.cu asserts): the
 * digits of its format and the chunk a warp takes between flushes. */
struct exact_shape {
    int digits;
    unsigned chunk, block;
};

static int is_exact(const struct cr_request *r)
{
    return r->user == NULL && cr_op(r->op) != NULL && (cr_op(r->op)->flags & CR_OP_EXACT) != 0;
}

/* Short SUM and MEAN outputs of 16- and 32-bit floats take exact_quick first (kernels[3]; segments kernels[6]). */
static int quick_unit(const struct cr_request *r)
{
    return !r->state && (r->op == CURED_OP_EXACT_SUM || r->op == CURED_OP_EXACT_MEAN) &&
           (r->in == CURED_TYPE_FLOAT16 || r->in == CURED_TYPE_BFLOAT16 || r->in == CURED_TYPE_FLOAT32);
}

static int products(cured_op op)
{
    return op == CURED_OP_EXACT_SUM_SQUARES || op == CURED_OP_EXACT_NORM2 || op == CURED_OP_EXACT_DOT;
}

static struct exact_shape shape_of(const struct cr_request *r)
{
    const int prod = products(r->op);
    struct exact_shape s = {prod ? CR_EXACT_DIGITS_SINGLE_PRODUCTS : CR_EXACT_DIGITS_SINGLE, CR_EXACT_CHUNK,
                            CR_EXACT_BLOCK};
    switch (r->in) {
    case CURED_TYPE_FLOAT16:
        s.digits = prod ? CR_EXACT_DIGITS_HALF_PRODUCTS : CR_EXACT_DIGITS_HALF;
        s.chunk = prod ? CR_EXACT_CHUNK : CR_EXACT_CHUNK_HALF;
        break;
    case CURED_TYPE_FLOAT64:
        s.digits = prod ? CR_EXACT_DIGITS_DOUBLE_PRODUCTS : CR_EXACT_DIGITS_DOUBLE;
        break;
    default: /* BFLOAT16, FLOAT32 */
        break;
    }
    return s;
}

/* The result type's code (CR_EXACT_R_*): one unit serves every result type of an operator and element type. */
static unsigned result_code(cured_type t)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return CR_EXACT_R_FLOAT16;
    case CURED_TYPE_BFLOAT16: return CR_EXACT_R_BFLOAT16;
    case CURED_TYPE_FLOAT32: return CR_EXACT_R_FLOAT32;
    default: return CR_EXACT_R_FLOAT64;
    }
}

/* The position of each operator in exact.cu's EXACT_OP_*. */
static int op_index(cured_op op)
{
    switch (op) {
    case CURED_OP_EXACT_MEAN: return 1;
    case CURED_OP_EXACT_SUM_SQUARES: return 2;
    case CURED_OP_EXACT_NORM2: return 3;
    case CURED_OP_EXACT_DOT: return 4;
    default: return 0;
    }
}

/* Every view's request (the planner makes them all WHOLE), its state records, and the combine of a
 * communicator's gathered records. */
static int offers(const struct cr_request *r)
{
    return r->algo == CURED_ALGO_AUTO && is_exact(r) && (r->shape == CR_SHAPE_WHOLE || r->shape == CR_SHAPE_COMBINE);
}

size_t cr_exact_state_bytes(const struct cr_request *r)
{
    return ((size_t)shape_of(r).digits + 1) * 8;
}

static void build(const struct cr_request *r, struct cr_unit *u)
{
    memset(u, 0, sizeof *u);
    const struct exact_shape s = shape_of(r);
    const char *t = cr_type_cxx(r->in), *state = r->state ? "true" : "false";
    u->file = "exact.cu";
    u->unroll = 1;
    if (r->shape == CR_SHAPE_COMBINE) {
        u->block = 256;
        u->nkernels = 1;
        snprintf(u->kernels[0], sizeof u->kernels[0], "exact_combine<%s, %d>", t, op_index(r->op));
    } else {
        u->block = (int)s.block;
        u->nkernels = 3;
        snprintf(u->kernels[0], sizeof u->kernels[0], "exact_reduce<%s, %d, %u, %s>", t, op_index(r->op), s.block,
                 state);
        snprintf(u->kernels[1], sizeof u->kernels[1], "exact_finish<%s, %d, %s>", t, op_index(r->op), state);
        snprintf(u->kernels[2], sizeof u->kernels[2], "exact_reduce_lanes<%s, %d, %u, %s>", t, op_index(r->op),
                 s.block, state);
        if (quick_unit(r)) {
            u->nkernels = 7;
            snprintf(u->kernels[3], sizeof u->kernels[3], "exact_quick<%s, %d>", t, op_index(r->op));
            snprintf(u->kernels[4], sizeof u->kernels[4], "exact_quick_columns<%s, %d>", t, op_index(r->op));
            snprintf(u->kernels[5], sizeof u->kernels[5], "exact_quick_long<%s, %d>", t, op_index(r->op));
            snprintf(u->kernels[6], sizeof u->kernels[6], "exact_quick_segments<%s, %d>", t, op_index(r->op));
        }
    }
    snprintf(u->label, sizeof u->label, "%s %s %s->%s%s (kernels-src/exact.cu)",
             r->shape == CR_SHAPE_COMBINE ? "combine" : "auto", cr_op(r->op)->name, cr_type_name(r->in),
             cr_type_name(r->out), r->state ? " state" : "");
}

/* A plan holds up to three ExactJobs (exact_quick, exact_quick_long and the lanes; columns: exact_quick_columns'
 * and the units'): a job that outgrows the plan's blob would be refused at launch. */
_Static_assert(3 * ((sizeof(struct cr_exact_job) + 7) / 8) <= sizeof(((struct cr_plan *)0)->blob) / 8,
               "three ExactJobs fit a plan");

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

void cr_exact_split(const struct cr_request *r, uint64_t nout, uint64_t len, uint64_t resident_blocks,
                    uint64_t lanes_resident_blocks, size_t area, unsigned *splits, unsigned *unit_warps, uint64_t *part)
{
    const struct exact_shape s = shape_of(r);
    const unsigned warps = s.block / 32;
    const uint64_t record = cr_exact_state_bytes(r);
    /* Short outputs, many of them: a lane each (a warp's flushes and merges would cost more than the
     * elements). Longer ones take lanes only when forced (the tests): split for one wave of warps, parts
     * of at least a lane's share of a chunk. Columns in lanes measured slower than in warps: the
     * records of enough parts do not fit the partials area (bench/NOTES.md). */
    const int lanes = cr_exact_force.lanes > 0 || (cr_exact_force.lanes == 0 && nout >= 32 && len <= CR_EXACT_LANE_LEN);
    if (!r->state && lanes) {
        uint64_t n = 1;
        if (len > CR_EXACT_LANE_LEN) {
            const uint64_t groups = (nout + 31) / 32, wave = (lanes_resident_blocks ? lanes_resident_blocks : 1) * warps;
            n = min_u64((wave + groups - 1) / groups, (len + s.chunk / 32 - 1) / (s.chunk / 32));
        }
        if (cr_exact_force.splits)
            n = cr_exact_force.splits;
        n = min_u64(n, area / (nout * record)); /* one record a part in the partials area */
        if (n < 2)
            n = 1;
        const uint64_t p = n > 1 ? (len + n - 1) / n : 0;
        n = p ? (len + p - 1) / p : 1;
        *splits = n < 1 ? 1 : (unsigned)n;
        *unit_warps = 0;
        *part = n <= 1 ? (uint64_t)1 << 62 : p;
        return;
    }
    unsigned uw = len >= (uint64_t)s.chunk * warps ? warps : 1;
    if (cr_exact_force.unit_warps == 1 || cr_exact_force.unit_warps == warps)
        uw = cr_exact_force.unit_warps;
    const uint64_t units = (resident_blocks ? resident_blocks : 1) * (warps / uw);
    uint64_t n = 1;
    if (nout < units)
        n = min_u64((units + nout - 1) / nout, (len + (uint64_t)s.chunk * uw - 1) / ((uint64_t)s.chunk * uw));
    if (cr_exact_force.splits)
        n = cr_exact_force.splits;
    n = min_u64(n, area / (nout * record)); /* one record a part in the partials area */
    n = min_u64(n, 1u << 30);
    if (n < 2)
        n = 1;
    uint64_t p = (len + n - 1) / n;
    /* parts of whole chunks (16-byte vectors stay aligned): a warp's share of a part is then at least a
     * chunk (finer parts measured slower on the H100: more records, more flushes a term) */
    p = (p + s.chunk - 1) / s.chunk * s.chunk;
    if (p == 0)
        p = s.chunk;
    n = (len + p - 1) / p;
    *splits = n < 1 ? 1 : (unsigned)n;
    *unit_warps = uw;
    *part = n <= 1 ? (uint64_t)1 << 62 : p;
}

int cr_exact_quick_vec(const struct cr_exact_job *j, size_t elem)
{
    /* 1: rows whose every output starts on a 16-byte boundary and holds whole vectors: a lane loads 16 bytes
     * at a time, four outputs in flight (64 bytes a lane, against 16 in terms of 4 bytes). 2: columns (or
     * outputs of one term) whose neighbouring outputs are neighbours in memory, in whole aligned vectors: a
     * lane takes a vector's outputs, a vector a row. 4: segments of an aligned input of terms of up to 4 bytes:
     * a lane loads the 16-byte lines that hold its segment's terms, under 2^32 lines (a line's index is 32
     * bits); the plan keeps them only where the input's extent was measured (the last line ends at it) */
    const long long v = (long long)(16 / elem);
    if (j->view == EXACT_VIEW_SEGMENTS)
        return j->in % 16 == 0 && elem <= 4 && j->guard.limit / (uint64_t)v < ((uint64_t)1 << 32) ? 4 : 0;
    if (j->view != EXACT_VIEW_LINEAR || j->red.n > 1 || j->len == 0 || j->in % 16 || j->kept.n < 1)
        return 0;
    /* 3: rows of 2, 4 or 8 terms (dividing the vector), neighbours, in one kept dimension: a lane takes a
     * vector of rows (in 1's groups an output's bookkeeping outweighed a row of one vector, bench/NOTES.md) */
    const long long len = (long long)j->len;
    if (j->kept.n == 1 && j->red.stride[0] == 1 && len >= 2 && len <= v && v % len == 0 && j->kept.in_stride[0] == len &&
        j->kept.extent[0] % (v / len) == 0)
        return 3;
    /* outputs of one term too, whatever the reduced stride (their results leave in 16-byte stores) */
    int rows = j->red.stride[0] == 1 && j->len % (uint64_t)v == 0,
        columns = j->len > 1 ? j->red.stride[0] % v == 0 : 1;
    const int inner = j->kept.n - 1;
    columns = columns && j->kept.in_stride[inner] == 1 && j->kept.extent[inner] % v == 0;
    for (int d = 0; d < j->kept.n; d++)
        if (j->kept.in_stride[d] % v)
            rows = 0;
    for (int d = 0; d < inner; d++)
        if (j->kept.in_stride[d] % v)
            columns = 0;
    return rows ? 1 : columns ? 2 : 0;
}

unsigned cr_exact_quick_group(const struct cr_exact_job *j, size_t elem)
{
    /* Rows: about four terms (with vec, 16-byte vectors) a lane, at least two lanes an output of two or more
     * (a lane's loads then share sectors with its neighbours'), at most 32. A group's shuffles and its
     * leader's rounding cost every lane of the warp, so that a lane a term (the group as wide as the row)
     * spent more instructions an output than the read ceiling leaves (bench/NOTES.md). Columns (a reduced
     * stride other than 1): a lane an output, a line by 32 neighbouring outputs. Segments by their mean
     * length. */
    uint64_t len = j->len;
    if (j->vec == 2 || j->vec == 3) /* a lane a vector of outputs */
        return 1;
    if (j->view == EXACT_VIEW_SEGMENTS && j->vec == 4) {
        /* about two lines a lane for a segment of the mean length (one line more than its vectors, on
         * average): a warp's items wait for their longest segment, and wider groups keep more of its lanes
         * busy where lengths are mixed (bench/NOTES.md, "Segments in lines") */
        const uint64_t lines = j->guard.limit / (j->nout ? j->nout : 1) / (16 / elem) + 1;
        unsigned g = 1;
        while (g < 32 && 4 * (uint64_t)g <= lines)
            g *= 2;
        return g;
    }
    if (j->view == EXACT_VIEW_SEGMENTS)
        len = j->guard.limit / (j->nout ? j->nout : 1);
    else if (j->vec)
        len /= 16 / elem;
    else if (j->view != EXACT_VIEW_LINEAR || j->red.stride[0] != 1)
        return 1;
    unsigned g = 1;
    while (g < 32 && 2 * (uint64_t)g <= len / 4)
        g *= 2;
    return g == 1 && len >= 2 ? 2 : g;
}

uint64_t cr_exact_cols_parts(uint64_t groups, uint64_t len, uint64_t most, uint64_t wave)
{
    /* Each item (a group's part, a warp) takes about as long as any other, so items that fill 1.6 waves of
     * exact_quick_columns' resident warps cost two waves (bench/NOTES.md, "What ncu found"): the fewest
     * parts from two waves' worth of items on (up to twice as many) whose last wave is 95% full, else the
     * fullest; counted as the kernel splits them (parts of ceil(len / parts) rows) */
    if (groups == 0 || wave == 0 || most <= 1 || len <= 1)
        return 1;
    const uint64_t least = min_u64((2 * wave + groups - 1) / groups, most);
    uint64_t best = 1, best_fill = 0;
    for (uint64_t p = least; p <= most && p <= 2 * least; p++) {
        const uint64_t rows = (len + p - 1) / p, parts = (len + rows - 1) / rows;
        const uint64_t items = groups * parts, waves = (items + wave - 1) / wave, fill = items * 100 / (waves * wave);
        if (fill >= 95)
            return parts;
        if (fill > best_fill)
            best = parts, best_fill = fill;
    }
    return best;
}

uint32_t cr_exact_long_len(unsigned group)
{
    /* exact_quick's deepest item at most 32 terms a lane (a lane's loads wait on one another, and one long
     * segment would hold its warp long after the rest); at least 512 terms, four 16-byte vectors a thread
     * of exact_quick_long's block (shorter, a block's reduction costs more than its reads) */
    const uint32_t len = 32u * group;
    return len > CR_EXACT_LONG_MIN ? len : CR_EXACT_LONG_MIN;
}

static void plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_kernel *k,
                 const struct cr_device_facts *dev, const struct cr_args *a, struct cr_plan *p)
{
    (void)u;
    const struct exact_shape s = shape_of(r);
    const unsigned warps = s.block / 32;
    if (r->shape == CR_SHAPE_COMBINE) { /* a warp an output */
        struct cr_launch *l = cr_plan_launch(p, 0, cr_div_up(a->gather->nout, 8), 256);
        cr_plan_gather(p, l, a);
        cr_plan_param(p, l, result_code(r->out));
        return;
    }
    struct cr_exact_job j;
    memset(&j, 0, sizeof j);
    j.in = (CUdeviceptr)(uintptr_t)a->in;
    j.in2 = (CUdeviceptr)(uintptr_t)a->in2;
    j.out = a->out;
    j.states = a->ws + CR_WS_PARTIALS;
    j.result = result_code(r->out);
    const struct cr_geometry *g = a->geo;
    if (g == NULL) { /* a whole array: the one-output case */
        j.nout = 1;
        j.len = a->n;
        j.red.n = 1;
        j.red.extent[0] = (cr_i64)a->n;
        j.red.stride[0] = 1;
        j.view = EXACT_VIEW_LINEAR;
    } else if (g->begin != NULL) {
        j.nout = g->nout;
        j.begin = (CUdeviceptr)(uintptr_t)g->begin;
        j.end = (CUdeviceptr)(uintptr_t)g->end;
        j.offsets_32 = (cr_u32)g->offsets_32;
        j.guard.limit = g->limit;
        j.guard.bad = a->ws + CR_WS_ERROR;
        j.view = EXACT_VIEW_SEGMENTS;
    } else {
        j.nout = g->nout;
        j.len = g->len;
        j.kept = g->kept;
        j.red = g->red;
        j.view = g->red.n > 1 ? EXACT_VIEW_GENERAL : EXACT_VIEW_LINEAR;
    }
    const uint64_t resident = cr_resident(k, dev),
                   lanes_resident = (uint64_t)(k->fn_blocks_per_sm[2] > 0 ? k->fn_blocks_per_sm[2] : 1) * dev->sms;
    if (j.view == EXACT_VIEW_SEGMENTS) {
        /* a warp a segment, or a lane where the segments are short on average; SUM and MEAN take exact_quick
         * and exact_quick_long first, the lanes only where they marked a group (a long segment's lane defers
         * it to its warp) */
        const int lanes = !r->state && (cr_exact_force.lanes > 0 ||
                                        (cr_exact_force.lanes == 0 && (g->limit / (j.nout ? j.nout : 1) <= CR_EXACT_LANE_LEN ||
                                                                       (quick_unit(r) && cr_exact_force.quick >= 0))));
        j.splits = 1;
        j.unit_warps = lanes ? 0 : 1;
        j.part = (uint64_t)1 << 62;
    } else {
        unsigned splits, uw;
        uint64_t part;
        /* rows of more than CR_EXACT_LANE_LEN terms ran slower in exact_quick's groups than in the warp units
         * (bench/NOTES.md, "Short outputs: exact_quick"); rows of whole vectors take it up to CR_EXACT_LANE_LEN
         * vectors (four to eight a lane of a group of 32) */
        cr_exact_split(r, j.nout, j.len, resident, lanes_resident, cr_partials_area(dev), &splits, &uw, &part);
        if (quick_unit(r) && cr_exact_force.quick >= 0 && cr_exact_force.lanes == 0 && !cr_exact_force.splits &&
            !cr_exact_force.unit_warps && j.nout >= 32 && j.len > CR_EXACT_LANE_LEN &&
            j.len <= CR_EXACT_LANE_LEN * (16 / cr_type_size(r->in)) && cr_exact_quick_vec(&j, cr_type_size(r->in)) == 1) {
            splits = 1;
            uw = 0;
            part = (uint64_t)1 << 62;
        }
        j.splits = splits;
        j.unit_warps = uw;
        j.part = part;
    }
    const uint64_t units = j.unit_warps ? j.nout * j.splits : (j.nout + 31) / 32 * j.splits, /* lanes: a warp's 32 outputs */
        per_block = j.unit_warps ? warps / j.unit_warps : warps;
    uint64_t grid = (units + per_block - 1) / per_block;
    if (cr_exact_force.grid)
        grid = cr_exact_force.grid;
    /* Split outputs meet in the workspace's accumulators (the last part rounds), where they have room;
     * otherwise in records that a second kernel merges. */
    const uint64_t record = cr_exact_state_bytes(r);
    if (j.splits > 1 && !cr_exact_force.finish && j.nout <= CR_WS_NTICKETS && j.nout * record <= CR_WS_EXACT_BYTES) {
        j.states = a->ws + CR_WS_EXACT;
        j.tickets = a->ws + CR_WS_TICKETS;
    }
    struct cr_launch *l;
    const uint64_t groups = (j.nout + 31) / 32, wave = lanes_resident * warps;
    const int quick = quick_unit(r) && cr_exact_force.quick >= 0 && j.view != EXACT_VIEW_GENERAL,
              columns = j.view == EXACT_VIEW_LINEAR && j.red.stride[0] != 1;
    if (quick && j.unit_warps == 0 && j.splits == 1 && !(columns && groups < 4 * wave && groups <= CR_EXACT_RETRY_BITS)) {
        /* exact_quick first (each item a warp's group of 32 outputs at one of its `group` steps, four items a
         * warp at a time), then the lanes over the groups it marked */
        j.vec = (unsigned)cr_exact_quick_vec(&j, cr_type_size(r->in));
        if (j.vec == 4 && !g->limit_sized) /* lines end at the input's extent: where none was measured, terms */
            j.vec = 0;
        j.group = cr_exact_quick_group(&j, cr_type_size(r->in));
        j.per_bit = (unsigned)((groups + CR_EXACT_RETRY_BITS - 1) / CR_EXACT_RETRY_BITS);
        j.retry = a->ws + CR_WS_RETRY;
        const uint64_t v = 16 / cr_type_size(r->in);
        /* vec 2: a lane a vector (of V outputs); 3: four vectors a lane (of V / len outputs each); else four
         * items a warp */
        uint64_t qgrid = min_u64(j.vec == 2   ? (j.nout / v + 255) / 256
                                 : j.vec == 3 ? (j.nout / (v / j.len) + 1023) / 1024
                                              : (groups * j.group + 31) / 32,
                                 (uint64_t)1 << 20);
        const uint64_t bits = (groups + j.per_bit - 1) / j.per_bit;
        grid = min_u64((bits + warps - 1) / warps, lanes_resident);
        if (cr_exact_force.grid)
            qgrid = grid = cr_exact_force.grid;
        if (j.view == EXACT_VIEW_SEGMENTS && g->limit > cr_exact_long_len(j.group)) {
            /* the long segments' list: entries in the partials area (no segment is split), counters in the
             * tickets (none is taken: one part an output) */
            j.long_len = cr_exact_long_len(j.group);
            j.longs = a->ws + CR_WS_PARTIALS;
            j.long_count = a->ws + CR_WS_TICKETS;
            j.long_cap = (cr_u32)min_u64(cr_partials_area(dev) / sizeof(struct cr_long_entry), CR_EXACT_LONG_CAP);
            if (cr_exact_force.long_cap)
                j.long_cap = (cr_u32)min_u64(cr_exact_force.long_cap, j.long_cap);
            /* a block a piece: the longest segment no longer holds one block long after the rest (one block
             * took the power law's 758K terms alone, 256 segments of 1 MiB kept 256 blocks busy) */
            j.long_piece = cr_exact_force.long_piece ? cr_exact_force.long_piece
                                                     : (cr_u32)(CR_EXACT_LONG_PIECE_BYTES / cr_type_size(r->in));
        }
        l = cr_plan_launch(p, j.view == EXACT_VIEW_SEGMENTS ? 6 : 3, cr_div_up(qgrid, 1), 256);
        cr_plan_struct(p, l, &j, sizeof j);
        if (j.long_len) { /* a block a listed piece: one wave of them takes the list from a counter */
            const uint64_t per_sm = k->fn_blocks_per_sm[5] > 0 ? (uint64_t)k->fn_blocks_per_sm[5] : 1;
            l = cr_plan_launch(p, 5, cr_div_up(cr_exact_force.grid ? cr_exact_force.grid : per_sm * dev->sms, 1), 256);
            cr_plan_struct(p, l, &j, sizeof j);
        }
    } else if (quick && columns && (j.unit_warps || j.splits == 1) &&
               groups <= (j.unit_warps ? CR_EXACT_RETRY_COLS_BITS : CR_EXACT_RETRY_BITS) &&
               (j.nout >= 8 || cr_type_size(r->in) < 4)) {
        /* columns, too long for the lanes or too few for four of exact_quick's items a warp over a wave (not
         * fewer than 8 float32 ones, faster in the warp units: 4 columns 0.72 against 0.62, 0.71 against 0.34
         * on spread data; bfloat16's 2 and 8 columns faster here, 0.51 against 0.20):
         * exact_quick_columns first, a warp 32 of them (fewer: 32 / nout lanes each) over a part of the rows
         * (cr_exact_cols_parts: whole waves of its warps, parts of at least 32 rows, their doubles and their
         * chunks' in the partials area, a ticket a chunk of CR_EXACT_COLS_FAN parts and one more a group),
         * then the units above
         * over the outputs it marked (one wave of them: most have nothing to do). It writes every group's
         * bit: the units' bits (CR_WS_RETRY_COLS) need no zeroing, and the lanes, which clear what they
         * take, keep theirs (CR_WS_RETRY) at zero. */
        struct cr_exact_job q = j;
        /* parts of at least 32 rows, their doubles in the partials area; past CR_EXACT_COLS_FAN parts, the
         * chunks' doubles beside them, a ticket a chunk and group and one more a group */
        const uint64_t room = cr_partials_area(dev) / (8 * j.nout), fan = CR_EXACT_COLS_FAN;
        uint64_t most = min_u64((j.len + 31) / 32, room);
        if (most > fan) {
            const uint64_t chunks_most = CR_EXACT_COLS_TICKETS / groups > 1 ? CR_EXACT_COLS_TICKETS / groups - 1 : 1;
            most = min_u64(most, chunks_most * fan);
            while (most > fan && most + (most + fan - 1) / fan > room)
                most--;
        }
        const uint64_t cols_wave = (uint64_t)(k->fn_blocks_per_sm[4] > 0 ? k->fn_blocks_per_sm[4] : 1) * dev->sms * warps;
        uint64_t parts = cr_exact_cols_parts(groups, j.len, most, cols_wave);
        if (groups > CR_EXACT_COLS_TICKETS || parts < 1)
            parts = 1;
        q.part = (j.len + parts - 1) / parts;
        q.splits = (unsigned)(q.part ? (j.len + q.part - 1) / q.part : 1);
        if (q.splits < 1)
            q.splits = 1;
        q.unit_warps = 0;
        q.states = a->ws + CR_WS_PARTIALS;
        q.tickets = a->ws + CR_WS_COLS_TICKETS;
        q.retry = j.retry = a->ws + (j.unit_warps ? CR_WS_RETRY_COLS : CR_WS_RETRY);
        q.per_bit = j.per_bit = 1;
        q.group = 1;
        uint64_t qgrid = min_u64((groups * q.splits + warps - 1) / warps, (uint64_t)1 << 20);
        grid = j.unit_warps ? min_u64(grid, resident ? resident : 1) : min_u64((groups + warps - 1) / warps, lanes_resident);
        if (cr_exact_force.grid)
            qgrid = grid = cr_exact_force.grid;
        l = cr_plan_launch(p, 4, cr_div_up(qgrid, 1), 256);
        cr_plan_struct(p, l, &q, sizeof q);
    }
    l = cr_plan_launch(p, j.unit_warps ? 0 : 2, cr_div_up(grid, 1), s.block);
    cr_plan_struct(p, l, &j, sizeof j);
    if (j.splits > 1 && !j.tickets) {
        l = cr_plan_launch(p, 1, cr_div_up(min_u64(j.nout, resident ? resident : 1), 1), 256);
        cr_plan_struct(p, l, &j, sizeof j);
    }
}

static int enumerate(size_t i, struct cr_request *r)
{
    return cr_request_enumerate(i, CR_OP_EXACT, 0, r);
}

const struct cr_family cr_family_exact = {"exact", "exact.cu", 0, offers, build, plan, enumerate};
