// The statistics kernel (src/family_stats.c): the AUTO kernel's shape (one
// launch, 16-byte loads, the last block combining partials in order) with
// the operator's own per-thread loop and state (stats.cuh), and one more
// parameter, the delta degrees of freedom of VAR, STD and MEAN_VAR.
#include "stats.cuh"

template <class T, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_stats(const T *in, size_t n, void *out, typename Op::State *partials, unsigned int *ticket, double ddof)
{
    Op op;
    bind_ddof(op, ddof);
    const size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x, size = (size_t)gridDim.x * blockDim.x;
    typename Op::State v = ThreadLoop<Op>::template run<T, typename Op::State, UNROLL>(in, n, rank, size, op);
    finish_grid<BLOCK>(v, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}
