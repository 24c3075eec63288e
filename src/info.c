/* Version, environment and build-limit queries. */
#include "internal.h"

CR_API int cured_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = CURED_VERSION_MAJOR;
    if (minor)
        *minor = CURED_VERSION_MINOR;
    if (patch)
        *patch = CURED_VERSION_PATCH;
    return CURED_API_VERSION;
}

CR_API int cured_max_rank(void)
{
    return CURED_MAX_RANK;
}

CR_API const char *cured_version_string(void)
{
    return PACKAGE_VERSION;
}

CR_API cured_status cured_nvrtc_version(int *major, int *minor)
{
    const struct cr_nvrtc *nv;
    cured_status st = cr_nvrtc(&nv);
    if (st != CURED_SUCCESS)
        return st;
    if (major)
        *major = nv->major;
    if (minor)
        *minor = nv->minor;
    return CURED_SUCCESS;
}

CR_API cured_status cured_driver_version(int *version)
{
    const char *why = NULL;
    int no_device = 0;
    if (version == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_driver_version: version is NULL");
    /* Loads the driver, or says why not; a driver without a device leaves no message (a success). */
    if (cr_driver_load(&why, &no_device) == NULL && !no_device)
        return cr_fail(CURED_ERROR_NO_DRIVER, "%s", why);
    /* A driver without a device still has a version. */
    CUresult r = cr_driver_get_version(version);
    return r == CUDA_SUCCESS ? CURED_SUCCESS : cr_fail_cuda(r, "cuDriverGetVersion");
}

CR_API cured_status cured_supported_archs(int *archs, int capacity, int *count)
{
    if (count == NULL || (archs == NULL && capacity > 0))
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_supported_archs: NULL output");
    const struct cr_nvrtc *nv;
    cured_status st = cr_nvrtc(&nv);
    if (st != CURED_SUCCESS)
        return st;
    for (int i = 0; i < nv->narchs && i < capacity; i++)
        archs[i] = nv->archs[i];
    *count = nv->narchs;
    return CURED_SUCCESS;
}
