/*
 * cured.h's rules of handles, streams, messages and logging, off the GPU on
 * tests/fakecuda.c's device: cured_create retains the primary context
 * without making it current, makes 16 workspaces in one allocation and
 * releases the retain on every failure and at cured_destroy;
 * cured_create_for_context retains nothing; a device out of range and a
 * device without memory for the workspaces are refused; the 17th stream's
 * first call adds workspaces, the first call on a further stream during
 * capture is refused; with NVRTC (a few small compiles, skipped without
 * it), asynchronous calls after a stream's first (whole array, rows,
 * columns, segments, statistics of rows, a user op) allocate, set and wait
 * for nothing, also during capture, and the synchronous calls wait once;
 * four threads on one handle (32 streams, the same first uses racing):
 * every call succeeds, each kernel compiled once; after cured_prepare a
 * first call compiles and loads nothing;
 * CURED_ARCH's override and a malformed one through a handle (messages and
 * the log: test-messages). Each test runs in its own process (Check's fork
 * mode).
 */
#include "fake_device.h"

#include <pthread.h>
#include <stdint.h>

#define STREAM(i) ((struct CUstream_st *)(uintptr_t)(0x1000 + 16 * (i)))

static int retains(void)
{
    return counts().retains;
}

START_TEST(test_create_rules)
{
    fake_use(0);
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    const int bad[] = {1, -1, 1 << 30};
    for (int i = 0; i < 3; i++) {
        clear_error();
        expect(cured_create(bad[i], &h), CURED_ERROR_INVALID_DEVICE, "a device out of range");
        ck_assert_msg(h == NULL, "cured_create(%d) left the handle set", bad[i]);
        assert_message_contains("a device out of range", "out of range");
    }
    expect(cured_create(0, &h), CURED_SUCCESS, "cured_create(0)");
    fake_hooks();
    struct fake_counts c = counts();
    ck_assert_msg(c.retains == 1 && c.pushed == 0, "cured_create: %d retains, %d contexts pushed", c.retains, c.pushed);
    ck_assert_msg(c.allocs == 1 && c.memsets == 1 && c.syncs == 1, "the 16 workspaces: %d allocations, %d memsets",
                  c.allocs, c.memsets);
    /* "each about 2.1 MiB ... plus 32 bytes per resident block" (4 SMs of 32 blocks here) */
    const size_t blocks = (size_t)h->facts.sms * (size_t)h->max_blocks_per_sm;
    ck_assert_msg(h->slot_bytes >= ((size_t)21 << 20) / 10 - 65536 + 32 * blocks &&
                      h->slot_bytes <= ((size_t)21 << 20) / 10 + 65536 + 32 * blocks,
                  "a workspace of %zu bytes for %zu blocks", h->slot_bytes, blocks);
    ck_assert_msg(h->slots_cap == 16 && h->nslots == 0, "%zu workspaces, %zu taken", h->slots_cap, h->nslots);
    /* The same formula for an H200 (132 SMs of 32 blocks): "about 35 MiB" for the 16. */
    const size_t h200 = 16 * (h->slot_bytes + 32 * (132 * 32 - blocks));
    ck_assert_msg(h200 > ((size_t)69 << 19) && h200 < ((size_t)71 << 19), "16 H200 workspaces: %zu bytes", h200);
    /* A handle of an existing context neither retains it nor makes it current. */
    cured_handle k = (cured_handle)(uintptr_t)0x1;
    expect(cured_create_for_context(NULL, &k), CURED_ERROR_NULL_POINTER, "a NULL context");
    ck_assert_ptr_null(k);
    expect(cured_create_for_context((struct CUctx_st *)h->ctx, &k), CURED_SUCCESS, "cured_create_for_context");
    c = counts();
    ck_assert_msg(c.retains == 1 && c.pushed == 0, "cured_create_for_context: %d retains, %d pushed", c.retains,
                  c.pushed);
    expect(cured_destroy(k), CURED_SUCCESS, "destroy the context's handle");
    ck_assert_int_eq(retains(), 1);
    /* A context the driver refuses: INVALID_DEVICE, no handle, nothing left allocated. */
    k = (cured_handle)(uintptr_t)0x1;
    expect(cured_create_for_context((struct CUctx_st *)(uintptr_t)0x5000, &k), CURED_ERROR_INVALID_DEVICE,
           "a context the driver refuses");
    ck_assert_ptr_null(k);
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
    c = counts();
    ck_assert_msg(c.retains == 0 && c.pushed == 0 && c.frees == c.allocs,
                  "after cured_destroy: %d retains, %d pushed, %d of %d allocations freed", c.retains, c.pushed,
                  c.frees, c.allocs);
}
END_TEST

/* No device memory for the workspaces: OUT_OF_MEMORY, no handle, the primary context released. */
START_TEST(test_create_out_of_memory)
{
    ck_assert_int_eq(setenv("FAKECUDA_ARENA_MB", "4", 1), 0);
    fake_use(0);
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    expect(cured_create(0, &h), CURED_ERROR_OUT_OF_MEMORY, "16 workspaces in 4 MiB");
    ck_assert_ptr_null(h);
    assert_message_contains("out of memory", "workspace");
    fake_hooks();
    ck_assert_int_eq(retains(), 0);
}
END_TEST

/* 16 workspaces at creation (the legacy stream is one); the 17th stream adds 16 more;
 * a further stream's first call during capture is refused, allocating nothing. */
START_TEST(test_stream_workspaces)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(256, 1, 0);
    struct fake_counts c0 = counts(), c;
    for (int i = 0; i < 16; i++)
        expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                                  i == 0 ? NULL : STREAM(i)),
               CURED_ERROR_NO_NVRTC, "one of the first 16 streams");
    c = counts();
    ck_assert_msg(c.allocs == c0.allocs && c.memsets == c0.memsets && c.syncs == c0.syncs,
                  "the first 16 streams allocated (%d)", c.allocs - c0.allocs);
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                               STREAM(16)),
           CURED_ERROR_NO_NVRTC, "the 17th stream");
    c = counts();
    ck_assert_msg(c.allocs == c0.allocs + 1 && c.syncs == c0.syncs + 1, "the 17th stream: %d allocations, %d syncs",
                  c.allocs - c0.allocs, c.syncs - c0.syncs);
    for (int i = 17; i < 32; i++)
        expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                                  STREAM(i)),
               CURED_ERROR_NO_NVRTC, "streams 18 to 32");
    ck_assert_int_eq(counts().allocs, c0.allocs + 1);
    fake_capture(STREAM(32));
    clear_error();
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                               STREAM(32)),
           CURED_ERROR_NOT_SUPPORTED, "a 33rd stream's first call, captured");
    assert_message_contains("captured first call", "capture");
    /* the axis, segment and statistics calls alike (cured.h lists NOT_SUPPORTED for them) */
    const cured_layout rows = {2, {8, 128}, {128, 1}};
    int64_t *off = fake_alloc(256, 1, 0);
    const cured_status captured[] = {
        cured_reduce_axes_async(h, CURED_OP_MAX, x, CURED_TYPE_INT32, &rows, 2u, out, CURED_TYPE_INT32, NULL,
                                STREAM(32)),
        cured_reduce_axes_stats_async(h, CURED_OP_VAR, x, CURED_TYPE_INT32, &rows, 1u, 0.0, out, CURED_TYPE_FLOAT64,
                                      NULL, STREAM(32)),
        cured_segmented_reduce_async(h, CURED_OP_MIN, x, CURED_TYPE_INT32, 8, off, off + 1, CURED_TYPE_INT64, out,
                                     CURED_TYPE_INT32, STREAM(32)),
        cured_uniform_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_INT32, 8, 100, out, CURED_TYPE_INT64,
                                             STREAM(32)),
        cured_reduce_stats_async(h, CURED_OP_MEAN, x, CURED_TYPE_INT32, 8, 0.0, out, CURED_TYPE_FLOAT64, STREAM(32))};
    for (size_t k = 0; k < sizeof captured / sizeof *captured; k++) {
        char what[80];
        snprintf(what, sizeof what, "a 33rd stream's first call, captured (call %zu)", k);
        expect(captured[k], CURED_ERROR_NOT_SUPPORTED, what);
    }
    fake_capture(STREAM(5)); /* a captured stream with a workspace passes */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                               STREAM(5)),
           CURED_ERROR_NO_NVRTC, "a captured stream that has a workspace");
    c = counts();
    ck_assert_msg(c.allocs == c0.allocs + 1 && c.launches == 0 && c.pushed == 0, "%d allocations, %d launches",
                  c.allocs - c0.allocs, c.launches);
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
}
END_TEST

/* The per-thread default stream is each thread's own: a second thread's
 * call on it takes a workspace of its own (here the 17th, which allocates),
 * and the first thread's calls keep theirs. */
struct per_thread_call {
    cured_handle h;
    int32_t *x;
    int64_t *out;
    cured_status st;
};
static void *call_per_thread(void *arg)
{
    struct per_thread_call *c = arg;
    c->st = cured_reduce_async(c->h, CURED_OP_SUM, CURED_ALGO_AUTO, c->x, CURED_TYPE_INT32, 8, c->out,
                               CURED_TYPE_INT64, CU_STREAM_PER_THREAD);
    return NULL;
}

START_TEST(test_per_thread_stream)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(256, 1, 0);
    struct per_thread_call c = {h, x, out, CURED_SUCCESS};
    for (int i = 1; i < 16; i++) /* 15 streams and this thread's own: the 16 workspaces made at creation */
        expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                                  STREAM(i)),
               CURED_ERROR_NO_NVRTC, "streams 1 to 15");
    call_per_thread(&c);
    expect(c.st, CURED_ERROR_NO_NVRTC, "this thread's per-thread stream");
    const struct fake_counts c0 = counts();
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, call_per_thread, &c), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    expect(c.st, CURED_ERROR_NO_NVRTC, "another thread's per-thread stream");
    ck_assert_msg(counts().allocs == c0.allocs + 1, "another thread's per-thread stream shared a workspace (%d "
                  "allocations)", counts().allocs - c0.allocs);
    call_per_thread(&c);
    expect(c.st, CURED_ERROR_NO_NVRTC, "this thread's per-thread stream again");
    ck_assert_int_eq(counts().allocs, c0.allocs + 1);
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
}
END_TEST

static int nvrtc_here(void)
{
    if (cured_nvrtc_version(NULL, NULL) == CURED_SUCCESS)
        return 1;
    printf("no NVRTC (%s): not tested\n", cured_last_error());
    return 0;
}

/* What a call did since c0: only launches, else the failure names the rest. */
static void only_launches(const char *what, struct fake_counts c0, int launches)
{
    const struct fake_counts c = counts();
    ck_assert_msg(c.allocs == c0.allocs && c.memsets == c0.memsets && c.syncs == c0.syncs &&
                      c.launches == c0.launches + launches && c.pushed == 0,
                  "%s: %d allocations, %d memsets, %d syncs, %d launches (want %d), %d pushed", what,
                  c.allocs - c0.allocs, c.memsets - c0.memsets, c.syncs - c0.syncs, c.launches - c0.launches,
                  launches, c.pushed);
}

/* After a stream's first call, the asynchronous calls allocate, set and wait for nothing (capture-safe). */
enum { SUM, ROWS, COLS, SEGMENTS, VAR_ROWS, USER, NCALLS };
static const char *const call_name[NCALLS] = {"SUM", "MAX of rows", "SUM of columns", "MIN of segments",
                                              "VAR of rows", "user op"};

static cured_status call(int k, cured_handle h, cured_custom op, const int32_t *x, const int64_t *off, void *out,
                         struct CUstream_st *s)
{
    const cured_layout rows = {2, {8, 128}, {128, 1}};
    switch (k) {
    case SUM: return cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1000, out,
                                        CURED_TYPE_INT64, s);
    case ROWS: return cured_reduce_axes_async(h, CURED_OP_MAX, x, CURED_TYPE_INT32, &rows, 2u, out, CURED_TYPE_INT32,
                                              NULL, s);
    case COLS: return cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_INT32, &rows, 1u, out, CURED_TYPE_INT64,
                                              NULL, s);
    case SEGMENTS: return cured_segmented_reduce_async(h, CURED_OP_MIN, x, CURED_TYPE_INT32, 8, off, off + 1,
                                                       CURED_TYPE_INT64, out, CURED_TYPE_INT32, s);
    case VAR_ROWS: return cured_reduce_axes_stats_async(h, CURED_OP_VAR, x, CURED_TYPE_INT32, &rows, 2u, 1.0, out,
                                                        CURED_TYPE_FLOAT64, NULL, s);
    default: return cured_custom_reduce_async(h, op, x, NULL, 999, out, s);
    }
}

START_TEST(test_async_capture_safe)
{
    if (!nvrtc_here())
        return;
    cured_handle h = fake_handle(1);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(4096, 1, 0), *off = fake_alloc(256, 1, 0);
    for (int i = 0; i <= 8; i++)
        off[i] = 100 * i;
    struct CUstream_st *s = STREAM(1);
    cured_custom op = NULL;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a + b", "0", &op), CURED_SUCCESS,
           "a user op");
    /* First calls: compile, load, take the stream's workspace; their launches are what each call makes. */
    int per[NCALLS];
    for (int k = 0; k < NCALLS; k++) {
        const int l0 = counts().launches;
        expect(call(k, h, op, x, off, out, s), CURED_SUCCESS, call_name[k]);
        per[k] = counts().launches - l0;
        ck_assert_msg(per[k] >= 1, "%s: no launch", call_name[k]);
    }
    char what[64];
    for (int capture = 0; capture < 2; capture++) {
        fake_capture(capture ? s : NULL);
        for (int k = 0; k < NCALLS; k++) {
            const struct fake_counts c0 = counts();
            snprintf(what, sizeof what, "%s%s", call_name[k], capture ? ", captured" : "");
            expect(call(k, h, op, x, off, out, s), CURED_SUCCESS, what);
            only_launches(what, c0, per[k]);
        }
    }
    fake_capture(NULL);
    /* The synchronous call waits once, and reads its result back from the workspace. */
    int64_t host = 0;
    const struct fake_counts c0 = counts();
    expect(cured_reduce(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, &host, CURED_TYPE_INT64, s),
           CURED_SUCCESS, "cured_reduce");
    const struct fake_counts c = counts();
    ck_assert_msg(c.syncs == c0.syncs + 1 && c.allocs == c0.allocs && c.memsets == c0.memsets && c.pushed == 0,
                  "cured_reduce: %d syncs, %d allocations", c.syncs - c0.syncs, c.allocs - c0.allocs);
    expect(cured_custom_destroy(op), CURED_SUCCESS, "destroy the op");
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
    const struct fake_counts end = counts(); /* the handle's and the op's modules and memory are gone */
    ck_assert_msg(end.loads >= NCALLS && end.unloads == end.loads && end.frees == end.allocs && end.retains == 0,
                  "%d of %d modules unloaded, %d of %d allocations freed, %d retains", end.unloads, end.loads,
                  end.frees, end.allocs, end.retains);
}
END_TEST

/* Several threads on one handle at once (cured.h: any function, any thread): the first uses of the
 * same kernels race (each compiled once, the extra modules unloaded), 32 streams take workspaces past
 * the first 16 (one more allocation), and every call succeeds with its launches. */
enum { THREADS = 4, STREAMS_EACH = 8, ROUNDS = 5 };
struct worker {
    cured_handle h;
    cured_custom op;
    int32_t *x;
    int64_t *off, *out;
    int id;
    cured_status st;
    char what[64];
};

static void *work(void *arg)
{
    struct worker *w = arg;
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < STREAMS_EACH; i++)
            for (int k = 0; k < NCALLS; k++)
                if ((w->st = call(k, w->h, w->op, w->x, w->off, w->out, STREAM(2 + w->id * STREAMS_EACH + i))) !=
                    CURED_SUCCESS) {
                    snprintf(w->what, sizeof w->what, "thread %d, %s: %s", w->id, call_name[k],
                             cured_status_string(w->st));
                    return NULL;
                }
    return NULL;
}

START_TEST(test_threads)
{
    if (!nvrtc_here())
        return;
    cured_handle h = fake_handle(1);
    struct worker w[THREADS];
    w[0].x = fake_alloc(4096, 1, 0);
    w[0].out = fake_alloc(4096, 1, 0);
    w[0].off = fake_alloc(256, 1, 0);
    for (int i = 0; i <= 8; i++)
        w[0].off[i] = 100 * i;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a + b", "0", &w[0].op), CURED_SUCCESS,
           "a user op");
    cured_stats s0, s1;
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    const struct fake_counts c0 = counts();
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = w[0];
        w[t].h = h;
        w[t].id = t;
        ck_assert_int_eq(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        ck_assert_int_eq(pthread_join(th[t], NULL), 0);
        ck_assert_msg(w[t].st == CURED_SUCCESS, "%s", w[t].what);
    }
    ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
    const struct fake_counts c1 = counts();
    int per = 0; /* launches of one round of the calls, measured alone */
    for (int k = 0; k < NCALLS; k++) {
        const int l0 = counts().launches;
        expect(call(k, h, w[0].op, w[0].x, w[0].off, w[0].out, STREAM(2)), CURED_SUCCESS, call_name[k]);
        per += counts().launches - l0;
    }
    ck_assert_msg(s1.compiles - s0.compiles == NCALLS - 1, "%llu compilations for %d built-in kernels",
                  (unsigned long long)(s1.compiles - s0.compiles), NCALLS - 1);
    ck_assert_msg(c1.launches - c0.launches == THREADS * STREAMS_EACH * ROUNDS * per && c1.allocs == c0.allocs + 1,
                  "%d launches (want %d), %d allocations", c1.launches - c0.launches,
                  THREADS * STREAMS_EACH * ROUNDS * per, c1.allocs - c0.allocs);
    expect(cured_custom_destroy(w[0].op), CURED_SUCCESS, "destroy the op");
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
    const struct fake_counts end = counts();
    ck_assert_msg(end.unloads == end.loads && end.frees == end.allocs && end.pushed == 0,
                  "%d of %d modules unloaded, %d of %d allocations freed", end.unloads, end.loads, end.frees,
                  end.allocs);
}
END_TEST

/* cured_prepare compiles and loads now: the first call after it (DOT's too) compiles and loads nothing. */
START_TEST(test_prepare_loads)
{
    if (!nvrtc_here())
        return;
    cured_handle h = fake_handle(1);
    float *x = fake_alloc(4096, 1, 0);
    double *out = fake_alloc(256, 1, 0);
    cured_stats s0, s1;
    expect(cured_prepare(h, CURED_OP_MAX, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32), CURED_SUCCESS,
           "prepare MAX");
    expect(cured_prepare(h, CURED_OP_DOT, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64), CURED_SUCCESS,
           "prepare DOT");
    const struct fake_counts c0 = counts();
    ck_assert_int_eq(c0.loads, 2);
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    expect(cured_reduce_async(h, CURED_OP_MAX, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 1024, out, CURED_TYPE_FLOAT32,
                              NULL),
           CURED_SUCCESS, "MAX after prepare");
    expect(cured_dot_async(h, x, x, CURED_TYPE_FLOAT32, 1024, out, CURED_TYPE_FLOAT64, NULL), CURED_SUCCESS,
           "DOT after prepare");
    ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
    const struct fake_counts c1 = counts();
    ck_assert_msg(c1.loads == c0.loads && s1.compiles == s0.compiles && s1.memory_hits == s0.memory_hits &&
                      c1.launches >= c0.launches + 2,
                  "after prepare: %d loads, %llu compiles, %llu memory hits, %d launches", c1.loads - c0.loads,
                  (unsigned long long)(s1.compiles - s0.compiles),
                  (unsigned long long)(s1.memory_hits - s0.memory_hits), c1.launches - c0.launches);
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
}
END_TEST

/* CURED_ARCH through a handle: honoured, and a malformed one refused without writing the outputs. */
START_TEST(test_arch_override)
{
    if (!nvrtc_here())
        return;
    static const struct {
        const char *env;
        cured_status want;
        int sm, ptx;
    } cases[] = {{"sm_90", CURED_SUCCESS, 90, 0}, {"compute_90", CURED_SUCCESS, 90, 1},
                 {"sm_banana", CURED_ERROR_NOT_SUPPORTED, -7, -7}};
    ck_assert_int_eq(setenv("CURED_ARCH", cases[_i].env, 1), 0);
    cured_handle h = fake_handle(1);
    for (int again = 0; again < 2; again++) {
        int sm = -7, ptx = -7;
        expect(cured_get_arch(h, &sm, &ptx), cases[_i].want, cases[_i].env);
        ck_assert_msg(sm == cases[_i].sm && ptx == cases[_i].ptx, "%s: sm %d, ptx %d", cases[_i].env, sm, ptx);
    }
    expect(cured_get_arch(h, NULL, NULL), cases[_i].want, "NULL outputs");
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
}
END_TEST

int main(void)
{
    if (!fake_driver_found())
        return 77;
    Suite *s = suite_create("handles");
    TCase *tc = tcase_create("handles");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_create_rules);
    tcase_add_test(tc, test_create_out_of_memory);
    tcase_add_test(tc, test_stream_workspaces);
    tcase_add_test(tc, test_per_thread_stream);
    tcase_add_test(tc, test_async_capture_safe);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_prepare_loads);
    tcase_add_loop_test(tc, test_arch_override, 0, 3);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
