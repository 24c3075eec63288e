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
#include "env.h"

#define CR_API CURED_EXPORT

/* ---- error.c: thread-local detailed message ---------------------------- */
/* Record a message for cured_last_error() and return status (for `return cr_fail(...)`). */
cured_status cr_fail(cured_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
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

/* ---- specs.c: the built-in kernel specializations ----------------------- */
#define CR_MAX_KERNELS 2 /* name expressions in one program (two-pass: 2) */
#define CR_BLOCK 256
#define CR_UNROLL 4      /* the AUTO kernels' usual loads in flight per thread */
#define CR_UNROLL_ARG16 8 /* ARG operators over 16-bit floats (bench/NOTES.md) */
#define CR_MAX_ACC 16    /* largest accumulator (Arg<long long>, Pair<double>): bytes per partial */
#define CR_MAX_RESULT 16 /* largest result (cured_arg_result) */

enum cr_kind {
    CR_KIND_FAST,     /* reduce_fast: one launch, ticket finish */
    CR_KIND_FAST2,    /* reduce_fast2: two inputs (dot) */
    CR_KIND_TWO_PASS, /* pass 1 per-block partials, pass 2 one block */
    CR_KIND_TICKET,   /* Handbook single pass with ticket */
    CR_KIND_ATOMIC,   /* one atomicAdd per block */
    CR_KIND_LISTING   /* Listing 12-4 */
};

struct cr_program {
    const char *file;                       /* kernels-src file, e.g. "fast.cu" */
    const char *source;                     /* its text; NULL = the embedded file */
    int needs_toolkit;                      /* includes cooperative_groups.h */
    int nkernels;
    char kernels[CR_MAX_KERNELS][256];      /* NVRTC name expressions */
    char label[160];                        /* for cured_kernel_name() */
    /* What the launcher needs. */
    int kind;
    int unroll;                             /* 16-byte loads in flight per thread (AUTO kernels) */
    int acc_size, result_size;
    cured_op op;
    cured_algorithm algo;
    cured_type in, out;
};
/* Index of the program for (op, algo, in, out); -1 with a cr_fail message
 * (TYPE_MISMATCH or NOT_SUPPORTED) if that combination is not offered. */
int cr_spec_index(cured_op op, cured_algorithm algo, cured_type in, cured_type out, cured_status *why);
const struct cr_program *cr_spec(size_t index);
size_t cr_spec_count(void);
size_t cr_type_size(cured_type t);
const char *cr_type_name(cured_type t);   /* "int32", ... */
const char *cr_type_cxx(cured_type t);    /* "int", "half_t", ... */
int cr_type_is_float(cured_type t);       /* float16, bfloat16, float32, float64 */

/* ---- jit.c: one NVRTC compilation --------------------------------------- */
struct cr_image {
    void *data;   /* cubin, or NUL-terminated PTX */
    size_t size;
    int ptx;
    int from_disk; /* read from the disk cache, not compiled in this process */
    char lowered[CR_MAX_KERNELS][256]; /* mangled kernel names */
};

/* The NVRTC options for a program and target (the same list is hashed into cache keys). */
#define CR_MAX_OPTIONS 6
struct cr_options {
    const char *argv[CR_MAX_OPTIONS];
    int argc;
    char arch[48], inc[2][1100];
};
cured_status cr_jit_options(const struct cr_program *p, int arch, int ptx, struct cr_options *o);
/* Names of the headers served to NVRTC from the embedded sources. */
extern const char *const cr_header_names[];
extern const size_t cr_nheaders;
cured_status cr_jit_compile(const struct cr_program *p, int arch, int ptx, struct cr_image *out);
void cr_image_free(struct cr_image *img);

/* ---- kcache.c: process-wide cache of compiled images --------------------- */
/*
 * The image for (program, arch, ptx), compiling it at most once per process
 * however many threads ask at once; NVRTC runs without the cache lock held.
 * The image holds a reference until cr_kcache_put (built-in kernels' images
 * stay cached after it; a user op's or a rejected one is freed).
 */
cured_status cr_kcache_get(const struct cr_program *p, int arch, int ptx,
                           const struct cr_image **out);
/* Return the reference of a get (NULL: nothing). */
void cr_kcache_put(const struct cr_image *img);
/* Entries held in memory, listed or not (tests). */
size_t cr_kcache_entries(void);
/* Counters (also behind cured_get_stats). */
void cr_kcache_stats(cured_stats *s);
/* The driver refused an image: forget it in memory and on disk, so the next
 * get recompiles (the caller still puts its reference). */
void cr_kcache_reject(const struct cr_program *p, int arch, int ptx, const struct cr_image *img);

/* ---- handle.c ------------------------------------------------------------ */
/* Per-stream workspace: ticket, accumulator, host-result staging, partials. */
#define CR_WS_TICKET 0
#define CR_WS_ACCUM 16
#define CR_WS_RESULT 32
#define CR_WS_PARTIALS 64 /* CR_MAX_ACC bytes per resident block */
#define CR_SLOTS_PER_CHUNK 16

struct cr_slot {
    CUstream stream;
    CUdeviceptr base;
};

struct cr_kernel {            /* one program loaded in the handle's context */
    CUmodule module;
    CUfunction fn[CR_MAX_KERNELS];
    int blocks_per_sm;        /* occupancy of fn[0] at CR_BLOCK threads */
};

struct cured_handle_st {
    const struct cr_driver *d;
    CUcontext ctx;
    unsigned long long ctx_id; /* cuCtxGetId: unlike ctx, never reused by another context */
    CUdevice dev;
    int own_primary;          /* retained the primary context */
    int sms, cc, max_blocks_per_sm;
    size_t partials_capacity; /* elements of 8 bytes */
    size_t slot_bytes;

    pthread_mutex_t lock;     /* slots, kernel loading, arch */
    int arch, ptx, arch_status; /* arch_status: -1 = not chosen yet */
    struct cr_slot *slots;
    size_t nslots, slots_cap;
    CUdeviceptr *chunks;
    size_t nchunks;
    struct cr_kernel *_Atomic *kernels; /* [cr_spec_count()], published once loaded */
};

/* Make h's context current for the duration of a call. */
cured_status cr_enter(cured_handle h, CUcontext *saved);
/* CURED_ERROR_NOT_DEVICE_POINTER unless the device can read p (devptr.c);
 * CURED_ERROR_OUT_OF_RANGE when [p, p + bytes) runs past mapped memory
 * (memory the driver cannot size passes). Caller holds the context. */
cured_status cr_check_device_range(cured_handle h, const void *p, size_t bytes, const char *what);
cured_status cr_check_device_pointer(cured_handle h, const void *p, const char *what);
/* The host-side checks of cured_dot's y (NULL, alignment), named as y; after cr_check_args of x. */
cured_status cr_check_second_input(const void *y, cured_type type, size_t n);
void cr_leave(cured_handle h, CUcontext saved);
/* The workspace slot of a stream (assigning one on first use). */
cured_status cr_slot_for(cured_handle h, CUstream s, CUdeviceptr *base);
/* Compile (through the caches) and load a program into h's context, which is current. */
cured_status cr_kernel_load(cured_handle h, const struct cr_program *p, struct cr_kernel *k);
/* The loaded kernels of a spec (compiling/loading on first use). */
cured_status cr_kernel_get(cured_handle h, int spec, const struct cr_kernel **out);
cured_status cr_handle_arch(cured_handle h, int *arch, int *ptx);

/* ---- custom.c: user-defined ops ------------------------------------------ */
/* Check the expressions and generate the program, without compiling (tests). */
cured_status cr_custom_build(cured_type in_type, cured_type acc_type, int ninputs, const char *map_expr,
                             const char *combine_expr, const char *identity_expr, cured_custom *out);
const struct cr_program *cr_custom_program(cured_custom op);

/* ---- reduce.c ------------------------------------------------------------ */
/* Argument checks that need no GPU; exposed for the tests. */
cured_status cr_check_args(cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                           size_t n, const void *out, cured_type out_type, int *spec);
/* Where cr_reduce_program() gets the loaded kernels of its program. */
typedef cured_status (*cr_kernels_fn)(cured_handle h, void *arg, const struct cr_kernel **k);
cured_status cr_reduce_program(cured_handle h, const struct cr_program *p, const void *in, const void *in2,
                               size_t n, void *out, int host_out, CUstream stream, cr_kernels_fn kernels,
                               void *arg);
/* Launch a built-in or custom program; the handle's context is current.
 * in2 is the second input of two-input kernels (else unused). */
cured_status cr_launch(cured_handle h, const struct cr_program *p, const struct cr_kernel *k,
                       const void *in, const void *in2, size_t n, CUdeviceptr out, CUstream s);

#endif
