/*
 * Is a pointer memory the device can read, and does the range the call will
 * touch lie in mapped memory? One cuPointerGetAttributes per pointer per
 * call, asking the memory type and the allocation's range together: it costs
 * about 0.04 us on the H200 host, against about 3 us for the launch itself
 * (bench/NOTES.md), so it is not worth a cache that would miss memory freed
 * since it was filled.
 *
 * A range past the end of its allocation faults the kernel and loses the
 * context for the whole process, so it is refused before launch. Before
 * refusing, the allocations that follow are looked at: the chunks mapped
 * into one virtual reservation (cuMemMap, e.g. an expandable-segments
 * allocator) are separate allocations to the driver yet one array to the
 * caller. Memory the driver cannot size is not checked.
 */
#include "internal.h"

#include <stdint.h>

#define MAX_NEIGHBOURS 4096 /* allocations followed before the range is taken as mapped */

struct range {
    unsigned int type; /* CUmemorytype, 0 when CUDA does not know the pointer */
    CUdeviceptr start;
    size_t size; /* 0 when the driver cannot size it */
};

static CUresult query(cured_handle h, CUdeviceptr p, struct range *r)
{
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    r->type = 0;
    r->start = 0;
    r->size = 0;
    void *data[] = {&r->type, &r->start, &r->size};
    return h->d->PointerGetAttributes(3, attrs, data, p);
}

cured_status cr_check_device_range(cured_handle h, const void *p, size_t bytes, const char *what)
{
    const CUdeviceptr begin = (CUdeviceptr)(uintptr_t)p;
    struct range r;
    CUresult e = query(h, begin, &r);
    if (e != CUDA_SUCCESS)
        return cr_fail_cuda(e, "cuPointerGetAttributes");
    if (r.type == 0) /* unknown to CUDA: plain host memory */
        return cr_fail(CURED_ERROR_NOT_DEVICE_POINTER, "the %s pointer %p is not device memory (a host pointer?)",
                       what, p);
    if (r.size == 0 || r.start > begin || begin - r.start >= r.size)
        return CURED_SUCCESS; /* the driver cannot size it: not checked */
    if (bytes <= r.size - (size_t)(begin - r.start))
        return CURED_SUCCESS;
    const CUdeviceptr first_start = r.start;
    const size_t first_size = r.size;
    /* Past this allocation: still mapped only if allocations follow without a gap. */
    CUdeviceptr end = r.start + r.size;
    for (int followed = 0; bytes > (size_t)(end - begin); followed++) {
        if (followed == MAX_NEIGHBOURS)
            return CURED_SUCCESS; /* so many adjacent allocations: taken as one array, not checked */
        if ((e = query(h, end, &r)) != CUDA_SUCCESS)
            return cr_fail_cuda(e, "cuPointerGetAttributes");
        if (r.type != 0 && r.size == 0)
            return CURED_SUCCESS; /* memory the driver cannot size: not checked */
        if (r.type == 0 || r.start > end || end - r.start >= r.size)
            return cr_fail(CURED_ERROR_OUT_OF_RANGE,
                           "the %s [%p, %p + %zu) runs past the end of its allocation [0x%llx, 0x%llx + %zu) "
                           "into memory that is not mapped (%zu bytes past it)",
                           what, p, p, bytes, (unsigned long long)first_start, (unsigned long long)first_start,
                           first_size, bytes - (size_t)(end - begin));
        end = r.start + r.size;
    }
    return CURED_SUCCESS;
}

cured_status cr_check_device_pointer(cured_handle h, const void *p, const char *what)
{
    return cr_check_device_range(h, p, 0, what);
}

cured_status cr_check_second_input(const void *y, cured_type type, size_t n)
{
    size_t size = cr_type_size(type); /* type and n were checked with the first input */
    if (y == NULL && n > 0)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the second input (y) is NULL and n = %zu", n);
    if (size != 0 && (uintptr_t)y % size != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the second input (y) %p is not aligned to its %zu-byte elements", y,
                       size);
    return CURED_SUCCESS;
}
