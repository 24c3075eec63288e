/*
 * Shared pieces of the test-ops suite (test-ops.c, ops_edge.c,
 * ops_custom.c): sizes, cached random inputs, and batches of asynchronous
 * calls whose results land in poisoned device slots.
 */
#ifndef CURED_TESTS_OPS_TEST_H
#define CURED_TESTS_OPS_TEST_H

#include "ops_ref.h"

/* Bytes per result slot: the largest result (16) and a poisoned tail. */
#define OPS_SLOT 32

/* 2^20 + 7, or 2^14 + 7 with CURED_TEST_NO_HUGE set (compute-sanitizer runs). */
size_t ops_big(void);
/* Several blocks of the AUTO kernels for every element type: 3 * 256 * 4 * 16 + 5
 * (2^12 + 5 with CURED_TEST_NO_HUGE), for cases that need not be the largest. */
size_t ops_mid(void);
int ops_reduced(void);

/* Fixture: gpu_setup, and gpu_teardown plus freeing the cached inputs and
 * every ops_malloc block (a failed check longjmps out of a test). */
void ops_setup(void);
void ops_teardown(void);
/* Zeroed host memory, freed by ops_free or at the latest by ops_teardown. */
void *ops_malloc(size_t bytes);
void ops_free(void *p);

/* ops_big() + 16 elements of (type, flavour), on the host and the device,
 * made once per test from the seed (freed by ops_teardown). */
struct ops_input {
    cured_type type;
    enum ref_flavour fl;
    void *host;
    CUdeviceptr dev;
    size_t n;
};
const struct ops_input *ops_input(cured_type t, enum ref_flavour fl);

/*
 * A batch of asynchronous calls on one stream, each writing into its own
 * poisoned OPS_SLOT-byte slot (after a poisoned guard slot). ops_add()
 * makes the call and checks its status (EMPTY_INPUT where the reference
 * says so, else SUCCESS); ops_finish() waits, reads every slot back and
 * checks the values and that nothing outside each result was written.
 */
struct ops_case {
    cured_op op;
    cured_type in, out;
    cured_status status; /* what the call returned */
    struct ref_result r;
    char what[200];
};
struct ops_batch {
    CUstream stream;
    CUdeviceptr slots;
    size_t count, cap;
    struct ops_case *cases;
};
void ops_begin(struct ops_batch *b, size_t cap);
/* op over x[0..n) (DOT: and y) as cured_reduce_async / cured_dot_async. */
void ops_add(struct ops_batch *b, cured_op op, cured_type in, cured_type out, CUdeviceptr x, CUdeviceptr y,
             size_t n, const struct ref_result *r, const char *what);
void ops_finish(struct ops_batch *b);

/* The same through the synchronous call into a poisoned host buffer: the
 * status must be r->status (ALL_NAN, EMPTY_INPUT: the buffer untouched). */
void ops_sync(cured_op op, cured_type in, cured_type out, CUdeviceptr x, CUdeviceptr y, size_t n,
              const struct ref_result *r, const char *what, CUstream stream);

/* Both: the reference of host data h (exact), an async call into b, a sync call. */
void ops_both(struct ops_batch *b, cured_op op, cured_type in, cured_type out, const void *h, CUdeviceptr d,
              size_t n, struct ref_result *r, const char *what);

/* Does the library offer (op, in, out) on the AUTO path? */
int ops_offered(cured_op op, cured_type in, cured_type out);

/* Check that bytes [from, to) of p still hold the poison byte. */
void ops_expect_poison(const unsigned char *p, size_t from, size_t to, const char *what);

/* Test cases of ops_edge.c and ops_custom.c. */
TCase *ops_edge_tcase(void);
TCase *ops_custom_tcase(void);

#endif
