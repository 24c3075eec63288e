/*
 * The children of `cured bench warmstart` (warmstart.c), run as
 * `/proc/self/exe bench warmstart-child MODE [--device D] [--n N] [--target T]`
 * in fresh processes. Each says what it measured in one line on stdout,
 * "warmstart-<tag> key=value ...", that the parent reads:
 *   launch   cuInit and cured_create (not timed), then the timed first
 *            cured_reduce_async() and a second one; "result", or "nogpu"
 *            (exit 3) or "error" (exit 1)
 *   lookup   the NVRTC load, then cured_compile_kernel() of the same kernel
 *            (a disk cache hit when the cache is warm); "lookup"
 *   compile  every built-in kernel compiled (the parent turns the cache off);
 *            it writes its table to the parent's stdout itself
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_all.h"
#include "tool.h"

#define SENTINEL 0xA5A5A5A5u

static int child_say(int rc, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int child_say(int rc, const char *tag, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++) /* one line for the parent */
        if (*p == '\n')
            *p = ' ';
    printf("warmstart-%s %s\n", tag, msg);
    return rc;
}

static int child_launch(int device, size_t n)
{
    const char *why = NULL;
    const struct cr_driver_all *d = cr_driver_all_load(&why, NULL); /* cuInit: not timed */
    if (d == NULL)
        return child_say(3, "nogpu", "%s", why);
    int count = 0;
    CUresult e = d->DeviceGetCount(&count);
    if (e != CUDA_SUCCESS || count == 0)
        return child_say(3, "nogpu", "%s", e != CUDA_SUCCESS ? cr_driver_error_text(e) : "the driver reports no device");
    if (device >= count)
        return child_say(1, "error", "there is no device %d: the driver reports %d", device, count);
    cured_handle h = NULL;
    cured_status st = cured_create(device, &h); /* context creation: not timed */
    if (st == CURED_ERROR_NO_DRIVER || st == CURED_ERROR_NO_DEVICE)
        return child_say(3, "nogpu", "%s", cured_last_error());
    if (st != CURED_SUCCESS)
        return child_say(1, "error", "cured_create(%d): %s: %s", device, cured_status_string(st), cured_last_error());

    int rc = 1, pushed = 0, sm = 0, ptx = 0;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr in = 0, out = 0;
    CUstream s = NULL;
    char name[256] = "?";
    int32_t *host = malloc(n * sizeof *host);
    int64_t ref = 0, got[2] = {0, 0};
    double us[2] = {0, 0};
    cured_stats s0 = {0}, s1 = {0};
#define CU_CHILD(call)                                                                          \
    do {                                                                                        \
        if ((e = d->call) != CUDA_SUCCESS) {                                                    \
            child_say(1, "error", "cu%s: %s", #call, cr_driver_error_text(e));                  \
            goto out;                                                                           \
        }                                                                                       \
    } while (0)
    if (host == NULL) {
        child_say(1, "error", "out of host memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 7);
        host[i] = (int32_t)(x % 2001u) - 1000;
        ref += host[i];
    }
    CU_CHILD(DeviceGet(&dev, device));
    CU_CHILD(DeviceGetName(name, sizeof name, dev));
    CU_CHILD(DevicePrimaryCtxRetain(&ctx, dev)); /* the context cured_create made */
    CU_CHILD(CtxPushCurrent(ctx));
    pushed = 1;
    CU_CHILD(MemAlloc(&in, n * sizeof *host));
    CU_CHILD(MemAlloc(&out, 8));
    CU_CHILD(MemcpyHtoD(in, host, n * sizeof *host));
    CU_CHILD(StreamCreate(&s, CU_STREAM_NON_BLOCKING));
    /* The first call (timed against the cache), then a second one for scale. */
    for (int call = 0; call < 2; call++) {
        CU_CHILD(MemsetD32Async(out, SENTINEL, 2, s));
        CU_CHILD(StreamSynchronize(s));
        if (call == 0 && cured_get_stats(&s0) != CURED_SUCCESS)
            memset(&s0, 0, sizeof s0);
        double t0 = now_ms();
        st = cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)(uintptr_t)in,
                                CURED_TYPE_INT32, n, (void *)(uintptr_t)out, CURED_TYPE_INT64, s);
        us[call] = (now_ms() - t0) * 1e3;
        if (call == 0 && cured_get_stats(&s1) != CURED_SUCCESS)
            s1 = s0;
        if (st != CURED_SUCCESS) {
            child_say(1, "error", "cured_reduce_async (call %d): %s: %s", call + 1, cured_status_string(st),
                      cured_last_error());
            goto out;
        }
        CU_CHILD(StreamSynchronize(s));
        CU_CHILD(MemcpyDtoH(&got[call], out, 8));
        if (got[call] != ref) {
            child_say(1, "error", "call %d returned %" PRId64 ", expected %" PRId64, call + 1, got[call], ref);
            goto out;
        }
    }
    if ((st = cured_get_arch(h, &sm, &ptx)) != CURED_SUCCESS) {
        child_say(1, "error", "cured_get_arch: %s: %s", cured_status_string(st), cured_last_error());
        goto out;
    }
    child_say(0, "result", "first_us=%.3f second_us=%.3f compiles=%" PRIu64 " disk_hits=%" PRIu64
              " memory_hits=%" PRIu64 " target=%s_%d device=%s", us[0], us[1], s1.compiles - s0.compiles,
              s1.disk_hits - s0.disk_hits, s1.memory_hits - s0.memory_hits, ptx ? "compute" : "sm", sm, name);
    rc = 0;
out:
    if (s != NULL && (e = d->StreamDestroy(s)) != CUDA_SUCCESS)
        fprintf(stderr, "cured bench warmstart: cuStreamDestroy: %s\n", cr_driver_error_text(e));
    if (out && (e = d->MemFree(out)) != CUDA_SUCCESS)
        fprintf(stderr, "cured bench warmstart: cuMemFree: %s\n", cr_driver_error_text(e));
    if (in && (e = d->MemFree(in)) != CUDA_SUCCESS)
        fprintf(stderr, "cured bench warmstart: cuMemFree: %s\n", cr_driver_error_text(e));
    if (pushed)
        d->CtxPopCurrent(&ctx);
    if (ctx != NULL)
        d->DevicePrimaryCtxRelease(dev);
    if ((st = cured_destroy(h)) != CURED_SUCCESS)
        fprintf(stderr, "cured bench warmstart: cured_destroy: %s\n", cured_status_string(st));
    free(host);
    return rc;
#undef CU_CHILD
}

/* The built-in kernel that the launch children use: AUTO, int32 -> int64. */
static int auto_kernel(size_t *index)
{
    for (size_t i = 0; i < cured_kernel_count(); i++) {
        const char *name = cured_kernel_name(i);
        if (name != NULL && strncmp(name, "auto SUM int32->int64 ", 22) == 0) {
            *index = i;
            return 0;
        }
    }
    return -1;
}

/* The NVRTC load, then the lookup of the launch children's kernel. */
static int child_lookup(int sm, int ptx)
{
    size_t index = 0;
    int major = 0, minor = 0;
    if (auto_kernel(&index) != 0)
        return child_say(1, "error", "no built-in kernel named auto SUM int32->int64");
    double t0 = now_ms();
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS)
        return child_say(1, "error", "NVRTC is not available: %s", cured_last_error());
    double nvrtc_ms = now_ms() - t0;
    struct compile_result r;
    if (compile_one(index, sm, ptx, &r) != CURED_SUCCESS)
        return child_say(1, "error", "cured_compile_kernel: %s: %s", cured_status_string(r.status), r.why);
    return child_say(0, "lookup", "nvrtc_ms=%.3f lookup_us=%.3f source=%s", nvrtc_ms, r.ms * 1e3,
                     *r.source ? r.source : "?");
}

/* Every kernel compiled from scratch (the cache is off in this process). */
static int child_compile(int sm, int ptx)
{
    /* Its stdout is the parent's: it speaks to the reader, not to the parent. */
    int major = 0, minor = 0, failed = 0, skipped = 0;
    double t0 = now_ms();
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        printf("cold compile: NVRTC is not available: %s\n", cured_last_error());
        return 1;
    }
    double nvrtc_ms = now_ms() - t0, total = 0;
    const char *dir = cured_cache_dir();
    if (dir != NULL) { /* the parent set CURED_CACHE_DISABLE=1 */
        printf("cold compile: the disk cache is on (%s): these would not be cold compiles\n", dir);
        return 1;
    }
    printf("cold compile of every built-in kernel for %s_%d (a fresh process, CURED_CACHE_DISABLE=1; "
           "NVRTC %d.%d loaded first, in %.1f ms):\n", ptx ? "compute" : "sm", sm, major, minor, nvrtc_ms);
    size_t nk = cured_kernel_count();
    int width = kernel_name_width();
    for (size_t i = 0; i < nk; i++) {
        const char *name = cured_kernel_name(i);
        struct compile_result r;
        cured_status st = compile_one(i, sm, ptx, &r);
        printf("  %-*s ", width, name != NULL ? name : "(unnamed)");
        if (st == CURED_SUCCESS && strcmp(r.source, "jit") == 0) {
            printf("%9zu bytes %9.1f ms\n", r.bytes, r.ms);
            total += r.ms;
        } else if (st == CURED_SUCCESS) {
            printf("not compiled (%s): not a cold compile\n", r.source);
            failed++;
        } else if (st == CURED_ERROR_NOT_SUPPORTED) {
            printf("skipped: %s\n", r.why);
            skipped++;
        } else {
            printf("FAILED: %s: %s\n", cured_status_string(st), r.why);
            failed++;
        }
        fflush(stdout);
    }
    printf("%zu kernels: %zu compiled in %.1f ms, %d skipped, %d failed\n", nk,
           nk - (size_t)(skipped + failed), total, skipped, failed);
    return failed ? 1 : 0;
}

int cmd_warmstart_child(int argc, char **argv)
{
    uint64_t device = 0, n = 1 << 20;
    int sm = 90, ptx = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int ok = 0;
        if (match_option(argc, argv, &i, "--device", &v))
            ok = parse_count(v, &device) == 0 && device <= 1024;
        else if (match_option(argc, argv, &i, "--n", &v))
            ok = parse_count(v, &n) == 0 && n > 0 && n <= SIZE_MAX / 4;
        else if (match_option(argc, argv, &i, "--target", &v))
            ok = parse_arch(v, &sm, &ptx) == 0;
        if (!ok)
            return child_say(2, "error", "bad argument %s %s", a, v ? v : "");
    }
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "launch") == 0)
        return child_launch((int)device, (size_t)n);
    if (strcmp(mode, "lookup") == 0)
        return child_lookup(sm, ptx);
    if (strcmp(mode, "compile") == 0)
        return child_compile(sm, ptx);
    return child_say(2, "error", "unknown mode %s", mode);
}
