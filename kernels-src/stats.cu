// The statistics kernel (src/family_stats.c): the AUTO kernel's shape (one
// launch, 16-byte loads, the last block combining partials in order) with
// the operator's own block loop, state and end (stats.cuh), and one more
// parameter, the delta degrees of freedom of VAR, STD and MEAN_VAR.
// StatsTuning (stats.cuh) gives each operator's occupancy bound and end.
#include "stats.cuh"

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
