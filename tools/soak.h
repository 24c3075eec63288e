/*
 * The GPU soak test (tools/soak.c) and its host references (tools/soak_ref.c).
 * Data are made so that every result the soak asks for is exact: integers
 * are random bits (sums wrap modulo 2^64), floats are k/64 with |k| <= 3, so
 * sums of up to 2^21 of them are exact in float and the order of the
 * device's additions cannot change a bit; the reference is then compared
 * byte for byte.
 */
#ifndef CURED_SOAK_H
#define CURED_SOAK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cured.h"
#include "driver_all.h"

#define SOAK_REGION ((size_t)32 << 20) /* bytes of data per type family */
#define SOAK_MAX_EXACT ((size_t)1 << 21) /* float elements whose sum is exact in float */

enum soak_family { FAM_INT, FAM_F32, FAM_F64, FAM_F16, FAM_BF16, FAM_COUNT };

/* The family whose region holds elements of type t. */
enum soak_family soak_family(cured_type t);
/* Fill a region of the host mirror for family f from seed. */
void soak_fill(enum soak_family f, unsigned char *region, size_t bytes, uint64_t seed);

/* User-defined ops of the soak, and their references. */
enum soak_user { USER_SUMSQ16, USER_MAXABS32, USER_DOT64, USER_COUNT };
struct soak_user_op {
    const char *name;
    cured_type in, acc;
    int ninputs;
    const char *map, *combine, *identity;
};
extern const struct soak_user_op soak_user_ops[USER_COUNT];

/*
 * The expected bytes of op over x[0..n) (y: DOT's second input) with result
 * type out, and how many of them to compare (ARG: the index and the value's
 * bytes; the rest of the value field is not specified). user >= 0 names a
 * user op instead (op unused). 0, or -1 when the soak does not offer that
 * combination (or n is too large for an exact float result).
 */
int soak_ref(int user, cured_op op, cured_type in, cured_type out, const void *x, const void *y, size_t n,
             unsigned char want[16], size_t *compare);

/* xorshift64*; never 0. */
uint64_t soak_rand(uint64_t *s);

/* ---- the run (soak.c, soak_main.c) ---- */

struct soak {
    const struct cr_driver_all *d;
    CUdevice dev;
    CUcontext ctx;
    cured_handle h; /* shared by every thread */
    CUdeviceptr base; /* FAM_COUNT regions of SOAK_REGION bytes */
    unsigned char *host;
    cured_custom user[USER_COUNT];
    double deadline;
    uint64_t seed;
    atomic_ullong served, mismatches, refused, mishandled, errors, captured, asyncs, users, transient;
    pthread_mutex_t print;
};

struct worker {
    struct soak *s;
    int id;
    uint64_t rng;
    cured_handle own;
    CUstream stream[2];
    CUdeviceptr slot; /* 64 bytes per stream */
    /* Requests already made outside capture, per handle (0 shared, 1 own): a
     * capture never needs a module loaded (cured.h: compile before capturing). */
    unsigned char warm[2][CURED_OP_COUNT * CURED_TYPE_COUNT + USER_COUNT];
};

double soak_now(void);
/* One call on w's stream: mode 0 synchronous into got, 1 asynchronous into the
 * stream's slot (poisoned first, read back into got), 2 as 1 but captured into
 * a graph that is then launched. user >= 0: that user op. */
cured_status soak_call(struct worker *w, int user, cured_op op, cured_type in, cured_type out, const void *x,
                       const void *y, size_t n, int mode, int stream, cured_handle h, unsigned char got[16]);
/* A worker thread: random requests until the deadline. */
void *soak_work(void *arg);

#endif
