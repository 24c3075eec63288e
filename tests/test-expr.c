/*
 * The whitelist grammar of user expressions (src/expr.c), off the GPU: what
 * it accepts and refuses and what it says, the attack of issue 13 refused
 * before NVRTC runs, the nesting and compile-cost bounds, and (with NVRTC,
 * else those tests are skipped) that every listed function and the
 * borderline spellings it accepts really compile.
 */
#include "api_test.h"
#include "expr.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const xy[] = {"x", "y"};

static void expect_ok(const char *e)
{
    clear_error();
    cured_status st = cr_expr_check("map_expr", e, xy, 2, CR_MAX_EXPR_COST);
    ck_assert_msg(st == CURED_SUCCESS, "\"%s\" was refused: %s", e, cured_last_error());
}

static void expect_refused(const char *e, const char *needle)
{
    clear_error();
    cured_status st = cr_expr_check("map_expr", e, xy, 2, CR_MAX_EXPR_COST);
    ck_assert_msg(st == CURED_ERROR_INVALID_EXPRESSION, "\"%s\": got %s, want INVALID_EXPRESSION", e,
                  cured_status_string(st));
    assert_message_contains(e, "map_expr: ");
    assert_message_contains(e, needle);
}

START_TEST(test_accepts)
{
    static const char *const ok[] = {
        "x", "x*x", "x*y", "-x", "- - ~ ! x", "+x", "x != 0", "(x < y) ? x : y", "x ? y : x ? -y : 0",
        "((x) & 15) | (x >> 4) ^ ~y", "x && y || !x", "x <= y == (x >= y)", "x % 3 / 2",
        "fabs(x)", "fmax(x, y)", "fma(x, y, 1.0)", "min(x, y) > 0 && !isnan(x)", "__popc((unsigned)x)",
        "x<::fabs(y)", "::fabs(x)", "x < ::fabs(y)", /* C++11: "<::" is '<' then '::' */
        "(float)x", "(double)x", "(int)x", "(unsigned)x", "(long long)x", "(unsigned long long)x",
        "(signed char)x", "(unsigned short int)x", "(long int)x", "(bool)x", "(char unsigned)x",
        "float(x)", "int(x) % 3", "unsigned(y)", "(int)-x", "-(int)x", "(float)(int)x",
        "0", "42", "0u", "10ull", "10LLU", "7l", "07", "0x1F", "0b101", "1.5", ".5", "1.", "1.e3", "1e-5f",
        "2E+3", "0x1p3", "0X1.8P-2f", "true + false", "-1e30f"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        expect_ok(ok[i]);
    /* Exactly 1024 characters, 63 nested parentheses (64 levels), the whole budget. */
    char e[CR_MAX_EXPR + 2];
    memset(e, ' ', CR_MAX_EXPR);
    e[0] = 'x';
    e[CR_MAX_EXPR] = '\0';
    expect_ok(e);
    int n = snprintf(e, sizeof e, "%.*s%s%.*s", 63, "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((",
                     "x", 63, "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))");
    ck_assert_int_lt(n, (int)sizeof e);
    expect_ok(e);
    expect_ok("pow(x, y) + exp(x) + log(x) + sin(y) + fabs(x) + fabs(y) + fabs(x) + fabs(y) + x % 2 + x / 2 + "
              "x / 3 + x / 4 + x / 5 + x / 6"); /* 4 * 4 + 4 + 6 * 2 = 32 */
}
END_TEST

START_TEST(test_refuses)
{
    static const struct {
        const char *e, *needle;
    } bad[] = {
        /* The attack of issue 13: the kernel headers' templates. */
        {"thread_reduce_vec<int,long long,Sum<int,long long,long long>,256>((const int*)(u64)x,(size_t)x,"
         "Sum<int,long long,long long>())",
         "'thread_reduce_vec' is not allowed"},
        {"widen<float>(x)", "'widen' is not allowed"},
        {"x_in", "'x_in' is not allowed"},
        {"u64(x)", "'u64' is not allowed"},
        {"z", "the variables x, y;"},
        {"sizeof(x)", "'sizeof'"},
        {"x and y", "alternative tokens"},
        {"fabs", "'(' is missing"},
        {"(fabs)(x)", "')' where '(' is expected"},
        {"fmax(x)", "'fmax' takes 2 arguments, not 1"},
        {"sqrt(x, y)", "'sqrt' takes 1 argument, not 2"},
        {"::x", "'::' may only come before a function name"},
        {"x <:: y", "'::' may only come before a function name"},
        {"a<:0:>", "not allowed"},
        {"x<:0:>", "digraph '<:'"},
        {"x<::>", "digraph '<:'"},
        {"%:x", "digraph '%:'"},
        {"x%>", "digraph '%>'"},
        {"x <% y", "digraph '<%'"},
        {"x ? y :> 0", "digraph ':>'"},
        {"x = 1", "'=' is not allowed"},
        {"x += 1", "'+=' is not allowed"},
        {"x >>= 1", "'>>=' is not allowed"},
        {"x++", "'++' is not allowed"},
        {"x--1", "'--' is not allowed"},
        {"x->y", "'->' is not allowed"},
        {"x.y", "'.' is not allowed"},
        {"x <=> y", "'<=>' is not allowed"},
        {"x, y", "',' where an operator"},
        {"x; x", "';' is not allowed"},
        {"[x]", "'[' is not allowed"},
        {"{x}", "'{' is not allowed"},
        {"#x", "'#' is not allowed"},
        {"x ## y", "'##' is not allowed"},
        {"\"x\"", "is not allowed in an expression"},
        {"x'y", "is not allowed in an expression"},
        {"x\\", "is not allowed in an expression"},
        {"$x", "'$' is not allowed"},
        {"x@", "'@' is not allowed"},
        {"x//c", "comments are not allowed"},
        {"x/*c*/", "comments are not allowed"},
        {"x\t", "not printable ASCII"},
        {"x*\xc3\xa9", "not printable ASCII"},
        {"(x", "')' is missing"},
        {"x)", "unbalanced ')'"},
        {"x y", "'y' where an operator"},
        {"x ?: y", "where an operand is expected"},
        {"x +", "an operand is missing"},
        {"09", "'09' is not a number"},
        {"1_km", "'1_km' is not a number"},
        {"0x1e+5", "'0x1e+5' is not a number"},
        {"1lL", "'1lL' is not a number"},
        {"1.0L", "'1.0L' is not a number"},
        {"0x1.8", "'0x1.8' is not a number"},
        {"1..2", "'1..2' is not a number"},
        {"(long double)x", "'long double' is not an arithmetic type"},
        {"(int int)x", "'int int'"},
        {"(unsigned signed)x", "'unsigned signed'"},
        {"(short long)x", "'short long'"},
        {"(long long long)x", "'long long long'"},
        {"(float double)x", "'float double'"},
        {"(unsigned float)x", "'unsigned float'"},
        {"long long(x)", "a functional cast takes one type keyword"},
        {"pow(x, y) + exp(x) + log(x) + sin(y) + fabs(x) + fabs(y) + fabs(x) + fabs(y) + x % 2 + x / 2 + "
         "x / 3 + x / 4 + x / 5 + x / 6 + fabs(x)",
         "'fabs' takes the expression past its compile-time budget of 32"},
        {"tgamma(tgamma(x)) / 2", "'/' takes the expression past its compile-time budget"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_refused(bad[i].e, bad[i].needle);
    /* 64 nested parentheses (65 levels) and 1025 characters. */
    char e[CR_MAX_EXPR + 2];
    snprintf(e, sizeof e, "%.*s%s%.*s", 64, "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((", "x",
             64, "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))");
    expect_refused(e, "nested more than 64 levels deep");
    for (int i = 0; i < 100; i++)
        memcpy(e + 2 * i, "- ", 2); /* not "--": that is the decrement operator */
    strcpy(e + 200, "x");
    expect_refused(e, "nested more than 64 levels deep");
    memset(e, ' ', CR_MAX_EXPR + 1);
    e[0] = 'x';
    e[CR_MAX_EXPR + 1] = '\0';
    clear_error();
    ck_assert_int_eq(cr_expr_check("map_expr", e, xy, 2, CR_MAX_EXPR_COST), CURED_ERROR_INVALID_EXPRESSION);
    assert_message_contains("1025 characters", "1 to 1024 characters");
    /* The message of an unknown name lists what is allowed, functions included. */
    expect_refused("foo(x)", "'foo' is not allowed: an expression may name only the variables x, y; true and false");
    expect_refused("foo(x)", "fabs fabsf");
    expect_refused("foo(x)", "__double_as_longlong");
}
END_TEST

/* Each slot has its own variables and budget (src/custom.c). */
START_TEST(test_slots)
{
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    static const struct {
        int ninputs;
        const char *map, *combine, *identity, *needle;
    } bad[] = {
        {1, "x + y", "a+b", "0", "map_expr: 'y' is not allowed: an expression may name only the variables x;"},
        {2, "x + a", "a+b", "0", "map_expr: 'a'"},
        {1, "x", "a + x", "0", "combine_expr: 'x' is not allowed: an expression may name only the variables a, b;"},
        {1, "x", "a+b", "a", "identity_expr: 'a' is not allowed: an expression may name only no variable;"},
        {1, "x", "lgamma(a) + lgamma(b) + fabs(a)", "0", "combine_expr: 'fabs' takes the expression past its "
                                                         "compile-time budget of 16"},
        {1, "x", "tgamma(a) + b / 2", "0", "combine_expr: '/' takes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        clear_error();
        cured_status st = cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, bad[i].ninputs, bad[i].map,
                                          bad[i].combine, bad[i].identity, &op);
        ck_assert_msg(st == CURED_ERROR_INVALID_EXPRESSION && op == NULL, "%s | %s | %s: %s", bad[i].map,
                      bad[i].combine, bad[i].identity, cured_status_string(st));
        assert_message_contains(bad[i].map, bad[i].needle);
    }
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x", "lgamma(a) + lgamma(b)",
                                     "tgamma(tgamma(1.5))", &op),
                     CURED_SUCCESS);
    ck_assert_int_eq(cured_custom_destroy(op), CURED_SUCCESS);
}
END_TEST

/* The attack is refused by the grammar: no compilation starts, so it costs nothing. */
START_TEST(test_attack_refused_before_nvrtc)
{
    for (int block = 256; block <= 1024; block *= 4) {
        char map[512];
        snprintf(map, sizeof map,
                 "thread_reduce_vec<int,long long,Sum<int,long long,long long>,%d>((const int*)(u64)x,(size_t)x,"
                 "Sum<int,long long,long long>())",
                 block);
        cured_custom op = (cured_custom)(uintptr_t)0x1;
        clear_error();
        ck_assert_int_eq(cr_custom_build(CURED_TYPE_INT32, CURED_TYPE_INT64, 1, map, "a+b", "0", &op),
                         CURED_ERROR_INVALID_EXPRESSION);
        ck_assert_ptr_null(op);
        assert_message_contains("the attack", "'thread_reduce_vec' is not allowed");
    }
    cured_stats s;
    ck_assert_int_eq(cured_get_stats(&s), CURED_SUCCESS);
    ck_assert_uint_eq(s.compiles + s.compile_failures, 0);
}
END_TEST

/* include/cured.h lists the functions and their costs: the list is the grammar's. */
START_TEST(test_header_lists_the_functions)
{
    const char *src = getenv("top_srcdir");
    char path[1024];
    snprintf(path, sizeof path, "%s/include/cured.h", src ? src : ".");
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *from = strstr(text, "(cost in brackets):"), *to = from ? strstr(from, "The floating functions") : NULL;
    ck_assert_msg(from && to, "cured.h: the list of functions was not found");
    from += strlen("(cost in brackets):");
    char names[128][32];
    int nnames = 0, listed = 0;
    for (const char *c = from; c < to;) {
        if (*c == '_' || (*c >= 'a' && *c <= 'z')) {
            size_t l = strspn(c, "_abcdefghijklmnopqrstuvwxyz0123456789");
            ck_assert(nnames < 128 && l < 32);
            memcpy(names[nnames], c, l);
            names[nnames++][l] = '\0';
            c += l;
        } else if (*c == '[') {
            int cost = atoi(c + 1);
            for (int k = 0; k < nnames; k++) {
                size_t i = 0;
                while (i < cr_expr_nfunctions && strcmp(cr_expr_functions[i].name, names[k]) != 0)
                    i++;
                ck_assert_msg(i < cr_expr_nfunctions, "cured.h lists %s, which the grammar does not", names[k]);
                ck_assert_msg(cr_expr_functions[i].cost == cost, "cured.h gives %s cost %d, the grammar %d", names[k],
                              cost, cr_expr_functions[i].cost);
            }
            listed += nnames;
            nnames = 0;
            c = strchr(c, ']') + 1;
        } else {
            c++; /* spaces, ';', '.', the comment's '*' */
        }
    }
    ck_assert_msg(listed == (int)cr_expr_nfunctions, "cured.h lists %d functions, the grammar has %zu", listed,
                  cr_expr_nfunctions);
}
END_TEST

/* ---- with NVRTC --------------------------------------------------------------- */

static int have_nvrtc(void)
{
    if (cured_nvrtc_version(NULL, NULL) == CURED_SUCCESS)
        return 1;
    printf("SKIP (this test): NVRTC is not available: %s\n", cured_last_error());
    return 0;
}

static void expect_compiles(cured_type in, int ninputs, const char *map, const char *combine, const char *identity)
{
    cured_custom op = NULL;
    cured_status st = cr_custom_build(in, in, ninputs, map, combine, identity, &op);
    ck_assert_msg(st == CURED_SUCCESS, "%s | %s | %s: %s", map, combine, identity, cured_last_error());
    const struct cr_image *img = NULL; /* PTX: the front end resolves every call; ptxas adds nothing here */
    st = cr_kcache_get(cr_custom_unit(op), 90, 1, &img);
    ck_assert_msg(st == CURED_SUCCESS, "%s | %s | %s (%s): %s", map, combine, identity, cured_type_name(in),
                  cured_last_error());
    cr_kcache_put(img);
    cured_custom_destroy(op);
}

/* Every listed function exists in NVRTC's device library, for float and double
 * arguments: the functions are summed in groups that fit the map's budget. */
START_TEST(test_functions_compile)
{
    if (!have_nvrtc())
        return;
    const cured_type types[] = {CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT32};
    for (size_t t = 0; t < 2; t++) {
        char e[CR_MAX_EXPR + 1];
        size_t len = 0, i = 0;
        int cost = 0;
        while (i <= cr_expr_nfunctions) {
            const struct cr_expr_function *f = i < cr_expr_nfunctions ? &cr_expr_functions[i] : NULL;
            if (f == NULL || cost + f->cost > CR_MAX_EXPR_COST || len > CR_MAX_EXPR - 48) {
                expect_compiles(types[t], 1, e, "a+b", "0");
                len = 0;
                cost = 0;
                if (f == NULL)
                    break;
            }
            static const char *const calls[] = {"", "%s%s(x)", "%s%s(x, x + 1)", "%s%s(x, x, 1)"};
            len += (size_t)snprintf(e + len, sizeof e - len, calls[f->args], len ? " + " : "", f->name);
            cost += f->cost;
            i++;
        }
    }
}
END_TEST

/* The borderline spellings the grammar accepts mean to NVRTC what they mean to it. */
START_TEST(test_spellings_compile)
{
    if (!have_nvrtc())
        return;
    expect_compiles(CURED_TYPE_FLOAT32, 2, "x<::fabs(y)", "a<::fmax(b, a) ? a : b", "::fabs(-1.0f)");
    expect_compiles(CURED_TYPE_FLOAT64, 2,
                    "(unsigned long long)x + (signed char)y + float(x) + unsigned(y) + (bool)x + (char unsigned)x",
                    "a+b", "0x1p3 + 1e-5f + .5 + 1.e3 + 07 + 0b101 + 10ull + 10LLU + 0X1.8P-2f + 1E+3 + true");
    expect_compiles(CURED_TYPE_INT32, 1, "(x & 15) | x >> 4 ^ ~x", "a < b ? a : b", "-2147483647 - 1");
}
END_TEST

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CURED_TEST_ASAN 1
#endif
#endif

int main(void)
{
#ifdef CURED_TEST_ASAN
    /* LeakSanitizer's tracer crashes (signal 11) at the exit of a forked child
     * that ran NVRTC's two-input compiles; unforked, the same tests run and
     * are checked for leaks once, at the process's exit. */
    setenv("CK_FORK", "no", 0);
#endif
    Suite *s = suite_create("expr");
    TCase *grammar = tcase_create("grammar");
    tcase_add_test(grammar, test_accepts);
    tcase_add_test(grammar, test_refuses);
    tcase_add_test(grammar, test_slots);
    tcase_add_test(grammar, test_attack_refused_before_nvrtc);
    tcase_add_test(grammar, test_header_lists_the_functions);
    suite_add_tcase(s, grammar);
    TCase *nvrtc = tcase_create("nvrtc");
    tcase_set_timeout(nvrtc, 600);
    tcase_add_test(nvrtc, test_functions_compile);
    tcase_add_test(nvrtc, test_spellings_compile);
    suite_add_tcase(s, nvrtc);
    return run_suite(s);
}
