/*
 * Segmented reductions: segments of one size (an axis request over a
 * row-major matrix) and segments given by begin/end offset arrays, whose
 * checks and geometry are here; the kernels are family_segmented.c's.
 */
#include "internal.h"

#include <stdint.h>
#include <string.h>

cured_status cr_uniform_layout(size_t num_segments, size_t segment_size, cured_layout *lay)
{
    /* No segments: no results, whatever their size (the view is empty; the size is only clamped). */
    if (num_segments == 0 && segment_size > INT64_MAX)
        segment_size = INT64_MAX;
    if (num_segments > INT64_MAX || segment_size > INT64_MAX)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "%zu segments of %zu elements overflow", num_segments, segment_size);
    *lay = (cured_layout){2, {(int64_t)num_segments, (int64_t)segment_size}, {(int64_t)segment_size, 1}};
    return CURED_SUCCESS;
}

cured_status cr_segments_layout(const void *in, size_t num_segments, const void *begin, const void *end,
                                cured_type offset_type, const void *out, struct cr_request *r,
                                struct cr_geometry *g)
{
    memset(g, 0, sizeof *g);
    if (offset_type != CURED_TYPE_INT32 && offset_type != CURED_TYPE_INT64)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "offsets must be int32 or int64, not %s", cr_type_name(offset_type));
    /* Misaligned input and output pointers are refused also with no segments (NULL ones are then allowed), as an
     * array's are with n == 0. */
    if ((uintptr_t)in % cr_type_size(r->in))
        return cr_fail(CURED_ERROR_MISALIGNED, "the input %p is not aligned to its %zu-byte elements", in,
                       cr_type_size(r->in));
    if ((uintptr_t)out % r->acc.result_align)
        return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to %zu bytes", out, r->acc.result_align);
    if (num_segments == 0)
        return CURED_SUCCESS;
    if (in == NULL || out == NULL || begin == NULL || end == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the %s pointer is NULL",
                       in == NULL ? "input" : out == NULL ? "output" : begin == NULL ? "begin offsets" : "end offsets");
    const size_t osize = cr_type_size(offset_type);
    if ((uintptr_t)begin % osize || (uintptr_t)end % osize)
        return cr_fail(CURED_ERROR_MISALIGNED, "the offset arrays must be aligned to their %zu-byte elements", osize);
    if (num_segments > SIZE_MAX / osize || num_segments > SIZE_MAX / r->acc.result_size)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "%zu segments overflow", num_segments);
    /* The kernels write the results while they read the offsets and the input (whose first
     * element is all the host knows of it; cr_segment_limit ends the rest at the output). */
    const size_t out_bytes = num_segments * r->acc.result_size, offset_bytes = num_segments * osize;
    const char *hit = cr_ranges_overlap(out, out_bytes, begin, offset_bytes) ? "begin offsets"
                      : cr_ranges_overlap(out, out_bytes, end, offset_bytes) ? "end offsets"
                      : cr_ranges_overlap(out, out_bytes, in, cr_type_size(r->in)) ? "input's first element"
                                                                                     : NULL;
    g->overlap = hit; /* refused after the range checks (cr_reduce_run_many) */
    g->nout = num_segments;
    g->begin = begin;
    g->end = end;
    g->in_bytes = cr_type_size(r->in); /* the offsets are on the device: the first element only */
    g->out_bytes = num_segments * r->acc.result_size;
    g->offset_bytes = num_segments * osize;
    g->offsets_32 = osize == 4;
    r->shape = CR_SHAPE_SEGMENTS;
    r->group = 4; /* lanes a segment: 8 short segments a warp at once */
    r->offsets = offset_type;
    return CURED_SUCCESS;
}

cured_status cr_segment_limit(cured_handle h, const void *in, const void *out, struct cr_geometry *g)
{
    const uint64_t size = g->in_bytes; /* the element size: the first element is the input's known range */
    const uint64_t at = (uint64_t)(uintptr_t)in, to = (uint64_t)(uintptr_t)out;
    /* int32 offsets index at most 2^31 - 1 elements: no need to follow memory past them */
    uint64_t most = g->offsets_32 ? ((uint64_t)1 << 31) * size : UINT64_MAX;
    if (to > at && to - at < most)
        most = to - at; /* past it the kernel would read the results it writes */
    CUcontext saved;
    cured_status st = cr_enter(h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    uint64_t bytes = 0;
    int sized = 0;
    st = cr_device_extent(h, in, most, &bytes, &sized);
    cr_leave(h, saved);
    /* UINT64_MAX: memory the driver cannot size, no limit */
    g->limit = bytes == UINT64_MAX || bytes / size > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : bytes / size;
    g->limit_sized = sized && g->limit != (uint64_t)INT64_MAX;
    return st;
}

CR_API cured_status cured_check_stream(cured_handle h, struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_check_stream: the handle is NULL");
    CUcontext saved;
    cured_status st = cr_enter(h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    CUdeviceptr ws = 0;
    uint64_t word = 0;
    /* A stream without a workspace has made no segmented call: nothing to report, nothing to allocate. */
    if (cr_slot_find(h, stream, &ws)) {
        CUresult e = h->d->StreamSynchronize(stream);
        if (e == CUDA_SUCCESS)
            e = h->d->MemcpyDtoHAsync(&word, ws + CR_WS_ERROR, sizeof word, stream);
        if (e == CUDA_SUCCESS)
            e = h->d->StreamSynchronize(stream);
        if (e == CUDA_SUCCESS && word != 0) /* cleared for the calls to come */
            e = h->d->MemsetD32Async(ws + CR_WS_ERROR, 0, sizeof word / 4, stream);
        if (e == CUDA_SUCCESS && word != 0)
            e = h->d->StreamSynchronize(stream);
        if (e != CUDA_SUCCESS)
            st = cr_fail_cuda(e, "cured_check_stream: waiting for the stream and reading its error word");
        else if (word != 0)
            st = cr_fail(CURED_ERROR_BAD_SEGMENT,
                         "a segmented call on this stream met segments whose offsets lie outside the input it may "
                         "read (the lowest index among them: segment %llu); they got the empty value",
                         (unsigned long long)~word);
    }
    cr_leave(h, saved);
    return st;
}
