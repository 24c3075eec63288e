/* Shared pieces of the off-GPU disk-cache suites; see diskcache_util.h. */
#include "diskcache_util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

char top[512], cache[600], v1[640], tmpd[680], outside[600];
int free_specs[32], nfree;
int drop;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t fnv(const void *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

static void on_log(cured_log_level level, const char *msg, void *user)
{
    struct outcome *o = user;
    if (level != CURED_LOG_WARN)
        return;
    pthread_mutex_lock(&log_lock);
    if (o->nwarn < MAXWARN)
        snprintf(o->warn[o->nwarn], sizeof o->warn[0], "%s", msg);
    o->nwarn++;
    pthread_mutex_unlock(&log_lock);
}

int become(uid_t uid)
{
    return setgroups(0, NULL) == 0 && setgid(uid) == 0 && setuid(uid) == 0 ? 0 : -1;
}

void dc_setup(void)
{
    ck_assert_msg(make_temp_dir(top, sizeof top, "diskcache") == 0, "mkdtemp: %s", strerror(errno));
    snprintf(cache, sizeof cache, "%s/cache", top);
    snprintf(v1, sizeof v1, "%s/v1", cache);
    snprintf(tmpd, sizeof tmpd, "%s/tmp", v1);
    snprintf(outside, sizeof outside, "%s/outside", top);
    ck_assert_int_eq(mkdir(outside, 0700), 0);
    ck_assert_int_eq(chdir(top), 0);
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", cache, 1), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_MAX_BYTES"), 0);
    ck_assert_int_eq(unsetenv("CURED_LOG"), 0);
    /* The Handbook's two-pass and single-pass kernels first: they compile
     * in ~0.055 s, the AUTO kernels in ~0.09 s, and these suites compile
     * into fresh caches ~80 times. */
    nfree = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < cured_kernel_count() && nfree < 32; i++) {
            const struct cr_unit *u = cr_catalog_unit(i);
            const int handbook = strcmp(u->file, "two_pass.cu") == 0 || strcmp(u->file, "single_pass.cu") == 0;
            if (!u->needs_toolkit && handbook == (pass == 0))
                free_specs[nfree++] = (int)i;
        }
    ck_assert_int_ge(nfree, 4);
}

void dc_teardown(void)
{
    if (chdir("/") != 0 || remove_tree(top) != 0)
        fprintf(stderr, "cannot remove %s: %s\n", top, strerror(errno));
}

struct outcome *shared_outcomes(int n)
{
    struct outcome *o = mmap(NULL, (size_t)n * sizeof *o, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(o != MAP_FAILED, "mmap: %s", strerror(errno));
    memset(o, 0, (size_t)n * sizeof *o);
    return o;
}

void child_start(struct outcome *o)
{
    CHILD_CHECK(o, !drop || become(NOBODY) == 0, "cannot switch to uid %d: %s", NOBODY, strerror(errno));
    CHILD_CHECK(o, cured_set_log(CURED_LOG_WARN, on_log, o) == CURED_SUCCESS, "cured_set_log failed");
}

void child_wait(pid_t pid, const struct outcome *o, const char *what)
{
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && o->done,
                  "%s: the child process failed (status 0x%x): %s", what, (unsigned)status, o->err);
}

/* Run fn in a new process and return what it saw. */
struct outcome *run_child(child_fn fn, const void *arg)
{
    struct outcome *o = shared_outcomes(1);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        child_start(o);
        fn(o, arg);
        o->done = 1;
        _exit(0);
    }
    child_wait(pid, o, "run_child");
    return o;
}

static int no_space(int fd, const void *buf, size_t n)
{
    (void)fd, (void)buf, (void)n;
    errno = ENOSPC;
    return -1;
}

void digests(struct outcome *o, const int *spec, const int *ptx, int n)
{
    for (int i = 0; i < n; i++) {
        const struct cr_image *img = NULL;
        if (o->st[i] == CURED_SUCCESS &&
            cr_kcache_get(cr_catalog_unit((size_t)spec[i]), SM, ptx[i] != 0, &img) == CURED_SUCCESS)
            o->digest[i] = fnv(img->data, img->size);
    }
}

void compile_jobs(struct outcome *o, const void *arg)
{
    const struct job *j = arg;
    if (j->enospc)
        cr_diskcache_write_hook = no_space;
    for (int i = 0; i < j->n; i++)
        o->st[i] = cured_compile_kernel((size_t)j->spec[i], SM, j->ptx[i], &o->bytes[i]);
    CHILD_CHECK(o, cured_get_stats(&o->stats) == CURED_SUCCESS, "cured_get_stats failed");
    digests(o, j->spec, j->ptx, j->n); /* memory hits, after the counters were read */
    const char *d = cured_cache_dir();
    snprintf(o->dir, sizeof o->dir, "%s", d ? d : "");
}

const char *warnings(const struct outcome *o)
{
    static char all[MAXWARN * 330];
    size_t len = (size_t)snprintf(all, sizeof all, "%d warning(s)", o->nwarn);
    for (int i = 0; i < o->nwarn && i < MAXWARN && len < sizeof all; i++)
        len += (size_t)snprintf(all + len, sizeof all - len, " [%s]", o->warn[i]);
    return all;
}

int warnings_with(const struct outcome *o, const char *needle)
{
    int n = 0;
    for (int i = 0; i < o->nwarn && i < MAXWARN; i++)
        n += strstr(o->warn[i], needle) != NULL;
    return n;
}

/* Every call succeeded, with these counts of compilations and disk hits. */
void expect(const struct outcome *o, const struct job *j, unsigned compiles, unsigned hits,
                   const char *what)
{
    for (int i = 0; i < j->n; i++)
        ck_assert_msg(o->st[i] == CURED_SUCCESS && o->bytes[i] > 0, "%s: kernel %d (%s_%d): %s", what,
                      j->spec[i], j->ptx[i] ? "compute" : "sm", SM, cured_status_string(o->st[i]));
    ck_assert_msg(o->stats.compiles == compiles && o->stats.disk_hits == hits &&
                      o->stats.compile_failures == 0,
                  "%s: %llu compile(s), %llu disk hit(s); want %u and %u; %s", what,
                  (unsigned long long)o->stats.compiles, (unsigned long long)o->stats.disk_hits,
                  compiles, hits, warnings(o));
}

void expect_same_images(const struct outcome *a, const struct outcome *b, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(a->bytes[i] == b->bytes[i] && a->digest[i] == b->digest[i] && a->digest[i] != 0,
                      "%s: image %d differs (%zu vs %zu bytes)", what, i, a->bytes[i], b->bytes[i]);
}

void expect_mode(const char *path, mode_t mode)
{
    struct stat st;
    ck_assert_msg(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
    ck_assert_msg(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == mode && st.st_uid == geteuid(),
                  "%s: mode %o, uid %d; want a directory of ours, mode %o", path,
                  (unsigned)(st.st_mode & 07777), (int)st.st_uid, (unsigned)mode);
}

int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

void only_entry(char name[65], char *path, size_t cap)
{
    int n = list_entries(v1, (char(*)[65])name, 1);
    ck_assert_msg(n == 1, "%s holds %d entries, want 1", v1, n);
    snprintf(path, cap, "%s/%s", v1, name);
}

void set_age(const char *path, time_t seconds)
{
    struct timespec ts[2] = {{time(NULL) - seconds, 0}, {time(NULL) - seconds, 0}};
    ck_assert_msg(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) == 0, "%s: %s", path, strerror(errno));
}

void put(const char *path, const char *text)
{
    ck_assert_msg(write_file(path, text, strlen(text), 0600) == 0, "%s: %s", path, strerror(errno));
}

void count_entry(const cured_cache_entry *e, void *user)
{
    (void)e;
    ++*(int *)user;
}

int dc_main(Suite *s)
{
    /* NVRTC is probed in a child: this process never calls the library. */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 99;
    }
    if (pid == 0) {
        if (cured_nvrtc_version(NULL, NULL) == CURED_SUCCESS)
            _exit(0);
        printf("SKIP: NVRTC is not available: %s\n", cured_last_error());
        fflush(stdout);
        _exit(1);
    }
    int status = 0;
    SRunner *sr = srunner_create(s); /* owns the suite, freed on every path (LeakSanitizer) */
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        srunner_free(sr);
        return WIFEXITED(status) && WEXITSTATUS(status) == 1 ? 77 : 99;
    }
    srunner_set_fork_status(sr, CK_FORK); /* every test needs its own process */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
