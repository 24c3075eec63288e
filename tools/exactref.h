/*
 * The benchmarks' host reference for the exact sums (exactref.c): a
 * fixed-point accumulator wide enough for any sum of float64 values or of
 * their exact products, and its rounding, once, into a result type. Slow
 * (a few digit additions per term) but exact, so the benchmarks compare the
 * EXACT_* results bit for bit.
 */
#ifndef CURED_TOOLS_EXACTREF_H
#define CURED_TOOLS_EXACTREF_H

#include <stddef.h>
#include <stdint.h>

#include "cured.h"

/* 32-bit digits from 2^XR_LOW up: products of two float64 subnormals
 * (2^-2148) to 2^31 squares of the largest float64 (under 2^2080). */
#define XR_DIGITS 136
#define XR_LOW (-2176)

struct xr_acc {
    int64_t d[XR_DIGITS]; /* signed digits, normalised to [0, 2^32) but the top one every so often */
    uint32_t pending;     /* terms since the last normalisation */
    uint64_t terms;
    int nan, pinf, ninf, all_negzero; /* all_negzero: every term so far is -0.0 */
};

void xr_init(struct xr_acc *a);
/* Add x (x * x for xr_add_square, x * y for xr_add_product), exactly. */
void xr_add(struct xr_acc *a, double x);
void xr_add_product(struct xr_acc *a, double x, double y);
/* Element i of n elements of type t (a float type) at p, as a double (exact). */
double xr_element(cured_type t, const void *p, size_t i);
/* The exact sum (divided by divisor when it is not 0: EXACT_MEAN's), rounded
 * once to nearest even in out (a float type), with cured.h's rules for NaN,
 * infinities and zeros; its bits at bits (cured_type_size(out) bytes). */
void xr_result(const struct xr_acc *a, uint64_t divisor, cured_type out, unsigned char *bits);
/* EXACT_NORM2's: the square root of the rounded sum of squares, rounded once more. */
void xr_norm2(const struct xr_acc *squares, cured_type out, unsigned char *bits);
/* The result as a double (a float result, a NaN or an infinity: exact). */
double xr_bits_value(cured_type out, const unsigned char *bits);

#endif
