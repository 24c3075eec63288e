// Segments too long for one warp. reduce_segments lists them (up to `cap`)
// in the workspace as it meets them; this second launch gives each listed
// segment PARTS = gridDim.x blocks, whose partials the last of them combines
// in block order. A listed segment's result depends only on its data and
// PARTS, not on where it landed in the list. Which segments are listed when
// more than `cap` qualify depends on timing, and the rest take the warp's
// order of combination (cured.h says so).
#ifndef CURED_SEGMENTS_LONG_CUH
#define CURED_SEGMENTS_LONG_CUH

#include "stats.cuh"

// The workspace of the list: cap entries, their count, and a ticket of this
// launch's blocks (the last resets the count for the next call).
struct LongList {
    unsigned long long *seg; // cap segment indices
    unsigned int *count, *done, *tickets; // tickets: one per entry
    unsigned cap;
};

// Put segment s on the list; false when it is full.
__device__ __forceinline__ bool list_long(const LongList &l, u64 s)
{
    if (*(volatile unsigned *)l.count >= l.cap) // full: no atomic (and no count to wrap past 2^32)
        return false;
    const unsigned slot = atomicAdd(l.count, 1u);
    if (slot >= l.cap)
        return false;
    l.seg[slot] = s;
    return true;
}

template <class T, class A, class Op, class Off, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_long_segments(const T *in, const Off *begin, const Off *end, void *out, unsigned result_size, LongList l,
                     A *partials, double ddof)
{
    __shared__ unsigned listed;
    if (threadIdx.x == 0)
        listed = *(volatile unsigned *)l.count;
    __syncthreads();
    const unsigned e = blockIdx.y, n = listed < l.cap ? listed : l.cap;
    if (e < n) {
        const u64 s = l.seg[e];
        const long long b = (long long)begin[s];
        const u64 len = (u64)((long long)end[s] - b);
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, in + b);
        A v = ThreadLoop<Op>::template run<T, A, UNROLL>(in + b, len, (size_t)blockIdx.x * BLOCK + threadIdx.x,
                                                          (size_t)gridDim.x * BLOCK, op);
        v = block_reduce_shuffle<BLOCK>(v, op);
        finish_last_block<BLOCK>(v, (char *)out + s * result_size, len, partials + (u64)e * gridDim.x,
                                 l.tickets + e, blockIdx.x, gridDim.x, op);
    }
    if (threadIdx.x == 0 && atomicAdd(l.done, 1u) == gridDim.x * gridDim.y - 1) { // every block has read the count
        *l.count = 0;
        *l.done = 0;
    }
}

#endif
