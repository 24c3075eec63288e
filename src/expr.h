/*
 * The whitelist grammar of user expressions (expr.c): what cured_custom_create
 * lets into the generated operator. Everything not listed is refused before
 * NVRTC runs, so an expression can name neither the kernel headers' templates
 * nor anything else of the generated source.
 */
#ifndef CURED_EXPR_H
#define CURED_EXPR_H

#include <stddef.h>

#include "cured.h"

#define CR_MAX_EXPR 1024   /* characters of one expression */
#define CR_MAX_EXPR_DEPTH 64 /* nested parentheses, casts, calls, ?: and unary operators */
/*
 * Compile-time budgets. Each function call and each '/' or '%' inlines a
 * routine that ptxas optimises in time growing faster than linearly with
 * their number, and the combine is inlined at every step of the block
 * reduction (measured on 2 cores, double: 40 pow calls in a map, 14 s; 10 in
 * a combine, 6 s; two tgamma in a combine, 6.6 s). A call costs its
 * function's cost (cr_expr_functions), '/' and '%' cost 2.
 */
#define CR_MAX_EXPR_COST 32
#define CR_MAX_COMBINE_COST 16

/*
 * Check expression e of slot what ("map_expr", ...) against the grammar, with
 * vars[0..nvars) the variables it may name and max_cost its compile-time
 * budget. CURED_SUCCESS, or
 * CURED_ERROR_NULL_POINTER / CURED_ERROR_INVALID_EXPRESSION with a message
 * naming the slot, the offending token and its position (and, for an unknown
 * name, what is allowed).
 */
cured_status cr_expr_check(const char *what, const char *e, const char *const *vars, size_t nvars, int max_cost);
/* cr_expr_check, and *cost: the expression's compile cost (0 unless it passed). */
cured_status cr_expr_check_cost(const char *what, const char *e, const char *const *vars, size_t nvars, int max_cost,
                                int *cost);

/* The device functions an expression may call, with their argument counts
 * and costs (for the tests, the fuzzers and the documentation). */
struct cr_expr_function {
    const char *name;
    int args;
    int cost; /* against the budgets above */
};
extern const struct cr_expr_function cr_expr_functions[];
extern const size_t cr_expr_nfunctions;

/* Length of the pp-number at e (a digit, or '.' and a digit): as C++'s lexer
 * reads it, digits, letters, '_', '.' and a sign after e, E, p or P. */
size_t cr_expr_pp_number(const char *e);
/* Is s[0..n) an integer (u, l, ll suffixes) or floating (f suffix) literal of C++? */
int cr_expr_valid_number(const char *s, size_t n);

#endif
