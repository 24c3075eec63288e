// The end of a column reduction split over blocks: the partials of a tile's
// splits, combined by the whole last block in a fixed order. Many splits
// are joined in two levels (groups of splits, then the groups), so that the
// last block of the grid reads a few partials per column, not hundreds.
#ifndef CURED_COLS_COMBINE_CUH
#define CURED_COLS_COMBINE_CUH

#include "common.cuh"
#include "phase_tree.cuh"

// Columns [0, width) of src, rows s = 0 .. n-1 at src + s * stride: each
// column's rows combined in row order within each of P = BLOCK / CW phases
// (phase p takes rows p, p + P, ...), then the phases in order. emit(c, v)
// gets column c's value, from one thread. All threads of the block call it.
template <int BLOCK, int CW, class A, class Op, class Emit>
__device__ __forceinline__ void combine_rows(const A *src, u64 stride, unsigned n, int width, Op op, A *sm,
                                             Emit emit)
{
    if (CW >= BLOCK) { // a thread per column, its rows in order
        for (int c = threadIdx.x; c < width; c += BLOCK) {
            A v = Op::identity();
            unsigned s = 0;
            for (; s + 4 <= n; s += 4) {
                A w[4];
#pragma unroll
                for (int u = 0; u < 4; u++)
                    w[u] = load_cg(src + (s + u) * stride + c);
#pragma unroll
                for (int u = 0; u < 4; u++)
                    v = op(v, w[u]);
            }
            for (; s < n; s++)
                v = op(v, load_cg(src + s * stride + c));
            emit(c, v);
        }
        return;
    }
    const int P = CW < BLOCK ? BLOCK / CW : 1;
    const int c = threadIdx.x % CW, p = threadIdx.x / CW;
    A v = Op::identity();
    if (c < width) {
        unsigned s = p;
        for (; s + 3 * P < n; s += 4 * P) { // four loads in flight
            A w[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                w[u] = load_cg(src + (s + u * P) * stride + c);
#pragma unroll
            for (int u = 0; u < 4; u++)
                v = op(v, w[u]);
        }
        for (; s < n; s += P)
            v = op(v, load_cg(src + s * stride + c));
    }
    __syncthreads(); // sm may hold the caller's phase values
    sm[threadIdx.x] = v;
    __syncthreads();
    if (p == 0 && c < width) {
        for (int q = 1; q < P && q < (int)n; q++) // phases from n on hold the identity
            v = op(v, sm[q * CW + c]);
        emit(c, v);
    }
}

// Is this block the last of `count` to arrive at *ticket? (The ticket is
// reset for the next call by that last block.) Every thread gets the answer.
__device__ __forceinline__ bool last_to_arrive(unsigned int *ticket, unsigned count)
{
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(ticket, 1u) == count - 1;
        if (last)
            *ticket = 0;
    }
    __syncthreads();
    if (last)
        __threadfence();
    return last;
}

// A column block's end after it stored its partials (split `split` of
// batch b, columns from blockIdx.x's tile): the last block of its group of
// splits combines the group's partials (into a second area after the
// splits' when there are several groups), and the last group's combiner
// combines the groups and writes the results. Deterministic: fixed orders.
template <int BLOCK, int CW, class Geo, class T, class A, class Op>
__device__ __forceinline__ void cols_finish(const Geo &g, u64 b, unsigned split, unsigned tile, const T *base,
                                            A *partials, unsigned int *tickets, void *out, unsigned result_size,
                                            Op op, A *sm)
{
    static_assert(sizeof(A) <= CR_MAX_ACC, "a partial fits the workspace's");
    const unsigned grp = split / g.group, g0 = grp * g.group;
    const unsigned gn = (g0 + g.group < g.splits ? g0 + g.group : g.splits) - g0;
    const unsigned tbase = g.ngroups > 1 ? tile * (g.ngroups + 1) : tile;
    if (!last_to_arrive(tickets + tbase + (g.ngroups > 1 ? grp : 0), gn))
        return;
    const long long first = (long long)blockIdx.x * CW;
    const int width = (int)(g.cols - first < CW ? g.cols - first : CW);
    const u64 stride = (u64)g.batches * (u64)g.cols;
    const A *src = partials + (u64)g0 * stride + b * g.cols + first;
    unsigned n = gn;
    if (g.ngroups > 1) {
        A *level2 = partials + (u64)g.splits * stride;
        combine_rows<BLOCK, CW>(src, stride, gn, width, op, sm,
                                [&](int c, A v) { level2[((u64)grp * g.batches + b) * g.cols + first + c] = v; });
        if (!last_to_arrive(tickets + tbase + g.ngroups, g.ngroups))
            return;
        src = level2 + b * g.cols + first;
        n = g.ngroups;
    }
    combine_rows<BLOCK, CW>(src, stride, n, width, op, sm, [&](int c, A v) {
        Op wop = op;
        u64 i;
        if (winner_index(v, i))
            bind_winner(wop, base + (long long)i * g.row + first + c, i);
        wop.write((char *)out + (b * g.out_batch + (first + c) * g.out_col) * result_size, v, (u64)g.len);
    });
}

#endif
