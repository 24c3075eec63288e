// Moving accumulators between lanes and through L2, written once for any
// trivially copyable type: scalars with the built-in intrinsics, structs
// (Pair, Arg, Lex, user states) one word at a time. An accumulator's size
// and alignment come from the operator table (src/ops.c).
#ifndef CURED_WORDS_CUH
#define CURED_WORDS_CUH

#include "types.cuh"

// The types __shfl_down_sync and __ldcg take as they are.
template <class A> struct is_scalar_word { enum { value = 0 }; };
#define CURED_SCALAR_WORD(T) template <> struct is_scalar_word<T> { enum { value = 1 }; };
CURED_SCALAR_WORD(int)
CURED_SCALAR_WORD(unsigned)
CURED_SCALAR_WORD(long long)
CURED_SCALAR_WORD(u64)
CURED_SCALAR_WORD(float)
CURED_SCALAR_WORD(double)
#undef CURED_SCALAR_WORD

// The words a struct is moved in: 64-bit when its size and alignment allow.
template <class A> struct words_of {
    static const bool WIDE = sizeof(A) % 8 == 0 && alignof(A) >= 8;
    typedef typename select_type<WIDE, u64, unsigned>::type W;
    static const int N = sizeof(A) / sizeof(W);
    union U {
        A a;
        W w[N];
    };
};

template <class A> __device__ __forceinline__ A shfl_down(A v, int off)
{
    if constexpr (is_scalar_word<A>::value) {
        return __shfl_down_sync(0xffffffffu, v, off);
    } else if constexpr (sizeof(A) < 4) { // 8- and 16-bit integer states
        return (A)__shfl_down_sync(0xffffffffu, (int)v, off);
    } else {
        static_assert(sizeof(A) % 4 == 0, "a struct accumulator is a whole number of 32-bit words");
        typename words_of<A>::U u;
        u.a = v;
#pragma unroll
        for (int j = 0; j < words_of<A>::N; j++)
            u.w[j] = __shfl_down_sync(0xffffffffu, u.w[j], off);
        return u.a;
    }
}

// Loads that bypass L1, for partials written by other blocks.
template <class A> __device__ __forceinline__ A load_cg(const A *p)
{
    if constexpr (is_scalar_word<A>::value || sizeof(A) < 4) {
        return __ldcg(p);
    } else {
        typedef typename words_of<A>::W W;
        typename words_of<A>::U u;
        const W *w = reinterpret_cast<const W *>(p);
#pragma unroll
        for (int j = 0; j < words_of<A>::N; j++)
            u.w[j] = __ldcg(w + j);
        return u.a;
    }
}

#endif
