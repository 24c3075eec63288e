// The statistics kernel (src/family_stats.c): the AUTO kernel's shape (one
// launch, 16-byte loads, the last block combining partials in order) with
// the operator's own block loop, state and end (stats.cuh), and one more
// parameter, the delta degrees of freedom of VAR, STD and MEAN_VAR.
#include "stats.cuh"

// MIN_BLOCKS, the blocks per SM to keep resident: 4 (64 registers) for the
// shifted-sum moments: their loop would fit 32 registers (8 blocks), but
// the last block's end then spills, and the end of 1056 partials takes
// longer than that of 528 (bench/NOTES.md, v8, v20). Others keep no minimum
// (0). END_PER, the partials each thread of the last block holds
// (stats.cuh's CombinePartials): 4, all of up to 1024 blocks in one trip,
// for LOGSUMEXP and the moments without COMP (float32 results, and the
// float64 results of the exact types); 1 (the pairwise tree) for the COMP
// moments, whose loop is bound by float64 work and would lose half its
// blocks an SM to the 72 registers of the end.
template <class Op> struct StatsTuning { enum { MIN_BLOCKS = 0, END_PER = 1 }; };
template <class Op, class A, bool RAW> struct StatsTuning<Record<Op, A, RAW> > : StatsTuning<Op> {};
template <class T, class R, int KIND> struct StatsTuning<MeanVarOf<T, R, KIND> > {
    enum { MIN_BLOCKS = MeanVarOf<T, R, KIND>::COMP ? 0 : 4, END_PER = MeanVarOf<T, R, KIND>::COMP ? 1 : 4 };
};
template <class T, class P, class R> struct StatsTuning<LogSumExp<T, P, R> > { enum { MIN_BLOCKS = 0, END_PER = 4 }; };

template <class T, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK, StatsTuning<Op>::MIN_BLOCKS)
reduce_stats(const T *in, size_t n, void *out, typename Op::State *partials, unsigned int *ticket, double ddof)
{
    Op op;
    bind_ddof(op, ddof);
    typename Op::State v = BlockLoop<Op>::template run<BLOCK, T, typename Op::State, UNROLL>(
        in, n, (size_t)blockIdx.x * blockDim.x, (size_t)gridDim.x * blockDim.x, op);
    finish_last_block<BLOCK, typename Op::State, Op, StatsTuning<Op>::END_PER>(v, out, n, partials, ticket,
                                                                              blockIdx.x, gridDim.x, op);
}
