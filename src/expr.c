/*
 * User expressions: a lexer that splits the text as a C++ compiler does
 * (maximal munch, pp-numbers, digraphs, the "<::" rule), then a recursive
 * descent parser of the whitelist grammar:
 *
 *   expr    := binary [ '?' expr ':' expr ]
 *   binary  := unary { op unary }        (C precedence: || && | ^ & == != < > <= >= << >> + - * / %)
 *   unary   := ('+' | '-' | '!' | '~') unary | '(' type ')' unary | primary
 *   primary := number | true | false | variable | ['::'] function '(' expr {',' expr} ')'
 *            | type '(' expr ')' | '(' expr ')'
 *   type    := arithmetic type keywords: (unsigned) char, short, int, long, long long, float, double, bool
 *
 * No accepted token can name a template, a type other than an arithmetic
 * one, or anything of the generated source; nesting and the number of calls
 * and divisions are bounded, which bounds what NVRTC and ptxas are asked to
 * do. See cured.h for the rules as users see them.
 */
#include "internal.h"
#include "expr.h"

#include <stdio.h>
#include <string.h>

enum tok { T_END, T_NUM, T_NAME, T_PUNCT };

struct parser {
    const char *what, *e;
    const char *const *vars;
    size_t nvars;
    size_t pos;          /* start of the current token */
    size_t len;          /* its length */
    enum tok kind;
    int depth;
    int cost, max_cost;  /* compile cost so far (calls, '/', '%'), and the budget */
    cured_status st;     /* the first error, once set */
};

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Record the first error: fmt has one %s, the token (token[0..len); NULL: none, at the current position). */
static cured_status fail(struct parser *p, const char *fmt, const char *token, size_t len)
{
    if (p->st == CURED_SUCCESS) {
        const char *at = token != NULL ? token : p->e + p->pos;
        char tok[72], msg[1800];
        snprintf(tok, sizeof tok, "%.*s%s", (int)(len > 64 ? 64 : len), token ? token : "", len > 64 ? "..." : "");
        snprintf(msg, sizeof msg, fmt, tok);
        p->st = cr_fail(CURED_ERROR_INVALID_EXPRESSION, "%s: %s (character %zu of \"%.80s%s\")", p->what, msg,
                        (size_t)(at - p->e) + 1, p->e, strlen(p->e) > 80 ? "..." : "");
    }
    return p->st;
}

/* C++ punctuators, longest first where one is a prefix of another: the lexer
 * takes the longest, as a compiler does, so that e.g. "<<=" is refused as
 * the assignment it is rather than read as "<<" and "=". */
static const char *const punctuators[] = {
    "%:%:", "<<=", ">>=", "<=>", "...", "->*", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||",   "+=",  "-=",  "*=",  "/=",  "%=",  "&=", "|=", "^=", "::", ".*", "##", "<:", ":>", "<%", "%>",
    "%:",   "+",   "-",   "*",   "/",   "%",   "&",  "|",  "^",  "~",  "!",  "<",  ">",  "?",  ":",  "(",
    ")",    ",",   "=",   ".",   "[",   "]",   "{",  "}",  "#",  ";"};

/* Read the token at p->pos (after spaces) into kind/len; refuses what no expression may hold. */
static void next(struct parser *p)
{
    if (p->st != CURED_SUCCESS)
        return;
    const char *e = p->e;
    p->pos += p->len;
    while (e[p->pos] == ' ')
        p->pos++;
    const char *s = e + p->pos;
    unsigned char c = (unsigned char)*s;
    p->len = 0;
    if (c == '\0') {
        p->kind = T_END;
        return;
    }
    if (c < 32 || c > 126) {
        fail(p, "a character that is not printable ASCII or a space%s", NULL, 0);
        return;
    }
    if (is_alpha((char)c)) {
        while (is_alpha(s[p->len]) || is_digit(s[p->len]))
            p->len++;
        p->kind = T_NAME;
        return;
    }
    if (is_digit((char)c) || (c == '.' && is_digit(s[1]))) {
        p->len = cr_expr_pp_number(s);
        p->kind = T_NUM;
        if (!cr_expr_valid_number(s, p->len))
            fail(p, "'%s' is not a number cured accepts (integers with u/l/ll suffixes, floats with an f suffix)",
                 s, p->len);
        return;
    }
    if (c == '/' && (s[1] == '/' || s[1] == '*')) {
        fail(p, "comments are not allowed%s", NULL, 0);
        return;
    }
    if (c == '<' && s[1] == ':' && s[2] == ':' && s[3] != ':' && s[3] != '>') {
        p->len = 1; /* C++11: "<::" is '<' then "::" unless ':' or '>' follows */
        p->kind = T_PUNCT;
        return;
    }
    static const char *const accepted[] = {"<=", ">=", "==", "!=", "&&", "||", "<<", ">>", "::", "+", "-", "*",
                                           "/",  "%",  "&",  "|",  "^",  "~",  "!",  "<",  ">",  "?", ":", "(",
                                           ")",  ","};
    static const char *const digraphs[] = {"%:%:", "<:", ":>", "<%", "%>", "%:"};
    for (size_t i = 0; i < sizeof punctuators / sizeof *punctuators; i++) {
        size_t l = strlen(punctuators[i]);
        if (strncmp(s, punctuators[i], l) != 0)
            continue;
        p->len = l;
        p->kind = T_PUNCT;
        for (size_t d = 0; d < sizeof digraphs / sizeof *digraphs; d++)
            if (strcmp(punctuators[i], digraphs[d]) == 0) {
                fail(p, "digraph '%s' is not allowed", s, l);
                return;
            }
        for (size_t a = 0; a < sizeof accepted / sizeof *accepted; a++)
            if (strcmp(punctuators[i], accepted[a]) == 0)
                return;
        fail(p, "'%s' is not allowed in an expression (assignments, ++, --, member access, brackets, braces, ';' "
                "and '#' are not)", s, l);
        return;
    }
    fail(p, "'%s' is not allowed in an expression", s, 1);
}

static int is(const struct parser *p, const char *punct)
{
    return p->st == CURED_SUCCESS && p->kind == T_PUNCT && p->len == strlen(punct) &&
           strncmp(p->e + p->pos, punct, p->len) == 0;
}

static int name_is(const struct parser *p, const char *name)
{
    return p->kind == T_NAME && p->len == strlen(name) && strncmp(p->e + p->pos, name, p->len) == 0;
}

static const char *const type_words[] = {"signed", "unsigned", "char", "short", "int", "long", "float", "double",
                                         "bool"};

static int type_word(const struct parser *p)
{
    for (size_t i = 0; i < sizeof type_words / sizeof *type_words; i++)
        if (name_is(p, type_words[i]))
            return (int)i;
    return -1;
}

static void expect(struct parser *p, const char *punct)
{
    if (is(p, punct)) {
        next(p);
        return;
    }
    char fmt[64];
    if (p->kind == T_END) {
        snprintf(fmt, sizeof fmt, "the expression ends where '%s' is missing%%s", punct);
        fail(p, fmt, NULL, 0);
    } else {
        snprintf(fmt, sizeof fmt, "'%%s' where '%s' is expected", punct);
        fail(p, fmt, p->e + p->pos, p->len);
    }
}

static void parse_expr(struct parser *p);
static void parse_unary(struct parser *p);

/* A cast's type: keywords making one C++ arithmetic type (long double excepted). */
static void parse_type(struct parser *p)
{
    enum { SIGNED, UNSIGNED, CHAR, SHORT, INT, LONG, FLOAT, DOUBLE, BOOL };
    int c[9] = {0}, words = 0;
    const char *start = p->e + p->pos;
    for (int w; p->st == CURED_SUCCESS && (w = type_word(p)) >= 0; next(p), words++)
        c[w]++;
    int sign = c[SIGNED] + c[UNSIGNED], ok;
    if (c[FLOAT] || c[DOUBLE] || c[BOOL])
        ok = words == 1;
    else if (c[CHAR])
        ok = c[CHAR] == 1 && sign <= 1 && words == 1 + sign;
    else
        ok = sign <= 1 && c[SHORT] <= 1 && c[LONG] <= 2 && c[INT] <= 1 && !(c[SHORT] && c[LONG]);
    if (p->st == CURED_SUCCESS && !ok)
        fail(p, "'%s' is not an arithmetic type cured accepts in a cast", start, (size_t)(p->e + p->pos - start));
}

/* A call, '/' or '%' of that cost at token s. */
static void costly(struct parser *p, int cost, const char *s, size_t len)
{
    if ((p->cost += cost) <= p->max_cost)
        return;
    char fmt[200];
    snprintf(fmt, sizeof fmt, "'%%s' takes the expression past its compile-time budget of %d (calls cost 1, 4, "
             "8 or 16 by function, '/' and '%%%%' 2: see cured.h)", p->max_cost);
    fail(p, fmt, s, len);
}

static void parse_call(struct parser *p, const struct cr_expr_function *f, const char *name)
{
    costly(p, f->cost, name, strlen(f->name));
    next(p);
    expect(p, "(");
    int args = 0;
    if (!is(p, ")"))
        for (;;) {
            parse_expr(p);
            args++;
            if (!is(p, ","))
                break;
            next(p);
        }
    expect(p, ")");
    if (p->st == CURED_SUCCESS && args != f->args) {
        char msg[96];
        snprintf(msg, sizeof msg, "'%%s' takes %d argument%s, not %d", f->args, f->args == 1 ? "" : "s", args);
        fail(p, msg, name, strlen(f->name));
    }
}

static const struct cr_expr_function *function(const struct parser *p)
{
    for (size_t i = 0; i < cr_expr_nfunctions; i++)
        if (name_is(p, cr_expr_functions[i].name))
            return &cr_expr_functions[i];
    return NULL;
}

static void unknown_name(struct parser *p)
{
    char vars[128] = "", funcs[1400] = "";
    size_t vl = 0, fl = 0;
    for (size_t i = 0; i < p->nvars; i++)
        vl += (size_t)snprintf(vars + vl, sizeof vars - vl, "%s%s", i ? ", " : "", p->vars[i]);
    for (size_t i = 0; i < cr_expr_nfunctions && fl < sizeof funcs; i++)
        fl += (size_t)snprintf(funcs + fl, sizeof funcs - fl, "%s%s", i ? " " : "", cr_expr_functions[i].name);
    char fmt[1800];
    snprintf(fmt, sizeof fmt,
             "'%%s' is not allowed: an expression may name only %s%s; true and false; arithmetic types in "
             "casts ((float), (double), (int), (unsigned long long), ...); and the functions %s",
             p->nvars ? "the variables " : "no variable", vars, funcs);
    fail(p, fmt, p->e + p->pos, p->len);
}

static void parse_primary(struct parser *p)
{
    const char *s = p->e + p->pos;
    if (p->kind == T_NUM || name_is(p, "true") || name_is(p, "false")) {
        next(p);
        return;
    }
    if (is(p, "::")) {
        next(p);
        const struct cr_expr_function *f = p->kind == T_NAME ? function(p) : NULL;
        if (f == NULL) {
            fail(p, "'::' may only come before a function name (as in ::fabs(x))%s", NULL, 0);
            return;
        }
        parse_call(p, f, p->e + p->pos);
        return;
    }
    if (is(p, "(")) {
        next(p);
        parse_expr(p);
        expect(p, ")");
        return;
    }
    if (p->kind == T_NAME) {
        for (size_t i = 0; i < p->nvars; i++)
            if (name_is(p, p->vars[i])) {
                next(p);
                return;
            }
        const struct cr_expr_function *f = function(p);
        if (f != NULL) {
            parse_call(p, f, s);
            return;
        }
        if (type_word(p) >= 0) { /* a functional cast: one keyword, as in float(x) */
            next(p);
            if (type_word(p) >= 0) {
                fail(p, "a functional cast takes one type keyword ('%s' follows): write (type)(expr)", p->e + p->pos,
                     p->len);
                return;
            }
            expect(p, "(");
            parse_expr(p);
            expect(p, ")");
            return;
        }
        unknown_name(p);
        return;
    }
    if (p->kind == T_END)
        fail(p, "the expression ends where an operand is missing%s", NULL, 0);
    else
        fail(p, "'%s' where an operand is expected", s, p->len);
}

static int deeper(struct parser *p)
{
    if (++p->depth <= CR_MAX_EXPR_DEPTH)
        return 1;
    char fmt[96];
    snprintf(fmt, sizeof fmt, "nested more than %d levels deep%%s", CR_MAX_EXPR_DEPTH);
    fail(p, fmt, NULL, 0);
    return 0;
}

static void parse_unary(struct parser *p)
{
    if (p->st != CURED_SUCCESS)
        return;
    if (is(p, "+") || is(p, "-") || is(p, "!") || is(p, "~")) {
        next(p);
        if (deeper(p))
            parse_unary(p);
        p->depth--;
        return;
    }
    if (is(p, "(")) {
        /* A cast when a type keyword follows the parenthesis. */
        size_t pos = p->pos, len = p->len;
        next(p);
        if (p->st == CURED_SUCCESS && type_word(p) >= 0) {
            parse_type(p);
            expect(p, ")");
            if (deeper(p))
                parse_unary(p);
            p->depth--;
            return;
        }
        p->pos = pos;
        p->len = len;
        p->kind = T_PUNCT;
    }
    parse_primary(p);
}

/* Binary operators by precedence (higher binds tighter). */
static int binary_prec(const struct parser *p)
{
    static const struct {
        const char *op;
        int prec;
    } ops[] = {{"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},  {"==", 6}, {"!=", 6},
               {"<", 7},  {">", 7},  {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},
               {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10}};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (is(p, ops[i].op))
            return ops[i].prec;
    return 0;
}

static void parse_binary(struct parser *p, int min_prec)
{
    parse_unary(p);
    for (int prec; p->st == CURED_SUCCESS && (prec = binary_prec(p)) >= min_prec;) {
        if (is(p, "/") || is(p, "%"))
            costly(p, 2, p->e + p->pos, 1);
        next(p);
        parse_binary(p, prec + 1);
    }
}

static void parse_expr(struct parser *p)
{
    if (p->st != CURED_SUCCESS)
        return;
    if (deeper(p)) {
        parse_binary(p, 1);
        if (is(p, "?")) {
            next(p);
            parse_expr(p);
            expect(p, ":");
            parse_expr(p);
        }
    }
    p->depth--;
}

cured_status cr_expr_check(const char *what, const char *e, const char *const *vars, size_t nvars, int max_cost)
{
    int cost;
    return cr_expr_check_cost(what, e, vars, nvars, max_cost, &cost);
}

cured_status cr_expr_check_cost(const char *what, const char *e, const char *const *vars, size_t nvars, int max_cost,
                                int *cost)
{
    *cost = 0;
    if (e == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "%s is NULL", what);
    size_t n = strlen(e);
    if (n == 0 || n > CR_MAX_EXPR)
        return cr_fail(CURED_ERROR_INVALID_EXPRESSION, "%s must have 1 to %d characters (has %zu)", what, CR_MAX_EXPR,
                       n);
    struct parser p = {what, e, vars, nvars, 0, 0, T_END, 0, 0, max_cost, CURED_SUCCESS};
    next(&p);
    parse_expr(&p);
    if (p.st == CURED_SUCCESS && p.kind == T_NAME)
        fail(&p, "'%s' where an operator or the end is expected (the alternative tokens and, or, not, ... are "
                 "not accepted)", e + p.pos, p.len);
    if (p.st == CURED_SUCCESS && p.kind != T_END)
        fail(&p, is(&p, ")") ? "unbalanced ')'%s" : "'%s' where an operator or the end is expected", e + p.pos,
             is(&p, ")") ? 0 : p.len);
    *cost = p.cost;
    return p.st;
}
