/*
 * The statistics calls: cured_reduce_stats(_async) take a delta degrees of
 * freedom for VAR, STD and MEAN_VAR, and the synchronous calls report
 * n <= ddof (MEAN: n == 0) instead of a NaN. The kernels are the stats
 * family's (family_stats.c).
 */
#include "internal.h"

#include <math.h>
#include <stdint.h>

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

cured_status cr_stats_check_ddof(const char *call, cured_op op, double ddof)
{
    if (cr_op(op) == NULL)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "%s: unknown operator %d", call, (int)op);
    if (!(cr_op(op)->flags & CR_OP_STATS))
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s takes MEAN, VAR, STD, MEAN_VAR or LOGSUMEXP (or NANMEAN, NANVAR, NANSTD), not %s", call,
                       cr_op(op)->name);
    if (!(ddof >= 0.0) || isinf(ddof))
        return cr_fail(CURED_ERROR_INVALID_VALUE, "%s: ddof must be finite and >= 0, not %g", call, ddof);
    return CURED_SUCCESS;
}

cured_status cr_stats_check_args(const char *call, cured_op op, const void *in, cured_type in_type, size_t n,
                                 double ddof, const void *out, cured_type out_type, int host_out, struct cr_request *r)
{
    /* the operator and ddof first: another operator is INVALID_VALUE whatever its types */
    if (cr_op(op) != NULL && !(cr_op(op)->flags & CR_OP_STATS))
        return cr_fail(CURED_ERROR_INVALID_VALUE,
                       "%s takes MEAN, VAR, STD, MEAN_VAR or LOGSUMEXP (or NANMEAN, NANVAR, NANSTD), not %s: use cured_reduce%s()", call,
                       cr_op(op)->name, host_out ? "" : "_async");
    cured_status st = cr_stats_check_ddof(call, op, ddof);
    if (st != CURED_SUCCESS || (st = cr_check_args(op, CURED_ALGO_AUTO, in, in_type, n, cr_checked_out(out, host_out), out_type, r)) != CURED_SUCCESS)
        return st;
    r->ddof = ddof;
    return host_out ? cr_stats_check_sync(r, n) : CURED_SUCCESS;
}

static cured_status stats(cured_handle h, const char *call, cured_op op, const void *in, cured_type in_type,
                          size_t n, double ddof, void *out, cured_type out_type, int host_out, CUstream stream)
{
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "%s: the handle is NULL", call);
    struct cr_request r;
    cured_status st = cr_stats_check_args(call, op, in, in_type, n, ddof, out, out_type, host_out, &r);
    return st != CURED_SUCCESS ? st : cr_reduce_run(h, &r, in, NULL, n, out, host_out, stream, cr_builtin_target, &r);
}

CR_API cured_status cured_reduce_stats_async(cured_handle h, cured_op op, const void *in, cured_type in_type,
                                             size_t n, double ddof, void *out, cured_type out_type,
                                             struct CUstream_st *stream)
{
    return stats(h, "cured_reduce_stats_async", op, in, in_type, n, ddof, out, out_type, 0, stream);
}

CR_API cured_status cured_reduce_stats(cured_handle h, cured_op op, const void *in, cured_type in_type, size_t n,
                                       double ddof, void *host_out, cured_type out_type, struct CUstream_st *stream)
{
    return stats(h, "cured_reduce_stats", op, in, in_type, n, ddof, host_out, out_type, 1, stream);
}
