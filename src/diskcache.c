/*
 * Persistent kernel cache on disk. Every failure here is a cache miss: the
 * caller compiles instead, and the problem is logged once (CURED_LOG).
 *
 * Layout: <root>/v<SCHEMA>/<sha256 of key>  entries
 *         <root>/v<SCHEMA>/tmp/              entries being written
 * Entry:  header | key text | meta (lowered names) | payload (cubin or PTX).
 * A reader checks magic, format, payload kind, sizes, the full key text and
 * the SHA-256 of kind, names and payload; an empty payload is refused.
 * Writers fill a temp file (O_EXCL|O_NOFOLLOW), fsync it and rename it into
 * place, so readers see whole entries or none. Files are reached through
 * directory descriptors (cachedir.c chooses and checks the directory) and
 * opened with O_NOFOLLOW|O_NONBLOCK, their type checked on the descriptor, so
 * a planted symlink is never followed and a planted FIFO never blocks.
 *
 * Removing one entry (a damaged one the loader read, one whose payload the
 * driver refused) must not remove a good entry another process stored under
 * the same name since: the entry is first renamed into tmp/, which moves
 * exactly one file atomically, then checked there, and a file that turns
 * out to be another process's fresh entry is linked back (link(2) never
 * replaces an even newer one).
 */
#include "internal.h"
#include "diskcache.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "CUREDKC\0"
#define SCHEMA 1u /* the directory v1 */
#define FORMAT 2u /* the entry layout; 2: the payload kind is checksummed */

struct header {
    char magic[8];
    uint32_t format;
    uint32_t payload_kind; /* 0 cubin, 1 PTX */
    uint32_t key_len;
    uint32_t meta_len;
    uint64_t payload_len;
    unsigned char checksum[32]; /* SHA-256 of payload_kind (4 bytes, little-endian), meta, payload */
};

int (*cr_diskcache_write_hook)(int fd, const void *buf, size_t n);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int state = -1; /* -1 unopened, 0 disabled/broken, 1 usable */
static int root_fd = -1, tmp_fd = -1;
static char root_path[1024];

static char *explicit_dir; /* cured_set_cache_dir(): NULL = the default rules */

/* Open the cache on first use; caller holds lock. */
static int ensure_open(void)
{
    if (state >= 0)
        return state;
    char schema[16];
    snprintf(schema, sizeof schema, "v%u", SCHEMA);
    state = cr_cachedir_open(explicit_dir, schema, &root_fd, &tmp_fd, root_path, sizeof root_path);
    return state;
}

CR_API cured_status cured_set_cache_dir(const char *dir)
{
    if (dir != NULL && *dir != '\0' && *dir != '/')
        return cr_fail(CURED_ERROR_INVALID_VALUE, "cured_set_cache_dir: \"%s\" is not an absolute path", dir);
    if (dir != NULL && strlen(dir) >= 900)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "cured_set_cache_dir: the path is too long (%zu bytes)",
                       strlen(dir));
    char *copy = dir != NULL ? strdup(dir) : NULL;
    if (dir != NULL && copy == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    pthread_mutex_lock(&lock);
    if (state >= 0) {
        pthread_mutex_unlock(&lock);
        free(copy);
        return cr_fail(CURED_ERROR_NOT_SUPPORTED, "cured_set_cache_dir: the disk cache was already opened (%s); "
                       "call it before the first kernel is compiled or loaded", state ? root_path : "off");
    }
    free(explicit_dir);
    explicit_dir = copy;
    pthread_mutex_unlock(&lock);
    return CURED_SUCCESS;
}

/* Both fds (or -1) under the lock; the cache stays open for the process. */
int cr_diskcache_fds(int *rfd, int *tfd)
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
    return cr_diskcache_fds(&r, &t) ? root_path : NULL;
}

static void name_of(const char *key, char name[65])
{
    cr_sha256_hex(key, strlen(key), name);
}

static void checksum(uint32_t kind, const char *meta, size_t meta_len, const void *payload, size_t n,
                     unsigned char out[32])
{
    struct cr_sha256 s;
    unsigned char k[4] = {(unsigned char)kind, (unsigned char)(kind >> 8), (unsigned char)(kind >> 16),
                          (unsigned char)(kind >> 24)};
    cr_sha256_init(&s);
    cr_sha256_update(&s, k, sizeof k);
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
        for (size_t i = 0; i < l; i++)
            if (p[i] <= ' ' || p[i] > '~') /* mangled names are printable: no NUL, no blank */
                return -1;
        memcpy(img->lowered[k], p, l);
        img->lowered[k][l] = '\0';
        k++;
        p += l + 1;
    }
    return k == nkernels ? 0 : -1;
}

int cr_diskcache_open_entry(int dir, const char *name, struct stat *st, const char **why)
{
    /* O_NONBLOCK: opening a FIFO planted at the name must not wait for a writer. */
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *why = errno == ENOENT ? NULL : errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_uid != geteuid())
        *why = "not a regular file of ours";
    else if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        *why = strerror(errno);
    else
        return fd;
    close(fd);
    return -1;
}

const char *cr_diskcache_check_entry(unsigned char *buf, size_t size, const char *key, int nkernels, int ptx,
                                     struct cr_image *img)
{
    struct header h;
    size_t key_len = strlen(key);
    if (size < sizeof h)
        return "truncated header";
    memcpy(&h, buf, sizeof h);
    if (memcmp(h.magic, MAGIC, 8) != 0 || h.format != FORMAT)
        return "wrong magic or format";
    if (h.payload_kind > 1)
        return "unknown payload kind";
    if (h.key_len != key_len || h.meta_len > 4096 || h.payload_len > (1ull << 30) ||
        (uint64_t)size != sizeof h + (uint64_t)h.key_len + h.meta_len + h.payload_len)
        return "sizes do not match";
    if (h.payload_len == 0)
        return "empty payload";
    const unsigned char *k = buf + sizeof h, *meta = k + h.key_len, *payload = meta + h.meta_len;
    if (memcmp(k, key, key_len) != 0)
        return "key differs (hash collision)";
    unsigned char sum[32];
    checksum(h.payload_kind, (const char *)meta, h.meta_len, payload, (size_t)h.payload_len, sum);
    if (memcmp(sum, h.checksum, 32) != 0)
        return "checksum mismatch";
    if (h.payload_kind != (uint32_t)(ptx != 0))
        return h.payload_kind ? "PTX where a cubin was expected" : "a cubin where PTX was expected";
    if (parse_meta((const char *)meta, h.meta_len, img, nkernels) != 0)
        return "bad kernel names";
    memmove(buf, payload, (size_t)h.payload_len);
    buf[h.payload_len] = '\0';
    img->data = buf;
    img->size = (size_t)h.payload_len;
    img->ptx = (int)h.payload_kind;
    return NULL;
}

/*
 * Remove the entry name of dir if it is the file the caller means: it is
 * moved into tmp (readers meanwhile miss), is_it() looks at the moved file's
 * descriptor (-1 when it cannot be opened as an entry: removed), and a file
 * that is not the caller's goes back unless a newer entry took the name.
 */
static void remove_entry_if(int dir, int tmp, const char *name, int (*is_it)(int fd, const struct stat *st, void *arg),
                            void *arg)
{
    char aside[160];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(aside, sizeof aside, "%.16s.drop.%ld.%ld.%lx", name, (long)getpid(), (long)ts.tv_nsec,
             (unsigned long)pthread_self());
    if (renameat(dir, name, tmp, aside) != 0)
        return; /* gone already (a clear, an eviction, another process's drop) */
    struct stat st;
    const char *why = NULL;
    int fd = cr_diskcache_open_entry(tmp, aside, &st, &why);
    int remove = fd < 0 || is_it(fd, &st, arg);
    if (fd >= 0)
        close(fd);
    if (!remove)
        linkat(tmp, aside, dir, name, 0); /* EEXIST: a newer entry is there; this one is not needed */
    unlinkat(tmp, aside, 0);
}

static int same_file(int fd, const struct stat *st, void *arg)
{
    (void)fd;
    const struct stat *read = arg;
    return st->st_dev == read->st_dev && st->st_ino == read->st_ino;
}

int cr_diskcache_load(const char *key, int nkernels, int ptx, struct cr_image *img)
{
    int dir, tmp;
    if (!cr_diskcache_fds(&dir, &tmp))
        return 0;
    char name[65];
    name_of(key, name);
    struct stat st;
    const char *why = NULL;
    unsigned char *buf = NULL;
    int fd = cr_diskcache_open_entry(dir, name, &st, &why);
    if (fd < 0 && why == NULL) /* no entry */
        return 0;
    if (fd >= 0) {
        size_t size = (size_t)st.st_size;
        if (st.st_size < 0 || (uint64_t)st.st_size > (1ull << 30) + 65536)
            why = "sizes do not match";
        else if ((buf = malloc(size + 1)) == NULL)
            why = "out of memory";
        else if (read_all(fd, buf, size) != 0)
            why = "truncated";
        else
            why = cr_diskcache_check_entry(buf, size, key, nkernels, ptx, img);
        close(fd);
    }
    if (why != NULL) {
        free(buf);
        cr_log(CURED_LOG_WARN, "disk cache: discarding %s/%s: %s", root_path, name, why);
        if (fd >= 0)
            remove_entry_if(dir, tmp, name, same_file, &st); /* the file read, not a newer one */
        else
            unlinkat(dir, name, 0); /* a symlink, a FIFO or another's file: never an entry of ours */
        return 0;
    }
    /* The last-use stamp for eviction is the entry's mtime, set explicitly. */
    utimensat(dir, name, NULL, AT_SYMLINK_NOFOLLOW);
    cr_log(CURED_LOG_DEBUG, "disk cache hit: %s/%s", root_path, name);
    return 1;
}

struct refused {
    const char *key;
    const struct cr_image *img;
    int nkernels;
};

/* The entry holds the refused payload, or is no valid entry for the key at all. */
static int holds_refused(int fd, const struct stat *st, void *arg)
{
    const struct refused *r = arg;
    if (st->st_size < 0 || (uint64_t)st->st_size > (1ull << 30) + 65536)
        return 1;
    size_t size = (size_t)st->st_size;
    unsigned char *buf = malloc(size + 1);
    if (buf == NULL)
        return 1;
    struct cr_image img;
    memset(&img, 0, sizeof img);
    int refused = read_all(fd, buf, size) != 0 ||
                  cr_diskcache_check_entry(buf, size, r->key, r->nkernels, r->img->ptx, &img) != NULL ||
                  (img.size == r->img->size && memcmp(img.data, r->img->data, img.size) == 0);
    free(buf);
    return refused;
}

void cr_diskcache_drop(const char *key, const struct cr_image *img, int nkernels)
{
    int dir, tmp;
    if (!cr_diskcache_fds(&dir, &tmp))
        return;
    char name[65];
    name_of(key, name);
    struct refused r = {key, img, nkernels};
    remove_entry_if(dir, tmp, name, holds_refused, &r);
}

void cr_diskcache_store(const char *key, const struct cr_image *img, int nkernels)
{
    int dir, tmp;
    if (!cr_diskcache_fds(&dir, &tmp))
        return;
    char name[65], meta[CR_MAX_KERNELS * (sizeof img->lowered[0] + 1)] = "", tmp_name[128];
    name_of(key, name);
    size_t meta_len = 0;
    for (int k = 0; k < nkernels && meta_len < sizeof meta; k++)
        meta_len += (size_t)snprintf(meta + meta_len, sizeof meta - meta_len, "%s%s", k ? "\n" : "",
                                     img->lowered[k]);
    if (meta_len >= sizeof meta) /* cannot happen: every name fits its slot and a separator */
        return;
    struct header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, 8);
    h.format = FORMAT;
    h.payload_kind = (uint32_t)img->ptx;
    h.key_len = (uint32_t)strlen(key);
    h.meta_len = (uint32_t)meta_len;
    h.payload_len = img->size;
    checksum(h.payload_kind, meta, meta_len, img->data, img->size, h.checksum);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp_name, sizeof tmp_name, "%.16s.%ld.%ld.%lx", name, (long)getpid(), (long)ts.tv_nsec,
             (unsigned long)pthread_self());
    int fd = openat(tmp, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        cr_log(CURED_LOG_WARN, "disk cache: store failed: cannot create a temporary file in %s/tmp: %s",
               root_path, strerror(errno));
        return;
    }
    int ok = write_all(fd, &h, sizeof h) == 0 && write_all(fd, key, h.key_len) == 0 &&
             write_all(fd, meta, meta_len) == 0 && write_all(fd, img->data, img->size) == 0 &&
             fsync(fd) == 0;
    int err = errno;
    ok = close(fd) == 0 && ok;
    /* Losing a rename race to another process is fine: both entries are equal. */
    if (!ok || renameat(tmp, tmp_name, dir, name) != 0) {
        cr_log(CURED_LOG_WARN, "disk cache: store failed: cannot store entries in %s: %s", root_path,
               strerror(ok ? errno : err));
        unlinkat(tmp, tmp_name, 0);
        return;
    }
    cr_log(CURED_LOG_DEBUG, "disk cache store: %s/%s (%zu bytes)", root_path, name, img->size);
    cr_diskcache_tidy(dir, tmp, name);
}

int cr_diskcache_read_small(const char *name, char *buf, size_t cap)
{
    int dir, tmp;
    if (!cr_diskcache_fds(&dir, &tmp))
        return 0;
    struct stat st;
    const char *why;
    int fd = cr_diskcache_open_entry(dir, name, &st, &why);
    if (fd < 0)
        return 0;
    ssize_t n = -1;
    if ((size_t)st.st_size < cap)
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
    if (!cr_diskcache_fds(&dir, &tmp))
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

int cr_diskcache_read_key(int dir, const char *name, char **key, struct stat *st)
{
    const char *why;
    int fd = cr_diskcache_open_entry(dir, name, st, &why); /* the type is checked on the descriptor */
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

void cr_diskcache_reset_for_tests(void)
{
    pthread_mutex_lock(&lock);
    if (root_fd >= 0)
        close(root_fd);
    if (tmp_fd >= 0)
        close(tmp_fd);
    root_fd = tmp_fd = -1;
    state = -1;
    free(explicit_dir);
    explicit_dir = NULL;
    pthread_mutex_unlock(&lock);
}

