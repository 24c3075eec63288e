/*
 * `cured bench axes` (axesbench.c), its CUB rows (axesbench_cub.c), the
 * statistics cells' check (axesbench_stats.c) and the segment cells
 * (axesbench_segments.c).
 */
#ifndef CURED_AXESBENCH_H
#define CURED_AXESBENCH_H

#include <stdio.h>

#include "benchkit.h"
#include "cub_compare.h"

struct cell {
    const char *label;
    cured_type type, out;
    cured_op op;
    int spread; /* bk_ref_init_spread()'s data (every binade, cancelling pairs): timed, not checked */
};

/* The median of iters calls of call(user), each between its own pair of
 * events, after one untimed call, in microseconds; -1 on failure (why says). */
double axes_time_events(struct bk_gpu *g, int iters, int (*call)(void *), void *user, char *why, size_t len);

/* cub::DeviceSegmentedReduce beside a cell, where CUB has the same reduction. */
struct cub_req {
/* cub::DeviceSegmentedReduce beside a cell, where CUB has the same reduction. */
    struct bk_gpu *g;
    cmp_op op;
    cmp_type type;
    const void *in;
    long long nseg, len; /* len: uniform segments (begin == NULL) */
    const long long *begin, *end;
    void *out, *temp;
    size_t temp_bytes;
    char why[600];
};
/* Output 0 of a float32 MEAN_VAR or LOGSUMEXP cell (got) against the host's
 * float64 two-pass value of h[0], h[stride], ... (n of them); 0 with a note if off. */
int axes_stats_check(cured_op op, const float *h, size_t n, size_t stride, const unsigned char *got, char *note,
                     size_t len);
/* Does CUB have the cell's reduction (rows of float32 SUM/MAX/ARGMAX, int32 SUM)? Its op and type. */
int axes_cub_of(const struct cell *c, cmp_op *op, cmp_type *t);
/* Time and print (and write to csv) the CUB row after a cured row whose time
 * is cured_us; CUB's time, or -1 if CUB could not run. */
double axes_cub_row(struct cub_req *q, int iters, size_t bytes, double ceil_gbps, double cured_us, const char *label,
                    const char *shape, const char *csv_shape, FILE *csv);

/* The segment cells of op (SUM or EXACT_SUM, float32: power-law, 1 MiB,
 * 16-64 KiB), SUM's each with its CUB row; CUB's wins and its
 * slowest ratio go into t. 0 if every cell ran. */
struct seg_tally {
    int ncub, cub_wins;
    double worst_cub;
    int nexact;         /* EXACT_SUM cells */
    double worst_exact; /* their lowest share of the ceiling */
};
int axes_segment_cells(struct bk_gpu *g, int iters, cured_op op, const void *in, size_t in_elems, void *out, CUdeviceptr offs,
                       void *ctemp, size_t ctemp_bytes, double ceil_gbps, FILE *csv, struct seg_tally *t);

#endif
