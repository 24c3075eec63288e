/* The reduce calls: argument checks, launch plan, launch. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int needs_input(cured_op op)
{
    return op == CURED_OP_MINMAX || op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX ||
           op == CURED_OP_NANARGMIN || op == CURED_OP_NANARGMAX;
}

cured_status cr_check_args(cured_op op, cured_algorithm algo, const void *in, cured_type in_type,
                           size_t n, const void *out, cured_type out_type, int *spec)
{
    if ((unsigned)op >= CURED_OP_COUNT)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown operator %d", (int)op);
    if ((unsigned)algo >= CURED_ALGO_COUNT)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown algorithm %d", (int)algo);
    if (cr_type_size(in_type) == 0)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown input type %d", (int)in_type);
    if (cr_type_size(out_type) == 0)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown result type %d", (int)out_type);
    cured_status why = CURED_SUCCESS;
    *spec = cr_spec_index(op, algo, in_type, out_type, &why);
    if (*spec < 0)
        return why;
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
    size_t out_align = cr_spec((size_t)*spec)->result_size == 16 ? 8 : cr_type_size(out_type);
    if ((uintptr_t)out % out_align != 0)
        return cr_fail(CURED_ERROR_MISALIGNED, "the output %p is not aligned to %zu bytes", out, out_align);
    if (n == 0 && needs_input(op))
        return cr_fail(CURED_ERROR_EMPTY_INPUT, "this operator has no value for an empty input (n = 0)");
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

cured_status cr_launch(cured_handle h, const struct cr_program *p, const struct cr_kernel *k,
                       const void *in, const void *in2, size_t n, CUdeviceptr out, CUstream s)
{
    CUdeviceptr ws;
    cured_status st = cr_slot_for(h, s, &ws);
    if (st != CURED_SUCCESS)
        return st;
    CUdeviceptr ticket = ws + CR_WS_TICKET, partials = ws + CR_WS_PARTIALS;
    CUdeviceptr accum = ws + CR_WS_ACCUM;
    size_t resident = (size_t)k->blocks_per_sm * (size_t)h->sms;
    if (resident > h->partials_capacity)
        resident = h->partials_capacity;
    const size_t vec = 16 / cr_type_size(p->in);
    CUdeviceptr dev_in = (CUdeviceptr)(uintptr_t)in, dev_in2 = (CUdeviceptr)(uintptr_t)in2;
    unsigned int grid;

    switch (p->kind) {
    case CR_KIND_FAST:
    case CR_KIND_FAST2: /* one unrolled group of 16-byte loads per thread, at least */
        grid = cap(div_up(n, (size_t)CR_BLOCK * vec * (size_t)p->unroll), resident);
        break;
    case CR_KIND_LISTING: /* as in the seed: 4 blocks per SM */
        grid = cap(div_up(n, (size_t)CR_BLOCK * vec), (size_t)h->sms * 4 < resident ? (size_t)h->sms * 4 : resident);
        break;
    default:
        grid = cap(div_up(n, CR_BLOCK), resident);
        break;
    }

    if (p->kind == CR_KIND_TWO_PASS) {
        size_t count = grid;
        void *p1[] = {&dev_in, &n, &partials};
        void *p2[] = {&partials, &count, &out};
        if ((st = launch(h, k->fn[0], grid, s, p1)) != CURED_SUCCESS)
            return st;
        return launch(h, k->fn[1], 1, s, p2);
    }
    if (p->kind == CR_KIND_FAST2) {
        void *params[] = {&dev_in, &dev_in2, &n, &out, &partials, &ticket};
        return launch(h, k->fn[0], grid, s, params);
    }
    CUdeviceptr aux = p->kind == CR_KIND_ATOMIC || p->kind == CR_KIND_LISTING ? accum : partials;
    void *params[] = {&dev_in, &n, &out, &aux, &ticket};
    return launch(h, k->fn[0], grid, s, params);
}

/* A NAN* operator's result says whether it saw only NaNs. */
static int all_nan(const struct cr_program *p, const unsigned char *r)
{
    if (p->op == CURED_OP_NANARGMIN || p->op == CURED_OP_NANARGMAX) {
        int64_t index;
        memcpy(&index, r, sizeof index);
        return index < 0;
    }
    if (p->op != CURED_OP_NANMIN && p->op != CURED_OP_NANMAX)
        return 0;
    switch (p->out) {
    case CURED_TYPE_FLOAT32: { float f; memcpy(&f, r, 4); return isnan(f); }
    case CURED_TYPE_FLOAT64: { double d; memcpy(&d, r, 8); return isnan(d); }
    case CURED_TYPE_FLOAT16: { uint16_t b; memcpy(&b, r, 2); return (b & 0x7c00) == 0x7c00 && (b & 0x3ff); }
    case CURED_TYPE_BFLOAT16: { uint16_t b; memcpy(&b, r, 2); return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }
    default: return 0;
    }
}

/* Built-in kernels of a spec, for cr_reduce_program(). */
static cured_status builtin_kernels(cured_handle h, void *spec, const struct cr_kernel **k)
{
    return cr_kernel_get(h, (int)(intptr_t)spec, k);
}

/*
 * The common path of every reduce call after its argument checks: context,
 * pointer checks, kernels, launch; for a host result also the copy back and
 * the wait.
 */
cured_status cr_reduce_program(cured_handle h, const struct cr_program *p, const void *in, const void *in2,
                               size_t n, void *out, int host_out, CUstream stream, cr_kernels_fn kernels,
                               void *arg)
{
    CUcontext saved;
    cured_status st = cr_enter(h, &saved);
    if (st != CURED_SUCCESS)
        return st;
    CUdeviceptr ws = 0, dev_out = (CUdeviceptr)(uintptr_t)out;
    const struct cr_kernel *k;
    const size_t in_bytes = n * cr_type_size(p->in); /* the callers checked it for overflow */
    if (n > 0 && (st = cr_check_device_range(h, in, in_bytes, "input")) != CURED_SUCCESS)
        goto done;
    if (n > 0 && in2 && (st = cr_check_device_range(h, in2, in_bytes, "second input (y)")) != CURED_SUCCESS)
        goto done;
    if (host_out) {
        if ((st = cr_slot_for(h, stream, &ws)) != CURED_SUCCESS)
            goto done;
        dev_out = ws + CR_WS_RESULT;
    } else if ((st = cr_check_device_range(h, out, (size_t)p->result_size, "output")) != CURED_SUCCESS) {
        goto done;
    }
    if ((st = kernels(h, arg, &k)) != CURED_SUCCESS ||
        (st = cr_launch(h, p, k, in, in2, n, dev_out, stream)) != CURED_SUCCESS || !host_out)
        goto done;
    unsigned char result[CR_MAX_RESULT];
    CUresult r = h->d->MemcpyDtoHAsync(result, dev_out, (size_t)p->result_size, stream);
    if (r == CUDA_SUCCESS)
        r = h->d->StreamSynchronize(stream);
    if (r != CUDA_SUCCESS)
        st = cr_fail_cuda(r, "reading the result back");
    else if (all_nan(p, result))
        st = cr_fail(CURED_ERROR_ALL_NAN, "every element is NaN, and the operator ignores NaNs");
    else
        memcpy(out, result, (size_t)p->result_size); /* written only on success */
done:
    cr_leave(h, saved);
    return st;
}

static cured_status reduce_common(cured_handle h, int spec, const void *in, const void *in2, size_t n,
                                  void *out, int host_out, CUstream stream)
{
    return cr_reduce_program(h, cr_spec((size_t)spec), in, in2, n, out, host_out, stream, builtin_kernels,
                             (void *)(intptr_t)spec);
}

CR_API cured_status cured_reduce_async(cured_handle h, cured_op op, cured_algorithm algo,
                                       const void *in, cured_type in_type, size_t n, void *out,
                                       cured_type out_type, struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_reduce_async: the handle is NULL");
    int spec;
    cured_status st = cr_check_args(op, algo, in, in_type, n, out, out_type, &spec);
    if (st == CURED_SUCCESS && op == CURED_OP_DOT)
        st = cr_fail(CURED_ERROR_INVALID_VALUE, "CURED_OP_DOT takes two inputs: use cured_dot_async()");
    return st != CURED_SUCCESS ? st : reduce_common(h, spec, in, NULL, n, out, 0, stream);
}

CR_API cured_status cured_reduce(cured_handle h, cured_op op, cured_algorithm algo, const void *in,
                                 cured_type in_type, size_t n, void *host_out, cured_type out_type,
                                 struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_reduce: the handle is NULL");
    int spec;
    cured_status st = cr_check_args(op, algo, in, in_type, n, host_out, out_type, &spec);
    if (st == CURED_SUCCESS && op == CURED_OP_DOT)
        st = cr_fail(CURED_ERROR_INVALID_VALUE, "CURED_OP_DOT takes two inputs: use cured_dot()");
    return st != CURED_SUCCESS ? st : reduce_common(h, spec, in, NULL, n, host_out, 1, stream);
}

static cured_status dot(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                        void *out, cured_type out_type, int host_out, struct CUstream_st *stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_dot: the handle is NULL");
    int spec;
    cured_status st = cr_check_args(CURED_OP_DOT, CURED_ALGO_AUTO, x, type, n, out, out_type, &spec);
    if (st == CURED_SUCCESS)
        st = cr_check_second_input(y, type, n);
    return st != CURED_SUCCESS ? st : reduce_common(h, spec, x, y, n, out, host_out, stream);
}

CR_API cured_status cured_dot_async(cured_handle h, const void *x, const void *y, cured_type type,
                                    size_t n, void *out, cured_type out_type, struct CUstream_st *stream)
{
    return dot(h, x, y, type, n, out, out_type, 0, stream);
}

CR_API cured_status cured_dot(cured_handle h, const void *x, const void *y, cured_type type, size_t n,
                              void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    return dot(h, x, y, type, n, host_out, out_type, 1, stream);
}
