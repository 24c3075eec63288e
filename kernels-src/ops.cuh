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

// argmin/argmax compare integer keys K that order the elements as their
// values do: integers are their own keys; a float's key is its magnitude bits
// with its sign (so -0 and +0 tie, as IEEE says), and every NaN gets the one
// key that wins (NaN propagates) or loses (NAN* operators) against all
// numbers. Integer compares need no conversion of 16-bit floats and no NaN
// tests per element. The value is read back from the input at the winning
// index when the result is written, so it is the element, bit for bit.
template <class K> __device__ __forceinline__ K order_key(signed char x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(unsigned char x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(short x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(unsigned short x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(int x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(unsigned x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(long long x, K) { return (K)x; }
template <class K> __device__ __forceinline__ K order_key(u64 x, K) { return (K)x; }
// sign * magnitude from sign-extended bits b whose magnitude is m
template <class K> __device__ __forceinline__ K signed_magnitude(K b, K m) { K s = b < 0 ? K(-1) : K(0); return (m ^ s) - s; }
template <class K> __device__ __forceinline__ K order_key(half_t x, K nan_key)
{
    int m = x.bits & 0x7fff;
    return m > 0x7c00 ? nan_key : signed_magnitude<int>((short)x.bits, m);
}
template <class K> __device__ __forceinline__ K order_key(bf16_t x, K nan_key)
{
    int m = x.bits & 0x7fff;
    return m > 0x7f80 ? nan_key : signed_magnitude<int>((short)x.bits, m);
}
template <class K> __device__ __forceinline__ K order_key(float x, K nan_key)
{
    int b = __float_as_int(x), m = b & 0x7fffffff;
    return m > 0x7f800000 ? nan_key : signed_magnitude<int>(b, m);
}
template <class K> __device__ __forceinline__ K order_key(double x, K nan_key)
{
    long long b = __double_as_longlong(x), m = b & 0x7fffffffffffffffll;
    return m > 0x7ff0000000000000ll ? nan_key : signed_magnitude<long long>(b, m);
}

// The output is { int64 index; R value at byte offset 8 }. Ties and NaNs go
// to the first index. With IGNORE_NAN an all-NaN input ends on the NaN key,
// and its index is written as -1.
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
    __device__ void write(void *out, Arg<K> a, u64) const
    {
        bool none = a.i == CURED_NO_INDEX || (IGNORE_NAN && a.k == nan_key());
        *(long long *)out = none ? -1ll : a.i;
        *(R *)((char *)out + 8) = in[none ? 0 : a.i]; // all NaN: a NaN of the input
    }
};
template <class T, class K, class R> using ArgMin = ArgOf<T, K, R, false, false>;
template <class T, class K, class R> using ArgMax = ArgOf<T, K, R, true, false>;
template <class T, class K, class R> using NanArgMin = ArgOf<T, K, R, false, true>;
template <class T, class K, class R> using NanArgMax = ArgOf<T, K, R, true, true>;

// The end of a float or double MIN/MAX (NAN* too) over integer keys: one
// integer min or max per combine instead of pick()'s compare and two NaN
// tests (0.6-0.9 us at 64Mi on the H200, bench/NOTES.md v4d). Unlike ARG's
// order keys (-0 ties +0), a negative value's key is ~magnitude, so -0 (key
// -1) stays apart from +0 (key 0) and MIN of {-0, 1} stays -0. A NaN result
// comes back as the quiet NaN.
__device__ __forceinline__ int minmax_key(float x, int nan_key)
{
    int b = __float_as_int(x), m = b & 0x7fffffff;
    return m > 0x7f800000 ? nan_key : b < 0 ? ~m : m;
}
__device__ __forceinline__ long long minmax_key(double x, long long nan_key)
{
    long long b = __double_as_longlong(x), m = b & 0x7fffffffffffffffll;
    return m > 0x7ff0000000000000ll ? nan_key : b < 0 ? ~m : m;
}
__device__ __forceinline__ float from_minmax_key(int k, int nan_key)
{
    if (k == nan_key)
        return __int_as_float(0x7fc00000);
    return __int_as_float(k < 0 ? (int)(0x80000000u | (unsigned)~k) : k);
}
__device__ __forceinline__ double from_minmax_key(long long k, long long nan_key)
{
    if (k == nan_key)
        return __longlong_as_double(0x7ff8000000000000ll);
    return __longlong_as_double(k < 0 ? (long long)(0x8000000000000000ull | (u64)~k) : k);
}
template <class T, class A, class R, bool MAX, bool IGNORE_NAN, class K> struct KeyedMinMax {
    MinMaxOf<T, A, R, MAX, IGNORE_NAN> op;
    // NaN wins when it propagates, loses with IGNORE_NAN (as ArgOf::nan_key)
    __device__ static K nan_key() { return MAX != IGNORE_NAN ? limits<K>::highest() : limits<K>::lowest(); }
    __device__ static K identity() { return MAX ? limits<K>::lowest() : limits<K>::highest(); }
    __device__ static K key(A a) { return minmax_key(a, nan_key()); }
    __device__ K operator()(K a, K b) const { return MAX ? (b > a ? b : a) : (b < a ? b : a); }
    __device__ void write(void *out, K k, u64 n) const { op.write(out, from_minmax_key(k, nan_key()), n); }
};

// The end of an ARG reduction as NW unsigned 32-bit words, most significant
// first, whose lexicographic order is the operator's: the key's rank (one
// word for 32-bit keys, two for 64-bit ones), then the index (one word when
// n <= 2^32 - 1, else two). All ones is "no element" (no index reaches it).
// Blocks and the grid take the minimum word by word: on sm_80 and newer one
// redux.sync per word per warp (warp_reduce, common.cuh) instead of five shuffle
// steps of a (key, int64 index) compare.
template <int NW> struct Lex { unsigned w[NW]; };
// Unsigned order of integer keys (signed keys: the sign bit flipped),
// reversed for MAX; its own inverse.
template <class K, bool MAX> __device__ __forceinline__ u64 key_rank(K k)
{
    const u64 mask = sizeof(K) == 4 ? 0xffffffffull : ~0ull;
    const u64 sign = limits<K>::lowest() != K(0) ? 1ull << (8 * sizeof(K) - 1) : 0ull;
    const u64 r = ((u64)k & mask) ^ sign;
    return MAX ? ~r & mask : r;
}
template <class T, class K, class R, bool MAX, bool IGNORE_NAN, int NW> struct ArgLex {
    ArgOf<T, K, R, MAX, IGNORE_NAN> op;
    static const int KW = sizeof(K) / 4, IW = NW - KW; // words of key rank and index
    __device__ static u64 rank(K k) { return key_rank<K, MAX>(k); }
    __device__ static K key(u64 r) { return (K)rank((K)r); }
    __device__ static Lex<NW> identity()
    {
        Lex<NW> x;
#pragma unroll
        for (int j = 0; j < NW; j++)
            x.w[j] = 0xffffffffu;
        return x;
    }
    __device__ static Lex<NW> pack(Arg<K> a)
    {
        if (a.i == CURED_NO_INDEX)
            return identity();
        Lex<NW> x;
        const u64 r = rank(a.k);
        if (KW == 2)
            x.w[0] = (unsigned)(r >> 32);
        x.w[KW - 1] = (unsigned)r;
        if (IW == 2)
            x.w[KW] = (unsigned)((u64)a.i >> 32);
        x.w[NW - 1] = (unsigned)a.i;
        return x;
    }
    __device__ Lex<NW> operator()(Lex<NW> a, Lex<NW> b) const
    {
        bool less = false, tied = true; // b < a
#pragma unroll
        for (int j = 0; j < NW; j++) {
            less = less || (tied && b.w[j] < a.w[j]);
            tied = tied && b.w[j] == a.w[j];
        }
        return less ? b : a;
    }
    __device__ void write(void *out, Lex<NW> x, u64 n) const
    {
        u64 r = KW == 2 ? (u64)x.w[0] << 32 | x.w[1] : x.w[0];
        u64 i = IW == 2 ? (u64)x.w[KW] << 32 | x.w[NW - 1] : x.w[KW];
        bool none = IW == 2 ? i == ~0ull : i == 0xffffffffull;
        Arg<K> a = {key(r), none ? CURED_NO_INDEX : (long long)i};
        op.write(out, a, n);
    }
};

// Operators that read the input again when they write (ArgOf) get its address.
template <class Op, class T> __device__ __forceinline__ void bind_input(Op &, const T *) {}
template <class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void bind_input(ArgOf<T, K, R, MAX, IGN> &op, const T *in)
{
    op.in = in;
}

// Shuffles for the accumulator types that are structs.
template <class V> __device__ __forceinline__ Pair<V> shfl_down(Pair<V> p, int off)
{
    p.lo = __shfl_down_sync(0xffffffffu, p.lo, off);
    p.hi = __shfl_down_sync(0xffffffffu, p.hi, off);
    return p;
}
template <class K> __device__ __forceinline__ Arg<K> shfl_down(Arg<K> a, int off)
{
    a.k = __shfl_down_sync(0xffffffffu, a.k, off);
    a.i = __shfl_down_sync(0xffffffffu, a.i, off);
    return a;
}
template <int NW> __device__ __forceinline__ Lex<NW> shfl_down(Lex<NW> x, int off)
{
#pragma unroll
    for (int j = 0; j < NW; j++)
        x.w[j] = __shfl_down_sync(0xffffffffu, x.w[j], off);
    return x;
}
template <class A> __device__ __forceinline__ A shfl_down(A v, int off)
{
    return __shfl_down_sync(0xffffffffu, v, off);
}

#endif
