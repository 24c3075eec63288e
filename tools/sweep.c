/*
 * `cured bench sweep`: the sum (AUTO) over sizes 2^10 ... 2^30, int32 and
 * float32, beside CUB's DeviceReduce::Sum, thrust::reduce and the read
 * ceiling when the nvcc-built comparator is in; then the host time of one
 * asynchronous call, cured's and CUB's.
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
#include "tool.h"

#define PROG "cured bench sweep"
#define WARM 3                   /* untimed calls per cell; the first compiles */
#define MAX_BUFFERS (1 << 17)    /* 4x a 128 MiB L2 at 4 KiB per buffer */
#define GEN_CHUNK ((size_t)4 << 20)
#define HOST_CALLS 100000        /* host-time loop: calls per repetition */
#define HOST_REPS 5              /* repetitions; their median is reported */
#define HOST_BATCH 256           /* calls between two (untimed) synchronisations */
#define HOST_N 1024
#define HOST_GOAL_US 1.5

static const char usage_text[] =
    "usage: cured bench sweep [--min-log2 K] [--max-log2 K] [--types LIST]\n"
    "                         [--iters K] [--device D] [--csv FILE]\n"
    "The sum with CURED_ALGO_AUTO (int32 -> int64, float32 -> float32) for\n"
    "n = 2^min ... 2^max, beside CUB's DeviceReduce::Sum (same result type),\n"
    "thrust::reduce (which returns to the host) and a read-only ceiling kernel\n"
    "when the nvcc-built comparator is in. Inputs rotate over enough copies to\n"
    "span 4x L2; every call is timed between its own pair of events and every\n"
    "result is checked. Then the host time of one cured_reduce_async() on 1024\n"
    "elements, from a tight loop of calls, beside one cuPointerGetAttributes, one\n"
    "bare cuLaunchKernel and one DeviceReduce::Sum call (the last two with the\n"
    "comparator).\n"
    "  --min-log2 K  smallest size 2^K (default 10)\n"
    "  --max-log2 K  largest size 2^K (default 30, at most 30)\n"
    "  --types LIST  comma-separated, of int32 and float32 (default int32,float32)\n"
    "  --iters K     timed calls per cell (default clamp(2e8 / bytes, 50, 2000))\n"
    "  --device D    CUDA device ordinal (default 0)\n"
    "  --csv FILE    also write the rows as CSV (tools/plot-sweep.sh draws it)\n"
    "Exit status: 0 if every cell ran and was correct; 1 otherwise or without a\n"
    "GPU; 2 for usage.\n";

enum { C_CURED, C_CUB, C_THRUST, C_CEIL, NCOL };
static const char *const col_names[NCOL] = {"cured", "CUB", "Thrust", "ceiling"};

struct cell {
    int ran, correct;
    struct bk_time t;
    double gbps;
};

struct sweep {
    struct bk_gpu *g;
    struct bk_set set;
    cured_type type, out_type;
    size_t n;
    struct bk_ref ref;
    int thrust_wrong;
    char thrust_note[160];
};

static int call_cured(void *user, int b, int b2, char *why, size_t len)
{
    struct sweep *S = user;
    (void)b2;
    cured_status st = cured_reduce_async(S->g->h, CURED_OP_SUM, CURED_ALGO_AUTO, bk_in(&S->set, b),
                                         S->type, S->n, bk_out(&S->set, b), S->out_type,
                                         S->g->stream);
    if (st == CURED_SUCCESS)
        return 0;
    snprintf(why, len, "cured_reduce_async: %s: %s", cured_status_string(st), cured_last_error());
    return -1;
}

#ifdef CURED_HAVE_CUB_COMPARATOR
static cmp_type cmp_of(cured_type t) { return t == CURED_TYPE_FLOAT32 ? CMP_FLOAT32 : CMP_INT32; }

static int call_cub(void *user, int b, int b2, char *why, size_t len)
{
    struct sweep *S = user;
    (void)b2;
    if (cmp_reduce(S->g->cmp, CMP_SUM, cmp_of(S->type), bk_in(&S->set, b), S->n, bk_out(&S->set, b),
                   S->g->stream) == 0)
        return 0;
    snprintf(why, len, "%s", cmp_last_error());
    return -1;
}

static int call_ceiling(void *user, int b, int b2, char *why, size_t len)
{
    struct sweep *S = user;
    (void)b2;
    if (cmp_read_ceiling(S->g->cmp, bk_in(&S->set, b), S->n, S->g->stream) == 0)
        return 0;
    snprintf(why, len, "%s", cmp_last_error());
    return -1;
}
#endif

/* The row's sum: exact for int32 (int64 result); for float32 within 1e-5 of
 * the sum of magnitudes (float accumulation over up to 2^30 terms). */
static int sum_ok(const struct sweep *S, const unsigned char *got, char *note, size_t len)
{
    if (S->out_type == CURED_TYPE_INT64) {
        int64_t v;
        memcpy(&v, got, 8);
        if (v == (int64_t)S->ref.isum)
            return 1;
        snprintf(note, len, "got %" PRId64 ", expected %" PRId64, v, (int64_t)S->ref.isum);
        return 0;
    }
    double v = bk_read_float(got, S->out_type), tol = 1e-5 * S->ref.sumabs + 1e-30;
    if (fabs(v - S->ref.sum) <= tol)
        return 1;
    snprintf(note, len, "got %.9g, expected %.9g (tolerance %.3g)", v, S->ref.sum, tol);
    return 0;
}

#ifdef CURED_HAVE_CUB_COMPARATOR
static int call_thrust(void *user, int b, int b2, char *why, size_t len)
{
    struct sweep *S = user;
    unsigned char got[8] = {0};
    long long v = 0;
    float f = 0;
    (void)b2;
    int rc = S->type == CURED_TYPE_INT32
                 ? cmp_thrust_sum_i64(bk_in(&S->set, b), S->n, &v, S->g->stream)
                 : cmp_thrust_sum_f32(bk_in(&S->set, b), S->n, &f, S->g->stream);
    if (rc != 0) {
        snprintf(why, len, "%s", cmp_last_error());
        return -1;
    }
    if (S->type == CURED_TYPE_INT32)
        memcpy(got, &v, 8);
    else
        memcpy(got, &f, 4);
    if (!sum_ok(S, got, S->thrust_note, sizeof S->thrust_note))
        S->thrust_wrong++;
    return 0;
}
#endif

/* Measure one cell; what went wrong is added to note (the row's, len bytes). */
static void measure(struct sweep *S, int col, int iters, struct cell *c, char *row_note, size_t row_len)
{
    size_t used = strlen(row_note);
    char *note = row_note + used;
    size_t len = row_len - used;
    if (used > 0 && len > 2) { /* "; " between the cells' notes */
        snprintf(note, len, "; ");
        note += 2, len -= 2;
    }
    bk_call_fn fn = call_cured;
    char why[1024] = "";
    c->ran = c->correct = 0;
#ifdef CURED_HAVE_CUB_COMPARATOR
    fn = col == C_CUB ? call_cub : col == C_THRUST ? call_thrust : col == C_CEIL ? call_ceiling : fn;
    if (col != C_CURED && S->g->cmp == NULL) { /* said once, in the header and at the end */
        row_note[used] = '\0';
        return;
    }
    if (col == C_CUB && cmp_reserve(S->g->cmp, CMP_SUM, cmp_of(S->type), S->n) != 0) {
        snprintf(note, len, "CUB: %s", cmp_last_error());
        return;
    }
#endif
    S->thrust_wrong = 0;
    if (bk_clear_slots(S->g, &S->set, why, sizeof why) != 0 ||
        bk_measure(S->g, &S->set, 1, WARM, iters, fn, S, &c->t, why, sizeof why) != 0) {
        snprintf(note, len, "%s: %s", col_names[col], why);
        return;
    }
    c->ran = 1;
    c->gbps = c->t.med_us > 0 ? (double)S->set.bytes / (c->t.med_us * 1e3) : 0;
    char bad[200] = "";
    if (col == C_CURED || col == C_CUB) {
        if (bk_read_slots(S->g, &S->set, why, sizeof why) != 0) {
            snprintf(note, len, "%s: %s", col_names[col], why);
            return;
        }
        for (int b = 0; b < S->set.nbuf && bad[0] == '\0'; b++)
            if (S->set.used[b] && !sum_ok(S, S->set.host_slots + (size_t)b * BK_SLOT, bad, sizeof bad))
                snprintf(note, len, "%s, buffer %d: %s", col_names[col], b, bad);
    } else if (col == C_THRUST && S->thrust_wrong > 0) {
        snprintf(note, len, "Thrust: %d wrong, e.g. %s", S->thrust_wrong, S->thrust_note);
        bad[0] = 'x';
    }
#ifdef CURED_HAVE_CUB_COMPARATOR
    else if (col == C_CEIL) { /* it keeps the last launch's partials */
        unsigned u = 0;
        if (cmp_read_ceiling_result(S->g->cmp, S->g->stream, &u) != 0)
            snprintf(bad, sizeof bad, "%s", cmp_last_error());
        else if (u != S->ref.words)
            snprintf(bad, sizeof bad, "word sum %u, expected %u", u, S->ref.words);
        if (bad[0] != '\0')
            snprintf(note, len, "ceiling: %s", bad);
    }
#endif
    c->correct = bad[0] == '\0';
    if (c->correct)
        row_note[used] = '\0'; /* no "; " without a note after it */
}

static void fmt_cell(char *buf, size_t len, const struct cell *c, int gbps)
{
    if (!c->ran)
        snprintf(buf, len, "-");
    else if (gbps)
        snprintf(buf, len, "%.*f", c->gbps >= 100 ? 1 : c->gbps >= 1 ? 2 : 4, c->gbps);
    else
        snprintf(buf, len, "%.2f", c->t.med_us);
}

static void print_header(void)
{
    printf("\n%-8s %4s %11s %9s %7s %10s %9s %10s %9s %9s %10s %9s %7s  %s\n", "type", "log2", "n",
           "bytes", "bufs", "cured us", "GB/s", "CUB us", "GB/s", "CUB/cured", "Thrust us",
           "ceil GB/s", "%ceil", "correct");
}

static void print_row(const struct sweep *S, int log2n, const struct cell *c, const char *note)
{
    char human[32], v[NCOL][2][24], ratio[16] = "-", pct[16] = "-";
    for (int k = 0; k < NCOL; k++)
        for (int j = 0; j < 2; j++)
            fmt_cell(v[k][j], sizeof v[k][j], &c[k], j);
    if (c[C_CURED].ran && c[C_CUB].ran && c[C_CURED].t.med_us > 0)
        snprintf(ratio, sizeof ratio, "%.2fx", c[C_CUB].t.med_us / c[C_CURED].t.med_us);
    if (c[C_CURED].ran && c[C_CEIL].ran && c[C_CEIL].gbps > 0)
        snprintf(pct, sizeof pct, "%.0f%%", 100 * c[C_CURED].gbps / c[C_CEIL].gbps);
    int ok = *note == '\0';
    printf("%-8s %4d %11zu %9s %7d %10s %9s %10s %9s %9s %10s %9s %7s  %s\n", cured_type_name(S->type),
           log2n, S->n, human_bytes(S->set.bytes, human), S->set.nbuf, v[C_CURED][0], v[C_CURED][1],
           v[C_CUB][0], v[C_CUB][1], ratio, v[C_THRUST][0], v[C_CEIL][1], pct, ok ? "yes" : "NO");
    if (!ok)
        printf("%9s^ %s\n", "", note);
    fflush(stdout);
}

static void csv_row(FILE *f, const struct sweep *S, int log2n, int iters, const struct cell *c,
                    const char *note)
{
    fprintf(f, "%s,%zu,%d,%zu,%d,%d", cured_type_name(S->type), S->n, log2n, S->set.bytes, S->set.nbuf,
            iters);
    for (int k = 0; k < NCOL; k++) { /* cured, CUB, the ratio, Thrust, the ceiling */
        if (c[k].ran)
            fprintf(f, ",%.3f,%.6g", c[k].t.med_us, c[k].gbps);
        else
            fputs(",,", f);
        if (k == C_CUB) {
            if (c[C_CURED].ran && c[C_CUB].ran && c[C_CURED].t.med_us > 0)
                fprintf(f, ",%.4f", c[C_CUB].t.med_us / c[C_CURED].t.med_us);
            else
                fputc(',', f);
        }
    }
    if (c[C_CURED].ran && c[C_CEIL].ran && c[C_CEIL].gbps > 0)
        fprintf(f, ",%.2f", 100 * c[C_CURED].gbps / c[C_CEIL].gbps);
    else
        fputc(',', f);
    fprintf(f, ",%s,\"", *note ? "no" : "yes");
    for (const char *p = note; *p; p++)
        fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, f);
    fputs("\"\n", f);
    fflush(f);
}

static int comparator_usable(const struct bk_gpu *g)
{
#ifdef CURED_HAVE_CUB_COMPARATOR
    return g->cmp != NULL;
#else
    (void)g;
    return 0;
#endif
}

/* One type: a master copy of the largest input, generated once (the data of
 * a size is a prefix of it), the host references at every size on the way. */
static int sweep_type(struct bk_gpu *g, cured_type type, int lo, int hi, int iters_opt, FILE *csv,
                      int *index, int total)
{
    struct sweep S = {.g = g, .type = type};
    struct bk_ref refs[31], r;
    CUdeviceptr master = 0;
    unsigned char *chunk = NULL;
    int failed = 0, wrong = 0; /* failed: stop here; wrong: a cell failed or was wrong */
    size_t maxn = (size_t)1 << hi, esize = cured_type_size(type);
    if (cured_default_result(CURED_OP_SUM, type, &S.out_type) != CURED_SUCCESS)
        return 1;
    CUresult e = g->d->MemAlloc(&master, maxn * esize);
    if (e != CUDA_SUCCESS) {
        fprintf(stderr, "%s: cuMemAlloc (%zu bytes of %s input): %s\n", PROG, maxn * esize,
                cured_type_name(type), cr_driver_error_text(e));
        return 1;
    }
    bk_progress(PROG, "generating %zu %s values", maxn, cured_type_name(type));
    bk_ref_init(&r, type);
    size_t m = maxn < GEN_CHUNK ? maxn : GEN_CHUNK;
    if ((chunk = malloc(m * esize)) == NULL) {
        fprintf(stderr, "%s: out of host memory\n", PROG);
        failed = 1;
    }
    for (size_t off = 0; off < maxn && !failed;) {
        /* Chunks end at every power of two from 2^lo, where the references are kept. */
        size_t end = off + m < maxn ? off + m : maxn;
        for (int k = lo; k <= hi; k++)
            if (((size_t)1 << k) > off && ((size_t)1 << k) < end)
                end = (size_t)1 << k;
        bk_generate(&r, off, end - off, chunk);
        if ((e = g->d->MemcpyHtoD(master + off * esize, chunk, (end - off) * esize)) != CUDA_SUCCESS) {
            fprintf(stderr, "%s: cuMemcpyHtoD: %s\n", PROG, cr_driver_error_text(e));
            failed = 1;
        }
        off = end;
        for (int k = lo; k <= hi; k++)
            if (off == (size_t)1 << k)
                refs[k] = r;
    }
    free(chunk);
    for (int k = lo; k <= hi && !failed; k++) {
        S.n = (size_t)1 << k;
        S.ref = refs[k];
        ++*index;
        bk_progress(PROG, "%s 2^%d (%d/%d)", cured_type_name(type), k, *index, total);
        if (bk_set_alloc(g, &S.set, S.n * esize, 1, MAX_BUFFERS) != 0 ||
            (e = g->d->MemcpyDtoD(S.set.base, master, S.n * esize)) != CUDA_SUCCESS ||
            bk_replicate(g, &S.set) != 0) {
            if (e != CUDA_SUCCESS)
                fprintf(stderr, "%s: cuMemcpyDtoD: %s\n", PROG, cr_driver_error_text(e));
            bk_set_free(g, &S.set);
            failed = 1;
            break;
        }
        double auto_iters = 2e8 / (double)S.set.bytes;
        int iters = iters_opt > 0 ? iters_opt : auto_iters < 50 ? 50 : auto_iters > 2000 ? 2000 : (int)auto_iters;
        struct cell c[NCOL];
        char note[1600] = "";
        memset(c, 0, sizeof c);
        /* The comparator first, so that a fault in a cured kernel cannot hide it. */
        for (int col = C_CUB; col < NCOL && HAVE_COMPARATOR; col++)
            measure(&S, col, iters, &c[col], note, sizeof note);
        measure(&S, C_CURED, iters, &c[C_CURED], note, sizeof note);
        /* An unusable comparator's cells are "-" without a note (cmd_bench_sweep fails). */
        for (int col = 0; col < NCOL; col++)
            wrong |= (col == C_CURED || comparator_usable(g)) && (!c[col].ran || !c[col].correct);
        bk_progress_clear();
        print_row(&S, k, c, note);
        if (csv != NULL)
            csv_row(csv, &S, k, iters, c, note);
        bk_set_free(g, &S.set);
    }
    g->d->MemFree(master);
    return failed || wrong;
}

/* Host time of one asynchronous call on HOST_N int32 (bk_host_us), then one
 * more call into a cleared slot, as a check that the calls do their work. */
static double host_us(struct bk_gpu *g, struct sweep *S, bk_call_fn call, char *why, size_t len)
{
    double us = bk_host_us(g, S, call, HOST_CALLS, HOST_REPS, HOST_BATCH, why, len);
    if (us < 0)
        return -1;
    char bad[200] = "";
    if (bk_clear_slots(g, &S->set, why, len) != 0 || call(S, 0, 0, why, len) != 0 ||
        bk_read_slots(g, &S->set, why, len) != 0)
        return -1;
    if (!sum_ok(S, S->set.host_slots, bad, sizeof bad)) {
        snprintf(why, len, "wrong result: %s", bad);
        return -1;
    }
    return us;
}

/* What a call costs at the least: the driver calls it is made of, alone. The
 * pointer query is the library's (src/devptr.c): memory type and allocation range. */
static int call_pointer_query(void *user, int b, int b2, char *why, size_t len)
{
    struct sweep *S = user;
    (void)b, (void)b2;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned int type = 0;
    CUdeviceptr start = 0;
    size_t size = 0;
    void *data[] = {&type, &start, &size};
    CUresult e = S->g->d->PointerGetAttributes(3, attrs, data, (CUdeviceptr)(uintptr_t)bk_in(&S->set, 0));
    if (e == CUDA_SUCCESS)
        return 0;
    snprintf(why, len, "cuPointerGetAttributes: %s", cr_driver_error_text(e));
    return -1;
}

#ifdef CURED_HAVE_CUB_COMPARATOR
struct bare_launch {
    struct sweep *S;
    CUfunction fn;
    CUdeviceptr in, tail, partials;
    size_t nvec;
    unsigned int ntail;
};

static int call_bare_launch(void *user, int b, int b2, char *why, size_t len)
{
    struct bare_launch *L = user;
    (void)b, (void)b2;
    void *params[] = {&L->in, &L->nvec, &L->tail, &L->ntail, &L->partials};
    CUresult e = L->S->g->d->LaunchKernel(L->fn, 1, 1, 1, 256, 1, 1, 0, L->S->g->stream, params, NULL);
    if (e == CUDA_SUCCESS)
        return 0;
    snprintf(why, len, "cuLaunchKernel: %s", cr_driver_error_text(e));
    return -1;
}
#endif

static int host_time(struct bk_gpu *g)
{
    struct sweep S = {.g = g, .type = CURED_TYPE_INT32, .out_type = CURED_TYPE_INT64, .n = HOST_N};
    char why[1024] = "";
    int rc = 0;
    bk_ref_init(&S.ref, S.type);
    bk_progress(PROG, "host time per call");
    if (bk_set_alloc(g, &S.set, HOST_N * 4, 1, 1) != 0 || bk_fill(g, &S.set, &S.ref, HOST_N) != 0) {
        bk_set_free(g, &S.set);
        return 1;
    }
    printf("\nhost time per asynchronous call, %d int32 -> int64 (median of %d x %d calls, a "
           "synchronisation every %d calls, not counted):\n", HOST_N, HOST_REPS, HOST_CALLS, HOST_BATCH);
    double us = host_us(g, &S, call_cured, why, sizeof why);
    bk_progress_clear();
    if (us < 0) {
        printf("  cured_reduce_async (AUTO): FAIL: %s\n", why);
        rc = 1;
    } else {
        printf("  cured_reduce_async (AUTO):   %6.3f us  (goal <= %.1f us: %s)\n", us, HOST_GOAL_US,
               us <= HOST_GOAL_US ? "met" : "NOT met");
    }
    if ((us = bk_host_us(g, &S, call_pointer_query, HOST_CALLS, HOST_REPS, HOST_BATCH, why, sizeof why)) < 0) {
        printf("  cuPointerGetAttributes: FAIL: %s\n", why);
        rc = 1;
    } else {
        printf("  cuPointerGetAttributes:      %6.3f us  (one pointer: type and allocation range, as cured asks; for comparison)\n", us);
    }
#ifdef CURED_HAVE_CUB_COMPARATOR
    struct bare_launch L = {.S = &S, .in = (CUdeviceptr)(uintptr_t)bk_in(&S.set, 0), .nvec = HOST_N / 4};
    void *fn = NULL, *partials = NULL;
    if (g->cmp == NULL || cmp_read_ceiling_function(g->cmp, &fn, &partials) != 0) {
        printf("  cuLaunchKernel: not measured: %s\n", g->cmp ? cmp_last_error() : g->cmp_error);
        rc = 1;
    } else {
        L.fn = (CUfunction)fn;
        L.partials = (CUdeviceptr)(uintptr_t)partials;
        L.tail = L.in; /* ntail = 0: not read */
        if ((us = bk_host_us(g, &L, call_bare_launch, HOST_CALLS, HOST_REPS, HOST_BATCH, why, sizeof why)) < 0) {
            printf("  cuLaunchKernel: FAIL: %s\n", why);
            rc = 1;
        } else {
            printf("  cuLaunchKernel alone:        %6.3f us  (the read-ceiling kernel, 1 block, 5 parameters; "
                   "the floor of any launch)\n", us);
        }
    }
    if (g->cmp == NULL) {
        printf("  cub::DeviceReduce::Sum: comparator not usable: %s\n", g->cmp_error);
        rc = 1;
    } else if (cmp_reserve(g->cmp, CMP_SUM, CMP_INT32, HOST_N) != 0) {
        printf("  cub::DeviceReduce::Sum: FAIL: %s\n", cmp_last_error());
        rc = 1;
    } else if ((us = host_us(g, &S, call_cub, why, sizeof why)) < 0) {
        printf("  cub::DeviceReduce::Sum: FAIL: %s\n", why);
        rc = 1;
    } else {
        printf("  cub::DeviceReduce::Sum:      %6.3f us  (through the comparator's C wrapper)\n", us);
    }
    bk_progress_clear();
#endif
    bk_set_free(g, &S.set);
    return rc;
}

/* "int32,float32" into types[]; the count, or -1. */
static int parse_types(const char *list, cured_type *types)
{
    int count = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        cured_type t;
        if (len == 5 && strncmp(p, "int32", 5) == 0)
            t = CURED_TYPE_INT32;
        else if (len == 7 && strncmp(p, "float32", 7) == 0)
            t = CURED_TYPE_FLOAT32;
        else
            return -1;
        for (int i = 0; i < count; i++)
            if (types[i] == t)
                return -1;
        types[count++] = t;
        p += len + (p[len] == ',');
    }
    return count;
}

int cmd_bench_sweep(int argc, char **argv)
{
    struct count_option counts[] = {{"--min-log2", 0, 30, 10},
                                    {"--max-log2", 0, 30, 30},
                                    {"--iters", 1, 10000000, 0},
                                    {"--device", 0, 1024, 0}};
    struct string_option strings[] = {{"--csv", NULL}, {"--types", "int32,float32"}};
    int parsed = parse_options(argc, argv, PROG, usage_text, counts, 4, strings, 2);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    const uint64_t val[4] = {counts[0].value, counts[1].value, counts[2].value, counts[3].value};
    const char *csv_path = strings[0].value, *types_arg = strings[1].value;
    cured_type types[2];
    int ntypes = parse_types(types_arg, types);
    if (ntypes <= 0 || val[0] > val[1]) {
        fprintf(stderr, "%s: %s\n%s", PROG, ntypes <= 0 ? "--types takes int32 and/or float32"
                                                        : "--min-log2 is over --max-log2", usage_text);
        return 2;
    }

    FILE *csv = NULL;
    struct bk_gpu gpu;
    if (bk_open(&gpu, PROG, (int)val[3]) != 0) {
        bk_close(&gpu);
        return 1;
    }
    if (csv_path != NULL && (csv = fopen(csv_path, "w")) == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, csv_path, strerror(errno));
        bk_close(&gpu);
        return 1;
    }
    if (csv != NULL)
        fputs("type,n,log2,bytes,buffers,iters,cured_us,cured_gbps,cub_us,cub_gbps,cub_over_cured,"
              "thrust_us,thrust_gbps,ceiling_us,ceiling_gbps,cured_pct_of_ceiling,correct,note\n", csv);
    printf("%s: the sum (AUTO) from 2^%d to 2^%d elements\n", PROG, (int)val[0], (int)val[1]);
    bk_print_header(&gpu);
    printf("timing: the median of K calls per cell (%s), each between its own pair of events, "
           "after %d untimed; inputs rotate over copies spanning >= 4 x L2 (%d at most)\n",
           val[2] ? "--iters" : "K = clamp(2e8 / bytes, 50, 2000)", WARM, MAX_BUFFERS);
    print_header();
    int rc = 0, index = 0, total = ntypes * (int)(val[1] - val[0] + 1);
    for (int t = 0; t < ntypes; t++)
        rc |= sweep_type(&gpu, types[t], (int)val[0], (int)val[1], (int)val[2], csv, &index, total);
    bk_progress_clear();
    printf("\nGB/s: bytes read / median time. CUB/cured: CUB's time over cured's (> 1: cured is "
           "faster). %%ceil: cured's GB/s over the read ceiling's.\n");
    printf("Checks: int32 sums exact (int64), float32 sums within 1e-5 of the sum of magnitudes "
           "of a double sum; every timed call's result is checked.\n");
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (gpu.cmp == NULL) {
        printf("the comparator was not usable, so its cells are empty: %s\n", gpu.cmp_error);
        rc = 1;
    }
#endif
    if (HAVE_COMPARATOR)
        printf("Thrust returns its result to the host: its time includes a device-to-host copy, a "
               "synchronisation and its temporary allocation.\nread ceiling: an nvcc-built kernel "
               "that only reads and sums 32-bit words (4 int4 loads in flight per thread).\n");
    rc |= host_time(&gpu);
    if (csv != NULL && fclose(csv) != 0) {
        fprintf(stderr, "%s: error writing %s: %s\n", PROG, csv_path, strerror(errno));
        rc = 1;
    }
    bk_close(&gpu);
    return rc;
}
