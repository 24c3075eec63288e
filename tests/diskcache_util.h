/*
 * Shared pieces of the off-GPU disk-cache suites (test-diskcache,
 * test-diskcache-fs): a fresh cache directory per test, child processes
 * that call the library and report what they saw through shared memory,
 * and assertions on those reports.
 *
 * Library state (the opened cache, the memory cache, the counters) is per
 * process, so every "process" of a test is a fork of the test process
 * (itself a fork made by Check) that has not called the library.
 */
#ifndef CURED_TESTS_DISKCACHE_UTIL_H
#define CURED_TESTS_DISKCACHE_UTIL_H

#include "internal.h"
#include "diskcache.h"
#include "cache_util.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SM 90        /* kernels are compiled for sm_90 (cubin) or compute_90 (PTX) */
#define MAXJOBS 12
#define MAXWARN 8
#define NOBODY 65534 /* another user, for tests run as root */

/* What one child process saw. */
struct outcome {
    int done;      /* the child got to its end */
    char err[256]; /* why it did not (children make no Check assertions) */
    cured_status st[MAXJOBS];
    size_t bytes[MAXJOBS];
    uint64_t digest[MAXJOBS]; /* FNV-1a of each image */
    cured_stats stats;        /* read after the calls, before the digests */
    int nwarn;                /* warnings logged through cured_set_log */
    char warn[MAXWARN][320];
    char dir[1024]; /* cured_cache_dir(), "" for NULL */
    int nlisted;    /* cured_cache_foreach, cured_cache_clear */
    struct {
        char file[65], target[32], summary[256];
        uint64_t bytes;
        int64_t last_use;
    } listed[MAXJOBS];
    cured_status null_fn;
    int relisted; /* entries seen by a second cured_cache_foreach */
    size_t removed;
    int after_clear;
    int probe; /* a test's own observation */
};

/* A child's work for compile_jobs: kernels (index, PTX or not) to compile. */
struct job {
    int n;
    int spec[MAXJOBS];
    int ptx[MAXJOBS];
    int enospc; /* entry writes fail with ENOSPC (cr_diskcache_write_hook) */
};

/* Set by dc_setup: top (mkdtemp, the cwd), cache = top/cache (CURED_CACHE_DIR,
 * not created), v1 and tmpd below it, outside = top/outside (created). */
extern char top[512], cache[600], v1[640], tmpd[680], outside[600];
extern int free_specs[32], nfree; /* kernels without toolkit headers, the cheapest first (dc_setup) */
extern int drop;                  /* children switch to uid NOBODY first */
#define S(k) free_specs[(k) % nfree]

/* In a child: record why it fails and exit. */
#define CHILD_CHECK(o, cond, ...)                                 \
    do {                                                          \
        if (!(cond)) {                                            \
            snprintf((o)->err, sizeof (o)->err, __VA_ARGS__);     \
            _exit(1);                                             \
        }                                                         \
    } while (0)

void dc_setup(void);
void dc_teardown(void);
/* Probe NVRTC in a child (77 without it), then run the suite, one process per test. */
int dc_main(Suite *s);

typedef void (*child_fn)(struct outcome *o, const void *arg);
/* Run fn in a new process (logging to the outcome) and return what it saw. */
struct outcome *run_child(child_fn fn, const void *arg);
/* n zeroed outcomes in memory shared with children. */
struct outcome *shared_outcomes(int n);
/* In a new child: switch user if asked, send warnings to o. */
void child_start(struct outcome *o);
/* In the test: wait for a child and fail unless it got to its end. */
void child_wait(pid_t pid, const struct outcome *o, const char *what);
/* The child_fn for a struct job: compile, read the counters, digest the images. */
void compile_jobs(struct outcome *o, const void *arg);
void digests(struct outcome *o, const int *spec, const int *ptx, int n);

uint64_t fnv(const void *p, size_t n);
int become(uid_t uid);
/* All warnings as one string, for failure messages (static buffer). */
const char *warnings(const struct outcome *o);
int warnings_with(const struct outcome *o, const char *needle);
/* Every call of j succeeded, with these numbers of compilations and disk hits. */
void expect(const struct outcome *o, const struct job *j, unsigned compiles, unsigned hits,
            const char *what);
/* The first n images of a and b are the same (size and digest). */
void expect_same_images(const struct outcome *a, const struct outcome *b, int n, const char *what);
/* path is a directory of ours with exactly this mode. */
void expect_mode(const char *path, mode_t mode);
int exists(const char *path);
/* The only entry in v1: its name and path. */
void only_entry(char name[65], char *path, size_t cap);
/* Set a file's (or a link's own) times to that many seconds ago. */
void set_age(const char *path, time_t seconds);
/* A cured_cache_foreach callback counting entries into an int. */
void count_entry(const cured_cache_entry *e, void *user);
/* Write text to a new file (mode 0600). */
void put(const char *path, const char *text);

#endif
