/*
 * `cured bench ops`'s statistics rows: MEAN_VAR and LOGSUMEXP over float32
 * and the header's user-defined two-field mean/variance, their checks, and
 * the read ceiling that LOGSUMEXP's goal is stated against (the nvcc-built
 * comparator's read-only kernel, when it is in).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchkit.h"
#include "opsbench_stats.h"

int obs_is_stats(cured_op op, int custom)
{
    return custom == OBS_CUSTOM_MEANVAR || op == CURED_OP_MEAN_VAR || op == CURED_OP_LOGSUMEXP;
}

/* The data are uniform in [-1, 1) on a grid (benchdata.c): the mean and the
 * variance from the double sums are good to ~1e-15; logsumexp to ~1e-15. */
int obs_check(cured_op op, int custom, cured_type out, const struct bk_ref *ref, double lse,
              const unsigned char *got, char *note, size_t len)
{
    const double n = (double)ref->n, mean = ref->sum / n, var = ref->sumsq / n - mean * mean;
    const double rel = out == CURED_TYPE_FLOAT64 ? 1e-12 : 1e-6;
    if (op == CURED_OP_LOGSUMEXP && custom == 0) {
        const double v = bk_read_float(got, out);
        if (fabs(v - lse) <= rel * fabs(lse) + 4e-7)
            return 1;
        snprintf(note, len, "got %.10g, expected %.10g", v, lse);
        return 0;
    }
    const size_t es = out == CURED_TYPE_FLOAT64 ? 8 : 4;
    const double m = bk_read_float(got, out), v = bk_read_float(got + es, out);
    /* the user's two sums lose a little more to the subtraction; the host's own
     * double sums of squares over 64Mi values are good to ~1e-9 */
    const double vrel = custom || out == CURED_TYPE_FLOAT64 ? 1e-9 : rel;
    if (fabs(m - mean) <= rel * (fabs(mean) + sqrt(var)) && fabs(v - var) <= vrel * var)
        return 1;
    snprintf(note, len, "got mean %.10g variance %.10g, expected %.10g and %.10g", m, v, mean, var);
    return 0;
}

double obs_logsumexp(const struct bk_ref *ref)
{
    enum { CHUNK = 1 << 20 };
    struct bk_ref r;
    bk_ref_init(&r, ref->type);
    float *buf = malloc(CHUNK * sizeof *buf);
    if (buf == NULL || ref->type != CURED_TYPE_FLOAT32) {
        free(buf);
        return NAN;
    }
    double s = 0;
    for (size_t off = 0; off < ref->n; off += CHUNK) {
        const size_t k = ref->n - off < CHUNK ? ref->n - off : CHUNK;
        bk_generate(&r, off, k, buf);
        for (size_t i = 0; i < k; i++)
            s += exp((double)buf[i] - ref->vmax);
    }
    free(buf);
    return ref->vmax + log(s);
}

cured_status obs_custom_meanvar(cured_handle h, cured_custom *op)
{
    static const cured_custom_field f[2] = {{CURED_TYPE_FLOAT64, "x", "a0 + b0", "0"},
                                            {CURED_TYPE_FLOAT64, "(double)x * x", "a1 + b1", "0"}};
    static const char *const fin[2] = {"a0 / n", "(a1 - a0 * a0 / n) / n"};
    return cured_custom_create_multi(h, CURED_TYPE_FLOAT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, op);
}

#ifdef CURED_HAVE_CUB_COMPARATOR
struct ceiling {
    struct bk_gpu *g;
    struct bk_set *s;
    size_t n;
};

static int call_ceiling(void *user, int b, int b2, char *why, size_t len)
{
    struct ceiling *c = user;
    (void)b2;
    if (cmp_read_ceiling(c->g->cmp, bk_in(c->s, b), c->n, c->g->stream) == 0)
        return 0;
    snprintf(why, len, "%s", cmp_last_error());
    return -1;
}
#endif

double obs_ceiling_us(struct bk_gpu *g, struct bk_set *s, size_t bytes, int iters, char *why, size_t len)
{
#ifdef CURED_HAVE_CUB_COMPARATOR
    struct ceiling c = {g, s, bytes / 4};
    struct bk_time t;
    if (g->cmp == NULL) {
        snprintf(why, len, "the comparator is not usable: %s", g->cmp_error);
        return -1;
    }
    if (bk_measure(g, s, 1, 3, iters, call_ceiling, &c, &t, why, len) != 0)
        return -1;
    return t.med_us;
#else
    (void)g, (void)s, (void)bytes, (void)iters;
    snprintf(why, len, "no read ceiling: the nvcc-built comparator is not in");
    return -1;
#endif
}

void obs_goals(const struct obs_times *t)
{
    if (t->sum_us > 0 && t->meanvar_us > 0)
        printf("MEAN_VAR float32: %.2f us, SUM float32: %.2f us: %.3fx SUM's speed (goal >= 0.95: %s)\n",
               t->meanvar_us, t->sum_us, t->sum_us / t->meanvar_us, t->sum_us / t->meanvar_us >= 0.95 ? "met" : "NOT met");
    if (t->lse_us > 0 && t->ceiling_us > 0)
        printf("LOGSUMEXP float32: %.2f us, read ceiling %.2f us: %.3fx the ceiling's speed (goal >= 0.85: %s)\n",
               t->lse_us, t->ceiling_us, t->ceiling_us / t->lse_us, t->ceiling_us / t->lse_us >= 0.85 ? "met" : "NOT met");
    else if (t->lse_us > 0)
        printf("LOGSUMEXP float32: %.2f us (no read ceiling: %s)\n", t->lse_us, t->ceiling_why);
    if (t->custom_us > 0 && t->meanvar_us > 0)
        printf("user-defined two-field mean/variance float32 -> float64: %.2f us, the built-in MEAN_VAR float32: "
               "%.2f us: %.3fx its time (goal <= 1.05: %s)\n", t->custom_us, t->meanvar_us,
               t->custom_us / t->meanvar_us, t->custom_us / t->meanvar_us <= 1.05 ? "met" : "NOT met");
}
