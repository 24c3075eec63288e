// The comparator's CUB reductions over the integer types (see cub_ops.cuh).
#include "cub_ops.cuh"

cudaError_t cmp_ops::reduce_int(cmp_op op, cmp_type type, void *temp, size_t &bytes, const void *d_in,
                                void *d_out, int n, cudaStream_t stream)
{
    switch (type) {
    case CMP_INT8:
        return reduce<signed char>(op, temp, bytes, d_in, d_out, n, stream);
    case CMP_INT32:
        return reduce<int>(op, temp, bytes, d_in, d_out, n, stream);
    case CMP_INT64:
        return reduce<long long>(op, temp, bytes, d_in, d_out, n, stream);
    case CMP_UINT32:
        return reduce<unsigned>(op, temp, bytes, d_in, d_out, n, stream);
    default:
        return cudaErrorNotSupported;
    }
}
