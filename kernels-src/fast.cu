// The AUTO kernel: one launch, several independent 16-byte loads in flight
// per thread, warp-shuffle block reduction, and the last-block ticket to
// combine partials in a fixed order (deterministic, no atomics on data).
#include "common.cuh"

template <class T, class A, int BLOCK, int UNROLL, class Op>
__global__ void __launch_bounds__(BLOCK)
reduce_fast(const T *in, size_t n, A *out, A *partials, unsigned int *ticket)
{
    Op op;
    A v = thread_reduce_vec<T, A, Op, UNROLL>(in, n, op);
    v = block_reduce_shuffle<BLOCK>(v, op);
    finish_last_block<BLOCK>(v, out, partials, ticket, op);
}
