/*
 * The benchmark's optional comparator, built by nvcc from cub_compare.cu:
 * CUB, Thrust and a plain read-bandwidth kernel, behind a C API so that
 * tools/bench.c stays plain C compiled by the C compiler.
 *
 * Every function returns 0 on success and nonzero on failure; then
 * cmp_last_error() names the CUDA runtime call (or Thrust exception) that
 * failed. Streams are CUstream / cudaStream_t (the same type). Pointers are
 * device pointers in the device's primary context, which is the context the
 * CUDA runtime uses, so memory from cuMemAlloc in that context works here.
 */
#ifndef CURED_CUB_COMPARE_H
#define CURED_CUB_COMPARE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct CUstream_st;
typedef struct cmp_state cmp_state;

/* Select `device` for the runtime and allocate, once, the CUB temporary
 * storage for sums of up to n ints (both output types) and the read-ceiling
 * kernel's per-block partials. *out is NULL on failure. */
int cmp_prepare(int device, size_t n, cmp_state **out);

/* Free what cmp_prepare allocated; NULL is accepted. The caller makes sure
 * no work using it is pending. */
void cmp_release(cmp_state *s);

/* cub::DeviceReduce::Sum of n ints (n <= the prepared n) into one long long
 * (exact) or one int (wrapping) at d_out; asynchronous on stream. */
int cmp_cub_sum_i64(cmp_state *s, const int *d_in, size_t n, long long *d_out,
                    struct CUstream_st *stream);
int cmp_cub_sum_i32(cmp_state *s, const int *d_in, size_t n, int *d_out,
                    struct CUstream_st *stream);

/* thrust::reduce(thrust::cuda::par.on(stream), in, in + n, 0LL, plus):
 * returns to the host, so it includes the result's copy back and a sync
 * (and Thrust's own temporary allocation). */
int cmp_thrust_sum_i64(const int *d_in, size_t n, long long *h_out, struct CUstream_st *stream);

/* Read-bandwidth ceiling: reads n ints with 16-byte loads (8 blocks per SM,
 * 256 threads) and keeps one wrapping partial sum per block, asynchronously.
 * d_in must be 16-byte aligned. cmp_read_ceiling_result() waits for the
 * stream and returns the sum modulo 2^32 of the last launch's partials. */
int cmp_read_ceiling(cmp_state *s, const int *d_in, size_t n, struct CUstream_st *stream);
int cmp_read_ceiling_result(cmp_state *s, struct CUstream_st *stream, unsigned int *h_sum);

/* Grid of the read-ceiling kernel (blocks x threads), for the report. */
void cmp_read_ceiling_grid(const cmp_state *s, int *blocks, int *threads);

/* "CUB 3.0.1 (Thrust 3.0.1, CUDA runtime 13.0)": a static string. */
const char *cmp_cub_version(void);

/* Message of this thread's last failure; "" if none. */
const char *cmp_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
