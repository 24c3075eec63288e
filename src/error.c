/* Status names and the per-thread detailed error message. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __thread char last_error[16384];

cured_status cr_fail(cured_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

char *cr_error_save(void)
{
    return strdup(last_error);
}

void cr_error_restore(char *saved)
{
    if (saved != NULL)
        snprintf(last_error, sizeof last_error, "%s", saved);
    free(saved);
}

cured_status cr_fail_cuda(CUresult r, const char *what)
{
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "%s: %s", what, cr_driver_error_text(r));
    return cr_fail(CURED_ERROR_CUDA, "%s: %s", what, cr_driver_error_text(r));
}

cured_status cr_driver(const struct cr_driver **out)
{
    const char *why = NULL;
    int no_device = 0;
    *out = cr_driver_load(&why, &no_device);
    if (*out != NULL)
        return CURED_SUCCESS;
    if (no_device)
        return cr_fail(CURED_ERROR_NO_DEVICE, "no CUDA device: %s", why);
    return cr_fail(CURED_ERROR_NO_DRIVER, "%s", why);
}

CR_API const char *cured_last_error(void)
{
    return last_error;
}

CR_API const char *cured_status_string(cured_status status)
{
    switch (status) {
#define NAME(s) case s: return #s;
    NAME(CURED_SUCCESS)
    NAME(CURED_ERROR_NULL_HANDLE)
    NAME(CURED_ERROR_NULL_POINTER)
    NAME(CURED_ERROR_INVALID_ENUM)
    NAME(CURED_ERROR_SIZE_OVERFLOW)
    NAME(CURED_ERROR_NOT_DEVICE_POINTER)
    NAME(CURED_ERROR_MISALIGNED)
    NAME(CURED_ERROR_NO_DRIVER)
    NAME(CURED_ERROR_NO_DEVICE)
    NAME(CURED_ERROR_NO_NVRTC)
    NAME(CURED_ERROR_INVALID_DEVICE)
    NAME(CURED_ERROR_COMPILE)
    NAME(CURED_ERROR_NOT_SUPPORTED)
    NAME(CURED_ERROR_OUT_OF_MEMORY)
    NAME(CURED_ERROR_CUDA)
    NAME(CURED_ERROR_TYPE_MISMATCH)
    NAME(CURED_ERROR_INVALID_VALUE)
    NAME(CURED_ERROR_INTERNAL)
    NAME(CURED_ERROR_EMPTY_INPUT)
    NAME(CURED_ERROR_ALL_NAN)
    NAME(CURED_ERROR_INVALID_EXPRESSION)
    NAME(CURED_ERROR_OUT_OF_RANGE)
    NAME(CURED_ERROR_TOO_FEW_ELEMENTS)
    NAME(CURED_ERROR_NO_NCCL)
    NAME(CURED_ERROR_NCCL)
    NAME(CURED_ERROR_OVERLAP)
    NAME(CURED_ERROR_BAD_SEGMENT)
    NAME(CURED_ERROR_COMPILE_BUDGET)
#undef NAME
    }
    return "CURED_STATUS_UNKNOWN";
}
