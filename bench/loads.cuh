// Load policies that bench/tune.cu compares with the library's LoadLdg
// (kernels-src/visit.cuh); not used by the library.
#ifndef CURED_BENCH_LOADS_CUH
#define CURED_BENCH_LOADS_CUH

#include "common.cuh"

// ld.global.nc with an L2 prefetch hint of 256 bytes, skipping L1 (sm_80+).
struct LoadL2_256 {
    __device__ static __forceinline__ uint4 load(const uint4 *p)
    {
        uint4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
        return v;
    }
};
// Streaming (evict-first) loads.
struct LoadStream {
    __device__ static __forceinline__ uint4 load(const uint4 *p) { return __ldcs(p); }
};

#endif
