/* A communicator's side of cured (comm.c, comm_axes.c, comm_custom.c): shared declarations. */
#ifndef CURED_COMM_H
#define CURED_COMM_H

#include "internal.h"
#include "nccl_lib.h"

#define CR_COMM_SLOT_MAX (CR_RECORD_STATE + CR_MAX_ACC) /* the largest state record: the count, then the largest state */
#define CR_COMM_DEFAULT_OUTPUTS 4096

struct cr_comm_user; /* a user op's kernels in this communicator (comm_custom.c) */

struct cured_comm_st {
    cured_handle h;
    struct ncclComm *nccl;
    const struct cr_nccl *n;
    int rank, nranks;
    size_t max_outputs;
    CUdeviceptr records;          /* nranks * max_outputs * CR_COMM_SLOT_MAX bytes */
    CUdeviceptr result;           /* CR_MAX_RESULT bytes: the synchronous call's result */
    pthread_mutex_t lock;         /* users */
    struct cr_comm_user **users;  /* user ops' kernels, by source text, each allocated apart */
    size_t nusers;
};
/* Free the user ops' kernels (cured_comm_destroy), unloading their modules
 * when unload is set (the handle's context is then current). */
void cr_comm_users_free(cured_comm cc, int unload);

/* The rank's record area for a call whose records hold nout states of r (a state request). */
static inline CUdeviceptr cr_comm_mine(cured_comm cc, const struct cr_request *sr, uint64_t nout)
{
    return cc->records + (CUdeviceptr)cc->rank * nout * cr_state_slot(sr);
}
/* Outputs of the plain request r whose records the buffers hold (max_outputs, fewer for records over
 * CR_COMM_SLOT_MAX bytes: the exact sums'). */
static inline uint64_t cr_comm_room(cured_comm cc, const struct cr_request *r)
{
    const uint64_t room = (uint64_t)cc->max_outputs * CR_COMM_SLOT_MAX / cr_state_slot(r);
    return room < cc->max_outputs ? room : cc->max_outputs;
}
/* Load the combine kernel of the (plain) request r now, so that a failure launches nothing. */
cured_status cr_comm_prepare(cured_comm cc, const struct cr_request *r);
/* The local records of nout outputs are written (or launched): gather them in
 * place and combine them into out (nout dense results of r) with the combine
 * kernel that target gives (NULL: the built-in combine request of r). */
cured_status cr_comm_finish(cured_comm cc, const struct cr_request *r, uint64_t nout, CUdeviceptr out, CUstream s,
                            cr_target_fn target, const void *arg);
/* The input ranges (in2: DOT's y, or NULL) and a device output's (NULL:
 * ours), before anything is compiled. */
cured_status cr_comm_check_memory(cured_comm cc, const struct cr_request *r, const void *in, const void *in2,
                                  size_t n, const void *out);
/* The state kernel of a whole-array request, launched with the grid of the
 * plain request's kernel: the grid fixes the order of the partials, so one
 * rank gives exactly the bits of the single-GPU call (the state kernel's
 * occupancy may differ by a register). A cr_target_fn; arg: this struct. */
struct cr_comm_state_target {
    const struct cr_request *state, *plain;
    struct cr_kernel k;
};
cured_status cr_comm_state_target(cured_handle h, const void *arg, struct cr_target *t);
/* A checked whole-array request r (in2: DOT's y): this rank's state, the
 * gather and the combine into out (a device pointer, checked, or ours). */
cured_status cr_comm_run(cured_comm cc, const struct cr_request *r, const void *in, const void *in2, size_t n,
                         CUdeviceptr out, CUstream s);
/* The synchronous whole-array call: ranges, cr_comm_run into our result,
 * cr_comm_read_back into host_out. */
cured_status cr_comm_sync(cured_comm cc, const struct cr_request *r, const void *in, const void *in2, size_t n,
                          void *host_out, CUstream s);
/* The synchronous calls' end: wait, read the result (result_size bytes of r)
 * and the counts back, apply cured_reduce()'s statuses, write host_out. */
cured_status cr_comm_read_back(cured_comm cc, const struct cr_request *r, size_t slot, void *host_out, CUstream s);

#endif
