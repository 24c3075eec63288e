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

struct cr_user {
    char *source;      /* the generated program (the whole-array kernels of fast.cu) */
    char *axes_source; /* the same op with the many-result kernels of segmented.cu */
};

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
};

/* Unload and free the op's many-result kernels (cured_custom_destroy). */
void cr_custom_variants_free(cured_custom op);

#endif
