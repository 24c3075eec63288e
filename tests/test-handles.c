/*
 * cured.h's rules of handles, streams, messages and logging, off the GPU on
 * tests/fakecuda.c's device: cured_create retains the primary context
 * without making it current, makes 16 workspaces in one allocation and
 * releases the retain on every failure and at cured_destroy;
 * cured_create_for_context retains nothing; a device out of range and a
 * device without memory for the workspaces are refused; the 17th stream's
 * first call adds workspaces, the first call on a further stream during
 * capture is refused; with NVRTC (a few small compiles, skipped without
 * it), asynchronous calls after a stream's first allocate, set and wait
 * for nothing, also during capture, and the synchronous calls wait once;
 * CURED_ARCH's override and a malformed one through a handle;
 * cured_last_error per thread, kept by successful calls; the log: silent
 * unless asked, levels, one report per distinct warning, the sink and its
 * reset. Each test runs in its own process (Check's fork mode).
 */
#include "fake_device.h"

#include <fcntl.h>
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
    /* "each about 1 MiB ... plus 32 bytes per resident block" (4 SMs of 32 blocks here) */
    const size_t blocks = (size_t)h->facts.sms * (size_t)h->max_blocks_per_sm;
    ck_assert_msg(h->slot_bytes >= ((size_t)1 << 20) + 32 * blocks && h->slot_bytes <= ((size_t)1 << 20) + 32 * blocks +
                  8192, "a workspace of %zu bytes for %zu blocks", h->slot_bytes, blocks);
    ck_assert_msg(h->slots_cap == 16 && h->nslots == 0, "%zu workspaces, %zu taken", h->slots_cap, h->nslots);
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
START_TEST(test_async_capture_safe)
{
    if (!nvrtc_here())
        return;
    cured_handle h = fake_handle(1);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(256, 1, 0);
    struct CUstream_st *s = STREAM(1);
    const cured_layout rows = {2, {8, 128}, {128, 1}};
    cured_custom op = NULL;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a + b", "0", &op), CURED_SUCCESS,
           "a user op");
    /* First calls: compile, load, take the stream's workspace. */
    struct fake_counts c0 = counts();
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64, s),
           CURED_SUCCESS, "SUM, first call");
    const int per_sum = counts().launches - c0.launches;
    ck_assert_int_ge(per_sum, 1);
    expect(cured_reduce_axes_async(h, CURED_OP_MAX, x, CURED_TYPE_INT32, &rows, 2u, out, CURED_TYPE_INT32, NULL, s),
           CURED_SUCCESS, "MAX of rows, first call");
    expect(cured_custom_reduce_async(h, op, x, NULL, 1024, out, s), CURED_SUCCESS, "user op, first call");
    for (int capture = 0; capture < 2; capture++) {
        if (capture)
            fake_capture(s);
        c0 = counts();
        expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1000, out, CURED_TYPE_INT64,
                                  s),
               CURED_SUCCESS, "SUM");
        only_launches(capture ? "SUM, captured" : "SUM", c0, per_sum);
        c0 = counts();
        expect(cured_reduce_axes_async(h, CURED_OP_MAX, x, CURED_TYPE_INT32, &rows, 2u, out, CURED_TYPE_INT32, NULL,
                                       s),
               CURED_SUCCESS, "MAX of rows");
        only_launches(capture ? "MAX of rows, captured" : "MAX of rows", c0, 1);
        c0 = counts();
        expect(cured_custom_reduce_async(h, op, x, NULL, 999, out, s), CURED_SUCCESS, "user op");
        only_launches(capture ? "user op, captured" : "user op", c0, per_sum);
    }
    fake_capture(NULL);
    /* The synchronous call waits once, and reads its result back from the workspace. */
    int64_t host = 0;
    c0 = counts();
    expect(cured_reduce(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, &host, CURED_TYPE_INT64, s),
           CURED_SUCCESS, "cured_reduce");
    const struct fake_counts c = counts();
    ck_assert_msg(c.syncs == c0.syncs + 1 && c.allocs == c0.allocs && c.memsets == c0.memsets && c.pushed == 0,
                  "cured_reduce: %d syncs, %d allocations", c.syncs - c0.syncs, c.allocs - c0.allocs);
    expect(cured_custom_destroy(op), CURED_SUCCESS, "destroy the op");
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
    const struct fake_counts end = counts(); /* the handle's and the op's modules and memory are gone */
    ck_assert_msg(end.loads >= 3 && end.unloads == end.loads && end.frees == end.allocs && end.retains == 0,
                  "%d of %d modules unloaded, %d of %d allocations freed, %d retains", end.unloads, end.loads,
                  end.frees, end.allocs, end.retains);
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

/* ---- cured_last_error ------------------------------------------------------------ */

static void *other_thread(void *arg)
{
    char *seen = arg;
    snprintf(seen, 256, "%s", cured_last_error()); /* nothing failed in this thread yet */
    cured_type t;
    cured_default_result(CURED_OP_AND, CURED_TYPE_FLOAT32, &t); /* fails here */
    snprintf(seen + 256, 256, "%s", cured_last_error());
    return NULL;
}

START_TEST(test_last_error)
{
    clear_error();
    cured_type t = CURED_TYPE_COUNT;
    expect(cured_default_result((cured_op)99, CURED_TYPE_INT32, &t), CURED_ERROR_INVALID_ENUM, "operator 99");
    char mine[512];
    snprintf(mine, sizeof mine, "%s", cured_last_error());
    ck_assert_msg(mine[0] != '\0' && t == CURED_TYPE_COUNT, "no message, or the output written");
    static char seen[512];
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, other_thread, seen), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_msg(seen[0] == '\0', "a new thread's message is \"%s\"", seen);
    ck_assert_msg(seen[256] != '\0' && strcmp(seen + 256, mine) != 0, "the other thread's failure: \"%s\"", seen + 256);
    ck_assert_str_eq(cured_last_error(), mine); /* not this thread's */
    /* Successful calls do not clear it (nor write it). */
    fake_use(0);
    cured_handle h = NULL;
    int v;
    cured_stats s;
    ck_assert_int_eq(cured_default_result(CURED_OP_SUM, CURED_TYPE_INT32, &t), CURED_SUCCESS);
    ck_assert_int_eq(cured_get_stats(&s), CURED_SUCCESS);
    ck_assert_int_eq(cured_set_log(CURED_LOG_OFF, NULL, NULL), CURED_SUCCESS);
    ck_assert_int_eq(cured_driver_version(&v), CURED_SUCCESS);
    ck_assert_int_eq(cured_create(0, &h), CURED_SUCCESS);
    const cured_layout none = {1, {0}, {1}};
    ck_assert_int_eq(cured_reduce_axes_async(h, CURED_OP_SUM, NULL, CURED_TYPE_INT32, &none, 0, NULL,
                                             CURED_TYPE_INT64, NULL, NULL),
                     CURED_SUCCESS);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
    ck_assert_int_eq(cured_cache_clear(NULL), CURED_SUCCESS);
    ck_assert_str_eq(cured_last_error(), mine);
}
END_TEST

/* ---- logging ---------------------------------------------------------------------- */

struct sink {
    int n[3];
    char last[1024];
};

static void sink_fn(cured_log_level level, const char *message, void *user)
{
    struct sink *s = user;
    s->n[level]++;
    snprintf(s->last, sizeof s->last, "%s", message);
}

/* Run fn with stderr going to a file; its contents into buf. */
static void with_stderr(void (*fn)(void), char *buf, size_t cap)
{
    char path[] = "/tmp/cured-stderr-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    ck_assert(fd >= 0 && saved >= 0);
    unlink(path);
    fflush(stderr);
    ck_assert_int_eq(dup2(fd, 2), 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t k = pread(fd, buf, cap - 1, 0);
    buf[k > 0 ? k : 0] = '\0';
    close(fd);
}

/* A cache directory that is a regular file: a warning; bad input: statuses only. */
static void warn_and_fail(void)
{
    char file[] = "/tmp/cured-not-a-dir-XXXXXX";
    int fd = mkstemp(file);
    ck_assert(fd >= 0);
    close(fd);
    unsetenv("CURED_CACHE_DISABLE");
    setenv("CURED_CACHE_DIR", file, 1);
    ck_assert_ptr_null(cured_cache_dir());
    unlink(file);
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    no_driver();
    cured_create(0, &h);
    cured_reduce(NULL, CURED_OP_SUM, CURED_ALGO_AUTO, NULL, CURED_TYPE_INT32, 0, NULL, CURED_TYPE_INT64, NULL);
    cured_custom_create(NULL, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x;", "a", "0", &(cured_custom){0});
}

/* The library prints nothing unless asked (CURED_LOG unset, no sink). */
START_TEST(test_log_silent)
{
    unsetenv("CURED_LOG");
    char out[4096];
    with_stderr(warn_and_fail, out, sizeof out);
    ck_assert_msg(out[0] == '\0', "the library printed: %s", out);
}
END_TEST

/* CURED_LOG=warn: the warning on stderr, once. */
START_TEST(test_log_env)
{
    setenv("CURED_LOG", "warn", 1);
    char out[4096];
    with_stderr(warn_and_fail, out, sizeof out);
    ck_assert_msg(strncmp(out, "cured: warning: ", 16) == 0 && strstr(out, "unusable") != NULL &&
                      strchr(out, '\n') == out + strlen(out) - 1,
                  "stderr: %s", out);
}
END_TEST

static void debug_and_warnings(void)
{
    cr_log(CURED_LOG_DEBUG, "a debug message");
    cr_log(CURED_LOG_WARN, "warning A");
    cr_log(CURED_LOG_WARN, "warning A");
    cr_log(CURED_LOG_WARN, "warning B");
}

/* A sink gets the levels up to its own, each distinct warning once; a bad level changes nothing;
 * a NULL sink goes back to CURED_LOG. */
START_TEST(test_log_sink)
{
    setenv("CURED_LOG", "debug", 1);
    struct sink a = {{0}, ""}, b = {{0}, ""};
    expect(cured_set_log(CURED_LOG_WARN, sink_fn, &a), CURED_SUCCESS, "a WARN sink");
    char out[4096];
    with_stderr(debug_and_warnings, out, sizeof out);
    ck_assert_msg(a.n[CURED_LOG_DEBUG] == 0 && a.n[CURED_LOG_WARN] == 2 && strcmp(a.last, "warning B") == 0,
                  "WARN sink: %d debug, %d warnings, last \"%s\"", a.n[CURED_LOG_DEBUG], a.n[CURED_LOG_WARN], a.last);
    ck_assert_msg(out[0] == '\0', "with a sink, stderr got: %s", out);
    expect(cured_set_log((cured_log_level)3, sink_fn, &b), CURED_ERROR_INVALID_ENUM, "level 3");
    expect(cured_set_log((cured_log_level)-1, sink_fn, &b), CURED_ERROR_INVALID_ENUM, "level -1");
    cr_log(CURED_LOG_WARN, "warning C");
    ck_assert_msg(a.n[CURED_LOG_WARN] == 3 && b.n[CURED_LOG_WARN] == 0, "a refused level changed the sink");
    expect(cured_set_log(CURED_LOG_DEBUG, sink_fn, &b), CURED_SUCCESS, "a DEBUG sink");
    cr_log(CURED_LOG_DEBUG, "debug");
    cr_log(CURED_LOG_WARN, "warning A"); /* reported once per process, to whichever sink */
    ck_assert_msg(b.n[CURED_LOG_DEBUG] == 1 && b.n[CURED_LOG_WARN] == 0, "DEBUG sink: %d, %d", b.n[1], b.n[2]);
    expect(cured_set_log(CURED_LOG_OFF, sink_fn, &b), CURED_SUCCESS, "an OFF sink");
    cr_log(CURED_LOG_WARN, "warning D");
    ck_assert_int_eq(b.n[CURED_LOG_WARN], 0);
    expect(cured_set_log(CURED_LOG_OFF, NULL, NULL), CURED_SUCCESS, "back to CURED_LOG=debug");
    with_stderr(debug_and_warnings, out, sizeof out);
    ck_assert_msg(strstr(out, "cured: debug: a debug message\n") != NULL && strstr(out, "warning A") == NULL,
                  "stderr: %s", out);
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
    tcase_add_test(tc, test_async_capture_safe);
    tcase_add_loop_test(tc, test_arch_override, 0, 3);
    tcase_add_test(tc, test_last_error);
    tcase_add_test(tc, test_log_silent);
    tcase_add_test(tc, test_log_env);
    tcase_add_test(tc, test_log_sink);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
