/*
 * Is a pointer memory the device can read? One cuPointerGetAttributes per
 * pointer per call: it costs about 0.04 us on the H200 host, against about
 * 3 us for the launch itself (bench/NOTES.md), so it is not worth a cache
 * that would miss memory freed since it was filled.
 */
#include "internal.h"

#include <stdint.h>

cured_status cr_check_device_pointer(cured_handle h, const void *p, const char *what)
{
    CUpointer_attribute attr = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    unsigned int type = 0;
    void *data = &type;
    CUresult r = h->d->PointerGetAttributes(1, &attr, &data, (CUdeviceptr)(uintptr_t)p);
    if (r != CUDA_SUCCESS)
        return cr_fail_cuda(r, "cuPointerGetAttributes");
    if (type == 0) /* unknown to CUDA: plain host memory */
        return cr_fail(CURED_ERROR_NOT_DEVICE_POINTER,
                       "the %s pointer %p is not device memory (a host pointer?)", what, p);
    return CURED_SUCCESS;
}
