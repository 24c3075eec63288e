/*
 * kernels-src/exact.cuh's arithmetic run on the CPU (exact_emu.cc), for
 * test-exact. A state is an opaque block of emu_exact_bytes(fmt) bytes; terms
 * and results are bit patterns of the types below.
 */
#ifndef CURED_EXACT_EMU_H
#define CURED_EXACT_EMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The header's formats (ExactHalf ... ExactDoubleProducts) and element types. */
enum { EF_HALF, EF_SINGLE, EF_DOUBLE, EF_HALF_PRODUCTS, EF_SINGLE_PRODUCTS, EF_DOUBLE_PRODUCTS, EF_COUNT };
enum { ET_HALF, ET_BF16, ET_FLOAT, ET_DOUBLE };

size_t emu_exact_bytes(int fmt);
int emu_exact_digits(int fmt);
void emu_exact_init(int fmt, void *s);
void emu_exact_add(int fmt, void *s, int type, uint64_t bits);
void emu_exact_add_product(int fmt, void *s, int type, uint64_t x, uint64_t y);
/* n terms (or products x y when y) into a state with strided digits, as
 * doubles (exact for every type: the products of float32 pairs too), merged
 * into s. */
void emu_exact_strided(int fmt, void *s, int type, const uint64_t *x, const uint64_t *y, size_t n);
void emu_exact_normalize(int fmt, void *s);
void emu_exact_merge(int fmt, void *a, const void *b);
/* a's digits += b's, no normalization (what an integer allreduce does). */
void emu_exact_add_raw(int fmt, void *a, const void *b);
uint64_t emu_exact_round(int fmt, const void *s, int rtype);
uint64_t emu_exact_mean(int fmt, const void *s, uint64_t n, int rtype);
uint64_t emu_exact_norm2(int fmt, const void *s, int rtype);
/* 1 when the two states have the same digits, special and flags. */
int emu_exact_same(int fmt, const void *a, const void *b);
/* The fronts: n terms through ExactBins (float32 or bfloat16 terms; float16
 * products) or ExactHalfSum (float16 terms), flushed into s every `every`
 * terms and at the end. */
void emu_exact_bins(int fmt, void *s, int type, const uint64_t *bits, size_t n, size_t every);
void emu_exact_bins_half_products(void *s, const uint64_t *x, const uint64_t *y, size_t n, size_t every);
void emu_exact_half(void *s, const uint64_t *h, size_t n, size_t every);
/* A warp's way: the terms dealt to `lanes` fronts (ExactBins, or ExactHalfSum
 * for float16), which merge pairwise and flush into s after `every` terms a
 * lane. */
void emu_exact_warp(int fmt, void *s, int type, const uint64_t *bits, size_t n, int lanes, size_t every);

#ifdef __cplusplus
}
#endif

#endif
