/*
 * A CUDA driver that loads but sees no device (tests/fakecuda.c, loaded
 * through CURED_CUDA_DRIVER_LIBRARY): handles are refused with
 * CURED_ERROR_NO_DEVICE and cuInit's error in the message, while the driver
 * version is still reported. Runs without a GPU; exits 77 only when the fake
 * library was not built (a static-only build).
 */
#include "api_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_VERSION 12345 /* tests/fakecuda.c */

static const char *fake_driver;

static void use_fake_driver(void)
{
    /* Each test runs in its own process, which loads the driver at its first call. */
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", fake_driver, 1), 0);
}

START_TEST(test_create)
{
    use_fake_driver();
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DEVICE);
    ck_assert_msg(h == NULL, "cured_create did not set the handle to NULL on failure");
    assert_message_contains("cured_create", "cuInit");
    assert_message_contains("cured_create", "CUDA_ERROR_NO_DEVICE");

    h = (cured_handle)(uintptr_t)0x1;
    ck_assert_int_eq(cured_create_for_context((struct CUctx_st *)(uintptr_t)0x1000, &h), CURED_ERROR_NO_DEVICE);
    ck_assert_msg(h == NULL, "cured_create_for_context did not set the handle to NULL on failure");
    assert_message_contains("cured_create_for_context", "no CUDA device");
}
END_TEST

START_TEST(test_driver_version)
{
    use_fake_driver();
    int version = -3;
    clear_error();
    ck_assert_int_eq(cured_driver_version(&version), CURED_SUCCESS);
    ck_assert_int_eq(version, FAKE_VERSION);
    /* A successful call leaves the last failing call's message (here: none) as it was. */
    ck_assert_str_eq(cured_last_error(), "");
    ck_assert_int_eq(cured_driver_version(NULL), CURED_ERROR_NULL_POINTER);
    /* After the failed cuInit, a handle is still refused the same way. */
    cured_handle h = NULL;
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DEVICE);
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
    Suite *s = suite_create("nodevice");
    TCase *tc = tcase_create("nodevice");
    tcase_add_test(tc, test_create);
    tcase_add_test(tc, test_driver_version);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
