/*
 * cured-soak's setup, threads and report (the requests: soak.c). Exit 0
 * when there was no mismatch, no mishandled bad input, no unexpected error
 * and the context is alive; 1 otherwise; 2 for usage; 77 without a GPU.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "soak.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: cured-soak [--minutes M] [--threads T] [--seed S]\n"
    "Random reductions on device 0 for M minutes (default 5) from T threads (default 8), two streams\n"
    "each, checked against host references. Exit 0 on no mismatch and a live context.\n";

#define FAIL_IF(cond, ...)                                                                                    \
    do {                                                                                                      \
        if (cond) {                                                                                           \
            fprintf(stderr, "cured-soak: " __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                                            \
            return 1;                                                                                         \
        }                                                                                                     \
    } while (0)

/* Open device 0, fill the data, create the shared handle and the user ops. 0, 77 (no GPU) or 1. */
static int setup(struct soak *s)
{
    const char *why = NULL;
    int count = 0;
    s->d = cr_driver_all_load(&why, NULL);
    if (s->d == NULL || s->d->DeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        printf("cured-soak: needs a CUDA GPU: %s\n", s->d == NULL ? why : "the driver reports no device");
        return 77;
    }
    CUresult e;
    FAIL_IF((e = s->d->DeviceGet(&s->dev, 0)) != CUDA_SUCCESS || (e = s->d->DevicePrimaryCtxRetain(&s->ctx, s->dev)) ||
                (e = s->d->CtxPushCurrent(s->ctx)),
            "device 0: %s", cr_driver_error_text(e));
    const size_t total = FAM_COUNT * SOAK_REGION;
    s->host = malloc(total);
    FAIL_IF(s->host == NULL, "out of host memory");
    for (int f = 0; f < FAM_COUNT; f++)
        soak_fill((enum soak_family)f, s->host + (size_t)f * SOAK_REGION, SOAK_REGION, s->seed + (uint64_t)f);
    FAIL_IF((e = s->d->MemAlloc(&s->base, total)) != CUDA_SUCCESS || (e = s->d->MemcpyHtoD(s->base, s->host, total)),
            "device memory: %s", cr_driver_error_text(e));
    cured_status st = cured_create(0, &s->h);
    FAIL_IF(st != CURED_SUCCESS, "cured_create: %s: %s", cured_status_string(st), cured_last_error());
    for (int u = 0; u < USER_COUNT; u++) {
        const struct soak_user_op *o = &soak_user_ops[u];
        st = cured_custom_create(s->h, o->in, o->acc, o->ninputs, o->map, o->combine, o->identity, &s->user[u]);
        FAIL_IF(st != CURED_SUCCESS, "%s: %s: %s", o->name, cured_status_string(st), cured_last_error());
    }
    return 0;
}

/* A worker's handle, streams and slots; a first plain call on each (stream, handle) so that
 * captures never need a new workspace. */
static int setup_worker(struct soak *s, struct worker *w, int id)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->id = id;
    w->rng = s->seed * 0x9e3779b97f4a7c15ull + (uint64_t)id + 1;
    cured_status st = cured_create(0, &w->own);
    FAIL_IF(st != CURED_SUCCESS, "cured_create: %s", cured_last_error());
    CUresult e = s->d->MemAlloc(&w->slot, 128);
    for (int i = 0; i < 2 && e == CUDA_SUCCESS; i++)
        e = s->d->StreamCreate(&w->stream[i], CU_STREAM_NON_BLOCKING);
    FAIL_IF(e != CUDA_SUCCESS, "worker %d: %s", id, cr_driver_error_text(e));
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            unsigned char got[16];
            st = soak_call(w, -1, CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, (const void *)(uintptr_t)s->base,
                      NULL, 16, 1, i, k ? s->h : w->own, got);
            FAIL_IF(st != CURED_SUCCESS, "worker %d: first call: %s: %s", id, cured_status_string(st),
                    cured_last_error());
        }
    return 0;
}

int main(int argc, char **argv)
{
    struct soak s;
    memset(&s, 0, sizeof s);
    double minutes = 5;
    int threads = 8;
    s.seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--minutes") == 0 && i + 1 < argc)
            minutes = atof(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            s.seed = strtoull(argv[++i], NULL, 0);
        else {
            fputs(usage, strcmp(argv[i], "--help") == 0 ? stdout : stderr);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (minutes <= 0 || threads < 1 || threads > 64) {
        fputs(usage, stderr);
        return 2;
    }
    pthread_mutex_init(&s.print, NULL);
    int rc = setup(&s);
    if (rc != 0)
        return rc;
    struct worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    FAIL_IF(w == NULL || tid == NULL, "out of host memory");
    for (int i = 0; i < threads; i++)
        if ((rc = setup_worker(&s, &w[i], i)) != 0)
            return rc;
    int sm = 0, ptx = 0;
    cured_get_arch(s.h, &sm, &ptx);
    printf("cured-soak: %.1f min, %d threads x 2 streams, %s_%d, seed %llu\n", minutes, threads,
           ptx ? "compute" : "sm", sm, (unsigned long long)s.seed);
    fflush(stdout);
    double t0 = soak_now();
    s.deadline = t0 + minutes * 60;
    for (int i = 0; i < threads; i++)
        FAIL_IF(pthread_create(&tid[i], NULL, soak_work, &w[i]) != 0, "pthread_create failed");
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);

    /* The context survived: everything synchronises, and one more sum is right. */
    unsigned char want[16], got[16];
    size_t compare = 0;
    soak_ref(-1, CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, s.host, NULL, 4096, want, &compare);
    CUresult e = s.d->CtxSynchronize();
    cured_status st = cured_reduce(s.h, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)(uintptr_t)s.base,
                                   CURED_TYPE_INT32, 4096, got, CURED_TYPE_INT64, NULL);
    int alive = e == CUDA_SUCCESS && st == CURED_SUCCESS && memcmp(got, want, compare) == 0;
    for (int i = 0; i < threads; i++) {
        for (int k = 0; k < 2; k++)
            s.d->StreamDestroy(w[i].stream[k]);
        s.d->MemFree(w[i].slot);
        cured_destroy(w[i].own);
    }
    for (int u = 0; u < USER_COUNT; u++)
        cured_custom_destroy(s.user[u]);
    alive = alive && cured_destroy(s.h) == CURED_SUCCESS && s.d->MemFree(s.base) == CUDA_SUCCESS;

    unsigned long long served = s.served, bad = s.mismatches, refused = s.refused, mishandled = s.mishandled,
                       errors = s.errors;
    printf("  requests served:     %llu in %.1f min (%llu asynchronous, %llu captured in graphs, %llu of user ops, "
           "%llu user ops made and destroyed)\n",
           served, (soak_now() - t0) / 60, (unsigned long long)s.asyncs, (unsigned long long)s.captured,
           (unsigned long long)s.users, (unsigned long long)s.transient);
    printf("  mismatches:          %llu\n", bad);
    printf("  bad inputs refused:  %llu (mishandled: %llu)\n", refused, mishandled);
    printf("  unexpected errors:   %llu\n", errors);
    printf("  context alive:       %s\n", alive ? "yes" : "NO");
    int pass = bad == 0 && mishandled == 0 && errors == 0 && alive && served > 0;
    printf("cured-soak: %s\n", pass ? "PASS" : "FAIL");
    free(s.host);
    free(w);
    free(tid);
    return pass ? 0 : 1;
}
