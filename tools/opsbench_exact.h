/* `cured bench ops`'s exact-sum rows (tools/opsbench_exact.c). */
#ifndef CURED_TOOLS_OPSBENCH_EXACT_H
#define CURED_TOOLS_OPSBENCH_EXACT_H

#include "benchkit.h"
#include "exactref.h"

/* The exact sums of the input that a bk_ref describes: of x and of x * x
 * (EXACT_DOT's x and y are copies of one input: its sum is x * x's). */
struct oex_ref {
    struct xr_acc sum, squares;
};

static inline int oex_is_exact(cured_op op)
{
    return op == CURED_OP_EXACT_SUM || op == CURED_OP_EXACT_MEAN || op == CURED_OP_EXACT_SUM_SQUARES ||
           op == CURED_OP_EXACT_NORM2 || op == CURED_OP_EXACT_DOT;
}

/* Make ref's n elements again, chunk by chunk, into x. -1 if out of host memory. */
int oex_reference(const struct bk_ref *ref, struct oex_ref *x);
/* An exact row's result against x, bit for bit (any NaN for a NaN): 1, or 0 with the reason in note. */
int oex_check(cured_op op, cured_type out, const struct oex_ref *x, const unsigned char *got, char *note, size_t len);
/* A float sum's result (CUB's, on the spread data) beside the exact one, for a note. */
void oex_describe(cured_type out, const struct oex_ref *x, const unsigned char *got, char *note, size_t len);

/* The read ceiling over set s (tools/ceiling.c's kernel: streaming 16-byte
 * loads; the best of a sweep of grids and loads in flight, then iters timed
 * calls of the best), rotating over s's buffers as the rows do. GB/s of
 * input read, or -1 with why. */
double oex_ceiling_gbps(struct bk_gpu *g, struct bk_set *s, int iters, char *why, size_t len);

/* One line of the goals: the row's share of the ceiling (and beside
 * CUB's gpu_to_gpu sum when cub_gbps > 0). */
void oex_goal(cured_type type, cured_op op, cured_type out, int spread, double gbps, double ceiling_gbps,
              double cub_gbps, const char *cub_why);

#endif
