// Tuning experiment for the statistics along axes (issue 15: >= 0.80x the
// read ceiling at every shape): segmented.cu's reduce_cols and reduce_rows
// for MEAN_VAR and LOGSUMEXP (float32) on the bench's shapes with the
// planner's geometry, timed against a streaming read ceiling in the same
// process, with a hash of each output so that builds of other kernel
// sources can be compared bit for bit. Built with nvcc on the GPU host:
//   nvcc -arch=sm_90 -O3 -std=c++17 -I../kernels-src colstune.cu -o colstune && ./colstune
// -DCOLS_MINB=k bounds reduce_cols of the statistics to k blocks an SM.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ceiling.cuh"
#ifdef COLS_MINB
#define CURED_COLS_MINB COLS_MINB // the moments' bound (stats_columns.cuh)
#endif
#include "segmented.cu"

#ifdef COLS_MINB
template <class T, class P, class R, int TX> struct ColsTuning<LogSumExp<T, P, R>, TX> { enum { MIN_BLOCKS = COLS_MINB }; };
#endif

// The bench's data (tools/axesbench.c): small integers -8 .. 7, from i and a seed.
__global__ void k_fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)((int)(((unsigned)i * 2654435761u + seed) >> 7 & 15) - 8);
}

static const int NBUF = 2, ITERS = 30;
static const size_t N = (size_t)1 << 26;
static float *bufs[NBUF];
static char *out;
static int sms;
static double ceiling_us;

template <class F> static double median_us(F launch) { return bench_median_us(launch, bufs, NBUF, ITERS); }

// FNV-1a of the output bytes of the last launch (on buffer 0).
static unsigned long long hash_out(size_t bytes)
{
    std::vector<unsigned char> h(bytes);
    CK(cudaMemcpy(h.data(), out, bytes, cudaMemcpyDeviceToHost));
    unsigned long long x = 1469598103934665603ull;
    for (unsigned char c : h) x = (x ^ c) * 1099511628211ull;
    return x;
}

static void report(const char *op, const char *shape, long long rows, long long cols, int axis, size_t obytes,
                   double us, int regs)
{
    const double bytes = (double)N * 4 + (double)obytes;
    printf("%-9s %-5s %9lld x %-9lld ax%d %8.2f us %7.1f GB/s %.3f of ceiling  regs %3d  hash %016llx\n", op, shape,
           rows, cols, axis, us, bytes / us / 1e3, bytes / us / 1e3 / (N * 4 / ceiling_us / 1e3), regs,
           hash_out(obytes));
}

template <class K> static int regs_of(K kernel)
{
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, kernel));
    return a.numRegs;
}

// Columns: rows x cols along axis 0, the planner's geometry (src/axes.c: TX 256
// up to 64 rows, else 32; VEC 4; one split, as the shapes here give).
template <class Op, int TX, int RS> static void cols(const char *name, long long rows)
{
    typedef typename Op::State A;
    const long long cols = (long long)(N / rows);
    Cols g = {};
    g.rows = rows; g.row = cols; g.batches = 1; g.batch = 0; g.cols = cols; g.out_batch = 0; g.out_col = 1;
    g.splits = 1; g.tiles = (unsigned)((cols + TX * 4 - 1) / (TX * 4)); g.group = 1; g.ngroups = 1; g.len = rows;
    auto k = reduce_cols<float, A, Op, 256, TX, 4, RS>;
    const double us = median_us([&](float *in) {
        k<<<dim3(g.tiles, 1), 256>>>(in, g, out, RS, (A *)nullptr, (unsigned *)nullptr, 0.0);
    });
    k<<<dim3(g.tiles, 1), 256>>>(bufs[0], g, out, RS, (A *)nullptr, (unsigned *)nullptr, 0.0);
    CK(cudaDeviceSynchronize());
    report(name, "cols", rows, cols, 0, (size_t)cols * RS, us, regs_of(k));
}

// Rows: rows x len along axis 1, G lanes a row (the planner: bytes / 64 rounded up to a power of 2, at most 32).
template <class Op, int G, int RS> static void rows(const char *name, long long len)
{
    typedef typename Op::State A;
    const long long nout = (long long)(N / len);
    Kept kept = {};
    kept.n = 1; kept.extent[0] = nout; kept.in_stride[0] = len; kept.out_stride[0] = 1;
    auto k = reduce_rows<float, A, Op, 256, G, 4>;
    int per = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 256, 0));
    const unsigned grid = (unsigned)std::min<long long>((nout + 256 / G - 1) / (256 / G), (long long)per * sms);
    const double us = median_us([&](float *in) { k<<<grid, 256>>>(in, nout, len, kept, out, RS, 0.0); });
    k<<<grid, 256>>>(bufs[0], nout, len, kept, out, RS, 0.0);
    CK(cudaDeviceSynchronize());
    report(name, "rows", nout, len, 1, (size_t)nout * RS, us, regs_of(k));
}

int main()
{
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int b = 0; b < NBUF; b++) {
        CK(cudaMalloc(&bufs[b], N * 4));
        k_fill<<<1024, 256>>>(bufs[b], N, 77u + b);
    }
    CK(cudaMalloc(&out, N * 8));
    CK(cudaDeviceSynchronize());
    ceiling_us = 1e30;
    for (int per = 2; per <= 16; per += 2) {
        const int grid = per * sms;
        ceiling_us = std::min(ceiling_us, median_us([&](float *in) {
                                  k_read<<<grid, 256>>>((const uint4 *)in, N / 4, (unsigned *)out);
                              }));
    }
    printf("n = %zu float32, %d SMs; ceiling %.2f us = %.1f GB/s\n", N, sms, ceiling_us, N * 4 / ceiling_us / 1e3);
    typedef MeanVar<float, double, float> MV;
    typedef LogSumExp<float, float, float> LSE;
    cols<MV, 256, 8>("MEAN_VAR", 4);
    cols<MV, 256, 8>("MEAN_VAR", 16);
    cols<MV, 256, 8>("MEAN_VAR", 64);
    cols<MV, 32, 8>("MEAN_VAR", 256);
    cols<LSE, 256, 4>("LOGSUMEXP", 4);
    cols<LSE, 256, 4>("LOGSUMEXP", 16);
    cols<LSE, 256, 4>("LOGSUMEXP", 64);
    cols<LSE, 32, 4>("LOGSUMEXP", 256);
    rows<MV, 16, 8>("MEAN_VAR", 256);
    rows<MV, 4, 8>("MEAN_VAR", 64);
    rows<MV, 1, 8>("MEAN_VAR", 16);
    rows<LSE, 16, 4>("LOGSUMEXP", 256);
    rows<LSE, 4, 4>("LOGSUMEXP", 64);
    rows<LSE, 1, 4>("LOGSUMEXP", 16);
    printf("(the ceiling again: %.2f us)\n", median_us([&](float *in) {
               k_read<<<8 * sms, 256>>>((const uint4 *)in, N / 4, (unsigned *)out);
           }));
    return 0;
}
