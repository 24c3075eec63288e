// The moments down columns (segmented.cu's reduce_cols), included by stats.cuh
// with the state records (state.cuh).
#ifndef CURED_STATS_COLUMNS_CUH
#define CURED_STATS_COLUMNS_CUH

#include "phase_tree.cuh"

// Down VEC adjacent columns (segmented.cu's reduce_cols): a thread's rows as
// shifted sums (ThreadLoop's: about eight operations per element instead of a
// Chan merge). One run of rows, not chunks of 2^31 (the sums' own count is
// 32-bit): merging chunk states would hold more registers through the loop
// and cost a third of the blocks an SM (bench/NOTES.md, Statistics).
// BLOCK_JOIN (float32 results, exact element types: as BlockLoop): every phase
// of a block shifts by the first row of the block's rows (begin), so the
// phases' sums add plainly by the kernel's phase tree, and one state a column
// is formed from their totals, with the block's row count (join). Otherwise (COMP, SKIP) each thread
// shifts by its own first row and forms its state at close, from the kernel's
// 64-bit row count (SKIP: from its own count of elements that are not NaN).
template <class Op, class T, int VEC> struct MeanVarColumns {
    // 32-bit integers into float64: s2 compensated (ShiftedSums' S2C), as a run of rows is long.
    typedef ShiftedSums<T, Op::KIND_M2, Op::COMP, Op::S2C, Op::SKIP> S;
    struct N {
        S a[VEC]; // (without SKIP their own 32-bit counts c stay 0)
        bool started; // the shifts are set (the thread's first row, or shift())
    };
    typedef N W;
    static const bool CHUNKED = false; // one run of rows: flush once, into open()'s W
    static const long long CHUNK = 0, MAXROWS = 0;
    static const bool BLOCK_JOIN = !Op::OWN_SHIFT;
    typedef MomentSums<Op::S2C> Sums;
    __device__ static __forceinline__ void zero(N &n)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            const S z = {0.0, 0.0, 0.0, 0.0, 0.0, 0u};
            n.a[k] = z;
        }
        n.started = false;
    }
    __device__ static __forceinline__ void open(W &w) { zero(w); }
    __device__ static __forceinline__ void start(N &n, const W &w) { n = w; }
    // The shifts of the first `live` columns from a row's elements e.
    __device__ static __forceinline__ void shifts(N &n, const T *e, int live)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            if (k < live)
                n.a[k].k = stats_shift(e + k, 1, 0);
        n.started = true;
    }
    // BLOCK_JOIN: the shifts from the block's first row (a vector of VEC columns, or the
    // first `live` elements of one).
    __device__ static __forceinline__ void begin(W &w, const T *first)
    {
        const uint4 v = __ldg(reinterpret_cast<const uint4 *>(first));
        shifts(w, reinterpret_cast<const T *>(&v), VEC);
    }
    __device__ static __forceinline__ void begin_elems(W &w, const T *first, int live) { shifts(w, first, live); }
    __device__ static __forceinline__ void add_elems(W &w, const T *row, int live, u64, Op)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            if (k < live)
                w.a[k].add(widen<double>(row[k]));
    }
    __device__ static __forceinline__ void add(N &n, uint4 v, u64, Op)
    {
        const T *e = reinterpret_cast<const T *>(&v);
        if (!n.started)
            shifts(n, e, VEC);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            n.a[k].add(widen<double>(e[k]));
    }
    __device__ static __forceinline__ void flush(W &w, const N &n, Op) { w = n; }
    __device__ static __forceinline__ void close(MeanVarState *acc, const W &w, long long count, Op)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            acc[k] = w.a[k].state(Op::SKIP ? (double)w.a[k].c : (double)count);
    }
    __device__ static __forceinline__ Sums sums(const W &w, int k) { return Sums::of(w.a[k]); }
    // Column k's state from the block's summed sums over its n rows.
    __device__ static __forceinline__ MeanVarState form(const W &w, int k, const Sums &s, double n)
    {
        return n > 0.0 ? mv_shifted<Op::KIND_M2, Op::S2C>(n, w.a[k].k, s.s1, s.s2, s.comp()) : Op::identity();
    }
    // The block's phases of each of the thread's first `live` columns (all rows r1 - r0 = n
    // of the block's share), into ty == 0's acc.
    template <int BLOCK, int TX>
    __device__ static __forceinline__ void join(MeanVarState *acc, const W &w, void *smem, long long live,
                                                long long n, Op)
    {
        Sums s[VEC];
#pragma unroll
        for (int k = 0; k < VEC; k++)
            s[k] = sums(w, k);
        static_assert(sizeof(Sums) * BLOCK <= sizeof(MeanVarState) * BLOCK, "the phase area holds the sums");
        if (BLOCK > TX)
            phase_tree<BLOCK, TX, VEC>(s, VEC, reinterpret_cast<Sums *>(smem), AddMoments<Op::S2C>());
        if (threadIdx.x < TX)
#pragma unroll
            for (int k = 0; k < VEC; k++)
                acc[k] = k < live ? form(w, k, s[k], (double)n) : Op::identity();
    }
};
template <class T, class R, int KIND, int VEC>
struct ColumnAcc<MeanVarOf<T, R, KIND>, T, MeanVarState, VEC> : MeanVarColumns<MeanVarOf<T, R, KIND>, T, VEC> {};
// Blocks an SM: 3 (80 registers) for 32-bit elements into narrow results (blocks share a
// shift; no S2C) in tiles of 4 to 128 threads across: 0.03-0.10 of the ceiling over no bound
// for float32 on the H100 (bench/NOTES.md, Columns). 1 across measured faster at 2 an SM (90
// registers); 256 across have 80 unbounded; the 8- and 16-bit types' VEC states would spill.
// bench/colstune.cu sets CURED_COLS_MINB to try others.
template <class T, class R, int KIND, int TX> struct ColsTuning<MeanVarOf<T, R, KIND>, TX> {
#ifdef CURED_COLS_MINB
    enum { MIN_BLOCKS = CURED_COLS_MINB };
#else
    enum {
        MIN_BLOCKS = !MeanVarOf<T, R, KIND>::OWN_SHIFT && !MeanVarOf<T, R, KIND>::S2C && sizeof(T) == 4 && TX >= 4 &&
                             TX < 256
                         ? 3
                         : 0
    };
#endif
};
// Their state records (state.cuh) too (a Record is its operator).
template <class T, class R, int KIND, bool RAW, int VEC>
struct ColumnAcc<Record<MeanVarOf<T, R, KIND>, MeanVarState, RAW>, T, MeanVarState, VEC>
    : MeanVarColumns<MeanVarOf<T, R, KIND>, T, VEC> {};

#endif
