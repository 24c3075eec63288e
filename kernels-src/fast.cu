// The AUTO kernels: one launch, several independent 16-byte loads in flight
// per thread, warp-shuffle block reduction, and the last-block ticket to
// combine partials in a fixed order (deterministic, no atomics on data).
#include "common.cuh"

template <class T, class A, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_fast(const T *in, size_t n, void *out, A *partials, unsigned int *ticket)
{
    Op op;
    bind_input(op, in);
    A v = ThreadLoop<Op>::template run<T, A, UNROLL>(in, n, op);
    finish_grid<BLOCK>(v, out, n, partials, ticket, op);
}

// Two inputs (dot product). 16-byte loads when x and y share their offset
// within 16 bytes, else one element at a time.
template <class T, class A, class Op, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
reduce_fast2(const T *x, const T *y, size_t n, void *out, A *partials, unsigned int *ticket)
{
    Op op;
    const int VEC = 16 / sizeof(T);
    const size_t tid = (size_t)blockIdx.x * BLOCK + threadIdx.x;
    const size_t nthreads = (size_t)gridDim.x * BLOCK;
    A acc = Op::identity();
    size_t done = 0;
    u64 mx = reinterpret_cast<u64>(x) & 15, my = reinterpret_cast<u64>(y) & 15;
    if (mx == my) {
        size_t head = mx ? (16 - mx) / sizeof(T) : 0;
        if (head > n)
            head = n;
        if (tid < head)
            acc = op(acc, op.map2(x[tid], y[tid], tid));
        const uint4 *bx = reinterpret_cast<const uint4 *>(x + head);
        const uint4 *by = reinterpret_cast<const uint4 *>(y + head);
        const size_t nvec = (n - head) / VEC;
        for (size_t i = tid; i < nvec; i += nthreads) {
            uint4 vx[UNROLL], vy[UNROLL];
            int k = 0;
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                if (i + u * nthreads < nvec) {
                    vx[u] = __ldg(bx + i + u * nthreads);
                    vy[u] = __ldg(by + i + u * nthreads);
                    k = u + 1;
                }
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                if (u < k) {
                    const T *ex = reinterpret_cast<const T *>(&vx[u]);
                    const T *ey = reinterpret_cast<const T *>(&vy[u]);
                    u64 i0 = head + (i + u * nthreads) * VEC;
#pragma unroll
                    for (int e = 0; e < VEC; e++)
                        acc = op(acc, op.map2(ex[e], ey[e], i0 + e));
                }
            i += (UNROLL - 1) * nthreads;
        }
        done = head + nvec * VEC;
    }
    for (size_t i = done + tid; i < n; i += nthreads)
        acc = op(acc, op.map2(x[i], y[i], i));
    finish_grid<BLOCK>(acc, out, n, partials, ticket, op);
}
