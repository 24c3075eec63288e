// The segments over `huge` elements that reduce_segments counted and listed.
// When all of them are on the list, each gets PARTS = gridDim.x blocks, whose
// partials the last of them combines in block order: a listed segment's
// result depends only on its data and PARTS, not on where it landed in the
// list. When there are more than the list holds, the list is ignored and
// every such segment gets one block. Either way the count decides, so
// results are bitwise the same from run to run.
#ifndef CURED_SEGMENTS_LONG_CUH
#define CURED_SEGMENTS_LONG_CUH

// More than the list holds: every segment over `huge` elements by one block
// of the grid, as CUB does. Block B of NB looks at segments B, B + NB, ...
// (BLOCK of them at a time, so that few segments still reach many blocks)
// and reduces each long one among them, in index order. Not inlined, so
// that the listed path keeps its own registers (inlined, it spilled).
template <class T, class A, class Op, class Off, int BLOCK, int UNROLL>
__device__ __noinline__ void every_long_segment(const T *in, u64 nseg, const Off *begin, const Off *end, void *out,
                                                unsigned result_size, u64 huge, double ddof)
{
    __shared__ unsigned longs[BLOCK / 32];
    const u64 nb = (u64)gridDim.x * gridDim.y, blk = (u64)blockIdx.y * gridDim.x + blockIdx.x;
    for (u64 round = 0; blk + round * nb * BLOCK < nseg; round++) { // the same trips for the whole block
        const u64 s = blk + (round * BLOCK + threadIdx.x) * nb;
        bool huge_one = false;
        if (s < nseg) {
            const long long len = (long long)end[s] - (long long)begin[s];
            huge_one = len > 0 && (u64)len > huge;
        }
        const unsigned m = __ballot_sync(0xffffffffu, huge_one);
        if (threadIdx.x % 32 == 0)
            longs[threadIdx.x / 32] = m;
        __syncthreads();
        for (int wi = 0; wi < BLOCK / 32; wi++) {
            for (unsigned mm = longs[wi]; mm != 0; mm &= mm - 1) {
                const u64 ls = blk + (round * BLOCK + wi * 32 + __ffs(mm) - 1) * nb;
                const long long lb = (long long)begin[ls];
                const u64 llen = (u64)((long long)end[ls] - lb);
                Op op;
                bind_ddof(op, ddof);
                bind_input(op, in + lb);
                A v = ThreadLoop<Op>::template run<T, A, UNROLL>(in + lb, llen, threadIdx.x, BLOCK, op);
                v = block_reduce_shuffle<BLOCK>(v, op);
                if (threadIdx.x == 0)
                    op.write((char *)out + ls * result_size, v, llen);
            }
        }
        __syncthreads(); // longs is reused
    }
}

template <class T, class A, class Op, class Off, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_long_segments(const T *in, u64 nseg, const Off *begin, const Off *end, void *out, unsigned result_size,
                     u64 huge, LongList l, A *partials, double ddof)
{
    __shared__ unsigned counted;
    if (threadIdx.x == 0)
        counted = *(volatile unsigned *)l.count;
    __syncthreads();
    const unsigned e = blockIdx.y;
    if (counted <= l.cap && e < counted) {
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
    } else if (counted > l.cap) {
        every_long_segment<T, A, Op, Off, BLOCK, UNROLL>(in, nseg, begin, end, out, result_size, huge, ddof);
    }
    if (threadIdx.x == 0 && atomicAdd(l.done, 1u) == gridDim.x * gridDim.y - 1) { // every block has read the count
        *l.count = 0;
        *l.done = 0;
    }
}

#endif
