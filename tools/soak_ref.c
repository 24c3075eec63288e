/* Host references of the soak test; see soak.h. */
#include "soak.h"
#include "halfbits.h"

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

static int is_float(cured_type t)
{
    return soak_family(t) != FAM_INT;
}

static int is_signed(cured_type t)
{
    return t == CURED_TYPE_INT8 || t == CURED_TYPE_INT16 || t == CURED_TYPE_INT32 || t == CURED_TYPE_INT64;
}

/* Element i as an integer modulo 2^64 (signed ones sign-extended) or as a double (exact). */
static uint64_t get_u(cured_type t, const void *buf, size_t i)
{
    size_t size = cured_type_size(t);
    uint64_t v = 0;
    memcpy(&v, (const unsigned char *)buf + i * size, size); /* little-endian */
    if (is_signed(t) && size < 8 && (v >> (8 * size - 1)) & 1)
        v |= ~0ull << (8 * size);
    return v;
}

static double get_f(cured_type t, const void *buf, size_t i)
{
    const unsigned char *p = (const unsigned char *)buf + i * cured_type_size(t);
    float f;
    double d;
    uint16_t h;
    switch (t) {
    case CURED_TYPE_FLOAT32: memcpy(&f, p, 4); return f;
    case CURED_TYPE_FLOAT64: memcpy(&d, p, 8); return d;
    case CURED_TYPE_FLOAT16: memcpy(&h, p, 2); return half_to_float(h);
    default: memcpy(&h, p, 2); return bf16_to_float(h);
    }
}

/* Store v (exact for the soak's data) as type t. */
static void put(cured_type t, unsigned char *p, double f, uint64_t u)
{
    float x = (float)f;
    uint16_t h = t == CURED_TYPE_FLOAT16 ? float_to_half(x) : float_to_bf16(x);
    if (!is_float(t))
        memcpy(p, &u, cured_type_size(t));
    else if (t == CURED_TYPE_FLOAT32)
        memcpy(p, &x, 4);
    else if (t == CURED_TYPE_FLOAT64)
        memcpy(p, &f, 8);
    else
        memcpy(p, &h, 2);
}

static int less(cured_type t, const void *x, size_t i, size_t j)
{
    if (is_float(t))
        return get_f(t, x, i) < get_f(t, x, j);
    uint64_t a = get_u(t, x, i), b = get_u(t, x, j);
    return is_signed(t) ? (int64_t)a < (int64_t)b : a < b;
}

static int user_ref(int user, const void *x, const void *y, size_t n, unsigned char want[16], size_t *compare)
{
    const struct soak_user_op *u = &soak_user_ops[user];
    uint64_t sum = 0;
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (user == USER_SUMSQ16) {
            uint64_t v = get_u(u->in, x, i);
            sum += v * v;
        } else if (user == USER_MAXABS32) {
            acc = fmax(acc, fabs(get_f(u->in, x, i)));
        } else {
            acc += get_f(u->in, x, i) * get_f(u->in, y, i);
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
    const size_t osize = cured_type_size(out);
    const int fl = is_float(in);
    if (fl && n > SOAK_MAX_EXACT && (op == CURED_OP_SUM || op == CURED_OP_SUM_ABS || op == CURED_OP_DOT))
        return -1;
    /* Products of k/64 are multiples of 2^-12: a float sum of more than 2^18 may round. */
    if (fl && op == CURED_OP_DOT && out != CURED_TYPE_FLOAT64 && n > ((size_t)1 << 18))
        return -1;
    switch (op) {
    case CURED_OP_SUM:
    case CURED_OP_SUM_ABS:
    case CURED_OP_DOT: {
        uint64_t s = 0;
        double f = 0;
        for (size_t i = 0; i < n; i++) {
            if (fl) {
                double v = get_f(in, x, i);
                f += op == CURED_OP_DOT ? v * get_f(in, y, i) : op == CURED_OP_SUM_ABS ? fabs(v) : v;
            } else {
                uint64_t v = get_u(in, x, i);
                s += op == CURED_OP_DOT ? v * get_u(in, y, i) : v;
            }
        }
        if (op == CURED_OP_SUM_ABS && !fl)
            return -1;
        put(out, want, f, s);
        *compare = osize;
        return 0;
    }
    case CURED_OP_AND:
    case CURED_OP_OR:
    case CURED_OP_XOR: {
        uint64_t s = op == CURED_OP_AND ? ~0ull : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = get_u(in, x, i);
            s = op == CURED_OP_AND ? s & v : op == CURED_OP_OR ? s | v : s ^ v;
        }
        put(out, want, 0, s);
        *compare = osize;
        return fl ? -1 : 0;
    }
    case CURED_OP_MIN:
    case CURED_OP_MAX:
    case CURED_OP_NANMIN:
    case CURED_OP_NANMAX:
    case CURED_OP_MINMAX:
    case CURED_OP_ARGMIN:
    case CURED_OP_ARGMAX: {
        if (n == 0)
            return -1; /* the soak asks for n > 0 here */
        size_t lo = 0, hi = 0;
        for (size_t i = 1; i < n; i++) {
            lo = less(in, x, i, lo) ? i : lo; /* ties: the first index */
            hi = less(in, x, hi, i) ? i : hi;
        }
        const size_t esize = cured_type_size(in);
        const unsigned char *px = x;
        if (op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX) {
            size_t k = op == CURED_OP_ARGMIN ? lo : hi;
            int64_t index = (int64_t)k;
            memcpy(want, &index, 8);
            memcpy(want + 8, px + k * esize, esize);
            *compare = 8 + esize;
        } else if (op == CURED_OP_MINMAX) {
            memcpy(want, px + lo * esize, esize);
            memcpy(want + esize, px + hi * esize, esize);
            *compare = 2 * esize;
        } else {
            int min = op == CURED_OP_MIN || op == CURED_OP_NANMIN;
            memcpy(want, px + (min ? lo : hi) * esize, esize);
            *compare = esize;
        }
        return 0;
    }
    default:
        return -1;
    }
}
