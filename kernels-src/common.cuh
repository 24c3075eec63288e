// The pieces of the reduction kernels (The CUDA Handbook, chapter 12), one
// header per job. Header-free on purpose: only NVRTC's built-in
// declarations are used, so the kernels compile where just the driver and
// NVRTC exist.
//   types.cuh     element types and conversions      keys.cuh    integer order keys
//   ops.cuh       the operators (functors)           words.cuh   moving any accumulator
//   block.cuh     warp and block reductions          grid.cuh    ends over several blocks
//   visit.cuh     16-byte load loops                 extremes.cuh  vector extremes, MIN/MAX ends
//   arg.cuh       argmin/argmax loop and ends        state.cuh   states instead of results
//   sums8.cuh     8-bit sums in 32 bits
// An operator supplies identity(), map(x, i), combine and write().
#ifndef CURED_COMMON_CUH
#define CURED_COMMON_CUH

#include "arg.cuh"
#include "state.cuh"
#include "sums8.cuh"

// Whole-grid forms of the tiled pieces, for kernels in which the grid
// reduces one array (the Handbook variants, bench/*.cu).
template <int BLOCK, class A, class Op>
__device__ __forceinline__ void finish_grid(A v, void *out, size_t n, A *partials, unsigned int *ticket, Op op)
{
    finish_grid<BLOCK>(v, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}
template <class T, class K, class R, bool MAX, bool IGN, int UNROLL>
__device__ __forceinline__ Arg<K> thread_arg_vec(const T *in, size_t n, ArgOf<T, K, R, MAX, IGN> op)
{
    return thread_arg_vec<T, K, R, MAX, IGN, UNROLL>(in, n, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
                                                     (size_t)gridDim.x * blockDim.x, op);
}

#endif
