// Inside the comparator (see cub_compare.h): the templates behind
// cmp_reduce(). cub_ops_int.cu and cub_ops_float.cu instantiate them for the
// integer and the floating-point types: CUB's kernels take most of the
// comparator's compile time, and two translation units compile in parallel.
#ifndef CURED_CUB_OPS_CUH
#define CURED_CUB_OPS_CUH

#include "cub_compare.h"

#include <cstdint>
#include <type_traits>

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cmp_ops {

// The sum type of an element type (cured's default result of SUM).
template <class T> struct sum_of { using type = T; };
template <> struct sum_of<signed char> { using type = long long; };
template <> struct sum_of<int> { using type = long long; };
template <> struct sum_of<unsigned> { using type = unsigned long long; };
template <> struct sum_of<__half> { using type = float; };
template <> struct sum_of<__nv_bfloat16> { using type = float; };

template <class T>
constexpr bool is_16bit_float = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T, class A> struct widen {
    __host__ __device__ A operator()(const T &x) const { return static_cast<A>(x); }
};

template <class T, class A> struct square {
    __host__ __device__ A operator()(const T &x) const
    {
        const A v = static_cast<A>(x);
        return v * v;
    }
};

// One CUB call (a size query when temp is null): layouts in cub_compare.h.
template <class T>
cudaError_t reduce(cmp_op op, void *temp, size_t &bytes, const void *d_in, void *d_out, int n,
                   cudaStream_t stream)
{
    using A = typename sum_of<T>::type;
    const T *in = static_cast<const T *>(d_in);
    switch (op) {
    case CMP_SUM:
        if constexpr (is_16bit_float<T>)
            return cub::DeviceReduce::TransformReduce(temp, bytes, in, static_cast<A *>(d_out), n,
                                                      ::cuda::std::plus<A>(), widen<T, A>(), A(0),
                                                      stream);
        else
            return cub::DeviceReduce::Sum(temp, bytes, in, static_cast<A *>(d_out), n, stream);
    case CMP_SUM_SQUARES:
        return cub::DeviceReduce::TransformReduce(temp, bytes, in, static_cast<A *>(d_out), n,
                                                  ::cuda::std::plus<A>(), square<T, A>(), A(0), stream);
    case CMP_MIN:
        return cub::DeviceReduce::Min(temp, bytes, in, static_cast<T *>(d_out), n, stream);
    case CMP_MAX:
        return cub::DeviceReduce::Max(temp, bytes, in, static_cast<T *>(d_out), n, stream);
#if CUB_VERSION >= 300000
    case CMP_ARGMIN:
        return cub::DeviceReduce::ArgMin(temp, bytes, in,
                                         reinterpret_cast<T *>(static_cast<char *>(d_out) + 8),
                                         static_cast<::cuda::std::int64_t *>(d_out),
                                         static_cast<::cuda::std::int64_t>(n), stream);
    case CMP_ARGMAX:
        return cub::DeviceReduce::ArgMax(temp, bytes, in,
                                         reinterpret_cast<T *>(static_cast<char *>(d_out) + 8),
                                         static_cast<::cuda::std::int64_t *>(d_out),
                                         static_cast<::cuda::std::int64_t>(n), stream);
#endif
    default:
        return cudaErrorNotSupported;
    }
}

// cub_ops_int.cu: CMP_INT8, CMP_INT32, CMP_INT64, CMP_UINT32.
// cub_ops_float.cu: CMP_FLOAT16, CMP_BFLOAT16, CMP_FLOAT32, CMP_FLOAT64.
// cudaErrorNotSupported for a type of the other family.
cudaError_t reduce_int(cmp_op op, cmp_type type, void *temp, size_t &bytes, const void *d_in,
                       void *d_out, int n, cudaStream_t stream);
cudaError_t reduce_float(cmp_op op, cmp_type type, void *temp, size_t &bytes, const void *d_in,
                         void *d_out, int n, cudaStream_t stream);

} // namespace cmp_ops

#endif
