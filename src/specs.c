/*
 * The built-in kernel specializations: one NVRTC program for each
 * (operator, algorithm, input type, result type) that cured offers. AUTO
 * offers every operator and type; the Handbook's other algorithms offer the
 * int32 sums of Table 12-1. Only the programs a process uses are compiled.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tclass { T_SIGNED, T_UNSIGNED, T_HALF, T_FLOAT };

static const struct tinfo {
    const char *name, *cxx;
    size_t size;
    enum tclass cls;
} types[CURED_TYPE_COUNT] = {
    [CURED_TYPE_INT32] = {"int32", "int", 4, T_SIGNED},
    [CURED_TYPE_INT64] = {"int64", "long long", 8, T_SIGNED},
    [CURED_TYPE_INT8] = {"int8", "signed char", 1, T_SIGNED},
    [CURED_TYPE_UINT8] = {"uint8", "unsigned char", 1, T_UNSIGNED},
    [CURED_TYPE_INT16] = {"int16", "short", 2, T_SIGNED},
    [CURED_TYPE_UINT16] = {"uint16", "unsigned short", 2, T_UNSIGNED},
    [CURED_TYPE_UINT32] = {"uint32", "unsigned int", 4, T_UNSIGNED},
    [CURED_TYPE_UINT64] = {"uint64", "unsigned long long", 8, T_UNSIGNED},
    [CURED_TYPE_FLOAT16] = {"float16", "half_t", 2, T_HALF},
    [CURED_TYPE_BFLOAT16] = {"bfloat16", "bf16_t", 2, T_HALF},
    [CURED_TYPE_FLOAT32] = {"float32", "float", 4, T_FLOAT},
    [CURED_TYPE_FLOAT64] = {"float64", "double", 8, T_FLOAT},
};

static const char *const op_names[CURED_OP_COUNT] = {
    "SUM", "PRODUCT", "MIN", "MAX", "MINMAX", "ARGMIN", "ARGMAX", "AND", "OR", "XOR",
    "SUM_SQUARES", "SUM_ABS", "NORM2", "DOT", "NANMIN", "NANMAX", "NANARGMIN", "NANARGMAX"};


/* Functor template of each operator in kernels-src/ops.cuh. */
static const char *const op_functors[CURED_OP_COUNT] = {
    "Sum", "Prod", "Min", "Max", "MinMax", "ArgMin", "ArgMax", "BitAnd", "BitOr", "BitXor",
    "SumSquares", "SumAbs", "Norm2", "Dot", "NanMin", "NanMax", "NanArgMin", "NanArgMax"};

static const char *const algo_labels[CURED_ALGO_COUNT] = {
    "auto", "two_pass_shared", "two_pass_shuffle", "two_pass_cg", "single_pass_ticket",
    "single_pass_atomic", "listing_12_4"};

size_t cr_type_size(cured_type t)
{
    return (unsigned)t < CURED_TYPE_COUNT ? types[t].size : 0;
}

const char *cr_type_name(cured_type t)
{
    return (unsigned)t < CURED_TYPE_COUNT ? types[t].name : "unknown";
}

CR_API const char *cured_type_name(cured_type type)
{
    return cr_type_name(type);
}

CR_API const char *cured_op_name(cured_op op)
{
    return (unsigned)op < CURED_OP_COUNT ? op_names[op] : "UNKNOWN";
}

const char *cr_type_cxx(cured_type t)
{
    return types[t].cxx;
}

int cr_type_is_float(cured_type t)
{
    return types[t].cls == T_HALF || types[t].cls == T_FLOAT;
}

/* The value type that min/max/arg operators compare in. */
static const char *value_cxx(cured_type t)
{
    switch (types[t].cls) {
    case T_SIGNED: return types[t].size == 8 ? "long long" : "int";
    case T_UNSIGNED: return types[t].size == 8 ? "unsigned long long" : "unsigned int";
    case T_HALF: return "float";
    case T_FLOAT: return types[t].cxx;
    }
    return NULL;
}

/* The integer key type that ARG operators compare in (kernels-src/ops.cuh). */
static const char *key_cxx(cured_type t)
{
    if (types[t].cls == T_HALF || t == CURED_TYPE_FLOAT32)
        return "int";
    return t == CURED_TYPE_FLOAT64 ? "long long" : value_cxx(t);
}

static int is_sum_like(cured_op op)
{
    return op == CURED_OP_SUM || op == CURED_OP_PRODUCT || op == CURED_OP_SUM_SQUARES ||
           op == CURED_OP_SUM_ABS || op == CURED_OP_DOT;
}

/*
 * The accumulator for (op, in, out), or NULL if that result type is not
 * offered. The first result type accepted for each (op, in) is the default.
 */
static const char *accumulator(cured_op op, cured_type in, cured_type out, int *acc_size)
{
    const struct tinfo *ti = &types[in];
    *acc_size = 0;
    if (is_sum_like(op)) {
        switch (ti->cls) {
        case T_SIGNED:
            if (out == CURED_TYPE_INT64)
                return *acc_size = 8, "long long";
            if (out == CURED_TYPE_INT32 || out == in)
                return ti->size == 8 ? (*acc_size = 8, "long long") : (*acc_size = 4, "int");
            return NULL;
        case T_UNSIGNED:
            if (out == CURED_TYPE_UINT64)
                return *acc_size = 8, "unsigned long long";
            if (out == CURED_TYPE_UINT32 || out == in)
                return ti->size == 8 ? (*acc_size = 8, "unsigned long long") : (*acc_size = 4, "unsigned int");
            return NULL;
        case T_HALF:
            return out == CURED_TYPE_FLOAT32 || out == in ? (*acc_size = 4, "float") : NULL;
        case T_FLOAT:
            if (out == CURED_TYPE_FLOAT32 && in == CURED_TYPE_FLOAT32)
                return *acc_size = 4, "float";
            return out == CURED_TYPE_FLOAT64 ? (*acc_size = 8, "double") : NULL;
        }
        return NULL;
    }
    if (op == CURED_OP_NORM2) {
        if (out == CURED_TYPE_FLOAT32 && (ti->cls == T_HALF || in == CURED_TYPE_FLOAT32))
            return *acc_size = 4, "float";
        if (out == CURED_TYPE_FLOAT64 && (ti->cls != T_HALF))
            return *acc_size = 8, "double";
        return NULL;
    }
    if (out != in)
        return NULL;
    int is_nan_op = op == CURED_OP_NANMIN || op == CURED_OP_NANMAX || op == CURED_OP_NANARGMIN ||
                    op == CURED_OP_NANARGMAX;
    if (is_nan_op && ti->cls != T_HALF && ti->cls != T_FLOAT)
        return NULL;
    const char *v = value_cxx(in);
    int vsize = strcmp(v, "int") == 0 || strcmp(v, "unsigned int") == 0 || strcmp(v, "float") == 0 ? 4 : 8;
    switch (op) {
    case CURED_OP_AND:
    case CURED_OP_OR:
    case CURED_OP_XOR:
        if (ti->cls != T_SIGNED && ti->cls != T_UNSIGNED)
            return NULL;
        return ti->size == 8 ? (*acc_size = 8, "unsigned long long") : (*acc_size = 4, "unsigned int");
    case CURED_OP_MIN:
    case CURED_OP_MAX:
    case CURED_OP_NANMIN:
    case CURED_OP_NANMAX:
        *acc_size = vsize;
        return v;
    case CURED_OP_MINMAX:
        *acc_size = 2 * vsize;
        return "Pair";
    case CURED_OP_ARGMIN:
    case CURED_OP_ARGMAX:
    case CURED_OP_NANARGMIN:
    case CURED_OP_NANARGMAX:
        *acc_size = 16;
        return "Arg";
    default:
        return NULL;
    }
}

static int result_size(cured_op op, cured_type out)
{
    if (op == CURED_OP_MINMAX)
        return 2 * (int)types[out].size;
    if (op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX || op == CURED_OP_NANARGMIN ||
        op == CURED_OP_NANARGMAX)
        return 16;
    return (int)types[out].size;
}

static struct cr_program *programs;
static size_t nprograms;
static short lookup[CURED_ALGO_COUNT][CURED_OP_COUNT][CURED_TYPE_COUNT][CURED_TYPE_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void add(cured_op op, cured_algorithm algo, cured_type in, cured_type out, size_t *cap)
{
    int acc_size;
    const char *acc = accumulator(op, in, out, &acc_size);
    if (acc == NULL)
        return;
    if (nprograms == *cap) {
        struct cr_program *grown = realloc(programs, (*cap = *cap ? 2 * *cap : 256) * sizeof *grown);
        if (grown == NULL)
            return; /* the specialization is then simply not offered */
        programs = grown;
    }
    struct cr_program *p = &programs[nprograms];
    memset(p, 0, sizeof *p);
    const char *t = types[in].cxx, *r = types[out].cxx, *f = op_functors[op];
    char a[40];
    const char *v = strcmp(acc, "Arg") == 0 ? key_cxx(in) : value_cxx(in);
    if (strcmp(acc, "Pair") == 0 || strcmp(acc, "Arg") == 0)
        snprintf(a, sizeof a, "%s<%s>", acc, v);
    else
        snprintf(a, sizeof a, "%s", acc);
    /* Functors take <element, accumulator (or the value or key type of a Pair or Arg), result>. */
    const char *fa = strcmp(acc, "Pair") == 0 || strcmp(acc, "Arg") == 0 ? v : a;
    p->op = op;
    p->algo = algo;
    p->in = in;
    p->out = out;
    p->acc_size = acc_size;
    p->result_size = result_size(op, out);
    p->nkernels = 1;
    switch (algo) {
    case CURED_ALGO_AUTO:
        p->file = "fast.cu";
        p->unroll = types[in].cls == T_HALF && strcmp(acc, "Arg") == 0 ? CR_UNROLL_ARG16 : CR_UNROLL;
        p->kind = op == CURED_OP_DOT ? CR_KIND_FAST2 : CR_KIND_FAST;
        snprintf(p->kernels[0], sizeof p->kernels[0], "%s<%s, %s, %s<%s, %s, %s>, %d, %d>",
                 op == CURED_OP_DOT ? "reduce_fast2" : "reduce_fast", t, a, f, t, fa, r, CR_BLOCK,
                 p->unroll);
        break;
    case CURED_ALGO_TWO_PASS_SHARED:
    case CURED_ALGO_TWO_PASS_SHUFFLE:
    case CURED_ALGO_TWO_PASS_CG: {
        static const char *const names[] = {"", "reduce_pass_shared", "reduce_pass_shuffle", "reduce_pass_cg"};
        p->file = algo == CURED_ALGO_TWO_PASS_CG ? "two_pass_cg.cu" : "two_pass.cu";
        p->kind = CR_KIND_TWO_PASS;
        p->nkernels = 2;
        snprintf(p->kernels[0], sizeof p->kernels[0], "%s<%s, %s, %d, Sum<%s, %s, %s> >", names[algo], t, a,
                 CR_BLOCK, t, a, a);
        snprintf(p->kernels[1], sizeof p->kernels[1], "%s<%s, %s, %d, Sum<%s, %s, %s> >", names[algo], a, a,
                 CR_BLOCK, a, a, a);
        break;
    }
    case CURED_ALGO_SINGLE_PASS_TICKET:
    case CURED_ALGO_SINGLE_PASS_ATOMIC:
        p->file = "single_pass.cu";
        p->kind = algo == CURED_ALGO_SINGLE_PASS_TICKET ? CR_KIND_TICKET : CR_KIND_ATOMIC;
        snprintf(p->kernels[0], sizeof p->kernels[0], "%s<%s, %s, %d, Sum<%s, %s, %s> >",
                 algo == CURED_ALGO_SINGLE_PASS_TICKET ? "reduce_ticket" : "reduce_atomic", t, a, CR_BLOCK,
                 t, a, a);
        break;
    case CURED_ALGO_LISTING_12_4:
        p->file = "listing_12_4.cu";
        p->kind = CR_KIND_LISTING;
        snprintf(p->kernels[0], sizeof p->kernels[0], "reduce_listing_12_4<%s, %s, %d, Sum<%s, %s, %s> >", t,
                 a, CR_BLOCK, t, a, a);
        break;
    }
    p->needs_toolkit = algo == CURED_ALGO_TWO_PASS_CG || algo == CURED_ALGO_LISTING_12_4;
    snprintf(p->label, sizeof p->label, "%s %s %s->%s (kernels-src/%s)", algo_labels[algo], op_names[op],
             types[in].name, types[out].name, p->file);
    lookup[algo][op][in][out] = (short)nprograms++;
}

static void build(void)
{
    size_t cap = 0;
    memset(lookup, 0xff, sizeof lookup); /* -1 everywhere */
    /* Table 12-1 first: every algorithm for the int32 sums. */
    for (int a = 0; a < CURED_ALGO_COUNT; a++) {
        add(CURED_OP_SUM, (cured_algorithm)a, CURED_TYPE_INT32, CURED_TYPE_INT32, &cap);
        add(CURED_OP_SUM, (cured_algorithm)a, CURED_TYPE_INT32, CURED_TYPE_INT64, &cap);
    }
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++)
                if (lookup[CURED_ALGO_AUTO][op][in][out] < 0)
                    add((cured_op)op, CURED_ALGO_AUTO, (cured_type)in, (cured_type)out, &cap);
}

int cr_spec_index(cured_op op, cured_algorithm algo, cured_type in, cured_type out, cured_status *why)
{
    pthread_once(&once, build);
    int i = lookup[algo][op][in][out];
    if (i >= 0)
        return i;
    if (lookup[CURED_ALGO_AUTO][op][in][out] >= 0)
        *why = cr_fail(CURED_ERROR_NOT_SUPPORTED,
                       "algorithm %s offers only int32 sums (Table 12-1); use CURED_ALGO_AUTO for %s %s->%s",
                       algo_labels[algo], op_names[op], types[in].name, types[out].name);
    else
        *why = cr_fail(CURED_ERROR_TYPE_MISMATCH, "%s of %s with a %s result is not offered (see cured_op)",
                       op_names[op], types[in].name, types[out].name);
    return -1;
}

const struct cr_program *cr_spec(size_t index)
{
    pthread_once(&once, build);
    return index < nprograms ? &programs[index] : NULL;
}

size_t cr_spec_count(void)
{
    pthread_once(&once, build);
    return nprograms;
}

CR_API size_t cured_kernel_count(void)
{
    return cr_spec_count();
}

CR_API const char *cured_kernel_name(size_t index)
{
    const struct cr_program *p = cr_spec(index);
    return p ? p->label : NULL;
}

CR_API size_t cured_type_size(cured_type type)
{
    return cr_type_size(type);
}

CR_API cured_status cured_default_result(cured_op op, cured_type in, cured_type *out)
{
    if ((unsigned)op >= CURED_OP_COUNT || (unsigned)in >= CURED_TYPE_COUNT)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown operator %d or type %d", (int)op, (int)in);
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_default_result: out_type is NULL");
    /* Preference order: the widest exact result first (NumPy's rule). */
    static const cured_type prefs[] = {CURED_TYPE_INT64, CURED_TYPE_UINT64, CURED_TYPE_FLOAT32,
                                       CURED_TYPE_FLOAT64};
    int size;
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++)
        if (accumulator(op, in, prefs[i], &size)) {
            *out = prefs[i];
            return CURED_SUCCESS;
        }
    if (accumulator(op, in, in, &size)) {
        *out = in;
        return CURED_SUCCESS;
    }
    return cr_fail(CURED_ERROR_TYPE_MISMATCH, "%s does not take %s", op_names[op], types[in].name);
}
