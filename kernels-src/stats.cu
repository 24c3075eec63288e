// The statistics kernel (src/family_stats.c): the AUTO kernel's shape (one
// launch, 16-byte loads, the last block combining partials in order) with
// the operator's own block loop, state and end (stats.cuh), and one more
// parameter, the delta degrees of freedom of VAR, STD and MEAN_VAR.
#include "stats.cuh"

// Blocks per SM to keep resident: 4 (64 registers) for the shifted-sum
// moments: their loop would fit 32 registers (8 blocks), but the last
// block's merges then spill and the end of 1056 partials takes 5 us more
// than that of 528 (bench/NOTES.md, v8, v20). Others keep no minimum (0).
template <class Op> struct StatsOccupancy { enum { MIN_BLOCKS = 0 }; };
template <class Op, class A, bool RAW> struct StatsOccupancy<Record<Op, A, RAW> > : StatsOccupancy<Op> {};
template <class T, class R, int KIND> struct StatsOccupancy<MeanVarOf<T, R, KIND> > {
    enum { MIN_BLOCKS = MeanVarOf<T, R, KIND>::COMP ? 0 : 4 };
};

template <class T, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK, StatsOccupancy<Op>::MIN_BLOCKS)
reduce_stats(const T *in, size_t n, void *out, typename Op::State *partials, unsigned int *ticket, double ddof)
{
    Op op;
    bind_ddof(op, ddof);
    typename Op::State v = BlockLoop<Op>::template run<BLOCK, T, typename Op::State, UNROLL>(
        in, n, (size_t)blockIdx.x * blockDim.x, (size_t)gridDim.x * blockDim.x, op);
    finish_last_block<BLOCK>(v, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}
