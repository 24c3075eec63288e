// Tuning experiment for the whole-array statistics kernel (issue 15's MEAN_VAR
// goal, >= 0.95x cured's SUM): reduce_stats' body (kernels-src/stats.cu) built
// with other unrolls and occupancy bounds, and probe loops that add the
// per-element operations one at a time, each timed against a streaming read
// ceiling in the same process. Built with nvcc on the GPU host:
//   nvcc -arch=sm_90 -O3 -std=c++17 -I../kernels-src mvtune.cu -o mvtune && ./mvtune
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ceiling.cuh"
#include "stats.cu"

// reduce_stats with the unroll and the blocks-per-SM bound as parameters.
// END 0: the library's end (grid.cuh's finish_last_block with stats.cuh's
// StatsTuning::END_PER); 2: each block stores its partial only (no last
// block: the cost of the end is the difference). v20's END 1 (the pairwise
// tree loading 4 partials a thread) is gone: with 4 a thread the moments
// and LOGSUMEXP now take the all-at-once end; END 5 is the pairwise tree.
// END 3: the library's end with a timeline (g_stamp: globaltimer of each
// block's start and loop end, clock64 of the last block's phases). END 4:
// the pairwise tree with the merges replaced by plain adds of the four
// fields (the data movement of the end without its arithmetic; moments
// only). END 5: the pairwise tree of the operator's merges (grid.cuh's
// combine_in_order, the end before v21), timed.
__device__ unsigned long long g_stamp[16 + 2 * 4096];
__device__ __forceinline__ unsigned long long gtime()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
template <class Op> struct CheapEnd {
    typedef typename Op::State State;
    Op op;
    __device__ CheapEnd(Op o) : op(o) {}
    __device__ static State identity() { return Op::identity(); }
    __device__ State operator()(State a, State b) const
    {
        State r = {a.n + b.n, a.hi + b.hi, a.lo + b.lo, a.m2 + b.m2};
        return r;
    }
    __device__ void write(void *out, State s, u64 n) const { op.write(out, s, n); }
};
template <int BLOCK, bool LIB, class A, class Op>
__device__ void finish_timed(A block_value, void *out, size_t n, A *partials, unsigned int *ticket, Op op,
                             unsigned long long t0)
{
    __shared__ bool last;
    const unsigned block = blockIdx.x, nblocks = gridDim.x;
    if (threadIdx.x == 0) {
        g_stamp[16 + block] = t0;
        g_stamp[16 + 4096 + block] = gtime();
        partials[block] = block_value;
        __threadfence();
        last = atomicAdd(ticket, 1u) == nblocks - 1;
    }
    __syncthreads();
    if (!last)
        return;
    const long long c0 = clock64();
    __threadfence();
    A v;
    const long long c1 = clock64(); // (the loads and the tree together)
    if (LIB)
        v = CombinePartials<Op>::template run<BLOCK, StatsTuning<Op>::END_PER>(partials, nblocks, op);
    else
        v = combine_in_order<BLOCK, 1>(partials, nblocks, op);
    const long long c2 = clock64();
    if (threadIdx.x == 0) {
        op.write(out, v, n);
        *ticket = 0;
        __threadfence();
        const long long c3 = clock64();
        g_stamp[0] = gtime();
        g_stamp[1] = c1 - c0;
        g_stamp[2] = c2 - c1;
        g_stamp[3] = c3 - c2;
        g_stamp[4] = block;
    }
}

template <class T, class Op, int BLOCK, int UNROLL, int MINB, int END = 0>
__global__ void __launch_bounds__(BLOCK, MINB)
k_stats(const T *in, size_t n, void *out, typename Op::State *partials, unsigned int *ticket, double ddof)
{
    const unsigned long long t0 = END >= 3 ? gtime() : 0;
    Op op;
    bind_ddof(op, ddof);
    typename Op::State v = BlockLoop<Op>::template run<BLOCK, T, typename Op::State, UNROLL>(
        in, n, (size_t)blockIdx.x * blockDim.x, (size_t)gridDim.x * blockDim.x, op);
    if constexpr (END == 0)
        finish_last_block<BLOCK, typename Op::State, Op, StatsTuning<Op>::END_PER>(v, out, n, partials, ticket,
                                                                                  blockIdx.x, gridDim.x, op);
    else if constexpr (END == 2) {
        if (threadIdx.x == 0)
            partials[blockIdx.x] = v;
    } else if constexpr (END == 3)
        finish_timed<BLOCK, true>(v, out, n, partials, ticket, op, t0);
    else if constexpr (END == 4)
        finish_timed<BLOCK, false>(v, out, n, partials, ticket, CheapEnd<Op>(op), t0);
    else
        finish_timed<BLOCK, false>(v, out, n, partials, ticket, op, t0);
}

// Probe loops over float32: MODE 0 float sum, 1 float64 sum (conversion and
// add), 2 float64 sum and sum of squares, 3 the shifted sums (subtract, add,
// fma), 4 shifted sums with the difference taken in float32 (not exact: a
// probe of the cost only).
template <int MODE> struct Probe {
    static const bool HEAD_LAST = false;
    double k, s1, s2;
    float f;
    __device__ __forceinline__ void add(float x)
    {
        if (MODE == 0) f += x;
        if (MODE == 1) s1 += (double)x;
        if (MODE == 2) { const double d = x; s1 += d; s2 = fma(d, d, s2); }
        if (MODE == 3) { const double d = (double)x - k; s1 += d; s2 = fma(d, d, s2); }
        if (MODE == 4) { const double d = (double)(x - (float)k); s1 += d; s2 = fma(d, d, s2); }
    }
    __device__ __forceinline__ void vec(uint4 v, u64, unsigned)
    {
        const float *e = reinterpret_cast<const float *>(&v);
#pragma unroll
        for (int j = 0; j < 4; j++)
            add(e[j]);
    }
    __device__ __forceinline__ void elem(float x, u64) { add(x); }
};
template <int MODE, int UNROLL, int MINB>
__global__ void __launch_bounds__(256, MINB) k_probe(const float *in, size_t n, double *out)
{
    Probe<MODE> p = {in[0], 0.0, 0.0, 0.0f};
    Source1<float> src = {in};
    thread_visit<float, UNROLL, LoadLdg>(src, n, (size_t)blockIdx.x * 256 + threadIdx.x, (size_t)gridDim.x * 256, p);
    const double v = p.s1 + p.s2 + p.f;
    if (v == 1.2345) // never: keeps the loop, writes nothing
        out[0] = v;
}

__global__ void k_fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
        x[i] = 100.0f + (float)(h & 0xffff) / 65536.0f; // mean 100.5, std 0.29
    }
}

static const int NBUF = 4, ITERS = 40;
static float *bufs[NBUF];
static size_t N;
static int sms;

template <class F> static double median_us(F launch) { return bench_median_us(launch, bufs, NBUF, ITERS); }

static double ceiling_us;
static void report(const char *name, double us, int blocks)
{
    printf("%-44s %4d blocks %8.2f us %7.1f GB/s %.3f of ceiling\n", name, blocks, us, N * 4 / us / 1e3, ceiling_us / us);
}

template <class Op, int UNROLL, int MINB, int BLOCK = 256, int END = 0>
static void stats_variant(const char *name, void *out, void *partials, unsigned *ticket)
{
    int per;
    auto k = k_stats<float, Op, BLOCK, UNROLL, MINB, END>;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, BLOCK, 0));
    const int grid = per * sms;
    const double us = median_us([&](float *in) {
        k<<<grid, BLOCK>>>(in, N, out, (typename Op::State *)partials, ticket, 0.0);
    });
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k));
    char label[96];
    snprintf(label, sizeof label, "%s B%d U%d MINB%d END%d (%d regs, %zu B spill)", name, BLOCK, UNROLL, MINB, END,
             fa.numRegs, (size_t)fa.localSizeBytes);
    report(label, us, grid);
    if (END != 2) { // the result of bufs[0], to compare the ends
        float r[2] = {0.0f, 0.0f};
        k<<<grid, BLOCK>>>(bufs[0], N, out, (typename Op::State *)partials, ticket, 0.0);
        CK(cudaMemcpy(r, out, 8, cudaMemcpyDeviceToHost));
        printf("    result %.9g %.9g\n", r[0], r[1]);
    }
    if (END >= 3) { // one more launch, its timeline
        k<<<grid, BLOCK>>>(bufs[0], N, out, (typename Op::State *)partials, ticket, 0.0);
        CK(cudaDeviceSynchronize());
        std::vector<unsigned long long> st(16 + 2 * 4096);
        CK(cudaMemcpyFromSymbol(st.data(), g_stamp, st.size() * 8));
        unsigned long long first = ~0ull, last_start = 0;
        std::vector<unsigned long long> done;
        for (int b = 0; b < grid; b++) {
            first = std::min(first, st[16 + b]);
            last_start = std::max(last_start, st[16 + b]);
            done.push_back(st[16 + 4096 + b]);
        }
        std::sort(done.begin(), done.end());
        int clk;
        CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
        const double ghz = clk / 1e6;
        printf("    timeline (ns from the first block's start): last start %llu, loops done min %llu median %llu max %llu,"
               " end %llu; last block %llu: fence %.0f ns, loads+merges %.0f ns, write+fence %.0f ns (at %.2f GHz)\n",
               last_start - first, done[0] - first, done[done.size() / 2] - first, done.back() - first, st[0] - first,
               st[4], st[1] / ghz, st[2] / ghz, st[3] / ghz, ghz);
    }
}

template <int MODE, int UNROLL, int MINB> static void probe_variant(double *out)
{
    int per;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_probe<MODE, UNROLL, MINB>, 256, 0));
    const int grid = per * sms;
    const double us = median_us([&](float *in) { k_probe<MODE, UNROLL, MINB><<<grid, 256>>>(in, N, out); });
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_probe<MODE, UNROLL, MINB>));
    char label[96];
    snprintf(label, sizeof label, "probe mode %d U%d MINB%d (%d regs)", MODE, UNROLL, MINB, fa.numRegs);
    report(label, us, grid);
}

int main(int argc, char **argv)
{
    N = argc > 1 ? strtoull(argv[1], 0, 0) : (size_t)1 << 26;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int b = 0; b < NBUF; b++) {
        CK(cudaMalloc(&bufs[b], N * 4));
        k_fill<<<1024, 256>>>(bufs[b], N, 77u + b);
    }
    void *out, *partials;
    unsigned *ticket;
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&partials, 1 << 20));
    CK(cudaMalloc(&ticket, 4));
    CK(cudaMemset(ticket, 0, 4));
    CK(cudaDeviceSynchronize());

    ceiling_us = 1e30;
    for (int per = 2; per <= 16; per += 2) {
        const int grid = per * sms;
        const double us = median_us([&](float *in) { k_read<<<grid, 256>>>((const uint4 *)in, N / 4, (unsigned *)out); });
        ceiling_us = std::min(ceiling_us, us);
    }
    printf("n = %zu float32 (%zu MiB), %d SMs; ceiling %.2f us = %.1f GB/s\n", N, N * 4 >> 20, sms, ceiling_us,
           N * 4 / ceiling_us / 1e3);

    typedef MeanVar<float, double, float> MV;
    stats_variant<MV, 4, 4>("MEAN_VAR (library)", out, partials, ticket);
    stats_variant<MV, 4, 4, 256, 2>("MEAN_VAR", out, partials, ticket);
    stats_variant<MV, 4, 4, 256, 3>("MEAN_VAR", out, partials, ticket);
    stats_variant<MV, 4, 4, 256, 4>("MEAN_VAR", out, partials, ticket);
    stats_variant<MV, 4, 4, 256, 5>("MEAN_VAR", out, partials, ticket);
    stats_variant<MV, 4, 8>("MEAN_VAR", out, partials, ticket);
    stats_variant<MV, 4, 8, 256, 3>("MEAN_VAR", out, partials, ticket);
    typedef Mean<float, double, float> ME;
    stats_variant<ME, 4, 4>("MEAN (library)", out, partials, ticket);
    typedef LogSumExp<float, float, float> LSE;
    stats_variant<LSE, 4, 0>("LOGSUMEXP (library)", out, partials, ticket);
    stats_variant<LSE, 4, 0, 256, 2>("LOGSUMEXP", out, partials, ticket);
    stats_variant<LSE, 4, 0, 256, 3>("LOGSUMEXP", out, partials, ticket);
    stats_variant<LSE, 4, 0, 256, 5>("LOGSUMEXP", out, partials, ticket);

    { // the end's second trip to L2 (more than 4 x 256 partials): the same results as the usual grid
        const int grids[2] = {4 * sms, 1500};
        for (int g = 0; g < 2; g++) {
            float r[2];
            reduce_stats<float, MV, 256, 4><<<grids[g], 256>>>(bufs[1], N, out, (MeanVarState *)partials, ticket, 0.0);
            CK(cudaMemcpy(r, out, 8, cudaMemcpyDeviceToHost));
            printf("MEAN_VAR over %d blocks: %.9g %.9g\n", grids[g], r[0], r[1]);
            reduce_stats<float, LSE, 256, 4><<<grids[g], 256>>>(bufs[1], N, out, (LseState *)partials, ticket, 0.0);
            CK(cudaMemcpy(r, out, 4, cudaMemcpyDeviceToHost));
            printf("LOGSUMEXP over %d blocks: %.9g\n", grids[g], r[0]);
        }
    }
    double *dout = (double *)out;
    probe_variant<3, 4, 8>(dout);
    printf("(the ceiling again: ");
    const double again = median_us([&](float *in) { k_read<<<8 * sms, 256>>>((const uint4 *)in, N / 4, (unsigned *)out); });
    printf("%.2f us at 8 blocks an SM)\n", again);
    return 0;
}
