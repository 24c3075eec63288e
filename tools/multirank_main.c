/*
 * cured-multirank [--procs | --threads] [--ranks K] [--repeats R] [--n N]
 *                 [--seed S] [--timeout T]
 * cured_comm on K GPUs, rank r on device r: --procs forks K processes (the
 * parent never touches CUDA; rank 0 makes NCCL's unique id and sends it
 * through a pipe to each other rank), --threads makes the K communicators
 * with ncclCommInitAll and runs each rank in a thread of its own (its own
 * handle and stream). The checks: multirank_checks.c. Exit 0 when every
 * check held, 1 otherwise, 2 for usage, 77 without K GPUs or without NCCL.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "multirank.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct mr_nccl mr_nccl;

static const char usage[] =
    "usage: cured-multirank [--procs | --threads] [--ranks K] [--repeats R] [--n N] [--seed S] [--timeout T]\n"
    "cured_comm over K GPUs (default 2; rank r on device r), one process per rank (--procs, the default)\n"
    "or one thread per rank (--threads): every operator, type and result of cured_comm_reduce, DOT, the\n"
    "statistics with ddof 0 and 1, user-defined ops and axis-0 reductions over unequal shards (one empty\n"
    "from K = 3), each compared across ranks, with one GPU's reduction of the whole array and across R\n"
    "repeats (default 10). N: the whole array's length (default 1048576 + 12345). T: seconds before\n"
    "giving up (default 300). NCCL_NVLS_ENABLE defaults to 0 (NVLink multicast off). Exit 0 on PASS,\n"
    "1 on FAIL, 77 with fewer than K GPUs or without NCCL.\n";

struct options { int threads, ranks, repeats, timeout; int64_t n; uint64_t seed; };

static const char *nccl_path(void)
{
    const char *p = getenv("CURED_NCCL_LIBRARY");
    return p && *p ? p : "libnccl.so.2";
}

static int load_nccl(void)
{
    void *lib = dlopen(nccl_path(), RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL || !(*(void **)&mr_nccl.GetUniqueId = dlsym(lib, "ncclGetUniqueId")) ||
        !(*(void **)&mr_nccl.CommInitRank = dlsym(lib, "ncclCommInitRank")) ||
        !(*(void **)&mr_nccl.CommInitAll = dlsym(lib, "ncclCommInitAll")) ||
        !(*(void **)&mr_nccl.CommDestroy = dlsym(lib, "ncclCommDestroy")) ||
        !(*(void **)&mr_nccl.AllGather = dlsym(lib, "ncclAllGather")) ||
        !(*(void **)&mr_nccl.GetErrorString = dlsym(lib, "ncclGetErrorString")))
        return -1;
    return 0;
}

/* In a child, so that the parent stays free of CUDA for its forks: the device
 * count (at most 100), 101 without a driver, 102 without NCCL. */
static int probe(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int count = 0;
        const struct cr_driver_all *d = cr_driver_all_load(NULL, NULL);
        if (d == NULL || d->DeviceGetCount(&count) != CUDA_SUCCESS)
            _exit(101);
        _exit(load_nccl() != 0 ? 102 : count > 100 ? 100 : count);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 101;
    return WEXITSTATUS(status);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "cured-multirank: timed out (a rank is stuck in a collective?)\nFAIL\n";
    if (write(1, msg, sizeof msg - 1) < 0)
        _exit(1);
    _exit(1);
}

#define SETUP_OK(cond, ...)                         \
    do {                                            \
        if (!(cond)) {                              \
            printf("rank %d: ", r->rank);           \
            printf(__VA_ARGS__);                    \
            printf("\n");                           \
            return -1;                              \
        }                                           \
    } while (0)

/* The rank's context (current in the calling thread), stream, handle and buffers. */
static int rank_open(struct mr_rank *r, const struct options *o, size_t cap)
{
    const char *why = NULL;
    CUresult e = CUDA_SUCCESS;
    r->d = cr_driver_all_load(&why, NULL);
    SETUP_OK(r->d != NULL, "no driver: %s", why);
    const struct cr_driver_all *d = r->d;
    SETUP_OK((e = d->DeviceGet(&r->dev, r->rank)) == CUDA_SUCCESS &&
                 (e = d->DevicePrimaryCtxRetain(&r->ctx, r->dev)) == CUDA_SUCCESS &&
                 (e = d->CtxPushCurrent(r->ctx)) == CUDA_SUCCESS &&
                 (e = d->StreamCreate(&r->stream, CU_STREAM_NON_BLOCKING)) == CUDA_SUCCESS,
             "device %d: %s", r->rank, cr_driver_error_text(e));
    cured_status st = cured_create(r->rank, &r->h);
    SETUP_OK(st == CURED_SUCCESS, "cured_create: %s: %s", cured_status_string(st), cured_last_error());
    r->cap = cap, r->repeats = o->repeats, r->seed = o->seed;
    const size_t out = MR_OUT_BYTES, all = MR_OUT_BYTES * (size_t)r->nranks;
    SETUP_OK((e = d->MemAlloc(&r->shard, cap * 8)) == CUDA_SUCCESS && (e = d->MemAlloc(&r->shard2, cap * 8)) == 0 &&
                 (e = d->MemAlloc(&r->out, out)) == 0 && (e = d->MemAlloc(&r->ref, out)) == 0 &&
                 (e = d->MemAlloc(&r->send, out)) == 0 && (e = d->MemAlloc(&r->gather, all)) == 0 &&
                 (r->rank != 0 || ((e = d->MemAlloc(&r->whole, cap * 8)) == 0 &&
                                   (e = d->MemAlloc(&r->whole2, cap * 8)) == 0)),
             "device memory: %s", cr_driver_error_text(e));
    r->host = malloc(cap * 16);
    r->first = malloc(out), r->cur = malloc(out), r->want = malloc(out), r->all = malloc(all);
    SETUP_OK(r->host && r->first && r->cur && r->want && r->all, "out of host memory");
    return 0;
}

static int rank_run(struct mr_rank *r, const struct options *o)
{
    struct mr_shards flat, slab;
    mr_shards_make(&flat, r->nranks, o->n, 1);
    mr_shards_make(&slab, r->nranks, 2003, 300);
    cured_status st = cured_comm_create(r->h, r->comm, MR_MAX_OUTPUTS, &r->cc);
    int rank = -1, size = -1;
    if (st == CURED_SUCCESS)
        st = cured_comm_rank(r->cc, &rank, &size);
    SETUP_OK(st == CURED_SUCCESS && rank == r->rank && size == r->nranks, "cured_comm_create: %s: %s (rank %d of %d)",
             cured_status_string(st), cured_last_error(), rank, size);
    if (r->rank == 0) {
        printf("shards (elements):");
        for (int q = 0; q < r->nranks; q++)
            printf(" %lld", (long long)flat.len[q]);
        printf("; axis 0 of %lld x %lld in rows:", (long long)slab.rows, (long long)slab.cols);
        for (int q = 0; q < r->nranks; q++)
            printf(" %lld", (long long)slab.len[q]);
        printf("; ties at %lld, %lld (max), %lld, %lld (min)\n", (long long)flat.tie_max[0],
               (long long)flat.tie_max[1], (long long)flat.tie_min[0], (long long)flat.tie_min[1]);
    }
    if (mr_run_checks(r, &flat, &slab) != 0)
        return 1;
    return mr_report(r) ? 0 : 1;
}

static void rank_close(struct mr_rank *r)
{
    cured_comm_destroy(r->cc);
    if (r->comm)
        mr_nccl.CommDestroy(r->comm);
    cured_destroy(r->h);
    free(r->host), free(r->first), free(r->cur), free(r->want), free(r->all);
}

static int child(int rank, const struct options *o, size_t cap, int (*pipes)[2])
{
    struct mr_rank r = {.rank = rank, .nranks = o->ranks};
    for (int q = 1; q < o->ranks; q++) /* keep only what this rank reads or writes */
        if (rank == 0)
            close(pipes[q][0]);
        else {
            if (q != rank)
                close(pipes[q][0]);
            close(pipes[q][1]);
        }
    if (load_nccl() != 0 || rank_open(&r, o, cap) != 0)
        return 1;
    mr_nccl_id id;
    int e = 0;
    if (rank == 0) {
        if ((e = mr_nccl.GetUniqueId(&id)) != 0) {
            printf("ncclGetUniqueId: %s\n", mr_nccl.GetErrorString(e));
            return 1;
        }
        for (int q = 1; q < o->ranks; q++)
            if (write(pipes[q][1], &id, sizeof id) != (ssize_t)sizeof id || close(pipes[q][1]) != 0) {
                perror("cured-multirank: the id's pipe");
                return 1;
            }
    } else {
        size_t got = 0;
        ssize_t k = 1;
        while (got < sizeof id && (k = read(pipes[rank][0], (char *)&id + got, sizeof id - got)) > 0)
            got += (size_t)k;
        if (got != sizeof id) {
            printf("rank %d: no unique id from rank 0\n", rank);
            return 1;
        }
    }
    if ((e = mr_nccl.CommInitRank(&r.comm, o->ranks, id, rank)) != 0) {
        printf("rank %d: ncclCommInitRank: %s\n", rank, mr_nccl.GetErrorString(e));
        return 1;
    }
    const int rc = rank_run(&r, o);
    rank_close(&r);
    return rc;
}

static int run_procs(const struct options *o, size_t cap)
{
    int pipes[64][2];
    pid_t pids[64];
    for (int q = 1; q < o->ranks; q++)
        if (pipe(pipes[q]) != 0) {
            perror("pipe");
            return 1;
        }
    fflush(NULL);
    for (int q = 0; q < o->ranks; q++)
        if ((pids[q] = fork()) == 0) {
            alarm((unsigned)o->timeout);
            _exit(child(q, o, cap, pipes));
        }
    for (int q = 1; q < o->ranks; q++)
        close(pipes[q][0]), close(pipes[q][1]);
    int rc = 0;
    for (int q = 0; q < o->ranks; q++) {
        int status = 0;
        if (pids[q] < 0 || waitpid(pids[q], &status, 0) != pids[q] || !WIFEXITED(status) || WEXITSTATUS(status)) {
            printf("rank %d: %s %d\n", q, WIFSIGNALED(status) ? "killed by signal" : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            rc = 1;
        }
    }
    return rc;
}

struct thread_arg { struct mr_rank r; const struct options *o; size_t cap; int rc; };

static void *thread_main(void *p)
{
    struct thread_arg *t = p;
    t->rc = rank_open(&t->r, t->o, t->cap) != 0 ? 1 : rank_run(&t->r, t->o);
    rank_close(&t->r);
    return NULL;
}

static int run_threads(const struct options *o, size_t cap)
{
    static struct thread_arg t[64];
    struct ncclComm *comms[64];
    int devs[64], e = 0;
    for (int q = 0; q < o->ranks; q++)
        devs[q] = q;
    alarm((unsigned)o->timeout);
    if (load_nccl() != 0 || (e = mr_nccl.CommInitAll(comms, o->ranks, devs)) != 0) {
        printf("ncclCommInitAll: %s\n", mr_nccl.GetErrorString ? mr_nccl.GetErrorString(e) : "no NCCL");
        return 1;
    }
    pthread_t th[64];
    int rc = 0;
    for (int q = 0; q < o->ranks; q++) {
        t[q] = (struct thread_arg){.r = {.rank = q, .nranks = o->ranks, .comm = comms[q]}, .o = o, .cap = cap};
        if (pthread_create(&th[q], NULL, thread_main, &t[q]) != 0)
            return 1; /* the others would wait for it in their collectives */
    }
    for (int q = 0; q < o->ranks; q++) {
        pthread_join(th[q], NULL);
        rc |= t[q].rc;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct options o = {0, 2, 10, 300, ((int64_t)1 << 20) + 12345, 20261201};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--procs") || !strcmp(a, "--threads"))
            o.threads = a[2] == 't';
        else if (v && !strcmp(a, "--ranks"))
            o.ranks = atoi(v), i++;
        else if (v && !strcmp(a, "--repeats"))
            o.repeats = atoi(v), i++;
        else if (v && !strcmp(a, "--timeout"))
            o.timeout = atoi(v), i++;
        else if (v && !strcmp(a, "--n"))
            o.n = strtoll(v, NULL, 0), i++;
        else if (v && !strcmp(a, "--seed"))
            o.seed = strtoull(v, NULL, 0), i++;
        else {
            fputs(usage, strcmp(a, "--help") ? stderr : stdout);
            return strcmp(a, "--help") ? 2 : 0;
        }
    }
    if (o.ranks < 1 || o.ranks > 64 || o.repeats < 1 || o.timeout < 1 || o.n < 64) {
        fputs(usage, stderr);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off unless asked for */
    const int found = probe();
    if (found > 100 || found < o.ranks) {
        printf("SKIP: cured-multirank needs %d GPUs and NCCL: %s\n", o.ranks,
               found == 101 ? "no CUDA driver" : found == 102 ? "NCCL does not load" : "too few GPUs");
        return 77;
    }
    signal(SIGALRM, on_alarm);
    printf("cured-multirank: %d ranks (%s), %d repeats, seed %llu, %d GPUs here\n", o.ranks,
           o.threads ? "threads" : "processes", o.repeats, (unsigned long long)o.seed, found);
    const size_t cap = (size_t)(o.n > 2003 * 300 ? o.n : 2003 * 300);
    const int rc = o.threads ? run_threads(&o, cap) : run_procs(&o, cap);
    printf("%s\n", rc == 0 ? "PASS" : "FAIL");
    return rc == 0 ? 0 : 1;
}
