/*
 * The public API without a GPU: status names, versions, NULL handles, the
 * argument checks (every operator, element type, result type and algorithm
 * against what include/cured.h documents), default result types, type
 * sizes, the checks of user-defined expressions, and the statuses and
 * messages when the CUDA driver or NVRTC cannot be loaded.
 *
 * The loaders remember their first result for the life of the process, so
 * every test that reaches a loader first points it at a missing library
 * (CURED_CUDA_DRIVER_LIBRARY / CURED_NVRTC_LIBRARY). That makes the results
 * the same on machines with and without a GPU, in fork and in no-fork mode.
 * The parent process never calls into a loader.
 */
#include "internal.h"

#include <check.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MISSING_DRIVER "/nonexistent/libcuda.so.1"
#define MISSING_NVRTC "/nonexistent/libnvrtc.so"

static void no_driver(void)
{
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", MISSING_DRIVER, 1), 0);
}

static void no_nvrtc(void)
{
    ck_assert_int_eq(setenv("CURED_NVRTC_LIBRARY", MISSING_NVRTC, 1), 0);
}

/* Empty the thread's message so that a test can see that a call wrote one. */
static void clear_error(void)
{
    cr_fail(CURED_SUCCESS, "%s", "");
    ck_assert_str_eq(cured_last_error(), "");
}

static void assert_message_contains(const char *what, const char *needle)
{
    const char *msg = cured_last_error();
    ck_assert_msg(msg[0] != '\0', "%s: cured_last_error() is empty", what);
    ck_assert_msg(strstr(msg, needle) != NULL, "%s: message \"%s\" does not contain \"%s\"", what,
                  msg, needle);
}

/* ---- status names and versions -------------------------------------------- */

START_TEST(test_status_strings)
{
    const char *names[64];
    int count = 0;
    while (count < 64 && strcmp(cured_status_string((cured_status)count), "CURED_STATUS_UNKNOWN") != 0) {
        names[count] = cured_status_string((cured_status)count);
        count++;
    }
    ck_assert_msg(count == CURED_ERROR_INVALID_EXPRESSION + 1,
                  "statuses 0..%d should be named, the names stop at %d", CURED_ERROR_INVALID_EXPRESSION, count);
    for (int i = 0; i < count; i++) {
        ck_assert_msg(names[i] != NULL && strncmp(names[i], "CURED_", 6) == 0,
                      "status %d is named \"%s\"", i, names[i] ? names[i] : "(null)");
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(names[i], names[j]) != 0, "statuses %d and %d are both named %s", j,
                          i, names[i]);
    }
    ck_assert_str_eq(cured_status_string(CURED_SUCCESS), "CURED_SUCCESS");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_NO_DRIVER), "CURED_ERROR_NO_DRIVER");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_COMPILE), "CURED_ERROR_COMPILE");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_INTERNAL), "CURED_ERROR_INTERNAL");
    ck_assert_int_eq(CURED_ERROR_EMPTY_INPUT, 18); /* values are stable */
    ck_assert_int_eq(CURED_ERROR_ALL_NAN, 19);
    ck_assert_int_eq(CURED_ERROR_INVALID_EXPRESSION, 20);
    ck_assert_str_eq(cured_status_string(CURED_ERROR_EMPTY_INPUT), "CURED_ERROR_EMPTY_INPUT");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_ALL_NAN), "CURED_ERROR_ALL_NAN");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_INVALID_EXPRESSION), "CURED_ERROR_INVALID_EXPRESSION");
    static const int unknown[] = {CURED_ERROR_INVALID_EXPRESSION + 1, -1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        ck_assert_str_eq(cured_status_string((cured_status)unknown[i]), "CURED_STATUS_UNKNOWN");
}
END_TEST

START_TEST(test_version)
{
    int major = -1, minor = -1, patch = -1;
    ck_assert_int_eq(cured_version(&major, &minor, &patch), CURED_API_VERSION);
    ck_assert_int_eq(major, CURED_VERSION_MAJOR);
    ck_assert_int_eq(minor, CURED_VERSION_MINOR);
    ck_assert_int_eq(patch, CURED_VERSION_PATCH);
    ck_assert_int_eq(major * 10000 + minor * 100 + patch, CURED_API_VERSION);
    ck_assert_int_eq(cured_version(NULL, NULL, NULL), CURED_API_VERSION);

    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", major, minor, patch);
    ck_assert_ptr_nonnull(cured_version_string());
    ck_assert_str_eq(cured_version_string(), want);
    ck_assert_str_eq(cured_version_string(), PACKAGE_VERSION);
}
END_TEST

START_TEST(test_kernel_names)
{
    size_t count = cured_kernel_count();
    ck_assert_uint_eq(count, cr_spec_count());
    ck_assert_uint_ge(count, CURED_ALGO_COUNT);
    for (size_t i = 0; i < count; i++) {
        const char *name = cured_kernel_name(i);
        ck_assert_msg(name != NULL && strstr(name, "kernels-src/") != NULL,
                      "kernel %zu is named \"%s\"", i, name ? name : "(null)");
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(name, cured_kernel_name(j)) != 0, "kernels %zu and %zu are both \"%s\"",
                          j, i, name);
    }
    ck_assert_ptr_null(cured_kernel_name(count));
    ck_assert_ptr_null(cured_kernel_name(SIZE_MAX));
}
END_TEST

/* ---- NULL handles and pointers --------------------------------------------- */

START_TEST(test_null_handle)
{
    int dummy_in[4] = {1, 2, 3, 4};
    long long out = 0x5a5a5a5a5a5aLL;

    clear_error();
    ck_assert_int_eq(cured_reduce(NULL, CURED_OP_SUM, CURED_ALGO_AUTO, dummy_in, CURED_TYPE_INT32, 4,
                                  &out, CURED_TYPE_INT64, NULL),
                     CURED_ERROR_NULL_HANDLE);
    assert_message_contains("cured_reduce(NULL handle)", "NULL");
    ck_assert_msg(out == 0x5a5a5a5a5a5aLL, "cured_reduce wrote its output on failure");

    clear_error();
    ck_assert_int_eq(cured_reduce_async(NULL, CURED_OP_SUM, CURED_ALGO_AUTO, dummy_in,
                                        CURED_TYPE_INT32, 4, &out, CURED_TYPE_INT64, NULL),
                     CURED_ERROR_NULL_HANDLE);
    assert_message_contains("cured_reduce_async(NULL handle)", "NULL");

    int sm = -5, ptx = -5;
    clear_error();
    ck_assert_int_eq(cured_get_arch(NULL, &sm, &ptx), CURED_ERROR_NULL_HANDLE);
    assert_message_contains("cured_get_arch(NULL handle)", "NULL");
    ck_assert_int_eq(sm, -5);
    ck_assert_int_eq(ptx, -5);

    /* Destroying NULL is documented as accepted. */
    ck_assert_int_eq(cured_destroy(NULL), CURED_SUCCESS);
}
END_TEST

START_TEST(test_null_pointers)
{
    clear_error();
    ck_assert_int_eq(cured_create(0, NULL), CURED_ERROR_NULL_POINTER);
    assert_message_contains("cured_create(0, NULL)", "NULL");

    clear_error();
    ck_assert_int_eq(cured_create_for_context(NULL, NULL), CURED_ERROR_NULL_POINTER);
    assert_message_contains("cured_create_for_context(NULL, NULL)", "NULL");

    clear_error();
    ck_assert_int_eq(cured_get_stats(NULL), CURED_ERROR_NULL_POINTER);
    assert_message_contains("cured_get_stats(NULL)", "NULL");

    /* Nothing compiles successfully in this suite, whichever tests ran before. */
    cured_stats s;
    memset(&s, 0xa5, sizeof s);
    ck_assert_int_eq(cured_get_stats(&s), CURED_SUCCESS);
    ck_assert_uint_eq(s.compiles, 0);
    ck_assert_uint_eq(s.memory_hits, 0);
    ck_assert_uint_eq(s.disk_hits, 0);
    ck_assert_msg(s.compile_seconds >= 0 && s.compile_seconds < 1e6, "compile_seconds = %g",
                  s.compile_seconds);
}
END_TEST

/* ---- cr_check_args --------------------------------------------------------------- */

#define IN_OK ((const void *)(uintptr_t)0x1000)
#define OUT_OK ((const void *)(uintptr_t)0x2000)

static void expect_args(cured_status want, const char *needle, cured_op op, cured_algorithm algo,
                        const void *in, cured_type in_type, size_t n, const void *out,
                        cured_type out_type)
{
    int spec = -12345;
    clear_error();
    cured_status st = cr_check_args(op, algo, in, in_type, n, out, out_type, &spec);
    ck_assert_msg(st == want,
                  "op %d algo %d in %p type %d n %zu out %p type %d: got %s, want %s", (int)op,
                  (int)algo, in, (int)in_type, n, out, (int)out_type, cured_status_string(st),
                  cured_status_string(want));
    if (want == CURED_SUCCESS) {
        ck_assert_msg(spec >= 0 && (size_t)spec < cr_spec_count(), "spec index %d out of range", spec);
        cured_status why = CURED_SUCCESS;
        ck_assert_int_eq(spec, cr_spec_index(op, algo, in_type, out_type, &why));
        ck_assert_ptr_nonnull(cr_spec((size_t)spec));
    } else {
        char what[64];
        snprintf(what, sizeof what, "cr_check_args -> %s", cured_status_string(st));
        assert_message_contains(what, needle);
    }
}

START_TEST(test_check_args_enums)
{
    static const int bad[] = {-1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char num[16];
        snprintf(num, sizeof num, "%d", bad[i]);
        expect_args(CURED_ERROR_INVALID_ENUM, num, (cured_op)bad[i], CURED_ALGO_AUTO, IN_OK,
                    CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_INVALID_ENUM, num, CURED_OP_SUM, (cured_algorithm)bad[i], IN_OK,
                    CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_INVALID_ENUM, num, CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                    (cured_type)bad[i], 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_INVALID_ENUM, num, CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                    CURED_TYPE_INT32, 10, OUT_OK, (cured_type)bad[i]);
    }
    expect_args(CURED_ERROR_INVALID_ENUM, "7", CURED_OP_SUM, (cured_algorithm)CURED_ALGO_COUNT, IN_OK,
                CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_INVALID_ENUM, "12", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                (cured_type)CURED_TYPE_COUNT, 10, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_INVALID_ENUM, "18", (cured_op)CURED_OP_COUNT, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
}
END_TEST

/*
 * The result types include/cured.h documents for (op, in), in the order of
 * its lists (the first is what cured_default_result gives); 0 if the
 * operator does not take the type.
 */
static int documented(cured_op op, cured_type in, cured_type res[4])
{
    const int is_signed = in == CURED_TYPE_INT8 || in == CURED_TYPE_INT16 || in == CURED_TYPE_INT32 ||
                          in == CURED_TYPE_INT64;
    const int is_unsigned = in == CURED_TYPE_UINT8 || in == CURED_TYPE_UINT16 || in == CURED_TYPE_UINT32 ||
                            in == CURED_TYPE_UINT64;
    const int is_half = in == CURED_TYPE_FLOAT16 || in == CURED_TYPE_BFLOAT16;
    int n = 0;
    switch (op) {
    case CURED_OP_SUM:
    case CURED_OP_PRODUCT:
    case CURED_OP_SUM_SQUARES:
    case CURED_OP_SUM_ABS:
    case CURED_OP_DOT:
        if (is_signed || is_unsigned) { /* the 64-bit type, the 32-bit type, the element type */
            res[n++] = is_signed ? CURED_TYPE_INT64 : CURED_TYPE_UINT64;
            res[n++] = is_signed ? CURED_TYPE_INT32 : CURED_TYPE_UINT32;
            if (in != res[0] && in != res[1])
                res[n++] = in;
        } else if (is_half) {
            res[n++] = CURED_TYPE_FLOAT32;
            res[n++] = in;
        } else if (in == CURED_TYPE_FLOAT32) {
            res[n++] = CURED_TYPE_FLOAT32;
            res[n++] = CURED_TYPE_FLOAT64;
        } else {
            res[n++] = CURED_TYPE_FLOAT64;
        }
        return n;
    case CURED_OP_NORM2:
        if (is_half || in == CURED_TYPE_FLOAT32)
            res[n++] = CURED_TYPE_FLOAT32;
        if (!is_half)
            res[n++] = CURED_TYPE_FLOAT64;
        return n;
    case CURED_OP_AND:
    case CURED_OP_OR:
    case CURED_OP_XOR: /* integers only */
        if (is_signed || is_unsigned)
            res[n++] = in;
        return n;
    case CURED_OP_NANMIN:
    case CURED_OP_NANMAX:
    case CURED_OP_NANARGMIN:
    case CURED_OP_NANARGMAX: /* only floats have NaNs (the header does not say it in so many words) */
        if (!is_signed && !is_unsigned)
            res[n++] = in;
        return n;
    default: /* MIN, MAX, MINMAX, ARGMIN, ARGMAX: the element type */
        res[n++] = in;
        return n;
    }
}

static int is_documented(cured_op op, cured_type in, cured_type out)
{
    cured_type res[4];
    int n = documented(op, in, res);
    for (int k = 0; k < n; k++)
        if (res[k] == out)
            return 1;
    return 0;
}

static int needs_input(cured_op op)
{
    return op == CURED_OP_MINMAX || op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX ||
           op == CURED_OP_NANARGMIN || op == CURED_OP_NANARGMAX;
}

/*
 * Every algorithm x operator x element type x result type, with n = 100
 * and n = 0: AUTO offers exactly what the header documents
 * (TYPE_MISMATCH, naming the combination, otherwise); the other algorithms
 * offer only the int32 sums into int32 and int64 (NOT_SUPPORTED, pointing
 * at AUTO, for the rest of what AUTO offers); n == 0 gives EMPTY_INPUT for
 * the operators without an identity.
 */
START_TEST(test_check_args_every_combination)
{
    size_t offered = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int op = 0; op < CURED_OP_COUNT; op++)
            for (int in = 0; in < CURED_TYPE_COUNT; in++)
                for (int out = 0; out < CURED_TYPE_COUNT; out++)
                    for (int empty = 0; empty < 2; empty++) {
                        const int doc = is_documented((cured_op)op, (cured_type)in, (cured_type)out);
                        const int table = op == CURED_OP_SUM && in == CURED_TYPE_INT32 &&
                                          (out == CURED_TYPE_INT32 || out == CURED_TYPE_INT64);
                        cured_status want = !doc ? CURED_ERROR_TYPE_MISMATCH
                                            : a != CURED_ALGO_AUTO && !table ? CURED_ERROR_NOT_SUPPORTED
                                            : empty && needs_input((cured_op)op) ? CURED_ERROR_EMPTY_INPUT
                                                                                 : CURED_SUCCESS;
                        const char *needle = want == CURED_ERROR_TYPE_MISMATCH ? "not offered"
                                             : want == CURED_ERROR_NOT_SUPPORTED ? "CURED_ALGO_AUTO"
                                                                                 : "n = 0";
                        int spec = -12345;
                        clear_error();
                        cured_status st = cr_check_args((cured_op)op, (cured_algorithm)a, IN_OK, (cured_type)in,
                                                        empty ? 0 : 100, OUT_OK, (cured_type)out, &spec);
                        if (st != want)
                            ck_abort_msg("algo %d op %d in %d out %d n %d: got %s, want %s (%s)", a, op, in, out,
                                         empty ? 0 : 100, cured_status_string(st), cured_status_string(want),
                                         cured_last_error());
                        if (st == CURED_SUCCESS) {
                            const struct cr_program *p = cr_spec((size_t)spec);
                            if (p == NULL || (int)p->op != op || (int)p->algo != a || (int)p->in != in ||
                                (int)p->out != out)
                                ck_abort_msg("algo %d op %d in %d out %d: spec %d is another combination", a, op,
                                             in, out, spec);
                            offered += !empty;
                        } else if (strstr(cured_last_error(), needle) == NULL) {
                            ck_abort_msg("algo %d op %d in %d out %d: the message \"%s\" does not say \"%s\"", a,
                                         op, in, out, cured_last_error(), needle);
                        }
                    }
    /* Every specialization is one of those combinations. */
    ck_assert_uint_eq(offered, cr_spec_count());
    /* The names in the messages. */
    expect_args(CURED_ERROR_TYPE_MISMATCH, "float32", CURED_OP_AND, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT32, 10,
                OUT_OK, CURED_TYPE_FLOAT32);
    expect_args(CURED_ERROR_TYPE_MISMATCH, "NANMIN", CURED_OP_NANMIN, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT32, 10,
                OUT_OK, CURED_TYPE_INT32);
    expect_args(CURED_ERROR_TYPE_MISMATCH, "float32", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT32, 10,
                OUT_OK, CURED_TYPE_FLOAT32);
    expect_args(CURED_ERROR_NOT_SUPPORTED, "two_pass_shared", CURED_OP_SUM, CURED_ALGO_TWO_PASS_SHARED, IN_OK,
                CURED_TYPE_INT64, 10, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_NOT_SUPPORTED, "MIN", CURED_OP_MIN, CURED_ALGO_LISTING_12_4, IN_OK, CURED_TYPE_INT32,
                10, OUT_OK, CURED_TYPE_INT32);
    /* Not offered by any algorithm: a type mismatch, whatever the algorithm. */
    expect_args(CURED_ERROR_TYPE_MISMATCH, "not offered", CURED_OP_SUM, CURED_ALGO_SINGLE_PASS_ATOMIC, IN_OK,
                CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT8);
}
END_TEST

/* n == 0: operators without an identity refuse it, also with a NULL input; the others accept it. */
START_TEST(test_check_args_empty)
{
    static const cured_op no_identity[] = {CURED_OP_MINMAX, CURED_OP_ARGMIN, CURED_OP_ARGMAX,
                                           CURED_OP_NANARGMIN, CURED_OP_NANARGMAX};
    for (size_t k = 0; k < sizeof no_identity / sizeof *no_identity; k++) {
        expect_args(CURED_ERROR_EMPTY_INPUT, "n = 0", no_identity[k], CURED_ALGO_AUTO, NULL, CURED_TYPE_FLOAT32,
                    0, OUT_OK, CURED_TYPE_FLOAT32);
        expect_args(CURED_ERROR_EMPTY_INPUT, "n = 0", no_identity[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT64,
                    0, OUT_OK, CURED_TYPE_FLOAT64);
        expect_args(CURED_SUCCESS, NULL, no_identity[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT32, 1, OUT_OK,
                    CURED_TYPE_FLOAT32);
    }
    expect_args(CURED_ERROR_EMPTY_INPUT, "n = 0", CURED_OP_ARGMAX, CURED_ALGO_AUTO, NULL, CURED_TYPE_INT8, 0,
                OUT_OK, CURED_TYPE_INT8);
    static const cured_op identity[] = {CURED_OP_SUM, CURED_OP_PRODUCT, CURED_OP_MIN, CURED_OP_MAX,
                                        CURED_OP_NANMIN, CURED_OP_NANMAX, CURED_OP_SUM_SQUARES,
                                        CURED_OP_SUM_ABS, CURED_OP_NORM2, CURED_OP_DOT};
    for (size_t k = 0; k < sizeof identity / sizeof *identity; k++)
        expect_args(CURED_SUCCESS, NULL, identity[k], CURED_ALGO_AUTO, NULL, CURED_TYPE_FLOAT32, 0, OUT_OK,
                    CURED_TYPE_FLOAT32);
    for (int op = CURED_OP_AND; op <= CURED_OP_XOR; op++)
        expect_args(CURED_SUCCESS, NULL, (cured_op)op, CURED_ALGO_AUTO, NULL, CURED_TYPE_UINT16, 0, OUT_OK,
                    CURED_TYPE_UINT16);
}
END_TEST

/* Inputs need the element alignment; outputs their size's, 8 bytes for the ARG operators. */
START_TEST(test_check_args_alignment)
{
    const void *at1 = (const void *)(uintptr_t)0x2001, *at2 = (const void *)(uintptr_t)0x2002;
    const void *at4 = (const void *)(uintptr_t)0x2004, *at8 = (const void *)(uintptr_t)0x2008;
    static const cured_op args[] = {CURED_OP_ARGMIN, CURED_OP_ARGMAX, CURED_OP_NANARGMIN, CURED_OP_NANARGMAX};
    for (size_t k = 0; k < sizeof args / sizeof *args; k++) {
        expect_args(CURED_ERROR_MISALIGNED, "0x2004", args[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT32, 10, at4,
                    CURED_TYPE_FLOAT32);
        expect_args(CURED_ERROR_MISALIGNED, "0x2002", args[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT16, 10, at2,
                    CURED_TYPE_FLOAT16);
        expect_args(CURED_SUCCESS, NULL, args[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT16, 10, at8,
                    CURED_TYPE_FLOAT16);
    }
    expect_args(CURED_ERROR_MISALIGNED, "0x2001", CURED_OP_ARGMAX, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT8, 10, at1,
                CURED_TYPE_INT8);
    /* One-byte elements and results need no alignment; two-byte ones need two. */
    expect_args(CURED_SUCCESS, NULL, CURED_OP_MIN, CURED_ALGO_AUTO, at1, CURED_TYPE_INT8, 10, at1, CURED_TYPE_INT8);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, at1, CURED_TYPE_UINT8, 10, at1, CURED_TYPE_UINT8);
    expect_args(CURED_ERROR_MISALIGNED, "0x2001", CURED_OP_MAX, CURED_ALGO_AUTO, at1, CURED_TYPE_FLOAT16, 10, at2,
                CURED_TYPE_FLOAT16);
    expect_args(CURED_ERROR_MISALIGNED, "0x2001", CURED_OP_MAX, CURED_ALGO_AUTO, at2, CURED_TYPE_BFLOAT16, 10, at1,
                CURED_TYPE_BFLOAT16);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_MAX, CURED_ALGO_AUTO, at2, CURED_TYPE_INT16, 10, at2, CURED_TYPE_INT16);
    expect_args(CURED_ERROR_MISALIGNED, "0x2004", CURED_OP_XOR, CURED_ALGO_AUTO, at4, CURED_TYPE_UINT64, 10, at8,
                CURED_TYPE_UINT64);
    expect_args(CURED_ERROR_MISALIGNED, "0x2004", CURED_OP_SUM, CURED_ALGO_AUTO, at4, CURED_TYPE_INT16, 10, at4,
                CURED_TYPE_INT64);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, at2, CURED_TYPE_INT16, 10, at4,
                CURED_TYPE_INT32);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_MINMAX, CURED_ALGO_AUTO, at8, CURED_TYPE_FLOAT64, 10, at8,
                CURED_TYPE_FLOAT64);
}
END_TEST

/* cured_default_result: the first documented result type, or TYPE_MISMATCH. */
START_TEST(test_default_result)
{
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++) {
            cured_type res[4], got = (cured_type)-7;
            int n = documented((cured_op)op, (cured_type)in, res);
            clear_error();
            cured_status st = cured_default_result((cured_op)op, (cured_type)in, &got);
            if (n == 0) {
                ck_assert_msg(st == CURED_ERROR_TYPE_MISMATCH, "op %d in %d: got %s, want TYPE_MISMATCH", op, in,
                              cured_status_string(st));
                ck_assert_int_eq((int)got, -7);
                assert_message_contains("cured_default_result", "does not take");
            } else {
                ck_assert_msg(st == CURED_SUCCESS && got == res[0], "op %d in %d: got %s and type %d, want %d",
                              op, in, cured_status_string(st), (int)got, (int)res[0]);
            }
        }
    /* Spot checks of the documented defaults. */
    cured_type t;
    ck_assert_int_eq(cured_default_result(CURED_OP_SUM, CURED_TYPE_INT8, &t), CURED_SUCCESS);
    ck_assert_int_eq(t, CURED_TYPE_INT64);
    ck_assert_int_eq(cured_default_result(CURED_OP_DOT, CURED_TYPE_UINT16, &t), CURED_SUCCESS);
    ck_assert_int_eq(t, CURED_TYPE_UINT64);
    ck_assert_int_eq(cured_default_result(CURED_OP_SUM, CURED_TYPE_BFLOAT16, &t), CURED_SUCCESS);
    ck_assert_int_eq(t, CURED_TYPE_FLOAT32);
    ck_assert_int_eq(cured_default_result(CURED_OP_PRODUCT, CURED_TYPE_FLOAT32, &t), CURED_SUCCESS);
    ck_assert_int_eq(t, CURED_TYPE_FLOAT32);
    ck_assert_int_eq(cured_default_result(CURED_OP_NORM2, CURED_TYPE_INT16, &t), CURED_SUCCESS);
    ck_assert_int_eq(t, CURED_TYPE_FLOAT64);
    ck_assert_int_eq(cured_default_result(CURED_OP_ARGMIN, CURED_TYPE_UINT8, &t), CURED_SUCCESS);
    ck_assert_int_eq(t, CURED_TYPE_UINT8);

    static const int bad[] = {-1, CURED_OP_COUNT, 1000, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        clear_error();
        ck_assert_int_eq(cured_default_result((cured_op)bad[i], CURED_TYPE_INT32, &t), CURED_ERROR_INVALID_ENUM);
        assert_message_contains("cured_default_result(bad op)", "unknown");
        ck_assert_int_eq(cured_default_result(CURED_OP_SUM, (cured_type)(bad[i] == CURED_OP_COUNT ? CURED_TYPE_COUNT
                                                                                                   : bad[i]), &t),
                         CURED_ERROR_INVALID_ENUM);
    }
    clear_error();
    ck_assert_int_eq(cured_default_result(CURED_OP_SUM, CURED_TYPE_INT32, NULL), CURED_ERROR_NULL_POINTER);
    assert_message_contains("cured_default_result(NULL)", "NULL");
}
END_TEST

START_TEST(test_type_size)
{
    static const size_t want[CURED_TYPE_COUNT] = {
        [CURED_TYPE_INT32] = 4,   [CURED_TYPE_INT64] = 8,   [CURED_TYPE_INT8] = 1,    [CURED_TYPE_UINT8] = 1,
        [CURED_TYPE_INT16] = 2,   [CURED_TYPE_UINT16] = 2,  [CURED_TYPE_UINT32] = 4,  [CURED_TYPE_UINT64] = 8,
        [CURED_TYPE_FLOAT16] = 2, [CURED_TYPE_BFLOAT16] = 2, [CURED_TYPE_FLOAT32] = 4, [CURED_TYPE_FLOAT64] = 8};
    for (int t = 0; t < CURED_TYPE_COUNT; t++)
        ck_assert_msg(cured_type_size((cured_type)t) == want[t], "type %d: size %zu, want %zu", t,
                      cured_type_size((cured_type)t), want[t]);
    static const int bad[] = {-1, CURED_TYPE_COUNT, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_uint_eq(cured_type_size((cured_type)bad[i]), 0);
    ck_assert_uint_eq(sizeof(cured_arg_result), 16);
    ck_assert_uint_eq(offsetof(cured_arg_result, value), 8);
}
END_TEST

/* Names of every type and operator: the enumerator's spelling, each distinct. */
START_TEST(test_names)
{
    static const char *const types[CURED_TYPE_COUNT] = {
        [CURED_TYPE_INT32] = "int32",     [CURED_TYPE_INT64] = "int64",       [CURED_TYPE_INT8] = "int8",
        [CURED_TYPE_UINT8] = "uint8",     [CURED_TYPE_INT16] = "int16",       [CURED_TYPE_UINT16] = "uint16",
        [CURED_TYPE_UINT32] = "uint32",   [CURED_TYPE_UINT64] = "uint64",     [CURED_TYPE_FLOAT16] = "float16",
        [CURED_TYPE_BFLOAT16] = "bfloat16", [CURED_TYPE_FLOAT32] = "float32", [CURED_TYPE_FLOAT64] = "float64"};
    for (int t = 0; t < CURED_TYPE_COUNT; t++)
        ck_assert_str_eq(cured_type_name((cured_type)t), types[t]);
    static const char *const ops[CURED_OP_COUNT] = {
        [CURED_OP_SUM] = "SUM",         [CURED_OP_PRODUCT] = "PRODUCT",         [CURED_OP_MIN] = "MIN",
        [CURED_OP_MAX] = "MAX",         [CURED_OP_MINMAX] = "MINMAX",           [CURED_OP_ARGMIN] = "ARGMIN",
        [CURED_OP_ARGMAX] = "ARGMAX",   [CURED_OP_AND] = "AND",                 [CURED_OP_OR] = "OR",
        [CURED_OP_XOR] = "XOR",         [CURED_OP_SUM_SQUARES] = "SUM_SQUARES", [CURED_OP_SUM_ABS] = "SUM_ABS",
        [CURED_OP_NORM2] = "NORM2",     [CURED_OP_DOT] = "DOT",                 [CURED_OP_NANMIN] = "NANMIN",
        [CURED_OP_NANMAX] = "NANMAX",   [CURED_OP_NANARGMIN] = "NANARGMIN",     [CURED_OP_NANARGMAX] = "NANARGMAX"};
    for (int op = 0; op < CURED_OP_COUNT; op++)
        ck_assert_str_eq(cured_op_name((cured_op)op), ops[op]);
    static const int bad[] = {-1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_str_eq(cured_type_name((cured_type)bad[i]), "unknown");
        ck_assert_str_eq(cured_op_name((cured_op)bad[i]), "UNKNOWN");
    }
    ck_assert_str_eq(cured_type_name(CURED_TYPE_COUNT), "unknown");
    ck_assert_str_eq(cured_op_name(CURED_OP_COUNT), "UNKNOWN");
}
END_TEST

START_TEST(test_check_args_pointers_and_sizes)
{
    expect_args(CURED_ERROR_NULL_POINTER, "output", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, NULL, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_NULL_POINTER, "input", CURED_OP_SUM, CURED_ALGO_AUTO, NULL,
                CURED_TYPE_INT32, 1, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, NULL, CURED_TYPE_INT32, 0, OUT_OK,
                CURED_TYPE_INT64);

    expect_args(CURED_ERROR_SIZE_OVERFLOW, "overflow", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, SIZE_MAX, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_SIZE_OVERFLOW, "overflow", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, SIZE_MAX / 4 + 1, OUT_OK, CURED_TYPE_INT64);
    /* The largest n whose byte size fits is accepted (nothing is dereferenced). */
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT32,
                SIZE_MAX / 4, OUT_OK, CURED_TYPE_INT64);

    for (uintptr_t a = 0x1001; a <= 0x1003; a++) {
        char addr[32];
        snprintf(addr, sizeof addr, "%p", (const void *)a);
        expect_args(CURED_ERROR_MISALIGNED, addr, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)a,
                    CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
    }
    expect_args(CURED_ERROR_MISALIGNED, "0x1004", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1004, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_MISALIGNED, "0x1002", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1002, CURED_TYPE_INT32);
    /* Element alignment is all that is required. */
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)(uintptr_t)0x1004,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1004, CURED_TYPE_INT32);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)(uintptr_t)0x100c,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1008, CURED_TYPE_INT64);
}
END_TEST

START_TEST(test_check_args_every_spec)
{
    /* Every specialization is valid and is its own combination's program. */
    const size_t count = cr_spec_count();
    ck_assert_uint_ge(count, 2 * CURED_ALGO_COUNT);
    for (size_t k = 0; k < count; k++) {
        const struct cr_program *p = cr_spec(k);
        ck_assert_ptr_nonnull(p);
        ck_assert_msg(p->nkernels >= 1 && p->nkernels <= CR_MAX_KERNELS && p->file != NULL,
                      "spec %zu is malformed", k);
        ck_assert_msg(p->acc_size >= 1 && p->acc_size <= CR_MAX_ACC && p->result_size >= 1 &&
                          p->result_size <= CR_MAX_RESULT,
                      "spec %zu (%s): accumulator %d, result %d bytes", k, p->label, p->acc_size, p->result_size);
        int spec = -12345;
        cured_status st = cr_check_args(p->op, p->algo, IN_OK, p->in, 100, OUT_OK, p->out, &spec);
        ck_assert_msg(st == CURED_SUCCESS && spec == (int)k, "spec %zu (%s): %s, index %d", k, p->label,
                      cured_status_string(st), spec);
    }
    ck_assert_ptr_null(cr_spec(count));
}
END_TEST

/* ---- user-defined expressions ----------------------------------------------------- */

/* cr_custom_build: the checks of cured_custom_create before anything is compiled. */
static void expect_build(cured_status want, const char *needle, cured_type in, cured_type acc, int ninputs,
                         const char *map, const char *combine, const char *identity)
{
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    clear_error();
    cured_status st = cr_custom_build(in, acc, ninputs, map, combine, identity, &op);
    ck_assert_msg(st == want, "build(%d, %d, %d, \"%.40s\", \"%.40s\", \"%.40s\"): got %s, want %s: %s", (int)in,
                  (int)acc, ninputs, map ? map : "(null)", combine ? combine : "(null)",
                  identity ? identity : "(null)", cured_status_string(st), cured_status_string(want),
                  cured_last_error());
    if (want != CURED_SUCCESS) {
        ck_assert_msg(op == NULL, "a failed build did not set the op to NULL");
        assert_message_contains("cr_custom_build", needle);
        return;
    }
    ck_assert_ptr_nonnull(op);
    const struct cr_program *p = cr_custom_program(op);
    ck_assert_int_eq(p->result_size, (int)cured_type_size(acc));
    ck_assert_int_eq(p->in, in);
    ck_assert_int_eq(p->out, acc);
    ck_assert_msg(p->source != NULL && strstr(p->source, map) && strstr(p->source, combine) &&
                      strstr(p->source, identity),
                  "the generated program does not hold the expressions");
    ck_assert_int_eq(cured_custom_destroy(op), CURED_SUCCESS);
}

START_TEST(test_custom_expressions)
{
    static const char *const forbidden[] = {
        "x;",   "x; x", "x{",  "{x}", "x}",  "#x",   "x#y",    "x\"y\"", "x'y'", "x\\",  "x`",     "x//c", "x/*c*/",
        "(x",   "x)",   ")x(", "((x)", "[x", "x]",   "]x[",    "",       "x\t",  "x\n",  "x*\xc3\xa9", "x\x7f",
        "%:x",  "x<%",  "x%>", "a<:0:>"};
    const char *slot_names[] = {"map_expr", "combine_expr", "identity_expr"};
    for (size_t k = 0; k < sizeof forbidden / sizeof *forbidden; k++)
        for (int slot = 0; slot < 3; slot++) {
            const char *e[3] = {"x*x", "a+b", "0"};
            e[slot] = forbidden[k];
            expect_build(CURED_ERROR_INVALID_EXPRESSION, slot_names[slot], CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64,
                         1, e[0], e[1], e[2]);
        }
    /* 1024 characters are accepted, 1025 are not. */
    char longest[1026];
    memset(longest, ' ', 1025);
    longest[0] = 'x';
    longest[1025] = '\0';
    expect_build(CURED_ERROR_INVALID_EXPRESSION, "map_expr", CURED_TYPE_INT32, CURED_TYPE_INT64, 1, longest, "a+b", "0");
    expect_build(CURED_ERROR_INVALID_EXPRESSION, "identity_expr", CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a+b",
                 longest);
    longest[1024] = '\0';
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, longest, "a+b", "0");

    /* What the checks let through. */
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x*x", "a+b", "0");
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "fabs(x)", "fmax(a,b)", "0");
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x != 0", "a+b", "0");
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 2, "x*y", "a+b", "0");
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_FLOAT16, CURED_TYPE_FLOAT32, 2, "(x / y) % 2 < 1 ? x : -y",
                 "a > b ? a : b", "-1e30f");
    expect_build(CURED_SUCCESS, NULL, CURED_TYPE_UINT8, CURED_TYPE_UINT32, 1, "((x) & 15) | (x >> 4)", "a ^ b",
                 "0u");
    /* No expression: NULL_POINTER; bad types and input counts. */
    expect_build(CURED_ERROR_NULL_POINTER, "map_expr", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, NULL, "a+b", "0");
    expect_build(CURED_ERROR_NULL_POINTER, "combine_expr", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "x", NULL, "0");
    expect_build(CURED_ERROR_NULL_POINTER, "identity_expr", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "x", "a+b",
                 NULL);
    static const int bad_ninputs[] = {0, 3, -1, INT_MAX};
    for (size_t k = 0; k < sizeof bad_ninputs / sizeof *bad_ninputs; k++)
        expect_build(CURED_ERROR_INVALID_VALUE, "ninputs", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, bad_ninputs[k],
                     "x", "a+b", "0");
    expect_build(CURED_ERROR_TYPE_MISMATCH, "half", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT16, 1, "x", "a+b", "0");
    expect_build(CURED_ERROR_TYPE_MISMATCH, "half", CURED_TYPE_BFLOAT16, CURED_TYPE_BFLOAT16, 1, "x", "a+b", "0");
    expect_build(CURED_ERROR_INVALID_ENUM, "12", (cured_type)CURED_TYPE_COUNT, CURED_TYPE_FLOAT32, 1, "x", "a+b", "0");
    expect_build(CURED_ERROR_INVALID_ENUM, "-1", CURED_TYPE_FLOAT32, (cured_type)-1, 1, "x", "a+b", "0");
}
END_TEST

/* The public entry points of user-defined ops without a GPU. */
START_TEST(test_custom_null)
{
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    clear_error();
    ck_assert_int_eq(cured_custom_create(NULL, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x*x", "a+b", "0", &op),
                     CURED_ERROR_NULL_HANDLE);
    ck_assert_msg(op == NULL, "cured_custom_create did not set the op to NULL on failure");
    assert_message_contains("cured_custom_create(NULL handle)", "NULL");
    clear_error();
    ck_assert_int_eq(cured_custom_create((cured_handle)(uintptr_t)0x1, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1,
                                         "x*x", "a+b", "0", NULL),
                     CURED_ERROR_NULL_POINTER);
    assert_message_contains("cured_custom_create(NULL out)", "NULL");
    ck_assert_int_eq(cured_custom_destroy(NULL), CURED_SUCCESS);

    int dummy[4] = {0};
    long long out = 0x5a5a;
    clear_error();
    ck_assert_int_eq(cured_custom_reduce(NULL, NULL, dummy, NULL, 4, &out, NULL), CURED_ERROR_NULL_HANDLE);
    assert_message_contains("cured_custom_reduce(NULL handle)", "NULL");
    ck_assert_int_eq(cured_custom_reduce_async(NULL, NULL, dummy, NULL, 4, &out, NULL), CURED_ERROR_NULL_HANDLE);
    ck_assert_int_eq(out, 0x5a5a);
}
END_TEST

/* ---- without a driver / without NVRTC ------------------------------------------ */

START_TEST(test_no_driver)
{
    no_driver();
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    clear_error();
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DRIVER);
    ck_assert_msg(h == NULL, "cured_create did not set the handle to NULL on failure");
    assert_message_contains("cured_create", MISSING_DRIVER);

    h = (cured_handle)(uintptr_t)0x1;
    clear_error();
    ck_assert_int_eq(cured_create_for_context((struct CUctx_st *)(uintptr_t)0x1000, &h),
                     CURED_ERROR_NO_DRIVER);
    ck_assert_msg(h == NULL, "cured_create_for_context did not set the handle to NULL on failure");
    assert_message_contains("cured_create_for_context", MISSING_DRIVER);

    int version = -3;
    clear_error();
    ck_assert_int_eq(cured_driver_version(&version), CURED_ERROR_NO_DRIVER);
    ck_assert_int_eq(version, -3);
    assert_message_contains("cured_driver_version", MISSING_DRIVER);

    /* The failure is remembered, and reported again. */
    clear_error();
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DRIVER);
    assert_message_contains("cured_create (again)", MISSING_DRIVER);
}
END_TEST

START_TEST(test_no_nvrtc)
{
    no_nvrtc();
    int major = -3, minor = -3;
    clear_error();
    ck_assert_int_eq(cured_nvrtc_version(&major, &minor), CURED_ERROR_NO_NVRTC);
    ck_assert_int_eq(major, -3);
    ck_assert_int_eq(minor, -3);
    assert_message_contains("cured_nvrtc_version", MISSING_NVRTC);

    size_t bytes = 777;
    clear_error();
    ck_assert_int_eq(cured_compile_kernel(0, 90, 0, &bytes), CURED_ERROR_NO_NVRTC);
    ck_assert_uint_eq(bytes, 777);
    assert_message_contains("cured_compile_kernel", MISSING_NVRTC);

    clear_error();
    ck_assert_int_eq(cured_compile_kernel(0, 90, 0, NULL), CURED_ERROR_NO_NVRTC);
    assert_message_contains("cured_compile_kernel (again)", MISSING_NVRTC);

    int archs[4] = {-3, -3, -3, -3}, count = -3;
    clear_error();
    ck_assert_int_eq(cured_supported_archs(archs, 4, &count), CURED_ERROR_NO_NVRTC);
    ck_assert_int_eq(count, -3);
    ck_assert_int_eq(archs[0], -3);
    assert_message_contains("cured_supported_archs", MISSING_NVRTC);
    ck_assert_int_eq(cured_supported_archs(NULL, 0, NULL), CURED_ERROR_NULL_POINTER);
    ck_assert_int_eq(cured_supported_archs(NULL, 4, &count), CURED_ERROR_NULL_POINTER);

    /* No program was compiled; the failed ones were counted. */
    cured_stats s;
    ck_assert_int_eq(cured_get_stats(&s), CURED_SUCCESS);
    ck_assert_uint_eq(s.compiles, 0);
    ck_assert_uint_ge(s.compile_failures, 2);
}
END_TEST

/*
 * With neither library, a program that used cured exits normally: exit()
 * runs atexit handlers and library destructors in a child process, which
 * must end with status 0 and not by a signal.
 */
START_TEST(test_clean_exit)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork failed");
    if (pid == 0) {
        setenv("CURED_CUDA_DRIVER_LIBRARY", MISSING_DRIVER, 1);
        setenv("CURED_NVRTC_LIBRARY", MISSING_NVRTC, 1);
        cured_handle h = NULL;
        int v = 0;
        int bad = 0;
        bad |= cured_create(0, &h) != CURED_ERROR_NO_DRIVER;
        bad |= cured_driver_version(&v) != CURED_ERROR_NO_DRIVER;
        bad |= cured_nvrtc_version(NULL, NULL) != CURED_ERROR_NO_NVRTC;
        bad |= cured_compile_kernel(1, 90, 1, NULL) != CURED_ERROR_NO_NVRTC;
        bad |= cured_destroy(h) != CURED_SUCCESS;
        exit(bad ? 3 : 0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(!WIFSIGNALED(status), "the process was killed by signal %d at exit",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the process exited with status %d (3: a call returned an unexpected status)",
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *basics = tcase_create("basics");
    tcase_set_timeout(basics, 60); /* forks are slow under compute-sanitizer */
    tcase_add_test(basics, test_status_strings);
    tcase_add_test(basics, test_version);
    tcase_add_test(basics, test_kernel_names);
    tcase_add_test(basics, test_null_handle);
    tcase_add_test(basics, test_null_pointers);
    suite_add_tcase(s, basics);

    TCase *args = tcase_create("check_args");
    tcase_set_timeout(args, 60); /* forks are slow under compute-sanitizer */
    tcase_add_test(args, test_check_args_enums);
    tcase_add_test(args, test_check_args_every_combination);
    tcase_add_test(args, test_check_args_empty);
    tcase_add_test(args, test_check_args_alignment);
    tcase_add_test(args, test_check_args_pointers_and_sizes);
    tcase_add_test(args, test_check_args_every_spec);
    tcase_add_test(args, test_default_result);
    tcase_add_test(args, test_type_size);
    tcase_add_test(args, test_names);
    suite_add_tcase(s, args);

    TCase *custom = tcase_create("user_defined");
    tcase_set_timeout(custom, 60);
    tcase_add_test(custom, test_custom_expressions);
    tcase_add_test(custom, test_custom_null);
    suite_add_tcase(s, custom);

    TCase *missing = tcase_create("missing_libraries");
    tcase_set_timeout(missing, 60);
    tcase_add_test(missing, test_no_driver);
    tcase_add_test(missing, test_no_nvrtc);
    tcase_add_test(missing, test_clean_exit);
    suite_add_tcase(s, missing);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(api_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
