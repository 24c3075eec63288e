/*
 * cured-multirank's check groups. Every rank makes the same calls in the same
 * order (NCCL's rule); each case runs R times on every rank (the repeats must
 * give the same bits), then one ncclAllGather of the first result's bytes
 * lets rank 0 compare every rank's with its own and with the single-GPU call
 * on the concatenated input (bitwise where cured.h promises it, else
 * mr_close()'s bound).
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "multirank.h"
#include "oracle.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DP(p) ((void *)(uintptr_t)(p))
#define PAD 16 /* poisoned bytes past each result: nothing may write there */

enum kind { K_REDUCE, K_DOT, K_STATS, K_CUSTOM, K_AXES, K_AXES_STATS };
struct mr_case {
    enum mr_group g;
    enum kind kind;
    cured_op op;
    cured_type in, out;
    size_t bytes, count; /* result bytes; values for mr_close() */
    int exact, promised; /* bitwise with one GPU; bitwise across ranks and repeats */
    double ddof, n, s1, s2;
    unsigned flags;
    cured_custom custom;
    const struct mr_shards *s;
};

static const char *const group_names[G_COUNT] = {"every operator x type x result", "dot", "statistics ddof 0",
                                                 "statistics ddof 1", "user-defined ops", "axes (CURED_COMM_BITWISE)",
                                                 "axes (default flags)"};

/* Does cured_reduce offer (op, in, out)? The argument checks answer before anything runs. */
static int offered(cured_handle h, cured_op op, cured_type in, cured_type out)
{
    const cured_status st = cured_reduce_async(h, op, CURED_ALGO_AUTO, NULL, in, 0, NULL, out, NULL);
    return st == CURED_ERROR_NULL_POINTER || st == CURED_ERROR_EMPTY_INPUT;
}

/* This rank's call (reference = 0) or rank 0's single-GPU call on the whole array (1). */
static cured_status issue(struct mr_rank *r, const struct mr_case *c, int reference)
{
    const struct mr_shards *s = c->s;
    const size_t n = reference ? (size_t)(s->rows * s->cols) : (size_t)(s->len[r->rank] * s->cols);
    const void *x = reference ? DP(r->whole) : n ? DP(r->shard) : NULL; /* an empty shard: NULL */
    const void *y = reference ? DP(r->whole2) : n ? DP(r->shard2) : NULL;
    void *out = DP(reference ? r->ref : r->out);
    const cured_layout lay = {2, {reference ? s->rows : s->len[r->rank], s->cols}, {s->cols, 1}};
    const void *slab = DP(reference ? r->whole : r->shard);
    switch (c->kind) {
    case K_REDUCE:
        return reference ? cured_reduce_async(r->h, c->op, CURED_ALGO_AUTO, x, c->in, n, out, c->out, r->stream)
                         : cured_comm_reduce_async(r->cc, c->op, x, c->in, n, out, c->out, 0, r->stream);
    case K_DOT:
        return reference ? cured_dot_async(r->h, x, y, c->in, n, out, c->out, r->stream)
                         : cured_comm_dot_async(r->cc, x, y, c->in, n, out, c->out, 0, r->stream);
    case K_STATS:
        return reference ? cured_reduce_stats_async(r->h, c->op, x, c->in, n, c->ddof, out, c->out, r->stream)
                         : cured_comm_reduce_stats_async(r->cc, c->op, x, c->in, n, c->ddof, out, c->out, 0, r->stream);
    case K_CUSTOM:
        return reference ? cured_custom_reduce_async(r->h, c->custom, x, NULL, n, out, r->stream)
                         : cured_comm_custom_reduce_async(r->cc, c->custom, x, NULL, n, out, 0, r->stream);
    case K_AXES:
        return reference ? cured_reduce_axes_async(r->h, c->op, slab, c->in, &lay, 1, out, c->out, NULL, r->stream)
                         : cured_comm_reduce_axes_async(r->cc, c->op, slab, c->in, &lay, 1, out, c->out, c->flags,
                                                        r->stream);
    default:
        return reference ? cured_reduce_axes_stats_async(r->h, c->op, slab, c->in, &lay, 1, c->ddof, out, c->out,
                                                         NULL, r->stream)
                         : cured_comm_reduce_axes_stats_async(r->cc, c->op, slab, c->in, &lay, 1, c->ddof, out,
                                                              c->out, c->flags, r->stream);
    }
}

static void say(struct mr_rank *r, const struct mr_case *c, const char *what, const unsigned char *a,
                const unsigned char *b)
{
    if (r->printed++ >= 20)
        return;
    printf("rank %d: %s: %s %s -> %s (ddof %g, flags %u):", r->rank, what, cured_op_name(c->op),
           cured_type_name(c->in), cured_type_name(c->out), c->ddof, c->flags);
    for (size_t k = 0; k < 16 && k < c->bytes; k++)
        printf(" %02x/%02x", a[k], b[k]);
    printf("\n");
}

static int cu_ok(struct mr_rank *r, CUresult e, const char *what)
{
    if (e != CUDA_SUCCESS)
        printf("rank %d: %s: %s\n", r->rank, what, cr_driver_error_text(e));
    return e == CUDA_SUCCESS;
}

/* Run one case on every rank and count what differs. */
static void run_case(struct mr_rank *r, const struct mr_case *c)
{
    struct mr_counts *k = &r->counts[c->g];
    const struct cr_driver_all *d = r->d;
    const size_t p = c->bytes + PAD;
    k->cases++;
    for (int rep = 0; rep < r->repeats; rep++) {
        cured_status st = CURED_ERROR_CUDA;
        if (cu_ok(r, d->MemsetD8Async(r->out, 0xa5, p, r->stream), "poison"))
            st = issue(r, c, 0);
        if (st != CURED_SUCCESS) {
            k->errors++;
            if (r->printed++ < 20)
                printf("rank %d: %s %s -> %s: %s: %s\n", r->rank, cured_op_name(c->op), cured_type_name(c->in),
                       cured_type_name(c->out), cured_status_string(st), cured_last_error());
        }
        if (!cu_ok(r, d->StreamSynchronize(r->stream), "the call") ||
            !cu_ok(r, d->MemcpyDtoH(rep ? r->cur : r->first, r->out, p), "download")) {
            k->errors++;
            continue;
        }
        if (rep > 0 && memcmp(r->first, r->cur, p) != 0) {
            if (c->promised) {
                k->repeat_bad++;
                say(r, c, "repeat differs", r->first, r->cur);
            } else {
                k->unpromised++;
            }
        }
    }
    /* Every rank's first result to every rank, then rank 0 compares. */
    int e = 0;
    if (!cu_ok(r, d->MemcpyHtoD(r->send, r->first, p), "upload") ||
        (e = mr_nccl.AllGather(DP(r->send), DP(r->gather), p, MR_NCCL_UINT8, r->comm, r->stream)) != 0 ||
        !cu_ok(r, d->StreamSynchronize(r->stream), "allgather") ||
        !cu_ok(r, d->MemcpyDtoH(r->all, r->gather, p * (size_t)r->nranks), "download")) {
        if (e)
            printf("rank %d: ncclAllGather: %s\n", r->rank, mr_nccl.GetErrorString(e));
        k->errors++;
        return;
    }
    if (r->rank != 0)
        return;
    for (int q = 1; q < r->nranks; q++)
        if (memcmp(r->all + (size_t)q * p, r->all, p) != 0) {
            if (c->promised) {
                k->rank_bad++;
                say(r, c, "ranks differ", r->all, r->all + (size_t)q * p);
            } else {
                k->unpromised++;
            }
        }
    cured_status st = CURED_ERROR_CUDA;
    if (cu_ok(r, d->MemsetD8Async(r->ref, 0xa5, p, r->stream), "poison"))
        st = issue(r, c, 1);
    if (st != CURED_SUCCESS || !cu_ok(r, d->StreamSynchronize(r->stream), "reference") ||
        !cu_ok(r, d->MemcpyDtoH(r->want, r->ref, p), "download")) {
        printf("rank 0: the single-GPU call: %s: %s\n", cured_status_string(st), cured_last_error());
        k->errors++;
        return;
    }
    const int same = memcmp(r->all + c->bytes, r->want + c->bytes, PAD) == 0 &&
                     (c->exact ? mr_same_latitude(c->op, c->out, r->all, r->want, c->bytes)
                               : mr_close(c->op, c->in, c->out, r->all, r->want, c->count, c->n, c->s1, c->s2,
                                          c->ddof));
    c->exact ? k->exact++ : k->tolerant++;
    if (!same) {
        k->ref_bad++;
        say(r, c, c->exact ? "differs from one GPU (bitwise)" : "beyond the bound from one GPU", r->all, r->want);
    }
}

/* This rank's shard (and rank 0's whole array) of (type, flavour); DOT's y from seed + 1. */
static int upload(struct mr_rank *r, const struct mr_shards *s, cured_type t, enum mr_flavour f)
{
    const size_t size = cured_type_size(t);
    for (int second = 0; second < 2; second++) {
        const uint64_t seed = r->seed + (uint64_t)second;
        mr_fill(s, t, f, seed, s->start[r->rank], s->len[r->rank], r->host);
        const size_t bytes = (size_t)(s->len[r->rank] * s->cols) * size;
        if (bytes && !cu_ok(r, r->d->MemcpyHtoD(second ? r->shard2 : r->shard, r->host, bytes), "upload"))
            return -1;
        if (r->rank != 0)
            continue;
        const size_t n = (size_t)(s->rows * s->cols);
        mr_fill(s, t, f, seed, 0, s->rows, r->host);
        if (!cu_ok(r, r->d->MemcpyHtoD(second ? r->whole2 : r->whole, r->host, n * size), "upload"))
            return -1;
        if (second) { /* sum |x y|: regenerate x beside y */
            double sxy = 0;
            mr_fill(s, t, f, r->seed, 0, s->rows, r->host + n * size);
            for (size_t i = 0; i < n; i++)
                sxy += fabs(mr_value(t, r->host, i) * mr_value(t, r->host + n * size, i));
            r->sxy = sxy;
        } else {
            r->s1 = r->s2 = 0;
            for (size_t i = 0; i < n; i++) {
                const double v = mr_value(t, r->host, i);
                r->s1 += fabs(v), r->s2 += v * v;
            }
        }
    }
    return 0;
}

/* The data of an operator, by its kind in the tests' oracle (tests/oracle.h). */
static enum mr_flavour flavour_of(cured_op op, int nan)
{
    const struct ref_op *o = ref_op(op);
    switch (o->kind) {
    case REF_PRODUCT: return MRF_PROD;
    case REF_BITWISE: return o->data == FL_AND ? MRF_AND : o->data == FL_OR ? MRF_OR : MRF_BITS;
    case REF_EXTREME: case REF_ARG: return nan ? MRF_NAN : MRF_TIES;
    default: return MRF_REAL;
    }
}

/* cured.h's cured_comm: which results equal the single GPU's bit for bit (sums and statistics
 * of floats, or into floats, round differently across ranks). */
static int exact_with_one_gpu(int nranks, cured_op op, cured_type out)
{
    switch (ref_op(op)->kind) {
    case REF_SUM_LIKE: case REF_PRODUCT: case REF_STATS: return nranks == 1 || !mr_is_float(out);
    default: return 1; /* extremes, ARG, bitwise, COUNT_NONZERO */
    }
}

static struct mr_case make_case(struct mr_rank *r, enum mr_group g, enum kind kind, cured_op op, cured_type in,
                                cured_type out, const struct mr_shards *s)
{
    struct mr_case c = {g, kind, op, in, out, mr_result_bytes(op, out), 0, exact_with_one_gpu(r->nranks, op, out),
                        1, 0, (double)(s->rows * s->cols), r->s1, r->s2, 0, NULL, s};
    c.count = c.bytes / cured_type_size(out);
    if (kind == K_DOT)
        c.s1 = r->sxy;
    return c;
}

static int whole_array_groups(struct mr_rank *r, const struct mr_shards *s)
{
    for (int in = 0; in < CURED_TYPE_COUNT; in++)
        for (int f = 0; f < MRF_COUNT; f++) {
            int loaded = 0;
            for (int op = 0; op < CURED_OP_COUNT; op++) {
                const int nan_pass = f == MRF_NAN;
                if (op == CURED_OP_DOT || flavour_of((cured_op)op, nan_pass) != (enum mr_flavour)f ||
                    (nan_pass && !mr_is_float((cured_type)in)))
                    continue;
                for (int out = 0; out < CURED_TYPE_COUNT; out++) {
                    if (!offered(r->h, (cured_op)op, (cured_type)in, (cured_type)out))
                        continue;
                    if (!loaded && upload(r, s, (cured_type)in, (enum mr_flavour)f) != 0)
                        return -1;
                    loaded = 1;
                    struct mr_case c = make_case(r, G_OPS, K_REDUCE, (cured_op)op, (cured_type)in, (cured_type)out, s);
                    run_case(r, &c);
                    if (f == MRF_REAL && ref_op(op)->kind == REF_STATS) /* the statistics again, with a ddof */
                        for (int ddof = 0; ddof < 2; ddof++) {
                            c = make_case(r, ddof ? G_STATS1 : G_STATS0, K_STATS, (cured_op)op, (cured_type)in,
                                          (cured_type)out, s);
                            c.ddof = ddof;
                            run_case(r, &c);
                        }
                }
            }
            if (f == MRF_REAL)
                for (int out = 0; out < CURED_TYPE_COUNT; out++)
                    if (offered(r->h, CURED_OP_DOT, (cured_type)in, (cured_type)out)) {
                        if (!loaded && upload(r, s, (cured_type)in, MRF_REAL) != 0)
                            return -1;
                        loaded = 1;
                        struct mr_case c = make_case(r, G_DOT, K_DOT, CURED_OP_DOT, (cured_type)in, (cured_type)out, s);
                        run_case(r, &c);
                    }
        }
    return 0;
}

/* Integer combines (the bits of cured_custom_reduce_async), a multi-field op
 * whose finalize reads the global n, and a float sum (up to rounding). */
static int custom_group(struct mr_rank *r, const struct mr_shards *s)
{
    cured_custom ops[3] = {NULL, NULL, NULL};
    const cured_custom_field f[2] = {{CURED_TYPE_INT64, "x", "a0 + b0", "0"},
                                     {CURED_TYPE_INT64, "(long long)x * x", "a1 + b1", "0"}};
    const char *fin[2] = {"(double)a0 / n", "(double)a1 / n"};
    cured_status st = cured_custom_create(r->h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "(long long)x * x", "a + b",
                                          "0", &ops[0]);
    if (st == CURED_SUCCESS)
        st = cured_custom_create_multi(r->h, CURED_TYPE_INT32, 1, f, 2, CURED_TYPE_FLOAT64, fin, 2, &ops[1]);
    if (st == CURED_SUCCESS)
        st = cured_custom_create(r->h, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "(double)x", "a + b", "0", &ops[2]);
    if (st != CURED_SUCCESS) {
        printf("rank %d: cured_custom_create: %s: %s\n", r->rank, cured_status_string(st), cured_last_error());
        return -1;
    }
    for (int k = 0; k < 3; k++) {
        const cured_type in = k < 2 ? CURED_TYPE_INT32 : CURED_TYPE_FLOAT32;
        if (upload(r, s, in, MRF_REAL) != 0)
            return -1;
        struct mr_case c = make_case(r, G_CUSTOM, K_CUSTOM, CURED_OP_SUM, in,
                                     k == 0 ? CURED_TYPE_INT64 : CURED_TYPE_FLOAT64, s);
        c.custom = ops[k];
        c.bytes = k == 1 ? 16 : 8, c.count = c.bytes / 8;
        c.exact = k < 2;
        run_case(r, &c);
        cured_custom_destroy(ops[k]);
    }
    return 0;
}

/* Axis 0 of a rows x 300 array sharded by rows: chunks of states, and ncclAllReduce where it applies. */
static int axes_groups(struct mr_rank *r, const struct mr_shards *s)
{
    static const struct { cured_op op; cured_type in, out; enum mr_flavour f; double ddof; } cases[] = {
        {CURED_OP_SUM, CURED_TYPE_INT32, CURED_TYPE_INT64, MRF_REAL, -1},
        {CURED_OP_SUM, CURED_TYPE_INT64, CURED_TYPE_INT64, MRF_REAL, -1},
        {CURED_OP_SUM, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, MRF_REAL, -1},
        {CURED_OP_PRODUCT, CURED_TYPE_UINT32, CURED_TYPE_UINT32, MRF_PROD, -1},
        {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, MRF_TIES, -1},
        {CURED_OP_ARGMIN, CURED_TYPE_INT32, CURED_TYPE_INT32, MRF_TIES, -1},
        {CURED_OP_NANARGMAX, CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64, MRF_NAN, -1},
        {CURED_OP_MINMAX, CURED_TYPE_INT16, CURED_TYPE_INT16, MRF_TIES, -1},
        {CURED_OP_MIN, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, MRF_NAN, -1},
        {CURED_OP_MAX, CURED_TYPE_INT64, CURED_TYPE_INT64, MRF_TIES, -1},
        {CURED_OP_XOR, CURED_TYPE_UINT8, CURED_TYPE_UINT8, MRF_BITS, -1},
        {CURED_OP_MEAN, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, MRF_REAL, 0},
        {CURED_OP_VAR, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, MRF_REAL, 1},
        {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64, MRF_REAL, 1},
        {CURED_OP_LOGSUMEXP, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, MRF_REAL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (upload(r, s, cases[i].in, cases[i].f) != 0)
            return -1;
        for (unsigned flags = 0; flags < 2; flags++) {
            const int stats = cases[i].ddof >= 0;
            struct mr_case c = make_case(r, flags ? G_AXES_BITWISE : G_AXES_DEFAULT, stats ? K_AXES_STATS : K_AXES,
                                         cases[i].op, cases[i].in, cases[i].out, s);
            c.flags = flags ? CURED_COMM_BITWISE : 0;
            c.ddof = stats ? cases[i].ddof : 0;
            c.bytes *= (size_t)s->cols, c.count *= (size_t)s->cols;
            c.n = (double)s->rows, c.s1 /= (double)s->cols, c.s2 /= (double)s->cols; /* per output */
            /* Floats through chunks or ncclAllReduce: up to rounding (cured.h). */
            c.exact = !mr_is_float(cases[i].out) || !(stats || cases[i].op == CURED_OP_SUM);
            /* ncclAllReduce of floats promises no bits across ranks or runs. */
            c.promised = flags || !mr_is_float(cases[i].out) ||
                         (cases[i].op != CURED_OP_SUM && cases[i].op != CURED_OP_PRODUCT);
            run_case(r, &c);
        }
    }
    return 0;
}

int mr_run_checks(struct mr_rank *r, const struct mr_shards *flat, const struct mr_shards *slab)
{
    memset(r->counts, 0, sizeof r->counts);
    if (whole_array_groups(r, flat) != 0 || custom_group(r, flat) != 0 || axes_groups(r, slab) != 0)
        return -1;
    return 0;
}

int mr_report(struct mr_rank *r)
{
    const size_t bytes = sizeof r->counts;
    int e = 0;
    if (!cu_ok(r, r->d->MemcpyHtoD(r->send, r->counts, bytes), "upload") ||
        (e = mr_nccl.AllGather(DP(r->send), DP(r->gather), bytes, MR_NCCL_UINT8, r->comm, r->stream)) != 0 ||
        !cu_ok(r, r->d->StreamSynchronize(r->stream), "allgather") ||
        !cu_ok(r, r->d->MemcpyDtoH(r->all, r->gather, bytes * (size_t)r->nranks), "download"))
        return 0;
    if (r->rank != 0)
        return 1;
    int ok = 1;
    struct mr_counts sum[G_COUNT];
    memcpy(sum, r->all, bytes); /* rank 0's cases and comparisons; every rank's repeats and errors */
    for (int q = 1; q < r->nranks; q++) {
        const struct mr_counts *o = (const struct mr_counts *)(r->all + bytes * (size_t)q);
        for (int g = 0; g < G_COUNT; g++)
            sum[g].repeat_bad += o[g].repeat_bad, sum[g].errors += o[g].errors, sum[g].unpromised += o[g].unpromised;
    }
    for (int g = 0; g < G_COUNT; g++) {
        const struct mr_counts *k = &sum[g];
        printf("%-32s %4lld cases (%lld bitwise, %lld within bounds vs 1 GPU): ranks differ %lld, 1 GPU differs %lld, "
               "repeats differ %lld (x%d), errors %lld, unpromised diffs %lld\n",
               group_names[g], (long long)k->cases, (long long)k->exact, (long long)k->tolerant,
               (long long)k->rank_bad, (long long)k->ref_bad, (long long)k->repeat_bad, r->repeats,
               (long long)k->errors, (long long)k->unpromised);
        ok &= k->cases > 0 && k->rank_bad == 0 && k->ref_bad == 0 && k->repeat_bad == 0 && k->errors == 0;
    }
    return ok;
}
