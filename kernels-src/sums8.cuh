// Sums of 8-bit integers without a 64-bit add per element: within a 16-byte
// vector the sum fits 32 bits (dp4a), and down a column 256 rows fit 16-bit
// lanes, so they are formed there and widened once. The results are the same integers as the element-by-element
// 64-bit sums.
#ifndef CURED_SUMS8_CUH
#define CURED_SUMS8_CUH

#include "visit.cuh"

// The sum of a word's four bytes, signed or unsigned, plus c.
__device__ __forceinline__ int byte_sum(unsigned w, int c, signed char)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 610
    int d;
    asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(0x01010101), "r"(c));
    return d;
#else
    return c + (signed char)w + (signed char)(w >> 8) + (signed char)(w >> 16) + (signed char)(w >> 24);
#endif
}
__device__ __forceinline__ unsigned byte_sum(unsigned w, unsigned c, unsigned char)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 610
    unsigned d;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(0x01010101), "r"(c));
    return d;
#else
    return c + (w & 255) + (w >> 8 & 255) + (w >> 16 & 255) + (w >> 24);
#endif
}

#define CURED_SUM8_STEP(T, A, N)                                                                     \
    template <class R> struct VecStep<Sum<T, A, R> > {                                               \
        typedef T Elem;                                                                              \
        template <class TT, class AA> __device__ static __forceinline__ AA step(AA acc, uint4 v, u64, Sum<T, A, R> op) \
        {                                                                                            \
            N s = byte_sum(v.x, (N)0, Elem());                                                          \
            s = byte_sum(v.y, s, Elem());                                                               \
            s = byte_sum(v.z, s, Elem());                                                               \
            s = byte_sum(v.w, s, Elem());                                                               \
            return op(acc, (AA)s);                                                                   \
        }                                                                                            \
    };
CURED_SUM8_STEP(signed char, long long, int)
CURED_SUM8_STEP(unsigned char, unsigned long long, unsigned)
CURED_SUM8_STEP(signed char, int, int)
CURED_SUM8_STEP(unsigned char, unsigned, unsigned)

// A thread's running value down one column: the operator's accumulator
// itself (start and flush hand it over), unless an operator keeps a cheaper
// one (the statistics' shifted sums, stats.cuh and logsumexp.cuh).
template <class Op, class T, class A> struct ColumnAcc1 {
    typedef A N;
    static const bool CHUNKED = false; // its partial never overflows: the rows are read in one run
    static const long long CHUNK = 0;
    __device__ static __forceinline__ N start(A a) { return a; }
    __device__ static __forceinline__ N add(N n, T x, u64 r, Op op) { return op(n, op.map(x, r)); }
    __device__ static __forceinline__ A flush(A, N n, Op) { return n; }
};

// A thread's running values down VEC adjacent columns, a 16-byte vector (one
// row's VEC elements) at a time, in two levels: N over a chunk of CHUNK rows
// (start, add), flushed into W (open, flush), which close hands to the
// accumulators with the thread's row count. Generic: ColumnAcc1 per column,
// W the accumulators themselves. 8-bit sums: four pairs of 16-bit lanes — a
// word's even and odd bytes, biased to unsigned — flushed every CHUNK = 256
// rows (a chunk takes up to 257: 255 x 257 < 2^16) into 32-bit lanes, which
// hold up to MAXROWS = 2^24 rows (255 x 2^24 < 2^32; the kernel takes more
// element by element): exact,
// about 1.25 integer operations a byte, and no 64-bit accumulators live
// through the loop (80 registers a thread were 3 blocks an SM).
template <class Op, class T, class A, int VEC> struct ColumnAccOf {
    typedef ColumnAcc1<Op, T, A> C1;
    struct N {
        typename C1::N a[VEC];
    };
    struct W {
        A a[VEC];
    };
    static const bool CHUNKED = C1::CHUNKED;
    static const long long CHUNK = C1::CHUNK;
    static const long long MAXROWS = 0; // none
    static const bool BLOCK_JOIN = false; // per-thread states, merged by Op (else join(): see reduce_cols)
    __device__ static __forceinline__ void open(W &w)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            w.a[k] = Op::identity();
    }
    __device__ static __forceinline__ void start(N &n, const W &w)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            n.a[k] = C1::start(w.a[k]);
    }
    __device__ static __forceinline__ void add(N &n, uint4 v, u64 r, Op op)
    {
        const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
        for (int k = 0; k < VEC; k++)
            n.a[k] = C1::add(n.a[k], e[k], r, op);
    }
    __device__ static __forceinline__ void flush(W &w, const N &n, Op op)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            w.a[k] = C1::flush(w.a[k], n.a[k], op);
    }
    __device__ static __forceinline__ void close(A *acc, const W &w, long long, Op)
    {
#pragma unroll
        for (int k = 0; k < VEC; k++)
            acc[k] = w.a[k];
    }
};
template <class Op, class T, class A, int VEC> struct ColumnAcc : ColumnAccOf<Op, T, A, VEC> {};
// reduce_cols' blocks an SM to keep resident, by operator and threads across a tile (0: no
// bound; the moments: stats_columns.cuh; bench/colstune.cu tries others).
template <class Op, int TX> struct ColsTuning {
    enum { MIN_BLOCKS = 0 };
};
__device__ __forceinline__ unsigned byte_lanes(unsigned w, unsigned sel)
{
    unsigned d;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(d) : "r"(w), "r"(sel));
    return d;
}
#define CURED_SUM8_COLUMN(T, A, BIAS)                                                                \
    template <class R> struct ColumnAcc<Sum<T, A, R>, T, A, 16> {                                    \
        struct N {                                                                                   \
            unsigned even[4], odd[4]; /* bytes 0, 2 and 1, 3 of each word, as 16-bit lanes */        \
        };                                                                                           \
        struct W {                                                                                   \
            unsigned s[16]; /* biased sums, a column each */                                         \
        };                                                                                           \
        static const bool CHUNKED = true;                                                            \
        static const long long CHUNK = 256;                                                          \
        static const long long MAXROWS = 1ll << 24;                                                  \
        static const bool BLOCK_JOIN = false;                                                        \
        __device__ static __forceinline__ void open(W &w)                                            \
        {                                                                                            \
            for (int k = 0; k < 16; k++)                                                             \
                w.s[k] = 0;                                                                          \
        }                                                                                            \
        __device__ static __forceinline__ void start(N &n, const W &)                                \
        {                                                                                            \
            for (int w = 0; w < 4; w++)                                                              \
                n.even[w] = n.odd[w] = 0;                                                            \
        }                                                                                            \
        __device__ static __forceinline__ void add(N &n, uint4 v, u64, Sum<T, A, R>)                 \
        {                                                                                            \
            const unsigned x[4] = {v.x ^ BIAS * 0x01010101u, v.y ^ BIAS * 0x01010101u,               \
                                   v.z ^ BIAS * 0x01010101u, v.w ^ BIAS * 0x01010101u};              \
            for (int w = 0; w < 4; w++) {                                                            \
                n.even[w] += byte_lanes(x[w], 0x4240);                                               \
                n.odd[w] += byte_lanes(x[w], 0x4341);                                                \
            }                                                                                        \
        }                                                                                            \
        __device__ static __forceinline__ void flush(W &s, const N &n, Sum<T, A, R>)                 \
        {                                                                                            \
            for (int w = 0; w < 4; w++) {                                                            \
                s.s[4 * w + 0] += n.even[w] & 0xffff;                                                \
                s.s[4 * w + 1] += n.odd[w] & 0xffff;                                                 \
                s.s[4 * w + 2] += n.even[w] >> 16;                                                   \
                s.s[4 * w + 3] += n.odd[w] >> 16;                                                    \
            }                                                                                        \
        }                                                                                            \
        __device__ static __forceinline__ void close(A *acc, const W &s, long long rows, Sum<T, A, R> op) \
        {                                                                                            \
            const A bias = (A)(BIAS * rows);                                                         \
            for (int k = 0; k < 16; k++)                                                             \
                acc[k] = op(acc[k], (A)s.s[k] - bias);                                               \
        }                                                                                            \
    };
CURED_SUM8_COLUMN(signed char, long long, 128u)
CURED_SUM8_COLUMN(unsigned char, unsigned long long, 0u)

// argmin/argmax down a column: the best key and its row, taken only when
// strictly better (a thread meets its rows in increasing order, so a tie
// keeps the first); i < 0 until the first row. About half the generic
// combine's work per element (no NO_INDEX checks, no index compare).
template <class T, class K, class R, bool MAX, bool IGN> struct ColumnAcc1<ArgOf<T, K, R, MAX, IGN>, T, Arg<K> > {
    typedef ArgOf<T, K, R, MAX, IGN> Op;
    typedef Arg<K> N;
    static const bool CHUNKED = false; // its partial never overflows: the rows are read in one run
    static const long long CHUNK = 0;
    __device__ static __forceinline__ N start(Arg<K>)
    {
        N n = {K(0), -1ll};
        return n;
    }
    __device__ static __forceinline__ N add(N n, T x, u64 r, const Op &op)
    {
        const K k = op.key(x);
        const bool take = n.i < 0 || Op::better(k, n.k);
        n.k = take ? k : n.k;
        n.i = take ? (long long)r : n.i;
        return n;
    }
    __device__ static __forceinline__ Arg<K> flush(Arg<K> a, N n, const Op &op)
    {
        if (n.i < 0)
            return a;
        return op(a, n);
    }
};
template <class T, class K, class R, bool MAX, bool IGN, bool RAW>
struct ColumnAcc1<Record<ArgOf<T, K, R, MAX, IGN>, Arg<K>, RAW>, T, Arg<K> >
    : ColumnAcc1<ArgOf<T, K, R, MAX, IGN>, T, Arg<K> > {};

#endif
