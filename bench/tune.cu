// Tuning experiment for the AUTO kernel (issue 5), built with nvcc on the GPU
// host: variants of the load loop from kernels-src/common.cuh timed against
// cub::DeviceReduce::Sum in one process, rotating buffers past the L2.
//   nvcc -arch=sm_90 -O3 -std=c++17 -I../kernels-src -I. tune.cu -o tune && ./tune
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#include "loads.cuh"

typedef Sum<int, long long, long long> IntSum;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// Grid-stride body (the current AUTO) with a load policy and unroll.
template <int UNROLL, class LOAD>
__global__ void __launch_bounds__(256) k_stride(const int *in, size_t n, long long *out,
                                                long long *partials, unsigned *ticket)
{
    IntSum op;
    long long v = thread_reduce_vec<int, long long, IntSum, UNROLL, LOAD>(in, n, op);
    v = block_reduce_shuffle<256>(v, op);
    finish_last_block<256>(v, out, n, partials, ticket, op);
}

// Blocked body: each block owns one contiguous range of vectors.
template <int UNROLL, class LOAD>
__global__ void __launch_bounds__(256) k_blocked(const int *in, size_t n, long long *out,
                                                 long long *partials, unsigned *ticket)
{
    IntSum op;
    const uint4 *body = reinterpret_cast<const uint4 *>(in); // aligned input in this experiment
    size_t nvec = n / 4, per = (nvec + gridDim.x - 1) / gridDim.x;
    size_t start = blockIdx.x * per, end = start + per < nvec ? start + per : nvec;
    long long acc = 0;
    size_t i = start + threadIdx.x;
    for (; i + (UNROLL - 1) * 256 < end; i += UNROLL * 256) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = LOAD::load(body + i + u * 256);
#pragma unroll
        for (int u = 0; u < UNROLL; u++) acc = op(acc, reduce_vec<int, long long>(v[u], 0, op));
    }
    for (; i < end; i += 256) acc = op(acc, reduce_vec<int, long long>(LOAD::load(body + i), 0, op));
    if (blockIdx.x == 0 && threadIdx.x < n % 4) acc += in[nvec * 4 + threadIdx.x];
    acc = block_reduce_shuffle<256>(acc, op);
    finish_last_block<256>(acc, out, n, partials, ticket, op);
}

typedef void (*kern)(const int *, size_t, long long *, long long *, unsigned *);

struct Variant { const char *name; kern k; int blocks_per_sm; };

int main(int argc, char **argv)
{
    int dev = 0, sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    std::vector<size_t> sizes = {1 << 20, 1 << 24, 1 << 26, 1 << 28};
    size_t maxn = sizes.back(), total_bytes = 1ull << 30; // rotate over >= 1 GiB
    int nbuf_max = (int)std::max<size_t>(2, total_bytes / (sizes.front() * 4));
    int *pool; long long *out, *partials; unsigned *ticket;
    size_t pool_elems = std::max(maxn * 2, total_bytes / 4) + 64;
    CK(cudaMalloc(&pool, pool_elems * 4));
    CK(cudaMalloc(&out, 8 * 4096)); CK(cudaMalloc(&partials, 8 * 65536));
    CK(cudaMalloc(&ticket, 4)); CK(cudaMemset(ticket, 0, 4));
    { std::vector<int> h(pool_elems); unsigned x = 12345;
      for (auto &e : h) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; e = (int)(x % 2001) - 1000; }
      CK(cudaMemcpy(pool, h.data(), pool_elems * 4, cudaMemcpyHostToDevice)); }
    Variant vs[] = {
        {"stride u4 ldg  8/SM (AUTO v1)", k_stride<4, LoadLdg>, 8},
        {"stride u8 ldg  8/SM", k_stride<8, LoadLdg>, 8},
        {"stride u4 L2256 8/SM", k_stride<4, LoadL2_256>, 8},
        {"stride u8 L2256 8/SM", k_stride<8, LoadL2_256>, 8},
        {"stride u4 ldcs 8/SM", k_stride<4, LoadStream>, 8},
        {"stride u4 L2256 4/SM", k_stride<4, LoadL2_256>, 4},
        {"stride u8 L2256 4/SM", k_stride<8, LoadL2_256>, 4},
        {"stride u4 L2256 16/SM", k_stride<4, LoadL2_256>, 16},
        {"blocked u4 ldg 8/SM", k_blocked<4, LoadLdg>, 8},
        {"blocked u4 L2256 8/SM", k_blocked<4, LoadL2_256>, 8},
        {"blocked u8 L2256 8/SM", k_blocked<8, LoadL2_256>, 8},
    };
    void *cub_tmp = nullptr; size_t cub_bytes = 0;
    CK(cub::DeviceReduce::Sum(nullptr, cub_bytes, pool, out, (long long)maxn));
    CK(cudaMalloc(&cub_tmp, cub_bytes + 1024));
    cudaStream_t s; CK(cudaStreamCreate(&s));
    const int iters = argc > 1 ? atoi(argv[1]) : 100;
    std::vector<cudaEvent_t> ev(2 * iters);
    for (auto &e : ev) CK(cudaEventCreate(&e));
    for (size_t n : sizes) {
        int nbuf = (int)std::min<size_t>(nbuf_max, std::max<size_t>(2, total_bytes / (n * 4)));
        if ((size_t)nbuf * n > pool_elems) nbuf = (int)(pool_elems / n);
        printf("\nn = %zu (%.1f MiB), %d buffers\n", n, n * 4 / 1048576.0, nbuf);
        double cub_med = 0;
        for (int v = -1; v < (int)(sizeof vs / sizeof *vs); v++) {
            auto run = [&](int i) {
                const int *in = pool + (size_t)(i % nbuf) * n;
                if (v < 0) { size_t b = cub_bytes; CK(cub::DeviceReduce::Sum(cub_tmp, b, in, out, (long long)n, s)); }
                else {
                    unsigned grid = (unsigned)std::min<size_t>((size_t)vs[v].blocks_per_sm * sms,
                                                            (n / 4 + 255) / 256);
                    vs[v].k<<<grid, 256, 0, s>>>(in, n, out, partials, ticket);
                }
            };
            for (int i = 0; i < 20; i++) run(i);
            for (int i = 0; i < iters; i++) { CK(cudaEventRecord(ev[2 * i], s)); run(i); CK(cudaEventRecord(ev[2 * i + 1], s)); }
            CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
            std::vector<float> t(iters);
            for (int i = 0; i < iters; i++) CK(cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]));
            std::sort(t.begin(), t.end());
            double med = t[iters / 2] * 1e3;
            if (v < 0) cub_med = med;
            long long r; CK(cudaMemcpy(&r, out, 8, cudaMemcpyDeviceToHost));
            printf("  %-32s %9.2f us %8.1f GB/s  %.3fx CUB  (min %.2f) result %lld\n",
                   v < 0 ? "CUB DeviceReduce::Sum" : vs[v].name, med, n * 4 / med / 1e3,
                   cub_med / med, t[0] * 1e3, r);
        }
    }
    return 0;
}
