/*
 * Process-wide in-memory cache of compiled kernel images, keyed by the full
 * text of what was compiled (file, kernels, target). Each key is compiled at
 * most once at a time: the first thread to miss compiles without holding the
 * lock, later threads wait on its entry. A failed compile is handed to the
 * threads waiting for it, then forgotten, so a later call tries again.
 *
 * The persistent disk cache plugs in at cache_fill(): look up before
 * compiling, store after.
 */
#include "internal.h"
#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PENDING, READY, FAILED };

struct entry {
    struct entry *next;
    char key[512];
    int state;
    int waiters;          /* threads blocked on a PENDING entry */
    int linked;           /* still in the list */
    cured_status status;  /* FAILED: the status and message to hand on */
    char *message;
    struct cr_image img;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static struct entry *entries;
static cured_stats stats;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void make_key(char *key, size_t cap, const struct cr_program *p, int arch, int ptx)
{
    char digest[65] = "embedded"; /* a program's own source is part of what was compiled */
    if (p->source != NULL)
        cr_sha256_hex(p->source, strlen(p->source), digest);
    int len = snprintf(key, cap, "kernels-src/%s|%s|%s_%d", p->file, digest, ptx ? "compute" : "sm", arch);
    for (int k = 0; k < p->nkernels && len > 0 && (size_t)len < cap; k++)
        len += snprintf(key + len, cap - (size_t)len, "|%s", p->kernels[k]);
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

/* Produce the image for a new entry: the one place that compiles. */
static cured_status cache_fill(const struct cr_program *p, int arch, int ptx, struct cr_image *img,
                               double *seconds)
{
    double t0 = now();
    cured_status st = cr_jit_compile(p, arch, ptx, img);
    *seconds = now() - t0;
    return st;
}

cured_status cr_kcache_get(const struct cr_program *p, int arch, int ptx, const struct cr_image **out)
{
    char key[sizeof((struct entry *)0)->key];
    make_key(key, sizeof key, p, arch, ptx);

    pthread_mutex_lock(&lock);
    struct entry *e = entries;
    while (e && strcmp(e->key, key) != 0)
        e = e->next;
    if (e != NULL) {
        e->waiters++;
        while (e->state == PENDING)
            pthread_cond_wait(&done, &lock);
        e->waiters--;
        cured_status st = CURED_SUCCESS;
        if (e->state == READY) {
            stats.memory_hits++;
            *out = &e->img;
        } else {
            st = cr_fail(e->status, "%s", e->message ? e->message : "compilation failed");
            if (e->waiters == 0 && !e->linked) {
                free(e->message);
                free(e);
            }
        }
        pthread_mutex_unlock(&lock);
        return st;
    }
    e = calloc(1, sizeof *e);
    if (e == NULL) {
        pthread_mutex_unlock(&lock);
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory for a cache entry");
    }
    memcpy(e->key, key, sizeof key);
    e->state = PENDING;
    e->linked = 1;
    e->next = entries;
    entries = e;
    pthread_mutex_unlock(&lock);

    double seconds = 0;
    cured_status st = cache_fill(p, arch, ptx, &e->img, &seconds);

    pthread_mutex_lock(&lock);
    stats.compile_seconds += seconds;
    if (st == CURED_SUCCESS) {
        stats.compiles++;
        e->state = READY;
        *out = &e->img;
    } else {
        stats.compile_failures++;
        e->state = FAILED;
        e->status = st;
        e->message = strdup(cured_last_error());
        unlink_entry(e);
        if (e->waiters == 0) {
            free(e->message);
            free(e);
        }
    }
    pthread_cond_broadcast(&done);
    pthread_mutex_unlock(&lock);
    return st;
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

CR_API cured_status cured_compile_kernel(size_t index, int sm, int ptx, size_t *bytes)
{
    const struct cr_program *p = cr_spec(index);
    if (p == NULL)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "kernel index %zu is out of range (there are %zu)",
                       index, cr_spec_count());
    const struct cr_image *img;
    cured_status st = cr_kcache_get(p, sm, ptx != 0, &img);
    if (st == CURED_SUCCESS && bytes != NULL)
        *bytes = img->size;
    return st;
}
