/* The fake NCCL of the off-GPU comm suites (test-comm, test-comm-stats), on fake_device.h's device. */
#ifndef CURED_TESTS_COMM_FAKE_H
#define CURED_TESTS_COMM_FAKE_H

#include "fake_device.h"
#include "nccl_lib.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct fake_nccl_call {
    const char *what;
    const void *send;
    void *recv;
    size_t count;
    int type, op;
};

static const char *fake_nccl;
static int (*nccl_calls)(const struct fake_nccl_call **out);
#define FAKE_COMM ((struct ncclComm *)(uintptr_t)0x1000)

/* The fake driver's and NCCL's libraries from the environment (make check sets both): 1, or 0 after
 * saying why the suite skips (exit 77). */
static inline int fake_comm_libraries(void)
{
    fake_driver = getenv("CURED_TEST_FAKE_DRIVER");
    fake_nccl = getenv("CURED_TEST_FAKE_NCCL");
    if (fake_driver == NULL || access(fake_driver, R_OK) != 0 || fake_nccl == NULL || access(fake_nccl, R_OK) != 0) {
        printf("SKIP: the fake driver or NCCL library was not built (static-only build?)\n");
        return 0;
    }
    return 1;
}

/* The launches the fake device counted so far. */
static inline int fake_launches(void)
{
    return counts().launches;
}

/* The fake NCCL (ranks, rank) and a communicator on h. */
static inline cured_comm fake_comm(cured_handle h, const char *nranks, const char *rank, size_t max_outputs)
{
    ck_assert_int_eq(setenv("CURED_NCCL_LIBRARY", fake_nccl, 1), 0);
    ck_assert_int_eq(setenv("FAKENCCL_NRANKS", nranks, 1), 0);
    ck_assert_int_eq(setenv("FAKENCCL_RANK", rank, 1), 0);
    cured_comm cc = NULL;
    expect(cured_comm_create(h, FAKE_COMM, max_outputs, &cc), CURED_SUCCESS, "cured_comm_create");
    void *lib = dlopen(fake_nccl, RTLD_NOW | RTLD_NOLOAD);
    ck_assert_ptr_nonnull(lib);
    *(void **)&nccl_calls = dlsym(lib, "fake_nccl_calls");
    ck_assert_ptr_nonnull(nccl_calls);
    return cc;
}

static inline int ncalls(void)
{
    const struct fake_nccl_call *c;
    return nccl_calls(&c);
}

static inline int have_nvrtc(void)
{
    int major, minor;
    if (cured_nvrtc_version(&major, &minor) == CURED_SUCCESS)
        return 1;
    printf("skipped: no NVRTC (%s)\n", cured_last_error());
    return 0;
}

#endif
