/*
 * A user-defined op's insides, shared by custom.c (the op, its
 * whole-array kernels) and custom_axes.c (its many-result kernels).
 */
#ifndef CURED_CUSTOM_H
#define CURED_CUSTOM_H

#include "internal.h"

/* The op's kernels loaded in one context. */
struct loaded {
    CUcontext ctx;
    unsigned long long ctx_id; /* the key: a context id is never reused, a CUcontext value may be */
    const struct cr_driver *d;
    struct cr_kernel k;
};

/* Unload l's module if its context still lives (a module of a context since reset went with it). */
void cr_loaded_unload(const struct loaded *l);


/* One many-result shape of the op (custom_axes.c), loaded in one context. */
struct cr_variant {
    struct loaded l;
    uint64_t code; /* cr_request_code of req */
    struct cr_request req;
    struct cr_unit unit;
};

struct cured_custom_st {
    struct cr_user user;
    struct cr_request req;
    struct cr_unit unit;
    const struct cr_image *compiled; /* compiled at creation: a kcache reference until destroy */
    pthread_mutex_t lock;            /* loaded and variants */
    struct loaded **loaded; /* one allocation each: a caller keeps &loaded[i]->k after the lock */
    size_t nloaded;
    struct cr_variant **variants;
    size_t nvariants;
    /* The compile budget (cr_custom_variant_load): the distinct shapes charged, those being compiled
     * included, and the seconds the op's compiles and loads took. */
    uint64_t *shapes;
    size_t nshapes;
    double compile_seconds;
};

/*
 * Load variant v (built, not yet in op->variants) in h's context (current),
 * called with op->lock held: refuses a shape the op has not compiled yet with
 * CURED_ERROR_COMPILE_BUDGET once the op has CURED_CUSTOM_MAX_SHAPES shapes or
 * the op or the process has spent its compile seconds, and charges the time
 * the load takes. The lock is released while NVRTC runs, so that callers of
 * loaded variants do not wait; on return it is held again and op->variants
 * has room for one more.
 */
cured_status cr_custom_variant_load(cured_handle h, cured_custom op, struct cr_variant *v);

/* Unload and free the op's many-result kernels (cured_custom_destroy). */
void cr_custom_variants_free(cured_custom op);

#endif
