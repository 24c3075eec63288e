// Many results at once: rows (a contiguous run per output, of one length or
// given by offset arrays), columns (outputs adjacent in memory, reduced
// along a strided axis) and any other strided layout. The per-thread loops,
// operators and ends are the whole-array kernels' pieces (common.cuh), given
// a group of threads or blocks per output instead of the whole grid. Every
// kernel takes the statistics' ddof last (bind_ddof: ignored by the others).
#include "abi.h" // Kept, Reduced, Cols, LongList, SegGuard: the structs the host fills
#include "stats.cuh"
#include "packed.cuh"

// Where output o's elements start in the input and where its result goes.
__device__ __forceinline__ void kept_offsets(const Kept &k, u64 o, long long &in_off, long long &out_off)
{
    if (k.n == 1) { // the common case, without a division
        in_off = (long long)o * k.in_stride[0];
        out_off = (long long)o * k.out_stride[0];
        return;
    }
    in_off = 0;
    out_off = 0;
    for (int d = k.n - 1; d >= 0; d--) {
        const u64 e = (u64)k.extent[d], q = o / e, i = o - q * e;
        in_off += (long long)i * k.in_stride[d];
        out_off += (long long)i * k.out_stride[d];
        o = q;
    }
}

// The offset of element i of one output's reduced dimensions.
__device__ __forceinline__ long long reduced_offset(const Reduced &r, u64 i)
{
    long long off = 0;
    for (int d = r.n - 1; d >= 0; d--) {
        const u64 e = (u64)r.extent[d], q = i / e;
        off += (long long)(i - q * e) * r.stride[d];
        i = q;
    }
    return off;
}

// ARG operators read the winning element back when they write: point them
// at it (the element of index i is at `at`). Others ignore it.
template <class Op, class T> __device__ __forceinline__ void bind_winner(Op &, const T *, u64) {}
template <class T, class K, class R, bool MAX, bool IGN>
__device__ __forceinline__ void bind_winner(ArgOf<T, K, R, MAX, IGN> &op, const T *at, u64 i)
{
    op.in = reinterpret_cast<const T *>(reinterpret_cast<u64>(at) - i * sizeof(T));
}
template <class Op, class A, bool RAW, class T>
__device__ __forceinline__ void bind_winner(Record<Op, A, RAW> &op, const T *at, u64 i)
{
    bind_winner(static_cast<Op &>(op), at, i);
}
template <class A> __device__ __forceinline__ bool winner_index(const A &, u64 &) { return false; }
template <class K> __device__ __forceinline__ bool winner_index(const Arg<K> &a, u64 &i)
{
    i = (u64)a.i;
    return a.i != CURED_NO_INDEX;
}

// Combine over aligned groups of G lanes (G <= 32, a power of two): the
// group's first lane holds the result, combined as op(lower, higher).
template <int G, class A, class Op> __device__ __forceinline__ A group_reduce(A v, Op op)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1)
        v = op(v, shfl_down(v, off));
    return v;
}

// A group of G lanes' result, in its first lane: each live lane's share of
// in[0..n) (lane, lane + G, ...), combined by group_reduce; every lane takes
// part in the shuffles.
template <class Op> struct GroupLoopEach {
    template <int G, class T, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, bool live, int lane, Op op)
    {
        A v = live ? ThreadLoop<Op>::template run<T, A, UNROLL>(in, n, (size_t)lane, G, op) : Op::identity();
        return group_reduce<G>(v, op);
    }
};
template <class Op> struct GroupLoop : GroupLoopEach<Op> {};
// The moments without COMP (as stats_blocks.cuh's BlockLoop): the group's lanes
// shift by its first element, their shifted sums add plainly, and the first
// lane forms the state (the loss at most a factor n of float64's precision).
template <class T, class R, int KIND> struct GroupLoop<MeanVarOf<T, R, KIND> > {
    typedef MeanVarOf<T, R, KIND> Op;
    template <int G, class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, bool live, int lane, Op op)
    {
        if constexpr (Op::OWN_SHIFT) {
            A v = live ? ThreadLoop<Op>::template run<T, A, UNROLL>(in, n, (size_t)lane, G, op) : Op::identity();
            return group_reduce<G>(v, op);
        } else {
            const bool M2 = Op::KIND_M2;
            const double k = live ? stats_shift(in, n, stats_first_index(in, n, 0)) : 0.0;
            ShiftedSums<T, M2, false, Op::S2C> vis = {k, 0.0, 0.0, 0.0, 0.0, 0u};
            if (live) {
                Source1<T> src = {in};
                thread_visit<T, UNROLL, LoadLdg>(src, n, (size_t)lane, G, vis);
            }
            MomentSums<Op::S2C> s = MomentSums<Op::S2C>::of(vis);
            s = group_reduce<G>(s, AddMoments<Op::S2C>());
            return s.c ? mv_shifted<M2, Op::S2C>((double)s.c, k, s.s1, s.s2, s.comp()) : Op::identity();
        }
    }
};
template <class T, class R, int KIND, bool RAW>
struct GroupLoop<Record<MeanVarOf<T, R, KIND>, MeanVarState, RAW> > : GroupLoop<MeanVarOf<T, R, KIND> > {};
// A row's G lanes start from one reference, the largest of their first elements (a
// NaN left out), so that their states mostly meet at the group's maximum, without a
// float64 exponential a lane (logsumexp.cuh's lse_group_reduce); a lane raises it
// as LseVisitor does.
template <class T, class P, class R> struct GroupLoop<LogSumExp<T, P, R> > {
    template <int G, class TT, class A, int UNROLL>
    __device__ static __forceinline__ A run(const T *in, size_t n, bool live, int lane, LogSumExp<T, P, R> op)
    {
        if (G < 8) // (the first load and shuffles then cost more than the exponentials saved)
            return GroupLoopEach<LogSumExp<T, P, R> >::template run<G, T, A, UNROLL>(in, n, live, lane, op);
        P m = limits<P>::lowest();
        if (live) {
            const size_t i = stats_first_index(in, n, (size_t)lane);
            if (i < n)
                m = widen<P>(in[i]);
        }
#pragma unroll
        for (int off = G / 2; off > 0; off >>= 1)
            m = lse_max(m, __shfl_xor_sync(0xffffffffu, m, off));
        LseVisitor<T, P> vis = {m == m ? m : limits<P>::lowest(), 0.0};
        if (live) {
            Source1<T> src = {in};
            thread_visit<T, UNROLL, LoadLdg>(src, n, (size_t)lane, G, vis);
        }
        const LseState v = {(double)vis.m, vis.s};
        return lse_group_reduce<G>(v);
    }
};
template <class T, class P, class R, bool RAW>
struct GroupLoop<Record<LogSumExp<T, P, R>, LseState, RAW> > : GroupLoop<LogSumExp<T, P, R> > {};

// Rows of `len` elements, output o's row at in + kept(o). G threads per row
// (G <= 32), BLOCK / G rows per block, rows grid-stride. 16-byte loads where
// a row allows them (thread_visit handles each row's head and tail).
template <class T, class A, class Op, int BLOCK, int G, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_rows(const T *in, u64 nout, u64 len, Kept kept, void *out, unsigned result_size, double ddof)
{
    const int lane = threadIdx.x % G;
    const u64 step = (u64)gridDim.x * (BLOCK / G);
    // A warp's rows are consecutive; it runs its trips together (group_reduce shuffles across it).
    const u64 warp_first = ((u64)blockIdx.x * BLOCK + threadIdx.x - threadIdx.x % 32) / G;
    for (u64 base = warp_first; base < nout; base += step) {
        const u64 o = base + (threadIdx.x % 32) / G;
        const bool live = o < nout;
        long long in_off = 0, out_off = 0;
        if (live)
            kept_offsets(kept, o, in_off, out_off);
        const T *row = in + in_off;
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, row);
        A v = GroupLoop<Op>::template run<G, T, A, UNROLL>(row, len, live, lane, op);
        if (live && lane == 0)
            op.write((char *)out + out_off * result_size, v, len);
    }
}

// Rows split over blocks: `per` blocks per row (per > 1 only when there are
// few rows); the row's blocks meet at its ticket, and its last block
// combines their partials in order.
template <class T, class A, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_rows_split(const T *in, u64 nout, u64 len, Kept kept, void *out, unsigned result_size, unsigned per,
                  A *partials, unsigned int *tickets, double ddof)
{
    for (u64 b = blockIdx.x; b < nout * per; b += gridDim.x) {
        const u64 o = b / per;
        const unsigned part = (unsigned)(b - o * per);
        long long in_off, out_off;
        kept_offsets(kept, o, in_off, out_off);
        const T *row = in + in_off;
        Op op;
        bind_ddof(op, ddof);
        bind_input(op, row);
        A v = BlockLoop<Op>::template run<BLOCK, T, A, UNROLL>(row, len, (size_t)part * BLOCK, (size_t)per * BLOCK, op);
        finish_last_block<BLOCK>(v, (char *)out + out_off * result_size, len, partials + o * per,
                                 tickets + (per > 1 ? o : 0), part, per, op);
        __syncthreads(); // `last` in shared memory is reused by the next row
    }
}

#include "segments_short.cuh"
#include "segments_long.cuh"

// Columns: outputs (b, c) adjacent along c (in-stride 1), reduced along
// rows r (stride row) of each batch b. A block is TX x TY threads: TX lanes
// across VEC-wide column groups, TY phases down the rows; the rows may be
// split over gridDim.y / nbatch blocks, whose partials cols_finish combines
// (cols_combine.cuh). The geometry is a Cols (abi.h).
#include "cols_combine.cuh"
template <class T, class A, class Op, int BLOCK, int TX, int VEC, int RS>
__global__ void __launch_bounds__(BLOCK, ColsTuning<Op, TX>::MIN_BLOCKS)
reduce_cols(const T *in, Cols g, void *out, unsigned result_size, A *partials, unsigned int *tickets, double ddof)
{
    const int TY = BLOCK / TX;
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    const u64 b = blockIdx.y / g.splits;
    const unsigned split = blockIdx.y % g.splits;
    const long long c0 = ((long long)blockIdx.x * TX + tx) * VEC;
    const long long r0 = g.rows * split / g.splits, r1 = g.rows * (split + 1) / g.splits;
    const T *base = in + b * g.batch;
    Op op;
    bind_ddof(op, ddof);
    A acc[VEC];
#pragma unroll
    for (int k = 0; k < VEC; k++)
        acc[k] = Op::identity();
    const bool whole = c0 + VEC <= g.cols;
    const bool fold = VEC > 1 && sizeof(A) <= 8 && g.fold != 0; // the planner folds states of 8 bytes at most
    const int lanes = fold ? (int)g.fold : VEC; // lanes holding results after the fold (uniform)
    // 8-bit sums: 16-bit lanes over chunks of rows, then 32-bit ones (sums8.cuh), while a
    // thread's rows fit them.
    typedef ColumnAcc<Op, T, A, VEC> CA;
    // N: a thread's VEC results; a warp's 32 lanes (TX >= 32) hold consecutive ones, staged in
    // the phase area when wide (packed.cuh's warp_store).
    const int N = VEC * RS, STAGE = TX >= 32 && N > 16 && N <= 128 && N % 16 == 0 ? TX * N : 0;
    __shared__ __align__(16) unsigned char smem[sizeof(A) * BLOCK > STAGE ? sizeof(A) * BLOCK : STAGE];
    A *sm = reinterpret_cast<A *>(smem);
    typename CA::W w;
    CA::open(w);
    if (c0 < g.cols) {
        long long r = r0 + ty;
        if (VEC > 1 && (whole || fold) && (CA::MAXROWS == 0 || (r1 - r0) / TY < CA::MAXROWS)) {
            if constexpr (CA::BLOCK_JOIN && BLOCK > TX) // (one phase: the thread's first row is the block's)
                if (r0 < r1)
                    CA::begin(w, base + r0 * g.row + c0);
            while (r < r1) {
                const long long end = CA::CHUNKED && (r1 - r) / TY > CA::CHUNK ? r + CA::CHUNK * TY : r1;
                typename CA::N part;
                CA::start(part, w);
                for (; r + 3 * TY < end; r += 4 * TY) { // four rows in flight
                    uint4 v[4];
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        v[u] = __ldg(reinterpret_cast<const uint4 *>(base + (r + u * TY) * g.row + c0));
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        CA::add(part, v[u], (u64)(r + u * TY), op);
                }
                for (; r < end; r += TY)
                    CA::add(part, __ldg(reinterpret_cast<const uint4 *>(base + r * g.row + c0)), (u64)r, op);
                CA::flush(w, part, op);
            }
            if constexpr (!CA::BLOCK_JOIN)
                CA::close(acc, w, (r - (r0 + ty)) / TY, op);
        } else if constexpr (CA::BLOCK_JOIN) { // the tile's last columns, element by element
            const int live = (int)(g.cols - c0 < VEC ? g.cols - c0 : VEC);
            if (r0 < r1)
                CA::begin_elems(w, base + r0 * g.row + c0, live);
            for (; r < r1; r += TY)
                CA::add_elems(w, base + r * g.row + c0, live, (u64)r, op);
        } else {
            for (; r < r1; r += TY)
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    if (c0 + k < (fold ? VEC : g.cols))
                        acc[k] = op(acc[k], op.map(base[r * g.row + c0 + k], (u64)r));
        }
    }
    const unsigned tile = (unsigned)(b * g.tiles + blockIdx.x);
    if constexpr (CA::BLOCK_JOIN) {
        // The operator joins the block's phases itself (the statistics: one shift, or one
        // maximum, shared by the phases of a column), into ty == 0's acc.
        CA::template join<BLOCK, TX>(acc, w, smem, c0 < g.cols ? g.cols - c0 : 0, r1 - r0, op);
    } else {
        // Folded: a 16-byte row holds VEC / fold rows of the fold columns; lane k's values join
        // lane k % fold's, halves first (a fixed order).
        if (fold)
#pragma unroll
            for (int l = 1; l <= 4; l++) {
                const int h = VEC >> l; // 8, 4, 2, 1 lanes apart (16 lanes at most)
#pragma unroll
                for (int k = 0; k < VEC / 2; k++)
                    if (k < h && h >= (int)g.fold)
                        acc[k] = op(acc[k], acc[k + h]);
            }
        // The TY phases of each column, combined in a fixed order (a chain, or a tree). Up to 8
        // phases join in a chain, unless a state is 16 bytes or more (the statistics, whose
        // merges take float64 divisions and exponentials; ARG; wide MINMAX and user states);
        // more phases, or such states, as a tree.
        const bool TREE = TY > 8 || sizeof(A) >= 16;
        if (TY > 1 && !TREE)
            for (int k = 0; k < VEC; k++) {
                if (k >= lanes)
                    break;
                sm[threadIdx.x] = acc[k];
                __syncthreads();
                if (ty == 0)
                    for (int y = 1; y < TY; y++)
                        acc[k] = op(acc[k], sm[y * TX + tx]);
                __syncthreads();
            }
        else if (TY > 1) // a tree: one thread's chain of TY - 1 combines would be the tail of narrow tiles
            phase_tree<BLOCK, TX, VEC>(acc, lanes, sm, op);
    }
    if (g.splits > 1) {
        if (ty == 0 && c0 < g.cols)
            for (int k = 0; k < VEC && c0 + k < g.cols; k++)
                partials[((u64)split * g.batches + b) * g.cols + c0 + k] = acc[k];
        cols_finish<BLOCK, TX * VEC>(g, b, split, tile, base, partials, tickets, out, result_size, op, sm);
        return;
    }
    if (ty != 0)
        return;
    // Dense results are stored together: N bytes a thread when N <= 16, else a warp's 32 x N
    // bytes as 16-byte pieces across the lanes (a thread's own narrow stores, N bytes apart
    // across the warp, made few-row columns of wide results write-bound).
    char *dst = (char *)out + (b * g.out_batch + c0) * RS;
    const int ALIGN = N >= 16 ? 16 : N;
    const bool dense = VEC > 1 && g.out_col == 1 && (N % 16 == 0 || (N & (N - 1)) == 0) &&
                       (u64)dst % ALIGN == 0;
    const long long w0 = c0 - (long long)(tx % 32) * VEC; // the warp's first column
    const bool warp_dense = STAGE > 0 && g.out_col == 1 && w0 + 32 * VEC <= g.cols &&
                            ((u64)out + (b * g.out_batch + w0) * RS) % 16 == 0; // warp-uniform
    if (warp_dense || (dense && whole && N <= 16)) {
        __align__(16) unsigned char buf[N] = {0}; // padding bytes of a result are stored as zeros
#pragma unroll
        for (int k = 0; k < VEC; k++) {
            Op wop = op;
            u64 i;
            if (winner_index(acc[k], i))
                bind_winner(wop, base + (long long)i * g.row + c0 + k, i);
            wop.write(buf + k * RS, acc[k], (u64)g.len);
        }
        if (warp_dense)
            warp_store<(STAGE > 0 ? N : 32)>(buf, smem + (tx / 32) * 32 * N, (char *)out + (b * g.out_batch + w0) * RS);
        else
            store_bytes<N>(buf, dst);
        return;
    }
    if (c0 < g.cols)
        for (int k = 0; k < VEC && c0 + k < g.cols; k++) {
            u64 i;
            if (winner_index(acc[k], i))
                bind_winner(op, base + (long long)i * g.row + c0 + k, i);
            op.write((char *)out + (b * g.out_batch + (c0 + k) * g.out_col) * result_size, acc[k], (u64)g.len);
        }
}

// Any other layout: one warp per output, lanes stride over the reduced
// index and find each element through the reduced dimensions.
template <class T, class A, class Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
reduce_strided(const T *in, u64 nout, u64 len, Kept kept, Reduced red, void *out, unsigned result_size,
               double ddof)
{
    const int lane = threadIdx.x % 32;
    const u64 step = (u64)gridDim.x * (BLOCK / 32);
    for (u64 o = (u64)blockIdx.x * (BLOCK / 32) + threadIdx.x / 32; o < nout; o += step) {
        long long in_off, out_off;
        kept_offsets(kept, o, in_off, out_off);
        const T *base = in + in_off;
        Op op;
        bind_ddof(op, ddof);
        A v = Op::identity();
        for (u64 i = lane; i < len; i += 32)
            v = op(v, op.map(base[reduced_offset(red, i)], i));
        v = group_reduce<32>(v, op);
        if (lane == 0) {
            u64 i;
            if (winner_index(v, i))
                bind_winner(op, base + reduced_offset(red, i), i);
            op.write((char *)out + out_off * result_size, v, len);
        }
    }
}
