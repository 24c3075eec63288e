/* State records combined on the host (tests/state_host.c), the oracles of
 * tests/test-comm-combine. */
#ifndef CURED_TESTS_STATE_HOST_H
#define CURED_TESTS_STATE_HOST_H

#include "internal.h"

/* The combine rule on the host (tests): nranks records of stride bytes of a
 * built-in integer request r (DOT included; not a state request), or of MEAN,
 * VAR, STD or MEAN_VAR (with r->ddof), combined in rank order into out (r's
 * result layout). 1 on success, 0 for a request it does not handle (other
 * floating-point requests, LOGSUMEXP). */
int cr_state_combine_host(const struct cr_request *r, const void *records, size_t stride, int nranks, void *out);
/* kernels-src/stats.cuh's MeanVarState, and the state of n elements on the
 * host (each element's state merged in order: a record for the tests). */
struct cr_mv_state { double n, hi, lo, m2; };
struct cr_mv_state cr_mv_host(const double *x, size_t n);

#endif
