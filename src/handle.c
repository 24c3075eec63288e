/*
 * Handles: a context, device facts, per-stream workspaces and the kernels
 * loaded into the context.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static cured_status handle_free(cured_handle h);

cured_status cr_enter(cured_handle h, CUcontext *saved)
{
    CUcontext cur = NULL;
    CUresult r = h->d->CtxGetCurrent(&cur);
    if (r != CUDA_SUCCESS)
        return cr_fail_cuda(r, "cuCtxGetCurrent");
    *saved = cur;
    if (cur == h->ctx)
        return CURED_SUCCESS;
    r = h->d->CtxPushCurrent(h->ctx);
    return r == CUDA_SUCCESS ? CURED_SUCCESS : cr_fail_cuda(r, "cuCtxPushCurrent");
}

void cr_leave(cured_handle h, CUcontext saved)
{
    if (saved != h->ctx) {
        CUcontext popped;
        h->d->CtxPopCurrent(&popped);
    }
}

/* A further chunk of CR_SLOTS_PER_CHUNK zeroed workspaces. Caller holds h->lock and the context. */
static cured_status add_chunk(cured_handle h)
{
    size_t cap = h->slots_cap + CR_SLOTS_PER_CHUNK;
    struct cr_slot *slots = realloc(h->slots, cap * sizeof *slots);
    CUdeviceptr *chunks = realloc(h->chunks, (h->nchunks + 1) * sizeof *chunks);
    if (slots)
        h->slots = slots;
    if (chunks)
        h->chunks = chunks;
    if (!slots || !chunks)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory for workspace bookkeeping");
    CUdeviceptr base;
    size_t bytes = h->slot_bytes * CR_SLOTS_PER_CHUNK;
    CUresult r = h->d->MemAlloc(&base, bytes);
    if (r != CUDA_SUCCESS)
        return cr_fail_cuda(r, "cuMemAlloc of the per-stream workspace");
    /* Tickets and accumulators start at zero; kernels leave them at zero.
     * The memset runs on a private non-blocking stream and is waited for: a
     * cuMemsetD8 on the legacy stream is not ordered before a non-blocking
     * stream's first kernel, which would see a stale ticket (racecheck);
     * one on the caller's stream would only be recorded when a stream's
     * first call is captured. */
    CUstream zero = NULL;
    r = h->d->StreamCreate(&zero, CU_STREAM_NON_BLOCKING);
    if (r == CUDA_SUCCESS) {
        r = h->d->MemsetD32Async(base, 0, bytes / 4, zero);
        if (r == CUDA_SUCCESS)
            r = h->d->StreamSynchronize(zero);
        h->d->StreamDestroy(zero);
    }
    if (r != CUDA_SUCCESS) {
        h->d->MemFree(base);
        return cr_fail_cuda(r, "zeroing the per-stream workspace");
    }
    h->chunks[h->nchunks++] = base;
    for (size_t i = 0; i < CR_SLOTS_PER_CHUNK; i++) {
        h->slots[h->slots_cap + i].stream = NULL;
        h->slots[h->slots_cap + i].base = base + i * h->slot_bytes;
    }
    h->slots_cap = cap;
    return CURED_SUCCESS;
}

/* The per-stream workspace of s. The per-thread default stream is a
 * different stream in each thread: its workspaces are the threads'. */
/* The index of s's slot, or h->nslots if it has none. Caller holds h->lock. */
static size_t slot_index(cured_handle h, CUstream s)
{
    const int per_thread = s == CU_STREAM_PER_THREAD;
    const pthread_t me = pthread_self();
    size_t i = 0;
    while (i < h->nslots && !(h->slots[i].stream == s && (!per_thread || pthread_equal(h->slots[i].owner, me))))
        i++;
    return i;
}

int cr_slot_find(cured_handle h, CUstream s, CUdeviceptr *base)
{
    pthread_mutex_lock(&h->lock);
    const size_t i = slot_index(h, s);
    const int found = i < h->nslots;
    if (found)
        *base = h->slots[i].base;
    pthread_mutex_unlock(&h->lock);
    return found;
}

cured_status cr_slot_for(cured_handle h, CUstream s, CUdeviceptr *base)
{
    const pthread_t me = pthread_self();
    pthread_mutex_lock(&h->lock);
    const size_t i = slot_index(h, s);
    if (i < h->nslots) {
        *base = h->slots[i].base;
        pthread_mutex_unlock(&h->lock);
        return CURED_SUCCESS;
    }
    cured_status st = CURED_SUCCESS;
    if (h->nslots == h->slots_cap) {
        /* Allocating is not allowed while the stream is being captured. */
        CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
        CUresult r = h->d->StreamIsCapturing(s, &cs);
        if (r != CUDA_SUCCESS)
            st = cr_fail_cuda(r, "cuStreamIsCapturing");
        else if (cs != CU_STREAM_CAPTURE_STATUS_NONE)
            st = cr_fail(CURED_ERROR_NOT_SUPPORTED,
                         "this handle already serves %zu streams; the first call on a further stream "
                         "allocates its workspace and cannot be made during graph capture: make one "
                         "call on the stream before capturing",
                         h->nslots);
        else
            st = add_chunk(h);
    }
    if (st == CURED_SUCCESS) {
        h->slots[h->nslots].stream = s;
        h->slots[h->nslots].owner = me;
        *base = h->slots[h->nslots++].base;
    }
    pthread_mutex_unlock(&h->lock);
    return st;
}

cured_status cr_handle_arch(cured_handle h, int *arch, int *ptx)
{
    pthread_mutex_lock(&h->lock);
    if (h->arch_status < 0) {
        const struct cr_nvrtc_facts *nv;
        cured_status st = cr_nvrtc_facts(&nv);
        if (st == CURED_SUCCESS)
            st = cr_select_arch(h->cc, nv->archs, nv->narchs, cr_getenv("CURED_ARCH"), &h->arch, &h->ptx);
        if (st != CURED_ERROR_NO_NVRTC) /* NVRTC may be installed later; anything else is final */
            h->arch_status = (int)st;
        if (st != CURED_SUCCESS) {
            pthread_mutex_unlock(&h->lock);
            return st;
        }
    }
    cured_status st = (cured_status)h->arch_status;
    if (st != CURED_SUCCESS)
        st = cr_fail(st, "no usable compilation target for compute capability %d.%d", h->cc / 10,
                     h->cc % 10);
    *arch = h->arch;
    *ptx = h->ptx;
    pthread_mutex_unlock(&h->lock);
    return st;
}

/* Load a compiled image into the context and find its kernels. Caller holds the context. */
static cured_status load_kernel(cured_handle h, const struct cr_unit *u, const struct cr_image *img,
                                struct cr_kernel *k)
{
    CUresult r = h->d->ModuleLoadData(&k->module, img->data);
    if (r != CUDA_SUCCESS)
        return cr_fail(r == CUDA_ERROR_OUT_OF_MEMORY ? CURED_ERROR_OUT_OF_MEMORY : CURED_ERROR_CUDA,
                       "cuModuleLoadData of kernels-src/%s (%s): %s", u->file,
                       img->ptx ? "PTX" : "cubin", cr_driver_error_text(r));
    for (int i = 0; i < u->nkernels; i++)
        if ((r = h->d->ModuleGetFunction(&k->fn[i], k->module, img->lowered[i])) != CUDA_SUCCESS) {
            h->d->ModuleUnload(k->module);
            return cr_fail_cuda(r, "cuModuleGetFunction");
        }
    for (int i = 0; i < u->nkernels; i++) {
        int *b = &k->fn_blocks_per_sm[i];
        r = h->d->OccupancyMaxActiveBlocksPerMultiprocessor(b, k->fn[i], u->block, 0);
        if (r != CUDA_SUCCESS || *b < 1)
            *b = 1;
        if (*b > h->max_blocks_per_sm)
            *b = h->max_blocks_per_sm;
    }
    k->blocks_per_sm = k->fn_blocks_per_sm[0];
    return CURED_SUCCESS;
}

cured_status cr_kernel_load(cured_handle h, const struct cr_unit *u, struct cr_kernel *k)
{
    int arch, ptx;
    cured_status st = cr_handle_arch(h, &arch, &ptx);
    for (int attempt = 0; st == CURED_SUCCESS; attempt++) {
        const struct cr_image *img;
        if ((st = cr_kcache_get(u, arch, ptx, &img)) != CURED_SUCCESS) /* no handle lock while compiling */
            return st;
        char *message = img->from_disk && attempt == 0 ? cr_error_save() : NULL;
        st = load_kernel(h, u, img, k);
        /* An image from disk that the driver refuses is a cache miss: recompile once. */
        if (st == CURED_SUCCESS || !img->from_disk || attempt > 0 || st == CURED_ERROR_OUT_OF_MEMORY) {
            free(message);
            cr_kcache_put(img);
            return st;
        }
        cr_kcache_reject(u, arch, ptx, img);
        cr_kcache_put(img);
        cr_error_restore(message); /* a miss, not this call's failure */
        st = CURED_SUCCESS;
    }
    return st;
}

/* The loaded entries are an open-addressing table of loaded_cap (a power
 * of two, at most half full) slots. Caller holds h->lock. */
static size_t slot_of(uint64_t code, size_t cap)
{
    code ^= code >> 29;
    code *= 0xbf58476d1ce4e5b9ull;
    return (size_t)(code ^ (code >> 32)) & (cap - 1);
}

static struct cr_loaded *find_loaded(cured_handle h, uint64_t code)
{
    if (h->loaded_cap == 0)
        return NULL;
    for (size_t i = slot_of(code, h->loaded_cap);; i = (i + 1) & (h->loaded_cap - 1))
        if (h->loaded[i] == NULL || h->loaded[i]->code == code)
            return h->loaded[i];
}

static void put_loaded(struct cr_loaded **table, size_t cap, struct cr_loaded *l)
{
    size_t i = slot_of(l->code, cap);
    while (table[i] != NULL)
        i = (i + 1) & (cap - 1);
    table[i] = l;
}

static cured_status add_loaded(cured_handle h, struct cr_loaded *l)
{
    if (2 * (h->nloaded + 1) > h->loaded_cap) {
        size_t cap = h->loaded_cap ? 2 * h->loaded_cap : 64;
        struct cr_loaded **grown = calloc(cap, sizeof *grown);
        if (grown == NULL)
            return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
        for (size_t i = 0; i < h->loaded_cap; i++)
            if (h->loaded[i] != NULL)
                put_loaded(grown, cap, h->loaded[i]);
        free(h->loaded);
        h->loaded = grown;
        h->loaded_cap = cap;
    }
    put_loaded(h->loaded, h->loaded_cap, l);
    h->nloaded++;
    return CURED_SUCCESS;
}

cured_status cr_loaded_get(cured_handle h, const struct cr_request *r, const struct cr_loaded **out)
{
    const uint64_t code = cr_request_code(r);
    pthread_mutex_lock(&h->lock);
    struct cr_loaded *l = find_loaded(h, code);
    pthread_mutex_unlock(&h->lock);
    if (l != NULL) {
        *out = l;
        return CURED_SUCCESS;
    }
    /* First use in this handle: build the unit and load it without the lock
     * (compiling may take a while); two threads may do so at once, and the
     * first to publish wins. */
    if ((l = calloc(1, sizeof *l)) == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    l->code = code;
    l->req = *r;
    l->fam = cr_family_for(r);
    l->fam->build(r, &l->unit);
    cured_status st = cr_kernel_load(h, &l->unit, &l->k);
    if (st != CURED_SUCCESS) {
        free(l);
        return st;
    }
    pthread_mutex_lock(&h->lock);
    struct cr_loaded *won = find_loaded(h, code);
    if (won == NULL && (st = add_loaded(h, l)) == CURED_SUCCESS)
        won = l;
    pthread_mutex_unlock(&h->lock);
    if (won != l) {
        h->d->ModuleUnload(l->k.module);
        free(l);
    }
    *out = won;
    return won ? CURED_SUCCESS : st;
}

static cured_status finish_create(cured_handle h, cured_handle *out)
{
    CUcontext saved;
    cured_status st = cr_enter(h, &saved);
    if (st != CURED_SUCCESS) {
        handle_free(h);
        return st == CURED_ERROR_CUDA ? cr_fail(CURED_ERROR_INVALID_DEVICE, "the context cannot be made current: %s",
                                                cured_last_error())
                                      : st;
    }
    const struct cr_driver *d = h->d;
    int major = 0, minor = 0;
    CUresult r;
    if ((r = d->CtxGetDevice(&h->dev)) != CUDA_SUCCESS || (r = d->CtxGetId(h->ctx, &h->ctx_id)) != CUDA_SUCCESS ||
        (r = d->DeviceGetAttribute(&h->facts.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, h->dev)) ||
        (r = d->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, h->dev)) ||
        (r = d->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, h->dev)) ||
        (r = d->DeviceGetAttribute(&h->max_blocks_per_sm,
                                   CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, h->dev))) {
        st = r == CUDA_ERROR_INVALID_CONTEXT || r == CUDA_ERROR_CONTEXT_IS_DESTROYED
                 ? cr_fail(CURED_ERROR_INVALID_DEVICE, "the context is not valid: %s",
                           cr_driver_error_text(r))
                 : cr_fail_cuda(r, "reading device attributes");
    } else {
        h->cc = major * 10 + minor;
        if (h->max_blocks_per_sm < 1)
            h->max_blocks_per_sm = 1;
        /* Room for one partial per resident block, for any kernel. */
        h->facts.partials_capacity = (size_t)h->facts.sms * (size_t)h->max_blocks_per_sm;
        h->slot_bytes = (CR_WS_PARTIALS + cr_partials_area(&h->facts) + 255) &
                        ~(size_t)255;
        pthread_mutex_lock(&h->lock);
        st = add_chunk(h);
        pthread_mutex_unlock(&h->lock);
    }
    cr_leave(h, saved);
    if (st != CURED_SUCCESS) {
        handle_free(h);
        return st;
    }
    *out = h;
    return CURED_SUCCESS;
}

static cured_status new_handle(cured_handle *out, cured_handle *h)
{
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the handle output pointer is NULL");
    *out = NULL;
    const struct cr_driver *d;
    cured_status st = cr_driver(&d);
    if (st != CURED_SUCCESS)
        return st;
    *h = calloc(1, sizeof **h);
    if (*h == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory for a handle");
    (*h)->d = d;
    (*h)->arch_status = -1;
    pthread_mutex_init(&(*h)->lock, NULL);
    return CURED_SUCCESS;
}

CR_API cured_status cured_create(int device, cured_handle *out)
{
    cured_handle h;
    cured_status st = new_handle(out, &h);
    if (st != CURED_SUCCESS)
        return st;
    int count = 0;
    CUresult r = h->d->DeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count == 0) {
        handle_free(h);
        return r != CUDA_SUCCESS ? cr_fail_cuda(r, "cuDeviceGetCount")
                                 : cr_fail(CURED_ERROR_NO_DEVICE, "the CUDA driver reports no device");
    }
    if (device < 0 || device >= count) {
        handle_free(h);
        return cr_fail(CURED_ERROR_INVALID_DEVICE, "device ordinal %d is out of range (%d device%s)",
                       device, count, count == 1 ? "" : "s");
    }
    if ((r = h->d->DeviceGet(&h->dev, device)) != CUDA_SUCCESS ||
        (r = h->d->DevicePrimaryCtxRetain(&h->ctx, h->dev)) != CUDA_SUCCESS) {
        handle_free(h);
        return cr_fail_cuda(r, "retaining the device's primary context");
    }
    h->own_primary = 1;
    return finish_create(h, out);
}

CR_API cured_status cured_create_for_context(struct CUctx_st *ctx, cured_handle *out)
{
    cured_handle h;
    cured_status st = new_handle(out, &h);
    if (st != CURED_SUCCESS)
        return st;
    if (ctx == NULL) {
        handle_free(h);
        return cr_fail(CURED_ERROR_NULL_POINTER, "the context is NULL");
    }
    h->ctx = ctx;
    return finish_create(h, out);
}

/* Free a handle and what it holds (cured_destroy, and cured_create's failures). */
static cured_status handle_free(cured_handle h)
{
    cured_status st = CURED_SUCCESS;
    CUcontext saved = NULL;
    int entered = h->ctx != NULL && cr_enter(h, &saved) == CURED_SUCCESS;
    if (entered) {
        for (size_t i = 0; i < h->loaded_cap; i++)
            if (h->loaded[i] != NULL && h->d->ModuleUnload(h->loaded[i]->k.module) != CUDA_SUCCESS)
                st = cr_fail(CURED_ERROR_CUDA, "cuModuleUnload failed while destroying a handle");
        for (size_t i = 0; i < h->nchunks; i++)
            if (h->d->MemFree(h->chunks[i]) != CUDA_SUCCESS)
                st = cr_fail(CURED_ERROR_CUDA, "cuMemFree failed while destroying a handle");
        cr_leave(h, saved);
    }
    for (size_t i = 0; i < h->loaded_cap; i++)
        free(h->loaded[i]);
    if (h->own_primary)
        h->d->DevicePrimaryCtxRelease(h->dev);
    pthread_mutex_destroy(&h->lock);
    free(h->loaded);
    free(h->slots);
    free(h->chunks);
    free(h);
    return st;
}

CR_API cured_status cured_destroy(cured_handle h)
{
    return h == NULL ? CURED_SUCCESS : handle_free(h);
}

CR_API cured_status cured_get_arch(cured_handle h, int *sm, int *is_ptx)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_get_arch: the handle is NULL");
    int arch, ptx;
    cured_status st = cr_handle_arch(h, &arch, &ptx);
    if (st == CURED_SUCCESS) {
        if (sm)
            *sm = arch;
        if (is_ptx)
            *is_ptx = ptx;
    }
    return st;
}
