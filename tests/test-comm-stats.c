/*
 * DOT and the statistics across ranks off the GPU (cured_comm_dot(_async),
 * cured_comm_reduce_stats(_async), cured_comm_reduce_axes_stats_async), with
 * tests/fakecuda.c's device and tests/fakenccl.c's communicator: every bad
 * argument refused with its status, nothing launched and no collective
 * called; the call path (one state kernel, one in-place allgather of this
 * rank's 16- or 40-byte records, one combine kernel), built with NVRTC
 * (skipped where there is none); the synchronous calls' n <= ddof from the
 * GLOBAL count (the fake gathers set the counts); statistics along a sharded
 * axis gathered in chunks, never through ncclAllReduce.
 * Each test runs in its own process (Check's fork mode).
 */
#include "comm_fake.h"

#include <math.h>
#include <unistd.h>

START_TEST(test_arguments)
{
    cured_handle h = fake_handle(0);
    cured_comm cc = fake_comm(h, "2", "1", 0);
    int32_t *x = fake_alloc(4096, 1, 0), *y = fake_alloc(64, 1, 4096); /* y: nothing mapped after it */
    float *f = fake_alloc(4096, 1, 0);
    double *out = fake_alloc(64, 1, 0);
    static double host[2];
    cured_layout lay = {2, {8, 16}, {16, 1}};
    const cured_type I = CURED_TYPE_INT32, L = CURED_TYPE_INT64, F = CURED_TYPE_FLOAT32, D = CURED_TYPE_FLOAT64;
    /* DOT */
    expect(cured_comm_dot_async(NULL, x, x, I, 8, out, L, 0, NULL), CURED_ERROR_NULL_HANDLE, "dot NULL comm");
    expect(cured_comm_dot_async(cc, x, x, (cured_type)99, 8, out, L, 0, NULL), CURED_ERROR_INVALID_ENUM, "dot type");
    expect(cured_comm_dot_async(cc, x, x, I, 8, out, CURED_TYPE_INT8, 0, NULL), CURED_ERROR_TYPE_MISMATCH,
           "dot int32 -> int8");
    expect(cured_comm_dot_async(cc, x, NULL, I, 8, out, L, 0, NULL), CURED_ERROR_NULL_POINTER, "dot NULL y");
    assert_message_contains("dot NULL y", "(y)");
    expect(cured_comm_dot_async(cc, NULL, x, I, 8, out, L, 0, NULL), CURED_ERROR_NULL_POINTER, "dot NULL x");
    expect(cured_comm_dot_async(cc, x, (char *)y + 2, I, 8, out, L, 0, NULL), CURED_ERROR_MISALIGNED, "dot y");
    expect(cured_comm_dot_async(cc, x, x, I, 8, (char *)out + 4, L, 0, NULL), CURED_ERROR_MISALIGNED, "dot out");
    expect(cured_comm_dot_async(cc, x, x, I, 8, out, L, 1, NULL), CURED_ERROR_INVALID_VALUE, "dot flags");
    expect(cured_comm_dot_async(cc, x, y, I, 512, out, L, 0, NULL), CURED_ERROR_OUT_OF_RANGE, "y past its end");
    assert_message_contains("y past its end", "second input (y)");
    expect(cured_comm_dot_async(cc, x, x, I, 8, host, L, 0, NULL), CURED_ERROR_NOT_DEVICE_POINTER, "dot host out");
    expect(cured_comm_dot(cc, x, x, I, 8, NULL, L, 0, NULL), CURED_ERROR_NULL_POINTER, "dot NULL host_out");
    /* Statistics */
    expect(cured_comm_reduce_stats_async(NULL, CURED_OP_VAR, f, F, 8, 1, out, D, 0, NULL), CURED_ERROR_NULL_HANDLE,
           "stats NULL comm");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_SUM, f, F, 8, 1, out, D, 0, NULL), CURED_ERROR_INVALID_VALUE,
           "stats of SUM");
    expect(cured_comm_reduce_stats_async(cc, (cured_op)99, f, F, 8, 1, out, D, 0, NULL), CURED_ERROR_INVALID_ENUM,
           "stats op");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, f, F, 8, -1, out, D, 0, NULL), CURED_ERROR_INVALID_VALUE,
           "ddof -1");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, f, F, 8, NAN, out, D, 0, NULL), CURED_ERROR_INVALID_VALUE,
           "ddof NaN");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_STD, f, F, 8, INFINITY, out, D, 0, NULL),
           CURED_ERROR_INVALID_VALUE, "ddof inf");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, f, F, 8, 1, out, I, 0, NULL), CURED_ERROR_TYPE_MISMATCH,
           "VAR -> int32");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, f, F, 8, 1, out, D, 4, NULL), CURED_ERROR_INVALID_VALUE,
           "stats flags");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_MEAN_VAR, f, F, 8, 1, (char *)out + 4, D, 0, NULL),
           CURED_ERROR_MISALIGNED, "stats out");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, f, F, 2048, 1, out, D, 0, NULL), CURED_ERROR_OUT_OF_RANGE,
           "stats input past its end");
    expect(cured_comm_reduce_stats(cc, CURED_OP_VAR, f, F, 8, 1, NULL, D, 0, NULL), CURED_ERROR_NULL_POINTER,
           "stats NULL host_out");
    /* Statistics along axes */
    expect(cured_comm_reduce_axes_stats_async(NULL, CURED_OP_VAR, f, F, &lay, 1, 1, out, D, 0, NULL),
           CURED_ERROR_NULL_HANDLE, "axes stats NULL comm");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_SUM, f, F, &lay, 1, 1, out, D, 0, NULL),
           CURED_ERROR_INVALID_VALUE, "axes stats of SUM");
    expect(cured_comm_reduce_axes_stats_async(cc, (cured_op)99, f, F, &lay, 1, 1, out, D, 0, NULL),
           CURED_ERROR_INVALID_ENUM, "axes stats op");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_VAR, f, F, &lay, 1, -0.5, out, D, 0, NULL),
           CURED_ERROR_INVALID_VALUE, "axes ddof -0.5");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_VAR, f, F, &lay, 2, 1, out, D, 0, NULL),
           CURED_ERROR_INVALID_VALUE, "axes stats, axis 0 kept");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_VAR, f, F, &lay, 1, 1, out, D, 2, NULL),
           CURED_ERROR_INVALID_VALUE, "axes stats flags");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_VAR, f, F, NULL, 1, 1, out, D, 0, NULL),
           CURED_ERROR_NULL_POINTER, "axes stats NULL layout");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(ncalls(), 0);
    /* Valid, but no NVRTC: the combine kernel is made first, so nothing runs. */
    expect(cured_comm_dot_async(cc, x, x, I, 8, out, L, 0, NULL), CURED_ERROR_NO_NVRTC, "dot, no NVRTC");
    expect(cured_comm_dot_async(cc, NULL, NULL, I, 0, out, L, 0, NULL), CURED_ERROR_NO_NVRTC, "an empty DOT shard");
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, NULL, F, 0, 1, out, D, 0, NULL), CURED_ERROR_NO_NVRTC,
           "an empty VAR shard");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_MEAN_VAR, f, F, &lay, 1, 1, out, D, CURED_COMM_BITWISE,
                                              NULL),
           CURED_ERROR_NO_NVRTC, "MEAN_VAR along axes");
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_MEAN, f, F, &lay, 1, out, D, 0, NULL), CURED_ERROR_NO_NVRTC,
           "MEAN along axes, ddof 0 (was NOT_SUPPORTED)");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(ncalls(), 0);
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Rank 1 of 3: its record at 1 * count of the buffer, gathered in place. */
START_TEST(test_call_path)
{
    cured_handle h = fake_handle(1);
    if (!have_nvrtc())
        return;
    cured_comm cc = fake_comm(h, "3", "1", 0);
    int32_t *x = fake_alloc(4096, 1, 0), *y = fake_alloc(4096, 1, 0);
    float *f = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(64, 1, 0);
    const struct fake_nccl_call *c;
    expect(cured_comm_dot_async(cc, x, y, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64, 0, NULL), CURED_SUCCESS,
           "DOT");
    ck_assert_int_eq(fake_launches(), 2);
    ck_assert_int_eq(nccl_calls(&c), 1);
    ck_assert_str_eq(c[0].what, "AllGather");
    ck_assert_uint_eq(c[0].count, 16); /* count + int64 partial sum */
    ck_assert_ptr_eq(c[0].send, (char *)c[0].recv + 16);
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_VAR, f, CURED_TYPE_FLOAT32, 1024, 1, out, CURED_TYPE_FLOAT64,
                                         0, NULL),
           CURED_SUCCESS, "VAR, ddof 1");
    ck_assert_int_eq(fake_launches(), 4);
    ck_assert_int_eq(nccl_calls(&c), 2);
    ck_assert_uint_eq(c[1].count, 40); /* count + (n, hi, lo, m2) */
    ck_assert_ptr_eq(c[1].send, (char *)c[1].recv + 40);
    expect(cured_comm_reduce_stats_async(cc, CURED_OP_LOGSUMEXP, NULL, CURED_TYPE_FLOAT32, 0, 0, out,
                                         CURED_TYPE_FLOAT32, 0, NULL),
           CURED_SUCCESS, "LOGSUMEXP of an empty shard");
    ck_assert_int_eq(nccl_calls(&c), 3);
    ck_assert_uint_eq(c[2].count, 24); /* count + (max, sum) */
    /* The synchronous statuses from the global count: 1 element on each of 3 ranks. */
    static double host[2];
    host[0] = host[1] = 7;
    ck_assert_int_eq(setenv("FAKENCCL_GATHER_COUNT", "1", 1), 0);
    expect(cured_comm_reduce_stats(cc, CURED_OP_VAR, f, CURED_TYPE_FLOAT32, 1, 2, host, CURED_TYPE_FLOAT64, 0, NULL),
           CURED_SUCCESS, "VAR ddof 2 of 3 elements (1 here)");
    expect(cured_comm_reduce_stats(cc, CURED_OP_MEAN_VAR, f, CURED_TYPE_FLOAT32, 1, 3, host, CURED_TYPE_FLOAT64, 0,
                                   NULL),
           CURED_ERROR_TOO_FEW_ELEMENTS, "MEAN_VAR ddof 3 of 3 elements");
    assert_message_contains("n <= ddof", "3 elements");
    expect(cured_comm_reduce_stats(cc, CURED_OP_STD, f, CURED_TYPE_FLOAT32, 1, 2.5, host, CURED_TYPE_FLOAT64, 0, NULL),
           CURED_SUCCESS, "STD ddof 2.5 of 3 elements");
    expect(cured_comm_reduce_stats(cc, CURED_OP_MEAN, f, CURED_TYPE_FLOAT32, 1, 5, host, CURED_TYPE_FLOAT64, 0, NULL),
           CURED_SUCCESS, "MEAN ignores ddof");
    ck_assert_int_eq(setenv("FAKENCCL_GATHER_COUNT", "0", 1), 0);
    host[0] = host[1] = 7;
    expect(cured_comm_reduce_stats(cc, CURED_OP_MEAN, NULL, CURED_TYPE_FLOAT32, 0, 0, host, CURED_TYPE_FLOAT64, 0,
                                   NULL),
           CURED_ERROR_TOO_FEW_ELEMENTS, "MEAN of no element on any rank");
    ck_assert(host[0] == 7 && host[1] == 7);
    expect(cured_comm_reduce_stats(cc, CURED_OP_LOGSUMEXP, NULL, CURED_TYPE_FLOAT32, 0, 0, host, CURED_TYPE_FLOAT64,
                                   0, NULL),
           CURED_SUCCESS, "LOGSUMEXP of none: -inf, no status");
    int64_t dot = 0;
    expect(cured_comm_dot(cc, NULL, NULL, CURED_TYPE_INT32, 0, &dot, CURED_TYPE_INT64, 0, NULL), CURED_SUCCESS,
           "DOT of no element: 0, no status");
    ck_assert_int_eq(unsetenv("FAKENCCL_GATHER_COUNT"), 0);
    ck_assert_int_eq(setenv("FAKENCCL_FAIL", "AllGather", 1), 0);
    expect(cured_comm_dot_async(cc, x, y, CURED_TYPE_INT32, 8, out, CURED_TYPE_INT64, 0, NULL), CURED_ERROR_NCCL,
           "a failing allgather");
    ck_assert_int_eq(unsetenv("FAKENCCL_FAIL"), 0);
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* 64 x 100 float32 slab, axis 0 reduced, 100 outputs over max_outputs 16: gathered states in 7 chunks. */
START_TEST(test_axes_path)
{
    cured_handle h = fake_handle(1);
    if (!have_nvrtc())
        return;
    cured_comm cc = fake_comm(h, "2", "0", 16);
    float *x = fake_alloc(64 * 100 * 4, 1, 0);
    double *out = fake_alloc(100 * 16, 1, 0);
    cured_layout lay = {2, {64, 100}, {100, 1}};
    const struct fake_nccl_call *c;
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_MEAN_VAR, x, CURED_TYPE_FLOAT32, &lay, 1, 1, out,
                                              CURED_TYPE_FLOAT64, 0, NULL),
           CURED_SUCCESS, "MEAN_VAR along axis 0, ddof 1");
    ck_assert_int_eq(nccl_calls(&c), 7);
    for (int k = 0; k < 7; k++)
        ck_assert_str_eq(c[k].what, "AllGather");
    ck_assert_uint_eq(c[0].count, 16 * 40);
    ck_assert_uint_eq(c[6].count, 4 * 40);
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_VAR, x, CURED_TYPE_FLOAT32, &lay, 1, out, CURED_TYPE_FLOAT64, 0,
                                        NULL),
           CURED_SUCCESS, "VAR along axis 0, ddof 0");
    ck_assert_int_eq(nccl_calls(&c), 14);
    ck_assert_str_eq(c[13].what, "AllGather");
    cured_layout col = {1, {64}, {1}}; /* one output: the whole-array state kernel */
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_STD, x, CURED_TYPE_FLOAT32, &col, 1, 2, out,
                                              CURED_TYPE_FLOAT32, 0, NULL),
           CURED_SUCCESS, "STD of a rank-1 slab");
    ck_assert_int_eq(nccl_calls(&c), 15);
    ck_assert_uint_eq(c[14].count, 40);
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

int main(void)
{
    if (!fake_comm_libraries())
        return 77;
    Suite *s = suite_create("comm-stats");
    TCase *tc = tcase_create("comm-stats");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_arguments);
    tcase_add_test(tc, test_call_path);
    tcase_add_test(tc, test_axes_path);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
