// Integer keys that order elements as their values do, so that ends and
// per-vector searches compare integers instead of floats and NaN tests.
// The three maps, side by side:
//
//   map          used by                       -0 and +0         NaN
//   order_key    ARG loops (every element)      one key (tie)     nan_key: wins when NaN
//                                                                 propagates, loses (NAN*)
//   minmax_key   float/double MIN/MAX ends      -0 (key -1) < +0  nan_key, as order_key;
//                                               (key 0)           read back as the quiet NaN
//   key_rank     ARG word ends (ArgLex), the    (integer keys     (integer keys only)
//                double MIN/MAX warp end        only)
//
// order_key lets -0 tie +0 because ARG reports the first of equal values,
// and IEEE calls them equal; minmax_key keeps them apart so that MIN of
// {-0, 1} stays -0 (cured.h leaves only a tie of -0 and +0 unspecified).
// key_rank turns a signed or unsigned integer key into unsigned order
// (reversed for MAX), so a lexicographic word minimum is the operator's best.
#ifndef CURED_KEYS_CUH
#define CURED_KEYS_CUH

#include "types.cuh"

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

// A negative value's key is ~magnitude: -0 is -1, +0 is 0.
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

// Unsigned order of integer keys (signed keys: the sign bit flipped),
// reversed for MAX; its own inverse.
template <class K, bool MAX> __device__ __forceinline__ u64 key_rank(K k)
{
    const u64 mask = sizeof(K) == 4 ? 0xffffffffull : ~0ull;
    const u64 sign = limits<K>::lowest() != K(0) ? 1ull << (8 * sizeof(K) - 1) : 0ull;
    const u64 r = ((u64)k & mask) ^ sign;
    return MAX ? ~r & mask : r;
}

#endif
