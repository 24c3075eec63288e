/* `cured bench ops`'s statistics rows (tools/opsbench_stats.c). */
#ifndef CURED_TOOLS_OPSBENCH_STATS_H
#define CURED_TOOLS_OPSBENCH_STATS_H

#include "benchkit.h"

#define OBS_CUSTOM_MEANVAR 2 /* a row's `custom`: the user-defined two-field mean/variance */

/* Is the row (op, custom) one of the statistics rows? */
int obs_is_stats(cured_op op, int custom);
/* Check a statistics row's result for the input ref describes (lse: its
 * logsumexp): 1 if right, else 0 with the reason in note. */
int obs_check(cured_op op, int custom, cured_type out, const struct bk_ref *ref, double lse,
              const unsigned char *got, char *note, size_t len);
/* The logsumexp of a float32 input that ref describes (its elements made again); NaN for other types. */
double obs_logsumexp(const struct bk_ref *ref);
/* The header's user-defined mean/variance (two float64 sums of float32 data). */
cured_status obs_custom_meanvar(cured_handle h, cured_custom *op);
/* The read ceiling over inputs of `bytes` of set s: the median time in us, or -1 with why. */
double obs_ceiling_us(struct bk_gpu *g, struct bk_set *s, size_t bytes, int iters, char *why, size_t len);

struct obs_times {
    double sum_us, meanvar_us, lse_us, custom_us, ceiling_us; /* 0: not measured */
    char ceiling_why[300];
};
/* The goals of issue 15: MEAN_VAR >= 0.95x SUM, LOGSUMEXP >= 0.85x the ceiling, user <= 1.05x built-in. */
void obs_goals(const struct obs_times *t);

#endif
