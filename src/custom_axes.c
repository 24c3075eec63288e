/*
 * A user-defined op's many-result variants (one-field and multi-field): the
 * kernels of kernels-src/segmented.cu around the op's own UserOp, one compile
 * unit for each shape the planner picks (rows of G threads, split rows,
 * segments, columns, strided), made and loaded on first use in a context and
 * kept with the op until cured_custom_destroy().
 */
#include "call.h"
#include "custom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The variant of a shape in h's context (current), built and loaded on first use. */
cured_status cr_custom_variant_target(cured_handle h, const void *arg, struct cr_target *t)
{
    const struct cr_user_want *w = arg;
    cured_custom op = w->op;
    const uint64_t code = cr_request_code(w->req);
    cured_status st = CURED_SUCCESS;
    struct cr_variant *v = NULL;
    pthread_mutex_lock(&op->lock);
    for (size_t i = 0; i < op->nvariants && v == NULL; i++)
        if (op->variants[i]->l.ctx_id == h->ctx_id && op->variants[i]->code == code)
            v = op->variants[i];
    if (v == NULL) { /* cr_custom_variant_load releases the op's lock while it compiles */
        struct cr_variant **grown = realloc(op->variants, (op->nvariants + 1) * sizeof *grown);
        v = calloc(1, sizeof *v);
        if (grown != NULL)
            op->variants = grown;
        if (grown == NULL || v == NULL) {
            st = cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
        } else {
            v->req = *w->req;
            v->code = code;
            cr_family_segmented.build(&v->req, &v->unit);
            if ((st = cr_custom_variant_load(h, op, v)) == CURED_SUCCESS) {
                v->l.ctx = h->ctx;
                v->l.ctx_id = h->ctx_id;
                v->l.d = h->d;
                op->variants[op->nvariants++] = v;
            }
        }
        if (st != CURED_SUCCESS) {
            free(v);
            v = NULL;
        }
    }
    pthread_mutex_unlock(&op->lock);
    if (v != NULL) { /* a variant is never moved or freed before the op is destroyed */
        t->fam = &cr_family_segmented;
        t->req = &v->req;
        t->unit = &v->unit;
        t->k = &v->l.k;
    }
    return st;
}

void cr_custom_variants_free(cured_custom op)
{
    for (size_t i = 0; i < op->nvariants; i++) {
        cr_loaded_unload(&op->variants[i]->l);
        free(op->variants[i]);
    }
    free(op->variants);
    op->variants = NULL;
    op->nvariants = 0;
}
