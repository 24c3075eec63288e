/*
 * The kernel cache under concurrency: threads asking at once for the same
 * program share one compilation (and its image, or its failure); failures
 * are not cached. Lifetime: a user op's entry is freed with its last
 * reference, a rejected entry too, a built-in one stays. Identical
 * user-defined ops created and making their first axis call together
 * through the API on tests/fakecuda.c's device, with cured_cache_clear of a
 * live disk cache and handles made and destroyed alongside (the entry's
 * lifetime without NVRTC and with every race forced: test-kcache-race).
 * Needs NVRTC (exit 77 without it), no GPU.
 *
 * Counters are process-wide, so every test compares before/after values and
 * uses an (architecture, program) key that no other test in this file uses,
 * which keeps the results right in no-fork mode as well.
 */
#include "fake_device.h"
#include "broken.h"
#include "cache_util.h"

#include <errno.h>
#include <check.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 16

static int archs[64];
static int narchs;

struct job {
    pthread_barrier_t *barrier;
    const struct cr_unit *prog;
    int arch;
    cured_status status;
    const struct cr_image *img;
    int message_ok; /* failure message (thread-local) names the error line */
};

static void *worker(void *arg)
{
    struct job *j = arg;
    pthread_barrier_wait(j->barrier);
    j->status = cr_kcache_get(j->prog, j->arch, 0, &j->img);
    if (j->status != CURED_SUCCESS)
        j->message_ok = strstr(cured_last_error(), BROKEN_LINE_TAG) != NULL &&
                        strstr(cured_last_error(), BROKEN_NAME) != NULL;
    return NULL;
}

/* Run n jobs released together by a barrier. */
static void run_together(struct job *jobs, int n)
{
    pthread_barrier_t barrier;
    pthread_t tid[NTHREADS];
    ck_assert_int_le(n, NTHREADS);
    ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, (unsigned)n), 0);
    for (int i = 0; i < n; i++) {
        jobs[i].barrier = &barrier;
        jobs[i].img = (const struct cr_image *)(uintptr_t)0x1; /* poison */
        jobs[i].status = (cured_status)-1;
        ck_assert_int_eq(pthread_create(&tid[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
}

static void stats(cured_stats *s)
{
    ck_assert_int_eq(cured_get_stats(s), CURED_SUCCESS);
}

START_TEST(test_single_flight)
{
    const struct cr_unit *p = cr_catalog_unit(0);
    ck_assert_int_eq(p->needs_toolkit, 0);
    struct job jobs[NTHREADS];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i].prog = p;
        jobs[i].arch = archs[0];
    }
    cured_stats s0, s1;
    stats(&s0);
    run_together(jobs, NTHREADS);
    stats(&s1);
    for (int i = 0; i < NTHREADS; i++) {
        ck_assert_msg(jobs[i].status == CURED_SUCCESS, "thread %d: %s", i,
                      cured_status_string(jobs[i].status));
        ck_assert_msg(jobs[i].img == jobs[0].img, "thread %d got image %p, thread 0 %p", i,
                      (const void *)jobs[i].img, (const void *)jobs[0].img);
    }
    ck_assert_msg(jobs[0].img->size > 0 && memcmp(jobs[0].img->data, "\177ELF", 4) == 0,
                  "the shared image is not a cubin");
    ck_assert_uint_eq(s1.compiles, s0.compiles + 1);
    ck_assert_uint_eq(s1.memory_hits, s0.memory_hits + NTHREADS - 1);
    ck_assert_uint_eq(s1.compile_failures, s0.compile_failures);

    /* A later request is a plain hit on the same image. */
    const struct cr_image *again = NULL;
    ck_assert_int_eq(cr_kcache_get(p, archs[0], 0, &again), CURED_SUCCESS);
    ck_assert_ptr_eq(again, jobs[0].img);
    stats(&s0);
    ck_assert_uint_eq(s0.compiles, s1.compiles);
    ck_assert_uint_eq(s0.memory_hits, s1.memory_hits + 1);
}
END_TEST

START_TEST(test_two_archs_at_once)
{
    const struct cr_unit *p = cr_catalog_unit(0);
    int a = archs[1], b = archs[2];
    struct job jobs[NTHREADS];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i].prog = p;
        jobs[i].arch = i % 2 ? b : a;
    }
    cured_stats s0, s1;
    stats(&s0);
    run_together(jobs, NTHREADS);
    stats(&s1);
    for (int i = 0; i < NTHREADS; i++) {
        ck_assert_msg(jobs[i].status == CURED_SUCCESS, "thread %d (sm_%d): %s", i, jobs[i].arch,
                      cured_status_string(jobs[i].status));
        ck_assert_msg(jobs[i].img == jobs[i % 2].img, "thread %d (sm_%d) got another image", i,
                      jobs[i].arch);
    }
    ck_assert_msg(jobs[0].img != jobs[1].img, "sm_%d and sm_%d share an image", a, b);
    ck_assert_uint_eq(s1.compiles, s0.compiles + 2);
    ck_assert_uint_eq(s1.memory_hits, s0.memory_hits + NTHREADS - 2);
    ck_assert_uint_eq(s1.compile_failures, s0.compile_failures);
}
END_TEST

START_TEST(test_shared_failure_not_cached)
{
    struct cr_unit broken;
    broken_program(&broken, 1); /* slow to fail: all threads find it pending */
    enum { N = 8 };
    struct job jobs[N];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < N; i++) {
        jobs[i].prog = &broken;
        jobs[i].arch = archs[3];
    }
    cured_stats s0, s1, s2;
    stats(&s0);
    run_together(jobs, N);
    stats(&s1);
    for (int i = 0; i < N; i++) {
        ck_assert_msg(jobs[i].status == CURED_ERROR_COMPILE, "thread %d: %s", i,
                      cured_status_string(jobs[i].status));
        ck_assert_msg(jobs[i].message_ok, "thread %d: its message does not carry the NVRTC log", i);
        ck_assert_msg(jobs[i].img == (const struct cr_image *)(uintptr_t)0x1,
                      "thread %d: the image pointer was written on failure", i);
    }
    ck_assert_uint_eq(s1.compile_failures, s0.compile_failures + 1);
    ck_assert_uint_eq(s1.compiles, s0.compiles);
    ck_assert_uint_eq(s1.memory_hits, s0.memory_hits);

    /* The failure was forgotten: the next request compiles (and fails) again. */
    const struct cr_image *img = (const struct cr_image *)(uintptr_t)0x1;
    cr_fail(CURED_SUCCESS, "%s", "");
    ck_assert_int_eq(cr_kcache_get(&broken, archs[3], 0, &img), CURED_ERROR_COMPILE);
    ck_assert_msg(strstr(cured_last_error(), BROKEN_LINE_TAG) != NULL, "%s", cured_last_error());
    stats(&s2);
    ck_assert_uint_eq(s2.compile_failures, s1.compile_failures + 1);
    ck_assert_uint_eq(s2.compiles, s1.compiles);
    ck_assert_uint_eq(s2.memory_hits, s1.memory_hits);
}
END_TEST

/* Many threads, several keys, repeated: every thread of a key gets one image. */
START_TEST(test_mixed_keys)
{
    struct job jobs[NTHREADS];
    memset(jobs, 0, sizeof jobs);
    /* Specs 2..5 (header-free two-pass programs) at one architecture: four keys. */
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i].prog = cr_catalog_unit((size_t)(2 + i % 4));
        ck_assert_int_eq(jobs[i].prog->needs_toolkit, 0);
        jobs[i].arch = archs[4];
    }
    cured_stats s0, s1;
    stats(&s0);
    run_together(jobs, NTHREADS);
    run_together(jobs, NTHREADS); /* second round: all hits */
    stats(&s1);
    for (int i = 0; i < NTHREADS; i++) {
        ck_assert_msg(jobs[i].status == CURED_SUCCESS, "thread %d: %s", i,
                      cured_status_string(jobs[i].status));
        ck_assert_ptr_eq(jobs[i].img, jobs[i % 4].img);
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            ck_assert_ptr_ne(jobs[i].img, jobs[j].img);
    ck_assert_uint_eq(s1.compiles, s0.compiles + 4);
    ck_assert_uint_eq(s1.memory_hits, s0.memory_hits + 2 * NTHREADS - 4);
}
END_TEST

/* ---- lifetime: user ops and rejected images do not stay in memory ---- */

static const struct cr_image *get_ok(const struct cr_unit *p, int arch)
{
    const struct cr_image *img = NULL;
    cured_status st = cr_kcache_get(p, arch, 0, &img);
    ck_assert_msg(st == CURED_SUCCESS, "%s: %s", p->label, cured_last_error());
    return img;
}

/* A user op's entry lives while someone holds it, and is freed with the last reference. */
START_TEST(test_user_op_freed)
{
    const int arch = archs[narchs - 1];
    size_t base = cr_kcache_entries();
    cured_stats s0, s1;
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    for (int round = 0; round < 2; round++) {
        cured_custom a = NULL, b = NULL;
        ck_assert_int_eq(cr_custom_build(CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 3 + 1", "a+b", "0", &a), 0);
        ck_assert_int_eq(cr_custom_build(CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 3 + 1", "a+b", "0", &b), 0);
        const struct cr_image *ia = get_ok(cr_custom_unit(a), arch);
        const struct cr_image *ib = get_ok(cr_custom_unit(b), arch); /* the same source: a memory hit */
        ck_assert_ptr_eq(ia, ib);
        ck_assert_uint_eq(cr_kcache_entries(), base + 1);
        cr_kcache_put(ia);
        ck_assert_uint_eq(cr_kcache_entries(), base + 1); /* b still holds it */
        cr_kcache_put(ib);
        ck_assert_uint_eq(cr_kcache_entries(), base);
        cured_custom_destroy(a);
        cured_custom_destroy(b);
    }
    /* Freed, so the second round compiled again. */
    ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
    ck_assert_uint_eq(s1.compiles, s0.compiles + 2);
    ck_assert_uint_eq(s1.memory_hits, s0.memory_hits + 2);
}
END_TEST

/* Many distinct user ops, one after another: memory stays bounded. */
START_TEST(test_many_user_ops)
{
    const int arch = archs[narchs - 2];
    size_t base = cr_kcache_entries();
    for (int i = 0; i < 12; i++) {
        char map[32];
        snprintf(map, sizeof map, "x * %d", i + 100);
        cured_custom op = NULL;
        ck_assert_int_eq(cr_custom_build(CURED_TYPE_INT32, CURED_TYPE_INT64, 1, map, "a+b", "0", &op), 0);
        cr_kcache_put(get_ok(cr_custom_unit(op), arch));
        cured_custom_destroy(op);
        ck_assert_uint_eq(cr_kcache_entries(), base);
    }
}
END_TEST

/* A built-in kernel stays after its put; a rejected one is freed with its last reference (it leaked). */
START_TEST(test_reject_frees)
{
    const int arch = archs[narchs - 3];
    const struct cr_unit *p = cr_catalog_unit(0);
    size_t base = cr_kcache_entries();
    const struct cr_image *img = get_ok(p, arch);
    ck_assert_uint_eq(cr_kcache_entries(), base + 1);
    cr_kcache_put(img);
    ck_assert_uint_eq(cr_kcache_entries(), base + 1); /* built-in: kept */
    const struct cr_image *again = get_ok(p, arch);
    ck_assert_ptr_eq(again, img);
    const struct cr_image *other = get_ok(p, arch); /* a second holder */
    cr_kcache_reject(p, arch, 0, again);
    ck_assert_uint_eq(cr_kcache_entries(), base + 1); /* unlinked, still held twice */
    const struct cr_image *fresh = get_ok(p, arch); /* a new entry, compiled again */
    ck_assert_ptr_ne(fresh, again);
    ck_assert_uint_eq(cr_kcache_entries(), base + 2);
    cr_kcache_put(again);
    cr_kcache_put(other);
    ck_assert_uint_eq(cr_kcache_entries(), base + 1); /* the rejected one is gone */
    cr_kcache_put(fresh);
    ck_assert_uint_eq(cr_kcache_entries(), base + 1);
}
END_TEST

/* ---- identical user ops through the API, with clears and handles alongside ---- */

#define OPS 6
#define OP_ROUNDS 2

struct user_thread {
    pthread_barrier_t *barrier;
    cured_handle h;
    int id, round;
    const int32_t *x;
    int64_t *out;
    cured_status create, axes;
    char message[512];
};

static void *user_first_calls(void *arg)
{
    struct user_thread *t = arg;
    char map[32];
    snprintf(map, sizeof map, "x * 3 + %d", t->round + 1); /* a new program each round */
    cured_custom op = NULL;
    pthread_barrier_wait(t->barrier);
    t->create = cured_custom_create(t->h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, map, "a + b", "0", &op);
    pthread_barrier_wait(t->barrier);
    t->axes = (cured_status)-1;
    if (t->create == CURED_SUCCESS) {
        const cured_layout rows = {2, {4, 64}, {64, 1}};
        t->axes = cured_custom_reduce_axes_async(t->h, op, t->x, &rows, 2u, t->out + 4 * t->id, NULL,
                                                 (struct CUstream_st *)(uintptr_t)(0x1000 + 16 * t->id));
    }
    if (t->create != CURED_SUCCESS || t->axes != CURED_SUCCESS)
        snprintf(t->message, sizeof t->message, "%s", cured_last_error());
    pthread_barrier_wait(t->barrier); /* every first call made before any op goes */
    cured_custom_destroy(op);
    return NULL;
}

static struct {
    pthread_mutex_t lock;
    int stop, clears, handles;
    cured_status st;
} alongside = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, CURED_SUCCESS};

static int alongside_stop(void)
{
    pthread_mutex_lock(&alongside.lock);
    int s = alongside.stop;
    pthread_mutex_unlock(&alongside.lock);
    return s;
}

static void alongside_fail(cured_status st)
{
    pthread_mutex_lock(&alongside.lock);
    if (alongside.st == CURED_SUCCESS)
        alongside.st = st;
    pthread_mutex_unlock(&alongside.lock);
}

static void *clears(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 500000};
    while (!alongside_stop()) {
        cured_status st = cured_cache_clear(NULL);
        if (st != CURED_SUCCESS)
            alongside_fail(st);
        alongside.clears++;
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void *handles(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 2000000};
    while (!alongside_stop()) {
        cured_handle h = NULL;
        cured_status st = cured_create(0, &h);
        if (st == CURED_SUCCESS)
            st = cured_destroy(h);
        if (st != CURED_SUCCESS)
            alongside_fail(st);
        alongside.handles++;
        nanosleep(&ts, NULL);
    }
    return NULL;
}

START_TEST(test_user_ops_first_calls_api)
{
    if (!fake_driver_found())
        return;
    char dir[512];
    ck_assert_msg(make_temp_dir(dir, sizeof dir, "kcache") == 0, "mkdtemp: %s", strerror(errno));
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", dir, 1), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
    cured_handle h = fake_handle(1);
    void (*fake_images)(int *rejected, int *null);
    *(void **)&fake_images = dlsym(dlopen(fake_driver, RTLD_NOW | RTLD_NOLOAD), "fake_images");
    ck_assert_ptr_nonnull(fake_images);
    int32_t *x = fake_alloc(4 * 64 * sizeof(int32_t), 1, 0);
    int64_t *out = fake_alloc(OPS * 4 * sizeof(int64_t), 1, 0);
    ck_assert_msg(x != NULL && out != NULL, "fake_alloc");
    const size_t base = cr_kcache_entries();
    const int launches0 = counts().launches;
    pthread_t side[2];
    ck_assert_int_eq(pthread_create(&side[0], NULL, clears, NULL), 0);
    ck_assert_int_eq(pthread_create(&side[1], NULL, handles, NULL), 0);
    for (int r = 0; r < OP_ROUNDS; r++) {
        cured_stats s0, s1;
        ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
        pthread_barrier_t barrier;
        ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, OPS), 0);
        struct user_thread t[OPS];
        pthread_t tid[OPS];
        for (int i = 0; i < OPS; i++) {
            t[i] = (struct user_thread){&barrier, h, i, r, x, out, (cured_status)-1, (cured_status)-1, ""};
            ck_assert_int_eq(pthread_create(&tid[i], NULL, user_first_calls, &t[i]), 0);
        }
        for (int i = 0; i < OPS; i++)
            ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
        pthread_barrier_destroy(&barrier);
        ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
        for (int i = 0; i < OPS; i++)
            ck_assert_msg(t[i].create == CURED_SUCCESS && t[i].axes == CURED_SUCCESS,
                          "round %d, op %d: create %s, first axis call %s: %s", r, i,
                          cured_status_string(t[i].create), cured_status_string(t[i].axes), t[i].message);
        /* The op's program and its axis shape, each compiled (or found on disk) at least once. */
        ck_assert_msg(s1.compiles + s1.disk_hits >= s0.compiles + s0.disk_hits + 2 && s1.compile_failures ==
                      s0.compile_failures, "round %d: %llu compilations, %llu disk hits, %llu failures", r,
                      (unsigned long long)(s1.compiles - s0.compiles),
                      (unsigned long long)(s1.disk_hits - s0.disk_hits),
                      (unsigned long long)(s1.compile_failures - s0.compile_failures));
        /* Every op destroyed: no user op's entry is left. */
        ck_assert_msg(cr_kcache_entries() == base, "round %d: %zu entries, want %zu", r, cr_kcache_entries(), base);
    }
    pthread_mutex_lock(&alongside.lock);
    alongside.stop = 1;
    pthread_mutex_unlock(&alongside.lock);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_join(side[i], NULL), 0);
    ck_assert_msg(alongside.st == CURED_SUCCESS, "a clear or a handle alongside: %s",
                  cured_status_string(alongside.st));
    ck_assert_msg(alongside.clears > 0 && alongside.handles > 0, "%d clears, %d handles alongside",
                  alongside.clears, alongside.handles);
    ck_assert_msg(counts().launches - launches0 >= OPS * OP_ROUNDS, "%d launches for %d first calls",
                  counts().launches - launches0, OPS * OP_ROUNDS);
    int rejected = 0, null = 0;
    fake_images(&rejected, &null);
    ck_assert_msg(rejected == 0 && null == 0, "cuModuleLoadData: %d images refused, %d NULL", rejected, null);
    expect(cured_destroy(h), CURED_SUCCESS, "cured_destroy");
    ck_assert_msg(remove_tree(dir) == 0, "remove %s: %s", dir, strerror(errno));
}
END_TEST

static Suite *kcache_suite(void)
{
    Suite *s = suite_create("kcache");
    TCase *tc = tcase_create("concurrency");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_single_flight);
    tcase_add_test(tc, test_two_archs_at_once);
    tcase_add_test(tc, test_shared_failure_not_cached);
    tcase_add_test(tc, test_mixed_keys);
    suite_add_tcase(s, tc);
    TCase *life = tcase_create("lifetime");
    tcase_set_timeout(life, 300);
    tcase_add_test(life, test_user_op_freed);
    tcase_add_test(life, test_many_user_ops);
    tcase_add_test(life, test_reject_frees);
    tcase_add_test(life, test_user_ops_first_calls_api);
    suite_add_tcase(s, life);
    return s;
}

int main(void)
{
    /* NVRTC only (no CUDA driver), so loading it before the forks is safe. */
    if (cured_nvrtc_version(NULL, NULL) != CURED_SUCCESS) {
        printf("SKIP: NVRTC is not available: %s\n", cured_last_error());
        return 77;
    }
    if (cured_supported_archs(archs, (int)(sizeof archs / sizeof *archs), &narchs) != CURED_SUCCESS ||
        narchs < 5) {
        printf("FAIL: the tests need 5 architectures from NVRTC, it offers %d\n", narchs);
        return 1;
    }
    SRunner *sr = srunner_create(kcache_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
