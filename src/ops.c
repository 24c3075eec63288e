/*
 * The operator table: one row per operator, and the rules that give its
 * accumulator and result from the element and result types. Everything that
 * asks about an operator (argument checks, kernel names, result layout,
 * empty and all-NaN inputs) asks here.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

static const struct cr_op_info ops[CURED_OP_COUNT] = {
    /* name          functor in ops.cuh  result rule      layout            flags */
    [CURED_OP_SUM] = {"SUM", "Sum", CR_RULE_SUM, CR_LAYOUT_VALUE, CR_OP_HANDBOOK},
    [CURED_OP_PRODUCT] = {"PRODUCT", "Prod", CR_RULE_SUM, CR_LAYOUT_VALUE, 0},
    [CURED_OP_MIN] = {"MIN", "Min", CR_RULE_SAME, CR_LAYOUT_VALUE, 0},
    [CURED_OP_MAX] = {"MAX", "Max", CR_RULE_SAME, CR_LAYOUT_VALUE, 0},
    [CURED_OP_MINMAX] = {"MINMAX", "MinMax", CR_RULE_SAME, CR_LAYOUT_PAIR, CR_OP_NO_EMPTY},
    [CURED_OP_ARGMIN] = {"ARGMIN", "ArgMin", CR_RULE_SAME, CR_LAYOUT_ARG, CR_OP_NO_EMPTY},
    [CURED_OP_ARGMAX] = {"ARGMAX", "ArgMax", CR_RULE_SAME, CR_LAYOUT_ARG, CR_OP_NO_EMPTY},
    [CURED_OP_AND] = {"AND", "BitAnd", CR_RULE_BITWISE, CR_LAYOUT_VALUE, 0},
    [CURED_OP_OR] = {"OR", "BitOr", CR_RULE_BITWISE, CR_LAYOUT_VALUE, 0},
    [CURED_OP_XOR] = {"XOR", "BitXor", CR_RULE_BITWISE, CR_LAYOUT_VALUE, 0},
    [CURED_OP_SUM_SQUARES] = {"SUM_SQUARES", "SumSquares", CR_RULE_SUM, CR_LAYOUT_VALUE, 0},
    [CURED_OP_SUM_ABS] = {"SUM_ABS", "SumAbs", CR_RULE_SUM, CR_LAYOUT_VALUE, 0},
    [CURED_OP_NORM2] = {"NORM2", "Norm2", CR_RULE_NORM, CR_LAYOUT_VALUE, 0},
    [CURED_OP_DOT] = {"DOT", "Dot", CR_RULE_SUM, CR_LAYOUT_VALUE, CR_OP_TWO_INPUTS},
    [CURED_OP_NANMIN] = {"NANMIN", "NanMin", CR_RULE_SAME, CR_LAYOUT_VALUE, CR_OP_IGNORES_NAN},
    [CURED_OP_NANMAX] = {"NANMAX", "NanMax", CR_RULE_SAME, CR_LAYOUT_VALUE, CR_OP_IGNORES_NAN},
    [CURED_OP_NANARGMIN] = {"NANARGMIN", "NanArgMin", CR_RULE_SAME, CR_LAYOUT_ARG, CR_OP_IGNORES_NAN | CR_OP_NO_EMPTY},
    [CURED_OP_NANARGMAX] = {"NANARGMAX", "NanArgMax", CR_RULE_SAME, CR_LAYOUT_ARG, CR_OP_IGNORES_NAN | CR_OP_NO_EMPTY},
    [CURED_OP_COUNT_NONZERO] = {"COUNT_NONZERO", "CountNonzero", CR_RULE_COUNT, CR_LAYOUT_VALUE, 0},
    /* statistics (kernels-src/stats.cuh); the last field: bytes of their state */
    [CURED_OP_MEAN] = {"MEAN", "Mean", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS | CR_OP_DOF, 32},
    [CURED_OP_VAR] = {"VAR", "Var", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS | CR_OP_DOF, 32},
    [CURED_OP_STD] = {"STD", "Std", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS | CR_OP_DOF, 32},
    [CURED_OP_MEAN_VAR] = {"MEAN_VAR", "MeanVar", CR_RULE_STATS, CR_LAYOUT_PAIR, CR_OP_STATS | CR_OP_DOF, 32},
    [CURED_OP_LOGSUMEXP] = {"LOGSUMEXP", "LogSumExp", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS, 16},
    /* NaN elements skipped: the base operator's rules, the last field (functors: ops.cuh's SkipNaN, stats.cuh's MV_SKIP) */
    [CURED_OP_NANSUM] = {"NANSUM", "NanSum", CR_RULE_SUM, CR_LAYOUT_VALUE, CR_OP_SKIPS_NAN, 0, CURED_OP_SUM},
    [CURED_OP_NANMEAN] = {"NANMEAN", "NanMean", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS | CR_OP_DOF | CR_OP_SKIPS_NAN, 32, CURED_OP_MEAN},
    [CURED_OP_NANVAR] = {"NANVAR", "NanVar", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS | CR_OP_DOF | CR_OP_SKIPS_NAN, 32, CURED_OP_VAR},
    [CURED_OP_NANSTD] = {"NANSTD", "NanStd", CR_RULE_STATS, CR_LAYOUT_VALUE, CR_OP_STATS | CR_OP_DOF | CR_OP_SKIPS_NAN, 32, CURED_OP_STD},
    /* exact sums (the exact family, kernels-src/exact.cu): the base names the operator they round correctly */
    [CURED_OP_EXACT_SUM] = {"EXACT_SUM", "ExactSum", CR_RULE_EXACT, CR_LAYOUT_VALUE, CR_OP_EXACT, 0, CURED_OP_SUM},
    [CURED_OP_EXACT_MEAN] = {"EXACT_MEAN", "ExactMean", CR_RULE_EXACT, CR_LAYOUT_VALUE, CR_OP_EXACT | CR_OP_DOF, 0, CURED_OP_MEAN},
    [CURED_OP_EXACT_SUM_SQUARES] = {"EXACT_SUM_SQUARES", "ExactSumSquares", CR_RULE_EXACT, CR_LAYOUT_VALUE, CR_OP_EXACT, 0, CURED_OP_SUM_SQUARES},
    [CURED_OP_EXACT_NORM2] = {"EXACT_NORM2", "ExactNorm2", CR_RULE_EXACT, CR_LAYOUT_VALUE, CR_OP_EXACT, 0, CURED_OP_NORM2},
    [CURED_OP_EXACT_DOT] = {"EXACT_DOT", "ExactDot", CR_RULE_EXACT, CR_LAYOUT_VALUE, CR_OP_EXACT | CR_OP_TWO_INPUTS, 0, CURED_OP_DOT},
};

const struct cr_op_info *cr_op(cured_op op)
{
    return (unsigned)op < CURED_OP_COUNT ? &ops[op] : NULL;
}

cured_op cr_op_base(cured_op op)
{
    const struct cr_op_info *o = cr_op(op);
    return o != NULL && (o->flags & (CR_OP_SKIPS_NAN | CR_OP_EXACT)) ? o->base : op;
}

cured_op cr_op_for_type(cured_op op, cured_type in)
{
    const struct cr_type_info *ti = cr_type(in);
    const struct cr_op_info *o = cr_op(op);
    return ti != NULL && o != NULL && (o->flags & CR_OP_SKIPS_NAN) && (ti->cls == CR_SIGNED || ti->cls == CR_UNSIGNED)
               ? o->base
               : op;
}

CR_API const char *cured_op_name(cured_op op)
{
    return (unsigned)op < CURED_OP_COUNT ? ops[op].name : "UNKNOWN";
}

/* The type that MIN/MAX compare in: integers in 32 or 64 bits, halves in float. */
static cured_type value_type(cured_type t)
{
    const struct cr_type_info *ti = cr_type(t);
    switch (ti->cls) {
    case CR_SIGNED: return ti->size == 8 ? CURED_TYPE_INT64 : CURED_TYPE_INT32;
    case CR_UNSIGNED: return ti->size == 8 ? CURED_TYPE_UINT64 : CURED_TYPE_UINT32;
    case CR_HALF: return CURED_TYPE_FLOAT32;
    case CR_FLOAT: return t;
    }
    return t;
}

/* The integer key type that ARG operators compare in (kernels-src/keys.cuh). */
static cured_type key_type(cured_type t)
{
    if (cr_type(t)->cls == CR_HALF || t == CURED_TYPE_FLOAT32)
        return CURED_TYPE_INT32;
    return t == CURED_TYPE_FLOAT64 ? CURED_TYPE_INT64 : value_type(t);
}

/* Sum-like results: see cured_op in cured.h. The accumulator type, or -1. */
static int sum_accumulator(cured_type in, cured_type out)
{
    const struct cr_type_info *ti = cr_type(in);
    switch (ti->cls) {
    case CR_SIGNED:
        if (out == CURED_TYPE_INT64)
            return CURED_TYPE_INT64;
        if (out == CURED_TYPE_INT32 || out == in)
            return ti->size == 8 ? CURED_TYPE_INT64 : CURED_TYPE_INT32;
        return -1;
    case CR_UNSIGNED:
        if (out == CURED_TYPE_UINT64)
            return CURED_TYPE_UINT64;
        if (out == CURED_TYPE_UINT32 || out == in)
            return ti->size == 8 ? CURED_TYPE_UINT64 : CURED_TYPE_UINT32;
        return -1;
    case CR_HALF:
        return out == CURED_TYPE_FLOAT32 || out == in ? CURED_TYPE_FLOAT32 : -1;
    case CR_FLOAT:
        if (out == CURED_TYPE_FLOAT32 && in == CURED_TYPE_FLOAT32)
            return CURED_TYPE_FLOAT32;
        return out == CURED_TYPE_FLOAT64 ? CURED_TYPE_FLOAT64 : -1;
    }
    return -1;
}

int cr_op_accumulator(cured_op op, cured_type in, cured_type out, struct cr_acc *acc)
{
    const struct cr_op_info *o = cr_op(op);
    const struct cr_type_info *ti = cr_type(in);
    if (o == NULL || ti == NULL || cr_type(out) == NULL)
        return 0;
    int is_int = ti->cls == CR_SIGNED || ti->cls == CR_UNSIGNED;
    int a = -1;
    switch (o->rule) {
    case CR_RULE_SUM:
        a = sum_accumulator(in, out);
        break;
    case CR_RULE_NORM:
        if (out == CURED_TYPE_FLOAT32 && (ti->cls == CR_HALF || in == CURED_TYPE_FLOAT32))
            a = CURED_TYPE_FLOAT32;
        else if (out == CURED_TYPE_FLOAT64 && ti->cls != CR_HALF)
            a = CURED_TYPE_FLOAT64;
        break;
    case CR_RULE_SAME:
        if (out == in && (!(o->flags & CR_OP_IGNORES_NAN) || !is_int))
            a = o->layout == CR_LAYOUT_ARG ? key_type(in) : value_type(in);
        break;
    case CR_RULE_BITWISE:
        if (out == in && is_int)
            a = ti->size == 8 ? CURED_TYPE_UINT64 : CURED_TYPE_UINT32;
        break;
    case CR_RULE_COUNT:
        if (out == CURED_TYPE_INT64)
            a = CURED_TYPE_INT64;
        break;
    case CR_RULE_EXACT: /* float elements, into their own type or a wider float */
        if ((ti->cls == CR_HALF && (out == in || out == CURED_TYPE_FLOAT32)) ||
            (!is_int && out == CURED_TYPE_FLOAT64) || (in == CURED_TYPE_FLOAT32 && out == in))
            a = out;
        break;
    case CR_RULE_STATS: /* the scalar is the precision of LOGSUMEXP's exponentials */
        if (out == CURED_TYPE_FLOAT64 || (out == CURED_TYPE_FLOAT32 && (ti->cls == CR_HALF || in == CURED_TYPE_FLOAT32)))
            a = out;
        break;
    }
    if (a < 0)
        return 0;
    if (acc != NULL) {
        acc->scalar = (cured_type)a;
        acc->layout = o->layout;
        size_t s = cr_type_size(acc->scalar), r = cr_type_size(out);
        switch (o->layout) {
        case CR_LAYOUT_VALUE: acc->size = s; acc->align = s; acc->result_size = r; acc->result_align = r; break;
        case CR_LAYOUT_PAIR: acc->size = 2 * s; acc->align = s; acc->result_size = 2 * r; acc->result_align = r; break;
        case CR_LAYOUT_ARG: acc->size = 16; acc->align = 8; acc->result_size = 16; acc->result_align = 8; break;
        }
        if (o->state) {
            acc->size = o->state;
            acc->align = 8;
        }
    }
    return 1;
}

/* Does the result r (host bytes) of a NaN-ignoring operator say every element was NaN? */
static int all_nan(cured_op op, cured_type out, const void *r)
{
    const struct cr_op_info *o = cr_op(op);
    if (o == NULL || !(o->flags & CR_OP_IGNORES_NAN))
        return 0;
    if (o->layout == CR_LAYOUT_ARG) {
        int64_t index;
        memcpy(&index, r, sizeof index);
        return index < 0;
    }
    switch (out) {
    case CURED_TYPE_FLOAT32: { float f; memcpy(&f, r, 4); return isnan(f); }
    case CURED_TYPE_FLOAT64: { double d; memcpy(&d, r, 8); return isnan(d); }
    case CURED_TYPE_FLOAT16: { uint16_t b; memcpy(&b, r, 2); return (b & 0x7c00) == 0x7c00 && (b & 0x3ff); }
    case CURED_TYPE_BFLOAT16: { uint16_t b; memcpy(&b, r, 2); return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }
    default: return 0;
    }
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
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++)
        if (cr_op_accumulator(op, in, prefs[i], NULL)) {
            *out = prefs[i];
            return CURED_SUCCESS;
        }
    if (cr_op_accumulator(op, in, in, NULL)) {
        *out = in;
        return CURED_SUCCESS;
    }
    return cr_fail(CURED_ERROR_TYPE_MISMATCH, "%s does not take %s", ops[op].name, cr_type_name(in));
}

struct cr_traits cr_request_traits(const struct cr_request *r)
{
    struct cr_traits t = {0, 0, 0};
    if (r->user != NULL) /* a user's state: no vector steps (packed.cuh), no folding, rows by the generic loop */
        return t;
    const struct cr_op_info *o = cr_op(r->op);
    /* The statistics pack rows of one vector at most: their VecStep makes a vector one state, and rows of several
     * vectors would take a float64 merge a vector where the row kernel's shifted sums are cheaper. */
    t.packed_max = (o->flags & CR_OP_STATS) ? 16 : 64;
    /* A statistic's block-level merge (float64 Chan steps) and ARG's (value, index, the winner read back) are dear
     * next to a warp's. */
    t.row_warp_waves = (o->flags & CR_OP_STATS) ? 4 : o->layout == CR_LAYOUT_ARG ? 2 : 0;
    /* Folding joins lanes of rows in any order and grouping: not ARG (its index is the row), not the statistics'
     * states or DOT's pairs, and only accumulators of 8 bytes at most (reduce_cols' fold code). */
    t.foldable = o->layout != CR_LAYOUT_ARG && !(o->flags & (CR_OP_STATS | CR_OP_TWO_INPUTS)) && r->acc.size <= 8;
    return t;
}

CR_API int cured_result_offered(cured_op op, cured_type in, cured_type out)
{
    return cr_op_accumulator(op, in, out, NULL);
}

CR_API size_t cured_result_size(cured_op op, cured_type out)
{
    const struct cr_op_info *o = cr_op(op);
    const size_t s = cr_type_size(out);
    if (o == NULL || s == 0)
        return 0;
    return o->layout == CR_LAYOUT_ARG ? sizeof(cured_arg_result) : o->layout == CR_LAYOUT_PAIR ? 2 * s : s;
}

/* The NaN that the NaN-skipping statistics write where too few elements are left (stats.cuh's
 * stats_too_few): its payload tells it from the NaN of an infinite input. */
static int too_few(cured_op op, cured_type out, const void *r)
{
    const struct cr_op_info *o = cr_op(op);
    if (o == NULL || (o->flags & (CR_OP_SKIPS_NAN | CR_OP_STATS)) != (CR_OP_SKIPS_NAN | CR_OP_STATS))
        return 0;
    if (out == CURED_TYPE_FLOAT32) {
        uint32_t b;
        memcpy(&b, r, 4);
        return b == CR_TOO_FEW_F32;
    }
    uint64_t b;
    memcpy(&b, r, 8);
    return out == CURED_TYPE_FLOAT64 && b == CR_TOO_FEW_F64;
}

cured_status cr_op_result_status(cured_op op, cured_type out, const void *result)
{
    if (all_nan(op, out, result))
        return cr_fail(CURED_ERROR_ALL_NAN, "every element is NaN, and the operator ignores NaNs");
    if (too_few(op, out, result))
        return cr_fail(CURED_ERROR_TOO_FEW_ELEMENTS,
                       "CURED_OP_%s: too few elements that are not NaN (none for NANMEAN, at most ddof otherwise)",
                       cr_op(op)->name);
    return CURED_SUCCESS;
}
