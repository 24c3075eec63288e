// The segments over `huge` elements that reduce_segments counted and listed.
// When all of them are on the list, each gets PARTS = gridDim.x blocks, whose
// partials the last of them combines in block order: a listed segment's
// result depends only on its data and PARTS, not on where it landed in the
// list. When there are more than the list holds, the list is ignored and the
// blocks' warps take every such segment, one warp each, in the order of
// reduce_segments' own long ones. Either way the count decides, so results
// are bitwise the same from run to run.
#ifndef CURED_SEGMENTS_LONG_CUH
#define CURED_SEGMENTS_LONG_CUH

// More than the list holds: every segment over `huge` elements by a warp
// of the grid, 32 segments' offsets at a time. Not inlined, so that the
// listed path keeps its own registers (inlined, it spilled).
template <class T, class A, class Op, class Off, int BLOCK, int UNROLL>
__device__ __noinline__ void every_long_segment(const T *in, u64 nseg, const Off *begin, const Off *end, void *out,
                                                unsigned result_size, u64 huge, double ddof)
{
    const u64 warps = (u64)gridDim.x * gridDim.y * (BLOCK / 32);
    const u64 warp = ((u64)blockIdx.y * gridDim.x + blockIdx.x) * (BLOCK / 32) + threadIdx.x / 32;
    for (u64 first = warp * 32; first < nseg; first += warps * 32) {
        const u64 s = first + threadIdx.x % 32;
        long long b = 0, len = 0;
        if (s < nseg) {
            b = (long long)begin[s];
            len = (long long)end[s] - b;
        }
        const bool huge_one = s < nseg && len > 0 && (u64)len > huge;
        warp_segments<T, A, Op, UNROLL>(__ballot_sync(0xffffffffu, huge_one), in, s, b, (u64)(len > 0 ? len : 0), out,
                                        result_size, ddof);
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
