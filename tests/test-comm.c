/*
 * cured_comm off the GPU: src/nccl_lib.h's ABI values against nccl.h (where
 * configure found it), NCCL missing (CURED_ERROR_NO_NCCL naming what was
 * tried; CURED_NCCL_LIBRARY ignored by a privileged process), and, with
 * tests/fakecuda.c's device and tests/fakenccl.c's communicator, creation
 * (device mismatch, queries that fail), the argument checks (each refused
 * with nothing launched and no collective called) and the call path: one
 * local state kernel, one in-place allgather of this rank's records, one
 * combine kernel; the axis call's ncclAllReduce and chunked gathers. The
 * kernels of the path, a user-defined op's state and combine program among
 * them, compile with NVRTC (skipped where there is none).
 * Each test runs in its own process (Check's fork mode).
 */
#include "api_test.h"

#ifdef HAVE_NCCL_H /* its old-style declarations (ncclGroupStart()) are not ours to fix */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#endif

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "comm_fake.h"

/* src/nccl_lib.h's ABI values against NCCL's own header, where configure found it. */
START_TEST(test_abi_values)
{
#ifdef HAVE_NCCL_H
    ck_assert_int_eq(CR_NCCL_INT8, ncclInt8);
    ck_assert_int_eq(CR_NCCL_UINT8, ncclUint8);
    ck_assert_int_eq(CR_NCCL_INT32, ncclInt32);
    ck_assert_int_eq(CR_NCCL_UINT32, ncclUint32);
    ck_assert_int_eq(CR_NCCL_INT64, ncclInt64);
    ck_assert_int_eq(CR_NCCL_UINT64, ncclUint64);
    ck_assert_int_eq(CR_NCCL_FLOAT16, ncclFloat16);
    ck_assert_int_eq(CR_NCCL_FLOAT32, ncclFloat32);
    ck_assert_int_eq(CR_NCCL_FLOAT64, ncclFloat64);
    ck_assert_int_eq(CR_NCCL_BFLOAT16, ncclBfloat16);
    ck_assert_int_eq(CR_NCCL_SUM, ncclSum);
    ck_assert_int_eq(CR_NCCL_PROD, ncclProd);
    ck_assert_int_eq(CR_NCCL_MAX, ncclMax);
    ck_assert_int_eq(CR_NCCL_MIN, ncclMin);
    ck_assert_int_eq(CR_NCCL_SUCCESS, ncclSuccess);
    ck_assert_int_eq(sizeof(ncclDataType_t), sizeof(int));
    ck_assert_int_eq(sizeof(ncclResult_t), sizeof(int));
#else
    printf("skipped: configure found no nccl.h\n");
#endif
}
END_TEST

START_TEST(test_no_nccl)
{
    ck_assert_int_eq(setenv("CURED_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1), 0);
    cured_handle h = fake_handle(0);
    cured_comm cc = (cured_comm)(uintptr_t)1;
    expect(cured_comm_create(h, FAKE_COMM, 0, &cc), CURED_ERROR_NO_NCCL, "no NCCL");
    ck_assert_ptr_null(cc);
    assert_message_contains("no NCCL", "/nonexistent/libnccl.so.2");
    assert_message_contains("no NCCL", "CURED_NCCL_LIBRARY");
    expect(cured_comm_create(NULL, FAKE_COMM, 0, &cc), CURED_ERROR_NULL_HANDLE, "NULL handle");
    expect(cured_comm_create(h, NULL, 0, &cc), CURED_ERROR_NULL_POINTER, "NULL communicator");
    expect(cured_comm_create(h, FAKE_COMM, 0, NULL), CURED_ERROR_NULL_POINTER, "NULL out");
    expect(cured_comm_destroy(NULL), CURED_SUCCESS, "destroy NULL");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* A privileged process does not read CURED_NCCL_LIBRARY: it tries libnccl.so.2. */
START_TEST(test_privileged_ignores_path)
{
    ck_assert_int_eq(setenv("CURED_NCCL_LIBRARY", "/nonexistent/libnccl-evil.so", 1), 0);
    cr_env_force_secure(1);
    const struct cr_nccl *n;
    cured_status st = cr_nccl(&n);
    if (st == CURED_ERROR_NO_NCCL) {
        assert_message_contains("privileged", "libnccl.so.2");
        ck_assert_msg(strstr(cured_last_error(), "evil") == NULL, "the variable was read: %s", cured_last_error());
    } else {
        expect(st, CURED_SUCCESS, "the system's NCCL");
        ck_assert_int_ge(n->version, 2000);
    }
    cr_env_force_secure(-1);
}
END_TEST

/* NCCL 2.0-2.8 number their versions major * 1000 + minor * 100 + patch
 * (2.8.4: 2804) and are NCCL 2; a number below 2000 is not. One process
 * each: the library is loaded once. */
START_TEST(test_nccl_version)
{
    ck_assert_int_eq(setenv("FAKENCCL_VERSION", _i ? "1999" : "2804", 1), 0);
    cured_handle h = fake_handle(0);
    if (_i == 0) {
        cured_comm cc = fake_comm(h, "1", "0", 16);
        expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    } else {
        ck_assert_int_eq(setenv("CURED_NCCL_LIBRARY", fake_nccl, 1), 0);
        cured_comm cc = (cured_comm)(uintptr_t)1;
        expect(cured_comm_create(h, FAKE_COMM, 0, &cc), CURED_ERROR_NO_NCCL, "version 1999");
        ck_assert_ptr_null(cc);
        assert_message_contains("version 1999", "1999");
    }
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

START_TEST(test_create)
{
    cured_handle h = fake_handle(0);
    cured_comm cc = fake_comm(h, "4", "2", 16);
    int rank = -1, size = -1;
    expect(cured_comm_rank(cc, &rank, &size), CURED_SUCCESS, "rank");
    ck_assert_int_eq(rank, 2);
    ck_assert_int_eq(size, 4);
    expect(cured_comm_rank(NULL, &rank, &size), CURED_ERROR_NULL_HANDLE, "rank of NULL");
    expect(cured_comm_rank(cc, NULL, NULL), CURED_SUCCESS, "rank and nranks may be NULL");
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    /* NULLs: the documented statuses, and out set to NULL. */
    cc = (cured_comm)(uintptr_t)1;
    expect(cured_comm_create(NULL, FAKE_COMM, 0, &cc), CURED_ERROR_NULL_HANDLE, "a NULL handle");
    ck_assert_ptr_null(cc);
    cc = (cured_comm)(uintptr_t)1;
    expect(cured_comm_create(h, NULL, 0, &cc), CURED_ERROR_NULL_POINTER, "a NULL ncclComm");
    ck_assert_ptr_null(cc);
    assert_message_contains("a NULL ncclComm", "nccl");
    expect(cured_comm_create(h, FAKE_COMM, 0, NULL), CURED_ERROR_NULL_POINTER, "a NULL out");
    /* Another device's communicator (a comm made for another handle's GPU). */
    ck_assert_int_eq(setenv("FAKENCCL_DEVICE", "1", 1), 0);
    cc = (cured_comm)(uintptr_t)1;
    expect(cured_comm_create(h, FAKE_COMM, 0, &cc), CURED_ERROR_INVALID_DEVICE, "device 1 for a handle of 0");
    ck_assert_ptr_null(cc);
    assert_message_contains("mismatch", "device is 1");
    ck_assert_int_eq(setenv("FAKENCCL_DEVICE", "0", 1), 0);
    ck_assert_int_eq(setenv("FAKENCCL_FAIL", "CommCount", 1), 0);
    expect(cured_comm_create(h, FAKE_COMM, 0, &cc), CURED_ERROR_NCCL, "ncclCommCount fails");
    assert_message_contains("CommCount", "ncclCommCount");
    assert_message_contains("CommCount", "invalid argument (fake)");
    ck_assert_int_eq(unsetenv("FAKENCCL_FAIL"), 0);
    expect(cured_comm_create(h, FAKE_COMM, SIZE_MAX / 8, &cc), CURED_ERROR_SIZE_OVERFLOW, "huge max_outputs");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Every bad argument: its status, nothing launched, no collective. */
START_TEST(test_arguments)
{
    cured_handle h = fake_handle(0);
    cured_comm cc = fake_comm(h, "2", "1", 0);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(64, 1, 0);
    static int64_t host;
    cured_layout lay = {2, {8, 16}, {16, 1}};
    const cured_type I = CURED_TYPE_INT32, L = CURED_TYPE_INT64;
    expect(cured_comm_reduce_async(NULL, CURED_OP_SUM, x, I, 8, out, L, 0, NULL), CURED_ERROR_NULL_HANDLE, "NULL comm");
    expect(cured_comm_reduce_async(cc, (cured_op)99, x, I, 8, out, L, 0, NULL), CURED_ERROR_INVALID_ENUM, "op");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, (cured_type)99, 8, out, L, 0, NULL), CURED_ERROR_INVALID_ENUM,
           "type");
    expect(cured_comm_reduce_async(cc, CURED_OP_AND, x, CURED_TYPE_FLOAT32, 8, out, CURED_TYPE_FLOAT32, 0, NULL),
           CURED_ERROR_TYPE_MISMATCH, "AND of float32");
    expect(cured_comm_reduce_async(cc, CURED_OP_DOT, x, I, 8, out, L, 0, NULL), CURED_ERROR_INVALID_VALUE, "DOT");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, I, 8, NULL, L, 0, NULL), CURED_ERROR_NULL_POINTER, "NULL out");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, NULL, I, 8, out, L, 0, NULL), CURED_ERROR_NULL_POINTER, "NULL in");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, (char *)x + 2, I, 8, out, L, 0, NULL), CURED_ERROR_MISALIGNED,
           "misaligned in");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, I, 8, out, L, 2, NULL), CURED_ERROR_INVALID_VALUE, "flags");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, I, 8, &host, L, 0, NULL), CURED_ERROR_NOT_DEVICE_POINTER,
           "host out");
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, I, 2048, out, L, 0, NULL), CURED_ERROR_OUT_OF_RANGE,
           "input past its allocation");
    expect(cured_comm_reduce(cc, CURED_OP_SUM, x, I, 8, NULL, L, 0, NULL), CURED_ERROR_NULL_POINTER, "NULL host_out");
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, I, &lay, 2, out, L, 0, NULL), CURED_ERROR_INVALID_VALUE,
           "axis 0 kept");
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, I, &lay, 3, out, L, 4, NULL), CURED_ERROR_INVALID_VALUE,
           "axes flags");
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, I, NULL, 1, out, L, 0, NULL), CURED_ERROR_NULL_POINTER,
           "NULL layout");
    expect(cured_comm_reduce_axes_async(NULL, CURED_OP_SUM, x, I, &lay, 1, out, L, 0, NULL), CURED_ERROR_NULL_HANDLE,
           "axes NULL comm");
    /* The slab and the dense results are checked before the first chunk (gathered path, few outputs). */
    const cured_layout tall = {2, {80, 16}, {16, 1}};
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, I, &lay, 1, &host, L, 0, NULL),
           CURED_ERROR_NOT_DEVICE_POINTER, "axes, a host output");
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, I, &lay, 1, out + 20, L, 0, NULL),
           CURED_ERROR_OUT_OF_RANGE, "axes, 16 results past the output's allocation");
    assert_message_contains("axes output", "the output");
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_MAX, x, I, &tall, 1, out, I, CURED_COMM_BITWISE, NULL),
           CURED_ERROR_OUT_OF_RANGE, "axes, a slab past the input's allocation");
    assert_message_contains("axes input", "the input");
    expect(cured_comm_reduce_axes_stats_async(cc, CURED_OP_VAR, x, I, &lay, 1, 1.0, &host, CURED_TYPE_FLOAT64, 0,
                                              NULL),
           CURED_ERROR_NOT_DEVICE_POINTER, "axes statistics, a host output");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(ncalls(), 0);
    /* Valid, but no NVRTC: the combine kernel is made first, so nothing runs. */
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, I, 8, out, L, 0, NULL), CURED_ERROR_NO_NVRTC, "no NVRTC");
    expect(cured_comm_reduce_async(cc, CURED_OP_ARGMAX, x, I, 0, out, I, 0, NULL), CURED_ERROR_NO_NVRTC,
           "an empty ARG shard passes the checks");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(ncalls(), 0);
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Rank 1 of 3: its record goes at 1 * count of the buffer, gathered in place. */
START_TEST(test_call_path)
{
    cured_handle h = fake_handle(1);
    if (!have_nvrtc())
        return;
    cured_comm cc = fake_comm(h, "3", "1", 0);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(64, 1, 0);
    const struct fake_nccl_call *c;
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64, 0, NULL),
           CURED_SUCCESS, "SUM");
    ck_assert_int_eq(fake_launches(), 2);
    ck_assert_int_eq(nccl_calls(&c), 1);
    ck_assert_str_eq(c[0].what, "AllGather");
    ck_assert_uint_eq(c[0].count, 16); /* count + int64 sum */
    ck_assert_int_eq(c[0].type, CR_NCCL_UINT8);
    ck_assert_ptr_eq(c[0].send, (char *)c[0].recv + 16);
    clear_error();
    expect(cured_comm_reduce_async(cc, CURED_OP_ARGMIN, x, CURED_TYPE_INT32, 0, out, CURED_TYPE_INT32, 0, NULL),
           CURED_SUCCESS, "ARGMIN of an empty shard");
    ck_assert_msg(cured_last_error()[0] == '\0', "a successful call left a message: %s", cured_last_error());
    ck_assert_int_eq(nccl_calls(&c), 2);
    ck_assert_uint_eq(c[1].count, 24); /* count + index + value */
    /* The synchronous call's statuses from the gathered counts (the fake gathers set them). */
    static cured_arg_result host;
    memset(&host, 0x5a, sizeof host);
    ck_assert_int_eq(setenv("FAKENCCL_GATHER_COUNT", "0", 1), 0);
    expect(cured_comm_reduce(cc, CURED_OP_ARGMAX, x, CURED_TYPE_INT32, 0, &host, CURED_TYPE_INT32, 0, NULL),
           CURED_ERROR_EMPTY_INPUT, "ARGMAX, no element on any rank");
    ck_assert_int_eq(host.index, 0x5a5a5a5a5a5a5a5all);
    expect(cured_comm_reduce(cc, CURED_OP_MEAN, x, CURED_TYPE_INT32, 0, &host, CURED_TYPE_FLOAT64, 0, NULL),
           CURED_ERROR_TOO_FEW_ELEMENTS, "MEAN, no element on any rank");
    ck_assert_int_eq(setenv("FAKENCCL_GATHER_COUNT", "1", 1), 0);
    expect(cured_comm_reduce(cc, CURED_OP_VAR, x, CURED_TYPE_INT32, 1, &host, CURED_TYPE_FLOAT64, 0, NULL),
           CURED_SUCCESS, "VAR of 3 elements over 3 ranks");
    expect(cured_comm_reduce(cc, CURED_OP_ARGMAX, x, CURED_TYPE_INT32, 0, &host, CURED_TYPE_INT32, 0, NULL),
           CURED_SUCCESS, "ARGMAX, an empty shard here, elements elsewhere");
    ck_assert_int_eq(unsetenv("FAKENCCL_GATHER_COUNT"), 0);
    ck_assert_int_eq(setenv("FAKENCCL_FAIL", "AllGather", 1), 0);
    expect(cured_comm_reduce_async(cc, CURED_OP_SUM, x, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64, 0, NULL),
           CURED_ERROR_NCCL, "a failing allgather");
    assert_message_contains("failing allgather", "ncclAllGather");
    ck_assert_int_eq(unsetenv("FAKENCCL_FAIL"), 0);
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* User-defined ops: their state and combine program compiles (NVRTC) and runs the same path. */
START_TEST(test_custom_path)
{
    cured_handle h = fake_handle(1);
    if (!have_nvrtc())
        return;
    cured_comm cc = fake_comm(h, "2", "1", 0);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(64, 1, 0);
    const struct fake_nccl_call *c;
    cured_custom sq = NULL, mv = NULL;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "(long long)x * x", "a + b", "0", &sq),
           CURED_SUCCESS, "a user op");
    cured_custom_field f[2] = {{CURED_TYPE_INT64, "x", "a0 + b0", "0"},
                               {CURED_TYPE_FLOAT64, "(double)x * x", "a1 + b1", "0"}};
    const char *fin[2] = {"a0 / n", "a1 / n"};
    expect(cured_custom_create_multi(h, CURED_TYPE_INT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, &mv), CURED_SUCCESS,
           "a two-field op");
    const int before = fake_launches();
    expect(cured_comm_custom_reduce_async(NULL, sq, x, NULL, 8, out, 0, NULL), CURED_ERROR_NULL_HANDLE, "NULL comm");
    expect(cured_comm_custom_reduce_async(cc, NULL, x, NULL, 8, out, 0, NULL), CURED_ERROR_NULL_POINTER, "NULL op");
    expect(cured_comm_custom_reduce_async(cc, sq, NULL, NULL, 8, out, 0, NULL), CURED_ERROR_NULL_POINTER, "NULL x");
    expect(cured_comm_custom_reduce_async(cc, sq, x, NULL, 8, out, 1, NULL), CURED_ERROR_INVALID_VALUE, "flags");
    expect(cured_comm_custom_reduce_async(cc, sq, x, NULL, 8, (char *)out + 4, 0, NULL), CURED_ERROR_MISALIGNED,
           "misaligned out");
    ck_assert_int_eq(fake_launches(), before);
    ck_assert_int_eq(nccl_calls(&c), 0);
    expect(cured_comm_custom_reduce_async(cc, sq, x, NULL, 1024, out, 0, NULL), CURED_SUCCESS, "sum of squares");
    ck_assert_int_eq(fake_launches(), before + 2);
    ck_assert_int_eq(nccl_calls(&c), 1);
    ck_assert_uint_eq(c[0].count, 16); /* count + int64 */
    ck_assert_ptr_eq(c[0].send, (char *)c[0].recv + 16);
    /* The process's compile budget spent (cured.h): a first use in the communicator is refused, nothing
     * launched or gathered; the op already compiled for it still runs. */
    ck_assert_int_eq(setenv("CURED_CUSTOM_PROCESS_COMPILE_SECONDS", "1e-6", 1), 0);
    const int before_budget = fake_launches();
    expect(cured_comm_custom_reduce_async(cc, mv, x, NULL, 1024, out, 0, NULL), CURED_ERROR_COMPILE_BUDGET,
           "two fields past the process's compile budget");
    ck_assert_msg(strstr(cured_last_error(), "CURED_CUSTOM_PROCESS_COMPILE_SECONDS") != NULL, "message: %s",
                  cured_last_error());
    ck_assert_int_eq(fake_launches(), before_budget);
    ck_assert_int_eq(nccl_calls(&c), 1);
    expect(cured_comm_custom_reduce_async(cc, sq, x, NULL, 1024, out, 0, NULL), CURED_SUCCESS,
           "sum of squares, compiled before");
    ck_assert_int_eq(unsetenv("CURED_CUSTOM_PROCESS_COMPILE_SECONDS"), 0);
    expect(cured_comm_custom_reduce_async(cc, mv, x, NULL, 1024, out, 0, NULL), CURED_SUCCESS, "two fields");
    ck_assert_int_eq(nccl_calls(&c), 3);
    ck_assert_uint_eq(c[2].count, 24); /* count + two 8-byte fields */
    ck_assert_int_eq(cured_custom_destroy(sq), CURED_SUCCESS);
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_custom_destroy(mv), CURED_SUCCESS);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* 64 x 100 int32 slab, axis 0 reduced: 100 outputs over max_outputs 16. */
START_TEST(test_axes_paths)
{
    cured_handle h = fake_handle(1);
    if (!have_nvrtc())
        return;
    cured_comm cc = fake_comm(h, "2", "0", 16);
    int32_t *x = fake_alloc(64 * 100 * 4, 1, 0);
    int64_t *out = fake_alloc(100 * 8, 1, 0);
    cured_layout lay = {2, {64, 100}, {100, 1}};
    const struct fake_nccl_call *c;
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, CURED_TYPE_INT32, &lay, 1, out, CURED_TYPE_INT64, 0, NULL),
           CURED_SUCCESS, "SUM int64: NCCL's allreduce");
    ck_assert_int_eq(nccl_calls(&c), 1);
    ck_assert_str_eq(c[0].what, "AllReduce");
    ck_assert_uint_eq(c[0].count, 100);
    ck_assert_int_eq(c[0].type, CR_NCCL_INT64);
    ck_assert_int_eq(c[0].op, CR_NCCL_SUM);
    ck_assert_ptr_eq(c[0].send, out);
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_SUM, x, CURED_TYPE_INT32, &lay, 1, out, CURED_TYPE_INT64,
                                        CURED_COMM_BITWISE, NULL),
           CURED_SUCCESS, "SUM, bitwise: gathered states");
    ck_assert_int_eq(nccl_calls(&c), 1 + 7); /* chunks of 16 outputs */
    for (int k = 1; k < 8; k++)
        ck_assert_str_eq(c[k].what, "AllGather");
    ck_assert_uint_eq(c[1].count, 16 * 16);
    ck_assert_uint_eq(c[7].count, 4 * 16);
    cured_layout three = {3, {4, 2, 50}, {100, 50, 1}};
    expect(cured_comm_reduce_axes_async(cc, CURED_OP_AND, x, CURED_TYPE_INT32, &three, 1, out, CURED_TYPE_INT32, 0,
                                        NULL),
           CURED_ERROR_INVALID_VALUE, "50 inner outputs over 16");
    expect(cured_comm_destroy(cc), CURED_SUCCESS, "destroy");
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

int main(void)
{
    if (!fake_comm_libraries())
        return 77;
    Suite *s = suite_create("comm");
    TCase *tc = tcase_create("comm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_abi_values);
    tcase_add_test(tc, test_no_nccl);
    tcase_add_test(tc, test_privileged_ignores_path);
    tcase_add_loop_test(tc, test_nccl_version, 0, 2);
    tcase_add_test(tc, test_create);
    tcase_add_test(tc, test_arguments);
    tcase_add_test(tc, test_call_path);
    tcase_add_test(tc, test_axes_paths);
    tcase_add_test(tc, test_custom_path);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
