/*
 * `cured bench allreduce`: what cured_comm_reduce_async costs over the local
 * reduction, beside NCCL's own 8-byte allreduce on the same communicator,
 * and the 4 GiB int32 sum split over the ranks (here, one process and a
 * 1-rank communicator on one GPU: the split is the whole array, so the
 * figure is the single-GPU time plus the overhead). Each cell: the median
 * of K calls, each between its own pair of events.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchkit.h"
#include "tool.h"

#define PROG "cured bench allreduce"
#define BIG ((size_t)1 << 30) /* int32: 4 GiB */

static const char usage_text[] =
    "usage: cured bench allreduce [--iters K] [--device D]\n"
    "The cost of cured_comm_reduce_async (local state, one ncclAllGather, the\n"
    "combine kernel) over cured_reduce_async of the same shard, for int32 SUM and\n"
    "float32 ARGMAX at 1 Ki, 1 Mi and 64 Mi elements (and float32 DOT, x . x,\n"
    "and VAR with ddof 1 at 1 Mi: cured_comm_dot_async, cured_comm_reduce_stats_async\n"
    "against cured_dot_async, cured_reduce_stats_async), beside NCCL's 8-byte\n"
    "ncclAllReduce on the same communicator; then the 4 GiB int32 sum through the\n"
    "communicator. One process, a 1-rank communicator on device D (ncclCommInitAll):\n"
    "the multi-GPU split needs several GPUs. Each cell: the median of K calls, each\n"
    "between its own pair of events.\n"
    "  --iters K     timed calls per cell (default 200)\n"
    "  --device D    CUDA device ordinal (default 0)\n"
    "Exit status: 0 if every cell ran and the communicator's results equal the\n"
    "local ones; 1 otherwise, without a GPU or without NCCL (libnccl.so.2).\n";

struct call {
    struct bk_gpu *g;
    cured_comm cc;
    struct ncclComm *nccl;
    int (*allreduce)(const void *, void *, size_t, int, int, struct ncclComm *, CUstream);
    int kind; /* 0 local, 1 communicator, 2 NCCL's 8 bytes */
    cured_op op;
    cured_type in, out;
    const void *x;
    size_t n;
    void *dst;
};

static int issue(struct call *c)
{
    switch (c->kind) {
    case 0: /* DOT: x . x; VAR: ddof 1 */
        if (c->op == CURED_OP_DOT)
            return cured_dot_async(c->g->h, c->x, c->x, c->in, c->n, c->dst, c->out, c->g->stream);
        if (c->op == CURED_OP_VAR)
            return cured_reduce_stats_async(c->g->h, c->op, c->x, c->in, c->n, 1.0, c->dst, c->out, c->g->stream);
        return cured_reduce_async(c->g->h, c->op, CURED_ALGO_AUTO, c->x, c->in, c->n, c->dst, c->out, c->g->stream);
    case 1:
        if (c->op == CURED_OP_DOT)
            return cured_comm_dot_async(c->cc, c->x, c->x, c->in, c->n, c->dst, c->out, 0, c->g->stream);
        if (c->op == CURED_OP_VAR)
            return cured_comm_reduce_stats_async(c->cc, c->op, c->x, c->in, c->n, 1.0, c->dst, c->out, 0,
                                                 c->g->stream);
        return cured_comm_reduce_async(c->cc, c->op, c->x, c->in, c->n, c->dst, c->out, 0, c->g->stream);
    default:
        return c->allreduce(c->x, c->dst, 1, 4 /* ncclInt64 */, 0 /* ncclSum */, c->nccl, c->g->stream) ? -1 : 0;
    }
}

/* Median microseconds of iters calls; -1 on failure. */
static double timed(struct call *c, int iters)
{
    struct bk_gpu *g = c->g;
    double *t = calloc((size_t)iters, sizeof *t);
    int ok = t != NULL && issue(c) == 0 && g->d->StreamSynchronize(g->stream) == CUDA_SUCCESS;
    for (int i = 0; ok && i < iters; i++) {
        float ms = 0;
        ok = g->d->EventRecord(g->ev[0], g->stream) == CUDA_SUCCESS && issue(c) == 0 &&
             g->d->EventRecord(g->ev[1], g->stream) == CUDA_SUCCESS &&
             g->d->EventSynchronize(g->ev[1]) == CUDA_SUCCESS &&
             g->d->EventElapsedTime(&ms, g->ev[0], g->ev[1]) == CUDA_SUCCESS;
        t[i] = ms * 1e3;
    }
    double med = -1;
    if (ok) {
        qsort(t, (size_t)iters, sizeof *t, cmp_double);
        med = t[iters / 2];
    } else {
        fprintf(stderr, "%s: a call failed: %s\n", PROG, cured_last_error());
    }
    free(t);
    return med;
}

int cmd_bench_allreduce(int argc, char **argv)
{
    struct count_option counts[] = {{"--iters", 1, 100000, 200}, {"--device", 0, 1024, 0}};
    int parsed = parse_options(argc, argv, PROG, usage_text, counts, 2, NULL, 0);
    if (parsed != 0)
        return parsed == 1 ? 0 : 2;
    const int iters = (int)counts[0].value, device = (int)counts[1].value;
    struct bk_gpu gpu;
    if (bk_open(&gpu, PROG, device) != 0) {
        bk_close(&gpu);
        return 1;
    }
    int rc = 1;
    struct call c = {&gpu, NULL, NULL, NULL, 0, CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, NULL, 0, NULL};
    int (*init_all)(struct ncclComm **, int, const int *) = NULL, (*get_version)(int *) = NULL;
    int (*destroy)(struct ncclComm *) = NULL;
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    CUdeviceptr x = 0, out = 0;
    int version = 0;
    if (lib == NULL || !(*(void **)&init_all = dlsym(lib, "ncclCommInitAll")) ||
        !(*(void **)&c.allreduce = dlsym(lib, "ncclAllReduce")) ||
        !(*(void **)&destroy = dlsym(lib, "ncclCommDestroy")) ||
        !(*(void **)&get_version = dlsym(lib, "ncclGetVersion"))) {
        fprintf(stderr, "%s: cannot use NCCL: %s\n", PROG, dlerror());
        goto out;
    }
    get_version(&version);
    if (init_all(&c.nccl, 1, &device) != 0 || cured_comm_create(gpu.h, c.nccl, 0, &c.cc) != CURED_SUCCESS) {
        fprintf(stderr, "%s: a 1-rank communicator on device %d: %s\n", PROG, device, cured_last_error());
        goto out;
    }
    if (gpu.d->MemAlloc(&x, BIG * 4) != CUDA_SUCCESS || gpu.d->MemAlloc(&out, 256) != CUDA_SUCCESS ||
        gpu.d->MemsetD32Async(x, 1, BIG, gpu.stream) != CUDA_SUCCESS ||
        gpu.d->StreamSynchronize(gpu.stream) != CUDA_SUCCESS) { /* int32 ones; as float32 a tiny denormal */
        fprintf(stderr, "%s: cannot allocate 4 GiB on device %d\n", PROG, device);
        goto out;
    }
    printf("%s: a 1-rank NCCL %d communicator, one process\n", PROG, version);
    bk_print_header(&gpu);
    c.x = (const void *)(uintptr_t)x;
    c.kind = 2;
    c.dst = (void *)(uintptr_t)out;
    const double nccl8 = timed(&c, iters);
    printf("NCCL 8-byte ncclAllReduce (int64 sum): %.2f us (median of %d)\n\n", nccl8, iters);
    printf("%-15s %10s %10s %10s %10s %11s  %s\n", "cell", "n", "local us", "comm us", "overhead", "budget", "same");
    static const struct { cured_op op; cured_type in, out; size_t n; } cells[] = {
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, 1024},
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, (size_t)1 << 20},
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, (size_t)1 << 26},
        {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1024},
        {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, (size_t)1 << 20},
        {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, (size_t)1 << 26},
        {CURED_OP_DOT, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, (size_t)1 << 20},
        {CURED_OP_VAR, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, (size_t)1 << 20},
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, BIG},
    };
    int all_ok = nccl8 > 0;
    for (size_t k = 0; k < sizeof cells / sizeof *cells; k++) {
        unsigned char a[16], b[16];
        c.op = cells[k].op, c.in = cells[k].in, c.out = cells[k].out, c.n = cells[k].n;
        if (gpu.d->MemsetD8(out, 0, 256) != CUDA_SUCCESS) /* the bytes past a result compare too */
            all_ok = 0;
        c.kind = 0, c.dst = (void *)(uintptr_t)out;
        const double local = timed(&c, cells[k].n == BIG ? 20 : iters);
        c.kind = 1, c.dst = (void *)(uintptr_t)(out + 64);
        const double comm = timed(&c, cells[k].n == BIG ? 20 : iters);
        int same = gpu.d->MemcpyDtoH(a, out, 16) == CUDA_SUCCESS && gpu.d->MemcpyDtoH(b, out + 64, 16) == CUDA_SUCCESS &&
                   memcmp(a, b, 16) == 0;
        all_ok &= local > 0 && comm > 0 && same;
        printf("%-6s %-8s %10zu %10.2f %10.2f %10.2f %11.2f  %s\n", cured_op_name(c.op), cured_type_name(c.in), c.n,
               local, comm, comm - local, nccl8 + 5.0, same ? "yes" : "NO");
    }
    printf("\noverhead = comm - local; budget (issue 16) = NCCL's 8-byte allreduce + 5 us. The last row\n"
           "is the 4 GiB int32 split-sum with k = 1 (the single-GPU time plus the overhead).\n");
    rc = all_ok ? 0 : 1;
out:
    cured_comm_destroy(c.cc);
    if (c.nccl && destroy)
        destroy(c.nccl);
    if (x)
        gpu.d->MemFree(x);
    if (out)
        gpu.d->MemFree(out);
    bk_close(&gpu);
    return rc;
}
