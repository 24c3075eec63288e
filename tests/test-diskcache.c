/*
 * The persistent kernel cache off the GPU, part 1: entries. Round trip
 * between processes, damaged entries, a forged one, symlinks at entry and
 * temp paths, the temp sweep, LRU eviction, listing and clearing, and 8
 * processes x 4 threads warming the same kernels. Needs NVRTC (exit 77
 * without it), no GPU. Each test runs in a fresh cache directory; each
 * "process" is a forked child (see diskcache_util.h).
 */
#include "diskcache_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

START_TEST(test_round_trip)
{
    struct job j = {4, {S(0), S(1), S(2), S(0)}, {0, 0, 0, 1}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 4, 0, "first process");
    ck_assert_msg(a->nwarn == 0, "%s", warnings(a));
    ck_assert_str_eq(a->dir, v1);
    expect_mode(cache, 0700);
    expect_mode(v1, 0700);
    expect_mode(tmpd, 0700);
    char names[8][65], path[2048];
    ck_assert_int_eq(list_entries(v1, names, 8), 4);
    for (int i = 0; i < 4; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", v1, names[i]);
        ck_assert_int_eq(lstat(path, &st), 0);
        ck_assert_msg(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 && st.st_uid == geteuid(),
                      "%s: mode %o", path, (unsigned)st.st_mode);
    }
    ck_assert_int_eq(count_files(tmpd), 0);

    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 0, 4, "second process");
    ck_assert_msg(b->nwarn == 0, "%s", warnings(b));
    expect_same_images(a, b, 4, "loaded from disk vs compiled");
}
END_TEST

static const struct corruption {
    const char *what, *reason;
} corruptions[] = {
    {"truncated inside the header", "truncated header"},
    {"one payload byte cut off", "sizes do not match"},
    {"one payload byte flipped", "checksum mismatch"},
    {"wrong magic", "wrong magic"},
    {"empty file", "truncated header"},
    {"stored key differs (hash collision stand-in)", "key differs"},
    {"bytes appended", "sizes do not match"},
};

/* Damage entry e (size bytes, payload bytes at its end; room for 16 more). */
static void corrupt(int kind, unsigned char *e, size_t *size, size_t payload)
{
    unsigned char *k;
    switch (kind) {
    case 0: *size = 20; break;
    case 1: *size -= 1; break;
    case 2: e[*size - payload / 2] ^= 0x01; break;
    case 3: e[0] ^= 0x20; break;
    case 4: *size = 0; break;
    case 5:
        k = (unsigned char *)(uintptr_t)find_bytes(e, *size, "\nkernel ");
        ck_assert_msg(k != NULL, "no kernel line in the entry's key");
        k[1] = 'K'; /* same length, same file name, another key */
        break;
    default: memcpy(e + *size, "0123456789abcdef", 16), *size += 16; break;
    }
}

/* A damaged entry is a miss: compiled again, warned about, replaced by a good one. */
START_TEST(test_corrupt_entry)
{
    const struct corruption *c = &corruptions[_i];
    struct job j = {1, {S(_i)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char name[65], path[2048];
    only_entry(name, path, sizeof path);
    size_t size = 0;
    unsigned char *e = read_file(path, &size), *grown = e ? realloc(e, size + 16) : NULL;
    ck_assert_ptr_nonnull(grown);
    e = grown;
    ck_assert_uint_gt(size, a->bytes[0]);
    corrupt(_i, e, &size, a->bytes[0]);
    ck_assert_int_eq(write_file(path, e, size, 0600), 0);

    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 1, 0, c->what);
    expect_same_images(a, b, 1, c->what);
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, name) == 1 && warnings_with(b, c->reason) == 1,
                  "%s: want one warning naming the entry and \"%s\": %s", c->what, c->reason, warnings(b));
    char again[65];
    only_entry(again, path, sizeof path);
    ck_assert_str_eq(again, name);
    ck_assert_msg(!file_equals(path, e, size), "%s: the damaged entry is still there", c->what);
    struct outcome *d = run_child(compile_jobs, &j);
    expect(d, &j, 0, 1, "after the replacement");
    expect_same_images(a, d, 1, c->what);
    free(e);
}
END_TEST

/* A well-formed entry is served as it is (what test-gpu-cache's forged entry relies on). */
START_TEST(test_forged_payload)
{
    struct job j = {1, {S(1)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char name[65], path[2048];
    only_entry(name, path, sizeof path);
    ck_assert_int_eq(forge_entry_payload(path, 'x'), 0);
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 0, 1, "forged entry");
    unsigned char *xs = malloc(a->bytes[0]);
    ck_assert_ptr_nonnull(xs);
    memset(xs, 'x', a->bytes[0]);
    ck_assert_msg(b->bytes[0] == a->bytes[0] && b->digest[0] == fnv(xs, a->bytes[0]),
                  "the forged payload was not what the loader returned");
    free(xs);
}
END_TEST

/* A symlink where the entry goes is neither followed nor written through. */
START_TEST(test_symlink_entry)
{
    struct job j = {1, {S(2)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char name[65], path[2048], target[2048];
    only_entry(name, path, sizeof path);
    size_t size = 0;
    unsigned char *valid = read_file(path, &size);
    ck_assert_ptr_nonnull(valid);
    /* _i == 0: the link points at a valid copy of the entry (a hit if followed); 1: nowhere */
    snprintf(target, sizeof target, "%s/%s", outside, _i ? "absent" : "entry-copy");
    if (_i == 0)
        ck_assert_int_eq(write_file(target, valid, size, 0600), 0);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink(target, path), 0);

    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 1, 0, "symlink at the entry's path");
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, name) == 1, "%s", warnings(b));
    if (_i == 0)
        ck_assert_msg(file_equals(target, valid, size), "the link's target was changed");
    else
        ck_assert_msg(!exists(target), "the dangling link's target was created");
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "the link was not replaced by an entry");
    struct outcome *c = run_child(compile_jobs, &j);
    expect(c, &j, 0, 1, "after the replacement");
    free(valid);
}
END_TEST

/* Store, plant a stale temp file, store again: the second store sweeps it. */
static void sweep_later(struct outcome *o, const void *arg)
{
    const struct job *j = arg;
    char stale[2048];
    snprintf(stale, sizeof stale, "%s/stale-later", tmpd);
    const struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
    CHILD_CHECK(o, cured_compile_kernel((size_t)j->spec[0], SM, 0, NULL) == CURED_SUCCESS, "compile");
    CHILD_CHECK(o, write_file(stale, "old", 3, 0600) == 0 && utimensat(AT_FDCWD, stale, old, 0) == 0,
                "planting a stale temp file: %s", strerror(errno));
    CHILD_CHECK(o, cured_compile_kernel((size_t)j->spec[0], SM, 1, NULL) == CURED_SUCCESS, "compile");
    o->probe = exists(stale);
}

/* v1/tmp: files and links older than an hour go at the next store (links
 * themselves, not their targets); fresh ones stay. */
START_TEST(test_tmp_sweep)
{
    struct job j0 = {1, {S(0)}, {0}, 0}, j1 = {1, {S(1)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j0);
    expect(a, &j0, 1, 0, "first store");
    static const char *const names[] = {"stale", "fresh", "stale-link", "fresh-link", "stale-dangling"};
    char p[5][2048], precious[2048], ghost[2048];
    for (int i = 0; i < 5; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", tmpd, names[i]);
    snprintf(precious, sizeof precious, "%s/precious", outside);
    snprintf(ghost, sizeof ghost, "%s/ghost", outside);
    put(precious, "precious\n");
    put(p[0], "old temp");
    put(p[1], "new temp");
    ck_assert_int_eq(symlink(precious, p[2]), 0);
    ck_assert_int_eq(symlink(precious, p[3]), 0);
    ck_assert_int_eq(symlink(ghost, p[4]), 0);
    set_age(p[0], 7200);
    set_age(p[2], 7200);
    set_age(p[4], 7200);

    struct outcome *b = run_child(compile_jobs, &j0); /* a hit stores nothing: no sweep */
    expect(b, &j0, 0, 1, "disk hit");
    for (int i = 0; i < 5; i++)
        ck_assert_msg(exists(p[i]), "%s went before any store", p[i]);
    struct outcome *c = run_child(compile_jobs, &j1);
    expect(c, &j1, 1, 0, "second store");
    ck_assert_msg(c->nwarn == 0, "%s", warnings(c));
    ck_assert_msg(!exists(p[0]) && !exists(p[2]) && !exists(p[4]), "a stale temp file was kept");
    ck_assert_msg(exists(p[1]) && exists(p[3]), "a fresh temp file was removed");
    ck_assert_msg(file_equals(precious, "precious\n", 9), "a link in tmp was followed");
    ck_assert_msg(!exists(ghost), "a dangling link in tmp was followed");
    ck_assert_int_eq(list_entries(v1, NULL, 0), 2);

    struct job j23 = {1, {S(2)}, {0}, 0};
    struct outcome *d = run_child(sweep_later, &j23);
    ck_assert_msg(d->probe == 0, "a temp file gone stale was not swept at a process's second store");
}
END_TEST

#define PROCS 8
#define THREADS 4
struct warm {
    pthread_barrier_t *go;
    const int *spec;
    int first;
    cured_status st[3];
    size_t bytes[3];
};

static void *warm_thread(void *arg)
{
    struct warm *w = arg;
    pthread_barrier_wait(w->go);
    for (int k = 0; k < 3; k++) {
        int i = (k + w->first) % 3;
        w->st[i] = cured_compile_kernel((size_t)w->spec[i], SM, 0, &w->bytes[i]);
    }
    return NULL;
}

/* One of the PROCS processes: THREADS threads, released when the release pipe closes. */
static void warm_child(struct outcome *o, int ready, int release, const int *spec)
{
    static const int no_ptx[3];
    CHILD_CHECK(o, cured_nvrtc_version(NULL, NULL) == CURED_SUCCESS, "NVRTC: %s", cured_last_error());
    pthread_barrier_t go;
    pthread_t tid[THREADS];
    struct warm w[THREADS];
    CHILD_CHECK(o, pthread_barrier_init(&go, NULL, THREADS + 1) == 0, "pthread_barrier_init");
    for (int t = 0; t < THREADS; t++) {
        w[t] = (struct warm){&go, spec, t, {0}, {0}};
        CHILD_CHECK(o, pthread_create(&tid[t], NULL, warm_thread, &w[t]) == 0, "pthread_create");
    }
    char c = 'r';
    CHILD_CHECK(o, write(ready, &c, 1) == 1, "write: %s", strerror(errno));
    CHILD_CHECK(o, read(release, &c, 1) == 0, "the release pipe was written to");
    pthread_barrier_wait(&go);
    for (int t = 0; t < THREADS; t++) {
        CHILD_CHECK(o, pthread_join(tid[t], NULL) == 0, "pthread_join");
        for (int i = 0; i < 3; i++) {
            o->st[t * 3 + i] = w[t].st[i];
            o->bytes[t * 3 + i] = w[t].bytes[i];
        }
    }
    CHILD_CHECK(o, cured_get_stats(&o->stats) == CURED_SUCCESS, "cured_get_stats");
    struct outcome tmp = {0};
    memcpy(tmp.st, o->st, sizeof tmp.st);
    digests(&tmp, spec, no_ptx, 3);
    memcpy(o->digest, tmp.digest, sizeof tmp.digest);
}

START_TEST(test_concurrent_warm)
{
    const int spec[3] = {S(0), S(3), S(4)};
    struct job j = {3, {spec[0], spec[1], spec[2]}, {0, 0, 0}, 0};
    ck_assert_int_eq(setenv("CURED_CACHE_DISABLE", "1", 1), 0);
    struct outcome *ref = run_child(compile_jobs, &j); /* the images, without the disk cache */
    expect(ref, &j, 3, 0, "reference");
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);

    int ready[2], release[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(release), 0);
    struct outcome *o = shared_outcomes(PROCS);
    pid_t pid[PROCS];
    fflush(NULL);
    for (int p = 0; p < PROCS; p++) {
        pid[p] = fork();
        ck_assert_int_ge(pid[p], 0);
        if (pid[p] == 0) {
            close(ready[0]);
            close(release[1]);
            child_start(&o[p]);
            warm_child(&o[p], ready[1], release[0], spec);
            o[p].done = 1;
            _exit(0);
        }
    }
    close(ready[1]);
    close(release[0]);
    char c;
    for (int p = 0; p < PROCS; p++)
        ck_assert_msg(read(ready[0], &c, 1) == 1, "a warming process died before the start");
    close(release[1]); /* all go */
    close(ready[0]);
    char what[64];
    for (int p = 0; p < PROCS; p++) {
        snprintf(what, sizeof what, "process %d", p);
        child_wait(pid[p], &o[p], what);
    }
    for (int p = 0; p < PROCS; p++) {
        for (int k = 0; k < THREADS * 3; k++)
            ck_assert_msg(o[p].st[k] == CURED_SUCCESS && o[p].bytes[k] == ref->bytes[k % 3],
                          "process %d thread %d kernel %d: %s, %zu bytes (want %zu)", p, k / 3, k % 3,
                          cured_status_string(o[p].st[k]), o[p].bytes[k], ref->bytes[k % 3]);
        snprintf(what, sizeof what, "process %d", p);
        expect_same_images(ref, &o[p], 3, what);
        ck_assert_msg(o[p].stats.compiles + o[p].stats.disk_hits == 3 && o[p].stats.memory_hits == 9,
                      "process %d: %llu compiles, %llu disk hits, %llu memory hits", p,
                      (unsigned long long)o[p].stats.compiles, (unsigned long long)o[p].stats.disk_hits,
                      (unsigned long long)o[p].stats.memory_hits);
        ck_assert_msg(o[p].nwarn == 0, "process %d: %s", p, warnings(&o[p]));
    }
    ck_assert_int_eq(list_entries(v1, NULL, 0), 3);
    ck_assert_int_eq(count_files(tmpd), 0);
    struct outcome *after = run_child(compile_jobs, &j);
    expect(after, &j, 0, 3, "after the concurrent warm-up");
    expect_same_images(ref, after, 3, "after the concurrent warm-up");
}
END_TEST

/* Over CURED_CACHE_MAX_BYTES, the least recently used entries go; a hit refreshes an entry. */
START_TEST(test_eviction)
{
    struct job all = {4, {S(0), S(1), S(2), S(3)}, {0, 0, 0, 0}, 0};
    struct outcome *a = run_child(compile_jobs, &all);
    expect(a, &all, 4, 0, "filling");
    char path[4][2048], needle[300], name[65];
    off_t size[4];
    for (int k = 0; k < 4; k++) {
        snprintf(needle, sizeof needle, "\nkernel %s\n", cr_catalog_unit((size_t)all.spec[k])->kernels[0]);
        ck_assert_msg(find_entry_with(v1, needle, name) == 0, "no single entry holds %s", needle);
        snprintf(path[k], sizeof path[k], "%s/%s", v1, name);
        struct stat st;
        ck_assert_int_eq(stat(path[k], &st), 0);
        size[k] = st.st_size;
    }
    ck_assert_int_eq(unlink(path[3]), 0);
    set_age(path[0], 3000); /* least recently used, until the hit below */
    set_age(path[2], 2000);
    set_age(path[1], 1000);
    const time_t start = time(NULL);
    long long max = (long long)(size[0] + size[3] + (size[1] < size[2] ? size[1] : size[2]) / 2);
    char text[32];
    snprintf(text, sizeof text, "%lld", max);
    ck_assert_int_eq(setenv("CURED_CACHE_MAX_BYTES", text, 1), 0);

    struct job j = {2, {S(0), S(3)}, {0, 0}, 0};
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 1, 1, "hit on the oldest entry, then a store");
    ck_assert_msg(b->nwarn == 0, "%s", warnings(b));
    ck_assert_msg(exists(path[0]) && exists(path[3]), "the entries in use were evicted");
    ck_assert_msg(!exists(path[1]) && !exists(path[2]), "least recently used entries were kept");
    struct stat st0, st3;
    ck_assert_int_eq(stat(path[0], &st0), 0);
    ck_assert_int_eq(stat(path[3], &st3), 0);
    ck_assert_msg(st0.st_mtime >= start, "the hit did not refresh the entry's last-use stamp");
    ck_assert_msg(st0.st_size + st3.st_size <= max, "%lld bytes over a limit of %lld",
                  (long long)(st0.st_size + st3.st_size), max);
    ck_assert_int_eq(list_entries(v1, NULL, 0), 2);
}
END_TEST

/* Uses within one second keep their order: stores of A and B, a hit on
 * A and a store of C, all within a millisecond or so, over a limit that
 * holds two entries: B goes (the least recently used), A and C stay. The
 * cache's own calls in this process, so that no compile spreads them over
 * seconds. */
START_TEST(test_eviction_within_a_second)
{
    static char data[1000];
    memset(data, 'x', sizeof data);
    struct cr_image img, got;
    memset(&img, 0, sizeof img);
    img.data = data;
    img.size = sizeof data;
    snprintf(img.lowered[0], sizeof img.lowered[0], "k");
    cr_diskcache_store("key A", &img, 1);
    char names[3][65], path[2048];
    ck_assert_int_eq(list_entries(v1, names, 3), 1);
    snprintf(path, sizeof path, "%s/%s", v1, names[0]);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)(2 * st.st_size + st.st_size / 2));
    ck_assert_int_eq(setenv("CURED_CACHE_MAX_BYTES", text, 1), 0);
    /* 10 ms apart: past a coarse file system clock's tick (a few ms), well within a second */
    const struct timespec tick = {0, 10 * 1000 * 1000};
    nanosleep(&tick, NULL);
    cr_diskcache_store("key B", &img, 1);
    nanosleep(&tick, NULL);
    memset(&got, 0, sizeof got);
    ck_assert_int_eq(cr_diskcache_load("key A", 1, 0, &got), 1);
    free(got.data);
    nanosleep(&tick, NULL);
    cr_diskcache_store("key C", &img, 1);
    ck_assert_int_eq(list_entries(v1, names, 3), 2);
    const char *keys[3] = {"key A", "key B", "key C"};
    const int want[3] = {1, 0, 1};
    for (int k = 0; k < 3; k++) {
        memset(&got, 0, sizeof got);
        const int hit = cr_diskcache_load(keys[k], 1, 0, &got);
        free(hit ? got.data : NULL);
        ck_assert_msg(hit == want[k], "%s: %s", keys[k], want[k] ? "evicted, though used after B" : "kept");
    }
}
END_TEST

/* Eviction after every store, not only after a process's first one. */
START_TEST(test_eviction_each_store)
{
    struct job all = {4, {S(0), S(1), S(2), S(3)}, {0, 0, 0, 0}, 0};
    struct outcome *a = run_child(compile_jobs, &all);
    expect(a, &all, 4, 0, "filling, to learn the sizes");
    char names[4][65], path[2048];
    long long total = 0, left = 0;
    struct stat st;
    ck_assert_int_eq(list_entries(v1, names, 4), 4);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", v1, names[i]);
        ck_assert_int_eq(stat(path, &st), 0);
        total += st.st_size;
        ck_assert_int_eq(unlink(path), 0);
    }
    char text[32];
    snprintf(text, sizeof text, "%lld", total / 2);
    ck_assert_int_eq(setenv("CURED_CACHE_MAX_BYTES", text, 1), 0);
    struct outcome *b = run_child(compile_jobs, &all);
    expect(b, &all, 4, 0, "four stores in one process");
    int n = list_entries(v1, names, 4);
    for (int i = 0; i < n && i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", v1, names[i]);
        ck_assert_int_eq(stat(path, &st), 0);
        left += st.st_size;
    }
    ck_assert_msg(n < 4 && left <= total / 2, "%d entries, %lld bytes, over a limit of %lld", n, left,
                  total / 2);
}
END_TEST

static void collect(const cured_cache_entry *e, void *user)
{
    struct outcome *o = user;
    if (o->nlisted < MAXJOBS) {
        snprintf(o->listed[o->nlisted].file, sizeof o->listed[0].file, "%s", e->file);
        snprintf(o->listed[o->nlisted].target, sizeof o->listed[0].target, "%s", e->target);
        snprintf(o->listed[o->nlisted].summary, sizeof o->listed[0].summary, "%s", e->summary);
        o->listed[o->nlisted].bytes = e->bytes;
        o->listed[o->nlisted].last_use = e->last_use;
    }
    o->nlisted++;
}

static void list_and_clear(struct outcome *o, const void *arg)
{
    (void)arg;
    o->null_fn = cured_cache_foreach(NULL, NULL);
    CHILD_CHECK(o, cured_cache_foreach(collect, o) == CURED_SUCCESS, "foreach: %s", cured_last_error());
    CHILD_CHECK(o, cured_cache_foreach(count_entry, &o->relisted) == CURED_SUCCESS, "foreach");
    CHILD_CHECK(o, cured_cache_clear(&o->removed) == CURED_SUCCESS, "clear: %s", cured_last_error());
    CHILD_CHECK(o, cured_cache_foreach(count_entry, &o->after_clear) == CURED_SUCCESS, "foreach");
}

START_TEST(test_foreach_clear)
{
    struct job j = {3, {S(0), S(2), S(0)}, {0, 0, 1}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 3, 0, "filling");
    char names[4][65], path[2048];
    struct stat st[3];
    ck_assert_int_eq(list_entries(v1, names, 4), 3);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", v1, names[i]);
        ck_assert_int_eq(stat(path, &st[i]), 0);
    }
    snprintf(path, sizeof path, "%s/%064d", v1, 0); /* an entry name, not an entry */
    put(path, "not an entry");

    struct outcome *b = run_child(list_and_clear, NULL);
    ck_assert_int_eq(b->null_fn, CURED_ERROR_NULL_POINTER);
    ck_assert_msg(b->nlisted == 3 && b->relisted == 3, "%d entries listed, then %d; want 3", b->nlisted,
                  b->relisted);
    int cubins = 0, ptx = 0;
    for (int k = 0; k < 3; k++) {
        int i = 0;
        while (i < 3 && strcmp(names[i], b->listed[k].file) != 0)
            i++;
        ck_assert_msg(i < 3, "listed %s is not an entry", b->listed[k].file);
        ck_assert_msg(b->listed[k].bytes == (uint64_t)st[i].st_size &&
                          b->listed[k].last_use == (int64_t)st[i].st_mtime,
                      "%s: %llu bytes, last use %lld", names[i], (unsigned long long)b->listed[k].bytes,
                      (long long)b->listed[k].last_use);
        cubins += strcmp(b->listed[k].target, "sm_90") == 0;
        ptx += strcmp(b->listed[k].target, "compute_90") == 0;
        ck_assert_msg(strncmp(b->listed[k].summary, "kernels-src/", 12) == 0 &&
                          strstr(b->listed[k].summary, "<") != NULL,
                      "summary: %s", b->listed[k].summary);
    }
    ck_assert_msg(cubins == 2 && ptx == 1, "%d sm_90 and %d compute_90 entries", cubins, ptx);
    ck_assert_msg(b->removed == 4, "cured_cache_clear removed %zu, want 4", b->removed);
    ck_assert_int_eq(b->after_clear, 0);
    ck_assert_int_eq(list_entries(v1, NULL, 0), 0);
}
END_TEST

static Suite *diskcache_suite(void)
{
    Suite *s = suite_create("diskcache");
    TCase *tc = tcase_create("entries");
    tcase_add_checked_fixture(tc, dc_setup, dc_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_round_trip);
    tcase_add_loop_test(tc, test_corrupt_entry, 0, (int)(sizeof corruptions / sizeof *corruptions));
    tcase_add_test(tc, test_forged_payload);
    tcase_add_loop_test(tc, test_symlink_entry, 0, 2);
    tcase_add_test(tc, test_tmp_sweep);
    tcase_add_test(tc, test_eviction);
    tcase_add_test(tc, test_eviction_each_store);
    tcase_add_test(tc, test_eviction_within_a_second);
    tcase_add_test(tc, test_foreach_clear);
    tcase_add_test(tc, test_concurrent_warm);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return dc_main(diskcache_suite());
}
