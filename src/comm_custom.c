/*
 * User-defined operators across a communicator's ranks
 * (cured_comm_custom_reduce_async): the op's generated source with
 * combine.cu after it, one program of two kernels, the op's AUTO kernel
 * writing its raw state record and the rank-order combine of those records.
 * Loaded once per communicator for each op's source (kept until
 * cured_comm_destroy, so an op may be destroyed and made again).
 */
#include "call.h"
#include "comm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define UNROLL 4

struct cr_comm_user {
    char *source;            /* the unit's text: the op's source, then combine.cu */
    struct cr_request plain, state; /* the op's request, and as a state request */
    struct cr_unit unit;
    struct cr_kernel k;
};

/* The program: reduce_fast(2) with Record<UserOp, A, true>, then combine_states<UserOp, A, true>. */
static cured_status make_user(cured_custom op, struct cr_comm_user *u)
{
    const char *src = cr_custom_request(op)->user->source;
    static const char tail[] = "\n// The rank-order combine (src/comm_custom.c).\n#include \"combine.cu\"\n";
    size_t len = strlen(src) + sizeof tail;
    if ((u->source = malloc(len)) == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    snprintf(u->source, len, "%s%s", src, tail);
    u->plain = u->state = *cr_custom_request(op);
    cr_request_state(&u->state);
    memset(&u->unit, 0, sizeof u->unit);
    u->unit.file = "user-op-comm.cu";
    u->unit.source = u->source;
    u->unit.block = BLOCK;
    u->unit.unroll = UNROLL;
    u->unit.nkernels = 2;
    snprintf(u->unit.kernels[0], sizeof u->unit.kernels[0],
             "%s<%s, UserOp::A, Record<UserOp, UserOp::A, true>, %d, %d>",
             u->state.ninputs == 2 ? "reduce_fast2" : "reduce_fast", cr_type_cxx(u->state.in), BLOCK, UNROLL);
    snprintf(u->unit.kernels[1], sizeof u->unit.kernels[1], "combine_states<UserOp, UserOp::A, true>");
    snprintf(u->unit.label, sizeof u->unit.label, "user-defined %s->%s state and combine",
             cr_type_name(u->state.in), cr_type_name(u->state.out));
    return CURED_SUCCESS;
}

/* The op's kernels in this communicator, compiled and loaded on first use. */
static cured_status user_for(cured_comm cc, cured_custom op, struct cr_comm_user **out)
{
    const char *src = cr_custom_request(op)->user->source;
    const size_t len = strlen(src);
    cured_status st = CURED_SUCCESS;
    pthread_mutex_lock(&cc->lock);
    for (size_t i = 0; i < cc->nusers; i++)
        if (strncmp(cc->users[i]->source, src, len) == 0 && cc->users[i]->source[len] == '\n') {
            *out = cc->users[i];
            pthread_mutex_unlock(&cc->lock);
            return CURED_SUCCESS;
        }
    /* Each entry is its own allocation: callers keep *out after the lock is released,
     * while other threads may grow the array. */
    struct cr_comm_user **grown = realloc(cc->users, (cc->nusers + 1) * sizeof *grown);
    struct cr_comm_user *u = grown ? calloc(1, sizeof *u) : NULL;
    if (grown != NULL)
        cc->users = grown;
    if (u == NULL) {
        st = cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    } else {
        CUcontext saved;
        if ((st = make_user(op, u)) == CURED_SUCCESS && (st = cr_enter(cc->h, &saved)) == CURED_SUCCESS) {
            st = cr_custom_load_budgeted(cc->h, &u->unit, &u->k, "cured_comm_custom_reduce_async");
            cr_leave(cc->h, saved);
        }
        if (st == CURED_SUCCESS) {
            grown[cc->nusers++] = u;
            *out = u;
        } else {
            free(u->source);
            free(u);
        }
    }
    pthread_mutex_unlock(&cc->lock);
    return st;
}

void cr_comm_users_free(cured_comm cc, int unload)
{
    for (size_t i = 0; i < cc->nusers; i++) {
        if (unload)
            cc->h->d->ModuleUnload(cc->users[i]->k.module);
        free(cc->users[i]->source);
        free(cc->users[i]);
    }
    free(cc->users);
    cc->users = NULL;
    cc->nusers = 0;
}

/* The two targets: the state kernel (the AUTO family's plan) and the combine (the comm family's). */
struct user_target {
    struct cr_comm_user *u;
    int combine;
};
static cured_status user_target(cured_handle h, const void *arg, struct cr_target *t)
{
    (void)h;
    const struct user_target *ut = arg;
    t->fam = ut->combine ? &cr_family_comm : &cr_family_auto;
    t->req = ut->combine ? &ut->u->plain : &ut->u->state;
    t->unit = &ut->u->unit;
    t->k = &ut->u->k;
    return CURED_SUCCESS;
}

/* A planned user op's call across the ranks (cr_comm_call): its request r is checked. */
cured_status cr_comm_custom(const struct cr_call *c, const struct cr_request *r)
{
    cured_comm cc = c->comm;
    cured_custom op = c->user;
    const void *x = c->in, *y = c->in2;
    const size_t n = c->n;
    void *out = c->out;
    const int host_out = c->host_out, two = r->ninputs == 2;
    const CUstream s = c->stream;
    if (cr_state_slot(r) > CR_COMM_SLOT_MAX) /* cannot happen: states are at most 32 bytes */
        return cr_fail(CURED_ERROR_INTERNAL, "a user op's state of %zu bytes", r->acc.size);
    /* the pointers' memory before the op's first compilation here, as the built-in operators' calls */
    cured_status st = cr_comm_check_memory(cc, r, x, two ? y : NULL, n, host_out ? NULL : out);
    struct cr_comm_user *u = NULL;
    if (st != CURED_SUCCESS || (st = user_for(cc, op, &u)) != CURED_SUCCESS)
        return st;
    struct user_target state = {u, 0}, comb = {u, 1};
    const CUdeviceptr dst = host_out ? cc->result : (CUdeviceptr)(uintptr_t)out;
    st = cr_reduce_run(cc->h, &u->state, x, two ? y : NULL, n, (void *)(uintptr_t)cr_comm_mine(cc, &u->state, 1), 0,
                       s, user_target, &state);
    if (st == CURED_SUCCESS)
        st = cr_comm_finish(cc, r, 1, dst, s, user_target, &comb);
    if (st == CURED_SUCCESS && host_out)
        st = cr_comm_read_back(cc, r, cr_state_slot(&u->state), out, s);
    return st;
}
