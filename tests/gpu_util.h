/*
 * Shared pieces of the GPU suites: the no-GPU probe, a no-fork runner, the
 * driver table and a handle for the tests, device buffers that are freed
 * after each test, random data with a printed seed, and host references.
 */
#ifndef CURED_TESTS_GPU_UTIL_H
#define CURED_TESTS_GPU_UTIL_H

#include "internal.h"
#include "driver_all.h"

#include <check.h>
#include <stdint.h>

#define POISON_BYTE 0xa5
#define POISON32 0xa5a5a5a5u
#define POISON64 0xa5a5a5a5a5a5a5a5ull

/* Threads for the suites' parallel compiles: CURED_TEST_JOBS, else the number of CPUs. */
int test_jobs(void);

/* Set up by gpu_setup() (a checked fixture: it runs inside the runner). */
extern const struct cr_driver_all *D; /* the tests' driver table (tools/driver_all.h) */
extern CUdevice DEV;              /* device 0 */
extern CUcontext CTX;             /* its primary context, current on the test thread */
extern cured_handle H;            /* cured_create(0) */
extern unsigned long long test_seed;

/*
 * main() of a GPU suite: picks the seed (CURED_TEST_SEED or time and pid),
 * probes for a GPU in a child process (the parent must not touch CUDA before
 * the runner), exits 77 without one, else runs the suite without forking
 * (CUDA does not survive fork; the kernel cache stays warm across tests).
 */
int gpu_main(const char *prog, Suite *s);
void gpu_setup(void);
void gpu_teardown(void);

/* Fail the test unless a driver call succeeded / a cured call returned want. */
#define CU_OK(call)                                                                           \
    do {                                                                                      \
        CUresult r_ = (call);                                                                 \
        ck_assert_msg(r_ == CUDA_SUCCESS, "%s: %s (seed %llu)", #call, cr_driver_error_text(r_), \
                      test_seed);                                                             \
    } while (0)
#define CURED_EXPECT(want, call)                                                              \
    do {                                                                                      \
        cured_status s_ = (call);                                                             \
        ck_assert_msg(s_ == (want), "%s: got %s, want %s: %s (seed %llu)", #call,             \
                      cured_status_string(s_), cured_status_string(want), cured_last_error(), \
                      test_seed);                                                             \
    } while (0)
#define CURED_OK(call) CURED_EXPECT(CURED_SUCCESS, call)

/* Fail the test unless got == want; what describes the call. */
void expect_status(cured_status got, cured_status want, const char *what);


/* Device memory and streams, released by gpu_teardown() even if a test fails. */
CUdeviceptr dev_alloc(size_t bytes);
void dev_free(CUdeviceptr p);
CUstream stream_new(void);
/* Copies and fills that are complete (context synchronised) on return. */
void upload(CUdeviceptr dst, const void *src, size_t bytes);
void download(void *dst, CUdeviceptr src, size_t bytes);
void poison(CUdeviceptr p, size_t bytes);
/* Device pointer as the API's void *. */
#define DP(p) ((void *)(uintptr_t)(p))

/* xorshift-style generator; each test seeds its own from test_seed and a label. */
struct rng {
    uint64_t s;
};
void rng_init(struct rng *r, const char *label, long index);
uint32_t rng_u32(struct rng *r);
/* n values from the full int32 range (as their uint32 bit patterns). */
void fill_random(struct rng *r, uint32_t *h, size_t n);
/* The int32 value of a bit pattern (without implementation-defined conversions). */
static inline int64_t as_int32(uint32_t v)
{
    return v >= 0x80000000u ? (int64_t)v - 4294967296LL : (int64_t)v;
}
/* Exact sum of n int32 values (given as bit patterns). */
int64_t ref_sum(const uint32_t *h, size_t n);

/* Compare a result read back as 8 bytes: int64 exactly, int32 as the
 * low-order 32 bits of the exact sum with the other 4 bytes still poison. */
void check_result(const void *got8, cured_type type, int64_t exact, const char *what);

const char *algo_name(int algo);
const char *type_name(cured_type t);

#endif
