/*
 * The persistent kernel cache under concurrency, between processes (forked
 * children of the test, each with two threads) and without NVRTC: the
 * cache's own calls (cr_diskcache_store / load / drop, cured_cache_clear)
 * on made-up keys and payloads, so that hundreds of stores take a second.
 *  - stores, loads, drops, cured_cache_clear and eviction (a limit of a few
 *    entries) all at once: every load is a miss or exactly an image stored
 *    for its key, nothing is left in tmp/, the limit holds once quiet;
 *  - a process dropping an image the driver refused while another stores a
 *    fresh one for the same key: the fresh one stays (in either order);
 *  - a writer killed at each write of an entry: no entry appears, an older
 *    entry stays whole, the partial temp file is never served and is swept
 *    once stale; the next process stores and loads as usual;
 *  - many writers against a small CURED_CACHE_MAX_BYTES.
 * Randomized parts print their seed and the line that reruns them
 * (CURED_TEST_SEED). Each test runs in its own process (Check's fork mode).
 */
#include "internal.h"
#include "diskcache.h"
#include "cache_util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NKEYS 12
#define MAXPROCS 10

static char top[512], cache[600], v1[640], tmpd[680];
static unsigned long long seed;

/* What one child process saw (shared memory). */
struct report {
    int done, errors;
    char first[256]; /* the first error */
    int stores, loads, hits, drops, clears;
};

static struct report *shared_reports(int n)
{
    struct report *r = mmap(NULL, (size_t)n * sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(r != MAP_FAILED, "mmap: %s", strerror(errno));
    memset(r, 0, (size_t)n * sizeof *r);
    return r;
}

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void child_error(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void child_error(struct report *r, const char *fmt, ...)
{
    pthread_mutex_lock(&report_lock);
    if (r->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->first, sizeof r->first, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&report_lock);
}

/* xorshift64*: each child and thread its own stream from the seed. */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void key_of(int k, char *key, size_t cap)
{
    snprintf(key, cap, "cured kernel cache key (test-diskcache-race)\nkernel race_%d\n", k);
}

/* Version v of key k's payload: its size and bytes follow from (k, v) alone. */
static size_t payload_size(int k, int v)
{
    return 600 + 97 * (size_t)k + 1500 * (size_t)v;
}

static void make_image(int k, int v, struct cr_image *img, unsigned char *buf)
{
    const size_t n = payload_size(k, v);
    int len = snprintf((char *)buf, 32, "key %d version %d|", k, v);
    for (size_t i = (size_t)len; i < n; i++)
        buf[i] = (unsigned char)(i * 31 + (size_t)k * 7 + (size_t)v * 13);
    memset(img, 0, sizeof *img);
    img->data = buf;
    img->size = n;
    snprintf(img->lowered[0], sizeof img->lowered[0], "_Z4racei%d", k);
}

/* A loaded image is one that was stored for key k: 1, else 0. */
static int valid_image(int k, const struct cr_image *img)
{
    static __thread unsigned char want[8192];
    struct cr_image w;
    for (int v = 0; v < 2; v++) {
        make_image(k, v, &w, want);
        if (img->size == w.size && memcmp(img->data, want, w.size) == 0 && strcmp(img->lowered[0], w.lowered[0]) == 0 &&
            ((const unsigned char *)img->data)[img->size] == '\0')
            return 1;
    }
    return 0;
}

static void setup(void)
{
    ck_assert_msg(make_temp_dir(top, sizeof top, "diskcache-race") == 0, "mkdtemp: %s", strerror(errno));
    snprintf(cache, sizeof cache, "%s/cache", top);
    snprintf(v1, sizeof v1, "%s/v1", cache);
    snprintf(tmpd, sizeof tmpd, "%s/tmp", v1);
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", cache, 1), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_MAX_BYTES"), 0);
    ck_assert_int_eq(setenv("CURED_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so", 1), 0); /* nothing compiles */
    const char *s = getenv("CURED_TEST_SEED");
    seed = s && *s ? strtoull(s, NULL, 10) : (unsigned long long)time(NULL) * 2654435761ull ^ (unsigned long long)getpid();
}

static void teardown(void)
{
    if (remove_tree(top) != 0)
        fprintf(stderr, "cannot remove %s: %s\n", top, strerror(errno));
}

#define RERUN "(seed %llu; rerun: CURED_TEST_SEED=%llu CK_RUN_CASE=race ./tests/test-diskcache-race)"

/* Fork n children running fn(index, report) and wait for them all. */
static void run_children(int n, void (*fn)(int i, struct report *r), struct report *r)
{
    pid_t pid[MAXPROCS];
    ck_assert_int_le(n, MAXPROCS);
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        pid[i] = fork();
        ck_assert_msg(pid[i] >= 0, "fork: %s", strerror(errno));
        if (pid[i] == 0) {
            fn(i, &r[i]);
            r[i].done = 1;
            _exit(0);
        }
    }
    for (int i = 0; i < n; i++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && r[i].done,
                      "process %d died (status 0x%x) " RERUN, i, (unsigned)status, seed, seed);
        ck_assert_msg(r[i].errors == 0, "process %d: %d error(s), the first: %s " RERUN, i, r[i].errors, r[i].first,
                      seed, seed);
    }
}

/* ---- everything at once ---- */

enum { WRITER, READER, DROPPER, CLEARER };
static const int role_of[] = {WRITER, WRITER, WRITER, READER, READER, DROPPER, CLEARER};
#define NPROCS ((int)(sizeof role_of / sizeof *role_of))
#define ITERS 120

struct worker {
    int proc, thread;
    struct report *r;
};

static int *writers_left; /* shared: readers, droppers and clearers go on until the writers are done */

static void *mixed_thread(void *arg)
{
    struct worker *w = arg;
    struct report *r = w->r;
    uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(1 + w->proc * 2 + w->thread));
    static __thread unsigned char buf[8192];
    char key[128];
    const int writer = role_of[w->proc] == WRITER;
    for (int i = 0; i < ITERS || (!writer && __atomic_load_n(writers_left, __ATOMIC_ACQUIRE) > 0); i++) {
        const int k = (int)(next(&s) % NKEYS);
        key_of(k, key, sizeof key);
        struct cr_image img, got;
        switch (role_of[w->proc]) {
        case WRITER:
            make_image(k, (int)(next(&s) % 2), &img, buf);
            cr_diskcache_store(key, &img, 1);
            __atomic_add_fetch(&r->stores, 1, __ATOMIC_RELAXED);
            break;
        case READER:
        case DROPPER:
            memset(&got, 0, sizeof got);
            __atomic_add_fetch(&r->loads, 1, __ATOMIC_RELAXED);
            if (!cr_diskcache_load(key, 1, 0, &got))
                break;
            __atomic_add_fetch(&r->hits, 1, __ATOMIC_RELAXED);
            if (!valid_image(k, &got))
                child_error(r, "a load of \"%.60s\" gave a %zu-byte image that was never stored", key, got.size);
            if (role_of[w->proc] == DROPPER && next(&s) % 2) {
                cr_diskcache_drop(key, &got, 1); /* as if the driver refused it */
                __atomic_add_fetch(&r->drops, 1, __ATOMIC_RELAXED);
            }
            free(got.data);
            break;
        default: {
            size_t removed = 0;
            if (cured_cache_clear(&removed) != CURED_SUCCESS)
                child_error(r, "cured_cache_clear failed");
            __atomic_add_fetch(&r->clears, 1, __ATOMIC_RELAXED);
            break;
        }
        }
    }
    return NULL;
}

static void mixed_child(int proc, struct report *r)
{
    struct worker w[2] = {{proc, 0, r}, {proc, 1, r}};
    pthread_t tid[2];
    for (int t = 0; t < 2; t++)
        if (pthread_create(&tid[t], NULL, mixed_thread, &w[t]) != 0)
            _exit(1);
    for (int t = 0; t < 2; t++)
        pthread_join(tid[t], NULL);
    if (role_of[proc] == WRITER)
        __atomic_sub_fetch(writers_left, 1, __ATOMIC_RELEASE);
}

/* Sum of the entries' sizes in v1 and their number. */
static long long entry_bytes(int *n)
{
    char names[64][65], path[2048];
    *n = list_entries(v1, names, 64);
    ck_assert_int_ge(*n, 0);
    ck_assert_int_le(*n, 64);
    long long total = 0;
    for (int i = 0; i < *n; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%.700s/%.64s", v1, names[i]);
        if (stat(path, &st) == 0)
            total += st.st_size;
    }
    return total;
}

/* In a child: one store (its tidy evicts down to the limit), then every key's load is a miss or valid. */
static void settle_child(int i, struct report *r)
{
    (void)i;
    unsigned char buf[8192];
    char key[128];
    struct cr_image img, got;
    key_of(0, key, sizeof key);
    make_image(0, 0, &img, buf);
    cr_diskcache_store(key, &img, 1);
    for (int k = 0; k < NKEYS; k++) {
        key_of(k, key, sizeof key);
        memset(&got, 0, sizeof got);
        if (cr_diskcache_load(key, 1, 0, &got)) {
            r->hits++;
            if (!valid_image(k, &got))
                child_error(r, "after the race, \"%.60s\" gave a %zu-byte image never stored", key, got.size);
            free(got.data);
        }
    }
}

START_TEST(test_everything_at_once)
{
    /* A limit of about four entries: most stores evict. */
    const long long limit = 4 * 2600;
    char text[32];
    snprintf(text, sizeof text, "%lld", limit);
    ck_assert_int_eq(setenv("CURED_CACHE_MAX_BYTES", text, 1), 0);
    struct report *r = shared_reports(NPROCS + 1);
    writers_left = &r[NPROCS].stores; /* a spare report's field as the shared count */
    for (int i = 0; i < NPROCS; i++)
        *writers_left += role_of[i] == WRITER;
    run_children(NPROCS, mixed_child, r);
    int stores = 0, hits = 0, drops = 0, clears = 0;
    for (int i = 0; i < NPROCS; i++)
        stores += r[i].stores, hits += r[i].hits, drops += r[i].drops, clears += r[i].clears;
    ck_assert_msg(stores == 3 * 2 * ITERS && clears >= 2 * ITERS, "%d stores, %d clears " RERUN, stores, clears, seed,
                  seed);
    ck_assert_msg(count_files(tmpd) == 0, "%d file(s) left in %s " RERUN, count_files(tmpd), tmpd, seed, seed);
    struct report *quiet = shared_reports(1);
    run_children(1, settle_child, quiet);
    int n;
    const long long total = entry_bytes(&n);
    ck_assert_msg(total <= limit && n >= 1 && quiet->hits >= 1,
                  "once quiet: %d entries, %lld bytes over a limit of %lld, %d hits " RERUN, n, total, limit,
                  quiet->hits, seed, seed);
    printf("everything at once: %d stores, %d hits, %d drops, %d clears (seed %llu)\n", stores, hits, drops, clears,
           seed);
}
END_TEST

/* ---- a refused image dropped while another process stores a fresh one ---- */

static int pipe_fds[2][2]; /* [0]: the dropper says it loaded, [1]: the parent lets it drop */

static void put_bad(int i, struct report *r)
{
    (void)i, (void)r;
    unsigned char buf[8192];
    char key[128];
    struct cr_image img;
    key_of(3, key, sizeof key);
    make_image(3, 0, &img, buf); /* version 0: what the driver will refuse */
    cr_diskcache_store(key, &img, 1);
}

static void put_fresh(int i, struct report *r)
{
    (void)i, (void)r;
    unsigned char buf[8192];
    char key[128];
    struct cr_image img;
    key_of(3, key, sizeof key);
    make_image(3, 1, &img, buf);
    cr_diskcache_store(key, &img, 1);
}

/* Load key 3 (version 0), tell the parent, wait for its word, then drop what was loaded. */
static void load_then_drop(int i, struct report *r)
{
    (void)i;
    char key[128], c = 0;
    struct cr_image got;
    key_of(3, key, sizeof key);
    memset(&got, 0, sizeof got);
    if (!cr_diskcache_load(key, 1, 0, &got) || got.size != payload_size(3, 0)) {
        child_error(r, "the refused entry \"%.60s\" did not load (%zu bytes)", key, got.size);
        return;
    }
    if (write(pipe_fds[0][1], "l", 1) != 1 || read(pipe_fds[1][0], &c, 1) != 1)
        child_error(r, "pipe: %s", strerror(errno));
    cr_diskcache_drop(key, &got, 1);
    free(got.data);
}

/* What a fresh process finds for key 3: 0 miss, else the version + 1. */
static void probe(int i, struct report *r)
{
    (void)i;
    char key[128];
    struct cr_image got;
    key_of(3, key, sizeof key);
    memset(&got, 0, sizeof got);
    if (cr_diskcache_load(key, 1, 0, &got)) {
        r->hits = got.size == payload_size(3, 0) ? 1 : got.size == payload_size(3, 1) ? 2 : -1;
        free(got.data);
    }
}

/* fresh_first: the fresh entry is stored after the load and before the drop; else after the drop. */
static void drop_race(int fresh_first)
{
    struct report *r = shared_reports(4);
    run_children(1, put_bad, &r[0]);
    ck_assert_int_eq(pipe(pipe_fds[0]), 0);
    ck_assert_int_eq(pipe(pipe_fds[1]), 0);
    fflush(NULL);
    pid_t dropper = fork();
    ck_assert_int_ge(dropper, 0);
    if (dropper == 0) {
        load_then_drop(0, &r[1]);
        r[1].done = 1;
        _exit(0);
    }
    char c = 0;
    ck_assert_int_eq(read(pipe_fds[0][0], &c, 1), 1);
    if (fresh_first)
        run_children(1, put_fresh, &r[2]);
    ck_assert_int_eq(write(pipe_fds[1][1], "d", 1), 1);
    int status = 0;
    ck_assert_int_eq(waitpid(dropper, &status, 0), dropper);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && r[1].done && r[1].errors == 0, "the dropper: %s",
                  r[1].first);
    if (!fresh_first) {
        run_children(1, probe, &r[3]);
        ck_assert_msg(r[3].hits == 0, "the refused entry is still served (probe %d)", r[3].hits);
        run_children(1, put_fresh, &r[2]);
    }
    memset(&r[3], 0, sizeof r[3]);
    run_children(1, probe, &r[3]);
    ck_assert_msg(r[3].hits == 2, "after the drop, a fresh process finds %s",
                  r[3].hits == 0 ? "nothing: the fresh entry was dropped" : "the refused entry");
    ck_assert_msg(count_files(tmpd) == 0, "%d file(s) left in %s", count_files(tmpd), tmpd);
}

START_TEST(test_drop_keeps_fresh)
{
    drop_race(_i);
}
END_TEST

/* ---- a writer killed mid-write ---- */

static int kill_at, writes;

static int killing_write(int fd, const void *buf, size_t n)
{
    if (writes++ == kill_at) {
        ssize_t half = write(fd, buf, n / 2);
        (void)half;
        kill(getpid(), SIGKILL);
    }
    return (int)write(fd, buf, n);
}

static void killed_writer(int i, struct report *r)
{
    (void)i, (void)r;
    cr_diskcache_write_hook = killing_write;
    put_fresh(0, r);
}

static void store_and_load(int i, struct report *r)
{
    (void)i;
    put_fresh(0, r);
    probe(0, r);
}

START_TEST(test_writer_killed)
{
    kill_at = _i; /* header, key, kernel names, payload */
    writes = 0;
    struct report *r = shared_reports(4);
    run_children(1, put_bad, &r[0]); /* an older entry that the killed writer was replacing */
    char names[4][65], path[2048];
    ck_assert_int_eq(list_entries(v1, names, 4), 1);
    snprintf(path, sizeof path, "%s/%s", v1, names[0]);
    size_t size = 0;
    unsigned char *before = read_file(path, &size);
    ck_assert_ptr_nonnull(before);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        killed_writer(0, &r[1]);
        _exit(0); /* not reached: killed in its write */
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the writer was not killed (status 0x%x)",
                  (unsigned)status);
    /* The older entry is untouched, the partial file lies in tmp/ only. */
    ck_assert_int_eq(list_entries(v1, names, 4), 1);
    ck_assert_msg(file_equals(path, before, size), "the entry changed under a writer killed at write %d", kill_at);
    ck_assert_int_eq(count_files(tmpd), 1);
    run_children(1, probe, &r[2]);
    ck_assert_msg(r[2].hits == 1, "a reader after the kill found %d, want the older entry", r[2].hits);
    /* The partial file, once stale, is swept by the next store, which replaces the entry. */
    char tmp_names[2][256];
    int nt = 0;
    DIR *d = opendir(tmpd);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' && nt < 2)
            snprintf(tmp_names[nt++], sizeof tmp_names[0], "%s", e->d_name);
    closedir(d);
    ck_assert_int_eq(nt, 1);
    snprintf(path, sizeof path, "%s/%s", tmpd, tmp_names[0]);
    struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
    run_children(1, store_and_load, &r[3]);
    ck_assert_msg(r[3].hits == 2, "after the kill, a store and load found %d, want the new entry", r[3].hits);
    ck_assert_int_eq(count_files(tmpd), 0);
    free(before);
}
END_TEST

/* ---- many writers, a small limit ---- */

static void writer_child(int proc, struct report *r)
{
    uint64_t s = seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(proc + 1));
    unsigned char buf[8192];
    char key[128];
    for (int i = 0; i < 40; i++) {
        const int k = (proc * 5 + i) % NKEYS; /* every key written by several processes */
        struct cr_image img, got;
        key_of(k, key, sizeof key);
        make_image(k, (int)(next(&s) % 2), &img, buf);
        cr_diskcache_store(key, &img, 1);
        r->stores++;
        memset(&got, 0, sizeof got);
        if (cr_diskcache_load(key, 1, 0, &got)) {
            r->hits++;
            if (!valid_image(k, &got))
                child_error(r, "\"%.60s\" gave a %zu-byte image never stored", key, got.size);
            free(got.data);
        }
    }
}

START_TEST(test_many_writers_small_limit)
{
    const long long limit = 2 * 2600; /* two of the larger entries */
    char text[32];
    snprintf(text, sizeof text, "%lld", limit);
    ck_assert_int_eq(setenv("CURED_CACHE_MAX_BYTES", text, 1), 0);
    struct report *r = shared_reports(MAXPROCS);
    run_children(8, writer_child, r);
    ck_assert_msg(count_files(tmpd) == 0, "%d file(s) left in %s " RERUN, count_files(tmpd), tmpd, seed, seed);
    struct report *quiet = shared_reports(1);
    run_children(1, settle_child, quiet);
    int n;
    const long long total = entry_bytes(&n);
    ck_assert_msg(total <= limit && n >= 1, "once quiet: %d entries, %lld bytes over a limit of %lld " RERUN, n, total,
                  limit, seed, seed);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("diskcache-race");
    TCase *tc = tcase_create("race");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_everything_at_once);
    tcase_add_loop_test(tc, test_drop_keeps_fresh, 0, 2);
    tcase_add_loop_test(tc, test_writer_killed, 0, 4);
    tcase_add_test(tc, test_many_writers_small_limit);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK); /* library state is per process */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
