// Sketches of the exact sums' kernels, not the library's: where each piece
// of kernels-src/exact.cuh's state lives on the GPU. test-exact compiles
// them through the library's NVRTC path, so that the header stays valid CUDA;
// bench/NOTES.md ("Exact sums") has their ptxas counts. Each block writes its
// normalized state; exact_sketch_round_* merges them and rounds.
#include "exact.cuh"

// float32: each thread's 16 bins in shared memory, bin-major (a warp's lanes
// reach 32 banks whatever bins they hit). Every EXACT_BIN_TERMS / 32 terms a
// lane (and at the end) the warp sums its lanes' bins by shuffles, exactly,
// and lane 0 flushes them into the block's state by integer atomics; one
// thread normalizes it and writes the block's partial.
#define F32_BLOCK 256
__device__ __forceinline__ void exact_sketch_warp_flush(ExactBins<ExactBinStrided> &f, Exact<ExactSingle, ExactAtomic> &s)
{
    for (int b = 0; b < 16; b++) {
        double v = f.bin[b];
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, off);
        f.bin[b] = v;
    }
    for (int off = 16; off > 0; off >>= 1) { // (__reduce_*_sync: sm_80 and later only)
        f.nz |= __shfl_xor_sync(0xffffffffu, f.nz, off);
        f.n += __shfl_xor_sync(0xffffffffu, f.n, off);
    }
    if (threadIdx.x % 32 == 0)
        exact_bins_flush(s, f);
    else
        exact_bins_init(f);
}
extern "C" __global__ void __launch_bounds__(F32_BLOCK) exact_sketch_f32(const uint4 *in, size_t nvec, long long *out)
{
    __shared__ double bins[16 * F32_BLOCK];
    __shared__ long long block_digits[ExactSingle::DIGITS];
    __shared__ float block_special;
    __shared__ unsigned block_flags;
    if (threadIdx.x < ExactSingle::DIGITS)
        block_digits[threadIdx.x] = 0;
    if (threadIdx.x == 0) {
        block_special = 0.0f;
        block_flags = 0;
    }
    ExactBins<ExactBinStrided> f;
    f.bin.p = bins + threadIdx.x;
    f.bin.stride = F32_BLOCK;
    exact_bins_init(f);
    Exact<ExactSingle, ExactAtomic> s;
    s.d.p = block_digits;
    s.special = 0.0f;
    s.flags = 0;
    __syncthreads();
    const size_t rounds = (nvec + F32_BLOCK - 1) / F32_BLOCK; // the same for every lane of a warp
    for (size_t r = 0, i = threadIdx.x; r < rounds; r++, i += F32_BLOCK) {
        if (i < nvec) {
            const uint4 v = in[i];
            exact_bins_add(f, v.x);
            exact_bins_add(f, v.y);
            exact_bins_add(f, v.z);
            exact_bins_add(f, v.w);
        }
        if (r % (EXACT_BIN_TERMS / 32 / 4) == EXACT_BIN_TERMS / 32 / 4 - 1)
            exact_sketch_warp_flush(f, s);
    }
    exact_sketch_warp_flush(f, s);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&block_special, s.special);
        atomicOr(&block_flags, s.flags);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        Exact<ExactSingle> b;
        for (int i = 0; i < ExactSingle::DIGITS; i++)
            b.d[i] = block_digits[i];
        b.special = block_special;
        b.flags = block_flags;
        exact_normalize(b);
        for (int i = 0; i < ExactSingle::DIGITS; i++)
            out[blockIdx.x * (ExactSingle::DIGITS + 1) + i] = b.d[i];
        out[blockIdx.x * (ExactSingle::DIGITS + 1) + ExactSingle::DIGITS] =
            (long long)__float_as_uint(b.special) << 32 | b.flags;
    }
}

// float64: each thread's whole state in shared memory, digit-major; a term
// adds to three digits. The block merges digit by digit: thread i sums digit
// i over the threads, then one thread normalizes.
#define F64_BLOCK 64
extern "C" __global__ void __launch_bounds__(F64_BLOCK) exact_sketch_f64(const double2 *in, size_t nvec, long long *out)
{
    __shared__ long long digits[ExactDouble::DIGITS * F64_BLOCK];
    __shared__ long long merged[ExactDouble::DIGITS];
    Exact<ExactDouble, ExactStrided> s;
    s.d.p = digits + threadIdx.x;
    s.d.stride = F64_BLOCK;
    exact_init(s);
    for (size_t i = threadIdx.x; i < nvec; i += F64_BLOCK) {
        const double2 v = in[i];
        exact_add(s, v.x);
        exact_add(s, v.y);
    }
    exact_normalize(s);
    __syncthreads();
    for (int i = threadIdx.x; i < ExactDouble::DIGITS; i += F64_BLOCK) {
        long long sum = 0;
        for (int t = 0; t < F64_BLOCK; t++)
            sum += digits[i * F64_BLOCK + t];
        merged[i] = sum;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        Exact<ExactDouble, ExactStrided> b;
        b.d.p = merged;
        b.d.stride = 1;
        b.special = s.special; // (the sketch keeps thread 0's specials and flags)
        b.flags = s.flags;
        exact_normalize(b);
        for (int i = 0; i < ExactDouble::DIGITS; i++)
            out[blockIdx.x * (ExactDouble::DIGITS + 1) + i] = b.d[i];
        out[blockIdx.x * (ExactDouble::DIGITS + 1) + ExactDouble::DIGITS] =
            (long long)__float_as_uint(b.special) << 32 | b.flags;
    }
}

// The end: one thread merges the blocks' partials (normalized states, digits
// then special and flags in one word) and rounds once: SUM and MEAN into R.
template <class F, class R>
__device__ __forceinline__ void exact_sketch_round(const long long *partials, int blocks, u64 n, u64 *out)
{
    Exact<F> s;
    exact_init(s);
    for (int b = 0; b < blocks; b++) {
        Exact<F> p;
        for (int i = 0; i < F::DIGITS; i++)
            p.d[i] = partials[b * (F::DIGITS + 1) + i];
        const u64 w = (u64)partials[b * (F::DIGITS + 1) + F::DIGITS];
        p.special = __uint_as_float((unsigned)(w >> 32));
        p.flags = (unsigned)w;
        exact_merge(s, p);
    }
    out[0] = exact_round<R>(s);
    out[1] = exact_mean<R>(s, n);
}
extern "C" __global__ void exact_sketch_round_f32(const long long *partials, int blocks, u64 n, u64 *out)
{
    exact_sketch_round<ExactSingle, float>(partials, blocks, n, out);
}
extern "C" __global__ void exact_sketch_round_f64(const long long *partials, int blocks, u64 n, u64 *out)
{
    exact_sketch_round<ExactDouble, double>(partials, blocks, n, out);
}

// float16: one double per thread in registers; the warp sums its lanes' by
// shuffles (exact for EXACT_HALF_TERMS terms in all) and lane 0 flushes into
// the warp's state.
#define F16_BLOCK 256
extern "C" __global__ void __launch_bounds__(F16_BLOCK) exact_sketch_f16(const uint4 *in, size_t nvec, long long *out)
{
    __shared__ long long warp_digits[F16_BLOCK / 32][ExactHalf::DIGITS];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane < ExactHalf::DIGITS)
        warp_digits[warp][lane] = 0;
    __syncwarp();
    Exact<ExactHalf, ExactAtomic> s;
    s.d.p = warp_digits[warp];
    s.special = 0.0f;
    s.flags = 0;
    ExactHalfSum f;
    exact_half_init(f);
    const size_t rounds = (nvec + F16_BLOCK - 1) / F16_BLOCK;
    for (size_t r = 0, i = threadIdx.x; r < rounds; r++, i += F16_BLOCK) {
        if (i < nvec) {
            const uint4 v = in[i];
            const unsigned w[4] = {v.x, v.y, v.z, v.w};
            for (int j = 0; j < 4; j++) {
                const half_t lo = {(unsigned short)(w[j] & 0xffffu)}, hi = {(unsigned short)(w[j] >> 16)};
                exact_half_add(f, lo);
                exact_half_add(f, hi);
            }
        }
        if (r % (EXACT_HALF_TERMS / 32 / 8) == EXACT_HALF_TERMS / 32 / 8 - 1 || r + 1 == rounds) {
            for (int off = 16; off > 0; off >>= 1) {
                f.sum += __shfl_xor_sync(0xffffffffu, f.sum, off);
                f.nz |= __shfl_xor_sync(0xffffffffu, f.nz, off);
                f.n += __shfl_xor_sync(0xffffffffu, f.n, off);
            }
            if (lane == 0)
                exact_half_flush(s, f);
            else
                exact_half_init(f);
        }
    }
    __syncthreads();
    if (threadIdx.x < ExactHalf::DIGITS)
        out[threadIdx.x] = warp_digits[0][threadIdx.x];
}
