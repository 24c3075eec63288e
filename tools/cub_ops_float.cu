// The comparator's CUB reductions over the floating-point types (see cub_ops.cuh).
#include "cub_ops.cuh"

cudaError_t cmp_ops::reduce_float(cmp_op op, cmp_type type, void *temp, size_t &bytes,
                                  const void *d_in, void *d_out, int n, cudaStream_t stream)
{
    switch (type) {
    case CMP_FLOAT16:
        return reduce<__half>(op, temp, bytes, d_in, d_out, n, stream);
    case CMP_BFLOAT16:
        return reduce<__nv_bfloat16>(op, temp, bytes, d_in, d_out, n, stream);
    case CMP_FLOAT32:
        return reduce<float>(op, temp, bytes, d_in, d_out, n, stream);
    case CMP_FLOAT64:
        return reduce<double>(op, temp, bytes, d_in, d_out, n, stream);
    default:
        return cudaErrorNotSupported;
    }
}
