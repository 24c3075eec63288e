// The statistics kernel (src/family_stats.c): the AUTO kernel's shape (one
// launch, 16-byte loads, the last block combining partials in order) with
// the operator's own per-thread loop and state (stats.cuh), and one more
// parameter, the delta degrees of freedom of VAR, STD and MEAN_VAR.
#include "stats.cuh"

// A block's state, held by thread 0: its threads' states merged by the
// block's shuffle tree.
template <int BLOCK, class T, class A, int UNROLL, class Op>
__device__ __forceinline__ A block_states(const T *in, size_t n, size_t rank0, size_t size, Op op)
{
    A v = ThreadLoop<Op>::template run<T, A, UNROLL>(in, n, rank0 + threadIdx.x, size, op);
    return block_reduce_shuffle<BLOCK>(v, op);
}
template <class Op> struct BlockLoop {
    template <int BLOCK, class T, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank0, size_t size, Op op)
    {
        return block_states<BLOCK, T, A, UNROLL>(in, n, rank0, size, op);
    }
};
template <class Op, class A, bool RAW> struct BlockLoop<Record<Op, A, RAW> > : BlockLoop<Op> {};

// The moments (float32 results, or exact element types): every thread of a
// block shifts by the block's first element (thread 0's first, one of the
// block's own), so their shifted sums add plainly, and the block forms one
// state from their float64 totals (mv_shifted: the loss is at most a factor
// of the block's element count). Chan's merges run between blocks only.
// COMP results keep the per-thread states.
template <class T, class R, int KIND> struct BlockLoop<MeanVarOf<T, R, KIND> > {
    typedef MeanVarOf<T, R, KIND> Op;
    template <int BLOCK, class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank0, size_t size, Op op)
    {
        if constexpr (Op::COMP) {
            return block_states<BLOCK, T, A, UNROLL>(in, n, rank0, size, op);
        } else {
            const bool M2 = KIND != MV_MEAN;
            const double k = stats_shift(in, n, stats_first_index(in, n, rank0));
            ShiftedSums<T, M2, false> vis = {k, 0.0, 0.0, 0.0, 0.0, 0u};
            Source1<T> src = {in};
            thread_visit<T, UNROLL, LoadLdg>(src, n, rank0 + threadIdx.x, size, vis);
            MomentSums s = {vis.s1, vis.s2, (u64)vis.c};
            s = block_reduce_shuffle<BLOCK>(s, AddMoments());
            return s.c ? mv_shifted<M2>((double)s.c, k, s.s1, s.s2) : Op::identity();
        }
    }
};

// LOGSUMEXP: the block's maximum first (every thread gets it), then each
// thread's sum scaled to it once and the sums added (lse_scaled).
template <int BLOCK> __device__ __forceinline__ double block_max(double v)
{
    __shared__ double warp_max[BLOCK / 32];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v = fmax(v, __shfl_xor_sync(0xffffffffu, v, off));
    if ((threadIdx.x & 31) == 0)
        warp_max[threadIdx.x >> 5] = v;
    __syncthreads();
    v = warp_max[0];
#pragma unroll
    for (int w = 1; w < BLOCK / 32; w++)
        v = fmax(v, warp_max[w]);
    __syncthreads();
    return v;
}
template <class T, class P, class R> struct BlockLoop<LogSumExp<T, P, R> > {
    template <int BLOCK, class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank0, size_t size, LogSumExp<T, P, R> op)
    {
        const LseState t =
            ThreadLoop<LogSumExp<T, P, R> >::template run<T, LseState, UNROLL>(in, n, rank0 + threadIdx.x, size, op);
        const double top = block_max<BLOCK>(t.m);
        const LseState r = {top, block_reduce_shuffle<BLOCK>(lse_scaled(t, top), AddScaled())};
        return r;
    }
};

// Blocks per SM to keep resident: 8 (32 registers) for the shifted-sum
// moments, whose loop needs no more; the spills are in the last block's
// merges (bench/NOTES.md, v8). Others keep no minimum (0).
template <class Op> struct StatsOccupancy { enum { MIN_BLOCKS = 0 }; };
template <class Op, class A, bool RAW> struct StatsOccupancy<Record<Op, A, RAW> > : StatsOccupancy<Op> {};
template <class T, class R, int KIND> struct StatsOccupancy<MeanVarOf<T, R, KIND> > {
    enum { MIN_BLOCKS = MeanVarOf<T, R, KIND>::COMP ? 0 : 8 };
};

template <class T, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK, StatsOccupancy<Op>::MIN_BLOCKS)
reduce_stats(const T *in, size_t n, void *out, typename Op::State *partials, unsigned int *ticket, double ddof)
{
    Op op;
    bind_ddof(op, ddof);
    typename Op::State v = BlockLoop<Op>::template run<BLOCK, T, typename Op::State, UNROLL>(
        in, n, (size_t)blockIdx.x * blockDim.x, (size_t)gridDim.x * blockDim.x, op);
    finish_last_block<BLOCK>(v, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}
