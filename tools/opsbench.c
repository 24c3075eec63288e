/*
 * `cured bench ops`: every operator over eight element types at 64Mi
 * elements, each beside CUB's equivalent where CUB has one and the
 * nvcc-built comparator is in (DeviceReduce::Sum, Min, Max, ArgMin, ArgMax,
 * TransformReduce), plus a user-defined sum of squares beside the built-in.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchkit.h"
#include "opsbench_exact.h"
#include "opsbench_stats.h"
#include "tool.h"

#define PROG "cured bench ops"
#define WARM 3              /* untimed calls per cell; the first compiles */
#define MAX_BUFFERS 1024
#define MAX_ROWS 128
#define CUSTOM_GOAL 1.05    /* user-defined / built-in time */

static const char usage_text[] =
    "usage: cured bench ops [--n N] [--iters K] [--device D] [--csv FILE] [--type T]\n"
    "Every operator over int8, int32, int64, uint32, float16, bfloat16, float32\n"
    "and float64 (SUM, SUM_SQUARES and PRODUCT with the default result type, MIN,\n"
    "MAX, MINMAX, ARGMIN, ARGMAX; AND for the integers; NANMAX, NORM2, DOT and\n"
    "SUM_SQUARES -> float64 for float32), each beside CUB's equivalent when the\n"
    "nvcc-built comparator is in (DeviceReduce::Sum, Min, Max, ArgMin, ArgMax;\n"
    "TransformReduce for the sum of squares and the 16-bit sums), and a\n"
    "user-defined sum of squares (cured_custom_create: x*x, a+b, 0) beside the\n"
    "built-in one; for float32 also MEAN_VAR (float32 and float64 results),\n"
    "LOGSUMEXP and the user-defined two-field mean/variance of cured.h\n"
    "(cured_custom_create_multi), beside SUM and the read ceiling. The exact sums of\n"
    "the float types (EXACT_SUM, EXACT_SUM_SQUARES; for float32 also EXACT_MEAN,\n"
    "EXACT_NORM2 and EXACT_DOT; float16 and bfloat16 into float32), checked bit for\n"
    "bit against a host fixed-point sum, as shares of the read ceiling measured for\n"
    "each type in the same run, EXACT_SUM of float32 and float64 beside CUB's\n"
    "DeviceReduce::Sum under gpu_to_gpu determinism (CCCL 3.1 or newer); then\n"
    "EXACT_SUM again on the worst case (\"spread\": every binade, alternating signs,\n"
    "heavy cancellation).\n"
    "Kernels are compiled by an untimed first call. Inputs rotate\n"
    "over copies spanning 4x L2; every call is timed between its own pair of\n"
    "events and every result is checked.\n"
    "  --n N       elements per reduction (default 64Mi; suffixes K, M, G are\n"
    "              binary; below 2^31)\n"
    "  --iters K   timed calls per cell (default 200)\n"
    "  --device D  CUDA device ordinal (default 0)\n"
    "  --csv FILE  also write the rows as CSV\n"
    "  --type T    only the rows of element type T, or of a comma-separated list\n"
    "              (e.g. float32: SUM beside the statistics and the ceiling;\n"
    "              float16,bfloat16,float32,float64: the float types, exact sums\n"
    "              included)\n"
    "Exit status: 0 if every cell ran and was correct; 1 otherwise or without a\n"
    "GPU; 2 for usage.\n";

static const cured_type types[] = {CURED_TYPE_INT8,    CURED_TYPE_INT32,    CURED_TYPE_INT64,
                                   CURED_TYPE_UINT32,  CURED_TYPE_FLOAT16,  CURED_TYPE_BFLOAT16,
                                   CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64};
#define NTYPES (int)(sizeof types / sizeof *types)

enum { LIB_CURED, LIB_CUB };

/* A row's `cub` for CUB's gpu_to_gpu sum: cmp_op's CMP_SUM_GPU_TO_GPU, named
 * here too for builds without the comparator. */
#define CUB_G2G 6
#ifdef CURED_HAVE_CUB_COMPARATOR
_Static_assert(CUB_G2G == CMP_SUM_GPU_TO_GPU, "CUB_G2G is CMP_SUM_GPU_TO_GPU");
#endif

struct oprow {
    cured_type type, out;
    cured_op op;
    int cub;    /* a cmp_op, or -1: CUB has no direct equivalent */
    int custom; /* 1: the user-defined sum of squares; OBS_CUSTOM_MEANVAR: the two-field mean/variance */
    int spread; /* on bk_ref_init_spread()'s data, not the random data */
    double ceiling_gbps; /* the float types: the read ceiling over this type's inputs; 0 if none */
    int cub_absent;      /* the comparator has no gpu_to_gpu sum (built against CCCL < 3.1) */
    int ran[2], correct[2];
    struct bk_time t[2];
    double gbps[2];
    size_t bytes; /* read per call */
    char note[800];
};

struct ops {
    struct bk_gpu *g;
    struct bk_set set;
    size_t n;
    struct bk_ref ref;
    struct oprow *row;
    cured_custom custom, custom_mv;
    double lse; /* float32: the input's logsumexp */
    struct oex_ref xref; /* float types: the exact sums of the input */
};

static int is_int(cured_type t) { return t != CURED_TYPE_FLOAT16 && t != CURED_TYPE_BFLOAT16 && t != CURED_TYPE_FLOAT32 && t != CURED_TYPE_FLOAT64; }

/* The exact sums' result: float32 for the 16-bit types (as SUM's), else the element type. */
static cured_type exact_out(cured_type t) { return t == CURED_TYPE_FLOAT16 || t == CURED_TYPE_BFLOAT16 ? CURED_TYPE_FLOAT32 : t; }

/* The exact rows of float type ty, the spread one last (the data change before it). */
static int exact_rows(cured_type ty, struct oprow *rows)
{
    static const cured_op all[] = {CURED_OP_EXACT_SUM, CURED_OP_EXACT_SUM_SQUARES};
    static const cured_op f32[] = {CURED_OP_EXACT_MEAN, CURED_OP_EXACT_NORM2, CURED_OP_EXACT_DOT};
    const int g2g = ty == CURED_TYPE_FLOAT32 || ty == CURED_TYPE_FLOAT64 ? CUB_G2G : -1;
    int k = 0;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        rows[k++] = (struct oprow){.type = ty, .out = exact_out(ty), .op = all[i],
                                   .cub = all[i] == CURED_OP_EXACT_SUM ? g2g : -1};
    for (size_t i = 0; ty == CURED_TYPE_FLOAT32 && i < sizeof f32 / sizeof *f32; i++)
        rows[k++] = (struct oprow){.type = ty, .out = exact_out(ty), .op = f32[i], .cub = -1};
    rows[k++] = (struct oprow){.type = ty, .out = exact_out(ty), .op = CURED_OP_EXACT_SUM, .cub = g2g, .spread = 1};
    return k;
}

static int make_rows(struct oprow *rows)
{
    static const cured_op common[] = {CURED_OP_SUM, CURED_OP_SUM_SQUARES, CURED_OP_MIN, CURED_OP_MAX,
                                      CURED_OP_MINMAX, CURED_OP_ARGMIN, CURED_OP_ARGMAX,
                                      CURED_OP_PRODUCT};
    static const cured_op f32_extra[] = {CURED_OP_NANMAX, CURED_OP_NORM2, CURED_OP_DOT};
    int k = 0;
    for (int t = 0; t < NTYPES; t++) {
        cured_type ty = types[t];
        cured_op list[16];
        int m = 0;
        for (size_t i = 0; i < sizeof common / sizeof *common; i++)
            list[m++] = common[i];
        if (is_int(ty))
            list[m++] = CURED_OP_AND;
        if (ty == CURED_TYPE_FLOAT32)
            for (size_t i = 0; i < sizeof f32_extra / sizeof *f32_extra; i++)
                list[m++] = f32_extra[i];
        for (int i = 0; i < m; i++) {
            struct oprow *r = &rows[k++];
            memset(r, 0, sizeof *r);
            r->type = ty;
            r->op = list[i];
            if (cured_default_result(r->op == CURED_OP_DOT ? CURED_OP_SUM : r->op, ty, &r->out) != CURED_SUCCESS)
                r->out = ty;
            r->cub = r->op == CURED_OP_SUM ? 0 : r->op == CURED_OP_MIN ? 1 : r->op == CURED_OP_MAX ? 2
                   : r->op == CURED_OP_ARGMIN ? 3 : r->op == CURED_OP_ARGMAX ? 4
                   : r->op == CURED_OP_SUM_SQUARES ? 5 : -1;
        }
        if (ty == CURED_TYPE_FLOAT32) { /* the built-in with a double accumulator, then the user's */
            for (int c = 0; c < 2; c++) {
                struct oprow *r = &rows[k++];
                memset(r, 0, sizeof *r);
                *r = (struct oprow){.type = ty, .out = CURED_TYPE_FLOAT64, .op = CURED_OP_SUM_SQUARES,
                                    .cub = -1, .custom = c};
            }
            /* statistics: MEAN_VAR into float32 and float64, LOGSUMEXP, the user's mean/variance */
            static const struct { cured_op op; cured_type out; int custom; } st[] = {
                {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32, 0}, {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT64, 0},
                {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32, 0}, {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT64, OBS_CUSTOM_MEANVAR}};
            for (size_t c = 0; c < sizeof st / sizeof *st; c++)
                rows[k++] = (struct oprow){.type = ty, .out = st[c].out, .op = st[c].op, .cub = -1, .custom = st[c].custom};
        }
        if (!is_int(ty))
            k += exact_rows(ty, rows + k);
    }
    return k;
}

#ifdef CURED_HAVE_CUB_COMPARATOR
/* The comparator's enum values follow CMP_SUM, CMP_MIN, CMP_MAX, CMP_ARGMIN,
 * CMP_ARGMAX, CMP_SUM_SQUARES, as make_rows() numbers them. */
static cmp_type cmp_of(cured_type t)
{
    switch (t) {
    case CURED_TYPE_INT8: return CMP_INT8;
    case CURED_TYPE_INT32: return CMP_INT32;
    case CURED_TYPE_INT64: return CMP_INT64;
    case CURED_TYPE_UINT32: return CMP_UINT32;
    case CURED_TYPE_FLOAT16: return CMP_FLOAT16;
    case CURED_TYPE_BFLOAT16: return CMP_BFLOAT16;
    case CURED_TYPE_FLOAT32: return CMP_FLOAT32;
    default: return CMP_FLOAT64;
    }
}

static int call_cub(void *user, int b, int b2, char *why, size_t len)
{
    struct ops *O = user;
    (void)b2;
    if (cmp_reduce(O->g->cmp, (cmp_op)O->row->cub, cmp_of(O->row->type), bk_in(&O->set, b), O->n,
                   bk_out(&O->set, b), O->g->stream) == 0)
        return 0;
    snprintf(why, len, "%s", cmp_last_error());
    return -1;
}
#endif

static int call_cured(void *user, int b, int b2, char *why, size_t len)
{
    struct ops *O = user;
    const struct oprow *r = O->row;
    cured_status st;
    if (r->custom)
        st = cured_custom_reduce_async(O->g->h, r->custom == OBS_CUSTOM_MEANVAR ? O->custom_mv : O->custom,
                                       bk_in(&O->set, b), NULL, O->n, bk_out(&O->set, b), O->g->stream);
    else if (r->op == CURED_OP_DOT)
        st = cured_dot_async(O->g->h, bk_in(&O->set, b), bk_in(&O->set, b2), r->type, O->n,
                             bk_out(&O->set, b), r->out, O->g->stream);
    else if (r->op == CURED_OP_EXACT_DOT)
        st = cured_exact_dot_async(O->g->h, bk_in(&O->set, b), bk_in(&O->set, b2), r->type, O->n,
                                   bk_out(&O->set, b), r->out, O->g->stream);
    else
        st = cured_reduce_async(O->g->h, r->op, CURED_ALGO_AUTO, bk_in(&O->set, b), r->type, O->n,
                                bk_out(&O->set, b), r->out, O->g->stream);
    if (st == CURED_SUCCESS)
        return 0;
    snprintf(why, len, "%s: %s", cured_status_string(st), cured_last_error());
    return -1;
}

/* Is t in --type's comma-separated list (or is there none)? */
static int type_chosen(const char *list, cured_type t)
{
    const char *name = cured_type_name(t);
    const size_t len = strlen(name);
    for (const char *p = list; p != NULL; p = strchr(p, ','), p = p ? p + 1 : NULL)
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return list == NULL;
}

/* Whether the comparator has CUB's gpu_to_gpu sum, for the legend. */
static const char *g2g_state(struct bk_gpu *g)
{
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (g->cmp == NULL)
        return "the comparator is not usable";
    return cmp_reserve(g->cmp, CMP_SUM_GPU_TO_GPU, CMP_FLOAT32, 1) == 0 ? "built in" : cmp_last_error();
#else
    (void)g;
    return "no comparator";
#endif
}

static void hex(char *buf, size_t len, const unsigned char *p, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = n; i-- > 0 && k + 3 < len;) /* most significant byte first (little-endian) */
        k += (size_t)snprintf(buf + k, len - k, "%02x", p[i]);
}

/* Whether got holds row r's result for the input that ref describes: exact
 * for integers, extrema and indices (bit patterns); floating-point sums
 * within 1e-5 (float accumulation) or 1e-9 (double) of a double sum,
 * relative to the sum of magnitudes. */
static int check(const struct oprow *r, int lib, const struct ops *O, const unsigned char *got, char *note,
                 size_t len)
{
    const struct bk_ref *ref = &O->ref;
    const double lse = O->lse;
    const size_t es = ref->esize;
    char a[40], b[40];
    if (oex_is_exact(r->op) && lib == LIB_CURED)
        return oex_check(r->op, r->out, &O->xref, got, note, len);
    if (r->op == CURED_OP_EXACT_SUM) { /* CUB's gpu_to_gpu sum: a float sum */
        struct oprow sum = *r;
        sum.op = CURED_OP_SUM;
        if (!r->spread)
            return check(&sum, lib, O, got, note, len);
        oex_describe(r->out, &O->xref, got, note, len);
        return 1;
    }
    if (obs_is_stats(r->op, r->custom))
        return obs_check(r->op, r->custom, r->out, ref, lse, got, note, len);
    switch (r->op) {
    case CURED_OP_MIN: case CURED_OP_MAX: case CURED_OP_NANMAX: case CURED_OP_AND: {
        unsigned char want[8];
        if (r->op == CURED_OP_AND)
            memcpy(want, &ref->iand, 8); /* little-endian: the low bytes first */
        else
            memcpy(want, r->op == CURED_OP_MIN ? ref->min_bits : ref->max_bits, es);
        if (memcmp(got, want, es) == 0)
            return 1;
        hex(a, sizeof a, got, es), hex(b, sizeof b, want, es);
        snprintf(note, len, "got bits %s, expected %s", a, b);
        return 0;
    }
    case CURED_OP_MINMAX:
        if (memcmp(got, ref->min_bits, es) == 0 && memcmp(got + es, ref->max_bits, es) == 0)
            return 1;
        hex(a, sizeof a, got, 2 * es);
        snprintf(note, len, "got bits %s (max, min), expected min at %zu and max at %zu", a, ref->imin,
                 ref->imax);
        return 0;
    case CURED_OP_ARGMIN: case CURED_OP_ARGMAX: {
        int64_t idx;
        const size_t want = r->op == CURED_OP_ARGMIN ? ref->imin : ref->imax;
        memcpy(&idx, got, 8);
        if (idx == (int64_t)want && memcmp(got + 8, r->op == CURED_OP_ARGMIN ? ref->min_bits : ref->max_bits, es) == 0)
            return 1;
        snprintf(note, len, "got index %" PRId64 ", expected %zu (the first)", idx, want);
        return 0;
    }
    default:
        break;
    }
    if (r->out == CURED_TYPE_INT64 || r->out == CURED_TYPE_UINT64) { /* modulo 2^64 */
        uint64_t v, want = r->op == CURED_OP_SUM ? ref->isum : r->op == CURED_OP_PRODUCT ? ref->iprod
                                                                                         : ref->isumsq;
        memcpy(&v, got, 8);
        if (v == want)
            return 1;
        if (r->out == CURED_TYPE_INT64)
            snprintf(note, len, "got %" PRId64 ", expected %" PRId64 " (modulo 2^64)", (int64_t)v,
                     (int64_t)want);
        else
            snprintf(note, len, "got %" PRIu64 ", expected %" PRIu64 " (modulo 2^64)", v, want);
        return 0;
    }
    double v = bk_read_float(got, r->out), rel = r->out == CURED_TYPE_FLOAT64 ? 1e-9 : 1e-5;
    double want = ref->sumsq, tol = rel * ref->sumsq;
    if (r->op == CURED_OP_SUM)
        want = ref->sum, tol = rel * ref->sumabs;
    else if (r->op == CURED_OP_NORM2)
        want = sqrt(ref->sumsq), tol = rel * want;
    else if (r->op == CURED_OP_PRODUCT) /* |x| < 1: it underflows to 0 but for short inputs */
        want = ref->prod, tol = 1e-3 * fabs(want) + (r->out == CURED_TYPE_FLOAT64 ? DBL_MIN : FLT_MIN);
    /* DOT: x and y are copies of one input, so x.y is the sum of squares. */
    if (fabs(v - want) <= tol + 1e-300)
        return 1;
    snprintf(note, len, "got %.10g, expected %.10g (tolerance %.3g)", v, want, tol);
    return 0;
}

static void measure(struct ops *O, int lib, int iters)
{
    struct oprow *r = O->row;
    char why[1024] = "", bad[300] = "";
    size_t used = strlen(r->note);
    bk_call_fn fn = call_cured;
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (lib == LIB_CUB) {
        fn = call_cub;
        if (cmp_reserve(O->g->cmp, (cmp_op)r->cub, cmp_of(r->type), O->n) != 0) {
            snprintf(why, sizeof why, "%s", cmp_last_error());
            r->cub_absent = r->cub == CUB_G2G; /* older CCCL: said so, not a failure */
        }
    }
#endif
    if (why[0] == '\0' && bk_clear_slots(O->g, &O->set, why, sizeof why) == 0 &&
        bk_measure(O->g, &O->set, r->op == CURED_OP_DOT || r->op == CURED_OP_EXACT_DOT ? 2 : 1, WARM, iters, fn, O,
                   &r->t[lib], why,
                   sizeof why) == 0 &&
        bk_read_slots(O->g, &O->set, why, sizeof why) == 0) {
        r->ran[lib] = 1;
        r->gbps[lib] = r->t[lib].med_us > 0 ? (double)r->bytes / (r->t[lib].med_us * 1e3) : 0;
        r->correct[lib] = 1;
        for (int b = 0; b < O->set.nbuf && r->correct[lib]; b++)
            if (O->set.used[b] && !check(r, lib, O, O->set.host_slots + (size_t)b * BK_SLOT, bad, sizeof bad)) {
                r->correct[lib] = 0;
                snprintf(why, sizeof why, "buffer %d: %s", b, bad);
            }
        if (r->correct[lib] && r->spread && lib == LIB_CUB && bad[0] != '\0') /* CUB's result beside the exact one */
            snprintf(why, sizeof why, "%s", bad);
    }
    if (why[0] != '\0')
        snprintf(r->note + used, sizeof r->note - used, "%s%s: %s", used ? "; " : "",
                 lib == LIB_CUB ? "CUB" : "cured", why);
}

static const char *op_label(const struct oprow *r)
{
    if (r->spread)
        return "EXACT_SUM spread"; /* the only row on the spread data */
    return r->custom == OBS_CUSTOM_MEANVAR ? "custom m/v" : r->custom ? "custom x*x" : cured_op_name(r->op);
}

static void print_row(const struct oprow *r, int have_cub)
{
    char v[2][2][24], ratio[16] = "-";
    for (int lib = 0; lib < 2; lib++) {
        snprintf(v[lib][0], sizeof v[lib][0], "-");
        snprintf(v[lib][1], sizeof v[lib][1], "-");
        if (r->ran[lib]) {
            snprintf(v[lib][0], sizeof v[lib][0], "%.2f", r->t[lib].med_us);
            snprintf(v[lib][1], sizeof v[lib][1], "%.1f", r->gbps[lib]);
        }
    }
    if (r->ran[LIB_CURED] && r->ran[LIB_CUB] && r->t[LIB_CURED].med_us > 0)
        snprintf(ratio, sizeof ratio, "%.2fx", r->t[LIB_CUB].med_us / r->t[LIB_CURED].med_us);
    const char *cub_ok = r->cub < 0 || !have_cub ? "-" : r->cub_absent ? "absent"
                       : r->ran[LIB_CUB] ? (r->spread ? "unchecked" : r->correct[LIB_CUB] ? "yes" : "NO") : "FAIL";
    printf("%-9s %-17s %-8s %10s %8s %10s %8s %9s  %s/%s\n", cured_type_name(r->type), op_label(r),
           cured_type_name(r->out), v[0][0], v[0][1], v[1][0], v[1][1], ratio,
           r->ran[LIB_CURED] ? (r->correct[LIB_CURED] ? "yes" : "NO") : "FAIL", cub_ok);
    if (r->note[0] != '\0')
        printf("%10s^ %s\n", "", r->note);
    fflush(stdout);
}

static void csv_row(FILE *f, const struct oprow *r, size_t n, int nbuf, int iters, int have_cub)
{
    fprintf(f, "%s,%s,%s,%zu,%zu,%d,%d", cured_type_name(r->type), op_label(r), cured_type_name(r->out), n,
            r->bytes, nbuf, iters);
    for (int lib = 0; lib < 2; lib++) {
#ifdef CURED_HAVE_CUB_COMPARATOR
        if (lib == LIB_CUB)
            fprintf(f, ",%s", r->cub >= 0 ? cmp_op_call((cmp_op)r->cub, cmp_of(r->type)) : "");
#endif
#ifndef CURED_HAVE_CUB_COMPARATOR
        if (lib == LIB_CUB)
            fputc(',', f);
#endif
        if (r->ran[lib])
            fprintf(f, ",%.3f,%.6g", r->t[lib].med_us, r->gbps[lib]);
        else
            fputs(",,", f);
    }
    if (r->ran[LIB_CURED] && r->ran[LIB_CUB] && r->t[LIB_CURED].med_us > 0)
        fprintf(f, ",%.4f", r->t[LIB_CUB].med_us / r->t[LIB_CURED].med_us);
    else
        fputc(',', f);
    fprintf(f, ",%s,%s,\"", r->ran[LIB_CURED] ? (r->correct[LIB_CURED] ? "yes" : "no") : "fail",
            r->cub < 0 || !have_cub ? "" : r->ran[LIB_CUB] ? (r->correct[LIB_CUB] ? "yes" : "no") : "fail");
    for (const char *p = r->note; *p; p++)
        fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, f);
    fprintf(f, "\",%s,", r->spread ? "spread" : "random");
    if (r->ceiling_gbps > 0)
        fprintf(f, "%.6g,", r->ceiling_gbps);
    else
        fputc(',', f);
    if (r->ceiling_gbps > 0 && r->ran[LIB_CURED])
        fprintf(f, "%.4f", r->gbps[LIB_CURED] / r->ceiling_gbps);
    fputc('\n', f);
    fflush(f);
}

int cmd_bench_ops(int argc, char **argv)
{
    struct count_option counts[] = {{"--n", 1, 2147483647, (uint64_t)64 << 20},
                                    {"--iters", 1, 10000000, 200},
                                    {"--device", 0, 1024, 0}};
    struct string_option strings[] = {{"--csv", NULL}, {"--type", NULL}};
    int parsed = parse_options(argc, argv, PROG, usage_text, counts, 3, strings, 2);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    const uint64_t val[3] = {counts[0].value, counts[1].value, counts[2].value};
    const char *csv_path = strings[0].value;
    const int iters = (int)val[1];
    struct bk_gpu gpu;
    struct oprow *rows = calloc(MAX_ROWS, sizeof *rows);
    FILE *csv = NULL;
    if (rows == NULL) {
        fprintf(stderr, "%s: out of host memory\n", PROG);
        return 1;
    }
    if (bk_open(&gpu, PROG, (int)val[2]) != 0) {
        bk_close(&gpu);
        free(rows);
        return 1;
    }
    if (csv_path != NULL && (csv = fopen(csv_path, "w")) == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, csv_path, strerror(errno));
        bk_close(&gpu);
        free(rows);
        return 1;
    }
    int have_cub = 0; /* built and usable */
#ifdef CURED_HAVE_CUB_COMPARATOR
    have_cub = gpu.cmp != NULL;
#endif
    if (csv != NULL)
        fputs("type,op,result,n,bytes_read,buffers,iters,cured_us,cured_gbps,cub_call,cub_us,cub_gbps,"
              "cub_over_cured,cured_correct,cub_correct,note,data,ceiling_gbps,cured_share_of_ceiling\n", csv);
    printf("%s: every operator and type at %" PRIu64 " elements\n", PROG, val[0]);
    bk_print_header(&gpu);
    printf("timing: the median of %d calls per cell, each between its own pair of events, after %d "
           "untimed (the first compiles); inputs rotate over copies spanning >= 4 x L2\n", iters, WARM);
    printf("\n%-9s %-17s %-8s %10s %8s %10s %8s %9s  %s\n", "type", "op", "result", "cured us", "GB/s",
           "CUB us", "GB/s", "CUB/cured", "correct (cured/CUB)");

    struct ops O = {.g = &gpu, .n = (size_t)val[0]};
    const int nrows = make_rows(rows);
    const struct oprow *builtin = NULL, *custom = NULL;
    struct obs_times stats_t = {0};
    double ceil_gbps[NTYPES] = {0}; /* the float types' read ceilings, for the exact rows */
    char ceil_why[NTYPES][300] = {{0}};
    int rc = 0;
    for (int t = 0, first = 0; t < NTYPES && rc < 2; t++) {
        const cured_type ty = types[t];
        const size_t esize = cured_type_size(ty);
        if (!type_chosen(strings[1].value, ty)) {
            while (first < nrows && rows[first].type == ty)
                first++;
            continue;
        }
        bk_progress(PROG, "%s (%d/%d): generating and checking the input", cured_type_name(ty), t + 1, NTYPES);
        bk_ref_init(&O.ref, ty);
        /* At least two buffers, so that DOT's x and y are different memory. */
        if (bk_set_alloc(&gpu, &O.set, O.n * esize, 2, MAX_BUFFERS) != 0 ||
            bk_fill(&gpu, &O.set, &O.ref, O.n) != 0) {
            bk_set_free(&gpu, &O.set);
            rc = 2;
            break;
        }
        if (ty == CURED_TYPE_FLOAT32) {
            bk_progress(PROG, "float32: the logsumexp of the input, and the read ceiling");
            O.lse = obs_logsumexp(&O.ref);
            stats_t.ceiling_us = obs_ceiling_us(&gpu, &O.set, O.n * esize, iters, stats_t.ceiling_why,
                                                sizeof stats_t.ceiling_why);
        }
        if (!is_int(ty)) {
            bk_progress(PROG, "%s: the exact sums of the input (host), and the read ceiling", cured_type_name(ty));
            if (oex_reference(&O.ref, &O.xref) != 0) {
                fprintf(stderr, "%s: out of host memory\n", PROG);
                bk_set_free(&gpu, &O.set);
                rc = 2;
                break;
            }
            ceil_gbps[t] = oex_ceiling_gbps(&gpu, &O.set, iters, ceil_why[t], sizeof ceil_why[t]);
        }
        bk_progress(PROG, "%s (%d/%d): measuring", cured_type_name(ty), t + 1, NTYPES);
        for (; first < nrows && rows[first].type == ty; first++) {
            struct oprow *r = O.row = &rows[first];
            if (r->spread && !O.ref.spread) { /* the worst case from here on */
                bk_progress(PROG, "%s: the spread data and their exact sums", cured_type_name(ty));
                bk_ref_init_spread(&O.ref, ty);
                if (bk_fill(&gpu, &O.set, &O.ref, O.n) != 0 || oex_reference(&O.ref, &O.xref) != 0) {
                    rc = 2;
                    break;
                }
                bk_progress(PROG, "%s (%d/%d): measuring the spread data", cured_type_name(ty), t + 1, NTYPES);
            }
            r->bytes = O.n * esize * (r->op == CURED_OP_DOT || r->op == CURED_OP_EXACT_DOT ? 2 : 1);
            r->ceiling_gbps = ceil_gbps[t];
            if ((r->op == CURED_OP_DOT || r->op == CURED_OP_EXACT_DOT) && O.set.nbuf < 2)
                snprintf(r->note, sizeof r->note, "x and y are one buffer (no memory for two): ");
            cured_status st = CURED_SUCCESS;
            if (r->custom == OBS_CUSTOM_MEANVAR && O.custom_mv == NULL &&
                (st = obs_custom_meanvar(gpu.h, &O.custom_mv)) != CURED_SUCCESS)
                snprintf(r->note, sizeof r->note, "cured_custom_create_multi: %s: %s", cured_status_string(st),
                         cured_last_error());
            if (r->custom == 1 && O.custom == NULL &&
                (st = cured_custom_create(gpu.h, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x*x", "a+b",
                                          "0", &O.custom)) != CURED_SUCCESS)
                snprintf(r->note, sizeof r->note, "cured_custom_create: %s: %s", cured_status_string(st),
                         cured_last_error());
            /* CUB first, so that a fault in a cured kernel cannot hide it. */
            if (r->cub >= 0 && have_cub)
                measure(&O, LIB_CUB, iters);
            if (st == CURED_SUCCESS)
                measure(&O, LIB_CURED, iters);
            rc |= !r->ran[LIB_CURED] || !r->correct[LIB_CURED] ||
                  (r->cub >= 0 && have_cub && !r->cub_absent && (!r->ran[LIB_CUB] || !r->correct[LIB_CUB]));
            builtin = r->op == CURED_OP_SUM_SQUARES && r->type == CURED_TYPE_FLOAT32 &&
                              r->out == CURED_TYPE_FLOAT64 && !r->custom
                          ? r
                          : builtin; /* the float32 -> float64 one, like the custom op */
            custom = r->custom == 1 ? r : custom;
            if (r->type == CURED_TYPE_FLOAT32 && r->ran[LIB_CURED] && r->correct[LIB_CURED]) {
                const double us = r->t[LIB_CURED].med_us;
                if (r->op == CURED_OP_SUM && r->out == CURED_TYPE_FLOAT32)
                    stats_t.sum_us = us;
                else if (r->custom == OBS_CUSTOM_MEANVAR)
                    stats_t.custom_us = us;
                else if (r->op == CURED_OP_MEAN_VAR && r->out == CURED_TYPE_FLOAT32)
                    stats_t.meanvar_us = us;
                else if (r->op == CURED_OP_LOGSUMEXP)
                    stats_t.lse_us = us;
            }
            bk_progress_clear();
            print_row(r, have_cub);
            if (csv != NULL)
                csv_row(csv, r, O.n, O.set.nbuf, iters, have_cub);
        }
        bk_set_free(&gpu, &O.set);
    }
    bk_progress_clear();
    printf("\nGB/s: input bytes read / median time (DOT reads two inputs). CUB/cured: CUB's time over "
           "cured's (> 1: cured is faster); - where CUB has no direct equivalent.\n");
    if (HAVE_COMPARATOR)
        printf("CUB: SUM DeviceReduce::Sum (float16, bfloat16: TransformReduce widening to float); "
               "SUM_SQUARES TransformReduce (square) into the same type; MIN, MAX DeviceReduce::Min, "
               "Max; ARGMIN, ARGMAX DeviceReduce::ArgMin, ArgMax (value and int64 index); EXACT_SUM "
               "DeviceReduce::Sum under cuda::execution::require(determinism::gpu_to_gpu) (CCCL 3.1 or newer: %s).\n",
               g2g_state(&gpu));
    else
        printf("CUB: not built (no nvcc at configure time).\n");
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (gpu.cmp == NULL) {
        printf("the comparator was not usable, so its cells are empty: %s\n", gpu.cmp_error);
        rc = 1;
    }
#endif
    printf("Checks: integers exact (int64 results modulo 2^64), extrema and indices bit-exact (the "
           "first index), float sums within 1e-5 (float accumulation) or 1e-9 (double) of a double "
           "sum, relative to the sum of magnitudes; the exact sums bit for bit against a host fixed-point "
           "sum rounded once (CUB's gpu_to_gpu sum: as a float sum; on the spread data its result is "
           "shown, not checked).\n");
    if (builtin != NULL && custom != NULL && builtin->ran[LIB_CURED] && custom->ran[LIB_CURED] &&
        builtin->correct[LIB_CURED] && custom->correct[LIB_CURED]) {
        double ratio = custom->t[LIB_CURED].med_us / builtin->t[LIB_CURED].med_us;
        printf("user-defined sum of squares (x*x, a+b, 0) float32 -> float64: %.2f us, the built-in "
               "SUM_SQUARES: %.2f us: %.3fx its time (goal <= %.2fx: %s)\n", custom->t[LIB_CURED].med_us,
               builtin->t[LIB_CURED].med_us, ratio, CUSTOM_GOAL, ratio <= CUSTOM_GOAL ? "met" : "NOT met");
    }
    obs_goals(&stats_t);
    for (int i = 0; i < nrows; i++) {
        const struct oprow *r = &rows[i];
        if (!oex_is_exact(r->op) || !type_chosen(strings[1].value, r->type))
            continue;
        int t = 0;
        while (types[t] != r->type)
            t++;
        if (r->ceiling_gbps <= 0 && ceil_why[t][0] != '\0')
            printf("%s: no read ceiling: %s\n", cured_type_name(r->type), ceil_why[t]);
        const char *cub_why = r->cub < 0 ? NULL : !have_cub ? "not built (no nvcc at configure time)"
                            : r->cub_absent ? "not in this build (CCCL older than 3.1: see the row's note)"
                            : r->ran[LIB_CUB] ? "" : "did not run (see its row)";
        oex_goal(r->type, r->op, r->out, r->spread, r->ran[LIB_CURED] && r->correct[LIB_CURED] ? r->gbps[LIB_CURED] : 0,
                 r->ceiling_gbps, r->ran[LIB_CUB] ? r->gbps[LIB_CUB] : 0, cub_why);
    }
    if (O.custom != NULL || O.custom_mv != NULL) {
        CUresult e = gpu.d->StreamSynchronize(gpu.stream);
        if (e == CUDA_SUCCESS) {
            cured_custom_destroy(O.custom);
            cured_custom_destroy(O.custom_mv);
        } else {
            fprintf(stderr, "%s: cuStreamSynchronize: %s\n", PROG, cr_driver_error_text(e));
        }
    }
    if (csv != NULL && fclose(csv) != 0) {
        fprintf(stderr, "%s: error writing %s: %s\n", PROG, csv_path, strerror(errno));
        rc = 1;
    }
    bk_close(&gpu);
    free(rows);
    return rc != 0;
}
