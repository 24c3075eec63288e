/*
 * For the NCCL suites: compile, on all CPUs, the plain, state-record and
 * rank-order combine kernels of every AUTO (operator, element type, result
 * type) that want() accepts, for a handle's architecture, so the memory
 * cache holds them before the tests loop over them (tools/pool.c).
 */
#ifndef CURED_TESTS_COMM_WARM_H
#define CURED_TESTS_COMM_WARM_H

#include "internal.h"

/* CURED_SUCCESS, or cr_handle_arch's status (nothing compiled then). A unit
 * that fails to compile is left to the test that uses it to report. */
cured_status comm_warm(cured_handle h, int (*want)(cured_op op));

#endif
