// The moments down columns (segmented.cu's reduce_cols), included by stats.cuh
// with the state records (state.cuh).
#ifndef CURED_STATS_COLUMNS_CUH
#define CURED_STATS_COLUMNS_CUH

// Down VEC adjacent columns (segmented.cu's reduce_cols): a thread's rows as
// shifted sums about the first of them, as ThreadLoop's (about eight operations
// per element instead of a Chan merge), formed into states once, at close, from
// the kernel's 64-bit row count. One run of rows, not chunks of 2^31 (the sums'
// own count is 32-bit): merging chunk states would hold more registers through
// the loop and cost a third of the blocks an SM (bench/NOTES.md, Statistics).
template <class Op, class T, int VEC> struct MeanVarColumns {
    // 32-bit integers into float64: s2 compensated (ShiftedSums' S2C), as a run of rows is long.
    // SKIP: each column counts its elements that are not NaN (c); else close takes the kernel's count.
    typedef ShiftedSums<T, Op::KIND_M2, Op::COMP, Op::S2C, Op::SKIP> S;
    struct N {
        S a[VEC]; // (without SKIP their own 32-bit counts c stay 0)
        bool started; // the shifts are set (the thread's first row)
    };
    typedef N W;
    static const bool CHUNKED = false; // one run of rows: flush once, into open()'s W
    static const long long CHUNK = 0, MAXROWS = 0;
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
    __device__ static __forceinline__ void start(N &n, const W &) { zero(n); }
    __device__ static __forceinline__ void add(N &n, uint4 v, u64, Op)
    {
        const T *e = reinterpret_cast<const T *>(&v);
        if (!n.started) {
#pragma unroll
            for (int k = 0; k < VEC; k++)
                n.a[k].k = stats_shift(&e[k], 1, 0);
            n.started = true;
        }
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
};
template <class T, class R, int KIND, int VEC>
struct ColumnAcc<MeanVarOf<T, R, KIND>, T, MeanVarState, VEC> : MeanVarColumns<MeanVarOf<T, R, KIND>, T, VEC> {};
// Their state records (state.cuh) too (a Record is its operator).
template <class T, class R, int KIND, bool RAW, int VEC>
struct ColumnAcc<Record<MeanVarOf<T, R, KIND>, MeanVarState, RAW>, T, MeanVarState, VEC>
    : MeanVarColumns<MeanVarOf<T, R, KIND>, T, VEC> {};

#endif
