// Two-pass reduction whose block reduction is cooperative groups' cg::reduce
// (hardware redux.sync for 32-bit integers on sm_80 and newer). Needs the
// CUDA toolkit's include directories at run time.
// Cooperative groups without libcu++ (its own traits; no cuda/atomic):
// the same kernel code, compiled in a tenth of the time (bench/NOTES.md).
#define _CG_LIMIT_INCLUDED_DEPENDENCIES
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "common.cuh"

namespace cg = cooperative_groups;

// cg::reduce over each warp, then over the warps' partials.
template <int BLOCK, class A> __device__ A block_reduce_cg(A v)
{
    __shared__ A warp_partial[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    v = cg::reduce(warp, v, cg::plus<A>());
    if (warp.thread_rank() == 0)
        warp_partial[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < BLOCK / 32 ? warp_partial[warp.thread_rank()] : A(0);
        v = cg::reduce(warp, v, cg::plus<A>());
    }
    return v;
}

template <class T, class A, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) reduce_pass_cg(const T *in, size_t n, A *out)
{
    A v = thread_reduce_scalar<T, A>(in, n, Op());
    v = block_reduce_cg<BLOCK>(v);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}
