// The load loops of the AUTO kernels: each thread of a group reads its share
// of the input with 16-byte loads, several in flight, and hands every vector
// and every leftover element to a visitor. The group (its threads' ranks and
// size) comes from the caller: the whole grid for one array, or the blocks
// of one segment.
#ifndef CURED_VISIT_CUH
#define CURED_VISIT_CUH

#include "ops.cuh"

// 16-byte read-only loads through the non-coherent path: the fastest on the
// H200 (bench/tune.cu compares other policies, bench/loads.cuh).
struct LoadLdg {
    __device__ static __forceinline__ uint4 load(const uint4 *p) { return __ldg(p); }
};

// Elements before the first 16-byte boundary of in (at most n).
template <class T> __device__ __forceinline__ size_t vec_head(const T *in, size_t n)
{
    size_t mis = (size_t)(reinterpret_cast<u64>(in) & 15) / sizeof(T);
    size_t head = mis ? 16 / sizeof(T) - mis : 0;
    return head > n ? n : head;
}

// What a loop reads: one input, or two read in step (dot products). Two
// inputs are loaded 16 bytes at a time only when they share their offset
// within 16 bytes; otherwise one element at a time.
template <class T> struct Source1 {
    typedef uint4 Vec;
    typedef T Elem;
    const T *x;
    __device__ bool vectorizable() const { return true; }
    __device__ size_t head(size_t n) const { return vec_head(x, n); }
    template <class Load> __device__ Vec load(size_t head, size_t v) const
    {
        return Load::load(reinterpret_cast<const uint4 *>(x + head) + v);
    }
    __device__ Elem elem(size_t i) const { return x[i]; }
};
template <class T> struct Source2 {
    struct Vec { uint4 x, y; };
    struct Elem { T x, y; };
    const T *x, *y;
    __device__ bool vectorizable() const { return (reinterpret_cast<u64>(x) & 15) == (reinterpret_cast<u64>(y) & 15); }
    __device__ size_t head(size_t n) const { return vec_head(x, n); }
    template <class Load> __device__ Vec load(size_t head, size_t v) const
    {
        Vec r = {Load::load(reinterpret_cast<const uint4 *>(x + head) + v),
                 Load::load(reinterpret_cast<const uint4 *>(y + head) + v)};
        return r;
    }
    __device__ Elem elem(size_t i) const { Elem e = {x[i], y[i]}; return e; }
};

// A thread's share of n elements: thread `rank` of `size` reads vectors
// rank, rank + size, ..., UNROLL of them in flight. The elements before the
// first 16-byte boundary (the head) and after the last whole vector (the
// tail) go to vis.elem one by one, spread over the group's threads as the
// vectors are (a group may be smaller than a vector's elements); the
// head before the body, or after it when Visitor::HEAD_LAST (the ARG
// visitor, whose head partial would otherwise stay live across the loop).
// vis.vec gets each vector, the index of its first element, and `at`: the
// elements this thread visited before it.
template <class T, int UNROLL, class Load, class Src, class Visitor>
__device__ __forceinline__ void thread_visit(const Src &src, size_t n, size_t rank, size_t size, Visitor &vis)
{
    const int VEC = 16 / sizeof(T);
    if (!src.vectorizable()) {
        for (size_t i = rank; i < n; i += size)
            vis.elem(src.elem(i), i);
        return;
    }
    const size_t head = src.head(n);
    const size_t nvec = (n - head) / VEC;
    if (!Visitor::HEAD_LAST)
        for (size_t h = rank; h < head; h += size)
            vis.elem(src.elem(h), h);
    size_t i = rank;
    unsigned at = 0;
    for (; i + (UNROLL - 1) * size < nvec; i += UNROLL * size, at += UNROLL * VEC) {
        typename Src::Vec v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) // all loads issued before any use
            v[u] = src.template load<Load>(head, i + u * size);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            vis.vec(v[u], head + (i + u * size) * VEC, at + u * VEC);
    }
    for (; i < nvec; i += size, at += VEC)
        vis.vec(src.template load<Load>(head, i), head + i * VEC, at);

    if (Visitor::HEAD_LAST)
        for (size_t h = rank; h < head; h += size)
            vis.elem(src.elem(h), h);
    for (size_t t = head + nvec * VEC + rank; t < n; t += size)
        vis.elem(src.elem(t), t);
}

// Combine the elements of one 16-byte vector whose first element has index i0.
template <class T, class A, class Op> __device__ __forceinline__ A reduce_vec(uint4 v, u64 i0, Op op)
{
    const T *e = reinterpret_cast<const T *>(&v);
    A r = op.map(e[0], i0);
#pragma unroll
    for (int k = 1; k < (int)(16 / sizeof(T)); k++)
        r = op(r, op.map(e[k], i0 + k));
    return r;
}

// One 16-byte vector into a thread's partial. In general: combine its
// elements, then combine that with the partial (extremes.cuh specializes it).
template <class Op> struct VecStep {
    template <class T, class A> __device__ static __forceinline__ A step(A acc, uint4 v, u64 i0, Op op)
    {
        return op(acc, reduce_vec<T, A>(v, i0, op));
    }
};

// The per-thread partial of an operator: every vector through VecStep.
template <class T, class A, class Op> struct ReduceVisitor {
    static const bool HEAD_LAST = false;
    Op op;
    A acc;
    __device__ __forceinline__ void vec(uint4 v, u64 i0, unsigned) { acc = VecStep<Op>::template step<T, A>(acc, v, i0, op); }
    __device__ __forceinline__ void elem(T x, u64 i) { acc = op(acc, op.map(x, i)); }
};

// Two inputs: map2 of each pair of elements into the partial.
template <class T, class A, class Op> struct Reduce2Visitor {
    static const bool HEAD_LAST = false;
    Op op;
    A acc;
    __device__ __forceinline__ void vec(const typename Source2<T>::Vec &v, u64 i0, unsigned)
    {
        const T *ex = reinterpret_cast<const T *>(&v.x), *ey = reinterpret_cast<const T *>(&v.y);
#pragma unroll
        for (int e = 0; e < (int)(16 / sizeof(T)); e++)
            acc = op(acc, op.map2(ex[e], ey[e], i0 + e));
    }
    __device__ __forceinline__ void elem(const typename Source2<T>::Elem &e, u64 i) { acc = op(acc, op.map2(e.x, e.y, i)); }
};

template <class T, class A, class Op, int UNROLL, class Load = LoadLdg>
__device__ __forceinline__ A thread_reduce_vec(const T *in, size_t n, size_t rank, size_t size, Op op)
{
    ReduceVisitor<T, A, Op> vis = {op, Op::identity()};
    Source1<T> src = {in};
    thread_visit<T, UNROLL, Load>(src, n, rank, size, vis);
    return vis.acc;
}
// The whole grid as one group.
template <class T, class A, class Op, int UNROLL, class Load = LoadLdg>
__device__ __forceinline__ A thread_reduce_vec(const T *in, size_t n, Op op)
{
    return thread_reduce_vec<T, A, Op, UNROLL, Load>(in, n, (size_t)blockIdx.x * blockDim.x + threadIdx.x,
                                                     (size_t)gridDim.x * blockDim.x, op);
}

template <class T, class A, class Op, int UNROLL, class Load = LoadLdg>
__device__ __forceinline__ A thread_reduce_vec2(const T *x, const T *y, size_t n, size_t rank, size_t size, Op op)
{
    Reduce2Visitor<T, A, Op> vis = {op, Op::identity()};
    Source2<T> src = {x, y};
    thread_visit<T, UNROLL, Load>(src, n, rank, size, vis);
    return vis.acc;
}

// The per-thread loop of an operator: thread_reduce_vec, or thread_arg_vec
// for argmin/argmax (arg.cuh).
template <class Op> struct ThreadLoop {
    static const bool GENERIC = true; // the ReduceVisitor loop (segments_short.cuh asks)
    template <class T, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank, size_t size, Op op)
    {
        return thread_reduce_vec<T, A, Op, UNROLL>(in, n, rank, size, op);
    }
};

#endif
