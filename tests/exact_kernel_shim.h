// test-exact-emu's host shim: kernels-src/exact.cu compiled for the CPU as
// it is, its CUDA built-ins given their host meanings. host_cuda.h has the
// keywords, bit casts and element types (types.cuh converts float16 with
// inline PTX); emu_block.h the threads, barriers and shuffles of a block
// (fibers); this file the rest:
// - __global__, __launch_bounds__ and __shared__ (a static: one block runs
//   at a time, and its threads share it);
// - __ldg of a 16-byte vector, which checks that the address is 16-byte
//   aligned and inside the launch's inputs (emu_exact_bounds), as the GPU's
//   vector loads need;
// - the atomics (the fibers take turns, so a plain read-modify-write is
//   atomic) and __threadfence;
// - abi.h with CUDA's typed device pointers (the host's C sees integers).
#ifndef CURED_TESTS_EXACT_KERNEL_SHIM_H
#define CURED_TESTS_EXACT_KERNEL_SHIM_H

#include "emu_block.h"
#include "host_cuda.h"

#define __global__
#define __launch_bounds__(...)
#define __shared__ static
using std::ldexp;
using std::sqrt;

// The memory the launch's loads may read: [lo[k], lo[k] + bytes[k]).
struct emu_exact_bounds {
    const void *lo[2];
    size_t bytes[2];
};
extern emu_exact_bounds emu_exact_inputs;

static inline uint4 __ldg(const uint4 *p)
{
    const uintptr_t a = (uintptr_t)p;
    if (a & 15u)
        emu_fail("a 16-byte load from an address that is not 16-byte aligned");
    bool inside = false;
    for (int k = 0; k < 2; k++)
        inside |= a >= (uintptr_t)emu_exact_inputs.lo[k] && a + 16 <= (uintptr_t)emu_exact_inputs.lo[k] + emu_exact_inputs.bytes[k];
    if (!inside) {
        emu_fail("a 16-byte load outside the inputs");
        return uint4();
    }
    uint4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    const unsigned long long old = *p;
    *p += v;
    return old;
}
static inline unsigned atomicAdd(unsigned *p, unsigned v)
{
    const unsigned old = *p;
    *p += v;
    return old;
}
static inline float atomicAdd(float *p, float v)
{
    const float old = *p;
    *p += v;
    return old;
}
static inline unsigned atomicOr(unsigned *p, unsigned v)
{
    const unsigned old = *p;
    *p |= v;
    return old;
}
template <class T> static inline T atomicExch(T *p, T v)
{
    const T old = *p;
    *p = v;
    return old;
}
// One block runs at a time: its writes are seen by the blocks after it.
static inline unsigned atomicAnd(unsigned *p, unsigned v)
{
    const unsigned old = *p;
    *p = old & v;
    return old;
}
static inline void __threadfence() {}
static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v)
{
    const unsigned long long old = *p;
    if (v > old)
        *p = v;
    return old;
}

#define __CUDACC__ // abi.h's device pointers typed, as NVRTC sees them
#include "abi.h"
#undef __CUDACC__

#endif
