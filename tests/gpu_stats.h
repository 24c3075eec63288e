/*
 * Shared pieces of the test-gpu-stats suite (test-gpu-stats.c,
 * gpu_stats_custom.c): sizes, normal random numbers, inputs on the device
 * at a misaligned start, and the check of every statistic of one input
 * against tests/stats_ref.c.
 */
#ifndef CURED_TESTS_GPU_STATS_H
#define CURED_TESTS_GPU_STATS_H

#include "ops_ref.h"
#include "stats_ref.h"

/* 2^20 + 7 elements, or 2^14 + 7 with CURED_TEST_NO_HUGE set (compute-sanitizer runs). */
size_t gs_big(void);
int gs_reduced(void);
int gs_light(void);

/* A standard normal number (Box-Muller). */
double gs_normal(struct rng *r);

/* Host memory freed by gs_teardown (a failed check longjmps out of a test). */
void *gs_malloc(size_t bytes);
void gs_free(void *p);
void gs_setup(void);
void gs_teardown(void);

/* n elements of type t from h, copied to the device starting off elements
 * past a 16-byte boundary. */
CUdeviceptr gs_upload(cured_type t, const void *h, size_t n, size_t off);

/*
 * Every statistic, every result type offered for t and, for VAR, STD and
 * MEAN_VAR, ddof 0, 1, n - 1 and n (n <= ddof: NaN asynchronously,
 * CURED_ERROR_TOO_FEW_ELEMENTS synchronously, the host buffer untouched),
 * through cured_reduce_stats_async (into poisoned device slots, nothing
 * written past the result) and cured_reduce_stats, against stats_ref's
 * exact values and bounds; ddof 0 also through cured_reduce. what names
 * the input in failure messages.
 */
void gs_check_all(const char *what, cured_type t, const void *h, CUdeviceptr d, size_t n);

/* One statistic with one result type and ddof, both calls; the expected result is returned. */
void gs_check(const char *what, cured_op op, cured_type t, cured_type out, double ddof, const struct stats_ref *s,
              CUdeviceptr d);

TCase *gs_custom_tcase(void);

/* The accuracy table (stats_table.c): on when CURED_STATS_TABLE is set; a
 * row of an asynchronous result got for op of the input s. */
int gs_table_on(void);
void gs_table_row(const char *what, cured_op op, cured_type t, cured_type out, double ddof, const struct stats_ref *s,
                  const unsigned char *got);

#endif
