/*
 * `cured bench ops`'s exact-sum rows: their host references (exactref.h)
 * for the random and the spread data, the bit-for-bit check, the read
 * ceiling that the goals of the exact sums are stated against (ceiling.c,
 * NVRTC-compiled, so it is there without nvcc) and the goal lines.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceiling.h"
#include "opsbench_exact.h"

#define CHUNK ((size_t)1 << 20)

int oex_reference(const struct bk_ref *ref, struct oex_ref *x)
{
    struct bk_ref r;
    if (ref->spread)
        bk_ref_init_spread(&r, ref->type);
    else
        bk_ref_init(&r, ref->type);
    unsigned char *buf = malloc(CHUNK * ref->esize);
    if (buf == NULL)
        return -1;
    xr_init(&x->sum);
    xr_init(&x->squares);
    for (size_t off = 0; off < ref->n; off += CHUNK) {
        const size_t k = ref->n - off < CHUNK ? ref->n - off : CHUNK;
        bk_generate(&r, off, k, buf);
        for (size_t i = 0; i < k; i++) {
            const double v = xr_element(ref->type, buf, i);
            xr_add(&x->sum, v);
            xr_add_product(&x->squares, v, v);
        }
    }
    free(buf);
    return 0;
}

static void want_bits(cured_op op, cured_type out, const struct oex_ref *x, unsigned char *bits)
{
    switch (op) {
    case CURED_OP_EXACT_MEAN: xr_result(&x->sum, x->sum.terms, out, bits); break;
    case CURED_OP_EXACT_NORM2: xr_norm2(&x->squares, out, bits); break;
    case CURED_OP_EXACT_SUM_SQUARES: case CURED_OP_EXACT_DOT: xr_result(&x->squares, 0, out, bits); break;
    default: xr_result(&x->sum, 0, out, bits); break;
    }
}

int oex_check(cured_op op, cured_type out, const struct oex_ref *x, const unsigned char *got, char *note, size_t len)
{
    unsigned char want[8];
    const size_t size = cured_type_size(out);
    want_bits(op, out, x, want);
    const double w = xr_bits_value(out, want), v = xr_bits_value(out, got);
    if (memcmp(got, want, size) == 0 || (isnan(w) && isnan(v)))
        return 1;
    snprintf(note, len, "got %.17g, the exact sum rounded once is %.17g", v, w);
    return 0;
}

void oex_describe(cured_type out, const struct oex_ref *x, const unsigned char *got, char *note, size_t len)
{
    unsigned char want[8];
    xr_result(&x->sum, 0, out, want);
    snprintf(note, len, "result %.17g; the exact sum rounded once is %.17g (not checked)", xr_bits_value(out, got),
             xr_bits_value(out, want));
}

struct ceil_call {
    struct ceiling *c;
    struct bk_set *s;
    int variant;
    unsigned grid, block;
    size_t bytes;
    CUstream stream;
};

static int call_ceiling(void *user, int b, int b2, char *why, size_t len)
{
    struct ceil_call *k = user;
    (void)b2;
    if (ceiling_launch(k->c, k->variant, k->grid, k->block, bk_in(k->s, b), k->bytes, k->stream) == 0)
        return 0;
    snprintf(why, len, "the read-ceiling kernel did not launch");
    return -1;
}

double oex_ceiling_gbps(struct bk_gpu *g, struct bk_set *s, int iters, char *why, size_t len)
{
    struct ceiling c;
    if (ceiling_prepare(&c, g->d, g->ccmaj, g->ccmin, why, len) != 0)
        return -1;
    struct ceil_call k = {&c, s, 0, 0, 0, s->bytes & ~(size_t)15, g->stream}, best = k;
    struct bk_time t = {0};
    double best_us = -1;
    int rc = k.bytes > 0 ? 0 : -1;
    if (rc != 0)
        snprintf(why, len, "under 16 bytes: no ceiling");
    for (int v = 0; v < CEILING_VARIANTS && rc == 0; v++)
        for (unsigned per = 1; per <= 32 && rc == 0; per *= 2)
            for (unsigned block = 256; block <= 512 && rc == 0; block *= 2) {
                k.variant = v, k.grid = per * (unsigned)g->sms, k.block = block;
                rc = bk_measure(g, s, 1, 1, iters < 10 ? iters : 10, call_ceiling, &k, &t, why, len);
                if (rc == 0 && (best_us < 0 || t.med_us < best_us))
                    best_us = t.med_us, best = k;
            }
    if (rc == 0)
        rc = bk_measure(g, s, 1, 3, iters, call_ceiling, &best, &t, why, len);
    /* the kernel's launches are in the stream: they finish before its module goes */
    if (g->d->StreamSynchronize(g->stream) != CUDA_SUCCESS && rc == 0)
        rc = -1, snprintf(why, len, "cuStreamSynchronize after the ceiling failed");
    ceiling_release(&c);
    return rc == 0 && t.med_us > 0 ? (double)best.bytes / (t.med_us * 1e3) : -1;
}

/* The goals: a share of the read ceiling per element type and operator. */
static double goal_of(cured_type type, cured_op op)
{
    if (op == CURED_OP_EXACT_DOT)
        return type == CURED_TYPE_FLOAT32 ? 0.85 : 0;
    if (op != CURED_OP_EXACT_SUM)
        return 0;
    return type == CURED_TYPE_FLOAT64 ? 0.85 : 0.90;
}

void oex_goal(cured_type type, cured_op op, cured_type out, int spread, double gbps, double ceiling_gbps,
              double cub_gbps, const char *cub_why)
{
    char label[80];
    snprintf(label, sizeof label, "%s %s -> %s%s", cured_type_name(type), cured_op_name(op), cured_type_name(out),
             spread ? " (spread data)" : "");
    if (gbps <= 0 || ceiling_gbps <= 0) {
        printf("%s: no share of the ceiling (%s)\n", label, gbps <= 0 ? "the row did not run" : "no ceiling");
        return;
    }
    const double share = gbps / ceiling_gbps, goal = spread ? 0 : goal_of(type, op);
    printf("%s: %.1f GB/s, %.3fx the read ceiling (%.1f GB/s)", label, gbps, share, ceiling_gbps);
    if (goal > 0)
        printf(" (goal >= %.2f: %s)", goal, share >= goal ? "met" : "NOT met");
    if (cub_gbps > 0)
        printf("; CUB gpu_to_gpu %.1f GB/s, %.3fx the ceiling: cured %s (%.2fx CUB's speed)", cub_gbps,
               cub_gbps / ceiling_gbps, gbps > cub_gbps ? "faster" : "NOT faster", gbps / cub_gbps);
    else if (cub_why != NULL && cub_why[0] != '\0')
        printf("; CUB gpu_to_gpu: %s", cub_why);
    printf("\n");
}
