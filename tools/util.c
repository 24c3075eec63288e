/* Helpers shared by the subcommands of the `cured` program. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tool.h"

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int parse_count(const char *s, uint64_t *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    const char *suffixes = "KMGT", *p = *end ? strchr(suffixes, *end & ~0x20) : NULL;
    unsigned shift = p != NULL ? 10 * (unsigned)(p - suffixes + 1) : 0;
    if (shift != 0 && *++end == 'i')
        end++;
    if (errno != 0 || *end != '\0' || (shift != 0 && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int parse_arch(const char *s, int *sm, int *ptx)
{
    int is_ptx = 0;
    if (s == NULL)
        return -1;
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    else if (strncmp(s, "compute_", 8) == 0)
        s += 8, is_ptx = 1;
    uint64_t v = 0;
    /* Plain digits only: "90a" and the like are not targets cured compiles for. */
    if (strspn(s, "0123456789") != strlen(s) || parse_count(s, &v) != 0 || v < 10 || v > 1000)
        return -1;
    *sm = (int)v;
    *ptx = is_ptx;
    return 0;
}

int match_option(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t len = strlen(name);
    if (strncmp(a, name, len) != 0 || (a[len] != '\0' && a[len] != '='))
        return 0;
    if (a[len] == '=')
        *val = a + len + 1;
    else
        *val = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int parse_options(int argc, char **argv, const char *prog, const char *usage, struct count_option *counts,
                  int ncounts, struct string_option *strings, int nstrings)
{
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(usage, stdout);
            return 1;
        }
        const char *v = NULL, *name = NULL;
        int c = 0, k = 0;
        while (c < ncounts && !match_option(argc, argv, &i, counts[c].name, &v))
            c++;
        if (c < ncounts) {
            name = counts[c].name;
        } else {
            while (k < nstrings && !match_option(argc, argv, &i, strings[k].name, &v))
                k++;
            if (k == nstrings) {
                fprintf(stderr, "%s: unknown option %s\n%s", prog, argv[i], usage);
                return 2;
            }
            name = strings[k].name;
        }
        uint64_t n = 0;
        if (v == NULL || *v == '\0' ||
            (c < ncounts && (parse_count(v, &n) != 0 || n < counts[c].lo || n > counts[c].hi))) {
            fprintf(stderr, "%s: bad or missing value for %s\n%s", prog, name, usage);
            return 2;
        }
        if (c < ncounts)
            counts[c].value = n;
        else
            strings[k].value = v;
    }
    return 0;
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *kernel_source(const cured_stats *a, const cured_stats *b)
{
    if (b->compiles > a->compiles)
        return "jit";
    if (b->disk_hits > a->disk_hits)
        return "disk";
    return b->memory_hits > a->memory_hits ? "mem" : "";
}

int kernel_name_width(void)
{
    size_t w = 10;
    for (size_t i = 0; i < cured_kernel_count(); i++) {
        const char *name = cured_kernel_name(i);
        if (name != NULL && strlen(name) > w)
            w = strlen(name);
    }
    return w < 120 ? (int)w : 120;
}

int arch_offered(int sm)
{
    int archs[128], count = 0;
    if (cured_supported_archs(archs, 128, &count) != CURED_SUCCESS)
        return -1;
    for (int i = 0; i < count && i < 128; i++)
        if (archs[i] == sm)
            return 1;
    return 0;
}

cured_status compile_one(size_t index, int sm, int ptx, struct compile_result *r)
{
    cured_stats s0, s1;
    memset(r, 0, sizeof *r);
    if (cured_get_stats(&s0) != CURED_SUCCESS)
        memset(&s0, 0, sizeof s0);
    double t0 = now_ms();
    r->status = cured_compile_kernel(index, sm, ptx, &r->bytes);
    r->ms = now_ms() - t0;
    if (r->status != CURED_SUCCESS)
        snprintf(r->why, sizeof r->why, "%s", cured_last_error());
    if (cured_get_stats(&s1) != CURED_SUCCESS)
        s1 = s0;
    r->source = kernel_source(&s0, &s1);
    return r->status;
}

static char captured[1024];

static void capture_log(cured_log_level level, const char *message, void *user)
{
    (void)user;
    /* The first message about the disk cache, unless a warning follows it. */
    if (strstr(message, "disk cache") != NULL && (captured[0] == '\0' || level == CURED_LOG_WARN))
        snprintf(captured, sizeof captured, "%s", message);
}

const char *cache_dir_or_reason(const char **reason)
{
    captured[0] = '\0';
    /* The library says why through its log, if this is the first look. */
    int hooked = cured_set_log(CURED_LOG_DEBUG, capture_log, NULL) == CURED_SUCCESS;
    const char *dir = cured_cache_dir();
    if (hooked)
        (void)cured_set_log(CURED_LOG_OFF, NULL, NULL); /* back to the CURED_LOG default */
    if (dir != NULL)
        return dir;
    const char *disable = getenv("CURED_CACHE_DISABLE"), *env_dir = getenv("CURED_CACHE_DIR");
    static char why[1100];
    if (disable != NULL && *disable != '\0' && strcmp(disable, "0") != 0)
        snprintf(why, sizeof why, "CURED_CACHE_DISABLE=%s", disable);
    else if (env_dir != NULL && *env_dir == '\0')
        snprintf(why, sizeof why, "CURED_CACHE_DIR is set but empty");
    else if (captured[0] != '\0' && strstr(captured, "disabled by the environment") == NULL) {
        /* "disk cache DIR unusable (why); compiling without it" -> "DIR unusable (why)" */
        const char *m = strncmp(captured, "disk cache ", 11) == 0 ? captured + 11 : captured;
        const char *tail = strstr(m, "; compiling without it");
        snprintf(why, sizeof why, "%.*s", tail ? (int)(tail - m) : (int)strlen(m), m);
    }
    else if (captured[0] != '\0')
        snprintf(why, sizeof why, "no cache location: set CURED_CACHE_DIR, XDG_CACHE_HOME or HOME");
    else
        snprintf(why, sizeof why, "unusable (run with CURED_LOG=warn to see why)");
    *reason = why;
    return NULL;
}

struct totals {
    size_t entries;
    uint64_t bytes;
};

static void add_entry(const cured_cache_entry *e, void *user)
{
    struct totals *t = user;
    t->entries++;
    t->bytes += e->bytes;
}

void cache_totals(size_t *entries, uint64_t *bytes)
{
    struct totals t = {0, 0};
    if (cured_cache_foreach(add_entry, &t) != CURED_SUCCESS)
        t.entries = 0, t.bytes = 0;
    *entries = t.entries;
    *bytes = t.bytes;
}

int scan_cache_dir(const char *dir, int64_t since, size_t *entries, uint64_t *bytes, size_t *fresh)
{
    DIR *d = opendir(dir);
    *entries = *fresh = 0;
    *bytes = 0;
    if (d == NULL)
        return -1;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL)
        if (strlen(e->d_name) == 64 && strspn(e->d_name, "0123456789abcdef") == 64 &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
            ++*entries;
            *bytes += (uint64_t)st.st_size;
            *fresh += (int64_t)st.st_mtime >= since;
        }
    return closedir(d);
}

const char *human_bytes(uint64_t bytes, char buf[32])
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 3)
        v /= 1024, u++;
    snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}
