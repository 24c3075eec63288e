// LOGSUMEXP in one pass (the statistics kernel, kernels-src/stats.cu, and
// segmented.cu): a reference and the sum of exponentials relative to it,
// merged in a fixed order. Functors take <element T, precision P, result R>.
#ifndef CURED_LOGSUMEXP_CUH
#define CURED_LOGSUMEXP_CUH

#include "common.cuh"
#include "phase_tree.cuh"

// ---- logsumexp --------------------------------------------------------------
// State: a reference m and s = sum of exp(x - m), the value m + log(s). m is
// at most the maximum and within LSE_SLACK of it (LseVisitor), or the
// maximum itself (one element, merges). Merging keeps the larger reference and
// scales the other sum by exp(difference), in float64. NaN propagates; +inf
// gives +inf; all -inf (and n == 0) gives -inf, as scipy.special.logsumexp.
struct LseState { double m, s; };

// x - m, with 0 where x == m: a maximum of +inf or -inf counts 1 (not the
// NaN of inf - inf), so that +inf stays +inf and all -inf stays -inf; a
// NaN x gives a NaN term, which the sum carries to the result.
template <class P> __device__ __forceinline__ P lse_arg(P x, P m) { return x == m ? P(0) : x - m; }
// float: CUDA's expf, within 2.32 ulp for every t (ex2.approx after an exact
// range reduction); __expf's error grows with |t| (2 + 1.17|t| ulp).
__device__ __forceinline__ float lse_exp(float t) { return expf(t); }
__device__ __forceinline__ double lse_exp(double t) { return exp(t); }

__device__ __forceinline__ LseState lse_merge(LseState a, LseState b)
{
    if (a.s == 0.0 && a.m == limits<double>::lowest()) // the identity: no float64 exponential
        return b;
    const bool keep_a = !(b.m > a.m);
    const double hi = keep_a ? a.m : b.m, lo = keep_a ? b.m : a.m;
    LseState r;
    r.m = hi;
    r.s = fma(keep_a ? b.s : a.s, exp(lse_arg(lo, hi)), keep_a ? a.s : b.s);
    return r;
}

// Many states that meet at once (a block, a row's group of lanes): each
// sum scaled once to their common maximum M, then the sums added by a
// fixed tree (one float64 exponential per thread instead of one per level
// of pairwise merges). lse_arg makes a state already at M count 1.
__device__ __forceinline__ double lse_scaled(LseState t, double top) { return t.s * exp(lse_arg(t.m, top)); }
// The same, where a state already at M keeps its sum (lse_scaled's factor exp(0) = 1) without
// the float64 exponential.
__device__ __forceinline__ double lse_rescaled(LseState t, double top) { return t.m == top ? t.s : lse_scaled(t, top); }
struct AddScaled {
    __device__ static double identity() { return 0.0; }
    __device__ double operator()(double a, double b) const { return a + b; }
};

__device__ __forceinline__ float lse_max(float a, float b) { return fmaxf(a, b); } // NaN ignored
__device__ __forceinline__ double lse_max(double a, double b) { return fmax(a, b); }

// The reference the terms exp(x - ref) of a thread take: its m, or 0 while
// m is infinite (then every term is 0, inf or NaN
// and the result -inf, inf or NaN whatever the count; the merges' lse_arg
// keeps it so). One select per vector instead of lse_arg's per element.
template <class P> __device__ __forceinline__ P lse_ref(P m) { return fabs(m) < limits<P>::highest() ? m : P(0); }

// A thread's elements in precision P (float: one float exponential per
// element): a reference m (the state's value is m + log(s)), and the terms
// exp(x - lse_ref(m)) of each vector summed pairwise in P, then added to the
// float64 sum s. m is the first vector's largest number (a NaN element makes
// its term and so the sum NaN), raised only when a vector holds one more
// than LSE_SLACK above it (the sum is then rescaled in float64). A raise at
// every larger element would cost each warp a float64 exponential at nearly
// every vector (some lane raises; bench/NOTES.md, Statistics). The slack bounds what it
// costs in accuracy: an x - m in (0, 2] rounds by at most 2^-23, which
// cured.h's LOGSUMEXP error bound includes.
#define LSE_SLACK 2
template <class T, class P> struct LseVisitor {
    static const bool HEAD_LAST = false;
    P m;
    double s;
    __device__ __forceinline__ void raise(P x)
    {
        if (x > m + P(LSE_SLACK)) { // never NaN: m stays a number, a NaN x goes into the sum
            if (s != 0.0) // (the first raise: no float64 exponential)
                s *= exp((double)m - (double)x);
            m = x;
        }
    }
    __device__ __forceinline__ void vec(uint4 v, u64, unsigned)
    {
        const int VEC = 16 / sizeof(T);
        const T *e = reinterpret_cast<const T *>(&v);
        P x[VEC];
#pragma unroll
        for (int j = 0; j < VEC; j++)
            x[j] = widen<P>(e[j]);
        P top = x[0];
#pragma unroll
        for (int j = 1; j < VEC; j++)
            top = lse_max(top, x[j]);
        raise(top);
        const P ref = lse_ref(m);
#pragma unroll
        for (int j = 0; j < VEC; j++)
            x[j] = lse_exp(x[j] - ref);
#pragma unroll
        for (int w = VEC / 2; w > 0; w /= 2)
#pragma unroll
            for (int j = 0; j < w; j++)
                x[j] += x[j + w];
        s += (double)x[0];
    }
    __device__ __forceinline__ void elem(T x_in, u64)
    {
        const P x = widen<P>(x_in);
        raise(x);
        s += (double)lse_exp(x - lse_ref(m));
    }
};

// log(s) of a sum s >= 1 for a result of type R: float64's logarithm for a FLOAT64
// result; for a narrower one e ln 2 + log(f), s = 2^e f with f in [1, 2), log(f) as
// logf of f rounded to float plus that rounding's share (f - (float)f) / (float)f. Within
// 2^-24 of log(s) (logf's 1 ulp on [0, ln 2)), in float work instead of the ~40
// float64 instructions of log, once a result (few-row columns: once per few elements).
// 0, inf and NaN (no element, overflow) take log.
template <class R> __device__ __forceinline__ double lse_log(double s)
{
    if (sizeof(R) == 8 || !(s >= 1.0 && s < limits<double>::highest()))
        return log(s);
    const long long b = __double_as_longlong(s);
    const double f = __longlong_as_double((b & 0xfffffffffffffll) | 0x3ff0000000000000ll);
    const float ff = (float)f;
    const double lf = (double)logf(ff) + (double)__fdividef((float)(f - (double)ff), ff);
    return fma((double)((int)(b >> 52) - 1023), 0x1.62e42fefa39efp-1, lf);
}

template <class T, class P, class R> struct LogSumExp {
    typedef LseState State;
    __device__ static State identity()
    {
        State s = {limits<double>::lowest(), 0.0};
        return s;
    }
    __device__ State operator()(State a, State b) const { return lse_merge(a, b); }
    __device__ State map(T x, u64) const // one element (segmented.cu's columns and strided layouts)
    {
        State s = {widen<double>(x), 1.0};
        return s;
    }
    // log(1) = +0 without the float64 logarithm: a one-element result, or one whose other terms
    // vanish below the maximum's.
    __device__ void write(void *out, State s, u64) const { *(R *)out = (R)(s.m + (s.s == 1.0 ? 0.0 : lse_log<R>(s.s))); }
};

// One vector into a state (packed.cuh's rows of one vector): the visitor's
// float exponentials, instead of a merge with a float64 one per element.
template <class T, class P, class R> struct VecStep<LogSumExp<T, P, R> > {
    template <class TT, class A>
    __device__ static __forceinline__ LseState step(LseState acc, uint4 v, u64, LogSumExp<T, P, R>)
    {
        LseVisitor<T, P> vis = {limits<P>::lowest(), 0.0};
        vis.vec(v, 0, 0);
        const LseState b = {(double)vis.m, vis.s};
        return lse_merge(acc, b);
    }
};

template <class T, class P, class R> struct ThreadLoop<LogSumExp<T, P, R> > {
    template <class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank, size_t size, LogSumExp<T, P, R>)
    {
        LseVisitor<T, P> vis = {limits<P>::lowest(), 0.0};
        Source1<T> src = {in};
        thread_visit<T, UNROLL, LoadLdg>(src, n, rank, size, vis);
        LseState r = {(double)vis.m, vis.s};
        return r;
    }
};

// segmented.cu's groups of G lanes (rows, short segments, strided layouts):
// the group's maximum by xor shuffles, then the scaled sums down to the
// group's first lane, which holds the result (as the generic group_reduce).
// lse_rescaled spares the states already at the maximum their exponential: one lane
// (G = 1), or lanes that share their reference (segmented.cu's GroupLoop).
template <int G> __device__ __forceinline__ LseState lse_group_reduce(LseState v)
{
    if (G == 1)
        return v;
    double top = v.m;
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1)
        top = fmax(top, __shfl_xor_sync(0xffffffffu, top, off));
    double s = lse_rescaled(v, top);
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off);
    const LseState r = {top, s};
    return r;
}
template <int G, class T, class P, class R> __device__ __forceinline__ LseState group_reduce(LseState v, LogSumExp<T, P, R>)
{
    return lse_group_reduce<G>(v);
}
template <int G, class T, class P, class R, bool RAW>
__device__ __forceinline__ LseState group_reduce(LseState v, Record<LogSumExp<T, P, R>, LseState, RAW>)
{
    return lse_group_reduce<G>(v);
}

// Down a column (segmented.cu's reduce_cols): a thread's rows through the
// per-thread loop's elem (one float exponential each) instead of a merge
// with a float64 exponential per element; merged into the state once.
template <class T, class P, class R> struct ColumnAcc1<LogSumExp<T, P, R>, T, LseState> {
    typedef LseVisitor<T, P> N;
    static const bool CHUNKED = false; // its partial never overflows: the rows are read in one run
    static const long long CHUNK = 0;
    __device__ static __forceinline__ N start(LseState)
    {
        N n = {limits<P>::lowest(), 0.0};
        return n;
    }
    __device__ static __forceinline__ N add(N n, T x, u64 r, LogSumExp<T, P, R>)
    {
        n.elem(x, r);
        return n;
    }
    __device__ static __forceinline__ LseState flush(LseState a, N n, LogSumExp<T, P, R> op)
    {
        const LseState t = {(double)n.m, n.s};
        return op(a, t);
    }
};
template <class T, class P, class R, bool RAW>
struct ColumnAcc1<Record<LogSumExp<T, P, R>, LseState, RAW>, T, LseState> : ColumnAcc1<LogSumExp<T, P, R>, T, LseState> {};

// The block's phases of a column (reduce_cols' BLOCK_JOIN) meet at their common
// maximum, as a block's threads do (BlockLoop): the references' maximum by one
// tree, each phase's sum scaled to it once (a float64 exponential a phase, all
// at once), the sums added by a second tree; a tree of pairwise merges takes a
// float64 exponential at each of its steps, one after another.
struct LseMax {
    __device__ double operator()(double a, double b) const { return fmax(a, b); }
};
template <class Op, class T, int VEC> struct LseColumns : ColumnAccOf<Op, T, LseState, VEC> {
    typedef typename ColumnAccOf<Op, T, LseState, VEC>::W W;
    static const bool BLOCK_JOIN = true;
    __device__ static __forceinline__ void begin(W &, const T *) {}
    __device__ static __forceinline__ void begin_elems(W &, const T *, int) {}
    __device__ static __forceinline__ void add_elems(W &w, const T *row, int live, u64 r, Op op)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            if (k < live)
                w.a[k] = op(w.a[k], op.map(row[k], r));
    }
    template <int BLOCK, int TX>
    __device__ static __forceinline__ void join(LseState *acc, const W &w, void *smem, long long live, long long,
                                                Op)
    {
        double top[VEC], s[VEC];
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            top[k] = w.a[k].m;
            s[k] = w.a[k].s;
        }
        if (BLOCK > TX) {
            double *sm = reinterpret_cast<double *>(smem); // BLOCK doubles
            phase_tree<BLOCK, TX, VEC>(top, VEC, sm, LseMax());
#pragma unroll
            for (int k = 0; k < VEC; k++) { // phase 0's maximum to every phase
                __syncthreads();
                if (threadIdx.x < TX)
                    sm[threadIdx.x] = top[k];
                __syncthreads();
                top[k] = sm[threadIdx.x % TX];
            }
            __syncthreads();
#pragma unroll
            for (int k = 0; k < VEC; k++)
                s[k] = lse_rescaled(w.a[k], top[k]);
            phase_tree<BLOCK, TX, VEC>(s, VEC, sm, AddScaled());
        }
        if (threadIdx.x < TX)
#pragma unroll
            for (int k = 0; k < VEC; k++) {
                const LseState r = {top[k], s[k]};
                acc[k] = k < live ? r : Op::identity();
            }
    }
};
template <class T, class P, class R, int VEC>
struct ColumnAcc<LogSumExp<T, P, R>, T, LseState, VEC> : LseColumns<LogSumExp<T, P, R>, T, VEC> {};
template <class T, class P, class R, bool RAW, int VEC>
struct ColumnAcc<Record<LogSumExp<T, P, R>, LseState, RAW>, T, LseState, VEC>
    : LseColumns<Record<LogSumExp<T, P, R>, LseState, RAW>, T, VEC> {};

#endif
