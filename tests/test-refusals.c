/*
 * cured.h's "on error nothing was launched or written" for every public
 * reduce call, through a live handle on tests/fakecuda.c's device (no
 * NVRTC, so a call that passes its checks stops at NO_NVRTC): each bad
 * input gets its documented status and a message naming the fault, leaves
 * the device output and the host output as they were, and makes no launch,
 * allocation, memset or synchronisation; the caller's context (none) is
 * current again afterwards. Calls with nothing to do succeed with nothing
 * launched. Each test runs in its own process (Check's fork mode).
 */
#include "fake_device.h"

#include <math.h>
#include <stdint.h>

#define POISON 0x5a
static cured_handle H;
static unsigned char *X, *OUT, HOST[64]; /* 4096 and 256 device bytes, each followed by unmapped memory */
static int32_t *OFF;                     /* 64 int32 offsets (256 bytes), then unmapped memory */
static struct fake_counts before;

static void setup(void)
{
    H = fake_handle(0);
    X = fake_alloc(4096, 1, 4096);
    OUT = fake_alloc(256, 1, 4096);
    OFF = fake_alloc(256, 1, 4096);
    memset(X, 0, 4096);
    memset(OUT, POISON, 256);
    memset(HOST, POISON, sizeof HOST);
    before = counts();
}

static void refused(const char *call, cured_status got, cured_status want, const char *needle)
{
    ck_assert_msg(got == want, "%s: got %s, want %s: %s", call, cured_status_string(got), cured_status_string(want),
                  cured_last_error());
    if (want != CURED_SUCCESS)
        assert_message_contains(call, needle);
    else /* successful calls leave the last failing call's message (cleared here) as it was */
        ck_assert_msg(cured_last_error()[0] == '\0', "%s: a success left a message: %s", call, cured_last_error());
    for (int i = 0; i < 256; i++)
        ck_assert_msg(OUT[i] == POISON, "%s: wrote device byte %d", call, i);
    for (size_t i = 0; i < sizeof HOST; i++)
        ck_assert_msg(HOST[i] == POISON, "%s: wrote host byte %zu", call, i);
    const struct fake_counts c = counts();
    ck_assert_msg(c.launches == before.launches && c.allocs == before.allocs && c.memsets == before.memsets &&
                      c.syncs == before.syncs,
                  "%s: %d launches, %d allocations, %d memsets, %d syncs", call, c.launches - before.launches,
                  c.allocs - before.allocs, c.memsets - before.memsets, c.syncs - before.syncs);
    ck_assert_msg(c.pushed == 0, "%s: the handle's context is still current (%d pushed)", call, c.pushed);
}

/* REFUSE(status, text the message holds, the call): one row of a table. */
#define REFUSE(want, needle, call) (clear_error(), refused(#call, (call), (want), (needle)))

static const cured_type I32 = CURED_TYPE_INT32, I64 = CURED_TYPE_INT64, F32 = CURED_TYPE_FLOAT32,
                        F64 = CURED_TYPE_FLOAT64;
#define AUTO CURED_ALGO_AUTO

START_TEST(test_reduce)
{
    setup();
    int32_t on_host[4];
    REFUSE(CURED_ERROR_NULL_HANDLE, "handle", cured_reduce_async(NULL, CURED_OP_SUM, AUTO, X, I32, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_INVALID_ENUM, "operator 99",
           cured_reduce_async(H, (cured_op)99, AUTO, X, I32, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_INVALID_ENUM, "algorithm 7",
           cured_reduce_async(H, CURED_OP_SUM, (cured_algorithm)7, X, I32, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_INVALID_ENUM, "input type",
           cured_reduce_async(H, CURED_OP_SUM, AUTO, X, (cured_type)12, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_INVALID_ENUM, "result type",
           cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 4, OUT, (cured_type)-1, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "cured_dot_async",
           cured_reduce_async(H, CURED_OP_DOT, AUTO, X, F32, 4, OUT, F32, NULL));
    REFUSE(CURED_ERROR_TYPE_MISMATCH, "AND", cured_reduce_async(H, CURED_OP_AND, AUTO, X, F32, 4, OUT, F32, NULL));
    REFUSE(CURED_ERROR_TYPE_MISMATCH, "SUM", cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 4, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NOT_SUPPORTED, "AUTO",
           cured_reduce_async(H, CURED_OP_MAX, CURED_ALGO_TWO_PASS_SHARED, X, I32, 4, OUT, I32, NULL));
    REFUSE(CURED_ERROR_EMPTY_INPUT, "empty", cured_reduce_async(H, CURED_OP_ARGMAX, AUTO, X, F32, 0, OUT, F32, NULL));
    REFUSE(CURED_ERROR_EMPTY_INPUT, "empty",
           cured_reduce_async(H, CURED_OP_MINMAX, AUTO, NULL, I32, 0, OUT, I32, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "output", cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 4, NULL, I64, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "input", cured_reduce_async(H, CURED_OP_SUM, AUTO, NULL, I32, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflows",
           cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, SIZE_MAX / 2, OUT, I64, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "input", cured_reduce_async(H, CURED_OP_SUM, AUTO, X + 2, I32, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "8 bytes",
           cured_reduce_async(H, CURED_OP_ARGMIN, AUTO, X, I32, 4, OUT + 4, I32, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "input",
           cured_reduce_async(H, CURED_OP_SUM, AUTO, on_host, I32, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "output",
           cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 4, HOST, I64, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "input", cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 1025, OUT, I64, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "output",
           cured_reduce_async(H, CURED_OP_MINMAX, AUTO, X, F64, 4, OUT + 248, F64, NULL));
    /* The synchronous call: its host output, and the statistics' statuses (nothing launched). */
    REFUSE(CURED_ERROR_NULL_POINTER, "output", cured_reduce(H, CURED_OP_SUM, AUTO, X, I32, 4, NULL, I64, NULL));
    REFUSE(CURED_ERROR_TOO_FEW_ELEMENTS, "n = 0", cured_reduce(H, CURED_OP_MEAN, AUTO, NULL, F32, 0, HOST, F32, NULL));
    REFUSE(CURED_ERROR_TOO_FEW_ELEMENTS, "ddof", cured_reduce(H, CURED_OP_MEAN_VAR, AUTO, X, F32, 0, HOST, F32, NULL));
    REFUSE(CURED_ERROR_EMPTY_INPUT, "empty", cured_reduce(H, CURED_OP_NANARGMAX, AUTO, X, F32, 0, HOST, F32, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "cured_dot()", cured_reduce(H, CURED_OP_DOT, AUTO, X, F32, 4, HOST, F32, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "input", cured_reduce(H, CURED_OP_MAX, AUTO, X, I32, 1025, HOST, I32, NULL));
    /* Checks passed: the call goes on to compile (no NVRTC here), still writing nothing. */
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 1024, OUT, I64, NULL));
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_reduce(H, CURED_OP_VAR, AUTO, X, F32, 1, HOST, F32, NULL));
    ck_assert_int_eq(cured_destroy(H), CURED_SUCCESS);
}
END_TEST

START_TEST(test_stats_and_dot)
{
    setup();
    REFUSE(CURED_ERROR_INVALID_VALUE, "not SUM",
           cured_reduce_stats_async(H, CURED_OP_SUM, X, F32, 4, 0, OUT, F32, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "ddof", cured_reduce_stats_async(H, CURED_OP_VAR, X, F32, 4, -1, OUT, F32, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "ddof",
           cured_reduce_stats_async(H, CURED_OP_MEAN, X, F32, 4, NAN, OUT, F32, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "ddof",
           cured_reduce_stats(H, CURED_OP_STD, X, F32, 4, INFINITY, HOST, F32, NULL));
    REFUSE(CURED_ERROR_TYPE_MISMATCH, "VAR", cured_reduce_stats_async(H, CURED_OP_VAR, X, F32, 4, 1, OUT, I32, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "output",
           cured_reduce_stats_async(H, CURED_OP_MEAN_VAR, X, F32, 4, 1, OUT + 2, F32, NULL));
    REFUSE(CURED_ERROR_TOO_FEW_ELEMENTS, "n <= ddof",
           cured_reduce_stats(H, CURED_OP_VAR, X, F32, 2, 2, HOST, F64, NULL));
    REFUSE(CURED_ERROR_TOO_FEW_ELEMENTS, "n <= ddof",
           cured_reduce_stats(H, CURED_OP_STD, X, F32, 2, 2.5, HOST, F64, NULL));
    REFUSE(CURED_ERROR_NULL_HANDLE, "handle", cured_reduce_stats(NULL, CURED_OP_VAR, X, F32, 2, 0, HOST, F64, NULL));
    /* n <= ddof is no error for the asynchronous call (NaN), nor for LOGSUMEXP and a fractional ddof below n. */
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_reduce_stats_async(H, CURED_OP_VAR, X, F32, 2, 2, OUT, F64, NULL));
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_reduce_stats(H, CURED_OP_LOGSUMEXP, NULL, F32, 0, 5, HOST, F32, NULL));
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_reduce_stats(H, CURED_OP_VAR, X, F32, 3, 2.5, HOST, F64, NULL));
    REFUSE(CURED_ERROR_NULL_HANDLE, "handle", cured_dot_async(NULL, X, X, F32, 4, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "(y)", cured_dot_async(H, X, NULL, F32, 4, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "input", cured_dot(H, NULL, X, F32, 4, HOST, F32, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "(y)", cured_dot_async(H, X, X + 1, CURED_TYPE_INT16, 4, OUT, I64, NULL));
    REFUSE(CURED_ERROR_TYPE_MISMATCH, "DOT", cured_dot_async(H, X, X, I32, 4, OUT, F32, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "(y)", cured_dot_async(H, X, X + 4, F32, 1024, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "output", cured_dot(H, X, X, F32, 4, NULL, F32, NULL));
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_dot(H, NULL, NULL, F32, 0, HOST, F32, NULL));
    ck_assert_int_eq(cured_destroy(H), CURED_SUCCESS);
}
END_TEST

START_TEST(test_axes_and_segments)
{
    setup();
    const cured_layout m = {2, {8, 16}, {16, 1}}, rank9 = {9, {1}, {1}}, neg = {2, {8, 16}, {-16, 1}};
    const cured_layout none = {2, {0, 16}, {16, 1}}, huge = {2, {(int64_t)1 << 40, (int64_t)1 << 40}, {0, 0}};
    const cured_layout o_rank = {2, {8, 1}, {1, 1}}, o_overlap = {1, {8}, {0}}, o_padded = {1, {8}, {40}};
    int32_t host_off[4] = {0};
    REFUSE(CURED_ERROR_NULL_HANDLE, "handle",
           cured_reduce_axes_async(NULL, CURED_OP_SUM, X, I32, &m, 2, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "layout",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, NULL, 2, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "rank 9",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &rank9, 1, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "stride -16",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &neg, 2, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "0x4",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &m, 4, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "two inputs",
           cured_reduce_axes_async(H, CURED_OP_DOT, X, F32, &m, 2, OUT, F32, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "rank 2",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &m, 2, OUT, I64, &o_rank, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "one address",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &m, 2, OUT, I64, &o_overlap, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "output",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &m, 2, OUT, I64, &o_padded, NULL));
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflows",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &huge, 0, OUT, I64, NULL, NULL));
    /* A last offset of exactly 2^64 - 1 elements (2 (2^63 - 1) + 1), whose count wraps to 0: of the
     * output layout, and of a view of 1-byte elements. */
    const cured_layout m32 = {2, {3, 2}, {2, 1}}, wrap = {2, {3, 2}, {INT64_MAX, 1}};
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflows",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &m32, 0, OUT, I64, &wrap, NULL));
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflows",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, CURED_TYPE_INT8, &wrap, 2, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "8 bytes",
           cured_reduce_axes_async(H, CURED_OP_ARGMAX, X, I32, &m, 2, OUT + 4, I32, NULL, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "input",
           cured_reduce_axes_async(H, CURED_OP_SUM, HOST, I32, &m, 2, OUT, I64, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "ddof",
           cured_reduce_axes_stats_async(H, CURED_OP_VAR, X, F32, &m, 2, -0.5, OUT, F32, NULL, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "MIN",
           cured_reduce_axes_stats_async(H, CURED_OP_MIN, X, F32, &m, 2, 0, OUT, F32, NULL, NULL));
    /* No outputs: success, nothing launched (the output may then be NULL). */
    REFUSE(CURED_SUCCESS, "", cured_reduce_axes_async(H, CURED_OP_ARGMAX, X, F32, &none, 2, NULL, F32, NULL, NULL));
    REFUSE(CURED_SUCCESS, "",
           cured_reduce_axes_stats_async(H, CURED_OP_VAR, NULL, F32, &none, 2, 1, NULL, F32, NULL, NULL));
    /* Segments: the offset type and the offset arrays (in device memory, each num_segments long). */
    REFUSE(CURED_ERROR_INVALID_VALUE, "int32 or int64",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 4, OFF, OFF + 1, CURED_TYPE_UINT32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "begin offsets",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 3, host_off, OFF + 1, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "end offsets",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 3, OFF, host_off + 1, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "end offsets",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 64, OFF, OFF + 1, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "begin offsets",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 33, OFF, OFF, I64, OUT, F32, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "output",
           cured_segmented_reduce_async(H, CURED_OP_ARGMIN, X, F32, 15, OFF, OFF + 1, I32, OUT + 32, F32, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "offset",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 4, OFF, OFF + 1, I64, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "end",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 4, OFF, NULL, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "input",
           cured_segmented_reduce_async(H, CURED_OP_SUM, NULL, F32, 4, OFF, OFF, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "two inputs",
           cured_segmented_reduce_async(H, CURED_OP_DOT, X, F32, 4, OFF, OFF, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "ddof",
           cured_segmented_reduce_stats_async(H, CURED_OP_STD, X, F32, 4, OFF, OFF, I32, NAN, OUT, F32, NULL));
    REFUSE(CURED_SUCCESS, "",
           cured_segmented_reduce_async(H, CURED_OP_ARGMAX, NULL, F32, 0, NULL, NULL, I32, NULL, F32, NULL));
    /* No segments: NULL pointers are allowed, misaligned ones refused (as an array's with n == 0). */
    REFUSE(CURED_ERROR_MISALIGNED, "input",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X + 2, F32, 0, NULL, NULL, I32, OUT, F32, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "8 bytes",
           cured_segmented_reduce_async(H, CURED_OP_ARGMAX, X, F32, 0, NULL, NULL, I32, OUT + 4, F32, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "input",
           cured_segmented_reduce_stats_async(H, CURED_OP_VAR, X + 2, F32, 0, NULL, NULL, I32, 1, OUT, F32, NULL));
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflow",
           cured_uniform_segmented_reduce_async(H, CURED_OP_SUM, X, I32, (size_t)1 << 40, (size_t)1 << 40, OUT, I64,
                                                NULL));
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflow",
           cured_uniform_segmented_reduce_async(H, CURED_OP_SUM, X, I32, SIZE_MAX, 1, OUT, I64, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "input",
           cured_uniform_segmented_reduce_async(H, CURED_OP_SUM, X, I32, 8, 129, OUT, I64, NULL));
    REFUSE(CURED_SUCCESS, "", cured_uniform_segmented_reduce_async(H, CURED_OP_SUM, NULL, I32, 0, 7, NULL, I64, NULL));
    REFUSE(CURED_SUCCESS, "",
           cured_uniform_segmented_reduce_async(H, CURED_OP_SUM, NULL, I32, 0, SIZE_MAX, NULL, I64, NULL));
    /* Issue 36: outputs over what the call reads, views past CURED_MAX_ELEMENTS. */
    REFUSE(CURED_ERROR_OVERLAP, "overlaps the begin offsets",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 8, OFF, OFF + 32, I32, OFF + 4, F32, NULL));
    REFUSE(CURED_ERROR_OVERLAP, "overlaps the input's first element",
           cured_segmented_reduce_async(H, CURED_OP_SUM, X, F32, 8, OFF, OFF + 32, I32, X, F32, NULL));
    REFUSE(CURED_ERROR_OVERLAP, "overlaps the input",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &m, 2, X + 8, I64, NULL, NULL));
    REFUSE(CURED_ERROR_OVERLAP, "overlaps the input [",
           cured_reduce_async(H, CURED_OP_SUM, AUTO, X, I32, 64, X + 8, I64, NULL));
    const cured_layout bcast = {2, {(int64_t)1 << 62, 3}, {0, 0}};
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "CURED_MAX_ELEMENTS",
           cured_reduce_axes_async(H, CURED_OP_SUM, X, I32, &bcast, 3, OUT, I64, NULL, NULL));
    ck_assert_int_eq(cured_destroy(H), CURED_SUCCESS);
}
END_TEST

/* User-defined ops (built without compiling) and cured_prepare / cured_get_arch. */
START_TEST(test_custom_and_prepare)
{
    setup();
    cured_custom one = NULL, two = NULL;
    ck_assert_int_eq(cr_custom_build(F32, F64, 1, "x", "a + b", "0", &one), CURED_SUCCESS);
    ck_assert_int_eq(cr_custom_build(F32, F64, 2, "x * y", "a + b", "0", &two), CURED_SUCCESS);
    const cured_layout m = {2, {8, 16}, {16, 1}};
    REFUSE(CURED_ERROR_NULL_HANDLE, "handle", cured_custom_reduce_async(NULL, one, X, NULL, 4, OUT, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "op", cured_custom_reduce_async(H, NULL, X, NULL, 4, OUT, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "output", cured_custom_reduce_async(H, one, X, NULL, 4, NULL, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "input", cured_custom_reduce_async(H, two, X, NULL, 4, OUT, NULL));
    REFUSE(CURED_ERROR_SIZE_OVERFLOW, "overflows", cured_custom_reduce_async(H, one, X, NULL, SIZE_MAX / 2, OUT, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "input", cured_custom_reduce_async(H, two, X, X + 2, 4, OUT, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "output", cured_custom_reduce_async(H, one, X, NULL, 4, OUT + 4, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "input", cured_custom_reduce_async(H, one, HOST, NULL, 4, OUT, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "(y)", cured_custom_reduce_async(H, two, X, X + 8, 1024, OUT, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "output", cured_custom_reduce(H, one, X, NULL, 4, NULL, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "input", cured_custom_reduce(H, one, HOST, NULL, 4, HOST, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "two inputs", cured_custom_reduce_axes_async(H, two, X, &m, 2, OUT, NULL, NULL));
    REFUSE(CURED_ERROR_NULL_POINTER, "op", cured_custom_reduce_axes_async(H, NULL, X, &m, 2, OUT, NULL, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "output", cured_custom_reduce_axes_async(H, one, X, &m, 2, OUT + 4, NULL, NULL));
    REFUSE(CURED_ERROR_OUT_OF_RANGE, "output", cured_custom_reduce_axes_async(H, one, X, &m, 1, OUT + 136, NULL, NULL));
    REFUSE(CURED_ERROR_NOT_DEVICE_POINTER, "begin offsets",
           cured_custom_segmented_reduce_async(H, one, X, 2, HOST, OFF, I32, OUT, NULL));
    REFUSE(CURED_ERROR_INVALID_VALUE, "int32 or int64",
           cured_custom_segmented_reduce_async(H, one, X, 2, OFF, OFF, F32, OUT, NULL));
    REFUSE(CURED_SUCCESS, "", cured_custom_segmented_reduce_async(H, one, NULL, 0, NULL, NULL, I64, NULL, NULL));
    REFUSE(CURED_ERROR_MISALIGNED, "output",
           cured_custom_segmented_reduce_async(H, one, NULL, 0, NULL, NULL, I64, OUT + 4, NULL));
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_custom_reduce(H, one, X, NULL, 4, HOST, NULL));
    /* cured_prepare: the enums and combinations, before NVRTC; cured_get_arch writes nothing on error. */
    REFUSE(CURED_ERROR_NULL_HANDLE, "handle", cured_prepare(NULL, CURED_OP_SUM, AUTO, I32, I64));
    REFUSE(CURED_ERROR_INVALID_ENUM, "operator", cured_prepare(H, (cured_op)CURED_OP_COUNT, AUTO, I32, I64));
    REFUSE(CURED_ERROR_TYPE_MISMATCH, "XOR", cured_prepare(H, CURED_OP_XOR, AUTO, F64, F64));
    REFUSE(CURED_ERROR_NOT_SUPPORTED, "AUTO", cured_prepare(H, CURED_OP_SUM, CURED_ALGO_SINGLE_PASS_ATOMIC, F32, F32));
    REFUSE(CURED_ERROR_NO_NVRTC, "", cured_prepare(H, CURED_OP_DOT, AUTO, F32, F32));
    int sm = -7, ptx = -7;
    REFUSE(CURED_ERROR_NO_NVRTC, MISSING_NVRTC, cured_get_arch(H, &sm, &ptx));
    ck_assert_msg(sm == -7 && ptx == -7, "cured_get_arch wrote its outputs on error");
    cured_custom_destroy(one);
    cured_custom_destroy(two);
    ck_assert_int_eq(cured_destroy(H), CURED_SUCCESS);
}
END_TEST

int main(void)
{
    if (!fake_driver_found())
        return 77;
    Suite *s = suite_create("refusals");
    TCase *tc = tcase_create("refusals");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_reduce);
    tcase_add_test(tc, test_stats_and_dot);
    tcase_add_test(tc, test_axes_and_segments);
    tcase_add_test(tc, test_custom_and_prepare);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
