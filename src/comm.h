/* A communicator's side of cured (comm.c, comm_axes.c): shared declarations. */
#ifndef CURED_COMM_H
#define CURED_COMM_H

#include "internal.h"
#include "nccl_lib.h"

#define CR_COMM_SLOT_MAX 40       /* the largest state record: count + a 32-byte state */
#define CR_COMM_DEFAULT_OUTPUTS 4096

struct cured_comm_st {
    cured_handle h;
    struct ncclComm *nccl;
    const struct cr_nccl *n;
    int rank, nranks;
    size_t max_outputs;
    CUdeviceptr records;          /* nranks * max_outputs * CR_COMM_SLOT_MAX bytes */
    CUdeviceptr result;           /* CR_MAX_RESULT bytes: the synchronous call's result */
};

/* The rank's record area for a call whose records hold nout states of r (a state request). */
static inline CUdeviceptr cr_comm_mine(cured_comm cc, const struct cr_request *sr, uint64_t nout)
{
    return cc->records + (CUdeviceptr)cc->rank * nout * cr_state_slot(sr);
}
/* Load the combine kernel of the (plain) request r now, so that a failure launches nothing. */
cured_status cr_comm_prepare(cured_comm cc, const struct cr_request *r);
/* The local records of nout outputs are written (or launched): gather them in
 * place and combine them into out (nout dense results of r). */
cured_status cr_comm_finish(cured_comm cc, const struct cr_request *r, uint64_t nout, CUdeviceptr out, CUstream s);

#endif
