// The segments over `huge` elements that reduce_segments counted and listed.
// When all of them are on the list, the grid (about one wave of blocks)
// shares them out as chunks: each entry is cut into parts of at least huge
// elements and at least a block's share of all the listed elements over
// l.chunks, every block finds the chunks by a prefix sum over the entries,
// and takes them one at a time from a counter, so that a block whose chunks
// were short takes more of them; the last of an entry's parts combines their
// partials in part order. The parts depend only on the listed lengths and
// the grid (the kernel's occupancy on the device), not on the list's order,
// on which block takes which chunk or on timing, so the results are bitwise
// the same from run to run. Past the chunks' cap (a prefix sum in shared
// memory), each listed entry goes whole to the block that takes it from the
// counter: a segment's bits do not depend on which block reduces it. When
// there are more than the list holds, the list is ignored and every such
// segment gets one block of a fixed share.
#ifndef CURED_SEGMENTS_LONG_CUH
#define CURED_SEGMENTS_LONG_CUH

// Part `part` of `parts` blocks' share of a segment, in each thread. One
// block alone takes the generic loop through segment_visit, whose last
// vectors are loaded together (a segment of a few rounds pays fewer trips).
template <class T, class A, class Op, int BLOCK, int UNROLL>
__device__ __forceinline__ A long_part(const T *in, u64 len, unsigned part, unsigned parts, Op op)
{
    if constexpr (GenericLoop<ThreadLoop<Op> >::value) {
        if (parts == 1) {
            ReduceVisitor<T, A, Op> vis = {op, Op::identity()};
            segment_visit<T, BLOCK, UNROLL>(in, len, threadIdx.x, vis);
            return vis.acc;
        }
    }
    return ThreadLoop<Op>::template run<T, A, UNROLL>(in, len, (size_t)part * BLOCK + threadIdx.x,
                                                      (size_t)parts * BLOCK, op);
}

// More than the list holds: every segment over `huge` elements by one block
// of the grid, as CUB does. Block B of NB looks at segments B, B + NB, ...
// (BLOCK of them at a time, so that few segments still reach many blocks)
// and reduces each long one among them, in index order. Not inlined, so
// that the listed path keeps its own registers (inlined, it spilled).
template <class T, class A, class Op, class Off, int BLOCK, int UNROLL>
__device__ __noinline__ void every_long_segment(const T *in, u64 nseg, const Off *begin, const Off *end, void *out,
                                                unsigned result_size, u64 huge, SegGuard guard, double ddof)
{
    __shared__ unsigned longs[BLOCK / 32];
    const u64 nb = (u64)gridDim.x * gridDim.y, blk = (u64)blockIdx.y * gridDim.x + blockIdx.x;
    for (u64 round = 0; blk + round * nb * BLOCK < nseg; round++) { // the same trips for the whole block
        const u64 s = blk + (round * BLOCK + threadIdx.x) * nb;
        bool huge_one = false;
        if (s < nseg) {
            const long long b = (long long)begin[s], e = (long long)end[s]; // reduce_segments reported bad ones
            huge_one = !seg_bad(guard, b, e) && e > b && (u64)(e - b) > huge;
        }
        const unsigned m = __ballot_sync(0xffffffffu, huge_one);
        if (threadIdx.x % 32 == 0)
            longs[threadIdx.x / 32] = m;
        __syncthreads();
        for (int wi = 0; wi < BLOCK / 32; wi++) {
            for (unsigned mm = longs[wi]; mm != 0; mm &= mm - 1) {
                const u64 ls = blk + (round * BLOCK + wi * 32 + __ffs(mm) - 1) * nb;
                const long long lb = (long long)begin[ls];
                const u64 llen = (u64)((long long)end[ls] - lb);
                Op op;
                bind_ddof(op, ddof);
                bind_input(op, in + lb);
                A v = long_part<T, A, Op, BLOCK, UNROLL>(in + lb, llen, 0, 1, op);
                v = block_reduce_shuffle<BLOCK>(v, op);
                if (threadIdx.x == 0)
                    op.write((char *)out + ls * result_size, v, llen);
            }
        }
        __syncthreads(); // longs is reused
    }
}

// More than the chunks' cap, no more than the list holds: an entry a block,
// whole, taken from the counter, so that a block that drew short segments
// takes more of them. Thread 0 takes the index after next and loads the next
// entry while the block reads this one, and hands both on (shared memory,
// two of each) just before the block reduction's barriers: neither the
// counter's round trip nor the entry's stands between two segments. Indices
// a block takes only grow, so one past the list ends its loop and none
// under it is skipped. Not inlined, as every_long_segment.
template <class T, class A, class Op, int BLOCK, int UNROLL>
__device__ __noinline__ void listed_entries(const T *in, unsigned n, void *out, unsigned result_size, const LongEntry *seg,
                                            unsigned *counter, unsigned taken, double ddof)
{
    __shared__ unsigned cur[2], after[2];
    __shared__ long long at[2];
    __shared__ u64 count[2], which[2];
    const unsigned t = threadIdx.x;
    if (t == 0) {
        cur[0] = taken;
        if (taken < n) {
            at[0] = seg[taken].begin;
            count[0] = seg[taken].len;
            which[0] = seg[taken].seg;
        }
        after[0] = atomicAdd(counter, 1u);
    }
    __syncthreads();
    for (unsigned p = 0;; p ^= 1) {
        const unsigned c = cur[p];
        if (c >= n)
            break;
        const long long b = at[p];
        const u64 len = count[p], s = which[p];
        const unsigned c1 = after[p];
        unsigned c2 = 0;
        long long b1 = 0;
        u64 len1 = 0, s1 = 0;
        if (t == 0) { // used only at the end of this segment
            c2 = atomicAdd(counter, 1u);
            if (c1 < n) {
                b1 = seg[c1].begin;
                len1 = seg[c1].len;
                s1 = seg[c1].seg;
            }
        }
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, in + b);
        A v = long_part<T, A, Op, BLOCK, UNROLL>(in + b, len, 0, 1, op);
        if (t == 0) { // read after the block reduction's barriers
            cur[p ^ 1] = c1;
            after[p ^ 1] = c2;
            at[p ^ 1] = b1;
            count[p ^ 1] = len1;
            which[p ^ 1] = s1;
        }
        v = block_reduce_shuffle<BLOCK>(v, op);
        if (t == 0)
            op.write((char *)out + s * result_size, v, len);
    }
}

// How many parts an entry of len elements is cut into: len / chunk, at
// least 1 (at most the grid's chunks: chunk >= the sum of the listed
// lengths / chunks). The quotient comes from doubles, corrected to the
// integer one.
__device__ __forceinline__ unsigned long_parts(u64 len, u64 chunk)
{
    u64 q = (u64)((double)len / (double)chunk);
    q -= q * chunk > len ? 1 : 0;
    q += (q + 1) * chunk <= len ? 1 : 0;
    return q < 1 ? 1u : (unsigned)q;
}

template <class T, class A, class Op, class Off, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_long_segments(const T *in, u64 nseg, const Off *begin, const Off *end, void *out, unsigned result_size,
                     u64 huge, LongList l, SegGuard guard, A *partials, double ddof)
{
    constexpr unsigned PER = CR_LONG_MAX / BLOCK; // the entries a thread counts up
    // first[e]: entry e's first chunk, which is also where its partials start; next: the chunk
    // this block reduces, and the one it takes meanwhile
    __shared__ unsigned counted, next[2], first[CR_LONG_MAX + 1];
    __shared__ u64 chunk;
    const unsigned t = threadIdx.x;
    if (t == 0) {
        counted = *(volatile unsigned *)l.count;
        next[0] = atomicAdd(l.next, 1u);
    }
    __syncthreads();
    const unsigned n = counted;
    if (n <= l.cap) {
        // thread t's entries are PER t to PER (t + 1) - 1: their lengths (l.len's, at most 2^32 - 1:
        // what cuts them needs only be the same in every block) in one round of loads
        unsigned lens[PER];
        u64 mine = 0;
#pragma unroll
        for (unsigned j = 0; j < PER; j++)
            lens[j] = PER * t + j < n ? l.len[PER * t + j] : 0u;
#pragma unroll
        for (unsigned j = 0; j < PER; j++)
            mine += lens[j];
        const u64 all = block_scan_inclusive<BLOCK>(mine); // the last thread's is every entry's
        if (t == BLOCK - 1) {
            const u64 shares = (u64)l.chunks * gridDim.x, share = (all + shares - 1) / shares;
            chunk = share > huge ? share : huge;
        }
        __syncthreads();
        unsigned run = 0; // each entry's parts in its own first[], then where they start
#pragma unroll
        for (unsigned j = 0; j < PER; j++)
            if (PER * t + j < n) {
                first[PER * t + j] = long_parts(lens[j], chunk);
                run += first[PER * t + j];
            }
        const unsigned upto = block_scan_inclusive<BLOCK>(run);
        unsigned at = upto - run;
#pragma unroll
        for (unsigned j = 0; j < PER; j++)
            if (PER * t + j < n) {
                const unsigned parts = first[PER * t + j];
                first[PER * t + j] = at;
                at += parts;
            }
        if (t == BLOCK - 1)
            first[n] = upto; // entries from n on have no parts
        __syncthreads();
        const unsigned chunks = first[n];
        for (unsigned i = 0;; i ^= 1) {
            const unsigned c = next[i];
            if (c >= chunks)
                break;
            unsigned take = 0; // the counter's answer is needed only after this chunk's loads
            if (t == 0)
                take = atomicAdd(l.next, 1u);
            unsigned lo = 0, hi = n; // first[lo] <= c < first[hi]
            while (hi - lo > 1) {
                const unsigned mid = (lo + hi) / 2;
                if (first[mid] <= c)
                    lo = mid;
                else
                    hi = mid;
            }
            LongEntry *en = l.seg + lo;
            const long long b = en->begin;
            const u64 len = en->len, s = en->seg;
            const unsigned part = c - first[lo], parts = first[lo + 1] - first[lo];
            Op op;
            bind_ddof(op, ddof);
            bind_input(op, in + b);
            A v = long_part<T, A, Op, BLOCK, UNROLL>(in + b, len, part, parts, op);
            if (t == 0) // read by every thread after the block reduction's barriers
                next[i ^ 1] = take;
            v = block_reduce_shuffle<BLOCK>(v, op);
            finish_last_block<BLOCK>(v, (char *)out + s * result_size, len, partials + first[lo], &en->ticket, part,
                                     parts, op);
        }
    } else if (n <= l.listed) {
        listed_entries<T, A, Op, BLOCK, UNROLL>(in, n, out, result_size, l.seg, l.next, next[0], ddof);
    } else {
        every_long_segment<T, A, Op, Off, BLOCK, UNROLL>(in, nseg, begin, end, out, result_size, huge, guard, ddof);
    }
    if (t == 0) {
        __threadfence(); // this block's last take of a chunk before its done
        if (atomicAdd(l.done, 1u) == gridDim.x * gridDim.y - 1) { // every block has read the count and taken its last
            *l.count = 0;
            *l.done = 0;
            *l.next = 0;
        }
    }
}

#endif
