/*
 * The statistics' rules: the calls that take a delta degrees of freedom take
 * it for the statistics only, and the synchronous calls report n <= ddof
 * (MEAN: n == 0) instead of a NaN. The kernels are the stats family's
 * (family_stats.c).
 */
#include "call.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

cured_status cr_stats_check_sync(const struct cr_request *r, size_t n)
{
    const struct cr_op_info *o = cr_op(r->op);
    if (r->user != NULL || o == NULL || !(o->flags & CR_OP_DOF))
        return CURED_SUCCESS;
    const int mean = cr_op_base(r->op) == CURED_OP_MEAN;
    const double ddof = mean ? 0.0 : r->ddof;
    if ((double)n > ddof)
        return CURED_SUCCESS;
    if (mean)
        return cr_fail(CURED_ERROR_TOO_FEW_ELEMENTS, "the mean of no elements (n = 0) is NaN");
    return cr_fail(CURED_ERROR_TOO_FEW_ELEMENTS, "the %s of n = %zu elements with ddof = %g is NaN (n <= ddof)",
                   cr_op_base(r->op) == CURED_OP_STD ? "standard deviation" : "variance", n, ddof);
}

cured_status cr_stats_check_ddof(const char *call, cured_op op, double ddof, const char *other)
{
    if (cr_op(op) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "%s: unknown operator %d", call, (int)op);
    if (!(cr_op(op)->flags & CR_OP_STATS)) {
        char names[256] = "";
        for (int k = 0; k < CURED_OP_COUNT; k++) /* the statistics, from the operator table */
            if (cr_op((cured_op)k)->flags & CR_OP_STATS)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
                         cr_op((cured_op)k)->name);
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s takes a statistic (%s), not %s%s", call, names, cr_op(op)->name,
                       other ? other : "");
    }
    if (!(ddof >= 0.0) || isinf(ddof))
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: ddof must be finite and >= 0, not %g", call, ddof);
    return CURED_SUCCESS;
}

cured_status cr_stats_check_args(const char *call, cured_op op, const void *in, cured_type in_type, size_t n,
                                 double ddof, const void *out, cured_type out_type, int host_out, struct cr_request *r)
{
    const struct cr_call c = {.name = call, .op = op, .in_type = in_type, .out_type = out_type, .takes_ddof = 1,
                              .ddof = ddof, .view = CR_VIEW_ARRAY, .in = in, .n = n, .out = (void *)(uintptr_t)out,
                              .host_out = host_out};
    struct cr_planned p;
    cured_status st = cr_call_check(&c, &p);
    *r = p.r;
    return st;
}
