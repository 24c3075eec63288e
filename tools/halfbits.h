/*
 * Host conversions between float and the 16-bit float formats, bit by bit
 * (no compiler half type needed). The tests' references and the benchmark's
 * inputs share them.
 */
#ifndef CURED_HALFBITS_H
#define CURED_HALFBITS_H

#include <stdint.h>

uint32_t float_bits(float f);      /* the bits of a float */
float bits_float(uint32_t u);
float half_to_float(uint16_t h);   /* exact */
uint16_t float_to_half(float f);   /* round to nearest even; overflow gives inf; NaN stays NaN */
float bf16_to_float(uint16_t b);   /* exact */
uint16_t float_to_bf16(float f);   /* round to nearest even; NaN stays NaN */

#endif
