// The join of a column tile's phases (segmented.cu's reduce_cols: TX threads
// across the tile, TY = BLOCK / TX phases down its rows): a tree into phase 0,
// for the states the operators merge and for the sums the statistics add.
#ifndef CURED_PHASE_TREE_CUH
#define CURED_PHASE_TREE_CUH

#include "words.cuh"

// The TY = BLOCK / TX phases' values of a thread's VEC columns (the first `lanes` of
// them), joined by a tree into phase 0's (ty == 0): phase ty takes phase ty + h's, for
// h = TY / 2, ..., 1. Phase ty + h is h * TX threads on: in another warp while h * TX >= 32,
// through shared memory (sm: BLOCK values), then within the first warp by shuffles (no
// barrier), a column at a time (all columns in flight held more registers through the loop).
// Every thread of the block calls it.
template <int BLOCK, int TX, int VEC, class V, class Op>
__device__ __forceinline__ void phase_tree(V *v, int lanes, V *sm, Op op)
{
    const int TY = BLOCK / TX, INWARP = TX < 32 ? 32 / TX : 1; // steps h below INWARP stay in a warp
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    for (int k = 0; k < VEC; k++) {
        if (k >= lanes || TY / 2 < INWARP)
            break;
        sm[threadIdx.x] = v[k];
        __syncthreads();
#pragma unroll
        for (int h = TY / 2; h >= INWARP; h >>= 1) {
            if (ty < h) {
                v[k] = op(v[k], sm[(ty + h) * TX + tx]);
                sm[threadIdx.x] = v[k];
            }
            __syncthreads();
        }
    }
    if (threadIdx.x < 32)
        for (int k = 0; k < VEC; k++) {
            if (k >= lanes)
                break;
#pragma unroll
            for (int h = (TY / 2 < INWARP ? TY : INWARP) / 2; h > 0; h >>= 1) {
                const V other = shfl_down(v[k], h * TX);
                if (ty < h)
                    v[k] = op(v[k], other);
            }
        }
}

#endif
