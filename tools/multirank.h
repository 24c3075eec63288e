/*
 * tools/cured-multirank: cured_comm on K GPUs (one process per GPU, or one
 * process with a thread per GPU), every result compared across ranks, with a
 * single-GPU reduction of the concatenated input on rank 0, and across
 * repeats. multirank_main.c: processes, threads, NCCL; multirank_data.c: the
 * sharded data and the comparisons; multirank_checks.c: the check groups.
 */
#ifndef CURED_MULTIRANK_H
#define CURED_MULTIRANK_H

#include <stddef.h>
#include <stdint.h>

#include "cured.h"
#include "driver_all.h"

/* The NCCL entry points the program calls itself (NCCL 2's ABI). */
typedef struct { char internal[128]; } mr_nccl_id;
struct mr_nccl {
    int (*GetUniqueId)(mr_nccl_id *);
    int (*CommInitRank)(struct ncclComm **, int, mr_nccl_id, int);
    int (*CommInitAll)(struct ncclComm **, int, const int *);
    int (*CommDestroy)(struct ncclComm *);
    int (*AllGather)(const void *, void *, size_t, int, struct ncclComm *, CUstream);
    const char *(*GetErrorString)(int);
};
extern struct mr_nccl mr_nccl;
#define MR_NCCL_UINT8 1

/* Check groups; each line of the report is one. */
enum mr_group { G_OPS, G_DOT, G_STATS0, G_STATS1, G_CUSTOM, G_AXES_BITWISE, G_AXES_DEFAULT, G_COUNT };
struct mr_counts {
    int64_t cases, exact, tolerant; /* cases; of them compared bitwise / within a tolerance with one GPU */
    int64_t rank_bad, ref_bad, repeat_bad, errors, unpromised; /* unpromised: bits that may differ, did */
};

/* How rank r's shard sits in the global array: rows [start[r], start[r] + len[r]) of row length cols. */
struct mr_shards {
    int nranks;
    int64_t rows, cols, start[64], len[64];
    int64_t tie_max[3], tie_min[3], nan_from; /* rows holding the extremes' ties; NaNs from this row on */
};
enum mr_flavour { MRF_REAL, MRF_TIES, MRF_NAN, MRF_PROD, MRF_AND, MRF_OR, MRF_BITS, MRF_COUNT };

/* One rank's state; rank 0 also holds the whole array for the reference. */
struct mr_rank {
    int rank, nranks, repeats;
    uint64_t seed;
    const struct cr_driver_all *d;
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    cured_handle h;
    cured_comm cc;
    struct ncclComm *comm;
    CUdeviceptr shard, shard2, whole, whole2, out, ref, send, gather; /* 2: DOT's second input */
    size_t cap;                                                       /* elements the data buffers hold */
    unsigned char *host, *first, *cur, *all, *want;                   /* host copies */
    double s1, s2, sxy;                                               /* rank 0: sums of |x|, x^2, |x y| */
    struct mr_counts counts[G_COUNT];
    int printed;
};

#define MR_OUT_BYTES 8192 /* a result slot: 300 axis outputs of up to 16 bytes, and spare */
#define MR_MAX_OUTPUTS 64 /* the communicators' max_outputs: 300 outputs take the chunks */

/* multirank_data.c */
void mr_shards_make(struct mr_shards *s, int nranks, int64_t rows, int64_t cols);
void mr_fill(const struct mr_shards *s, cured_type t, enum mr_flavour f, uint64_t seed, int64_t first_row,
             int64_t nrows, void *dst);
double mr_value(cured_type t, const void *p, size_t i); /* element i as a double */
int mr_is_float(cured_type t);
double mr_eps(cured_type t); /* half an ulp at 1 */
size_t mr_result_bytes(cured_op op, cured_type out);
int mr_same_latitude(cured_op op, cured_type out, const unsigned char *a, const unsigned char *b, size_t bytes);
int mr_close(cured_op op, cured_type in, cured_type out, const unsigned char *a, const unsigned char *b,
             size_t count, double n, double s1, double s2, double ddof);

/* multirank_checks.c: every group in order (the same calls on every rank); 0 or -1 (setup failed). */
int mr_run_checks(struct mr_rank *r, const struct mr_shards *flat, const struct mr_shards *slab);
/* Sum the counters over the ranks and (rank 0) print the report; returns 1 when every check held. */
int mr_report(struct mr_rank *r);

#endif
