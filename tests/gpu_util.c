/* Shared pieces of the GPU suites; see gpu_util.h. */
#include "gpu_util.h"
#include "pool.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const struct cr_driver_all *D;
CUdevice DEV;
CUcontext CTX;
cured_handle H;
unsigned long long test_seed;

#define MAX_TRACKED 256
static CUdeviceptr allocs[MAX_TRACKED];
static CUstream streams[MAX_TRACKED];

/* Child process: 0 if the driver loads and reports a device, 1 if not. */
static void probe_child(const char *prog)
{
    const char *why = NULL;
    int no_device = 0;
    const struct cr_driver_all *d = cr_driver_all_load(&why, &no_device);
    if (d == NULL) {
        fprintf(stderr, "%s: %s: %s\n", prog, no_device ? "no CUDA device" : "no CUDA driver",
                why ? why : "?");
        _exit(1);
    }
    int count = 0;
    CUresult r = d->DeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count < 1) {
        fprintf(stderr, "%s: no CUDA device (cuDeviceGetCount: %s, count %d)\n", prog,
                cr_driver_error_text(r), count);
        _exit(1);
    }
    _exit(0);
}

int test_jobs(void)
{
    const char *env = getenv("CURED_TEST_JOBS");
    return env != NULL && atoi(env) > 0 ? atoi(env) : pool_cpus();
}

int gpu_main(const char *prog, Suite *s)
{
    const char *env = getenv("CURED_TEST_SEED");
    test_seed = env && *env ? strtoull(env, NULL, 0)
                            : (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 99;
    }
    if (pid == 0)
        probe_child(prog);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
        fprintf(stderr, "%s: the GPU probe process failed (status 0x%x)\n", prog, (unsigned)status);
        return 99;
    }
    if (WEXITSTATUS(status) == 1) {
        printf("SKIP: %s needs a CUDA GPU\n", prog);
        srunner_free(srunner_create(s)); /* frees the suite: LeakSanitizer would turn the SKIP into a FAIL */
        return 77;
    }

    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("%s: %d failure(s); rerun with: CURED_TEST_SEED=%llu ./tests/%s\n", prog, failed, test_seed, prog);
    if (H != NULL && cured_destroy(H) != CURED_SUCCESS) {
        printf("%s: cured_destroy: %s\n", prog, cured_last_error());
        failed++;
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void gpu_setup(void)
{
    if (D == NULL) {
        const char *why = NULL;
        D = cr_driver_all_load(&why, NULL);
        ck_assert_msg(D != NULL, "the probe found a GPU but the driver does not load now: %s", why);
        CU_OK(D->DeviceGet(&DEV, 0));
        CU_OK(D->DevicePrimaryCtxRetain(&CTX, DEV));
        CU_OK(D->CtxPushCurrent(CTX));
        cured_handle h = NULL;
        CURED_OK(cured_create(0, &h));
        ck_assert_ptr_nonnull(h);
        H = h;
    }
    /* A test may have left another context (or none) current. */
    CUcontext cur = NULL;
    CU_OK(D->CtxGetCurrent(&cur));
    if (cur != CTX)
        CU_OK(D->CtxPushCurrent(CTX));
}

void gpu_teardown(void)
{
    if (D == NULL)
        return;
    D->CtxSynchronize();
    for (int i = 0; i < MAX_TRACKED; i++) {
        if (streams[i] != NULL)
            D->StreamDestroy(streams[i]);
        if (allocs[i] != 0)
            D->MemFree(allocs[i]);
        streams[i] = NULL;
        allocs[i] = 0;
    }
}


void expect_status(cured_status got, cured_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: got %s, want %s: %s (seed %llu)", what, cured_status_string(got),
                  cured_status_string(want), cured_last_error(), test_seed);
}

CUdeviceptr dev_alloc(size_t bytes)
{
    int slot = 0;
    while (slot < MAX_TRACKED && allocs[slot] != 0)
        slot++;
    ck_assert_msg(slot < MAX_TRACKED, "test bug: more than %d live allocations", MAX_TRACKED);
    CUdeviceptr p = 0;
    CU_OK(D->MemAlloc(&p, bytes ? bytes : 1));
    allocs[slot] = p;
    return p;
}

void dev_free(CUdeviceptr p)
{
    for (int i = 0; i < MAX_TRACKED; i++)
        if (allocs[i] == p) {
            allocs[i] = 0;
            CU_OK(D->MemFree(p));
            return;
        }
    ck_abort_msg("test bug: freeing an untracked allocation");
}

CUstream stream_new(void)
{
    int slot = 0;
    while (slot < MAX_TRACKED && streams[slot] != NULL)
        slot++;
    ck_assert_msg(slot < MAX_TRACKED, "test bug: more than %d live streams", MAX_TRACKED);
    CUstream s = NULL;
    CU_OK(D->StreamCreate(&s, CU_STREAM_NON_BLOCKING));
    streams[slot] = s;
    return s;
}

/*
 * The legacy-stream copies and memsets below do not order against
 * non-blocking streams, so each ends with a context synchronisation.
 */
void upload(CUdeviceptr dst, const void *src, size_t bytes)
{
    if (bytes)
        CU_OK(D->MemcpyHtoD(dst, src, bytes));
    CU_OK(D->CtxSynchronize());
}

void download(void *dst, CUdeviceptr src, size_t bytes)
{
    CU_OK(D->CtxSynchronize());
    if (bytes)
        CU_OK(D->MemcpyDtoH(dst, src, bytes));
}

void poison(CUdeviceptr p, size_t bytes)
{
    CU_OK(D->MemsetD8(p, POISON_BYTE, bytes));
    CU_OK(D->CtxSynchronize());
}

void rng_init(struct rng *r, const char *label, long index)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the label, mixed with seed and index */
    for (const char *c = label; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    r->s = h ^ (test_seed * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)index << 32);
    if (r->s == 0)
        r->s = 1;
}

uint32_t rng_u32(struct rng *r)
{
    /* xorshift64* */
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

void fill_random(struct rng *r, uint32_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h[i] = rng_u32(r);
}

int64_t ref_sum(const uint32_t *h, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += as_int32(h[i]);
    return s;
}

void check_result(const void *got8, cured_type type, int64_t exact, const char *what)
{
    if (type == CURED_TYPE_INT64) {
        int64_t got;
        memcpy(&got, got8, 8);
        ck_assert_msg(got == exact, "%s: got %lld, want %lld%s (seed %llu)", what, (long long)got,
                      (long long)exact, (uint64_t)got == POISON64 ? " (output not written)" : "",
                      test_seed);
    } else {
        uint32_t got, rest;
        memcpy(&got, got8, 4);
        memcpy(&rest, (const unsigned char *)got8 + 4, 4);
        uint32_t want = (uint32_t)(uint64_t)exact;
        ck_assert_msg(got == want, "%s: got %d, want %d (exact %lld wrapped)%s (seed %llu)", what,
                      (int32_t)got, (int32_t)want, (long long)exact,
                      got == POISON32 ? " (output not written)" : "", test_seed);
        ck_assert_msg(rest == POISON32,
                      "%s: an int32 result wrote past its 4 bytes (0x%08x) (seed %llu)", what, rest,
                      test_seed);
    }
}

const char *algo_name(int algo)
{
    static const char *const names[] = {"AUTO",           "TWO_PASS_SHARED",    "TWO_PASS_SHUFFLE",
                                        "TWO_PASS_CG",    "SINGLE_PASS_TICKET", "SINGLE_PASS_ATOMIC",
                                        "LISTING_12_4"};
    return algo >= 0 && algo < (int)(sizeof names / sizeof *names) ? names[algo] : "?";
}

const char *type_name(cured_type t)
{
    return t == CURED_TYPE_INT32 ? "int32" : t == CURED_TYPE_INT64 ? "int64" : "?";
}
