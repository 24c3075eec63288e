// Statistics in one pass (kernels-src/stats.cu): MEAN, VAR, STD and MEAN_VAR
// from shifted sums merged with Chan's formulas, LOGSUMEXP (logsumexp.cuh)
// from a reference and a sum of exponentials relative to it. Each has its own
// per-thread loop (ThreadLoop) and a struct state that the block and grid
// ends (stats_blocks.cuh's BlockLoop and CombinePartials) merge in a fixed
// order, so results are bitwise reproducible. Functors take <element T,
// precision P, result R>.
#ifndef CURED_STATS_CUH
#define CURED_STATS_CUH

#include "common.cuh"
#include "logsumexp.cuh"

__device__ __forceinline__ double stats_nan() { return __longlong_as_double(0x7ff8000000000000ll); }
__device__ __forceinline__ bool stats_finite(double x) { return fabs(x) < limits<double>::highest(); }
// x / y for y > 0: a zero x is returned as it is (the quotient's value and sign), because
// CUDA's float64 division takes a subroutine of ~100 instructions for a zero dividend, and
// zeros are common here: the variance of equal elements, an exact mean's remainder, the
// shifted sum of one element.
__device__ __forceinline__ double stats_div(double x, double y)
{
    if (x == 0.0)
        return x;
    return x / y;
}

// ---- mean and variance ------------------------------------------------------
// The merged state: count, the sum of the elements as an unevaluated sum
// hi + lo (twice float64's precision: summing partial sums loses nothing,
// so a mean of float32 data is as exact as a float64 sum of it), and m2,
// the sum of squared deviations from the mean. A non-finite sum is held in
// hi with lo = 0.
struct MeanVarState { double n, hi, lo, m2; };

// t + e = a + b exactly (TwoSum).
__device__ __forceinline__ double two_sum(double a, double b, double &e)
{
    const double t = a + b, bb = t - a;
    e = (a - (t - bb)) + (b - bb);
    return t;
}

// hi + lo renormalised: hi the rounded sum, lo its exact error.
__device__ __forceinline__ void mv_renorm(double &hi, double &lo)
{
    double e;
    const double s = two_sum(hi, lo, e);
    lo = stats_finite(s) ? e : 0.0;
    hi = s;
}

// n_a S_b - n_b S_a for the sums S = hi + lo, in double-double (exact
// products by fma), so that a difference of two means keeps its precision
// when |mean| >> std.
__device__ __forceinline__ double mv_cross(MeanVarState a, MeanVarState b)
{
    const double pb = b.hi * a.n, eb = fma(b.hi, a.n, -pb);
    const double pa = a.hi * b.n, ea = fma(a.hi, b.n, -pa);
    return (pb - pa) + ((eb - ea) + (b.lo * a.n - a.lo * b.n));
}

// The term Chan's update adds to m2 for the parts a and b of a whole of n
// elements: num^2 / (n_a n_b n), num = mv_cross(a, b) (mv_merge: n = n_a +
// n_b; mv_term: a is the whole). Near float64's range the products n_a S_b
// overflow where the sums do not (a constant 1e305 a thousand times gives
// inf - inf): the sums are then scaled by 2^-128 (exact but for bits of lo
// below 2^-1074, far below the term's rounding) and the quotients by 2^128
// each, so that only a term beyond float64's range gives inf.
__device__ __forceinline__ double mv_chan(MeanVarState a, MeanVarState b, double n)
{
    if (fmax(fabs(a.hi), fabs(b.hi)) * fmax(a.n, b.n) < 0x1p1000) {
        const double num = mv_cross(a, b);
        return stats_div(num, a.n * b.n) * stats_div(num, n);
    }
    a.hi *= 0x1p-128;
    a.lo *= 0x1p-128;
    b.hi *= 0x1p-128;
    b.lo *= 0x1p-128;
    const double num = mv_cross(a, b);
    return (stats_div(num, a.n * b.n) * 0x1p128) * (stats_div(num, n) * 0x1p128);
}

// Chan, Golub and LeVeque's pairwise update, m2 += d^2 n_a n_b / n with d
// the difference of the two means, here from num = mv_cross(a, b). The
// identity (n = 0) passes the other side through; an infinite or NaN sum
// gives the plain sum of the sums (inf, or NaN for inf - inf) and a NaN m2,
// as NumPy's mean and var.
__device__ __forceinline__ MeanVarState mv_merge(MeanVarState a, MeanVarState b)
{
    if (b.n == 0.0)
        return a;
    if (a.n == 0.0)
        return b;
    MeanVarState r;
    r.n = a.n + b.n;
    if (stats_finite(a.hi) && stats_finite(b.hi)) {
        r.hi = a.hi;
        r.lo = b.hi;
        mv_renorm(r.hi, r.lo);
        r.lo += a.lo + b.lo;
        mv_renorm(r.hi, r.lo);
        r.m2 = a.m2 + b.m2 + mv_chan(a, b, r.n);
    } else {
        r.hi = a.hi + b.hi;
        r.lo = 0.0;
        r.m2 = stats_nan();
    }
    return r;
}

// The mean hi/n + lo/n, rounded once (q's remainder is exact by fma).
__device__ __forceinline__ double mv_mean(MeanVarState s)
{
    const double q = stats_div(s.hi, s.n);
    return stats_finite(q) ? q + stats_div(fma(-q, s.n, s.hi) + s.lo, s.n) : q;
}

// The end of a state from shifted sums: hi + lo renormalised, m2 clamped at
// 0 (rounding; NaN stays), inf where the squares overflowed float64 (as
// NumPy), NaN where the sum is not finite (as mv_merge).
template <bool M2> __device__ __forceinline__ MeanVarState mv_settle(MeanVarState r, double s2)
{
    mv_renorm(r.hi, r.lo);
    if (M2) {
        r.m2 = r.m2 < 0.0 ? 0.0 : r.m2;
        if (s2 == limits<double>::highest())
            r.m2 = s2;
    }
    if (!stats_finite(r.hi))
        r.m2 = stats_nan();
    return r;
}

// n elements x as float64 sums of d = x - k (s1) and d^2 (s2), k one of them,
// into the merged state: the sum n k + s1 (n k exact by fma) and
// m2 = s2 - s1^2 / n. m2 = M2 + n (mean - k)^2 with M2 >= (mean - k)^2, so
// the subtraction loses at most a factor n of float64's precision.
// c2: s2's compensation (ShiftedSums' S2C).
template <bool M2, bool S2C = false>
__device__ __forceinline__ MeanVarState mv_shifted(double n, double k, double s1, double s2, double c2 = 0.0)
{
    MeanVarState r = {n, n * k, 0.0, 0.0};
    r.lo = fma(n, k, -r.hi) + s1;
    if (M2)
        r.m2 = S2C ? fma(-s1, stats_div(s1, n), s2) + c2 : fma(-s1, stats_div(s1, n), s2);
    return mv_settle<M2>(r, s2);
}

// The index of the first element thread_visit gives thread `rank` (head
// element, else its first vector, else its tail element; >= n if none).
template <class T> __device__ __forceinline__ size_t stats_first_index(const T *in, size_t n, size_t rank)
{
    const int VEC = 16 / sizeof(T);
    const size_t head = vec_head(in, n), nvec = (n - head) / VEC, tail = head + nvec * VEC;
    return rank < head ? rank : rank < nvec ? head + rank * VEC : tail + rank;
}

// The shift: element i, 0 if there is none or it is not finite.
template <class T> __device__ __forceinline__ double stats_shift(const T *in, size_t n, size_t i)
{
    const double k = i < n ? widen<double>(in[i]) : 0.0;
    return stats_finite(k) ? k : 0.0;
}

// Shifted sums of threads that share one shift add plainly (a block of the
// whole-array kernel, stats_blocks.cuh's BlockLoop; a row's lanes, segmented.cu's
// GroupLoop): s1, s2, count; with S2C (ShiftedSums) also s2's compensation c2,
// the additions of s2 by TwoSum.
template <bool S2C> struct MomentSums {
    double s1, s2;
    u64 c;
    template <class V> __device__ static MomentSums of(const V &v)
    {
        MomentSums s = {v.s1, v.s2, (u64)v.c};
        return s;
    }
    __device__ double comp() const { return 0.0; }
};
template <> struct MomentSums<true> {
    double s1, s2, c2;
    u64 c;
    template <class V> __device__ static MomentSums of(const V &v)
    {
        MomentSums s = {v.s1, v.s2, v.c2, (u64)v.c};
        return s;
    }
    __device__ double comp() const { return c2; }
};
template <bool S2C> struct AddMoments {
    __device__ static MomentSums<S2C> identity()
    {
        MomentSums<S2C> s = {};
        return s;
    }
    __device__ MomentSums<S2C> operator()(MomentSums<S2C> a, MomentSums<S2C> b) const
    {
        MomentSums<S2C> r = a;
        r.s1 = a.s1 + b.s1;
        r.c = a.c + b.c;
        if constexpr (S2C) {
            double e;
            r.s2 = two_sum(a.s2, b.s2, e);
            r.c2 = (a.c2 + b.c2) + e;
        } else {
            r.s2 = a.s2 + b.s2;
        }
        return r;
    }
};

// A thread's elements: d = x - k summed and squared in float64, with k one
// of the thread's own elements (0 if that is not finite). Every |x - mean|
// of the thread's data is then within its spread, so s2 - s1^2/n loses at
// most a factor n_thread (~250) of float64's precision; one conversion, one
// subtraction, one add and one fma per element, within the H200's float64
// rate at the read ceiling. M2 = false (MEAN) keeps only the sum.
// COMP (float64 results of elements whose differences or sums may round in
// float64): s1 is the sum of x itself and s2 the sum of the squares of the
// exact differences x - k (TwoSum, fma), both in double-double (c1, c2
// their errors), so that s2 - d1^2/n cancels without loss even where k lies
// far from the thread's other elements: float64 results are then within a
// few ulps of the exact value for any data (about eight times the float64
// work per element: a float64 input still reads at close to the ceiling).
// S2C (columns of 32-bit integers into float64, MeanVarColumns): s1 stays a
// plain sum (exact: integers below 2^53), s2 is compensated as in COMP, c2
// its error. A thread adds a whole run of rows one after another, and the
// squares of 33-bit differences fill float64's mantissa, so the plain sum
// rounds once per row: up to r times 2^-53 of sum((x - k)^2) for r rows,
// past the one rounding that cured.h allows for the shift.
// SKIP (the NaN-skipping statistics): a NaN element is left out, c counts the
// others (64-bit: a column's run of rows counts itself), and the first of them
// becomes the shift (a thread's own state; the loops that share one shift
// between threads keep per-thread states for these).
template <bool SKIP> struct SumsCount { typedef unsigned type; };
template <> struct SumsCount<true> { typedef u64 type; };
template <class T, bool M2, bool COMP, bool S2C = false, bool SKIP = false> struct ShiftedSums {
    static const bool HEAD_LAST = false;
    double k, s1, s2, c1, c2;
    typename SumsCount<SKIP>::type c;
    __device__ __forceinline__ void add(double x)
    {
        if (SKIP) {
            if (x != x)
                return;
            if (c == 0)
                k = stats_finite(x) ? x : 0.0;
            c++;
        }
        if (!COMP) {
            const double d = x - k;
            s1 += d;
            if (M2 && S2C) {
                double e;
                const double q = d * d;
                s2 = two_sum(s2, q, e);
                c2 += e + fma(d, d, -q);
            } else if (M2) {
                s2 = fma(d, d, s2);
            }
            return;
        }
        double e;
        s1 = two_sum(s1, x, e);
        c1 += e;
        if (M2) { // (dh + dl)^2 = q + the rest, dh + dl = x - k exactly
            double dl;
            const double dh = two_sum(x, -k, dl), q = dh * dh;
            s2 = two_sum(s2, q, e);
            c2 += e + fma(dh + dh, dl, fma(dh, dh, -q));
        }
    }
    __device__ __forceinline__ void vec(uint4 v, u64, unsigned)
    {
        const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
        for (int j = 0; j < (int)(16 / sizeof(T)); j++)
            add(widen<double>(e[j]));
        if (!SKIP)
            c += 16 / sizeof(T);
    }
    __device__ __forceinline__ void elem(T x, u64)
    {
        add(widen<double>(x));
        if (!SKIP)
            c++;
    }
    // The merged state (COMP: the sum s1 + c1, m2 = s2 - d1^2 / n with d1
    // the sum of x - k, all in double-double; else mv_shifted) of n elements
    // (the count c, or the caller's).
    __device__ __forceinline__ MeanVarState state(double n) const
    {
        MeanVarState r = {0.0, 0.0, 0.0, 0.0};
        if (n == 0.0)
            return r;
        if (!COMP)
            return mv_shifted<M2, S2C>(n, k, s1, s2, c2);
        r.n = n;
        const double p = r.n * k, pe = fma(r.n, k, -p);
        if (stats_finite(s1)) {
            r.hi = s1;
            r.lo = c1;
            double dl, dh = two_sum(s1, -p, dl);
            dl += c1 - pe;
            dh = two_sum(dh, dl, dl);
            const double sq = dh * dh, sqe = fma(dh, dh, -sq) + 2 * dh * dl;
            const double qh = stats_div(sq, r.n), ql = stats_div(fma(-qh, r.n, sq) + sqe, r.n);
            if (M2)
                r.m2 = (s2 - qh) + (c2 - ql);
        } else { // an infinite or NaN element (c1 is NaN then)
            r.hi = s1;
        }
        return mv_settle<M2>(r, s2);
    }
    __device__ __forceinline__ MeanVarState state() const { return state((double)c); }
};

// Elements whose differences and per-thread sums are exact in float64 (no COMP needed).
template <class T> struct mv_exact { enum { value = 0 }; };
#define CURED_MV_EXACT(T) template <> struct mv_exact<T> { enum { value = 1 }; };
CURED_MV_EXACT(signed char)
CURED_MV_EXACT(unsigned char)
CURED_MV_EXACT(short)
CURED_MV_EXACT(unsigned short)
CURED_MV_EXACT(int)
CURED_MV_EXACT(unsigned)
CURED_MV_EXACT(half_t)
#undef CURED_MV_EXACT

// The NaN a NaN-skipping statistic writes where too few elements are left (NANMEAN: none,
// else n <= ddof): its payload (src/family.h's CR_TOO_FEW_F32 and _F64) tells the
// synchronous calls' host check it from the NaN of an infinite input.
template <class R> __device__ __forceinline__ R stats_too_few();
template <> __device__ __forceinline__ float stats_too_few<float>() { return __int_as_float(0x7fc0c0de); }
template <> __device__ __forceinline__ double stats_too_few<double>() { return __longlong_as_double(0x7ff8c0de00000000ll); }

// What write() gives: MEAN, VAR (m2 / (n - ddof)), STD, or mean then variance;
// with MV_SKIP of the elements that are not NaN (NANMEAN, NANVAR, NANSTD).
enum { MV_MEAN, MV_VAR, MV_STD, MV_BOTH, MV_SKIP = 4 };
template <class T, class R, int KIND> struct MeanVarOf {
    typedef MeanVarState State;
    static const bool COMP = sizeof(R) == 8 && !mv_exact<T>::value; // see ShiftedSums
    static const bool S2C = sizeof(R) == 8 && mv_exact<T>::value && sizeof(T) == 4;
    static const int BASE = KIND & ~MV_SKIP;
    static const bool SKIP = (KIND & MV_SKIP) != 0;
    static const bool KIND_M2 = BASE != MV_MEAN;                      // m2 is kept
    // The loops that share one shift between threads (BlockLoop, GroupLoop) do so
    // only without COMP and SKIP.
    static const bool OWN_SHIFT = COMP || SKIP;
    double ddof; // set by the kernel
    __device__ static State identity()
    {
        State s = {0.0, 0.0, 0.0, 0.0};
        return s;
    }
    __device__ State operator()(State a, State b) const { return mv_merge(a, b); }
    // One element as a state, for the kernels that merge element by element
    // (columns and strided layouts of segmented.cu): exact, as mv_merge is.
    __device__ State map(T x_in, u64) const
    {
        const double x = widen<double>(x_in);
        if (SKIP && x != x)
            return identity();
        State s = {1.0, x, 0.0, stats_finite(x) ? 0.0 : stats_nan()};
        return s;
    }
    // n == 0 (and n <= ddof for the variance): NaN.
    __device__ void write(void *out, State s, u64) const
    {
        // A result narrower than float64: hi / n is within a float64 ulp of the mean, far below
        // the result's rounding (one division instead of mv_mean's two).
        const double mean = s.n > 0.0 ? (sizeof(R) < 8 ? stats_div(s.hi, s.n) : mv_mean(s)) : stats_nan();
        const double dof = s.n - ddof;
        const double var = dof > 0.0 ? stats_div(s.m2, dof) : stats_nan();
        R *o = (R *)out;
        if (SKIP && (BASE == MV_MEAN ? !(s.n > 0.0) : !(dof > 0.0))) {
            o[0] = stats_too_few<R>();
            if (BASE == MV_BOTH)
                o[1] = stats_too_few<R>();
            return;
        }
        switch (BASE) {
        case MV_MEAN: o[0] = (R)mean; break;
        case MV_VAR: o[0] = (R)var; break;
        case MV_STD: o[0] = (R)sqrt(var); break;
        default: o[0] = (R)mean; o[1] = (R)var; break;
        }
    }
};
// The precision P is float64 for every input (see ShiftedSums).
template <class T, class P, class R> using Mean = MeanVarOf<T, R, MV_MEAN>;
template <class T, class P, class R> using Var = MeanVarOf<T, R, MV_VAR>;
template <class T, class P, class R> using Std = MeanVarOf<T, R, MV_STD>;
template <class T, class P, class R> using MeanVar = MeanVarOf<T, R, MV_BOTH>;
template <class T, class P, class R> using NanMean = MeanVarOf<T, R, MV_MEAN | MV_SKIP>;
template <class T, class P, class R> using NanVar = MeanVarOf<T, R, MV_VAR | MV_SKIP>;
template <class T, class P, class R> using NanStd = MeanVarOf<T, R, MV_STD | MV_SKIP>;

// One vector into a state (packed.cuh's rows of one vector): shifted sums
// from its first element, as a thread's loop, instead of a Chan merge (two
// float64 divisions) per element.
template <class T, class R, int KIND> struct VecStep<MeanVarOf<T, R, KIND> > {
    template <class TT, class A>
    __device__ static __forceinline__ MeanVarState step(MeanVarState acc, uint4 v, u64, MeanVarOf<T, R, KIND>)
    {
        typedef MeanVarOf<T, R, KIND> Op;
        const double k = widen<double>(reinterpret_cast<const T *>(&v)[0]);
        ShiftedSums<T, Op::KIND_M2, Op::COMP, Op::S2C, Op::SKIP> vis = {stats_finite(k) ? k : 0.0, 0.0, 0.0, 0.0, 0.0, 0u};
        vis.vec(v, 0, 0);
        return mv_merge(acc, vis.state());
    }
};

template <class T, class R, int KIND> struct ThreadLoop<MeanVarOf<T, R, KIND> > {
    template <class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank, size_t size, MeanVarOf<T, R, KIND>)
    {
        // k: the first element thread_visit gives this thread, loaded apart
        // (its latency overlaps the loop's first loads).
        typedef MeanVarOf<T, R, KIND> Op;
        ShiftedSums<T, Op::KIND_M2, Op::COMP, Op::S2C, Op::SKIP> vis = {
            Op::SKIP ? 0.0 : stats_shift(in, n, stats_first_index(in, n, rank)), 0.0, 0.0, 0.0, 0.0, 0u};
        Source1<T> src = {in};
        thread_visit<T, UNROLL, LoadLdg>(src, n, rank, size, vis);
        return vis.state();
    }
};

// The end of many partials at once (the whole-array kernel's last block,
// CombinePartials below; tests/stats_emu_kernels.cc): their counts and
// double-double sums added by AddMeanSums, then each partial's mv_term, its
// m2 plus n_p (mean_p - mean)^2 about the total's mean: the terms the
// pairwise merges add, each rounded once.
struct AddMeanSums {
    __device__ static MeanVarState identity()
    {
        MeanVarState s = {0.0, 0.0, 0.0, 0.0};
        return s;
    }
    __device__ MeanVarState operator()(MeanVarState a, MeanVarState b) const
    {
        MeanVarState r;
        double e;
        r.n = a.n + b.n;
        r.hi = two_sum(a.hi, b.hi, e);
        r.lo = stats_finite(r.hi) ? (a.lo + b.lo) + e : 0.0; // inf + inf: inf, not NaN (mv_merge)
        r.m2 = 0.0;
        return r;
    }
};
// p (p.n > 0) against the total t (renormalised): mv_merge's term, exact products.
__device__ __forceinline__ double mv_term(MeanVarState t, MeanVarState p)
{
    return p.m2 + mv_chan(t, p, t.n);
}

// How the statistics kernel (stats.cu) runs an operator. MIN_BLOCKS, the
// blocks per SM to keep resident: 4 (64 registers) for the shifted-sum
// moments: their loop would fit 32 registers (8 blocks), but the last
// block's end then spills, and the end of 1056 partials takes longer than
// that of 528 (bench/NOTES.md, Statistics). Others keep no minimum (0).
// END_PER, the partials each thread of the last block holds
// (CombinePartials below): 4, all of up to 1024 blocks in one trip, for
// LOGSUMEXP and the moments without COMP (float32 results, and the float64
// results of the exact types); 1 (the pairwise tree) for the COMP moments,
// whose loop is bound by float64 work and would lose half its blocks an SM
// to the 72 registers of the end.
template <class Op> struct StatsTuning { enum { MIN_BLOCKS = 0, END_PER = 1 }; };
template <class T, class R, int KIND> struct StatsTuning<MeanVarOf<T, R, KIND> > {
    enum { MIN_BLOCKS = MeanVarOf<T, R, KIND>::OWN_SHIFT ? 0 : 4, END_PER = MeanVarOf<T, R, KIND>::COMP ? 1 : 4 };
};
template <class T, class P, class R> struct StatsTuning<LogSumExp<T, P, R> > { enum { MIN_BLOCKS = 0, END_PER = 4 }; };

// The kernel's ddof parameter: only the moments use it.
template <class Op> __device__ __forceinline__ void bind_ddof(Op &, double) {}
template <class T, class R, int KIND> __device__ __forceinline__ void bind_ddof(MeanVarOf<T, R, KIND> &op, double d)
{
    op.ddof = d;
}
template <class Op, class A, bool RAW> struct StatsTuning<Record<Op, A, RAW> > : StatsTuning<Op> {};
template <class Op, class A, bool RAW> __device__ __forceinline__ void bind_ddof(Record<Op, A, RAW> &op, double d)
{
    bind_ddof(static_cast<Op &>(op), d);
}

#include "stats_columns.cuh"
#include "stats_blocks.cuh"

#endif
