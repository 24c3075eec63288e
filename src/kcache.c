/*
 * Process-wide in-memory cache of compiled kernel images, keyed by the full
 * text of what was compiled (file, kernels, target). Each key is compiled at
 * most once at a time: the first thread to miss compiles without holding the
 * lock, later threads wait on its entry. A failed compile is handed to the
 * threads waiting for it, then forgotten, so a later call tries again.
 *
 * Below the memory cache sits the persistent disk cache (diskcache.c): a
 * memory miss looks there before compiling, and stores what it compiled.
 *
 * Images are reference counted: each get takes a reference, cr_kcache_put
 * returns it. The built-in kernels' entries stay for the process; the entry
 * of a user-defined op (a program with its own source) is freed with its
 * last reference (cured_custom_destroy), and so is an entry the driver
 * rejected, so neither accumulates in a long-running process.
 *
 * Lifetime: an entry is freed only when nobody holds it (refs, which count
 * the compiling thread while it is PENDING) and nobody waits on it
 * (waiters, counted from the lookup until the waiter has read it). A waiter
 * woken on an entry that was rejected meanwhile (READY but unlinked) does
 * not take that image: it looks the key up again, so it loads the fresh one.
 */
#include "internal.h"
#include "sha256.h"
#include "diskcache.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PENDING, READY, FAILED };

struct entry {
    struct entry *next;
    char key[512];
    int state;
    int waiters;          /* threads that found the entry and have not finished reading it */
    int linked;           /* still in the list (a rejected or failed entry is not) */
    int transient;        /* a user op's: freed with its last reference */
    int refs;             /* gets not yet put, and the compiling thread while PENDING */
    cured_status status;  /* FAILED: the status and message to hand on */
    char *message;
    struct cr_image img;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static struct entry *entries;
static size_t live; /* entries allocated, listed or not */
static size_t blocked; /* threads in pthread_cond_wait on a PENDING entry (tests) */
static cured_stats stats;

cured_status (*cr_kcache_fill_hook)(const struct cr_unit *p, int arch, int ptx, struct cr_image *img);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void make_key(char *key, size_t cap, const struct cr_unit *p, int arch, int ptx)
{
    char digest[65] = "embedded"; /* a program's own source is part of what was compiled */
    if (p->source != NULL)
        cr_sha256_hex(p->source, strlen(p->source), digest);
    int len = snprintf(key, cap, "kernels-src/%s|%s|%s_%d", p->file, digest, ptx ? "compute" : "sm", arch);
    for (int k = 0; k < p->nkernels && len > 0 && (size_t)len < cap; k++)
        len += snprintf(key + len, cap - (size_t)len, "|%s", p->kernels[k]);
}

static void free_entry(struct entry *e)
{
    cr_image_free(&e->img);
    free(e->message);
    free(e);
    live--;
}

static void unlink_entry(struct entry *e)
{
    for (struct entry **pp = &entries; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    e->linked = 0;
}

/* Free e if nobody holds it or waits on it and it is not to stay (a
 * built-in entry in the list stays). Caller holds lock. */
static void settle(struct entry *e)
{
    if (e->refs > 0 || e->waiters > 0 || (e->linked && !e->transient))
        return;
    if (e->linked)
        unlink_entry(e);
    free_entry(e);
}

static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = *buf ? vsnprintf(*buf + *len, *cap - *len, fmt, ap) : -1;
        va_end(ap);
        if (*buf && n >= 0 && (size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        size_t want = *cap ? *cap * 2 : 4096;
        char *grown = realloc(*buf, want);
        if (grown == NULL) {
            free(*buf);
            *buf = NULL;
            return;
        }
        *buf = grown;
        *cap = want;
    }
}

static void digest_text(const char *text, char hex[65])
{
    cr_sha256_hex(text, strlen(text), hex);
}

/* A toolkit header's digest ("absent" if it cannot be read). */
static void digest_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        strcpy(hex, "absent");
        return;
    }
    struct cr_sha256 s;
    unsigned char buf[65536], d[32];
    size_t n;
    cr_sha256_init(&s);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cr_sha256_update(&s, buf, n);
    fclose(f);
    cr_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        sprintf(hex + 2 * i, "%02x", d[i]);
}

/* Digests of the embedded sources, computed once per process. */
static char (*source_digests)[65];
static pthread_once_t digests_once = PTHREAD_ONCE_INIT;

static void digest_sources(void)
{
    source_digests = calloc(cr_nsources, sizeof *source_digests);
    for (size_t i = 0; source_digests && i < cr_nsources; i++)
        digest_text(cr_sources[i].text, source_digests[i]);
}

static const char *embedded_digest(const char *name)
{
    pthread_once(&digests_once, digest_sources);
    for (size_t i = 0; source_digests && i < cr_nsources; i++)
        if (strcmp(cr_sources[i].name, name) == 0)
            return source_digests[i];
    return NULL;
}

/* "toolkit-header PATH DIGEST" lines for the cooperative-groups programs, once per process. */
static char toolkit_lines[4096];
static pthread_once_t toolkit_once = PTHREAD_ONCE_INIT;

static void digest_toolkit(void)
{
    static const char *const headers[] = {"cooperative_groups.h", "cooperative_groups/reduce.h"};
    const char *inc = cr_toolkit_include_dir();
    size_t len = 0;
    for (size_t i = 0; inc && i < sizeof headers / sizeof *headers; i++) {
        char path[1200], hex[65];
        snprintf(path, sizeof path, "%s/%s", inc, headers[i]);
        digest_file(path, hex);
        len += (size_t)snprintf(toolkit_lines + len, sizeof toolkit_lines - len, "toolkit-header %s %s\n",
                                path, hex);
    }
}

static const char *toolkit_digests(void)
{
    pthread_once(&toolkit_once, digest_toolkit);
    return toolkit_lines;
}

/*
 * The full text that identifies a compilation, under whose SHA-256 a disk
 * entry is stored: schema, library and NVRTC versions, target and output
 * kind, the exact option list, the kernels, and digests of the source, of
 * every embedded header and of the toolkit headers the program includes.
 * NULL when it cannot be built (then the disk cache is skipped).
 */
static char *full_key(const struct cr_unit *p, int arch, int ptx)
{
    const struct cr_nvrtc_facts *nv;
    struct cr_options o;
    if (cr_nvrtc_facts(&nv) != CURED_SUCCESS || cr_jit_options(p, arch, ptx, &o) != CURED_SUCCESS)
        return NULL;
    char *k = NULL, hex[65];
    size_t len = 0, cap = 0;
    append(&k, &len, &cap, "cured kernel cache key 1\nlibrary %s\nnvrtc %d.%d\noutput %s %s_%d\n",
           PACKAGE_VERSION, nv->major, nv->minor, ptx ? "ptx" : "cubin", ptx ? "compute" : "sm", arch);
    for (int i = 0; i < o.argc; i++)
        append(&k, &len, &cap, "option %s\n", o.argv[i]);
    for (int i = 0; i < p->nkernels; i++)
        append(&k, &len, &cap, "kernel %s\n", p->kernels[i]);
    if (p->source != NULL) {
        digest_text(p->source, hex);
        append(&k, &len, &cap, "source kernels-src/%s %s\n", p->file, hex);
    } else {
        const char *d = embedded_digest(p->file);
        if (d == NULL) {
            free(k);
            return NULL;
        }
        append(&k, &len, &cap, "source kernels-src/%s %s\n", p->file, d);
    }
    for (size_t i = 0; i < cr_nsources; i++)
        append(&k, &len, &cap, "header %s %s\n", cr_sources[i].name, embedded_digest(cr_sources[i].name));
    if (p->needs_toolkit)
        append(&k, &len, &cap, "%s", toolkit_digests());
    return k;
}

/* Produce the image for a new entry: from disk, else by compiling (then stored). */
static cured_status cache_fill(const struct cr_unit *p, int arch, int ptx, struct cr_image *img,
                               double *seconds, int *disk_hit)
{
    double t0 = now();
    char *key = full_key(p, arch, ptx);
    *disk_hit = 0;
    if (key != NULL && cr_diskcache_load(key, p->nkernels, ptx, img)) {
        img->from_disk = 1;
        *disk_hit = 1;
        *seconds = now() - t0;
        free(key);
        return CURED_SUCCESS;
    }
    cured_status st = cr_jit_compile(p, arch, ptx, img);
    *seconds = now() - t0;
    /* Compiling loaded NVRTC: the key now names its real version. */
    free(key);
    key = st == CURED_SUCCESS ? full_key(p, arch, ptx) : NULL;
    cr_log(CURED_LOG_DEBUG, "compiled kernels-src/%s %s for %s_%d in %.0f ms: %s", p->file,
           p->kernels[0], ptx ? "compute" : "sm", arch, *seconds * 1e3, cured_status_string(st));
    if (st == CURED_SUCCESS && key != NULL)
        cr_diskcache_store(key, img, p->nkernels);
    free(key);
    return st;
}

cured_status cr_kcache_get(const struct cr_unit *p, int arch, int ptx, const struct cr_image **out)
{
    char key[sizeof((struct entry *)0)->key];
    make_key(key, sizeof key, p, arch, ptx);

    pthread_mutex_lock(&lock);
    struct entry *e;
    for (;;) {
        e = entries;
        while (e && strcmp(e->key, key) != 0)
            e = e->next;
        if (e == NULL)
            break;
        e->waiters++;
        while (e->state == PENDING) {
            blocked++;
            pthread_cond_wait(&done, &lock);
            blocked--;
        }
        e->waiters--;
        if (e->state == READY && e->linked) {
            stats.memory_hits++;
            e->refs++;
            *out = &e->img;
            pthread_mutex_unlock(&lock);
            return CURED_SUCCESS;
        }
        if (e->state == FAILED) {
            cured_status st = cr_fail(e->status, "%s", e->message ? e->message : "compilation failed");
            settle(e);
            pthread_mutex_unlock(&lock);
            return st;
        }
        /* Rejected by the driver while this thread waited: look again. */
        settle(e);
    }
    e = calloc(1, sizeof *e);
    if (e == NULL) {
        pthread_mutex_unlock(&lock);
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory for a cache entry");
    }
    live++;
    memcpy(e->key, key, sizeof key);
    e->state = PENDING;
    e->linked = 1;
    e->transient = p->source != NULL;
    e->refs = 1; /* this thread's, kept on success */
    e->next = entries;
    entries = e;
    pthread_mutex_unlock(&lock);

    double seconds = 0;
    int disk_hit = 0;
    cured_status st = cr_kcache_fill_hook ? cr_kcache_fill_hook(p, arch, ptx, &e->img)
                                          : cache_fill(p, arch, ptx, &e->img, &seconds, &disk_hit);
    if (st == CURED_SUCCESS && (e->img.data == NULL || e->img.size == 0)) {
        cr_image_free(&e->img);
        st = cr_fail(CURED_ERROR_INTERNAL, "kernels-src/%s: an empty image for %s_%d", p->file,
                     ptx ? "compute" : "sm", arch);
    }

    pthread_mutex_lock(&lock);
    if (disk_hit)
        stats.disk_hits++;
    else
        stats.compile_seconds += seconds;
    if (st == CURED_SUCCESS) {
        stats.compiles += !disk_hit;
        e->state = READY;
        *out = &e->img;
    } else {
        stats.compile_failures++;
        e->state = FAILED;
        e->status = st;
        e->message = strdup(cured_last_error());
        unlink_entry(e);
        e->refs--;
        settle(e);
    }
    pthread_cond_broadcast(&done);
    pthread_mutex_unlock(&lock);
    return st;
}

void cr_kcache_reject(const struct cr_unit *p, int arch, int ptx, const struct cr_image *img)
{
    pthread_mutex_lock(&lock);
    for (struct entry *e = entries; e; e = e->next)
        if (&e->img == img) {
            /* Holders keep the image until they put it; waiters and later gets look the key up again. */
            unlink_entry(e);
            break;
        }
    pthread_mutex_unlock(&lock);
    char *full = img->from_disk ? full_key(p, arch, ptx) : NULL;
    if (full != NULL) {
        cr_log(CURED_LOG_WARN, "disk cache: the driver rejected a cached kernel; recompiling");
        cr_diskcache_drop(full, img, p->nkernels);
        free(full);
    }
}

void cr_kcache_put(const struct cr_image *img)
{
    if (img == NULL)
        return;
    struct entry *e = (struct entry *)(void *)((char *)(uintptr_t)img - offsetof(struct entry, img));
    pthread_mutex_lock(&lock);
    e->refs--;
    settle(e);
    pthread_mutex_unlock(&lock);
}

size_t cr_kcache_entries(void)
{
    pthread_mutex_lock(&lock);
    size_t n = live;
    pthread_mutex_unlock(&lock);
    return n;
}

size_t cr_kcache_blocked(void)
{
    pthread_mutex_lock(&lock);
    size_t n = blocked;
    pthread_mutex_unlock(&lock);
    return n;
}

void cr_kcache_stats(cured_stats *s)
{
    pthread_mutex_lock(&lock);
    *s = stats;
    pthread_mutex_unlock(&lock);
}

CR_API cured_status cured_get_stats(cured_stats *s)
{
    if (s == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_get_stats: stats is NULL");
    cr_kcache_stats(s);
    return CURED_SUCCESS;
}
