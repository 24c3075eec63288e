/*
 * test-compile's first step: every image its tests ask for, compiled on all
 * CPUs (CURED_TEST_JOBS threads, default: the CPUs; NVRTC and cured's
 * kernel cache are thread-safe) into the memory cache before Check forks,
 * with a "compiled n/total" line in the log every 50 images.
 */
#include "cured.h"
#include "precompile.h"
#include "gpu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pool.h"

struct job {
    size_t kernel;
    int sm, ptx;
    cured_status status;
};

struct jobs {
    struct job *v;
    size_t n;
    double start;
    unsigned failed;
};

static void add_job(struct jobs *j, size_t kernel, int sm, int ptx)
{
    for (size_t i = 0; i < j->n; i++)
        if (j->v[i].kernel == kernel && j->v[i].sm == sm && j->v[i].ptx == ptx)
            return;
    j->v[j->n++] = (struct job){kernel, sm, ptx, CURED_SUCCESS};
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void compile_job(void *user, size_t i)
{
    const struct jobs *j = user;
    struct job *x = &j->v[i];
    x->status = cured_compile_kernel(x->kernel, x->sm, x->ptx, NULL);
}

static void job_done(void *user, size_t i, size_t finished)
{
    struct jobs *j = user;
    j->failed += j->v[i].status != CURED_SUCCESS;
    if (finished % 50 == 0 || finished == j->n)
        printf("compiled %zu/%zu images (%u failed) in %.1f s\n", finished, j->n, j->failed,
               seconds() - j->start);
    fflush(stdout);
}

int precompile_sampled(size_t k)
{
    return strstr(cured_kernel_name(k), "kernels-src/exact.cu") != NULL && k % 8 != 0;
}

int precompile_oldest(size_t k)
{
    const char *full = getenv("CURED_TEST_FULL");
    if (full != NULL && strcmp(full, "1") == 0)
        return 1;
    return !precompile_sampled(k) && k % 3 == 0;
}

int precompile(size_t table_kernels, const int *archs, int narchs, const int *main_archs, int nmain,
               size_t ptx_stride, size_t kernel_stride, size_t group, int arch_stride)
{
    size_t nk = cured_kernel_count();
    struct jobs j = {malloc((table_kernels * (size_t)narchs + 3 * nk) * sizeof *j.v), 0, seconds(), 0};
    if (j.v == NULL) {
        printf("FAIL: out of memory\n");
        return -1;
    }
    /* The Table 12-1 kernels first, in the order of the tests. */
    for (size_t k = 0; k < table_kernels; k++) {
        for (int a = 0; a < narchs; a += arch_stride)
            add_job(&j, k, archs[a], 0);
        add_job(&j, k, archs[narchs - 1], 0);
    }
    for (size_t k = 0; k < nk; k++)
        if (k % group % kernel_stride == 0)
            for (int a = 0; a < (precompile_oldest(k) ? nmain : 1); a++)
                add_job(&j, k, main_archs[a], 0);
    for (size_t k = 0; k < nk; k++)
        if (k % group % kernel_stride == 0 && (k < table_kernels || k % ptx_stride == 0) && !precompile_sampled(k))
            add_job(&j, k, archs[narchs - 1], 1);
    const int threads = test_jobs();
    printf("compiling %zu images (%zu kernels; cubins for %d architectures; PTX for compute_%d) "
           "on %d thread%s\n", j.n, nk, narchs, archs[narchs - 1], threads, threads == 1 ? "" : "s");
    fflush(stdout);
    pool_run(j.n, threads, compile_job, job_done, &j);
    free(j.v);
    return 0;
}
