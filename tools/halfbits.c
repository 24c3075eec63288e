/* Host conversions of float16 and bfloat16, bit by bit (see halfbits.h). */
#include "halfbits.h"

#include <math.h>
#include <string.h>

uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f)
        return bits_float(sign | 0x7f800000u | (m << 13));
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact in float */
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t float_to_half(float f)
{
    uint32_t u = float_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: keep it a NaN (quiet) */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520: rounds to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* normal half: rebias, round the 13 dropped bits to nearest even */
        uint32_t r = a - 0x38000000u, q = r >> 13, rem = r & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    if (a < 0x33000000u) /* below 2^-25, or exactly 2^-25 (a tie that goes to the even 0) */
        return sign;
    /* Subnormal half: the value in units of 2^-24, rounded to nearest even. */
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

float bf16_to_float(uint16_t b)
{
    return bits_float((uint32_t)b << 16);
}

uint16_t float_to_bf16(float f)
{
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    uint32_t hi = u >> 16, lo = u & 0xffffu;
    if (lo > 0x8000u || (lo == 0x8000u && (hi & 1u)))
        hi++; /* may carry into the exponent: the largest finite values round to inf */
    return (uint16_t)hi;
}
