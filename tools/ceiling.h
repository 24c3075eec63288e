/* The read-ceiling kernel of `cured bench axes` (ceiling.c). */
#ifndef CURED_TOOLS_CEILING_H
#define CURED_TOOLS_CEILING_H

#include <stddef.h>

#include "driver_all.h"

#define CEILING_VARIANTS 2 /* 4 or 8 loads in flight per thread */

struct ceiling {
    const struct cr_driver_all *d;
    CUmodule module;
    CUfunction fn[CEILING_VARIANTS];
    CUdeviceptr out;
};

/* Compile (NVRTC, PTX for compute_XY) and load the kernel. 0, or -1 with why. */
int ceiling_prepare(struct ceiling *c, const struct cr_driver_all *d, int ccmaj, int ccmin, char *why, size_t len);
/* Read `bytes` (a multiple of 16) from 16-byte aligned `in` on s. 0, or -1. */
int ceiling_launch(const struct ceiling *c, int variant, unsigned grid, unsigned block, const void *in, size_t bytes,
                   CUstream s);
void ceiling_release(struct ceiling *c);

#endif
