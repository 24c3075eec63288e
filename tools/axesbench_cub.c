/*
 * The CUB rows of `cured bench axes`: cub::DeviceSegmentedReduce through the
 * dlopen'd comparator (cub_compare.h), timed like cured's cells.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdio.h>
#include <string.h>

#include "axesbench.h"

int axes_cub_of(const struct cell *c, cmp_op *op, cmp_type *t)
{
    *t = c->type == CURED_TYPE_FLOAT32 ? CMP_FLOAT32 : CMP_INT32;
    *op = c->op == CURED_OP_SUM ? CMP_SUM : c->op == CURED_OP_MAX ? CMP_MAX : CMP_ARGMAX;
    if (c->op != CURED_OP_SUM && c->op != CURED_OP_MAX && c->op != CURED_OP_ARGMAX)
        return 0; /* the statistics cells */
    return c->type == CURED_TYPE_FLOAT32 || (c->type == CURED_TYPE_INT32 && c->op == CURED_OP_SUM);
}
static int call_cub(void *user)
{
    struct cub_req *q = user;
    size_t bytes = q->temp_bytes;
    if (cmp_segmented(q->op, q->type, q->in, q->nseg, q->begin, q->end, q->len, q->out, q->temp, &bytes,
                      q->g->stream) != 0) {
        snprintf(q->why, sizeof q->why, "%s", cmp_last_error());
        return -1;
    }
    return 0;
}
/* The CUB row after a cured row (us: cured's time); -1 if CUB could not run. */
double axes_cub_row(struct cub_req *q, int iters, size_t bytes, double ceil_gbps, double cured_us,
                    const char *label, const char *shape, const char *csv_shape, FILE *csv)
{
    size_t need = 0;
    double us = -1;
    int usable = 1;
#ifdef CURED_HAVE_CUB_COMPARATOR
    if (q->g->cmp == NULL)
        usable = 0, snprintf(q->why, sizeof q->why, "comparator not usable: %s", q->g->cmp_error);
#else
    usable = 0, snprintf(q->why, sizeof q->why, "built without the CUB comparator (configure found no nvcc)");
#endif
    if (!usable)
        ;
    else if (cmp_segmented(q->op, q->type, q->in, q->nseg, q->begin, q->end, q->len, q->out, NULL, &need,
                           q->g->stream) != 0)
        snprintf(q->why, sizeof q->why, "%s", cmp_last_error());
    else if (need > q->temp_bytes)
        snprintf(q->why, sizeof q->why, "CUB needs %zu bytes of temporary storage", need);
    else
        us = axes_time_events(q->g, iters, call_cub, q, q->why, sizeof q->why);
    const double gbps = us > 0 ? (double)bytes / (us * 1e3) : 0;
    char note[700];
    if (us > 0)
        snprintf(note, sizeof note, "cured %.2fx CUB's speed", cured_us > 0 ? us / cured_us : 0);
    else
        snprintf(note, sizeof note, "not run: %s", q->why);
    printf("  CUB %-11s %-22s %4s %10.2f %9.1f %7.2fx  %s\n", label, shape, "1", us, gbps, gbps / ceil_gbps, note);
    if (csv != NULL)
        fprintf(csv, "CUB %s,%s,1,%zu,%.3f,%.1f,%.1f,%.4f,%s\n", label, csv_shape, bytes, us, gbps, ceil_gbps,
                gbps / ceil_gbps, us > 0 ? "cub" : "cub-failed");
    fflush(stdout);
    return us;
}

