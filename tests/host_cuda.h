// What the CPU emulations of kernel code share (stats_emu_shim.h,
// exact_emu.cc, exact_kernel_shim.h): the CUDA keywords that mean nothing on
// the host, the bit-cast and integer built-ins with their exact host
// meanings, and the part of types.cuh that the kernels' arithmetic takes
// (types.cuh itself converts float16 with inline PTX): the element types,
// their widening to float (exact) and select_type. Each emulation adds the
// built-ins that differ between them (threads, shared memory, atomics).
#ifndef CURED_TESTS_HOST_CUDA_H
#define CURED_TESTS_HOST_CUDA_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

// ---- the CUDA compiler's keywords and bit-level built-ins -----------------------
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    std::memcpy(&u, &f, 4);
    return u;
}
static inline float __uint_as_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
static inline float __int_as_float(int i) { return __uint_as_float((unsigned)i); }
static inline long long __double_as_longlong(double d)
{
    long long v;
    std::memcpy(&v, &d, 8);
    return v;
}
static inline double __longlong_as_double(long long v)
{
    double d;
    std::memcpy(&d, &v, 8);
    return d;
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
// Rounded double arithmetic that the GPU never fuses into an fma (x86-64 without -mfma does not either).
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }

// ---- types.cuh -------------------------------------------------------------------
#define CURED_TYPES_CUH
typedef unsigned long long u64;
template <bool C, class A, class B> struct select_type { typedef A type; };
template <class A, class B> struct select_type<false, A, B> { typedef B type; };
struct uint4 {
    unsigned x, y, z, w;
};
struct uint2 {
    unsigned x, y;
};
struct half_t {
    unsigned short bits;
};
struct bf16_t {
    unsigned short bits;
};
// float16 and bfloat16 patterns as float (exact; NaNs become the quiet NaN).
static inline float from_half(unsigned h)
{
    const unsigned e = (h >> 10) & 31u, m = h & 1023u;
    const float v = e == 0 ? std::ldexp((float)m, -24)
                    : e == 31 ? (m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity())
                              : std::ldexp((float)(m | 1024u), (int)e - 25);
    return h & 0x8000u ? -v : v;
}
static inline float from_bf16(unsigned b) { return __uint_as_float(b << 16); }
static inline float to_float(half_t h) { return from_half(h.bits); }
static inline float to_float(bf16_t b) { return from_bf16(b.bits); }
template <class A, class T> inline A widen(T x) { return (A)x; }
template <> inline float widen<float, half_t>(half_t x) { return from_half(x.bits); }
template <> inline double widen<double, half_t>(half_t x) { return from_half(x.bits); }
template <> inline float widen<float, bf16_t>(bf16_t x) { return from_bf16(x.bits); }
template <> inline double widen<double, bf16_t>(bf16_t x) { return from_bf16(x.bits); }

#endif
