/*
 * The device-side checks off the GPU, against tests/fakecuda.c in its
 * one-device mode (FAKECUDA_DEVICE=1): inputs and outputs that run past
 * their allocations are refused with CURED_ERROR_OUT_OF_RANGE before
 * anything is launched (also views along axes and padded output layouts) (adjacent allocations count as mapped, memory the
 * driver cannot size is not checked); cured_dot names y as y; a driver
 * lacking entry points the library never calls still serves cured_create;
 * a user op used again after a primary context reset loads its module anew
 * (needs NVRTC, else skipped). Each test runs in its own process (Check's
 * fork mode), which loads the driver at its first call.
 */
#include "api_test.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fake_driver;
static void *(*fake_alloc)(size_t bytes, int sized, size_t gap_after);
static int (*fake_launches)(void);
static int (*fake_loads)(void);
static void (*fake_reset)(void);

/* The fake driver with a device, loaded now; NVRTC missing unless asked for. */
static cured_handle fake_handle(int nvrtc)
{
    ck_assert_int_eq(setenv("FAKECUDA_DEVICE", "1", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", fake_driver, 1), 0);
    if (!nvrtc)
        no_nvrtc();
    cured_handle h = NULL;
    cured_status st = cured_create(0, &h);
    ck_assert_msg(st == CURED_SUCCESS, "cured_create with the fake device: %s", cured_last_error());
    void *lib = dlopen(fake_driver, RTLD_NOW | RTLD_NOLOAD); /* the copy the library loaded */
    ck_assert_ptr_nonnull(lib);
    *(void **)&fake_alloc = dlsym(lib, "fake_alloc");
    *(void **)&fake_launches = dlsym(lib, "fake_launches");
    *(void **)&fake_loads = dlsym(lib, "fake_loads");
    *(void **)&fake_reset = dlsym(lib, "fake_reset");
    ck_assert_msg(fake_alloc && fake_launches && fake_loads && fake_reset, "the fake driver lacks its test hooks");
    return h;
}

static void expect(cured_status got, cured_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: got %s, want %s: %s", what, cured_status_string(got), cured_status_string(want),
                  cured_last_error());
}

#define POISON 0x5a5a5a5a5a5a5a5aull

/* 1024 int32 allocated (with unmapped memory after them), n = 2^28: refused, nothing launched. */
START_TEST(test_input_out_of_range)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(1024 * 4, 1, 4096);
    uint64_t *out = fake_alloc(256, 1, 4096);
    *out = POISON;
    uint64_t host = POISON;
    clear_error();
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, (size_t)1 << 28, out,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_OUT_OF_RANGE, "n = 2^28 over 1024 elements");
    assert_message_contains("the message", "the input");
    assert_message_contains("the message", "+ 1073741824)"); /* the requested range */
    assert_message_contains("the message", "+ 4096)");       /* the allocation */
    expect(cured_reduce(h, CURED_OP_MAX, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1025, &host, CURED_TYPE_INT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "one element too many, synchronous");
    ck_assert_msg(*out == POISON && host == POISON, "a refused call wrote its output");
    ck_assert_int_eq(fake_launches(), 0);
    /* In range: the checks pass (the call then stops for want of NVRTC). */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64,
                              NULL),
           CURED_ERROR_NO_NVRTC, "all 1024 elements");
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x + 1000, CURED_TYPE_INT32, 24, out,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_NO_NVRTC, "the last 24 elements");
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x + 1000, CURED_TYPE_INT32, 25, out,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_OUT_OF_RANGE, "the last 24 elements and one more");
    /* Plain host memory is still NOT_DEVICE_POINTER. */
    int32_t on_host[4] = {0};
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, on_host, CURED_TYPE_INT32, 4, out, CURED_TYPE_INT64,
                              NULL),
           CURED_ERROR_NOT_DEVICE_POINTER, "host input");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

START_TEST(test_output_out_of_range)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(4096, 1, 0);
    unsigned char *slot = fake_alloc(256, 1, 4096); /* unmapped memory after it */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 16, slot + 248,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_NO_NVRTC, "an int64 result in the last 8 bytes");
    expect(cured_reduce_async(h, CURED_OP_ARGMAX, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 16, slot + 248,
                              CURED_TYPE_INT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "a 16-byte ARG result in the last 8 bytes");
    assert_message_contains("the message", "the output");
    expect(cured_reduce_async(h, CURED_OP_MINMAX, CURED_ALGO_AUTO, x, CURED_TYPE_INT64, 16, slot + 248,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_OUT_OF_RANGE, "a 16-byte MINMAX result in the last 8 bytes");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Views along axes: the last element a layout reaches, and the last result of a
 * (padded) output layout, are checked against the allocations; stride-0
 * views reach one element however large they are. Nothing is launched. */
START_TEST(test_axes_out_of_range)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(1024 * 4, 1, 4096);
    int64_t *out = fake_alloc(256, 1, 4096);
    out[0] = (int64_t)POISON;
    const cured_layout fits = {2, {32, 32}, {32, 1}}, over = {2, {32, 33}, {32, 1}};
    const cured_layout wide = {2, {(int64_t)1 << 20, (int64_t)1 << 20}, {0, 0}};
    const cured_layout padded = {1, {32}, {2}};
    const struct {
        const char *what;
        const cured_layout *in, *ol;
        uint32_t axes;
        const void *o;
        cured_status want;
    } cases[] = {
        {"32 rows of 32", &fits, NULL, 2u, out, CURED_ERROR_NO_NVRTC},
        {"rows of 33: one element past", &over, NULL, 2u, out, CURED_ERROR_OUT_OF_RANGE},
        {"32 results one past", &fits, NULL, 2u, out + 1, CURED_ERROR_OUT_OF_RANGE},
        {"32 results two apart", &fits, &padded, 2u, out, CURED_ERROR_OUT_OF_RANGE},
        {"2^40 elements of stride 0", &wide, NULL, 3u, out, CURED_ERROR_NO_NVRTC},
        {"the columns of rows of 33", &over, NULL, 1u, out, CURED_ERROR_OUT_OF_RANGE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        clear_error();
        expect(cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_INT32, cases[k].in, cases[k].axes,
                                       (void *)cases[k].o, CURED_TYPE_INT64, cases[k].ol, NULL),
               cases[k].want, cases[k].what);
        if (cases[k].want == CURED_ERROR_OUT_OF_RANGE)
            assert_message_contains(cases[k].what, cases[k].o == out && cases[k].ol == NULL ? "the input" : "the output");
        expect(cured_reduce_axes_stats_async(h, CURED_OP_VAR, x, CURED_TYPE_INT32, cases[k].in, cases[k].axes, 1.0,
                                             (void *)cases[k].o, CURED_TYPE_FLOAT64, cases[k].ol, NULL),
               cases[k].want, cases[k].what);
    }
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_MAX, x, CURED_TYPE_INT32, 32, 33, out, CURED_TYPE_INT32,
                                                NULL),
           CURED_ERROR_OUT_OF_RANGE, "32 segments of 33 over 1024 elements");
    ck_assert_msg(out[0] == (int64_t)POISON, "a refused call wrote its output");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* DOT through the one-input calls, a non-statistic through the statistics' calls:
 * INVALID_VALUE naming the right call, nothing launched or written. */
START_TEST(test_wrong_entry_points)
{
    cured_handle h = fake_handle(0);
    float *x = fake_alloc(4096, 1, 0);
    double *out = fake_alloc(256, 1, 0);
    out[0] = -1.5;
    double host = -1.5;
    const cured_layout l = {1, {16}, {1}};
    expect(cured_reduce_async(h, CURED_OP_DOT, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 16, out, CURED_TYPE_FLOAT64,
                              NULL),
           CURED_ERROR_INVALID_VALUE, "DOT through cured_reduce_async");
    assert_message_contains("DOT async", "cured_dot_async()");
    expect(cured_reduce(h, CURED_OP_DOT, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 16, &host, CURED_TYPE_FLOAT64, NULL),
           CURED_ERROR_INVALID_VALUE, "DOT through cured_reduce");
    assert_message_contains("DOT sync", "cured_dot()");
    expect(cured_reduce_axes_async(h, CURED_OP_DOT, x, CURED_TYPE_FLOAT32, &l, 1u, out, CURED_TYPE_FLOAT64, NULL,
                                   NULL),
           CURED_ERROR_INVALID_VALUE, "DOT along axes");
    expect(cured_reduce_stats_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 16, 0.0, out, CURED_TYPE_FLOAT64, NULL),
           CURED_ERROR_INVALID_VALUE, "SUM through cured_reduce_stats_async");
    expect(cured_reduce_axes_stats_async(h, CURED_OP_ARGMAX, x, CURED_TYPE_FLOAT32, &l, 1u, 0.0, out,
                                         CURED_TYPE_FLOAT32, NULL, NULL),
           CURED_ERROR_INVALID_VALUE, "ARGMAX through cured_reduce_axes_stats_async");
    ck_assert_msg(out[0] == -1.5 && host == -1.5, "a refused call wrote its output");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Allocations mapped back to back (a virtual reservation's chunks) are one range; a gap ends it. */
START_TEST(test_adjacent_and_unsized)
{
    cured_handle h = fake_handle(0);
    uint64_t *out = fake_alloc(256, 1, 4096);
    float *a = fake_alloc(4096, 1, 0);
    fake_alloc(4096, 1, 0);
    fake_alloc(4096, 1, 4096); /* then a gap */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, a, CURED_TYPE_FLOAT32, 3 * 1024, out,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "three adjacent allocations");
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, a, CURED_TYPE_FLOAT32, 3 * 1024 + 1, out,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "three adjacent allocations and one element");
    /* Memory the driver reports no range for is not checked. */
    float *unsized = fake_alloc(4096, 0, 4096);
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, unsized, CURED_TYPE_FLOAT32, (size_t)1 << 28, out,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "memory the driver cannot size");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* cured_dot's y: its own messages, and its own range; a user op's inputs too. */
START_TEST(test_dot_and_custom)
{
    cured_handle h = fake_handle(0);
    float *x = fake_alloc(4096, 1, 0), *y = fake_alloc(1024, 1, 4096);
    float *out = fake_alloc(256, 1, 4096);
    clear_error();
    expect(cured_dot_async(h, x, NULL, CURED_TYPE_FLOAT32, 16, out, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NULL_POINTER, "a NULL y");
    assert_message_contains("a NULL y", "the second input (y) is NULL");
    expect(cured_dot_async(h, x, (char *)y + 2, CURED_TYPE_FLOAT32, 16, out, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_MISALIGNED, "a misaligned y");
    assert_message_contains("a misaligned y", "the second input (y)");
    expect(cured_dot_async(h, x, y, CURED_TYPE_FLOAT32, 1024, out, CURED_TYPE_FLOAT32, NULL), CURED_ERROR_OUT_OF_RANGE,
           "y shorter than x");
    assert_message_contains("y shorter than x", "the second input (y) [");
    expect(cured_dot_async(h, x, y, CURED_TYPE_FLOAT32, 256, out, CURED_TYPE_FLOAT32, NULL), CURED_ERROR_NO_NVRTC,
           "both long enough");
    cured_custom op = NULL;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 2, "x*y", "a+b", "0", &op), 0);
    expect(cured_custom_reduce_async(h, op, x, y, 1024, out, NULL), CURED_ERROR_OUT_OF_RANGE, "a user op's short y");
    expect(cured_custom_reduce_async(h, op, y, x, (size_t)1 << 30, out, NULL), CURED_ERROR_OUT_OF_RANGE,
           "a user op's short x");
    ck_assert_int_eq(fake_launches(), 0);
    cured_custom_destroy(op);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Entry points cured never calls may be missing from the driver (issue 11); those it calls may not. */
START_TEST(test_missing_entry_points)
{
    ck_assert_int_eq(setenv("FAKECUDA_MISSING", "cuMemAllocHost,cuEventElapsedTime,cuGraphLaunch,cuMemcpyHtoD,"
                                                "cuCtxSynchronize,cuDeviceTotalMem",
                            1),
                     0);
    cured_handle h = fake_handle(0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

START_TEST(test_missing_needed_entry_point)
{
    ck_assert_int_eq(setenv("FAKECUDA_MISSING", "cuLaunchKernel", 1), 0);
    ck_assert_int_eq(setenv("FAKECUDA_DEVICE", "1", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", fake_driver, 1), 0);
    cured_handle h = NULL;
    clear_error();
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DRIVER);
    assert_message_contains("cured_create", "does not provide cuLaunchKernel");
}
END_TEST

/* A user op after a primary context reset: the context keeps its handle but not its id, and the
 * op loads its module again instead of launching the old one (issue 13, item 11). */
START_TEST(test_custom_after_reset)
{
    if (cured_nvrtc_version(NULL, NULL) != CURED_SUCCESS) {
        printf("test_custom_after_reset: NVRTC is not available (%s): not tested\n", cured_last_error());
        return;
    }
    cured_handle h = fake_handle(1);
    struct CUctx_st *ctx = (struct CUctx_st *)h->ctx;
    cured_custom op = NULL;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 2", "a+b", "0", &op), CURED_SUCCESS,
           "cured_custom_create");
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t got = 0;
    expect(cured_custom_reduce(h, op, x, NULL, 1024, &got, NULL), CURED_SUCCESS, "before the reset");
    ck_assert_int_eq(fake_loads(), 1);
    ck_assert_int_eq(fake_launches(), 1);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
    fake_reset();
    cured_handle h2 = NULL;
    expect(cured_create(0, &h2), CURED_SUCCESS, "cured_create after the reset");
    ck_assert_msg((struct CUctx_st *)h2->ctx == ctx, "test bug: the fake driver gave the context a new handle");
    x = fake_alloc(4096, 1, 0);
    expect(cured_custom_reduce(h2, op, x, NULL, 1024, &got, NULL), CURED_SUCCESS, "after the reset");
    ck_assert_msg(fake_loads() == 2, "the op's module was not loaded again in the new context (%d loads)",
                  fake_loads());
    ck_assert_int_eq(fake_launches(), 2);
    ck_assert_int_eq(cured_custom_destroy(op), CURED_SUCCESS);
    ck_assert_int_eq(cured_destroy(h2), CURED_SUCCESS);
}
END_TEST

int main(void)
{
    fake_driver = getenv("CURED_TEST_FAKE_DRIVER");
    if (fake_driver == NULL || access(fake_driver, R_OK) != 0) {
        printf("SKIP: the fake driver library %s was not built (static-only build?)\n",
               fake_driver ? fake_driver : "(CURED_TEST_FAKE_DRIVER unset)");
        return 77;
    }
    Suite *s = suite_create("fakedev");
    TCase *tc = tcase_create("fakedev");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_input_out_of_range);
    tcase_add_test(tc, test_output_out_of_range);
    tcase_add_test(tc, test_axes_out_of_range);
    tcase_add_test(tc, test_wrong_entry_points);
    tcase_add_test(tc, test_adjacent_and_unsized);
    tcase_add_test(tc, test_dot_and_custom);
    tcase_add_test(tc, test_missing_entry_points);
    tcase_add_test(tc, test_missing_needed_entry_point);
    tcase_add_test(tc, test_custom_after_reset);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
