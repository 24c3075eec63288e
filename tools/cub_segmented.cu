// cub::DeviceSegmentedReduce for `cured bench axes` (cmp_segmented in
// cub_compare.h; the extern "C" entry and its error text are in
// cub_compare.cu): rows of a matrix as uniform segments (offsets from a
// counting iterator, no arrays) or begin/end arrays of int64 offsets.
#include "cub_compare.h"

#include <cub/device/device_segmented_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace cmp_ops {
namespace {

struct Scale {
    long long len;
    __host__ __device__ long long operator()(long long i) const { return i * len; }
};

template <class Offsets>
cudaError_t dispatch(cmp_op op, cmp_type type, const void *in, void *out, long long nseg, Offsets b, Offsets e,
                     void *temp, size_t &bytes, cudaStream_t s)
{
    if (type == CMP_FLOAT32) {
        const float *x = static_cast<const float *>(in);
        switch (op) {
        case CMP_SUM: return cub::DeviceSegmentedReduce::Sum(temp, bytes, x, static_cast<float *>(out), nseg, b, e, s);
        case CMP_MAX: return cub::DeviceSegmentedReduce::Max(temp, bytes, x, static_cast<float *>(out), nseg, b, e, s);
        case CMP_ARGMAX:
            return cub::DeviceSegmentedReduce::ArgMax(temp, bytes, x, static_cast<cub::KeyValuePair<int, float> *>(out),
                                                      nseg, b, e, s);
        default: break;
        }
    } else if (type == CMP_INT32 && op == CMP_SUM) { // exact: into long long, as cured's int32 SUM
        return cub::DeviceSegmentedReduce::Reduce(temp, bytes, static_cast<const int *>(in),
                                                  static_cast<long long *>(out), nseg, b, e,
                                                  ::cuda::std::plus<long long>{}, 0ll, s);
    }
    return cudaErrorNotSupported;
}

} // namespace

cudaError_t segmented(cmp_op op, cmp_type type, const void *in, long long nseg, const long long *begin,
                      const long long *end, long long seg_len, void *out, void *temp, size_t &bytes, cudaStream_t s)
{
    if (begin != nullptr)
        return dispatch(op, type, in, out, nseg, begin, end, temp, bytes, s);
    auto first = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), Scale{seg_len});
    return dispatch(op, type, in, out, nseg, first, first + 1, temp, bytes, s);
}

} // namespace cmp_ops
