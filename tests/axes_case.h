/* One axis reduction checked on the host: tests/axes_case.c. */
#ifndef CURED_TESTS_AXES_CASE_H
#define CURED_TESTS_AXES_CASE_H

#include "ops_ref.h"
#include "gpu_util.h"

/* The data an operator is tested on (NaNs for the comparisons, odd values for products, ...). */
enum ref_flavour axes_flavour(cured_op op);
/* Check output kept_idx of op along axes of the host view l: gather, reduce, compare with got. */
void axes_check_output(cured_op op, cured_type t, cured_type out, const unsigned char *host, const cured_layout *l,
                       uint32_t axes, const int64_t *kept_idx, const unsigned char *got, unsigned char *gather,
                       const char *what);
/* A random view of min_rank..max_rank axes (0 .. CURED_MAX_RANK), its span in elements and an axis subset. */
void axes_random_view(struct rng *r, cured_layout *l, uint32_t *axes, int64_t *span, int big, int min_rank,
                      int max_rank);
/* op along the axes of l (reaching span elements) on random data: checked output by output. */
void axes_run_case(struct rng *rg, cured_op op, cured_type t, cured_type out, const cured_layout *l, uint32_t axes,
                   int64_t span, CUstream s, const char *label);
/* axes_run_case on a random view. */
void axes_one_case(struct rng *rg, cured_op op, cured_type t, cured_type out, int big, int min_rank, int max_rank,
                   CUstream s, long id);

#endif
