// Tuning experiment for argmin (issue 4), built with nvcc on the GPU host:
// variants of the per-vector step of kernels-src/common.cuh timed against
// cub::DeviceReduce::ArgMin in one process, buffers rotated past the L2.
//   nvcc -arch=sm_90 -O3 -std=c++17 -I../kernels-src argtune.cu -o argtune && ./argtune [iters]
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include "common.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// The library's argmin is ArgOf through thread_arg_vec: branchless, the
// winning vector kept in registers and searched once at the end; the ends
// work on words (ArgLex), one redux.sync per word per warp. The variants
// below swap the loop or the end, to time each against MIN
// (bench/NOTES.md, "ARG").
//   HOW 0: the library's kernel;
//   HOW 1: its loop, then the (key, int64 index) end of v4b (shuffles; v4's
//          library end for 64-bit keys);
//   HOW 2: its loop, then the MIN kernel's end over its key alone;
//   HOW 3: its loop, then v4c's 64-bit packed end with shuffles (v4's
//          library end for 32-bit keys; 64-bit keys: as HOW 1).
template <class K> struct KeyMin {
    __device__ static K identity() { return limits<K>::highest(); }
    __device__ K operator()(K a, K b) const { return b < a ? b : a; }
    __device__ void write(void *out, K a, u64) const { *(K *)out = a; }
};

// v4c's end: (rank, index) packed in a u64, combined with a 64-bit min.
template <class T, class K, class R, bool MAX, bool IGNORE_NAN> struct PackedArg {
    ArgOf<T, K, R, MAX, IGNORE_NAN> op;
    __device__ static unsigned rank(K k)
    {
        unsigned r = (unsigned)k ^ (limits<K>::lowest() != K(0) ? 0x80000000u : 0u);
        return MAX ? ~r : r;
    }
    __device__ static K key(unsigned r)
    {
        r = MAX ? ~r : r;
        return (K)(r ^ (limits<K>::lowest() != K(0) ? 0x80000000u : 0u));
    }
    __device__ static u64 identity() { return ~0ull; }
    __device__ static u64 pack(Arg<K> a)
    {
        return a.i == CURED_NO_INDEX ? ~0ull : (u64)rank(a.k) << 32 | (u64)(unsigned)a.i;
    }
    __device__ u64 operator()(u64 a, u64 b) const { return b < a ? b : a; }
    __device__ void write(void *out, u64 p, u64 n) const
    {
        Arg<K> a = {key((unsigned)(p >> 32)), p == ~0ull ? CURED_NO_INDEX : (long long)(p & 0xffffffffull)};
        op.write(out, a, n);
    }
};

template <class T, class K, int UNROLL, int MINB, int HOW>
__global__ void __launch_bounds__(256, MINB) k_arg(const T *in, size_t n, void *out, Arg<K> *partials,
                                                   unsigned *ticket)
{
    typedef ArgOf<T, K, T, false, false> Op;
    Op op;
    op.in = in;
    Arg<K> v = thread_arg_vec<T, K, T, false, false, UNROLL>(in, n, op);
    if (HOW == 0) {
        finish_grid<256>(v, out, n, partials, ticket, op);
    } else if (HOW == 3 && sizeof(K) == 4) {
        PackedArg<T, K, T, false, false> pk = {op};
        u64 p = block_reduce_shuffle<256>(pk.pack(v), pk);
        finish_last_block<256, u64, PackedArg<T, K, T, false, false>, 8>(p, out, n, (u64 *)partials, ticket, pk);
    } else if (HOW == 1 || HOW == 3) {
        v = block_reduce_shuffle<256>(v, op);
        finish_last_block<256, Arg<K>, Op, 4>(v, out, n, partials, ticket, op);
    } else {
        K k = v.i == CURED_NO_INDEX ? limits<K>::highest() : v.k + (v.i == 0x7fffffff12345ll); // keeps the index live
        k = block_reduce_shuffle<256>(k, KeyMin<K>());
        finish_last_block<256>(k, out, n, (K *)partials, ticket, KeyMin<K>());
    }
}

// MIN of the same elements (no index), for what a compare chain alone costs.
template <class T> struct min_of { typedef T V; };
template <> struct min_of<half_t> { typedef float V; };
// the key type of ArgOf (src/specs.c)
template <class T> struct key_of { typedef int K; };
template <> struct key_of<long long> { typedef long long K; };
template <> struct key_of<double> { typedef long long K; };
template <class T, int MINB>
__global__ void __launch_bounds__(256, MINB) k_min(const T *in, size_t n, void *out, void *partials, unsigned *ticket)
{
    typedef typename min_of<T>::V V;
    Min<T, V, T> op;
    V v = thread_reduce_vec<T, V, Min<T, V, T>, 4>(in, n, op);
    v = block_reduce_shuffle<256>(v, op);
    finish_last_block<256>(v, out, n, (V *)partials, ticket, op);
}

// The same bytes summed as int32 (the library's SUM): what the loads alone allow.
__global__ void __launch_bounds__(256) k_sum(const int *in, size_t n, void *out, long long *partials,
                                             unsigned *ticket)
{
    Sum<int, long long, long long> op;
    long long v = thread_reduce_vec<int, long long, Sum<int, long long, long long>, 4>(in, n, op);
    v = block_reduce_shuffle<256>(v, op);
    finish_last_block<256>(v, out, n, partials, ticket, op);
}

// MIN whose block and grid ends combine integer order keys (one integer
// min per step) instead of pick()'s float compare and two NaN tests: the
// next step for float32/float64 MIN, 1.5 us behind their SUM (bench/NOTES.md, "MIN and MAX").
// Writes the key; timing only.
template <class T, int MINB>
__global__ void __launch_bounds__(256, MINB) k_min_keys(const T *in, size_t n, void *out, void *partials,
                                                        unsigned *ticket)
{
    typedef typename min_of<T>::V V;
    typedef typename key_of<T>::K K;
    Min<T, V, T> op;
    V v = thread_reduce_vec<T, V, Min<T, V, T>, 4>(in, n, op);
    K k = order_key<K>(v, limits<K>::lowest()); // NaN wins, as in MIN
    k = block_reduce_shuffle<256>(k, KeyMin<K>());
    finish_last_block<256>(k, out, n, (K *)partials, ticket, KeyMin<K>());
}

// The library's MIN: float types end on minmax keys (redux.sync, v5).
template <class T, int MINB>
__global__ void __launch_bounds__(256, MINB) k_min_lib(const T *in, size_t n, void *out, void *partials,
                                                       unsigned *ticket)
{
    typedef typename min_of<T>::V V;
    Min<T, V, T> op;
    V v = thread_reduce_vec<T, V, Min<T, V, T>, 4>(in, n, op);
    finish_grid<256>(v, out, n, (V *)partials, ticket, op);
}

template <class T> struct cub_type { typedef T type; };
template <> struct cub_type<half_t> { typedef __half type; };

typedef void (*kern)(const void *, size_t, void *, void *, unsigned *);
struct Variant { const char *name; kern k; bool index = true; int per_sm = 0; };
#define V(name, ...) {name, (kern)(__VA_ARGS__)}

template <class T>
static void run_type(const char *tname, size_t n, int iters, char *pool, size_t pool_bytes, void *out,
                     void *partials, unsigned *ticket, cudaStream_t s, int sms)
{
    typedef typename cub_type<T>::type C;
    const size_t bytes = n * sizeof(T);
    const int nbuf = (int)std::max<size_t>(1, std::min<size_t>(pool_bytes / bytes, 16));
    typedef typename key_of<T>::K K;
    std::vector<Variant> vs = {
        V("library (v5: redux end)", k_arg<T, K, 4, 0, 0>),
        V("v4 library: packed/pair end", k_arg<T, K, 4, 0, 3>),
        V("v4b: (key, int64 index) end", k_arg<T, K, 4, 0, 1>),
        V("library (v5) again", k_arg<T, K, 4, 0, 0>),
        {"ARG loop, MIN end", (kern)k_arg<T, K, 4, 0, 2>, false},
        {"(MIN, no index)", (kern)k_min<T, 0>, false},
        {"(MIN, ends on integer keys)", (kern)k_min_keys<T, 0>, false},
        {"(MIN, library v5: keys, redux)", (kern)k_min_lib<T, 0>, false},
    };
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    int64_t *cub_idx = (int64_t *)out;
    C *cub_val = (C *)((char *)out + 8);
    CK(cub::DeviceReduce::ArgMin(nullptr, tmp_bytes, (const C *)pool, cub_val, cub_idx, (int64_t)n, s));
    CK(cudaMalloc(&tmp, tmp_bytes));
    std::vector<cudaEvent_t> ev(2 * iters);
    for (auto &e : ev) CK(cudaEventCreate(&e));
    printf("\n%s argmin, n = %zu (%.0f MiB), %d buffers\n", tname, n, bytes / 1048576.0, nbuf);
    double cub_med = 0;
    long long want[16];
    for (int v = -2; v < (int)vs.size(); v++) {
        int grid = 0;
        if (v >= 0) {
            int per = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, vs[v].k, 256, 0));
            if (vs[v].per_sm) per = std::min(per, vs[v].per_sm);
            grid = (int)std::min<size_t>((size_t)per * sms, (n / (16 / sizeof(T)) + 1023) / 1024);
        } else if (v == -1) {
            int per = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_sum, 256, 0));
            grid = per * sms;
        }
        auto run = [&](int i) {
            const T *in = (const T *)(pool + (size_t)(i % nbuf) * bytes);
            if (v == -2) {
                size_t b = tmp_bytes;
                CK(cub::DeviceReduce::ArgMin(tmp, b, (const C *)in, cub_val, cub_idx, (int64_t)n, s));
            } else if (v == -1) {
                k_sum<<<grid, 256, 0, s>>>((const int *)in, bytes / 4, out, (long long *)partials, ticket);
            } else {
                vs[v].k<<<grid, 256, 0, s>>>(in, n, out, partials, ticket);
            }
        };
        // correctness: the index on each buffer equals CUB's
        int wrong = 0;
        for (int b = 0; b < nbuf; b++) {
            run(b);
            long long idx;
            CK(cudaMemcpy(&idx, out, 8, cudaMemcpyDeviceToHost));
            if (v == -2) want[b] = idx;
            else if (v >= 0 && vs[v].index && idx != want[b]) wrong++;
        }
        for (int i = 0; i < 10; i++) run(i);
        for (int i = 0; i < iters; i++) {
            CK(cudaEventRecord(ev[2 * i], s));
            run(i);
            CK(cudaEventRecord(ev[2 * i + 1], s));
        }
        CK(cudaStreamSynchronize(s));
        CK(cudaGetLastError());
        std::vector<float> t(iters);
        for (int i = 0; i < iters; i++) CK(cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]));
        std::sort(t.begin(), t.end());
        double med = t[iters / 2] * 1e3;
        if (v == -2) cub_med = med;
        int regs = 0;
        if (v >= 0) {
            cudaFuncAttributes a;
            CK(cudaFuncGetAttributes(&a, vs[v].k));
            regs = a.numRegs;
        }
        printf("  %-34s %8.2f us %7.1f GB/s %6.3fx CUB  regs %2d grid %5d %s\n",
               v == -2 ? "CUB DeviceReduce::ArgMin" : v == -1 ? "(int32 sum of the same bytes)" : vs[v].name, med,
               bytes / med / 1e3, cub_med / med, regs, grid, v >= 0 && wrong ? "WRONG INDEX" : "");
    }
    for (auto &e : ev) CK(cudaEventDestroy(e));
    CK(cudaFree(tmp));
}

int main(int argc, char **argv)
{
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int iters = argc > 1 ? atoi(argv[1]) : 200;
    const size_t n = 1 << 26, pool_bytes = (size_t)1 << 30;
    char *pool;
    void *out, *partials;
    unsigned *ticket;
    CK(cudaMalloc(&pool, pool_bytes));
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&partials, 16 * 65536));
    CK(cudaMalloc(&ticket, 4));
    CK(cudaMemset(ticket, 0, 4));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::vector<unsigned> h(pool_bytes / 4);
    unsigned x = 12345;
    for (auto &e : h) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; e = x; }
    // finite halves (no exponent 31) in every 16-bit lane; any int and float bits (NaN-free)
    std::vector<unsigned> hh(h);
    for (auto &e : hh) e &= 0xbbffbbffu;
    for (auto &e : h) if (((e >> 23) & 0xff) == 0xff) e &= 0xbfffffffu;
    CK(cudaMemcpy(pool, h.data(), pool_bytes, cudaMemcpyHostToDevice));
    run_type<int>("int32", n, iters, pool, pool_bytes, out, partials, ticket, s, sms);
    run_type<float>("float32", n, iters, pool, pool_bytes, out, partials, ticket, s, sms);
    run_type<long long>("int64", n, iters, pool, pool_bytes, out, partials, ticket, s, sms);
    // NaN-free doubles: no exponent 0x7ff in the high words
    std::vector<unsigned> hd(h);
    for (size_t i = 1; i < hd.size(); i += 2) if (((hd[i] >> 20) & 0x7ff) == 0x7ff) hd[i] &= 0xbfffffffu;
    CK(cudaMemcpy(pool, hd.data(), pool_bytes, cudaMemcpyHostToDevice));
    run_type<double>("float64", n, iters, pool, pool_bytes, out, partials, ticket, s, sms);
    CK(cudaMemcpy(pool, hh.data(), pool_bytes, cudaMemcpyHostToDevice));
    run_type<half_t>("float16", n, iters, pool, pool_bytes, out, partials, ticket, s, sms);
    return 0;
}
