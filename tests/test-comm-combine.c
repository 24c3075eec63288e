/*
 * The rank-order combine of state records (src/state.c), off the GPU:
 * random integer data cut into shards at random points (empty shards, ties
 * of the extreme on both sides of a shard boundary), each shard reduced on
 * the host to its record, the records combined by cr_state_combine_host,
 * against the host reduction of the whole array: the rule that
 * kernels-src/combine.cu runs (test-gpu-nccl checks the device against
 * cured_reduce_async). Then every state and combine kernel of every
 * offered (operator, type) with its default result, and a segmented state
 * kernel of int32 and float32 inputs, compiles with NVRTC for sm_90
 * (skipped without NVRTC; CURED_TEST_FULL=1: every result type and
 * input, as the GPU host runs it; CURED_TEST_QUICK=1: a quarter).
 */
#include "api_test.h"
#include "../tools/pool.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define MAXR 9

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* Value i of t as a 64-bit integer (signed ones sign-extended). */
static uint64_t get(cured_type t, const void *b, size_t i)
{
    switch (t) {
    case CURED_TYPE_INT8: return (uint64_t)(int64_t)((const int8_t *)b)[i];
    case CURED_TYPE_UINT8: return ((const uint8_t *)b)[i];
    case CURED_TYPE_INT32: return (uint64_t)(int64_t)((const int32_t *)b)[i];
    case CURED_TYPE_UINT32: return ((const uint32_t *)b)[i];
    default: return ((const uint64_t *)b)[i];
    }
}

static int lt(cured_type t, uint64_t a, uint64_t b)
{
    return (t == CURED_TYPE_INT8 || t == CURED_TYPE_INT32 || t == CURED_TYPE_INT64) ? (int64_t)a < (int64_t)b : a < b;
}

/* The host reduction of x[0..n) as the record's state (raw: in the
 * accumulator's scalar) or result; *v2 the max for MINMAX, *idx the ARG index. */
static uint64_t reduce(const struct cr_request *r, const void *x, size_t n, uint64_t *v2, int64_t *idx)
{
    uint64_t a = 0, b = 0;
    *idx = -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = get(r->in, x, i);
        switch (r->op) {
        case CURED_OP_SUM: a += v; break;
        case CURED_OP_PRODUCT: a = i ? a * v : v; break;
        case CURED_OP_AND: a = i ? a & v : v; break;
        case CURED_OP_OR: a |= v; break;
        case CURED_OP_XOR: a ^= v; break;
        case CURED_OP_COUNT_NONZERO: a += v != 0; break;
        case CURED_OP_MIN: case CURED_OP_ARGMIN: if (!i || lt(r->in, v, a)) a = v, *idx = (int64_t)i; break;
        case CURED_OP_MAX: case CURED_OP_ARGMAX: if (!i || lt(r->in, a, v)) a = v, *idx = (int64_t)i; break;
        case CURED_OP_MINMAX:
            if (!i || lt(r->in, v, a)) a = v;
            if (!i || lt(r->in, b, v)) b = v;
            break;
        default: ck_abort_msg("no host reference for %s", cured_op_name(r->op));
        }
    }
    *v2 = b;
    return a;
}

static void put(void *p, size_t size, uint64_t v)
{
    memcpy(p, &v, size);
}

static const cured_op ops[] = {CURED_OP_SUM, CURED_OP_PRODUCT, CURED_OP_MIN, CURED_OP_MAX, CURED_OP_MINMAX,
                               CURED_OP_ARGMIN, CURED_OP_ARGMAX, CURED_OP_AND, CURED_OP_OR, CURED_OP_XOR,
                               CURED_OP_COUNT_NONZERO};
static const struct { cured_type in, out; } types[] = {
    {CURED_TYPE_INT32, CURED_TYPE_INT64}, {CURED_TYPE_INT8, CURED_TYPE_INT8}, {CURED_TYPE_UINT8, CURED_TYPE_UINT8},
    {CURED_TYPE_INT32, CURED_TYPE_INT32}, {CURED_TYPE_UINT32, CURED_TYPE_UINT64}, {CURED_TYPE_INT64, CURED_TYPE_INT64}};

/* Loop index: operator x type pair x trial. */
START_TEST(test_host_combine)
{
    const int nt = (int)(sizeof types / sizeof *types);
    const cured_op op = ops[_i / (nt * 8)];
    cured_type in = types[_i / 8 % nt].in, out = types[_i / 8 % nt].out;
    if (op == CURED_OP_COUNT_NONZERO)
        out = CURED_TYPE_INT64;
    else if (cr_op(op)->rule != CR_RULE_SUM)
        out = in;
    struct cr_request r;
    if (cr_request_make(op, CURED_ALGO_AUTO, in, out, &r) != CURED_SUCCESS)
        return; /* e.g. not offered for this pair */
    rng += (uint64_t)_i * 7919;
    const size_t es = cr_type_size(in);
    static unsigned char x[N * 8];
    const uint64_t span = 1 + next() % 7; /* few distinct values: ties everywhere */
    for (size_t i = 0; i < N; i++) {
        uint64_t v = (op == CURED_OP_PRODUCT ? 1 + next() % 3 : next() % span) - (in == CURED_TYPE_INT8 ? 3 : 0);
        put(x + i * es, es, v);
    }
    /* Cuts: some at 0 (empty first shards), some equal (empty middle ones). */
    const int nranks = 1 + (int)(next() % MAXR);
    size_t cut[MAXR + 1] = {0};
    for (int k = 1; k < nranks; k++)
        cut[k] = next() % 3 == 0 ? cut[k - 1] : cut[k - 1] + next() % (N - cut[k - 1] + 1);
    cut[nranks] = N;
    struct cr_request sr = r;
    cr_request_state(&sr);
    const size_t slot = cr_state_slot(&sr), rs = cr_type_size(out);
    const size_t ss = cr_state_raw(&r) ? cr_type_size(r.acc.scalar) : rs;
    unsigned char rec[MAXR * 40];
    memset(rec, 0xa5, sizeof rec);
    for (int k = 0; k < nranks; k++) {
        unsigned char *s = rec + (size_t)k * slot;
        uint64_t n = cut[k + 1] - cut[k], hi;
        int64_t idx;
        uint64_t v = reduce(&r, x + cut[k] * es, (size_t)n, &hi, &idx);
        memcpy(s, &n, 8);
        if (r.acc.layout == CR_LAYOUT_ARG) {
            memcpy(s + 8, &idx, 8);
            put(s + 16, rs, v);
        } else {
            put(s + 8, ss, v);
            if (r.acc.layout == CR_LAYOUT_PAIR)
                put(s + 8 + ss, ss, hi);
        }
    }
    unsigned char got[32], want[32];
    memset(got, 0x5a, sizeof got);
    memset(want, 0, sizeof want);
    ck_assert_msg(cr_state_combine_host(&r, rec, slot, nranks, got), "%s %s->%s: no host combine", cured_op_name(op),
                  cured_type_name(in), cured_type_name(out));
    uint64_t hi;
    int64_t idx;
    uint64_t v = reduce(&r, x, N, &hi, &idx);
    if (r.acc.layout == CR_LAYOUT_ARG) {
        memcpy(want, &idx, 8);
        put(want + 8, rs, v);
    } else {
        put(want, rs, v);
        if (r.acc.layout == CR_LAYOUT_PAIR)
            put(want + rs, rs, hi);
    }
    ck_assert_msg(memcmp(got, want, r.acc.result_size) == 0, "%s %s->%s over %d ranks: combined != whole",
                  cured_op_name(op), cured_type_name(in), cured_type_name(out), nranks);
}
END_TEST

/* The state and combine kernels of every offered request compile (sm_90
 * cubin), on every CPU at once (NVRTC is thread-safe): the units first,
 * then the pool compiles them, then each result is asserted. */
#define MAX_UNITS 2048
struct compile_jobs {
    struct cr_unit units[MAX_UNITS];
    cured_status st[MAX_UNITS];
    char msg[MAX_UNITS][160];
    size_t n;
};

static void compile_one(void *user, size_t i)
{
    struct compile_jobs *j = user;
    struct cr_image img;
    j->st[i] = cr_jit_compile(&j->units[i], 90, 0, &img);
    if (j->st[i] == CURED_SUCCESS)
        cr_image_free(&img);
    else
        snprintf(j->msg[i], sizeof j->msg[i], "%s", cured_last_error());
}

/* Progress in the log, every 100 units. */
static void compiled_one(void *user, size_t i, size_t finished)
{
    const struct compile_jobs *j = user;
    (void)i;
    if (finished % 100 == 0 || finished == j->n) {
        printf("compiled %zu/%zu state and combine units\n", finished, j->n);
        fflush(stdout);
    }
}

START_TEST(test_units_compile)
{
    int major, minor;
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        printf("skipped: no NVRTC\n");
        return;
    }
    static struct compile_jobs j;
    /* By default each (operator, element type) with its default result
     * type, and the segmented state kernel for int32 and float32 inputs
     * only (~280 units, a minute of one CPU); CURED_TEST_FULL=1: every
     * offered result type and every input's segmented kernel (849 units;
     * the GPU host's run sets it). CURED_TEST_QUICK=1: a quarter of the default. */
    const char *quick = getenv("CURED_TEST_QUICK"), *full = getenv("CURED_TEST_FULL");
    const int every = quick && strcmp(quick, "1") == 0 ? 4 : 1, all = full && strcmp(full, "1") == 0;
    int seen = 0;
    j.n = 0;
    for (int op = 0; op < CURED_OP_COUNT; op++)
        for (int in = 0; in < CURED_TYPE_COUNT; in++)
            for (int out = 0; out < CURED_TYPE_COUNT; out++) {
                struct cr_request r;
                cured_type def;
                if (op == CURED_OP_DOT || !cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, NULL) ||
                    (!all && (cured_default_result((cured_op)op, (cured_type)in, &def) != CURED_SUCCESS ||
                              (int)def != out)) ||
                    seen++ % every != 0)
                    continue;
                ck_assert_int_eq(cr_request_make((cured_op)op, CURED_ALGO_AUTO, (cured_type)in, (cured_type)out, &r),
                                 CURED_SUCCESS);
                struct cr_request s = r, c = r, seg;
                cr_request_state(&s);
                c.shape = CR_SHAPE_COMBINE;
                seg = s; /* the axis path's state kernels (segmented.cu): two of its shapes */
                seg.shape = seen % 2 ? CR_SHAPE_STRIDED : CR_SHAPE_ROWS_SPLIT;
                const struct cr_request *reqs[3] = {&s, &c, &seg};
                const int seg_too = all || in == CURED_TYPE_INT32 || in == CURED_TYPE_FLOAT32;
                const int nreq = cr_op(r.op)->flags & CR_OP_STATS || !seg_too ? 2 : 3; /* no statistics along axes */
                for (int k = 0; k < nreq; k++) {
                    ck_assert_uint_lt(j.n, MAX_UNITS);
                    cr_family_for(reqs[k])->build(reqs[k], &j.units[j.n++]);
                }
            }
    ck_assert_int_eq(pool_run(j.n, pool_cpus(), compile_one, compiled_one, &j), 0);
    for (size_t i = 0; i < j.n; i++)
        ck_assert_msg(j.st[i] == CURED_SUCCESS, "%s: %s", j.units[i].label, j.msg[i]);
    printf("%zu state and combine units compiled\n", j.n);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm-combine");
    TCase *tc = tcase_create("host");
    const int nt = (int)(sizeof types / sizeof *types), nops = (int)(sizeof ops / sizeof *ops);
    tcase_add_loop_test(tc, test_host_combine, 0, nops * nt * 8);
    suite_add_tcase(s, tc);
    TCase *jit = tcase_create("compile");
    tcase_set_timeout(jit, 600);
    tcase_add_test(jit, test_units_compile);
    suite_add_tcase(s, jit);
    return run_suite(s);
}
