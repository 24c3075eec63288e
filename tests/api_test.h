/*
 * Helpers of the host-side API suites (test-api, test-args, test-nodevice):
 * missing libraries for the loaders, and the thread's error message.
 */
#ifndef CURED_API_TEST_H
#define CURED_API_TEST_H

#include "internal.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define MISSING_DRIVER "/nonexistent/libcuda.so.1"
#define MISSING_NVRTC "/nonexistent/libnvrtc.so"

static inline void no_driver(void)
{
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", MISSING_DRIVER, 1), 0);
}

static inline void no_nvrtc(void)
{
    ck_assert_int_eq(setenv("CURED_NVRTC_LIBRARY", MISSING_NVRTC, 1), 0);
}

/* Empty the thread's message so that a test can see that a call wrote one. */
static inline void clear_error(void)
{
    cr_fail(CURED_SUCCESS, "%s", "");
    ck_assert_str_eq(cured_last_error(), "");
}

static inline void assert_message_contains(const char *what, const char *needle)
{
    const char *msg = cured_last_error();
    ck_assert_msg(msg[0] != '\0', "%s: cured_last_error() is empty", what);
    ck_assert_msg(strstr(msg, needle) != NULL, "%s: message \"%s\" does not contain \"%s\"", what,
                  msg, needle);
}


/* Run one suite; the process's exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
