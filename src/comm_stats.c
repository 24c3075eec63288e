/*
 * DOT and the statistics with a ddof across a communicator's ranks
 * (cured_comm_dot(_async), cured_comm_reduce_stats(_async)): the path of
 * cured_comm_reduce_async (comm.c). A DOT record is the rank's partial sum
 * of x*y; a statistic's is its own state (count, sum, m2, as stats.cuh
 * merges them), and ddof is a parameter of the combine kernel only, so the
 * variance is divided once, on every rank, by the global count less ddof.
 */
#include "comm.h"

static cured_status dot(cured_comm cc, const char *call, const void *x, const void *y, cured_type type, size_t n,
                        void *out, cured_type out_type, unsigned flags, int host_out, CUstream s)
{
    if (cc == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "%s: the communicator is NULL", call);
    struct cr_request r;
    cured_status st =
        cr_check_args(CURED_OP_DOT, CURED_ALGO_AUTO, x, type, n, cr_checked_out(out, host_out), out_type, &r);
    if (st == CURED_SUCCESS)
        st = cr_check_second_input(y, type, n);
    if (st == CURED_SUCCESS && flags != 0)
        st = cr_fail(CURED_ERROR_INVALID_VALUE, "%s: unknown flags 0x%x", call, flags);
    if (st != CURED_SUCCESS)
        return st;
    if (host_out)
        return cr_comm_sync(cc, &r, x, y, n, out, s);
    return (st = cr_comm_check_memory(cc, &r, x, y, n, out)) != CURED_SUCCESS
               ? st
               : cr_comm_run(cc, &r, x, y, n, (CUdeviceptr)(uintptr_t)out, s);
}

CR_API cured_status cured_comm_dot_async(cured_comm cc, const void *x, const void *y, cured_type type, size_t n_local,
                                         void *out, cured_type out_type, unsigned flags, struct CUstream_st *stream)
{
    return dot(cc, "cured_comm_dot_async", x, y, type, n_local, out, out_type, flags, 0, stream);
}

CR_API cured_status cured_comm_dot(cured_comm cc, const void *x, const void *y, cured_type type, size_t n_local,
                                   void *host_out, cured_type out_type, unsigned flags, struct CUstream_st *stream)
{
    return dot(cc, "cured_comm_dot", x, y, type, n_local, host_out, out_type, flags, 1, stream);
}

/* The synchronous call's n <= ddof is the global count's: cr_comm_read_back checks it. */
static cured_status stats(cured_comm cc, const char *call, cured_op op, const void *in, cured_type in_type, size_t n,
                          double ddof, void *out, cured_type out_type, unsigned flags, int host_out, CUstream s)
{
    if (cc == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "%s: the communicator is NULL", call);
    struct cr_request r;
    cured_status st = cr_stats_check_args(call, op, in, in_type, n, ddof, cr_checked_out(out, host_out), out_type, 0, &r);
    if (st == CURED_SUCCESS && flags != 0)
        st = cr_fail(CURED_ERROR_INVALID_VALUE, "%s: unknown flags 0x%x", call, flags);
    if (st != CURED_SUCCESS)
        return st;
    if (host_out)
        return cr_comm_sync(cc, &r, in, NULL, n, out, s);
    return (st = cr_comm_check_memory(cc, &r, in, NULL, n, out)) != CURED_SUCCESS
               ? st
               : cr_comm_run(cc, &r, in, NULL, n, (CUdeviceptr)(uintptr_t)out, s);
}

CR_API cured_status cured_comm_reduce_stats_async(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                                  size_t n_local, double ddof, void *out, cured_type out_type,
                                                  unsigned flags, struct CUstream_st *stream)
{
    return stats(cc, "cured_comm_reduce_stats_async", op, in, in_type, n_local, ddof, out, out_type, flags, 0, stream);
}

CR_API cured_status cured_comm_reduce_stats(cured_comm cc, cured_op op, const void *in, cured_type in_type,
                                            size_t n_local, double ddof, void *host_out, cured_type out_type,
                                            unsigned flags, struct CUstream_st *stream)
{
    return stats(cc, "cured_comm_reduce_stats", op, in, in_type, n_local, ddof, host_out, out_type, flags, 1, stream);
}
