/*
 * The public API without a GPU: status names, versions, NULL handles, the
 * checks of user-defined expressions, and the statuses and messages when the
 * CUDA driver or NVRTC cannot be loaded (the argument checks: test-args).
 *
 * The loaders remember their first result for the life of the process, so
 * every test that reaches a loader first points it at a missing library
 * (CURED_CUDA_DRIVER_LIBRARY / CURED_NVRTC_LIBRARY). That makes the results
 * the same on machines with and without a GPU, in fork and in no-fork mode.
 * The parent process never calls into a loader.
 */
#include "api_test.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- status names and versions -------------------------------------------- */

START_TEST(test_status_strings)
{
    const char *names[64];
    int count = 0;
    while (count < 64 && strcmp(cured_status_string((cured_status)count), "CURED_STATUS_UNKNOWN") != 0) {
        names[count] = cured_status_string((cured_status)count);
        count++;
    }
    ck_assert_msg(count == CURED_ERROR_COMPILE_BUDGET + 1,
                  "statuses 0..%d should be named, the names stop at %d", CURED_ERROR_COMPILE_BUDGET, count);
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
    ck_assert_int_eq(CURED_ERROR_OUT_OF_RANGE, 21);
    ck_assert_str_eq(cured_status_string(CURED_ERROR_EMPTY_INPUT), "CURED_ERROR_EMPTY_INPUT");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_ALL_NAN), "CURED_ERROR_ALL_NAN");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_INVALID_EXPRESSION), "CURED_ERROR_INVALID_EXPRESSION");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_OUT_OF_RANGE), "CURED_ERROR_OUT_OF_RANGE");
    ck_assert_int_eq(CURED_ERROR_TOO_FEW_ELEMENTS, 22);
    ck_assert_str_eq(cured_status_string(CURED_ERROR_TOO_FEW_ELEMENTS), "CURED_ERROR_TOO_FEW_ELEMENTS");
    ck_assert_int_eq(CURED_ERROR_NO_NCCL, 23);
    ck_assert_int_eq(CURED_ERROR_NCCL, 24);
    ck_assert_str_eq(cured_status_string(CURED_ERROR_NO_NCCL), "CURED_ERROR_NO_NCCL");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_NCCL), "CURED_ERROR_NCCL");
    ck_assert_int_eq(CURED_ERROR_OVERLAP, 25);
    ck_assert_int_eq(CURED_ERROR_BAD_SEGMENT, 26);
    ck_assert_int_eq(CURED_ERROR_COMPILE_BUDGET, 27);
    ck_assert_str_eq(cured_status_string(CURED_ERROR_OVERLAP), "CURED_ERROR_OVERLAP");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_BAD_SEGMENT), "CURED_ERROR_BAD_SEGMENT");
    ck_assert_str_eq(cured_status_string(CURED_ERROR_COMPILE_BUDGET), "CURED_ERROR_COMPILE_BUDGET");
    static const int unknown[] = {CURED_ERROR_COMPILE_BUDGET + 1, -1, 1000, INT_MAX, INT_MIN};
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
    ck_assert_str_eq(cured_version_string(), CURED_VERSION_STRING); /* the header's, as cured_version.h says */
    ck_assert_ptr_eq(cured_version_string(), cured_version_string()); /* a static string */
}
END_TEST

START_TEST(test_kernel_names)
{
    size_t count = cured_kernel_count();
    ck_assert_uint_eq(count, cr_catalog_count());
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
    const struct cr_unit *p = cr_custom_unit(op);
    const struct cr_request *r = cr_custom_request(op);
    ck_assert_uint_eq(r->acc.result_size, cured_type_size(acc));
    ck_assert_int_eq(r->in, in);
    ck_assert_int_eq(r->out, acc);
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
    return run_suite(api_suite());
}
