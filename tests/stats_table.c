/*
 * The accuracy table of issue 15: with CURED_STATS_TABLE set, every
 * asynchronous statistic that test-gpu-stats (or test-stats-emu, on the
 * CPU) checks also prints a row: the input, the call, cured's error
 * against the exact value (tests/stats_ref.c, long double), the error of a
 * float64 two-pass computation rounded to the result type, the issue's
 * ratio (cured's error over twice that: at most 1 meets it; "inf" where
 * the two-pass rounds to the exact value and cured does not) and whether
 * the error is within the bound cured.h documents.
 */
#include "gpu_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gs_table_on(void)
{
    const char *env = getenv("CURED_STATS_TABLE");
    return env != NULL && *env != '\0' && strcmp(env, "0") != 0;
}

static long double rounded(cured_type out, double v)
{
    return out == CURED_TYPE_FLOAT32 ? (long double)(float)v : (long double)v;
}

/* One unit in the last place of v in the result type (subnormals: the smallest). */
static long double ulp_of(cured_type out, long double v)
{
    const int f32 = out == CURED_TYPE_FLOAT32;
    const long double tiny = ldexpl(1.0L, f32 ? -149 : -1074);
    if (!(fabsl(v) > 0))
        return tiny;
    const long double u = ldexpl(1.0L, ilogbl(fabsl(v)) - (f32 ? 23 : 52));
    return u > tiny ? u : tiny;
}

/* The ratio (cured's error over twice the rounded two-pass error)
 * and whether the error is within the bound that ref_check() applies
 * (cured.h's, from stats_ref_result()). */
static void row(const char *what, const char *name, cured_type t, cured_type out, double ddof, size_t n,
                long double got, const struct ref_value *want, long double tol, double two_pass)
{
    const long double exact = want->is_nan ? (long double)NAN : want->f;
    const long double e = fabsl(got - exact), e2 = fabsl(rounded(out, two_pass) - exact);
    char ratio[32], ok[8];
    if (isnan(exact) || isinf(exact)) {
        snprintf(ratio, sizeof ratio, "-");
        snprintf(ok, sizeof ok, "%s", (isnan(got) && isnan(exact)) || got == exact ? "yes" : "NO");
    } else {
        const long double bound = (want->tol > tol ? want->tol : tol) + ulp_of(out, exact);
        snprintf(ratio, sizeof ratio, e2 > 0 ? "%.3Lg" : e > 0 ? "inf" : "0", e / (2 * e2));
        snprintf(ok, sizeof ok, "%s", e <= bound ? "yes" : "NO");
    }
    printf("| %s | %s %s->%s | %g | %zu | %.10Lg | %.3Lg | %.3Lg | %s | %s |\n", what, name, cured_type_name(t),
           cured_type_name(out), ddof, n, exact, e, e2, ratio, ok);
}

void gs_table_row(const char *what, cured_op op, cured_type t, cured_type out, double ddof, const struct stats_ref *s,
                  const unsigned char *got)
{
    static int header;
    if (!header++)
        printf("| input | statistic | ddof | n | exact | cured error | float64 two-pass error (rounded) | "
               "cured / (2 x two-pass) | within cured.h's bound |\n|---|---|---|---|---|---|---|---|---|\n");
    double v[2];
    for (int k = 0; k < 2; k++) {
        if (out == CURED_TYPE_FLOAT32) {
            float f;
            memcpy(&f, got + 4 * k, 4);
            v[k] = f;
        } else {
            memcpy(&v[k], got + 8 * k, 8);
        }
    }
    struct ref_result r;
    stats_ref_result(op, out, s, ddof, &r);
    const double dof = (double)s->n - ddof;
    const double var64 = dof > 0 ? s->m2_64 / dof : NAN, mean64 = s->n ? s->mean64 : NAN;
    switch (cr_op_base(op)) { /* (NANMEAN...: s holds the elements that are not NaN) */
    case CURED_OP_MEAN: row(what, cured_op_name(op), t, out, ddof, s->n, v[0], &r.v[0], r.tol, mean64); break;
    case CURED_OP_VAR: row(what, cured_op_name(op), t, out, ddof, s->n, v[0], &r.v[0], r.tol, var64); break;
    case CURED_OP_STD: row(what, cured_op_name(op), t, out, ddof, s->n, v[0], &r.v[0], r.tol, sqrt(var64)); break;
    case CURED_OP_MEAN_VAR:
        row(what, "MEAN_VAR.mean", t, out, ddof, s->n, v[0], &r.v[0], r.tol, mean64);
        row(what, "MEAN_VAR.var", t, out, ddof, s->n, v[1], &r.v[1], r.tol, var64);
        break;
    default: row(what, "LOGSUMEXP", t, out, ddof, s->n, v[0], &r.v[0], r.tol, s->lse64); break;
    }
}
