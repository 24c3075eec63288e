// Short contiguous rows, read as whole 16-byte vectors: a row of RB bytes
// (a power of two up to 64) is part of a vector (RB < 16: RPV rows in each)
// or a few whole vectors (RB >= 16). Each thread takes whole vectors, four
// in flight, so the loads do not stop at row boundaries; the results of a
// vector's rows are stored together (16-byte stores where the output is
// dense). Rows of one element are the views that reduce nothing: this is
// then a vectorised copy or conversion.
#ifndef CURED_PACKED_CUH
#define CURED_PACKED_CUH

#include "stats.cuh"

// N bytes from an aligned local buffer to dst (aligned to N, or to 16).
template <int N> __device__ __forceinline__ void store_bytes(const unsigned char *buf, char *dst)
{
    if (N % 16 == 0) {
#pragma unroll
        for (int j = 0; j < N / 16; j++)
            reinterpret_cast<uint4 *>(dst)[j] = reinterpret_cast<const uint4 *>(buf)[j];
    } else if (N == 8) {
        *reinterpret_cast<uint2 *>(dst) = *reinterpret_cast<const uint2 *>(buf);
    } else if (N == 4) {
        *reinterpret_cast<unsigned *>(dst) = *reinterpret_cast<const unsigned *>(buf);
    } else if (N == 2) {
        *reinterpret_cast<unsigned short *>(dst) = *reinterpret_cast<const unsigned short *>(buf);
    } else {
#pragma unroll
        for (int j = 0; j < N; j++)
            dst[j] = (char)buf[j];
    }
}

// A warp's 32 consecutive items' results (N bytes each, 16 < N <= 128) are
// one contiguous run of the output: staged in shared memory, then stored as
// 16-byte pieces across the lanes, so that each store instruction writes
// 512 consecutive bytes (a thread's own N bytes would land 32 to 128 bytes
// apart across the warp, and wide results would run at a half or less of
// the ceiling). All 32 lanes call it.
template <int N> __device__ __forceinline__ void warp_store(const unsigned char *buf, unsigned char *stage, char *dst)
{
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < N / 16; j++)
        reinterpret_cast<uint4 *>(stage + lane * N)[j] = reinterpret_cast<const uint4 *>(buf)[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < N / 16; j++) // 2N pieces of 16 bytes, 32 at a time
        reinterpret_cast<uint4 *>(dst)[j * 32 + lane] = reinterpret_cast<const uint4 *>(stage)[j * 32 + lane];
    __syncwarp(); // the stage is reused by the warp's next item
}

// The RPV rows of one item (VPR vectors v, rows item * RPV ...): reduced and written.
// staged: the whole warp holds 32 consecutive items and stores them together.
template <class T, class A, class Op, int RPV, int VPR, int L, int RS>
__device__ __forceinline__ void packed_item(const T *in, const uint4 *v, u64 item, long long out_stride, void *out,
                                            bool dense, double ddof, unsigned char *stage, bool staged)
{
    const int VEC = 16 / sizeof(T);
    __align__(16) unsigned char buf[RPV * RS] = {0}; // padding bytes of a result are stored as zeros
    const T *e = reinterpret_cast<const T *>(v);
#pragma unroll
    for (int r = 0; r < RPV; r++) {
        const u64 row = item * RPV + r;
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, in + row * L);
        A a = Op::identity();
        if (RPV == 1) { // whole vectors: the operator's vector step
#pragma unroll
            for (int w = 0; w < VPR; w++)
                a = VecStep<Op>::template step<T, A>(a, v[w], (u64)w * VEC, op);
        } else {
            a = op.map(e[r * L], 0);
#pragma unroll
            for (int k = 1; k < L; k++)
                a = op(a, op.map(e[r * L + k], (u64)k));
        }
        if (dense)
            op.write(buf + r * RS, a, (u64)L);
        else
            op.write((char *)out + (long long)row * out_stride * RS, a, (u64)L);
    }
    const int N = RPV * RS;
    if (N > 16 && N <= 128 && staged)
        warp_store<(N > 16 && N <= 128) ? N : 32>(buf, stage, (char *)out + (item - threadIdx.x % 32) * (u64)N);
    else if (dense)
        store_bytes<N>(buf, (char *)out + item * (u64)N);
}

// nout rows of RB bytes at in (16-byte aligned), result r at out + r * out_stride
// results of RS bytes; dense: out_stride 1 and out aligned to the stores.
template <class T, class A, class Op, int BLOCK, int RB, int RS>
__global__ void __launch_bounds__(BLOCK)
reduce_packed(const T *in, u64 nout, long long out_stride, void *out, int dense, double ddof)
{
    const int RPV = RB < 16 ? 16 / RB : 1, VPR = RB > 16 ? RB / 16 : 1, L = RB / (int)sizeof(T);
    const int ITEMS = VPR >= 4 ? 1 : 4 / VPR;
    const u64 nitem = nout / RPV, rank = (u64)blockIdx.x * BLOCK + threadIdx.x, size = (u64)gridDim.x * BLOCK;
    const uint4 *vin = reinterpret_cast<const uint4 *>(in);
    const int N = RPV * RS, lane = threadIdx.x % 32;
    const bool stageable = dense && N > 16 && N <= 128;
    __shared__ __align__(16) unsigned char stage_all[(N > 16 && N <= 128) ? BLOCK * N : 16];
    unsigned char *stage = stage_all + (threadIdx.x / 32) * 32 * ((N > 16 && N <= 128) ? N : 0);
    for (u64 i = rank; i < nitem; i += ITEMS * size) {
        uint4 v[ITEMS][VPR];
#pragma unroll
        for (int u = 0; u < ITEMS; u++) // all loads issued before any use
#pragma unroll
            for (int w = 0; w < VPR; w++)
                if (i + u * size < nitem)
                    v[u][w] = __ldg(vin + (i + u * size) * VPR + w);
#pragma unroll
        for (int u = 0; u < ITEMS; u++) {
            const u64 item = i + u * size;
            // warp-uniform: the warp's items are consecutive, so all 32 are here or this is false for all
            const bool staged = stageable && item - lane + 31 < nitem;
            if (item < nitem)
                packed_item<T, A, Op, RPV, VPR, L, RS>(in, v[u], item, out_stride, out, dense != 0, ddof, stage, staged);
        }
    }
    // The rows after the last whole vector (fewer than RPV): a thread each.
    const u64 row = nitem * RPV + rank;
    if (row < nout) {
        const T *x = in + row * L;
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, x);
        A a = op.map(x[0], 0);
        for (int k = 1; k < L; k++)
            a = op(a, op.map(x[k], (u64)k));
        op.write((char *)out + (long long)row * out_stride * RS, a, (u64)L);
    }
}

#endif
