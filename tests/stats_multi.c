/*
 * test-stats: cured_custom_create_multi without a GPU: argument and
 * expression checks, the state's layout, NVRTC compilation of the header's
 * examples and of a four-type op, compile errors that point at the
 * expression, and memory-cache hits for a second op of the same text.
 */
#include "api_test.h"

#include <stdio.h>

TCase *stats_multi_tcase(void);

static const cured_custom_field meanvar_fields[2] = {{CURED_TYPE_FLOAT64, "x", "a0 + b0", "0"},
                                                     {CURED_TYPE_FLOAT64, "(double)x * x", "a1 + b1", "0"}};
static const char *const meanvar_fin[2] = {"a0 / n", "(a1 - a0 * a0 / n) / n"};
static const cured_custom_field wavg_fields[2] = {{CURED_TYPE_FLOAT64, "(double)x * y", "a0 + b0", "0"},
                                                  {CURED_TYPE_FLOAT64, "y", "a1 + b1", "0"}};
static const char *const wavg_fin[1] = {"a0 / a1"};

static cured_status multi(cured_type in, int ninputs, const cured_custom_field *f, int nf, cured_type out,
                          const char *const *fin, int nr, cured_custom *op)
{
    clear_error();
    *op = (cured_custom)(uintptr_t)0x1;
    return cr_custom_build_multi(in, ninputs, f, nf, out, fin, nr, op);
}

/* The header's mean/variance op with one expression replaced: field k's map,
 * combine or identity (role 0, 1, 2), or finalize[role] when field < 0. */
static void meanvar_with(cured_custom_field f[2], const char *fin[2], int field, int role, const char *expr)
{
    f[0] = meanvar_fields[0];
    f[1] = meanvar_fields[1];
    fin[0] = meanvar_fin[0];
    fin[1] = meanvar_fin[1];
    if (field < 0)
        fin[role] = expr;
    else if (role == 0)
        f[field].map = expr;
    else if (role == 1)
        f[field].combine = expr;
    else
        f[field].identity = expr;
}

/* A bad field or finalize expression: status and the message naming it; no op. */
static void expect_bad_expr(int field, int role, const char *expr, cured_status want, const char *name)
{
    cured_custom_field f[2];
    const char *fin[2];
    meanvar_with(f, fin, field, role, expr);
    cured_custom op;
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, &op), want);
    ck_assert_ptr_null(op);
    assert_message_contains(name, name);
}

START_TEST(test_multi_checks)
{
    cured_custom op;
    const cured_custom_field *mf = meanvar_fields;
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, NULL, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op),
                     CURED_ERROR_NULL_POINTER);
    ck_assert_ptr_null(op);
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, mf, 2, CURED_TYPE_FLOAT64, NULL, 2, &op), CURED_ERROR_NULL_POINTER);
    static const int bad_counts[] = {0, 5, -1};
    for (size_t k = 0; k < 3; k++) {
        ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, mf, bad_counts[k], CURED_TYPE_FLOAT64, meanvar_fin, 2, &op),
                         CURED_ERROR_INVALID_VALUE);
        ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, mf, 2, CURED_TYPE_FLOAT64, meanvar_fin, bad_counts[k], &op),
                         CURED_ERROR_INVALID_VALUE);
    }
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 3, mf, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op),
                     CURED_ERROR_INVALID_VALUE);
    assert_message_contains("ninputs", "ninputs");
    ck_assert_int_eq(multi((cured_type)CURED_TYPE_COUNT, 1, mf, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op),
                     CURED_ERROR_INVALID_ENUM);
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, mf, 2, (cured_type)-1, meanvar_fin, 2, &op),
                     CURED_ERROR_INVALID_ENUM);
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, mf, 2, CURED_TYPE_BFLOAT16, meanvar_fin, 2, &op),
                     CURED_ERROR_TYPE_MISMATCH);
    cured_custom_field half[2] = {mf[0], mf[1]};
    half[1].type = CURED_TYPE_FLOAT16;
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, half, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op),
                     CURED_ERROR_TYPE_MISMATCH);
    assert_message_contains("half field", "fields[1]");
    half[1].type = (cured_type)99;
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, 1, half, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2, &op),
                     CURED_ERROR_INVALID_ENUM);
    /* every expression slot is checked and named */
    expect_bad_expr(0, 0, "x; x", CURED_ERROR_INVALID_EXPRESSION, "fields[0].map");
    expect_bad_expr(1, 0, NULL, CURED_ERROR_NULL_POINTER, "fields[1].map");
    expect_bad_expr(1, 1, "a1 + b1 }", CURED_ERROR_INVALID_EXPRESSION, "fields[1].combine");
    /* a combine within the 32 of a map but over the 16 of a combine (cured.h: as cured_custom_create) */
    expect_bad_expr(0, 1, "a0 + b0 + 0 * (exp(a0) + exp(b0) + exp(a0) + exp(b0) + exp(a0))",
                    CURED_ERROR_INVALID_EXPRESSION, "fields[0].combine");
    expect_bad_expr(0, 2, "", CURED_ERROR_INVALID_EXPRESSION, "fields[0].identity");
    expect_bad_expr(1, 2, "0 // no", CURED_ERROR_INVALID_EXPRESSION, "fields[1].identity");
    expect_bad_expr(-1, 0, "a0 / n #", CURED_ERROR_INVALID_EXPRESSION, "finalize[0]");
    expect_bad_expr(-1, 1, "(a1", CURED_ERROR_INVALID_EXPRESSION, "finalize[1]");
    expect_bad_expr(-1, 1, NULL, CURED_ERROR_NULL_POINTER, "finalize[1]");
    /* cured_custom_create_multi's own arguments */
    ck_assert_int_eq(cured_custom_create_multi(NULL, CURED_TYPE_FLOAT32, 1, mf, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2,
                                               NULL),
                     CURED_ERROR_NULL_POINTER);
    op = (cured_custom)(uintptr_t)0x1;
    ck_assert_int_eq(cured_custom_create_multi(NULL, CURED_TYPE_FLOAT32, 1, mf, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2,
                                               &op),
                     CURED_ERROR_NULL_HANDLE);
    ck_assert_ptr_null(op);
}
END_TEST

/* The operator's budget (cured.h): each kind of expression (maps, combines, identities, finalizes) together
 * within one expression's budget, else COMPILE_BUDGET naming the kind and the costs, before anything compiles;
 * at the budget the op is made. Four float64 results (32 bytes) are accepted. */
START_TEST(test_multi_budget)
{
    static const struct {
        const char *map[4], *combine[4], *identity[4], *fin[4];
        int nf, nr;
        cured_status want;
        const char *needle;
    } cases[] = {
        /* maps of 16 + 16: the budget of 32 */
        {{"exp(x)+exp(x)+exp(x)+exp(x)", "pow(x,2.0)+pow(x,2.0)+pow(x,2.0)+pow(x,2.0)"}, {"a0+b0", "a1+b1"}, {"0", "0"},
         {"a0", "a1"}, 2, 2, CURED_SUCCESS, NULL},
        /* maps of 16 + 20 */
        {{"exp(x)+exp(x)+exp(x)+exp(x)", "exp(x)+exp(x)+exp(x)+exp(x)+exp(x)"}, {"a0+b0", "a1+b1"}, {"0", "0"},
         {"a0", "a1"}, 2, 2, CURED_ERROR_COMPILE_BUDGET, "the fields' map expressions together cost 36 (16 + 20)"},
        /* combines of 8 + 8 + 4: each within 16, together past it */
        {{"x", "x", "x"}, {"exp(a0)+exp(b0)", "exp(a1)+exp(b1)", "exp(a2)"}, {"0", "0", "0"}, {"a0"}, 3, 1,
         CURED_ERROR_COMPILE_BUDGET, "fields' combine expressions together cost 20 (8 + 8 + 4), past the operator's "
                                    "compile-time budget of 16"},
        /* identities of 16 + 16 + 4 */
        {{"x", "x", "x"}, {"a0", "a1", "a2"}, {"tgamma(1.5)", "fmod(1.0,2.0)", "exp(1.0)"}, {"a0"}, 3, 1,
         CURED_ERROR_COMPILE_BUDGET, "identity expressions together cost 36"},
        /* finalizes of 16 + 16 + 2, four float64 results */
        {{"x"}, {"a0"}, {"0"}, {"tgamma(a0)", "lgamma(a0)+lgamma(n)", "a0/n", "n"}, 1, 4,
         CURED_ERROR_COMPILE_BUDGET, "the finalize expressions together cost 34 (16 + 16 + 2 + 0)"},
        {{"x"}, {"a0"}, {"0"}, {"tgamma(a0)", "lgamma(a0)+lgamma(n)", "a0", "n"}, 1, 4, CURED_SUCCESS, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        cured_custom_field f[4];
        for (int j = 0; j < cases[k].nf; j++)
            f[j] = (cured_custom_field){CURED_TYPE_FLOAT64, cases[k].map[j], cases[k].combine[j],
                                        cases[k].identity[j]};
        cured_custom op;
        const cured_status st = multi(CURED_TYPE_FLOAT32, 1, f, cases[k].nf, CURED_TYPE_FLOAT64, cases[k].fin,
                                      cases[k].nr, &op);
        ck_assert_msg(st == cases[k].want, "case %zu: got %s, want %s: %s", k, cured_status_string(st),
                      cured_status_string(cases[k].want), cured_last_error());
        if (st == CURED_SUCCESS) {
            ck_assert_uint_eq(cr_custom_request(op)->acc.result_size, (size_t)cases[k].nr * 8);
            cured_custom_destroy(op);
        } else {
            ck_assert_ptr_null(op);
            assert_message_contains("the operator's budget", cases[k].needle);
        }
    }
}
END_TEST

/* The fields at their natural alignment, in whole 32-bit words: the request's accumulator. */
START_TEST(test_multi_layout)
{
    static const struct {
        int nf;
        cured_type t[4];
        size_t size, align;
    } cases[] = {
        {2, {CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64}, 16, 8},
        {1, {CURED_TYPE_INT8}, 4, 4},
        {4, {CURED_TYPE_INT8, CURED_TYPE_UINT8, CURED_TYPE_INT8, CURED_TYPE_INT8}, 4, 4},
        {2, {CURED_TYPE_INT16, CURED_TYPE_INT8}, 4, 4},
        {3, {CURED_TYPE_INT8, CURED_TYPE_INT32, CURED_TYPE_INT16}, 12, 4},
        {4, {CURED_TYPE_FLOAT64, CURED_TYPE_INT8, CURED_TYPE_INT8, CURED_TYPE_FLOAT64}, 24, 8},
        {4, {CURED_TYPE_INT8, CURED_TYPE_FLOAT64, CURED_TYPE_INT8, CURED_TYPE_UINT64}, 32, 8},
        {3, {CURED_TYPE_FLOAT32, CURED_TYPE_INT64, CURED_TYPE_FLOAT32}, 24, 8},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        cured_custom_field f[4];
        for (int j = 0; j < cases[k].nf; j++)
            f[j] = (cured_custom_field){cases[k].t[j], "x", "a0", "0"};
        const char *fin[4] = {"a0", "n", "a0 + n", "1"};
        cured_custom op;
        ck_assert_int_eq(multi(CURED_TYPE_INT32, 1, f, cases[k].nf, CURED_TYPE_FLOAT32, fin, 4, &op), CURED_SUCCESS);
        const struct cr_request *r = cr_custom_request(op);
        ck_assert_msg(r->acc.size == cases[k].size && r->acc.align == cases[k].align,
                      "case %zu: size %zu align %zu, want %zu and %zu", k, r->acc.size, r->acc.align, cases[k].size,
                      cases[k].align);
        ck_assert_uint_le(r->acc.size, CR_MAX_ACC);
        ck_assert_uint_eq(r->acc.result_size, 16);
        ck_assert_uint_eq(r->acc.result_align, 4);
        ck_assert_ptr_eq(cr_family_for(r), &cr_family_auto);
        /* the generated struct asserts the same size */
        char want[64];
        snprintf(want, sizeof want, "sizeof(UserState) == %zu", cases[k].size);
        ck_assert_msg(strstr(r->user->source, want) != NULL, "%s", r->user->source);
        cured_custom_destroy(op);
    }
}
END_TEST

static int arch(void)
{
    int archs[64], n = 0, best = 0;
    ck_assert_int_eq(cured_supported_archs(archs, 64, &n), CURED_SUCCESS);
    for (int a = 0; a < n && a < 64; a++)
        best = archs[a] == 90 ? 90 : best == 90 ? 90 : archs[a];
    return best;
}

/* The header's examples and a few more compile, and a second op of the same text is a memory hit. */
START_TEST(test_multi_compiles)
{
    const cured_custom_field mixed[4] = {{CURED_TYPE_INT8, "x > 0", "a0 | b0", "0"},
                                         {CURED_TYPE_INT64, "1", "a1 + b1", "0"},
                                         {CURED_TYPE_FLOAT32, "fabsf(x)", "fmaxf(a2, b2)", "0"},
                                         {CURED_TYPE_UINT16, "(unsigned short)x", "a3 ^ b3", "0"}};
    const char *mixed_fin[4] = {"a0", "a1 * 2", "a2", "a3 + n"};
    const struct {
        cured_type in;
        int ninputs;
        const cured_custom_field *f;
        int nf;
        cured_type out;
        const char *const *fin;
        int nr;
    } cases[] = {
        {CURED_TYPE_FLOAT32, 1, meanvar_fields, 2, CURED_TYPE_FLOAT64, meanvar_fin, 2},
        {CURED_TYPE_FLOAT32, 2, wavg_fields, 2, CURED_TYPE_FLOAT64, wavg_fin, 1},
        {CURED_TYPE_FLOAT16, 1, meanvar_fields, 2, CURED_TYPE_FLOAT32, meanvar_fin, 2},
        {CURED_TYPE_BFLOAT16, 2, wavg_fields, 2, CURED_TYPE_FLOAT64, wavg_fin, 1},
        {CURED_TYPE_INT32, 1, mixed, 4, CURED_TYPE_FLOAT64, mixed_fin, 4},
        {CURED_TYPE_UINT8, 1, mixed, 3, CURED_TYPE_INT32, mixed_fin, 3},
    };
    const int a = arch();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        cured_custom op, again;
        ck_assert_int_eq(multi(cases[k].in, cases[k].ninputs, cases[k].f, cases[k].nf, cases[k].out, cases[k].fin,
                               cases[k].nr, &op),
                         CURED_SUCCESS);
        const struct cr_image *img = NULL;
        cured_status st = cr_kcache_get(cr_custom_unit(op), a, 0, &img);
        ck_assert_msg(st == CURED_SUCCESS, "case %zu for sm_%d: %s", k, a, cured_last_error());
        ck_assert_msg(img->lowered[0][0] != '\0', "no lowered name");
        ck_assert_msg(strstr(cr_custom_unit(op)->kernels[0], cases[k].ninputs == 2 ? "reduce_fast2<" : "reduce_fast<"),
                      "%s", cr_custom_unit(op)->kernels[0]);
        cured_stats s0, s1;
        ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
        ck_assert_int_eq(multi(cases[k].in, cases[k].ninputs, cases[k].f, cases[k].nf, cases[k].out, cases[k].fin,
                               cases[k].nr, &again),
                         CURED_SUCCESS);
        const struct cr_image *img2 = NULL;
        ck_assert_int_eq(cr_kcache_get(cr_custom_unit(again), a, 0, &img2), CURED_SUCCESS);
        ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
        ck_assert(img2 == img && s1.compiles == s0.compiles && s1.memory_hits == s0.memory_hits + 1);
        cured_custom_destroy(again);
        cured_custom_destroy(op);
    }
}
END_TEST

/* A compile error: CURED_ERROR_COMPILE, the log pointing at that expression. */
static void expect_compile_error(int field, int role, const char *expr, int ninputs, const char *where,
                                 const char *name)
{
    cured_custom_field f[2];
    const char *fin[2];
    meanvar_with(f, fin, field, role, expr);
    cured_custom op;
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, ninputs, f, 2, CURED_TYPE_FLOAT64, fin, 2, &op), CURED_SUCCESS);
    const struct cr_image *img = NULL;
    cured_status st = cr_kcache_get(cr_custom_unit(op), arch(), 0, &img);
    char msg[4096];
    snprintf(msg, sizeof msg, "%s", cured_last_error());
    cured_custom_destroy(op);
    ck_assert_msg(st == CURED_ERROR_COMPILE, "%s: %s", expr, cured_status_string(st));
    ck_assert_msg(strstr(msg, where) != NULL && strstr(msg, name) != NULL, "want %s and %s in:\n%s", where, name, msg);
}

/* A name the slot does not have: refused by the expression grammar before NVRTC. */
static void expect_refused(int field, int role, const char *expr, int ninputs, const char *where, const char *name)
{
    cured_custom_field f[2];
    const char *fin[2];
    meanvar_with(f, fin, field, role, expr);
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    ck_assert_int_eq(multi(CURED_TYPE_FLOAT32, ninputs, f, 2, CURED_TYPE_FLOAT64, fin, 2, &op),
                     CURED_ERROR_INVALID_EXPRESSION);
    ck_assert_msg(op == NULL, "a refused op is not NULL");
    ck_assert_msg(strstr(cured_last_error(), where) != NULL && strstr(cured_last_error(), name) != NULL,
                  "want %s and %s in: %s", where, name, cured_last_error());
}

START_TEST(test_multi_compile_errors)
{
    expect_refused(1, 0, "x * nothing_here", 1, "fields[1].map", "'nothing_here'");
    expect_refused(0, 0, "x * y", 1, "fields[0].map", "'y'");
    expect_refused(1, 2, "zero", 1, "fields[1].identity", "'zero'");
    expect_refused(-1, 1, "a1 / m", 1, "finalize[1]", "'m'");
    expect_refused(-1, 0, "a0 / b0", 2, "finalize[0]", "'b0'");
    /* fields the state does not have (it has two) */
    expect_refused(0, 1, "a0 + b3", 1, "fields[0].combine", "'b3'");
    expect_refused(-1, 1, "a2 / n", 1, "finalize[1]", "'a2'");
    /* the grammar allows '%', C++ not on the float64 fields: NVRTC's error names the expression */
    expect_compile_error(0, 1, "a0 % b0", 1, "fields[0].combine(1)", "integral");
}
END_TEST

TCase *stats_multi_tcase(void)
{
    TCase *tc = tcase_create("multi_field");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_multi_checks);
    tcase_add_test(tc, test_multi_budget);
    tcase_add_test(tc, test_multi_layout);
    tcase_add_test(tc, test_multi_compiles);
    tcase_add_test(tc, test_multi_compile_errors);
    return tc;
}
