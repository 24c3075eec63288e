// Element types the kernels read, and their conversions. Half types are our
// own bit-level structs so that the default path needs no toolkit headers
// (cuda_fp16.h would need a CUDA toolkit at run time).
#ifndef CURED_TYPES_CUH
#define CURED_TYPES_CUH

typedef unsigned long long u64;

// select_type<C, A, B>::type is A when C, else B (no <type_traits> here).
template <bool C, class A, class B> struct select_type { typedef A type; };
template <class A, class B> struct select_type<false, A, B> { typedef B type; };

struct half_t { unsigned short bits; };
struct bf16_t { unsigned short bits; };

__device__ __forceinline__ float to_float(half_t h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
}
__device__ __forceinline__ float to_float(bf16_t b) { return __uint_as_float((unsigned)b.bits << 16); }

// Round to nearest even; NaN stays NaN.
__device__ __forceinline__ half_t to_half(float f)
{
    half_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}
__device__ __forceinline__ bf16_t to_bf16(float f)
{
    unsigned u = __float_as_uint(f);
    bf16_t b;
    if ((u & 0x7fffffffu) > 0x7f800000u)
        b.bits = (unsigned short)((u >> 16) | 0x40u); // quiet NaN
    else
        b.bits = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    return b;
}

// The value an element contributes, in the accumulator's type.
template <class A, class T> __device__ __forceinline__ A widen(T x) { return (A)x; }
template <> __device__ __forceinline__ float widen<float, half_t>(half_t x) { return to_float(x); }
template <> __device__ __forceinline__ float widen<float, bf16_t>(bf16_t x) { return to_float(x); }
template <> __device__ __forceinline__ double widen<double, half_t>(half_t x) { return to_float(x); }
template <> __device__ __forceinline__ double widen<double, bf16_t>(bf16_t x) { return to_float(x); }

// The accumulator converted to the result type (integers wrap).
template <class R, class A> __device__ __forceinline__ R narrow(A a) { return (R)a; }
template <> __device__ __forceinline__ half_t narrow<half_t, float>(float a) { return to_half(a); }
template <> __device__ __forceinline__ bf16_t narrow<bf16_t, float>(float a) { return to_bf16(a); }

template <class T> __device__ __forceinline__ bool is_nan(T) { return false; }
template <> __device__ __forceinline__ bool is_nan<float>(float x) { return x != x; }
template <> __device__ __forceinline__ bool is_nan<double>(double x) { return x != x; }

// Extremes of the accumulator types, for min/max identities.
template <class A> struct limits;
template <> struct limits<int> {
    __device__ static int lowest() { return -2147483647 - 1; }
    __device__ static int highest() { return 2147483647; }
};
template <> struct limits<unsigned> {
    __device__ static unsigned lowest() { return 0u; }
    __device__ static unsigned highest() { return 0xffffffffu; }
};
template <> struct limits<long long> {
    __device__ static long long lowest() { return -9223372036854775807ll - 1; }
    __device__ static long long highest() { return 9223372036854775807ll; }
};
template <> struct limits<u64> {
    __device__ static u64 lowest() { return 0ull; }
    __device__ static u64 highest() { return ~0ull; }
};
template <> struct limits<float> {
    __device__ static float lowest() { return -__int_as_float(0x7f800000); }
    __device__ static float highest() { return __int_as_float(0x7f800000); }
};
template <> struct limits<double> {
    __device__ static double lowest() { return -__longlong_as_double(0x7ff0000000000000ll); }
    __device__ static double highest() { return __longlong_as_double(0x7ff0000000000000ll); }
};

// Extremes of the element types (half types in float), for the identities
// of min and max and for what min/max of nothing returns.
template <class T> struct elem_limits {
    __device__ static T lowest() { return limits<T>::lowest(); }
    __device__ static T highest() { return limits<T>::highest(); }
};
#define CURED_ELEM_LIMITS(T, LO, HI)                      \
    template <> struct elem_limits<T> {                   \
        __device__ static T lowest() { return LO; }       \
        __device__ static T highest() { return HI; }      \
    };
CURED_ELEM_LIMITS(signed char, -128, 127)
CURED_ELEM_LIMITS(unsigned char, 0, 255)
CURED_ELEM_LIMITS(short, -32768, 32767)
CURED_ELEM_LIMITS(unsigned short, 0, 65535)
template <> struct elem_limits<half_t> {
    __device__ static float lowest() { return limits<float>::lowest(); }
    __device__ static float highest() { return limits<float>::highest(); }
};
template <> struct elem_limits<bf16_t> {
    __device__ static float lowest() { return limits<float>::lowest(); }
    __device__ static float highest() { return limits<float>::highest(); }
};

// A quiet NaN where A has one, else fallback.
template <class A> __device__ __forceinline__ A quiet_nan_or(A fallback) { return fallback; }
template <> __device__ __forceinline__ float quiet_nan_or<float>(float) { return __int_as_float(0x7fc00000); }
template <> __device__ __forceinline__ double quiet_nan_or<double>(double)
{
    return __longlong_as_double(0x7ff8000000000000ll);
}

#endif
