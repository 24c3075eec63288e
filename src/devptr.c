/*
 * Is a pointer memory the device can read? cuPointerGetAttributes answers,
 * but costs a driver call per pointer per reduce call, a large share of the
 * host time of a small asynchronous reduction. So each thread remembers the
 * last few device allocations it has been shown (their whole address
 * ranges, per context) and asks the driver only about addresses outside
 * them. Only device memory is remembered: its addresses come from the
 * driver's own reserved range, where a freed address can only ever become
 * device memory again, whereas registered host memory can be unregistered.
 */
#include "internal.h"

#include <stdint.h>

#define CR_RANGES 8

struct range {
    CUcontext ctx;
    uintptr_t lo, hi; /* [lo, hi) */
};

static _Thread_local struct range ranges[CR_RANGES];
static _Thread_local unsigned next_range;

cured_status cr_check_device_pointer(cured_handle h, const void *p, size_t bytes, const char *what)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    for (unsigned i = 0; i < CR_RANGES; i++)
        if (ranges[i].ctx == h->ctx && lo >= ranges[i].lo && hi <= ranges[i].hi && ranges[i].hi != 0)
            return CURED_SUCCESS;

    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned int type = 0;
    CUdeviceptr start = 0;
    size_t size = 0;
    void *data[] = {&type, &start, &size};
    CUresult r = h->d->PointerGetAttributes(3, attrs, data, (CUdeviceptr)lo);
    if (r != CUDA_SUCCESS)
        return cr_fail_cuda(r, "cuPointerGetAttributes");
    if (type == 0) /* unknown to CUDA: plain host memory */
        return cr_fail(CURED_ERROR_NOT_DEVICE_POINTER,
                       "the %s pointer %p is not device memory (a host pointer?)", what, p);
    if (type == CU_MEMORYTYPE_DEVICE && size > 0 && lo >= start && hi <= start + size) {
        struct range *slot = &ranges[next_range++ % CR_RANGES];
        slot->ctx = h->ctx;
        slot->lo = (uintptr_t)start;
        slot->hi = (uintptr_t)(start + size);
    }
    return CURED_SUCCESS;
}
