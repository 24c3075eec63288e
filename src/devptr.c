/*
 * Is a pointer memory the device can read, and does the range the call will
 * touch lie in mapped memory? One cuPointerGetAttributes per pointer per
 * call, asking the memory type, the allocation's range and the mapping
 * together: it costs about 0.04 us on the H200 host, against about 3 us for
 * the launch itself (bench/NOTES.md), so it is not worth a cache that would
 * miss memory freed since it was filled.
 *
 * A range past the end of its allocation faults the kernel and loses the
 * context for the whole process, so it is refused before launch. Before
 * refusing, the allocations that follow are looked at: the chunks mapped
 * into one virtual reservation (cuMemMap, e.g. an expandable-segments
 * allocator) are separate allocations to the driver yet one array to the
 * caller. For such memory the allocation range the driver reports is the
 * whole reservation (cuMemAddressReserve), mapped or not, so the mapping's
 * own base and size (CU_POINTER_ATTRIBUTE_MAPPING_*) decide, and an address
 * the driver says is not mapped ends the range. Memory the driver cannot
 * size is not checked.
 */
#include "internal.h"

#include <stdint.h>

struct range {
    unsigned int type; /* CUmemorytype, 0 when CUDA does not know the pointer */
    CUdeviceptr start;
    size_t size; /* 0 when the driver cannot size it */
    int mapped_known, mapped; /* CU_POINTER_ATTRIBUTE_MAPPED, where the driver answers it */
    CUdeviceptr map_base;
    size_t map_size; /* the mapping's (0 when the driver reports none) */
};

static CUresult query(cured_handle h, CUdeviceptr p, struct range *r)
{
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE,   CU_POINTER_ATTRIBUTE_MAPPED,
                                   CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, CU_POINTER_ATTRIBUTE_MAPPING_SIZE};
    /* A driver that does not fill the attribute leaves the pattern; one that writes a bool, its low byte. */
    const unsigned unset = 0xA5A5A5A5u;
    unsigned mapped = unset;
    *r = (struct range){0};
    void *data[] = {&r->type, &r->start, &r->size, &mapped, &r->map_base, &r->map_size};
    CUresult e = h->d->PointerGetAttributes(6, attrs, data, p);
    if (e == CUDA_ERROR_INVALID_VALUE) {
        /* A driver that predates the mapping's base and size: whether p is mapped, and the range;
         * one that predates that too: the range only (a reservation's chunks are not told apart). */
        *r = (struct range){0};
        mapped = unset;
        if ((e = h->d->PointerGetAttributes(4, attrs, data, p)) == CUDA_ERROR_INVALID_VALUE) {
            *r = (struct range){0};
            return h->d->PointerGetAttributes(3, attrs, data, p);
        }
    }
    r->mapped_known = e == CUDA_SUCCESS && mapped != unset;
    r->mapped = (mapped & 0xffu) != 0;
    return e;
}

enum reach { MAPPED_TO, NOT_MAPPED, UNSIZED };

/* What the driver says of address p: mapped up to *end, not mapped, or unsized. */
static enum reach reach_of(const struct range *r, CUdeviceptr p, CUdeviceptr *end)
{
    if (r->type == 0)
        return NOT_MAPPED;
    const int in_map = r->map_size != 0 && r->map_base <= p && p - r->map_base < r->map_size;
    const int in_range = r->size != 0 && r->start <= p && p - r->start < r->size;
    /* Device memory in a reservation with no backing at p (host memory is left to its range). */
    if (!in_map && r->mapped_known && !r->mapped && r->type == CU_MEMORYTYPE_DEVICE)
        return NOT_MAPPED;
    if (!in_map && !in_range)
        return UNSIZED;
    /* The nearer end: a reservation's range holds more than its mapped chunk, and a cuMemAlloc
     * allocation is a part of the driver's larger mapping. */
    const CUdeviceptr map_end = r->map_base + r->map_size, range_end = r->start + r->size;
    *end = in_map && in_range ? (map_end < range_end ? map_end : range_end) : in_map ? map_end : range_end;
    return MAPPED_TO;
}

enum walk { COVERED, UNSIZED_PIECE, GAP, TOO_MANY };

/* Follow the mapped memory from p (which CUDA knows) for want bytes: COVERED,
 * UNSIZED_PIECE (a piece the driver cannot size: not checked), GAP at p + *have,
 * or TOO_MANY allocations (CR_MAX_FOLLOWED) before want. *first: p's own
 * allocation, for messages. */
static cured_status walk(cured_handle h, CUdeviceptr p, const struct range *at_p, uint64_t want, enum walk *w,
                         uint64_t *have, struct range *first)
{
    struct range r = *at_p;
    *first = r;
    CUdeviceptr cur = p, end = 0;
    for (unsigned followed = 0;; followed++) {
        const enum reach k = reach_of(&r, cur, &end);
        if (k == UNSIZED) {
            *w = UNSIZED_PIECE, *have = want;
            return CURED_SUCCESS;
        }
        if (k == NOT_MAPPED) {
            *w = GAP, *have = cur - p;
            return CURED_SUCCESS;
        }
        if (end - p >= want || end < cur /* wraps: the address space ends */) {
            *w = end < cur ? GAP : COVERED, *have = end < cur ? cur - p : want;
            return CURED_SUCCESS;
        }
        if (followed + 1 >= CR_MAX_FOLLOWED) {
            *w = TOO_MANY, *have = end - p;
            return CURED_SUCCESS;
        }
        cur = end;
        CUresult e = query(h, cur, &r);
        if (e != CUDA_SUCCESS)
            return cr_fail_cuda(e, "cuPointerGetAttributes");
    }
}

cured_status cr_check_device_range(cured_handle h, const void *p, size_t bytes, const char *what)
{
    const CUdeviceptr begin = (CUdeviceptr)(uintptr_t)p;
    struct range r, first;
    CUresult e = query(h, begin, &r);
    if (e != CUDA_SUCCESS)
        return cr_fail_cuda(e, "cuPointerGetAttributes");
    if (r.type == 0) /* unknown to CUDA: plain host memory */
        return cr_fail(CURED_ERROR_NOT_DEVICE_POINTER, "the %s pointer %p is not device memory (a host pointer?)",
                       what, p);
    if (bytes == 0)
        return CURED_SUCCESS;
    enum walk w;
    uint64_t have;
    cured_status st = walk(h, begin, &r, bytes, &w, &have, &first);
    if (st != CURED_SUCCESS || w == COVERED || w == UNSIZED_PIECE)
        return st;
    if (w == TOO_MANY)
        return cr_fail(CURED_ERROR_OUT_OF_RANGE,
                       "the %s [%p, %p + %zu) spans more than %u adjacent allocations: not checked, so refused", what,
                       p, p, bytes, (unsigned)CR_MAX_FOLLOWED);
    if (have == 0)
        return cr_fail(CURED_ERROR_OUT_OF_RANGE,
                       "the %s %p lies in a reserved range [0x%llx, 0x%llx + %zu) with no memory mapped there", what,
                       p, (unsigned long long)first.start, (unsigned long long)first.start, first.size);
    /* p's own allocation: the mapping where the driver reports one, else the allocation range */
    const int own_map = first.map_size != 0;
    const unsigned long long own = own_map ? first.map_base : first.start;
    const size_t own_size = own_map ? first.map_size : first.size;
    return cr_fail(CURED_ERROR_OUT_OF_RANGE,
                   "the %s [%p, %p + %zu) runs past the end of its %s [0x%llx, 0x%llx + %zu) and the memory mapped "
                   "right after it (%llu bytes from its start) into memory that is not mapped (%llu bytes past it)",
                   what, p, p, bytes, own_map ? "mapping" : "allocation", own, own, own_size, (unsigned long long)have,
                   (unsigned long long)(bytes - have));
}

cured_status cr_device_extent(cured_handle h, const void *p, uint64_t most, uint64_t *bytes, int *sized)
{
    *sized = 0;
    const CUdeviceptr begin = (CUdeviceptr)(uintptr_t)p;
    struct range r, first;
    CUresult e = query(h, begin, &r);
    if (e != CUDA_SUCCESS)
        return cr_fail_cuda(e, "cuPointerGetAttributes");
    enum walk w;
    cured_status st = walk(h, begin, &r, most, &w, bytes, &first);
    if (st == CURED_SUCCESS && *bytes > most)
        *bytes = most;
    *sized = st == CURED_SUCCESS && w != UNSIZED_PIECE;
    return st;
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

int cr_ranges_overlap(const void *a, uint64_t a_bytes, const void *b, uint64_t b_bytes)
{
    const uint64_t x = (uint64_t)(uintptr_t)a, y = (uint64_t)(uintptr_t)b;
    if (a_bytes == 0 || b_bytes == 0)
        return 0;
    /* [x, x + a_bytes) and [y, y + b_bytes), without forming an end that wraps */
    return x <= y ? y - x < a_bytes : x - y < b_bytes;
}
