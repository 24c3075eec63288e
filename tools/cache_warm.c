/*
 * `cured cache warm`: compile every built-in kernel for some targets into
 * the disk cache, on several threads (NVRTC and cured's kernel cache are
 * thread-safe), with an n/total progress line on stderr.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "tool.h"

#define MAX_TARGETS 32

static const char warm_usage[] =
    "usage: cured cache warm [-j N] [--arch sm_XY|compute_XY ...] [-v]\n"
    "Compile every built-in kernel for each target into the disk cache, so that\n"
    "programs on machines with those GPUs start without compiling (e.g. while\n"
    "building a container image on a machine without a GPU). No GPU is needed.\n"
    "  --arch T      sm_XY (cubin) or compute_XY (PTX for the driver to JIT); may\n"
    "                be repeated. Default: the target cured chooses for device 0,\n"
    "                or sm_90 without a GPU.\n"
    "  -j, --jobs N  compile on N threads (default: the number of CPUs)\n"
    "  -v, --verbose a line per kernel on stdout (otherwise only failures)\n"
    "Progress (done/total) goes to stderr. Kernels that need CUDA toolkit headers\n"
    "that are absent are skipped, not failed.\n"
    "Exit status: 0 if every kernel is in the cache (or skipped); 1 otherwise, or\n"
    "when the disk cache is off; 2 for usage.\n";

struct target {
    int sm, ptx;
    char name[24];
};

struct warm {
    struct target t[MAX_TARGETS];
    int nt, verbose, tty, width;
    size_t nk, total, skipped, failed;
    double start;
    int last_percent;
    struct job {
        cured_status status;
        size_t bytes;
        double ms;
        char why[512];
    } *jobs;
};

/* Entries the library could not store (its "store failed: ..." warnings) and
 * an unusable directory; other warnings, such as a corrupt entry or a planted
 * symlink that was replaced, are shown but do not fail the command. The library may log from
 * any of the threads. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int warnings, log_tty;

static void warm_log(cured_log_level level, const char *message, void *user)
{
    (void)user;
    pthread_mutex_lock(&log_lock);
    if (level == CURED_LOG_WARN)
        warnings += strstr(message, "store failed") != NULL || strstr(message, "unusable") != NULL;
    fprintf(stderr, "%scured: %s: %s\n", log_tty ? "\r\033[K" : "", level == CURED_LOG_WARN ? "warning" : "debug",
            message);
    pthread_mutex_unlock(&log_lock);
}

/* The target cured would choose for device 0, or sm_90 where there is no GPU. */
static int default_target(struct target *t)
{
    cured_handle h = NULL;
    cured_status st = cured_create(0, &h);
    if (st == CURED_ERROR_NO_DRIVER || st == CURED_ERROR_NO_DEVICE) {
        fprintf(stderr, "cured cache warm: no GPU here (%s): warming for sm_90\n", cured_last_error());
        t->sm = 90;
        t->ptx = 0;
        return 0;
    }
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured cache warm: cannot use device 0: %s: %s (name the target with --arch)\n",
                cured_status_string(st), cured_last_error());
        return -1;
    }
    st = cured_get_arch(h, &t->sm, &t->ptx);
    char why[1024];
    snprintf(why, sizeof why, "%s", st != CURED_SUCCESS ? cured_last_error() : "");
    cured_status dst = cured_destroy(h);
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured cache warm: no target for device 0: %s: %s\n", cured_status_string(st), why);
        return -1;
    }
    if (dst != CURED_SUCCESS)
        fprintf(stderr, "cured cache warm: cured_destroy: %s: %s\n", cured_status_string(dst),
                cured_last_error());
    printf("device 0: cured compiles for %s_%d\n", t->ptx ? "compute" : "sm", t->sm);
    return 0;
}

/* -1: go on; otherwise the exit status. */
static int parse_args(int argc, char **argv, struct warm *w, int *jobs)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (is_help(argv[i])) {
            fputs(warm_usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            w->verbose = 1;
            continue;
        }
        int is_j = strncmp(argv[i], "-j", 2) == 0 && argv[i][2] != '\0';
        if (is_j || match_option(argc, argv, &i, "-j", &v) || match_option(argc, argv, &i, "--jobs", &v)) {
            uint64_t n = 0;
            if (is_j)
                v = argv[i] + 2;
            if (v == NULL || parse_count(v, &n) != 0 || n < 1 || n > 256) {
                fprintf(stderr, "cured cache warm: bad or missing value for -j: %s (want 1 to 256)\n",
                        v ? v : "");
                return 2;
            }
            *jobs = (int)n;
            continue;
        }
        struct target x;
        if (!match_option(argc, argv, &i, "--arch", &v)) {
            fprintf(stderr, "cured cache warm: unknown argument %s\n%s", argv[i], warm_usage);
            return 2;
        }
        if (v == NULL || parse_arch(v, &x.sm, &x.ptx) != 0) {
            fprintf(stderr, "cured cache warm: bad or missing value for --arch: %s (want sm_XY or "
                            "compute_XY)\n", v ? v : "");
            return 2;
        }
        int seen = 0;
        for (int k = 0; k < w->nt; k++)
            seen |= w->t[k].sm == x.sm && w->t[k].ptx == x.ptx;
        if (seen)
            continue;
        if (w->nt == MAX_TARGETS) {
            fprintf(stderr, "cured cache warm: at most %d targets\n", MAX_TARGETS);
            return 2;
        }
        w->t[w->nt++] = x;
    }
    return -1;
}

static void compile_job(void *user, size_t i)
{
    struct warm *w = user;
    const struct target *t = &w->t[i / w->nk];
    struct job *j = &w->jobs[i];
    double t0 = now_ms();
    j->status = cured_compile_kernel(i % w->nk, t->sm, t->ptx, &j->bytes);
    j->ms = now_ms() - t0;
    if (j->status != CURED_SUCCESS)
        snprintf(j->why, sizeof j->why, "%s", cured_last_error());
}

/* Under the pool's lock: the kernel's line if asked for (or if it failed),
 * and the progress line. */
static void job_done(void *user, size_t i, size_t finished)
{
    struct warm *w = user;
    const struct job *j = &w->jobs[i];
    const char *name = cured_kernel_name(i % w->nk), *target = w->t[i / w->nk].name;
    pthread_mutex_lock(&log_lock);
    if (w->tty)
        fputs("\r\033[K", stderr);
    if (j->status == CURED_ERROR_NOT_SUPPORTED) {
        w->skipped++;
        if (w->verbose)
            printf("  %-11s %-*s skipped: %s\n", target, w->width, name ? name : "?", j->why);
    } else if (j->status != CURED_SUCCESS) {
        w->failed++;
        fprintf(stderr, "cured cache warm: %s %s: FAILED: %s: %s\n", target, name ? name : "?",
                cured_status_string(j->status), j->why);
    } else if (w->verbose) {
        printf("  %-11s %-*s %9zu bytes %8.1f ms\n", target, w->width, name ? name : "?", j->bytes, j->ms);
    }
    fflush(stdout);
    int percent = (int)(100 * finished / w->total);
    if (w->tty)
        fprintf(stderr, "%zu/%zu kernels (%.0f s)", finished, w->total, (now_ms() - w->start) / 1e3);
    else if (percent / 10 != w->last_percent / 10 || finished == w->total)
        fprintf(stderr, "%zu/%zu kernels (%.0f s)\n", finished, w->total, (now_ms() - w->start) / 1e3);
    w->last_percent = percent;
    pthread_mutex_unlock(&log_lock);
}

int cmd_cache_warm(int argc, char **argv)
{
    struct warm w;
    memset(&w, 0, sizeof w);
    int jobs = pool_cpus(), rc = parse_args(argc, argv, &w, &jobs);
    if (rc >= 0)
        return rc;
    const char *dir = cache_need_dir("warm");
    if (dir == NULL) {
        fprintf(stderr, "cured cache warm: nothing would be kept: not warming\n");
        return 1;
    }
    int major = 0, minor = 0;
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        fprintf(stderr, "cured cache warm: NVRTC is not available: %s\n", cured_last_error());
        return 1;
    }
    if (w.nt == 0 && default_target(&w.t[w.nt++]) != 0)
        return 1;
    for (int i = 0; i < w.nt; i++) {
        snprintf(w.t[i].name, sizeof w.t[i].name, "%s_%d", w.t[i].ptx ? "compute" : "sm", w.t[i].sm);
        if (arch_offered(w.t[i].sm) != 1) {
            int archs[128], count = 0;
            fprintf(stderr, "cured cache warm: NVRTC %d.%d cannot compile for %s; it offers", major,
                    minor, w.t[i].name);
            if (cured_supported_archs(archs, 128, &count) == CURED_SUCCESS)
                for (int k = 0; k < count && k < 128; k++)
                    fprintf(stderr, " %d", archs[k]);
            fprintf(stderr, "\n");
            rc = 1;
        }
    }
    if (rc == 1)
        return rc;

    w.nk = cured_kernel_count();
    w.total = w.nk * (size_t)w.nt;
    w.jobs = calloc(w.total ? w.total : 1, sizeof *w.jobs);
    if (w.jobs == NULL) {
        fprintf(stderr, "cured cache warm: out of memory\n");
        return 1;
    }
    w.width = kernel_name_width();
    w.tty = log_tty = isatty(2);
    w.last_percent = -1;
    printf("warming %s with NVRTC %d.%d on %d thread%s for", dir, major, minor, jobs, jobs == 1 ? "" : "s");
    for (int i = 0; i < w.nt; i++)
        printf(" %s", w.t[i].name);
    printf("\n");
    fflush(stdout);
    /* Show the library's warnings as they come (and its debug messages if CURED_LOG=debug). */
    const char *log_env = getenv("CURED_LOG");
    cured_log_level level = log_env && strcmp(log_env, "debug") == 0 ? CURED_LOG_DEBUG : CURED_LOG_WARN;
    int hooked = cured_set_log(level, warm_log, NULL) == CURED_SUCCESS;
    cured_stats s0, s1;
    if (cured_get_stats(&s0) != CURED_SUCCESS)
        memset(&s0, 0, sizeof s0);
    int64_t start = (int64_t)time(NULL) - 1; /* entry times have whole seconds */
    w.start = now_ms();
    pool_run(w.total, jobs, compile_job, job_done, &w);
    double seconds = (now_ms() - w.start) / 1e3;
    if (w.tty)
        fputs("\r\033[K", stderr);
    if (hooked)
        (void)cured_set_log(CURED_LOG_OFF, NULL, NULL);
    if (cured_get_stats(&s1) != CURED_SUCCESS)
        s1 = s0;
    size_t compiled = (size_t)(s1.compiles - s0.compiles), disk = (size_t)(s1.disk_hits - s0.disk_hits);

    /* Every kernel compiled now should be on disk: a store that failed is
     * only a warning in the library, and eviction is silent. The directory
     * is read here directly: an entry written or used now has a recent mtime. */
    size_t entries = 0, fresh = 0;
    uint64_t bytes = 0;
    char human[32];
    if (scan_cache_dir(dir, start, &entries, &bytes, &fresh) != 0) {
        fprintf(stderr, "cured cache warm: cannot read %s: %s\n", dir, strerror(errno));
        rc = 1;
    }
    printf("%zu kernel%s x %d target%s: %zu compiled, %zu already on disk, %zu skipped, %zu failed "
           "(%.1f s)\n", w.nk, w.nk == 1 ? "" : "s", w.nt, w.nt == 1 ? "" : "s", compiled, disk, w.skipped,
           w.failed, seconds);
    printf("cache %s: %zu entr%s, %s\n", dir, entries, entries == 1 ? "y" : "ies", human_bytes(bytes, human));
    if (w.skipped > 0 && cured_toolkit_include() == NULL)
        printf("skipped kernels need a CUDA toolkit's headers; set CURED_CUDA_HOME to warm them too\n");
    if (fresh < compiled) {
        fprintf(stderr, "cured cache warm: only %zu of the %zu kernels compiled now are in the cache "
                        "(a store failed, or CURED_CACHE_MAX_BYTES evicted them)\n", fresh, compiled);
        rc = 1;
    }
    if (warnings > 0) {
        fprintf(stderr, "cured cache warm: the disk cache could not store %d entr%s (above)\n", warnings,
                warnings == 1 ? "y" : "ies");
        rc = 1;
    }
    free(w.jobs);
    return w.failed > 0 ? 1 : rc == 1 ? 1 : 0;
}
