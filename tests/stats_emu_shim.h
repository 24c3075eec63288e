// test-stats-emu's host shim: kernels-src/stats.cuh and what it includes,
// compiled for the CPU. The library's own headers are used wherever their
// code is C++: stats.cuh, logsumexp.cuh, stats_columns.cuh and
// stats_blocks.cuh (the statistics, which the emulation runs), and state.cuh,
// grid.cuh, block.cuh, words.cuh and abi.h (the GPU's ends and records:
// parsed, never run). This file stands in for the rest:
// - the CUDA compiler's keywords and built-ins: declared, defined only where
//   the emulation runs them;
// - types.cuh, whose half conversions are inline PTX: the element types,
//   conversions and limits the statistics take;
// - visit.cuh: the 16-byte loop (thread_visit) in the host's form;
// - common.cuh, arg.cuh, ops.cuh and sums8.cuh: the MIN, MAX, ARG and sum
//   pieces, which the statistics do not take; declared only are the
//   templates that the headers above specialise or call.
// Differences from the GPU: the host's expf and exp (correctly rounded, not
// CUDA's) and no fused multiply-adds but the explicit fma() calls.
#ifndef CURED_TESTS_STATS_EMU_SHIM_H
#define CURED_TESTS_STATS_EMU_SHIM_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

// ---- the CUDA compiler's keywords and built-ins --------------------------------
#define __device__
#define __forceinline__ inline
#define __shared__ static
struct emu_dim3 {
    unsigned x, y, z;
};
extern const emu_dim3 threadIdx, blockIdx, blockDim, gridDim;
void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);
void __threadfence();
template <class T> T __shfl_down_sync(unsigned mask, T v, int delta, int width = 32);
template <class T> T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32);
template <class T> T atomicAdd(T *p, T v);
template <class T> T atomicExch(T *p, T v);
template <class T> T __ldcg(const T *p);
static inline double __longlong_as_double(long long v)
{
    double d;
    std::memcpy(&d, &v, 8);
    return d;
}
static inline float __int_as_float(int v)
{
    float f;
    std::memcpy(&f, &v, 4);
    return f;
}
static inline long long __double_as_longlong(double d)
{
    long long v;
    std::memcpy(&v, &d, 8);
    return v;
}
static inline float __fdividef(float a, float b) { return a / b; }
using std::exp;
using std::fabs;
using std::fma;
using std::fmax;
using std::fmaxf;
using std::log;
using std::sqrt;

// ---- types.cuh -------------------------------------------------------------------
#define CURED_TYPES_CUH
template <bool C, class A, class B> struct select_type { typedef A type; };
template <class A, class B> struct select_type<false, A, B> { typedef B type; };
typedef unsigned long long u64;
struct uint4 {
    unsigned x, y, z, w;
};
struct half_t {
    unsigned short bits;
};
struct bf16_t {
    unsigned short bits;
};
static inline float from_half(unsigned short h)
{
    const unsigned e = (h >> 10) & 31, m = h & 1023;
    const float v = e == 0 ? std::ldexp((float)m, -24)
                    : e == 31 ? (m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity())
                              : std::ldexp((float)(m | 1024), (int)e - 25);
    return h & 0x8000 ? -v : v;
}
static inline float from_bf16(unsigned short b)
{
    const unsigned u = (unsigned)b << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
template <class A, class T> inline A widen(T x) { return (A)x; }
template <> inline float widen<float, half_t>(half_t x) { return from_half(x.bits); }
template <> inline double widen<double, half_t>(half_t x) { return from_half(x.bits); }
template <> inline float widen<float, bf16_t>(bf16_t x) { return from_bf16(x.bits); }
template <> inline double widen<double, bf16_t>(bf16_t x) { return from_bf16(x.bits); }
template <class A> struct limits {
    static A lowest() { return -std::numeric_limits<A>::infinity(); }
    static A highest() { return std::numeric_limits<A>::infinity(); }
};

// ---- visit.cuh -------------------------------------------------------------------
#define CURED_VISIT_CUH
struct LoadLdg {
    static uint4 load(const uint4 *p)
    {
        uint4 v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
};
template <class T> inline size_t vec_head(const T *in, size_t n)
{
    const size_t mis = (size_t)(reinterpret_cast<u64>(in) & 15) / sizeof(T), head = mis ? 16 / sizeof(T) - mis : 0;
    return head > n ? n : head;
}
template <class T> struct Source1 {
    typedef uint4 Vec;
    const T *x;
    size_t head(size_t n) const { return vec_head(x, n); }
    template <class Load> Vec load(size_t head, size_t v) const
    {
        return Load::load(reinterpret_cast<const uint4 *>(x + head) + v);
    }
    T elem(size_t i) const { return x[i]; }
};
// thread_visit for a vectorizable source, with the head first.
template <class T, int UNROLL, class Load, class Src, class Visitor>
inline void thread_visit(const Src &src, size_t n, size_t rank, size_t size, Visitor &vis)
{
    const int VEC = 16 / sizeof(T);
    const size_t head = src.head(n), nvec = (n - head) / VEC;
    if (rank < head)
        vis.elem(src.elem(rank), rank);
    size_t i = rank;
    for (; i + (UNROLL - 1) * size < nvec; i += UNROLL * size) {
        typename Src::Vec v[UNROLL];
        for (int u = 0; u < UNROLL; u++)
            v[u] = src.template load<Load>(head, i + u * size);
        for (int u = 0; u < UNROLL; u++)
            vis.vec(v[u], head + (i + u * size) * VEC, 0);
    }
    for (; i < nvec; i += size)
        vis.vec(src.template load<Load>(head, i), head + i * VEC, 0);
    const size_t tail = head + nvec * VEC;
    if (rank < n - tail)
        vis.elem(src.elem(tail + rank), tail + rank);
}

// ---- common.cuh, arg.cuh, ops.cuh, sums8.cuh -----------------------------------------
#define CURED_COMMON_CUH
#define CURED_ARG_CUH
template <class Op> struct ThreadLoop;
template <class Op> struct VecStep;
template <class Op, class T> void bind_input(Op &op, const T *in);
template <class Op, class T, class A> struct ColumnAcc1;
template <class Op, class T, class A, int VEC> struct ColumnAcc;

// ---- the library's own ---------------------------------------------------------------
#include "grid.cuh"
#include "state.cuh"
#include "stats.cuh"

#endif
