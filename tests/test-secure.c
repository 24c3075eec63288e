/*
 * A privileged caller (setuid, setgid, capabilities: AT_SECURE), simulated
 * with cr_env_force_secure(1) since a test cannot be made setuid: the
 * library reads no environment variable, so library paths from the
 * environment are not loaded (issue 13: CURED_NVRTC_LIBRARY=/tmp/evil.so ran
 * its constructor as root). The disk-cache side is in test-diskcache-hostile.
 * Each test runs in its own process (Check's fork mode), before any loader.
 */
#include "api_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every variable the library reads (README's table, and what the cache consults). */
static const char *const library_vars[] = {
    "CURED_ARCH",      "CURED_NVRTC_LIBRARY",   "CURED_CUDA_DRIVER_LIBRARY", "CURED_CUDA_HOME", "CUDA_HOME",
    "CUDA_PATH",       "CURED_CACHE_DIR",       "CURED_CACHE_DISABLE",       "CURED_CACHE_MAX_BYTES",
    "CURED_LOG",       "XDG_CACHE_HOME",        "HOME",                      "LD_LIBRARY_PATH"};

START_TEST(test_no_variable_is_read)
{
    for (size_t i = 0; i < sizeof library_vars / sizeof *library_vars; i++)
        ck_assert_int_eq(setenv(library_vars[i], "/tmp/from-the-environment", 1), 0);
    cr_env_force_secure(0);
    for (size_t i = 0; i < sizeof library_vars / sizeof *library_vars; i++)
        ck_assert_ptr_nonnull(cr_getenv(library_vars[i]));
    ck_assert_int_eq(cr_env_privileged(), 0);
    cr_env_force_secure(1);
    ck_assert_int_eq(cr_env_privileged(), 1);
    for (size_t i = 0; i < sizeof library_vars / sizeof *library_vars; i++)
        ck_assert_msg(cr_getenv(library_vars[i]) == NULL, "%s is read in a privileged process", library_vars[i]);
    cr_env_force_secure(-1); /* the kernel's answer: this test is not setuid */
    ck_assert_int_eq(cr_env_privileged(), 0);
}
END_TEST

/* A library path from the environment, one that does not exist: the message shows whether it was tried. */
static char marker[256];

static void plant(const char *var, const char *lib_name)
{
    snprintf(marker, sizeof marker, "/nonexistent/cured-test/%s", lib_name);
    ck_assert_int_eq(setenv(var, marker, 1), 0);
}

START_TEST(test_nvrtc_library_ignored)
{
    plant("CURED_NVRTC_LIBRARY", "libevil-nvrtc.so");
    cr_env_force_secure(1);
    cured_status st = cured_nvrtc_version(NULL, NULL);
    /* Either the default NVRTC loaded, or the message lists only the default names. */
    ck_assert_msg(st == CURED_SUCCESS || strstr(cured_last_error(), marker) == NULL,
                  "a privileged process tried CURED_NVRTC_LIBRARY: %s", cured_last_error());
    if (st != CURED_SUCCESS)
        assert_message_contains("cured_nvrtc_version", "libnvrtc.so");
}
END_TEST

START_TEST(test_nvrtc_library_used_otherwise)
{
    plant("CURED_NVRTC_LIBRARY", "libevil-nvrtc.so");
    ck_assert_int_eq(cured_nvrtc_version(NULL, NULL), CURED_ERROR_NO_NVRTC);
    assert_message_contains("cured_nvrtc_version", marker); /* the control: unprivileged, it is tried */
}
END_TEST

START_TEST(test_driver_library_ignored)
{
    plant("CURED_CUDA_DRIVER_LIBRARY", "libevil-cuda.so");
    cr_env_force_secure(1);
    cured_handle h = NULL;
    cured_status st = cured_create(0, &h);
    ck_assert_msg(strstr(cured_last_error(), marker) == NULL, "a privileged process tried %s: %s", marker,
                  cured_last_error());
    if (st == CURED_ERROR_NO_DRIVER)
        assert_message_contains("cured_create", "libcuda.so.1");
    cured_destroy(h);
}
END_TEST

START_TEST(test_driver_library_used_otherwise)
{
    plant("CURED_CUDA_DRIVER_LIBRARY", "libevil-cuda.so");
    cured_handle h = NULL;
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DRIVER);
    assert_message_contains("cured_create", marker);
}
END_TEST

/* CURED_CUDA_HOME names headers NVRTC would compile: not from a privileged environment. */
START_TEST(test_toolkit_home_ignored)
{
    char root[] = "/tmp/cured-secure.XXXXXX", inc[128], hdr[160];
    ck_assert_ptr_nonnull(mkdtemp(root));
    snprintf(inc, sizeof inc, "%s/include", root);
    snprintf(hdr, sizeof hdr, "%s/cooperative_groups.h", inc);
    ck_assert_int_eq(mkdir(inc, 0700), 0);
    int fd = open(hdr, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    for (int privileged = 0; privileged < 2; privileged++) {
        pid_t pid = fork(); /* the search runs once per process */
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            setenv("CURED_CUDA_HOME", root, 1);
            cr_env_force_secure(privileged);
            const char *found = cured_toolkit_include();
            int used = found != NULL && strcmp(found, inc) == 0;
            _exit(used == !privileged ? 0 : 1);
        }
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: CURED_CUDA_HOME was %s",
                      privileged ? "privileged" : "unprivileged", privileged ? "used" : "not used");
    }
    unlink(hdr);
    rmdir(inc);
    rmdir(root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("secure");
    TCase *tc = tcase_create("privileged");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_no_variable_is_read);
    tcase_add_test(tc, test_nvrtc_library_ignored);
    tcase_add_test(tc, test_nvrtc_library_used_otherwise);
    tcase_add_test(tc, test_driver_library_ignored);
    tcase_add_test(tc, test_driver_library_used_otherwise);
    tcase_add_test(tc, test_toolkit_home_ignored);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
