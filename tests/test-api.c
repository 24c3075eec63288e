/*
 * The public API without a GPU: status names, versions, NULL handles, the
 * argument checks, and the statuses and messages when the CUDA driver or
 * NVRTC cannot be loaded.
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
    ck_assert_msg(count == CURED_ERROR_INTERNAL + 1,
                  "statuses 0..%d should be named, the names stop at %d", CURED_ERROR_INTERNAL, count);
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
    static const int unknown[] = {CURED_ERROR_INTERNAL + 1, -1, 1000, INT_MAX, INT_MIN};
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
        ck_assert_int_eq(spec, cr_spec_index(op, algo, in_type, out_type));
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
    expect_args(CURED_ERROR_INVALID_ENUM, "2", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK, (cured_type)2,
                10, OUT_OK, CURED_TYPE_INT64);
}
END_TEST

START_TEST(test_check_args_type_pairs)
{
    for (int a = 0; a < CURED_ALGO_COUNT; a++) {
        expect_args(CURED_ERROR_TYPE_MISMATCH, "not offered", CURED_OP_SUM, (cured_algorithm)a, IN_OK,
                    CURED_TYPE_INT64, 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_TYPE_MISMATCH, "not offered", CURED_OP_SUM, (cured_algorithm)a, IN_OK,
                    CURED_TYPE_INT64, 10, OUT_OK, CURED_TYPE_INT32);
    }
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
    /* Every offered combination is valid and maps to its own program. */
    int seen[64] = {0};
    size_t nseen = 0;
    ck_assert_uint_le(cr_spec_count(), 64);
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int t = CURED_TYPE_INT32; t <= CURED_TYPE_INT64; t++) {
            int spec = -12345;
            cured_status st = cr_check_args(CURED_OP_SUM, (cured_algorithm)a, IN_OK, CURED_TYPE_INT32,
                                            100, OUT_OK, (cured_type)t, &spec);
            ck_assert_msg(st == CURED_SUCCESS, "algo %d out type %d: %s", a, t,
                          cured_status_string(st));
            ck_assert_msg(spec >= 0 && (size_t)spec < cr_spec_count(), "algo %d: spec %d", a, spec);
            ck_assert_msg(!seen[spec], "algo %d out type %d shares spec %d", a, t, spec);
            seen[spec] = 1;
            nseen++;
            const struct cr_program *p = cr_spec((size_t)spec);
            ck_assert_msg(p->nkernels >= 1 && p->nkernels <= CR_MAX_KERNELS && p->file != NULL,
                          "spec %d is malformed", spec);
        }
    ck_assert_uint_eq(nseen, cr_spec_count());
    ck_assert_ptr_null(cr_spec(cr_spec_count()));
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
    tcase_add_test(args, test_check_args_type_pairs);
    tcase_add_test(args, test_check_args_pointers_and_sizes);
    tcase_add_test(args, test_check_args_every_spec);
    suite_add_tcase(s, args);

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
