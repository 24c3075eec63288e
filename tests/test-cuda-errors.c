/*
 * Driver calls that fail, off the GPU: tests/fakecuda.c's device with one
 * entry point failing (FAKECUDA_FAIL). Each failure gives the documented
 * status (CURED_ERROR_CUDA, or OUT_OF_MEMORY) with the call named in the
 * message; a failed cured_create leaves no handle and no retain, a failed
 * call writes neither output and leaves no context pushed, and
 * cured_destroy reports a failed free or unload yet releases the primary
 * context. The cases that load a kernel need NVRTC (one small compile each;
 * skipped without it). Each case runs in its own process (Check's fork
 * mode), which loads the driver at its first call.
 */
#include "fake_device.h"

#include <stdint.h>

enum step { CREATE, ASYNC, SYNC, STREAM17, DESTROY };
static const struct {
    const char *fail; /* the entry point that fails */
    enum step step;
    int nvrtc;        /* a kernel must load first */
    cured_status want;
    const char *needle;
} cases[] = {
    {"cuDeviceGetAttribute", CREATE, 0, CURED_ERROR_CUDA, "reading device attributes"},
    {"cuMemAlloc", CREATE, 0, CURED_ERROR_CUDA, "cuMemAlloc of the per-stream workspace"},
    {"cuMemsetD32Async", CREATE, 0, CURED_ERROR_CUDA, "zeroing the per-stream workspace"},
    {"cuPointerGetAttributes", ASYNC, 0, CURED_ERROR_CUDA, "cuPointerGetAttributes"},
    {"cuStreamIsCapturing", STREAM17, 0, CURED_ERROR_CUDA, "cuStreamIsCapturing"},
    {"cuModuleLoadData", ASYNC, 1, CURED_ERROR_CUDA, "cuModuleLoadData"},
    {"cuModuleGetFunction", ASYNC, 1, CURED_ERROR_CUDA, "cuModuleGetFunction"},
    {"cuLaunchKernel", ASYNC, 1, CURED_ERROR_CUDA, "cuLaunchKernel"},
    {"cuMemcpyDtoHAsync", SYNC, 1, CURED_ERROR_CUDA, "reading the result back"},
    {"cuMemFree", DESTROY, 0, CURED_ERROR_CUDA, "cuMemFree"},
    {"cuModuleUnload", DESTROY, 1, CURED_ERROR_CUDA, "cuModuleUnload"},
};

#define POISON 0x5a5a5a5a5a5a5a5all
#define STREAM(i) ((struct CUstream_st *)(uintptr_t)(0x1000 + 16 * (i)))

START_TEST(test_failing_call)
{
    const char *fail = cases[_i].fail, *needle = cases[_i].needle;
    const enum step step = cases[_i].step;
    ck_assert_int_eq(setenv("FAKECUDA_FAIL", fail, 1), 0);
    if (cases[_i].nvrtc && cured_nvrtc_version(NULL, NULL) != CURED_SUCCESS) {
        printf("%s: no NVRTC (%s): not tested\n", fail, cured_last_error());
        return;
    }
    fake_use(cases[_i].nvrtc);
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    cured_status st = cured_create(0, &h);
    fake_hooks();
    if (step == CREATE) {
        expect(st, cases[_i].want, fail);
        assert_message_contains(fail, needle);
        ck_assert_msg(h == NULL && counts().retains == 0 && counts().pushed == 0,
                      "%s: a handle, a retain or a pushed context left", fail);
        return;
    }
    expect(st, CURED_SUCCESS, "cured_create");
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(256, 1, 0), host = (int64_t)POISON;
    *out = (int64_t)POISON;
    clear_error();
    if (step == ASYNC) {
        st = cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64,
                                NULL);
    } else if (step == SYNC) {
        st = cured_reduce(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, &host, CURED_TYPE_INT64, NULL);
    } else if (step == STREAM17) {
        for (int i = 0; i < 16; i++)
            expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                                      STREAM(i)),
                   CURED_ERROR_NO_NVRTC, "the first 16 streams");
        clear_error();
        st = cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                                STREAM(16));
    } else { /* DESTROY: with a kernel loaded when NVRTC is asked for */
        expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64,
                                  NULL),
               cases[_i].nvrtc ? CURED_SUCCESS : CURED_ERROR_NO_NVRTC, "a call before cured_destroy");
        *out = (int64_t)POISON;
        clear_error();
        st = cured_destroy(h);
        h = NULL;
    }
    expect(st, cases[_i].want, fail);
    assert_message_contains(fail, needle);
    const struct fake_counts c = counts();
    ck_assert_msg(*out == (int64_t)POISON && host == (int64_t)POISON, "%s: an output was written", fail);
    ck_assert_msg(c.pushed == 0, "%s: the handle's context is still current", fail);
    ck_assert_msg(step == DESTROY || c.launches == 0 || strcmp(fail, "cuMemcpyDtoHAsync") == 0,
                  "%s: %d launches", fail, c.launches);
    if (h != NULL)
        expect(cured_destroy(h), strcmp(fail, "cuMemFree") == 0 ? CURED_ERROR_CUDA : CURED_SUCCESS, "destroy");
    ck_assert_msg(counts().retains == 0, "%s: the primary context was not released", fail);
}
END_TEST

int main(void)
{
    if (!fake_driver_found())
        return 77;
    Suite *s = suite_create("cuda-errors");
    TCase *tc = tcase_create("cuda-errors");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_failing_call, 0, (int)(sizeof cases / sizeof *cases));
    suite_add_tcase(s, tc);
    return run_suite(s);
}
