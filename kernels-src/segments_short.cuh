// Segments given by offset arrays (CUB's convention; end < begin is empty;
// an offset outside [0, limit] makes a bad segment, see SegGuard).
// Each warp takes 32 / G consecutive segments at a time, G lanes each, and
// goes on to its next ones without waiting for the rest of its block; the
// next segments' offsets are loaded while these are read. The long ones
// among them (more than 16 of a group's 16-byte steps) the whole warp
// reduces afterwards, one at a time; those over `huge` elements it only
// counts and lists, for reduce_long_segments (segments_long.cuh).
#ifndef CURED_SEGMENTS_SHORT_CUH
#define CURED_SEGMENTS_SHORT_CUH

#include "abi.h" // LongList (the segments over `huge` elements, in the workspace), SegGuard

// What the offsets may index: elements [0, limit) of the input (the host
// found them mapped and before the output). A segment with either offset
// outside [0, limit] is bad: it reads nothing, gets the empty value, and
// *bad keeps the complement of the lowest bad index (0: none), which
// cured_check_stream reads and clears. One compare a segment, none an element.
__device__ __forceinline__ bool seg_bad(const SegGuard &g, long long b, long long e)
{
    return (u64)b > g.limit || (u64)e > g.limit; // a negative offset is above any limit as u64
}

__device__ __forceinline__ void seg_report(const SegGuard &g, u64 s)
{
    atomicMax(g.bad, ~(unsigned long long)s);
}

__device__ __forceinline__ void list_long(const LongList &l, u64 s, long long begin, u64 len)
{
    if (*(volatile unsigned *)l.count > l.listed) // known to be too many: no atomic, no count to wrap
        return;
    const unsigned slot = atomicAdd(l.count, 1u);
    if (slot < l.listed) {
        const LongEntry e = {s, begin, len, 0, 0}; // the ticket of its parts at zero
        l.seg[slot] = e;
        if (slot < l.cap)
            l.len[slot] = len < 0xffffffffull ? (unsigned)len : 0xffffffffu;
    }
}

// The segments whose lanes are in `mask` (lane i's segment s at `at`, len
// elements), each by the whole warp, one after the other.
template <class T, class A, class Op, int UNROLL>
__device__ __forceinline__ void warp_segments(unsigned mask, const T *in, u64 s, long long at, u64 len, void *out,
                                              unsigned result_size, double ddof)
{
    const int wl = threadIdx.x % 32;
    for (unsigned m = mask; m != 0; m &= m - 1) {
        const int from = __ffs(m) - 1;
        const u64 ls = __shfl_sync(0xffffffffu, s, from), llen = __shfl_sync(0xffffffffu, len, from);
        const long long lb = __shfl_sync(0xffffffffu, at, from);
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, in + lb);
        A w = GroupLoop<Op>::template run<32, T, A, UNROLL>(in + lb, llen, true, wl, op);
        if (wl == 0)
            op.write((char *)out + ls * result_size, w, llen);
    }
}

// Whether an operator's per-thread loop is the generic one (ReduceVisitor):
// ARG, the moments and LOGSUMEXP have their own.
template <class L, class = void> struct GenericLoop { static const bool value = false; };
template <class L> struct GenericLoop<L, decltype((void)L::GENERIC)> { static const bool value = L::GENERIC; };

// Lane `lane` of G's share of n elements in as few rounds of loads as it
// takes: vectors lane, lane + G, ... (UNROLL in flight, the last batch too),
// and its head and tail elements (fewer than a vector's), loaded with the
// first batch.
// thread_visit loads its head, its last vectors and its tail one after the
// other: four round trips for a segment of a few vectors. The vectors are
// visited first, then the head, then the tail.
template <class T, int G, int UNROLL, class Visitor>
__device__ __forceinline__ void segment_visit(const T *in, size_t n, int lane, Visitor &vis)
{
    const int VEC = 16 / sizeof(T), HT = (VEC - 1 + G - 1) / G; // head or tail elements a lane, at most
    const size_t head = vec_head(in, n), nvec = (n - head) / VEC, tail = head + nvec * VEC;
    T h[HT > 0 ? HT : 1], t[HT > 0 ? HT : 1];
#pragma unroll
    for (int j = 0; j < HT; j++) {
        const size_t hi = (size_t)lane + j * G, ti = tail + lane + j * G;
        if (hi < head)
            h[j] = in[hi];
        if (ti < n)
            t[j] = in[ti];
    }
    const Source1<T> src = {in};
    size_t i = lane;
    for (; i + (UNROLL - 1) * G < nvec; i += UNROLL * G) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = src.template load<LoadLdg>(head, i + u * G);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            vis.vec(v[u], head + (i + u * G) * VEC, 0);
    }
    if (i < nvec) { // the last few vectors, loaded together
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * G < nvec)
                v[u] = src.template load<LoadLdg>(head, i + u * G);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * G < nvec)
                vis.vec(v[u], head + (i + u * G) * VEC, 0);
    }
#pragma unroll
    for (int j = 0; j < HT; j++)
        if ((size_t)lane + j * G < head)
            vis.elem(h[j], (size_t)lane + j * G);
#pragma unroll
    for (int j = 0; j < HT; j++)
        if (tail + lane + j * G < n)
            vis.elem(t[j], tail + lane + j * G);
}

// A group of G lanes' result for one segment, in its first lane: the
// generic loop through segment_visit; other operators through GroupLoop.
template <int G, class T, class A, class Op, int UNROLL>
__device__ __forceinline__ A segment_reduce(const T *in, size_t n, bool live, int lane, Op op)
{
    if constexpr (GenericLoop<ThreadLoop<Op> >::value) {
        ReduceVisitor<T, A, Op> vis = {op, Op::identity()};
        if (live)
            segment_visit<T, G, UNROLL>(in, n, lane, vis);
        return group_reduce<G>(vis.acc, op);
    } else {
        return GroupLoop<Op>::template run<G, T, A, UNROLL>(in, n, live, lane, op);
    }
}

template <class T, class A, class Op, class Off, int BLOCK, int G, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_segments(const T *in, u64 nseg, const Off *begin, const Off *end, void *out, unsigned result_size, u64 huge,
                LongList list, SegGuard guard, double ddof)
{
    const int lane = threadIdx.x % G, wl = threadIdx.x % 32;
    const u64 LONG = (u64)G * (16 / sizeof(T)) * 16;
    const u64 per = 32 / G, step = (u64)gridDim.x * (BLOCK / 32) * per;
    const u64 first = ((u64)blockIdx.x * (BLOCK / 32) + threadIdx.x / 32) * per;
    u64 s = first + (u64)(wl / G);
    long long b = 0, e = 0;
    if (s < nseg) {
        b = (long long)begin[s];
        e = (long long)end[s];
    }
    for (u64 chunk = first; chunk < nseg; chunk += step, s += step) { // the same trips for the whole warp
        const bool live = s < nseg, bad = live && seg_bad(guard, b, e);
        const u64 len = live && !bad && e > b ? (u64)(e - b) : 0;
        const long long at = bad ? 0 : b;
        if (bad && lane == 0)
            seg_report(guard, s);
        if (s + step < nseg) { // the next segments' offsets
            b = (long long)begin[s + step];
            e = (long long)end[s + step];
        }
        const bool short_one = live && len <= LONG, huge_one = live && len > huge;
        if (huge_one && lane == 0)
            list_long(list, s, at, len);
        const unsigned longs = __ballot_sync(0xffffffffu, live && !short_one && !huge_one && lane == 0);
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, in + at);
        A v = segment_reduce<G, T, A, Op, UNROLL>(in + at, len, short_one, lane, op);
        if (short_one && lane == 0)
            op.write((char *)out + s * result_size, v, len);
        warp_segments<T, A, Op, UNROLL>(longs, in, s, at, len, out, result_size, ddof);
    }
}

#endif
