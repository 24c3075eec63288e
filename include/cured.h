/*
 * cured: CUDA reductions compiled at run time.
 *
 * One public header. Kernels are compiled with NVRTC at first use for the GPU
 * that is present and launched through the CUDA Driver API on the caller's
 * stream. Neither the CUDA driver nor NVRTC is linked: both are opened with
 * dlopen() at first use, so a program using cured loads and gets a clear status
 * on a machine that has neither.
 *
 * This header does not need cuda.h: streams and contexts are named by their
 * driver structs, so a CUstream, a cudaStream_t, a CUcontext may be passed
 * as they are. Device pointers are plain pointers (a CUdeviceptr is cast with
 * (void *)(uintptr_t)).
 *
 * Thread safety: every function may be called from any thread. A handle may be
 * shared by threads; see cured_reduce_async() for streams.
 */
#ifndef CURED_H
#define CURED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(CURED_BUILDING) && defined(__GNUC__)
#define CURED_EXPORT __attribute__((visibility("default")))
#else
#define CURED_EXPORT
#endif

/** Version of this header; compare with cured_version() at run time. */
#define CURED_VERSION_MAJOR 0
#define CURED_VERSION_MINOR 1
#define CURED_VERSION_PATCH 0
/** API version as one number: major * 10000 + minor * 100 + patch. */
#define CURED_API_VERSION (CURED_VERSION_MAJOR * 10000 + CURED_VERSION_MINOR * 100 + CURED_VERSION_PATCH)

struct CUstream_st; /* CUstream == cudaStream_t == struct CUstream_st * */
struct CUctx_st;    /* CUcontext == struct CUctx_st * */

/** Status codes. Values are stable: new codes are only ever appended. */
typedef enum cured_status {
    CURED_SUCCESS = 0,
    CURED_ERROR_NULL_HANDLE = 1,        /**< the handle argument is NULL */
    CURED_ERROR_NULL_POINTER = 2,       /**< a required pointer argument is NULL */
    CURED_ERROR_INVALID_ENUM = 3,       /**< an enum argument has an unknown value */
    CURED_ERROR_SIZE_OVERFLOW = 4,      /**< n times the element size overflows */
    CURED_ERROR_NOT_DEVICE_POINTER = 5, /**< a pointer is not accessible from the handle's device */
    CURED_ERROR_MISALIGNED = 6,         /**< a pointer is not aligned to its element size */
    CURED_ERROR_NO_DRIVER = 7,          /**< libcuda.so.1 could not be loaded or initialised */
    CURED_ERROR_NO_DEVICE = 8,          /**< the driver reports no CUDA device */
    CURED_ERROR_NO_NVRTC = 9,           /**< NVRTC could not be loaded */
    CURED_ERROR_INVALID_DEVICE = 10,    /**< the device ordinal or context is not valid */
    CURED_ERROR_COMPILE = 11,           /**< NVRTC failed; the message holds its log */
    CURED_ERROR_NOT_SUPPORTED = 12,     /**< not available here (e.g. no toolkit headers, arch) */
    CURED_ERROR_OUT_OF_MEMORY = 13,     /**< host or device allocation failed */
    CURED_ERROR_CUDA = 14,              /**< a CUDA driver call failed; the message names it */
    CURED_ERROR_TYPE_MISMATCH = 15,     /**< the (operator, input type, result type) is not offered */
    CURED_ERROR_INVALID_VALUE = 16,     /**< another argument is out of range */
    CURED_ERROR_INTERNAL = 17,          /**< a bug in cured; please report it */
    CURED_ERROR_EMPTY_INPUT = 18,       /**< n == 0 for an operator with no identity (argmin, minmax...) */
    CURED_ERROR_ALL_NAN = 19,           /**< a NaN-ignoring operator saw only NaNs (synchronous calls) */
    CURED_ERROR_INVALID_EXPRESSION = 20, /**< a user expression was rejected before compiling */
    CURED_ERROR_TOO_FEW_ELEMENTS = 22   /**< MEAN of n == 0, VAR/STD/MEAN_VAR of n <= ddof (synchronous calls) */
} cured_status;

/** Element and result types. Values are stable. FLOAT16 is IEEE binary16 and
 *  BFLOAT16 is bfloat16, each passed as its 16-bit pattern. */
typedef enum cured_type {
    CURED_TYPE_INT32 = 0,
    CURED_TYPE_INT64 = 1,
    CURED_TYPE_INT8 = 2,
    CURED_TYPE_UINT8 = 3,
    CURED_TYPE_INT16 = 4,
    CURED_TYPE_UINT16 = 5,
    CURED_TYPE_UINT32 = 6,
    CURED_TYPE_UINT64 = 7,
    CURED_TYPE_FLOAT16 = 8,
    CURED_TYPE_BFLOAT16 = 9,
    CURED_TYPE_FLOAT32 = 10,
    CURED_TYPE_FLOAT64 = 11
} cured_type;
#define CURED_TYPE_COUNT 12

/**
 * Reduction operators. Values are stable.
 *
 * Result types (out_type), by element type:
 * - SUM, PRODUCT, SUM_SQUARES, SUM_ABS, DOT: signed integers give INT64
 *   (exact unless the true result overflows it) or, on request, INT32 or the
 *   element type (wrapping modulo 2^bits); unsigned integers give UINT64, or
 *   UINT32 or the element type (wrapping); FLOAT16 and BFLOAT16 accumulate in
 *   float and give FLOAT32 or the element type (rounded once at the end);
 *   FLOAT32 gives FLOAT32 (float accumulation) or FLOAT64 (double
 *   accumulation); FLOAT64 gives FLOAT64. cured_default_result() gives the
 *   first of each list.
 * - NORM2 (sqrt of the sum of squares): FLOAT32 for FLOAT16/BFLOAT16/FLOAT32
 *   (FLOAT64 on request for FLOAT32), FLOAT64 for FLOAT64 and integers.
 * - MIN, MAX, NANMIN, NANMAX, MINMAX, ARGMIN, ARGMAX, NANARGMIN, NANARGMAX,
 *   AND, OR, XOR: the element type (bitwise operators: integers only; the
 *   NAN* operators: floating types only).
 * - COUNT_NONZERO: INT64 for every element type (numpy.count_nonzero: an
 *   element counts when it compares unequal to zero, so NaN counts and -0
 *   does not).
 * - MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP (statistics, below): FLOAT32 (the
 *   default) or FLOAT64 for FLOAT16, BFLOAT16 and FLOAT32; FLOAT64 for FLOAT64
 *   and every integer type (as NumPy).
 *
 * Output layouts: one value of out_type, except MINMAX (two values: min then
 * max), MEAN_VAR (two values: mean then variance) and the ARG operators (a cured_arg_result: int64 index, then the value
 * in the first bytes of an 8-byte field; 16 bytes, 8-byte aligned).
 *
 * NaN: MIN, MAX, MINMAX, ARGMIN and ARGMAX propagate NaN (ARG*: the index of
 * the first NaN), as NumPy does. The NAN* operators ignore NaNs, like
 * numpy.nanmin and nanargmax; on an all-NaN input NANMIN/NANMAX give NaN and
 * NANARGMIN/NANARGMAX give index -1 (with the first element, a NaN, as the
 * value), and the synchronous cured_reduce() returns CURED_ERROR_ALL_NAN.
 * Ties in ARG* give the first index, and the value is that element, bit for
 * bit. -0 and +0 compare equal: which of them MIN, MAX or MINMAX return on a
 * tie between them is not specified. A NaN result of MIN, MAX, NANMIN or
 * NANMAX is a NaN, not necessarily one of the input's NaNs. MINMAX results are aligned to the
 * element size.
 *
 * n == 0: sums and COUNT_NONZERO give 0, PRODUCT 1, AND all ones, OR/XOR 0, MIN and NANMIN the
 * largest value of the type (+inf for floats) and MAX and NANMAX the smallest,
 * as CUB does;
 * MINMAX and the ARG operators return CURED_ERROR_EMPTY_INPUT.
 *
 * Statistics. MEAN, VAR (the variance: the sum of squared deviations from
 * the mean divided by n - ddof), STD (its square root) and MEAN_VAR read the
 * data once: each thread sums x - k and (x - k)^2 in float64 for a shift k
 * taken from its own data, and the threads' (count, sum, sum of squared
 * deviations) are merged pairwise (Chan et al.), the sum in double-double.
 * Accuracy, against the exact value and a float64 two-pass computation
 * (mean, then the sum of squared deviations) over the same data: a FLOAT32
 * result is within twice the two-pass's error plus one float32 ulp (in
 * effect the exact value correctly rounded or its neighbour), also for
 * |mean| / std of 1e8 or more, magnitudes of 1e-30 or 1e30 and float16 or
 * bfloat16 inputs with large means; a FLOAT64 result is within twice the
 * two-pass's error plus five float64 ulps (its per-thread sums are then
 * compensated, which costs about eight times the float64 work per element:
 * float64 results of float32 data read below the ceiling). A constant input
 * has variance exactly 0 and its mean exactly. MEAN is the sum over n and
 * overflows where the sum does; squared deviations beyond float64's range
 * give inf (both as NumPy). cured_reduce() uses ddof = 0 (the population
 * variance, NumPy's default); cured_reduce_stats() takes any ddof. n == 0
 * gives NaN for MEAN, and n <= ddof gives NaN for VAR, STD and MEAN_VAR's
 * variance (NumPy gives inf there when the values differ); the synchronous
 * calls return CURED_ERROR_TOO_FEW_ELEMENTS instead, writing nothing. NaN or
 * inf in the input: MEAN is the sum's value (NaN, +inf, -inf, or NaN for
 * +inf and -inf together) and the variance is NaN, as NumPy's.
 * LOGSUMEXP is log(sum(exp(x))) computed as max + log(sum(exp(x - max))),
 * with a running maximum: NaN propagates, +inf in the input gives +inf, and
 * all -inf (or n == 0) gives -inf, as scipy.special.logsumexp. With a
 * FLOAT64 result the exponentials are float64 (slower: the GPU's float64
 * rate bounds it); with a FLOAT32 result they are float32 (expf), and the
 * absolute error is then below 2^-21 + 2^-24 * w, w being the
 * softmax-weighted mean of (max - x) (about 4 for normally distributed
 * data): within about one float32 ulp for results of magnitude 8 or more,
 * while a result close to 0 (the logsumexp of log-probabilities, say) has
 * that absolute, not relative, error. Sums are float64 in both.
 *
 * Determinism: the AUTO kernels use no atomics on data: per-block partials
 * are combined in a fixed order, so a float result is bitwise identical from
 * run to run for the same input, n and device.
 */
typedef enum cured_op {
    CURED_OP_SUM = 0,
    CURED_OP_PRODUCT = 1,
    CURED_OP_MIN = 2,
    CURED_OP_MAX = 3,
    CURED_OP_MINMAX = 4,
    CURED_OP_ARGMIN = 5,
    CURED_OP_ARGMAX = 6,
    CURED_OP_AND = 7,
    CURED_OP_OR = 8,
    CURED_OP_XOR = 9,
    CURED_OP_SUM_SQUARES = 10,
    CURED_OP_SUM_ABS = 11,
    CURED_OP_NORM2 = 12,
    CURED_OP_DOT = 13,       /**< only through cured_dot() / cured_dot_async() */
    CURED_OP_NANMIN = 14,
    CURED_OP_NANMAX = 15,
    CURED_OP_NANARGMIN = 16,
    CURED_OP_NANARGMAX = 17,
    CURED_OP_COUNT_NONZERO = 18, /**< number of nonzero elements (NaN counts, -0 does not) */
    CURED_OP_MEAN = 19,
    CURED_OP_VAR = 20,       /**< variance; ddof through cured_reduce_stats() (0 otherwise) */
    CURED_OP_STD = 21,       /**< standard deviation, sqrt(VAR) */
    CURED_OP_MEAN_VAR = 22,  /**< two values: mean, then variance */
    CURED_OP_LOGSUMEXP = 23  /**< log(sum(exp(x))), stably */
} cured_op;
#define CURED_OP_COUNT 24

/** Result of the ARG operators: the index, then the value (of the element type). */
typedef struct cured_arg_result {
    int64_t index;
    union {
        int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
        int64_t i64; uint64_t u64; uint16_t f16_bits; uint16_t bf16_bits; float f32; double f64;
    } value;
} cured_arg_result;

/**
 * Algorithms, after The CUDA Handbook, chapter 12. AUTO is the library's
 * fastest, offers every operator and type, and needs no CUDA toolkit headers
 * at run time (only the driver and NVRTC). The others implement the
 * chapter's int32 sums (int32 or int64 result) for comparison; with other
 * operators or types they return CURED_ERROR_NOT_SUPPORTED. The *_CG variants and LISTING_12_4 include cooperative_groups.h and
 * so need a CUDA toolkit's include directories (see cured_toolkit_include());
 * without them they return CURED_ERROR_NOT_SUPPORTED.
 */
typedef enum cured_algorithm {
    CURED_ALGO_AUTO = 0,
    CURED_ALGO_TWO_PASS_SHARED = 1,      /**< two kernels, shared-memory tree per block */
    CURED_ALGO_TWO_PASS_SHUFFLE = 2,     /**< two kernels, warp-shuffle block reduction */
    CURED_ALGO_TWO_PASS_CG = 3,          /**< two kernels, cg::reduce block reduction */
    CURED_ALGO_SINGLE_PASS_TICKET = 4,   /**< one kernel; the last block (atomic ticket) combines */
    CURED_ALGO_SINGLE_PASS_ATOMIC = 5,   /**< one kernel; one atomicAdd per block */
    CURED_ALGO_LISTING_12_4 = 6          /**< int4 loads, cg::reduce, one atomic per block */
} cured_algorithm;
#define CURED_ALGO_COUNT 7

/** Opaque library handle bound to one CUDA context. */
typedef struct cured_handle_st *cured_handle;

/**
 * \brief Version of the library that is loaded.
 * \param major, minor, patch  may each be NULL.
 * \return CURED_API_VERSION of the library (major * 10000 + minor * 100 + patch).
 */
CURED_EXPORT int cured_version(int *major, int *minor, int *patch);

/** \brief Version string, e.g. "0.1.0". \return a static string. */
CURED_EXPORT const char *cured_version_string(void);

/** \brief Name of a status, e.g. "CURED_ERROR_NO_DRIVER". \return a static string
 *  ("CURED_STATUS_UNKNOWN" for values not in cured_status). */
CURED_EXPORT const char *cured_status_string(cured_status status);

/** \brief Name of an element type, e.g. "int32", "bfloat16". \return a static
 *  string ("unknown" for values not in cured_type). */
CURED_EXPORT const char *cured_type_name(cured_type type);

/** \brief Name of an operator: its enumerator without CURED_OP_, e.g. "SUM",
 *  "NANARGMAX". \return a static string ("UNKNOWN" for values not in cured_op). */
CURED_EXPORT const char *cured_op_name(cured_op op);

/**
 * \brief Detailed message for the last failing call made by this thread.
 * It says what was tried (library names, paths, driver call) and, for
 * CURED_ERROR_COMPILE, holds the NVRTC log. Successful calls do not clear it.
 * \return a thread-local string, valid until this thread's next cured call;
 *         "" when nothing has failed.
 */
CURED_EXPORT const char *cured_last_error(void);

/**
 * \brief Create a handle for a device ordinal, using the device's primary
 * context (the one the CUDA runtime uses), so that memory and streams from
 * runtime code work with it. Allocates the handle's small per-stream workspace.
 * \param device  CUDA device ordinal (0 .. count-1).
 * \param out     receives the handle; set to NULL on failure.
 * \return CURED_SUCCESS, CURED_ERROR_NULL_POINTER, CURED_ERROR_NO_DRIVER,
 *         CURED_ERROR_NO_DEVICE, CURED_ERROR_INVALID_DEVICE, CURED_ERROR_OUT_OF_MEMORY,
 *         CURED_ERROR_CUDA.
 */
CURED_EXPORT cured_status cured_create(int device, cured_handle *out);

/**
 * \brief Create a handle for an existing context. The context must outlive
 * the handle.
 * \param ctx  a CUcontext.
 * \param out  receives the handle; set to NULL on failure.
 * \return as cured_create(), CURED_ERROR_INVALID_DEVICE for a bad context.
 */
CURED_EXPORT cured_status cured_create_for_context(struct CUctx_st *ctx, cured_handle *out);

/**
 * \brief Destroy a handle: waits for no stream, so the caller must make sure
 * no work launched through it is still pending. Frees its workspace and
 * unloads its modules. NULL is accepted.
 * \return CURED_SUCCESS, or CURED_ERROR_CUDA if freeing failed (the handle is
 *         freed regardless).
 */
CURED_EXPORT cured_status cured_destroy(cured_handle h);

/**
 * \brief Asynchronous reduction of n elements on a stream.
 *
 * Writes op(in[0..n)) to *out (device memory) when the stream reaches it. The
 * call allocates nothing, sets no memory and does not synchronise, so it may
 * be captured into a CUDA graph. It may compile a kernel (NVRTC) the first
 * time a specialization is used; call cured_prepare() before capturing if
 * that matters.
 *
 * Operators, result types, output layouts, NaN and n == 0 rules: see cured_op.
 *
 * Streams: the handle keeps one workspace per stream it has seen (16 are made
 * at creation; more are added on first use of a further stream outside
 * capture, a call that allocates and waits for the new workspaces to be
 * zeroed). Calls through one handle on different streams may run
 * concurrently. A graph captured from a call uses the workspace of the stream
 * it was captured on: do not run it concurrently with other calls on that
 * stream or other launches of the same graph.
 *
 * Pointers: a pointer CUDA does not know (plain host memory) is refused with
 * CURED_ERROR_NOT_DEVICE_POINTER (one cuPointerGetAttributes per pointer);
 * device memory of another device must be reachable through peer access.
 *
 * \param h       handle.
 * \param op      operator.
 * \param algo    algorithm; CURED_ALGO_AUTO unless comparing variants.
 * \param in      device pointer to n elements, aligned to the element size
 *                (any such alignment; 16 bytes is fastest). May be NULL when n == 0.
 * \param in_type element type.
 * \param n       element count (any size_t whose byte size does not overflow).
 * \param out     device pointer to the result (see cured_op for its layout),
 *                aligned to its size (8 bytes for the ARG operators).
 * \param out_type result type.
 * \param stream  CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return CURED_SUCCESS or an error; on error nothing was launched or written.
 *         CURED_ERROR_TYPE_MISMATCH for an (op, in_type, out_type) not offered,
 *         CURED_ERROR_NOT_SUPPORTED for an algorithm other than AUTO with
 *         anything but an int32 sum, CURED_ERROR_EMPTY_INPUT (see cured_op).
 */
CURED_EXPORT cured_status cured_reduce_async(cured_handle h, cured_op op, cured_algorithm algo,
                                             const void *in, cured_type in_type, size_t n,
                                             void *out, cured_type out_type,
                                             struct CUstream_st *stream);

/**
 * \brief Compile (or find in the caches) and load the kernel that
 * cured_reduce_async() would use for (op, algo, in_type, out_type), now.
 * A first call of a specialization otherwise compiles it; call this before
 * capturing a stream into a CUDA graph or before timing.
 * \param h        handle.
 * \param op       operator (CURED_OP_DOT: the kernel of cured_dot_async()).
 * \param algo     algorithm.
 * \param in_type  element type.
 * \param out_type result type.
 * \return CURED_SUCCESS, CURED_ERROR_NULL_HANDLE, CURED_ERROR_INVALID_ENUM,
 *         CURED_ERROR_TYPE_MISMATCH, CURED_ERROR_NOT_SUPPORTED, CURED_ERROR_NO_NVRTC,
 *         CURED_ERROR_COMPILE, CURED_ERROR_CUDA.
 */
CURED_EXPORT cured_status cured_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type,
                                        cured_type out_type);

/**
 * \brief Synchronous reduction: as cured_reduce_async(), but the result is
 * written to host memory and the call waits for the stream.
 * \param host_out  host pointer receiving the result (see cured_op for its layout).
 * \return as cured_reduce_async(); CURED_ERROR_CUDA if the stream reports an
 *         error; CURED_ERROR_ALL_NAN (host_out not written) for a NAN* operator
 *         on an all-NaN input; CURED_ERROR_TOO_FEW_ELEMENTS (nothing launched or
 *         written) for MEAN, VAR, STD or MEAN_VAR with n == 0.
 */
CURED_EXPORT cured_status cured_reduce(cured_handle h, cured_op op, cured_algorithm algo,
                                       const void *in, cured_type in_type, size_t n,
                                       void *host_out, cured_type out_type,
                                       struct CUstream_st *stream);

/**
 * \brief Asynchronous statistic with a delta degrees of freedom: as
 * cured_reduce_async() with algorithm AUTO, for the operators MEAN, VAR, STD,
 * MEAN_VAR and LOGSUMEXP (see cured_op, "Statistics").
 * \param h        handle.
 * \param op       CURED_OP_MEAN, VAR, STD, MEAN_VAR or LOGSUMEXP.
 * \param in       device pointer to n elements (may be NULL when n == 0).
 * \param in_type  element type.
 * \param n        element count.
 * \param ddof     delta degrees of freedom: VAR = m2 / (n - ddof), with m2 the sum
 *                 of squared deviations (0: population variance, 1: the unbiased
 *                 sample variance). Finite and >= 0; fractions are allowed. MEAN
 *                 and LOGSUMEXP ignore it. n <= ddof gives a NaN variance.
 * \param out      device pointer to the result (MEAN_VAR: two values, mean then
 *                 variance), aligned to the result type's size.
 * \param out_type FLOAT32 or FLOAT64 (see cured_op).
 * \param stream   CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return CURED_SUCCESS or an error (nothing launched or written): as
 *         cured_reduce_async(); CURED_ERROR_INVALID_VALUE for another operator or
 *         a negative or non-finite ddof.
 */
CURED_EXPORT cured_status cured_reduce_stats_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                                   size_t n, double ddof, void *out, cured_type out_type,
                                                   struct CUstream_st *stream);

/**
 * \brief Synchronous cured_reduce_stats_async(): the result is written to host
 * memory and the call waits for the stream.
 * \param h, op, in, in_type, n, ddof, out_type, stream  as cured_reduce_stats_async().
 * \param host_out host pointer receiving the result (MEAN_VAR: two values).
 * \return as cured_reduce_stats_async(); CURED_ERROR_TOO_FEW_ELEMENTS (nothing
 *         launched, host_out not written) for MEAN with n == 0 and for VAR, STD
 *         and MEAN_VAR with n <= ddof; CURED_ERROR_CUDA if the stream reports an
 *         error.
 */
CURED_EXPORT cured_status cured_reduce_stats(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                             size_t n, double ddof, void *host_out, cured_type out_type,
                                             struct CUstream_st *stream);

/**
 * \brief Dot product sum(x[i] * y[i]) of two arrays of one type, with the
 * result types of CURED_OP_SUM (int8 inputs may ask for INT32 or INT64).
 * x and y need only be aligned to the element size; 16-byte loads are used
 * when both have the same offset within 16 bytes. Otherwise as
 * cured_reduce_async() with algorithm AUTO.
 */
CURED_EXPORT cured_status cured_dot_async(cured_handle h, const void *x, const void *y, cured_type type,
                                          size_t n, void *out, cured_type out_type,
                                          struct CUstream_st *stream);

/** \brief Synchronous dot product into host memory; see cured_dot_async(). */
CURED_EXPORT cured_status cured_dot(cured_handle h, const void *x, const void *y, cured_type type,
                                    size_t n, void *host_out, cured_type out_type,
                                    struct CUstream_st *stream);

/**
 * \brief The default result type of an operator for an element type (see cured_op).
 * \return CURED_SUCCESS, CURED_ERROR_INVALID_ENUM, CURED_ERROR_NULL_POINTER, or
 *         CURED_ERROR_TYPE_MISMATCH when the operator does not take that type.
 */
CURED_EXPORT cured_status cured_default_result(cured_op op, cured_type in_type, cured_type *out_type);

/** \brief Size in bytes of a type (0 for an unknown value). */
CURED_EXPORT size_t cured_type_size(cured_type type);

/**
 * \brief Architecture that kernels are compiled for on this handle's device.
 * \param sm      receives e.g. 90 for sm_90 (may be NULL).
 * \param is_ptx  receives 1 when PTX is produced for the driver to JIT, 0 for cubin (may be NULL).
 * \return CURED_SUCCESS, CURED_ERROR_NULL_HANDLE, CURED_ERROR_NO_NVRTC,
 *         CURED_ERROR_NOT_SUPPORTED (NVRTC supports no usable architecture).
 */
CURED_EXPORT cured_status cured_get_arch(cured_handle h, int *sm, int *is_ptx);

/**
 * \brief Version of the NVRTC library in use (loading it if needed).
 * \return CURED_SUCCESS or CURED_ERROR_NO_NVRTC; major/minor may be NULL.
 */
CURED_EXPORT cured_status cured_nvrtc_version(int *major, int *minor);

/**
 * \brief CUDA driver version (e.g. 13000), loading the driver if needed.
 * \return CURED_SUCCESS (also when the driver sees no device) or
 *         CURED_ERROR_NO_DRIVER.
 */
CURED_EXPORT cured_status cured_driver_version(int *version);

/**
 * \brief Architectures that the loaded NVRTC can compile for (e.g. 75, 80, ... 120).
 * \param archs     array receiving up to capacity values (may be NULL if capacity is 0).
 * \param capacity  its length.
 * \param count     receives the total number supported.
 * \return CURED_SUCCESS, CURED_ERROR_NULL_POINTER, CURED_ERROR_NO_NVRTC.
 */
CURED_EXPORT cured_status cured_supported_archs(int *archs, int capacity, int *count);

/**
 * \brief Toolkit include directory used by the cooperative-groups variants.
 * Searched in CURED_CUDA_HOME, CUDA_HOME, CUDA_PATH, the path configure found,
 * /usr/local/cuda (each must hold include/cooperative_groups.h).
 * \return the directory's include path, or NULL if none was found (then
 *         cured_last_error() lists what was searched).
 */
CURED_EXPORT const char *cured_toolkit_include(void);

/** \brief Number of built-in kernel specializations (one per NVRTC program). */
CURED_EXPORT size_t cured_kernel_count(void);

/**
 * \brief Description of built-in kernel specialization index, e.g.
 * "single_pass_ticket SUM int32->int64 (kernels-src/single_pass.cu)".
 * \return a static string, or NULL if index >= cured_kernel_count().
 */
CURED_EXPORT const char *cured_kernel_name(size_t index);

/**
 * \brief Compile a built-in kernel for an architecture without needing a GPU
 * (through the in-memory cache, so a second call is a hit). Useful to warm
 * caches and to check NVRTC.
 * \param index    0 .. cured_kernel_count()-1.
 * \param sm       target, e.g. 90.
 * \param ptx      nonzero for PTX, zero for a cubin.
 * \param bytes    receives the compiled image size (may be NULL).
 * \return CURED_SUCCESS, CURED_ERROR_INVALID_VALUE, CURED_ERROR_NO_NVRTC,
 *         CURED_ERROR_NOT_SUPPORTED (needs toolkit headers that are absent, or
 *         an arch NVRTC does not offer), CURED_ERROR_COMPILE.
 */
CURED_EXPORT cured_status cured_compile_kernel(size_t index, int sm, int ptx, size_t *bytes);

/** Counters of the kernel cache, for tests and curious users. */
typedef struct cured_stats {
    uint64_t memory_hits;   /**< kernel images found in memory */
    uint64_t disk_hits;     /**< kernel images read from the disk cache */
    uint64_t compiles;      /**< NVRTC compilations that succeeded */
    uint64_t compile_failures;
    double compile_seconds; /**< wall time spent in NVRTC */
} cured_stats;

/** \brief Read the process-wide cache counters. \return CURED_SUCCESS or CURED_ERROR_NULL_POINTER. */
CURED_EXPORT cured_status cured_get_stats(cured_stats *stats);

/* ---- Logging --------------------------------------------------------------- */

/** Log levels. The library prints nothing unless asked: set CURED_LOG=warn or
 *  CURED_LOG=debug (messages go to stderr) or install a callback. */
typedef enum cured_log_level {
    CURED_LOG_OFF = 0,
    CURED_LOG_WARN = 1,  /**< problems cured worked around (e.g. an unusable disk cache) */
    CURED_LOG_DEBUG = 2  /**< cache hits and misses, compilations */
} cured_log_level;

/** A log sink: level, a NUL-terminated message without newline, and user. */
typedef void (*cured_log_fn)(cured_log_level level, const char *message, void *user);

/**
 * \brief Send log messages up to max_level to fn (NULL fn: back to the
 * CURED_LOG default, stderr). Each distinct warning is reported once per process.
 * \return CURED_SUCCESS, or CURED_ERROR_INVALID_ENUM for an unknown level.
 */
CURED_EXPORT cured_status cured_set_log(cured_log_level max_level, cured_log_fn fn, void *user);

/* ---- Disk cache ------------------------------------------------------------ */

/**
 * \brief Directory of the persistent kernel cache in use: CURED_CACHE_DIR, else
 * $XDG_CACHE_HOME/cured, else $HOME/.cache/cured (else the passwd entry's
 * home), plus a versioned subdirectory. CURED_CACHE_DIR set but empty, or
 * CURED_CACHE_DISABLE=1, turns the disk cache off (the memory cache stays).
 * The directory is created 0700; one not owned by the user, or writable by
 * group or others, is refused. Any cache problem is a cache miss, never an error.
 * \return the path, or NULL when the disk cache is off or unusable.
 */
CURED_EXPORT const char *cured_cache_dir(void);

/** One entry of the disk cache, as reported by cured_cache_foreach(). */
typedef struct cured_cache_entry {
    const char *file;     /**< entry file name (SHA-256 of its key) */
    const char *summary;  /**< kernel source and name expressions */
    const char *target;   /**< e.g. "sm_90" or "compute_90" */
    uint64_t bytes;       /**< size of the entry file */
    int64_t last_use;     /**< seconds since the epoch */
} cured_cache_entry;

/**
 * \brief Call fn for each valid-looking entry of the disk cache.
 * \return CURED_SUCCESS (also when the cache is off: no calls),
 *         CURED_ERROR_NULL_POINTER when fn is NULL.
 */
CURED_EXPORT cured_status cured_cache_foreach(void (*fn)(const cured_cache_entry *entry, void *user),
                                              void *user);

/**
 * \brief Remove every entry of the disk cache (and stale temporary files).
 * \param removed  receives the number of entries removed (may be NULL).
 * \return CURED_SUCCESS (also when the cache is off).
 */
CURED_EXPORT cured_status cured_cache_clear(size_t *removed);

/* ---- User-defined reductions ------------------------------------------------ */

/** A user-defined reduction compiled from C++ expressions. */
typedef struct cured_custom_st *cured_custom;

/**
 * \brief Define a reduction by three C++ expressions, compiled with NVRTC for
 * the device (and cached in memory and on disk like the built-in kernels).
 *
 * - map_expr: what one element contributes, over `x` (and `y`, the element of
 *   the second input, when ninputs is 2). `x` and `y` have the element type,
 *   except that FLOAT16 and BFLOAT16 elements are given as float.
 * - combine_expr: combines two partial results `a` and `b` (of acc_type);
 *   it must be associative (and is applied in a fixed order, so results are
 *   deterministic run to run).
 * - identity_expr: the identity of combine.
 * The result has acc_type. Examples: sum of squares `x*x` / `a+b` / `0`;
 * max-abs `fabs(x)` / `fmax(a,b)` / `0`; count of nonzeros `x != 0` / `a+b` / `0`
 * (acc INT64); dot product (ninputs 2) `x*y` / `a+b` / `0`.
 * CUDA's device math functions (fabs, fmax, sqrt, ...) are available.
 *
 * The expressions run as device code of the caller's process with the
 * caller's privileges; cured only makes sure that each stays inside its
 * slot: an expression longer than 1024 characters, with unbalanced
 * parentheses or brackets, or containing ; { } # quotes, backslashes or
 * comments is rejected with CURED_ERROR_INVALID_EXPRESSION before any
 * compilation. A compile error returns CURED_ERROR_COMPILE, and
 * cured_last_error() holds NVRTC's log, whose lines point into the
 * offending expression (e.g. "map_expr(1): error: ...").
 *
 * \param h        handle: the op is compiled for its device now (it may be used with any handle).
 * \param in_type  element type of the input(s).
 * \param acc_type accumulator and result type.
 * \param ninputs  1, or 2 for a two-input map (x and y).
 * \param map_expr, combine_expr, identity_expr  the expressions.
 * \param out      receives the op; NULL on failure.
 * \return CURED_SUCCESS, CURED_ERROR_NULL_HANDLE, CURED_ERROR_NULL_POINTER,
 *         CURED_ERROR_INVALID_ENUM, CURED_ERROR_INVALID_VALUE (ninputs),
 *         CURED_ERROR_INVALID_EXPRESSION, CURED_ERROR_COMPILE, CURED_ERROR_NO_NVRTC, ...
 */
CURED_EXPORT cured_status cured_custom_create(cured_handle h, cured_type in_type, cured_type acc_type,
                                              int ninputs, const char *map_expr,
                                              const char *combine_expr, const char *identity_expr,
                                              cured_custom *out);

/** One field of a multi-field user-defined reduction (cured_custom_create_multi()). */
typedef struct cured_custom_field {
    cured_type type;      /**< the field's type (not FLOAT16 or BFLOAT16) */
    const char *map;      /**< what one element contributes to the field, over `x` (and `y`) */
    const char *combine;  /**< the field of combine(a, b), over `a0`..`a3` and `b0`..`b3` */
    const char *identity; /**< the field of the identity of combine */
} cured_custom_field;

/**
 * \brief Define a reduction whose state has one to four fields, each of its
 * own type, by C++ expressions (compiled and cached as cured_custom_create()'s,
 * with the same checks on each expression).
 *
 * Field k of a state is named `a<k>` (and `b<k>` in combine, for the second
 * state). Each field's map sees `x` (and `y` when ninputs is 2; FLOAT16 and
 * BFLOAT16 elements as float); its combine gives field k of combine(a, b)
 * from all the fields of a and b (all fields are updated at once, from the
 * old values); combine must be associative and is applied in a fixed order.
 * Each finalize expression gives one result, of out_type, from the fields of
 * the final state and `n`, the element count as a double; the results are
 * written one after the other (nresults * size of out_type bytes, at most 32).
 * Compile errors name the expression, e.g. "fields[1].combine(1): error: ..."
 * or "finalize[0](1): ...".
 *
 * Example 1, mean and variance (two results) from the sums of x and x*x in
 * float64, for data whose mean is not much larger than its spread (the
 * difference loses about log10(mean^2 / variance) digits; CURED_OP_MEAN_VAR
 * has no such loss):
 * \code
 *   cured_custom_field f[2] = {{CURED_TYPE_FLOAT64, "x", "a0 + b0", "0"},
 *                              {CURED_TYPE_FLOAT64, "(double)x * x", "a1 + b1", "0"}};
 *   const char *fin[2] = {"a0 / n", "(a1 - a0 * a0 / n) / n"};
 *   cured_custom_create_multi(h, CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, &op);
 *   double mv[2];
 *   cured_custom_reduce(h, op, x, NULL, n, mv, stream);  // mv[0]: mean, mv[1]: variance
 * \endcode
 * Example 2, a count-weighted average: x holds values, y the counts they
 * stand for (two inputs of one type):
 * \code
 *   cured_custom_field f[2] = {{CURED_TYPE_FLOAT64, "(double)x * y", "a0 + b0", "0"},
 *                              {CURED_TYPE_FLOAT64, "y", "a1 + b1", "0"}};
 *   const char *fin[1] = {"a0 / a1"};
 *   cured_custom_create_multi(h, CURED_TYPE_FLOAT32, 2, f, 2, CURED_TYPE_FLOAT64, fin, 1, &op);
 * \endcode
 *
 * \param h         handle: the op is compiled for its device now (it may be used with any handle).
 * \param in_type   element type of the input(s).
 * \param ninputs   1, or 2 for maps over x and y.
 * \param fields    nfields field descriptions.
 * \param nfields   1 to 4.
 * \param out_type  type of the results (not FLOAT16 or BFLOAT16).
 * \param finalize  nresults expressions, one per result.
 * \param nresults  1 to 4, with nresults * cured_type_size(out_type) <= 32.
 * \param out       receives the op, for cured_custom_reduce(_async) and
 *                  cured_custom_destroy(); NULL on failure.
 * \return CURED_SUCCESS, CURED_ERROR_NULL_HANDLE, CURED_ERROR_NULL_POINTER,
 *         CURED_ERROR_INVALID_ENUM, CURED_ERROR_TYPE_MISMATCH (a half type),
 *         CURED_ERROR_INVALID_VALUE (ninputs, nfields, nresults, or results over
 *         32 bytes), CURED_ERROR_INVALID_EXPRESSION (naming the expression, e.g.
 *         "fields[0].map"), CURED_ERROR_COMPILE, CURED_ERROR_NO_NVRTC, ...
 */
CURED_EXPORT cured_status cured_custom_create_multi(cured_handle h, cured_type in_type, int ninputs,
                                                    const cured_custom_field *fields, int nfields,
                                                    cured_type out_type, const char *const *finalize,
                                                    int nresults, cured_custom *out);

/**
 * \brief Run a user-defined reduction asynchronously; as cured_reduce_async()
 * with algorithm AUTO. y is the second input for a two-input op, else NULL.
 * The result (one acc_type value, or a multi-field op's nresults values of
 * out_type) is written to out, device memory, aligned to the result type.
 * \return as cured_reduce_async(); CURED_ERROR_NULL_POINTER if the op is NULL.
 */
CURED_EXPORT cured_status cured_custom_reduce_async(cured_handle h, cured_custom op, const void *x,
                                                    const void *y, size_t n, void *out,
                                                    struct CUstream_st *stream);

/** \brief Synchronous cured_custom_reduce_async() into host memory.
 *  \return as cured_custom_reduce_async(); CURED_ERROR_CUDA if the stream reports an error. */
CURED_EXPORT cured_status cured_custom_reduce(cured_handle h, cured_custom op, const void *x,
                                              const void *y, size_t n, void *host_out,
                                              struct CUstream_st *stream);

/**
 * \brief Free a user-defined op and unload its modules. No work using it may
 * be pending; the contexts it was used in must still exist. NULL is accepted.
 * \return CURED_SUCCESS.
 */
CURED_EXPORT cured_status cured_custom_destroy(cured_custom op);

#ifdef __cplusplus
}
#endif
#endif /* CURED_H */
