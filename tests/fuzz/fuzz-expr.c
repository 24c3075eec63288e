/*
 * libFuzzer harness: user expressions through the grammar (cr_expr_check)
 * and the generator (cr_custom_build). Input: a byte of types and input
 * count, then up to three expressions separated by newlines. An accepted
 * expression is checked by an independent oracle: every name in it is a
 * slot variable, a listed function, an arithmetic type keyword, true or
 * false, it holds no character outside the grammar's, and the generated
 * source holds it verbatim.
 */
#include "internal.h"
#include "expr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int allowed_name(const char *s, size_t n, const char *const *vars, size_t nvars)
{
    static const char *const words[] = {"true", "false", "signed", "unsigned", "char", "short", "int",
                                        "long", "float", "double", "bool"};
    for (size_t i = 0; i < nvars; i++)
        if (strlen(vars[i]) == n && memcmp(vars[i], s, n) == 0)
            return 1;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0)
            return 1;
    for (size_t i = 0; i < cr_expr_nfunctions; i++)
        if (strlen(cr_expr_functions[i].name) == n && memcmp(cr_expr_functions[i].name, s, n) == 0)
            return 1;
    return 0;
}

/* The oracle: a crude scan, on purpose not the checker's lexer. */
static void oracle(const char *e, const char *const *vars, size_t nvars)
{
    if (strstr(e, "//") || strstr(e, "/*") || strstr(e, "++") || strstr(e, "--") || strstr(e, "->") ||
        strstr(e, ":>") || strstr(e, "<%") || strstr(e, "%>") || strstr(e, "%:"))
        abort();
    for (const char *d = strstr(e, "<:"); d; d = strstr(d + 1, "<:"))
        if (d[2] != ':' || d[3] == ':' || d[3] == '>')
            abort(); /* only C++11's "<::", which is '<' then "::" */
    for (const char *c = e; *c;) {
        if ((*c >= '0' && *c <= '9') || (*c == '.' && c[1] >= '0' && c[1] <= '9')) {
            c++;
            while ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '.' ||
                   *c == '_' || ((*c == '+' || *c == '-') && strchr("eEpP", c[-1])))
                c++; /* a number and its suffix */
        } else if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_') {
            const char *s = c;
            while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' || (*c >= '0' && *c <= '9'))
                c++;
            if (!allowed_name(s, (size_t)(c - s), vars, nvars))
                abort();
        } else if (*c == '=') {
            if (!((c > e && strchr("=!<>", c[-1])) || c[1] == '='))
                abort(); /* an assignment */
            c++;
        } else {
            if (*c == '\0' || strchr(" +-*/%&|^~!<>?:(),", *c) == NULL)
                abort();
            c++;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 3 * 1100)
        return 0;
    static const char *const map_vars[] = {"x", "y"}, *const ab[] = {"a", "b"};
    static const char *const fields[] = {"a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"};
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *e[3] = {text, NULL, NULL};
    for (int k = 1; k < 3; k++) {
        char *nl = e[k - 1] ? strchr(e[k - 1], '\n') : NULL;
        if (nl) {
            *nl = '\0';
            e[k] = nl + 1;
        }
    }
    int ninputs = 1 + (data[0] & 1);
    cured_type in = (cured_type)((data[0] >> 1) % CURED_TYPE_COUNT);
    cured_type acc = (cured_type)((data[0] >> 5) % 4 ? CURED_TYPE_FLOAT64 : CURED_TYPE_INT64);
    /* The checker alone, with the multi-field variable set too. */
    for (int k = 0; k < 3; k++)
        if (e[k] && cr_expr_check("fuzz", e[k], fields, 8, CR_MAX_EXPR_COST) == CURED_SUCCESS)
            oracle(e[k], fields, 8);
    cured_custom op = NULL;
    cured_status st = cr_custom_build(in, acc, ninputs, e[0], e[1] ? e[1] : "a+b", e[2] ? e[2] : "0", &op);
    if (st == CURED_SUCCESS) {
        oracle(e[0], map_vars, (size_t)ninputs);
        if (e[1])
            oracle(e[1], ab, 2);
        if (e[2])
            oracle(e[2], NULL, 0);
        const struct cr_unit *p = cr_custom_unit(op);
        for (int k = 0; k < 3; k++)
            if (e[k] && strstr(p->source, e[k]) == NULL)
                abort();
        cured_custom_destroy(op);
    } else if (op != NULL || st != CURED_ERROR_INVALID_EXPRESSION) {
        if (!(st == CURED_ERROR_TYPE_MISMATCH && op == NULL))
            abort();
    }
    free(text);
    return 0;
}
