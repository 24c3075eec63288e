/*
 * `cured cache dir|list|clear|warm`: the persistent kernel cache, through
 * the library's cache API (cured_cache_dir/foreach/clear and
 * cured_compile_kernel, which fills the disk cache as it compiles).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool.h"

#define MAX_TARGETS 32

static const char usage_text[] =
    "usage: cured cache dir             print the cache directory in use\n"
    "       cured cache list            list the entries (file, target, size, last use, kernel)\n"
    "       cured cache clear           remove every entry\n"
    "       cured cache warm [--arch sm_XY|compute_XY ...]\n"
    "                                   compile every built-in kernel into the cache, no GPU needed\n"
    "The directory is CURED_CACHE_DIR, else $XDG_CACHE_HOME/cured, else ~/.cache/cured (plus a\n"
    "versioned subdirectory); CURED_CACHE_DISABLE=1 or an empty CURED_CACHE_DIR turns it off.\n"
    "Exit status: 0 on success; 1 on failure or when the disk cache is off; 2 for usage.\n";

static const char warm_usage[] =
    "usage: cured cache warm [--arch sm_XY|compute_XY ...]\n"
    "Compile every built-in kernel for each target into the disk cache, so that programs on\n"
    "machines with those GPUs start without compiling (e.g. while building a container image\n"
    "on a machine without a GPU). No GPU is needed.\n"
    "  --arch T   sm_XY (cubin) or compute_XY (PTX for the driver to JIT); may be repeated.\n"
    "             Default: the target cured chooses for device 0, or sm_90 without a GPU.\n"
    "Kernels that need CUDA toolkit headers that are absent are skipped, not failed.\n"
    "Exit status: 0 if every kernel is in the cache (or skipped); 1 otherwise, or when the\n"
    "disk cache is off; 2 for usage.\n";

/* The cache directory, or a message and NULL. */
static const char *need_dir(const char *what)
{
    const char *reason = NULL, *dir = cache_dir_or_reason(&reason);
    if (dir == NULL)
        fprintf(stderr, "cured cache %s: disk cache is off: %s\n", what, reason);
    return dir;
}

/* Only --help is accepted by dir, list and clear. */
static int simple_args(int argc, char **argv, int *status)
{
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(usage_text, stdout);
            *status = 0;
            return 1;
        }
        fprintf(stderr, "cured cache %s: unexpected argument %s\n%s", argv[0], argv[i], usage_text);
        *status = 2;
        return 1;
    }
    return 0;
}

static int cache_dir_cmd(void)
{
    const char *dir = need_dir("dir");
    if (dir == NULL)
        return 1;
    printf("%s\n", dir);
    return 0;
}

/* ---- list -------------------------------------------------------------------- */

struct listed {
    char file[13], target[32], *summary;
    uint64_t bytes;
    int64_t last_use;
};

struct listing {
    struct listed *v;
    size_t n, cap;
    int oom;
};

static void collect(const cured_cache_entry *e, void *user)
{
    struct listing *l = user;
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct listed *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL) {
            l->oom = 1;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    struct listed *x = &l->v[l->n];
    snprintf(x->file, sizeof x->file, "%s", e->file ? e->file : "?");
    snprintf(x->target, sizeof x->target, "%s", e->target ? e->target : "?");
    if ((x->summary = strdup(e->summary ? e->summary : "")) == NULL) {
        l->oom = 1;
        return;
    }
    x->bytes = e->bytes;
    x->last_use = e->last_use;
    l->n++;
}

static int by_recent_use(const void *a, const void *b)
{
    const struct listed *x = a, *y = b;
    if (x->last_use != y->last_use)
        return x->last_use < y->last_use ? 1 : -1;
    return strcmp(x->file, y->file);
}

/* Local time as ISO 8601 with the UTC offset, e.g. 2026-12-01T10:22:33+01:00. */
static void iso_time(int64_t t, char out[40])
{
    time_t tt = (time_t)t;
    struct tm tm;
    char zone[8];
    if (localtime_r(&tt, &tm) == NULL || strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm) == 0 ||
        strftime(zone, sizeof zone, "%z", &tm) != 5) {
        snprintf(out, 40, "@%lld", (long long)t);
        return;
    }
    size_t len = strlen(out);
    snprintf(out + len, 40 - len, "%.3s:%.2s", zone, zone + 3);
}

static int cache_list_cmd(void)
{
    const char *dir = need_dir("list");
    if (dir == NULL)
        return 1;
    struct listing l = {NULL, 0, 0, 0};
    cured_status st = cured_cache_foreach(collect, &l);
    int rc = 0;
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured cache list: %s: %s\n", cured_status_string(st), cured_last_error());
        rc = 1;
    } else if (l.oom) {
        fprintf(stderr, "cured cache list: out of memory\n");
        rc = 1;
    } else {
        qsort(l.v, l.n, sizeof *l.v, by_recent_use);
        uint64_t total = 0;
        if (l.n > 0)
            printf("%-12s  %-12s %10s  %-25s  %s\n", "file", "target", "bytes", "last use", "kernel");
        for (size_t i = 0; i < l.n; i++) {
            char when[40];
            iso_time(l.v[i].last_use, when);
            printf("%-12s  %-12s %10llu  %-25s  %s\n", l.v[i].file, l.v[i].target,
                   (unsigned long long)l.v[i].bytes, when, l.v[i].summary);
            total += l.v[i].bytes;
        }
        char human[32];
        printf("%zu entr%s, %s in %s\n", l.n, l.n == 1 ? "y" : "ies", human_bytes(total, human), dir);
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i].summary);
    free(l.v);
    return rc;
}

static int cache_clear_cmd(void)
{
    const char *dir = need_dir("clear");
    if (dir == NULL)
        return 1;
    size_t removed = 0;
    cured_status st = cured_cache_clear(&removed);
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured cache clear: %s: %s\n", cured_status_string(st), cured_last_error());
        return 1;
    }
    printf("removed %zu entr%s from %s\n", removed, removed == 1 ? "y" : "ies", dir);
    return 0;
}

/* ---- warm -------------------------------------------------------------------- */

struct target {
    int sm, ptx;
    char name[24];
};

/* Entries the library could not store while warming (its "store failed: ..."
 * warnings) and an unusable directory; other warnings, such as a corrupt
 * entry or a planted symlink that was replaced, are shown but do not fail
 * the command. */
static int warnings;

static void warm_log(cured_log_level level, const char *message, void *user)
{
    (void)user;
    if (level == CURED_LOG_WARN)
        warnings += strstr(message, "store failed") != NULL || strstr(message, "unusable") != NULL;
    fprintf(stderr, "cured: %s: %s\n", level == CURED_LOG_WARN ? "warning" : "debug", message);
}

/* The target cured would choose for device 0, or sm_90 where there is no GPU. */
static int default_target(struct target *t)
{
    cured_handle h = NULL;
    cured_status st = cured_create(0, &h);
    if (st == CURED_ERROR_NO_DRIVER || st == CURED_ERROR_NO_DEVICE) {
        printf("no GPU here (%s): warming for sm_90\n", cured_last_error());
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

static int parse_targets(int argc, char **argv, struct target *t, int *nt)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (is_help(argv[i])) {
            fputs(warm_usage, stdout);
            return 0;
        }
        struct target x;
        if (!match_option(argc, argv, &i, "--arch", &v)) {
            fprintf(stderr, "cured cache warm: unknown argument %s\n%s", argv[i], warm_usage);
            return 2;
        }
        if (v == NULL || parse_arch(v, &x.sm, &x.ptx) != 0) {
            fprintf(stderr, "cured cache warm: bad or missing value for --arch: %s (want sm_XY or compute_XY)\n",
                    v ? v : "");
            return 2;
        }
        int seen = 0;
        for (int k = 0; k < *nt; k++)
            seen |= t[k].sm == x.sm && t[k].ptx == x.ptx;
        if (seen)
            continue;
        if (*nt == MAX_TARGETS) {
            fprintf(stderr, "cured cache warm: at most %d targets\n", MAX_TARGETS);
            return 2;
        }
        t[(*nt)++] = x;
    }
    return -1; /* go on */
}

static int cache_warm_cmd(int argc, char **argv)
{
    struct target t[MAX_TARGETS];
    int nt = 0, rc = parse_targets(argc, argv, t, &nt);
    if (rc >= 0)
        return rc;
    const char *dir = need_dir("warm");
    if (dir == NULL) {
        fprintf(stderr, "cured cache warm: nothing would be kept: not warming\n");
        return 1;
    }
    int major = 0, minor = 0;
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        fprintf(stderr, "cured cache warm: NVRTC is not available: %s\n", cured_last_error());
        return 1;
    }
    if (nt == 0 && default_target(&t[nt++]) != 0)
        return 1;
    rc = 0;
    for (int i = 0; i < nt; i++) {
        snprintf(t[i].name, sizeof t[i].name, "%s_%d", t[i].ptx ? "compute" : "sm", t[i].sm);
        if (arch_offered(t[i].sm) != 1) {
            int archs[128], count = 0;
            fprintf(stderr, "cured cache warm: NVRTC %d.%d cannot compile for %s; it offers", major,
                    minor, t[i].name);
            if (cured_supported_archs(archs, 128, &count) == CURED_SUCCESS)
                for (int k = 0; k < count && k < 128; k++)
                    fprintf(stderr, " %d", archs[k]);
            fprintf(stderr, "\n");
            rc = 1;
        }
    }
    if (rc != 0)
        return rc;

    printf("warming %s with NVRTC %d.%d for", dir, major, minor);
    for (int i = 0; i < nt; i++)
        printf(" %s", t[i].name);
    printf("\n");
    /* Show the library's warnings as they come (and its debug messages if CURED_LOG=debug). */
    const char *log_env = getenv("CURED_LOG");
    cured_log_level level = log_env && strcmp(log_env, "debug") == 0 ? CURED_LOG_DEBUG : CURED_LOG_WARN;
    int hooked = cured_set_log(level, warm_log, NULL) == CURED_SUCCESS;
    int64_t start = (int64_t)time(NULL) - 1; /* entry times have whole seconds */
    size_t nk = cured_kernel_count(), compiled = 0, disk = 0, skipped = 0, failed = 0;
    int width = kernel_name_width();
    double ms = 0;
    for (int i = 0; i < nt; i++)
        for (size_t k = 0; k < nk; k++) {
            const char *name = cured_kernel_name(k);
            struct compile_result r;
            cured_status st = compile_one(k, t[i].sm, t[i].ptx, &r);
            printf("  %-11s %-*s ", t[i].name, width, name ? name : "(unnamed)");
            if (st == CURED_SUCCESS) {
                int jit = strcmp(r.source, "jit") == 0, hit = strcmp(r.source, "disk") == 0;
                printf("%9zu bytes  %s (%.1f ms)\n", r.bytes,
                       jit ? "compiled" : hit ? "disk hit" : "memory hit", r.ms);
                compiled += jit;
                disk += hit;
                ms += r.ms;
            } else if (st == CURED_ERROR_NOT_SUPPORTED) {
                printf("skipped: %s\n", r.why);
                skipped++;
            } else {
                printf("FAILED: %s: %s\n", cured_status_string(st), r.why);
                failed++;
            }
            fflush(stdout);
        }
    if (hooked)
        (void)cured_set_log(CURED_LOG_OFF, NULL, NULL);

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
           "(%.1f s)\n", nk, nk == 1 ? "" : "s", nt, nt == 1 ? "" : "s", compiled, disk, skipped,
           failed, ms / 1e3);
    printf("cache %s: %zu entr%s, %s\n", dir, entries, entries == 1 ? "y" : "ies", human_bytes(bytes, human));
    if (skipped > 0 && cured_toolkit_include() == NULL)
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
    return failed > 0 ? 1 : rc;
}

int cmd_cache(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    if (is_help(argv[1])) {
        fputs(usage_text, stdout);
        return 0;
    }
    const char *sub = argv[1];
    int status = 0;
    if (strcmp(sub, "warm") == 0)
        return cache_warm_cmd(argc - 1, argv + 1);
    if (strcmp(sub, "dir") == 0 || strcmp(sub, "list") == 0 || strcmp(sub, "clear") == 0) {
        if (simple_args(argc - 1, argv + 1, &status))
            return status;
        return sub[0] == 'd' ? cache_dir_cmd() : sub[0] == 'l' ? cache_list_cmd() : cache_clear_cmd();
    }
    fprintf(stderr, "cured cache: unknown subcommand %s\n%s", sub, usage_text);
    return 2;
}
