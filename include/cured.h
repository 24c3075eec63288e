/**
 * \file cured.h
 * \brief cured: CUDA reductions compiled at run time.
 *
 * One public header (it includes cured_version.h). Kernels are compiled with NVRTC at first use for the GPU
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
 * Contexts: cured never changes the calling thread's current context. Each
 * call makes the handle's context current for its own work and restores the
 * caller's before it returns. cured_create() retains the device's primary
 * context (the one the CUDA runtime uses) but does NOT make it current for
 * the caller: a program that calls the driver API itself (cuMemAlloc, ...)
 * must first make a context current, e.g. cuDevicePrimaryCtxRetain() then
 * cuCtxSetCurrent(), or any CUDA runtime call (cudaSetDevice(), cudaMalloc()),
 * which does so for the primary context. examples/sum.c shows the first way.
 *
 * Thread safety: every function may be called from any thread at the same
 * time as any other, except where its documentation says otherwise
 * (cured_destroy(), cured_custom_destroy()). A handle may be shared by
 * threads; see cured_reduce_async() for streams.
 */
#ifndef CURED_H
#define CURED_H

#include <stddef.h>
#include <stdint.h>

#include "cured_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** \cond INTERNAL */
#if defined(CURED_BUILDING) && defined(__GNUC__)
#define CURED_EXPORT __attribute__((visibility("default")))
#else
#define CURED_EXPORT
#endif
/** \endcond */

/**
 * \defgroup cured_info Versions, names and facts
 * \brief Library, driver and NVRTC versions; names of statuses, types and
 * operators; the last error message; result types and sizes.
 *
 * \defgroup cured_handle Handles
 * \brief A handle binds cured to one CUDA context.
 *
 * \defgroup cured_reduce Reductions
 * \brief Built-in operators over device arrays, asynchronous or synchronous.
 *
 * \defgroup cured_custom User-defined reductions
 * \brief Operators written as C++ expressions, compiled with NVRTC.
 *
 * \defgroup cured_cache Kernels and the disk cache
 * \brief The built-in kernels, compiling them without a GPU, and the
 * persistent kernel cache.
 *
 * \defgroup cured_comm Across GPUs (NCCL)
 * \brief Reductions of arrays sharded over the ranks of an NCCL communicator.
 *
 * \defgroup cured_log Logging
 * \brief Where cured's warnings and debug messages go.
 */

struct CUstream_st; /* CUstream == cudaStream_t == struct CUstream_st * */
struct CUctx_st;    /* CUcontext == struct CUctx_st * */
struct ncclComm;    /* ncclComm_t == struct ncclComm * (NCCL's nccl.h) */

/** \addtogroup cured_info
 *  @{ */

/** Status codes. Values are stable: new codes are only ever appended. */
typedef enum cured_status {
    CURED_SUCCESS = 0,                  /**< the call did what it says */
    CURED_ERROR_NULL_HANDLE = 1,        /**< the handle argument is NULL */
    CURED_ERROR_NULL_POINTER = 2,       /**< a required pointer argument is NULL */
    CURED_ERROR_INVALID_ENUM = 3,       /**< an enum argument has an unknown value */
    CURED_ERROR_SIZE_OVERFLOW = 4,      /**< n times the element size overflows, or a view passes CURED_MAX_ELEMENTS */
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
    CURED_ERROR_OUT_OF_RANGE = 21,      /**< an input or output runs past the end of its allocation */
    CURED_ERROR_TOO_FEW_ELEMENTS = 22,  /**< MEAN of n == 0, VAR/STD/MEAN_VAR of n <= ddof, NANMEAN/NANVAR/NANSTD of too few non-NaN elements (synchronous calls) */
    CURED_ERROR_NO_NCCL = 23,           /**< NCCL (libnccl.so.2) could not be loaded; the message says what was tried */
    CURED_ERROR_NCCL = 24,              /**< an NCCL call failed; the message names it and gives NCCL's error string */
    CURED_ERROR_OVERLAP = 25,           /**< an output overlaps an input or an offset array (nothing launched) */
    CURED_ERROR_BAD_SEGMENT = 26,       /**< a segment's offsets lay outside the input it may read (cured_check_stream()) */
    CURED_ERROR_COMPILE_BUDGET = 27     /**< a user-defined op, or the process's ops, spent their compile budget (cured_custom_create()); nothing compiled or launched */
} cured_status;

/** Element and result types. Values are stable. FLOAT16 is IEEE binary16 and
 *  BFLOAT16 is bfloat16, each passed as its 16-bit pattern. */
typedef enum cured_type {
    CURED_TYPE_INT32 = 0,       /**< int32_t */
    CURED_TYPE_INT64 = 1,       /**< int64_t */
    CURED_TYPE_INT8 = 2,        /**< int8_t */
    CURED_TYPE_UINT8 = 3,       /**< uint8_t */
    CURED_TYPE_INT16 = 4,       /**< int16_t */
    CURED_TYPE_UINT16 = 5,      /**< uint16_t */
    CURED_TYPE_UINT32 = 6,      /**< uint32_t */
    CURED_TYPE_UINT64 = 7,      /**< uint64_t */
    CURED_TYPE_FLOAT16 = 8,     /**< IEEE binary16 (its bit pattern) */
    CURED_TYPE_BFLOAT16 = 9,    /**< bfloat16 (its bit pattern) */
    CURED_TYPE_FLOAT32 = 10,    /**< float */
    CURED_TYPE_FLOAT64 = 11     /**< double */
} cured_type;
/** Number of cured_type values (0 .. CURED_TYPE_COUNT-1). */
#define CURED_TYPE_COUNT 12
/** @} */

/** \addtogroup cured_reduce
 *  @{ */

/**
 * Reduction operators. Values are stable.
 *
 * Result types (out_type), by element type:
 * - SUM, NANSUM, PRODUCT, SUM_SQUARES, SUM_ABS, DOT: signed integers give INT64
 *   or, on request, INT32 or the element type; unsigned integers give
 *   UINT64, or UINT32 or the element type. Each is exact while the true
 *   result fits the result type, and otherwise wraps modulo 2^bits (two's
 *   complement for the signed types; INT64 and UINT64 too, as NumPy's int64
 *   and uint64 sums and products, whatever the order of the additions or
 *   multiplications; SUM_ABS takes |INT64_MIN| as 2^63); FLOAT16 and BFLOAT16 accumulate in
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
 * - MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR, NANSTD (statistics,
 *   below): FLOAT32 (the
 *   default) or FLOAT64 for FLOAT16, BFLOAT16 and FLOAT32; FLOAT64 for FLOAT64
 *   and every integer type (as NumPy).
 *
 * Output layouts: one value of out_type, except MINMAX (two values: min then
 * max), MEAN_VAR (two values: mean then variance) and the ARG operators (a cured_arg_result: int64 index, then the value
 * in the first bytes of an 8-byte field; 16 bytes, 8-byte aligned).
 *
 * NaN: MIN, MAX, MINMAX, ARGMIN and ARGMAX propagate NaN (ARG*: the index of
 * the first NaN), as NumPy does. The NAN* operators ignore NaNs: NANMIN and
 * NANMAX are numpy.nanmin and nanmax, and NANARGMIN/NANARGMAX give the index
 * of the extreme of the elements that are not NaN, never a NaN's unless all
 * are NaN: [NaN, +inf] gives NANARGMIN index 1 (numpy.nanargmin, which
 * replaces NaNs by +inf before its argmin, gives 0 there; the two agree
 * wherever a non-NaN element is below +inf for NANARGMIN, above -inf for
 * NANARGMAX). On an all-NaN input NANMIN/NANMAX give NaN and
 * NANARGMIN/NANARGMAX give index -1 (with the first element, a NaN, as the
 * value), and the synchronous cured_reduce() returns CURED_ERROR_ALL_NAN.
 * Ties in ARG* give the first index, and the value is that element, bit for
 * bit (so of -0 and +0, the first). -0 and +0 compare equal: which of them
 * MIN, MAX, NANMIN, NANMAX or MINMAX return on a tie between them is not
 * specified (it depends on how the elements fall to threads and blocks;
 * NumPy's min and nanmin differ there too), while a zero that is the
 * extreme alone keeps its sign. A NaN result of MIN, MAX, NANMIN or
 * NANMAX is a NaN, not necessarily one of the input's NaNs. MINMAX results are aligned to the
 * element size.
 *
 * NANSUM, NANMEAN, NANVAR and NANSTD skip NaN elements: each is its base
 * operator (SUM, MEAN, VAR, STD) over the elements that are not NaN, with
 * the same result types, accuracy and rules for inf, as numpy.nansum,
 * nanmean, nanvar and nanstd. NANSUM of nothing but NaNs (or of n == 0) is
 * 0 (NumPy's too). NANMEAN of no element that is not NaN, and NANVAR and
 * NANSTD of at most ddof of them, give NaN (NumPy warns "Mean of empty
 * slice" and "Degrees of freedom <= 0 for slice." there); the synchronous
 * calls (cured_reduce(), cured_reduce_stats(), cured_comm_reduce(),
 * cured_comm_reduce_stats()) return CURED_ERROR_TOO_FEW_ELEMENTS instead,
 * writing nothing, as MEAN, VAR and STD do for n == 0 and n <= ddof (the
 * count is of the elements that are not NaN; n <= ddof itself is found
 * before anything is launched, a shortfall of NaN elements after the run).
 * ddof goes through the statistics calls (cured_reduce_stats() and their
 * axis, segment and communicator forms); cured_reduce() uses ddof = 0. For
 * integer element types, which hold no NaN, each is its base operator
 * (the same kernels): nansum of integers is their sum, as in NumPy. A NaN
 * result of NANMEAN, NANVAR or NANSTD with enough elements comes from
 * infinities (+inf and -inf: NaN mean; any inf: NaN variance), as NumPy's.
 *
 * n == 0: sums and COUNT_NONZERO give 0, PRODUCT 1, AND all ones, OR/XOR 0, MIN and NANMIN the
 * largest value of the type (+inf for floats) and MAX and NANMAX the smallest,
 * as CUB does;
 * MINMAX and the ARG operators return CURED_ERROR_EMPTY_INPUT.
 *
 * Statistics. MEAN, VAR (the variance: the sum of squared deviations from
 * the mean divided by n - ddof), STD (its square root) and MEAN_VAR read the
 * data once: the threads sum x - k and (x - k)^2 in float64 for a shift k
 * taken from the data (for float32 results, and for float64 results of
 * 8-, 16- and 32-bit integers and float16, one shift per block or row, so
 * that a block's threads add their sums; otherwise one per thread), and
 * the resulting (count, sum, sum of squared deviations) states are merged
 * in a fixed order by Chan et al.'s pairwise update (the last block of the
 * whole-array kernel adds the same terms for all the partials at once, but
 * for the compensated float64 results below), the sum in double-double.
 * Accuracy, against the exact value and a float64 two-pass computation
 * (mean, then the sum of squared deviations) over the same data: a FLOAT32
 * result is within twice the two-pass's error plus one float32 ulp of the
 * exact value v, an ulp being 2^(e - 23) for 2^e <= |v| < 2^(e + 1) (where
 * the two-pass's error is negligible: v correctly rounded or a float next to
 * it, and when v is a power of two, whose floats below are twice as dense,
 * also the second float below it), also for
 * |mean| / std of 1e8 or more, magnitudes of 1e-30 or 1e30 and float16 or
 * bfloat16 inputs with large means; a FLOAT64 result is within twice the
 * two-pass's error plus five float64 ulps of v (2^(e - 52)) (its per-thread sums are then
 * compensated, which costs about eight times the float64 work per element:
 * float64 results of float32 data read below the ceiling). For the 8-, 16-
 * and 32-bit integers and float16, which share one shift per block (their
 * differences x - k are exact, and so are the sums of the squares of the
 * 8- and 16-bit ones; those of 32-bit integers are compensated), add
 * 2^-52 times sum((x - k)^2) - sum((x - mean)^2), k the shift of each
 * element's block, row or block's share of a column's rows (its first
 * element): the result rounds relative to the squares about the shift,
 * which matters only where a block starts with a value far from the mean
 * (the variance of 1003 int32 values of 0..1000 after one 2^31 - 1 can be
 * off by some hundred float64 ulps). 64-bit integer
 * elements are rounded to float64 as they are read (as NumPy's mean and
 * var do); beyond 2^53 in magnitude the bounds then also allow what that
 * rounding moves the result by (the mean: at most the average rounding
 * error of the elements). A constant input whose sum does not overflow
 * float64 (n |c| below about 1.8e308) has variance and standard deviation
 * exactly 0 and its mean exactly (the constant as the result type rounds
 * it), whatever its magnitude. MEAN is the sum over n and overflows where
 * the sum does: a sum beyond float64's range gives a mean of +inf or -inf
 * and a NaN variance (also for a constant input: NumPy gives inf), even
 * where the mean itself would fit; squared deviations beyond float64's
 * range give inf (as NumPy). cured_reduce() uses ddof = 0 (the population
 * variance, NumPy's default); cured_reduce_stats() takes any ddof. n == 0
 * gives NaN for MEAN, and n <= ddof gives NaN for VAR, STD and MEAN_VAR's
 * variance (NumPy gives inf there when the values differ); the synchronous
 * calls return CURED_ERROR_TOO_FEW_ELEMENTS instead, writing nothing. NaN or
 * inf in the input: MEAN is the sum's value (NaN, +inf, -inf, or NaN for
 * +inf and -inf together) and the variance is NaN, as NumPy's.
 * LOGSUMEXP is log(sum(exp(x))) computed as m + log(sum(exp(x - m))),
 * with m a running reference within 2 of the maximum: NaN propagates, +inf
 * in the input gives +inf, and all -inf (or n == 0) gives -inf, as
 * scipy.special.logsumexp. With a FLOAT64 result the exponentials are
 * float64 (slower: the GPU's float64 rate bounds it); with a FLOAT32 result
 * they are float32 (expf), the logarithm of the sum 2^e f is e ln 2 plus a
 * float32 log(f) (within 2^-24). Against the exact value v, a FLOAT32 result
 * is then within 2^-21 + 2^-24 * (w + 3) plus one float32 ulp of v (the
 * result's own rounding; ulp as for the moments above) plus twice the
 * error of a float64 computation of max + log(sum(exp(x - max))), w being
 * the softmax-weighted mean of (max - x) (about 4 for normally distributed
 * data): about two float32 ulps of a result of magnitude 8 to 16, under
 * 1.5 from 16 on (the ulp then dominates), while a result close to
 * 0 (the logsumexp of log-probabilities, say) has that absolute, not
 * relative, error. A FLOAT64 result is within 2^-51 * max(1, log S), S =
 * sum(exp(x - max)) (at most n), plus five float64 ulps of v plus twice
 * that float64 computation's error: the sum's few relative roundings become
 * an absolute error in log S, several ulps of a result near 0, where
 * max + log S cancels. Sums are float64 in both.
 *
 * Determinism: the AUTO kernels use no atomics on data: per-block partials
 * are combined in a fixed order, so a float result is bitwise identical from
 * run to run for the same input, n and device.
 *
 * Exact sums. EXACT_SUM, EXACT_MEAN, EXACT_SUM_SQUARES, EXACT_NORM2 and
 * EXACT_DOT (cured_exact_dot()) take FLOAT16, BFLOAT16, FLOAT32 or FLOAT64
 * elements (other types: CURED_ERROR_TYPE_MISMATCH) and give a result of
 * the element type or of a wider float type (FLOAT16 -> FLOAT16, FLOAT32,
 * FLOAT64; BFLOAT16 -> BFLOAT16, FLOAT32, FLOAT64; FLOAT32 -> FLOAT32,
 * FLOAT64; FLOAT64 -> FLOAT64). The result is the exact real sum of the
 * elements (of their exact squares, of the exact products x[i] * y[i])
 * rounded once to nearest, ties to even, in the result type; EXACT_MEAN is
 * the exact sum divided by the element count, rounded once; EXACT_NORM2 is
 * the square root of the sum of squares correctly rounded to float64, taken
 * in float64 (correctly rounded) and rounded once more to the result type:
 * for a FLOAT64 result the square root of the correctly rounded sum of
 * squares, for the narrower ones within one rounding of the exact norm (and
 * finite where only the sum of squares overflows the result type). The sum is
 * held exactly on the GPU (fixed-point integers; no term is rounded), so
 * the result depends only on the multiset of elements: it is bitwise the
 * same on every GPU, for every launch geometry, for any layout of the same
 * values (a contiguous array, a transposed or strided view, an axis
 * reduction), for any split into segments that are then summed again, and
 * across any number of ranks of a communicator (each rank's state is
 * combined exactly). For FLOAT64 elements EXACT_SUM equals Python's
 * math.fsum. IEEE rules: NaN if any element (any product) is NaN or if
 * both +inf and -inf occur (inf * 0 is NaN); otherwise +inf or -inf if
 * one occurs; otherwise +inf or -inf when the exact sum rounds past the
 * largest finite value of the result type; an exact sum of zero is -0.0
 * only when there are elements and every term is -0.0 (+0.0 otherwise),
 * while a nonzero value that rounds to zero keeps its sign (a negative
 * mean or a dot product below the smallest subnormal gives -0.0, as IEEE
 * rounding does); subnormal results and terms are exact.
 * n == 0 gives +0.0, and NaN for EXACT_MEAN (the synchronous calls return
 * CURED_ERROR_TOO_FEW_ELEMENTS instead, as for MEAN). They take no ddof
 * (the statistics calls refuse them). The cost: one read of the data, as
 * the other sums; bench/NOTES.md ("Exact sums") gives the model and
 * doc/results.md the measured share of the read ceiling.
 */
typedef enum cured_op {
    CURED_OP_SUM = 0,        /**< sum */
    CURED_OP_PRODUCT = 1,    /**< product */
    CURED_OP_MIN = 2,        /**< minimum */
    CURED_OP_MAX = 3,        /**< maximum */
    CURED_OP_MINMAX = 4,     /**< minimum then maximum */
    CURED_OP_ARGMIN = 5,     /**< first index of the minimum, and the value */
    CURED_OP_ARGMAX = 6,     /**< first index of the maximum, and the value */
    CURED_OP_AND = 7,        /**< bitwise and */
    CURED_OP_OR = 8,         /**< bitwise or */
    CURED_OP_XOR = 9,        /**< bitwise exclusive or */
    CURED_OP_SUM_SQUARES = 10,/**< sum of x*x */
    CURED_OP_SUM_ABS = 11,   /**< sum of |x| */
    CURED_OP_NORM2 = 12,     /**< sqrt of the sum of squares */
    CURED_OP_DOT = 13,       /**< sum of x*y: only through cured_dot() / cured_dot_async() */
    CURED_OP_NANMIN = 14,    /**< minimum ignoring NaNs */
    CURED_OP_NANMAX = 15,    /**< maximum ignoring NaNs */
    CURED_OP_NANARGMIN = 16, /**< ARGMIN ignoring NaNs */
    CURED_OP_NANARGMAX = 17, /**< ARGMAX ignoring NaNs */
    CURED_OP_COUNT_NONZERO = 18, /**< number of nonzero elements (NaN counts, -0 does not) */
    CURED_OP_MEAN = 19,      /**< arithmetic mean */
    CURED_OP_VAR = 20,       /**< variance; ddof through cured_reduce_stats() (0 otherwise) */
    CURED_OP_STD = 21,       /**< standard deviation, sqrt(VAR) */
    CURED_OP_MEAN_VAR = 22,  /**< two values: mean, then variance */
    CURED_OP_LOGSUMEXP = 23, /**< log(sum(exp(x))), stably */
    CURED_OP_NANSUM = 24,    /**< SUM ignoring NaNs (numpy.nansum) */
    CURED_OP_NANMEAN = 25,   /**< MEAN ignoring NaNs (numpy.nanmean) */
    CURED_OP_NANVAR = 26,    /**< VAR ignoring NaNs (numpy.nanvar); ddof as VAR's */
    CURED_OP_NANSTD = 27,    /**< STD ignoring NaNs (numpy.nanstd); ddof as STD's */
    CURED_OP_EXACT_SUM = 28,         /**< the exact sum rounded once (float types; see "Exact sums") */
    CURED_OP_EXACT_MEAN = 29,        /**< the exact sum divided by n, rounded once */
    CURED_OP_EXACT_SUM_SQUARES = 30, /**< the exact sum of x*x rounded once */
    CURED_OP_EXACT_NORM2 = 31,       /**< sqrt of the correctly rounded sum of x*x, rounded once */
    CURED_OP_EXACT_DOT = 32          /**< the exact sum of x*y rounded once: only through cured_exact_dot() */
} cured_op;
/** Number of cured_op values (0 .. CURED_OP_COUNT-1). */
#define CURED_OP_COUNT 33

/** Result of the ARG operators: the index, then the value (of the element type). */
typedef struct cured_arg_result {
    int64_t index; /**< the element's index; -1 for an all-NaN input of NANARGMIN/NANARGMAX */
    /** The element, in the member of its type. */
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
    CURED_ALGO_AUTO = 0,                 /**< the library's fastest: every operator and type */
    CURED_ALGO_TWO_PASS_SHARED = 1,      /**< two kernels, shared-memory tree per block */
    CURED_ALGO_TWO_PASS_SHUFFLE = 2,     /**< two kernels, warp-shuffle block reduction */
    CURED_ALGO_TWO_PASS_CG = 3,          /**< two kernels, cg::reduce block reduction */
    CURED_ALGO_SINGLE_PASS_TICKET = 4,   /**< one kernel; the last block (atomic ticket) combines */
    CURED_ALGO_SINGLE_PASS_ATOMIC = 5,   /**< one kernel; one atomicAdd per block */
    CURED_ALGO_LISTING_12_4 = 6          /**< int4 loads, cg::reduce, one atomic per block */
} cured_algorithm;
/** Number of cured_algorithm values. */
#define CURED_ALGO_COUNT 7

/** @} */

/** \addtogroup cured_handle
 *  @{ */

/** Opaque library handle bound to one CUDA context. */
typedef struct cured_handle_st *cured_handle;

/**
 * \brief Create a handle for a device ordinal, on the device's primary context.
 *
 * Loads the CUDA driver (dlopen) and calls cuInit() if needed, retains the
 * device's primary context (the one the CUDA runtime uses, so memory and
 * streams from runtime code work with the handle) and allocates the handle's
 * per-stream workspaces in it (16 at first, each about 2.1 MiB for the
 * partial results of split axis reductions and the exact sums' bookkeeping,
 * plus 32 bytes per resident block: about 35 MiB on an H200, whose 132 SMs
 * hold 32 blocks each). The primary
 * context is retained, not made current: the calling thread's current
 * context is unchanged. To call the driver API yourself, make a context
 * current first (see the file's description of contexts). cured_destroy()
 * releases the retain.
 *
 * \param device  CUDA device ordinal, 0 .. (device count - 1).
 * \param out     receives the handle; set to NULL on failure. Must not be NULL.
 * \return CURED_SUCCESS;
 *         CURED_ERROR_NULL_POINTER (out is NULL);
 *         CURED_ERROR_NO_DRIVER (libcuda.so.1 cannot be loaded or initialised: the
 *         message says what was tried);
 *         CURED_ERROR_NO_DEVICE (the driver sees no device);
 *         CURED_ERROR_INVALID_DEVICE (device out of range);
 *         CURED_ERROR_OUT_OF_MEMORY (host or device memory);
 *         CURED_ERROR_CUDA (another driver call failed: the message names it).
 * \par Thread safety
 * May be called from any thread; each call makes a new handle.
 */
CURED_EXPORT cured_status cured_create(int device, cured_handle *out);

/**
 * \brief Create a handle for an existing context.
 *
 * The handle uses ctx (neither retained nor made current for the caller);
 * the context must outlive the handle.
 *
 * \param ctx  a CUcontext (any context of any device).
 * \param out  receives the handle; set to NULL on failure. Must not be NULL.
 * \return as cured_create(); CURED_ERROR_NULL_POINTER also when ctx is NULL;
 *         CURED_ERROR_INVALID_DEVICE for a context the driver refuses.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_create_for_context(struct CUctx_st *ctx, cured_handle *out);

/**
 * \brief Destroy a handle.
 *
 * Waits for no stream: the caller makes sure that no work launched through
 * the handle is still pending (and that no graph captured from it will be
 * launched again). Frees its workspace, unloads its modules and, for a
 * handle of cured_create(), releases the primary context.
 *
 * \param h  the handle; NULL is accepted (nothing is done).
 * \return CURED_SUCCESS, or CURED_ERROR_CUDA if freeing device memory or
 *         unloading a module failed (the handle is freed regardless).
 * \par Thread safety
 * No other thread may use h during or after the call.
 */
CURED_EXPORT cured_status cured_destroy(cured_handle h);

/**
 * \brief Architecture that kernels are compiled for on this handle's device.
 *
 * For compute capability X.Y: sm_XY when NVRTC offers it, else the highest
 * offered sm_XZ with Z <= Y, else PTX of the highest offered architecture
 * below the device; CURED_ARCH overrides.
 *
 * \param h       handle.
 * \param sm      receives the architecture, e.g. 90 for sm_90 (may be NULL).
 * \param is_ptx  receives 1 when PTX is made for the driver to JIT, 0 for a
 *                cubin (may be NULL).
 * \return CURED_SUCCESS; CURED_ERROR_NULL_HANDLE; CURED_ERROR_NO_NVRTC;
 *         CURED_ERROR_NOT_SUPPORTED (NVRTC offers no usable architecture, or
 *         CURED_ARCH is malformed). On error sm and is_ptx are not written.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_get_arch(cured_handle h, int *sm, int *is_ptx);

/** @} */

/** \addtogroup cured_reduce
 *  @{ */

/**
 * \brief Asynchronous reduction of n elements on a stream.
 *
 * Writes op(in[0..n)) to *out (device memory) when the stream reaches it. The
 * call allocates nothing, sets no memory and does not synchronise, so it may
 * be captured into a CUDA graph. It may compile a kernel (NVRTC) the first
 * time a specialization is used; call cured_prepare() (or make one call)
 * before capturing if that matters (examples/graph.c).
 *
 * Operators, result types, output layouts, NaN and n == 0 rules: see cured_op.
 *
 * Streams: the handle keeps one workspace per stream it has seen (16 are made
 * at creation; more are added on first use of a further stream outside
 * capture, a call that allocates and waits for the new workspaces to be
 * zeroed; such a first call during capture returns
 * CURED_ERROR_NOT_SUPPORTED). Calls through one handle on different streams may run
 * concurrently; the per-thread default stream (CU_STREAM_PER_THREAD,
 * cudaStreamPerThread) counts as a stream of each thread. A graph captured from a call uses the workspace of the stream
 * it was captured on: do not run it concurrently with other calls on that
 * stream or other launches of the same graph.
 *
 * Pointers: a pointer CUDA does not know (plain host memory) is refused with
 * CURED_ERROR_NOT_DEVICE_POINTER (one cuPointerGetAttributes per pointer);
 * device memory of another device must be reachable through peer access.
 * The input's n elements and the output's result bytes must lie in memory
 * the driver has mapped: a range that runs past the end of its allocation
 * (and of any allocations mapped right after it, as the chunks of a virtual
 * memory reservation are) is refused with CURED_ERROR_OUT_OF_RANGE before
 * anything is launched; the message gives both ranges. The same
 * cuPointerGetAttributes call answers this. Memory mapped through the
 * virtual memory management API (cuMemCreate + cuMemMap) is checked by its
 * mappings (CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR and _SIZE), not by the
 * reservation the driver reports as its allocation: a range that reaches
 * past the chunks mapped back to back from its start, into reserved memory
 * that is not mapped, is refused. (A driver without those attributes tells
 * only whether an address is mapped: a range that starts in unmapped
 * reserved memory is refused, one that runs into it from a chunk is not.) A range
 * over more than 2^20 adjacent allocations is refused too. Memory the
 * driver cannot size (it reports no allocation range for it, as for some
 * imported memory) is not checked, and a range beyond it would fault the
 * kernel.
 *
 * Overlap: the output may not overlap the input's n elements (nor y's, for
 * cured_dot_async()): CURED_ERROR_OVERLAP, nothing launched. The
 * synchronous calls' host output is not checked against device memory.
 *
 * \param h        handle.
 * \param op       operator (not CURED_OP_DOT: see cured_dot_async()).
 * \param algo     algorithm; CURED_ALGO_AUTO unless comparing variants.
 * \param in       device pointer to n elements, aligned to the element size
 *                 (any such alignment; 16 bytes is fastest). May be NULL when n == 0.
 * \param in_type  element type.
 * \param n        element count (any size_t whose byte size does not overflow).
 * \param out      device pointer to the result (see cured_op for its layout),
 *                 aligned to its size (8 bytes for the ARG operators).
 * \param out_type result type (cured_default_result() gives the default).
 * \param stream   CUstream or cudaStream_t of the handle's context (NULL = the
 *                 legacy default stream).
 * \return CURED_SUCCESS, or an error; on error nothing was launched or written:
 *         CURED_ERROR_NULL_HANDLE;
 *         CURED_ERROR_NULL_POINTER (out, or in with n > 0);
 *         CURED_ERROR_INVALID_ENUM (op, algo or a type);
 *         CURED_ERROR_INVALID_VALUE (CURED_OP_DOT: it takes two inputs);
 *         CURED_ERROR_TYPE_MISMATCH (an (op, in_type, out_type) not offered);
 *         CURED_ERROR_NOT_SUPPORTED (an algorithm other than AUTO with anything
 *         but an int32 sum; the cooperative-groups algorithms without toolkit
 *         headers; no architecture to compile for, see cured_get_arch(); a
 *         further stream's first call during capture, see Streams);
 *         CURED_ERROR_EMPTY_INPUT (n == 0 for MINMAX and the ARG operators);
 *         CURED_ERROR_SIZE_OVERFLOW; CURED_ERROR_MISALIGNED;
 *         CURED_ERROR_NOT_DEVICE_POINTER; CURED_ERROR_OUT_OF_RANGE (an input or
 *         output that runs past its allocation);
 *         CURED_ERROR_OVERLAP (the output overlaps the input);
 *         CURED_ERROR_NO_NVRTC, CURED_ERROR_COMPILE (first use of a kernel);
 *         CURED_ERROR_OUT_OF_MEMORY; CURED_ERROR_CUDA (a driver call failed,
 *         e.g. the launch).
 * \par Thread safety
 * May be called from any thread, on any stream, concurrently with other
 * calls on the same handle.
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
 * \par Thread safety
 * May be called from any thread; threads preparing one kernel at once compile it once.
 */
CURED_EXPORT cured_status cured_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type,
                                        cured_type out_type);

/**
 * \brief Synchronous reduction: as cured_reduce_async(), but the result is
 * written to host memory and the call waits for the stream.
 *
 * \param h         handle.
 * \param op        operator (not CURED_OP_DOT: see cured_dot()).
 * \param algo      algorithm; CURED_ALGO_AUTO unless comparing variants.
 * \param in        device pointer to n elements, aligned to the element size
 *                  (may be NULL when n == 0).
 * \param in_type   element type.
 * \param n         element count.
 * \param host_out  host pointer receiving the result (one value of out_type;
 *                  two for MINMAX; a cured_arg_result for the ARG operators).
 * \param out_type  result type.
 * \param stream    stream to run on and wait for (NULL = the legacy default stream).
 * \return as cured_reduce_async(), with CURED_ERROR_NULL_POINTER for a NULL
 *         host_out; CURED_ERROR_CUDA if the stream reports an error;
 *         CURED_ERROR_ALL_NAN for a NAN* operator on an all-NaN input (host_out
 *         not written); CURED_ERROR_TOO_FEW_ELEMENTS (nothing launched or
 *         written) for MEAN, VAR, STD or MEAN_VAR with n == 0. host_out is
 *         written only on CURED_SUCCESS.
 * \par Thread safety
 * As cured_reduce_async(). The call is not capturable (it waits for the stream).
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
 * \param op       CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in       device pointer to n elements (may be NULL when n == 0).
 * \param in_type  element type.
 * \param n        element count.
 * \param ddof     delta degrees of freedom: VAR = m2 / (n - ddof), with m2 the sum
 *                 of squared deviations (0: population variance, 1: the unbiased
 *                 sample variance). Finite and >= 0; fractions are allowed. MEAN
 *                 and LOGSUMEXP do not use its value, but refuse a negative
 *                 or non-finite one all the same (CURED_ERROR_INVALID_VALUE).
 *                 n <= ddof gives a NaN variance.
 * \param out      device pointer to the result (MEAN_VAR: two values, mean then
 *                 variance), aligned to the result type's size.
 * \param out_type FLOAT32 or FLOAT64 (see cured_op).
 * \param stream   CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return CURED_SUCCESS or an error (nothing launched or written): as
 *         cured_reduce_async(); CURED_ERROR_INVALID_VALUE for another operator or
 *         a negative or non-finite ddof.
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_reduce_stats_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                                   size_t n, double ddof, void *out, cured_type out_type,
                                                   struct CUstream_st *stream);

/**
 * \brief Synchronous cured_reduce_stats_async(): the result is written to host
 * memory and the call waits for the stream.
 * \param h        handle.
 * \param op       CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in       device pointer to n elements (may be NULL when n == 0).
 * \param in_type  element type.
 * \param n        element count.
 * \param ddof     delta degrees of freedom (see cured_reduce_stats_async()).
 * \param host_out host pointer receiving the result (MEAN_VAR: two values).
 * \param out_type FLOAT32 or FLOAT64.
 * \param stream   stream to run on and wait for (NULL = the legacy default stream).
 * \return as cured_reduce_stats_async(); CURED_ERROR_TOO_FEW_ELEMENTS (nothing
 *         launched, host_out not written) for MEAN with n == 0 and for VAR, STD
 *         and MEAN_VAR with n <= ddof; CURED_ERROR_CUDA if the stream reports an
 *         error.
 * \par Thread safety
 * As cured_reduce_async(). The call is not capturable (it waits for the stream).
 */
CURED_EXPORT cured_status cured_reduce_stats(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                             size_t n, double ddof, void *host_out, cured_type out_type,
                                             struct CUstream_st *stream);

/**
 * \brief Asynchronous dot product sum(x[i] * y[i]) of two arrays of one type.
 *
 * The result types are those of CURED_OP_SUM (int8 inputs may ask for INT32
 * or INT64). x and y need only be aligned to the element size; 16-byte loads
 * are used when both have the same offset within 16 bytes. Otherwise as
 * cured_reduce_async() with algorithm AUTO.
 *
 * \param h         handle.
 * \param x         device pointer to n elements (may be NULL when n == 0).
 * \param y         device pointer to n elements (may be NULL when n == 0).
 * \param type      element type of x and y.
 * \param n         element count.
 * \param out       device pointer to one value of out_type, aligned to its size.
 * \param out_type  result type.
 * \param stream    CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return as cured_reduce_async(); CURED_ERROR_OVERLAP also when the output
 *         overlaps y.
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_dot_async(cured_handle h, const void *x, const void *y, cured_type type,
                                          size_t n, void *out, cured_type out_type,
                                          struct CUstream_st *stream);

/**
 * \brief Synchronous dot product into host memory; see cured_dot_async().
 *
 * \param h         handle.
 * \param x         device pointer to n elements (may be NULL when n == 0).
 * \param y         device pointer to n elements (may be NULL when n == 0).
 * \param type      element type of x and y.
 * \param n         element count.
 * \param host_out  host pointer receiving one value of out_type.
 * \param out_type  result type.
 * \param stream    stream to run on and wait for (NULL = the legacy default stream).
 * \return as cured_reduce().
 * \par Thread safety
 * As cured_reduce().
 */
CURED_EXPORT cured_status cured_dot(cured_handle h, const void *x, const void *y, cured_type type,
                                    size_t n, void *host_out, cured_type out_type,
                                    struct CUstream_st *stream);

/**
 * \brief Asynchronous exact dot product: the exact sum of x[i] * y[i],
 * rounded once (CURED_OP_EXACT_DOT; see cured_op, "Exact sums").
 *
 * As cured_dot_async(), for FLOAT16, BFLOAT16, FLOAT32 and FLOAT64 elements;
 * the result is bitwise the same on every GPU and for every launch geometry.
 *
 * \param h         handle.
 * \param x         device pointer to n elements (may be NULL when n == 0).
 * \param y         device pointer to n elements (may be NULL when n == 0).
 * \param type      element type of x and y (a float type).
 * \param n         element count.
 * \param out       device pointer to one value of out_type, aligned to its size.
 * \param out_type  result type: the element type or a wider float type.
 * \param stream    CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return as cured_dot_async(); CURED_ERROR_TYPE_MISMATCH for an element type
 *         that is not a float type, or a result type not offered.
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_exact_dot_async(cured_handle h, const void *x, const void *y, cured_type type,
                                                size_t n, void *out, cured_type out_type,
                                                struct CUstream_st *stream);

/**
 * \brief Synchronous exact dot product into host memory; see cured_exact_dot_async().
 *
 * \param h         handle.
 * \param x         device pointer to n elements (may be NULL when n == 0).
 * \param y         device pointer to n elements (may be NULL when n == 0).
 * \param type      element type of x and y (a float type).
 * \param n         element count.
 * \param host_out  host pointer receiving one value of out_type.
 * \param out_type  result type.
 * \param stream    stream to run on and wait for (NULL = the legacy default stream).
 * \return as cured_dot().
 * \par Thread safety
 * As cured_reduce().
 */
CURED_EXPORT cured_status cured_exact_dot(cured_handle h, const void *x, const void *y, cured_type type,
                                          size_t n, void *host_out, cured_type out_type,
                                          struct CUstream_st *stream);

/* ---- Many results at once: axes of strided arrays, segments -------------- */

/** Largest rank of a cured_layout. */
#define CURED_MAX_RANK 8

/**
 * The most elements a view may have, and the most results it may give
 * (2^53: counts the statistics and ARG indices hold exactly). A view past it
 * is refused with CURED_ERROR_SIZE_OVERFLOW whatever memory it reaches: a
 * broadcast view (strides 0) of more elements reads little memory but would
 * keep the GPU busy for days.
 */
#define CURED_MAX_ELEMENTS ((int64_t)1 << 53)

/**
 * An N-D strided view: element (i0, ..., i{rank-1}) is at
 * base + sum(i_k * stride[k]) elements. Extents and strides are
 * non-negative; a stride may be anything (0 broadcasts, transposed and
 * sliced views work). Axis 0 is the outermost of the row-major index.
 */
typedef struct cured_layout {
    int rank;                        /**< 0 .. CURED_MAX_RANK */
    int64_t extent[CURED_MAX_RANK];  /**< elements along each axis */
    int64_t stride[CURED_MAX_RANK];  /**< in elements (of the input type, or of results for an output) */
} cured_layout;

/**
 * \brief Reduce an N-D strided array along a set of axes, asynchronously.
 *
 * Output element j (row-major over the kept axes, in their order) is op
 * over the elements whose kept coordinates are j's, taken row-major over
 * the reduced axes. Every operator of cured_reduce_async() except DOT, with
 * the same result types, layouts and NaN rules; ARG operators give, per
 * output, the index along the reduced axes (row-major over them, int64) and
 * the value. An output whose reduced extent is 0 gets the operator's value
 * for an empty input: 0 for sums and COUNT_NONZERO, 1 for PRODUCT, all ones
 * for AND, the identities of cured_op for MIN/MAX (MINMAX: the largest then
 * the smallest value), for the ARG operators index -1 and a zero value, NaN
 * for MEAN, VAR, STD and both of MEAN_VAR's values, and -inf for LOGSUMEXP.
 * Reducing no axis maps each element (op over one element). The statistics
 * use ddof = 0 here; cured_reduce_axes_stats_async() takes any ddof.
 *
 * Like cured_reduce_async(): no allocation, memset or synchronisation in
 * the call (capture-safe once the stream has its workspace), results
 * bitwise identical run to run, calls on different streams independent.
 *
 * \param h          handle.
 * \param op         operator (not CURED_OP_DOT).
 * \param in         device pointer to the element at index (0, ..., 0),
 *                   aligned to the element size; may be NULL only when the
 *                   view has no element.
 * \param in_type    element type.
 * \param in_layout  the input view (rank 0 is one element).
 * \param axes       bit k set: reduce axis k (any subset, 0 = none).
 * \param out        device pointer to the first result, aligned to the
 *                   result alignment (8 bytes for ARG operators).
 * \param out_type   result type (see cured_op).
 * \param out_layout NULL: results dense and row-major over the kept axes;
 *                   else a layout of rank = the number of kept axes, whose
 *                   extents are the kept extents in order and whose strides
 *                   (in results: 16 bytes for ARG, two values for MINMAX)
 *                   nest: the axes of extent 2 or more, taken by increasing
 *                   stride, each reach past the span of the smaller ones
 *                   (the dense, padded, permuted and keepdims layouts of
 *                   NumPy and PyTorch do; keepdims callers drop the reduced
 *                   axes' strides). An axis of extent 1 takes no part, so
 *                   its stride may be anything (NumPy gives a C-order
 *                   (5, 1) result strides (1, 1)). A layout that does not
 *                   nest is refused, even where its results would not
 *                   overlap.
 * \param stream     CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return CURED_SUCCESS (also when there are no outputs: nothing is
 *         launched); CURED_ERROR_NULL_HANDLE, CURED_ERROR_NULL_POINTER,
 *         CURED_ERROR_INVALID_ENUM, CURED_ERROR_TYPE_MISMATCH,
 *         CURED_ERROR_INVALID_VALUE (rank above CURED_MAX_RANK, a negative
 *         extent or stride, an axis bit at or above the rank, DOT, an output
 *         layout that does not match or whose results overlap),
 *         CURED_ERROR_SIZE_OVERFLOW (a byte range that overflows, or more
 *         than CURED_MAX_ELEMENTS elements or results),
 *         CURED_ERROR_OVERLAP (the output's bytes, from out to its last
 *         result, meet the input's, from in to the last element the view
 *         reaches: out == in included, also when no axis is reduced),
 *         CURED_ERROR_MISALIGNED, CURED_ERROR_NOT_DEVICE_POINTER,
 *         CURED_ERROR_OUT_OF_RANGE (the last element the view reaches, or
 *         the last result of the output layout, lies past its allocation,
 *         as cured_reduce_async() checks), CURED_ERROR_NOT_SUPPORTED (a
 *         further stream's first call during graph capture, see
 *         cured_reduce_async()'s Streams; no architecture to compile for),
 *         CURED_ERROR_NO_NVRTC,
 *         CURED_ERROR_COMPILE, CURED_ERROR_OUT_OF_MEMORY, CURED_ERROR_CUDA.
 *         On error nothing was launched or written.
 * \par Thread safety
 * As cured_reduce_async(): any thread; calls on different streams run independently.
 */
CURED_EXPORT cured_status cured_reduce_axes_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                                  const cured_layout *in_layout, uint32_t axes, void *out,
                                                  cured_type out_type, const cured_layout *out_layout,
                                                  struct CUstream_st *stream);

/**
 * \brief Segmented reduction with offset arrays (CUB's convention):
 * segment s is in[begin[s] .. end[s]), and its result goes to out[s]. CSR
 * row offsets are begin = offsets, end = offsets + 1. A segment with
 * end <= begin is empty and gets the empty value of cured_reduce_axes_async().
 * Segments may overlap and come in any order. The ARG operators' index
 * counts from the segment's begin (0 is in[begin[s]]), as a row's index
 * counts from the row's start along axes. The offsets are in device
 * memory, which the call does not read (it does not wait): the two arrays
 * are checked (device memory, num_segments entries mapped, aligned to the
 * offset type: CURED_ERROR_MISALIGNED), and the kernel checks their values.
 * The elements a segment may read are those from in up to the first byte
 * that is not mapped (following adjacent allocations, as the range checks of
 * cured_reduce_async() do) or up to out, when out lies after in, whichever
 * comes first: call that count the limit. A segment with an offset below 0
 * or above the limit (either offset, whatever their order) is a bad
 * segment: it reads nothing, its result is the empty value, and the
 * stream's error word records it, which cured_check_stream() returns as
 * CURED_ERROR_BAD_SEGMENT (the call itself has returned CURED_SUCCESS; the
 * other segments' results are right). Memory the driver cannot size gives
 * no limit: offsets into it are not checked. The output may not overlap
 * the offset arrays or the input's first element (CURED_ERROR_OVERLAP,
 * nothing launched). Otherwise as
 * cured_reduce_axes_async(), bitwise repeatable run to run included. (A
 * segment's floating-point result depends on the call's other segments in
 * one way: while a call has at most 512 segments over 16 KiB, each of them
 * is cut into parts (at most 64) by its length and the total length of all
 * of them, so its sum's rounding depends on those lengths and the device,
 * never on timing; with more, each gets one block and the offsets are read
 * once more.)
 * \param h            handle.
 * \param op           operator (not CURED_OP_DOT).
 * \param in           device pointer to the elements the offsets index (not NULL when num_segments > 0).
 * \param in_type      element type.
 * \param num_segments number of segments (any size_t; more than 2^31 work).
 * \param begin        device array of num_segments first offsets, in elements.
 * \param end          device array of num_segments end offsets (one past the last element).
 * \param offset_type  CURED_TYPE_INT32 or CURED_TYPE_INT64 (the offsets' type).
 * \param out          device pointer to num_segments results, dense.
 * \param out_type     result type.
 * \param stream       CUstream or cudaStream_t.
 * \return as cured_reduce_axes_async(); CURED_ERROR_INVALID_VALUE for
 *         another offset type (checked before the pointers, also when
 *         num_segments is 0); CURED_ERROR_NOT_DEVICE_POINTER for offsets in
 *         host memory; CURED_ERROR_MISALIGNED for offset arrays not aligned
 *         to the offset type; CURED_ERROR_OVERLAP (the output overlaps an
 *         offset array or the input's first element). Bad segments are not
 *         a status of this call: see cured_check_stream().
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_segmented_reduce_async(cured_handle h, cured_op op, const void *in,
                                                       cured_type in_type, size_t num_segments, const void *begin,
                                                       const void *end, cured_type offset_type, void *out,
                                                       cured_type out_type, struct CUstream_st *stream);

/**
 * \brief Segments of one size: segment s is in[s * segment_size .. (s+1) *
 * segment_size), its result goes to out[s] (the rows of a row-major
 * matrix). Otherwise as cured_segmented_reduce_async().
 * \param h             handle.
 * \param op            operator (not CURED_OP_DOT).
 * \param in            device pointer to num_segments * segment_size elements
 *                      (may be NULL when that product is 0, as for an empty view).
 * \param in_type       element type.
 * \param num_segments  number of segments.
 * \param segment_size  elements in each (0: every result is the empty value;
 *                      any value when num_segments is 0).
 * \param out           device pointer to num_segments results, dense.
 * \param out_type      result type.
 * \param stream        CUstream or cudaStream_t.
 * \return as cured_reduce_axes_async() (CURED_SUCCESS with nothing launched
 *         when num_segments is 0; CURED_ERROR_SIZE_OVERFLOW past
 *         CURED_MAX_ELEMENTS; CURED_ERROR_OVERLAP when the output overlaps
 *         the segments' elements).
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_uniform_segmented_reduce_async(cured_handle h, cured_op op, const void *in,
                                                               cured_type in_type, size_t num_segments,
                                                               size_t segment_size, void *out, cured_type out_type,
                                                               struct CUstream_st *stream);

/**
 * \brief cured_reduce_axes_async() for the statistics, with a delta degrees
 * of freedom.
 *
 * Each output is MEAN, VAR, STD, MEAN_VAR (two values, mean then
 * variance) or LOGSUMEXP of its elements, with the result types, accuracy
 * and NaN/inf rules of cured_reduce_stats_async(), in one pass: per-thread
 * states (or, where outputs are adjacent in memory or the layout is
 * strided, one state per element) merged by Chan's formulas in a fixed
 * order, so results are bitwise identical run to run. An output of n
 * elements with n <= ddof gets a NaN variance (VAR, STD, MEAN_VAR's second
 * value); n == 0 gives a NaN mean and -inf for LOGSUMEXP, as NumPy and
 * SciPy. No status reports these (the call is asynchronous). Uniform
 * segments: a layout {num_segments, segment_size} with strides
 * {segment_size, 1} and axes = 2.
 *
 * \param h          handle.
 * \param op         CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in         device pointer to the element at index (0, ..., 0).
 * \param in_type    element type.
 * \param in_layout  the input view.
 * \param axes       bit k set: reduce axis k.
 * \param ddof       delta degrees of freedom, as cured_reduce_stats_async()
 *                   (finite, >= 0 for every operator; MEAN and LOGSUMEXP
 *                   do not use its value).
 * \param out        device pointer to the first result, aligned to the result type.
 * \param out_type   FLOAT32 or FLOAT64 (see cured_op).
 * \param out_layout as cured_reduce_axes_async() (strides in results: two
 *                   values for MEAN_VAR).
 * \param stream     CUstream or cudaStream_t.
 * \return as cured_reduce_axes_async(); CURED_ERROR_INVALID_VALUE for
 *         another operator or a negative or non-finite ddof.
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_reduce_axes_stats_async(cured_handle h, cured_op op, const void *in,
                                                        cured_type in_type, const cured_layout *in_layout,
                                                        uint32_t axes, double ddof, void *out, cured_type out_type,
                                                        const cured_layout *out_layout, struct CUstream_st *stream);

/**
 * \brief cured_segmented_reduce_async() for the statistics, with a delta
 * degrees of freedom: segment s's MEAN, VAR, STD, MEAN_VAR or LOGSUMEXP
 * goes to out[s] (MEAN_VAR: out[2s] and out[2s + 1]), under the rules of
 * cured_reduce_axes_stats_async() (an empty segment: NaN mean and
 * variance, -inf LOGSUMEXP; n <= ddof: NaN variance).
 * \param h            handle.
 * \param op           CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in           device pointer to the elements the offsets index.
 * \param in_type      element type.
 * \param num_segments number of segments.
 * \param begin        device array of num_segments first offsets.
 * \param end          device array of num_segments end offsets.
 * \param offset_type  CURED_TYPE_INT32 or CURED_TYPE_INT64.
 * \param ddof         delta degrees of freedom (finite, >= 0).
 * \param out          device pointer to num_segments results, dense.
 * \param out_type     FLOAT32 or FLOAT64.
 * \param stream       CUstream or cudaStream_t.
 * \return as cured_segmented_reduce_async(); CURED_ERROR_INVALID_VALUE for
 *         another operator or a negative or non-finite ddof.
 * \par Thread safety
 * As cured_reduce_async().
 */
CURED_EXPORT cured_status cured_segmented_reduce_stats_async(cured_handle h, cured_op op, const void *in,
                                                             cured_type in_type, size_t num_segments,
                                                             const void *begin, const void *end,
                                                             cured_type offset_type, double ddof, void *out,
                                                             cured_type out_type, struct CUstream_st *stream);

/**
 * \brief Wait for a stream and report the bad segments its segmented calls
 * met (see cured_segmented_reduce_async()).
 *
 * Each stream's workspace keeps an error word that a segmented kernel
 * (built-in, statistics or user-defined) sets when a segment's offsets lie
 * outside the input it may read; the asynchronous call has already
 * returned, so this call reports it. It synchronises the stream (not
 * capture-safe), reads the word and clears it: the next check reports only
 * later calls. The message names the lowest bad segment index among them.
 *
 * A stream that has had no call of this handle has no word: the call
 * returns CURED_SUCCESS without waiting for it or allocating anything.
 *
 * \param h      handle.
 * \param stream the stream the segmented calls ran on (NULL = the legacy default stream).
 * \return CURED_SUCCESS (no bad segment since the last check);
 *         CURED_ERROR_BAD_SEGMENT (some segment was bad; the word is now
 *         clear); CURED_ERROR_NULL_HANDLE; CURED_ERROR_CUDA (the stream
 *         reports an error, e.g. a kernel fault).
 * \par Thread safety
 * Any thread. The word is read, then cleared, in the stream's order: a
 * segmented call that another thread issues on the stream while the check
 * runs is reported now or at the next check, except one that lands between
 * the read and the clear, whose report is lost. Check a stream from the
 * thread that issues its segmented calls, or after they are issued.
 */
CURED_EXPORT cured_status cured_check_stream(cured_handle h, struct CUstream_st *stream);
/** @} */

/** \addtogroup cured_comm
 *  @{ */

/**
 * A communicator's side of cured: an NCCL communicator (owned by the caller)
 * with the handle of the rank's device and the device buffers the gathered
 * states need, allocated once.
 *
 * How it reduces. Each rank reduces its shard to the operator's state (the
 * raw accumulator of sums and statistics, the result of MIN, MAX, MINMAX and
 * the ARG operators), one ncclAllGather moves every rank's state and shard
 * length, and a small kernel on every rank combines them in rank order with
 * the operator's own combine and writes the result as cured_reduce_async()
 * does. So every rank gets the same bits, whatever NCCL's algorithm,
 * protocol or topology, and run to run.
 *
 * Equal to the single-GPU reduction of the concatenated input, bit for bit:
 * always for integer and bitwise operators (sums, products, SUM_SQUARES,
 * SUM_ABS, COUNT_NONZERO wrap as they do on one GPU), MIN, MAX, NANMIN,
 * NANMAX, MINMAX, the ARG operators (global index: the rank's offset, the sum
 * of the lengths of the ranks before it, plus the local index; ties go to
 * the lower index, so to the lower rank), integer DOT (cured_comm_dot_async())
 * and, with one rank, for every operator: DOT as cured_dot_async(), the
 * statistics with any ddof as cured_reduce_stats_async() (MIN, MAX, MINMAX
 * of floats within cured_op's latitude: which NaN a NaN result is, and which
 * zero a tie of -0 and +0 gives). Floating-point sums and DOT, NORM2 and the
 * statistics combine per-rank partials (a statistic's partial is its state:
 * count, sum, sum of squared deviations, merged as on one GPU, ddof applied
 * once to the global count), so they equal the single-GPU result only in
 * general up to rounding (the same bits on every rank and every run, still).
 *
 * Empty shards are allowed (in may then be NULL); they take no part in the
 * combine. If every shard is empty the result is the operator's value for
 * an empty input as cured_reduce_axes_async() gives it (ARG: index -1 and a
 * zero value; MINMAX: the largest, then the smallest value); the
 * synchronous call returns CURED_ERROR_EMPTY_INPUT then for MINMAX and ARG.
 *
 * Contexts: NCCL works in the device's primary context, and so does a
 * handle of cured_create(); the communicator's device must be the handle's.
 * Ordering: as for any NCCL collective, every rank must make the same calls
 * in the same order; calls on one communicator share its buffers, so issue
 * them on one stream at a time (or order the streams).
 */
typedef struct cured_comm_st *cured_comm;

/** Flag for cured_comm_reduce_axes_async(): never use ncclAllReduce, always
 *  the bitwise-reproducible gather of states. */
#define CURED_COMM_BITWISE 1u

/**
 * \brief Make a communicator's side of cured.
 *
 * Loads NCCL (dlopen: CURED_NCCL_LIBRARY, else libnccl.so.2), asks the
 * communicator for its rank, size and device, and allocates the state
 * buffers: nranks * max_outputs records of at most 40 bytes, plus 32 bytes.
 * \param h            handle of the rank's device (its context is used).
 * \param nccl         the rank's ncclComm_t; the caller keeps it, and destroys
 *                     it after cured_comm_destroy().
 * \param max_outputs  outputs gathered per call: 1 suffices for whole-array
 *                     reductions; axis reductions with more outputs than this
 *                     work in chunks of it. 0 means 4096. The exact sums'
 *                     records are larger (48 to 1088 bytes: their digits),
 *                     so they take the room of several outputs each: chunks
 *                     of max_outputs * 40 / record bytes outputs, and a call
 *                     whose single record outgrows max_outputs * 40 bytes is
 *                     refused with CURED_ERROR_INVALID_VALUE (float64
 *                     EXACT_DOT and EXACT_SUM_SQUARES need max_outputs >= 28).
 * \param out          receives the communicator; NULL on failure.
 * \return CURED_SUCCESS; CURED_ERROR_NULL_HANDLE; CURED_ERROR_NULL_POINTER
 *         (nccl or out); CURED_ERROR_NO_NCCL (the message names what was
 *         tried); CURED_ERROR_NCCL (a query failed);
 *         CURED_ERROR_INVALID_DEVICE (the communicator's device is not the
 *         handle's); CURED_ERROR_SIZE_OVERFLOW (max_outputs too large);
 *         CURED_ERROR_OUT_OF_MEMORY; CURED_ERROR_CUDA.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_comm_create(cured_handle h, struct ncclComm *nccl, size_t max_outputs,
                                            cured_comm *out);

/**
 * \brief Free a communicator's buffers (not the NCCL communicator). No work
 * using it may be pending.
 * \param cc  the communicator; NULL is accepted.
 * \return CURED_SUCCESS, or CURED_ERROR_CUDA if freeing device memory failed
 *         (the communicator is freed regardless).
 * \par Thread safety
 * No other thread may use cc during or after the call.
 */
CURED_EXPORT cured_status cured_comm_destroy(cured_comm cc);

/**
 * \brief The rank and the number of ranks of a communicator.
 * \param cc     the communicator.
 * \param rank   receives the rank (may be NULL).
 * \param nranks receives the number of ranks (may be NULL).
 * \return CURED_SUCCESS or CURED_ERROR_NULL_HANDLE.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_comm_rank(cured_comm cc, int *rank, int *nranks);

/**
 * \brief Reduce an array sharded over the ranks, asynchronously: every rank
 * receives op over the concatenation of the ranks' shards, in rank order.
 *
 * One local reduction, one ncclAllGather and one combine kernel on stream;
 * no allocation, memset or synchronisation (capture-safe where NCCL's
 * collectives are; compile the kernels first with one call). Operators,
 * types, layouts, NaN rules: as cured_reduce_async() with CURED_ALGO_AUTO
 * (statistics with ddof 0: cured_comm_reduce_stats_async() takes any); see
 * cured_comm for which results equal the
 * single-GPU result bit for bit.
 * \param cc        the communicator.
 * \param op        operator (not CURED_OP_DOT: see cured_comm_dot_async()).
 * \param in        device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param in_type   element type (the same on every rank).
 * \param n_local   this rank's element count (0 is allowed).
 * \param out       device pointer to the result, as cured_reduce_async()'s.
 * \param out_type  result type (the same on every rank).
 * \param flags     0 (reserved).
 * \param stream    CUstream or cudaStream_t of the handle's context.
 * \return CURED_SUCCESS, or (nothing launched or written) CURED_ERROR_NULL_HANDLE,
 *         CURED_ERROR_INVALID_VALUE (DOT, unknown flags), and the argument
 *         errors of cured_reduce_async() (except EMPTY_INPUT); CURED_ERROR_NCCL
 *         when the allgather fails (the local reduction was then launched).
 * \par Thread safety
 * Any thread, one call at a time per communicator (NCCL's rule).
 */
CURED_EXPORT cured_status cured_comm_reduce_async(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                                  size_t n_local, void *out, cured_type out_type, unsigned flags,
                                                  struct CUstream_st *stream);

/**
 * \brief Synchronous cured_comm_reduce_async(): the result goes to host
 * memory and the call waits for the stream.
 * \param cc        the communicator.
 * \param op        operator.
 * \param in        device pointer to this rank's n_local elements.
 * \param in_type   element type.
 * \param n_local   this rank's element count.
 * \param host_out  host pointer receiving the result.
 * \param out_type  result type.
 * \param flags     0.
 * \param stream    stream to run on and wait for.
 * \return as cured_comm_reduce_async(); CURED_ERROR_CUDA if the stream
 *         reports an error; with the global count known, as cured_reduce():
 *         CURED_ERROR_EMPTY_INPUT (MINMAX, ARG of no element),
 *         CURED_ERROR_TOO_FEW_ELEMENTS (MEAN of none, VAR/STD/MEAN_VAR of
 *         at most ddof = 0), CURED_ERROR_ALL_NAN; host_out is written only
 *         on CURED_SUCCESS.
 * \par Thread safety
 * As cured_comm_reduce_async(). Not capturable.
 */
CURED_EXPORT cured_status cured_comm_reduce(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                            size_t n_local, void *host_out, cured_type out_type, unsigned flags,
                                            struct CUstream_st *stream);

/**
 * \brief Dot product of two arrays sharded alike over the ranks,
 * asynchronously: every rank receives sum(x[i] * y[i]) over the
 * concatenation of the ranks' shards, in rank order.
 *
 * Each rank's state is its partial sum, as cured_dot_async() computes it
 * over the shard; the partials are gathered and summed in rank order, as
 * cured_comm_reduce_async() does (one local kernel, one ncclAllGather, one
 * combine kernel; capture-safe where NCCL is). Types, result types and
 * alignment as cured_dot_async(). Integer results are exact (they wrap as
 * on one GPU), so equal to cured_dot_async() over the concatenation; float
 * results are the same bits on every rank, equal to it with one rank and in
 * general up to rounding otherwise.
 * \param cc        the communicator.
 * \param x         device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param y         device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param type      element type of x and y (the same on every rank).
 * \param n_local   this rank's element count (0 is allowed; the ranks' counts may differ).
 * \param out       device pointer to one value of out_type, aligned to its size.
 * \param out_type  result type (the same on every rank).
 * \param flags     0 (reserved).
 * \param stream    CUstream or cudaStream_t of the handle's context.
 * \return CURED_SUCCESS, or (nothing launched or written) CURED_ERROR_NULL_HANDLE,
 *         CURED_ERROR_INVALID_VALUE (unknown flags), and the argument errors of
 *         cured_dot_async() (CURED_ERROR_NULL_POINTER and CURED_ERROR_MISALIGNED
 *         name x or y); CURED_ERROR_NCCL when the allgather fails (the local
 *         reduction was then launched).
 * \par Thread safety
 * As cured_comm_reduce_async().
 */
CURED_EXPORT cured_status cured_comm_dot_async(cured_comm cc, const void *x, const void *y, cured_type type,
                                               size_t n_local, void *out, cured_type out_type, unsigned flags,
                                               struct CUstream_st *stream);

/**
 * \brief Synchronous cured_comm_dot_async(): the result goes to host memory
 * and the call waits for the stream.
 * \param cc        the communicator.
 * \param x         device pointer to this rank's n_local elements.
 * \param y         device pointer to this rank's n_local elements.
 * \param type      element type of x and y.
 * \param n_local   this rank's element count.
 * \param host_out  host pointer receiving one value of out_type (written only on CURED_SUCCESS).
 * \param out_type  result type.
 * \param flags     0.
 * \param stream    stream to run on and wait for.
 * \return as cured_comm_dot_async(); CURED_ERROR_CUDA if the stream reports
 *         an error.
 * \par Thread safety
 * As cured_comm_reduce_async(). Not capturable.
 */
CURED_EXPORT cured_status cured_comm_dot(cured_comm cc, const void *x, const void *y, cured_type type,
                                         size_t n_local, void *host_out, cured_type out_type, unsigned flags,
                                         struct CUstream_st *stream);

/**
 * \brief Exact dot product of two arrays sharded alike over the ranks,
 * asynchronously: every rank receives the exact sum of x[i] * y[i] over the
 * concatenation of the ranks' shards, rounded once (CURED_OP_EXACT_DOT;
 * see cured_op, "Exact sums"): the same bits as cured_exact_dot_async()
 * over the concatenation on one GPU, whatever the number of ranks and the
 * sharding.
 * \param cc        the communicator.
 * \param x         device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param y         device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param type      element type of x and y (a float type, the same on every rank).
 * \param n_local   this rank's element count (0 is allowed).
 * \param out       device pointer to one value of out_type, aligned to its size.
 * \param out_type  result type (the same on every rank).
 * \param flags     0 (reserved).
 * \param stream    CUstream or cudaStream_t of the handle's context.
 * \return as cured_comm_dot_async().
 * \par Thread safety
 * As cured_comm_reduce_async().
 */
CURED_EXPORT cured_status cured_comm_exact_dot_async(cured_comm cc, const void *x, const void *y, cured_type type,
                                                     size_t n_local, void *out, cured_type out_type,
                                                     unsigned flags, struct CUstream_st *stream);

/**
 * \brief Synchronous cured_comm_exact_dot_async(): the result goes to host
 * memory and the call waits for the stream.
 * \param cc        the communicator.
 * \param x         device pointer to this rank's n_local elements.
 * \param y         device pointer to this rank's n_local elements.
 * \param type      element type of x and y.
 * \param n_local   this rank's element count.
 * \param host_out  host pointer receiving one value of out_type (written only on CURED_SUCCESS).
 * \param out_type  result type.
 * \param flags     0.
 * \param stream    stream to run on and wait for.
 * \return as cured_comm_dot().
 * \par Thread safety
 * As cured_comm_reduce_async(). Not capturable.
 */
CURED_EXPORT cured_status cured_comm_exact_dot(cured_comm cc, const void *x, const void *y, cured_type type,
                                               size_t n_local, void *host_out, cured_type out_type, unsigned flags,
                                               struct CUstream_st *stream);

/**
 * \brief A statistic with a delta degrees of freedom of an array sharded over
 * the ranks, asynchronously: as cured_reduce_stats_async() over the
 * concatenation of the ranks' shards, on every rank.
 *
 * Each rank's state is the statistic's own (MEAN, VAR, STD, MEAN_VAR: the
 * count, the sum in double-double and the sum of squared deviations;
 * LOGSUMEXP: a reference within 2 of the maximum and the sum of
 * exponentials relative to it); the states
 * are gathered and merged in rank order by the formulas that merge them on
 * one GPU, and ddof applies once, at the final write on every rank: VAR =
 * m2 / (N - ddof) with N the global count. Accuracy as
 * cured_reduce_stats_async(); the same bits on every rank and run to run;
 * with one rank, exactly cured_reduce_stats_async()'s bits. A global
 * N <= ddof gives a NaN variance (N == 0: a NaN mean, -inf LOGSUMEXP).
 * \param cc        the communicator.
 * \param op        CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in        device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param in_type   element type (the same on every rank).
 * \param n_local   this rank's element count (0 is allowed).
 * \param ddof      delta degrees of freedom, as cured_reduce_stats_async()
 *                  (finite, >= 0; the same on every rank; MEAN and LOGSUMEXP ignore it).
 * \param out       device pointer to the result (MEAN_VAR: two values), aligned to the result type.
 * \param out_type  FLOAT32 or FLOAT64 (the same on every rank).
 * \param flags     0 (reserved).
 * \param stream    CUstream or cudaStream_t of the handle's context.
 * \return CURED_SUCCESS, or (nothing launched or written) CURED_ERROR_NULL_HANDLE,
 *         CURED_ERROR_INVALID_VALUE (another operator, a negative or
 *         non-finite ddof, unknown flags), and the argument errors of
 *         cured_reduce_stats_async(); CURED_ERROR_NCCL when the allgather
 *         fails (the local reduction was then launched).
 * \par Thread safety
 * As cured_comm_reduce_async().
 */
CURED_EXPORT cured_status cured_comm_reduce_stats_async(cured_comm cc, cured_op op, const void *in,
                                                        cured_type in_type, size_t n_local, double ddof, void *out,
                                                        cured_type out_type, unsigned flags,
                                                        struct CUstream_st *stream);

/**
 * \brief Synchronous cured_comm_reduce_stats_async(): the result goes to host
 * memory and the call waits for the stream.
 * \param cc        the communicator.
 * \param op        CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in        device pointer to this rank's n_local elements.
 * \param in_type   element type.
 * \param n_local   this rank's element count.
 * \param ddof      delta degrees of freedom (see cured_comm_reduce_stats_async()).
 * \param host_out  host pointer receiving the result (MEAN_VAR: two values).
 * \param out_type  FLOAT32 or FLOAT64.
 * \param flags     0.
 * \param stream    stream to run on and wait for.
 * \return as cured_comm_reduce_stats_async(); CURED_ERROR_CUDA if the stream
 *         reports an error; as cured_reduce_stats() with the global count N
 *         (the sum of the gathered counts): CURED_ERROR_TOO_FEW_ELEMENTS for
 *         MEAN with N == 0 and for VAR, STD and MEAN_VAR with N <= ddof (the
 *         collective ran; host_out not written). host_out is written only on
 *         CURED_SUCCESS.
 * \par Thread safety
 * As cured_comm_reduce_async(). Not capturable.
 */
CURED_EXPORT cured_status cured_comm_reduce_stats(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                                  size_t n_local, double ddof, void *host_out, cured_type out_type,
                                                  unsigned flags, struct CUstream_st *stream);

/**
 * \brief Axis reduction whose axis 0 is sharded: each rank holds a slab of
 * axis 0 (any extent, 0 included), axis 0 is among the reduced axes, and
 * every rank receives the dense results of the whole array, as
 * cured_reduce_axes_async() with a NULL output layout would give them for the
 * slabs stacked in rank order (ARG indices: global, row-major over the
 * reduced axes).
 *
 * Two ways, chosen by the operator: SUM and PRODUCT with a result type that
 * is its own accumulator (INT32 and UINT32 results of 8-, 16- and 32-bit
 * integers, INT64, UINT64, FLOAT32 from FLOAT32, FLOAT16 or BFLOAT16,
 * FLOAT64) and MIN and MAX of 32- and 64-bit
 * integers, with more outputs than the communicator's max_outputs, reduce
 * the slab into out and ncclAllReduce it in place: integer results are
 * exact, but floating-point sums then depend on NCCL's algorithm and the
 * rank placement (not bitwise reproducible across topologies).
 * CURED_COMM_BITWISE, any other operator (the statistics always), or few
 * outputs, gather states as
 * cured_comm_reduce_async() does, in chunks of max_outputs outputs (the
 * outputs of the outermost kept axis; the inner kept axes' outputs must fit
 * in one chunk).
 * \param cc         the communicator.
 * \param op         operator (not DOT; statistics with ddof 0, see
 *                   cured_comm_reduce_axes_stats_async()).
 * \param in         device pointer to the slab's element (0, ..., 0).
 * \param in_type    element type.
 * \param in_layout  the slab's layout (extents equal on every rank except axis 0's).
 * \param axes       reduced axes; bit 0 must be set.
 * \param out        device pointer to the dense results.
 * \param out_type   result type.
 * \param flags      0 or CURED_COMM_BITWISE.
 * \param stream     CUstream or cudaStream_t.
 * \return as cured_reduce_axes_async(); CURED_ERROR_INVALID_VALUE (axis 0 not
 *         reduced, unknown flags, inner outputs over max_outputs);
 *         CURED_ERROR_NCCL.
 * \par Thread safety
 * As cured_comm_reduce_async().
 */
CURED_EXPORT cured_status cured_comm_reduce_axes_async(cured_comm cc, cured_op op, const void *in,
                                                       cured_type in_type, const cured_layout *in_layout,
                                                       uint32_t axes, void *out, cured_type out_type, unsigned flags,
                                                       struct CUstream_st *stream);

/**
 * \brief cured_comm_reduce_axes_async() for the statistics, with a delta
 * degrees of freedom: every rank receives, per output, MEAN, VAR, STD,
 * MEAN_VAR (two values) or LOGSUMEXP over the slabs stacked in rank order,
 * under the rules of cured_reduce_axes_stats_async() (n <= ddof: a NaN
 * variance, with n the output's global count).
 *
 * Always the gather of states, never ncclAllReduce: each output's state
 * (count, sum, sum of squared deviations; LOGSUMEXP: reference and sum) is
 * gathered and merged in rank order, in chunks of max_outputs outputs as
 * cured_comm_reduce_axes_async(), and ddof applies at the final write. The
 * same bits on every rank and run to run; with one rank and at most
 * max_outputs outputs, the bits of cured_reduce_axes_stats_async() (in
 * chunks, each chunk is planned on its own and may merge in another order:
 * equal up to rounding).
 * \param cc         the communicator.
 * \param op         CURED_OP_MEAN, VAR, STD, MEAN_VAR, LOGSUMEXP, NANMEAN, NANVAR or NANSTD.
 * \param in         device pointer to the slab's element (0, ..., 0).
 * \param in_type    element type.
 * \param in_layout  the slab's layout (extents equal on every rank except axis 0's).
 * \param axes       reduced axes; bit 0 must be set.
 * \param ddof       delta degrees of freedom (finite, >= 0 for every operator; MEAN and LOGSUMEXP
 *                   do not use its value).
 * \param out        device pointer to the dense results (MEAN_VAR: two values per output).
 * \param out_type   FLOAT32 or FLOAT64.
 * \param flags      0 or CURED_COMM_BITWISE (the path is the same).
 * \param stream     CUstream or cudaStream_t.
 * \return as cured_comm_reduce_axes_async(); CURED_ERROR_INVALID_VALUE for
 *         another operator or a negative or non-finite ddof.
 * \par Thread safety
 * As cured_comm_reduce_async().
 */
CURED_EXPORT cured_status cured_comm_reduce_axes_stats_async(cured_comm cc, cured_op op, const void *in,
                                                             cured_type in_type, const cured_layout *in_layout,
                                                             uint32_t axes, double ddof, void *out,
                                                             cured_type out_type, unsigned flags,
                                                             struct CUstream_st *stream);

/** @} */

/** \addtogroup cured_info
 *  @{ */

/**
 * \brief Version of the library that is loaded.
 * \param major  receives the major version (may be NULL).
 * \param minor  receives the minor version (may be NULL).
 * \param patch  receives the patch level (may be NULL).
 * \return the library's API version, major * 10000 + minor * 100 + patch
 *         (compare with CURED_API_VERSION, the header's).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT int cured_version(int *major, int *minor, int *patch);

/**
 * \brief Version string of the loaded library, e.g. "0.1.0".
 * \return a static string.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_version_string(void);

/**
 * \brief Name of a status, e.g. "CURED_ERROR_NO_DRIVER".
 * \param status  any value.
 * \return a static string ("CURED_STATUS_UNKNOWN" for values not in cured_status).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_status_string(cured_status status);

/**
 * \brief Name of an element type, e.g. "int32", "bfloat16".
 * \param type  any value.
 * \return a static string ("unknown" for values not in cured_type).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_type_name(cured_type type);

/**
 * \brief Name of an operator: its enumerator without CURED_OP_, e.g. "SUM",
 * "NANARGMAX".
 * \param op  any value.
 * \return a static string ("UNKNOWN" for values not in cured_op).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_op_name(cured_op op);

/**
 * \brief Detailed message for the last failing call made by this thread.
 *
 * It says what was tried (library names, paths, driver call) and, for
 * CURED_ERROR_COMPILE, holds the NVRTC log. Successful calls do not clear it.
 *
 * \return a thread-local string, valid until this thread's next cured call;
 *         "" when nothing has failed in this thread.
 * \par Thread safety
 * Each thread has its own message.
 */
CURED_EXPORT const char *cured_last_error(void);

/**
 * \brief The default result type of an operator for an element type (see cured_op).
 * \param op        operator.
 * \param in_type   element type.
 * \param out_type  receives the default result type; not written on error.
 * \return CURED_SUCCESS; CURED_ERROR_INVALID_ENUM (op or in_type);
 *         CURED_ERROR_NULL_POINTER (out_type); CURED_ERROR_TYPE_MISMATCH when the
 *         operator does not take that type (e.g. AND of float32).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_default_result(cured_op op, cured_type in_type, cured_type *out_type);

/**
 * \brief Whether an operator takes an element type with a result type (the
 * result-type rules of cured_op), for front ends that offer every result type
 * the library does.
 * \param op        any value.
 * \param in_type   any value.
 * \param out_type  any value.
 * \return 1 when (op, in_type, out_type) is a combination the operator takes;
 *         0 when the reductions would return CURED_ERROR_TYPE_MISMATCH or
 *         CURED_ERROR_INVALID_ENUM for it.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT int cured_result_offered(cured_op op, cured_type in_type, cured_type out_type);

/**
 * \brief Bytes of one result of an operator with a result type: one value,
 * two for MINMAX and MEAN_VAR, a cured_arg_result for the ARG operators.
 * \param op        any value.
 * \param out_type  any value.
 * \return the size; 0 for a value not in cured_op or cured_type.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT size_t cured_result_size(cured_op op, cured_type out_type);

/**
 * \brief Size in bytes of one element of a type.
 * \param type  any value.
 * \return 1, 2, 4 or 8; 0 for a value not in cured_type.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT size_t cured_type_size(cured_type type);

/**
 * \brief The largest rank of a cured_layout this library was built with
 * (CURED_MAX_RANK), for front ends that lay out cured_layout at run time.
 * \return CURED_MAX_RANK.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT int cured_max_rank(void);

/**
 * \brief Version of the NVRTC library in use, loading it if needed.
 * \param major  receives NVRTC's major version (may be NULL).
 * \param minor  receives NVRTC's minor version (may be NULL).
 * \return CURED_SUCCESS, or CURED_ERROR_NO_NVRTC (the message lists what was
 *         tried; major and minor are not written).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_nvrtc_version(int *major, int *minor);

/**
 * \brief CUDA driver version (e.g. 13000 for 13.0), loading the driver if needed.
 * \param version  receives the version; must not be NULL.
 * \return CURED_SUCCESS (also when the driver sees no device);
 *         CURED_ERROR_NULL_POINTER; CURED_ERROR_NO_DRIVER.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_driver_version(int *version);

/**
 * \brief Architectures that the loaded NVRTC can compile for, ascending
 * (e.g. 75, 80, ... 120).
 * \param archs     array receiving up to capacity values (may be NULL if capacity is 0).
 * \param capacity  its length (>= 0).
 * \param count     receives the total number offered (may exceed capacity).
 * \return CURED_SUCCESS; CURED_ERROR_NULL_POINTER (count, or archs with
 *         capacity > 0); CURED_ERROR_NO_NVRTC.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_supported_archs(int *archs, int capacity, int *count);

/**
 * \brief Toolkit include directory used by the cooperative-groups variants.
 *
 * Searched in CURED_CUDA_HOME, CUDA_HOME, CUDA_PATH, the path configure found,
 * /usr/local/cuda (each must hold include/cooperative_groups.h).
 *
 * \return the directory's include path (a string that stays valid), or NULL
 *         if none was found (then cured_last_error() lists what was searched).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_toolkit_include(void);

/** Counters of the kernel cache, for tests and curious users. */
typedef struct cured_stats {
    uint64_t memory_hits;      /**< kernel images found in memory */
    uint64_t disk_hits;        /**< kernel images read from the disk cache */
    uint64_t compiles;         /**< NVRTC compilations that succeeded */
    uint64_t compile_failures; /**< NVRTC compilations that failed */
    double compile_seconds;    /**< wall time spent in NVRTC */
} cured_stats;

/**
 * \brief Read the process-wide kernel cache counters.
 * \param stats  receives the counters; must not be NULL.
 * \return CURED_SUCCESS or CURED_ERROR_NULL_POINTER.
 * \par Thread safety
 * May be called from any thread; the counters are read together.
 */
CURED_EXPORT cured_status cured_get_stats(cured_stats *stats);

/** @} */

/** \addtogroup cured_cache
 *  @{ */

/**
 * \brief Number of built-in kernel specializations (one per NVRTC program).
 * \return the count, the same for the life of the process.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT size_t cured_kernel_count(void);

/**
 * \brief Description of a built-in kernel specialization, e.g.
 * "single_pass_ticket SUM int32->int64 (kernels-src/single_pass.cu)".
 * \param index  0 .. cured_kernel_count()-1.
 * \return a static string, or NULL if index >= cured_kernel_count().
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_kernel_name(size_t index);

/**
 * \brief Compile a built-in kernel for an architecture without needing a GPU.
 *
 * Goes through the in-memory and disk caches, so a second call is a hit.
 * Useful to warm caches and to check NVRTC.
 *
 * \param index  0 .. cured_kernel_count()-1.
 * \param sm     target architecture, e.g. 90.
 * \param ptx    nonzero for PTX (compute_XY), zero for a cubin (sm_XY).
 * \param bytes  receives the compiled image's size (may be NULL; not written on error).
 * \return CURED_SUCCESS; CURED_ERROR_INVALID_VALUE (index); CURED_ERROR_NO_NVRTC;
 *         CURED_ERROR_NOT_SUPPORTED (the kernel needs toolkit headers that are
 *         absent, or NVRTC does not offer the architecture); CURED_ERROR_COMPILE;
 *         CURED_ERROR_OUT_OF_MEMORY.
 * \par Thread safety
 * May be called from any thread; threads asking for the same kernel at once
 * cause one compilation, and different kernels compile in parallel.
 */
CURED_EXPORT cured_status cured_compile_kernel(size_t index, int sm, int ptx, size_t *bytes);

/**
 * \brief Directory of the persistent kernel cache in use: the one named by
 * cured_set_cache_dir(), else CURED_CACHE_DIR, else $XDG_CACHE_HOME/cured,
 * else $HOME/.cache/cured (else the passwd entry's home), plus a versioned
 * subdirectory. CURED_CACHE_DIR set but empty, or CURED_CACHE_DISABLE=1,
 * turns the disk cache off (the memory cache stays).
 *
 * The directory is created 0700. It is refused (a logged warning, no disk
 * cache) when it is not owned by the effective user, is writable by group or
 * others, is a symbolic link, or is the file-system root or a shared system
 * directory (/etc, /home, /tmp, /usr, /var and the like). A missing directory
 * on the way to it is created only inside a directory of the effective user
 * (or a sticky one such as /tmp), so root running with another user's HOME
 * gets no disk cache rather than root-owned directories in that home.
 *
 * Privileged processes (setuid, setgid or file capabilities: AT_SECURE) read
 * no environment variable at all (not CURED_CACHE_DIR, HOME, CURED_NVRTC_LIBRARY,
 * CURED_CUDA_DRIVER_LIBRARY, CURED_CUDA_HOME, CUDA_HOME, CURED_LOG, ...): they
 * load the default libraries and have no disk cache unless cured_set_cache_dir()
 * names one.
 *
 * Any cache problem is a cache miss, never an error.
 * \return the path (valid for the life of the process), or NULL when the disk
 *         cache is off or unusable.
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT const char *cured_cache_dir(void);

/**
 * \brief Choose the disk cache directory by program, before the first kernel
 * is compiled or loaded: it then overrides the environment, and it is the
 * only way a privileged process gets a disk cache. The directory must pass
 * the checks of cured_cache_dir().
 * \param dir  an absolute path; "" for no disk cache; NULL for the default rules.
 * The cache is opened by the first call that compiles, loads or prepares a
 * kernel, and also by cured_get_arch() (which reads NVRTC's recorded facts
 * there), cured_cache_dir(), cured_cache_foreach() and cured_cache_clear(); not by
 * cured_create().
 * \return CURED_SUCCESS, CURED_ERROR_INVALID_VALUE (a relative or overlong path),
 *         CURED_ERROR_NOT_SUPPORTED (the cache was already opened: nothing changed),
 *         CURED_ERROR_OUT_OF_MEMORY.
 * \par Thread safety
 * May be called from any thread; the first call that opens the cache fixes it.
 */
CURED_EXPORT cured_status cured_set_cache_dir(const char *dir);

/** One entry of the disk cache, as reported by cured_cache_foreach(). */
typedef struct cured_cache_entry {
    const char *file;     /**< entry file name (SHA-256 of its key) */
    const char *summary;  /**< kernel source and name expressions */
    const char *target;   /**< e.g. "sm_90" or "compute_90" */
    uint64_t bytes;       /**< size of the entry file */
    int64_t last_use;     /**< seconds since the epoch */
} cured_cache_entry;

/**
 * \brief Call fn for each valid-looking entry of the disk cache, in no
 * particular order.
 * \param fn    called once per entry; the entry's strings are valid only
 *              during the call. Must not be NULL.
 * \param user  passed to fn.
 * \return CURED_SUCCESS (also when the cache is off: no calls);
 *         CURED_ERROR_NULL_POINTER when fn is NULL.
 * \par Thread safety
 * May be called from any thread, while other threads and processes use the
 * cache (an entry replaced meanwhile may be missed).
 */
CURED_EXPORT cured_status cured_cache_foreach(void (*fn)(const cured_cache_entry *entry, void *user),
                                              void *user);

/**
 * \brief Remove every entry of the disk cache (and stale temporary files).
 * \param removed  receives the number of entries removed (may be NULL).
 * \return CURED_SUCCESS (also when the cache is off).
 * \par Thread safety
 * May be called from any thread; programs using the cache meanwhile see misses.
 */
CURED_EXPORT cured_status cured_cache_clear(size_t *removed);

/** @} */

/** \addtogroup cured_log
 *  @{ */

/** Log levels. The library prints nothing unless asked: set CURED_LOG=warn or
 *  CURED_LOG=debug (messages go to stderr) or install a callback. */
typedef enum cured_log_level {
    CURED_LOG_OFF = 0,   /**< nothing */
    CURED_LOG_WARN = 1,  /**< problems cured worked around (e.g. an unusable disk cache) */
    CURED_LOG_DEBUG = 2  /**< cache hits and misses, compilations */
} cured_log_level;

/** A log sink: level, a NUL-terminated message without newline, and user.
 *  It may be called from any thread that calls cured, concurrently. */
typedef void (*cured_log_fn)(cured_log_level level, const char *message, void *user);

/**
 * \brief Send log messages up to max_level to fn.
 *
 * Each distinct warning is reported once per process (of the last 64
 * distinct warnings, which cured remembers: one older than those may be
 * reported again).
 *
 * \param max_level  the most detailed level passed on (CURED_LOG_OFF: none).
 * \param fn         the sink; NULL goes back to the CURED_LOG default (stderr),
 *                   and max_level is then ignored.
 * \param user       passed to fn.
 * \return CURED_SUCCESS, or CURED_ERROR_INVALID_ENUM for an unknown level.
 * \par Thread safety
 * May be called from any thread; a message being delivered meanwhile may
 * still reach the previous sink.
 */
CURED_EXPORT cured_status cured_set_log(cured_log_level max_level, cured_log_fn fn, void *user);

/** @} */

/** \addtogroup cured_custom
 *  @{ */

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
 * - identity_expr: the identity of combine (it names no variable).
 *
 * The result has acc_type. Examples: sum of squares `x*x` / `a+b` / `0`;
 * max-abs `fabs(x)` / `fmax(a,b)` / `0`; count of nonzeros `x != 0` / `a+b` / `0`
 * (acc INT64); dot product (ninputs 2) `x*y` / `a+b` / `0`.
 *
 * Grammar. Before anything is compiled, each expression is checked against
 * a whitelist, and anything else is refused with
 * CURED_ERROR_INVALID_EXPRESSION and a message naming the slot, the
 * offending token, its position and, for an unknown name, what is allowed:
 * - the slot's variables (above), `true`, `false`;
 * - numbers: decimal, octal, hexadecimal and binary integers with u, l, ll
 *   suffixes; decimal and hexadecimal floats with an optional f suffix;
 * - the operators + - * / % & | ^ ~ ! < > <= >= == != && || << >> ?: and
 *   parentheses (no assignment, ++, --, comma, member access, indexing,
 *   braces, ';', '#', quotes, backslashes, comments or digraphs; `<::` is
 *   read as C++11 reads it, '<' then '::');
 * - casts to the arithmetic types: `(float)`, `(double)`, `(bool)`, `(char)`,
 *   `(int)`, `(unsigned)`, `(long long)`, `(unsigned long long)` and the
 *   other spellings of signed and unsigned char, short, int, long and long
 *   long (not long double), and the one-keyword functional form `float(x)`;
 * - calls, optionally written with a leading `::`, with the right number of
 *   arguments, of these device functions (cost in brackets):
 *   abs labs llabs fabs fabsf min max fmin fminf fmax fmaxf fdim copysign
 *   fma fmaf sqrt sqrtf rsqrt rsqrtf floor floorf ceil ceilf round roundf
 *   trunc truncf rint rintf isnan isinf isfinite signbit __popc __popcll
 *   __clz __clzll __ffs __ffsll __brev __brevll __int_as_float __float_as_int
 *   __uint_as_float __float_as_uint __longlong_as_double __double_as_longlong
 *   [1]; cbrt cbrtf hypot hypotf pow powf exp expf exp2 exp2f exp10 exp10f
 *   expm1 expm1f log logf log2 log2f log10 log10f log1p log1pf sin sinf cos
 *   cosf tan tanf asin acos atan atan2 atan2f sinh cosh tanh tanhf asinh
 *   acosh atanh erf erfc [4]; lgamma [8]; fmod remainder tgamma [16].
 *   The floating functions take floating arguments: cast an integer `x`
 *   first (`sqrt((double)x)`).
 * Tokens may be separated by spaces (not tabs or newlines: those are
 * refused as characters outside printable ASCII and the space).
 * Bounds, which keep NVRTC's work (and so the call's time) small: at most
 * 1024 characters and 64 levels of nesting per expression, the expression
 * itself being the first (so at most 63 parentheses, casts, calls, ?: or
 * unary operators nested in one another); a compile-time
 * budget of 32 per expression (16 for combine_expr, which is inlined at
 * every step of the reduction), where each call costs as listed and each
 * '/' or '%' costs 2. The slowest op found within these bounds compiles in
 * about 6 s on 2 cores (without them, a 1 KiB expression took minutes).
 *
 * Compile budget. Each shape of cured_custom_reduce_axes_async() and
 * cured_custom_segmented_reduce_async() is a further compilation for the op
 * (up to about 30 s for the dearest ops on 2 cores), so besides the bounds
 * above:
 * - an op compiles at most CURED_CUSTOM_MAX_SHAPES distinct shapes (default
 *   16; a shape already compiled for the op, in any context, is not counted
 *   again);
 * - an op whose compilations and module loads (its creation's included) have
 *   taken CURED_CUSTOM_COMPILE_SECONDS of wall time (default 120) compiles
 *   no new shape;
 * - once the user-defined ops of the process have taken
 *   CURED_CUSTOM_PROCESS_COMPILE_SECONDS (default 600) in all, no op is
 *   created, no op compiles a new shape and none is compiled for a
 *   communicator (cured_comm_custom_reduce_async(), whose compilations
 *   count too).
 * Each is read from the environment when a compilation is about to start
 * (not in a privileged process: see cured_set_cache_dir()); a non-negative
 * number, 0 for no limit; anything else is the default (with a warning
 * through the log). Past a limit, the call returns
 * CURED_ERROR_COMPILE_BUDGET with a message naming the limit; nothing is
 * compiled, loaded or launched, and the shapes the op has loaded still
 * run. The time limits are checked before a compilation starts, so the last
 * compilation may pass them; memory and disk cache hits take only their
 * load's time. Whole-array calls (cured_custom_reduce_async()) compile
 * nothing new on the device the op was created for and are not refused.
 *
 * The expressions run as device code of the caller's process with the
 * caller's privileges. A compile error (a type error the grammar lets
 * through, such as `%` of a float) returns CURED_ERROR_COMPILE, and
 * cured_last_error() holds NVRTC's log, whose lines point into the
 * offending expression (e.g. "map_expr(1): error: ...").
 *
 * \param h              handle: the op is compiled for its device now (it may
 *                       then be used with any handle).
 * \param in_type        element type of the input(s).
 * \param acc_type       accumulator and result type (not FLOAT16 or BFLOAT16).
 * \param ninputs        1, or 2 for a two-input map (x and y).
 * \param map_expr       expression over x (and y).
 * \param combine_expr   expression over a and b.
 * \param identity_expr  the identity of combine_expr.
 * \param out            receives the op; NULL on failure. Must not be NULL.
 * \return CURED_SUCCESS; CURED_ERROR_NULL_HANDLE; CURED_ERROR_NULL_POINTER (an
 *         expression or out); CURED_ERROR_INVALID_ENUM (a type);
 *         CURED_ERROR_TYPE_MISMATCH (a FLOAT16 or BFLOAT16 acc_type);
 *         CURED_ERROR_INVALID_VALUE (ninputs); CURED_ERROR_INVALID_EXPRESSION;
 *         CURED_ERROR_COMPILE_BUDGET (the process has spent
 *         CURED_CUSTOM_PROCESS_COMPILE_SECONDS: see above);
 *         CURED_ERROR_COMPILE; CURED_ERROR_NO_NVRTC; CURED_ERROR_OUT_OF_MEMORY;
 *         CURED_ERROR_CUDA (loading the module).
 * \par Thread safety
 * May be called from any thread.
 */
CURED_EXPORT cured_status cured_custom_create(cured_handle h, cured_type in_type, cured_type acc_type,
                                              int ninputs, const char *map_expr,
                                              const char *combine_expr, const char *identity_expr,
                                              cured_custom *out);

/** One field of a multi-field user-defined reduction (cured_custom_create_multi()). */
typedef struct cured_custom_field {
    cured_type type;      /**< the field's type (not FLOAT16 or BFLOAT16) */
    const char *map;      /**< what one element contributes to the field, over `x` (and `y`) */
    const char *combine;  /**< the field of combine(a, b), over the fields `a0`, `a1`, ... and `b0`, `b1`, ... */
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
 * \param nresults  1 to 4 (so the results take at most 32 bytes).
 * \param out       receives the op, for cured_custom_reduce(_async) and
 *                  cured_custom_destroy(); NULL on failure.
 * \return CURED_SUCCESS, CURED_ERROR_NULL_HANDLE, CURED_ERROR_NULL_POINTER,
 *         CURED_ERROR_INVALID_ENUM, CURED_ERROR_TYPE_MISMATCH (a half type),
 *         CURED_ERROR_INVALID_VALUE (ninputs, nfields, nresults),
 *         CURED_ERROR_INVALID_EXPRESSION (naming the expression, e.g.
 *         "fields[0].map"), CURED_ERROR_COMPILE, CURED_ERROR_NO_NVRTC, ...
 *         Every expression passes the grammar of cured_custom_create(); the
 *         maps name x (and y), the combines the fields a0.. and b0.. that the
 *         state has (a0, a1 and b0, b1 for two fields), the finalizers a0.. and n.
 *         CURED_ERROR_COMPILE_BUDGET: the fields' expressions of one kind are
 *         compiled into one function, so together they keep one expression's
 *         budget: the maps' costs add up to at most 32, the combines' to 16,
 *         the identities' to 32, and the finalize expressions' to 32 (the
 *         message gives each cost); or the process has spent
 *         CURED_CUSTOM_PROCESS_COMPILE_SECONDS (cured_custom_create()).
 * \par Thread safety
 * May be called from any thread, as cured_custom_create().
 */
CURED_EXPORT cured_status cured_custom_create_multi(cured_handle h, cured_type in_type, int ninputs,
                                                    const cured_custom_field *fields, int nfields,
                                                    cured_type out_type, const char *const *finalize,
                                                    int nresults, cured_custom *out);

/**
 * \brief Run a user-defined reduction asynchronously; as cured_reduce_async()
 * with algorithm AUTO.
 *
 * \param h       handle (of any device: the op is compiled for it on first use).
 * \param op      the op from cured_custom_create().
 * \param x       device pointer to n elements of the op's in_type (may be NULL when n == 0).
 * \param y       the second input for a two-input op (n elements); ignored
 *                (pass NULL) for a one-input op.
 * \param n       element count; n == 0 gives the identity (a multi-field
 *                op: its finalize expressions over the identity's fields
 *                with n = 0, as the axis and segment calls give an empty
 *                output).
 * \param out     device pointer receiving one acc_type value (a multi-field
 *                op's nresults values of its out_type), aligned to its size.
 * \param stream  CUstream or cudaStream_t (NULL = the legacy default stream).
 * An op loads its kernels once per context, keyed by the context's id
 * (cuCtxGetId), so it outlives a reset of the primary context
 * (cuDevicePrimaryCtxReset, cudaDeviceReset): handles do not (destroy them
 * before the reset and create new ones after), the op may be used with them.
 *
 * \return as cured_reduce_async(); CURED_ERROR_NULL_POINTER if op or out is
 *         NULL, or an input is NULL with n > 0.
 * \par Thread safety
 * As cured_reduce_async(); one op may be used by several threads at once.
 */
CURED_EXPORT cured_status cured_custom_reduce_async(cured_handle h, cured_custom op, const void *x,
                                                    const void *y, size_t n, void *out,
                                                    struct CUstream_st *stream);

/**
 * \brief Synchronous cured_custom_reduce_async() into host memory.
 *
 * \param h         handle.
 * \param op        the op from cured_custom_create().
 * \param x         device pointer to n elements (may be NULL when n == 0).
 * \param y         the second input for a two-input op; ignored for a one-input op.
 * \param n         element count.
 * \param host_out  host pointer receiving one acc_type value.
 * \param stream    stream to run on and wait for (NULL = the legacy default stream).
 * \return as cured_custom_reduce_async(); CURED_ERROR_NULL_POINTER for a NULL
 *         host_out; CURED_ERROR_CUDA if the stream reports an error.
 * \par Thread safety
 * As cured_custom_reduce_async().
 */
CURED_EXPORT cured_status cured_custom_reduce(cured_handle h, cured_custom op, const void *x,
                                              const void *y, size_t n, void *host_out,
                                              struct CUstream_st *stream);

/**
 * \brief A one-input user-defined op (cured_custom_create() or
 * cured_custom_create_multi()) along the axes of a strided view,
 * asynchronously: the layout rules, planner and guarantees of
 * cured_reduce_axes_async(). Each output is the op's combine over its
 * elements' maps, in a fixed order (bitwise reproducible), then its
 * finalize with n = the reduced extent; an output of no element gets the
 * finalize of the identity with n = 0 (one-field ops: the identity). Each
 * shape the planner picks is compiled for the op on its first use in a
 * context (NVRTC, through the caches) and kept until cured_custom_destroy().
 * \param h          handle.
 * \param op         a one-input op.
 * \param in         device pointer to the element at index (0, ..., 0), of the op's input type.
 * \param in_layout  the input view.
 * \param axes       bit k set: reduce axis k.
 * \param out        device pointer to the first result (the op's result: the
 *                   accumulator type, or nresults values of the multi-field result type).
 * \param out_layout as cured_reduce_axes_async() (strides in results).
 * \param stream     CUstream or cudaStream_t.
 * \return as cured_reduce_axes_async(); CURED_ERROR_NULL_POINTER for a NULL
 *         op; CURED_ERROR_INVALID_VALUE for a two-input op; CURED_ERROR_COMPILE
 *         when a shape's first compilation fails; CURED_ERROR_COMPILE_BUDGET
 *         for a shape the op has not compiled once the op or the process has
 *         spent its compile budget (cured_custom_create()).
 * \par Thread safety
 * As cured_custom_reduce_async(): any thread; the first use of a shape in a
 * context waits for its compilation, and calls of the op's shapes already
 * loaded do not wait for it.
 */
CURED_EXPORT cured_status cured_custom_reduce_axes_async(cured_handle h, cured_custom op, const void *in,
                                                         const cured_layout *in_layout, uint32_t axes, void *out,
                                                         const cured_layout *out_layout, struct CUstream_st *stream);

/**
 * \brief A one-input user-defined op over segments given by offset arrays
 * (the conventions of cured_segmented_reduce_async()); an empty segment
 * gets the finalize of the identity with n = 0. Otherwise as
 * cured_custom_reduce_axes_async() (segments over 16 KiB: as
 * cured_segmented_reduce_async() says).
 * \param h            handle.
 * \param op           a one-input op.
 * \param in           device pointer to the elements the offsets index.
 * \param num_segments number of segments.
 * \param begin        device array of num_segments first offsets.
 * \param end          device array of num_segments end offsets.
 * \param offset_type  CURED_TYPE_INT32 or CURED_TYPE_INT64.
 * \param out          device pointer to num_segments results, dense.
 * \param stream       CUstream or cudaStream_t.
 * \return as cured_segmented_reduce_async() and cured_custom_reduce_axes_async().
 * \par Thread safety
 * As cured_custom_reduce_axes_async().
 */
CURED_EXPORT cured_status cured_custom_segmented_reduce_async(cured_handle h, cured_custom op, const void *in,
                                                              size_t num_segments, const void *begin,
                                                              const void *end, cured_type offset_type, void *out,
                                                              struct CUstream_st *stream);

/**
 * \brief Free a user-defined op, unload its modules and release its compiled
 * image from the memory cache (freed once no other op of the same
 * expressions and types holds it; the disk cache keeps its copy, within
 * CURED_CACHE_MAX_BYTES). No work using it may be pending; the contexts it was used in must still exist (a primary
 * context that was reset since counts as gone: its modules went with it).
 *
 * \param op  the op; NULL is accepted.
 * \return CURED_SUCCESS.
 * \par Thread safety
 * No other thread may use op during or after the call.
 */
CURED_EXPORT cured_status cured_custom_destroy(cured_custom op);

/** @} */

/** \addtogroup cured_comm
 *  @{ */

/**
 * \brief A user-defined reduction (cured_custom_create() or
 * cured_custom_create_multi()) of an array sharded over the ranks: each rank
 * reduces its shard to the op's state (its accumulator or fields), one
 * ncclAllGather moves the states and lengths, and every rank combines them
 * in rank order with the op's combine expression(s) and writes the result
 * (a multi-field op's finalize expressions with n, the global count). The
 * same bits on every rank; equal to cured_custom_reduce_async() over the
 * concatenated input when the op's combine is exact (integers), in general
 * up to rounding otherwise. The op's kernels are compiled and loaded for the
 * communicator on its first use here (by the op's source: the op may be
 * destroyed and made again).
 * \param cc       the communicator.
 * \param op       the user-defined op (any handle's).
 * \param x        device pointer to this rank's n_local elements (may be NULL when n_local is 0).
 * \param y        the second input of a two-input op; ignored otherwise.
 * \param n_local  this rank's element count.
 * \param out      device pointer receiving the result, as cured_custom_reduce_async()'s.
 * \param flags    0.
 * \param stream   CUstream or cudaStream_t of the handle's context.
 * \return CURED_SUCCESS; CURED_ERROR_NULL_HANDLE; CURED_ERROR_NULL_POINTER
 *         (op, out, an input with n_local > 0); CURED_ERROR_SIZE_OVERFLOW;
 *         CURED_ERROR_MISALIGNED; CURED_ERROR_INVALID_VALUE (flags);
 *         CURED_ERROR_NOT_DEVICE_POINTER, CURED_ERROR_OUT_OF_RANGE;
 *         CURED_ERROR_COMPILE, CURED_ERROR_NO_NVRTC (first use);
 *         CURED_ERROR_COMPILE_BUDGET (a first use once the process has spent
 *         CURED_CUSTOM_PROCESS_COMPILE_SECONDS, see cured_custom_create());
 *         CURED_ERROR_NCCL; CURED_ERROR_CUDA.
 * \par Thread safety
 * As cured_comm_reduce_async().
 */
CURED_EXPORT cured_status cured_comm_custom_reduce_async(cured_comm cc, cured_custom op, const void *x, const void *y,
                                                         size_t n_local, void *out, unsigned flags,
                                                         struct CUstream_st *stream);

/**
 * \brief Synchronous cured_comm_custom_reduce_async(): the result goes to
 * host memory and the call waits for the stream.
 * \param cc        the communicator.
 * \param op        the user-defined op.
 * \param x         device pointer to this rank's n_local elements.
 * \param y         the second input of a two-input op.
 * \param n_local   this rank's element count.
 * \param host_out  host pointer receiving the result.
 * \param flags     0.
 * \param stream    stream to run on and wait for.
 * \return as cured_comm_custom_reduce_async(); CURED_ERROR_CUDA if the
 *         stream reports an error.
 * \par Thread safety
 * As cured_comm_reduce_async(). Not capturable.
 */
CURED_EXPORT cured_status cured_comm_custom_reduce(cured_comm cc, cured_custom op, const void *x, const void *y,
                                                   size_t n_local, void *host_out, unsigned flags,
                                                   struct CUstream_st *stream);

/** @} */

#ifdef __cplusplus
}
#endif
#endif /* CURED_H */
