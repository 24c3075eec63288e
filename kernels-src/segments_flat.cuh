// Segments of the generic operators (sums, extremes, user ops), laid end
// to end: a warp takes 32 consecutive segments, places them one after the
// other (an exclusive scan of their lengths) and gives each lane an equal
// share of that run, cut at 16-byte boundaries. When the segments are
// contiguous in memory (CSR offsets) a lane reads its share as one stream
// of 16-byte loads across segment boundaries, so every lane makes the same
// number of trips; otherwise it reads its pieces of segments one after the
// other. Either way it sees its elements in order and closes a segment's
// partial at each boundary: a segment within one share is written by its
// lane, and one that spans shares is finished by the lane where it starts,
// combining the next lanes' pieces in lane order. The shares depend only on
// the lengths, so results are the same from run to run. Segments over
// `huge` elements are only listed, as in grouped_segments.
#ifndef CURED_SEGMENTS_FLAT_CUH
#define CURED_SEGMENTS_FLAT_CUH

// Where lane l's share of the warp's run of `total` elements begins (l = 32:
// the end), rounded down to a 16-byte boundary of the first segment's
// addresses, which is every segment's when they are contiguous.
template <class T> __device__ __forceinline__ unsigned flat_cut(int l, unsigned total, long long first_at)
{
    if (l == 0 || l == 32)
        return l == 0 ? 0u : total;
    const long long VEC = 16 / sizeof(T);
    const long long at = first_at + (long long)(((u64)total * (unsigned)l) >> 5);
    const long long cut = (at - (((at % VEC) + VEC) % VEC)) - first_at;
    return cut < 0 ? 0u : (unsigned)cut;
}

// A lane's walk along its share: elements arrive in order with their place
// in the run; at each segment boundary the partial is written (the whole
// segment was in this share) or kept as `carried` (it began before).
template <class T, class A, class Op> struct FlatWalk {
    const unsigned *starts; // the run's scan, 34 entries
    char *out;              // result of the warp's first segment
    unsigned result_size;
    Op op;
    A acc, carried, open;
    int j, open_j;     // the current segment; the one left open at the share's end (or -1)
    unsigned pst, nb;  // where the current piece began; where segment j ends

    __device__ __forceinline__ void cross()
    {
        const unsigned sj = starts[j];
        if (pst == sj) {
            if (nb > sj)
                op.write(out + (u64)j * result_size, acc, nb - sj);
        } else {
            carried = acc;
        }
        acc = Op::identity();
        pst = nb;
        j++;
        nb = starts[j + 1];
    }
    __device__ __forceinline__ void elem(T x, unsigned i)
    {
        while (i >= nb)
            cross();
        acc = op(acc, op.map(x, 0));
    }
    __device__ __forceinline__ void vec(uint4 v, unsigned i0)
    {
        if (i0 + 16 / sizeof(T) <= nb) {
            acc = VecStep<Op>::template step<T, A>(acc, v, 0, op);
        } else {
            const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
            for (int k = 0; k < (int)(16 / sizeof(T)); k++)
                elem(e[k], i0 + k);
        }
    }
    __device__ __forceinline__ void finish(unsigned hi)
    {
        if (pst >= hi)
            return;
        if (hi == nb) {
            cross();
        } else if (pst == starts[j]) {
            open = acc;
            open_j = j;
        } else {
            carried = acc;
        }
    }
};

// n elements at p, the first of them at place i0 of the run, in order:
// the elements before p's first 16-byte boundary, UNROLL vectors at a time
// (the last few loaded together), then the rest.
template <class T, int UNROLL, class W>
__device__ __forceinline__ void flat_visit(const T *p, unsigned n, unsigned i0, W &walk)
{
    const int VEC = 16 / sizeof(T);
    const unsigned head = (unsigned)vec_head(p, n), nvec = (n - head) / VEC;
    for (unsigned h = 0; h < head; h++)
        walk.elem(p[h], i0 + h);
    const uint4 *v = reinterpret_cast<const uint4 *>(p + head);
    for (unsigned i = 0; i < nvec; i += UNROLL) {
        uint4 x[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u < nvec)
                x[u] = __ldg(v + i + u);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u < nvec)
                walk.vec(x[u], i0 + head + (i + u) * VEC);
    }
    for (unsigned t = head + nvec * VEC; t < n; t++)
        walk.elem(p[t], i0 + t);
}

// Vector q of a warp's staged chunk of 32 * UNROLL: its slot, so that
// neither the warp's stores (q = u * 32 + lane) nor its loads (q = lane *
// UNROLL + k) meet in a shared-memory bank.
__device__ __forceinline__ int stage_slot(int q) { return q ^ ((q >> 3) & 7); }

// A contiguous run of `total` elements at base, read by the whole warp in
// chunks of 32 * UNROLL vectors: loaded with adjacent lanes on adjacent
// vectors (the next chunk's loads in flight while this one is reduced),
// staged in shared memory, and taken back with UNROLL adjacent vectors a
// lane, so that each lane walks a short stretch of the run in order. A
// segment within a stretch is written by its lane. Every other partial goes
// into a segmented scan across the lanes (a lane that met a boundary starts
// a new sum); the segment a lane was in when its stretch began ends with
// the scan's sum of the lanes before it and, past the chunk, the carry.
template <class T, class A, class Op, int UNROLL>
__device__ __forceinline__ void flat_chunks(const T *base, unsigned total, unsigned start, const unsigned *starts,
                                            uint4 *stage, char *out, unsigned result_size, Op op)
{
    const int VEC = 16 / sizeof(T), wl = threadIdx.x % 32, C = 32 * UNROLL;
    const long long off0 = (long long)((reinterpret_cast<u64>(base) & 15) / sizeof(T));
    const uint4 *vb = reinterpret_cast<const uint4 *>(base - off0);
    const unsigned nvec = (unsigned)((off0 + total + VEC - 1) / VEC);
    A carry = Op::identity();
    uint4 x[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
        if ((unsigned)(u * 32 + wl) < nvec)
            x[u] = __ldg(vb + u * 32 + wl);
    for (unsigned c0 = 0; c0 < nvec; c0 += C) { // the same trips for the whole warp
        __syncwarp(); // the last chunk's readers are done
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            stage[stage_slot(u * 32 + wl)] = x[u];
        __syncwarp();
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (c0 + C + u * 32 + wl < nvec)
                x[u] = __ldg(vb + c0 + C + u * 32 + wl);
        const long long v0 = (long long)(c0 + wl * UNROLL) * VEC - off0; // the stretch's first place in the run
        int j = 0; // the segment in progress just before v0
#pragma unroll
        for (int d = 16; d > 0; d >>= 1)
            if ((long long)__shfl_sync(0xffffffffu, start, j + d) < v0)
                j += d;
        unsigned nb = starts[j + 1];
        bool bound = false;
        int hj = j;
        A head = Op::identity(), acc = Op::identity();
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            const uint4 v = stage[stage_slot(wl * UNROLL + k)];
            const long long i0 = v0 + k * VEC;
            if (i0 >= 0 && i0 + VEC <= (long long)nb) {
                acc = VecStep<Op>::template step<T, A>(acc, v, 0, op);
            } else {
                const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
                for (int m = 0; m < VEC; m++) {
                    const long long i = i0 + m;
                    if (i < 0 || i >= (long long)total)
                        continue;
                    while ((unsigned)i >= nb) { // segment j ends before element i
                        if (!bound) {
                            bound = true;
                            head = acc;
                            hj = j;
                        } else if (nb > starts[j]) {
                            op.write(out + (u64)j * result_size, acc, nb - starts[j]);
                        }
                        acc = Op::identity();
                        j++;
                        nb = starts[j + 1];
                    }
                    acc = op(acc, op.map(e[m], 0));
                }
            }
        }
        A sv = acc; // segmented inclusive scan of the lanes' last partials
        bool sf = bound;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const A pv = shfl_up(sv, d);
            const bool pf = __shfl_up_sync(0xffffffffu, sf, d);
            if (wl >= d) {
                if (!sf)
                    sv = op(pv, sv);
                sf = sf || pf;
            }
        }
        const A pv = shfl_up(sv, 1), last = shfl_idx(sv, 31);
        const bool pf = __shfl_up_sync(0xffffffffu, sf, 1), lf = __shfl_sync(0xffffffffu, sf, 31);
        if (bound && starts[hj + 1] > starts[hj]) {
            const A before = wl == 0 ? carry : pf ? pv : op(carry, pv);
            op.write(out + (u64)hj * result_size, op(before, head), starts[hj + 1] - starts[hj]);
        }
        carry = lf ? last : op(carry, last);
    }
    if (wl == 0 && total > 0) { // the last segment ends with the run
        int j = 0;
        for (int d = 16; d > 0; d >>= 1)
            if (starts[j + d] < total)
                j += d;
        op.write(out + (u64)j * result_size, carry, total - starts[j]);
    }
}

template <class T, class A, class Op, class Off, int BLOCK, int UNROLL, bool CHUNKS = true>
__device__ __forceinline__ void flat_segments(const T *in, u64 nseg, const Off *begin, const Off *end, void *out,
                                              unsigned result_size, u64 huge, LongList list, double ddof)
{
    const int WARPS = BLOCK / 32, wl = threadIdx.x % 32, w = threadIdx.x / 32;
    __shared__ unsigned starts[WARPS][34]; // the run's exclusive scan of lengths, its total twice
    __shared__ long long ats[WARPS][32];   // each segment's first element
    __shared__ __align__(16) unsigned char firsts_raw[WARPS * 32 * sizeof(A)];
    __shared__ uint4 stage[CHUNKS ? WARPS : 1][32 * UNROLL];
    A *firsts = reinterpret_cast<A *>(firsts_raw) + w * 32; // each lane's piece of a segment begun before it
    const u64 step = (u64)gridDim.x * BLOCK;
    u64 first = ((u64)blockIdx.x * WARPS + w) * 32, s = first + wl;
    long long b = 0, e = 0;
    if (s < nseg) {
        b = (long long)begin[s];
        e = (long long)end[s];
    }
    for (; first < nseg; first += step, s += step) { // the same trips for the whole warp
        const bool live = s < nseg;
        const u64 len = live && e > b ? (u64)(e - b) : 0;
        const long long at = b;
        if (s + step < nseg) { // the next segments' offsets
            b = (long long)begin[s + step];
            e = (long long)end[s + step];
        }
        const bool huge_one = len > huge;
        if (huge_one)
            list_long(list, s);
        const unsigned mine = huge_one ? 0u : (unsigned)len;
        unsigned incl = mine;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const unsigned t = __shfl_up_sync(0xffffffffu, incl, d);
            if (wl >= d)
                incl += t;
        }
        const unsigned start = incl - mine, total = __shfl_sync(0xffffffffu, incl, 31);
        const long long first_at = __shfl_sync(0xffffffffu, at, 0);
        const bool contiguous = __all_sync(0xffffffffu, huge_one ? false : len == 0 || at == first_at + start);
        __syncwarp(); // the last run's readers are done with the shared arrays
        starts[w][wl] = start;
        if (wl >= 30)
            starts[w][wl + 2] = total; // entry 33: where a walk past the last segment looks
        ats[w][wl] = at;
        Op op;
        bind_ddof(op, ddof);
        if (live && len == 0) // empty: the identity
            op.write((char *)out + s * result_size, Op::identity(), 0);
        const unsigned lo = flat_cut<T>(wl, total, first_at), hi = flat_cut<T>(wl + 1, total, first_at);
        int j = 0; // the segment holding element lo: the last whose start is at most lo
#pragma unroll
        for (int d = 16; d > 0; d >>= 1)
            if (__shfl_sync(0xffffffffu, start, j + d) <= lo)
                j += d;
        __syncwarp();

        if (CHUNKS && contiguous) {
            flat_chunks<T, A, Op, UNROLL>(in + first_at, total, start, starts[w], stage[CHUNKS ? w : 0],
                                          (char *)out + first * result_size, result_size, op);
            continue;
        }
        FlatWalk<T, A, Op> walk = {starts[w], (char *)out + first * result_size, result_size, op,
                                   Op::identity(), Op::identity(), Op::identity(), j, -1, lo, starts[w][j + 1]};
        if (lo < hi) {
            if (contiguous) {
                flat_visit<T, UNROLL>(in + first_at + lo, hi - lo, lo, walk);
            } else {
                int k = j; // the segment holding v
                for (unsigned v = lo; v < hi;) { // piece by piece
                    const unsigned sk = starts[w][k], sn = starts[w][k + 1], stop = sn < hi ? sn : hi;
                    flat_visit<T, UNROLL>(in + ats[w][k] + (v - sk), stop - v, v, walk);
                    v = stop;
                    for (k++; k < 32 && starts[w][k + 1] <= v; k++) // past empty segments
                        ;
                }
            }
            walk.finish(hi);
        }
        firsts[wl] = walk.carried;
        __syncwarp();
        if (walk.open_j >= 0) { // the segment begun here: the next lanes' pieces, in lane order
            const unsigned sn = starts[w][walk.open_j + 1];
            A acc = walk.open;
            for (int k = wl + 1; k < 32; k++) {
                const unsigned klo = flat_cut<T>(k, total, first_at), khi = flat_cut<T>(k + 1, total, first_at);
                if (klo < khi)
                    acc = op(acc, firsts[k]);
                if (sn <= khi)
                    break;
            }
            op.write((char *)out + (first + walk.open_j) * result_size, acc, sn - starts[w][walk.open_j]);
        }
    }
}

#endif
