/*
 * Host references for tests/test-ops: the element types as the library
 * documents them (bit-level half and bfloat16 conversions, round to nearest
 * even), the expected result of every (operator, element type, result type)
 * computed in higher precision, test data of several kinds, and the check
 * of a result read back from the library against its reference.
 */
#ifndef CURED_TESTS_OPS_REF_H
#define CURED_TESTS_OPS_REF_H

#include "gpu_util.h"
#include "halfbits.h"

#include <stddef.h>
#include <stdint.h>

/* ---- types ---------------------------------------------------------------------- */


size_t ref_size(cured_type t);
int ref_is_float(cured_type t);  /* FLOAT16, BFLOAT16, FLOAT32, FLOAT64 */
int ref_is_signed(cured_type t); /* signed integers */
/* Largest and smallest value of an integer type t, modulo 2^64 (as from ref_get_u). */
uint64_t ref_int_max(cured_type t);
uint64_t ref_int_min(cured_type t);

/* Element i of a buffer of type t: floats exactly as a double, integers as
 * their value modulo 2^64 (signed ones sign-extended). */
double ref_get_f(cured_type t, const void *buf, size_t i);
uint64_t ref_get_u(cured_type t, const void *buf, size_t i);
/* Store v into element i: floats rounded to nearest even, integers truncated. */
void ref_put_f(cured_type t, void *buf, size_t i, double v);
void ref_put_u(cured_type t, void *buf, size_t i, uint64_t v);

/* ---- expected results ----------------------------------------------------------- */

struct ref_value {
    int is_nan;
    long double f; /* float result types */
    uint64_t u;    /* integer result types, modulo 2^64 */
    long double tol; /* this value's own tolerance (statistics), used when above ref_result's */
};

struct ref_result {
    cured_status status;  /* CURED_SUCCESS, CURED_ERROR_EMPTY_INPUT or CURED_ERROR_ALL_NAN */
    int nvalues;          /* 2 for MINMAX and MEAN_VAR, else 1 */
    struct ref_value v[2];
    long double tol;      /* floats: allowed |got - f| before the rounding to the result type; 0 = exact */
    int is_arg;           /* ARG operators: index, then the value at byte 8 */
    int64_t index;
    uint64_t arg_bits;    /* ARG: the bits of the element the value must be (all-NaN: the first) */
};

/*
 * The result of op over x[0..n) (and y for DOT) with the result type out.
 * exact: the float data make every partial sum exact in the accumulator
 * (see REF_EXACT below), so the result must be bit-exact; otherwise a
 * tolerance proportional to the sum of the terms' magnitudes is set.
 * For the NAN* operators on an all-NaN input the status is ALL_NAN (what
 * the synchronous call returns) and the values are those the asynchronous
 * call writes (NaN, index -1).
 */
void ref_reduce(cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
                int exact, struct ref_result *r);

/* Bytes of the result of (op, out): MINMAX and MEAN_VAR two values, ARG 16, else one value. */
size_t ref_result_size(cured_op op, cured_type out);

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

enum ref_flavour {
    FL_RAND,     /* integers: every bit random; floats: k/64, k in [-3, 3] (exact sums) */
    FL_RAND2,    /* a second independent FL_RAND (second input of DOT) */
    FL_ODD,      /* integers: random odd values (products stay nonzero modulo 2^bits);
                    floats: +-1 with a few +-2 and +-0.5 (exact products, see below) */
    FL_AND,      /* integers: all ones with scattered single-bit holes (AND is not 0) */
    FL_OR,       /* integers: zeros with scattered single bits (OR is not all ones) */
    FL_WIDE,     /* integers: as FL_RAND; floats: random bit patterns, no NaN or inf */
    FL_WIDE_NAN, /* floats: as FL_WIDE with NaNs (one between 20 and 30, more at random) */
    FL_REAL,     /* floats: uniform in [-1/32, 1/32), rounded to the type (sums need a
                    tolerance; the scale keeps 2^20 of them inside the float16 range) */
    FL_REAL2,
    FL_RAND_NAN, /* floats: FL_RAND with a quarter NaNs (and element 20): NANSUM */
    FL_REAL_NAN, /* floats: FL_REAL with a quarter NaNs (and element 20): NANMEAN... */
    FL_COUNT
};
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
