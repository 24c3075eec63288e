/*
 * Listing, clearing and evicting: cured_cache_foreach, cured_cache_clear and
 * the sweep of stale temp files and least recently used entries after each
 * store. Entries are opened as the loader opens them (cr_diskcache_open_entry),
 * so a FIFO swapped in after the directory was read blocks nothing.
 */
#include "internal.h"
#include "diskcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MAX_BYTES (512ull << 20)
#define STALE_TMP_SECONDS 3600

struct victim {
    char name[80];
    int kept;             /* the entry just stored: the most recent of all */
    struct timespec used; /* the last-use stamp (mtime), to the nanosecond: a second holds many uses */
    off_t size;
};

static int by_age(const void *a, const void *b)
{
    const struct victim *x = a, *y = b;
    if (x->kept != y->kept)
        return x->kept - y->kept;
    if (x->used.tv_sec != y->used.tv_sec)
        return (x->used.tv_sec > y->used.tv_sec) - (x->used.tv_sec < y->used.tv_sec);
    if (x->used.tv_nsec != y->used.tv_nsec)
        return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
    return strcmp(x->name, y->name); /* the same stamp: a fixed order */
}

/* CURED_CACHE_MAX_BYTES: digits with an optional K, M or G (binary); anything else is the default. */
static unsigned long long max_bytes(void)
{
    const char *env = cr_getenv("CURED_CACHE_MAX_BYTES");
    if (env == NULL || *env == '\0')
        return DEFAULT_MAX_BYTES;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift)
        end++;
    if (errno || end == env || *end != '\0' || env[0] == '-' || v > (~0ull >> shift)) {
        cr_log(CURED_LOG_WARN, "CURED_CACHE_MAX_BYTES=\"%s\" is not a size; using %llu", env, DEFAULT_MAX_BYTES);
        return DEFAULT_MAX_BYTES;
    }
    return v << shift;
}

/* Sweep stale temp files, then evict least recently used entries above the
 * limit; keep (the entry just stored, or NULL) is the most recent of all,
 * whatever the file system's clock granularity says. */
void cr_diskcache_tidy(int dir, int tmp, const char *keep)
{
    time_t now = time(NULL);
    int dup_fd = openat(tmp, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* own offset, unlike dup */
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *e;
    struct stat st;
    if (d) {
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && fstatat(tmp, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                now - st.st_mtime > STALE_TMP_SECONDS)
                unlinkat(tmp, e->d_name, 0);
        closedir(d);
    } else if (dup_fd >= 0)
        close(dup_fd);

    unsigned long long max = max_bytes();
    dup_fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (d == NULL) {
        if (dup_fd >= 0)
            close(dup_fd);
        return;
    }
    struct victim *v = NULL;
    size_t n = 0, cap = 0;
    unsigned long long total = 0;
    while ((e = readdir(d)) != NULL) {
        if (strlen(e->d_name) != 64 || fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            struct victim *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            if (nv == NULL)
                break;
            v = nv;
        }
        snprintf(v[n].name, sizeof v[n].name, "%s", e->d_name);
        v[n].kept = keep != NULL && strcmp(e->d_name, keep) == 0;
        v[n].used = st.st_mtim;
        v[n].size = st.st_size;
        total += (unsigned long long)st.st_size;
        n++;
    }
    closedir(d);
    if (total > max) {
        qsort(v, n, sizeof *v, by_age);
        for (size_t i = 0; i < n && total > max; i++)
            if (unlinkat(dir, v[i].name, 0) == 0)
                total -= (unsigned long long)v[i].size;
    }
    free(v);
}

/* The value of the first line starting with prefix, copied into out. */
static void key_line(const char *key, const char *prefix, char *out, size_t cap)
{
    size_t pl = strlen(prefix);
    out[0] = '\0';
    for (const char *line = key; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, prefix, pl) == 0) {
            const char *end = strchr(line, '\n');
            size_t l = end ? (size_t)(end - line - pl) : strlen(line + pl);
            snprintf(out, cap, "%.*s", (int)l, line + pl);
            return;
        }
}

static void for_each_entry(int dir, void (*fn)(int dir, const char *name, const struct stat *st, void *u),
                           void *u)
{
    int dup_fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (d == NULL) {
        if (dup_fd >= 0)
            close(dup_fd);
        return;
    }
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL)
        if (strlen(e->d_name) == 64 && fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            fn(dir, e->d_name, &st, u);
    closedir(d);
}

struct list_ctx {
    void (*fn)(const cured_cache_entry *, void *);
    void *user;
};

static void list_one(int dir, const char *name, const struct stat *st, void *u)
{
    struct list_ctx *c = u;
    char *key = NULL, summary[1024], kernel[512], source[256], target[64];
    struct stat now;
    if (cr_diskcache_read_key(dir, name, &key, &now) != 0)
        return;
    st = &now;
    key_line(key, "source ", source, sizeof source);
    key_line(key, "kernel ", kernel, sizeof kernel);
    char *sp = strchr(source, ' ');
    if (sp)
        *sp = '\0'; /* drop the digest */
    snprintf(summary, sizeof summary, "%s %s", source, kernel);
    key_line(key, "output ", target, sizeof target);
    char *t = strchr(target, ' ');
    cured_cache_entry e = {name, summary, t ? t + 1 : target, (uint64_t)st->st_size,
                           (int64_t)st->st_mtime};
    c->fn(&e, c->user);
    free(key);
}

static void remove_one(int dir, const char *name, const struct stat *st, void *u)
{
    (void)st;
    if (unlinkat(dir, name, 0) == 0)
        ++*(size_t *)u;
}

CR_API const char *cured_cache_dir(void)
{
    return cr_diskcache_dir();
}

CR_API cured_status cured_cache_foreach(void (*fn)(const cured_cache_entry *, void *), void *user)
{
    if (fn == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_cache_foreach: fn is NULL");
    int dir, tmp;
    if (cr_diskcache_fds(&dir, &tmp)) {
        struct list_ctx c = {fn, user};
        for_each_entry(dir, list_one, &c);
    }
    return CURED_SUCCESS;
}

CR_API cured_status cured_cache_clear(size_t *removed)
{
    size_t n = 0;
    int dir, tmp;
    if (cr_diskcache_fds(&dir, &tmp)) {
        for_each_entry(dir, remove_one, &n);
        cr_diskcache_tidy(dir, tmp, NULL);
    }
    if (removed)
        *removed = n;
    return CURED_SUCCESS;
}
