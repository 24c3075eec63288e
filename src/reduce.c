/* The reduce calls: argument checks, launch plan, launch. */
#include "internal.h"

#include <stdint.h>
#include <string.h>

cured_status cr_check_args(cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                           size_t n, const void *out, cured_type out_type, int *spec)
{
    if ((unsigned)op != CURED_OP_SUM)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown operator %d", (int)op);
    if ((unsigned)algo >= CURED_ALGO_COUNT)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown algorithm %d", (int)algo);
    if (cr_type_size(in_type) == 0)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown input type %d", (int)in_type);
    if (cr_type_size(out_type) == 0)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown result type %d", (int)out_type);
    *spec = cr_spec_index(op, algo, in_type, out_type);
    if (*spec < 0)
        return cr_fail(CURED_ERROR_TYPE_MISMATCH,
                       "sum of type %d with result type %d is not offered (int32 -> int32 or int64)",
                       (int)in_type, (int)out_type);
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the output pointer is NULL");
    if (in == NULL && n > 0)
        return cr_fail(CURED_ERROR_NULL_POINTER, "the input pointer is NULL and n = %zu", n);
    size_t size = cr_type_size(in_type);
    if (n > SIZE_MAX / size)
        return cr_fail(CURED_ERROR_SIZE_OVERFLOW, "n = %zu elements of %zu bytes overflows size_t", n,
                       size);
    if ((uintptr_t)in % size != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the input %p is not aligned to its %zu-byte elements",
                       in, size);
    if ((uintptr_t)out % cr_type_size(out_type) != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to its %zu-byte type", out,
                       cr_type_size(out_type));
    return CURED_SUCCESS;
}

/* The device must be able to reach p: device, managed or mapped host memory. */
static cured_status check_device_pointer(cured_handle h, const void *p, const char *what)
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

static unsigned int div_up(size_t a, size_t b)
{
    size_t q = (a + b - 1) / b;
    return q == 0 ? 1 : (unsigned int)(q < UINT32_MAX ? q : UINT32_MAX);
}

static unsigned int cap(unsigned int want, size_t limit)
{
    return want < limit ? want : (unsigned int)limit;
}

static cured_status launch(cured_handle h, CUfunction fn, unsigned int grid, CUstream s, void **params)
{
    CUresult r = h->d->LaunchKernel(fn, grid, 1, 1, CR_BLOCK, 1, 1, 0, s, params, NULL);
    return r == CUDA_SUCCESS ? CURED_SUCCESS : cr_fail_cuda(r, "cuLaunchKernel");
}

/* Plan and launch; the handle's context is current. */
static cured_status run(cured_handle h, cured_algorithm algo, int spec, const void *in, size_t n,
                        CUdeviceptr out, cured_type in_type, CUstream s)
{
    const struct cr_kernel *k;
    cured_status st = cr_kernel_get(h, spec, &k);
    if (st != CURED_SUCCESS)
        return st;
    CUdeviceptr ws;
    if ((st = cr_slot_for(h, s, &ws)) != CURED_SUCCESS)
        return st;
    CUdeviceptr ticket = ws + CR_WS_TICKET, partials = ws + CR_WS_PARTIALS;
    CUdeviceptr accum = ws + CR_WS_ACCUM;
    size_t resident = (size_t)k->blocks_per_sm * (size_t)h->sms;
    if (resident > h->partials_capacity)
        resident = h->partials_capacity;
    const size_t vec = 16 / cr_type_size(in_type);
    CUdeviceptr dev_in = (CUdeviceptr)(uintptr_t)in;
    unsigned int grid;

    switch (algo) {
    case CURED_ALGO_AUTO: /* one unrolled group of 16-byte loads per thread, at least */
        grid = cap(div_up(n, (size_t)CR_BLOCK * vec * 4), resident);
        break;
    case CURED_ALGO_LISTING_12_4: /* as in the seed: 4 blocks per SM */
        grid = cap(div_up(n, (size_t)CR_BLOCK * vec), (size_t)h->sms * 4 < resident ? (size_t)h->sms * 4 : resident);
        break;
    default:
        grid = cap(div_up(n, CR_BLOCK), resident);
        break;
    }

    if (algo == CURED_ALGO_TWO_PASS_SHARED || algo == CURED_ALGO_TWO_PASS_SHUFFLE ||
        algo == CURED_ALGO_TWO_PASS_CG) {
        size_t count = grid;
        void *p1[] = {&dev_in, &n, &partials};
        void *p2[] = {&partials, &count, &out};
        if ((st = launch(h, k->fn[0], grid, s, p1)) != CURED_SUCCESS)
            return st;
        return launch(h, k->fn[1], 1, s, p2);
    }
    CUdeviceptr aux = algo == CURED_ALGO_SINGLE_PASS_ATOMIC || algo == CURED_ALGO_LISTING_12_4
                          ? accum : partials;
    void *params[] = {&dev_in, &n, &out, &aux, &ticket};
    return launch(h, k->fn[0], grid, s, params);
}

CR_API cured_status cured_reduce_async(cured_handle h, cured_op op, cured_algorithm algo,
                                       const void *in, cured_type in_type, size_t n, void *out,
                                       cured_type out_type, struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_reduce_async: the handle is NULL");
    int spec;
    cured_status st = cr_check_args(op, algo, in, in_type, n, out, out_type, &spec);
    if (st != CURED_SUCCESS)
        return st;
    CUcontext saved;
    if ((st = cr_enter(h, &saved)) != CURED_SUCCESS)
        return st;
    if ((n == 0 || (st = check_device_pointer(h, in, "input")) == CURED_SUCCESS) &&
        (st = check_device_pointer(h, out, "output")) == CURED_SUCCESS)
        st = run(h, algo, spec, in, n, (CUdeviceptr)(uintptr_t)out, in_type, stream);
    cr_leave(h, saved);
    return st;
}

CR_API cured_status cured_reduce(cured_handle h, cured_op op, cured_algorithm algo, const void *in,
                                 cured_type in_type, size_t n, void *host_out, cured_type out_type,
                                 struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_reduce: the handle is NULL");
    int spec;
    cured_status st = cr_check_args(op, algo, in, in_type, n, host_out, out_type, &spec);
    if (st != CURED_SUCCESS)
        return st;
    CUcontext saved;
    if ((st = cr_enter(h, &saved)) != CURED_SUCCESS)
        return st;
    CUdeviceptr ws;
    if ((n == 0 || (st = check_device_pointer(h, in, "input")) == CURED_SUCCESS) &&
        (st = cr_slot_for(h, stream, &ws)) == CURED_SUCCESS &&
        (st = run(h, algo, spec, in, n, ws + CR_WS_RESULT, in_type, stream)) == CURED_SUCCESS) {
        unsigned char result[8];
        size_t size = cr_type_size(out_type);
        CUresult r = h->d->MemcpyDtoHAsync(result, ws + CR_WS_RESULT, size, stream);
        if (r == CUDA_SUCCESS)
            r = h->d->StreamSynchronize(stream);
        if (r != CUDA_SUCCESS)
            st = cr_fail_cuda(r, "reading the result back");
        else
            memcpy(host_out, result, size); /* written only on success */
    }
    cr_leave(h, saved);
    return st;
}
