/*
 * The persistent kernel cache off the GPU, part 2: the directory. Caches
 * that are files, symlinks, writable by others, owned by another user or
 * read-only are refused or worked around (the call still compiles and
 * succeeds, one warning is logged); an entry of mode 0000 is a miss and is
 * replaced; a full disk (ENOSPC through the write
 * hook); CURED_CACHE_DISABLE and CURED_CACHE_DIR=""; where the cache lives
 * (CURED_CACHE_DIR, XDG_CACHE_HOME, HOME). Needs NVRTC (exit 77 without
 * it), no GPU. Root ignores permission bits: the read-only case then runs
 * its processes as uid 65534, and the other-owner case chowns to it.
 */
#include "diskcache_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

enum { AS_FILE, AS_LINK, AS_MODE };
static const struct hostile {
    const char *what;
    int level, kind; /* level: 0 the cache dir, 1 v1, 2 v1/tmp */
    mode_t mode;
    int slashes; /* CURED_CACHE_DIR ends in "//" */
} hostile[] = {
    {"cache dir is a regular file", 0, AS_FILE, 0, 0},
    {"v1 is a regular file", 1, AS_FILE, 0, 0},
    {"v1/tmp is a regular file", 2, AS_FILE, 0, 0},
    {"cache dir is a symlink to a directory", 0, AS_LINK, 0, 0},
    {"v1 is a symlink to a directory", 1, AS_LINK, 0, 0},
    {"v1/tmp is a symlink to a directory", 2, AS_LINK, 0, 0},
    {"cache dir mode 0777", 0, AS_MODE, 0777, 0},
    {"cache dir mode 0770", 0, AS_MODE, 0770, 0},
    {"v1 mode 0777", 1, AS_MODE, 0777, 0},
    {"v1/tmp mode 0703", 2, AS_MODE, 0703, 0},
    {"cache dir mode 0777, named with a trailing //", 0, AS_MODE, 0777, 1},
    {"cache dir a symlink, named with a trailing //", 0, AS_LINK, 0, 1},
};

/* Each unusable cache is refused: the call compiles, warns once, writes nothing there. */
START_TEST(test_hostile_dir)
{
    const struct hostile *h = &hostile[_i];
    char real[2048], keep[2048] = "", empty[2048] = "", named[2048];
    const char *leaf[] = {cache, v1, tmpd};
    snprintf(real, sizeof real, "%s/real", outside);
    for (int i = 0; i < h->level; i++)
        ck_assert_int_eq(mkdir(leaf[i], 0700), 0);
    if (h->kind == AS_FILE) {
        snprintf(keep, sizeof keep, "%s", leaf[h->level]);
        put(keep, "precious\n");
    } else if (h->kind == AS_LINK) {
        ck_assert_int_eq(mkdir(real, 0700), 0);
        ck_assert_int_eq(symlink(real, leaf[h->level]), 0);
        snprintf(empty, sizeof empty, "%s", real);
    } else {
        snprintf(empty, sizeof empty, "%s", leaf[h->level]);
        ck_assert_int_eq(mkdir(empty, 0700), 0);
        ck_assert_int_eq(chmod(empty, h->mode), 0);
    }
    snprintf(named, sizeof named, "%s%s", cache, h->slashes ? "//" : "");
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", named, 1), 0);

    struct job j = {2, {S(0), S(1)}, {0, 0}, 0};
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 2, 0, h->what);
    ck_assert_msg(b->dir[0] == '\0', "%s: the cache %s was used", h->what, b->dir);
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, "unusable") == 1, "%s: %s", h->what,
                  warnings(b));
    if (keep[0])
        ck_assert_msg(file_equals(keep, "precious\n", 9), "%s: the file was changed", h->what);
    if (empty[0])
        ck_assert_msg(count_files(empty) == 0, "%s: %s was written to", h->what, empty);
    ck_assert_msg(list_entries(v1, NULL, 0) <= 0, "%s: an entry was stored", h->what);
}
END_TEST

/* Directories and entries that belong to another user are not used (asserted as root). */
START_TEST(test_other_owner)
{
    struct job j0 = {1, {S(0)}, {0}, 0}, j = {2, {S(0), S(1)}, {0, 0}, 0};
    struct outcome *a = run_child(compile_jobs, &j0);
    expect(a, &j0, 1, 0, "own directory"); /* the control: our own directory is used */
    ck_assert_str_eq(a->dir, v1);
    const uid_t other = geteuid() == NOBODY ? NOBODY - 1 : NOBODY; /* not us */
    if (lchown(cache, other, other) != 0) {
        printf("test_other_owner: cannot chown (%s): another owner is not tested\n", strerror(errno));
        return;
    }
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 2, 0, "directory of another user"); /* kernel 0 is not read from it either */
    ck_assert_msg(b->dir[0] == '\0' && b->nwarn == 1 && warnings_with(b, "not owned") == 1, "%s",
                  warnings(b));
    ck_assert_int_eq(list_entries(v1, NULL, 0), 1);

    char name[65], path[2048];
    ck_assert_int_eq(lchown(cache, geteuid(), getegid()), 0);
    only_entry(name, path, sizeof path);
    ck_assert_int_eq(lchown(path, other, other), 0);
    struct outcome *c = run_child(compile_jobs, &j0);
    expect(c, &j0, 1, 0, "entry of another user");
    ck_assert_msg(c->nwarn == 1 && warnings_with(c, name) == 1, "%s", warnings(c));
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(st.st_uid == geteuid(), "the foreign entry was not replaced");
}
END_TEST

/* Root ignores permission bits, so as root the processes run as NOBODY; 1 if root cannot. */
static int limited_as_root(const char *test)
{
    int limited = 0;
    if (geteuid() == 0) {
        fflush(NULL);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
            _exit(become(NOBODY) == 0 ? 0 : 1);
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        limited = !WIFEXITED(status) || WEXITSTATUS(status) != 0 || chown_tree(top, NOBODY, NOBODY) != 0;
        drop = !limited;
        if (limited)
            printf("%s: root cannot switch to uid %d: only the calls' success is tested\n", test, NOBODY);
    }
    return limited;
}

START_TEST(test_read_only)
{
    const int limited = limited_as_root("test_read_only");
    struct job j0 = {1, {S(0)}, {0}, 0}, j = {3, {S(0), S(1), S(2)}, {0, 0, 0}, 0};
    struct outcome *a = run_child(compile_jobs, &j0);
    expect(a, &j0, 1, 0, "storing process");
    ck_assert_int_eq(chmod(v1, 0500), 0);
    ck_assert_int_eq(chmod(tmpd, 0500), 0);
    struct outcome *b = run_child(compile_jobs, &j);
    if (!limited) {
        expect(b, &j, 2, 1, "read-only v1 and v1/tmp");
        ck_assert_msg(b->nwarn == 1 && warnings_with(b, "cannot") == 1,
                      "want one warning for two failed stores: %s", warnings(b));
        ck_assert_int_eq(list_entries(v1, NULL, 0), 1);
        ck_assert_int_eq(count_files(tmpd), 0);
    } else {
        expect(b, &j, 2, 1, "v1 and v1/tmp chmod 0500, as root");
    }

    char ro[2048];
    snprintf(ro, sizeof ro, "%s/read-only", top);
    ck_assert_int_eq(mkdir(ro, 0500), 0);
    ck_assert_int_eq(drop ? lchown(ro, NOBODY, NOBODY) : 0, 0);
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", ro, 1), 0);
    struct outcome *c = run_child(compile_jobs, &j0);
    expect(c, &j0, 1, 0, "read-only, empty cache dir");
    if (!limited)
        ck_assert_msg(c->dir[0] == '\0' && c->nwarn == 1 && count_files(ro) == 0, "%s", warnings(c));
}
END_TEST

/* An entry its owner cannot read (mode 0000): a miss, recompiled and replaced by a readable one. */
START_TEST(test_unreadable_entry)
{
    const int limited = limited_as_root("test_unreadable_entry");
    struct job j = {1, {S(0)}, {0}, 0};
    struct outcome *a = run_child(compile_jobs, &j);
    expect(a, &j, 1, 0, "storing process");
    char name[65], path[2048];
    only_entry(name, path, sizeof path);
    ck_assert_int_eq(chmod(path, 0), 0);
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, limited ? 0 : 1, limited ? 1 : 0, "an entry of mode 0000");
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(limited || (st.st_mode & 0400), "the unreadable entry was not replaced (mode %04o)",
                  (unsigned)(st.st_mode & 07777));
    struct outcome *c = run_child(compile_jobs, &j);
    expect(c, &j, 0, 1, "after the replacement");
}
END_TEST

/* Full disk: the calls succeed, nothing is left behind, one warning. */
START_TEST(test_enospc)
{
    struct job j = {2, {S(0), S(1)}, {0, 0}, 1};
    struct outcome *b = run_child(compile_jobs, &j);
    expect(b, &j, 2, 0, "ENOSPC");
    ck_assert_int_eq(list_entries(v1, NULL, 0), 0);
    ck_assert_int_eq(count_files(tmpd), 0);
    ck_assert_msg(b->nwarn == 1 && warnings_with(b, strerror(ENOSPC)) == 1,
                  "want one warning for two failed stores: %s", warnings(b));
    j.enospc = 0;
    struct outcome *c = run_child(compile_jobs, &j);
    expect(c, &j, 2, 0, "after ENOSPC");
    ck_assert_int_eq(list_entries(v1, NULL, 0), 2);
}
END_TEST

/* CURED_CACHE_DISABLE=1 or CURED_CACHE_DIR="": no directory, every process compiles. */
START_TEST(test_disabled)
{
    char home[2048], xdg[2048];
    snprintf(home, sizeof home, "%s/home", top);
    snprintf(xdg, sizeof xdg, "%s/xdg", top);
    struct job j = {1, {S(0)}, {0}, 0};
    ck_assert_int_eq(setenv("CURED_CACHE_DISABLE", "1", 1), 0);
    for (int round = 0; round < 3; round++) {
        if (round == 2) {
            ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
            ck_assert_int_eq(setenv("CURED_CACHE_DIR", "", 1), 0);
            ck_assert_int_eq(setenv("HOME", home, 1), 0);
            ck_assert_int_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
        }
        struct outcome *o = run_child(compile_jobs, &j);
        expect(o, &j, 1, 0, round < 2 ? "CURED_CACHE_DISABLE=1" : "CURED_CACHE_DIR=\"\"");
        ck_assert_msg(o->dir[0] == '\0' && o->nwarn == 0, "cache dir %s; %s", o->dir, warnings(o));
        /* No cache directory anywhere it could go. (Other software may create
         * things under $HOME, e.g. the CUDA driver on a GPU host: not ours.) */
        char probe[2100];
        const char *const where[] = {"%s/cache", "%s/home/.cache/cured", "%s/xdg/cured"};
        for (size_t w = 0; w < sizeof where / sizeof *where; w++) {
            snprintf(probe, sizeof probe, where[w], top);
            ck_assert_msg(access(probe, F_OK) != 0, "a cache directory was created: %s", probe);
        }
    }
    /* Here, with no more children to come: listing and clearing a disabled cache. */
    size_t removed = 99;
    int listed = 0;
    ck_assert_int_eq(cured_cache_clear(&removed), CURED_SUCCESS);
    ck_assert_uint_eq(removed, 0);
    ck_assert_int_eq(cured_cache_foreach(count_entry, &listed), CURED_SUCCESS);
    ck_assert_int_eq(listed, 0);
}
END_TEST

static void expect_dir(const char *want)
{
    cr_diskcache_reset_for_tests();
    const char *got = cured_cache_dir();
    if (want == NULL) {
        ck_assert_msg(got == NULL, "cache dir %s, want none", got);
        return;
    }
    ck_assert_msg(got != NULL && strcmp(got, want) == 0, "cache dir %s, want %s", got ? got : "(none)", want);
    char tmp[2100];
    snprintf(tmp, sizeof tmp, "%s/tmp", want);
    expect_mode(want, 0700);
    expect_mode(tmp, 0700);
}

/* Where the cache lives, read again after each change (within this process). */
START_TEST(test_location)
{
    char home[1024], xdg[1024], want[2048];
    snprintf(home, sizeof home, "%s/home", top);
    snprintf(xdg, sizeof xdg, "%s/xdg", top);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DIR"), 0);
    ck_assert_int_eq(setenv("HOME", home, 1), 0);
    ck_assert_int_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
    snprintf(want, sizeof want, "%s/cured/v1", xdg);
    expect_dir(want);
    snprintf(want, sizeof want, "%s/cured", xdg);
    expect_mode(want, 0700);

    ck_assert_int_eq(setenv("XDG_CACHE_HOME", "relative", 1), 0); /* not absolute: ignored */
    snprintf(want, sizeof want, "%s/.cache/cured/v1", home);
    expect_dir(want);
    ck_assert_msg(!exists("relative"), "a relative XDG_CACHE_HOME was used");
    snprintf(want, sizeof want, "%s/.cache", home);
    expect_mode(want, 0700);
    ck_assert_int_eq(unsetenv("XDG_CACHE_HOME"), 0);
    snprintf(want, sizeof want, "%s/.cache/cured/v1", home);
    expect_dir(want);

    ck_assert_int_eq(setenv("XDG_CACHE_HOME", xdg, 1), 0);
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", cache, 1), 0); /* wins over XDG */
    expect_dir(v1);
    ck_assert_int_eq(setenv("CURED_CACHE_DISABLE", "0", 1), 0);
    expect_dir(v1);
    ck_assert_int_eq(setenv("CURED_CACHE_DISABLE", "1", 1), 0);
    expect_dir(NULL);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
    expect_dir(v1);
}
END_TEST

static Suite *diskcache_fs_suite(void)
{
    Suite *s = suite_create("diskcache-fs");
    TCase *tc = tcase_create("directory");
    tcase_add_checked_fixture(tc, dc_setup, dc_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_hostile_dir, 0, (int)(sizeof hostile / sizeof *hostile));
    tcase_add_test(tc, test_other_owner);
    tcase_add_test(tc, test_read_only);
    tcase_add_test(tc, test_unreadable_entry);
    tcase_add_test(tc, test_enospc);
    tcase_add_test(tc, test_disabled);
    tcase_add_test(tc, test_location);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return dc_main(diskcache_fs_suite());
}
