/* Shared pieces of the test-gpu-stats suite; see gpu_stats.h. */
#include "gpu_stats.h"
#ifndef CURED_STATS_EMU
#include "pool.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT 32 /* bytes per result slot: the largest result (16) and a poisoned tail */

int gs_reduced(void)
{
    const char *env = getenv("CURED_TEST_NO_HUGE");
    return env != NULL && *env != '\0' && strcmp(env, "0") != 0;
}

/* CURED_TEST_SANITIZE=1 (.ci/gpu's sanitize step): each kernel once per data
 * case (the asynchronous call, ddof 0, the full-size misaligned upload only),
 * every result still checked; compute-sanitizer racecheck makes each launch
 * cost tens of milliseconds. */
int gs_light(void)
{
    const char *env = getenv("CURED_TEST_SANITIZE");
    return env != NULL && *env != '\0' && strcmp(env, "0") != 0;
}

size_t gs_big(void)
{
    return gs_reduced() ? ((size_t)1 << 14) + 7 : ((size_t)1 << 20) + 7;
}

double gs_normal(struct rng *r)
{
    const double u = ((double)rng_u32(r) + 0.5) / 4294967296.0, v = ((double)rng_u32(r) + 0.5) / 4294967296.0;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

#define MAX_BLOCKS 32
static void *blocks[MAX_BLOCKS];

/* The last few uploads stay allocated; older ones are freed as new ones come. */
#define LIVE 4
static CUdeviceptr live[LIVE];
static unsigned nlive;

void *gs_malloc(size_t bytes)
{
    int k = 0;
    while (k < MAX_BLOCKS && blocks[k] != NULL)
        k++;
    ck_assert_msg(k < MAX_BLOCKS, "test bug: more than %d live host blocks", MAX_BLOCKS);
    void *p = calloc(1, bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "out of host memory for %zu bytes", bytes);
    blocks[k] = p;
    return p;
}

void gs_free(void *p)
{
    for (int k = 0; k < MAX_BLOCKS; k++)
        if (blocks[k] == p && p != NULL) {
            blocks[k] = NULL;
            free(p);
        }
}

#ifndef CURED_STATS_EMU
/* Before the first test, every statistic's kernels for each type and result
 * type are compiled on every CPU (CURED_TEST_JOBS threads): the requests
 * gs_check_all makes (whole arrays of 1, 33, 1003 and 2^20 elements, columns
 * of (n, 4) and rows of (4, n) for n = 1, 33 and 1003) on zeros, results
 * unread. One after another they cost minutes of NVRTC (~480 kernels) before
 * the first result. A kernel the list misses compiles at its first call, as it
 * would anyway. Not under CURED_TEST_SANITIZE, nor when CURED_TEST_ONLY or
 * CK_RUN_CASE picks some of the tests. */
struct warm {
    CUdeviceptr in, out;
};

static void warm_one(void *user, size_t i)
{
    const struct warm *w = user;
    const cured_op op = (cured_op)(i / (2 * CURED_TYPE_COUNT));
    const cured_type t = (cured_type)(i / 2 % CURED_TYPE_COUNT);
    const cured_type out = i % 2 ? CURED_TYPE_FLOAT64 : CURED_TYPE_FLOAT32;
    void *o = DP(w->out + 256 * i);
    if (!stats_is_op(op))
        return;
    static const int64_t sizes[] = {1, 33, 1003};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        const int64_t n = sizes[k];
        if (cured_reduce_stats_async(H, op, DP(w->in), t, (size_t)n, 0, o, out, NULL) != CURED_SUCCESS)
            return; /* not offered */
        for (int axis = 0; axis < 2; axis++) {
            const cured_layout lay = {2, {axis ? 4 : n, axis ? n : 4}, {axis ? n : 4, 1}};
            (void)cured_reduce_axes_stats_async(H, op, DP(w->in), t, &lay, 1u << axis, 0, o, out, NULL, NULL);
        }
    }
    (void)cured_reduce_stats_async(H, op, DP(w->in), t, (size_t)1 << 20, 0, o, out, NULL);
}

static void warm_kernels(void)
{
    const size_t count = (size_t)CURED_OP_COUNT * CURED_TYPE_COUNT * 2;
    struct warm w = {dev_alloc(((size_t)1 << 20) * 8), dev_alloc(256 * count)};
    void *zeros = gs_malloc(((size_t)1 << 20) * 8);
    upload(w.in, zeros, ((size_t)1 << 20) * 8);
    gs_free(zeros);
    pool_run(count, test_jobs(), warm_one, NULL, &w);
    CU_OK(D->CtxSynchronize());
    dev_free(w.in);
    dev_free(w.out);
}
#endif

void gs_setup(void)
{
    gpu_setup();
#ifndef CURED_STATS_EMU
    static int warmed;
    const char *only = getenv("CURED_TEST_ONLY"), *tcase = getenv("CK_RUN_CASE");
    if (!warmed && !gs_light() && (only == NULL || *only == '\0') && (tcase == NULL || *tcase == '\0')) {
        warmed = 1;
        warm_kernels();
    }
#endif
}

void gs_teardown(void)
{
    memset(live, 0, sizeof live); /* gpu_teardown frees them */
    for (int k = 0; k < MAX_BLOCKS; k++) {
        free(blocks[k]);
        blocks[k] = NULL;
    }
    gpu_teardown();
}

CUdeviceptr gs_upload(cured_type t, const void *h, size_t n, size_t off)
{
    const size_t size = ref_size(t);
    CUdeviceptr *base = &live[nlive++ % LIVE];
    if (*base != 0)
        dev_free(*base);
    *base = dev_alloc((n + 16) * size + 16);
    CUdeviceptr d = (*base + 15) / 16 * 16 + off * size;
    if (n > 0)
        upload(d, h, n * size);
    return d;
}

static int offered(cured_op op, cured_type in, cured_type out)
{
    struct cr_request r;
    const int ok = cr_request_make(op, CURED_ALGO_AUTO, in, out, &r) == CURED_SUCCESS;
    cr_fail(CURED_SUCCESS, "%s", "");
    return ok;
}

/* The bytes past a result (or all of a failed call's) are still poison. */
static void expect_poison(const unsigned char *p, size_t from, const char *what)
{
    size_t k = from;
    while (k < SLOT && p[k] == POISON_BYTE)
        k++;
    ck_assert_msg(k == SLOT, "%s: byte %zu written (0x%02x) (seed %llu)", what, k, p[k], test_seed);
}

static void check_got(const char *what, cured_op op, cured_type t, cured_type out, const unsigned char *got,
                      const struct ref_result *r)
{
    ref_check(op, t, out, got, r, what);
    expect_poison(got, ref_result_size(op, out), what);
}

/* Device buffers gs_check_all sets up once for all its checks: a result slot and, on the GPU,
 * the input as 4 columns of an (n, 4) array and as 4 rows of a (4, n) one with their results'
 * slots (each alloc, free and upload synchronises, and there are hundreds of checks an input). */
struct gs_bufs {
    CUdeviceptr slot;
    CUdeviceptr views[2], out; /* 0 without axis checks: n 0 or above 2^16, CURED_TEST_SANITIZE, the emulation */
};

enum { AXIS_C = 4 };

#ifndef CURED_STATS_EMU
static void views_make(struct gs_bufs *b, cured_type t, const void *h, size_t n)
{
    const size_t size = ref_size(t);
    b->views[0] = b->views[1] = b->out = 0;
    if (n == 0 || n > ((size_t)1 << 16) || gs_light())
        return;
    unsigned char *cols = gs_malloc(n * AXIS_C * size), *rows = gs_malloc(n * AXIS_C * size);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < AXIS_C; j++) {
            memcpy(cols + (i * AXIS_C + j) * size, (const unsigned char *)h + i * size, size);
            memcpy(rows + (j * n + i) * size, (const unsigned char *)h + i * size, size);
        }
    for (int axis = 0; axis < 2; axis++) {
        b->views[axis] = dev_alloc(n * AXIS_C * size);
        upload(b->views[axis], axis ? rows : cols, n * AXIS_C * size);
    }
    b->out = dev_alloc(SLOT * AXIS_C);
    gs_free(cols);
    gs_free(rows);
}

/* The same data as each of 4 columns of an (n, 4) array (reduce_cols: a thread's run of
 * rows) and as each of 4 rows of a (4, n) one (the row kernels), along the reduced axis;
 * every result is checked. The emulation (test-stats-emu) runs the column pass itself. */
static void check_axes(const char *what, cured_op op, cured_type t, cured_type out, double ddof,
                       const struct gs_bufs *b, size_t n, const struct ref_result *r)
{
    const int64_t C = AXIS_C;
    const size_t rsize = ref_result_size(op, out);
    if (b->out == 0)
        return;
    for (int axis = 0; axis < 2; axis++) {
        const cured_layout lay = {2, {axis ? C : (int64_t)n, axis ? (int64_t)n : C}, {axis ? (int64_t)n : C, 1}};
        const CUdeviceptr d = b->views[axis], o = b->out;
        poison(o, SLOT * AXIS_C);
        char w[300];
        snprintf(w, sizeof w, "%s %s %s->%s ddof %g along axis %d of (%s), %s, n=%zu", axis ? "rows" : "columns",
                 cured_op_name(op), cured_type_name(t), cured_type_name(out), ddof, axis, axis ? "4, n" : "n, 4",
                 what, n);
        CURED_OK(cured_reduce_axes_stats_async(H, op, DP(d), t, &lay, 1u << axis, ddof, DP(o), out, NULL, NULL));
        unsigned char got[SLOT * AXIS_C];
        download(got, o, sizeof got);
        for (size_t j = 0; j < AXIS_C; j++) {
            char wj[340];
            snprintf(wj, sizeof wj, "%s, result %zu", w, j);
            ref_check(op, t, out, got + j * rsize, r, wj);
        }
        for (size_t k = AXIS_C * rsize; k < sizeof got; k++)
            ck_assert_msg(got[k] == POISON_BYTE, "%s: byte %zu written (0x%02x) (seed %llu)", w, k, got[k], test_seed);
    }
}
#endif

/* n elements at d, s the references of those op reduces (stats_ref_compute_op). */
static void check_n(const char *what, cured_op op, cured_type t, cured_type out, double ddof,
                    const struct stats_ref *s, CUdeviceptr d, size_t n, CUdeviceptr slot)
{
    struct ref_result r;
    stats_ref_result(op, out, s, ddof, &r);
    char w[300];
    poison(slot, SLOT);
    snprintf(w, sizeof w, "async %s %s->%s ddof %g, %s, n=%zu", cured_op_name(op), cured_type_name(t),
             cured_type_name(out), ddof, what, n);
    CURED_OK(cured_reduce_stats_async(H, op, DP(d), t, n, ddof, DP(slot), out, NULL));
    unsigned char got[SLOT];
    download(got, slot, SLOT);
    if (gs_table_on())
        gs_table_row(what, op, t, out, ddof, s, got);
    check_got(w, op, t, out, got, &r);
    if (gs_light())
        return;

    snprintf(w, sizeof w, "sync %s %s->%s ddof %g, %s, n=%zu", cured_op_name(op), cured_type_name(t),
             cured_type_name(out), ddof, what, n);
    memset(got, POISON_BYTE, sizeof got);
    cured_status st = cured_reduce_stats(H, op, DP(d), t, n, ddof, got, out, NULL);
    expect_status(st, r.status, w);
    if (st == CURED_SUCCESS)
        check_got(w, op, t, out, got, &r);
    else
        expect_poison(got, 0, w);
    if (ddof != 0)
        return;
    snprintf(w, sizeof w, "cured_reduce %s %s->%s, %s, n=%zu", cured_op_name(op), cured_type_name(t),
             cured_type_name(out), what, n);
    memset(got, POISON_BYTE, sizeof got);
    st = cured_reduce(H, op, CURED_ALGO_AUTO, DP(d), t, n, got, out, NULL);
    expect_status(st, r.status, w);
    if (st == CURED_SUCCESS)
        check_got(w, op, t, out, got, &r);
}

void gs_check(const char *what, cured_op op, cured_type t, cured_type out, double ddof, const struct stats_ref *s,
              CUdeviceptr d)
{
    const CUdeviceptr slot = dev_alloc(SLOT);
    check_n(what, op, t, out, ddof, s, d, s->n, slot);
    dev_free(slot);
}

/* Every statistic of the operator table, the NaN-skipping ones against the references of the
 * elements that are not NaN (m of them: ddof up to m, so that NaNs leave too few). */
void gs_check_all(const char *what, cured_type t, const void *h, CUdeviceptr d, size_t n)
{
    /* The references of every statistic are those of x, or for the NaN-skipping ones those of its
     * elements that are not NaN: each computed once (a long double pass over 2^20 elements takes
     * a fifth of a second, and there are a dozen statistics). */
    struct stats_ref refs[2];
    size_t counts[2];
    int have[2] = {0, 0};
    struct gs_bufs b = {dev_alloc(SLOT), {0, 0}, 0};
#ifndef CURED_STATS_EMU
    views_make(&b, t, h, n);
#endif
    for (int op = 0; op < CURED_OP_COUNT; op++) {
        if (!stats_is_op((cured_op)op))
            continue;
        const int skips = stats_ref_skips_nan((cured_op)op, t);
        if (!have[skips]) {
            counts[skips] = stats_ref_compute_op((cured_op)op, t, h, n, &refs[skips]);
            have[skips] = 1;
        }
        const struct stats_ref *s = &refs[skips];
        const size_t m = counts[skips];
        const double ddofs[] = {0, 1, m > 1 ? (double)m - 1 : 0.5, (double)m};
        const cured_op base = cr_op_base((cured_op)op);
        for (int out = CURED_TYPE_FLOAT32; out <= CURED_TYPE_FLOAT64; out++) {
            if (!offered((cured_op)op, t, (cured_type)out))
                continue;
            const int moments = base != CURED_OP_MEAN && base != CURED_OP_LOGSUMEXP;
            for (size_t j = 0; j < (moments && !gs_light() ? 4 : 1); j++) {
                check_n(what, (cured_op)op, t, (cured_type)out, ddofs[j], s, d, n, b.slot);
#ifndef CURED_STATS_EMU
                if (j < 2 && !gs_light()) {
                    struct ref_result r;
                    stats_ref_result((cured_op)op, (cured_type)out, s, ddofs[j], &r);
                    check_axes(what, (cured_op)op, t, (cured_type)out, ddofs[j], &b, n, &r);
                }
#endif
            }
        }
    }
    dev_free(b.slot);
#ifndef CURED_STATS_EMU
    for (int axis = 0; axis < 2; axis++)
        if (b.views[axis] != 0)
            dev_free(b.views[axis]);
    if (b.out != 0)
        dev_free(b.out);
#endif
}
