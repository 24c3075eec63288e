/*
 * tests/fakecuda.c's one device (FAKECUDA_DEVICE=1) for the suites that
 * check cured.h's promises off the GPU (test-refusals, test-handles): a
 * handle on it, its allocations, and the counts of what a call did
 * (allocations, memsets, synchronisations, launches, the primary context's
 * retains, this thread's pushed contexts, frees, module loads and unloads).
 */
#ifndef CURED_TESTS_FAKE_DEVICE_H
#define CURED_TESTS_FAKE_DEVICE_H

#include "api_test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fake_counts { /* as tests/fakecuda.c's */
    int allocs, memsets, syncs, launches, retains, pushed, frees, loads, unloads;
};

static const char *fake_driver;
static void *(*fake_alloc)(size_t bytes, int sized, size_t gap_after);
static void (*fake_counts)(struct fake_counts *c);
static void (*fake_capture)(struct CUstream_st *s);

static inline void expect(cured_status got, cured_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: got %s, want %s: %s", what, cured_status_string(got), cured_status_string(want),
                  cured_last_error());
}

/* Point the library at the fake device (NVRTC missing unless asked for); its hooks once it is loaded. */
static inline void fake_use(int nvrtc)
{
    ck_assert_int_eq(setenv("FAKECUDA_DEVICE", "1", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", fake_driver, 1), 0);
    if (!nvrtc)
        no_nvrtc();
}

static inline void fake_hooks(void)
{
    void *lib = dlopen(fake_driver, RTLD_NOW | RTLD_NOLOAD); /* the copy the library loaded */
    ck_assert_ptr_nonnull(lib);
    *(void **)&fake_alloc = dlsym(lib, "fake_alloc");
    *(void **)&fake_counts = dlsym(lib, "fake_counts");
    *(void **)&fake_capture = dlsym(lib, "fake_capture");
    ck_assert_msg(fake_alloc && fake_counts && fake_capture, "the fake driver lacks its test hooks");
}

static inline cured_handle fake_handle(int nvrtc)
{
    fake_use(nvrtc);
    cured_handle h = NULL;
    expect(cured_create(0, &h), CURED_SUCCESS, "cured_create with the fake device");
    fake_hooks();
    return h;
}

static inline struct fake_counts counts(void)
{
    struct fake_counts c;
    fake_counts(&c);
    return c;
}

/* main(): SKIP without the fake driver (a static-only build). */
static inline int fake_driver_found(void)
{
    fake_driver = getenv("CURED_TEST_FAKE_DRIVER");
    if (fake_driver != NULL && access(fake_driver, R_OK) == 0)
        return 1;
    printf("SKIP: the fake driver library %s was not built (static-only build?)\n",
           fake_driver ? fake_driver : "(CURED_TEST_FAKE_DRIVER unset)");
    return 0;
}

#endif
