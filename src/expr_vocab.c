/*
 * The vocabulary of user expressions (expr.h): the device functions an
 * expression may call, with their compile costs, and C++'s numbers.
 */
#include "expr.h"

#include <string.h>

/* Name, arguments, compile cost: 1 for what inlines a few instructions, 4 for
 * the transcendental routines, 8 for lgamma, 16 for the three slowest to optimise (fmod,
 * remainder and tgamma: two in a combine took 4 to 7 s on 2 cores). */
const struct cr_expr_function cr_expr_functions[] = {
    {"abs", 1, 1}, {"labs", 1, 1}, {"llabs", 1, 1}, {"fabs", 1, 1}, {"fabsf", 1, 1}, {"min", 2, 1},
    {"max", 2, 1}, {"fmin", 2, 1}, {"fminf", 2, 1}, {"fmax", 2, 1}, {"fmaxf", 2, 1}, {"fdim", 2, 1},
    {"copysign", 2, 1}, {"fmod", 2, 16}, {"remainder", 2, 16}, {"fma", 3, 1}, {"fmaf", 3, 1}, {"sqrt", 1, 1},
    {"sqrtf", 1, 1}, {"rsqrt", 1, 1}, {"rsqrtf", 1, 1}, {"cbrt", 1, 4}, {"cbrtf", 1, 4}, {"hypot", 2, 4},
    {"hypotf", 2, 4}, {"pow", 2, 4}, {"powf", 2, 4}, {"exp", 1, 4}, {"expf", 1, 4}, {"exp2", 1, 4},
    {"exp2f", 1, 4}, {"exp10", 1, 4}, {"exp10f", 1, 4}, {"expm1", 1, 4}, {"expm1f", 1, 4}, {"log", 1, 4},
    {"logf", 1, 4}, {"log2", 1, 4}, {"log2f", 1, 4}, {"log10", 1, 4}, {"log10f", 1, 4}, {"log1p", 1, 4},
    {"log1pf", 1, 4}, {"sin", 1, 4}, {"sinf", 1, 4}, {"cos", 1, 4}, {"cosf", 1, 4}, {"tan", 1, 4},
    {"tanf", 1, 4}, {"asin", 1, 4}, {"acos", 1, 4}, {"atan", 1, 4}, {"atan2", 2, 4}, {"atan2f", 2, 4},
    {"sinh", 1, 4}, {"cosh", 1, 4}, {"tanh", 1, 4}, {"tanhf", 1, 4}, {"asinh", 1, 4}, {"acosh", 1, 4},
    {"atanh", 1, 4}, {"erf", 1, 4}, {"erfc", 1, 4}, {"lgamma", 1, 8}, {"tgamma", 1, 16}, {"floor", 1, 1},
    {"floorf", 1, 1}, {"ceil", 1, 1}, {"ceilf", 1, 1}, {"round", 1, 1}, {"roundf", 1, 1}, {"trunc", 1, 1},
    {"truncf", 1, 1}, {"rint", 1, 1}, {"rintf", 1, 1}, {"isnan", 1, 1}, {"isinf", 1, 1}, {"isfinite", 1, 1},
    {"signbit", 1, 1}, {"__popc", 1, 1}, {"__popcll", 1, 1}, {"__clz", 1, 1}, {"__clzll", 1, 1},
    {"__ffs", 1, 1}, {"__ffsll", 1, 1}, {"__brev", 1, 1}, {"__brevll", 1, 1}, {"__int_as_float", 1, 1},
    {"__float_as_int", 1, 1}, {"__uint_as_float", 1, 1}, {"__float_as_uint", 1, 1},
    {"__longlong_as_double", 1, 1}, {"__double_as_longlong", 1, 1},
};
const size_t cr_expr_nfunctions = sizeof cr_expr_functions / sizeof *cr_expr_functions;

static int is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}

size_t cr_expr_pp_number(const char *e)
{
    size_t n = 1;
    for (;;) {
        char c = e[n];
        if ((c == '+' || c == '-') && strchr("eEpP", e[n - 1]) != NULL)
            n++;
        else if (is_alnum(c) || c == '.')
            n++;
        else
            return n;
    }
}

static size_t span(const char *s, size_t n, const char *set)
{
    size_t i = 0;
    while (i < n && s[i] && strchr(set, s[i]) != NULL)
        i++;
    return i;
}

int cr_expr_valid_number(const char *s, size_t n)
{
    static const char *const int_suffixes[] = {"", "u", "l", "ul", "lu", "ll", "ull", "llu"};
    const char *dig = "0123456789";
    size_t i = 0;
    int hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    int bin = n > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B');
    if (hex || bin)
        i = 2;
    const char *digits = hex ? "0123456789abcdefABCDEF" : bin ? "01" : dig;
    size_t whole = span(s + i, n - i, digits), frac = 0;
    i += whole;
    int is_float = 0;
    if (!bin && i < n && s[i] == '.') {
        is_float = 1;
        i++;
        frac = span(s + i, n - i, digits);
        i += frac;
    }
    if (whole + frac == 0)
        return 0;
    char exp_lo = hex ? 'p' : 'e', exp_hi = hex ? 'P' : 'E';
    if (!bin && i < n && (s[i] == exp_lo || s[i] == exp_hi)) {
        is_float = 1;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ed = span(s + i, n - i, dig);
        if (ed == 0)
            return 0;
        i += ed;
    } else if (hex && is_float) {
        return 0; /* a hexadecimal float needs its p exponent */
    }
    if (is_float)
        return i == n || (i + 1 == n && (s[i] == 'f' || s[i] == 'F'));
    if (!hex && !bin && s[0] == '0' && span(s, whole, "01234567") != whole)
        return 0; /* octal */
    size_t sl = n - i;
    char suffix[4] = "";
    if (sl > 3)
        return 0;
    for (size_t k = 0; k < sl; k++)
        suffix[k] = (char)(s[i + k] | 0x20);
    const char *ll = strstr(suffix, "ll");
    if (ll != NULL && s[i + (size_t)(ll - suffix)] != s[i + (size_t)(ll - suffix) + 1])
        return 0; /* "lL" and "Ll" are not suffixes */
    for (size_t k = 0; k < sizeof int_suffixes / sizeof *int_suffixes; k++)
        if (strcmp(suffix, int_suffixes[k]) == 0)
            return 1;
    return 0;
}

