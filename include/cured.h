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
    CURED_ERROR_INTERNAL = 17           /**< a bug in cured; please report it */
} cured_status;

/** Element and result types. Values are stable. */
typedef enum cured_type {
    CURED_TYPE_INT32 = 0,
    CURED_TYPE_INT64 = 1
} cured_type;

/** Reduction operators. Values are stable. */
typedef enum cured_op {
    CURED_OP_SUM = 0
} cured_op;

/**
 * Algorithms, after The CUDA Handbook, chapter 12. AUTO is the library's
 * fastest; it needs no CUDA toolkit headers at run time (only the driver and
 * NVRTC). The *_CG variants and LISTING_12_4 include cooperative_groups.h and
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
 * time a specialization is used; compile before capturing if that matters.
 *
 * Result types: CURED_OP_SUM of CURED_TYPE_INT32 gives CURED_TYPE_INT32
 * (wrapping modulo 2^32, like the C loop on unsigned) or CURED_TYPE_INT64
 * (exact for any n). n == 0 gives the identity (0).
 *
 * Streams: the handle keeps one workspace per stream it has seen (16 are made
 * at creation, more are added on first use of a further stream outside
 * capture). Calls through one handle on different streams may run
 * concurrently. A graph captured from a call uses the workspace of the stream
 * it was captured on: do not run it concurrently with other calls on that
 * stream or other launches of the same graph.
 *
 * \param h       handle.
 * \param op      operator.
 * \param algo    algorithm; CURED_ALGO_AUTO unless comparing variants.
 * \param in      device pointer to n elements, aligned to the element size
 *                (any such alignment; 16 bytes is fastest). May be NULL when n == 0.
 * \param in_type element type.
 * \param n       element count (any size_t whose byte size does not overflow).
 * \param out     device pointer to one result, aligned to its size.
 * \param out_type result type.
 * \param stream  CUstream or cudaStream_t (NULL = the legacy default stream).
 * \return CURED_SUCCESS or an error; on error nothing was launched or written.
 */
CURED_EXPORT cured_status cured_reduce_async(cured_handle h, cured_op op, cured_algorithm algo,
                                             const void *in, cured_type in_type, size_t n,
                                             void *out, cured_type out_type,
                                             struct CUstream_st *stream);

/**
 * \brief Synchronous reduction: as cured_reduce_async(), but the result is
 * written to host memory and the call waits for the stream.
 * \param host_out  host pointer receiving one value of out_type.
 * \return as cured_reduce_async(); CURED_ERROR_CUDA if the stream reports an error.
 */
CURED_EXPORT cured_status cured_reduce(cured_handle h, cured_op op, cured_algorithm algo,
                                       const void *in, cured_type in_type, size_t n,
                                       void *host_out, cured_type out_type,
                                       struct CUstream_st *stream);

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
 * \return CURED_SUCCESS or CURED_ERROR_NO_DRIVER.
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
 * "single_pass_ticket int32->int64 (kernels-src/single_pass.cu)".
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

#ifdef __cplusplus
}
#endif
#endif /* CURED_H */
