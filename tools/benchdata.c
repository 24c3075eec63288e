/*
 * Inputs of `cured bench sweep` and `cured bench ops` and what the host
 * knows of them (see benchkit.h).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchkit.h"
#include "halfbits.h"

#define CHUNK ((size_t)4 << 20) /* elements generated on the host at a time */

double bk_read_float(const unsigned char *got, cured_type out_type)
{
    if (out_type == CURED_TYPE_FLOAT64) {
        double v;
        memcpy(&v, got, 8);
        return v;
    }
    float v;
    memcpy(&v, got, 4);
    return v;
}

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void bk_ref_init(struct bk_ref *r, cured_type t)
{
    memset(r, 0, sizeof *r);
    r->type = t;
    r->esize = cured_type_size(t);
    r->iprod = 1;
    r->iand = ~(uint64_t)0;
    r->prod = 1;
}

void bk_ref_init_spread(struct bk_ref *r, cured_type t)
{
    bk_ref_init(r, t);
    r->spread = 1;
}

/* bk_ref_init_spread()'s elements, as the bits of t (ebits exponent bits,
 * fbits fraction bits, little-endian, esize bytes each). */
static void generate_spread(const struct bk_ref *r, size_t first, size_t count, void *dst)
{
    const int ebits = r->type == CURED_TYPE_FLOAT16 ? 5 : r->type == CURED_TYPE_FLOAT64 ? 11 : 8;
    const int fbits = r->type == CURED_TYPE_FLOAT16 ? 10 : r->type == CURED_TYPE_BFLOAT16 ? 7
                    : r->type == CURED_TYPE_FLOAT32 ? 23 : 52;
    const uint64_t top = ((uint64_t)1 << ebits) - 1; /* all ones: inf and NaN, never made */
    const uint64_t salt = 0x13198A2E03707344ull + (uint64_t)r->type * 0xD1B54A32D192ED03ull;
    unsigned char *out = dst;
    for (size_t j = 0; j < count; j++) {
        const size_t i = first + j;
        uint64_t z, e, sign;
        if ((i & 1023) == 1023) { /* unpaired and small */
            z = mix(salt ^ (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull);
            e = (z >> 52) % (top / 4 + 1);
            sign = (i >> 10) & 1;
        } else { /* the pair (i, i ^ 2^20): one magnitude, opposite signs */
            const size_t base = i & ~((size_t)1 << 20);
            z = mix(salt + (uint64_t)(base + 1) * 0x9E3779B97F4A7C15ull);
            e = (z >> 52) % top;
            sign = (base & 1) ^ ((i >> 20) & 1);
        }
        const uint64_t bits = sign << (ebits + fbits) | e << fbits | (z & (((uint64_t)1 << fbits) - 1));
        for (size_t b = 0; b < r->esize; b++) /* little-endian */
            out[j * r->esize + b] = (unsigned char)(bits >> (8 * b));
    }
}

/* One loop per type (the switch stays out of it): element x of C type CT
 * from the random z, its value v as a double, then the references, kept in
 * locals and written back. */
#define GEN(CT, FP, MAKE)                                                                        \
    do {                                                                                         \
        CT *out = dst;                                                                           \
        uint64_t isum = r->isum, isumsq = r->isumsq, iprod = r->iprod, iand = r->iand;           \
        double sum = r->sum, sumabs = r->sumabs, sumsq = r->sumsq, prod = r->prod;               \
        double vmin = r->vmin, vmax = r->vmax;                                                   \
        uint32_t words = r->words;                                                               \
        for (size_t j = 0; j < count; j++) {                                                     \
            const size_t i = first + j;                                                          \
            const uint64_t z = mix(salt + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull);            \
            CT x;                                                                                \
            double v;                                                                            \
            MAKE;                                                                                \
            out[j] = x;                                                                          \
            if (sizeof x == 4) {                                                                 \
                uint32_t w;                                                                      \
                memcpy(&w, &x, 4);                                                               \
                words += w;                                                                      \
            }                                                                                    \
            if (FP) {                                                                            \
                sum += v;                                                                        \
                sumabs += fabs(v);                                                               \
                sumsq += v * v;                                                                  \
                prod *= v;                                                                       \
            } else {                                                                             \
                const uint64_t u = (uint64_t)(int64_t)v; /* exact: |v| < 2^40 */                 \
                isum += u;                                                                       \
                isumsq += u * u;                                                                 \
                iprod *= u;                                                                      \
                iand &= u;                                                                       \
            }                                                                                    \
            if (i == 0 || v < vmin) {                                                            \
                vmin = v;                                                                        \
                r->imin = i;                                                                     \
                memcpy(r->min_bits, &x, sizeof x);                                               \
            }                                                                                    \
            if (i == 0 || v > vmax) {                                                            \
                vmax = v;                                                                        \
                r->imax = i;                                                                     \
                memcpy(r->max_bits, &x, sizeof x);                                               \
            }                                                                                    \
        }                                                                                        \
        r->isum = isum, r->isumsq = isumsq, r->iprod = iprod, r->iand = iand;                    \
        r->sum = sum, r->sumabs = sumabs, r->sumsq = sumsq, r->prod = prod;                      \
        r->vmin = vmin, r->vmax = vmax, r->words = words;                                        \
    } while (0)

void bk_generate(struct bk_ref *r, size_t first, size_t count, void *dst)
{
    /* splitmix64's i-th output, salted by the type */
    const uint64_t salt = 0x243F6A8885A308D3ull + (uint64_t)r->type * 0xD1B54A32D192ED03ull;
    static uint16_t f16[2048]; /* the float16 grid, k / 1024 for k in [-1024, 1024) */
    if (r->spread) {
        generate_spread(r, first, count, dst);
        if (first + count > r->n)
            r->n = first + count;
        return;
    }
    if (r->type == CURED_TYPE_FLOAT16 && f16[0] == 0)
        for (int k = 0; k < 2048; k++)
            f16[k] = float_to_half((float)(k - 1024) / 1024);
    /* Integers go through v, a double: exact for all of these (|x| < 2^40 or 32-bit). */
    switch (r->type) {
    case CURED_TYPE_INT8:
        GEN(int8_t, 0, (x = (int8_t)(uint8_t)(z >> 56), v = x));
        break;
    case CURED_TYPE_INT32:
        GEN(int32_t, 0, (x = (int32_t)(uint32_t)z, v = x));
        break;
    case CURED_TYPE_INT64:
        GEN(int64_t, 0, (x = (int64_t)(z >> 24) - ((int64_t)1 << 39), v = (double)x));
        break;
    case CURED_TYPE_UINT32:
        GEN(uint32_t, 0, (x = (uint32_t)(z >> 32), v = x));
        break;
    case CURED_TYPE_FLOAT16: /* [-1, 1), step 2^-10 */
        GEN(uint16_t, 1, (x = f16[z >> 53], v = ((double)(z >> 53) - 1024) / 1024));
        break;
    case CURED_TYPE_BFLOAT16: { /* [-1, 1), step 2^-7: the top half of a float */
        float f;
        uint32_t fbits;
        GEN(uint16_t, 1, (v = ((double)(z >> 56) - 128) / 128, f = (float)v, memcpy(&fbits, &f, 4),
                          x = (uint16_t)(fbits >> 16)));
        break;
    }
    case CURED_TYPE_FLOAT32: /* [-1, 1), step 2^-23 */
        GEN(float, 1, (v = ((double)(z >> 40) - 8388608.0) / 8388608.0, x = (float)v));
        break;
    default: /* FLOAT64, [-1, 1), step 2^-52 */
        GEN(double, 1, (v = ((double)(z >> 11) - 4503599627370496.0) / 4503599627370496.0, x = v));
        break;
    }
    if (first + count > r->n)
        r->n = first + count;
}

int bk_fill(struct bk_gpu *g, struct bk_set *s, struct bk_ref *r, size_t n)
{
    size_t m = n < CHUNK ? n : CHUNK;
    unsigned char *chunk = malloc((m > 0 ? m : 1) * r->esize);
    CUresult e = CUDA_SUCCESS;
    if (chunk == NULL) {
        fprintf(stderr, "%s: out of host memory\n", g->prog);
        return -1;
    }
    for (size_t off = 0; off < n && e == CUDA_SUCCESS; off += m) {
        size_t k = n - off < m ? n - off : m;
        bk_generate(r, off, k, chunk);
        e = g->d->MemcpyHtoD(s->base + (CUdeviceptr)(off * r->esize), chunk, k * r->esize);
    }
    free(chunk);
    if (e != CUDA_SUCCESS) {
        fprintf(stderr, "%s: cuMemcpyHtoD: %s\n", g->prog, cr_driver_error_text(e));
        return -1;
    }
    return bk_replicate(g, s);
}

int bk_replicate(struct bk_gpu *g, struct bk_set *s)
{
    CUresult e = CUDA_SUCCESS;
    const char *what = "cuMemcpyDtoD";
    /* Doubling copies: buffers [0, done) into [done, 2 done). */
    for (int done = 1; done < s->nbuf && e == CUDA_SUCCESS; done *= 2) {
        int k = s->nbuf - done < done ? s->nbuf - done : done;
        e = g->d->MemcpyDtoD(s->base + (CUdeviceptr)done * s->stride, s->base, (size_t)k * s->stride);
    }
    /* Copies run on the legacy stream (and a pageable upload may still be in
     * flight): wait before the benchmark's own stream reads. */
    if (e == CUDA_SUCCESS) {
        what = "cuCtxSynchronize";
        e = g->d->CtxSynchronize();
    }
    if (e != CUDA_SUCCESS) {
        fprintf(stderr, "%s: %s: %s\n", g->prog, what, cr_driver_error_text(e));
        return -1;
    }
    return 0;
}
