/*
 * `cured bench`: Table 12-1 of The CUDA Handbook on the GPU that is present,
 * for every cured algorithm and result type, with CUB, Thrust and a plain
 * read-bandwidth kernel beside them when the nvcc-built comparator is in.
 * `cured bench warmstart` is in warmstart.c.
 *
 * The driver is opened at run time (src/driver.c), so this program starts
 * where there is no GPU; it then shows that NVRTC still compiles the kernels.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "benchkit.h"
#include "cured.h"
#include "driver_all.h"
#include "tool.h"
#ifdef CURED_HAVE_CUB_COMPARATOR
#include "cub_compare.h"
#endif

#define BATCH 256               /* event pairs recorded before one synchronisation */
#define MAX_BUFFERS 1024        /* tiny inputs: more buffers would only add launches */
#define WARMUP 3                /* untimed calls per row at least (all buffers at least once) */
#define CHUNK ((size_t)4 << 20) /* elements generated on the host at a time (even) */
#define SENTINEL 0xA5A5A5A5u    /* put in the result slots so that a silent call fails */

struct buffer {
    int64_t ref64;  /* exact host sum */
    uint32_t ref32; /* host sum modulo 2^32 */
    uint64_t got;   /* the result slot as copied back (or returned to the host) */
};

struct bench {
    const struct cr_driver_all *d;
    cured_handle h;
    CUstream stream;
    size_t n, bytes, stride;
    int iters, nbuf;
    CUdeviceptr base, slots; /* nbuf inputs, stride bytes apart; nbuf 8-byte result slots */
    struct buffer *buf;
    CUevent ev[2 * BATCH];
    double *times;
#ifdef CURED_HAVE_CUB_COMPARATOR
    cmp_state *cmp;
    char cmp_error[512];
#endif
};

static const char *const algo_names[CURED_ALGO_COUNT] = {
    "AUTO", "two-pass shared", "two-pass shuffle", "two-pass cg",
    "single-pass ticket", "single-pass atomic", "Listing 12-4"};

static const char usage_text[] =
    "usage: cured bench [--n N] [--iters K] [--device D] [--arch sm_XY] [--csv FILE]\n"
    "       cured bench warmstart [options]   (first call of a fresh process; see its --help)\n"
    "       cured bench sweep [options]       (sizes 2^10 ... 2^30 beside CUB; see its --help)\n"
    "       cured bench ops [options]         (operators x types beside CUB; see its --help)\n"
    "  --n N         elements per reduction (default 64Mi; suffixes K, M, G, T are binary)\n"
    "  --iters K     timed calls per row after warm-up (default 200)\n"
    "  --device D    CUDA device ordinal (default 0)\n"
    "  --arch sm_XY  target of the compile-only run when there is no GPU (default sm_90)\n"
    "  --csv FILE    also write the rows as CSV\n"
    "  --help        this text\n"
    "Exit status: 0 if every row ran and was correct; 1 otherwise or without a GPU; 2 for usage.\n";

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double mib(size_t bytes) { return bytes / 1048576.0; }

static const void *in_ptr(const struct bench *B, int b)
{
    return (const void *)(uintptr_t)(B->base + (CUdeviceptr)b * B->stride);
}

static void *slot_ptr(const struct bench *B, int b)
{
    return (void *)(uintptr_t)(B->slots + (CUdeviceptr)b * 8);
}

static int row_fail(struct row *r, enum state st, const char *prefix, const char *msg)
{
    r->state = st;
    snprintf(r->note, sizeof r->note, "%s%s", prefix, msg);
    return -1;
}

#define CU_ROW(r, call)                                                                         \
    do {                                                                                        \
        CUresult e_ = B->d->call;                                                               \
        if (e_ != CUDA_SUCCESS)                                                                 \
            return row_fail(r, ST_FAIL, "cu" #call ": ", cr_driver_error_text(e_));             \
    } while (0)

#define CMP_ROW(r, call)                                                                        \
    do {                                                                                        \
        if ((call) != 0)                                                                        \
            return row_fail(r, ST_FAIL, "", cmp_last_error());                                  \
    } while (0)

/* One call of the row's reduction on buffer b. The result goes to slot b, or
 * to buf[b].got for what returns to the host (Thrust; the ceiling when asked). */
static int launch(struct bench *B, struct row *r, int b, int fetch)
{
    if (r->kind == K_CURED) {
        cured_status st = cured_reduce_async(B->h, CURED_OP_SUM, r->algo, in_ptr(B, b),
                                             CURED_TYPE_INT32, B->n, slot_ptr(B, b),
                                             r->is64 ? CURED_TYPE_INT64 : CURED_TYPE_INT32, B->stream);
        if (st == CURED_SUCCESS)
            return 0;
        char why[900], prefix[64];
        snprintf(why, sizeof why, "%s", cured_last_error());
        if (st == CURED_ERROR_NOT_SUPPORTED)
            return row_fail(r, ST_NA, "not supported: ", why);
        snprintf(prefix, sizeof prefix, "%s: ", cured_status_string(st));
        return row_fail(r, ST_FAIL, prefix, why);
    }
#ifdef CURED_HAVE_CUB_COMPARATOR
    long long v = 0;
    unsigned u = 0;
    if (B->cmp == NULL)
        return row_fail(r, ST_FAIL, "comparator not prepared: ", B->cmp_error);
    switch (r->kind) {
    case K_CUB64:
        CMP_ROW(r, cmp_cub_sum_i64(B->cmp, in_ptr(B, b), B->n, slot_ptr(B, b), B->stream));
        return 0;
    case K_CUB32:
        CMP_ROW(r, cmp_cub_sum_i32(B->cmp, in_ptr(B, b), B->n, slot_ptr(B, b), B->stream));
        return 0;
    case K_THRUST:
        CMP_ROW(r, cmp_thrust_sum_i64(in_ptr(B, b), B->n, &v, B->stream));
        B->buf[b].got = (uint64_t)v;
        return 0;
    case K_CEIL:
        CMP_ROW(r, cmp_read_ceiling(B->cmp, in_ptr(B, b), B->n, B->stream));
        if (fetch) { /* only the last launch's partials are kept: read them now */
            CMP_ROW(r, cmp_read_ceiling_result(B->cmp, B->stream, &u));
            B->buf[b].got = u;
        }
        return 0;
    default:
        break;
    }
#endif
    (void)fetch;
    return row_fail(r, ST_FAIL, "", "not built in");
}

/* Put the sentinel in every result slot, on the device and the host. */
static int clear_slots(struct bench *B, struct row *r)
{
    for (int b = 0; b < B->nbuf; b++)
        B->buf[b].got = (uint64_t)SENTINEL << 32 | SENTINEL;
    CU_ROW(r, MemsetD32Async(B->slots, SENTINEL, (size_t)B->nbuf * 2, B->stream));
    return 0;
}

/* Compare the results for buffers [0, count) with the host sums. */
static int check(struct bench *B, struct row *r, int count)
{
    CU_ROW(r, StreamSynchronize(B->stream));
    if (r->kind != K_THRUST && r->kind != K_CEIL)
        for (int b = 0; b < count; b++) /* one small copy each: slots are 8 bytes apart */
            CU_ROW(r, MemcpyDtoH(&B->buf[b].got, B->slots + (CUdeviceptr)b * 8, 8));
    for (int b = 0; b < count; b++) {
        const struct buffer *x = &B->buf[b];
        uint32_t lo; /* an int32 result is the slot's first word */
        memcpy(&lo, &x->got, 4);
        if (r->is64 ? (int64_t)x->got == x->ref64 : lo == x->ref32)
            continue;
        r->correct = 0;
        snprintf(r->note, sizeof r->note, "buffer %d: got %" PRId64 ", expected %" PRId64, b,
                 r->is64 ? (int64_t)x->got : (int64_t)(int32_t)lo,
                 r->is64 ? x->ref64 : (int64_t)(int32_t)x->ref32);
        return 0;
    }
    r->correct = r->correct != 0;
    return 0;
}

static int measure(struct bench *B, struct row *r)
{
    cured_stats s0 = {0}, s1 = {0};
    r->correct = -1;
    /* Warm-up, which is also the check of every buffer. The first call is
     * timed alone: for cured it includes NVRTC (or the kernel cache). */
    if (clear_slots(B, r) != 0)
        return -1;
    CU_ROW(r, StreamSynchronize(B->stream));
    cured_get_stats(&s0);
    double t0 = now_ms();
    /* Whole rounds over the buffers, so that the timed calls begin with the
     * least recently read one. */
    int warm = B->nbuf * ((WARMUP + B->nbuf - 1) / B->nbuf);
    for (int i = 0; i < warm; i++) {
        if (launch(B, r, i % B->nbuf, 1) != 0)
            return -1;
        if (i == 0) {
            CU_ROW(r, StreamSynchronize(B->stream));
            r->first_ms = now_ms() - t0;
        }
    }
    cured_get_stats(&s1);
    r->first_src = r->kind == K_CURED ? kernel_source(&s0, &s1) : "";
    if (check(B, r, B->nbuf) != 0 || clear_slots(B, r) != 0)
        return -1;

    /* Timed calls rotating over the buffers, each between its own pair of
     * events on the stream. */
    for (int done = 0; done < B->iters;) {
        int batch = B->iters - done < BATCH ? B->iters - done : BATCH;
        for (int k = 0; k < batch; k++) {
            CU_ROW(r, EventRecord(B->ev[2 * k], B->stream));
            if (launch(B, r, (done + k) % B->nbuf, 0) != 0)
                return -1;
            CU_ROW(r, EventRecord(B->ev[2 * k + 1], B->stream));
        }
        CU_ROW(r, EventSynchronize(B->ev[2 * batch - 1]));
        for (int k = 0; k < batch; k++) {
            float ms = 0;
            CU_ROW(r, EventElapsedTime(&ms, B->ev[2 * k], B->ev[2 * k + 1]));
            B->times[done + k] = ms * 1e3;
        }
        done += batch;
    }
    /* The timed calls' own results too (the ceiling keeps only its last). */
    if (r->kind != K_CEIL && check(B, r, B->iters < B->nbuf ? B->iters : B->nbuf) != 0)
        return -1;
    qsort(B->times, (size_t)B->iters, sizeof *B->times, cmp_double);
    int m = B->iters / 2;
    r->min_us = B->times[0];
    r->max_us = B->times[B->iters - 1];
    r->med_us = B->iters % 2 ? B->times[m] : (B->times[m - 1] + B->times[m]) / 2;
    r->gbps = r->med_us > 0 ? (double)B->bytes / (r->med_us * 1e3) : 0;
    r->state = ST_OK;
    return 0;
}

/* Random int32 with negatives, one stream per buffer, made in chunks so that
 * host memory stays small; the host sums are taken on the way. */
static int fill_buffers(struct bench *B)
{
    int32_t *chunk = malloc((B->n < CHUNK ? B->n : CHUNK) * sizeof *chunk);
    if (chunk == NULL) {
        fprintf(stderr, "cured bench: out of host memory\n");
        return -1;
    }
    for (int b = 0; b < B->nbuf; b++) {
        uint64_t seed = 0x243F6A8885A308D3ull ^ ((uint64_t)(b + 1) * 0xD1B54A32D192ED03ull);
        struct buffer *x = &B->buf[b];
        for (size_t off = 0; off < B->n; off += CHUNK) {
            size_t m = B->n - off < CHUNK ? B->n - off : CHUNK;
            for (size_t i = 0; i < m; i += 2) {
                uint64_t z = splitmix64(&seed);
                chunk[i] = (int32_t)(uint32_t)z;
                if (i + 1 < m)
                    chunk[i + 1] = (int32_t)(uint32_t)(z >> 32);
            }
            for (size_t i = 0; i < m; i++) {
                x->ref64 += chunk[i];
                x->ref32 += (uint32_t)chunk[i];
            }
            CUresult e = B->d->MemcpyHtoD(B->base + (CUdeviceptr)b * B->stride + off * 4, chunk, m * 4);
            if (e != CUDA_SUCCESS) {
                fprintf(stderr, "cured bench: cuMemcpyHtoD: %s\n", cr_driver_error_text(e));
                free(chunk);
                return -1;
            }
        }
    }
    free(chunk);
    return 0;
}

static int make_rows(struct row *rows)
{
    int k = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int is64 = 1; is64 >= 0; is64--) {
            rows[k] = (struct row){.kind = K_CURED, .algo = (cured_algorithm)a, .is64 = is64};
            snprintf(rows[k++].variant, sizeof rows->variant, "%s", algo_names[a]);
        }
#ifdef CURED_HAVE_CUB_COMPARATOR
    static const struct { enum kind kind; int is64; const char *name; } refs[] = {
        {K_CUB64, 1, "CUB DeviceReduce::Sum"}, {K_CUB32, 0, "CUB DeviceReduce::Sum"},
        {K_THRUST, 1, "thrust::reduce"}, {K_CEIL, 0, "read ceiling (int4)"}};
    for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
        rows[k] = (struct row){.kind = refs[i].kind, .is64 = refs[i].is64};
        snprintf(rows[k++].variant, sizeof rows->variant, "%s", refs[i].name);
    }
#endif
    return k;
}

int cmd_bench(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "warmstart") == 0)
        return cmd_warmstart(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "warmstart-child") == 0) /* internal: run by warmstart */
        return cmd_warmstart_child(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "sweep") == 0)
        return cmd_bench_sweep(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "ops") == 0)
        return cmd_bench_ops(argc - 1, argv + 1);
    static const char *const opts[] = {"--n", "--iters", "--device", "--arch", "--csv"};
    uint64_t val[4] = {(uint64_t)64 << 20, 200, 0, 90}; /* n, iters, device, arch */
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        int o = 0;
        for (size_t len; o < 5; o++)
            if (strncmp(a, opts[o], len = strlen(opts[o])) == 0 && (a[len] == '\0' || a[len] == '=')) {
                v = a[len] == '=' ? a + len + 1 : i + 1 < argc ? argv[++i] : NULL;
                break;
            }
        if (o == 3 && v != NULL && strncmp(v, "sm_", 3) == 0)
            v += 3;
        if (o == 4)
            csv = v;
        static const uint64_t lo[4] = {1, 1, 0, 10}, hi[4] = {SIZE_MAX / 4, 10000000, 1024, 1000};
        if (o == 5 || v == NULL || *v == '\0' ||
            (o < 4 && (parse_count(v, &val[o]) != 0 || val[o] < lo[o] || val[o] > hi[o]))) {
            if (o == 5)
                fprintf(stderr, "cured bench: unknown option %s\n", a);
            else
                fprintf(stderr, "cured bench: bad or missing value for %s: %s\n", opts[o], v ? v : "");
            fputs(usage_text, stderr);
            return 2;
        }
    }
    const int device = (int)val[2], arch = (int)val[3];

    const char *why = NULL;
    int count = 0;
    const struct cr_driver_all *d = cr_driver_all_load(&why, NULL);
    if (d == NULL)
        return bench_no_gpu(why, arch);
    CUresult e = d->DeviceGetCount(&count);
    if (e != CUDA_SUCCESS || count == 0)
        return bench_no_gpu(e != CUDA_SUCCESS ? cr_driver_error_text(e) : "the driver reports no device", arch);
    if (device >= count) {
        fprintf(stderr, "cured bench: there is no device %d: the driver reports %d\n", device, count);
        return 1;
    }
    struct bench bench = {.d = d, .n = (size_t)val[0], .bytes = (size_t)val[0] * 4, .iters = (int)val[1]};
    struct bench *B = &bench;
    char msg[1024];
    cured_status st = cured_create(device, &B->h);
    snprintf(msg, sizeof msg, "%s", st != CURED_SUCCESS ? cured_last_error() : "");
    if (st == CURED_ERROR_NO_DRIVER || st == CURED_ERROR_NO_DEVICE)
        return bench_no_gpu(msg, arch);
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured bench: cured_create(%d): %s: %s\n", device, cured_status_string(st), msg);
        return 1;
    }

    /* The primary context: cured's handle and the CUDA runtime use it too. */
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    int rc = 1, pushed = 0, nrows = 0, sms = 0, l2 = 0, clk = 0, bus = 0, ccmaj = 0, ccmin = 0, drv = 0;
    char name[256] = "?";
    size_t free_mem = 0, total_mem = 0;
    struct row rows[CURED_ALGO_COUNT * 2 + 4];
#define CU_MAIN(call)                                                                           \
    do {                                                                                        \
        if ((e = d->call) != CUDA_SUCCESS) {                                                    \
            fprintf(stderr, "cured bench: cu%s: %s\n", #call, cr_driver_error_text(e));         \
            goto out;                                                                           \
        }                                                                                       \
    } while (0)
    CU_MAIN(DeviceGet(&dev, device));
    CU_MAIN(DevicePrimaryCtxRetain(&ctx, dev));
    CU_MAIN(CtxPushCurrent(ctx));
    pushed = 1;
    CU_MAIN(DeviceGetName(name, sizeof name, dev));
    CU_MAIN(DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CU_MAIN(DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
    CU_MAIN(DeviceGetAttribute(&clk, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev));
    CU_MAIN(DeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev));
    CU_MAIN(DeviceGetAttribute(&ccmaj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU_MAIN(DeviceGetAttribute(&ccmin, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CU_MAIN(DriverGetVersion(&drv));
    CU_MAIN(MemGetInfo(&free_mem, &total_mem));

    printf("cured bench %s: Table 12-1 of The CUDA Handbook (int32 sum) on this GPU\n",
           cured_version_string());
    printf("device %d: %s, compute capability %d.%d, %d SMs, L2 %.1f MiB, memory %.1f GiB (%.1f free)\n",
           device, name, ccmaj, ccmin, sms, mib((size_t)l2), mib(total_mem) / 1024, mib(free_mem) / 1024);
    if (clk > 0 && bus > 0)
        printf("theoretical bandwidth: %.1f GB/s (2 x %.0f MHz memory clock x %d-bit bus, from device "
               "attributes)\n", 2.0 * clk * 1e3 * (bus / 8) / 1e9, clk / 1e3, bus);
    else
        printf("theoretical bandwidth: unknown (no memory clock or bus width in the device attributes)\n");
    int nv_major = 0, nv_minor = 0, sm = 0, is_ptx = 0;
    printf("CUDA driver %d.%d; ", drv / 1000, drv % 1000 / 10);
    if (cured_nvrtc_version(&nv_major, &nv_minor) == CURED_SUCCESS)
        printf("NVRTC %d.%d; ", nv_major, nv_minor);
    else
        printf("NVRTC unavailable (%s); ", cured_last_error());
    if ((st = cured_get_arch(B->h, &sm, &is_ptx)) == CURED_SUCCESS)
        printf("cured compiles for sm_%d (%s)\n", sm, is_ptx ? "PTX for the driver to JIT" : "cubin");
    else
        printf("cured cannot compile: %s: %s\n", cured_status_string(st), cured_last_error());

    /* Enough buffers that the rotation spans 4x L2, in at most 40% of free memory
     * (the rule that `bench sweep` and `bench ops` share). */
    B->stride = (B->bytes + 255) & ~(size_t)255;
    B->nbuf = bk_buffer_count(B->bytes, (size_t)l2, free_mem, MAX_BUFFERS);
    if (B->nbuf == 0) {
        fprintf(stderr, "cured bench: %.1f MiB of input does not fit in %.1f MiB of free device memory\n",
                mib(B->bytes), mib(free_mem));
        goto out;
    }
    B->buf = calloc((size_t)B->nbuf, sizeof *B->buf);
    B->times = calloc((size_t)B->iters, sizeof *B->times);
    if (B->buf == NULL || B->times == NULL) {
        fprintf(stderr, "cured bench: out of host memory\n");
        goto out;
    }
    CU_MAIN(MemAlloc(&B->base, (size_t)B->nbuf * B->stride));
    CU_MAIN(MemAlloc(&B->slots, (size_t)B->nbuf * 8));
    CU_MAIN(StreamCreate(&B->stream, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < 2 * BATCH; i++)
        CU_MAIN(EventCreate(&B->ev[i], CU_EVENT_DEFAULT));
    if (fill_buffers(B) != 0)
        goto out;
    size_t all = (size_t)B->nbuf * B->bytes, four_l2 = (size_t)4 * (size_t)l2;
    printf("data: %zu random int32 with negatives (%.1f MiB) per buffer, %d buffer(s), %.1f MiB in all "
           "(4 x L2 = %.1f MiB%s)\n", B->n, mib(B->bytes), B->nbuf, mib(all), mib(four_l2),
           all >= four_l2 ? "" : "; not reached, so some reads may hit in L2");
    printf("timing: the first call alone by wall clock (it includes the NVRTC compile); then %d calls "
           "per row rotating over the buffers, each between its own two events on one stream\n",
           B->iters);
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (cmp_prepare(device, B->n, &B->cmp) != 0)
        snprintf(B->cmp_error, sizeof B->cmp_error, "%s", cmp_last_error());
    printf("comparator: %s\n", cmp_cub_version());
#else
    printf("comparator: not built (no nvcc at configure time): no CUB, Thrust or read-ceiling rows\n");
#endif

    nrows = make_rows(rows);
    int fails = 0, wrong = 0, tty = isatty(2);
    const struct row *cub = NULL;
    /* The comparator's rows first, so that a fault in a cured kernel cannot hide them. */
    for (int pass = 0; pass < 2; pass++)
        for (struct row *r = rows; r < rows + nrows; r++) {
            if ((r->kind == K_CURED) != (pass == 1))
                continue;
            if (tty)
                fprintf(stderr, "\r\033[Kmeasuring %s %s ...", r->variant, r->is64 ? "int64" : "int32");
            measure(B, r);
            fails += r->state == ST_FAIL;
            wrong += r->state == ST_OK && r->correct != 1;
            cub = r->kind == K_CUB64 ? r : cub;
        }
    if (tty)
        fprintf(stderr, "\r\033[K");

    printf("\n%-22s %-6s %10s %9s %9s %8s %7s %11s  %s\n", "variant", "result", "median us", "min us",
           "max us", "GB/s", "vs CUB", "first ms", "correct");
    for (int i = 0; i < nrows; i++)
        bench_print_row(&rows[i], cub);
    printf("\nGB/s: %zu bytes read / median time. vs CUB: GB/s over CUB's int64 row (>1 is faster). "
           "first ms: jit = NVRTC compile, disk/mem = kernel cache.\n", B->bytes);
    printf("int32 results wrap modulo 2^32, int64 results are exact; every buffer's result is checked "
           "against a host sum.\n");
#ifdef CURED_HAVE_CUB_COMPARATOR
    int cblocks = 0, cthreads = 0;
    cmp_read_ceiling_grid(B->cmp, &cblocks, &cthreads);
    printf("* thrust::reduce returns its result to the host: its time includes a device-to-host copy, "
           "a stream synchronisation and Thrust's temporary allocation.\n");
    printf("read ceiling: an nvcc-built kernel that only reads and sums (4 int4 loads in flight per "
           "thread, %d x %d threads): the best read bandwidth seen in this run.\n", cblocks, cthreads);
#endif
    if (fails || wrong)
        printf("cured bench: %d row(s) failed, %d row(s) gave wrong results\n", fails, wrong);
    int csv_bad = csv != NULL && bench_write_csv(csv, rows, nrows, cub) != 0;
    rc = fails || wrong || csv_bad;

out:
    if (B->stream != NULL && (e = d->StreamSynchronize(B->stream)) != CUDA_SUCCESS)
        fprintf(stderr, "cured bench: cuStreamSynchronize: %s\n", cr_driver_error_text(e));
#ifdef CURED_HAVE_CUB_COMPARATOR
    cmp_release(B->cmp);
#endif
    if ((st = cured_destroy(B->h)) != CURED_SUCCESS)
        fprintf(stderr, "cured bench: cured_destroy: %s\n", cured_status_string(st));
    for (int i = 0; i < 2 * BATCH; i++)
        if (B->ev[i] != NULL)
            d->EventDestroy(B->ev[i]);
    if (B->stream != NULL)
        d->StreamDestroy(B->stream);
    if (B->slots)
        d->MemFree(B->slots);
    if (B->base)
        d->MemFree(B->base);
    if (pushed)
        d->CtxPopCurrent(&ctx);
    if (ctx != NULL)
        d->DevicePrimaryCtxRelease(dev);
    free(B->buf);
    free(B->times);
    return rc;
}
