// test-stats-emu's host shim: kernels-src/stats.cuh and what it includes,
// compiled for the CPU. The library's own headers are used wherever their
// code is C++: stats.cuh, logsumexp.cuh, stats_columns.cuh and
// stats_blocks.cuh (the statistics, which the emulation runs), and state.cuh,
// grid.cuh, block.cuh, words.cuh and abi.h (the GPU's ends and records:
// parsed, never run). This file stands in for the rest:
// - the CUDA compiler's keywords and built-ins: declared, defined only where
//   the emulation runs them;
// - types.cuh, whose half conversions are inline PTX: the element types and
//   conversions (host_cuda.h, shared with the exact sums' emulations) and
//   the limits the statistics take;
// - visit.cuh: the 16-byte loop (thread_visit) in the host's form;
// - common.cuh, arg.cuh, ops.cuh and sums8.cuh: the MIN, MAX, ARG and sum
//   pieces, which the statistics do not take; declared only are the
//   templates that the headers above specialise or call.
// Differences from the GPU: the host's expf and exp (correctly rounded, not
// CUDA's) and no fused multiply-adds but the explicit fma() calls.
#ifndef CURED_TESTS_STATS_EMU_SHIM_H
#define CURED_TESTS_STATS_EMU_SHIM_H

#include "host_cuda.h" // the keywords, bit casts and types.cuh's element types

// ---- the CUDA compiler's keywords and built-ins --------------------------------
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
static inline uint4 __ldg(const uint4 *p)
{
    uint4 v;
    std::memcpy(&v, p, sizeof v);
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

// ---- types.cuh: the limits the statistics take (the rest is host_cuda.h's) ---------
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
template <class Op, class T, class A, int VEC> struct ColumnAccOf;
template <class Op, int TX> struct ColsTuning;

// ---- the library's own ---------------------------------------------------------------
#include "grid.cuh"
#include "state.cuh"
#include "stats.cuh"

#endif
