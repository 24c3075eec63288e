/*
 * `cured cache dir|list|clear`: the persistent kernel cache, through the
 * library's cache API (cured_cache_dir/foreach/clear). `cured cache warm` is
 * in cache_warm.c.
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

static const char usage_text[] =
    "usage: cured cache dir               print the cache directory in use\n"
    "       cured cache list [--long]     the entries, most recently used first\n"
    "       cured cache clear             remove every entry\n"
    "       cured cache warm [-j N] [--arch sm_XY|compute_XY ...] [-v]\n"
    "                                     compile every built-in kernel into it\n"
    "The directory is CURED_CACHE_DIR, else $XDG_CACHE_HOME/cured, else\n"
    "~/.cache/cured (plus a versioned subdirectory); CURED_CACHE_DISABLE=1 or an\n"
    "empty CURED_CACHE_DIR turns it off. `cured cache warm --help` says more.\n"
    "  --long    list: the whole file name and kernel description, not cut to\n"
    "            fit 80 columns\n"
    "Exit status: 0 on success; 1 on failure or when the disk cache is off;\n"
    "2 for usage.\n";

const char *cache_need_dir(const char *what)
{
    const char *reason = NULL, *dir = cache_dir_or_reason(&reason);
    if (dir == NULL)
        fprintf(stderr, "cured cache %s: disk cache is off: %s\n", what, reason);
    return dir;
}

static int cache_dir_cmd(void)
{
    const char *dir = cache_need_dir("dir");
    if (dir == NULL)
        return 1;
    printf("%s\n", dir);
    return 0;
}

/* ---- list -------------------------------------------------------------------- */

struct listed {
    char file[65], target[32], *summary;
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

/* The short form of a kernel description, "kernels-src/fast.cu
 * reduce_fast<int, Pair<int>, MinMax<int, int, int>, 256, 4>": the kernel's
 * name without reduce_, and its last template argument that is a template
 * itself (the operator), without blanks after commas: "fast MinMax<int,int,int>". */
static void short_kernel(const char *summary, char *out, size_t len)
{
    const char *k = strchr(summary, ' ');
    k = k ? k + 1 : summary;
    if (strncmp(k, "reduce_", 7) == 0)
        k += 7;
    size_t name = strcspn(k, "<");
    const char *op = NULL, *arg = k + name + (k[name] == '<');
    for (int depth = 0; k[name] == '<' && *arg != '\0';) { /* find each argument at depth 0 */
        const char *a = arg;
        while (*a == ' ')
            a++;
        const char *e = a;
        int has_template = 0;
        for (depth = 0; *e != '\0' && !(depth == 0 && (*e == ',' || *e == '>')); e++) {
            depth += *e == '<';
            depth -= *e == '>';
            has_template |= *e == '<';
        }
        if (has_template)
            op = a;
        if (*e != ',')
            break;
        arg = e + 1;
    }
    size_t n = (size_t)snprintf(out, len, "%.*s", (int)name, k);
    if (op == NULL || n + 2 >= len)
        return;
    out[n++] = ' ';
    for (int depth = 0; *op != '\0' && n + 1 < len; op++) {
        if (depth == 0 && (*op == ',' || *op == '>'))
            break;
        depth += *op == '<';
        depth -= *op == '>';
        if (*op == ' ' && op[-1] == ',')
            continue;
        out[n++] = *op;
    }
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

/* A row of the listing in 80 columns: file (8 of its 64 hex digits, as git
 * abbreviates), target, size, last use to the minute, and the kernel's
 * short form, cut with "..." to fit; --long gives everything whole. */
static void print_row(const struct listed *x, int full)
{
    char when[40], human[32], kernel[256];
    if (full) {
        iso_time(x->last_use, when);
        printf("%s  %-11s %10llu  %s  %s\n", x->file, x->target, (unsigned long long)x->bytes, when,
               x->summary);
        return;
    }
    time_t tt = (time_t)x->last_use;
    struct tm tm;
    if (localtime_r(&tt, &tm) == NULL || strftime(when, sizeof when, "%m-%d %H:%M", &tm) == 0)
        snprintf(when, sizeof when, "@%lld", (long long)x->last_use);
    short_kernel(x->summary, kernel, sizeof kernel);
    /* 80 - (8 + 2 + 10 + 1 + 9 + 2 + 11 + 2) = 35 columns for the kernel */
    const int room = 35;
    if ((int)strlen(kernel) > room)
        snprintf(kernel + room - 3, sizeof kernel - (size_t)room + 3, "...");
    printf("%.8s  %-10.10s %9s  %-11s  %s\n", x->file, x->target, human_bytes(x->bytes, human), when, kernel);
}

static int cache_list_cmd(int full)
{
    const char *dir = cache_need_dir("list");
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
        if (l.n > 0) /* qsort takes no NULL array, even of 0 elements */
            qsort(l.v, l.n, sizeof *l.v, by_recent_use);
        uint64_t total = 0;
        if (l.n > 0 && full)
            printf("%-64s  %-11s %10s  %-25s  %s\n", "file", "target", "bytes", "last use", "kernel");
        else if (l.n > 0)
            printf("%-8s  %-10s %9s  %-11s  %s\n", "file", "target", "size", "last use", "kernel");
        for (size_t i = 0; i < l.n; i++) {
            print_row(&l.v[i], full);
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
    const char *dir = cache_need_dir("clear");
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
    if (strcmp(sub, "warm") == 0)
        return cmd_cache_warm(argc - 1, argv + 1);
    if (strcmp(sub, "dir") != 0 && strcmp(sub, "list") != 0 && strcmp(sub, "clear") != 0) {
        fprintf(stderr, "cured cache: unknown subcommand %s\n%s", sub, usage_text);
        return 2;
    }
    int full = 0;
    for (int i = 2; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (sub[0] == 'l' && strcmp(argv[i], "--long") == 0) {
            full = 1;
            continue;
        }
        fprintf(stderr, "cured cache %s: unexpected argument %s\n%s", sub, argv[i], usage_text);
        return 2;
    }
    return sub[0] == 'd' ? cache_dir_cmd() : sub[0] == 'l' ? cache_list_cmd(full) : cache_clear_cmd();
}
