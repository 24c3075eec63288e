/*
 * Issue 13 on the GPU. Out-of-range inputs and outputs (1024 int32
 * allocated, n = 2^28) are refused with CURED_ERROR_OUT_OF_RANGE, nothing is
 * launched (the output stays poisoned) and the context survives (a later
 * reduction is right); before, the kernel faulted and every later CUDA call
 * of the process failed. A user-defined op survives a reset of the primary
 * context: after cuDevicePrimaryCtxReset the context may keep its handle
 * value, and the op must load its module again rather than launch the old
 * one. The reset runs in a new process (this program again, with --reset),
 * since it destroys everything of the suite's own context. Exits 77 (SKIP)
 * without a GPU.
 */
#include "gpu_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SMALL 1024
#define HUGE_N ((size_t)1 << 28)

/* The context still works: a plain sum of SMALL known values is right. */
static void expect_context_alive(CUdeviceptr x, const uint32_t *h, const char *what)
{
    CU_OK(D->CtxSynchronize());
    int64_t got = 0;
    CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(x), CURED_TYPE_INT32, SMALL, &got, CURED_TYPE_INT64,
                          NULL));
    ck_assert_msg(got == ref_sum(h, SMALL), "%s: the sum after the refusal is %lld, want %lld", what,
                  (long long)got, (long long)ref_sum(h, SMALL));
}

START_TEST(test_input_out_of_range)
{
    uint32_t h[SMALL];
    struct rng r;
    rng_init(&r, "out-of-range", 0);
    fill_random(&r, h, SMALL);
    CUdeviceptr x = dev_alloc(SMALL * 4), out = dev_alloc(16);
    upload(x, h, sizeof h);
    poison(out, 16);
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(x),
                                                              CURED_TYPE_INT32, HUGE_N, DP(out), CURED_TYPE_INT64,
                                                              NULL));
    ck_assert_msg(strstr(cured_last_error(), "the input") && strstr(cured_last_error(), "+ 1073741824)"), "%s",
                  cured_last_error());
    unsigned char got[16];
    download(got, out, sizeof got);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "the refused call wrote its output (byte %d)", i);
    expect_context_alive(x, h, "input");

    cured_arg_result arg;
    memset(&arg, POISON_BYTE, sizeof arg);
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce(H, CURED_OP_ARGMAX, CURED_ALGO_AUTO, DP(x), CURED_TYPE_INT32,
                                                        HUGE_N, &arg, CURED_TYPE_INT32, NULL));
    ck_assert_msg((uint64_t)arg.index == POISON64, "the refused synchronous call wrote its output");
    uint64_t host = POISON64;
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_dot(H, DP(x), DP(x), CURED_TYPE_INT32, HUGE_N, &host,
                                                     CURED_TYPE_INT64, NULL));
    cured_custom op = NULL;
    CURED_OK(cured_custom_create(H, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a+b", "0", &op));
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_custom_reduce(H, op, DP(x), NULL, HUGE_N, &host, NULL));
    CURED_OK(cured_custom_destroy(op));
    expect_context_alive(x, h, "dot and user op");
}
END_TEST

START_TEST(test_second_input_out_of_range)
{
    uint32_t h[SMALL];
    struct rng r;
    rng_init(&r, "out-of-range", 1);
    fill_random(&r, h, SMALL);
    CUdeviceptr x = dev_alloc(HUGE_N / 64 * 4), y = dev_alloc(SMALL * 4), out = dev_alloc(16);
    upload(x, h, sizeof h);
    poison(out, 16);
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_dot_async(H, DP(x), DP(y), CURED_TYPE_INT32, HUGE_N / 64, DP(out),
                                                           CURED_TYPE_INT64, NULL));
    ck_assert_msg(strstr(cured_last_error(), "the second input (y)") != NULL, "%s", cured_last_error());
    unsigned char got[16];
    download(got, out, sizeof got);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "the refused call wrote its output (byte %d)", i);
    expect_context_alive(x, h, "second input");
}
END_TEST

/* --reset: a user op used before and after a primary context reset. Prints "ok SAME" or "error: ...". */
static int reset_child(void)
{
    const char *why = "?";
    const struct cr_driver_all *d = cr_driver_all_load(&why, NULL);
    if (d == NULL)
        return printf("error: %s\n", why), 1;
    enum { N = 4096 };
    static int32_t h[N];
    int64_t want = 0;
    for (int i = 0; i < N; i++)
        want += 2 * (h[i] = i % 7 - 3);
    CUdevice dev = 0;
    CUcontext ctx = NULL, again = NULL, popped;
    CUdeviceptr x = 0;
    cured_handle h1 = NULL, h2 = NULL;
    cured_custom op = NULL;
    int64_t before = 0, after = 0;
    CUresult r = d->DeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS && (r = d->DevicePrimaryCtxRetain(&ctx, dev)) == CUDA_SUCCESS &&
        (r = d->CtxPushCurrent(ctx)) == CUDA_SUCCESS && (r = d->MemAlloc(&x, sizeof h)) == CUDA_SUCCESS)
        r = d->MemcpyHtoD(x, h, sizeof h);
    if (r != CUDA_SUCCESS)
        return printf("error: before the reset: %s\n", cr_driver_error_text(r)), 1;
    cured_status st = cured_create(0, &h1);
    if (st == CURED_SUCCESS)
        st = cured_custom_create(h1, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 2", "a+b", "0", &op);
    if (st == CURED_SUCCESS)
        st = cured_custom_reduce(h1, op, DP(x), NULL, N, &before, NULL);
    if (st == CURED_SUCCESS)
        st = cured_destroy(h1);
    if (st != CURED_SUCCESS)
        return printf("error: before the reset: %s: %s\n", cured_status_string(st), cured_last_error()), 1;
    d->CtxPopCurrent(&popped);
    if ((r = d->DevicePrimaryCtxReset(dev)) != CUDA_SUCCESS ||
        (r = d->DevicePrimaryCtxRetain(&again, dev)) != CUDA_SUCCESS || (r = d->CtxPushCurrent(again)) != CUDA_SUCCESS ||
        (r = d->MemAlloc(&x, sizeof h)) != CUDA_SUCCESS || (r = d->MemcpyHtoD(x, h, sizeof h)) != CUDA_SUCCESS)
        return printf("error: resetting the primary context: %s\n", cr_driver_error_text(r)), 1;
    st = cured_create(0, &h2);
    if (st == CURED_SUCCESS)
        st = cured_custom_reduce(h2, op, DP(x), NULL, N, &after, NULL);
    if (st != CURED_SUCCESS)
        return printf("error: the op after the reset: %s: %s\n", cured_status_string(st), cured_last_error()), 1;
    if (before != want || after != want)
        return printf("error: sums %lld before and %lld after the reset, want %lld\n", (long long)before,
                      (long long)after, (long long)want), 1;
    if ((st = cured_custom_destroy(op)) != CURED_SUCCESS || (st = cured_destroy(h2)) != CURED_SUCCESS)
        return printf("error: cleaning up: %s\n", cured_last_error()), 1;
    d->MemFree(x);
    d->CtxPopCurrent(&popped);
    d->DevicePrimaryCtxRelease(dev);
    d->DevicePrimaryCtxRelease(dev);
    printf("ok %s\n", again == ctx ? "same" : "new"); /* "same": the case a CUcontext key got wrong */
    return 0;
}

START_TEST(test_custom_after_primary_reset)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (dup2(fd[1], STDOUT_FILENO) < 0)
            _exit(126);
        close(fd[0]);
        close(fd[1]);
        execl("/proc/self/exe", "test-gpu-harden", "--reset", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[1024];
    ssize_t n, len = 0;
    while ((n = read(fd[0], out + len, sizeof out - 1 - (size_t)len)) > 0 || (n < 0 && errno == EINTR))
        len += n > 0 ? n : 0;
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strncmp(out, "ok ", 3) == 0,
                  "the reset process failed (status 0x%x): %s", (unsigned)status, out);
    printf("test_custom_after_primary_reset: the context's handle after the reset: %s", out + 3);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--reset") == 0)
        return reset_child();
    Suite *s = suite_create("gpu-harden");
    TCase *tc = tcase_create("harden");
    tcase_add_checked_fixture(tc, gpu_setup, gpu_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_input_out_of_range);
    tcase_add_test(tc, test_second_input_out_of_range);
    tcase_add_test(tc, test_custom_after_primary_reset);
    suite_add_tcase(s, tc);
    return gpu_main("test-gpu-harden", s);
}
