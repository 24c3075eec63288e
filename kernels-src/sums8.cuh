// Sums of 8-bit integers without a 64-bit add per element: within a 16-byte
// vector, or within a thread's rows of a column for up to 2^16 of them, the
// sum fits 32 bits exactly (16 x 255, 2^16 x 255), so it is formed there and
// widened once. The results are the same integers as the element-by-element
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

// A thread's running value down a column: the operator's accumulator itself
// (start and flush hand it over), or for 8-bit sums a 32-bit one started at
// zero and added into it every CHUNK rows.
template <class Op, class T, class A> struct ColumnAcc {
    typedef A N;
    static const long long CHUNK = 1ll << 62;
    __device__ static __forceinline__ N start(A a) { return a; }
    __device__ static __forceinline__ N add(N n, T x, u64 r, Op op) { return op(n, op.map(x, r)); }
    __device__ static __forceinline__ A flush(A, N n, Op) { return n; }
};
#define CURED_SUM8_COLUMN(T, A, NT)                                                                  \
    template <class R> struct ColumnAcc<Sum<T, A, R>, T, A> {                                        \
        typedef NT N;                                                                                \
        static const long long CHUNK = 1ll << 16;                                                    \
        __device__ static __forceinline__ N start(A) { return 0; }                                   \
        __device__ static __forceinline__ N add(N n, T x, u64, Sum<T, A, R>) { return n + (N)x; }    \
        __device__ static __forceinline__ A flush(A a, N n, Sum<T, A, R> op) { return op(a, (A)n); } \
    };
CURED_SUM8_COLUMN(signed char, long long, int)
CURED_SUM8_COLUMN(unsigned char, unsigned long long, unsigned)

#endif
