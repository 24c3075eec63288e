/*
 * `cured bench`: Table 12-1 of The CUDA Handbook on the GPU that is present,
 * for every cured algorithm and result type, with CUB, Thrust and a plain
 * read-bandwidth kernel beside them when the comparator library is there.
 * The device, the buffer rotation (spanning 4x L2), the data with its host
 * sums, the timing (a pair of events around every call) and the option
 * parsing are benchkit's, as in `bench sweep` and `bench ops`; the report
 * is in bench_report.c. Without a GPU it says so at once and exits 1.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "benchkit.h"
#include "ceiling.h"
#include "cured.h"
#include "driver_all.h"
#include "tool.h"

#define PROG "cured bench"
#define MAX_BUFFERS 1024 /* tiny inputs: more buffers would only add launches */
#define WARMUP 3         /* untimed calls per row at least (every buffer at least once) */

static const char *const algo_names[CURED_ALGO_COUNT] = {
    "AUTO", "two-pass shared", "two-pass shuffle", "two-pass cg",
    "single-pass ticket", "single-pass atomic", "Listing 12-4"};

static const char usage_text[] =
    "usage: cured bench [--n N] [--iters K] [--device D] [--csv FILE]\n"
    "       cured bench warmstart|sweep|ops|axes|allreduce [options]\n"
    "                   (see their --help)\n"
    "Table 12-1 of The CUDA Handbook (int32 sums, every algorithm) on this GPU,\n"
    "beside CUB, Thrust and a read-only ceiling when the comparator is built;\n"
    "also AUTO with ten calls between one pair of events, and the streaming\n"
    "read ceiling of `cured bench axes` (the best of its grid sweep).\n"
    "  --n N         elements per reduction (default 64Mi; suffixes K, M, G, T\n"
    "                are binary)\n"
    "  --iters K     timed calls per row after warm-up (default 200)\n"
    "  --device D    CUDA device ordinal (default 0)\n"
    "  --csv FILE    also write the rows as CSV\n"
    "  --help        this text\n"
    "Exit status: 0 if every row ran and was correct; 1 otherwise or without a\n"
    "GPU; 2 for usage.\n";

struct bench {
    struct bk_gpu g;
    struct bk_set set;
    struct bk_ref ref;
    size_t n;
    struct row *row;   /* the row being measured */
    uint64_t host_got; /* Thrust's result, returned to the host */
    struct ceiling ceil; /* K_SWEPT's kernel and the configuration being timed */
    int ceil_ok, ceil_variant;
    unsigned ceil_grid, ceil_block;
};

static cured_status cured_call(struct bench *B, int b, int is64, cured_algorithm algo)
{
    return cured_reduce_async(B->g.h, CURED_OP_SUM, algo, bk_in(&B->set, b), CURED_TYPE_INT32, B->n,
                              bk_out(&B->set, b), is64 ? CURED_TYPE_INT64 : CURED_TYPE_INT32, B->g.stream);
}

/* One call of the row's reduction on buffer b, into slot b (Thrust: to the host). */
static int launch(void *user, int b, int b2, char *why, size_t len)
{
    struct bench *B = user;
    const struct row *r = B->row;
    (void)b2;
    if (r->kind == K_SWEPT) {
        if (ceiling_launch(&B->ceil, B->ceil_variant, B->ceil_grid, B->ceil_block, bk_in(&B->set, b), B->n * 4 / 16 * 16,
                           B->g.stream) == 0)
            return 0;
        snprintf(why, len, "the read-ceiling launch failed");
        return -1;
    }
    if (r->kind == K_CURED || r->kind == K_BURST) {
        cured_status st = CURED_SUCCESS;
        /* a burst's calls take the next buffers, each into its own slot */
        for (int k = 0; k < (r->kind == K_BURST ? BENCH_BURST : 1) && st == CURED_SUCCESS; k++)
            st = cured_call(B, (b + k) % B->set.nbuf, r->is64, r->algo);
        if (st == CURED_SUCCESS)
            return 0;
        snprintf(why, len, "%s: %s", cured_status_string(st), cured_last_error());
        return st == CURED_ERROR_NOT_SUPPORTED ? -2 : -1;
    }
#ifdef CURED_HAVE_CUB_COMPARATOR
    long long v = 0;
    int rc = -1;
    if (B->g.cmp == NULL) {
        snprintf(why, len, "comparator not prepared: %s", B->g.cmp_error);
        return -1;
    }
    switch (r->kind) {
    case K_CUB64:
        rc = cmp_cub_sum_i64(B->g.cmp, bk_in(&B->set, b), B->n, bk_out(&B->set, b), B->g.stream);
        break;
    case K_CUB32:
        rc = cmp_cub_sum_i32(B->g.cmp, bk_in(&B->set, b), B->n, bk_out(&B->set, b), B->g.stream);
        break;
    case K_THRUST:
        rc = cmp_thrust_sum_i64(bk_in(&B->set, b), B->n, &v, B->g.stream);
        B->host_got = (uint64_t)v;
        break;
    case K_CEIL: /* only its last launch's partials are kept: read after the timing */
        rc = cmp_read_ceiling(B->g.cmp, bk_in(&B->set, b), B->n, B->g.stream);
        break;
    default:
        break;
    }
    if (rc != 0)
        snprintf(why, len, "%s", cmp_last_error());
    return rc == 0 ? 0 : -1;
#else
    snprintf(why, len, "not built in");
    return -1;
#endif
}

/* Whether a result equals the host's sum: exact for int64, modulo 2^32 for int32. */
static int matches(const struct bench *B, int is64, uint64_t got, char *note, size_t len)
{
    uint32_t lo;
    memcpy(&lo, &got, 4); /* an int32 result is the slot's first word */
    if (is64 ? got == B->ref.isum : lo == (uint32_t)B->ref.isum)
        return 1;
    snprintf(note, len, "got %" PRId64 ", expected %" PRId64, is64 ? (int64_t)got : (int64_t)(int32_t)lo,
             is64 ? (int64_t)B->ref.isum : (int64_t)(int32_t)(uint32_t)B->ref.isum);
    return 0;
}

/* Every slot written since bk_clear_slots() holds the right sum. */
static int check_slots(struct bench *B, struct row *r)
{
    if (bk_read_slots(&B->g, &B->set, r->note, sizeof r->note) != 0)
        return -1;
    for (int b = 0; b < B->set.nbuf; b++) {
        uint64_t got;
        if (!B->set.used[b])
            continue;
        memcpy(&got, B->set.host_slots + (size_t)b * BK_SLOT, 8);
        if (!matches(B, r->is64, got, r->note, sizeof r->note)) {
            r->correct = 0;
            return 0;
        }
    }
    return 0;
}

static void measure(struct bench *B, struct row *r, int iters);

/* The swept ceiling: the fastest configuration's median (ceiling.c's 24). */
static void measure_swept(struct bench *B, struct row *r, int iters)
{
    struct row best = *r, one;
    best.state = ST_FAIL;
    snprintf(best.note, sizeof best.note, "%s", B->ceil_ok ? "no configuration ran" : "ceiling kernel not compiled");
    for (int v = 0; B->ceil_ok && v < CEILING_VARIANTS; v++)
        for (unsigned per = 1; per <= 32; per *= 2)
            for (unsigned block = 256; block <= 512; block *= 2) {
                B->ceil_variant = v;
                B->ceil_grid = per * (unsigned)B->g.sms;
                B->ceil_block = block;
                one = *r;
                measure(B, &one, iters);
                if (one.state == ST_OK && (best.state != ST_OK || one.med_us < best.med_us)) {
                    best = one;
                    snprintf(best.variant, sizeof best.variant, "ceiling %dx%u x%d", (int)per, block, v ? 8 : 4);
                }
            }
    *r = best;
}

static void measure(struct bench *B, struct row *r, int iters)
{
    char why[900];
    cured_stats s0 = {0}, s1 = {0};
    B->row = r;
    r->correct = 1;
    r->state = ST_FAIL;
    if (bk_clear_slots(&B->g, &B->set, r->note, sizeof r->note) != 0)
        return;
    /* The first call alone, by wall clock: for cured it includes NVRTC (or the kernel cache). */
    cured_get_stats(&s0);
    double t0 = now_ms();
    int rc = launch(B, 0, 1, why, sizeof why);
    CUresult e = rc == 0 ? B->g.d->StreamSynchronize(B->g.stream) : CUDA_SUCCESS;
    r->first_ms = now_ms() - t0;
    cured_get_stats(&s1);
    r->first_src = r->kind == K_CURED ? kernel_source(&s0, &s1) : "";
    if (rc != 0 || e != CUDA_SUCCESS) {
        r->state = rc == -2 ? ST_NA : ST_FAIL;
        snprintf(r->note, sizeof r->note, "%s%s", rc == -2 ? "not supported: " : "",
                 rc != 0 ? why : cr_driver_error_text(e));
        return;
    }
    B->set.used[0] = 1;
    /* Whole rounds over the buffers as warm-up (also the check of every
     * buffer), then the timed calls, each between its own pair of events. */
    int warm = B->set.nbuf * ((WARMUP + B->set.nbuf - 1) / B->set.nbuf);
    struct bk_time t = {0, 0, 0};
    if (bk_measure(&B->g, &B->set, 1, warm, iters, launch, B, &t, why, sizeof why) != 0) {
        snprintf(r->note, sizeof r->note, "%s", why);
        return;
    }
    if (r->kind == K_THRUST) {
        if (!matches(B, 1, B->host_got, r->note, sizeof r->note))
            r->correct = 0;
    } else if (r->kind == K_SWEPT) {
        r->correct = -1; /* an XOR of the data: nothing to check */
    } else if (r->kind == K_CEIL) {
#ifdef CURED_HAVE_CUB_COMPARATOR
        unsigned sum = 0;
        if (cmp_read_ceiling_result(B->g.cmp, B->g.stream, &sum) != 0) {
            snprintf(r->note, sizeof r->note, "%s", cmp_last_error());
            return;
        }
        r->correct = sum == (uint32_t)B->ref.isum;
        if (!r->correct)
            snprintf(r->note, sizeof r->note, "partials sum to %u, expected %u", sum, (uint32_t)B->ref.isum);
#endif
    } else if (check_slots(B, r) != 0) {
        return;
    }
    const double per_call = r->kind == K_BURST ? BENCH_BURST : 1;
    r->med_us = t.med_us / per_call;
    r->min_us = t.min_us / per_call;
    r->max_us = t.max_us / per_call;
    r->gbps = r->med_us > 0 ? (double)B->set.bytes / (r->med_us * 1e3) : 0;
    r->state = ST_OK;
}

static int make_rows(struct row *rows)
{
    int k = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int is64 = 1; is64 >= 0; is64--) {
            rows[k] = (struct row){.kind = K_CURED, .algo = (cured_algorithm)a, .is64 = is64};
            snprintf(rows[k++].variant, sizeof rows->variant, "%s", algo_names[a]);
        }
    rows[k] = (struct row){.kind = K_BURST, .algo = CURED_ALGO_AUTO, .is64 = 0};
    snprintf(rows[k++].variant, sizeof rows->variant, "AUTO, %d a pair", BENCH_BURST);
    rows[k] = (struct row){.kind = K_SWEPT, .is64 = 0};
    snprintf(rows[k++].variant, sizeof rows->variant, "ceiling (swept)");
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

/* No device to measure on: say so (exit status 1). -1 when there is one. */
static int without_gpu(void)
{
    const char *why = NULL;
    int count = 0;
    const struct cr_driver_all *d = cr_driver_all_load(&why, NULL);
    if (d == NULL)
        return bench_no_gpu(why);
    CUresult e = d->DeviceGetCount(&count);
    if (e != CUDA_SUCCESS || count == 0)
        return bench_no_gpu(e != CUDA_SUCCESS ? cr_driver_error_text(e) : "the driver reports no device");
    return -1;
}

static void print_header(struct bench *B, int iters)
{
    int clk = 0, bus = 0;
    printf("cured bench %s: Table 12-1 of The CUDA Handbook (int32 sum) on this GPU\n", cured_version_string());
    bk_print_header(&B->g);
    if (B->g.d->DeviceGetAttribute(&clk, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, B->g.dev) == CUDA_SUCCESS &&
        B->g.d->DeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, B->g.dev) == CUDA_SUCCESS &&
        clk > 0 && bus > 0)
        printf("theoretical bandwidth: %.1f GB/s (2 x %.0f MHz memory clock x %d-bit bus, from device "
               "attributes)\n", 2.0 * clk * 1e3 * (bus / 8) / 1e9, clk / 1e3, bus);
    else
        printf("theoretical bandwidth: unknown (no memory clock or bus width in the device attributes)\n");
    double mib = 1048576.0, all = (double)B->set.nbuf * (double)B->set.bytes, four_l2 = 4.0 * B->g.l2;
    printf("data: %zu int32 (full range, with negatives; %.1f MiB) per buffer, %d copies, %.1f MiB in all "
           "(4 x L2 = %.1f MiB%s)\n", B->n, B->set.bytes / mib, B->set.nbuf, all / mib, four_l2 / mib,
           all >= four_l2 ? "" : "; not reached, so some reads may hit in L2");
    printf("timing: the first call alone by wall clock (it includes the NVRTC compile); then %d calls "
           "per row rotating over the buffers, each between its own two events on one stream\n", iters);
}

int cmd_bench_table(int argc, char **argv)
{
    struct count_option counts[] = {
        {"--n", 1, SIZE_MAX / 4, (uint64_t)64 << 20}, {"--iters", 1, 10000000, 200}, {"--device", 0, 1024, 0}};
    struct string_option strings[] = {{"--csv", NULL}};
    int rc = parse_options(argc, argv, PROG, usage_text, counts, 3, strings, 1);
    if (rc != 0)
        return rc == 1 ? 0 : 2;
    if ((rc = without_gpu()) >= 0)
        return rc;

    static struct bench bench; /* large (the rows' notes); one per process */
    struct bench *B = &bench;
    struct row rows[CURED_ALGO_COUNT * 2 + 6];
    const char *csv = strings[0].value;
    int iters = (int)counts[1].value;
    B->n = (size_t)counts[0].value;
    rc = 1;
    if (bk_open(&B->g, PROG, (int)counts[2].value) != 0)
        goto out;
    if (bk_set_alloc(&B->g, &B->set, B->n * 4, 1, MAX_BUFFERS) != 0)
        goto out;
    bk_ref_init(&B->ref, CURED_TYPE_INT32);
    if (bk_fill(&B->g, &B->set, &B->ref, B->n) != 0)
        goto out;
#ifdef CURED_HAVE_CUB_COMPARATOR
    /* bk_open prepared the comparator for small sums; these rows sum n ints. */
    if (B->g.cmp != NULL) {
        cmp_release(B->g.cmp);
        if (cmp_prepare(B->g.device, B->n, &B->g.cmp) != 0)
            snprintf(B->g.cmp_error, sizeof B->g.cmp_error, "%s", cmp_last_error());
    }
#endif
    char cwhy[600] = "";
    B->ceil_ok = ceiling_prepare(&B->ceil, B->g.d, B->g.ccmaj, B->g.ccmin, cwhy, sizeof cwhy) == 0;
    print_header(B, iters);

    int nrows = make_rows(rows), fails = 0, wrong = 0;
    const struct row *cub = NULL;
    /* The comparator's rows first, so that a fault in a cured kernel cannot hide them. */
    for (int pass = 0; pass < 2; pass++)
        for (struct row *r = rows; r < rows + nrows; r++) {
            if ((r->kind == K_CURED || r->kind == K_BURST) != (pass == 1))
                continue;
            bk_progress(PROG, "measuring %s %s", r->variant, r->is64 ? "int64" : "int32");
            if (r->kind == K_SWEPT)
                measure_swept(B, r, iters);
            else
                measure(B, r, iters);
            fails += r->state == ST_FAIL;
            wrong += r->state == ST_OK && r->correct != 1;
            cub = r->kind == K_CUB64 ? r : cub;
        }
    bk_progress_clear();

    printf("\n%-22s %-6s %10s %9s %9s %8s %7s %11s  %s\n", "variant", "result", "median us", "min us",
           "max us", "GB/s", "vs CUB", "first ms", "correct");
    for (int i = 0; i < nrows; i++)
        bench_print_row(&rows[i], cub);
    printf("\nGB/s: %zu bytes read / median time. vs CUB: GB/s over CUB's int64 row (>1 is faster). "
           "first ms: jit = NVRTC compile, disk/mem = kernel cache.\n", B->set.bytes);
    printf("int32 results wrap modulo 2^32, int64 results are exact; every result is checked against a "
           "host sum.\n");
#ifdef CURED_HAVE_CUB_COMPARATOR
    int cblocks = 0, cthreads = 0;
    cmp_read_ceiling_grid(B->g.cmp, &cblocks, &cthreads);
    printf("* thrust::reduce returns its result to the host: its time includes a device-to-host copy, "
           "a stream synchronisation and Thrust's temporary allocation.\n");
    printf("read ceiling: an nvcc-built kernel that only reads and sums (4 int4 loads in flight per "
           "thread, %d x %d threads): the best read bandwidth seen in this run.\n", cblocks, cthreads);
#endif
    const struct row *sw = NULL, *autorow = NULL;
    for (int i = 0; i < nrows; i++) {
        sw = rows[i].kind == K_SWEPT && rows[i].state == ST_OK ? &rows[i] : sw;
        autorow = rows[i].kind == K_CURED && rows[i].algo == CURED_ALGO_AUTO && !rows[i].is64 &&
                  rows[i].state == ST_OK ? &rows[i] : autorow;
    }
    if (sw != NULL)
        printf("ceiling (swept): ceiling.c's streaming reader (as in `cured bench axes`), the best of 24 grids "
               "(blocks per SM x threads x loads in flight) on these buffers\n");
    if (sw != NULL && autorow != NULL)
        printf("AUTO int32: %.3fx the swept ceiling\n", sw->med_us / autorow->med_us);
    printf("AUTO, %d a pair: %d calls between one pair of events, the time per call (no idle gap before "
           "each launch)\n", BENCH_BURST, BENCH_BURST);
    if (fails || wrong)
        fprintf(stderr, "%s: %d row(s) failed, %d row(s) gave wrong results\n", PROG, fails, wrong);
    int csv_bad = csv != NULL && bench_write_csv(csv, rows, nrows, cub) != 0;
    rc = fails || wrong || csv_bad;
out:
    if (B->ceil_ok)
        ceiling_release(&B->ceil);
    bk_set_free(&B->g, &B->set);
    bk_close(&B->g);
    return rc;
}
