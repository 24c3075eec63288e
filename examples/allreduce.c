/*
 * A sum, an argmax, a dot product and a sample variance (ddof 1) over an
 * array sharded across processes, one per GPU, through NCCL and cured_comm:
 *   allreduce RANK NRANKS IDFILE [N]
 * Rank 0 makes NCCL's unique id and writes it to IDFILE (via a rename, so
 * the others never read half of it); the others wait for the file. Rank r
 * holds elements [r * N, (r + 1) * N) of the global array x[i] = i % 1000 -
 * 500 (with one 777 at global index NRANKS * N / 2), reduces it with
 * cured_comm_reduce, cured_comm_dot (x . x) and cured_comm_reduce_stats,
 * and prints what every rank receives. Runs with one
 * rank too (allreduce 0 1 /tmp/id). NCCL and the driver are looked up at
 * run time; exit status 3 means NCCL could not be loaded.
 */
#include <cured.h>

#include "driver.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The NCCL calls the program makes itself (nccl.h of NCCL 2). */
typedef struct { char internal[128]; } nccl_id;
static struct {
    int (*GetUniqueId)(nccl_id *);
    int (*CommInitRank)(struct ncclComm **, int, nccl_id, int);
    int (*CommDestroy)(struct ncclComm *);
    const char *(*GetErrorString)(int);
} nccl;

static int load_nccl(void)
{
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL || !(*(void **)&nccl.GetUniqueId = dlsym(lib, "ncclGetUniqueId")) ||
        !(*(void **)&nccl.CommInitRank = dlsym(lib, "ncclCommInitRank")) ||
        !(*(void **)&nccl.CommDestroy = dlsym(lib, "ncclCommDestroy")) ||
        !(*(void **)&nccl.GetErrorString = dlsym(lib, "ncclGetErrorString"))) {
        fprintf(stderr, "cannot use NCCL: %s\n", dlerror());
        return -1;
    }
    return 0;
}

/* Rank 0 publishes the id; the others wait up to a minute for it. */
static int exchange_id(int rank, const char *path, nccl_id *id)
{
    if (rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "wb");
        if (f == NULL || fwrite(id, sizeof *id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, path) != 0) {
            perror(path);
            return -1;
        }
        return 0;
    }
    for (int tries = 0; tries < 600; tries++) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t got = fread(id, sizeof *id, 1, f);
            fclose(f);
            if (got == 1)
                return 0;
        }
        usleep(100000);
    }
    fprintf(stderr, "rank %d: no id in %s after 60 s\n", rank, path);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s RANK NRANKS IDFILE [N]\n", argv[0]);
        return 2;
    }
    const int rank = atoi(argv[1]), nranks = atoi(argv[2]);
    const size_t n = argc > 4 ? strtoull(argv[4], NULL, 0) : 1000000;
    int rc = 1, *host = NULL;
    struct ncclComm *comm = NULL;
    cured_comm cc = NULL;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr d = 0;
    cured_handle h;
    cured_status s = cured_create(rank, &h); /* one GPU per process: rank r uses device r */
    if (s != CURED_SUCCESS) {
        fprintf(stderr, "cured_create: %s: %s\n", cured_status_string(s), cured_last_error());
        return 1;
    }
    if (load_driver() != 0)
        goto out;
    if (load_nccl() != 0) {
        rc = 3;
        goto out;
    }
    CU(DeviceGet(&dev, rank));
    CU(DevicePrimaryCtxRetain(&ctx, dev)); /* NCCL and cured both use the primary context */
    CU(CtxSetCurrent(ctx));
    nccl_id id;
    int r;
    if (rank == 0 && (r = nccl.GetUniqueId(&id)) != 0) {
        fprintf(stderr, "ncclGetUniqueId: %s\n", nccl.GetErrorString(r));
        goto out;
    }
    if (exchange_id(rank, argv[3], &id) != 0)
        goto out;
    if ((r = nccl.CommInitRank(&comm, nranks, id, rank)) != 0) {
        fprintf(stderr, "ncclCommInitRank: %s\n", nccl.GetErrorString(r));
        goto out;
    }
    CURED(cured_comm_create(h, comm, 0, &cc));

    /* This rank's shard of the global array. */
    const size_t first = (size_t)rank * n, peak = (size_t)nranks * n / 2;
    if ((host = malloc(n * sizeof *host)) == NULL)
        goto out;
    for (size_t i = 0; i < n; i++)
        host[i] = first + i == peak ? 777 : (int)((first + i) % 1000) - 500;
    CU(MemAlloc(&d, n * sizeof *host));
    CU(MemcpyHtoD(d, host, n * sizeof *host));

    long long sum = 0;
    cured_arg_result best;
    CURED(cured_comm_reduce(cc, CURED_OP_SUM, (void *)(uintptr_t)d, CURED_TYPE_INT32, n, &sum, CURED_TYPE_INT64, 0,
                            NULL));
    CURED(cured_comm_reduce(cc, CURED_OP_ARGMAX, (void *)(uintptr_t)d, CURED_TYPE_INT32, n, &best, CURED_TYPE_INT32,
                            0, NULL));
    long long dot = 0;
    double var = 0;
    CURED(cured_comm_dot(cc, (void *)(uintptr_t)d, (void *)(uintptr_t)d, CURED_TYPE_INT32, n, &dot, CURED_TYPE_INT64,
                         0, NULL));
    CURED(cured_comm_reduce_stats(cc, CURED_OP_VAR, (void *)(uintptr_t)d, CURED_TYPE_INT32, n, 1.0, &var,
                                  CURED_TYPE_FLOAT64, 0, NULL));
    long long want = 0, want_dot = 0;
    const size_t total = (size_t)nranks * n;
    for (size_t i = 0; i < total; i++) {
        const long long v = i == peak ? 777 : (long long)(i % 1000) - 500;
        want += v, want_dot += v * v;
    }
    const double mean = (double)want / (double)total;
    double m2 = 0; /* two passes: the mean, then the squared deviations */
    for (size_t i = 0; i < total; i++) {
        const double e = (i == peak ? 777.0 : (double)(i % 1000) - 500.0) - mean;
        m2 += e * e;
    }
    const double want_var = m2 / (double)(total - 1);
    printf("rank %d of %d: sum = %lld (expected %lld), argmax = x[%lld] = %d (expected x[%zu] = 777)\n", rank, nranks,
           sum, want, (long long)best.index, best.value.i32, peak);
    printf("rank %d of %d: x . x = %lld (expected %lld), sample variance = %.17g (two-pass: %.17g)\n", rank, nranks,
           dot, want_dot, var, want_var);
    rc = sum == want && best.index == (long long)peak && best.value.i32 == 777 && dot == want_dot &&
                 fabs(var - want_var) <= 1e-12 * want_var
             ? 0
             : 1;
out:
    free(host);
    cured_comm_destroy(cc);
    if (comm)
        nccl.CommDestroy(comm);
    if (d)
        cu.MemFree(d);
    if (ctx)
        cu.DevicePrimaryCtxRelease(dev);
    cured_destroy(h);
    return rc;
}
