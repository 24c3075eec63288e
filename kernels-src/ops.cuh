// Reduction operators. Each is a functor over element type T with
// accumulator A and result type R:
//   identity()        the neutral value;
//   map(x, i)         what element x at index i contributes;
//   operator()(a, b)  combine two partials (associative);
//   write(out, a, n)  store the result (n == 0: what a reduction of nothing gives).
// Integer arithmetic goes through unsigned types so that it wraps by
// definition; narrowing to a smaller result type then equals the sum or
// product modulo 2^bits of that type.
#ifndef CURED_OPS_CUH
#define CURED_OPS_CUH

#include "types.cuh"

template <class A> __device__ __forceinline__ A wrap_add(A a, A b) { return a + b; }
template <> __device__ __forceinline__ int wrap_add<int>(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
template <> __device__ __forceinline__ long long wrap_add<long long>(long long a, long long b)
{
    return (long long)((u64)a + (u64)b);
}
template <class A> __device__ __forceinline__ A wrap_mul(A a, A b) { return a * b; }
template <> __device__ __forceinline__ int wrap_mul<int>(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
template <> __device__ __forceinline__ long long wrap_mul<long long>(long long a, long long b)
{
    return (long long)((u64)a * (u64)b);
}

template <class A> __device__ __forceinline__ A abs_value(A a) { return a < A(0) ? A(0) - a : a; }
template <> __device__ __forceinline__ int abs_value<int>(int a) { return a < 0 ? (int)(0u - (unsigned)a) : a; }
template <> __device__ __forceinline__ long long abs_value<long long>(long long a)
{
    return a < 0 ? (long long)(0ull - (u64)a) : a;
}
template <> __device__ __forceinline__ float abs_value<float>(float a) { return fabsf(a); }
template <> __device__ __forceinline__ double abs_value<double>(double a) { return fabs(a); }

template <class T, class A, class R> struct Sum {
    __device__ static A identity() { return A(0); }
    __device__ A map(T x, u64) const { return widen<A>(x); }
    __device__ A operator()(A a, A b) const { return wrap_add(a, b); }
    __device__ void write(void *out, A a, u64) const { *(R *)out = narrow<R>(a); }
};

template <class T, class A, class R> struct Prod {
    __device__ static A identity() { return A(1); }
    __device__ A map(T x, u64) const { return widen<A>(x); }
    __device__ A operator()(A a, A b) const { return wrap_mul(a, b); }
    __device__ void write(void *out, A a, u64) const { *(R *)out = narrow<R>(a); }
};

template <class T, class A, class R> struct SumSquares : Sum<T, A, R> {
    __device__ A map(T x, u64) const { A v = widen<A>(x); return wrap_mul(v, v); }
};

template <class T, class A, class R> struct SumAbs : Sum<T, A, R> {
    __device__ A map(T x, u64) const { return abs_value(widen<A>(x)); }
};

template <class T, class A, class R> struct Norm2 : SumSquares<T, A, R> {
    __device__ void write(void *out, A a, u64) const { *(R *)out = (R)sqrt(a); }
};

// Dot product: the two-input kernel calls map2.
template <class T, class A, class R> struct Dot : Sum<T, A, R> {
    __device__ A map2(T x, T y, u64) const { return wrap_mul(widen<A>(x), widen<A>(y)); }
};

// Bitwise operators; A is the unsigned type of the element's width or wider.
template <class T, class A, class R> struct BitAnd {
    __device__ static A identity() { return ~A(0); }
    __device__ A map(T x, u64) const { return (A)x; }
    __device__ A operator()(A a, A b) const { return a & b; }
    __device__ void write(void *out, A a, u64) const { *(R *)out = (R)a; }
};
template <class T, class A, class R> struct BitOr : BitAnd<T, A, R> {
    __device__ static A identity() { return A(0); }
    __device__ A operator()(A a, A b) const { return a | b; }
};
template <class T, class A, class R> struct BitXor : BitAnd<T, A, R> {
    __device__ static A identity() { return A(0); }
    __device__ A operator()(A a, A b) const { return a ^ b; }
};

// min and max. NaN propagates (like NumPy's min); with IGNORE_NAN a NaN loses
// to any number (like nanmin), and the identity is NaN so that an all-NaN
// input gives NaN, which the host reports as an error.
template <class A, bool MAX, bool IGNORE_NAN> __device__ __forceinline__ A pick(A a, A b)
{
    if (is_nan(a))
        return IGNORE_NAN ? b : a;
    if (is_nan(b))
        return IGNORE_NAN ? a : b;
    return MAX ? (b > a ? b : a) : (b < a ? b : a);
}

template <class T, class A, class R, bool MAX, bool IGNORE_NAN> struct MinMaxOf {
    __device__ static A empty() { return MAX ? (A)elem_limits<T>::lowest() : (A)elem_limits<T>::highest(); }
    __device__ static A identity() { return IGNORE_NAN ? quiet_nan_or<A>(empty()) : empty(); }
    __device__ A map(T x, u64) const { return widen<A>(x); }
    __device__ A operator()(A a, A b) const { return pick<A, MAX, IGNORE_NAN>(a, b); }
    __device__ void write(void *out, A a, u64 n) const { *(R *)out = narrow<R>(n ? a : empty()); }
};
template <class T, class A, class R> struct Min : MinMaxOf<T, A, R, false, false> {};
template <class T, class A, class R> struct Max : MinMaxOf<T, A, R, true, false> {};
template <class T, class A, class R> struct NanMin : MinMaxOf<T, A, R, false, true> {};
template <class T, class A, class R> struct NanMax : MinMaxOf<T, A, R, true, true> {};

// Both extremes in one pass; NaN propagates to both. The output is R[2].
template <class V> struct Pair { V lo, hi; };
template <class T, class V, class R> struct MinMax {
    __device__ static Pair<V> identity()
    {
        Pair<V> p = {(V)elem_limits<T>::highest(), (V)elem_limits<T>::lowest()};
        return p;
    }
    __device__ Pair<V> map(T x, u64) const { V v = widen<V>(x); Pair<V> p = {v, v}; return p; }
    __device__ Pair<V> operator()(Pair<V> a, Pair<V> b) const
    {
        Pair<V> p = {pick<V, false, false>(a.lo, b.lo), pick<V, true, false>(a.hi, b.hi)};
        return p;
    }
    __device__ void write(void *out, Pair<V> a, u64) const
    {
        ((R *)out)[0] = narrow<R>(a.lo);
        ((R *)out)[1] = narrow<R>(a.hi);
    }
};

// argmin/argmax: value and index; ties and NaNs go to the first index. The
// output is { int64 index; R value at byte offset 8 }. With IGNORE_NAN an
// all-NaN input leaves the identity, whose index is written as -1.
template <class V> struct Arg { V v; long long i; };
#define CURED_NO_INDEX 9223372036854775807ll
template <class T, class V, class R, bool MAX, bool IGNORE_NAN> struct ArgOf {
    __device__ static Arg<V> identity()
    {
        Arg<V> a = {MAX ? (V)elem_limits<T>::lowest() : (V)elem_limits<T>::highest(), CURED_NO_INDEX};
        return a;
    }
    __device__ Arg<V> map(T x, u64 i) const
    {
        Arg<V> a = {widen<V>(x), (long long)i};
        if (IGNORE_NAN && is_nan(a.v))
            return identity();
        return a;
    }
    __device__ Arg<V> operator()(Arg<V> a, Arg<V> b) const
    {
        bool an = is_nan(a.v), bn = is_nan(b.v);
        if (an || bn) { // only reachable without IGNORE_NAN: the first NaN wins
            if (an && bn)
                return a.i <= b.i ? a : b;
            return an ? a : b;
        }
        if (MAX ? b.v > a.v : b.v < a.v)
            return b;
        if (a.v == b.v && b.i < a.i)
            return b;
        return a;
    }
    __device__ void write(void *out, Arg<V> a, u64) const
    {
        *(long long *)out = a.i == CURED_NO_INDEX ? -1ll : a.i;
        *(R *)((char *)out + 8) = narrow<R>(a.v);
    }
};
template <class T, class V, class R> struct ArgMin : ArgOf<T, V, R, false, false> {};
template <class T, class V, class R> struct ArgMax : ArgOf<T, V, R, true, false> {};
template <class T, class V, class R> struct NanArgMin : ArgOf<T, V, R, false, true> {};
template <class T, class V, class R> struct NanArgMax : ArgOf<T, V, R, true, true> {};

// Shuffles for the accumulator types that are structs.
template <class V> __device__ __forceinline__ Pair<V> shfl_down(Pair<V> p, int off)
{
    p.lo = __shfl_down_sync(0xffffffffu, p.lo, off);
    p.hi = __shfl_down_sync(0xffffffffu, p.hi, off);
    return p;
}
template <class V> __device__ __forceinline__ Arg<V> shfl_down(Arg<V> a, int off)
{
    a.v = __shfl_down_sync(0xffffffffu, a.v, off);
    a.i = __shfl_down_sync(0xffffffffu, a.i, off);
    return a;
}
template <class A> __device__ __forceinline__ A shfl_down(A v, int off)
{
    return __shfl_down_sync(0xffffffffu, v, off);
}

#endif
