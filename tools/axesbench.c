/*
 * `cured bench axes`: axis and segmented reductions of 256 MiB inputs at
 * every 2-D shape (rows = 2^0, 2^2, ..., 2^26 of float32; the same bytes for
 * the other types), both axes, for float32, bfloat16, int32 and int8 SUM and
 * float32 MAX and ARGMAX; a 3-D middle axis; float32 segments (1M of
 * power-law lengths, mean 64; 256 of 1 MiB; 2048 of 16-64 KiB:
 * axesbench_segments.c). Each cell is a median of timed calls beside the read
 * ceiling measured in the same run (ceiling.c: streaming 16-byte loads, a
 * grid sweep); bytes are input read plus results written.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchkit.h"
#include "ceiling.h"
#include "axesbench.h"
#include "cub_compare.h"
#include "tool.h"

#define PROG "cured bench axes"
#define BYTES ((size_t)256 << 20)

static const char usage_text[] =
    "usage: cured bench axes [--iters K] [--device D] [--csv FILE] [--only TEXT]\n"
    "Axis reductions of 256 MiB 2-D arrays (rows = 1, 4, ..., 2^26 float32 rows; the same bytes\n"
    "for bfloat16, int32 and int8), along axis 1 and axis 0: SUM of each type, MAX and ARGMAX\n"
    "of float32, EXACT_SUM of float32 and bfloat16 (into float32: the correctly rounded\n"
    "sum, checked bit for bit; float32 again on the worst case, \"spread\": every binade,\n"
    "cancelling pairs, timed only); a 3-D middle axis (256 x 1024 x 256 float32) and float32\n"
    "segments (int64 offsets: 1M of power-law lengths (mean 64), 256 of 1 MiB and 2048 of\n"
    "16-64 KiB, more than the long list holds), SUM and EXACT_SUM. Each cell: the median of\n"
    "K timed calls (after an untimed one that compiles), as GB/s of input read plus results\n"
    "written, and as a share of the read ceiling: the best of a streaming-load read-only\n"
    "kernel over a grid sweep, in the same run. Where CUB has the same reduction\n"
    "(cub::DeviceSegmentedReduce: rows of float32 SUM, MAX, ARGMAX and int32 SUM, and the\n"
    "segments' SUM), a CUB row follows, timed alike, with cured's speed as a multiple of\n"
    "CUB's. Progress on stderr.\n"
    "  --iters K     timed calls per cell (default 20)\n"
    "  --device D    CUDA device ordinal (default 0)\n"
    "  --csv FILE    also write the rows as CSV\n"
    "  --only TEXT   only the cells whose name contains TEXT (e.g. \"int8\"; \"segments\":\n"
    "                the 3-D and segment cells; \"EXACT\": every EXACT_SUM cell)\n"
    "Exit status: 0 if every cell ran and its spot checks passed; 1 otherwise or without a GPU.\n";

static const struct cell cells[] = {
    {"float32 SUM", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_SUM, 0},
    {"bfloat16 SUM", CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT32, CURED_OP_SUM, 0},
    {"int32 SUM", CURED_TYPE_INT32, CURED_TYPE_INT64, CURED_OP_SUM, 0},
    {"int8 SUM", CURED_TYPE_INT8, CURED_TYPE_INT64, CURED_OP_SUM, 0},
    {"float32 MAX", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_MAX, 0},
    {"float32 ARGMAX", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_ARGMAX, 0},
    {"float32 MEAN_VAR", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_MEAN_VAR, 0},
    {"float32 LOGSUMEXP", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_LOGSUMEXP, 0},
    {"float32 EXACT_SUM", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_EXACT_SUM, 0},
    {"bfloat16 EXACT_SUM", CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT32, CURED_OP_EXACT_SUM, 0},
    {"float32 EXACT_SUM spread", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, CURED_OP_EXACT_SUM, 1},
};
#define NCELLS (int)(sizeof cells / sizeof *cells)

/* The median of iters timed calls of one request, in microseconds; -1 on failure. */
struct req {
    struct bk_gpu *g;
    cured_op op;
    cured_type in, out;
    const void *src;
    cured_layout l;
    uint32_t axes;
    void *dst;
    char why[600];
};

static cured_status issue(struct req *q)
{
    return cured_reduce_axes_async(q->g->h, q->op, q->src, q->in, &q->l, q->axes, q->dst, q->out, NULL, q->g->stream);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double axes_time_events(struct bk_gpu *g, int iters, int (*call)(void *), void *user, char *why, size_t len)
{
    double *t = calloc((size_t)iters, sizeof *t);
    if (t == NULL || call(user) != 0 || g->d->StreamSynchronize(g->stream) != CUDA_SUCCESS) {
        snprintf(why + strlen(why), len - strlen(why), "%swarm-up failed", why[0] ? "; " : "");
        free(t);
        return -1;
    }
    for (int i = 0; i < iters; i++) {
        float ms = 0;
        if (g->d->EventRecord(g->ev[0], g->stream) != CUDA_SUCCESS || call(user) != 0 ||
            g->d->EventRecord(g->ev[1], g->stream) != CUDA_SUCCESS ||
            g->d->EventSynchronize(g->ev[1]) != CUDA_SUCCESS ||
            g->d->EventElapsedTime(&ms, g->ev[0], g->ev[1]) != CUDA_SUCCESS) {
            snprintf(why + strlen(why), len - strlen(why), "%stimed call %d failed", why[0] ? "; " : "", i);
            free(t);
            return -1;
        }
        t[i] = ms * 1e3;
    }
    qsort(t, (size_t)iters, sizeof *t, by_value);
    double med = t[iters / 2];
    free(t);
    return med;
}

static int call_req(void *user)
{
    struct req *q = user;
    cured_status st = issue(q);
    if (st != CURED_SUCCESS)
        snprintf(q->why, sizeof q->why, "%s: %s", cured_status_string(st), cured_last_error());
    return st == CURED_SUCCESS ? 0 : -1;
}

struct ceil_call {
    struct ceiling *c;
    int variant;
    unsigned grid, block;
    const void *in;
    CUstream s;
};
static int call_ceiling(void *user)
{
    struct ceil_call *k = user;
    return ceiling_launch(k->c, k->variant, k->grid, k->block, k->in, BYTES, k->s) == 0 ? 0 : -1;
}

/* Element i of a cell's input: small integers, so float sums of a column or row are exact. */
static void fill_host(cured_type t, void *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const int v = (int)((i * 2654435761u) >> 7 & 15) - 8; /* -8 .. 7 */
        switch (t) {
        case CURED_TYPE_FLOAT32: ((float *)h)[i] = (float)v; break;
        case CURED_TYPE_BFLOAT16: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); ((uint16_t *)h)[i] = (uint16_t)(u >> 16); break; }
        case CURED_TYPE_INT32: ((int32_t *)h)[i] = v * 1000003; break;
        default: ((int8_t *)h)[i] = (int8_t)v; break;
        }
    }
}

static double host_value(cured_type t, const void *h, size_t i)
{
    switch (t) {
    case CURED_TYPE_FLOAT32: return ((const float *)h)[i];
    case CURED_TYPE_BFLOAT16: { uint32_t u = (uint32_t)((const uint16_t *)h)[i] << 16; float f; memcpy(&f, &u, 4); return f; }
    case CURED_TYPE_INT32: return ((const int32_t *)h)[i];
    default: return ((const int8_t *)h)[i];
    }
}

/* Output 0 of a 2-D cell against the host: its row (axis 1) or column (axis 0). */
static int spot_check(const struct cell *c, const void *h, size_t rows, size_t cols, int axis, const unsigned char *got,
                      char *note, size_t len)
{
    const size_t n = axis ? cols : rows, stride = axis ? 1 : cols;
    if (c->spread) /* the suites check these sums; the bench times them */
        return 1;
    if (c->op == CURED_OP_MEAN_VAR || c->op == CURED_OP_LOGSUMEXP)
        return axes_stats_check(c->op, (const float *)h, n, stride, got, note, len);
    const int sum = c->op == CURED_OP_SUM || c->op == CURED_OP_EXACT_SUM;
    double want = sum ? 0 : -INFINITY;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double v = host_value(c->type, h, i * stride);
        if (sum)
            want += v; /* exact: integers under 2^53 */
        else if (v > want)
            want = v, at = i;
    }
    double v;
    if (c->op == CURED_OP_ARGMAX) {
        int64_t idx;
        memcpy(&idx, got, 8);
        if ((size_t)idx == at)
            return 1;
        snprintf(note, len, "output 0: index %lld, expected %zu", (long long)idx, at);
        return 0;
    }
    if (c->out == CURED_TYPE_INT64) {
        int64_t x;
        memcpy(&x, got, 8);
        v = (double)x;
    } else {
        float f;
        memcpy(&f, got, 4);
        v = f;
    }
    /* the exact sum: the integer sum rounded once to float32, bit for bit */
    if (c->op == CURED_OP_EXACT_SUM) {
        if (v == (double)(float)want)
            return 1;
        snprintf(note, len, "output 0: %.17g, the exact sum rounded once is %.9g", v, (double)(float)want);
        return 0;
    }
    /* float sums past 2^24 round: within 1e-6 of the sum of magnitudes (8 n) */
    if (v == want || (c->out == CURED_TYPE_FLOAT32 && fabs(v - want) <= 1e-6 * 8.0 * (double)n))
        return 1;
    snprintf(note, len, "output 0: %.17g, expected %.17g", v, want);
    return 0;
}

int cmd_bench_axes(int argc, char **argv)
{
    struct count_option counts[] = {{"--iters", 1, 100000, 20}, {"--device", 0, 1024, 0}};
    struct string_option strings[] = {{"--csv", NULL}, {"--only", NULL}};
    int parsed = parse_options(argc, argv, PROG, usage_text, counts, 2, strings, 2);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    const int iters = (int)counts[0].value;
    struct bk_gpu gpu;
    if (bk_open(&gpu, PROG, (int)counts[1].value) != 0) {
        bk_close(&gpu);
        return 1;
    }
    FILE *csv = NULL;
    if (strings[0].value != NULL && (csv = fopen(strings[0].value, "w")) == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, strings[0].value, strerror(errno));
        bk_close(&gpu);
        return 1;
    }
    const struct cr_driver_all *d = gpu.d;
    const char *only = strings[1].value;
    CUdeviceptr in = 0, out = 0, offs = 0, ctemp = 0;
    const size_t ctemp_bytes = (size_t)64 << 20;
    void *host = malloc(BYTES);
    char why[600] = "";
    int rc = 0;
    struct ceiling ceil = {0};
    if (host == NULL || d->MemAlloc(&in, BYTES) != CUDA_SUCCESS || d->MemAlloc(&out, (size_t)2 << 30) != CUDA_SUCCESS ||
        d->MemAlloc(&offs, (size_t)2 << 20 << 3) != CUDA_SUCCESS || d->MemAlloc(&ctemp, ctemp_bytes) != CUDA_SUCCESS ||
        ceiling_prepare(&ceil, d, gpu.ccmaj, gpu.ccmin, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, why[0] ? why : "out of memory");
        rc = 1;
        goto out;
    }
    printf("%s: 256 MiB inputs, every 2-D shape, both axes\n", PROG);
    bk_print_header(&gpu);
    /* The ceiling: the best of a sweep, read from the same buffer as the cells. */
    double best = 1e30;
    unsigned best_grid = 0, best_block = 0;
    int best_var = 0;
    d->MemsetD8(in, 1, BYTES);
    for (int v = 0; v < CEILING_VARIANTS; v++)
        for (unsigned per = 1; per <= 32; per *= 2)
            for (unsigned block = 256; block <= 512; block *= 2) {
                struct ceil_call k = {&ceil, v, per * (unsigned)gpu.sms, block, (void *)(uintptr_t)in, gpu.stream};
                bk_progress(PROG, "read ceiling: %d loads in flight, %u blocks of %u", v ? 8 : 4, k.grid, block);
                double us = axes_time_events(&gpu, iters, call_ceiling, &k, why, sizeof why);
                if (us > 0 && us < best)
                    best = us, best_grid = k.grid, best_block = block, best_var = v;
            }
    bk_progress_clear();
    const double ceil_gbps = (double)BYTES / (best * 1e3);
    printf("read ceiling: %.2f us for 256 MiB = %.1f GB/s (%d streaming 16-byte loads in flight per thread, %u "
           "blocks of %u, the best of a sweep of 24)\n",
           best, ceil_gbps, best_var ? 8 : 4, best_grid, best_block);
    printf("timing: the median of %d calls per cell, each between its own pair of events, after one untimed call\n\n",
           iters);
    printf("%-18s %-22s %4s %10s %9s %8s  %s\n", "cell", "shape", "axis", "cured us", "GB/s", "ceiling", "check");
    if (csv != NULL)
        fprintf(csv, "cell,rows,cols,axis,bytes,cured_us,cured_gbps,ceiling_gbps,ratio,check\n");
    double worst = 1e9, sum_ratio = 0, worst_cub = 1e9, worst_exact = 1e9;
    int ncells = 0, ncub = 0, cub_wins = 0, nexact = 0;
    for (int c = 0; c < NCELLS; c++) {
        const struct cell *ce = &cells[c];
        if (only != NULL && strstr(ce->label, only) == NULL)
            continue;
        const size_t esize = cured_type_size(ce->type), n = BYTES / esize;
        bk_progress(PROG, "%s: filling the input", ce->label);
        if (ce->spread) {
            struct bk_ref ref;
            bk_ref_init_spread(&ref, ce->type);
            bk_generate(&ref, 0, n, host);
        } else {
            fill_host(ce->type, host, n);
        }
        if (d->MemcpyHtoD(in, host, BYTES) != CUDA_SUCCESS) {
            rc = 1;
            break;
        }
        const size_t rsize = ce->op == CURED_OP_ARGMAX ? 16 : ce->op == CURED_OP_MEAN_VAR ? 8 : cured_type_size(ce->out);
        for (int k = 0; k <= 26; k += 2) {
            const size_t rows = (size_t)1 << k, cols = n / rows;
            for (int axis = 1; axis >= 0; axis--) {
                struct req q = {&gpu, ce->op, ce->type, ce->out, (void *)(uintptr_t)in, {2, {(int64_t)rows, (int64_t)cols}, {(int64_t)cols, 1}},
                                1u << axis, (void *)(uintptr_t)out, ""};
                bk_progress(PROG, "%s: %zu x %zu, axis %d", ce->label, rows, cols, axis);
                double us = axes_time_events(&gpu, iters, call_req, &q, q.why, sizeof q.why);
                const size_t nout = axis ? rows : cols, bytes = BYTES + nout * rsize;
                unsigned char got[16] = {0};
                char note[640] = "";
                int ok = us > 0 && d->MemcpyDtoH(got, out, rsize) == CUDA_SUCCESS &&
                         spot_check(ce, host, rows, cols, axis, got, note, sizeof note);
                if (us <= 0)
                    snprintf(note, sizeof note, "%s", q.why);
                const double gbps = us > 0 ? (double)bytes / (us * 1e3) : 0, ratio = gbps / ceil_gbps;
                bk_progress_clear();
                char shape[40];
                snprintf(shape, sizeof shape, "%zu x %zu", rows, cols);
                printf("%-18s %-22s %4d %10.2f %9.1f %7.2fx  %s%s%s\n", ce->label, shape, axis, us, gbps, ratio,
                       !ok ? "FAILED" : ce->spread ? "timed" : "ok", note[0] ? ": " : "", note);
                if (csv != NULL)
                    fprintf(csv, "%s,%zu,%zu,%d,%zu,%.3f,%.1f,%.1f,%.4f,%s\n", ce->label, rows, cols, axis, bytes, us,
                            gbps, ceil_gbps, ratio, !ok ? "failed" : ce->spread ? "timed" : "ok");
                rc |= !ok;
                if (!ce->spread) { /* the totals are of the bench's own data, as in the runs before */
                    worst = ratio < worst ? ratio : worst;
                    sum_ratio += ratio;
                    if (ce->op == CURED_OP_EXACT_SUM) {
                        nexact++;
                        worst_exact = ratio < worst_exact ? ratio : worst_exact;
                    }
                    ncells++;
                }
                fflush(stdout);
                cmp_op cop;
                cmp_type ct;
                if (axis == 1 && axes_cub_of(ce, &cop, &ct)) {
                    struct cub_req cq = {&gpu, cop, ct, (void *)(uintptr_t)in, (long long)rows, (long long)cols,
                                         NULL, NULL, (void *)(uintptr_t)out, (void *)(uintptr_t)ctemp, ctemp_bytes, ""};
                    char cshape[48];
                    snprintf(cshape, sizeof cshape, "%zu,%zu", rows, cols);
                    const size_t cbytes = BYTES + rows * (ce->op == CURED_OP_ARGMAX ? 8 : cured_type_size(ce->out));
                    const double cus = axes_cub_row(&cq, iters, cbytes, ceil_gbps, us, ce->label, shape, cshape, csv);
                    if (cus > 0 && us > 0) {
                        ncub++;
                        cub_wins += us < cus;
                        worst_cub = cus / us < worst_cub ? cus / us : worst_cub;
                    }
                }
            }
        }
    }
    /* A 3-D middle axis and the segments, float32 SUM and EXACT_SUM (with --only, when TEXT is in their
     * names or in the operator's cell name). */
    fill_host(CURED_TYPE_FLOAT32, host, BYTES / 4);
    d->MemcpyHtoD(in, host, BYTES);
    static const struct { cured_op op; const char *label, *csv; } more[] = {
        {CURED_OP_SUM, "float32 SUM", ""}, {CURED_OP_EXACT_SUM, "float32 EXACT_SUM", "exact "}};
    for (size_t m = 0; m < sizeof more / sizeof *more; m++) {
        if (only != NULL && strstr("3-D middle axis, segments power law, segments long, segments 16-64 KiB", only) == NULL &&
            strstr(more[m].label, only) == NULL)
            continue;
        struct req q = {&gpu, more[m].op, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, (void *)(uintptr_t)in,
                        {3, {256, 1024, 256}, {1024 * 256, 256, 1}}, 2u, (void *)(uintptr_t)out, ""};
        double us = axes_time_events(&gpu, iters, call_req, &q, q.why, sizeof q.why);
        const size_t bytes = BYTES + 256 * 256 * 4;
        const double gbps = us > 0 ? (double)bytes / (us * 1e3) : 0;
        printf("%-18s %-22s %4d %10.2f %9.1f %7.2fx  %s\n", more[m].label, "256 x 1024 x 256", 1, us, gbps,
               gbps / ceil_gbps, us > 0 ? "ran" : q.why);
        if (csv != NULL)
            fprintf(csv, "%s3-D middle axis,256x1024,256,1,%zu,%.3f,%.1f,%.1f,%.4f,%s\n", more[m].csv, bytes, us, gbps,
                    ceil_gbps, gbps / ceil_gbps, us > 0 ? "ran" : "failed");
        rc |= us <= 0;
        if (more[m].op == CURED_OP_EXACT_SUM) {
            nexact++;
            worst_exact = gbps / ceil_gbps < worst_exact ? gbps / ceil_gbps : worst_exact;
        }
        struct seg_tally t = {ncub, cub_wins, worst_cub, nexact, worst_exact};
        rc |= axes_segment_cells(&gpu, iters, more[m].op, (const void *)(uintptr_t)in, BYTES / 4,
                                 (void *)(uintptr_t)out, offs, (void *)(uintptr_t)ctemp, ctemp_bytes, ceil_gbps, csv, &t);
        ncub = t.ncub, cub_wins = t.cub_wins, worst_cub = t.worst_cub;
        nexact = t.nexact, worst_exact = t.worst_exact;
    }
    if (ncub)
        printf("\nCUB DeviceSegmentedReduce: cured faster in %d of %d cells; slowest at %.2fx CUB's speed\n", cub_wins,
               ncub, worst_cub);
    if (ncells)
        printf("\n2-D cells: worst %.2fx of the ceiling, mean %.2fx over %d cells\n", worst, sum_ratio / ncells, ncells);
    if (nexact)
        printf("EXACT_SUM cells (2-D, 3-D, segments): worst %.3fx of the ceiling over %d cells (goal >= 0.75: %s)\n",
               worst_exact, nexact, worst_exact >= 0.75 ? "met" : "NOT met");
out:
    if (csv)
        fclose(csv);
    if (ceil.module)
        ceiling_release(&ceil);
    if (in)
        d->MemFree(in);
    if (out)
        d->MemFree(out);
    if (offs)
        d->MemFree(offs);
    if (ctemp)
        d->MemFree(ctemp);
    free(host);
    bk_close(&gpu);
    return rc;
}
