// Extremes: the best element of a 16-byte vector (per-lane integer keys,
// SIMD byte instructions, or the packed min/max instructions of sm_80 and
// newer), and the ends of float and double MIN/MAX over integer keys
// (keys.cuh) with redux.sync on sm_80 and newer.
#ifndef CURED_EXTREMES_CUH
#define CURED_EXTREMES_CUH

#include "grid.cuh"
#include "visit.cuh"

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

// The end of a float or double MIN/MAX (NAN* too) over minmax_key
// (keys.cuh): one integer min or max per combine instead of pick()'s
// compare and two NaN tests. A NaN result comes back as the quiet NaN.
template <class T, class A, class R, bool MAX, bool IGNORE_NAN, class K> struct KeyedMinMax {
    MinMaxOf<T, A, R, MAX, IGNORE_NAN> op;
    // NaN wins when it propagates, loses with IGNORE_NAN (as ArgOf::nan_key)
    __device__ static K nan_key() { return MAX != IGNORE_NAN ? limits<K>::highest() : limits<K>::lowest(); }
    __device__ static K identity() { return MAX ? limits<K>::lowest() : limits<K>::highest(); }
    __device__ static K key(A a) { return minmax_key(a, nan_key()); }
    __device__ K operator()(K a, K b) const { return MAX ? (b > a ? b : a) : (b < a ? b : a); }
    __device__ void write(void *out, K k, u64 n) const { op.write(out, from_minmax_key(k, nan_key()), n); }
};

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

// float and double MIN/MAX: the block and group ends combine minmax keys.
template <int BLOCK, class T, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_grid(float v, void *out, size_t n, float *partials, unsigned int *ticket,
                                            unsigned block, unsigned nblocks, MinMaxOf<T, float, R, MAX, IGN> op)
{
    KeyedMinMax<T, float, R, MAX, IGN, int> kop = {op};
    int k = block_reduce_shuffle<BLOCK>(kop.key(v), kop);
    finish_last_block<BLOCK>(k, out, n, reinterpret_cast<int *>(partials), ticket, block, nblocks, kop);
}
template <int BLOCK, class T, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_grid(double v, void *out, size_t n, double *partials, unsigned int *ticket,
                                            unsigned block, unsigned nblocks, MinMaxOf<T, double, R, MAX, IGN> op)
{
    KeyedMinMax<T, double, R, MAX, IGN, long long> kop = {op};
    long long k = block_reduce_shuffle<BLOCK>(kop.key(v), kop);
    finish_last_block<BLOCK>(k, out, n, reinterpret_cast<long long *>(partials), ticket, block, nblocks, kop);
}

#endif
