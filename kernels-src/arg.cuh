// argmin and argmax: a branchless per-thread loop over 16-byte vectors, then
// ends that reduce (key rank, index) as unsigned words in lexicographic order.
#ifndef CURED_ARG_CUH
#define CURED_ARG_CUH

#include "extremes.cuh"

// argmin/argmax per thread, without a branch: each vector gives its extreme
// key (VecBest); one that beats the thread's best replaces it, with the
// vector itself and its position `at` (selects). A thread meets its indices
// in increasing order, so a tie keeps the best. The lanes of the one winning
// vector are searched once, at the end: a search per better vector would
// run warp-wide at most visits, since some thread of a warp finds a new
// best at most of them (bench/NOTES.md).
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
__device__ Arg<K> thread_arg_vec(const T *in, size_t n, size_t rank, size_t size, ArgOf<T, K, R, MAX, IGN> op)
{
    typedef ArgOf<T, K, R, MAX, IGN> Op;
    const int VEC = 16 / sizeof(T);
    const K worst = MAX ? limits<K>::lowest() : limits<K>::highest();
    ArgVisitor<T, K, Op, MAX, IGN> vis = {op, Op::identity(), worst, ~0u, {0u, 0u, 0u, 0u}};
    Source1<T> src = {in};
    thread_visit<T, UNROLL, LoadLdg>(src, n, rank, size, vis);

    const size_t head = vec_head(in, n);
    if (rank < (n - head) / VEC) { // this thread read vectors rank, rank + size, ...
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
        Arg<K> b = {vis.best, (long long)(head + (rank + (size_t)(vis.pos / VEC) * size) * VEC + lane)};
        vis.acc = op(vis.acc, b);
    }
    return vis.acc;
}

// argmin/argmax take their own per-thread loop.
template <class T, class K, class R, bool MAX, bool IGN> struct ThreadLoop<ArgOf<T, K, R, MAX, IGN> > {
    template <class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, size_t rank, size_t size, ArgOf<T, K, R, MAX, IGN> op)
    {
        return thread_arg_vec<T, K, R, MAX, IGN, UNROLL>(in, n, rank, size, op);
    }
};

// The end of an ARG reduction as NW unsigned 32-bit words, most significant
// first, whose lexicographic order is the operator's: the key's rank (one
// word for 32-bit keys, two for 64-bit ones), then the index (one word when
// n <= 2^32 - 1, else two). All ones is "no element" (no index reaches it).
// Blocks and the grid take the minimum word by word: on sm_80 and newer one
// redux.sync per word per warp (warp_reduce, common.cuh) instead of five shuffle
// steps of a (key, int64 index) compare.
template <int NW> struct Lex { unsigned w[NW]; };
template <class T, class K, class R, bool MAX, bool IGNORE_NAN, int NW> struct ArgLex {
    ArgOf<T, K, R, MAX, IGNORE_NAN> op;
    static const int KW = sizeof(K) / 4, IW = NW - KW; // words of key rank and index
    __device__ static u64 rank(K k) { return key_rank<K, MAX>(k); }
    __device__ static K key(u64 r) { return (K)rank((K)r); }
    __device__ static Lex<NW> identity()
    {
        Lex<NW> x;
#pragma unroll
        for (int j = 0; j < NW; j++)
            x.w[j] = 0xffffffffu;
        return x;
    }
    __device__ static Lex<NW> pack(Arg<K> a)
    {
        if (a.i == CURED_NO_INDEX)
            return identity();
        Lex<NW> x;
        const u64 r = rank(a.k);
        if (KW == 2)
            x.w[0] = (unsigned)(r >> 32);
        x.w[KW - 1] = (unsigned)r;
        if (IW == 2)
            x.w[KW] = (unsigned)((u64)a.i >> 32);
        x.w[NW - 1] = (unsigned)a.i;
        return x;
    }
    __device__ Lex<NW> operator()(Lex<NW> a, Lex<NW> b) const
    {
        bool less = false, tied = true; // b < a
#pragma unroll
        for (int j = 0; j < NW; j++) {
            less = less || (tied && b.w[j] < a.w[j]);
            tied = tied && b.w[j] == a.w[j];
        }
        return less ? b : a;
    }
    __device__ void write(void *out, Lex<NW> x, u64 n) const
    {
        u64 r = KW == 2 ? (u64)x.w[0] << 32 | x.w[1] : x.w[0];
        u64 i = IW == 2 ? (u64)x.w[KW] << 32 | x.w[NW - 1] : x.w[KW];
        bool none = IW == 2 ? i == ~0ull : i == 0xffffffffull;
        Arg<K> a = {key(r), none ? CURED_NO_INDEX : (long long)i};
        op.write(out, a, n);
    }
};

template <int NW, class Op> __device__ Lex<NW> warp_reduce(Lex<NW> v, Op op)
{
#if __CUDA_ARCH__ >= 800
    warp_lex_min(v.w);
    return v;
#else
    return warp_reduce_shuffle(v, op);
#endif
}

// ARG ends as words (ArgLex): the key's rank, then the index in one word
// when n <= 2^32 - 1 (always, in practice) or two; one redux.sync per word
// per warp instead of shuffling (key, int64 index) pairs (bench/NOTES.md).
template <int BLOCK, int NW, class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_arg(Arg<K> v, void *out, size_t n, void *partials, unsigned int *ticket,
                                           unsigned block, unsigned nblocks, ArgOf<T, K, R, MAX, IGN> op)
{
    typedef ArgLex<T, K, R, MAX, IGN, NW> Op;
    Op lx = {op};
    Lex<NW> x = block_reduce_shuffle<BLOCK>(Op::pack(v), lx);
    finish_last_block<BLOCK, Lex<NW>, Op, NW == 2 ? 8 : 4>(x, out, n, reinterpret_cast<Lex<NW> *>(partials), ticket,
                                                         block, nblocks, lx);
}
template <int BLOCK, class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void finish_grid(Arg<K> v, void *out, size_t n, Arg<K> *partials, unsigned int *ticket,
                                            unsigned block, unsigned nblocks, ArgOf<T, K, R, MAX, IGN> op)
{
    const int KW = sizeof(K) / 4;
    if (n <= 0xffffffffull)
        finish_arg<BLOCK, KW + 1>(v, out, n, partials, ticket, block, nblocks, op);
    else
        finish_arg<BLOCK, KW + 2>(v, out, n, partials, ticket, block, nblocks, op);
}

#endif
