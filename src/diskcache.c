/*
 * Persistent kernel cache on disk. Every failure here is a cache miss: the
 * caller compiles instead, and the problem is logged once (CURED_LOG).
 *
 * Layout: <root>/v<SCHEMA>/<sha256 of key>  entries
 *         <root>/v<SCHEMA>/tmp/              entries being written
 * Entry:  header | key text | meta (lowered names) | payload (cubin or PTX).
 * A reader checks magic, format, the full key text and the payload's SHA-256.
 * Writers fill a temp file (O_EXCL|O_NOFOLLOW), fsync it and rename it into
 * place, so readers see whole entries or none. Files are reached through
 * directory descriptors opened with O_NOFOLLOW, so a planted symlink is
 * never followed, and a directory not owned by us or writable by others is
 * refused.
 */
#include "internal.h"
#include "diskcache.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "CUREDKC\0"
#define FORMAT 1u
#define DEFAULT_MAX_BYTES (512ull << 20)
#define STALE_TMP_SECONDS 3600

struct header {
    char magic[8];
    uint32_t format;
    uint32_t payload_kind; /* 0 cubin, 1 PTX */
    uint32_t key_len;
    uint32_t meta_len;
    uint64_t payload_len;
    unsigned char checksum[32]; /* SHA-256 of meta + payload */
};

int (*cr_diskcache_write_hook)(int fd, const void *buf, size_t n);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int state = -1; /* -1 unopened, 0 disabled/broken, 1 usable */
static int root_fd = -1, tmp_fd = -1;
static char root_path[1024];

/* A directory we may trust: ours, not group/world writable, not a symlink. */
static int open_private_dir(int at, const char *name, int create)
{
    if (create && mkdirat(at, name, 0700) != 0 && errno != EEXIST)
        return -1;
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* mkdir -p of the parents of path (0700), each component opened without following symlinks past the first. */
static int open_root(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    int fd = open(buf[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *save = NULL;
    for (char *part = strtok_r(buf, "/", &save); part && fd >= 0; part = strtok_r(NULL, "/", &save)) {
        const char *rest = save;
        while (rest && *rest == '/')
            rest++; /* "a//" or "a/": a is still the last component */
        int next;
        if (rest == NULL || *rest == '\0') { /* the cache root itself must be private */
            next = open_private_dir(fd, part, 1);
        } else {
            /* Parents (e.g. ~/.cache) may be anything the user has, symlinks included. */
            if (mkdirat(fd, part, 0700) != 0 && errno != EEXIST)
                next = -1;
            else
                next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        }
        close(fd);
        fd = next;
    }
    return fd;
}

static int resolve_root(char *out, size_t cap)
{
    const char *disable = cr_getenv("CURED_CACHE_DISABLE");
    if (disable && *disable && strcmp(disable, "0") != 0)
        return 0;
    const char *dir = cr_getenv("CURED_CACHE_DIR");
    if (dir != NULL)
        return *dir ? (snprintf(out, cap, "%s", dir), 1) : 0; /* set but empty: off */
    const char *xdg = cr_getenv("XDG_CACHE_HOME");
    if (xdg && *xdg == '/')
        return snprintf(out, cap, "%s/cured", xdg), 1;
    const char *home = cr_getenv("HOME");
    if (home == NULL || *home != '/') {
        struct passwd pw, *res = NULL;
        char pwbuf[4096];
        if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof pwbuf, &res) == 0 && res && res->pw_dir)
            return snprintf(out, cap, "%s/.cache/cured", res->pw_dir), 1;
        return 0;
    }
    return snprintf(out, cap, "%s/.cache/cured", home), 1;
}

/* Open the cache on first use; caller holds lock. */
static int ensure_open(void)
{
    if (state >= 0)
        return state;
    state = 0;
    char root[900];
    int have_root = resolve_root(root, sizeof root);
    if (have_root && strlen(root) >= sizeof root - 1) {
        cr_log(CURED_LOG_WARN, "disk cache path is too long; compiling without the disk cache");
        return 0;
    }
    if (!have_root) {
        cr_log(CURED_LOG_DEBUG, "disk cache disabled by the environment");
        return 0;
    }
    int top = open_root(root);
    char schema[16];
    snprintf(schema, sizeof schema, "v%u", FORMAT);
    root_fd = top >= 0 ? open_private_dir(top, schema, 1) : -1;
    tmp_fd = root_fd >= 0 ? open_private_dir(root_fd, "tmp", 1) : -1;
    int err = errno;
    if (top >= 0)
        close(top);
    if (root_fd < 0 || tmp_fd < 0) {
        cr_log(CURED_LOG_WARN, "disk cache %s unusable (%s); compiling without it", root,
               err == EPERM ? "not owned by this user, or writable by others" : strerror(err));
        if (root_fd >= 0)
            close(root_fd);
        root_fd = tmp_fd = -1;
        return 0;
    }
    snprintf(root_path, sizeof root_path, "%s/%s", root, schema);
    state = 1;
    return 1;
}

/* Both fds (or -1) under the lock; the cache stays open for the process. */
static int cache_fds(int *rfd, int *tfd)
{
    pthread_mutex_lock(&lock);
    int ok = ensure_open();
    *rfd = root_fd;
    *tfd = tmp_fd;
    pthread_mutex_unlock(&lock);
    return ok;
}

const char *cr_diskcache_dir(void)
{
    int r, t;
    return cache_fds(&r, &t) ? root_path : NULL;
}

static void name_of(const char *key, char name[65])
{
    cr_sha256_hex(key, strlen(key), name);
}

static void checksum(const char *meta, size_t meta_len, const void *payload, size_t n,
                     unsigned char out[32])
{
    struct cr_sha256 s;
    cr_sha256_init(&s);
    cr_sha256_update(&s, meta, meta_len);
    cr_sha256_update(&s, payload, n);
    cr_sha256_final(&s, out);
}

/* Exactly n bytes through read(2), or write(2) (or the test hook), retrying short transfers and EINTR. */
static int transfer_all(int fd, void *buf, size_t n, int writing)
{
    for (size_t done = 0; done < n;) {
        char *p = (char *)buf + done;
        ssize_t r = !writing                  ? read(fd, p, n - done)
                    : cr_diskcache_write_hook ? cr_diskcache_write_hook(fd, p, n - done)
                                              : write(fd, p, n - done);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)r;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    return transfer_all(fd, buf, n, 0);
}

static int write_all(int fd, const void *buf, size_t n)
{
    return transfer_all(fd, (void *)buf, n, 1);
}

/* Parse the meta text (lowered names, one per line) into img. */
static int parse_meta(const char *meta, size_t len, struct cr_image *img, int nkernels)
{
    int k = 0;
    const char *p = meta, *end = meta + len;
    while (p < end && k < CR_MAX_KERNELS) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l == 0 || l >= sizeof img->lowered[k])
            return -1;
        memcpy(img->lowered[k], p, l);
        img->lowered[k][l] = '\0';
        k++;
        p += l + 1;
    }
    return k == nkernels ? 0 : -1;
}

int cr_diskcache_load(const char *key, int nkernels, struct cr_image *img)
{
    int dir, tmp;
    if (!cache_fds(&dir, &tmp))
        return 0;
    char name[65];
    name_of(key, name);
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            cr_log(CURED_LOG_WARN, "disk cache: cannot open %s/%s: %s", root_path, name, strerror(errno));
        return 0;
    }
    struct stat st;
    struct header h;
    char *key_text = NULL, *meta = NULL;
    void *payload = NULL;
    const char *why = NULL;
    size_t key_len = strlen(key);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
        why = "not a regular file of ours";
    else if (read_all(fd, &h, sizeof h) != 0)
        why = "truncated header";
    else if (memcmp(h.magic, MAGIC, 8) != 0 || h.format != FORMAT)
        why = "wrong magic or format";
    else if (h.key_len != key_len || h.meta_len > 4096 || h.payload_len > (1ull << 30) ||
             (uint64_t)st.st_size != sizeof h + h.key_len + h.meta_len + h.payload_len)
        why = "sizes do not match";
    else if (!(key_text = malloc(key_len)) || !(meta = malloc(h.meta_len + 1)) ||
             !(payload = malloc(h.payload_len + 1)))
        why = "out of memory";
    else if (read_all(fd, key_text, key_len) != 0 || read_all(fd, meta, h.meta_len) != 0 ||
             read_all(fd, payload, h.payload_len) != 0)
        why = "truncated";
    else if (memcmp(key_text, key, key_len) != 0)
        why = "key differs (hash collision)";
    else {
        unsigned char sum[32];
        checksum(meta, h.meta_len, payload, h.payload_len, sum);
        if (memcmp(sum, h.checksum, 32) != 0)
            why = "checksum mismatch";
        else if (parse_meta(meta, h.meta_len, img, nkernels) != 0)
            why = "bad kernel names";
    }
    close(fd);
    free(key_text);
    free(meta);
    if (why != NULL) {
        free(payload);
        cr_log(CURED_LOG_WARN, "disk cache: discarding %s/%s: %s", root_path, name, why);
        unlinkat(dir, name, 0);
        return 0;
    }
    ((char *)payload)[h.payload_len] = '\0';
    img->data = payload;
    img->size = (size_t)h.payload_len;
    img->ptx = (int)h.payload_kind;
    /* The last-use stamp for eviction is the entry's mtime, set explicitly. */
    utimensat(dir, name, NULL, AT_SYMLINK_NOFOLLOW);
    cr_log(CURED_LOG_DEBUG, "disk cache hit: %s/%s", root_path, name);
    return 1;
}

void cr_diskcache_drop(const char *key)
{
    int dir, tmp;
    if (!cache_fds(&dir, &tmp))
        return;
    char name[65];
    name_of(key, name);
    unlinkat(dir, name, 0);
}

struct victim {
    char name[80];
    time_t used;
    off_t size;
};

static int by_age(const void *a, const void *b)
{
    const struct victim *x = a, *y = b;
    return (x->used > y->used) - (x->used < y->used);
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

/* Sweep stale temp files, then evict least recently used entries above the limit. */
static void tidy(int dir, int tmp)
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
        v[n].used = st.st_mtime;
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

void cr_diskcache_store(const char *key, const struct cr_image *img, int nkernels)
{
    int dir, tmp;
    if (!cache_fds(&dir, &tmp))
        return;
    char name[65], meta[CR_MAX_KERNELS * 257] = "", tmp_name[128];
    name_of(key, name);
    size_t meta_len = 0;
    for (int k = 0; k < nkernels; k++)
        meta_len += (size_t)snprintf(meta + meta_len, sizeof meta - meta_len, "%s%s", k ? "\n" : "",
                                     img->lowered[k]);
    struct header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.format = FORMAT;
    h.payload_kind = (uint32_t)img->ptx;
    h.key_len = (uint32_t)strlen(key);
    h.meta_len = (uint32_t)meta_len;
    h.payload_len = img->size;
    checksum(meta, meta_len, img->data, img->size, h.checksum);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp_name, sizeof tmp_name, "%.16s.%ld.%ld.%lx", name, (long)getpid(), (long)ts.tv_nsec,
             (unsigned long)pthread_self());
    int fd = openat(tmp, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        cr_log(CURED_LOG_WARN, "disk cache: cannot create a temporary file in %s/tmp: %s", root_path,
               strerror(errno));
        return;
    }
    int ok = write_all(fd, &h, sizeof h) == 0 && write_all(fd, key, h.key_len) == 0 &&
             write_all(fd, meta, meta_len) == 0 && write_all(fd, img->data, img->size) == 0 &&
             fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok;
    /* Losing a rename race to another process is fine: both entries are equal. */
    if (!ok || renameat(tmp, tmp_name, dir, name) != 0) {
        cr_log(CURED_LOG_WARN, "disk cache: cannot store entries in %s: %s", root_path,
               strerror(ok ? errno : err));
        unlinkat(tmp, tmp_name, 0);
        return;
    }
    cr_log(CURED_LOG_DEBUG, "disk cache store: %s/%s (%zu bytes)", root_path, name, img->size);
    tidy(dir, tmp);
}

int cr_diskcache_read_small(const char *name, char *buf, size_t cap)
{
    int dir, tmp;
    if (!cache_fds(&dir, &tmp))
        return 0;
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (size_t)st.st_size < cap)
        n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0 || n != (ssize_t)st.st_size)
        return 0;
    buf[n] = '\0';
    return 1;
}

void cr_diskcache_write_small(const char *name, const char *text)
{
    int dir, tmp;
    if (!cache_fds(&dir, &tmp))
        return;
    char tmp_name[160];
    snprintf(tmp_name, sizeof tmp_name, "%.40s.%ld.%lx", name, (long)getpid(), (unsigned long)pthread_self());
    int fd = openat(tmp, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    int ok = write_all(fd, text, strlen(text)) == 0 && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || renameat(tmp, tmp_name, dir, name) != 0)
        unlinkat(tmp, tmp_name, 0);
}

void cr_diskcache_reset_for_tests(void)
{
    pthread_mutex_lock(&lock);
    if (root_fd >= 0)
        close(root_fd);
    if (tmp_fd >= 0)
        close(tmp_fd);
    root_fd = tmp_fd = -1;
    state = -1;
    pthread_mutex_unlock(&lock);
}

/* Read an entry's header and key text (for listing); 0 on success. */
static int read_key(int dir, const char *name, char **key)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct header h;
    int rc = -1;
    if (read_all(fd, &h, sizeof h) == 0 && memcmp(h.magic, MAGIC, 8) == 0 && h.format == FORMAT &&
        h.key_len < (1u << 20) && (*key = malloc(h.key_len + 1)) != NULL) {
        if (read_all(fd, *key, h.key_len) == 0) {
            (*key)[h.key_len] = '\0';
            rc = 0;
        } else {
            free(*key);
        }
    }
    close(fd);
    return rc;
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
    if (read_key(dir, name, &key) != 0)
        return;
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
    if (cache_fds(&dir, &tmp)) {
        struct list_ctx c = {fn, user};
        for_each_entry(dir, list_one, &c);
    }
    return CURED_SUCCESS;
}

CR_API cured_status cured_cache_clear(size_t *removed)
{
    size_t n = 0;
    int dir, tmp;
    if (cache_fds(&dir, &tmp)) {
        for_each_entry(dir, remove_one, &n);
        tidy(dir, tmp);
    }
    if (removed)
        *removed = n;
    return CURED_SUCCESS;
}
