/*
 * The tests' oracle: one table keyed by operator, and the expected result of
 * every (operator, element type, result type) computed in higher precision,
 * with the element types as the library documents them (bit-level half and
 * bfloat16 conversions, round to nearest even). It uses the public API only
 * and no test framework, so that the tools (tools/soak_ref.c) take their
 * references from it too; tests/ops_ref.h adds the checks and the test data.
 */
#ifndef CURED_TESTS_ORACLE_H
#define CURED_TESTS_ORACLE_H

#include "cured.h"

#include <stddef.h>
#include <stdint.h>

/* ---- types ---------------------------------------------------------------------- */

size_t ref_size(cured_type t);
int ref_is_float(cured_type t);  /* FLOAT16, BFLOAT16, FLOAT32, FLOAT64 */
int ref_is_signed(cured_type t); /* signed integers */
/* The library's integer (floats = 0) or floating types, in its table's order; returns how many. */
int ref_types(int floats, cured_type types[CURED_TYPE_COUNT]);
/* Largest and smallest value of an integer type t, modulo 2^64 (as from ref_get_u). */
uint64_t ref_int_max(cured_type t);
uint64_t ref_int_min(cured_type t);

/* Element i of a buffer of type t: floats exactly as a double, integers as
 * their value modulo 2^64 (signed ones sign-extended). */
double ref_get_f(cured_type t, const void *buf, size_t i);
uint64_t ref_get_u(cured_type t, const void *buf, size_t i);
/* The raw bits of element i of size bytes, zero-extended. */
uint64_t ref_bits(size_t size, const void *buf, size_t i);
/* Store v into element i: floats rounded to nearest even, integers truncated. */
void ref_put_f(cured_type t, void *buf, size_t i, double v);
void ref_put_u(cured_type t, void *buf, size_t i, uint64_t v);

/* The kinds of test data (ref_fill, tests/ops_ref.h). */
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
    FL_REAL_NAN, /* floats: FL_REAL with a quarter NaNs (and element 20): NANMEAN, NANVAR, NANSTD */
    FL_COUNT
};

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
 * The oracle: one row per operator of the library's table (src/ops.c), keyed
 * by operator; tests/test-args fails when the library has an operator that
 * the oracle lacks (tests/oracle.c). A NaN-skipping operator is its base operator over the
 * non-NaN elements: a row with another base and a NaN rule, and no math of
 * its own (NANMIN is MIN over the non-NaN elements; a NANSUM would be SUM's
 * row with REF_NAN_SKIPPED_EMPTY).
 */
enum ref_kind {
    REF_NONE,     /* no row: the oracle lacks the operator */
    REF_SUM_LIKE, /* sums of terms: SUM, SUM_SQUARES, SUM_ABS, NORM2, DOT */
    REF_PRODUCT,  /* PRODUCT */
    REF_BITWISE,  /* AND, OR, XOR */
    REF_COUNT,    /* COUNT_NONZERO */
    REF_EXTREME,  /* MIN, MAX, MINMAX: the result is an element */
    REF_ARG,      /* ARGMIN, ARGMAX: the index of an element, then the element */
    REF_STATS     /* the statistics: tests/stats_ref.c */
};
enum ref_nan_rule {
    REF_NAN_PROPAGATES,      /* NaNs are elements like any other */
    REF_NAN_SKIPPED_ALL_NAN, /* base over the non-NaN elements; all NaN: ALL_NAN, NaN or index -1 */
    REF_NAN_SKIPPED_EMPTY    /* base over the non-NaN elements; all NaN: the base's result of none */
};
struct ref_op {
    enum ref_kind kind;     /* of the base operator */
    enum ref_nan_rule nan;
    cured_op base;          /* the operator whose math the reference runs (itself unless NaN-skipping) */
    enum ref_flavour data;  /* test data whose result is exact and telling (ref_fill) */
};
/* The oracle's row of op, or NULL when it has none. */
const struct ref_op *ref_op(cured_op op);

/*
 * The result of op over x[0..n) (and y for DOT) with the result type out.
 * exact: the float data make every partial sum exact in the accumulator
 * (FL_RAND and FL_ODD of tests/ops_ref.h), so the result must be bit-exact; otherwise a
 * tolerance proportional to the sum of the terms' magnitudes is set.
 * For the NAN* operators on an all-NaN input the status is ALL_NAN (what
 * the synchronous call returns) and the values are those the asynchronous
 * call writes (NaN, index -1).
 */
void ref_reduce(cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
                int exact, struct ref_result *r);

/* Bytes of the result of (op, out): the library's cured_result_size(). */
size_t ref_result_size(cured_op op, cured_type out);

#endif
