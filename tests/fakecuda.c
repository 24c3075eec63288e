/*
 * A stand-in for libcuda.so.1 on a machine that has a driver but no device:
 * cuGetProcAddress_v2 hands out every entry point cured asks for; cuInit
 * fails with CUDA_ERROR_NO_DEVICE, cuDriverGetVersion says FAKE_VERSION, and
 * the error-name calls answer. Nothing else is reachable once cuInit has
 * failed. Loaded by tests/test-nodevice through CURED_CUDA_DRIVER_LIBRARY.
 */
#include <cuda.h>
#include <string.h>

#define FAKE_VERSION 12345

static CUresult fake_init(unsigned int flags)
{
    (void)flags;
    return CUDA_ERROR_NO_DEVICE;
}

static CUresult fake_driver_get_version(int *v)
{
    *v = FAKE_VERSION;
    return CUDA_SUCCESS;
}

static CUresult fake_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

static CUresult fake_error_string(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected" : "fake driver";
    return CUDA_SUCCESS;
}

/* Any other entry point: never called, since cuInit fails first. */
static CUresult fake_not_initialized(void)
{
    return CUDA_ERROR_NOT_INITIALIZED;
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                                                   cuuint64_t flags,
                                                                   CUdriverProcAddressQueryResult *status);

CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    typedef void (*any_fn)(void); /* cured casts each back to its own type */
    (void)version, (void)flags;
    any_fn f = (any_fn)fake_not_initialized;
    if (strcmp(symbol, "cuInit") == 0)
        f = (any_fn)fake_init;
    else if (strcmp(symbol, "cuDriverGetVersion") == 0)
        f = (any_fn)fake_driver_get_version;
    else if (strcmp(symbol, "cuGetErrorName") == 0)
        f = (any_fn)fake_error_name;
    else if (strcmp(symbol, "cuGetErrorString") == 0)
        f = (any_fn)fake_error_string;
    memcpy(fn, &f, sizeof f);
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
