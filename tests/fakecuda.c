/*
 * A stand-in for libcuda.so.1, loaded through CURED_CUDA_DRIVER_LIBRARY.
 *
 * By default it is a driver that sees no device: cuInit fails with
 * CUDA_ERROR_NO_DEVICE, cuDriverGetVersion says FAKE_VERSION, the error-name
 * calls answer (tests/test-nodevice).
 *
 * With FAKECUDA_DEVICE=1 it has one device (compute capability 9.0) whose
 * "device memory" is host memory of an arena: allocations are handed out
 * back to back, pointer attributes report their ranges, copies and memsets
 * are real, modules load (nothing runs: cuLaunchKernel counts launches and
 * refuses functions of unloaded modules or of a context since reset). The
 * primary context's id changes at cuDevicePrimaryCtxReset, its handle does
 * not, as with the real driver (tests/test-fakedev). Freed allocations at
 * the top of the arena are reused.
 *
 * Copies, memsets, stream capture and graph launches are accepted (a graph
 * does nothing), so that the tools' plumbing can run here too (cured-soak
 * with FAKECUDA_ARENA_MB=256: every result mismatches, no bad input may be
 * mishandled).
 *
 * Calls may come from several threads at once (the tables and counters
 * are under one lock).
 *
 * FAKECUDA_MISSING=cuA,cuB: cuGetProcAddress does not find those symbols;
 * FAKECUDA_FAIL=cuA,cuB: those entry points fail (CUDA_ERROR_UNKNOWN).
 * fake_* functions are for the tests (dlsym): fake_counts() counts the calls
 * a capture-safe or a refused call must not make (allocations, memsets,
 * synchronisations, launches), the primary context's retains less its
 * releases, this thread's pushed contexts, frees, module loads and unloads;
 * cuCtxPushCurrent refuses a context it did not make; fake_capture() makes a stream
 * report that it is being captured. fake_reject(prefix) makes cuModuleLoadData
 * refuse images that start with prefix (CUDA_ERROR_INVALID_IMAGE), as the
 * driver refuses a damaged cubin; fake_images() counts the images refused
 * that way and the NULL images cuModuleLoadData was handed
 * (tests/test-kcache-race).
 */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_VERSION 12345
#define EXPORT __attribute__((visibility("default")))
#define ARENA_DEFAULT_MB 160 /* FAKECUDA_ARENA_MB overrides; a handle takes ~34 MiB, twice that past 16 streams */
#define MAX_ALLOCS 512
#define MAX_MODULES 8192

static unsigned char *arena;
static size_t arena_size, arena_used;
static struct alloc {
    uintptr_t base;
    size_t size;
    int live, sized, freed;
    size_t gap;
    int kind; /* 0: cuMemAlloc; 1: a reservation (cuMemAddressReserve); 2: a chunk mapped into one (cuMemMap) */
} allocs[MAX_ALLOCS];
static int nallocs;
static struct module {
    unsigned long long gen;
    int live;
} modules[MAX_MODULES];
static int nmodules, launches, loads;
static int mem_allocs, mem_frees, unloads, memsets, syncs, retains; /* fake_counts() */
static CUstream capturing = (CUstream)(uintptr_t)-1;
static char reject_prefix[64]; /* fake_reject(): "" refuses nothing */
static int rejected_images, null_images;
/* Calls from many threads at once (test-handles): the tables and counters under one lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCKED(expr) (pthread_mutex_lock(&lock), (expr), pthread_mutex_unlock(&lock))
static unsigned long long ctx_gen = 1;
static char ctx_storage; /* the primary context's handle: its address */
static __thread int pushed;

EXPORT int fake_launches(void);
EXPORT int fake_loads(void);
EXPORT void *fake_alloc(size_t bytes, int sized, size_t gap_after);
EXPORT void fake_reset(void);
EXPORT void *fake_reserve(size_t bytes);
EXPORT int fake_map(void *at, size_t bytes);
struct fake_counts {
    int allocs, memsets, syncs, launches, retains, pushed, frees, loads, unloads;
};
EXPORT void fake_counts(struct fake_counts *c);
EXPORT void fake_capture(CUstream s);
EXPORT void fake_reject(const char *prefix);
EXPORT void fake_images(int *rejected, int *null);

void fake_counts(struct fake_counts *c)
{
    pthread_mutex_lock(&lock);
    *c = (struct fake_counts){mem_allocs, memsets, syncs, launches, retains, pushed, mem_frees, loads, unloads};
    pthread_mutex_unlock(&lock);
}
void fake_capture(CUstream s) { capturing = s; }
void fake_reject(const char *prefix)
{
    pthread_mutex_lock(&lock);
    strncpy(reject_prefix, prefix ? prefix : "", sizeof reject_prefix - 1);
    pthread_mutex_unlock(&lock);
}
void fake_images(int *rejected, int *null)
{
    pthread_mutex_lock(&lock);
    *rejected = rejected_images;
    *null = null_images;
    pthread_mutex_unlock(&lock);
}

int fake_launches(void) { return launches; }
int fake_loads(void) { return loads; }

/* bytes of arena memory, 256-byte aligned, directly after the last allocation
 * (plus gap_after unmapped bytes); sized = 0: the driver reports no range for it. */
static void *alloc_locked(size_t bytes, int sized, size_t gap_after);
void *fake_alloc(size_t bytes, int sized, size_t gap_after)
{
    pthread_mutex_lock(&lock);
    void *p = alloc_locked(bytes, sized, gap_after);
    pthread_mutex_unlock(&lock);
    return p;
}
static void *alloc_locked(size_t bytes, int sized, size_t gap_after)
{
    size_t size = (bytes + 255) & ~(size_t)255;
    if (arena == NULL) {
        const char *mb = getenv("FAKECUDA_ARENA_MB");
        arena_size = (size_t)(mb ? atol(mb) : ARENA_DEFAULT_MB) << 20;
        arena = aligned_alloc(4096, arena_size);
    }
    if (arena == NULL || nallocs == MAX_ALLOCS || size == 0 || size + gap_after > arena_size - arena_used)
        return NULL;
    struct alloc *a = &allocs[nallocs++];
    a->base = (uintptr_t)arena + arena_used;
    a->size = size;
    a->live = 1;
    a->sized = sized;
    a->freed = 0;
    a->gap = gap_after;
    a->kind = 0;
    arena_used += size + gap_after;
    return (void *)a->base;
}

/* The virtual memory management API's memory (cuMemAddressReserve + cuMemCreate + cuMemMap): a
 * reservation of bytes (arena memory, 256-byte aligned, after the last allocation) that the pointer
 * attributes report as the allocation range, mapped or not, and chunks mapped into it (fake_map),
 * which they report as the mapping (MAPPED, MAPPING_BASE_ADDR, MAPPING_SIZE). An address of the
 * reservation outside every chunk is device memory that is not mapped. */
void *fake_reserve(size_t bytes)
{
    pthread_mutex_lock(&lock);
    void *p = alloc_locked(bytes, 1, 0);
    if (p != NULL)
        allocs[nallocs - 1].kind = 1;
    pthread_mutex_unlock(&lock);
    return p;
}
int fake_map(void *at, size_t bytes)
{
    pthread_mutex_lock(&lock);
    const int ok = nallocs < MAX_ALLOCS && bytes > 0;
    if (ok)
        allocs[nallocs++] = (struct alloc){.base = (uintptr_t)at, .size = bytes, .live = 1, .sized = 1, .kind = 2};
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

void fake_reset(void)
{
    ctx_gen++; /* modules and memory of the old context are gone */
    for (int i = 0; i < nallocs; i++)
        allocs[i].live = 0;
}

static int device_mode(void)
{
    const char *e = getenv("FAKECUDA_DEVICE");
    return e != NULL && strcmp(e, "1") == 0;
}

/* The allocation or reservation holding p (kind 0 or 1), or with chunks = 1 the mapped chunk (kind 2). */
static struct alloc *find_kind(uintptr_t p, int chunks)
{
    for (int i = 0; i < nallocs; i++)
        if (allocs[i].live && (allocs[i].kind == 2) == chunks && p >= allocs[i].base &&
            p - allocs[i].base < allocs[i].size)
            return &allocs[i];
    return NULL;
}
static struct alloc *find(uintptr_t p) { return find_kind(p, 0); }

static CUresult f_init(unsigned int flags) { (void)flags; return device_mode() ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE; }
static CUresult f_driver_get_version(int *v) { *v = FAKE_VERSION; return CUDA_SUCCESS; }
static CUresult f_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : r == CUDA_ERROR_INVALID_HANDLE ? "CUDA_ERROR_INVALID_HANDLE"
                                                                                              : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}
static CUresult f_error_string(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "fake driver";
    return CUDA_SUCCESS;
}
static CUresult f_device_get_count(int *n) { *n = 1; return CUDA_SUCCESS; }
static CUresult f_device_get(CUdevice *d, int i) { *d = 0; return i == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
static CUresult f_device_get_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 4
         : a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9
         : a == CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR ? 32
                                                                  : 0;
    return CUDA_SUCCESS;
}
static CUresult f_retain(CUcontext *c, CUdevice d) { (void)d; LOCKED(retains++); *c = (CUcontext)(void *)&ctx_storage; return CUDA_SUCCESS; }
static CUresult f_release(CUdevice d) { (void)d; LOCKED(retains--); return CUDA_SUCCESS; }
static CUresult f_reset(CUdevice d) { (void)d; fake_reset(); return CUDA_SUCCESS; }
static CUresult f_get_current(CUcontext *c) { *c = pushed ? (CUcontext)(void *)&ctx_storage : NULL; return CUDA_SUCCESS; }
static CUresult f_push(CUcontext c)
{
    if (c != (CUcontext)(void *)&ctx_storage)
        return CUDA_ERROR_INVALID_CONTEXT; /* a context this driver never made */
    pushed++;
    return CUDA_SUCCESS;
}
static CUresult f_pop(CUcontext *c) { if (c) *c = (CUcontext)(void *)&ctx_storage; pushed -= pushed > 0; return CUDA_SUCCESS; }
static CUresult f_get_device(CUdevice *d) { *d = 0; return CUDA_SUCCESS; }
static CUresult f_get_id(CUcontext c, unsigned long long *id) { (void)c; *id = ctx_gen; return CUDA_SUCCESS; }
static CUresult f_mem_alloc(CUdeviceptr *p, size_t n)
{
    void *a = fake_alloc(n, 1, 0);
    LOCKED(mem_allocs++);
    *p = (CUdeviceptr)(uintptr_t)a;
    return a ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult f_mem_free(CUdeviceptr p)
{
    pthread_mutex_lock(&lock);
    struct alloc *a = find((uintptr_t)p);
    const int ok = a != NULL && a->base == (uintptr_t)p;
    if (ok)
        a->live = 0, a->freed = 1, mem_frees++;
    /* Freed allocations at the top go back to the arena, so that handles made
     * and destroyed in a loop fit (a context reset's dead ones stay). */
    while (ok && nallocs > 0 && allocs[nallocs - 1].freed) {
        nallocs--;
        arena_used -= allocs[nallocs].size + allocs[nallocs].gap;
    }
    pthread_mutex_unlock(&lock);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
static CUresult f_memset_d32_async(CUdeviceptr p, unsigned int v, size_t n, CUstream s)
{
    (void)s;
    LOCKED(memsets++);
    for (size_t i = 0; i < n; i++)
        memcpy((unsigned char *)(uintptr_t)p + 4 * i, &v, 4);
    return CUDA_SUCCESS;
}
static CUresult f_htod(CUdeviceptr dst, const void *src, size_t n)
{
    memcpy((void *)(uintptr_t)dst, src, n);
    return CUDA_SUCCESS;
}
static CUresult f_dtoh(void *dst, CUdeviceptr src, size_t n)
{
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}
static CUresult f_memset_d8_async(CUdeviceptr p, unsigned char v, size_t n, CUstream s)
{
    (void)s;
    LOCKED(memsets++);
    memset((void *)(uintptr_t)p, v, n);
    return CUDA_SUCCESS;
}
static CUresult f_begin_capture(CUstream s, CUstreamCaptureMode m) { (void)s, (void)m; return CUDA_SUCCESS; }
static CUresult f_end_capture(CUstream s, CUgraph *g) { (void)s; *g = (CUgraph)(uintptr_t)0x6; return CUDA_SUCCESS; }
static CUresult f_instantiate(CUgraphExec *e, CUgraph g, unsigned long long f)
{
    (void)g, (void)f;
    *e = (CUgraphExec)(uintptr_t)0x7;
    return CUDA_SUCCESS;
}
static CUresult f_graph_launch(CUgraphExec e, CUstream s) { (void)e, (void)s; return CUDA_SUCCESS; }
static CUresult f_graph_void(void *g) { (void)g; return CUDA_SUCCESS; }
static CUresult f_void(void) { LOCKED(syncs++); return CUDA_SUCCESS; } /* cuCtxSynchronize */
static CUresult f_dtoh_async(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    (void)s;
    memcpy(dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}
static CUresult f_pointer_attributes(unsigned int n, CUpointer_attribute *attrs, void **data, CUdeviceptr p)
{
    pthread_mutex_lock(&lock);
    struct alloc *a = find((uintptr_t)p), *chunk = find_kind((uintptr_t)p, 1);
    for (unsigned int i = 0; i < n; i++) {
        if (attrs[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
            *(unsigned int *)data[i] = a ? CU_MEMORYTYPE_DEVICE : 0;
        else if (attrs[i] == CU_POINTER_ATTRIBUTE_MAPPED && a)
            *(int *)data[i] = a->kind == 0 || chunk != NULL;
        else if (attrs[i] == CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR && chunk)
            *(CUdeviceptr *)data[i] = (CUdeviceptr)chunk->base;
        else if (attrs[i] == CU_POINTER_ATTRIBUTE_MAPPING_SIZE && chunk)
            *(size_t *)data[i] = chunk->size;
        else if (attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR && a && a->sized)
            *(CUdeviceptr *)data[i] = (CUdeviceptr)a->base;
        else if (attrs[i] == CU_POINTER_ATTRIBUTE_RANGE_SIZE && a && a->sized)
            *(size_t *)data[i] = a->size;
    }
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}
static CUresult f_module_load(CUmodule *m, const void *image)
{
    pthread_mutex_lock(&lock);
    const size_t plen = strlen(reject_prefix);
    const int refused = image != NULL && plen > 0 && memcmp(image, reject_prefix, plen) == 0;
    null_images += image == NULL;
    rejected_images += refused;
    const int ok = image != NULL && !refused && nmodules < MAX_MODULES;
    if (ok) {
        modules[nmodules].gen = ctx_gen;
        modules[nmodules].live = 1;
        *m = (CUmodule)(void *)&modules[nmodules++];
        loads++;
    }
    pthread_mutex_unlock(&lock);
    return ok ? CUDA_SUCCESS : refused ? CUDA_ERROR_INVALID_IMAGE : CUDA_ERROR_INVALID_VALUE;
}
static struct module *live_module(const void *m)
{
    struct module *mod = (struct module *)(uintptr_t)m;
    if (mod < modules || mod >= modules + nmodules || !mod->live || mod->gen != ctx_gen)
        return NULL;
    return mod;
}
static CUresult f_module_unload(CUmodule m)
{
    pthread_mutex_lock(&lock);
    struct module *mod = live_module(m);
    if (mod != NULL)
        mod->live = 0, unloads++;
    pthread_mutex_unlock(&lock);
    return mod ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
static CUresult f_module_get_function(CUfunction *f, CUmodule m, const char *name)
{
    (void)name;
    *f = (CUfunction)(void *)m; /* a function names its module */
    pthread_mutex_lock(&lock);
    const int live = live_module(m) != NULL;
    pthread_mutex_unlock(&lock);
    return live ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
static CUresult f_occupancy(int *n, CUfunction f, int block, size_t smem)
{
    (void)f, (void)block, (void)smem;
    *n = 4;
    return CUDA_SUCCESS;
}
static CUresult f_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                         unsigned int by, unsigned int bz, unsigned int smem, CUstream s, void **params, void **extra)
{
    (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)smem, (void)s, (void)params, (void)extra;
    pthread_mutex_lock(&lock);
    const int live = live_module(f) != NULL;
    launches += live;
    pthread_mutex_unlock(&lock);
    return live ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
static CUresult f_stream_create(CUstream *s, unsigned int flags) { (void)flags; *s = (CUstream)(uintptr_t)0x5; return CUDA_SUCCESS; }
static CUresult f_stream_void(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult f_stream_sync(CUstream s) { (void)s; LOCKED(syncs++); return CUDA_SUCCESS; }
static CUresult f_is_capturing(CUstream s, CUstreamCaptureStatus *c)
{
    *c = s == capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

/* Any other entry point: never called by cured (NO_DEVICE mode: nothing is reachable after cuInit). */
static CUresult f_not_initialized(void) { return CUDA_ERROR_NOT_INITIALIZED; }
/* An entry point of FAKECUDA_FAIL: it fails, whatever it is asked. */
static CUresult f_fail(void) { return CUDA_ERROR_UNKNOWN; }

typedef void (*any_fn)(void); /* cured casts each back to its own type */
static const struct {
    const char *symbol;
    any_fn fn;
} table[] = {
    {"cuInit", (any_fn)f_init},
    {"cuDriverGetVersion", (any_fn)f_driver_get_version},
    {"cuGetErrorName", (any_fn)f_error_name},
    {"cuGetErrorString", (any_fn)f_error_string},
    {"cuDeviceGetCount", (any_fn)f_device_get_count},
    {"cuDeviceGet", (any_fn)f_device_get},
    {"cuDeviceGetAttribute", (any_fn)f_device_get_attribute},
    {"cuDevicePrimaryCtxRetain", (any_fn)f_retain},
    {"cuDevicePrimaryCtxRelease", (any_fn)f_release},
    {"cuDevicePrimaryCtxReset", (any_fn)f_reset},
    {"cuCtxGetCurrent", (any_fn)f_get_current},
    {"cuCtxPushCurrent", (any_fn)f_push},
    {"cuCtxPopCurrent", (any_fn)f_pop},
    {"cuCtxGetDevice", (any_fn)f_get_device},
    {"cuCtxGetId", (any_fn)f_get_id},
    {"cuMemAlloc", (any_fn)f_mem_alloc},
    {"cuMemFree", (any_fn)f_mem_free},
    {"cuMemsetD32Async", (any_fn)f_memset_d32_async},
    {"cuMemcpyDtoHAsync", (any_fn)f_dtoh_async},
    {"cuPointerGetAttributes", (any_fn)f_pointer_attributes},
    {"cuModuleLoadData", (any_fn)f_module_load},
    {"cuModuleUnload", (any_fn)f_module_unload},
    {"cuModuleGetFunction", (any_fn)f_module_get_function},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", (any_fn)f_occupancy},
    {"cuLaunchKernel", (any_fn)f_launch},
    {"cuStreamCreate", (any_fn)f_stream_create},
    {"cuStreamDestroy", (any_fn)f_stream_void},
    {"cuStreamSynchronize", (any_fn)f_stream_sync},
    {"cuStreamIsCapturing", (any_fn)f_is_capturing},
    {"cuMemcpyHtoD", (any_fn)f_htod},
    {"cuMemcpyDtoH", (any_fn)f_dtoh},
    {"cuMemsetD8Async", (any_fn)f_memset_d8_async},
    {"cuStreamBeginCapture", (any_fn)f_begin_capture},
    {"cuStreamEndCapture", (any_fn)f_end_capture},
    {"cuGraphInstantiateWithFlags", (any_fn)f_instantiate},
    {"cuGraphLaunch", (any_fn)f_graph_launch},
    {"cuGraphExecDestroy", (any_fn)f_graph_void},
    {"cuGraphDestroy", (any_fn)f_graph_void},
    {"cuCtxSynchronize", (any_fn)f_void},
};

/* Is symbol in the comma-separated list of the variable env? */
static int listed(const char *env, const char *symbol)
{
    const char *list = getenv(env);
    size_t n = strlen(symbol);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, symbol, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *status);

CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    (void)version, (void)flags;
    any_fn f = (any_fn)f_not_initialized;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(symbol, table[i].symbol) == 0)
            f = table[i].fn;
    if (listed("FAKECUDA_FAIL", symbol))
        f = (any_fn)f_fail;
    if (listed("FAKECUDA_MISSING", symbol)) {
        *fn = NULL;
        if (status)
            *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    memcpy(fn, &f, sizeof f);
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
