/*
 * kernels-src/exact.cu's kernels run on the CPU (exact_kernel_emu.cc), for
 * test-exact-emu. Types by exact_emu.h's ET_* numbers, operators by
 * exact.cu's EXACT_OP_* (SUM, MEAN, SUM_SQUARES, NORM2, DOT).
 */
#ifndef CURED_TESTS_EXACT_KERNEL_EMU_H
#define CURED_TESTS_EXACT_KERNEL_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EOP_SUM, EOP_MEAN, EOP_SUM_SQUARES, EOP_NORM2, EOP_DOT, EOP_COUNT };

/* The block exact_reduce<T, OP, BLOCK> takes (src/family_exact.c's), the
 * chunk a warp takes between flushes (exact.cu's ExactPlan) and the words of
 * a part's state record. */
unsigned emu_exact_kernel_block(int type, int op);
unsigned emu_exact_kernel_chunk(int type, int op);
unsigned emu_exact_kernel_record_words(int type, int op);

/* exact_reduce (exact_reduce_lanes where job->unit_warps is 0) over `grid`
 * blocks (in an order drawn from seed), then, when job->splits > 1 and the
 * job has no tickets, exact_finish over finish_grid blocks of 256 threads.
 * With quick set, exact_quick (or, with quick_columns, exact_quick_columns)
 * runs first, on *quick, over quick_grid blocks of 256 threads (SUM and MEAN
 * of float16, bfloat16 and float32 only); then, where quick lists long
 * segments (its long_len set), exact_quick_long over long_grid blocks.
 * Loads of 16-byte vectors must fall in [in, in + in_bytes) or
 * [in2, in2 + in2_bytes). Returns 0, or -1 with *error set (a static
 * message: a barrier not every thread reaches, a misaligned or stray
 * vector load). */
int emu_exact_kernel_run(int type, int rtype, int op, const struct cr_exact_job *job, unsigned grid,
                         unsigned finish_grid, const struct cr_exact_job *quick, int quick_columns, unsigned quick_grid,
                         unsigned long_grid, const void *in,
                         size_t in_bytes, const void *in2, size_t in2_bytes, uint64_t seed, const char **error);

/* The bits of quick's j.retry set after exact_quick and exact_quick_long, before the lanes (which clear them),
 * in the last emu_exact_kernel_run with quick set (not exact_quick_columns'). */
extern unsigned long long emu_exact_quick_marked;

#ifdef __cplusplus
}
#endif

#endif
