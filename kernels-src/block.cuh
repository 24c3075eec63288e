// The Handbook's block reductions (chapter 12): per-thread partials over a
// grid-stride loop, a warp reduction with shuffles, a block reduction with
// one shared word per warp or as a shared-memory tree, and the atomics of
// the single-pass atomic variants.
#ifndef CURED_BLOCK_CUH
#define CURED_BLOCK_CUH

#include "words.cuh"

// atomicAdd for the accumulator types of the atomic variants (sums).
__device__ inline void atomic_add(int *p, int v) { atomicAdd(p, v); }
__device__ inline void atomic_add(long long *p, long long v) { atomicAdd((u64 *)p, (u64)v); }
__device__ inline int atomic_take(int *p) { return atomicExch(p, 0); }
__device__ inline long long atomic_take(long long *p) { return (long long)atomicExch((u64 *)p, 0ull); }

// Per-thread partial over a grid-stride loop, one element per load (the
// Handbook's two-pass and single-pass kernels).
template <class T, class A, class Op> __device__ A thread_reduce_scalar(const T *in, size_t n, Op op)
{
    A acc = Op::identity();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        acc = op(acc, op.map(in[i], i));
    return acc;
}

// Warp reduction with shuffles; lane 0 holds the result. Lower lanes hold
// lower indices, and partials are combined as op(lower, higher). Operators
// whose partials are integer words overload warp_reduce with redux.sync
// (extremes.cuh, arg.cuh).
template <class A, class Op> __device__ A warp_reduce_shuffle(A v, Op op)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = op(v, shfl_down(v, offset));
    return v;
}
template <class A, class Op> __device__ A warp_reduce(A v, Op op) { return warp_reduce_shuffle(v, op); }

// Block reduction: shuffles within warps, one shared word per warp, then the
// first warp. Thread 0 holds the result. Ends with a barrier so that it can be
// called twice in one kernel.
template <int BLOCK, class A, class Op> __device__ A block_reduce_shuffle(A v, Op op)
{
    __shared__ A warp_partial[BLOCK / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_reduce(v, op);
    if (lane == 0)
        warp_partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? warp_partial[lane] : Op::identity();
        v = warp_reduce(v, op);
    }
    __syncthreads();
    return v;
}

// Inclusive prefix sum over the block (thread order), every thread its own;
// ends with a barrier so that it can be called twice in one kernel.
template <int BLOCK, class V> __device__ V block_scan_inclusive(V v)
{
    __shared__ V warp_total[BLOCK / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const V u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += u;
    }
    if (lane == 31)
        warp_total[warp] = v;
    __syncthreads();
    if (warp == 0) {
        V w = lane < BLOCK / 32 ? warp_total[lane] : V(0);
#pragma unroll
        for (int o = 1; o < BLOCK / 32; o <<= 1) {
            const V u = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o)
                w += u;
        }
        if (lane < BLOCK / 32)
            warp_total[lane] = w;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_total[warp - 1];
    __syncthreads();
    return v;
}

// Block reduction as a shared-memory tree (the Handbook's first kernel),
// with a barrier at every level: warp-synchronous tricks are unsafe since Volta.
template <int BLOCK, class A, class Op> __device__ A block_reduce_tree(A v, Op op)
{
    __shared__ A partial[BLOCK];
    const int tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
#pragma unroll
    for (int active = BLOCK / 2; active > 0; active >>= 1) {
        if (tid < active)
            partial[tid] = op(partial[tid], partial[tid + active]);
        __syncthreads();
    }
    A r = partial[0];
    __syncthreads();
    return r;
}

#endif
