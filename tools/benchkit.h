/*
 * What `cured bench sweep` (sweep.c) and `cured bench ops` (opsbench.c)
 * share (benchkit.c, benchdata.c): the device with its primary context, one
 * stream and a cured handle; sets of input buffers rotated so that a call
 * never finds its input in L2 (the rule of `cured bench`: the rotation spans
 * at least 4x L2); timing with a pair of events around every call; the data
 * and its host references.
 */
#ifndef CURED_BENCHKIT_H
#define CURED_BENCHKIT_H

#include <stddef.h>
#include <stdint.h>

#include "cured.h"
#include "driver_all.h"
#ifdef CURED_HAVE_CUB_COMPARATOR
#include "cub_compare.h"
#define HAVE_COMPARATOR 1 /* for plain if () tests */
#else
#define HAVE_COMPARATOR 0
#endif

#define BK_BATCH 256 /* event pairs recorded before one synchronisation */
#define BK_SLOT 16   /* bytes per result slot: every result layout fits */

struct bk_gpu {
    const char *prog; /* "cured bench sweep": the prefix of messages */
    const struct cr_driver_all *d;
    int device, pushed;
    CUdevice dev;
    CUcontext ctx; /* the primary context: cured's handle and the CUDA runtime use it */
    cured_handle h;
    CUstream stream;
    CUevent ev[2 * BK_BATCH];
    char name[256];
    int sms, l2, ccmaj, ccmin;
    size_t free_mem, total_mem;
#ifdef CURED_HAVE_CUB_COMPARATOR
    cmp_state *cmp; /* NULL when cmp_prepare failed: cmp_error says why */
    char cmp_error[512];
#endif
};

/* Open device `device` for prog. 0: ready. 1: no GPU (said so on stderr:
 * nothing can be measured) or a failure (said on stderr); the caller returns
 * 1 either way, after bk_close(). */
int bk_open(struct bk_gpu *g, const char *prog, int device);
void bk_close(struct bk_gpu *g);

/* The device, driver, NVRTC and comparator lines of a report. */
void bk_print_header(const struct bk_gpu *g);

/* How many buffers of `bytes` a rotation needs to span 4x L2 (at least 1, at
 * most max_count), in at most 40% of free memory; 1 when not even one fits in
 * 40% but one still fits beside 64 MiB; 0 when it does not. */
int bk_buffer_count(size_t bytes, size_t l2, size_t free_mem, int max_count);

/* nbuf copies of one input, stride bytes apart (256-byte aligned), and one
 * BK_SLOT-byte result slot per buffer. Calls take buffers in turn from a
 * cursor that runs on across rows, so that a buffer is read again only after
 * every other buffer has been. */
struct bk_set {
    size_t bytes, stride;
    int nbuf;
    uint64_t cursor;
    CUdeviceptr base, slots;
    unsigned char *host_slots; /* nbuf * BK_SLOT bytes, after bk_read_slots() */
    unsigned char *used;       /* nbuf flags: slots written by the calls since bk_clear_slots() */
};

/* Allocate a set for inputs of `bytes`: bk_buffer_count(), raised to
 * min_count when memory allows. 0, or -1 after a message on stderr. */
int bk_set_alloc(struct bk_gpu *g, struct bk_set *s, size_t bytes, int min_count, int max_count);
void bk_set_free(struct bk_gpu *g, struct bk_set *s);

static inline void *bk_in(const struct bk_set *s, int b)
{
    return (void *)(uintptr_t)(s->base + (CUdeviceptr)b * s->stride);
}

static inline void *bk_out(const struct bk_set *s, int b)
{
    return (void *)(uintptr_t)(s->slots + (CUdeviceptr)b * BK_SLOT);
}

/* Sentinel bytes in every slot on the device; no slot used. 0 or -1 (why). */
int bk_clear_slots(struct bk_gpu *g, struct bk_set *s, char *why, size_t len);
/* Wait for the stream and copy every slot to host_slots. 0 or -1 (why). */
int bk_read_slots(struct bk_gpu *g, struct bk_set *s, char *why, size_t len);

/* One call of the measured reduction, asynchronous on g->stream, reading
 * buffer b (and b2, the next one, for two-input calls) and writing slot b.
 * 0, or -1 with a message in why. */
typedef int (*bk_call_fn)(void *user, int b, int b2, char *why, size_t len);

struct bk_time {
    double med_us, min_us, max_us;
};

/* Host time of one call: reps repetitions of `calls` calls, the clock around
 * each batch of `batch` calls; the stream synchronisation after each batch
 * (which keeps the launch queue short, so that no call waits for room in it)
 * is not counted. `batch` untimed calls first (the first compiles or loads).
 * The median of the repetitions in microseconds per call; -1 with why. */
double bk_host_us(struct bk_gpu *g, void *user, bk_call_fn call, int calls, int reps, int batch, char *why,
                  size_t len);

/* warm untimed calls (the first compiles what it needs), a synchronisation,
 * then iters calls each between its own pair of events; inputs = buffers
 * consumed per call (1, or 2 for a dot product). 0, or -1 with why. */
int bk_measure(struct bk_gpu *g, struct bk_set *s, int inputs, int warm, int iters, bk_call_fn call,
               void *user, struct bk_time *t, char *why, size_t len);

/* ---- benchdata.c: inputs and host references ------------------------------ */

/* What the host knows of an input of n elements. Integer results are
 * compared modulo 2^64 (the ring that both libraries' int64 arithmetic is
 * exact in); floating-point sums against double sums with a tolerance. */
struct bk_ref {
    cured_type type;
    size_t n, esize;
    uint64_t isum, isumsq, iprod, iand; /* integers: modulo 2^64 */
    uint32_t words;                     /* 4-byte types: the elements' bits summed modulo 2^32 */
    double sum, sumabs, sumsq, prod;    /* floating point: in double */
    double vmin, vmax;
    size_t imin, imax;                  /* first index of the minimum and of the maximum */
    unsigned char min_bits[8], max_bits[8];
    int spread;                         /* bk_ref_init_spread(): only n is kept */
};

/* Element i of the data: deterministic in (type, i), so a shorter input is a
 * prefix of a longer one. Integers: full range for int8, int32 and uint32,
 * 40 bits for int64; floating point: uniform in [-1, 1) on a grid that every
 * type holds exactly (step 2^-10 for float16, 2^-7 for bfloat16, 2^-23 for
 * float32, 2^-52 for float64), so the double sums of the 16- and 32-bit types
 * are exact up to 2^30 elements. */
void bk_ref_init(struct bk_ref *r, cured_type t);
/* The exact sums' worst case instead, for a float type t: finite values over
 * every binade of t (subnormals too) with random mantissas, signs
 * alternating from one element to the next, and element i cancelled exactly
 * by element i ^ 2^20, but for the elements at i % 1024 == 1023 (and their
 * partners), which are small (the lowest quarter of t's exponents) and
 * unpaired: the sum is tiny beside the sum of magnitudes. Only r->n is
 * computed: exactref.h gives the sums. */
void bk_ref_init_spread(struct bk_ref *r, cured_type t);
/* Write elements [first, first + count) to dst and add them to r. */
void bk_generate(struct bk_ref *r, size_t first, size_t count, void *dst);

/* Fill buffer 0 of s with n elements of r->type (in chunks, so host memory
 * stays small), computing r, then bk_replicate(). 0, or -1 after a message
 * on stderr. */
int bk_fill(struct bk_gpu *g, struct bk_set *s, struct bk_ref *r, size_t n);
/* Copy buffer 0 into every other buffer of s and wait for the device. 0, or
 * -1 after a message on stderr. */
int bk_replicate(struct bk_gpu *g, struct bk_set *s);

/* A FLOAT32 or FLOAT64 result as a double. */
double bk_read_float(const unsigned char *got, cured_type out_type);

/* The progress line on stderr: rewritten in place on a terminal, else one
 * line each; bk_progress_clear() erases it (on a terminal) before a report line. */
#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
void bk_progress(const char *prog, const char *fmt, ...);
void bk_progress_clear(void);

#endif
