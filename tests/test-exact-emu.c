/*
 * test-exact-emu: kernels-src/exact.cu's kernels (exact_reduce, then
 * exact_finish for split outputs) run on the CPU from the file itself
 * (exact_kernel_emu.cc: each block's threads are fibers, with real barriers
 * and shuffles), on jobs filled here as src/family_exact.c fills them:
 * whole arrays, kept and reduced axes (LINEAR with stride 1 and more, GENERAL
 * over two reduced dimensions), segments (int32 and int64 offsets, empty
 * ones, end < begin, offsets out of bounds). Every output is compared bit
 * for bit with exact_ref.c's reference rounded once to the result type, for
 * every element type, result type and operator, under several splits, units
 * and forced small grids (the grid-stride loops wrap), which must all give
 * the same bits; outputs not written keep their sentinel. The data cross the
 * chunks and the 16-byte vectors, start misaligned (the scalar path), and
 * hold cancellations, the whole exponent range, subnormals, ties, sums that
 * overflow only when rounded, NaN, infinities and -0.0.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "exact_emu.h"
#include "exact_kernel_emu.h"
#include "exact_ref.h"
#include "family.h" /* cr_exact_quick_vec */

static unsigned long long seed;

/* Each case seeds its own generator (exact_ref.h) from the run's seed and its name. */
static void rng_for(struct rng *r, const char *name, long i)
{
    rng_seed(r, name, i, seed);
}

static const char *op_names[EOP_COUNT] = {"EXACT_SUM", "EXACT_MEAN", "EXACT_SUM_SQUARES", "EXACT_NORM2", "EXACT_DOT"};
static size_t type_size(int t) { return t == ET_DOUBLE ? 8 : t == ET_FLOAT ? 4 : 2; }
/* The result types a type's exact sums take: itself or a wider float. */
static int result_type(int t, uint64_t k)
{
    static const int rts[4][3] = {{ET_HALF, ET_FLOAT, ET_DOUBLE},
                                  {ET_BF16, ET_FLOAT, ET_DOUBLE},
                                  {ET_FLOAT, ET_DOUBLE, ET_FLOAT},
                                  {ET_DOUBLE, ET_DOUBLE, ET_DOUBLE}};
    return rts[t][k % 3];
}

/* ---- Memory with a PROT_NONE page on each side ---- */
struct guarded {
    void *map;
    size_t map_bytes;
    unsigned char *p; /* 16-byte aligned, ending at most 15 bytes before the high guard */
    size_t bytes;
};
static void guarded_alloc(struct guarded *g, size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), room = (bytes + 15) / 16 * 16,
                 data = (room + page - 1) / page * page;
    g->map_bytes = data + 2 * page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(g->map != MAP_FAILED, "mmap of %zu bytes", g->map_bytes);
    unsigned char *base = (unsigned char *)g->map;
    ck_assert(mprotect(base, page, PROT_NONE) == 0 && mprotect(base + page + data, page, PROT_NONE) == 0);
    g->p = base + page + data - room;
    g->bytes = bytes;
}
static void guarded_free(struct guarded *g)
{
    if (g->map)
        munmap(g->map, g->map_bytes);
    memset(g, 0, sizeof *g);
}

/* ---- Data ---- */
static uint64_t load_bits(int t, const void *p, size_t i)
{
    switch (type_size(t)) {
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}
static void store_bits(int t, void *p, size_t i, uint64_t b)
{
    switch (type_size(t)) {
    case 2: ((uint16_t *)p)[i] = (uint16_t)b; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)b; break;
    default: ((uint64_t *)p)[i] = b; break;
    }
}

/* A random finite pattern of type t in one of the shapes below. */
#define NMODES 7
static const char *mode_names[NMODES] = {"any pattern",   "narrow range", "one binade",     "extremes",
                                         "whole range",   "cancelling",   "specials"};
static uint64_t random_term(struct rng *r, int t, int mode, int e0)
{
    const int p = tys[t].p, emax = tys[t].emax;
    const uint64_t frac = rnd(r) & ((1ull << (p - 1)) - 1), sign = rnd(r) & 1 ? sign_bit(t) : 0;
    uint64_t b;
    switch (mode) {
    case 0: /* any finite pattern */
        do
            b = rnd(r) & (sign_bit(t) * 2 - 1);
        while ((b & ~sign_bit(t)) >= inf_bits(t));
        return b;
    case 1: /* a biased exponent near e0, both signs */
        return sign | (uint64_t)(e0 + (int)rnd_below(r, 4)) << (p - 1) | frac;
    case 2: /* positive, one binade */
        return (uint64_t)e0 << (p - 1) | frac;
    case 3: /* subnormals, the largest, zeros of both signs */
        switch (rnd_below(r, 4)) {
        case 0: return sign | (frac & 0xff);
        case 1: return sign | (max_bits(t) - (frac & 0xff));
        case 2: return sign;
        default: return sign | (uint64_t)(emax + 1) << (p - 1) | frac;
        }
    default: /* exponents over the whole range, both signs */
        return sign | rnd_below(r, (uint64_t)2 * emax + 1) << (p - 1) | frac;
    }
}
/* n terms (and n more for DOT's y) in mode; "cancelling" pairs x with -x
 * (the sum is a few stray terms'), "specials" sprinkles NaN, infinities and
 * -0.0 among ordinary terms. */
static void fill(struct rng *r, int t, int mode, void *x, void *y, size_t n)
{
    const int e0 = 1 + (int)rnd_below(r, (uint64_t)2 * tys[t].emax - 4);
    for (size_t i = 0; i < n; i++) {
        uint64_t a, b;
        if (mode == 5) {
            a = i % 2 && rnd_below(r, 64) ? load_bits(t, x, i - 1) ^ sign_bit(t) : random_term(r, t, 4, e0);
            b = i % 2 && y && rnd_below(r, 64) ? load_bits(t, y, i - 1) : random_term(r, t, 4, e0);
        } else if (mode == 6) {
            const uint64_t k = rnd_below(r, 4000);
            a = k == 0 ? nan_bits(t) : k == 1 ? inf_bits(t) : k == 2 ? inf_bits(t) | sign_bit(t) : k < 500 ? sign_bit(t)
                                                                                               : random_term(r, t, 2, e0);
            b = rnd_below(r, 3000) == 0 ? inf_bits(t) : random_term(r, t, 1, e0);
        } else {
            a = random_term(r, t, mode, e0);
            b = random_term(r, t, mode, e0);
        }
        store_bits(t, x, i, a);
        if (y)
            store_bits(t, y, i, b);
    }
}

/* Short outputs whose terms a double sums exactly (exact_quick's path): one
 * binade near e0 for most outputs; then `count` elements at random positions
 * made into terms a double cannot take beside them (a NaN, an infinity, the
 * largest finite, a subnormal: bits lost where the type's exponents span more
 * than a double), so that some groups of outputs go to the exact state. */
static void salt(struct rng *r, int t, void *x, size_t n, size_t count)
{
    for (size_t k = 0; n && k < count; k++) {
        const uint64_t sign = rnd(r) & 1 ? sign_bit(t) : 0, u = rnd_below(r, 8);
        store_bits(t, x, (size_t)rnd_below(r, n),
                   u == 0 ? nan_bits(t) : u == 1 ? inf_bits(t) | sign : u < 5 ? max_bits(t) | sign : 1 | sign);
    }
}

/* ---- A job, its reference and its runs ---- */
struct job_case {
    int t, rt, op;
    struct cr_exact_job j; /* in, in2, begin, end set; out, states set by run_job */
    size_t in_bytes;      /* the input buffers' bytes from j.in and j.in2 */
    uint64_t *want;       /* nout results' bits */
    uint64_t out_words;   /* results' slots, from out's start (strided outputs leave gaps) */
    uint64_t bad;         /* the guard word expected (segments) */
    int doubles_exact;    /* SUM or MEAN of segments whose terms a double sums exactly: where the long ones all fit
                           * on exact_quick's list, exact_quick and exact_quick_long leave no group to the lanes */
    char what[160];
};

/* Output o's first element and count, read from abi.h's description of the view. */
static void output_span(const struct cr_exact_job *j, uint64_t o, long long *base, uint64_t *len)
{
    if (j->view == EXACT_VIEW_SEGMENTS) {
        const long long b = j->offsets_32 ? ((const int *)(uintptr_t)j->begin)[o] : ((const long long *)(uintptr_t)j->begin)[o];
        const long long e = j->offsets_32 ? ((const int *)(uintptr_t)j->end)[o] : ((const long long *)(uintptr_t)j->end)[o];
        const int bad = b < 0 || e < 0 || (uint64_t)b > j->guard.limit || (uint64_t)e > j->guard.limit;
        *base = bad ? 0 : b;
        *len = !bad && e > b ? (uint64_t)(e - b) : 0;
        return;
    }
    long long at = 0;
    for (int k = j->kept.n - 1; k >= 0; k--) {
        at += (long long)(o % (uint64_t)j->kept.extent[k]) * j->kept.in_stride[k];
        o /= (uint64_t)j->kept.extent[k];
    }
    *base = at;
    *len = j->len;
}
static long long element_at(const struct cr_exact_job *j, uint64_t i)
{
    if (j->view == EXACT_VIEW_SEGMENTS)
        return (long long)i;
    long long at = 0;
    for (int k = j->red.n - 1; k >= 0; k--) {
        at += (long long)(i % (uint64_t)j->red.extent[k]) * j->red.stride[k];
        i /= (uint64_t)j->red.extent[k];
    }
    return at;
}
static uint64_t out_slot(const struct cr_exact_job *j, uint64_t o)
{
    if (j->view == EXACT_VIEW_SEGMENTS)
        return o;
    uint64_t at = 0;
    for (int k = j->kept.n - 1; k >= 0; k--) {
        at += (o % (uint64_t)j->kept.extent[k]) * (uint64_t)j->kept.out_stride[k];
        o /= (uint64_t)j->kept.extent[k];
    }
    return at;
}

static void reference(struct job_case *c)
{
    const struct cr_exact_job *j = &c->j;
    const void *x = (const void *)(uintptr_t)j->in, *y = (const void *)(uintptr_t)j->in2;
    c->want = realloc(c->want, (j->nout ? j->nout : 1) * sizeof *c->want);
    c->out_words = 0;
    c->bad = 0;
    for (uint64_t o = 0; o < j->nout; o++) {
        long long base;
        uint64_t len;
        output_span(j, o, &base, &len);
        if (j->view == EXACT_VIEW_SEGMENTS && !c->bad && len == 0) { /* the lowest bad segment */
            const long long b = j->offsets_32 ? ((const int *)(uintptr_t)j->begin)[o] : ((const long long *)(uintptr_t)j->begin)[o];
            const long long e = j->offsets_32 ? ((const int *)(uintptr_t)j->end)[o] : ((const long long *)(uintptr_t)j->end)[o];
            if (b < 0 || e < 0 || (uint64_t)b > j->guard.limit || (uint64_t)e > j->guard.limit)
                c->bad = ~o;
        }
        struct ref r;
        ref_init(&r);
        for (uint64_t i = 0; i < len; i++) {
            const long long at = base + element_at(j, i);
            const double v = value(c->t, load_bits(c->t, x, (size_t)at));
            if (c->op == EOP_SUM || c->op == EOP_MEAN)
                ref_term(&r, v);
            else
                ref_product(&r, v, c->op == EOP_DOT ? value(c->t, load_bits(c->t, y, (size_t)at)) : v);
        }
        c->want[o] = c->op == EOP_NORM2 ? ref_norm2(&r, c->rt) : ref_round(&r, c->rt, c->op == EOP_MEAN ? len : 1);
        const uint64_t slot = out_slot(j, o) + 1;
        if (slot > c->out_words)
            c->out_words = slot;
    }
}

#define SENTINEL 0xababababababababull
#define MAX_VARIANTS 8
struct variant {
    unsigned splits, uw, grid, finish_grid;
    int fused; /* split outputs meet in accumulators by tickets (no exact_finish) */
    uint64_t part;
    int quick;               /* 1: exact_quick first (a lane variant), 2: exact_quick_columns first (a unit variant) */
    unsigned group, per_bit; /* exact_quick's lanes an output and groups a bit */
    unsigned vec;            /* exact_quick reads 16-byte vectors (where the planner would allow it) */
    unsigned qsplits, quick_grid; /* exact_quick_columns' parts an output; the first kernel's grid */
    unsigned long_len, long_cap, long_grid; /* segments: exact_quick's list for exact_quick_long (long_len 0: none) */
    unsigned long_piece;                    /* the terms of the list's pieces */
};
#define MAX_OUT 4096
static uint64_t got_bits[MAX_VARIANTS][MAX_OUT], owner[4 * MAX_OUT];

/* The split of len elements into about n parts of multiples of grain (family_exact.c's cr_exact_split
 * rounds to the chunk). */
static void split_of(uint64_t len, uint64_t n, unsigned grain, unsigned *splits, uint64_t *part)
{
    if (n < 2) {
        *splits = 1;
        *part = (uint64_t)1 << 62;
        return;
    }
    uint64_t p = (len + n - 1) / n;
    p = (p + grain - 1) / grain * grain;
    if (p == 0)
        p = grain;
    n = (len + p - 1) / p;
    *splits = n < 1 ? 1 : (unsigned)n;
    *part = n <= 1 ? (uint64_t)1 << 62 : p;
}

/* The entries of exact_quick's list for a job's segments over long_len terms, in pieces of long_piece (exact.cu's
 * exact_piece_len). */
static uint64_t pieces_needed(const struct cr_exact_job *j, unsigned long_len, unsigned long_piece)
{
    uint64_t all = 0;
    for (uint64_t o = 0; o < j->nout; o++) {
        long long base;
        uint64_t n;
        output_span(j, o, &base, &n);
        if (n <= long_len)
            continue;
        const uint64_t least = (n + CR_EXACT_LONG_PIECES - 1) / CR_EXACT_LONG_PIECES, plen = least > long_piece ? least : long_piece;
        all += (n + plen - 1) / plen;
    }
    return all;
}

/* Runs the job under each variant; every output's bits must be the
 * reference's, the same in every variant, and nothing else written. */
static void run_job(struct job_case *c, const struct variant *v, int nv)
{
    ck_assert(c->j.nout <= MAX_OUT && nv <= MAX_VARIANTS);
    reference(c);
    ck_assert(c->out_words <= 4 * MAX_OUT);
    const unsigned words = emu_exact_kernel_record_words(c->t, c->op);
    const size_t rsize = type_size(c->rt);
    for (int k = 0; k < nv; k++) {
        struct cr_exact_job j = c->j;
        j.splits = v[k].splits;
        j.unit_warps = v[k].uw;
        j.part = v[k].part;
        struct guarded out, states;
        /* about half the variants' results one slot past a 16-byte boundary (stores of whole vectors then
         * fall back), drawn apart from the variant's place (exact_quick's is always the sixth) */
        const size_t oshift = (size_t)(((j.nout + (uint64_t)k) * 0x9e3779b97f4a7c15ull) >> 63);
        guarded_alloc(&out, (size_t)((c->out_words ? c->out_words : 1) + oshift) * rsize);
        memset(out.p, 0xab, out.bytes);
        unsigned char *results = out.p + oshift * rsize;
        /* fused: an accumulator and a ticket an output, zero before and (kept at zero) after */
        guarded_alloc(&states, (size_t)(v[k].fused ? j.nout : j.nout * j.splits + 1) * words * 8);
        memset(states.p, v[k].fused ? 0 : 0xab, states.bytes);
        unsigned *tickets = v[k].fused ? calloc(j.nout, sizeof *tickets) : NULL;
        ck_assert(!v[k].fused || tickets);
        unsigned long long guard_word = 0;
        /* exact_quick's retry bits: zero before, and (kept at zero) after; exact_quick_columns' bits: anything
         * before (each call rewrites its groups'), its tickets zero before and after, its parts' doubles */
        const uint64_t groups = (j.nout + 31) / 32;
        const size_t retry_words = v[k].quick ? (groups + v[k].per_bit - 1) / v[k].per_bit / 32 + 1 : 0;
        unsigned *retry = retry_words ? calloc(retry_words, sizeof *retry) : NULL, *qtickets = NULL;
        uint64_t qchunks = 0, qtickets_n = 0;
        double *qparts = NULL;
        ck_assert(!retry_words || retry);
        j.retry = (uintptr_t)retry;
        j.group = v[k].group;
        j.per_bit = v[k].per_bit;
        j.vec = v[k].vec;
        j.out = (uintptr_t)results;
        j.states = (uintptr_t)states.p;
        j.tickets = (uintptr_t)tickets;
        if (j.view == EXACT_VIEW_SEGMENTS)
            j.guard.bad = (uintptr_t)&guard_word;
        /* the long segments' list: entries poisoned, its three words zero before and (kept at zero) after */
        struct guarded longs;
        unsigned long_count[3] = {0, 0, 0};
        memset(&longs, 0, sizeof longs);
        if (v[k].long_len) {
            guarded_alloc(&longs, (size_t)v[k].long_cap * sizeof(struct cr_long_entry));
            memset(longs.p, 0xab, longs.bytes);
            j.longs = (uintptr_t)longs.p;
            j.long_count = (uintptr_t)long_count;
            j.long_len = v[k].long_len;
            j.long_cap = v[k].long_cap;
            j.long_piece = v[k].long_piece;
        }
        struct cr_exact_job q = j;
        if (v[k].quick == 2) {
            struct rng garbage; /* what the bits held before */
            rng_for(&garbage, "garbage", k);
            for (size_t w = 0; w < retry_words; w++) /* the lanes' bits are zero past the groups' */
                retry[w] = (unsigned)rnd(&garbage) & (j.unit_warps || (w + 1) * 32 <= groups ? ~0u
                                                      : w * 32 >= groups ? 0u : ~(~0u << (groups % 32)));
            qchunks = (v[k].qsplits + CR_EXACT_COLS_FAN - 1) / CR_EXACT_COLS_FAN;
            qtickets_n = groups * (qchunks > 1 ? qchunks + 1 : 1); /* a ticket a chunk of parts, one more a group */
            qtickets = calloc(qtickets_n, sizeof *qtickets);
            qparts = malloc((size_t)(j.nout * (v[k].qsplits + qchunks)) * sizeof *qparts); /* the parts', then the chunks' */
            ck_assert(qtickets && qparts);
            q.splits = v[k].qsplits;
            q.part = (j.len + q.splits - 1) / q.splits;
            q.unit_warps = 0;
            q.states = (uintptr_t)qparts;
            q.tickets = (uintptr_t)qtickets;
            q.group = 1;
            q.vec = 0;
        }
        const char *err = NULL;
        const uint64_t run_seed = seed * 31 + (uint64_t)k;
        const int rc = emu_exact_kernel_run(c->t, c->rt, c->op, &j, v[k].grid, v[k].finish_grid,
                                            v[k].quick ? &q : NULL, v[k].quick == 2, v[k].quick_grid, v[k].long_grid,
                                            (const void *)(uintptr_t)j.in,
                                            c->in_bytes, (const void *)(uintptr_t)j.in2, j.in2 ? c->in_bytes : 0,
                                            run_seed, &err);
        if (rc)
            ck_abort_msg("%s, splits %u, unit_warps %u, grid %u, quick lanes %u, vec %u, long %u/%u/%u, pieces of %u: %s (seed %llu; rerun with: "
                         "CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                         c->what, v[k].splits, v[k].uw, v[k].grid, v[k].group, v[k].vec, v[k].long_len, v[k].long_cap,
                         v[k].long_grid, v[k].long_piece, err, seed, seed);
        if (c->doubles_exact && v[k].quick == 1 && v[k].long_len &&
            pieces_needed(&c->j, v[k].long_len, v[k].long_piece) <= v[k].long_cap && emu_exact_quick_marked)
            ck_abort_msg("%s, quick lanes %u, long %u/%u/%u, pieces of %u: %llu groups left to the lanes, where doubles sum "
                         "every segment exactly (seed %llu; rerun with: CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                         c->what, v[k].group, v[k].long_len, v[k].long_cap, v[k].long_grid, v[k].long_piece,
                         emu_exact_quick_marked, seed, seed);
        if (long_count[0] || long_count[1] || long_count[2])
            ck_abort_msg("%s, quick lanes %u, long %u/%u/%u, pieces of %u: the list's words left at %u %u %u, not zero (seed %llu; rerun with: "
                         "CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                         c->what, v[k].group, v[k].long_len, v[k].long_cap, v[k].long_grid, v[k].long_piece, long_count[0], long_count[1],
                         long_count[2], seed, seed);
        if (v[k].long_len)
            guarded_free(&longs);
        for (uint64_t s = 0; s < c->out_words; s++)
            owner[s] = 0;
        for (uint64_t o = 0; o < j.nout; o++)
            owner[out_slot(&j, o)] = o + 1;
        for (uint64_t s = 0; s < c->out_words; s++) {
            const uint64_t b = load_bits(c->rt, results, (size_t)s);
            if (owner[s]) {
                const uint64_t o = owner[s] - 1;
                got_bits[k][o] = b;
                if (b != c->want[o])
                    ck_abort_msg("%s, splits %u, unit_warps %u, grid %u, quick lanes %u, vec %u, long %u/%u, pieces of %u: output %llu of %llu is 0x%llx, "
                                 "want 0x%llx (seed %llu; rerun with: CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                                 c->what, v[k].splits, v[k].uw, v[k].grid, v[k].group, v[k].vec, v[k].long_len, v[k].long_cap,
                                 v[k].long_piece, (unsigned long long)o,
                                 (unsigned long long)j.nout, (unsigned long long)b, (unsigned long long)c->want[o],
                                 seed, seed);
                if (k && b != got_bits[0][o])
                    ck_abort_msg("%s: output %llu differs between variants", c->what, (unsigned long long)o);
            } else if (b != (SENTINEL & ((rsize == 8 ? 0 : 1ull << (8 * rsize)) - 1))) {
                ck_abort_msg("%s, splits %u, unit_warps %u, grid %u, quick lanes %u, vec %u: slot %llu, no output's, written (seed %llu; "
                             "rerun with: CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                             c->what, v[k].splits, v[k].uw, v[k].grid, v[k].group, v[k].vec, (unsigned long long)s, seed, seed);
            }
        }
        if (v[k].fused) {
            for (size_t b = 0; b < states.bytes; b++)
                if (((const unsigned char *)states.p)[b])
                    ck_abort_msg("%s, splits %u: accumulator byte %zu left at 0x%x, not zero (seed %llu; rerun with: "
                                 "CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                                 c->what, v[k].splits, b, ((const unsigned char *)states.p)[b], seed, seed);
            for (uint64_t o = 0; o < j.nout; o++)
                if (tickets[o])
                    ck_abort_msg("%s, splits %u: ticket %llu left at %u, not zero (seed %llu; rerun with: "
                                 "CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                                 c->what, v[k].splits, (unsigned long long)o, tickets[o], seed, seed);
            free(tickets);
        }
        for (uint64_t g = 0; qtickets && g < qtickets_n; g++)
            if (qtickets[g])
                ck_abort_msg("%s, %u parts a column: ticket %llu left at %u, not zero (seed %llu; rerun with: "
                             "CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                             c->what, v[k].qsplits, (unsigned long long)g, qtickets[g], seed, seed);
        free(qtickets);
        free(qparts);
        for (size_t w = 0; (v[k].quick == 1 || (v[k].quick == 2 && !j.unit_warps)) && w < retry_words; w++)
            if (retry[w])
                ck_abort_msg("%s, %u lanes an output: retry word %zu left at 0x%x, not zero (seed %llu; rerun with: "
                             "CURED_TEST_SEED=%llu ./tests/test-exact-emu)",
                             c->what, v[k].group, w, retry[w], seed, seed);
        free(retry);
        if (j.view == EXACT_VIEW_SEGMENTS && guard_word != c->bad)
            ck_abort_msg("%s: the guard word is 0x%llx, want 0x%llx (seed %llu; rerun with: CURED_TEST_SEED=%llu "
                         "./tests/test-exact-emu)",
                         c->what, guard_word, (unsigned long long)c->bad, seed, seed);
        guarded_free(&out);
        guarded_free(&states);
    }
}

/* The variants of a job of nout outputs of len elements: one unit, the
 * block's warps as one unit, several parts (also with more parts than
 * elements, empty ones at the end), a lane an output (unit_warps 0), on
 * grids from 1 block to the natural one. */
static int variants(struct rng *r, const struct job_case *c, uint64_t len, struct variant *v)
{
    const unsigned block = emu_exact_kernel_block(c->t, c->op), warps = block / 32,
                   chunk = emu_exact_kernel_chunk(c->t, c->op);
    int nv = 0;
    const int quick = c->t != ET_DOUBLE && (c->op == EOP_SUM || c->op == EOP_MEAN) && c->j.view != EXACT_VIEW_GENERAL;
    for (int k = 0; k < 7; k++) {
        struct variant x;
        memset(&x, 0, sizeof x);
        x.uw = k >= 4 && k < 6 ? 0 : k % 2 ? warps : 1;
        x.fused = 0;
        if (k == 6) { /* exact_quick_columns first (any LINEAR view), then units over what it marked, split or not */
            if (!quick || c->j.view != EXACT_VIEW_LINEAR)
                continue;
            x.quick = 2;
            x.uw = rnd_below(r, 2) ? warps : 1;
            x.per_bit = 1;
            /* past 8: the merge's batches of 8; past CR_EXACT_COLS_FAN: chunks of parts meet first */
            x.qsplits = 1 + (unsigned)rnd_below(r, rnd_below(r, 3) ? 5 : rnd_below(r, 2) ? 24 : 3 * CR_EXACT_COLS_FAN);
            x.splits = 1;
            x.part = (uint64_t)1 << 62;
            if (rnd_below(r, 3) == 0) /* the lanes take the marked groups */
                x.uw = 0;
            else if (rnd_below(r, 2)) {
                split_of(len, 2 + rnd_below(r, 4), rnd_below(r, 2) ? chunk : 1024, &x.splits, &x.part);
                x.fused = x.splits > 1 && rnd_below(r, 2);
            }
            const uint64_t groups = (c->j.nout + 31) / 32, units = x.uw ? c->j.nout * x.splits : groups,
                           natural = x.uw ? (units + warps / x.uw - 1) / (warps / x.uw) : (groups + warps - 1) / warps;
            x.grid = (unsigned)(rnd_below(r, 2) ? (natural ? natural : 1) : 1 + rnd_below(r, 2));
            x.finish_grid = (unsigned)(1 + rnd_below(r, c->j.nout < 3 ? c->j.nout : 3));
            x.quick_grid = (unsigned)(rnd_below(r, 2) ? (groups * x.qsplits + 7) / 8 : 1 + rnd_below(r, 3));
            v[nv++] = x;
            continue;
        }
        if (k == 5) { /* exact_quick first, any lanes an output, the bits' groups and both grids drawn */
            if (!quick)
                continue;
            x.quick = 1;
            x.splits = 1;
            x.part = (uint64_t)1 << 62;
            x.group = 1u << rnd_below(r, 6);
            x.per_bit = 1 + (unsigned)rnd_below(r, 3);
            x.vec = rnd_below(r, 4) ? (unsigned)cr_exact_quick_vec(&c->j, type_size(c->t)) : 0; /* whole vectors, or terms */
            const uint64_t groups = (c->j.nout + 31) / 32, natural = (groups + warps - 1) / warps,
                           qnatural = (groups * x.group + 31) / 32; /* 8 warps of 4 items a block */
            x.grid = (unsigned)(rnd_below(r, 2) ? (natural ? natural : 1) : 1 + rnd_below(r, 2));
            x.quick_grid = (unsigned)(rnd_below(r, 2) ? (qnatural ? qnatural : 1) : 1 + rnd_below(r, 3));
            x.finish_grid = 1;
            if (c->j.view == EXACT_VIEW_SEGMENTS && rnd_below(r, 4)) { /* the long ones listed: short lists, full ones */
                static const unsigned lens[] = {1, 8, 40, 64, 300};
                x.long_len = rnd_below(r, 2) ? lens[rnd_below(r, 5)] : cr_exact_long_len(x.group);
                /* pieces of a few terms (many a segment: their tickets), odd ones (unaligned vectors), the planner's */
                static const unsigned pieces[] = {1, 7, 64, 100, 256};
                x.long_piece = rnd_below(r, 3) ? pieces[rnd_below(r, 5)] : CR_EXACT_LONG_PIECE_BYTES / (unsigned)type_size(c->t);
                x.long_cap = rnd_below(r, 3) ? (unsigned)c->j.nout * (rnd_below(r, 2) ? 1 : 64) : 1 + (unsigned)rnd_below(r, 8);
                x.long_grid = 1 + (unsigned)rnd_below(r, rnd_below(r, 2) ? 3 : 40);
            }
            v[nv++] = x;
            continue;
        }
        if (k == 4) { /* a lane an output, a warp 32 of them (in parts, but segments) */
            x.splits = 1;
            x.part = (uint64_t)1 << 62;
            if (c->j.view != EXACT_VIEW_SEGMENTS && rnd_below(r, 2)) {
                split_of(len, 2 + rnd_below(r, 5), 1 + (unsigned)rnd_below(r, 700), &x.splits, &x.part);
                x.fused = x.splits > 1 && rnd_below(r, 2);
            }
            const uint64_t units = (c->j.nout + 31) / 32 * x.splits, natural = (units + warps - 1) / warps,
                           g = rnd_below(r, 2) ? natural : 1 + rnd_below(r, 2);
            x.grid = (unsigned)(g < natural ? g : natural ? natural : 1);
            x.finish_grid = 1;
            v[nv++] = x;
            continue;
        }
        if (k < 2 || c->j.view == EXACT_VIEW_SEGMENTS) {
            x.splits = 1;
            x.part = (uint64_t)1 << 62;
            if (k >= 2)
                continue;
        } else {
            split_of(len, 2 + rnd_below(r, 12), rnd_below(r, 2) ? chunk : 1024, &x.splits, &x.part); /* the kernels take any multiple of 64 */
            if (rnd_below(r, 4) == 0 && x.splits > 1)
                x.splits += 1 + (unsigned)rnd_below(r, 2); /* empty parts past the end */
            x.fused = x.splits > 1 && rnd_below(r, 2);
        }
        const uint64_t units = c->j.nout * x.splits, per_block = warps / x.uw,
                       natural = (units + per_block - 1) / per_block;
        const uint64_t g = rnd_below(r, 3) == 0 ? natural : 1 + rnd_below(r, 3);
        x.grid = (unsigned)(g < natural ? g : natural ? natural : 1);
        x.finish_grid = (unsigned)(1 + rnd_below(r, c->j.nout < 3 ? c->j.nout : 3));
        v[nv++] = x;
    }
    return nv;
}

static void whole_job(struct job_case *c, const void *x, const void *y, size_t n, size_t bytes)
{
    memset(&c->j, 0, sizeof c->j);
    c->j.in = (uintptr_t)x;
    c->j.in2 = (uintptr_t)y;
    c->j.nout = 1;
    c->j.len = n;
    c->j.red.n = 1;
    c->j.red.extent[0] = (long long)n;
    c->j.red.stride[0] = 1;
    c->j.view = EXACT_VIEW_LINEAR;
    c->in_bytes = bytes;
}

/* ---- Whole arrays ---- */
/* Lengths about the chunk and the vectors: 0, a few, a chunk and one more or
 * less, several chunks and a vector's odd elements. */
static size_t whole_length(struct rng *r, unsigned chunk, size_t vec)
{
    switch (rnd_below(r, 6)) {
    case 0: return rnd_below(r, 3) == 0 ? 0 : rnd_below(r, 70);
    case 1: return chunk - 1 + rnd_below(r, 3);
    case 2: return 2 * chunk + vec * 32 + rnd_below(r, 2 * vec);
    case 3: return (1 + rnd_below(r, 3)) * chunk + rnd_below(r, 3) - 1;
    case 4: return rnd_below(r, 4 * chunk);
    default: return 8 * chunk + rnd_below(r, chunk);
    }
}

START_TEST(test_whole)
{
    struct job_case c;
    memset(&c, 0, sizeof c);
    c.t = _i % 4;
    c.op = _i / 4 % EOP_COUNT;
    struct rng r;
    rng_for(&r, "whole", _i);
    c.rt = result_type(c.t, rnd(&r));
    const unsigned chunk = emu_exact_kernel_chunk(c.t, c.op);
    const size_t es = type_size(c.t), vec = 16 / es, n = whole_length(&r, chunk, vec);
    const size_t mis = rnd_below(&r, 2) ? rnd_below(&r, vec) : 0, ymis = c.op == EOP_DOT && rnd_below(&r, 3) == 0 ? 1 : 0;
    const int mode = (int)rnd_below(&r, NMODES);
    struct guarded gx, gy;
    memset(&gy, 0, sizeof gy);
    guarded_alloc(&gx, (n + mis + 1) * es);
    void *x = gx.p + mis * es, *y = NULL;
    if (c.op == EOP_DOT) {
        guarded_alloc(&gy, (n + mis + ymis + 1) * es);
        y = gy.p + (mis + ymis) * es;
    }
    fill(&r, c.t, mode, x, y, n);
    whole_job(&c, x, y, n, n * es);
    snprintf(c.what, sizeof c.what, "%s of %zu %s (%s, %zu elements off 16 bytes) into %s", op_names[c.op], n,
             tys[c.t].name, mode_names[mode], mis, tys[c.rt].name);
    struct variant v[MAX_VARIANTS];
    const int nv = variants(&r, &c, n, v);
    run_job(&c, v, nv);
    guarded_free(&gx);
    guarded_free(&gy);
    free(c.want);
}
END_TEST

/* ---- Adversarial sums: a few terms among zeros, far apart (other lanes, chunks and parts) ---- */
/* x: len elements, +0.0 (or -0.0 when neg_zeros) but for the terms v[k] at
 * spread positions; y (DOT) all ones, so that DOT's products are x's terms.
 * Skipped when a term is not a value of t. Every result type, two variants. */
static void adversarial(int t, int op, const char *name, size_t len, int neg_zeros, const double *v, size_t nv,
                        int every)
{
    const size_t es = type_size(t);
    struct guarded gx, gy;
    memset(&gy, 0, sizeof gy);
    guarded_alloc(&gx, (len + 1) * es);
    if (op == EOP_DOT)
        guarded_alloc(&gy, (len + 1) * es);
    for (size_t i = 0; i < len; i++) {
        store_bits(t, gx.p, i, neg_zeros ? sign_bit(t) : 0);
        if (op == EOP_DOT)
            store_bits(t, gy.p, i, bits_of(t, 1.0));
    }
    for (size_t k = 0; k < nv; k++) {
        const uint64_t b = bits_of(t, v[k]);
        const double back = value(t, b);
        if (!(back == v[k] || (isnan(back) && isnan(v[k]))) || !!signbit(back) != !!signbit(v[k]))
            goto done; /* not a value of t */
        const size_t at = nv == 1 ? len / 2 : k * (len - 1) / (nv - 1); /* first, ..., last */
        store_bits(t, gx.p, at, b);
        for (size_t i = k; every && i < len; i += nv) /* every: all of x, the terms in turn */
            store_bits(t, gx.p, i, b);
    }
    for (uint64_t k = 0; k < 3; k++) {
        const int rt = result_type(t, k);
        if (k && rt == result_type(t, 0))
            continue;
        struct job_case c;
        memset(&c, 0, sizeof c);
        c.t = t, c.op = op, c.rt = rt;
        whole_job(&c, gx.p, op == EOP_DOT ? gy.p : NULL, len, len * es);
        snprintf(c.what, sizeof c.what, "%s: %s of %zu %s into %s", name, op_names[op], len, tys[t].name, tys[rt].name);
        const unsigned block = emu_exact_kernel_block(t, op), chunk = emu_exact_kernel_chunk(t, op);
        struct variant var[3];
        memset(var, 0, sizeof var);
        var[0].splits = 1, var[0].uw = block / 32, var[0].part = (uint64_t)1 << 62, var[0].grid = 1, var[0].finish_grid = 1;
        var[0].fused = 0;
        split_of(len, 3, chunk, &var[1].splits, &var[1].part);
        var[1].uw = 1, var[1].grid = 1, var[1].finish_grid = 1, var[1].fused = 0;
        var[2] = var[1];
        var[2].fused = var[1].splits > 1;
        run_job(&c, var, var[2].fused ? 3 : 2);
        free(c.want);
    }
done:
    guarded_free(&gx);
    guarded_free(&gy);
}
#define ADV(name, neg_zeros, ...)                                                                  \
    do {                                                                                           \
        const double v_[] = {__VA_ARGS__};                                                         \
        adversarial(t, op, name, len, neg_zeros, v_, sizeof v_ / sizeof *v_, 0);                   \
    } while (0)
#define ADV_EVERY(name, ...)                                                                       \
    do {                                                                                           \
        const double v_[] = {__VA_ARGS__};                                                         \
        adversarial(t, op, name, len, 0, v_, sizeof v_ / sizeof *v_, 1);                           \
    } while (0)

START_TEST(test_adversarial)
{
    const int t = _i % 4, op = _i / 4 % EOP_COUNT, p = tys[t].p, emax = tys[t].emax;
    const size_t len = 2 * emu_exact_kernel_chunk(t, op) + 37;
    const double mx = value(t, max_bits(t)), tiny = value(t, 1), inf = INFINITY, nan = NAN;
    const double huge = ldexp(1.0, emax - 1), hulp = ldexp(1.0, emax - p); /* half an ulp of the largest */
    ADV("cancellation", 0, huge, 1, -huge);
    ADV("cancellation", 0, mx, tiny, -mx);
    ADV("cancellation to a subnormal", 0, 3 * tiny, -2 * tiny);
    ADV("whole range, alternating signs", 0, mx, -ldexp(1.0, emax / 2), ldexp(1.0, -emax / 2), -tiny, tiny * 5, -mx);
    ADV("a tie of the element type (to even)", 0, 1, ldexp(1.0, -p));
    ADV("a tie of the element type (up)", 0, 1 + ldexp(1.0, 1 - p), ldexp(1.0, -p));
    ADV("just below a tie", 0, 1, ldexp(1.0, -p), -tiny);
    ADV("a tie of float32", 0, 1, ldexp(1.0, -24));
    ADV("a tie of float64", 0, 1, ldexp(1.0, -53));
    ADV("overflow only when rounded", 0, mx, hulp);
    ADV("no overflow: below the tie", 0, mx, hulp, -tiny);
    ADV("the largest twice", 0, mx, mx, -mx);
    ADV("subnormals", 0, tiny, tiny, tiny, tiny, tiny);
    /* every element within 2^16 of the largest: a lane's share of a chunk would overflow a front of
     * the element type's width (the float bins of bfloat16 take terms only below 2^113) */
    ADV_EVERY("every term near the largest", ldexp(1.875, emax - 7), ldexp(1.5, emax - 7), ldexp(1.25, emax - 12),
              ldexp(1.75, emax - 15), ldexp(1.0, emax - 3));
    /* float64 squares near 2^-980, whose rounding errors are below the smallest subnormal */
    ADV("products near the underflow", 0, ldexp(1 + 3 * ldexp(1.0, -52), -490), -ldexp(1 + 5 * ldexp(1.0, -52), -489),
        ldexp(1 + ldexp(1.0, -51), -485));
    ADV("all -0.0", 1, -0.0);
    ADV("-0.0 and a +0.0", 1, 0.0);
    ADV("NaN", 0, 1, nan, 2);
    ADV("both infinities", 0, inf, 1, -inf);
    ADV("+inf", 0, inf, -mx, inf);
    ADV("-inf", 0, -inf, mx);
    if (op == EOP_DOT || op == EOP_MEAN || op == EOP_SUM) { /* n == 0, n == 1 */
        const double one[] = {-0.0};
        adversarial(t, op, "no elements", 0, 0, one, 0, 0);
        adversarial(t, op, "one -0.0", 1, 1, one, 1, 0);
    }
}
END_TEST

/* ---- Axes: kept and reduced dimensions of a 2-D or 3-D array ---- */
static const char *axes_kinds[5] = {"[A, B] over B (stride 1)", "[A, B] over A (stride B)",
                                    "[A, B, C] over A and C (general)", "[A, B, C] over B and C (general)",
                                    "[A, B, C] over B (stride C, two kept)"};
START_TEST(test_axes)
{
    struct job_case c;
    memset(&c, 0, sizeof c);
    c.t = _i % 4;
    c.op = _i / 4 % EOP_COUNT;
    struct rng r;
    const int quick = _i >= 8 * EOP_COUNT; /* many short outputs (the lanes, exact_quick) */
    rng_for(&r, "axes", _i);
    c.rt = result_type(c.t, rnd(&r));
    const unsigned chunk = emu_exact_kernel_chunk(c.t, c.op);
    /* half the quick cases: aligned rows of whole 16-byte vectors (exact_quick reads them by vectors) */
    const int vecrows = quick && rnd_below(&r, 2) == 0;
    /* a quarter: aligned columns of whole vectors (exact_quick reads a vector of neighbouring outputs a row) */
    const int veccols = quick && !vecrows && rnd_below(&r, 2) == 0;
    const int kind = vecrows ? 0 : veccols ? 1 : (int)rnd_below(&r, 5), mode = quick && rnd_below(&r, 4) ? 2 : (int)rnd_below(&r, NMODES);
    const size_t es = type_size(c.t), vec = 16 / es;
    /* a reduced length about a chunk (or a few elements), outputs few enough for the whole to stay near 3 chunks;
     * or (quick) 32 to 600 outputs of 1 to 300 elements (or of whole 16-byte vectors, up to 256 elements) */
    /* a third of those: rows of 2, 4 or 8 terms dividing the vector (exact_quick takes a vector of rows) */
    const int packed = vecrows && rnd_below(&r, 3) == 0;
    const uint64_t red = quick ? (packed    ? (uint64_t)2 << rnd_below(&r, vec == 8 ? 3 : vec == 4 ? 2 : 1)
                                  : vecrows ? vec * (1 + rnd_below(&r, rnd_below(&r, 2) ? 4 : rnd_below(&r, 3) ? 256 / vec : 256))
                                  : veccols && rnd_below(&r, 3) == 0 ? 1 /* outputs of one term */
                                          : 1 + rnd_below(&r, rnd_below(&r, 2) ? 8 : 300))
                         : rnd_below(&r, 3) ? chunk - vec + rnd_below(&r, 2 * vec + 1) + (rnd_below(&r, 2) ? chunk : 0)
                                            : 1 + rnd_below(&r, 3 * vec);
    uint64_t kept = quick ? 32 + rnd_below(&r, red > 64 ? 100 : 568) : 1 + rnd_below(&r, red > chunk ? 3 : 40);
    if (veccols)
        kept = (kept + vec - 1) / vec * vec;
    if (packed) /* whole vectors of rows */
        kept = (kept + vec / red - 1) / (vec / red) * (vec / red);
    uint64_t A, B, C = 1;
    const uint64_t os = 1 + rnd_below(&r, 2); /* results every os slots */
    struct cr_exact_job *j = &c.j;
    memset(j, 0, sizeof *j);
    j->view = EXACT_VIEW_LINEAR;
    j->kept.n = 1;
    j->red.n = 1;
    switch (kind) {
    case 0:
        A = kept, B = red;
        j->kept.extent[0] = (long long)A, j->kept.in_stride[0] = (long long)B;
        j->red.extent[0] = (long long)B, j->red.stride[0] = 1;
        break;
    case 1:
        A = red, B = kept;
        j->kept.extent[0] = (long long)B, j->kept.in_stride[0] = 1;
        j->red.extent[0] = (long long)A, j->red.stride[0] = (long long)B;
        break;
    case 2: /* red = A C */
        C = 1 + rnd_below(&r, 2 * vec + 3), A = (red + C - 1) / C, B = kept;
        j->kept.extent[0] = (long long)B, j->kept.in_stride[0] = (long long)C;
        j->red.n = 2, j->view = EXACT_VIEW_GENERAL;
        j->red.extent[0] = (long long)A, j->red.stride[0] = (long long)(B * C);
        j->red.extent[1] = (long long)C, j->red.stride[1] = 1;
        break;
    case 3: /* red = B C */
        C = 1 + rnd_below(&r, 2 * vec + 3), B = (red + C - 1) / C, A = kept;
        j->kept.extent[0] = (long long)A, j->kept.in_stride[0] = (long long)(B * C);
        j->red.n = 2, j->view = EXACT_VIEW_GENERAL;
        j->red.extent[0] = (long long)B, j->red.stride[0] = (long long)C;
        j->red.extent[1] = (long long)C, j->red.stride[1] = 1;
        break;
    default: /* kept A and C */
        C = 1 + rnd_below(&r, 4), A = (kept + C - 1) / C, B = red;
        j->kept.n = 2;
        j->kept.extent[0] = (long long)A, j->kept.in_stride[0] = (long long)(B * C);
        j->kept.extent[1] = (long long)C, j->kept.in_stride[1] = 1;
        j->red.extent[0] = (long long)B, j->red.stride[0] = (long long)C;
        break;
    }
    j->nout = 1;
    for (int k = 0; k < j->kept.n; k++)
        j->nout *= (uint64_t)j->kept.extent[k];
    for (int k = j->kept.n - 1, at = (int)os; k >= 0; k--) { /* row-major results, os apart */
        j->kept.out_stride[k] = at;
        at *= (int)j->kept.extent[k];
    }
    j->len = 1;
    for (int k = 0; k < j->red.n; k++)
        j->len *= (uint64_t)j->red.extent[k];
    const size_t n = (size_t)(A * B * C), mis = !vecrows && !veccols && rnd_below(&r, 2) ? rnd_below(&r, vec) : 0;
    struct guarded gx, gy;
    memset(&gy, 0, sizeof gy);
    guarded_alloc(&gx, (n + mis) * es);
    void *x = gx.p + mis * es, *y = NULL;
    if (c.op == EOP_DOT) {
        guarded_alloc(&gy, (n + mis) * es);
        y = gy.p + mis * es;
    }
    fill(&r, c.t, mode, x, y, n);
    if (quick && mode == 2)
        salt(&r, c.t, x, n, rnd_below(&r, 3) ? rnd_below(&r, 1 + j->nout / 16) : 0);
    j->in = (uintptr_t)x;
    j->in2 = (uintptr_t)y;
    c.in_bytes = n * es;
    snprintf(c.what, sizeof c.what, "%s of %s %s, A %llu B %llu C %llu (%s, %zu elements off 16 bytes) into %s",
             op_names[c.op], tys[c.t].name, axes_kinds[kind], (unsigned long long)A, (unsigned long long)B,
             (unsigned long long)C, mode_names[mode], mis, tys[c.rt].name);
    struct variant v[MAX_VARIANTS];
    const int nv = variants(&r, &c, j->len, v);
    run_job(&c, v, nv);
    guarded_free(&gx);
    guarded_free(&gy);
    free(c.want);
}
END_TEST

/* ---- Segments ---- */
/* Segment k's offsets into the begin and end arrays (int32 or int64). */
static void store_offsets(struct guarded *gb, struct guarded *ge, int o32, uint64_t k, long long b, long long e)
{
    if (o32) {
        ((int *)gb->p)[k] = (int)b;
        ((int *)ge->p)[k] = (int)e;
    } else {
        ((long long *)gb->p)[k] = b;
        ((long long *)ge->p)[k] = e;
    }
}

/* c's job over nseg segments of x (and y) given by gb and ge, n elements of es bytes, as family_exact.c fills
 * it: no reduced dimensions. */
static void segments_job(struct job_case *c, const void *x, const void *y, uint64_t nseg, const struct guarded *gb,
                         const struct guarded *ge, int o32, size_t n, size_t es)
{
    struct cr_exact_job *j = &c->j;
    memset(j, 0, sizeof *j);
    j->in = (uintptr_t)x;
    j->in2 = (uintptr_t)y;
    j->nout = nseg;
    j->begin = (uintptr_t)gb->p;
    j->end = (uintptr_t)ge->p;
    j->offsets_32 = (unsigned)o32;
    j->guard.limit = n;
    j->view = EXACT_VIEW_SEGMENTS;
    c->in_bytes = n * es;
}

START_TEST(test_segments)
{
    struct job_case c;
    memset(&c, 0, sizeof c);
    c.t = _i % 4;
    c.op = _i / 4 % EOP_COUNT;
    const int o32 = _i / (4 * EOP_COUNT) % 2, quick = _i / (8 * EOP_COUNT) % 2; /* quick: many short segments */
    struct rng r;
    rng_for(&r, "segments", _i);
    c.rt = result_type(c.t, rnd(&r));
    const unsigned chunk = emu_exact_kernel_chunk(c.t, c.op);
    const int mode = quick && rnd_below(&r, 4) ? 2 : (int)rnd_below(&r, NMODES), with_bad = rnd_below(&r, 3) == 0;
    /* most float32 cases and half the others: an aligned input (exact_quick_segments reads 16-byte lines, and
     * exact_quick_long whole vectors from the first 16-byte boundary); half of those end inside a line (the
     * input's last line is read term by term) */
    const int aligned = rnd_below(&r, c.t == ET_FLOAT ? 4 : 2) != 0, whole = aligned && rnd_below(&r, 2);
    const size_t es = type_size(c.t), per_line = 16 / es,
                 n = (chunk + rnd_below(&r, 2 * chunk)) / (whole ? per_line : 1) * (whole ? per_line : 1),
                 mis = aligned ? 0 : rnd_below(&r, 16 / es);
    const uint64_t nseg = quick ? 32 + rnd_below(&r, 600) : 1 + rnd_below(&r, 48);
    struct guarded gx, gy, gb, ge;
    memset(&gy, 0, sizeof gy);
    guarded_alloc(&gx, (n + mis) * es);
    void *x = gx.p + mis * es, *y = NULL;
    if (c.op == EOP_DOT) {
        guarded_alloc(&gy, (n + mis) * es);
        y = gy.p + mis * es;
    }
    fill(&r, c.t, mode, x, y, n);
    size_t salted = 0;
    if (quick && mode == 2) {
        salted = rnd_below(&r, 3) ? rnd_below(&r, 1 + nseg / 16) : 0;
        salt(&r, c.t, x, n, salted);
    }
    /* one binade (24 bits at most) in n < 2^29 terms: a double holds every sum */
    c.doubles_exact = mode == 2 && salted == 0 && (c.op == EOP_SUM || c.op == EOP_MEAN);
    guarded_alloc(&gb, nseg * 8);
    guarded_alloc(&ge, nseg * 8);
    for (uint64_t s = 0; s < nseg; s++) {
        long long b = (long long)rnd_below(&r, n + 1), e;
        switch (rnd_below(&r, 6)) {
        case 0: e = b; break;                                          /* empty */
        case 1: e = b - 1 - (long long)rnd_below(&r, 40); break;       /* end < begin */
        case 2: /* long: past a lane's (EXACT_LANE_LONG), rarer among many */
            if (quick && rnd_below(&r, 8)) {
                e = b + (long long)rnd_below(&r, 70);
                break;
            }
            b = (long long)rnd_below(&r, n / 4), e = b + (long long)chunk + (long long)rnd_below(&r, n - chunk - b + 1);
            break;
        default: e = b + (long long)rnd_below(&r, 3 * 16 / es + 2); break;
        }
        if (e > (long long)n)
            e = (long long)n;
        if (e < 0)
            e = 0;
        if (with_bad && rnd_below(&r, 6) == 0) { /* an offset out of [0, n] */
            const long long wrong = rnd_below(&r, 2) ? -1 - (long long)rnd_below(&r, 100)
                                                     : (long long)n + 1 + (long long)rnd_below(&r, o32 ? 100 : 1ull << 40);
            *(rnd_below(&r, 2) ? &b : &e) = wrong;
        }
        store_offsets(&gb, &ge, o32, s, b, e);
    }
    segments_job(&c, x, y, nseg, &gb, &ge, o32, n, es);
    snprintf(c.what, sizeof c.what, "%s of %llu segments of %zu %s (int%d offsets%s, %s, %zu elements off 16 bytes) into %s",
             op_names[c.op], (unsigned long long)nseg, n, tys[c.t].name, o32 ? 32 : 64, with_bad ? ", some bad" : "",
             mode_names[mode], mis, tys[c.rt].name);
    struct variant v[MAX_VARIANTS];
    const int nv = variants(&r, &c, 0, v);
    run_job(&c, v, nv);
    guarded_free(&gx);
    guarded_free(&gy);
    guarded_free(&gb);
    guarded_free(&ge);
    free(c.want);
}
END_TEST

/* The head of test_long_pieces' and test_segment_lines' cases: SUM or MEAN of float16, bfloat16 or float32 by
 * case i, int32 or int64 offsets, a result type drawn from the case's stream. */
static void pieces_case(struct job_case *c, const char *name, int i, struct rng *r, int *o32)
{
    static const int types[3] = {ET_HALF, ET_BF16, ET_FLOAT};
    memset(c, 0, sizeof *c);
    c->t = types[i % 3];
    c->op = i / 3 % 2 ? EOP_MEAN : EOP_SUM;
    *o32 = i / 6 % 2;
    rng_for(r, name, i);
    c->rt = result_type(c->t, rnd(r));
}

/* An exact_quick variant of `group` lanes an output and `vec`: one part, the bits' groups and the grids drawn. */
static void quick_variant(struct rng *r, struct variant *w, unsigned group, unsigned vec, uint64_t groups)
{
    memset(w, 0, sizeof *w);
    w->quick = 1;
    w->splits = 1;
    w->part = (uint64_t)1 << 62;
    w->group = group;
    w->vec = vec;
    w->per_bit = 1 + (unsigned)rnd_below(r, 3);
    w->grid = (unsigned)(1 + rnd_below(r, groups));
    w->quick_grid = (unsigned)(1 + rnd_below(r, (groups * group + 31) / 32));
    w->finish_grid = 1;
}

/* Long segments in pieces: SUM and MEAN of many short segments and some of hundreds to thousands of terms that
 * a double sums exactly, under exact_quick's list (its pieces of a few terms to the planner's, lists that hold
 * every piece and lists that end inside a segment's pieces). Besides the bits, no group may go to the lanes
 * where every piece fits: a segment whose pieces met wrongly (their tickets, their doubles) still comes out
 * right from the lanes, and only this shows it. */
START_TEST(test_long_pieces)
{
    struct job_case c;
    struct rng r;
    int o32;
    pieces_case(&c, "long pieces", _i, &r, &o32);
    const size_t es = type_size(c.t), n = 6000 + rnd_below(&r, 30000), mis = rnd_below(&r, 16 / es);
    const uint64_t nseg = 32 + rnd_below(&r, 150);
    struct guarded gx, gb, ge;
    guarded_alloc(&gx, (n + mis) * es);
    void *x = gx.p + mis * es;
    const int mode = rnd_below(&r, 2) ? 2 : 1; /* one binade; or four, both signs: a double sums either exactly */
    fill(&r, c.t, mode, x, NULL, n);
    guarded_alloc(&gb, nseg * 8);
    guarded_alloc(&ge, nseg * 8);
    for (uint64_t k = 0; k < nseg; k++) {
        const long long b = (long long)rnd_below(&r, n + 1);
        const long long e = b + (long long)(rnd_below(&r, 8) ? rnd_below(&r, 70) : 300 + rnd_below(&r, 2000));
        store_offsets(&gb, &ge, o32, k, b, e > (long long)n ? (long long)n : e);
    }
    segments_job(&c, x, NULL, nseg, &gb, &ge, o32, n, es);
    struct cr_exact_job *j = &c.j;
    /* in a third of the cases, the largest finite and its negation side by side in a long segment: the piece
     * that holds both loses the terms beside them (the lanes must take the segment, not that piece's double) */
    int pair = 0;
    for (uint64_t k = 0; k < nseg && rnd_below(&r, 3) == 0 && !pair; k++) {
        long long b;
        uint64_t len;
        output_span(j, k, &b, &len);
        if (len >= 300) {
            const size_t at = (size_t)b + (size_t)rnd_below(&r, len - 1);
            store_bits(c.t, x, at, max_bits(c.t));
            store_bits(c.t, x, at + 1, max_bits(c.t) | sign_bit(c.t));
            pair = 1;
            c.rt = ET_DOUBLE; /* where the terms lost beside them show */
        }
    }
    c.doubles_exact = !pair;
    snprintf(c.what, sizeof c.what, "%s of %llu segments of %zu %s (int%d offsets, %s%s, %zu elements off 16 bytes) into %s, in pieces",
             op_names[c.op], (unsigned long long)nseg, n, tys[c.t].name, o32 ? 32 : 64, mode_names[mode],
             pair ? ", +-largest" : "", mis, tys[c.rt].name);
    struct variant v[4];
    const uint64_t groups = (nseg + 31) / 32;
    for (int k = 0; k < 4; k++) {
        struct variant *w = v + k;
        const unsigned group = 1u << rnd_below(&r, 6);
        /* lines where the input is aligned, or terms */
        quick_variant(&r, w, group, k >= 2 ? (unsigned)cr_exact_quick_vec(j, es) : 0, groups);
        static const unsigned lens[] = {40, 64, 300};
        w->long_len = k % 2 ? lens[rnd_below(&r, 3)] : cr_exact_long_len(w->group);
        static const unsigned pieces[] = {61, 64, 100, 256}; /* (a block each in the emulation: not too many) */
        w->long_piece = k % 4 < 2 ? pieces[rnd_below(&r, 4)] : CR_EXACT_LONG_PIECE_BYTES / (unsigned)es;
        const uint64_t all = pieces_needed(j, w->long_len, w->long_piece);
        /* most lists hold every piece; some end inside a segment's (its pieces then go to the lanes) */
        w->long_cap = (unsigned)(rnd_below(&r, 3) || all < 2 ? all + rnd_below(&r, 3) : 1 + rnd_below(&r, all - 1));
        w->long_cap = w->long_cap ? w->long_cap : 1;
        w->long_grid = 1 + (unsigned)rnd_below(&r, rnd_below(&r, 2) ? 3 : 40);
    }
    run_job(&c, v, 4);
    guarded_free(&gx);
    guarded_free(&gb);
    guarded_free(&ge);
    free(c.want);
}
END_TEST

/* Segments in 16-byte lines (exact_quick_segments, vec 4): an aligned input that mostly ends inside a line, short
 * segments that start and end anywhere in their lines, many ending at the input's end (its last line is read
 * term by term: the first lane adds those terms, whatever the group), some of -0.0 terms only (a line's other
 * terms must add as -0.0), every group width, with and without the list of long ones (lists that hold every
 * piece, and short ones that end inside a warp's pieces: empty entries up to the cap). Past the
 * input, NaN up to its line's end: a term read there shows. Where doubles sum every segment exactly, no group
 * may go to the lanes. */
START_TEST(test_segment_lines)
{
    struct job_case c;
    struct rng r;
    int o32;
    pieces_case(&c, "segment lines", _i, &r, &o32);
    const size_t es = type_size(c.t), per_line = 16 / es, n = 1000 + rnd_below(&r, 8000);
    const size_t total = rnd_below(&r, 4) ? n : n / per_line * per_line; /* mostly ending inside a line */
    const uint64_t nseg = 40 + rnd_below(&r, 600);
    struct guarded gx, gb, ge;
    guarded_alloc(&gx, total * es);
    void *x = gx.p;
    const int mode = rnd_below(&r, 3) ? 2 : (int)rnd_below(&r, NMODES); /* mostly one binade: doubles sum it */
    fill(&r, c.t, mode, x, NULL, total);
    const size_t zeros = 64; /* -0.0 terms first */
    for (size_t i = 0; i < zeros; i++)
        store_bits(c.t, x, i, sign_bit(c.t));
    for (size_t i = total; i < (total * es + 15) / 16 * 16 / es; i++) /* the rest of the last line */
        store_bits(c.t, x, i, nan_bits(c.t));
    guarded_alloc(&gb, nseg * 8);
    guarded_alloc(&ge, nseg * 8);
    for (uint64_t k = 0; k < nseg; k++) {
        /* the first 16 long (past any group's long_len): a warp's step lists many at once */
        uint64_t len = k < 16             ? 1100 + rnd_below(&r, 100)
                       : rnd_below(&r, 8) ? rnd_below(&r, 3 * per_line + 2)
                       : rnd_below(&r, 4) ? rnd_below(&r, 200)
                                          : 300 + rnd_below(&r, 900);
        long long b = (long long)rnd_below(&r, total + 1);
        if (rnd_below(&r, 4) == 0) /* ending at the input's end */
            b = len < total ? (long long)(total - len) : 0;
        else if (rnd_below(&r, 12) == 0) /* -0.0 terms only */
            b = (long long)rnd_below(&r, zeros), len = rnd_below(&r, zeros - (uint64_t)b + 1);
        const long long e = b + (long long)len;
        store_offsets(&gb, &ge, o32, k, b, e > (long long)total ? (long long)total : e);
    }
    segments_job(&c, x, NULL, nseg, &gb, &ge, o32, total, es);
    ck_assert_int_eq(cr_exact_quick_vec(&c.j, es), 4);
    c.doubles_exact = mode == 2;
    snprintf(c.what, sizeof c.what, "%s of %llu segments of %zu %s (int%d offsets, %s) into %s, in lines",
             op_names[c.op], (unsigned long long)nseg, total, tys[c.t].name, o32 ? 32 : 64, mode_names[mode],
             tys[c.rt].name);
    struct variant v[6];
    const uint64_t groups = (nseg + 31) / 32;
    for (int k = 0; k < 6; k++) {
        struct variant *w = v + k;
        quick_variant(&r, w, 1u << k, 4, groups);
        if (rnd_below(&r, 2)) { /* the long ones listed: every piece held, or a short list */
            w->long_len = cr_exact_long_len(w->group);
            w->long_piece = rnd_below(&r, 2) ? 100 : CR_EXACT_LONG_PIECE_BYTES / (unsigned)es;
            /* 9-48 entries: two to five pieces a segment (an eighth of the room), so that one that does not
             * fit may start inside the list */
            w->long_cap = rnd_below(&r, 3) ? (unsigned)pieces_needed(&c.j, w->long_len, w->long_piece) + 1
                                           : 9 + (unsigned)rnd_below(&r, 40);
            w->long_grid = 1 + (unsigned)rnd_below(&r, 3);
        }
    }
    run_job(&c, v, 6);
    guarded_free(&gx);
    guarded_free(&gb);
    guarded_free(&ge);
    free(c.want);
}
END_TEST

/* ---- The emulation finds races and divergent barriers (emu_block_check.cc) ---- */
const char *emu_block_check(void);
START_TEST(test_emulation)
{
    const char *err = emu_block_check();
    ck_assert_msg(err == NULL, "the block emulation: %s", err ? err : "");
}
END_TEST

int main(void)
{
    const char *env = getenv("CURED_TEST_SEED");
    seed = env && *env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    printf("test-exact-emu: seed %llu\n", seed);
    Suite *s = suite_create("exact-emu");
    const struct {
        const char *name;
        const TTest *test;
        int n;
    } cases[] = {{"emulation", test_emulation, 1},
                 {"adversarial", test_adversarial, 4 * EOP_COUNT},
                 {"whole", test_whole, 4 * EOP_COUNT * 4},
                 {"axes", test_axes, 4 * EOP_COUNT * 4},
                 {"segments", test_segments, 4 * EOP_COUNT * 4},
                 {"long pieces", test_long_pieces, 24},
                 {"segment lines", test_segment_lines, 24}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        TCase *tc = tcase_create(cases[k].name);
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, cases[k].test, 0, cases[k].n);
        suite_add_tcase(s, tc);
    }
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("test-exact-emu: %d failure(s); rerun with: CURED_TEST_SEED=%llu ./tests/test-exact-emu\n", failed, seed);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
