// test-exact-emu's check of the block emulation itself (emu_block.cc): that
// it finds what it is there to find. A read of another lane's write without
// a barrier in between reads the old value for some seeds, and never with
// the barrier; a __syncthreads that some threads skip, and lanes that meet
// at different warp barriers, are reported.
#include "emu_block.h"

extern "C" const char *emu_block_check(void);

namespace {

unsigned shared_word[8], stale;
bool with_barrier;

// Lane 0 of each warp writes its word; the other lanes read it, after a
// __syncwarp or not.
void publish(void *)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0)
        shared_word[warp] = blockIdx.x + 1;
    if (with_barrier)
        __syncwarp();
    if (lane != 0 && shared_word[warp] != blockIdx.x + 1)
        stale++;
    __syncwarp();
}

void diverge_block(void *)
{
    if (threadIdx.x < 32)
        __syncthreads();
}

void diverge_warp(void *)
{
    if ((threadIdx.x & 31u) < 16)
        __syncwarp();
    else
        (void)__shfl_xor_sync(0xffffffffu, 1, 1);
}

} // namespace

const char *emu_block_check(void)
{
    const char *err = NULL;
    with_barrier = false;
    stale = 0;
    for (unsigned b = 0; b < 16; b++)
        if (emu_block_run(b, 16, 64, publish, NULL, 1000 + b, &err))
            return err;
    if (stale == 0)
        return "a read without a barrier never saw the old value (16 blocks of 64 threads)";
    with_barrier = true;
    stale = 0;
    for (unsigned b = 0; b < 16; b++)
        if (emu_block_run(b, 16, 64, publish, NULL, 2000 + b, &err))
            return err;
    if (stale)
        return "a read after a barrier saw the old value";
    if (emu_block_run(0, 1, 64, diverge_block, NULL, 1, &err) == 0)
        return "a __syncthreads that half the block skips passed";
    if (emu_block_run(0, 1, 64, diverge_warp, NULL, 1, &err) == 0)
        return "lanes at a __syncwarp and at a shuffle passed";
    return NULL;
}
