/*
 * The segment cells of `cured bench axes`: float32 SUM (and EXACT_SUM) over
 * int64 offsets (CSR: begin = off, end = off + 1), SUM's beside CUB's
 * segmented reduction:
 * 1M segments of power-law lengths (mean 64: the short-segment kernel's,
 * and a few on the long list); 256 segments of 1 MiB (the long list: cut
 * into many chunks each); 2048 segments of 16-64 KiB (more than the list
 * holds: a block each).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "axesbench.h"

struct seg_call {
    struct bk_gpu *g;
    cured_op op;
    const void *in;
    size_t nseg;
    const int64_t *off; /* device */
    void *out;
    char why[600];
};

static int call_segments(void *user)
{
    struct seg_call *q = user;
    cured_status st = cured_segmented_reduce_async(q->g->h, q->op, q->in, CURED_TYPE_FLOAT32, q->nseg, q->off,
                                                   q->off + 1, CURED_TYPE_INT64, q->out, CURED_TYPE_FLOAT32,
                                                   q->g->stream);
    if (st != CURED_SUCCESS)
        snprintf(q->why, sizeof q->why, "%s: %s", cured_status_string(st), cured_last_error());
    return st == CURED_SUCCESS ? 0 : -1;
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Segment s's length for each kind of cell (capped by the input's elements). */
enum seg_kind { SEG_POWER_LAW, SEG_LONG, SEG_MID };
static const struct {
    const char *csv, *label;
    size_t nseg;
} kinds[] = {
    {"segments power law", "segments", (size_t)1 << 20},
    {"segments long", "segments long", 256},
    {"segments 16-64 KiB", "segments mid", 2048},
};
static uint64_t seg_len(enum seg_kind k, uint64_t *x)
{
    const uint64_t r = xorshift(x);
    switch (k) {
    case SEG_POWER_LAW: {
        const double u = ((double)(r >> 11) + 0.5) / 9007199254740992.0;
        return (uint64_t)(21.4 / pow(u, 1.0 / 1.5)); /* Pareto, alpha 1.5: mean ~64 */
    }
    case SEG_LONG:
        return (uint64_t)1 << 18; /* 1 MiB of float32 */
    default:
        return 4097 + r % 12288; /* 16-64 KiB */
    }
}

int axes_segment_cells(struct bk_gpu *g, int iters, cured_op op, const void *in, size_t in_elems, void *out, CUdeviceptr offs,
                       void *ctemp, size_t ctemp_bytes, double ceil_gbps, FILE *csv, struct seg_tally *t)
{
    int rc = 0;
    for (int k = 0; k < (int)(sizeof kinds / sizeof *kinds); k++) {
        const size_t nseg = kinds[k].nseg;
        int64_t *off = malloc((nseg + 1) * 8);
        uint64_t x = 88172645463325252ull, total = 0;
        for (size_t s = 0; s <= nseg && off; s++) {
            off[s] = (int64_t)total;
            const uint64_t len = seg_len((enum seg_kind)k, &x);
            total = total + len < in_elems ? total + len : in_elems;
        }
        double us = -1;
        struct seg_call q = {g, op, in, nseg, (const int64_t *)(uintptr_t)offs, out, ""};
        if (off != NULL && g->d->MemcpyHtoD(offs, off, (nseg + 1) * 8) == CUDA_SUCCESS)
            us = axes_time_events(g, iters, call_segments, &q, q.why, sizeof q.why);
        const size_t bytes = (size_t)total * 4 + (nseg + 1) * 8 + nseg * 4;
        const double gbps = us > 0 ? (double)bytes / (us * 1e3) : 0, avg = (double)total / (double)nseg;
        char shape[60], cshape[60];
        if (nseg >= 1000000)
            snprintf(shape, sizeof shape, "%zuM segs, %.1f avg", nseg >> 20, avg);
        else
            snprintf(shape, sizeof shape, "%zu segs, %.0f avg", nseg, avg);
        snprintf(cshape, sizeof cshape, "%zu,%.1f", nseg, avg);
        const int exact = op == CURED_OP_EXACT_SUM;
        printf("%-18s %-22s %4s %10.2f %9.1f %7.2fx  %s\n", exact ? "float32 EXACT_SUM" : "float32 SUM", shape, "-", us, gbps, gbps / ceil_gbps,
               us > 0 ? "ran" : q.why);
        if (csv != NULL)
            fprintf(csv, "%s%s,%s,-,%zu,%.3f,%.1f,%.1f,%.4f,%s\n", exact ? "exact " : "", kinds[k].csv, cshape, bytes, us, gbps, ceil_gbps,
                    gbps / ceil_gbps, us > 0 ? "ran" : "failed");
        rc |= us <= 0;
        if (exact) { /* CUB has no exact (nor gpu_to_gpu) segmented sum */
            t->nexact++;
            t->worst_exact = gbps / ceil_gbps < t->worst_exact ? gbps / ceil_gbps : t->worst_exact;
            free(off);
            continue;
        }
        struct cub_req cq = {g, CMP_SUM, CMP_FLOAT32, in, (long long)nseg, 0, (const long long *)(uintptr_t)offs,
                             (const long long *)(uintptr_t)(offs + 8), out, ctemp, ctemp_bytes, ""};
        const double cus = axes_cub_row(&cq, iters, bytes, ceil_gbps, us, kinds[k].label, shape, cshape, csv);
        if (cus > 0 && us > 0) {
            t->ncub++;
            t->cub_wins += us < cus;
            t->worst_cub = cus / us < t->worst_cub ? cus / us : t->worst_cub;
        }
        free(off);
    }
    return rc;
}
