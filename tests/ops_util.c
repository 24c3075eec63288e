/* Shared pieces of the test-ops suite; see ops_test.h. */
#include "ops_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ops_reduced(void)
{
    const char *env = getenv("CURED_TEST_NO_HUGE");
    return env != NULL && *env != '\0' && strcmp(env, "0") != 0;
}

size_t ops_big(void)
{
    return ops_reduced() ? ((size_t)1 << 14) + 7 : ((size_t)1 << 20) + 7;
}

size_t ops_mid(void)
{
    return ops_reduced() ? ((size_t)1 << 12) + 5 : (size_t)3 * 256 * 4 * 16 + 5;
}

/* ---- cached inputs ---------------------------------------------------------------- */

#define MAX_INPUTS (CURED_TYPE_COUNT * FL_COUNT) /* every (type, data kind) pair */
static struct ops_input inputs[MAX_INPUTS];
static int ninputs;

const struct ops_input *ops_input(cured_type t, enum ref_flavour fl)
{
    for (int i = 0; i < ninputs; i++)
        if (inputs[i].type == t && inputs[i].fl == fl)
            return &inputs[i];
    ck_assert_msg(ninputs < MAX_INPUTS, "test bug: more than %d inputs in one test", MAX_INPUTS);
    struct ops_input *in = &inputs[ninputs];
    const size_t n = ops_big() + 16, bytes = n * ref_size(t);
    in->host = ops_malloc(bytes);
    ninputs++;
    in->type = t;
    in->fl = fl;
    in->n = n;
    struct rng r;
    rng_init(&r, "ops-input", (long)t * FL_COUNT + (long)fl);
    ref_fill(t, fl, &r, in->host, n);
    in->dev = dev_alloc(bytes);
    upload(in->dev, in->host, bytes);
    return in;
}

/* Host memory that a failing test (which longjmps out) must not leak. */
#define MAX_BLOCKS 96
static void *blocks[MAX_BLOCKS];

void *ops_malloc(size_t bytes)
{
    int k = 0;
    while (k < MAX_BLOCKS && blocks[k] != NULL)
        k++;
    ck_assert_msg(k < MAX_BLOCKS, "test bug: more than %d live host blocks", MAX_BLOCKS);
    void *p = calloc(1, bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "out of host memory for %zu bytes", bytes);
    blocks[k] = p;
    return p;
}

void ops_free(void *p)
{
    if (p == NULL)
        return;
    for (int k = 0; k < MAX_BLOCKS; k++)
        if (blocks[k] == p) {
            blocks[k] = NULL;
            free(p);
            return;
        }
    ck_abort_msg("test bug: ops_free of an untracked block");
}

void ops_setup(void)
{
    gpu_setup();
}

void ops_teardown(void)
{
    for (int k = 0; k < MAX_BLOCKS; k++) {
        free(blocks[k]);
        blocks[k] = NULL;
    }
    memset(inputs, 0, sizeof inputs);
    ninputs = 0;
    gpu_teardown(); /* frees the device memory, the inputs' copies too */
}

/* ---- checks shared by the batches and the synchronous calls ----------------------------- */

void ops_expect_poison(const unsigned char *p, size_t from, size_t to, const char *what)
{
    for (size_t k = from; k < to; k++)
        ck_assert_msg(p[k] == POISON_BYTE, "%s: byte %zu was written (0x%02x) though it is not part of %s (seed %llu)",
                      what, k, p[k], from == 0 ? "any result (the call failed)" : "the result", test_seed);
}

/* The bytes of a result that the library writes (asynchronous calls write
 * only the value's bytes of an ARG result; the synchronous ones copy 16). */
static void check_slot(const struct ops_case *c, const unsigned char *got, int async)
{
    if (c->status != CURED_SUCCESS) {
        ops_expect_poison(got, 0, OPS_SLOT, c->what);
        return;
    }
    ref_check(c->op, c->in, c->out, got, &c->r, c->what);
    size_t size = ref_result_size(c->op, c->out);
    if (c->r.is_arg && async)
        ops_expect_poison(got, 8 + ref_size(c->in), 16, c->what);
    ops_expect_poison(got, size, OPS_SLOT, c->what);
}

int ops_offered(cured_op op, cured_type in, cured_type out)
{
    struct cr_request req;
    int offered = cr_request_make(op, CURED_ALGO_AUTO, in, out, &req) == CURED_SUCCESS;
    if (!offered) /* the probe's message must not show up in a later failure's */
        cr_fail(CURED_SUCCESS, "%s", "");
    return offered;
}

/* ---- batches ---------------------------------------------------------------------------- */

void ops_begin(struct ops_batch *b, size_t cap)
{
    b->stream = stream_new();
    b->count = 0;
    b->cap = cap;
    b->cases = ops_malloc(cap * sizeof *b->cases);
    b->slots = dev_alloc((cap + 1) * OPS_SLOT);
    poison(b->slots, (cap + 1) * OPS_SLOT);
}

static cured_status call(cured_op op, cured_type in, cured_type out, CUdeviceptr x, CUdeviceptr y, size_t n,
                         void *res, int async, CUstream s)
{
    if (op == CURED_OP_DOT)
        return async ? cured_dot_async(H, DP(x), DP(y), in, n, res, out, s)
                     : cured_dot(H, DP(x), DP(y), in, n, res, out, s);
    if (op == CURED_OP_EXACT_DOT)
        return async ? cured_exact_dot_async(H, DP(x), DP(y), in, n, res, out, s)
                     : cured_exact_dot(H, DP(x), DP(y), in, n, res, out, s);
    return async ? cured_reduce_async(H, op, CURED_ALGO_AUTO, DP(x), in, n, res, out, s)
                 : cured_reduce(H, op, CURED_ALGO_AUTO, DP(x), in, n, res, out, s);
}

void ops_add(struct ops_batch *b, cured_op op, cured_type in, cured_type out, CUdeviceptr x, CUdeviceptr y,
             size_t n, const struct ref_result *r, const char *what)
{
    ck_assert_msg(b->count < b->cap, "test bug: batch of %zu is full", b->cap);
    struct ops_case *c = &b->cases[b->count];
    c->op = op;
    c->in = in;
    c->out = out;
    c->r = *r;
    snprintf(c->what, sizeof c->what, "async %s", what);
    CUdeviceptr slot = b->slots + (b->count + 1) * OPS_SLOT;
    c->status = call(op, in, out, x, y, n, DP(slot), 1, b->stream);
    /* The asynchronous call cannot see an all-NaN input: it succeeds and writes NaN / -1. */
    expect_status(c->status, r->status == CURED_ERROR_EMPTY_INPUT ? r->status : CURED_SUCCESS, c->what);
    b->count++;
}

void ops_finish(struct ops_batch *b)
{
    CU_OK(D->StreamSynchronize(b->stream));
    size_t bytes = (b->count + 1) * OPS_SLOT;
    unsigned char *got = ops_malloc(bytes);
    download(got, b->slots, bytes);
    ops_expect_poison(got, 0, OPS_SLOT, "the guard slot before the first result");
    for (size_t i = 0; i < b->count; i++)
        check_slot(&b->cases[i], got + (i + 1) * OPS_SLOT, 1);
    ops_free(got);
    ops_free(b->cases);
    b->cases = NULL;
    dev_free(b->slots);
    b->slots = 0;
    b->count = 0;
}

void ops_sync(cured_op op, cured_type in, cured_type out, CUdeviceptr x, CUdeviceptr y, size_t n,
              const struct ref_result *r, const char *what, CUstream stream)
{
    struct ops_case c;
    c.op = op;
    c.in = in;
    c.out = out;
    c.r = *r;
    snprintf(c.what, sizeof c.what, "sync (%s stream) %s", stream ? "a created" : "the default", what);
    unsigned char host[OPS_SLOT];
    memset(host, POISON_BYTE, sizeof host);
    c.status = call(op, in, out, x, y, n, host, 0, stream);
    expect_status(c.status, r->status, c.what);
    check_slot(&c, host, 0);
}

void ops_both(struct ops_batch *b, cured_op op, cured_type in, cured_type out, const void *h, CUdeviceptr d,
              size_t n, struct ref_result *r, const char *what)
{
    ref_reduce(op, in, out, h, NULL, n, 1, r);
    ops_add(b, op, in, out, d, 0, n, r, what);
    ops_sync(op, in, out, d, 0, n, r, what, b->stream);
}
