/*
 * `cured bench axes`' statistics cells (float32 MEAN_VAR and LOGSUMEXP):
 * output 0 against a float64 two-pass computation on the host.
 */
#include "axesbench.h"

#include <math.h>
#include <string.h>

int axes_stats_check(cured_op op, const float *h, size_t n, size_t stride, const unsigned char *got, char *note,
                     size_t len)
{
    double s = 0, m2 = 0, top = -INFINITY, e = 0;
    for (size_t i = 0; i < n; i++) {
        s += h[i * stride];
        top = h[i * stride] > top ? h[i * stride] : top;
    }
    const double mean = s / (double)n;
    for (size_t i = 0; i < n; i++) {
        const double d = h[i * stride] - mean;
        m2 += d * d;
        e += exp(h[i * stride] - top);
    }
    float r[2];
    memcpy(r, got, sizeof r);
    if (op == CURED_OP_LOGSUMEXP) {
        const double want = top + log(e);
        if (fabs(r[0] - want) <= 1e-5 * (1 + fabs(want)))
            return 1;
        snprintf(note, len, "output 0: logsumexp %.9g, expected %.9g", r[0], want);
        return 0;
    }
    const double var = m2 / (double)n; /* ddof 0, as cured_reduce_axes_async */
    if (fabs(r[0] - mean) <= 1e-6 * (fabs(mean) + sqrt(var)) && fabs(r[1] - var) <= 1e-5 * var)
        return 1;
    snprintf(note, len, "output 0: mean %.9g var %.9g, expected %.9g %.9g", r[0], r[1], mean, var);
    return 0;
}
