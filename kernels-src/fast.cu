// The AUTO kernels: one launch, several independent 16-byte loads in flight
// per thread, warp-shuffle block reduction, and the last-block ticket to
// combine partials in a fixed order (deterministic, no atomics on data).
// The grid is one group of threads reducing one array.
#include "common.cuh"

template <class T, class A, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_fast(const T *in, size_t n, void *out, A *partials, unsigned int *ticket)
{
    Op op;
    bind_input(op, in);
    const size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x, size = (size_t)gridDim.x * blockDim.x;
    A v = ThreadLoop<Op>::template run<T, A, UNROLL>(in, n, rank, size, op);
    finish_grid<BLOCK>(v, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}

// Two inputs read in step (dot products): the same loop over both.
template <class T, class A, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_fast2(const T *x, const T *y, size_t n, void *out, A *partials, unsigned int *ticket)
{
    Op op;
    const size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x, size = (size_t)gridDim.x * blockDim.x;
    A v = thread_reduce_vec2<T, A, Op, UNROLL>(x, y, n, rank, size, op);
    finish_grid<BLOCK>(v, out, n, partials, ticket, blockIdx.x, gridDim.x, op);
}
