// Ends of a reduction over several blocks (Handbook 12.3, 12.4). They take
// the block's rank among the nblocks that share one result from the
// caller, so the same code ends "the whole grid reduces one array" and
// "a group of blocks reduces one segment".
#ifndef CURED_GRID_CUH
#define CURED_GRID_CUH

#include "abi.h" // CR_MAX_ACC
#include "block.cuh"

// How the last block combines the nblocks partials, in block order (so
// float results do not depend on timing); thread 0 holds the result. Its
// threads may load PER partials each before combining any, so that
// PER * BLOCK partials take one trip to L2 (the ARG ends use 4 or 8).
// Where a kernel lets a thread hold several (PER > 1), operators whose
// merges are long dependent chains specialise CombinePartials to merge all
// the partials at once (stats_blocks.cuh); PER = 1 is always the tree.
template <int BLOCK, int PER, class A, class Op>
__device__ __forceinline__ A combine_in_order(const A *partials, unsigned nblocks, Op op)
{
    A v = Op::identity();
    for (unsigned int i = threadIdx.x; i < nblocks; i += PER * BLOCK) {
        A p[PER];
#pragma unroll
        for (int k = 0; k < PER; k++) // from L2: other SMs wrote them
            if (i + k * BLOCK < nblocks)
                p[k] = load_cg(partials + i + k * BLOCK);
#pragma unroll
        for (int k = 0; k < PER; k++)
            if (i + k * BLOCK < nblocks)
                v = op(v, p[k]);
    }
    return block_reduce_shuffle<BLOCK>(v, op);
}
template <class Op> struct CombinePartials {
    template <int BLOCK, int PER, class A>
    __device__ static __forceinline__ A run(const A *partials, unsigned nblocks, Op op)
    {
        return combine_in_order<BLOCK, PER>(partials, nblocks, op);
    }
};

// Single-pass finish with a ticket: each block stores its partial, fences,
// and takes a ticket; the block that takes the last ticket combines all the
// partials (CombinePartials), writes the result and resets the ticket for
// the next launch on this workspace.
template <int BLOCK, class A, class Op, int PER = 1>
__device__ void finish_last_block(A block_value, void *out, size_t n, A *partials, unsigned int *ticket,
                                  unsigned block, unsigned nblocks, Op op)
{
    static_assert(sizeof(A) <= CR_MAX_ACC, "a partial fits the workspace's");
    if (nblocks == 1) {
        if (threadIdx.x == 0)
            op.write(out, block_value, n);
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[block] = block_value;
        __threadfence();
        last = atomicAdd(ticket, 1u) == nblocks - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence(); // see every block's partial
    A v;
    if constexpr (PER == 1)
        v = combine_in_order<BLOCK, 1>(partials, nblocks, op);
    else
        v = CombinePartials<Op>::template run<BLOCK, PER>(partials, nblocks, op);
    if (threadIdx.x == 0) {
        op.write(out, v, n);
        *ticket = 0;
    }
}

// The same for the whole grid as one group.
template <int BLOCK, class A, class Op, int PER = 1>
__device__ __forceinline__ void finish_last_block(A block_value, void *out, size_t n, A *partials,
                                                  unsigned int *ticket, Op op)
{
    finish_last_block<BLOCK, A, Op, PER>(block_value, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}

// The end of a single-pass kernel: the block's partial, then the group's.
// Operators with their own ends overload it (extremes.cuh, arg.cuh).
template <int BLOCK, class A, class Op>
__device__ __forceinline__ void finish_grid(A v, void *out, size_t n, A *partials, unsigned int *ticket,
                                            unsigned block, unsigned nblocks, Op op)
{
    v = block_reduce_shuffle<BLOCK>(v, op);
    finish_last_block<BLOCK>(v, out, n, partials, ticket, block, nblocks, op);
}

// Finish of the atomic variants, run by thread 0 of each block: one atomicAdd
// of the block's partial into the workspace accumulator, then a ticket; the
// last block moves the total to *out and leaves accumulator and ticket at
// zero, so no memset is needed before the next launch.
template <class A>
__device__ void finish_atomic(A block_value, A *out, A *accum, unsigned int *ticket)
{
    atomic_add(accum, block_value);
    __threadfence();
    if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
        *out = atomic_take(accum);
        *ticket = 0;
    }
}

#endif
