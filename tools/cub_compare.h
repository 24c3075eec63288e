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

/* The read-ceiling kernel as a driver-API CUfunction (*function) and its
 * partials buffer (*partials, room for one block's), so that the host cost
 * of a bare cuLaunchKernel can be timed beside a library call. */
int cmp_read_ceiling_function(cmp_state *s, void **function, void **partials);

/* Grid of the read-ceiling kernel (blocks x threads), for the report. */
void cmp_read_ceiling_grid(const cmp_state *s, int *blocks, int *threads);

/* thrust::reduce of n floats with 0.0f and plus<float> (float accumulation),
 * returned to the host as cmp_thrust_sum_i64 does. */
int cmp_thrust_sum_f32(const float *d_in, size_t n, float *h_out, struct CUstream_st *stream);

/* ---- Any of CUB's reductions over one of eight types (`cured bench ops`,
 * `cured bench sweep`). Templates inside (cub_ops.cuh, instantiated in
 * cub_ops_int.cu and cub_ops_float.cu, which tools.am builds for the cubin
 * targets only), one entry point outside. */

/* Element types: signed char, int, long long, unsigned int, __half,
 * __nv_bfloat16, float, double. */
typedef enum cmp_type {
    CMP_INT8, CMP_INT32, CMP_INT64, CMP_UINT32, CMP_FLOAT16, CMP_BFLOAT16, CMP_FLOAT32, CMP_FLOAT64
} cmp_type;
#define CMP_TYPE_COUNT 8

/* The reductions and what each writes at d_out (cured's layouts, so that the
 * caller checks both libraries' results alike):
 * - CMP_SUM: DeviceReduce::Sum into the widened sum type: long long for the
 *   signed integers, unsigned long long for unsigned int, float for float,
 *   __half and __nv_bfloat16 (these through TransformReduce with a widening
 *   functor: CUB has no float accumulator for 16-bit sums), double for double.
 * - CMP_SUM_SQUARES: DeviceReduce::TransformReduce with a functor that
 *   widens and squares, plus, into the same sum type.
 * - CMP_MIN, CMP_MAX: DeviceReduce::Min / Max: one element.
 * - CMP_ARGMIN, CMP_ARGMAX: DeviceReduce::ArgMin / ArgMax with separate
 *   outputs (CCCL 3): the int64 index at d_out, the element at d_out + 8
 *   (a cured_arg_result). The first index among equal elements.
 * - CMP_SUM_GPU_TO_GPU: DeviceReduce::Sum under
 *   cuda::execution::require(determinism::gpu_to_gpu) (CCCL 3.1 or newer;
 *   cub_determ.cu), CMP_FLOAT32 into float and CMP_FLOAT64 into double only.
 *   CUB takes its temporary storage from its own stream-ordered resource, so
 *   cmp_reserve() allocates nothing for it; built against an older CCCL, both
 *   calls fail and cmp_last_error() names the version. */
typedef enum cmp_op { CMP_SUM, CMP_MIN, CMP_MAX, CMP_ARGMIN, CMP_ARGMAX, CMP_SUM_SQUARES, CMP_SUM_GPU_TO_GPU } cmp_op;
#define CMP_OP_COUNT 7

/* "DeviceReduce::ArgMin" and so on, for reports: a static string. */
const char *cmp_op_call(cmp_op op, cmp_type type);

/* Make the temporary storage large enough for op over n elements of type
 * (n <= INT_MAX: CUB gets an int count, as a typical caller writes it),
 * reallocating it if needed. Not to be timed: the caller makes sure no work
 * using the storage is pending. */
int cmp_reserve(cmp_state *s, cmp_op op, cmp_type type, size_t n);

/* The reduction op over n elements of type at d_in into d_out (layouts
 * above; d_out aligned to 8), asynchronously on stream, with the storage
 * that cmp_prepare / cmp_reserve made (CUB refuses when it is too small). */
int cmp_reduce(cmp_state *s, cmp_op op, cmp_type type, const void *d_in, size_t n, void *d_out,
               struct CUstream_st *stream);

/* cub::DeviceSegmentedReduce (`cured bench axes`; cub_segmented.cu):
 * num_segments segments of d_in, segment k = [d_begin[k], d_end[k]) with
 * int64 offset arrays, or, when d_begin is NULL, [k * seg_len, (k + 1) *
 * seg_len) from a counting iterator. Offered: CMP_FLOAT32 with CMP_SUM
 * (float), CMP_MAX (float), CMP_ARGMAX (cub::KeyValuePair<int, float>: the
 * index within the segment, then the value; 8 bytes); CMP_INT32 with CMP_SUM
 * (long long). temp == NULL: *temp_bytes gets the storage needed, nothing
 * runs; else the reduction is issued asynchronously on stream. */
int cmp_segmented(cmp_op op, cmp_type type, const void *d_in, long long num_segments, const long long *d_begin,
                  const long long *d_end, long long seg_len, void *d_out, void *temp, size_t *temp_bytes,
                  struct CUstream_st *stream);

/* "CUB 3.0.1 (Thrust 3.0.1, CUDA runtime 13.0)": a static string. */
const char *cmp_cub_version(void);

/* Message of this thread's last failure; "" if none. */
const char *cmp_last_error(void);

/* tools/cub_loader.c only: the path the comparator library was loaded from,
 * or NULL when it cannot be loaded (then cmp_last_error() says why). */
const char *cmp_library_path(void);

#ifdef __cplusplus
}
#endif
#endif
