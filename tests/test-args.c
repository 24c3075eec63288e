/*
 * cr_check_args and the type calls without a GPU: every operator, element
 * type, result type and algorithm against what include/cured.h documents,
 * empty inputs, alignment, pointers and sizes, default result types, type
 * sizes and names. No loader is reached.
 */
#include "api_test.h"
#include "ops_ref.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IN_OK ((const void *)(uintptr_t)0x1000)
#define OUT_OK ((const void *)(uintptr_t)0x2000)

static void expect_args(cured_status want, const char *needle, cured_op op, cured_algorithm algo,
                        const void *in, cured_type in_type, size_t n, const void *out,
                        cured_type out_type)
{
    struct cr_request r;
    clear_error();
    cured_status st = cr_check_args(op, algo, in, in_type, n, out, out_type, &r);
    ck_assert_msg(st == want,
                  "op %d algo %d in %p type %d n %zu out %p type %d: got %s, want %s", (int)op,
                  (int)algo, in, (int)in_type, n, out, (int)out_type, cured_status_string(st),
                  cured_status_string(want));
    if (want == CURED_SUCCESS) {
        ck_assert_msg(r.op == op && r.algo == algo && r.in == in_type && r.out == out_type,
                      "the request is another combination");
        ck_assert_msg(cr_catalog_index(&r) >= 0, "the request is not in the catalog");
        ck_assert_ptr_nonnull(cr_family_for(&r));
    } else {
        char what[64];
        snprintf(what, sizeof what, "cr_check_args -> %s", cured_status_string(st));
        assert_message_contains(what, needle);
    }
}

START_TEST(test_check_args_enums)
{
    static const int bad[] = {-1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char num[16];
        snprintf(num, sizeof num, "%d", bad[i]);
        expect_args(CURED_ERROR_INVALID_ENUM, num, (cured_op)bad[i], CURED_ALGO_AUTO, IN_OK,
                    CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_INVALID_ENUM, num, CURED_OP_SUM, (cured_algorithm)bad[i], IN_OK,
                    CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_INVALID_ENUM, num, CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                    (cured_type)bad[i], 10, OUT_OK, CURED_TYPE_INT64);
        expect_args(CURED_ERROR_INVALID_ENUM, num, CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                    CURED_TYPE_INT32, 10, OUT_OK, (cured_type)bad[i]);
    }
    expect_args(CURED_ERROR_INVALID_ENUM, "7", CURED_OP_SUM, (cured_algorithm)CURED_ALGO_COUNT, IN_OK,
                CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_INVALID_ENUM, "12", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                (cured_type)CURED_TYPE_COUNT, 10, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_INVALID_ENUM, "33", (cured_op)CURED_OP_COUNT, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
}
END_TEST

/*
 * The result types include/cured.h documents for (op, in), in the order of
 * its lists (the first is what cured_default_result gives); 0 if the
 * operator does not take the type. Keyed by the operator's result rule and
 * NaN flag in the library's table (src/ops.c), so that a new operator of a
 * documented rule needs no line here; the rules themselves are checked
 * against what the header documents.
 */
static int documented(cured_op op, cured_type in, cured_type res[4])
{
    const struct cr_op_info *o = cr_op(op);
    const struct cr_type_info *ti = cr_type(in);
    const int is_signed = ti->cls == CR_SIGNED, is_unsigned = ti->cls == CR_UNSIGNED;
    const int is_half = ti->cls == CR_HALF;
    int n = 0;
    switch (o->rule) {
    case CR_RULE_SUM: /* SUM, PRODUCT, SUM_SQUARES, SUM_ABS, DOT */
        if (is_signed || is_unsigned) { /* the 64-bit type, the 32-bit type, the element type */
            res[n++] = is_signed ? CURED_TYPE_INT64 : CURED_TYPE_UINT64;
            res[n++] = is_signed ? CURED_TYPE_INT32 : CURED_TYPE_UINT32;
            if (in != res[0] && in != res[1])
                res[n++] = in;
        } else if (is_half) {
            res[n++] = CURED_TYPE_FLOAT32;
            res[n++] = in;
        } else if (in == CURED_TYPE_FLOAT32) {
            res[n++] = CURED_TYPE_FLOAT32;
            res[n++] = CURED_TYPE_FLOAT64;
        } else {
            res[n++] = CURED_TYPE_FLOAT64;
        }
        return n;
    case CR_RULE_NORM:
        if (is_half || in == CURED_TYPE_FLOAT32)
            res[n++] = CURED_TYPE_FLOAT32;
        if (!is_half)
            res[n++] = CURED_TYPE_FLOAT64;
        return n;
    case CR_RULE_BITWISE: /* integers only */
        if (is_signed || is_unsigned)
            res[n++] = in;
        return n;
    case CR_RULE_COUNT: /* int64 for every type */
        res[n++] = CURED_TYPE_INT64;
        return n;
    case CR_RULE_EXACT: /* float elements: their own type and the wider floats (the default: float32 first) */
        if (is_signed || is_unsigned)
            return 0;
        if (is_half || in == CURED_TYPE_FLOAT32)
            res[n++] = CURED_TYPE_FLOAT32;
        res[n++] = CURED_TYPE_FLOAT64;
        if (is_half)
            res[n++] = in;
        return n;
    case CR_RULE_STATS: /* float32 or float64 for 16/32-bit floats, float64 otherwise */
        if (is_half || in == CURED_TYPE_FLOAT32)
            res[n++] = CURED_TYPE_FLOAT32;
        res[n++] = CURED_TYPE_FLOAT64;
        return n;
    case CR_RULE_SAME: /* the element type; the NaN-ignoring ones: floats only */
        if (!(o->flags & CR_OP_IGNORES_NAN) || (!is_signed && !is_unsigned))
            res[n++] = in;
        return n;
    }
    return 0;
}

static int is_documented(cured_op op, cured_type in, cured_type out)
{
    cured_type res[4];
    int n = documented(op, in, res);
    for (int k = 0; k < n; k++)
        if (res[k] == out)
            return 1;
    return 0;
}

/* The operator that runs (op, in): cured.h: the NaN-skipping ones are their base for integers (the oracle's
 * row names the base). */
static cured_op runs_as(cured_op op, cured_type in)
{
    return ref_is_float(in) ? op : ref_op(op)->base;
}

static int needs_input(cured_op op)
{
    return (cr_op(op)->flags & CR_OP_NO_EMPTY) != 0;
}

/*
 * Every algorithm x operator x element type x result type, with n = 100
 * and n = 0: AUTO offers exactly what the header documents
 * (TYPE_MISMATCH, naming the combination, otherwise); the other algorithms
 * offer only the int32 sums into int32 and int64 (NOT_SUPPORTED, pointing
 * at AUTO, for the rest of what AUTO offers); n == 0 gives EMPTY_INPUT for
 * the operators without an identity.
 */
START_TEST(test_check_args_every_combination)
{
    size_t offered = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int op = 0; op < CURED_OP_COUNT; op++)
            for (int in = 0; in < CURED_TYPE_COUNT; in++)
                for (int out = 0; out < CURED_TYPE_COUNT; out++)
                    for (int empty = 0; empty < 2; empty++) {
                        const int doc = is_documented((cured_op)op, (cured_type)in, (cured_type)out);
                        const int table = runs_as((cured_op)op, (cured_type)in) == CURED_OP_SUM && in == CURED_TYPE_INT32 &&
                                          (out == CURED_TYPE_INT32 || out == CURED_TYPE_INT64);
                        cured_status want = !doc ? CURED_ERROR_TYPE_MISMATCH
                                            : a != CURED_ALGO_AUTO && !table ? CURED_ERROR_NOT_SUPPORTED
                                            : empty && needs_input((cured_op)op) ? CURED_ERROR_EMPTY_INPUT
                                                                                 : CURED_SUCCESS;
                        const char *needle = want == CURED_ERROR_TYPE_MISMATCH ? "not offered"
                                             : want == CURED_ERROR_NOT_SUPPORTED ? "CURED_ALGO_AUTO"
                                                                                 : "n = 0";
                        struct cr_request r;
                        clear_error();
                        cured_status st = cr_check_args((cured_op)op, (cured_algorithm)a, IN_OK, (cured_type)in,
                                                        empty ? 0 : 100, OUT_OK, (cured_type)out, &r);
                        if (st != want)
                            ck_abort_msg("algo %d op %d in %d out %d n %d: got %s, want %s (%s)", a, op, in, out,
                                         empty ? 0 : 100, cured_status_string(st), cured_status_string(want),
                                         cured_last_error());
                        if (st == CURED_SUCCESS) {
                            const int k = cr_catalog_index(&r);
                            const struct cr_spec *p = k >= 0 ? cr_catalog((size_t)k) : NULL;
                            if (p == NULL || p->req.op != runs_as((cured_op)op, (cured_type)in) || (int)p->req.algo != a ||
                                (int)p->req.in != in || (int)p->req.out != out)
                                ck_abort_msg("algo %d op %d in %d out %d: catalog entry %d is another combination",
                                             a, op, in, out, k);
                            offered += !empty && p->req.op == (cured_op)op; /* (a base's entry counts once) */
                        } else if (strstr(cured_last_error(), needle) == NULL) {
                            ck_abort_msg("algo %d op %d in %d out %d: the message \"%s\" does not say \"%s\"", a,
                                         op, in, out, cured_last_error(), needle);
                        }
                    }
    /* Every specialization is one of those combinations. */
    ck_assert_uint_eq(offered, cr_catalog_count());
    /* The names in the messages. */
    expect_args(CURED_ERROR_TYPE_MISMATCH, "float32", CURED_OP_AND, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT32, 10,
                OUT_OK, CURED_TYPE_FLOAT32);
    expect_args(CURED_ERROR_TYPE_MISMATCH, "NANMIN", CURED_OP_NANMIN, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT32, 10,
                OUT_OK, CURED_TYPE_INT32);
    expect_args(CURED_ERROR_TYPE_MISMATCH, "float32", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT32, 10,
                OUT_OK, CURED_TYPE_FLOAT32);
    expect_args(CURED_ERROR_NOT_SUPPORTED, "two_pass_shared", CURED_OP_SUM, CURED_ALGO_TWO_PASS_SHARED, IN_OK,
                CURED_TYPE_INT64, 10, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_NOT_SUPPORTED, "MIN", CURED_OP_MIN, CURED_ALGO_LISTING_12_4, IN_OK, CURED_TYPE_INT32,
                10, OUT_OK, CURED_TYPE_INT32);
    /* Not offered by any algorithm: a type mismatch, whatever the algorithm. */
    expect_args(CURED_ERROR_TYPE_MISMATCH, "not offered", CURED_OP_SUM, CURED_ALGO_SINGLE_PASS_ATOMIC, IN_OK,
                CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT8);
}
END_TEST

/* n == 0: operators without an identity refuse it, also with a NULL input; the others accept it. */
START_TEST(test_check_args_empty)
{
    static const cured_op no_identity[] = {CURED_OP_MINMAX, CURED_OP_ARGMIN, CURED_OP_ARGMAX,
                                           CURED_OP_NANARGMIN, CURED_OP_NANARGMAX};
    for (size_t k = 0; k < sizeof no_identity / sizeof *no_identity; k++) {
        expect_args(CURED_ERROR_EMPTY_INPUT, "n = 0", no_identity[k], CURED_ALGO_AUTO, NULL, CURED_TYPE_FLOAT32,
                    0, OUT_OK, CURED_TYPE_FLOAT32);
        expect_args(CURED_ERROR_EMPTY_INPUT, "n = 0", no_identity[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT64,
                    0, OUT_OK, CURED_TYPE_FLOAT64);
        expect_args(CURED_SUCCESS, NULL, no_identity[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT32, 1, OUT_OK,
                    CURED_TYPE_FLOAT32);
    }
    expect_args(CURED_ERROR_EMPTY_INPUT, "n = 0", CURED_OP_ARGMAX, CURED_ALGO_AUTO, NULL, CURED_TYPE_INT8, 0,
                OUT_OK, CURED_TYPE_INT8);
    static const cured_op identity[] = {CURED_OP_SUM, CURED_OP_PRODUCT, CURED_OP_MIN, CURED_OP_MAX,
                                        CURED_OP_NANMIN, CURED_OP_NANMAX, CURED_OP_SUM_SQUARES,
                                        CURED_OP_SUM_ABS, CURED_OP_NORM2, CURED_OP_DOT};
    for (size_t k = 0; k < sizeof identity / sizeof *identity; k++)
        expect_args(CURED_SUCCESS, NULL, identity[k], CURED_ALGO_AUTO, NULL, CURED_TYPE_FLOAT32, 0, OUT_OK,
                    CURED_TYPE_FLOAT32);
    for (int op = CURED_OP_AND; op <= CURED_OP_XOR; op++)
        expect_args(CURED_SUCCESS, NULL, (cured_op)op, CURED_ALGO_AUTO, NULL, CURED_TYPE_UINT16, 0, OUT_OK,
                    CURED_TYPE_UINT16);
}
END_TEST

/* Inputs need the element alignment; outputs their size's, 8 bytes for the ARG operators. */
START_TEST(test_check_args_alignment)
{
    const void *at1 = (const void *)(uintptr_t)0x2001, *at2 = (const void *)(uintptr_t)0x2002;
    const void *at4 = (const void *)(uintptr_t)0x2004, *at8 = (const void *)(uintptr_t)0x2008;
    static const cured_op args[] = {CURED_OP_ARGMIN, CURED_OP_ARGMAX, CURED_OP_NANARGMIN, CURED_OP_NANARGMAX};
    for (size_t k = 0; k < sizeof args / sizeof *args; k++) {
        expect_args(CURED_ERROR_MISALIGNED, "0x2004", args[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT32, 10, at4,
                    CURED_TYPE_FLOAT32);
        expect_args(CURED_ERROR_MISALIGNED, "0x2002", args[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT16, 10, at2,
                    CURED_TYPE_FLOAT16);
        expect_args(CURED_SUCCESS, NULL, args[k], CURED_ALGO_AUTO, IN_OK, CURED_TYPE_FLOAT16, 10, at8,
                    CURED_TYPE_FLOAT16);
    }
    expect_args(CURED_ERROR_MISALIGNED, "0x2001", CURED_OP_ARGMAX, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT8, 10, at1,
                CURED_TYPE_INT8);
    /* One-byte elements and results need no alignment; two-byte ones need two. */
    expect_args(CURED_SUCCESS, NULL, CURED_OP_MIN, CURED_ALGO_AUTO, at1, CURED_TYPE_INT8, 10, at1, CURED_TYPE_INT8);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, at1, CURED_TYPE_UINT8, 10, at1, CURED_TYPE_UINT8);
    expect_args(CURED_ERROR_MISALIGNED, "0x2001", CURED_OP_MAX, CURED_ALGO_AUTO, at1, CURED_TYPE_FLOAT16, 10, at2,
                CURED_TYPE_FLOAT16);
    expect_args(CURED_ERROR_MISALIGNED, "0x2001", CURED_OP_MAX, CURED_ALGO_AUTO, at2, CURED_TYPE_BFLOAT16, 10, at1,
                CURED_TYPE_BFLOAT16);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_MAX, CURED_ALGO_AUTO, at2, CURED_TYPE_INT16, 10, at2, CURED_TYPE_INT16);
    expect_args(CURED_ERROR_MISALIGNED, "0x2004", CURED_OP_XOR, CURED_ALGO_AUTO, at4, CURED_TYPE_UINT64, 10, at8,
                CURED_TYPE_UINT64);
    expect_args(CURED_ERROR_MISALIGNED, "0x2004", CURED_OP_SUM, CURED_ALGO_AUTO, at4, CURED_TYPE_INT16, 10, at4,
                CURED_TYPE_INT64);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, at2, CURED_TYPE_INT16, 10, at4,
                CURED_TYPE_INT32);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_MINMAX, CURED_ALGO_AUTO, at8, CURED_TYPE_FLOAT64, 10, at8,
                CURED_TYPE_FLOAT64);
}
END_TEST

/* cured_default_result: the first documented result type, or TYPE_MISMATCH. */
START_TEST(test_default_result)
{
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++) {
            cured_type res[4], got = (cured_type)-7;
            int n = documented((cured_op)op, (cured_type)in, res);
            clear_error();
            cured_status st = cured_default_result((cured_op)op, (cured_type)in, &got);
            if (n == 0) {
                ck_assert_msg(st == CURED_ERROR_TYPE_MISMATCH, "op %d in %d: got %s, want TYPE_MISMATCH", op, in,
                              cured_status_string(st));
                ck_assert_int_eq((int)got, -7);
                assert_message_contains("cured_default_result", "does not take");
            } else {
                ck_assert_msg(st == CURED_SUCCESS && got == res[0], "op %d in %d: got %s and type %d, want %d",
                              op, in, cured_status_string(st), (int)got, (int)res[0]);
            }
        }
    /* Spot checks of the documented defaults. */
    cured_type t;
    static const struct { cured_op op; cured_type in, want; } spot[] = {
        {CURED_OP_SUM, CURED_TYPE_INT8, CURED_TYPE_INT64},
        {CURED_OP_DOT, CURED_TYPE_UINT16, CURED_TYPE_UINT64},
        {CURED_OP_SUM, CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT32},
        {CURED_OP_PRODUCT, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32},
        {CURED_OP_NORM2, CURED_TYPE_INT16, CURED_TYPE_FLOAT64},
        {CURED_OP_ARGMIN, CURED_TYPE_UINT8, CURED_TYPE_UINT8},
        {CURED_OP_COUNT_NONZERO, CURED_TYPE_BFLOAT16, CURED_TYPE_INT64},
        {CURED_OP_MEAN, CURED_TYPE_FLOAT16, CURED_TYPE_FLOAT32},
        {CURED_OP_VAR, CURED_TYPE_UINT8, CURED_TYPE_FLOAT64},
        {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32},
        {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64},
        {CURED_OP_STD, CURED_TYPE_INT64, CURED_TYPE_FLOAT64},
    };
    for (size_t k = 0; k < sizeof spot / sizeof *spot; k++) {
        t = CURED_TYPE_COUNT;
        cured_status st = cured_default_result(spot[k].op, spot[k].in, &t);
        ck_assert_msg(st == CURED_SUCCESS && t == spot[k].want, "%s over %s: %s and type %d, want %d",
                      cured_op_name(spot[k].op), cured_type_name(spot[k].in), cured_status_string(st), (int)t,
                      (int)spot[k].want);
    }

    static const int bad[] = {-1, CURED_OP_COUNT, 1000, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        clear_error();
        ck_assert_int_eq(cured_default_result((cured_op)bad[i], CURED_TYPE_INT32, &t), CURED_ERROR_INVALID_ENUM);
        assert_message_contains("cured_default_result(bad op)", "unknown");
        ck_assert_int_eq(cured_default_result(CURED_OP_SUM, (cured_type)(bad[i] == CURED_OP_COUNT ? CURED_TYPE_COUNT
                                                                                                   : bad[i]), &t),
                         CURED_ERROR_INVALID_ENUM);
    }
    clear_error();
    ck_assert_int_eq(cured_default_result(CURED_OP_SUM, CURED_TYPE_INT32, NULL), CURED_ERROR_NULL_POINTER);
    assert_message_contains("cured_default_result(NULL)", "NULL");
}
END_TEST

START_TEST(test_type_size)
{
    /* Every type's name says its bits ("int32", "bfloat16"). */
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        const char *name = cured_type_name((cured_type)t), *digits = name + strcspn(name, "0123456789");
        ck_assert_msg(cured_type_size((cured_type)t) * 8 == (size_t)atoi(digits), "%s: size %zu", name,
                      cured_type_size((cured_type)t));
    }
    static const int bad[] = {-1, CURED_TYPE_COUNT, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_uint_eq(cured_type_size((cured_type)bad[i]), 0);
    ck_assert_uint_eq(sizeof(cured_arg_result), 16);
    ck_assert_uint_eq(offsetof(cured_arg_result, value), 8);
}
END_TEST

/* Names of every type and operator: distinct identifiers, the types in lower case, the operators
 * in upper case (their enumerators' spelling, which python/tests compares with include/cured.h). */
START_TEST(test_names)
{
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        const char *name = cured_type_name((cured_type)t);
        ck_assert_msg(name[0] && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(name), "%s", name);
        for (int u = 0; u < t; u++)
            ck_assert_str_ne(name, cured_type_name((cured_type)u));
    }
    for (int op = 0; op < CURED_OP_COUNT; op++) {
        const char *name = cured_op_name((cured_op)op);
        ck_assert_msg(name[0] && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(name), "%s", name);
        ck_assert_str_ne(name, "UNKNOWN");
        for (int u = 0; u < op; u++)
            ck_assert_str_ne(name, cured_op_name((cured_op)u));
    }
    ck_assert_str_eq(cured_op_name(CURED_OP_SUM), "SUM");
    ck_assert_str_eq(cured_op_name(CURED_OP_NANARGMAX), "NANARGMAX");
    ck_assert_str_eq(cured_type_name(CURED_TYPE_BFLOAT16), "bfloat16");
    static const int bad[] = {-1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_str_eq(cured_type_name((cured_type)bad[i]), "unknown");
        ck_assert_str_eq(cured_op_name((cured_op)bad[i]), "UNKNOWN");
    }
    ck_assert_str_eq(cured_type_name(CURED_TYPE_COUNT), "unknown");
    ck_assert_str_eq(cured_op_name(CURED_OP_COUNT), "UNKNOWN");
}
END_TEST

/* cured_result_offered: exactly the documented combinations; 0 for unknown values. cured_max_rank,
 * cured_result_size. */
START_TEST(test_result_offered)
{
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++)
                ck_assert_msg(cured_result_offered((cured_op)op, (cured_type)in, (cured_type)out) ==
                                  is_documented((cured_op)op, (cured_type)in, (cured_type)out),
                              "%s %s -> %s", cured_op_name((cured_op)op), cured_type_name((cured_type)in),
                              cured_type_name((cured_type)out));
    static const int bad[] = {-1, CURED_OP_COUNT, 1000, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(cured_result_offered((cured_op)bad[i], CURED_TYPE_INT32, CURED_TYPE_INT64), 0);
        ck_assert_int_eq(cured_result_offered(CURED_OP_SUM, (cured_type)bad[i], CURED_TYPE_INT64), 0);
        ck_assert_int_eq(cured_result_offered(CURED_OP_SUM, CURED_TYPE_INT32, (cured_type)bad[i]), 0);
    }
    ck_assert_int_eq(cured_max_rank(), CURED_MAX_RANK);
    /* cured_result_size: the accumulator's result size wherever the operator takes the types. */
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++) {
                struct cr_acc acc;
                if (cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, &acc))
                    ck_assert_uint_eq(cured_result_size((cured_op)op, (cured_type)out), acc.result_size);
            }
    ck_assert_uint_eq(cured_result_size(CURED_OP_ARGMAX, CURED_TYPE_INT8), sizeof(cured_arg_result));
    ck_assert_uint_eq(cured_result_size(CURED_OP_MINMAX, CURED_TYPE_FLOAT16), 4);
    ck_assert_uint_eq(cured_result_size(CURED_OP_SUM, CURED_TYPE_INT64), 8);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_uint_eq(cured_result_size((cured_op)bad[i], CURED_TYPE_INT32), 0);
        ck_assert_uint_eq(cured_result_size(CURED_OP_SUM, (cured_type)bad[i]), 0);
    }
}
END_TEST

/*
 * The tests' oracle (tests/ops_ref.c) has a row for every operator of the
 * library's table, so that a new operator cannot be left without a
 * reference; a NaN-skipping row's base is an operator whose NaNs propagate,
 * of the same layout.
 */
START_TEST(test_oracle_covers_every_operator)
{
    int count = 0;
    for (int op = 0; strcmp(cured_op_name((cured_op)op), "UNKNOWN") != 0; op++, count++) {
        const struct ref_op *o = ref_op((cured_op)op);
        ck_assert_msg(o != NULL, "tests/ops_ref.c's oracle has no row for %s: add one (kind, NaN rule, base, data)",
                      cured_op_name((cured_op)op));
        const struct ref_op *base = ref_op(o->base);
        ck_assert_msg(base != NULL && base->nan == REF_NAN_PROPAGATES && base->kind == o->kind,
                      "%s: its base %s is not a plain row of the same kind", cured_op_name((cured_op)op),
                      cured_op_name(o->base));
        const unsigned nan_flags = cr_op((cured_op)op)->flags & (CR_OP_IGNORES_NAN | CR_OP_SKIPS_NAN);
        ck_assert_msg((o->nan != REF_NAN_PROPAGATES) == (nan_flags != 0),
                      "%s: the oracle's NaN rule and the library's CR_OP_IGNORES_NAN / CR_OP_SKIPS_NAN disagree",
                      cured_op_name((cured_op)op));
        ck_assert_msg(!(nan_flags & CR_OP_SKIPS_NAN) || cr_op_base((cured_op)op) == o->base,
                      "%s: the oracle's base and the library's disagree", cured_op_name((cured_op)op));
        ck_assert_msg((int)o->base == op || cr_op(o->base)->layout == cr_op((cured_op)op)->layout,
                      "%s: its base %s has another layout", cured_op_name((cured_op)op), cured_op_name(o->base));
    }
    ck_assert_int_eq(count, CURED_OP_COUNT);
    ck_assert_ptr_null(ref_op((cured_op)CURED_OP_COUNT));
}
END_TEST

START_TEST(test_check_args_pointers_and_sizes)
{
    expect_args(CURED_ERROR_NULL_POINTER, "output", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, NULL, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_NULL_POINTER, "input", CURED_OP_SUM, CURED_ALGO_AUTO, NULL,
                CURED_TYPE_INT32, 1, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, NULL, CURED_TYPE_INT32, 0, OUT_OK,
                CURED_TYPE_INT64);

    expect_args(CURED_ERROR_SIZE_OVERFLOW, "overflow", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, SIZE_MAX, OUT_OK, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_SIZE_OVERFLOW, "overflow", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, SIZE_MAX / 4 + 1, OUT_OK, CURED_TYPE_INT64);
    /* The largest n whose byte size fits is accepted (nothing is dereferenced). */
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK, CURED_TYPE_INT32,
                SIZE_MAX / 4, OUT_OK, CURED_TYPE_INT64);

    for (uintptr_t a = 0x1001; a <= 0x1003; a++) {
        char addr[32];
        snprintf(addr, sizeof addr, "%p", (const void *)a);
        expect_args(CURED_ERROR_MISALIGNED, addr, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)a,
                    CURED_TYPE_INT32, 10, OUT_OK, CURED_TYPE_INT64);
    }
    expect_args(CURED_ERROR_MISALIGNED, "0x1004", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1004, CURED_TYPE_INT64);
    expect_args(CURED_ERROR_MISALIGNED, "0x1002", CURED_OP_SUM, CURED_ALGO_AUTO, IN_OK,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1002, CURED_TYPE_INT32);
    /* Element alignment is all that is required. */
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)(uintptr_t)0x1004,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1004, CURED_TYPE_INT32);
    expect_args(CURED_SUCCESS, NULL, CURED_OP_SUM, CURED_ALGO_AUTO, (const void *)(uintptr_t)0x100c,
                CURED_TYPE_INT32, 10, (const void *)(uintptr_t)0x1008, CURED_TYPE_INT64);
}
END_TEST

START_TEST(test_check_args_every_spec)
{
    /* Every specialization is valid and is its own combination's program. */
    const size_t count = cr_catalog_count();
    ck_assert_uint_ge(count, 2 * CURED_ALGO_COUNT);
    for (size_t k = 0; k < count; k++) {
        const struct cr_spec *s = cr_catalog(k);
        ck_assert_ptr_nonnull(s);
        const struct cr_unit *p = &s->unit;
        const struct cr_acc *acc = &s->req.acc;
        ck_assert_msg(p->nkernels >= 1 && p->nkernels <= CR_MAX_KERNELS && p->file != NULL,
                      "spec %zu is malformed", k);
        ck_assert_msg(acc->size >= 1 && acc->size <= CR_MAX_ACC && acc->result_size >= 1 &&
                          acc->result_size <= CR_MAX_RESULT && acc->size % acc->align == 0,
                      "spec %zu (%s): accumulator %zu, result %zu bytes", k, p->label, acc->size, acc->result_size);
        struct cr_request r;
        cured_status st = cr_check_args(s->req.op, s->req.algo, IN_OK, s->req.in, 100, OUT_OK, s->req.out, &r);
        ck_assert_msg(st == CURED_SUCCESS && cr_catalog_index(&r) == (int)k, "spec %zu (%s): %s, index %d", k,
                      p->label, cured_status_string(st), cr_catalog_index(&r));
    }
    ck_assert_ptr_null(cr_catalog_unit(count));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("args");
    TCase *args = tcase_create("check_args");
    tcase_set_timeout(args, 60); /* forks are slow under compute-sanitizer */
    tcase_add_test(args, test_check_args_enums);
    tcase_add_test(args, test_check_args_every_combination);
    tcase_add_test(args, test_check_args_empty);
    tcase_add_test(args, test_check_args_alignment);
    tcase_add_test(args, test_check_args_pointers_and_sizes);
    tcase_add_test(args, test_check_args_every_spec);
    tcase_add_test(args, test_default_result);
    tcase_add_test(args, test_type_size);
    tcase_add_test(args, test_names);
    tcase_add_test(args, test_result_offered);
    tcase_add_test(args, test_oracle_covers_every_operator);
    suite_add_tcase(s, args);
    return run_suite(s);
}
