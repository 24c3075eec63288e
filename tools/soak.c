/*
 * cured-soak: for a fixed time, many threads and streams issue random
 * requests — operator, type, size, offset, synchronous, asynchronous or
 * captured into a CUDA graph, built-in or user-defined op, shared or own
 * handle — with bad input mixed in, and every result is compared with a
 * host reference (tools/soak_ref.c). Reports requests served, mismatches,
 * bad inputs refused as they should be, and whether the context survived.
 * This file: the requests; soak_main.c: setup and the report. Not
 * installed; run by .ci/gpu's "soak" step.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "soak.h"
#include "oracle.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double soak_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void report(struct worker *w, atomic_ullong *counter, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(struct worker *w, atomic_ullong *counter, const char *fmt, ...)
{
    unsigned long long n = atomic_fetch_add(counter, 1);
    if (n >= 20)
        return; /* the first 20 of each kind are enough to debug */
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&w->s->print);
    fprintf(stderr, "soak: thread %d: ", w->id);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (seed %llu)\n", (unsigned long long)w->s->seed);
    pthread_mutex_unlock(&w->s->print);
    va_end(ap);
}

static size_t below(struct worker *w, size_t n)
{
    return n ? (size_t)(soak_rand(&w->rng) % n) : 0;
}

/* The operators the soak draws: results its data make exact (soak.h), checked against the
 * tests' oracle (soak_ref.c). */
static const cured_op ops[] = {CURED_OP_SUM,    CURED_OP_SUM_ABS, CURED_OP_MIN,    CURED_OP_MAX,
                               CURED_OP_MINMAX, CURED_OP_ARGMIN,  CURED_OP_ARGMAX, CURED_OP_AND,
                               CURED_OP_OR,     CURED_OP_XOR,     CURED_OP_NANMIN, CURED_OP_NANMAX,
                               CURED_OP_DOT};

cured_status soak_call(struct worker *w, int user, cured_op op, cured_type in, cured_type out, const void *x,
                         const void *y, size_t n, int mode, int stream, cured_handle h, unsigned char got[16])
{
    const struct cr_driver_all *d = w->s->d;
    CUstream st = w->stream[stream];
    CUdeviceptr slot = w->slot + 64 * (CUdeviceptr)stream;
    void *dst = mode == 0 ? (void *)got : (void *)(uintptr_t)slot;
    cured_custom u = user >= 0 ? w->s->user[user] : NULL;
    cured_status r;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    if (mode && d->MemsetD8Async(slot, 0xa5, 16, st) != CUDA_SUCCESS)
        return CURED_ERROR_CUDA;
    if (mode == 2 && d->StreamBeginCapture(st, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) != CUDA_SUCCESS)
        return CURED_ERROR_CUDA;
    if (u != NULL)
        r = mode ? cured_custom_reduce_async(h, u, x, y, n, dst, st) : cured_custom_reduce(h, u, x, y, n, dst, st);
    else if (op == CURED_OP_DOT)
        r = mode ? cured_dot_async(h, x, y, in, n, dst, out, st) : cured_dot(h, x, y, in, n, dst, out, st);
    else
        r = mode ? cured_reduce_async(h, op, CURED_ALGO_AUTO, x, in, n, dst, out, st)
                 : cured_reduce(h, op, CURED_ALGO_AUTO, x, in, n, dst, out, st);
    if (mode == 2) {
        CUresult e = d->StreamEndCapture(st, &graph);
        if (r == CURED_SUCCESS && e == CUDA_SUCCESS && (e = d->GraphInstantiate(&exec, graph, 0)) == CUDA_SUCCESS)
            e = d->GraphLaunch(exec, st);
        if (exec)
            d->GraphExecDestroy(exec);
        if (graph)
            d->GraphDestroy(graph);
        if (r == CURED_SUCCESS && e != CUDA_SUCCESS)
            return CURED_ERROR_CUDA;
    }
    if (mode && (d->MemcpyDtoHAsync(got, slot, 16, st) != CUDA_SUCCESS || d->StreamSynchronize(st) != CUDA_SUCCESS))
        return CURED_ERROR_CUDA;
    return r;
}

/* A valid random request, checked against its reference. */
static void good_request(struct worker *w)
{
    struct soak *s = w->s;
    int user = below(w, 10) == 0 ? (int)below(w, USER_COUNT) : -1;
    cured_op op = ops[below(w, sizeof ops / sizeof *ops)];
    cured_type in = user >= 0 ? soak_user_ops[user].in : (cured_type)below(w, CURED_TYPE_COUNT), out;
    if (user >= 0)
        out = soak_user_ops[user].acc;
    else if (cured_default_result(op, in, &out) != CURED_SUCCESS)
        return; /* not offered: draw again */
    if (op == CURED_OP_DOT && in == CURED_TYPE_FLOAT32)
        out = CURED_TYPE_FLOAT64;
    const size_t esize = cured_type_size(in), cap = SOAK_REGION / esize;
    size_t n = below(w, 8) == 0 ? below(w, 40) : below(w, (size_t)1 << below(w, 23));
    /* The extremes are soaked over at least one element (the oracle's kinds, tests/oracle.h). */
    const int needs_input = ref_op(op)->kind == REF_EXTREME || ref_op(op)->kind == REF_ARG;
    if (n == 0 && needs_input && user < 0)
        n = 1;
    size_t fam = (size_t)soak_family(in) * SOAK_REGION;
    size_t xo = below(w, cap - n + 1), yo = below(w, cap - n + 1);
    const unsigned char *hx = s->host + fam + xo * esize, *hy = s->host + fam + yo * esize;
    const int two = user >= 0 ? soak_user_ops[user].ninputs == 2 : op == CURED_OP_DOT;
    unsigned char want[16], got[16];
    size_t compare = 0;
    if (soak_ref(user, op, in, out, hx, two ? hy : NULL, n, want, &compare) != 0)
        return;
    const void *x = (const void *)(uintptr_t)(s->base + fam + xo * esize);
    const void *y = two ? (const void *)(uintptr_t)(s->base + fam + yo * esize) : NULL;
    int mode = (int)below(w, 10);
    mode = mode < 3 ? 0 : mode < 8 ? 1 : 2;
    int stream = (int)below(w, 2), which = (int)below(w, 2);
    cured_handle h = which ? w->own : s->h;
    unsigned char *warm = &w->warm[which][user >= 0 ? CURED_OP_COUNT * CURED_TYPE_COUNT + user
                                                     : (int)op * CURED_TYPE_COUNT + (int)in];
    if (mode == 2 && !*warm)
        mode = 1;
    *warm = 1;
    memset(got, 0xa5, sizeof got);
    cured_status r = soak_call(w, user, op, in, out, x, y, n, mode, stream, h, got);
    if (r != CURED_SUCCESS) {
        report(w, &s->errors, "%s %s %s->%s n=%zu mode %d: %s: %s", user >= 0 ? soak_user_ops[user].name : "built-in",
               cured_op_name(op), cured_type_name(in), cured_type_name(out), n, mode, cured_status_string(r),
               cured_last_error());
        return;
    }
    atomic_fetch_add(&s->served, 1);
    if (mode == 1)
        atomic_fetch_add(&s->asyncs, 1);
    if (mode == 2)
        atomic_fetch_add(&s->captured, 1);
    if (user >= 0)
        atomic_fetch_add(&s->users, 1);
    if (memcmp(got, want, compare) != 0)
        report(w, &s->mismatches, "MISMATCH %s %s %s->%s n=%zu x+%zu y+%zu mode %d: got %016llx %016llx, want %016llx %016llx",
               user >= 0 ? soak_user_ops[user].name : "built-in", cured_op_name(op), cured_type_name(in),
               cured_type_name(out), n, xo, yo, mode, *(unsigned long long *)got, *(unsigned long long *)(got + 8),
               *(unsigned long long *)want, *(unsigned long long *)(want + 8));
}

/* Bad input: the expected status, and nothing written. */
static void bad_request(struct worker *w)
{
    struct soak *s = w->s;
    const char *base = (const char *)(uintptr_t)s->base;
    const size_t total = FAM_COUNT * SOAK_REGION;
    unsigned char got[16];
    cured_status r, want;
    const char *what;
    int kind = (int)below(w, 9), mode = kind % 2;
    cured_op op = CURED_OP_SUM;
    cured_type in = CURED_TYPE_INT32, out = CURED_TYPE_INT64;
    const void *x = base + 4 * below(w, 1000), *y = NULL;
    size_t n = 1000;
    switch (kind) {
    case 0: x = NULL, want = CURED_ERROR_NULL_POINTER, what = "NULL input"; break;
    case 1: x = base + 2, want = CURED_ERROR_MISALIGNED, what = "misaligned input"; break;
    case 2: x = s->host, want = CURED_ERROR_NOT_DEVICE_POINTER, what = "host input"; break;
    case 3: x = base + total - 4096, n = (size_t)1 << 30, want = CURED_ERROR_OUT_OF_RANGE, what = "input past its end"; break;
    case 4: op = (cured_op)(CURED_OP_COUNT + 3), want = CURED_ERROR_INVALID_ENUM, what = "unknown operator"; break;
    case 5: op = CURED_OP_AND, in = CURED_TYPE_FLOAT32, out = CURED_TYPE_FLOAT32, want = CURED_ERROR_TYPE_MISMATCH,
            what = "AND of floats"; break;
    case 6: /* 128 MiB of int8: x fits in the buffer, y starts 64 bytes before its end */
        op = CURED_OP_DOT, in = CURED_TYPE_INT8, x = base, y = base + total - 64, n = (size_t)1 << 27;
        want = CURED_ERROR_OUT_OF_RANGE, what = "dot's y past its end";
        break;
    case 7: op = CURED_OP_ARGMAX, out = CURED_TYPE_INT32, n = 0, want = CURED_ERROR_EMPTY_INPUT,
            what = "ARGMAX of nothing"; break;
    default: {
        cured_custom u = NULL;
        r = cured_custom_create(s->h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x; system(\"id\")", "a+b", "0", &u);
        if (r != CURED_ERROR_INVALID_EXPRESSION || u != NULL)
            report(w, &s->mishandled, "a hostile expression: %s", cured_status_string(r));
        else
            atomic_fetch_add(&s->refused, 1);
        return;
    }
    }
    memset(got, 0xa5, sizeof got);
    r = soak_call(w, -1, op, in, out, x, y, n, mode, (int)below(w, 2), below(w, 2) ? s->h : w->own, got);
    int untouched = 1;
    for (int i = 0; i < 16; i++)
        untouched &= got[i] == 0xa5;
    if (r != want || !untouched)
        report(w, &s->mishandled, "%s (%s): got %s, want %s%s: %s", what, mode ? "async" : "sync",
               cured_status_string(r), cured_status_string(want), untouched ? "" : ", output written",
               cured_last_error());
    else
        atomic_fetch_add(&s->refused, 1);
}

/* A user op made, used once and destroyed (the memory cache must not grow with them). */
static void transient_op(struct worker *w)
{
    struct soak *s = w->s;
    long k = 1 + (long)below(w, 1000000);
    char map[64];
    snprintf(map, sizeof map, "(long long)x * %ld", k);
    cured_custom u = NULL;
    cured_status r = cured_custom_create(w->own, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, map, "a+b", "0", &u);
    size_t n = 1 + below(w, 1024), xo = below(w, SOAK_REGION / 4 - n);
    int64_t got = 0;
    if (r == CURED_SUCCESS)
        r = cured_custom_reduce(w->own, u, (const void *)(uintptr_t)(s->base + 4 * xo), NULL, n, &got,
                                w->stream[0]);
    cured_custom_destroy(u);
    if (r != CURED_SUCCESS) {
        report(w, &s->errors, "transient op %s: %s: %s", map, cured_status_string(r), cured_last_error());
        return;
    }
    uint64_t want = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t v;
        memcpy(&v, s->host + 4 * (xo + i), 4);
        want += (uint64_t)((int64_t)v * k);
    }
    atomic_fetch_add(&s->transient, 1);
    if ((uint64_t)got != want)
        report(w, &s->mismatches, "MISMATCH transient op %s n=%zu: got %lld, want %lld", map, n, (long long)got,
               (long long)want);
}

void *soak_work(void *arg)
{
    struct worker *w = arg;
    struct soak *s = w->s;
    if (s->d->CtxPushCurrent(s->ctx) != CUDA_SUCCESS) {
        report(w, &s->errors, "cuCtxPushCurrent failed");
        return NULL;
    }
    double next_transient = soak_now() + 2 + w->id;
    while (soak_now() < s->deadline) {
        size_t r = below(w, 100);
        if (r < 5)
            bad_request(w);
        else
            good_request(w);
        if (soak_now() > next_transient) {
            transient_op(w);
            next_transient = soak_now() + 5;
        }
    }
    return NULL;
}

