// Single-pass reductions (Handbook 12.3 and 12.4): one launch, no memset.
#include "common.cuh"

// The last block to finish, found with an atomic ticket, combines the
// per-block partials in a fixed order.
template <class T, class A, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK)
reduce_ticket(const T *in, size_t n, A *out, A *partials, unsigned int *ticket)
{
    Op op;
    A v = thread_reduce_scalar<T, A>(in, n, op);
    v = block_reduce_shuffle<BLOCK>(v, op);
    finish_last_block<BLOCK>(v, out, n, partials, ticket, op);
}

// One atomicAdd per block into an accumulator the workspace keeps at zero.
template <class T, class A, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK)
reduce_atomic(const T *in, size_t n, A *out, A *accum, unsigned int *ticket)
{
    Op op;
    A v = thread_reduce_scalar<T, A>(in, n, op);
    v = block_reduce_shuffle<BLOCK>(v, op);
    if (threadIdx.x == 0)
        finish_atomic(v, out, accum, ticket);
}
