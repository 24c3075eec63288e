// Listing 12-4 of the seed: 128-bit (int4) loads, a cg::reduce block
// reduction and one atomicAdd per block. The book zeroes the output with a
// memset before the launch; here the atomic goes to a workspace accumulator
// that the last block moves to *out and re-zeroes, so the call needs no memset.
// Cooperative groups without libcu++ (its own traits; no cuda/atomic):
// the same kernel code, compiled in a tenth of the time (bench/NOTES.md).
#define _CG_LIMIT_INCLUDED_DEPENDENCIES
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "common.cuh"

namespace cg = cooperative_groups;

template <class T, class A, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK)
reduce_listing_12_4(const T *in, size_t n, A *out, A *accum, unsigned int *ticket)
{
    __shared__ A warp_partial[BLOCK / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

    A sum = thread_reduce_vec<T, A, Op, 1>(in, n, Op());
    sum = cg::reduce(warp, sum, cg::plus<A>());
    if (warp.thread_rank() == 0)
        warp_partial[warp.meta_group_rank()] = sum;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        sum = warp.thread_rank() < BLOCK / 32 ? warp_partial[warp.thread_rank()] : A(0);
        sum = cg::reduce(warp, sum, cg::plus<A>());
        if (warp.thread_rank() == 0)
            finish_atomic(sum, out, accum, ticket);
    }
}
