/*
 * NCCL, opened with dlopen at first use (nccl_lib.c): the few types and entry
 * points cured calls, declared here with NCCL 2's ABI values (nccl.h of
 * NCCL 2.x: ncclComm_t is struct ncclComm *, enums are int) so that the
 * library builds without NCCL's header.
 */
#ifndef CURED_NCCL_LIB_H
#define CURED_NCCL_LIB_H

#include <stddef.h>

#include <cuda.h>

struct ncclComm;

enum cr_nccl_type { /* ncclDataType_t */
    CR_NCCL_INT8 = 0, CR_NCCL_UINT8 = 1, CR_NCCL_INT32 = 2, CR_NCCL_UINT32 = 3, CR_NCCL_INT64 = 4,
    CR_NCCL_UINT64 = 5, CR_NCCL_FLOAT16 = 6, CR_NCCL_FLOAT32 = 7, CR_NCCL_FLOAT64 = 8, CR_NCCL_BFLOAT16 = 9
};
enum cr_nccl_op { CR_NCCL_SUM = 0, CR_NCCL_PROD = 1, CR_NCCL_MAX = 2, CR_NCCL_MIN = 3 }; /* ncclRedOp_t */
#define CR_NCCL_SUCCESS 0 /* ncclResult_t */

#define CR_NCCL_FUNCTIONS(X)                                                                              \
    X(GetVersion, int, (int *))                                                                           \
    X(GetErrorString, const char *, (int))                                                                \
    X(CommCount, int, (struct ncclComm *, int *))                                                         \
    X(CommUserRank, int, (struct ncclComm *, int *))                                                      \
    X(CommCuDevice, int, (struct ncclComm *, int *))                                                      \
    X(AllGather, int, (const void *, void *, size_t, int, struct ncclComm *, CUstream))                   \
    X(AllReduce, int, (const void *, void *, size_t, int, int, struct ncclComm *, CUstream))              \
    X(GroupStart, int, (void))                                                                            \
    X(GroupEnd, int, (void))

struct cr_nccl {
#define CR_NCCL_FIELD(name, ret, params) ret (*name) params;
    CR_NCCL_FUNCTIONS(CR_NCCL_FIELD)
#undef CR_NCCL_FIELD
    int version; /* ncclGetVersion: major * 10000 + minor * 100 + patch (before 2.9: major * 1000 + ...) */
};

/* Load NCCL once (CURED_NCCL_LIBRARY, else libnccl.so.2); on failure records
 * CURED_ERROR_NO_NCCL naming what was tried. */
cured_status cr_nccl(const struct cr_nccl **out);
/* Fail with CURED_ERROR_NCCL: the call's name and NCCL's error string. */
cured_status cr_fail_nccl(const struct cr_nccl *n, int result, const char *what);

#endif
