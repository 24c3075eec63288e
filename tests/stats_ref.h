/*
 * Host references for the statistics operators (MEAN, VAR, STD, MEAN_VAR,
 * LOGSUMEXP): the exact values, to long double precision with compensated
 * two-pass sums, beside what a float64 two-pass computation gives, and the
 * bounds the library promises (include/cured.h, "Statistics"): a result
 * within twice the float64 two-pass error plus one unit in the last place
 * of the exact value in a FLOAT32 result, five in a FLOAT64 one (LOGSUMEXP
 * with a FLOAT32 result: plus 2^-21 + 2^-24 (w + 3), w the softmax-weighted mean
 * of max - x).
 */
#ifndef CURED_TESTS_STATS_REF_H
#define CURED_TESTS_STATS_REF_H

#include "oracle.h"

struct stats_ref {
    size_t n;
    int nan, pinf, ninf;       /* the input holds NaN, +inf, -inf */
    long double sum, mean, m2; /* exact (long double, compensated); m2: sum of squared deviations */
    double mean64, m2_64;      /* float64 two-pass: sequential sum / n, then sum of (x - mean)^2 */
    long double max, lse, w;   /* LOGSUMEXP exact, and the softmax-weighted mean of (max - x) */
    double lse64;              /* float64: max + log(sum of exp(x - max)) */
    long double conv, conv_m2; /* 64-bit integers beyond 2^53: what rounding them to float64
                                  moves the sum and m2 by, at most (0 for every other type) */
    long double sq;            /* sum of (x - x0)^2, x0 the first element: the size of the kernels'
                                  float64 shifted sums of squares, whose roundings are relative to it */
};

/* The references of x[0..n) of type t (any element type). */
void stats_ref_compute(cured_type t, const void *x, size_t n, struct stats_ref *s);

/* The references a statistic op checks against: x[0..n)'s, or for a
 * NaN-skipping one (NANMEAN, NANVAR, NANSTD) those of its elements that
 * are not NaN; returns how many elements they are. */
size_t stats_ref_compute_op(cured_op op, cured_type t, const void *x, size_t n, struct stats_ref *s);
/* 1 where stats_ref_compute_op takes only the elements that are not NaN
 * (a NaN-skipping op of a float type; the same references for all of them). */
int stats_ref_skips_nan(cured_op op, cured_type t);

/*
 * The expected result of a statistic with ddof (MEAN and LOGSUMEXP ignore
 * it) and result type out, as ref_check() takes it: the values (NaN, inf
 * and -inf where the library documents them), each with its own
 * tolerance, and status CURED_ERROR_TOO_FEW_ELEMENTS where the synchronous
 * calls return it. A NaN-skipping op is checked as its base (s from
 * stats_ref_compute_op).
 */
void stats_ref_result(cured_op op, cured_type out, const struct stats_ref *s, double ddof, struct ref_result *r);

/* Both in one: what ops_ref.c's ref_reduce() gives for the statistics (ddof 0). */
void stats_ref_reduce(cured_op op, cured_type in, cured_type out, const void *x, size_t n, struct ref_result *r);

int stats_is_op(cured_op op); /* the oracle's statistics (REF_STATS rows) */

#endif
