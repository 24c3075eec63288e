/*
 * The disk cache on a GPU: kernels loaded from the disk cache give the same
 * results as freshly compiled ones, and an entry that passes the cache's
 * own checks but that the driver cannot load is dropped and recompiled
 * (and, being a miss, leaves no message for cured_last_error()).
 *
 * Every step runs in a new process (this program executed again with
 * --child), which does its own cuInit and starts with empty library state;
 * this process never touches CUDA. Exits 77 (SKIP) without a GPU. The seed
 * is printed with any failure; CURED_TEST_SEED=<seed> reproduces the data.
 */
#include "gpu_util.h"
#include "cache_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (((size_t)1 << 20) + 3)
static const cured_algorithm algos[2] = {CURED_ALGO_AUTO, CURED_ALGO_TWO_PASS_SHUFFLE};

/* What one step (a child process) reports. */
struct step {
    long long result[2]; /* int32 -> int64 sums, per algorithm */
    unsigned long long compiles, disk_hits;
    int rejected; /* warnings about a cached kernel the driver rejected */
};

/* The data of every step: N random int32 values from the seed. */
static uint32_t *make_data(void)
{
    uint32_t *h = malloc(N * sizeof *h);
    if (h != NULL) {
        struct rng r;
        rng_init(&r, "disk-cache", 0);
        fill_random(&r, h, N);
    }
    return h;
}

static void count_rejections(cured_log_level level, const char *message, void *user)
{
    if (level == CURED_LOG_WARN && strstr(message, "rejected") != NULL)
        ++*(int *)user;
}

/* --child SEED: reduce the data with both algorithms on device 0 and print
 * "ok <results> <compiles> <disk hits> <rejections>", or "error: ..." and exit 1. */
static int child_main(const char *seed)
{
    test_seed = strtoull(seed, NULL, 10);
    int rejected = 0;
    int64_t result[2] = {0, 0};
    const char *why = "?";
    uint32_t *h = make_data();
    const struct cr_driver_all *d = cr_driver_all_load(&why, NULL);
    if (h == NULL || d == NULL) {
        printf("error: %s\n", h == NULL ? "out of host memory" : why);
        return 1;
    }
    if (cured_set_log(CURED_LOG_WARN, count_rejections, &rejected) != CURED_SUCCESS) {
        printf("error: cured_set_log: %s\n", cured_last_error());
        return 1;
    }
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr in = 0;
    CUresult r = d->DeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS)
        r = d->DevicePrimaryCtxRetain(&ctx, dev);
    if (r == CUDA_SUCCESS)
        r = d->CtxPushCurrent(ctx);
    if (r == CUDA_SUCCESS)
        r = d->MemAlloc(&in, N * sizeof *h);
    if (r == CUDA_SUCCESS)
        r = d->MemcpyHtoD(in, h, N * sizeof *h);
    if (r != CUDA_SUCCESS) {
        printf("error: setting up device memory: %s\n", cr_driver_error_text(r));
        return 1;
    }
    cured_handle handle = NULL;
    cured_status st = cured_create(0, &handle);
    for (int a = 0; a < 2 && st == CURED_SUCCESS; a++)
        st = cured_reduce(handle, CURED_OP_SUM, algos[a], DP(in), CURED_TYPE_INT32, N, &result[a],
                          CURED_TYPE_INT64, NULL);
    cured_stats s;
    memset(&s, 0, sizeof s);
    if (st == CURED_SUCCESS)
        st = cured_get_stats(&s);
    if (st != CURED_SUCCESS) {
        printf("error: %s: %s\n", cured_status_string(st), cured_last_error());
        return 1;
    }
    if (cured_last_error()[0] != '\0') { /* nothing failed: a refused entry is a miss, not a failure */
        printf("error: the successful calls left a message: %s\n", cured_last_error());
        return 1;
    }
    if (cured_destroy(handle) != CURED_SUCCESS || d->MemFree(in) != CUDA_SUCCESS) {
        printf("error: cleaning up: %s\n", cured_last_error());
        return 1;
    }
    d->CtxPopCurrent(&ctx);
    d->DevicePrimaryCtxRelease(dev);
    free(h);
    printf("ok %lld %lld %llu %llu %d\n", (long long)result[0], (long long)result[1],
           (unsigned long long)s.compiles, (unsigned long long)s.disk_hits, rejected);
    return 0;
}

/* Run one step in a new process: this program again, with --child. */
static void run_step(const char *what, struct step *s)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", test_seed);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (dup2(fd[1], STDOUT_FILENO) < 0)
            _exit(126);
        close(fd[0]);
        close(fd[1]);
        execl("/proc/self/exe", "test-gpu-cache", "--child", seed, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[1024];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd[0], out + len, sizeof out - 1 - len);
        if (n > 0 && (len += (size_t)n) < sizeof out - 1)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s: the child process failed (status 0x%x): %s (seed %llu)", what, (unsigned)status,
                  out, test_seed);
    ck_assert_msg(sscanf(out, "ok %lld %lld %llu %llu %d", &s->result[0], &s->result[1], &s->compiles,
                         &s->disk_hits, &s->rejected) == 5,
                  "%s: unexpected child output: %s", what, out);
}

static void expect_step(const struct step *s, int64_t exact, unsigned long long compiles,
                        unsigned long long hits, int rejected, const char *what)
{
    for (int a = 0; a < 2; a++)
        ck_assert_msg(s->result[a] == exact, "%s: %s int32->int64 gave %lld, want %lld (seed %llu)", what,
                      algo_name(algos[a]), s->result[a], (long long)exact, test_seed);
    ck_assert_msg(s->compiles == compiles && s->disk_hits == hits,
                  "%s: %llu compile(s) and %llu disk hit(s), want %llu and %llu", what, s->compiles,
                  s->disk_hits, compiles, hits);
    ck_assert_msg(s->rejected == rejected, "%s: %d rejection warning(s), want %d", what, s->rejected,
                  rejected);
}

START_TEST(test_results_from_disk)
{
    char top[512], cache[600], v1[640], name[65], path[1024];
    ck_assert_msg(make_temp_dir(top, sizeof top, "gpu-cache") == 0, "mkdtemp: %s", strerror(errno));
    snprintf(cache, sizeof cache, "%s/cache", top);
    snprintf(v1, sizeof v1, "%s/v1", cache);
    /* Children inherit the environment: a private cache for this test only. */
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", cache, 1), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_MAX_BYTES"), 0);
    uint32_t *h = make_data();
    ck_assert_ptr_nonnull(h);
    const int64_t exact = ref_sum(h, N);
    free(h);

    struct step compiled, loaded, refused, again;
    run_step("compile and store", &compiled);
    expect_step(&compiled, exact, 2, 0, 0, "compile and store");
    ck_assert_int_eq(list_entries(v1, NULL, 0), 2);

    run_step("load from disk", &loaded);
    expect_step(&loaded, exact, 0, 2, 0, "load from disk");
    for (int a = 0; a < 2; a++)
        ck_assert_msg(loaded.result[a] == compiled.result[a], "%s: %lld from disk, %lld compiled",
                      algo_name(algos[a]), loaded.result[a], compiled.result[a]);

    /* The AUTO entry, forged: it passes the cache's checks (test-diskcache
     * checks that it is served), but its payload is no module, so
     * cuModuleLoadData fails on purpose: CURED_TEST_NO_API_ERRORS=1 leaves
     * this out for compute-sanitizer runs that count API errors. */
    const char *no_api_errors = getenv("CURED_TEST_NO_API_ERRORS");
    if (no_api_errors != NULL && *no_api_errors != '\0' && strcmp(no_api_errors, "0") != 0) {
        printf("test-gpu-cache: CURED_TEST_NO_API_ERRORS: the driver-rejection step is left out\n");
    } else {
        ck_assert_msg(find_entry_with(v1, "\nkernel reduce_fast<", name) == 0, "no single AUTO entry in %s",
                      v1);
        snprintf(path, sizeof path, "%s/%s", v1, name);
        ck_assert_int_eq(forge_entry_payload(path, 'x'), 0);
        run_step("an entry the driver rejects", &refused);
        expect_step(&refused, exact, 1, 2, 1, "an entry the driver rejects");
        run_step("after the rejection", &again);
        expect_step(&again, exact, 0, 2, 0, "after the rejection");
        ck_assert_int_eq(list_entries(v1, NULL, 0), 2);
    }
    ck_assert_int_eq(remove_tree(top), 0);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    Suite *s = suite_create("gpu-cache");
    TCase *tc = tcase_create("disk");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_results_from_disk);
    suite_add_tcase(s, tc);
    return gpu_main("test-gpu-cache", s);
}
