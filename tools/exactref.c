/*
 * The exact sums' host reference (exactref.h): terms go into signed 32-bit
 * digits of a fixed-point number with its lowest bit at 2^XR_LOW; the result
 * is rounded once from the digits, bit by bit, to nearest even.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <string.h>

#include "exactref.h"
#include "halfbits.h"

#define NORMALISE_EVERY (1u << 26) /* terms between carries: each adds < 2^34 to a digit */

void xr_init(struct xr_acc *a)
{
    memset(a, 0, sizeof *a);
    a->all_negzero = 1;
}

/* Carries up, so that every digit but the top one is in [0, 2^32). */
static void normalise(int64_t *d, int n)
{
    for (int i = 0; i + 1 < n; i++) {
        const int64_t lo = d[i] & 0xffffffffll;
        d[i + 1] += (d[i] - lo) / 4294967296ll;
        d[i] = lo;
    }
}

/* m * 2^e with sign neg; m has at most 106 bits and e >= XR_LOW. */
static void add_scaled(struct xr_acc *a, unsigned __int128 m, int e, int neg)
{
    const int pos = e - XR_LOW, k = pos / 32, sh = pos % 32;
    for (int j = 0; m != 0; j++, m >>= 32) {
        const uint64_t piece = (uint64_t)(uint32_t)m << sh;
        const int64_t lo = (int64_t)(piece & 0xffffffffu), hi = (int64_t)(piece >> 32);
        a->d[k + j] += neg ? -lo : lo;
        a->d[k + j + 1] += neg ? -hi : hi;
    }
    if (++a->pending == NORMALISE_EVERY) {
        normalise(a->d, XR_DIGITS);
        a->pending = 0;
    }
}

/* x = m * 2^e, m < 2^53, for finite x; 0 for an infinity or a NaN. */
static int split(double x, uint64_t *m, int *e, int *neg)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    const int be = (int)(u >> 52 & 0x7ff);
    *neg = (int)(u >> 63);
    *m = u & 0xfffffffffffffull;
    if (be == 0x7ff)
        return 0;
    if (be == 0)
        *e = -1074;
    else
        *m |= 1ull << 52, *e = be - 1075;
    return 1;
}

static void add_special(struct xr_acc *a, double t)
{
    if (isnan(t))
        a->nan = 1;
    else if (t > 0)
        a->pinf = 1;
    else
        a->ninf = 1;
}

void xr_add(struct xr_acc *a, double x)
{
    uint64_t m;
    int e = 0, neg = 0;
    a->terms++;
    a->all_negzero &= x == 0 && signbit(x);
    if (!split(x, &m, &e, &neg))
        add_special(a, x);
    else if (m != 0)
        add_scaled(a, m, e, neg);
}

void xr_add_product(struct xr_acc *a, double x, double y)
{
    uint64_t mx, my;
    int ex = 0, ey = 0, nx = 0, ny = 0;
    const int fx = split(x, &mx, &ex, &nx), fy = split(y, &my, &ey, &ny);
    a->terms++;
    a->all_negzero &= (x == 0 || y == 0) && !isnan(x) && !isnan(y) && (nx != ny);
    if (!fx || !fy) {
        add_special(a, x * y); /* inf * 0 is NaN, as the exact sums count it */
        return;
    }
    if (mx != 0 && my != 0)
        add_scaled(a, (unsigned __int128)mx * my, ex + ey, nx != ny);
}

double xr_element(cured_type t, const void *p, size_t i)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return half_to_float(((const uint16_t *)p)[i]);
    case CURED_TYPE_BFLOAT16: return bf16_to_float(((const uint16_t *)p)[i]);
    case CURED_TYPE_FLOAT32: return ((const float *)p)[i];
    default: return ((const double *)p)[i];
    }
}

/* Precision and exponent range of a result type. */
static void format_of(cured_type out, int *p, int *emin, int *emax)
{
    switch (out) {
    case CURED_TYPE_FLOAT16: *p = 11, *emin = -14, *emax = 15; break;
    case CURED_TYPE_BFLOAT16: *p = 8, *emin = -126, *emax = 127; break;
    case CURED_TYPE_FLOAT32: *p = 24, *emin = -126, *emax = 127; break;
    default: *p = 53, *emin = -1022, *emax = 1023; break;
    }
}

/* A double that out holds exactly (or an infinity or a NaN), as out's bits. */
static void store(cured_type out, double v, unsigned char *bits)
{
    switch (out) {
    case CURED_TYPE_FLOAT16: {
        uint16_t h = float_to_half((float)v);
        memcpy(bits, &h, 2);
        break;
    }
    case CURED_TYPE_BFLOAT16: {
        uint16_t b = float_to_bf16((float)v);
        memcpy(bits, &b, 2);
        break;
    }
    case CURED_TYPE_FLOAT32: {
        float f = (float)v;
        memcpy(bits, &f, 4);
        break;
    }
    default:
        memcpy(bits, &v, 8);
        break;
    }
}

double xr_bits_value(cured_type out, const unsigned char *bits)
{
    uint16_t h;
    float f;
    double v;
    switch (out) {
    case CURED_TYPE_FLOAT16: memcpy(&h, bits, 2); return half_to_float(h);
    case CURED_TYPE_BFLOAT16: memcpy(&h, bits, 2); return bf16_to_float(h);
    case CURED_TYPE_FLOAT32: memcpy(&f, bits, 4); return f;
    default: memcpy(&v, bits, 8); return v;
    }
}

/* Bit of absolute weight 2^k of the nonnegative digits u[0..n) (u[0] weighs 2^low). */
static int bit_at(const uint32_t *u, int n, int low, int k)
{
    const int pos = k - low;
    if (pos < 0 || pos >= 32 * n)
        return 0;
    return (int)(u[pos / 32] >> (pos % 32) & 1u);
}

/* Any bit of weight below 2^k? */
static int any_below(const uint32_t *u, int n, int low, int k)
{
    const int pos = k - low;
    if (pos <= 0)
        return 0;
    const int full = pos / 32 < n ? pos / 32 : n;
    for (int i = 0; i < full; i++)
        if (u[i] != 0)
            return 1;
    return full < n && pos % 32 != 0 && (u[full] & ((1u << (pos % 32)) - 1u)) != 0;
}

/* The magnitude u (with a sticky bit below it) rounded once into out. */
static double round_digits(const uint32_t *u, int n, int low, int sticky, cured_type out)
{
    int p, emin, emax, top = 0, found = 0;
    format_of(out, &p, &emin, &emax);
    for (int i = n - 1; i >= 0 && !found; i--)
        if (u[i] != 0)
            for (int b = 31; b >= 0 && !found; b--)
                if (u[i] >> b & 1u)
                    top = low + 32 * i + b, found = 1;
    if (!found) /* zero, or only a sticky bit far below every result's quantum */
        return 0;
    const int q = top - p + 1 > emin - p + 1 ? top - p + 1 : emin - p + 1;
    uint64_t m = 0;
    for (int k = top; k >= q; k--)
        m = m << 1 | (uint64_t)bit_at(u, n, low, k);
    const int half = bit_at(u, n, low, q - 1), rest = sticky || any_below(u, n, low, q - 1);
    if (half && (rest || (m & 1u)))
        m++;
    /* m <= 2^p: its top bit's weight decides overflow */
    int mtop = 63;
    while (mtop > 0 && !(m >> mtop & 1u))
        mtop--;
    if (m != 0 && mtop + q > emax)
        return INFINITY;
    return ldexp((double)m, q);
}

void xr_result(const struct xr_acc *a, uint64_t divisor, cured_type out, unsigned char *bits)
{
    if (a->nan || (a->pinf && a->ninf)) {
        store(out, NAN, bits);
        return;
    }
    if (a->pinf || a->ninf) {
        store(out, a->pinf ? INFINITY : -INFINITY, bits);
        return;
    }
    int64_t d[XR_DIGITS];
    memcpy(d, a->d, sizeof d);
    normalise(d, XR_DIGITS);
    const int neg = d[XR_DIGITS - 1] < 0;
    if (neg) {
        for (int i = 0; i < XR_DIGITS; i++)
            d[i] = -d[i];
        normalise(d, XR_DIGITS);
    }
    /* two more digits below for a quotient's rounding bits */
    uint32_t u[XR_DIGITS + 2] = {0};
    int any = 0;
    for (int i = 0; i < XR_DIGITS; i++)
        any |= (u[i + 2] = (uint32_t)d[i]) != 0;
    if (!any) {
        store(out, a->terms > 0 && a->all_negzero ? -0.0 : 0.0, bits);
        return;
    }
    int sticky = 0;
    if (divisor > 1) {
        uint64_t rem = 0;
        for (int i = XR_DIGITS + 1; i >= 0; i--) {
            const uint64_t cur = rem << 32 | u[i];
            u[i] = (uint32_t)(cur / divisor);
            rem = cur % divisor;
        }
        sticky = rem != 0;
    }
    const double v = round_digits(u, XR_DIGITS + 2, XR_LOW - 64, sticky, out);
    store(out, neg ? -v : v, bits);
}

void xr_norm2(const struct xr_acc *squares, cured_type out, unsigned char *bits)
{
    /* cured.h's EXACT_NORM2: the sum of squares rounded to float64, its float64 square root (correctly
     * rounded), rounded once more to out (through the fixed-point sum of that one term). */
    unsigned char s[8];
    xr_result(squares, 0, CURED_TYPE_FLOAT64, s);
    const double root = sqrt(xr_bits_value(CURED_TYPE_FLOAT64, s));
    struct xr_acc one;
    xr_init(&one);
    xr_add(&one, root);
    xr_result(&one, 0, out, bits);
}
