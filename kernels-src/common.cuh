// Shared pieces of the reduction kernels (The CUDA Handbook, chapter 12).
// Header-free on purpose: only NVRTC's built-in declarations are used, so the
// kernels that include this compile where just the driver and NVRTC exist.
// An operator (ops.cuh) supplies identity(), map(x, i), combine and write().
#ifndef CURED_COMMON_CUH
#define CURED_COMMON_CUH

#include "ops.cuh"

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

// 16-byte read-only loads. LOAD_L2_256 adds an L2 prefetch hint of 256 bytes
// (Ampere and newer) and skips L1; LOAD_STREAM marks the lines evict-first.
// bench/tune.cu compares them; AUTO uses LOAD_LDG, the fastest on the H200.
enum { LOAD_LDG = 0, LOAD_L2_256 = 1, LOAD_STREAM = 2 };

template <int LOAD> __device__ __forceinline__ uint4 load16(const uint4 *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (LOAD == LOAD_L2_256) {
        uint4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
        return v;
    }
#endif
    if (LOAD == LOAD_STREAM)
        return __ldcs(p);
    return __ldg(p);
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
// elements, then combine that with the partial.
template <class Op> struct VecStep {
    template <class T, class A> __device__ static __forceinline__ A step(A acc, uint4 v, u64 i0, Op op)
    {
        return op(acc, reduce_vec<T, A>(v, i0, op));
    }
};

// The extreme key of a vector for argmin/argmax: every lane's key, then an
// integer min or max per lane.
template <class T, bool MAX, bool IGN> struct VecBest {
    template <class K, class Op> __device__ static __forceinline__ K key(uint4 v, Op op)
    {
        const T *e = reinterpret_cast<const T *>(&v);
        K best = op.key(e[0]);
#pragma unroll
        for (int l = 1; l < (int)(16 / sizeof(T)); l++)
            best = Op::better(op.key(e[l]), best) ? op.key(e[l]) : best;
        return best;
    }
};

// 8-bit integers: the SIMD byte min/max intrinsics over the four words, then
// within the last word. Sixteen keys per vector held at once would take
// 60-67 registers per thread and cut occupancy.
#define CURED_BYTE_BEST(T, MIN4, MAX4)                                                               \
    template <bool MAX, bool IGN> struct VecBest<T, MAX, IGN> {                                      \
        __device__ static __forceinline__ unsigned ext(unsigned a, unsigned b) { return MAX ? MAX4(a, b) : MIN4(a, b); } \
        template <class K, class Op> __device__ static __forceinline__ K key(uint4 v, Op)           \
        {                                                                                            \
            unsigned w = ext(ext(v.x, v.y), ext(v.z, v.w));                                          \
            w = ext(w, w >> 16);                                                                     \
            return (K)(T)(ext(w, w >> 8) & 0xffu);                                                   \
        }                                                                                            \
    };
CURED_BYTE_BEST(signed char, __vmins4, __vmaxs4)
CURED_BYTE_BEST(unsigned char, __vminu4, __vmaxu4)
#undef CURED_BYTE_BEST

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800 // (!: nvcc's host pass, for bench/*.cu)
// 16-bit floats and float32 on sm_80 and newer: packed min/max instructions
// over the vector (their .NaN forms when NaN propagates), giving the bits of
// the extreme element, instead of a conversion or a key and NaN tests per
// element; MINMAX takes both. Which zero a tie of -0 and +0 gives is not
// specified (cured.h).
template <class T, bool MAX, bool IGN> __device__ __forceinline__ unsigned packed_extreme(unsigned a, unsigned b);
#define CURED_PACKED(T, MAX, IGN, INSN)                                                              \
    template <> __device__ __forceinline__ unsigned packed_extreme<T, MAX, IGN>(unsigned a, unsigned b) \
    {                                                                                                \
        unsigned r;                                                                                  \
        asm(INSN " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                                         \
        return r;                                                                                    \
    }
CURED_PACKED(half_t, false, false, "min.NaN.f16x2")
CURED_PACKED(half_t, true, false, "max.NaN.f16x2")
CURED_PACKED(half_t, false, true, "min.f16x2")
CURED_PACKED(half_t, true, true, "max.f16x2")
CURED_PACKED(bf16_t, false, false, "min.NaN.bf16x2")
CURED_PACKED(bf16_t, true, false, "max.NaN.bf16x2")
CURED_PACKED(bf16_t, false, true, "min.bf16x2")
CURED_PACKED(bf16_t, true, true, "max.bf16x2")
CURED_PACKED(float, false, false, "min.NaN.f32")
CURED_PACKED(float, true, false, "max.NaN.f32")
CURED_PACKED(float, false, true, "min.f32")
CURED_PACKED(float, true, true, "max.f32")
#undef CURED_PACKED

// The bits of the vector's extreme element (16-bit types: in the low half).
template <class T, bool MAX, bool IGN> __device__ __forceinline__ unsigned vec_extreme_bits(uint4 v)
{
    unsigned w = packed_extreme<T, MAX, IGN>(packed_extreme<T, MAX, IGN>(v.x, v.y),
                                             packed_extreme<T, MAX, IGN>(v.z, v.w));
    return sizeof(T) == 2 ? packed_extreme<T, MAX, IGN>(w, w >> 16) & 0xffffu : w;
}

__device__ __forceinline__ half_t from_bits(unsigned w, half_t) { half_t h = {(unsigned short)w}; return h; }
__device__ __forceinline__ bf16_t from_bits(unsigned w, bf16_t) { bf16_t b = {(unsigned short)w}; return b; }
__device__ __forceinline__ float from_bits(unsigned w, float) { return __uint_as_float(w); }

#define CURED_PACKED_STEPS(T)                                                                        \
    template <bool MAX, bool IGN> struct VecBest<T, MAX, IGN> {                                      \
        template <class K, class Op> __device__ static __forceinline__ K key(uint4 v, Op op)         \
        {                                                                                            \
            return op.key(from_bits(vec_extreme_bits<T, MAX, IGN>(v), T()));                       \
        }                                                                                            \
    };                                                                                               \
    template <class R, bool MAX, bool IGN> struct VecStep<MinMaxOf<T, float, R, MAX, IGN> > {        \
        typedef MinMaxOf<T, float, R, MAX, IGN> Op;                                                  \
        template <class TT, class A> __device__ static __forceinline__ A step(A acc, uint4 v, u64, Op op) \
        {                                                                                            \
            return op(acc, widen<float>(from_bits(vec_extreme_bits<T, MAX, IGN>(v), T())));          \
        }                                                                                            \
    };                                                                                               \
    template <class R> struct VecStep<MinMax<T, float, R> > {                                        \
        template <class TT, class A> __device__ static __forceinline__ A step(A acc, uint4 v, u64, MinMax<T, float, R> op) \
        {                                                                                            \
            A p = {widen<float>(from_bits(vec_extreme_bits<T, false, false>(v), T())),               \
                   widen<float>(from_bits(vec_extreme_bits<T, true, false>(v), T()))};               \
            return op(acc, p);                                                                       \
        }                                                                                            \
    };
CURED_PACKED_STEPS(half_t)
CURED_PACKED_STEPS(bf16_t)
CURED_PACKED_STEPS(float)
#undef CURED_PACKED_STEPS
#endif

// A thread's share of n elements with 16-byte loads, UNROLL of them in
// flight per thread. `in` need only be aligned to sizeof(T): the elements
// before the first 16-byte boundary (the head) and after the last whole
// vector (the tail) are handed to vis.elem one by one, by the first threads
// of the grid; the head before the body, or after it when
// Visitor::HEAD_LAST (the ARG visitor, whose head partial would otherwise
// stay live across the loop). vis.vec gets each vector, the index of its
// first element, and `at`: the elements this thread visited before it.
template <class T> __device__ __forceinline__ size_t vec_head(const T *in, size_t n)
{
    size_t mis = (size_t)(reinterpret_cast<u64>(in) & 15) / sizeof(T);
    size_t head = mis ? 16 / sizeof(T) - mis : 0;
    return head > n ? n : head;
}

template <class T, int UNROLL, int LOAD, class Visitor>
__device__ __forceinline__ void thread_visit(const T *in, size_t n, Visitor &vis)
{
    const int VEC = 16 / sizeof(T);
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nthreads = (size_t)gridDim.x * blockDim.x;
    const size_t head = vec_head(in, n);
    const uint4 *body = reinterpret_cast<const uint4 *>(in + head);
    const size_t nvec = (n - head) / VEC;
    if (!Visitor::HEAD_LAST && tid < head)
        vis.elem(in[tid], tid);
    size_t i = tid;
    unsigned at = 0;
    for (; i + (UNROLL - 1) * nthreads < nvec; i += UNROLL * nthreads, at += UNROLL * VEC) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) // all loads issued before any use
            v[u] = load16<LOAD>(body + i + u * nthreads);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            vis.vec(v[u], head + (i + u * nthreads) * VEC, at + u * VEC);
    }
    for (; i < nvec; i += nthreads, at += VEC)
        vis.vec(load16<LOAD>(body + i), head + i * VEC, at);

    if (Visitor::HEAD_LAST && tid < head)
        vis.elem(in[tid], tid);
    const size_t tail = head + nvec * VEC;
    if (tid < n - tail)
        vis.elem(in[tail + tid], tail + tid);
}

// The per-thread partial of an operator: every vector through VecStep.
template <class T, class A, class Op> struct ReduceVisitor {
    static const bool HEAD_LAST = false;
    Op op;
    A acc;
    __device__ __forceinline__ void vec(uint4 v, u64 i0, unsigned) { acc = VecStep<Op>::template step<T, A>(acc, v, i0, op); }
    __device__ __forceinline__ void elem(T x, u64 i) { acc = op(acc, op.map(x, i)); }
};

template <class T, class A, class Op, int UNROLL, int LOAD = LOAD_LDG>
__device__ A thread_reduce_vec(const T *in, size_t n, Op op)
{
    ReduceVisitor<T, A, Op> vis = {op, Op::identity()};
    thread_visit<T, UNROLL, LOAD>(in, n, vis);
    return vis.acc;
}

// argmin/argmax per thread, without a branch: each vector gives its extreme
// key (VecBest); one that beats the thread's best replaces it, with the
// vector itself and its position `at` (selects). A thread meets its indices
// in increasing order, so a tie keeps the best. The lanes of the one winning
// vector are searched once, at the end. A search per better vector (v3) ran
// warp-wide at most visits, since some thread of a warp finds a new best at
// most of them, and held 32-bit ARG at 0.97x CUB (bench/NOTES.md).
template <class T, class K, class Op, bool MAX, bool IGN> struct ArgVisitor {
    static const bool HEAD_LAST = true;
    Op op;
    Arg<K> acc;  // head and tail elements
    K best;      // starts at the worst key: a vector that only ties it is not taken
    unsigned pos; // `at` of the winning vector; ~0u: none beat the worst key
    uint4 win;   // the winning vector
    __device__ __forceinline__ void vec(uint4 v, u64, unsigned at)
    {
        const K b = VecBest<T, MAX, IGN>::template key<K>(v, op);
        const bool take = Op::better(b, best);
        best = take ? b : best;
        pos = take ? at : pos;
        win.x = take ? v.x : win.x;
        win.y = take ? v.y : win.y;
        win.z = take ? v.z : win.z;
        win.w = take ? v.w : win.w;
    }
    __device__ __forceinline__ void elem(T x, u64 i) { acc = op(acc, op.map(x, i)); }
};

template <class T, class K, class R, bool MAX, bool IGN, int UNROLL>
__device__ Arg<K> thread_arg_vec(const T *in, size_t n, ArgOf<T, K, R, MAX, IGN> op)
{
    typedef ArgOf<T, K, R, MAX, IGN> Op;
    const int VEC = 16 / sizeof(T);
    const K worst = MAX ? limits<K>::lowest() : limits<K>::highest();
    ArgVisitor<T, K, Op, MAX, IGN> vis = {op, Op::identity(), worst, ~0u, {0u, 0u, 0u, 0u}};
    thread_visit<T, UNROLL, LOAD_LDG>(in, n, vis);

    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t nthreads = (size_t)gridDim.x * blockDim.x;
    const size_t head = vec_head(in, n);
    if (tid < (n - head) / VEC) { // this thread read vectors tid, tid + nthreads, ...
        unsigned lane = 0;     // none beat the worst key: all are worst, take the first
        if (vis.pos != ~0u) {
            const T *e = reinterpret_cast<const T *>(&vis.win);
            lane = VEC - 1;
#pragma unroll
            for (int l = VEC - 2; l >= 0; l--)
                lane = op.key(e[l]) == vis.best ? l : lane;
        } else {
            vis.pos = 0;
        }
        Arg<K> b = {vis.best, (long long)(head + (tid + (size_t)(vis.pos / VEC) * nthreads) * VEC + lane)};
        vis.acc = op(vis.acc, b);
    }
    return vis.acc;
}

// The per-thread loop of an operator: thread_reduce_vec, or thread_arg_vec
// for argmin/argmax.
template <class Op> struct ThreadLoop {
    template <class T, class A, int UNROLL> __device__ static __forceinline__ A run(const T *in, size_t n, Op op)
    {
        return thread_reduce_vec<T, A, Op, UNROLL>(in, n, op);
    }
};
template <class T, class K, class R, bool MAX, bool IGN> struct ThreadLoop<ArgOf<T, K, R, MAX, IGN> > {
    template <class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, ArgOf<T, K, R, MAX, IGN> op)
    {
        return thread_arg_vec<T, K, R, MAX, IGN, UNROLL>(in, n, op);
    }
};

// Warp reduction with shuffles; lane 0 holds the result. Lower lanes hold
// lower indices, and partials are combined as op(lower, higher).
template <class A, class Op> __device__ A warp_reduce_shuffle(A v, Op op)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = op(v, shfl_down(v, offset));
    return v;
}
template <class A, class Op> __device__ A warp_reduce(A v, Op op) { return warp_reduce_shuffle(v, op); }

// The ends that reduce integer words (ARG's ArgLex, the float MIN/MAX keys)
// take on sm_80 and newer one redux.sync per 32-bit word instead of five
// shuffle steps; the result is then in every lane. The lexicographic minimum
// of NW words, most significant first: each lane takes part while its words
// so far equal the minimum's.
#if __CUDA_ARCH__ >= 800
template <int NW> __device__ __forceinline__ void warp_lex_min(unsigned (&w)[NW])
{
    bool tied = true;
#pragma unroll
    for (int j = 0; j < NW; j++) {
        const unsigned m = __reduce_min_sync(0xffffffffu, tied ? w[j] : 0xffffffffu);
        tied = tied && w[j] == m;
        w[j] = m;
    }
}
#endif
template <int NW, class Op> __device__ Lex<NW> warp_reduce(Lex<NW> v, Op op)
{
#if __CUDA_ARCH__ >= 800
    warp_lex_min(v.w);
    return v;
#else
    return warp_reduce_shuffle(v, op);
#endif
}
template <class T, class A, class R, bool MAX, bool IGN>
__device__ int warp_reduce(int k, KeyedMinMax<T, A, R, MAX, IGN, int> op)
{
#if __CUDA_ARCH__ >= 800
    return MAX ? __reduce_max_sync(0xffffffffu, k) : __reduce_min_sync(0xffffffffu, k);
#else
    return warp_reduce_shuffle(k, op);
#endif
}
template <class T, class A, class R, bool MAX, bool IGN>
__device__ long long warp_reduce(long long k, KeyedMinMax<T, A, R, MAX, IGN, long long> op)
{
#if __CUDA_ARCH__ >= 800
    const u64 u = key_rank<long long, MAX>(k);
    unsigned w[2] = {(unsigned)(u >> 32), (unsigned)u};
    warp_lex_min(w);
    return (long long)key_rank<long long, MAX>((long long)((u64)w[0] << 32 | w[1]));
#else
    return warp_reduce_shuffle(k, op);
#endif
}

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

// Loads that bypass L1, for partials written by other blocks.
template <class A> __device__ __forceinline__ A load_cg(const A *p) { return __ldcg(p); }
template <class V> __device__ __forceinline__ Pair<V> load_cg(const Pair<V> *p)
{
    Pair<V> r = {__ldcg(&p->lo), __ldcg(&p->hi)};
    return r;
}
template <class K> __device__ __forceinline__ Arg<K> load_cg(const Arg<K> *p)
{
    Arg<K> r = {__ldcg(&p->k), __ldcg(&p->i)};
    return r;
}

template <int NW> __device__ __forceinline__ Lex<NW> load_cg(const Lex<NW> *p)
{
    Lex<NW> r;
#pragma unroll
    for (int j = 0; j < NW; j++)
        r.w[j] = __ldcg(&p->w[j]);
    return r;
}

// Single-pass finish with a ticket: each block stores its partial, fences,
// and takes a ticket; the block that takes the last ticket combines all the
// partials in block order (so float results do not depend on timing), writes
// the result and resets the ticket for the next launch on this workspace.
// Its threads may load PER partials each before combining any, so that a
// grid of up to PER * BLOCK blocks takes one trip to L2 instead of one per
// BLOCK partials: this tail runs after every other block has finished. The
// ARG ends use it (~1 us at 64Mi on the H200, bench/NOTES.md). As the default
// (v4c) it cost float16 MINMAX 8 registers and 3 us, and float64 sums 3 us.
template <int BLOCK, class A, class Op, int PER = 1>
__device__ void finish_last_block(A block_value, void *out, size_t n, A *partials, unsigned int *ticket,
                                  Op op)
{
    if (gridDim.x == 1) {
        if (threadIdx.x == 0)
            op.write(out, block_value, n);
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_value;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence(); // see every block's partial
    A v = Op::identity();
    for (unsigned int i = threadIdx.x; i < gridDim.x; i += PER * BLOCK) {
        A p[PER];
#pragma unroll
        for (int k = 0; k < PER; k++) // from L2: other SMs wrote them
            if (i + k * BLOCK < gridDim.x)
                p[k] = load_cg(partials + i + k * BLOCK);
#pragma unroll
        for (int k = 0; k < PER; k++)
            if (i + k * BLOCK < gridDim.x)
                v = op(v, p[k]);
    }
    v = block_reduce_shuffle<BLOCK>(v, op);
    if (threadIdx.x == 0) {
        op.write(out, v, n);
        *ticket = 0;
    }
}

// The end of a single-pass kernel: the block's partial, then the grid's.
template <int BLOCK, class A, class Op>
__device__ __forceinline__ void finish_grid(A v, void *out, size_t n, A *partials, unsigned int *ticket, Op op)
{
    v = block_reduce_shuffle<BLOCK>(v, op);
    finish_last_block<BLOCK>(v, out, n, partials, ticket, op);
}

// ARG ends as words (ArgLex): the key's rank, then the index in one word
// when n <= 2^32 - 1 (always, in practice) or two. The (key, int64 index)
// pair with shuffles cost ~3 us more than MIN's end at 64Mi on the H200,
// whatever the size (bench/NOTES.md, v4, v5).
template <int BLOCK, int NW, class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_arg(Arg<K> v, void *out, size_t n, void *partials, unsigned int *ticket,
                                           ArgOf<T, K, R, MAX, IGN> op)
{
    typedef ArgLex<T, K, R, MAX, IGN, NW> Op;
    Op lx = {op};
    Lex<NW> x = block_reduce_shuffle<BLOCK>(Op::pack(v), lx);
    finish_last_block<BLOCK, Lex<NW>, Op, NW == 2 ? 8 : 4>(x, out, n, reinterpret_cast<Lex<NW> *>(partials), ticket,
                                                         lx);
}
template <int BLOCK, class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_grid(Arg<K> v, void *out, size_t n, Arg<K> *partials, unsigned int *ticket,
                                            ArgOf<T, K, R, MAX, IGN> op)
{
    const int KW = sizeof(K) / 4;
    if (n <= 0xffffffffull)
        finish_arg<BLOCK, KW + 1>(v, out, n, partials, ticket, op);
    else
        finish_arg<BLOCK, KW + 2>(v, out, n, partials, ticket, op);
}

// float and double MIN/MAX: the ends combine integer order keys (ops.cuh).
template <int BLOCK, class T, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_grid(float v, void *out, size_t n, float *partials, unsigned int *ticket,
                                            MinMaxOf<T, float, R, MAX, IGN> op)
{
    KeyedMinMax<T, float, R, MAX, IGN, int> kop = {op};
    int k = block_reduce_shuffle<BLOCK>(kop.key(v), kop);
    finish_last_block<BLOCK>(k, out, n, reinterpret_cast<int *>(partials), ticket, kop);
}
template <int BLOCK, class T, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_grid(double v, void *out, size_t n, double *partials, unsigned int *ticket,
                                            MinMaxOf<T, double, R, MAX, IGN> op)
{
    KeyedMinMax<T, double, R, MAX, IGN, long long> kop = {op};
    long long k = block_reduce_shuffle<BLOCK>(kop.key(v), kop);
    finish_last_block<BLOCK>(k, out, n, reinterpret_cast<long long *>(partials), ticket, kop);
}

// Finish of the atomic variants, run by thread 0 of each block: one atomicAdd
// of the block's partial into the workspace accumulator, then a ticket; the
// last block moves the total to *out and leaves accumulator and ticket at
// zero, so no memset is needed before the next launch.
template <class A>
__device__ void finish_atomic(A block_value, A *out, A *accum, unsigned int *ticket)
{
    atomic_add(accum, block_value);
    __threadfence();
    if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
        *out = atomic_take(accum);
        *ticket = 0;
    }
}

#endif
