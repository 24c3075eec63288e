/* test-compile's parallel compilation (precompile.c). */
#ifndef CURED_TEST_PRECOMPILE_H
#define CURED_TEST_PRECOMPILE_H

#include <stddef.h>

/* Cubins of kernels [0, table_kernels) for every arch_stride-th of archs
 * and the last, of every kernel for main_archs[0] and of precompile_oldest's for the others, and PTX of the Table 12-1
 * kernels and every ptx_stride-th other one for the last of archs, each
 * once, into the memory cache; of the kernels only those the tests check
 * (the kernel_stride-th of each group of `group`: CURED_TEST_QUICK's subset).
 * 0, or -1 (after "FAIL: ..." on stdout) when it cannot start; failed
 * compilations are only counted: the tests compile them again and report
 * them. */
int precompile(size_t table_kernels, const int *archs, int narchs, const int *main_archs, int nmain,
               size_t ptx_stride, size_t kernel_stride, size_t group, int arch_stride);

/* 1 for an exact-sum unit (kernels-src/exact.cu: seconds of NVRTC each; test-gpu-exact and test-exact-emu run
 * them) off the every-8th sample: it compiles for the first main architecture only, no PTX. */
int precompile_sampled(size_t k);

/* 1 when kernel k also compiles for the oldest architecture: every 3rd kernel off the exact units' sample
 * (CURED_TEST_FULL=1: every one). */
int precompile_oldest(size_t k);

#endif
