/* Declarations shared by the library's source files (never installed). */
#ifndef CURED_INTERNAL_H
#define CURED_INTERNAL_H

#include <config.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <cuda.h>
#include <nvrtc.h>

#include "cured.h"
#include "driver.h"
#include "family.h"
#include "env.h"

#define CR_API CURED_EXPORT

/* ---- error.c: thread-local detailed message ---------------------------- */
/* Record a message for cured_last_error() and return status (for `return cr_fail(...)`). */
cured_status cr_fail(cured_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A copy of the thread's message (NULL: no memory), and putting it back (freeing
 * it), around a step whose failure the call recovers from: cured_last_error()
 * keeps the last failing call's message, not a recovered step's. */
char *cr_error_save(void);
void cr_error_restore(char *saved);
/* Fail with a driver call's error text appended. */
cured_status cr_fail_cuda(CUresult r, const char *what);

/* ---- log.c --------------------------------------------------------------- */
void cr_log(cured_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The driver table, or a failure recorded with cr_fail (NO_DRIVER / NO_DEVICE). */
cured_status cr_driver(const struct cr_driver **out);

/* ---- nvrtc_lib.c: NVRTC opened at run time ------------------------------ */
#define CR_NVRTC_FUNCTIONS(X)                                                             \
    X(Version, nvrtcResult, (int *, int *))                                               \
    X(GetErrorString, const char *, (nvrtcResult))                                        \
    X(GetNumSupportedArchs, nvrtcResult, (int *))                                         \
    X(GetSupportedArchs, nvrtcResult, (int *))                                            \
    X(CreateProgram, nvrtcResult,                                                         \
      (nvrtcProgram *, const char *, const char *, int, const char *const *,              \
       const char *const *))                                                              \
    X(DestroyProgram, nvrtcResult, (nvrtcProgram *))                                      \
    X(CompileProgram, nvrtcResult, (nvrtcProgram, int, const char *const *))              \
    X(GetProgramLogSize, nvrtcResult, (nvrtcProgram, size_t *))                           \
    X(GetProgramLog, nvrtcResult, (nvrtcProgram, char *))                                 \
    X(GetPTXSize, nvrtcResult, (nvrtcProgram, size_t *))                                  \
    X(GetPTX, nvrtcResult, (nvrtcProgram, char *))                                        \
    X(GetCUBINSize, nvrtcResult, (nvrtcProgram, size_t *))                                \
    X(GetCUBIN, nvrtcResult, (nvrtcProgram, char *))                                      \
    X(AddNameExpression, nvrtcResult, (nvrtcProgram, const char *const))                  \
    X(GetLoweredName, nvrtcResult, (nvrtcProgram, const char *const, const char **))

struct cr_nvrtc {
#define CR_NVRTC_FIELD(name, ret, params) ret (*name) params;
    CR_NVRTC_FUNCTIONS(CR_NVRTC_FIELD)
#undef CR_NVRTC_FIELD
    int major, minor;
    int *archs; /* supported architectures, ascending */
    int narchs;
};
/* Load NVRTC once; on failure records CURED_ERROR_NO_NVRTC naming what was tried. */
cured_status cr_nvrtc(const struct cr_nvrtc **out);
/* NVRTC's version and architectures, from the disk cache when NVRTC is not loaded yet. */
struct cr_nvrtc_facts {
    int major, minor;
    int archs[64];
    int narchs;
};
cured_status cr_nvrtc_facts(const struct cr_nvrtc_facts **out);
/* Parse the text of a facts file: "<library> <size> <mtime> <inode>\n<major> <minor>\n<archs...>".
 * 1 with *lib_line (the first line, in text) and f filled; 0 if malformed. Pure (the fuzzers call it). */
int cr_nvrtc_parse_facts(char *text, char **lib_line, struct cr_nvrtc_facts *f);

/* ---- arch.c: which target to compile for -------------------------------- */
/*
 * Choose the NVRTC target for a device of compute capability cc (e.g. 90)
 * given NVRTC's supported list. override is CURED_ARCH's value or NULL
 * ("sm_XY" = cubin, "compute_XY" = PTX). Pure: no driver or NVRTC calls.
 */
cured_status cr_select_arch(int cc, const int *supported, int nsupported, const char *override,
                            int *arch, int *ptx);

/* ---- toolkit.c: headers for the cooperative-groups kernels -------------- */
/* The toolkit's include dir or NULL (with a cr_fail message of what was searched). */
const char *cr_toolkit_include_dir(void);
/* The search itself, over given candidate toolkit roots (NULL/"" entries skipped):
 * 1 and found = "<root>/include" on success; searched lists the probes. */
int cr_toolkit_search(const char *const *candidates, size_t n, char *found, size_t found_cap,
                      char *searched, size_t searched_cap);

/* ---- kernels_embedded.c (generated from kernels-src/) ------------------- */
struct cr_source {
    const char *name; /* file name as in kernels-src/, e.g. "fast.cu" */
    const char *text;
};
extern const struct cr_source cr_sources[];
extern const size_t cr_nsources;
const char *cr_source_text(const char *name);

/* ---- the request, family and plan types (family.h) ---------------------- */
#define CR_MAX_RESULT 32 /* largest result: four 8-byte values of a user-defined op (CR_WS_RESULT holds 32) */

/* ---- jit.c: one NVRTC compilation --------------------------------------- */
struct cr_image {
    void *data;   /* cubin, or NUL-terminated PTX */
    size_t size;
    int ptx;
    int from_disk; /* read from the disk cache, not compiled in this process */
    char lowered[CR_MAX_KERNELS][512]; /* mangled kernel names */
};

/* The NVRTC options for a program and target (the same list is hashed into cache keys). */
#define CR_MAX_OPTIONS 8
struct cr_options {
    const char *argv[CR_MAX_OPTIONS];
    int argc;
    char arch[48], inc[2][1100];
};
cured_status cr_jit_options(const struct cr_unit *p, int arch, int ptx, struct cr_options *o);
cured_status cr_jit_compile(const struct cr_unit *p, int arch, int ptx, struct cr_image *out);
void cr_image_free(struct cr_image *img);

/* ---- kcache.c: process-wide cache of compiled images --------------------- */
/*
 * The image for (program, arch, ptx), compiling it at most once per process
 * however many threads ask at once; NVRTC runs without the cache lock held.
 * The image holds a reference until cr_kcache_put (built-in kernels' images
 * stay cached after it; a user op's or a rejected one is freed).
 */
cured_status cr_kcache_get(const struct cr_unit *p, int arch, int ptx,
                           const struct cr_image **out);
/* Return the reference of a get (NULL: nothing). */
void cr_kcache_put(const struct cr_image *img);
/* Entries held in memory, listed or not (tests). */
size_t cr_kcache_entries(void);
/* Counters (also behind cured_get_stats). */
void cr_kcache_stats(cured_stats *s);
/* The driver refused an image: forget it in memory and on disk, so the next
 * get recompiles (the caller still puts its reference). */
void cr_kcache_reject(const struct cr_unit *p, int arch, int ptx, const struct cr_image *img);
/* Tests: when set, makes a missing entry's image instead of the disk cache
 * and NVRTC (called without the cache lock, as a compilation is). */
extern cured_status (*cr_kcache_fill_hook)(const struct cr_unit *p, int arch, int ptx, struct cr_image *img);
/* Tests: threads now blocked waiting for another thread's compilation. */
size_t cr_kcache_blocked(void);

/* ---- handle.c ------------------------------------------------------------ */
/* Per-stream workspace: ticket, accumulator, host-result staging, partials. */
#define CR_WS_TICKET 0
#define CR_WS_ACCUM 16
#define CR_WS_RESULT 32
#define CR_WS_ERROR 128       /* 8 bytes: ~(first bad segment) of the stream's segmented calls, 0 = none (cured_check_stream) */
#define CR_WS_TICKETS 256     /* tickets of results split over blocks, kept at zero */
#define CR_WS_NTICKETS 1024
#define CR_WS_EXACT (CR_WS_TICKETS + 4 * CR_WS_NTICKETS) /* exact sums' accumulators of split outputs, kept at zero */
#define CR_WS_EXACT_BYTES 8192
#define CR_WS_RETRY (CR_WS_EXACT + CR_WS_EXACT_BYTES) /* exact_quick's retry bits (CR_EXACT_RETRY_BITS), kept at zero */
#define CR_WS_RETRY_COLS (CR_WS_RETRY + CR_EXACT_RETRY_BITS / 8) /* exact_quick_columns' bits, rewritten by each call */
#define CR_WS_COLS_TICKETS (CR_WS_RETRY_COLS + CR_EXACT_RETRY_COLS_BITS / 8) /* its tickets, kept at zero */
#define CR_WS_PARTIALS (CR_WS_COLS_TICKETS + 4 * CR_EXACT_COLS_TICKETS) /* CR_MAX_ACC bytes per resident block */
#define CR_WS_COLS_BYTES ((size_t)2 << 20) /* column partials and the long-segment list, after the block partials */
#define CR_SLOTS_PER_CHUNK 16

struct cr_slot {
    CUstream stream;
    pthread_t owner; /* CU_STREAM_PER_THREAD: the thread whose own stream it is */
    CUdeviceptr base;
};

struct cr_kernel {            /* one compile unit loaded in the handle's context */
    CUmodule module;
    CUfunction fn[CR_MAX_KERNELS];
    int blocks_per_sm;        /* occupancy of fn[0] at the unit's block size */
    int fn_blocks_per_sm[CR_MAX_KERNELS]; /* each fn's (0 where not asked) */
};

/* A built-in request's kernels in a handle: what its plan needs. */
struct cr_loaded {
    uint64_t code;            /* cr_request_code */
    struct cr_request req;
    struct cr_unit unit;
    const struct cr_family *fam;
    struct cr_kernel k;
};

struct cured_handle_st {
    const struct cr_driver *d;
    CUcontext ctx;
    unsigned long long ctx_id; /* cuCtxGetId: unlike ctx, never reused by another context */
    CUdevice dev;
    int own_primary;          /* retained the primary context */
    int cc, max_blocks_per_sm;
    struct cr_device_facts facts;
    size_t slot_bytes;

    pthread_mutex_t lock;     /* slots, loaded kernels, arch */
    int arch, ptx, arch_status; /* arch_status: -1 = not chosen yet */
    struct cr_slot *slots;
    size_t nslots, slots_cap;
    CUdeviceptr *chunks;
    size_t nchunks;
    struct cr_loaded **loaded; /* built-in requests' kernels, loaded on first use */
    size_t nloaded, loaded_cap;
};

/* Make h's context current for the duration of a call. */
cured_status cr_enter(cured_handle h, CUcontext *saved);
/* CURED_ERROR_NOT_DEVICE_POINTER unless the device can read p (devptr.c);
 * CURED_ERROR_OUT_OF_RANGE when [p, p + bytes) runs past mapped memory
 * (memory the driver cannot size passes). Caller holds the context. */
cured_status cr_check_device_range(cured_handle h, const void *p, size_t bytes, const char *what);
cured_status cr_check_device_pointer(cured_handle h, const void *p, const char *what);
/* Adjacent allocations a range check follows; a range over more is refused (OUT_OF_RANGE). */
#define CR_MAX_FOLLOWED (1u << 20)
/* The bytes mapped from p on without a gap (following adjacent allocations),
 * at most `most`; memory the driver cannot size counts as `most` (*sized 0:
 * no end was measured), and the walk stops at CR_MAX_FOLLOWED allocations.
 * Caller holds the context. */
cured_status cr_device_extent(cured_handle h, const void *p, uint64_t most, uint64_t *bytes, int *sized);
/* Do the byte ranges [a, a + a_bytes) and [b, b + b_bytes) share a byte? */
int cr_ranges_overlap(const void *a, uint64_t a_bytes, const void *b, uint64_t b_bytes);
/* The host-side checks of cured_dot's y (NULL, alignment), named as y; after cr_check_args of x. */
cured_status cr_check_second_input(const void *y, cured_type type, size_t n);
void cr_leave(cured_handle h, CUcontext saved);
/* The workspace slot of a stream (assigning one on first use). */
/* s's workspace slot if it has one (1), without making one (0). */
int cr_slot_find(cured_handle h, CUstream s, CUdeviceptr *base);
cured_status cr_slot_for(cured_handle h, CUstream s, CUdeviceptr *base);
/* Compile (through the caches) and load a unit into h's context, which is current. */
cured_status cr_kernel_load(cured_handle h, const struct cr_unit *u, struct cr_kernel *k);
/* The loaded kernels of a built-in request (compiling/loading on first use); the context is current. */
cured_status cr_loaded_get(cured_handle h, const struct cr_request *r, const struct cr_loaded **out);
cured_status cr_handle_arch(cured_handle h, int *arch, int *ptx);

/* ---- custom.c: user-defined ops ------------------------------------------ */
/* Check the expressions and generate the op, without compiling (tests). */
cured_status cr_custom_build(cured_type in_type, cured_type acc_type, int ninputs, const char *map_expr,
                             const char *combine_expr, const char *identity_expr, cured_custom *out);
/* The pieces the multi-field ops (custom_multi.c) share: the expression
 * checks, the type x and y have in expressions, a new op of a generated
 * source (taken over, also on failure) whose request is proto's result and
 * accumulator, and compiling it now for h's device (destroying it on failure). */
const char *cr_custom_expr_type(cured_type t);
cured_status cr_custom_new(cured_type in_type, int ninputs, const struct cr_request *proto, char *source,
                           cured_custom *out);
cured_status cr_custom_compile(cured_handle h, cured_custom op);
/* cr_kernel_load for a user op's unit outside custom.c (a communicator's), within the process's compile
 * budget (CURED_CUSTOM_PROCESS_COMPILE_SECONDS, cured.h): refused with CURED_ERROR_COMPILE_BUDGET naming call
 * once spent, else charged with the load's time. */
cured_status cr_custom_load_budgeted(cured_handle h, const struct cr_unit *u, struct cr_kernel *k, const char *call);
/* Check the fields' expressions and generate a multi-field op without compiling (tests). */
cured_status cr_custom_build_multi(cured_type in_type, int ninputs, const cured_custom_field *fields, int nfields,
                                   cured_type out_type, const char *const *finalize, int nresults,
                                   cured_custom *out);
/* The op's request and compile unit. */
const struct cr_request *cr_custom_request(cured_custom op);
const struct cr_unit *cr_custom_unit(cured_custom op);

/* ---- stats.c --------------------------------------------------------------- */
/* A synchronous call's rule for the operators with no value for n <= ddof:
 * CURED_ERROR_TOO_FEW_ELEMENTS (recorded) for them, else CURED_SUCCESS. */
cured_status cr_stats_check_sync(const struct cr_request *r, size_t n);
/* ddof's rule (finite, >= 0) and that op is a statistic, for call's message (an unknown op: INVALID_ENUM);
 * other (or NULL) ends the message of an operator that is not a statistic (the call it takes). */
cured_status cr_stats_check_ddof(const char *call, cured_op op, double ddof, const char *other);
/* cured_reduce_stats(_async)'s checks without the handle (the planner's, for the tests): *r is the request, with
 * ddof. */
cured_status cr_stats_check_args(const char *call, cured_op op, const void *in, cured_type in_type, size_t n,
                                 double ddof, const void *out, cured_type out_type, int host_out, struct cr_request *r);

/* ---- call.c, run.c (call.h: the one internal request) ---------------------- */
/* A whole-array call's checks, which need no GPU (cr_check_op, then cr_check_array; the tests'). On success *r is
 * the request. */
cured_status cr_check_args(cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                           size_t n, const void *out, cured_type out_type, struct cr_request *r);
/* Run a planned request: the common path of every reduce call after its argument
 * checks (context, pointer checks, plan, launch; for a host result the copy back). */
struct cr_target {
    const struct cr_family *fam;
    const struct cr_request *req;
    const struct cr_unit *unit;
    const struct cr_kernel *k;
};
typedef cured_status (*cr_target_fn)(cured_handle h, const void *arg, struct cr_target *t);
cured_status cr_reduce_run(cured_handle h, const struct cr_request *r, const void *in, const void *in2, size_t n,
                           void *out, int host_out, CUstream stream, cr_target_fn target, const void *arg);
/* The same for a many-result request: a->in, a->out and a->geo set; checks
 * the input, output and (SEGMENTS) offset pointers, never a host result. */
cured_status cr_reduce_run_many(cured_handle h, struct cr_args *a, CUstream stream,
                                cr_target_fn target, const void *arg);
/* ---- axes.c --------------------------------------------------------------- */
/* The planner's checks and plan of an axis request of a built-in operator (comm_axes.c's chunks, the tests);
 * nothing touches the GPU (the handle gives device facts only). state: results are state records (state.c).
 * g->nout == 0: nothing to do; *whole: one contiguous result, for the whole-array kernels over g->len elements. */
cured_status cr_axes_request(cured_handle h, cured_op op, const void *in, cured_type in_type,
                             const cured_layout *lay, uint32_t axes, const void *out, cured_type out_type,
                             const cured_layout *out_lay, int state, struct cr_request *r, struct cr_geometry *g,
                             int *whole);
/* The layout part of it, for a request whose operator (built-in or user) and types are in *r. */
cured_status cr_axes_layout(cured_handle h, const void *in, const cured_layout *lay, uint32_t axes, const void *out,
                            const cured_layout *out_lay, struct cr_request *r, struct cr_geometry *g, int *whole);
/* Uniform segments as the axis view they are ({num_segments, segment_size}, reduced along axis 1). */
cured_status cr_uniform_layout(size_t num_segments, size_t segment_size, cured_layout *lay);
/* The checks and geometry of a segmented request whose operator is in *r (g->nout == 0: nothing to do). */
cured_status cr_segments_layout(const void *in, size_t num_segments, const void *begin, const void *end,
                                cured_type offset_type, const void *out, struct cr_request *r,
                                struct cr_geometry *g);

/* A segmented call's g->limit: the elements from in that lie in mapped
 * memory and before the output (a segment reaching past it is a bad segment:
 * its empty value, reported through cured_check_stream). Enters h's context. */
cured_status cr_segment_limit(cured_handle h, const void *in, const void *out, struct cr_geometry *g);

/* The target of a built-in request (arg: the request): its loaded family, unit and kernels. */
cured_status cr_builtin_target(cured_handle h, const void *arg, struct cr_target *t);
/* Launch a plan's kernels on a stream. */
cured_status cr_launch_plan(cured_handle h, const struct cr_kernel *k, const struct cr_plan *p, CUstream s);

#endif
