// The statistics over blocks (included by stats.cuh): the block loops
// (BlockLoop: the moments' threads share the block's shift, LOGSUMEXP
// scales once to the block's maximum), for the whole-array kernel
// (stats.cu) and rows split over blocks (segmented.cu), and the
// whole-array kernel's last block, which takes all the partials at once
// (CombinePartials). tests/stats_emu_kernels.cc, which has no blocks,
// reproduces them on the CPU.
#ifndef CURED_STATS_BLOCKS_CUH
#define CURED_STATS_BLOCKS_CUH

#include "grid.cuh"

// A block's state over its share of one input (the whole-array kernel,
// stats.cu; rows split over blocks, segmented.cu), held by thread 0: its
// threads' states merged by the block's shuffle tree.
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
// COMP results and the NaN-skipping statistics keep the per-thread states.
template <class T, class R, int KIND> struct BlockLoop<MeanVarOf<T, R, KIND> > {
    typedef MeanVarOf<T, R, KIND> Op;
    template <int BLOCK, class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank0, size_t size, Op op)
    {
        if constexpr (Op::OWN_SHIFT) {
            return block_states<BLOCK, T, A, UNROLL>(in, n, rank0, size, op);
        } else {
            const bool M2 = Op::KIND_M2;
            const double k = stats_shift(in, n, stats_first_index(in, n, rank0));
            ShiftedSums<T, M2, false, Op::S2C> vis = {k, 0.0, 0.0, 0.0, 0.0, 0u};
            Source1<T> src = {in};
            thread_visit<T, UNROLL, LoadLdg>(src, n, rank0 + threadIdx.x, size, vis);
            MomentSums<Op::S2C> s = MomentSums<Op::S2C>::of(vis);
            s = block_reduce_shuffle<BLOCK>(s, AddMoments<Op::S2C>());
            return s.c ? mv_shifted<M2, Op::S2C>((double)s.c, k, s.s1, s.s2, s.comp()) : Op::identity();
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

// The last block's end (grid.cuh's CombinePartials) for the moments and
// LOGSUMEXP: all the partials meet at once, as the threads of a block do
// above, instead of in a tree of pairwise merges (a Chan merge is a chain of
// ~30 dependent float64 operations and two divisions, and a tree of them is
// most of the kernel's end: bench/NOTES.md, Statistics), where the kernel
// passes PER > 1 (the whole-array kernel: StatsTuning's END_PER). The groups
// of a few blocks of segmented.cu pass 1 and keep grid.cuh's pairwise tree,
// whose merges with the identity cost little and whose fewer registers
// leave their loops one more block an SM.
// Two trips over the nblocks partials, PER a thread at a time (absent
// ones are the identity): first(p) for each, then between() (every thread
// calls it: the block's trees), then second(p) for each, from the registers
// when one trip held them all, else from L2 again.
template <int BLOCK, int PER, class Op, class A, class First, class Between, class Second>
__device__ __forceinline__ void partials_twice(const A *partials, unsigned nblocks, First first, Between between,
                                               Second second)
{
    A p[PER];
    auto load = [&](unsigned i0) {
#pragma unroll
        for (int j = 0; j < PER; j++) { // from L2: other SMs wrote them
            const unsigned i = i0 + threadIdx.x + j * BLOCK;
            p[j] = i < nblocks ? load_cg(partials + i) : Op::identity();
        }
    };
    for (unsigned i0 = 0; i0 < nblocks; i0 += PER * BLOCK) {
        load(i0);
#pragma unroll
        for (int j = 0; j < PER; j++)
            first(p[j]);
    }
    between();
    for (unsigned i0 = 0; i0 < nblocks; i0 += PER * BLOCK) {
        if (nblocks > PER * BLOCK)
            load(i0);
#pragma unroll
        for (int j = 0; j < PER; j++)
            second(p[j]);
    }
}

// The moments: the counts and sums by AddMeanSums' tree, then each
// partial's mv_term summed by a second tree (a non-finite sum: NaN m2).
template <class T, class R, int KIND> struct CombinePartials<MeanVarOf<T, R, KIND> > {
    typedef MeanVarOf<T, R, KIND> Op;
    template <int BLOCK, int PER, class A>
    __device__ static A run(const A *partials, unsigned nblocks, Op)
    {
        __shared__ MeanVarState total;
        MeanVarState t = AddMeanSums::identity();
        double m2 = 0.0;
        partials_twice<BLOCK, PER, Op>(
            partials, nblocks, [&](const MeanVarState &p) { t = AddMeanSums()(t, p); },
            [&]() {
                t = block_reduce_shuffle<BLOCK>(t, AddMeanSums());
                if (threadIdx.x == 0) {
                    mv_renorm(t.hi, t.lo);
                    total = t;
                }
                __syncthreads();
                t = total;
            },
            [&](const MeanVarState &p) {
                if (p.n != 0.0)
                    m2 += mv_term(t, p);
            });
        t.m2 = block_reduce_shuffle<BLOCK>(m2, AddScaled());
        if (!stats_finite(t.hi))
            t.m2 = stats_nan();
        return t;
    }
};
// LOGSUMEXP: the largest reference, then each sum scaled to it once and
// the sums added (BlockLoop's, over the partials).
template <class T, class P, class R> struct CombinePartials<LogSumExp<T, P, R> > {
    typedef LogSumExp<T, P, R> Op;
    template <int BLOCK, int PER, class A>
    __device__ static A run(const A *partials, unsigned nblocks, Op)
    {
        double top = Op::identity().m, s = 0.0;
        partials_twice<BLOCK, PER, Op>(
            partials, nblocks, [&](const LseState &p) { top = fmax(top, p.m); },
            [&]() { top = block_max<BLOCK>(top); }, [&](const LseState &p) { s += lse_scaled(p, top); });
        const LseState r = {top, block_reduce_shuffle<BLOCK>(s, AddScaled())};
        return r;
    }
};

#endif
