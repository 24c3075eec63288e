/* Host references of the soak test (the tests' oracle, tests/oracle.h, for the built-in operators); see soak.h. */
#include "soak.h"
#include "halfbits.h"
#include "oracle.h"

#include <math.h>
#include <string.h>

const struct soak_user_op soak_user_ops[USER_COUNT] = {
    [USER_SUMSQ16] = {"sum of squares int16->int64", CURED_TYPE_INT16, CURED_TYPE_INT64, 1, "(long long)x * x", "a+b",
                      "0"},
    [USER_MAXABS32] = {"max-abs float32", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "fabs(x)", "fmax(a,b)", "0"},
    [USER_DOT64] = {"dot float64", CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64, 2, "x*y", "a+b", "0"},
};

uint64_t soak_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x ? x : 0x9e3779b97f4a7c15ull;
    return x * 0x2545f4914f6cdd1dull;
}

enum soak_family soak_family(cured_type t)
{
    switch (t) {
    case CURED_TYPE_FLOAT32: return FAM_F32;
    case CURED_TYPE_FLOAT64: return FAM_F64;
    case CURED_TYPE_FLOAT16: return FAM_F16;
    case CURED_TYPE_BFLOAT16: return FAM_BF16;
    default: return FAM_INT;
    }
}

void soak_fill(enum soak_family f, unsigned char *region, size_t bytes, uint64_t seed)
{
    uint64_t s = seed | 1;
    for (size_t i = 0; f == FAM_INT && i + 8 <= bytes; i += 8) {
        uint64_t v = soak_rand(&s);
        memcpy(region + i, &v, 8);
    }
    static const size_t size[FAM_COUNT] = {1, 4, 8, 2, 2};
    for (size_t i = 0; f != FAM_INT && i + size[f] <= bytes; i += size[f]) {
        float v = (float)((int)(soak_rand(&s) % 7) - 3) / 64.0f; /* k/64, |k| <= 3, never -0 */
        double d = v;
        uint16_t h = f == FAM_F16 ? float_to_half(v) : float_to_bf16(v);
        memcpy(region + i, f == FAM_F32 ? (const void *)&v : f == FAM_F64 ? (const void *)&d : (const void *)&h,
               size[f]);
    }
}

/* Element i as an integer modulo 2^64 or as a double, and the value v stored as type t. */
static void put(cured_type t, unsigned char *p, double f, uint64_t u)
{
    if (ref_is_float(t))
        ref_put_f(t, p, 0, f);
    else
        ref_put_u(t, p, 0, u);
}

static int user_ref(int user, const void *x, const void *y, size_t n, unsigned char want[16], size_t *compare)
{
    const struct soak_user_op *u = &soak_user_ops[user];
    uint64_t sum = 0;
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (user == USER_SUMSQ16) {
            uint64_t v = ref_get_u(u->in, x, i);
            sum += v * v;
        } else if (user == USER_MAXABS32) {
            acc = fmax(acc, fabs(ref_get_f(u->in, x, i)));
        } else {
            acc += ref_get_f(u->in, x, i) * ref_get_f(u->in, y, i);
        }
    }
    put(u->acc, want, acc, sum);
    *compare = cured_type_size(u->acc);
    return 0;
}

int soak_ref(int user, cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
             unsigned char want[16], size_t *compare)
{
    memset(want, 0, 16);
    if (user >= 0)
        return user_ref(user, x, y, n, want, compare);
    const int fl = ref_is_float(in);
    if (fl && n > SOAK_MAX_EXACT && (op == CURED_OP_SUM || op == CURED_OP_SUM_ABS || op == CURED_OP_DOT))
        return -1;
    /* Products of k/64 are multiples of 2^-12: a float sum of more than 2^18 may round. */
    if (fl && op == CURED_OP_DOT && out != CURED_TYPE_FLOAT64 && n > ((size_t)1 << 18))
        return -1;
    if (ref_op(op) == NULL)
        return -1;
    /* The soak's data make every result it asks for exact (soak.h): the oracle's value, rounded once. */
    struct ref_result r;
    ref_reduce(op, in, out, x, y, n, 1, &r);
    if (r.status != CURED_SUCCESS || r.tol != 0)
        return -1;
    if (r.is_arg) {
        memcpy(want, &r.index, 8);
        ref_put_u(in, want + 8, 0, r.arg_bits);
        *compare = 8 + cured_type_size(in);
        return 0;
    }
    for (int k = 0; k < r.nvalues; k++) {
        if (ref_is_float(out))
            ref_put_f(out, want, (size_t)k, r.v[k].is_nan ? NAN : (double)r.v[k].f);
        else
            ref_put_u(out, want, (size_t)k, r.v[k].u);
    }
    *compare = (size_t)r.nvalues * cured_type_size(out);
    return 0;
}
