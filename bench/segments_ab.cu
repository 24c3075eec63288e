// By-hand A/B of the segment kernels on one GPU (nvcc, not built by make):
//   nvcc -std=c++17 -O3 -arch=native -I kernels-src bench/segments_ab.cu -o /tmp/segments_ab && /tmp/segments_ab
// float32 SUM of cured bench axes' power-law segments (1M, mean 64, CSR
// int64 offsets) through the grouped kernel (segments_short.cuh) and the
// flat one (segments_flat.cuh) at several unrolls, each followed by
// reduce_long_segments, beside a strong read-only kernel. The inputs are
// small integers, so every sum is exact: each variant is checked equal to
// the host's sums, on these segments and on random non-CSR ones (gaps,
// overlaps, empty, end < begin, some over the long threshold).
#include "segmented.cu"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                                  \
    do {                                                                                                       \
        cudaError_t e_ = (x);                                                                                  \
        if (e_ != cudaSuccess) {                                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                 \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

typedef Sum<float, float, float> S;
const int BLOCK = 256;

struct Work {
    float *in;
    long long *b, *e;
    float *out;
    LongList l;
    float *partials;
    unsigned parts;
    size_t nseg;
    u64 huge;
};

template <int G, int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
k_grouped(const float *in, u64 n, const long long *b, const long long *e, void *out, unsigned rs, u64 huge,
          LongList l, double ddof)
{
    grouped_segments<float, float, S, long long, BLOCK, G, U>(in, n, b, e, out, rs, huge, l, ddof);
}
template <int U, int MINB, bool CH>
__global__ void __launch_bounds__(BLOCK, MINB)
k_flat(const float *in, u64 n, const long long *b, const long long *e, void *out, unsigned rs, u64 huge, LongList l,
       double ddof)
{
    flat_segments<float, float, S, long long, BLOCK, U, CH>(in, n, b, e, out, rs, huge, l, ddof);
}
typedef void (*SegKernel)(const float *, u64, const long long *, const long long *, void *, unsigned, u64, LongList,
                          double);
// reduce_segments itself, as the library builds it (flat for SUM), and wrappers with other bounds
#define LIB(G, U) (SegKernel)reduce_segments<float, float, S, long long, BLOCK, G, U>

__global__ void __launch_bounds__(256) k_read(const uint4 *in, size_t n, unsigned *sink)
{
    unsigned acc = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                         : "l"(in + i + u * stride));
#pragma unroll
        for (int u = 0; u < 4; u++)
            acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride)
        acc ^= in[i].x;
    if (acc == 0x12345678u)
        *sink = acc;
}

struct Variant {
    const char *name;
    SegKernel kernel;
    int per_block; // segments a block takes at once
};

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}


static void run(const Variant &v, const Work &w, int sms)
{
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.kernel, BLOCK, 0));
    size_t grid = (w.nseg + v.per_block - 1) / v.per_block;
    grid = std::min(grid, (size_t)per_sm * sms);
    v.kernel<<<(unsigned)std::max<size_t>(grid, 1), BLOCK>>>(w.in, w.nseg, w.b, w.e, w.out, 4, w.huge, w.l, 0.0);
    dim3 lg(w.parts, (unsigned)std::min<size_t>(w.nseg, w.l.cap));
    reduce_long_segments<float, float, S, long long, BLOCK, 4>
        <<<lg, BLOCK>>>(w.in, w.nseg, w.b, w.e, w.out, 4, w.huge, w.l, w.partials, 0.0);
}

int main()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t N = (size_t)1 << 26; // 256 MiB of float32
    std::vector<float> h(N);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < N; i++)
        h[i] = (float)((int)(xorshift(&x) % 17) - 8);
    Work w = {};
    CK(cudaMalloc(&w.in, N * 4));
    CK(cudaMemcpy(w.in, h.data(), N * 4, cudaMemcpyHostToDevice));
    const size_t MAXSEG = (size_t)1 << 20;
    CK(cudaMalloc(&w.b, (MAXSEG + 1) * 8));
    CK(cudaMalloc(&w.e, (MAXSEG + 1) * 8));
    CK(cudaMalloc(&w.out, MAXSEG * 4));
    w.parts = sms / 8 > 4 ? sms / 8 : 4;
    w.l.cap = 512;
    CK(cudaMalloc(&w.partials, (size_t)w.parts * 512 * 4));
    CK(cudaMalloc(&w.l.seg, 512 * 8));
    unsigned *ticks;
    CK(cudaMalloc(&ticks, 1024 * 4));
    CK(cudaMemset(ticks, 0, 1024 * 4));
    w.l.tickets = ticks;
    w.l.count = ticks + 600;
    w.l.done = ticks + 601;
    w.huge = 4096;
    unsigned *sink;
    CK(cudaMalloc(&sink, 4));

    const Variant vs[] = {
        {"grouped G4 U2 (generic)", k_grouped<4, 2, 1>, 64},
        {"lib chunks U2", LIB(4, 2), 256},
        {"lib chunks U4", LIB(4, 4), 256},
        {"lib chunks U8", LIB(4, 8), 256},
        {"chunks U4 min4", k_flat<4, 4, true>, 256},
        {"chunks U2 min6", k_flat<2, 6, true>, 256},
        {"chunks U8 min3", k_flat<8, 3, true>, 256},
        {"stream U4 (call 3)", k_flat<4, 1, false>, 256},
    };
    const int NV = sizeof vs / sizeof *vs;
    int bad = 0;
    for (int data = 0; data < 4; data++) {
        // 0: the bench's power law (CSR); 1: random non-CSR; 2: small CSR with empties and huge ones;
        // 3: CSR of many empty and tiny segments, none huge
        size_t nseg = data == 0 ? MAXSEG : data == 1 ? 200000 : data == 2 ? 3000 : 300000;
        std::vector<long long> hb(nseg), he(nseg);
        uint64_t y = 88172645463325252ull;
        long long total = data == 3 ? 3 : 0; // data 3 begins off a 16-byte boundary
        for (size_t s = 0; s < nseg; s++) {
            const uint64_t r = xorshift(&y);
            if (data == 0) {
                const double u = ((double)(r >> 11) + 0.5) / 9007199254740992.0;
                long long len = (long long)(21.4 / pow(u, 1.0 / 1.5));
                hb[s] = total;
                total = std::min<long long>(total + len, (long long)N);
                he[s] = total;
            } else if (data == 1) {
                const long long at = (long long)(r % (N - 20000)), kind = (long long)((r >> 40) % 100);
                const long long len = kind < 5 ? 0 : kind < 8 ? -3 : kind < 10 ? 4097 + (long long)(r >> 50) % 9000
                                                                              : (long long)((r >> 32) % 300);
                hb[s] = at;
                he[s] = at + len;
            } else if (data == 3) {
                const long long kind = (long long)(r % 100);
                const long long len = kind < 40 ? 0 : kind < 70 ? 1 + (long long)(r >> 40) % 3
                                    : kind < 95 ? 4 + (long long)(r >> 40) % 37 : 100 + (long long)(r >> 40) % 3900;
                hb[s] = total;
                total += len;
                he[s] = total;
            } else {
                const long long kind = (long long)(r % 10);
                const long long len = kind < 3 ? 0 : kind < 4 ? 5000 + (long long)(r >> 40) % 20000
                                                              : (long long)((r >> 20) % 40);
                hb[s] = total;
                total += len;
                he[s] = total;
            }
        }
        std::vector<float> ref(nseg);
        for (size_t s = 0; s < nseg; s++) {
            double acc = 0;
            for (long long i = hb[s]; i < he[s]; i++)
                acc += h[i];
            ref[s] = (float)acc;
        }
        CK(cudaMemcpy(w.b, hb.data(), nseg * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(w.e, he.data(), nseg * 8, cudaMemcpyHostToDevice));
        w.nseg = nseg;
        double bytes = (double)nseg * 16 + (double)nseg * 4;
        for (size_t s = 0; s < nseg; s++)
            bytes += he[s] > hb[s] ? (double)(he[s] - hb[s]) * 4 : 0;
        std::vector<float> got(nseg);
        for (int k = 0; k < NV; k++) {
            CK(cudaMemset(w.out, 0xff, nseg * 4));
            run(vs[k], w, sms);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(got.data(), w.out, nseg * 4, cudaMemcpyDeviceToHost));
            size_t wrong = 0, first = 0;
            for (size_t s = 0; s < nseg; s++)
                if (got[s] != ref[s] && !wrong++)
                    first = s;
            if (wrong) {
                bad = 1;
                printf("data %d %s: %zu wrong, first %zu: %g want %g (len %lld)\n", data, vs[k].name, wrong, first,
                       got[first], ref[first], he[first] - hb[first]);
            }
            if (data != 0)
                continue;
            cudaEvent_t a, z;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&z));
            std::vector<float> t;
            for (int it = 0; it < 30; it++) {
                CK(cudaEventRecord(a));
                run(vs[k], w, sms);
                CK(cudaEventRecord(z));
                CK(cudaEventSynchronize(z));
                float ms;
                CK(cudaEventElapsedTime(&ms, a, z));
                t.push_back(ms * 1000);
            }
            std::sort(t.begin(), t.end());
            int per_sm = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vs[k].kernel, BLOCK, 0));
            cudaFuncAttributes fa;
            CK(cudaFuncGetAttributes(&fa, vs[k].kernel));
            printf("%-22s %8.1f us %7.1f GB/s  regs %d blocks/SM %d\n", vs[k].name, t[15], bytes / (t[15] * 1e3),
                   fa.numRegs, per_sm);
        }
        if (data == 0) {
            double best = 0;
            for (int mult = 1; mult <= 8; mult *= 2) {
                std::vector<float> t;
                cudaEvent_t a, z;
                CK(cudaEventCreate(&a));
                CK(cudaEventCreate(&z));
                for (int it = 0; it < 30; it++) {
                    CK(cudaEventRecord(a));
                    k_read<<<sms * mult, 256>>>((const uint4 *)w.in, N / 4, sink);
                    CK(cudaEventRecord(z));
                    CK(cudaEventSynchronize(z));
                    float ms;
                    CK(cudaEventElapsedTime(&ms, a, z));
                    t.push_back(ms * 1000);
                }
                std::sort(t.begin(), t.end());
                best = std::max(best, (double)N * 4 / (t[15] * 1e3));
            }
            printf("ceiling (read-only, best grid) %.1f GB/s\n", best);
        }
    }
    printf(bad ? "FAILED\n" : "all variants exact on all data\n");
    return bad;
}
