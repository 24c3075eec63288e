/*
 * cured.h's rules of messages and logging, off the GPU: cured_last_error is
 * per thread ("" in a thread where nothing failed) and successful calls,
 * those on tests/fakecuda.c's device among them, leave it as it was; the
 * library prints nothing unless asked (a warning of an unusable disk cache,
 * failing calls, CURED_LOG unset); CURED_LOG=warn puts the warning on
 * stderr once; a sink gets the levels up to its own and each distinct
 * warning once, an unknown level changes nothing, a NULL sink goes back to
 * CURED_LOG. Each test runs in its own process (Check's fork mode).
 */
#include "fake_device.h"

#include <pthread.h>
#include <stdint.h>
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
    ck_assert_msg(strchr(message, '\n') == NULL, "a message with a newline: %s", message);
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
    /* without a sink the level is ignored, even one that is not a level */
    expect(cured_set_log((cured_log_level)7, NULL, NULL), CURED_SUCCESS, "back to CURED_LOG=debug");
    with_stderr(debug_and_warnings, out, sizeof out);
    ck_assert_msg(strstr(out, "cured: debug: a debug message\n") != NULL && strstr(out, "warning A") == NULL,
                  "stderr: %s", out);
    /* 64 distinct warnings, each twice: 64 reports (cured remembers the last 64). */
    expect(cured_set_log(CURED_LOG_WARN, sink_fn, &b), CURED_SUCCESS, "the sink again");
    char text[64];
    b.n[CURED_LOG_WARN] = 0;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 64; i++) {
            snprintf(text, sizeof text, "distinct warning %d", i);
            cr_log(CURED_LOG_WARN, "%s", text);
        }
    ck_assert_int_eq(b.n[CURED_LOG_WARN], 64);
}
END_TEST

int main(void)
{
    if (!fake_driver_found())
        return 77;
    Suite *s = suite_create("messages");
    TCase *tc = tcase_create("messages");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_last_error);
    tcase_add_test(tc, test_log_silent);
    tcase_add_test(tc, test_log_env);
    tcase_add_test(tc, test_log_sink);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
