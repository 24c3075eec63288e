// What bench/mvtune.cu and bench/colstune.cu share: a CUDA return-code check,
// the read ceiling they time the library's kernels against, and the timing.
#ifndef CURED_BENCH_CEILING_CUH
#define CURED_BENCH_CEILING_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

// The ceiling: streaming 16-byte reads, 8 in flight, xor-folded.
__global__ void __launch_bounds__(256) k_read(const uint4 *in, size_t nvec, unsigned *out)
{
    unsigned acc = 0;
    const size_t step = (size_t)gridDim.x * 256;
    size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
    for (; i + 7 * step < nvec; i += 8 * step) {
        uint4 v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) v[u] = __ldcs(in + i + u * step);
#pragma unroll
        for (int u = 0; u < 8; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < nvec; i += step) { uint4 v = __ldcs(in + i); acc ^= v.x ^ v.y ^ v.z ^ v.w; }
    if (acc == 0x12345678u) out[0] = acc;
}

// The median of `iters` timed launches (cudaEvents) after 3 untimed ones, in µs;
// launch k reads bufs[k % nbuf], so that the input does not sit in L2.
template <class F> static double bench_median_us(F launch, float *const *bufs, int nbuf, int iters)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int it = 0; it < iters + 3; it++) {
        CK(cudaEventRecord(a));
        launch(bufs[it % nbuf]);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (it >= 3) t.push_back(ms * 1000.0f);
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

#endif
