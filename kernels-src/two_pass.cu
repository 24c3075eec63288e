// Two-pass reductions (Handbook 12.2): the first launch writes one partial
// per block, the second launch (one block) reduces the partials. The same
// kernel serves both passes: pass 2 is <A, A> over gridDim-of-pass-1 values.
#include "common.cuh"

// Block reduction through a shared-memory tree.
template <class T, class A, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) reduce_pass_shared(const T *in, size_t n, A *out)
{
    Op op;
    A v = thread_reduce_scalar<T, A>(in, n, op);
    v = block_reduce_tree<BLOCK>(v, op);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}

// Block reduction through warp shuffles (Handbook 12.8).
template <class T, class A, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) reduce_pass_shuffle(const T *in, size_t n, A *out)
{
    Op op;
    A v = thread_reduce_scalar<T, A>(in, n, op);
    v = block_reduce_shuffle<BLOCK>(v, op);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}
