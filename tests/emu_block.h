// A CUDA block on the CPU (emu_block.cc): each of its threads is a fiber
// with its own stack, run on the calling thread one at a time; a fiber runs
// until it reaches a barrier (__syncthreads, __syncwarp, a shuffle), and the
// fibers a barrier releases run in an order drawn from the launch's seed, so
// that code that reads what another thread writes without a barrier in
// between gives a wrong result for some seeds, and every run of a seed is the
// same run. Every thread of the block must reach every __syncthreads, every
// lane of a warp the same warp barriers (as exact.cu's kernels do): a
// barrier that a thread skips or ends without, or a warp's lanes at
// different shuffles, is reported as the block's error instead of hanging.
#ifndef CURED_TESTS_EMU_BLOCK_H
#define CURED_TESTS_EMU_BLOCK_H

#include <cstddef>
#include <cstdint>
#include <cstring>

struct emu_dim3 {
    unsigned x, y, z;
};
// The running fiber's indices, and the launch's shape.
extern emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

// Runs body(arg) as each of the `threads` threads of block `block` of a grid
// of `grid` blocks. Returns 0, or -1 with *error set (a static message).
int emu_block_run(unsigned block, unsigned grid, unsigned threads, void (*body)(void *), void *arg, uint64_t seed,
                  const char **error);

// Waits at a barrier: every thread of the block, or every lane of the
// caller's warp; `site` names the warp barrier, whose lanes must all arrive at
// the same one (a shuffle's lanes meet at the same shuffle).
void emu_barrier_block();
void emu_barrier_warp(int site);
// The caller's warp's exchange slots (a shuffle's values), 32 of them.
uint64_t *emu_warp_slots();
// Reports an error in the running block (the first one stays); the block
// goes on.
void emu_fail(const char *what);

enum { EMU_SITE_SYNCWARP = 1, EMU_SITE_SHFL_IN, EMU_SITE_SHFL_OUT, EMU_SITE_BALLOT_IN, EMU_SITE_BALLOT_OUT };

#define EMU_FULL_MASK 0xffffffffu
static inline void __syncthreads() { emu_barrier_block(); }
static inline void __syncwarp(unsigned mask = EMU_FULL_MASK)
{
    if (mask != EMU_FULL_MASK)
        emu_fail("__syncwarp with a partial mask");
    emu_barrier_warp(EMU_SITE_SYNCWARP);
}
// Lane src_lane's v: every lane writes its value, the warp meets, every
// lane reads the one it asked for, and the warp meets again before the
// slots are reused.
template <class T> static inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32)
{
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    if (mask != EMU_FULL_MASK || width != 32)
        emu_fail("a shuffle with a partial mask or width");
    uint64_t *slots = emu_warp_slots();
    std::memcpy(&slots[threadIdx.x & 31u], &v, sizeof v);
    emu_barrier_warp(EMU_SITE_SHFL_IN);
    T r;
    std::memcpy(&r, &slots[(unsigned)src_lane & 31u], sizeof r);
    emu_barrier_warp(EMU_SITE_SHFL_OUT);
    return r;
}
// Lane l's result is lane (l ^ lane_mask)'s v.
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
    return __shfl_sync(mask, v, (int)((threadIdx.x & 31u) ^ (unsigned)lane_mask), width);
}
// Bit l of the result is lane l's predicate, the same for every lane.
static inline unsigned __ballot_sync(unsigned mask, int pred)
{
    if (mask != EMU_FULL_MASK)
        emu_fail("a ballot with a partial mask");
    uint64_t *slots = emu_warp_slots();
    const unsigned lane = threadIdx.x & 31u;
    slots[lane] = pred != 0;
    emu_barrier_warp(EMU_SITE_BALLOT_IN);
    unsigned r = 0;
    for (unsigned l = 0; l < 32; l++)
        r |= (unsigned)slots[l] << l;
    emu_barrier_warp(EMU_SITE_BALLOT_OUT);
    return r;
}

#endif
