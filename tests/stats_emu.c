/*
 * test-stats-emu: tests/test-gpu-stats.c run without a GPU. Its GPU layer
 * (gpu_util.h) is host memory here, and the statistics calls it makes are
 * renamed (tests.am) to the ones below, which take the library's own
 * argument checks and run kernels-src/stats.cuh's loops and merges on the
 * CPU (stats_emu_kernels.cc), once as the whole-array kernel and once with
 * the moments as one column (reduce_cols' accumulator and merges). So the
 * suite's cases, references and bounds
 * are checked against the kernels' arithmetic on every CI run; the GPU run
 * of test-gpu-stats remains the test of the GPU. Sizes are those of
 * CURED_TEST_NO_HUGE unless CURED_TEST_EMU_FULL=1.
 */
#include "gpu_stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int emu_stats_run(cured_op op, cured_type in, cured_type out, double ddof, const void *x, size_t n, void *res);
extern int emu_columns; /* stats_emu_kernels.cc: the moments and LOGSUMEXP as one column (0: the whole-array kernel) */

static CUresult ok0(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}
static CUresult ok1(void)
{
    return CUDA_SUCCESS;
}
static const struct cr_driver_all emu_driver = {.StreamSynchronize = ok0, .CtxSynchronize = ok1};
const struct cr_driver_all *D = &emu_driver;
CUdevice DEV;
CUcontext CTX;
static char handle_stand_in;
cured_handle H = (cured_handle)&handle_stand_in;
unsigned long long test_seed;

/* "Device" memory: host blocks, known by their ranges. */
#define MAX_TRACKED 256
static struct {
    unsigned char *p;
    size_t bytes;
} allocs[MAX_TRACKED];

CUdeviceptr dev_alloc(size_t bytes)
{
    int k = 0;
    while (k < MAX_TRACKED && allocs[k].p != NULL)
        k++;
    ck_assert_msg(k < MAX_TRACKED, "test bug: more than %d live allocations", MAX_TRACKED);
    allocs[k].p = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    ck_assert_ptr_nonnull(allocs[k].p);
    allocs[k].bytes = bytes;
    return (CUdeviceptr)(uintptr_t)allocs[k].p;
}

void dev_free(CUdeviceptr p)
{
    for (int k = 0; k < MAX_TRACKED; k++)
        if ((CUdeviceptr)(uintptr_t)allocs[k].p == p) {
            free(allocs[k].p);
            allocs[k].p = NULL;
        }
}

static int is_dev(const void *p)
{
    for (int k = 0; k < MAX_TRACKED; k++)
        if (allocs[k].p != NULL && (const unsigned char *)p >= allocs[k].p &&
            (const unsigned char *)p < allocs[k].p + allocs[k].bytes + 256)
            return 1;
    return 0;
}

CUstream stream_new(void)
{
    return (CUstream)(uintptr_t)0x5;
}

void upload(CUdeviceptr dst, const void *src, size_t bytes)
{
    memcpy((void *)(uintptr_t)dst, src, bytes);
}

void download(void *dst, CUdeviceptr src, size_t bytes)
{
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
}

void poison(CUdeviceptr p, size_t bytes)
{
    memset((void *)(uintptr_t)p, POISON_BYTE, bytes);
}

void gpu_setup(void)
{
}

void gpu_teardown(void)
{
    for (int k = 0; k < MAX_TRACKED; k++) {
        free(allocs[k].p);
        allocs[k].p = NULL;
    }
}

void expect_status(cured_status got, cured_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: got %s, want %s: %s (seed %llu)", what, cured_status_string(got),
                  cured_status_string(want), cured_last_error(), test_seed);
}

void rng_init(struct rng *r, const char *label, long index)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = label; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    r->s = h ^ (test_seed * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)index << 32);
    if (r->s == 0)
        r->s = 1;
}

uint32_t rng_u32(struct rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

/* ---- the calls, emulated after the library's own checks ------------------------------ */

static cured_status run(const struct cr_request *r, const void *in, size_t n, void *out, int host_out)
{
    if (n > 0 && !is_dev(in))
        return cr_fail(CURED_ERROR_NOT_DEVICE_POINTER, "the input is not device memory");
    if (!host_out && !is_dev(out))
        return cr_fail(CURED_ERROR_NOT_DEVICE_POINTER, "the output is not device memory");
    unsigned char res[CR_MAX_RESULT];
    if (!emu_stats_run(r->op, r->in, r->out, r->ddof, in, n, res))
        return cr_fail(CURED_ERROR_INTERNAL, "test-stats-emu emulates only the statistics");
    cured_status st = host_out ? cr_op_result_status(r->op, r->out, res) : CURED_SUCCESS; /* as cr_reduce_run */
    if (st == CURED_SUCCESS)
        memcpy(out, res, r->acc.result_size);
    return st;
}

cured_status emu_reduce_stats_async(cured_handle h, cured_op op, const void *in, cured_type in_type, size_t n,
                                    double ddof, void *out, cured_type out_type, struct CUstream_st *s)
{
    (void)s;
    struct cr_request r;
    cured_status st = h ? cr_stats_check_args("cured_reduce_stats_async", op, in, in_type, n, ddof, out, out_type, 0, &r)
                        : CURED_ERROR_NULL_HANDLE;
    return st ? st : run(&r, in, n, out, 0);
}

cured_status emu_reduce_stats(cured_handle h, cured_op op, const void *in, cured_type in_type, size_t n, double ddof,
                              void *out, cured_type out_type, struct CUstream_st *s)
{
    (void)s;
    struct cr_request r;
    cured_status st = h ? cr_stats_check_args("cured_reduce_stats", op, in, in_type, n, ddof, out, out_type, 1, &r)
                        : CURED_ERROR_NULL_HANDLE;
    return st ? st : run(&r, in, n, out, 1);
}

cured_status emu_reduce(cured_handle h, cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                        size_t n, void *out, cured_type out_type, struct CUstream_st *s)
{
    (void)h, (void)s;
    struct cr_request r;
    cured_status st = cr_check_args(op, algo, in, in_type, n, out, out_type, &r);
    if (st == CURED_SUCCESS)
        st = cr_stats_check_sync(&r, n);
    return st ? st : run(&r, in, n, out, 1);
}

cured_status emu_prepare(cured_handle h, cured_op op, cured_algorithm algo, cured_type in_type, cured_type out_type)
{
    (void)h;
    struct cr_request r;
    return cr_check_args(op, algo, (const void *)(uintptr_t)64, in_type, 1, (const void *)(uintptr_t)64, out_type,
                         &r);
}

TCase *gs_custom_tcase(void)
{
    return tcase_create("user_defined_multi (GPU only)");
}

/* The suite is test-gpu-stats' (prog); this program is test-stats-emu, whose lines say so. */
int gpu_main(const char *prog, Suite *s)
{
    (void)prog;
    const char *self = "test-stats-emu";
    const char *env = getenv("CURED_TEST_SEED"), *full = getenv("CURED_TEST_EMU_FULL");
    test_seed = env && *env ? strtoull(env, NULL, 0)
                            : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);
    if (full == NULL || strcmp(full, "1") != 0)
        setenv("CURED_TEST_NO_HUGE", "1", 1);
    printf("%s: emulating the statistics kernels on the CPU (seed %llu)\n", self, test_seed);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    /* Again with the moments and LOGSUMEXP down one column (reduce_cols' accumulators and joins). */
    printf("%s: the moments and LOGSUMEXP as one column of n rows\n", self);
    emu_columns = 1;
    srunner_run_all(sr, CK_NORMAL);
    failed += srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("%s: %d failure(s); rerun with: CURED_TEST_SEED=%llu ./tests/test-stats-emu\n", self, failed,
               test_seed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
