/*
 * The persistent kernel cache off the GPU, part 3: what an attacker or a
 * careless administrator may put in the cache's way (issue 13). A FIFO at an
 * entry's path or at the NVRTC facts file (must not block), entries whose
 * payload kind is unknown or wrong or whose payload is empty (with valid
 * checksums: refused), a symlinked cache root (reported as a symlink), root
 * running with another user's HOME (no directories created there),
 * CURED_CACHE_DIR=/ and a shared system directory (refused), and the
 * privileged-process rules of the cache (cr_env_force_secure stands in for
 * setuid), cured_set_cache_dir's rules (overlong and relative paths, "", a
 * directory, NULL, and after the cache opened). Needs NVRTC (exit 77
 * without it), no GPU.
 */
#include "diskcache_util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A child that would hang forever is killed: the test then fails instead. */
static void compile_within_a_minute(struct outcome *o, const void *arg)
{
    alarm(60);
    compile_jobs(o, arg);
}

START_TEST(test_fifo_entry)
{
    struct job j = {1, {S(0)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char name[65], path[2048];
    only_entry(name, path, sizeof path);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    struct outcome *b = run_child(compile_within_a_minute, &j);
    expect(b, &j, 1, 0, "a FIFO at the entry's path");
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, name) == 1 && warnings_with(b, "not a regular file") == 1,
                  "%s", warnings(b));
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "the FIFO was not replaced by an entry");
    struct outcome *c = run_child(compile_jobs, &j);
    expect(c, &j, 0, 1, "after the replacement");
}
END_TEST

/* The NVRTC facts file (read before NVRTC is loaded) is opened the same way. */
START_TEST(test_fifo_facts)
{
    struct job j = {1, {S(0)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char facts[2048] = "";
    DIR *d = opendir(v1);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, "nvrtc-", 6) == 0)
            snprintf(facts, sizeof facts, "%s/%s", v1, e->d_name);
    closedir(d);
    ck_assert_msg(facts[0] != '\0', "no nvrtc-* facts file in %s", v1);
    ck_assert_int_eq(unlink(facts), 0);
    ck_assert_int_eq(mkfifo(facts, 0600), 0);
    struct outcome *b = run_child(compile_within_a_minute, &j);
    expect(b, &j, 0, 1, "a FIFO as the facts file");
    struct stat st;
    ck_assert_int_eq(lstat(facts, &st), 0);
    ck_assert_msg(S_ISREG(st.st_mode), "the FIFO was not replaced by the facts file");
}
END_TEST

enum { H_KIND = 12, H_PAYLOAD_LEN = 24 }; /* src/diskcache.c's header */

static const struct bad_header {
    const char *what, *reason;
    uint32_t kind;  /* stored kind */
    int empty;      /* payload cut to 0 bytes */
    int reseal;     /* checksum recomputed */
} bad_headers[] = {
    {"payload kind 7, valid checksum", "unknown payload kind", 7, 0, 1},
    {"payload kind PTX for a cubin, valid checksum", "PTX where a cubin", 1, 0, 1},
    {"payload kind changed, checksum not", "checksum mismatch", 1, 0, 0},
    {"empty payload, valid checksum", "empty payload", 0, 1, 1},
};

/* A damaged header whose checksum may well be valid: a miss, a warning, the entry replaced. */
START_TEST(test_bad_header)
{
    const struct bad_header *bh = &bad_headers[_i];
    struct job j = {1, {S(1)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char name[65], path[2048];
    only_entry(name, path, sizeof path);
    size_t size = 0;
    unsigned char *e = read_file(path, &size);
    ck_assert_ptr_nonnull(e);
    memcpy(e + H_KIND, &bh->kind, 4);
    if (bh->empty) {
        uint64_t len, zero = 0;
        memcpy(&len, e + H_PAYLOAD_LEN, 8);
        memcpy(e + H_PAYLOAD_LEN, &zero, 8);
        size -= (size_t)len;
    }
    if (bh->reseal)
        ck_assert_int_eq(seal_entry(e, size), 0);
    ck_assert_int_eq(write_file(path, e, size, 0600), 0);
    free(e);
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 1, 0, bh->what);
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, bh->reason) == 1, "%s: %s", bh->what, warnings(b));
    struct outcome *c = run_child(compile_jobs, &j);
    expect(c, &j, 0, 1, "after the replacement");
}
END_TEST

/* The message of a refused cache directory: a symlinked root is called a symlink. */
START_TEST(test_symlink_root_message)
{
    char real[2048];
    snprintf(real, sizeof real, "%s/real", outside);
    ck_assert_int_eq(mkdir(real, 0700), 0);
    ck_assert_int_eq(symlink(real, cache), 0);
    struct job j = {1, {S(0)}, {0}, 0};
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 1, 0, "symlinked root");
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, "symbolic link") == 1 &&
                      warnings_with(b, "Not a directory") == 0,
                  "%s", warnings(b));
}
END_TEST

/* Root with another user's HOME: nothing is created in that home. */
START_TEST(test_foreign_home)
{
    if (geteuid() != 0) {
        printf("test_foreign_home: not root: a home of another user cannot be made\n");
        return;
    }
    char home[1024], dotcache[1100], cured[1200];
    snprintf(home, sizeof home, "%s/home", top);
    snprintf(dotcache, sizeof dotcache, "%s/.cache", home);
    snprintf(cured, sizeof cured, "%s/cured", dotcache);
    ck_assert_int_eq(mkdir(home, 0755), 0);
    ck_assert_int_eq(lchown(home, NOBODY, NOBODY), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DIR"), 0);
    ck_assert_int_eq(unsetenv("XDG_CACHE_HOME"), 0);
    ck_assert_int_eq(setenv("HOME", home, 1), 0);
    struct job j = {1, {S(0)}, {0}, 0};
    for (int round = 0; round < 2; round++) {
        if (round == 1) { /* the user's own ~/.cache exists: cured is not created in it either */
            ck_assert_int_eq(mkdir(dotcache, 0700), 0);
            ck_assert_int_eq(lchown(dotcache, NOBODY, NOBODY), 0);
        }
        struct outcome *b = run_child(compile_jobs, &j);
        expect(b, &j, 1, 0, "root with another user's HOME");
        ck_assert_msg(b->dir[0] == '\0', "the cache %s was used", b->dir);
        ck_assert_msg(b->nwarn == 1 && warnings_with(b, "not created") == 1 &&
                          warnings_with(b, "uid 65534") == 1,
                      "%s", warnings(b));
        ck_assert_msg(!exists(round ? cured : dotcache), "%s was created", round ? cured : dotcache);
    }
}
END_TEST

/* "/" (however spelled) and shared system directories are refused. */
START_TEST(test_shared_roots)
{
    static const char *const roots[] = {"/", "///", "/usr", "/tmp/..", "/var/tmp"};
    struct stat before;
    const int v1_existed = lstat("/v1", &before) == 0;
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        ck_assert_int_eq(setenv("CURED_CACHE_DIR", roots[i], 1), 0);
        struct job j = {1, {S(0)}, {0}, 0};
        struct outcome *b = run_child(compile_jobs, &j);
        expect(b, &j, 1, 0, roots[i]);
        ck_assert_msg(b->dir[0] == '\0', "CURED_CACHE_DIR=%s: the cache %s was used", roots[i], b->dir);
        ck_assert_msg(b->nwarn == 1 && warnings_with(b, "unusable") == 1, "%s: %s", roots[i], warnings(b));
        ck_assert_msg(warnings_with(b, "file-system root") + warnings_with(b, "shared system directory") +
                              warnings_with(b, "writable by group or others") + warnings_with(b, "not owned") ==
                          1,
                      "%s: %s", roots[i], warnings(b));
    }
    ck_assert_msg(v1_existed || !exists("/v1"), "/v1 was created");
    ck_assert_msg(!exists("/usr/v1"), "/usr/v1 was created");
}
END_TEST

/* A privileged process: no environment, no disk cache unless cured_set_cache_dir names one. */
static void privileged(struct outcome *o, const void *arg)
{
    const char *explicit_dir = arg;
    cr_env_force_secure(1);
    if (explicit_dir != NULL)
        CHILD_CHECK(o, cured_set_cache_dir(explicit_dir) == CURED_SUCCESS, "cured_set_cache_dir: %s",
                    cured_last_error());
    struct job j = {1, {S(0)}, {0}, 0};
    compile_jobs(o, &j);
    /* Too late now: the cache is open (or known to be off). */
    o->probe = cured_set_cache_dir(explicit_dir ? NULL : cache) == CURED_ERROR_NOT_SUPPORTED;
}

START_TEST(test_privileged)
{
    struct job j = {1, {S(0)}, {0}, 0};
    struct outcome *a = run_child(privileged, NULL);
    expect(a, &j, 1, 0, "privileged, CURED_CACHE_DIR set");
    ck_assert_msg(a->dir[0] == '\0' && !exists(cache), "a privileged process used CURED_CACHE_DIR");
    ck_assert_msg(a->probe, "cured_set_cache_dir after the first compile was not refused");
    char chosen[1024];
    snprintf(chosen, sizeof chosen, "%s/chosen", top);
    struct outcome *b = run_child(privileged, chosen);
    expect(b, &j, 1, 0, "privileged, cured_set_cache_dir");
    char want[1100];
    snprintf(want, sizeof want, "%s/v1", chosen);
    ck_assert_str_eq(b->dir, want);
    ck_assert_msg(b->probe, "cured_set_cache_dir after the first compile was not refused");
    struct outcome *c = run_child(privileged, chosen);
    expect(c, &j, 0, 1, "privileged, cured_set_cache_dir, again");
    ck_assert_int_eq(cured_set_cache_dir("relative/dir"), CURED_ERROR_INVALID_VALUE);
}
END_TEST

/* cured_set_cache_dir's rules, before and after the cache opens (no compile: cured_cache_dir opens it). */
START_TEST(test_set_cache_dir)
{
    char chosen[1024], want[1100], dflt[700], longest[1000];
    snprintf(chosen, sizeof chosen, "%s/chosen", top);
    snprintf(dflt, sizeof dflt, "%s/v1", cache);
    memset(longest, 'a', sizeof longest - 1);
    longest[0] = '/';
    longest[sizeof longest - 1] = '\0';
    const char *dir = NULL;
    if (_i == 0) { /* refused paths change nothing */
        ck_assert_int_eq(cured_set_cache_dir(longest), CURED_ERROR_INVALID_VALUE);
        ck_assert_msg(strstr(cured_last_error(), "too long") != NULL, "%s", cured_last_error());
        ck_assert_int_eq(cured_set_cache_dir("relative/dir"), CURED_ERROR_INVALID_VALUE);
        ck_assert_msg(strstr(cured_last_error(), "absolute") != NULL, "%s", cured_last_error());
        dir = dflt;
    } else if (_i == 1) { /* "": no disk cache, whatever the environment says */
        ck_assert_int_eq(cured_set_cache_dir(""), CURED_SUCCESS);
    } else if (_i == 2) { /* a directory: it overrides CURED_CACHE_DIR */
        ck_assert_int_eq(cured_set_cache_dir(chosen), CURED_SUCCESS);
        snprintf(want, sizeof want, "%s/v1", chosen);
        dir = want;
    } else { /* NULL: back to the default rules */
        ck_assert_int_eq(cured_set_cache_dir(chosen), CURED_SUCCESS);
        ck_assert_int_eq(cured_set_cache_dir(NULL), CURED_SUCCESS);
        dir = dflt;
    }
    const char *got = cured_cache_dir();
    ck_assert_msg(dir ? got && strcmp(got, dir) == 0 : got == NULL, "case %d: the cache is %s, want %s", _i,
                  got ? got : "off", dir ? dir : "off");
    struct stat st;
    ck_assert_msg(dir == NULL || (stat(dir, &st) == 0 && (st.st_mode & 07777) == 0700), "%s is not mode 0700", dir);
    int listed = 0; /* count_entry's counter */
    size_t removed = 7;
    ck_assert_int_eq(cured_cache_foreach(count_entry, &listed), CURED_SUCCESS);
    ck_assert_int_eq(cured_cache_clear(&removed), CURED_SUCCESS);
    ck_assert_msg(listed == 0 && removed == 0, "an empty or absent cache: %d listed, %zu removed", listed, removed);
    ck_assert_int_eq(cured_cache_foreach(NULL, NULL), CURED_ERROR_NULL_POINTER);
    /* Opened now: nothing changes it. */
    ck_assert_int_eq(cured_set_cache_dir(_i == 2 ? NULL : chosen), CURED_ERROR_NOT_SUPPORTED);
    ck_assert_msg(strstr(cured_last_error(), "already opened") != NULL, "%s", cured_last_error());
    got = cured_cache_dir();
    ck_assert_msg(dir ? got && strcmp(got, dir) == 0 : got == NULL, "case %d: the cache moved to %s", _i,
                  got ? got : "off");
}
END_TEST

static Suite *hostile_suite(void)
{
    Suite *s = suite_create("diskcache-hostile");
    TCase *tc = tcase_create("hostile");
    tcase_add_checked_fixture(tc, dc_setup, dc_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_fifo_entry);
    tcase_add_test(tc, test_fifo_facts);
    tcase_add_loop_test(tc, test_bad_header, 0, (int)(sizeof bad_headers / sizeof *bad_headers));
    tcase_add_test(tc, test_symlink_root_message);
    tcase_add_test(tc, test_foreign_home);
    tcase_add_test(tc, test_shared_roots);
    tcase_add_test(tc, test_privileged);
    tcase_add_loop_test(tc, test_set_cache_dir, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return dc_main(hostile_suite());
}
