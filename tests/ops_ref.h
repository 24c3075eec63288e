/*
 * Host references for the tests: the oracle (tests/oracle.h), the check of a
 * result read back from the library against its reference, and test data
 * of several kinds.
 */
#ifndef CURED_TESTS_OPS_REF_H
#define CURED_TESTS_OPS_REF_H

#include "gpu_util.h"
#include "halfbits.h"
#include "oracle.h"

/*
 * Check a result read back: got holds the bytes the library wrote (at least
 * ref_result_size). Fails the test with what, the seed and both values on a
 * mismatch. Integers compare exactly (modulo 2^bits of the result type);
 * floats exactly after rounding the reference to the result type, or
 * within tol plus one unit in the last place of the result type; NaN must
 * be NaN; +0 and -0 compare equal. The ARG operators compare the index,
 * and the value bit for bit with the winning element (NaN payload and the
 * sign of a zero included); for an all-NaN input under a NAN* operator
 * (index -1) with the first element, as cured.h documents.
 */
void ref_check(cured_op op, cured_type in, cured_type out, const unsigned char *got,
               const struct ref_result *r, const char *what);

/* ---- data ----------------------------------------------------------------------- */

/*
 * FL_RAND for floats: every partial sum of up to 2^20+32 values k/64 (|k| <= 3),
 * of their absolute values, squares or pairwise products is a multiple of
 * 2^-6 below 2^16, or of 2^-12 below 2^12: exact in float (24 bits), so those
 * results are bit-exact, and a half result is the exact sum rounded once,
 * as the library documents.
 * FL_ODD for floats: at most 8 factors of 2 and 7 of 0.5 in the whole buffer,
 * so every partial product lies in [2^-7, 2^8], exact even in float16.
 */
void ref_fill(cured_type t, enum ref_flavour fl, struct rng *r, void *buf, size_t n);
const char *ref_flavour_name(enum ref_flavour fl);

#endif
