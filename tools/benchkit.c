/*
 * The device, buffer rotation and event timing that `cured bench sweep` and
 * `cured bench ops` share (see benchkit.h).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchkit.h"
#include "tool.h"

#define SENTINEL 0xA5A5A5A5u /* in the result slots before a row, so that a silent call fails */

static double mib(size_t bytes) { return bytes / 1048576.0; }

static int no_gpu(struct bk_gpu *g, const char *why)
{
    fprintf(stderr, "%s: no CUDA GPU here: %s\n%s: nothing was measured\n", g->prog, why, g->prog);
    return 1;
}

#define CU_OPEN(call)                                                                           \
    do {                                                                                        \
        CUresult e_ = g->d->call;                                                               \
        if (e_ != CUDA_SUCCESS) {                                                               \
            fprintf(stderr, "%s: cu%s: %s\n", g->prog, #call, cr_driver_error_text(e_));        \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

int bk_open(struct bk_gpu *g, const char *prog, int device)
{
    memset(g, 0, sizeof *g);
    g->prog = prog;
    g->device = device;
    const char *why = NULL;
    int count = 0;
    if ((g->d = cr_driver_all_load(&why, NULL)) == NULL)
        return no_gpu(g, why);
    CUresult e = g->d->DeviceGetCount(&count);
    if (e != CUDA_SUCCESS || count == 0)
        return no_gpu(g, e != CUDA_SUCCESS ? cr_driver_error_text(e) : "the driver reports no device");
    if (device >= count) {
        fprintf(stderr, "%s: there is no device %d: the driver reports %d\n", prog, device, count);
        return 1;
    }
    cured_status st = cured_create(device, &g->h);
    if (st == CURED_ERROR_NO_DRIVER || st == CURED_ERROR_NO_DEVICE) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", cured_last_error());
        return no_gpu(g, msg);
    }
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "%s: cured_create(%d): %s: %s\n", prog, device, cured_status_string(st),
                cured_last_error());
        return 1;
    }
    CU_OPEN(DeviceGet(&g->dev, device));
    CU_OPEN(DevicePrimaryCtxRetain(&g->ctx, g->dev));
    CU_OPEN(CtxPushCurrent(g->ctx));
    g->pushed = 1;
    CU_OPEN(DeviceGetName(g->name, sizeof g->name, g->dev));
    CU_OPEN(DeviceGetAttribute(&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g->dev));
    CU_OPEN(DeviceGetAttribute(&g->l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, g->dev));
    CU_OPEN(DeviceGetAttribute(&g->ccmaj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g->dev));
    CU_OPEN(DeviceGetAttribute(&g->ccmin, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g->dev));
    CU_OPEN(StreamCreate(&g->stream, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < 2 * BK_BATCH; i++)
        CU_OPEN(EventCreate(&g->ev[i], CU_EVENT_DEFAULT));
#ifdef CURED_HAVE_CUB_COMPARATOR
    /* Storage for small sums now; cmp_reserve() grows it for each row. */
    if (cmp_prepare(device, 1, &g->cmp) != 0)
        snprintf(g->cmp_error, sizeof g->cmp_error, "%s", cmp_last_error());
#endif
    CU_OPEN(MemGetInfo(&g->free_mem, &g->total_mem));
    return 0;
}

void bk_close(struct bk_gpu *g)
{
    CUresult e;
    cured_status st;
    if (g->d == NULL)
        return;
    if (g->stream != NULL && (e = g->d->StreamSynchronize(g->stream)) != CUDA_SUCCESS)
        fprintf(stderr, "%s: cuStreamSynchronize: %s\n", g->prog, cr_driver_error_text(e));
#ifdef CURED_HAVE_CUB_COMPARATOR
    cmp_release(g->cmp);
    g->cmp = NULL;
#endif
    if ((st = cured_destroy(g->h)) != CURED_SUCCESS)
        fprintf(stderr, "%s: cured_destroy: %s\n", g->prog, cured_status_string(st));
    g->h = NULL;
    for (int i = 0; i < 2 * BK_BATCH; i++)
        if (g->ev[i] != NULL)
            g->d->EventDestroy(g->ev[i]);
    if (g->stream != NULL)
        g->d->StreamDestroy(g->stream);
    if (g->pushed)
        g->d->CtxPopCurrent(&g->ctx);
    if (g->ctx != NULL)
        g->d->DevicePrimaryCtxRelease(g->dev);
    g->d = NULL;
}

void bk_print_header(const struct bk_gpu *g)
{
    int drv = 0, nv_major = 0, nv_minor = 0, sm = 0, is_ptx = 0;
    printf("device %d: %s, compute capability %d.%d, %d SMs, L2 %.1f MiB, memory %.1f GiB "
           "(%.1f free)\n", g->device, g->name, g->ccmaj, g->ccmin, g->sms, mib((size_t)g->l2),
           mib(g->total_mem) / 1024, mib(g->free_mem) / 1024);
    if (g->d->DriverGetVersion(&drv) == CUDA_SUCCESS)
        printf("CUDA driver %d.%d; ", drv / 1000, drv % 1000 / 10);
    if (cured_nvrtc_version(&nv_major, &nv_minor) == CURED_SUCCESS)
        printf("NVRTC %d.%d; ", nv_major, nv_minor);
    else
        printf("NVRTC unavailable (%s); ", cured_last_error());
    cured_status st = cured_get_arch(g->h, &sm, &is_ptx);
    if (st == CURED_SUCCESS)
        printf("cured %s compiles for sm_%d (%s)\n", cured_version_string(), sm,
               is_ptx ? "PTX for the driver to JIT" : "cubin");
    else
        printf("cured cannot compile: %s: %s\n", cured_status_string(st), cured_last_error());
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (g->cmp != NULL)
        printf("comparator: %s\n", cmp_cub_version());
    else
        printf("comparator: %s; not usable: %s\n", cmp_cub_version(), g->cmp_error);
#else
    printf("comparator: not built (no nvcc at configure time): no CUB, Thrust or read-ceiling "
           "columns\n");
#endif
}

int bk_buffer_count(size_t bytes, size_t l2, size_t free_mem, int max_count)
{
    size_t stride = (bytes + 255) & ~(size_t)255;
    size_t nb = ((size_t)4 * l2 + bytes - 1) / (bytes > 0 ? bytes : 1);
    size_t cap = (size_t)(0.4 * (double)free_mem) / stride;
    nb = nb < 1 ? 1 : nb > (size_t)max_count ? (size_t)max_count : nb;
    nb = nb > cap ? cap : nb;
    if (nb == 0) /* one buffer over 40% is still worth a try */
        return stride + ((size_t)64 << 20) > free_mem ? 0 : 1;
    return (int)nb;
}

int bk_set_alloc(struct bk_gpu *g, struct bk_set *s, size_t bytes, int min_count, int max_count)
{
    CUresult e;
    memset(s, 0, sizeof *s);
    if ((e = g->d->MemGetInfo(&g->free_mem, &g->total_mem)) != CUDA_SUCCESS) {
        fprintf(stderr, "%s: cuMemGetInfo: %s\n", g->prog, cr_driver_error_text(e));
        return -1;
    }
    s->bytes = bytes;
    s->stride = (bytes + 255) & ~(size_t)255;
    s->nbuf = bk_buffer_count(bytes, (size_t)g->l2, g->free_mem, max_count);
    if (s->nbuf == 0) {
        fprintf(stderr, "%s: %.1f MiB of input does not fit in %.1f MiB of free device memory\n",
                g->prog, mib(bytes), mib(g->free_mem));
        return -1;
    }
    if (s->nbuf < min_count && (size_t)min_count * s->stride <= (size_t)(0.4 * (double)g->free_mem))
        s->nbuf = min_count;
    s->host_slots = malloc((size_t)s->nbuf * BK_SLOT);
    s->used = calloc((size_t)s->nbuf, 1);
    if (s->host_slots == NULL || s->used == NULL) {
        fprintf(stderr, "%s: out of host memory\n", g->prog);
        return -1;
    }
    if ((e = g->d->MemAlloc(&s->base, (size_t)s->nbuf * s->stride)) != CUDA_SUCCESS ||
        (e = g->d->MemAlloc(&s->slots, (size_t)s->nbuf * BK_SLOT)) != CUDA_SUCCESS) {
        fprintf(stderr, "%s: cuMemAlloc (%d x %.1f MiB): %s\n", g->prog, s->nbuf, mib(s->stride),
                cr_driver_error_text(e));
        return -1;
    }
    return 0;
}

void bk_set_free(struct bk_gpu *g, struct bk_set *s)
{
    CUresult e;
    /* Nothing may be pending on the buffers when they go. */
    if (g->stream != NULL && (e = g->d->StreamSynchronize(g->stream)) != CUDA_SUCCESS)
        fprintf(stderr, "%s: cuStreamSynchronize: %s\n", g->prog, cr_driver_error_text(e));
    if (s->base)
        g->d->MemFree(s->base);
    if (s->slots)
        g->d->MemFree(s->slots);
    free(s->host_slots);
    free(s->used);
    memset(s, 0, sizeof *s);
}

#define CU_WHY(call)                                                                            \
    do {                                                                                        \
        CUresult e_ = g->d->call;                                                               \
        if (e_ != CUDA_SUCCESS) {                                                               \
            snprintf(why, len, "cu%.*s: %s", (int)strcspn(#call, "("), #call,                   \
                     cr_driver_error_text(e_));                                                 \
            return -1;                                                                          \
        }                                                                                       \
    } while (0)

int bk_clear_slots(struct bk_gpu *g, struct bk_set *s, char *why, size_t len)
{
    memset(s->used, 0, (size_t)s->nbuf);
    CU_WHY(MemsetD32Async(s->slots, SENTINEL, (size_t)s->nbuf * BK_SLOT / 4, g->stream));
    return 0;
}

int bk_read_slots(struct bk_gpu *g, struct bk_set *s, char *why, size_t len)
{
    CU_WHY(StreamSynchronize(g->stream));
    CU_WHY(MemcpyDtoH(s->host_slots, s->slots, (size_t)s->nbuf * BK_SLOT));
    return 0;
}

/* The next call's buffers from the cursor; its slot is marked used. */
static int next_call(struct bk_set *s, int inputs, bk_call_fn call, void *user, char *why, size_t len)
{
    int b = (int)(s->cursor % (uint64_t)s->nbuf), b2 = (int)((s->cursor + 1) % (uint64_t)s->nbuf);
    s->cursor += (uint64_t)inputs;
    s->used[b] = 1;
    return call(user, b, b2, why, len);
}

int bk_measure(struct bk_gpu *g, struct bk_set *s, int inputs, int warm, int iters, bk_call_fn call,
               void *user, struct bk_time *t, char *why, size_t len)
{
    double *times = malloc((size_t)(iters > 0 ? iters : 1) * sizeof *times);
    if (times == NULL) {
        snprintf(why, len, "out of host memory");
        return -1;
    }
    int rc = -1;
    for (int i = 0; i < warm; i++)
        if (next_call(s, inputs, call, user, why, len) != 0)
            goto out;
    CUresult e = g->d->StreamSynchronize(g->stream);
    if (e != CUDA_SUCCESS) {
        snprintf(why, len, "cuStreamSynchronize after the warm-up: %s", cr_driver_error_text(e));
        goto out;
    }
    for (int done = 0; done < iters;) {
        int batch = iters - done < BK_BATCH ? iters - done : BK_BATCH;
        for (int k = 0; k < batch; k++) {
            if ((e = g->d->EventRecord(g->ev[2 * k], g->stream)) != CUDA_SUCCESS)
                break;
            if (next_call(s, inputs, call, user, why, len) != 0)
                goto out;
            if ((e = g->d->EventRecord(g->ev[2 * k + 1], g->stream)) != CUDA_SUCCESS)
                break;
        }
        if (e == CUDA_SUCCESS)
            e = g->d->EventSynchronize(g->ev[2 * batch - 1]);
        for (int k = 0; k < batch && e == CUDA_SUCCESS; k++) {
            float ms = 0;
            e = g->d->EventElapsedTime(&ms, g->ev[2 * k], g->ev[2 * k + 1]);
            times[done + k] = ms * 1e3;
        }
        if (e != CUDA_SUCCESS) {
            snprintf(why, len, "timing events: %s", cr_driver_error_text(e));
            goto out;
        }
        done += batch;
    }
    if (iters > 0) {
        qsort(times, (size_t)iters, sizeof *times, cmp_double);
        t->med_us = median_sorted(times, (size_t)iters);
        t->min_us = times[0];
        t->max_us = times[iters - 1];
    }
    rc = 0;
out:
    free(times);
    return rc;
}

static int progress_tty = -1;

void bk_progress(const char *prog, const char *fmt, ...)
{
    va_list ap;
    if (progress_tty < 0)
        progress_tty = isatty(2);
    fprintf(stderr, progress_tty ? "\r\033[K%s: " : "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(progress_tty ? " ..." : "\n", stderr);
    fflush(stderr);
}

void bk_progress_clear(void)
{
    if (progress_tty > 0) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

double bk_host_us(struct bk_gpu *g, void *user, bk_call_fn call, int calls, int reps, int batch, char *why,
                  size_t len)
{
    double per_call[16];
    if (reps < 1 || reps > 16 || calls < 1 || batch < 1) {
        snprintf(why, len, "bk_host_us: bad arguments");
        return -1;
    }
    for (int k = 0; k < batch; k++)
        if (call(user, 0, 0, why, len) != 0)
            return -1;
    for (int rep = 0; rep < reps; rep++) {
        double total = 0;
        for (int done = 0; done < calls; done += batch) {
            int n = calls - done < batch ? calls - done : batch, rc = 0;
            CUresult e = g->d->StreamSynchronize(g->stream);
            if (e != CUDA_SUCCESS) {
                snprintf(why, len, "cuStreamSynchronize: %s", cr_driver_error_text(e));
                return -1;
            }
            double t0 = now_ms();
            for (int k = 0; k < n && rc == 0; k++)
                rc = call(user, 0, 0, why, len);
            total += now_ms() - t0;
            if (rc != 0)
                return -1;
        }
        per_call[rep] = total * 1e3 / calls;
    }
    qsort(per_call, (size_t)reps, sizeof *per_call, cmp_double);
    return median_sorted(per_call, (size_t)reps);
}
