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

// The library's argmin is ArgOf through thread_arg_vec (32-bit positions).
// Earlier candidates, kept for the record: derived operators whose own
// per-vector step (below) keeps a 64-bit index in the partial, through
// thread_reduce_vec; they inherit keys, combine and write from ArgOf.
template <class T> struct ArgBranchless : ArgOf<T, int, T, false, false> {};
template <class T> struct ArgPackedFirst : ArgOf<T, int, T, false, false> {};
// Every lane's key, the extreme, then selects only (no branch).
template <class T> struct VecStep<ArgBranchless<T> > {
    template <class TT, class A> __device__ static A step(A acc, uint4 v, u64 i0, ArgBranchless<T> op)
    {
        const int VEC = 16 / sizeof(T);
        const T *e = reinterpret_cast<const T *>(&v);
        int key[VEC];
#pragma unroll
        for (int l = 0; l < VEC; l++) key[l] = op.key(e[l]);
        int best = key[0];
#pragma unroll
        for (int l = 1; l < VEC; l++) best = min(best, key[l]);
        int lane = VEC - 1;
#pragma unroll
        for (int l = VEC - 2; l >= 0; l--) lane = key[l] == best ? l : lane;
        bool take = acc.i == CURED_NO_INDEX || best < acc.k;
        acc.k = take ? best : acc.k;
        acc.i = take ? (long long)(i0 + lane) : acc.i;
        return acc;
    }
};

// Packed min over the vector first (sm_80+ min.NaN), its key, then the rare
// first-lane search with every lane's key. For int32 the min chain itself.
__device__ __forceinline__ unsigned vec_min_bits(uint4 v, half_t)
{
    unsigned w = packed_extreme<half_t, false, false>(packed_extreme<half_t, false, false>(v.x, v.y),
                                                      packed_extreme<half_t, false, false>(v.z, v.w));
    return packed_extreme<half_t, false, false>(w, w >> 16) & 0xffff;
}
__device__ __forceinline__ unsigned vec_min_bits(uint4 v, float)
{
    return packed_extreme<float, false, false>(packed_extreme<float, false, false>(v.x, v.y),
                                               packed_extreme<float, false, false>(v.z, v.w));
}
__device__ __forceinline__ unsigned vec_min_bits(uint4 v, int)
{
    return (unsigned)min(min((int)v.x, (int)v.y), min((int)v.z, (int)v.w));
}
template <class T> __device__ __forceinline__ T from_bits(unsigned b) { T t; memcpy(&t, &b, sizeof t); return t; }
template <> __device__ __forceinline__ half_t from_bits<half_t>(unsigned b) { half_t h = {(unsigned short)b}; return h; }

template <class T> struct VecStep<ArgPackedFirst<T> > {
    template <class TT, class A> __device__ static A step(A acc, uint4 v, u64 i0, ArgPackedFirst<T> op)
    {
        const int VEC = 16 / sizeof(T);
        int best = op.key(from_bits<T>(vec_min_bits(v, T())));
        if (acc.i == CURED_NO_INDEX || best < acc.k) {
            const T *e = reinterpret_cast<const T *>(&v);
            int lane = VEC - 1;
#pragma unroll
            for (int l = VEC - 2; l >= 0; l--) lane = op.key(e[l]) == best ? l : lane;
            acc.k = best;
            acc.i = (long long)(i0 + lane);
        }
        return acc;
    }
};

// MIN of the same elements (no index), for what a compare chain alone costs.
template <class T> struct min_of { typedef T V; };
template <> struct min_of<half_t> { typedef float V; };
template <class T>
__global__ void __launch_bounds__(256) k_min(const T *in, size_t n, void *out, void *partials, unsigned *ticket)
{
    typedef typename min_of<T>::V V;
    Min<T, V, T> op;
    V v = thread_reduce_vec<T, V, Min<T, V, T>, 4>(in, n, op);
    v = block_reduce_shuffle<256>(v, op);
    finish_last_block<256>(v, out, n, (V *)partials, ticket, op);
}

template <class T, class Op, int UNROLL, int MINB>
__global__ void __launch_bounds__(256, MINB) k_arg(const T *in, size_t n, void *out, Arg<int> *partials,
                                                   unsigned *ticket)
{
    Op op;
    op.in = in;
    Arg<int> v = ThreadLoop<Op>::template run<T, Arg<int>, UNROLL>(in, n, op);
    v = block_reduce_shuffle<256>(v, op);
    finish_last_block<256>(v, out, n, partials, ticket, op);
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

template <class T> struct cub_type { typedef T type; };
template <> struct cub_type<half_t> { typedef __half type; };

typedef void (*kern)(const void *, size_t, void *, void *, unsigned *);
struct Variant { const char *name; kern k; bool index = true; };
#define V(name, ...) {name, (kern)(__VA_ARGS__)}

template <class T>
static void run_type(const char *tname, size_t n, int iters, char *pool, size_t pool_bytes, void *out,
                     void *partials, unsigned *ticket, cudaStream_t s, int sms)
{
    typedef typename cub_type<T>::type C;
    const size_t bytes = n * sizeof(T);
    const int nbuf = (int)std::max<size_t>(1, std::min<size_t>(pool_bytes / bytes, 16));
    std::vector<Variant> vs = {
        V("library, unroll 4", k_arg<T, ArgOf<T, int, T, false, false>, 4, 1>),
        V("library, unroll 4, 8 blocks/SM", k_arg<T, ArgOf<T, int, T, false, false>, 4, 8>),
        V("library, unroll 8", k_arg<T, ArgOf<T, int, T, false, false>, 8, 1>),
        V("64-bit index, branchless", k_arg<T, ArgBranchless<T>, 4, 1>),
        V("64-bit index, branchless, 8/SM", k_arg<T, ArgBranchless<T>, 4, 8>),
        V("64-bit index, packed first", k_arg<T, ArgPackedFirst<T>, 4, 1>),
        V("64-bit index, packed first, 8/SM", k_arg<T, ArgPackedFirst<T>, 4, 8>),
        V("64-bit index, packed first, u2", k_arg<T, ArgPackedFirst<T>, 2, 1>),
        V("64-bit index, packed first, u8", k_arg<T, ArgPackedFirst<T>, 8, 1>),
        {"(MIN, no index)", (kern)k_min<T>, false},
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
    CK(cudaMemcpy(pool, hh.data(), pool_bytes, cudaMemcpyHostToDevice));
    run_type<half_t>("float16", n, iters, pool, pool_bytes, out, partials, ticket, s, sms);
    return 0;
}
