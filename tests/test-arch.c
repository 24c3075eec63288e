/*
 * cr_select_arch: which NVRTC target a device gets, with made-up lists of
 * supported architectures. Pure function: no driver, no NVRTC.
 */
#include "internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON (-7777)

static const int list[] = {75, 80, 86, 87, 89, 90, 100, 120};
#define NLIST ((int)(sizeof list / sizeof *list))

/* Expect success with (want_arch, want_ptx); outputs start poisoned. */
static void expect_target(int cc, const int *sup, int nsup, const char *override, int want_arch,
                          int want_ptx)
{
    int arch = POISON, ptx = POISON;
    cr_fail(CURED_SUCCESS, "%s", "");
    cured_status st = cr_select_arch(cc, sup, nsup, override, &arch, &ptx);
    ck_assert_msg(st == CURED_SUCCESS, "cc %d override %s: %s (%s)", cc,
                  override ? override : "(null)", cured_status_string(st), cured_last_error());
    ck_assert_msg(arch == want_arch && ptx == want_ptx,
                  "cc %d override %s: got %s_%d, want %s_%d", cc, override ? override : "(null)",
                  ptx ? "compute" : "sm", arch, want_ptx ? "compute" : "sm", want_arch);
}

/* Expect a failure status with a message that contains `needle`; arch untouched. */
static void expect_error(int cc, const int *sup, int nsup, const char *override, cured_status want,
                         const char *needle)
{
    int arch = POISON, ptx = POISON;
    cr_fail(CURED_SUCCESS, "%s", "");
    cured_status st = cr_select_arch(cc, sup, nsup, override, &arch, &ptx);
    ck_assert_msg(st == want, "cc %d override %s: got %s, want %s", cc,
                  override ? override : "(null)", cured_status_string(st), cured_status_string(want));
    ck_assert_msg(strstr(cured_last_error(), needle) != NULL,
                  "cc %d override %s: message \"%s\" does not mention \"%s\"", cc,
                  override ? override : "(null)", cured_last_error(), needle);
    ck_assert_msg(arch == POISON, "cc %d: arch was written (%d) although the call failed", cc, arch);
}

START_TEST(test_exact_match_is_cubin)
{
    expect_target(90, list, NLIST, NULL, 90, 0);
    expect_target(86, list, NLIST, NULL, 86, 0);
    expect_target(75, list, NLIST, NULL, 75, 0);
    expect_target(120, list, NLIST, NULL, 120, 0);
    expect_target(100, list, NLIST, NULL, 100, 0);
}
END_TEST

START_TEST(test_same_major_highest_below)
{
    /* A cubin of sm_XY runs on sm_XZ for Z >= Y: the highest such Y wins. */
    expect_target(88, list, NLIST, NULL, 87, 0);
    expect_target(121, list, NLIST, NULL, 120, 0);
    expect_target(103, list, NLIST, NULL, 100, 0);
    expect_target(91, list, NLIST, NULL, 90, 0);
    /* Not a lower major even if it is the closest number below. */
    static const int gap[] = {75, 80, 90};
    expect_target(89, gap, 3, NULL, 80, 0);
}
END_TEST

START_TEST(test_new_major_gets_ptx)
{
    expect_target(130, list, NLIST, NULL, 120, 1);
    expect_target(110, list, NLIST, NULL, 100, 1); /* sm_11x is not listed: PTX of sm_100 */
    static const int old[] = {75, 80};
    expect_target(90, old, 2, NULL, 80, 1);
}
END_TEST

START_TEST(test_too_old_is_not_supported)
{
    expect_error(70, list, NLIST, NULL, CURED_ERROR_NOT_SUPPORTED, "7.0");
    expect_error(60, list, NLIST, NULL, CURED_ERROR_NOT_SUPPORTED, "6.0");
    /* PTX runs only on devices at least as new as its target. */
    static const int only90[] = {90};
    expect_error(89, only90, 1, NULL, CURED_ERROR_NOT_SUPPORTED, "8.9");
    /* Nothing supported at all. */
    expect_error(90, list, 0, NULL, CURED_ERROR_NOT_SUPPORTED, "9.0");
}
END_TEST

START_TEST(test_override)
{
    /* The override wins over the list and over the device. */
    expect_target(90, list, NLIST, "sm_80", 80, 0);
    expect_target(90, list, NLIST, "compute_75", 75, 1);
    expect_target(70, list, NLIST, "sm_120", 120, 0);
    expect_target(90, list, NLIST, "compute_100", 100, 1);
}
END_TEST

START_TEST(test_bad_override)
{
    static const char *const bad[] = {"sm_", "gfx90a", "sm_9x", "compute_", "sm_80 ", " sm_80",
                                      "SM_80", "sm_-80", "sm_5", "compute", "sm80"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_error(90, list, NLIST, bad[i], CURED_ERROR_NOT_SUPPORTED, bad[i]); /* as cured_get_arch documents */
}
END_TEST

START_TEST(test_empty_override_is_ignored)
{
    expect_target(90, list, NLIST, "", 90, 0);
    expect_target(88, list, NLIST, "", 87, 0);
    expect_target(130, list, NLIST, "", 120, 1);
    expect_error(70, list, NLIST, "", CURED_ERROR_NOT_SUPPORTED, "7.0");
}
END_TEST

static Suite *arch_suite(void)
{
    Suite *s = suite_create("arch");
    TCase *tc = tcase_create("select");
    tcase_set_timeout(tc, 60); /* forks are slow under compute-sanitizer */
    tcase_add_test(tc, test_exact_match_is_cubin);
    tcase_add_test(tc, test_same_major_highest_below);
    tcase_add_test(tc, test_new_major_gets_ptx);
    tcase_add_test(tc, test_too_old_is_not_supported);
    tcase_add_test(tc, test_override);
    tcase_add_test(tc, test_bad_override);
    tcase_add_test(tc, test_empty_override_is_ignored);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(arch_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
