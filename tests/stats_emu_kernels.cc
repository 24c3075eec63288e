// test-stats-emu: kernels-src/stats.cuh's own loops and merges run on the
// CPU. The per-thread loop (thread_visit's order: head element, unrolled
// 16-byte vectors rank, rank + size, ..., tail element), the warp shuffle
// tree as lane 0 sees it, the block's warp partials (stats_blocks.cuh's BlockLoop:
// the moments' shifted sums about the block's first element, LOGSUMEXP's
// sums scaled to the block's maximum) and the last block's combine
// (pairwise, or all the partials at once) are reproduced in their order,
// for a device of EMU_RESIDENT resident blocks (few, so that every thread
// loops over many vectors). The kernel headers come through the host shim
// (stats_emu_shim.h), which says what differs from the GPU.
#include "cured.h"
#include "stats_emu_shim.h"

#define EMU_RESIDENT 7
#define BLOCK 256

// warp_reduce_shuffle: lane j combines with lane j + off (itself past 31); lane 0's result.
template <class S, class Op> static S warp(S *l, const Op &op)
{
    for (int off = 16; off > 0; off >>= 1) {
        S c[32];
        for (int j = 0; j < 32; j++)
            c[j] = op(l[j], l[j + off < 32 ? j + off : j]);
        std::memcpy(l, c, sizeof c);
    }
    return l[0];
}
// block_reduce_shuffle: each warp, then the first warp over the warp partials.
template <class S, class Op> static S block(S *v, const Op &op)
{
    S l[32];
    for (int k = 0; k < BLOCK / 32; k++)
        l[k] = warp(v + 32 * k, op);
    for (int j = BLOCK / 32; j < 32; j++)
        l[j] = Op::identity();
    return warp(l, op);
}

// Block b's state as stats_blocks.cuh's BlockLoop forms it: its threads' states
// through the block's tree, or (the moments without COMP) every thread's
// shifted sums about the block's first element, added by the same tree
// (not for COMP or the NaN-skipping statistics: OWN_SHIFT).
template <class T, class Op> struct EmuThreads {
    static typename Op::State run(const T *in, size_t n, size_t b, size_t grid, const Op &op)
    {
        typename Op::State v[BLOCK];
        for (int t = 0; t < BLOCK; t++)
            v[t] = ThreadLoop<Op>::template run<T, typename Op::State, 4>(in, n, b * BLOCK + t, grid * BLOCK, op);
        return block(v, op);
    }
};
template <class T, class Op> struct EmuBlock : EmuThreads<T, Op> {};
template <class T, class R, int KIND, bool COMP> struct EmuMoments : EmuThreads<T, MeanVarOf<T, R, KIND> > {};
template <class T, class R, int KIND> struct EmuMoments<T, R, KIND, false> {
    static MeanVarState run(const T *in, size_t n, size_t b, size_t grid, const MeanVarOf<T, R, KIND> &)
    {
        const bool M2 = MeanVarOf<T, R, KIND>::KIND_M2;
        const double k = stats_shift(in, n, stats_first_index(in, n, b * BLOCK));
        const bool S2C = MeanVarOf<T, R, KIND>::S2C;
        MomentSums<S2C> v[BLOCK];
        for (int t = 0; t < BLOCK; t++) {
            ShiftedSums<T, M2, false, S2C> vis = {k, 0.0, 0.0, 0.0, 0.0, 0u};
            Source1<T> src = {in};
            thread_visit<T, 4, LoadLdg>(src, n, b * BLOCK + t, grid * BLOCK, vis);
            v[t] = MomentSums<S2C>::of(vis);
        }
        const MomentSums<S2C> s = block(v, AddMoments<S2C>());
        return s.c ? mv_shifted<M2, S2C>((double)s.c, k, s.s1, s.s2, s.comp()) : MeanVarOf<T, R, KIND>::identity();
    }
};
template <class T, class R, int KIND>
struct EmuBlock<T, MeanVarOf<T, R, KIND> > : EmuMoments<T, R, KIND, MeanVarOf<T, R, KIND>::OWN_SHIFT> {};

// LOGSUMEXP: the threads' states scaled once to the block's maximum, then summed by the tree.
template <class T, class P, class R> struct EmuBlock<T, LogSumExp<T, P, R> > {
    static LseState run(const T *in, size_t n, size_t b, size_t grid, const LogSumExp<T, P, R> &op)
    {
        LseState t[BLOCK];
        double top = limits<double>::lowest(), v[BLOCK];
        for (int k = 0; k < BLOCK; k++) {
            t[k] = ThreadLoop<LogSumExp<T, P, R> >::template run<T, LseState, 4>(in, n, b * BLOCK + k, grid * BLOCK, op);
            top = fmax(top, t[k].m);
        }
        for (int k = 0; k < BLOCK; k++)
            v[k] = lse_scaled(t[k], top);
        const LseState r = {top, block(v, AddScaled())};
        return r;
    }
};

// The last block's combine of the partials (grid.cuh's CombinePartials):
// thread t merges partials t, t + 256, ..., then the block's tree; or, where
// stats.cuh's StatsTuning gives END_PER > 1, all of them at once as the
// CombinePartials specialisations do (thread t holds partials t + j * 256,
// j < END_PER).
template <class Op, bool AT_ONCE = (StatsTuning<Op>::END_PER > 1)> struct EmuEnd {
    typedef typename Op::State S;
    static S run(const S *partials, size_t grid, const Op &op)
    {
        S v[BLOCK];
        for (int t = 0; t < BLOCK; t++) {
            v[t] = Op::identity();
            for (size_t i = t; i < grid; i += BLOCK)
                v[t] = op(v[t], partials[i]);
        }
        return block(v, op);
    }
};
template <class Op> static typename Op::State emu_partial(const typename Op::State *partials, size_t grid, int t, int j)
{
    const size_t i = (size_t)t + (size_t)j * BLOCK;
    return i < grid ? partials[i] : Op::identity();
}
template <class T, class R, int KIND> struct EmuEnd<MeanVarOf<T, R, KIND>, true> {
    typedef MeanVarOf<T, R, KIND> Op;
    static MeanVarState run(const MeanVarState *partials, size_t grid, const Op &)
    {
        const int PER = StatsTuning<Op>::END_PER;
        MeanVarState v[BLOCK];
        double m2[BLOCK];
        for (int t = 0; t < BLOCK; t++) {
            v[t] = AddMeanSums::identity();
            for (int j = 0; j < PER; j++)
                v[t] = AddMeanSums()(v[t], emu_partial<Op>(partials, grid, t, j));
        }
        MeanVarState total = block(v, AddMeanSums());
        mv_renorm(total.hi, total.lo);
        for (int t = 0; t < BLOCK; t++) {
            m2[t] = 0.0;
            for (int j = 0; j < PER; j++) {
                const MeanVarState p = emu_partial<Op>(partials, grid, t, j);
                if (p.n != 0.0)
                    m2[t] += mv_term(total, p);
            }
        }
        total.m2 = stats_finite(total.hi) ? block(m2, AddScaled()) : stats_nan();
        return total;
    }
};
template <class T, class P, class R> struct EmuEnd<LogSumExp<T, P, R>, true> {
    typedef LogSumExp<T, P, R> Op;
    static LseState run(const LseState *partials, size_t grid, const Op &)
    {
        const int PER = StatsTuning<Op>::END_PER;
        double top = Op::identity().m, s[BLOCK];
        for (int t = 0; t < BLOCK; t++)
            for (int j = 0; j < PER; j++)
                top = fmax(top, emu_partial<Op>(partials, grid, t, j).m);
        for (int t = 0; t < BLOCK; t++) {
            s[t] = 0.0;
            for (int j = 0; j < PER; j++)
                s[t] += lse_scaled(emu_partial<Op>(partials, grid, t, j), top);
        }
        const LseState r = {top, block(s, AddScaled())};
        return r;
    }
};

template <class T, class Op> static void run(const void *x, size_t n, Op op, void *out)
{
    typedef typename Op::State S;
    const T *in = static_cast<const T *>(x);
    const size_t per = (size_t)BLOCK * (16 / sizeof(T)) * 4;
    size_t grid = (n + per - 1) / per;
    grid = grid == 0 ? 1 : grid > EMU_RESIDENT ? EMU_RESIDENT : grid;
    S partials[EMU_RESIDENT];
    for (size_t b = 0; b < grid; b++)
        partials[b] = EmuBlock<T, Op>::run(in, n, b, grid, op);
    if (grid > 1) // finish_last_block
        partials[0] = EmuEnd<Op>::run(partials, grid, op);
    op.write(out, partials[0], n);
}

// The same data as one column of n rows down segmented.cu's reduce_cols (moments only):
// `splits` blocks of the rows, TY phases a block (thread ty takes rows ty, ty + TY, ...)
// through stats_columns.cuh's MeanVarColumns, the phases joined by the kernel's tree
// (phase_tree: phase ty takes phase ty + h's): with BLOCK_JOIN, of their shifted sums about
// the split's first row, formed into one state; else of their own states, by Chan's merges.
// The splits' partials are joined by cols_finish's combine_rows (two phases, each in order).
// Every lane of the vector holds the row's element; lane 0's result is taken.
extern "C" {
int emu_columns = 0; // set by stats_emu.c's second pass
}
template <class T, class Op> static void run_column(const void *x, size_t n, Op op, void *out)
{
    const int VEC = 16 / sizeof(T), TY = n <= 64 ? 1 : 8;
    typedef ColumnAcc<Op, T, MeanVarState, VEC> CA;
    const T *in = static_cast<const T *>(x);
    size_t splits = n > 4096 ? n / 2048 : 1;
    splits = splits > 40 ? 40 : splits;
    MeanVarState part[40];
    auto row = [&](size_t r) { // row r as the kernel's 16-byte vector of VEC columns
        T lanes[16 / sizeof(T)];
        for (int k = 0; k < VEC; k++)
            lanes[k] = in[r];
        uint4 v;
        std::memcpy(&v, lanes, sizeof v);
        return v;
    };
    for (size_t sp = 0; sp < splits; sp++) {
        const size_t r0 = n * sp / splits, r1 = n * (sp + 1) / splits;
        MeanVarState acc[8];
        typename CA::W w[8];
        for (int ty = 0; ty < TY; ty++) {
            CA::open(w[ty]);
            if constexpr (CA::BLOCK_JOIN) {
                const uint4 first = row(r0);
                if (r0 < r1)
                    CA::begin(w[ty], reinterpret_cast<const T *>(&first));
            }
            size_t r = r0 + ty;
            if (r < r1) {
                typename CA::N nn;
                CA::start(nn, w[ty]);
                for (; r < r1; r += TY)
                    CA::add(nn, row(r), (u64)r, op);
                CA::flush(w[ty], nn, op);
            }
            if constexpr (!CA::BLOCK_JOIN) {
                MeanVarState a[16 / sizeof(T)];
                CA::close(a, w[ty], (long long)((r - (r0 + ty)) / TY), op);
                acc[ty] = a[0];
            }
        }
        if constexpr (CA::BLOCK_JOIN) {
            typename CA::Sums sums[8];
            for (int ty = 0; ty < TY; ty++)
                sums[ty] = CA::sums(w[ty], 0);
            for (int h = TY / 2; h > 0; h >>= 1)
                for (int ty = 0; ty < h; ty++)
                    sums[ty] = AddMoments<Op::S2C>()(sums[ty], sums[ty + h]);
            part[sp] = CA::form(w[0], 0, sums[0], (double)(r1 - r0));
        } else {
            for (int h = TY / 2; h > 0; h >>= 1)
                for (int ty = 0; ty < h; ty++)
                    acc[ty] = op(acc[ty], acc[ty + h]);
            part[sp] = acc[0];
        }
    }
    MeanVarState v[2] = {Op::identity(), Op::identity()};
    for (size_t sp = 0; sp < splits; sp++)
        v[sp % 2] = op(v[sp % 2], part[sp]);
    op.write(out, splits > 1 ? op(v[0], v[1]) : part[0], n);
}
// LOGSUMEXP as one column of n rows down reduce_cols, in the same splits and phases: each
// phase's rows through the visitor's elem (logsumexp.cuh's ColumnAcc1), merged into the
// identity once (its flush); the phases joined as LseColumns::join does (their maximum,
// each sum scaled to it once unless already at it, the sums added by phase_tree's tree);
// the splits' partials as above.
template <class T, class P, class R> static void run_column_lse(const void *x, size_t n, LogSumExp<T, P, R> op,
                                                                  void *out)
{
    typedef LogSumExp<T, P, R> Op;
    const int TY = n <= 64 ? 1 : 8;
    const T *in = static_cast<const T *>(x);
    size_t splits = n > 4096 ? n / 2048 : 1;
    splits = splits > 40 ? 40 : splits;
    LseState part[40];
    for (size_t sp = 0; sp < splits; sp++) {
        const size_t r0 = n * sp / splits, r1 = n * (sp + 1) / splits;
        LseState ph[8];
        double top = Op::identity().m;
        for (int ty = 0; ty < TY; ty++) {
            LseVisitor<T, P> vis = {limits<P>::lowest(), 0.0};
            for (size_t r = r0 + ty; r < r1; r += TY)
                vis.elem(in[r], (u64)r);
            const LseState t = {(double)vis.m, vis.s};
            ph[ty] = op(Op::identity(), t);
            top = fmax(top, ph[ty].m);
        }
        if (TY == 1) {
            part[sp] = ph[0];
            continue;
        }
        double sum[8];
        for (int ty = 0; ty < TY; ty++)
            sum[ty] = lse_rescaled(ph[ty], top);
        for (int h = TY / 2; h > 0; h >>= 1)
            for (int ty = 0; ty < h; ty++)
                sum[ty] += sum[ty + h];
        const LseState r = {top, sum[0]};
        part[sp] = r;
    }
    LseState v[2] = {Op::identity(), Op::identity()};
    for (size_t sp = 0; sp < splits; sp++)
        v[sp % 2] = op(v[sp % 2], part[sp]);
    op.write(out, splits > 1 ? op(v[0], v[1]) : part[0], n);
}

template <class T, class Op> static void run_moments(const void *x, size_t n, Op op, void *out)
{
    if (emu_columns)
        run_column<T>(x, n, op, out);
    else
        run<T>(x, n, op, out);
}

template <class T, class R> static int dispatch_out(cured_op op, double ddof, const void *x, size_t n, void *out)
{
    switch (op) {
    case CURED_OP_MEAN: { Mean<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    case CURED_OP_VAR: { Var<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    case CURED_OP_STD: { Std<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    case CURED_OP_MEAN_VAR: { MeanVar<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    case CURED_OP_LOGSUMEXP: {
        LogSumExp<T, R, R> o;
        if (emu_columns)
            run_column_lse(x, n, o, out);
        else
            run<T>(x, n, o, out);
        return 1;
    }
    case CURED_OP_NANMEAN: { NanMean<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    case CURED_OP_NANVAR: { NanVar<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    case CURED_OP_NANSTD: { NanStd<T, double, R> o; o.ddof = ddof; run_moments<T>(x, n, o, out); return 1; }
    default: return 0;
    }
}

template <class T> static int dispatch(cured_op op, cured_type out, double ddof, const void *x, size_t n, void *res)
{
    return out == CURED_TYPE_FLOAT32 ? dispatch_out<T, float>(op, ddof, x, n, res)
                                     : dispatch_out<T, double>(op, ddof, x, n, res);
}

// The statistic op of x[0..n) (type in) into res as the kernel writes it; 0 if not a statistic.
extern "C" int emu_stats_run(cured_op op, cured_type in, cured_type out, double ddof, const void *x, size_t n,
                             void *res)
{
    switch (in) {
    case CURED_TYPE_INT8: return dispatch<signed char>(op, out, ddof, x, n, res);
    case CURED_TYPE_UINT8: return dispatch<unsigned char>(op, out, ddof, x, n, res);
    case CURED_TYPE_INT16: return dispatch<short>(op, out, ddof, x, n, res);
    case CURED_TYPE_UINT16: return dispatch<unsigned short>(op, out, ddof, x, n, res);
    case CURED_TYPE_INT32: return dispatch<int>(op, out, ddof, x, n, res);
    case CURED_TYPE_UINT32: return dispatch<unsigned>(op, out, ddof, x, n, res);
    case CURED_TYPE_INT64: return dispatch<long long>(op, out, ddof, x, n, res);
    case CURED_TYPE_UINT64: return dispatch<u64>(op, out, ddof, x, n, res);
    case CURED_TYPE_FLOAT16: return dispatch<half_t>(op, out, ddof, x, n, res);
    case CURED_TYPE_BFLOAT16: return dispatch<bf16_t>(op, out, ddof, x, n, res);
    case CURED_TYPE_FLOAT32: return dispatch<float>(op, out, ddof, x, n, res);
    case CURED_TYPE_FLOAT64: return dispatch<double>(op, out, ddof, x, n, res);
    }
    return 0;
}
