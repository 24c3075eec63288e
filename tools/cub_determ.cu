// The comparator's gpu_to_gpu sums (see cub_compare.h, CMP_SUM_GPU_TO_GPU):
// cub::DeviceReduce::Sum through its environment overload with
// cuda::execution::require(cuda::execution::determinism::gpu_to_gpu), which
// CCCL has from 3.1 on (CUB's reproducible floating-point accumulator, for
// float and double sums only). Built against an older CCCL, the entry point
// answers cudaErrorNotSupported and cmp_ops::gpu_to_gpu_missing() says why.
#include "cub_compare.h"

#include <cstdio>

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>

#if CUB_VERSION >= 300100 && defined(__has_include)
#if __has_include(<cuda/__execution/determinism.h>) && __has_include(<cuda/__execution/require.h>)
#include <cuda/__execution/determinism.h>
#include <cuda/__execution/require.h>
#include <cuda/std/execution>
#include <cuda/stream_ref>
#define CMP_HAVE_GPU_TO_GPU 1
#endif
#endif

namespace cmp_ops {

#ifdef CMP_HAVE_GPU_TO_GPU
namespace {
// The environment holds the stream and the requirement; CUB takes its
// temporary storage from its default resource (cudaMallocAsync and
// cudaFreeAsync on the same stream), as a caller of this overload gets it.
template <class T> cudaError_t sum(const void *d_in, void *d_out, int n, cudaStream_t stream)
{
    const auto env = ::cuda::std::execution::env{
        ::cuda::stream_ref{stream}, ::cuda::execution::require(::cuda::execution::determinism::gpu_to_gpu)};
    return cub::DeviceReduce::Sum(static_cast<const T *>(d_in), static_cast<T *>(d_out), n, env);
}
} // namespace
#endif

const char *gpu_to_gpu_missing()
{
#ifdef CMP_HAVE_GPU_TO_GPU
    return nullptr;
#else
    static char why[160];
    std::snprintf(why, sizeof why,
                  "needs CCCL 3.1 or newer (cuda::execution::determinism::gpu_to_gpu); built against CUB %d.%d.%d",
                  CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
    return why;
#endif
}

cudaError_t sum_gpu_to_gpu(cmp_type type, const void *d_in, void *d_out, int n, cudaStream_t stream)
{
#ifdef CMP_HAVE_GPU_TO_GPU
    if (type == CMP_FLOAT32)
        return sum<float>(d_in, d_out, n, stream);
    if (type == CMP_FLOAT64)
        return sum<double>(d_in, d_out, n, stream);
#else
    (void)type, (void)d_in, (void)d_out, (void)n, (void)stream;
#endif
    return cudaErrorNotSupported;
}

} // namespace cmp_ops
