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

#include "keys.cuh"

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
// Aliases rather than derived structs, so that common.cuh can specialize
// its per-vector step for the whole family.
template <class T, class A, class R> using Min = MinMaxOf<T, A, R, false, false>;
template <class T, class A, class R> using Max = MinMaxOf<T, A, R, true, false>;
template <class T, class A, class R> using NanMin = MinMaxOf<T, A, R, false, true>;
template <class T, class A, class R> using NanMax = MinMaxOf<T, A, R, true, true>;

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

// An operator over the elements that are not NaN (NANSUM): a NaN maps to the
// base's identity, so every loop, end and state record is the base's. A is
// float or double for the floating types (integers run the base itself,
// src/ops.c's cr_op_for_type).
template <template <class, class, class> class Base, class T, class A, class R> struct SkipNaN : Base<T, A, R> {
    __device__ A map(T x, u64 i) const { return is_nan(widen<A>(x)) ? Base<T, A, R>::identity() : Base<T, A, R>::map(x, i); }
};
template <class T, class A, class R> using NanSum = SkipNaN<Sum, T, A, R>;

// Number of nonzero elements, as numpy.count_nonzero: NaN counts, -0 does not.
template <class T> __device__ __forceinline__ bool nonzero(T x) { return x != T(0); }
template <> __device__ __forceinline__ bool nonzero<half_t>(half_t x) { return (x.bits & 0x7fff) != 0; }
template <> __device__ __forceinline__ bool nonzero<bf16_t>(bf16_t x) { return (x.bits & 0x7fff) != 0; }
template <class T, class A, class R> struct CountNonzero : Sum<T, A, R> {
    __device__ A map(T x, u64) const { return nonzero(x) ? A(1) : A(0); }
};

// argmin/argmax compare integer keys K (order_key, keys.cuh) that order
// the elements as their values do. The value is read back from the input at
// the winning index when the result is written, so it is the element, bit
// for bit.
// The output is { int64 index; R value at byte offset 8 }. Ties and NaNs go
// to the first index. With IGNORE_NAN an all-NaN input ends on the NaN key,
// and its index is written as -1; so is an empty segment's, with a zero value.
template <class K> struct Arg { K k; long long i; };
#define CURED_NO_INDEX 9223372036854775807ll
template <class T, class K, class R, bool MAX, bool IGNORE_NAN> struct ArgOf {
    const T *in; // set by the kernel (bind_input): write() reads the winner back
    __device__ static K nan_key()
    {
        // The winning extreme for a propagating NaN, the losing one otherwise.
        return MAX != IGNORE_NAN ? limits<K>::highest() : limits<K>::lowest();
    }
    __device__ static bool better(K a, K b) { return MAX ? a > b : a < b; }
    __device__ static Arg<K> identity()
    {
        Arg<K> a = {K(0), CURED_NO_INDEX}; // any key: no index loses every combine
        return a;
    }
    __device__ K key(T x) const { return order_key<K>(x, nan_key()); }
    __device__ Arg<K> map(T x, u64 i) const
    {
        Arg<K> a = {key(x), (long long)i};
        return a;
    }
    __device__ Arg<K> operator()(Arg<K> a, Arg<K> b) const
    {
        if (b.i == CURED_NO_INDEX)
            return a;
        if (a.i == CURED_NO_INDEX)
            return b;
        return better(b.k, a.k) || (b.k == a.k && b.i < a.i) ? b : a;
    }
    __device__ void write(void *out, Arg<K> a, u64 n) const
    {
        if (n == 0) { // an empty segment: index -1 and a zero value
            *(long long *)out = -1ll;
            *(R *)((char *)out + 8) = R();
            return;
        }
        bool none = a.i == CURED_NO_INDEX || (IGNORE_NAN && a.k == nan_key());
        *(long long *)out = none ? -1ll : a.i;
        *(R *)((char *)out + 8) = in[none ? 0 : a.i]; // all NaN: a NaN of the input
    }
};
template <class T, class K, class R> using ArgMin = ArgOf<T, K, R, false, false>;
template <class T, class K, class R> using ArgMax = ArgOf<T, K, R, true, false>;
template <class T, class K, class R> using NanArgMin = ArgOf<T, K, R, false, true>;
template <class T, class K, class R> using NanArgMax = ArgOf<T, K, R, true, true>;

// Operators that read the input again when they write (ArgOf) get its address.
template <class Op, class T> __device__ __forceinline__ void bind_input(Op &, const T *) {}
template <class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void bind_input(ArgOf<T, K, R, MAX, IGN> &op, const T *in)
{
    op.in = in;
}

#endif
