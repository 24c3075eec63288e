/*
 * The rank-order combine of state records (src/state.c), off the GPU:
 * random integer data cut into shards at random points (empty shards, ties
 * of the extreme on both sides of a shard boundary), each shard reduced on
 * the host to its record, the records combined by cr_state_combine_host,
 * against the host reduction of the whole array: the rule that
 * kernels-src/combine.cu runs (test-gpu-nccl checks the device against
 * cured_reduce_async). DOT's partial sums likewise; the moments' states
 * (MEAN, VAR, STD, MEAN_VAR with ddof 0, 1, 2, 0.5) merged by stats.cuh's
 * formulas against a long double two-pass, for shards about far-apart
 * means, of one element or none, with an inf, or n <= ddof. Then every
 * state and combine kernel of every offered (operator, type) with its
 * default result (DOT's too), and a segmented state kernel of int32 and
 * float32 inputs (the statistics' included), compiles with NVRTC for
 * compute_90 PTX, every 16th unit an sm_90 cubin (skipped without NVRTC; CURED_TEST_FULL=1: every result type and
 * input, as the GPU host runs it; CURED_TEST_QUICK=1: a quarter).
 */
#include "api_test.h"
#include "jit_batch.h"
#include "ops_ref.h"
#include "state_host.h"

#include <math.h>
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

/* The host reduction of x[0..n) (the oracle, tests/oracle.h): the value (the record's
 * state, raw or result, as it holds integers modulo 2^64), *v2 the max for MINMAX, *idx
 * the ARG index. */
static uint64_t reduce(const struct cr_request *r, const void *x, const void *y, size_t n, uint64_t *v2,
                       int64_t *idx)
{
    struct ref_result ref;
    ref_reduce(r->op, r->in, r->out, x, y, n, 1, &ref);
    *v2 = ref.v[1].u;
    *idx = ref.is_arg ? ref.index : -1;
    return ref.v[0].u;
}

static void put(void *p, size_t size, uint64_t v)
{
    memcpy(p, &v, size);
}

static const struct { cured_type in, out; } types[] = {
    {CURED_TYPE_INT32, CURED_TYPE_INT64}, {CURED_TYPE_INT8, CURED_TYPE_INT8}, {CURED_TYPE_UINT8, CURED_TYPE_UINT8},
    {CURED_TYPE_INT32, CURED_TYPE_INT32}, {CURED_TYPE_UINT32, CURED_TYPE_UINT64}, {CURED_TYPE_INT64, CURED_TYPE_INT64}};

/* Loop index: operator x type pair x trial. */
START_TEST(test_host_combine)
{
    const int nt = (int)(sizeof types / sizeof *types);
    const cured_op op = (cured_op)(_i / (nt * 8)); /* every operator of the library's table */
    cured_type in = types[_i / 8 % nt].in, out = types[_i / 8 % nt].out;
    if (cr_op(op)->rule == CR_RULE_COUNT)
        out = CURED_TYPE_INT64;
    else if (cr_op(op)->rule != CR_RULE_SUM)
        out = in;
    struct cr_request r;
    if (cr_op(op)->flags & CR_OP_EXACT)
        return; /* integer digits, no host combine: test-gpu-exact checks them through a communicator */
    if (cr_request_make(op, CURED_ALGO_AUTO, in, out, &r) != CURED_SUCCESS)
        return; /* e.g. not offered for this pair */
    if (ref_is_float(r.out))
        return; /* integer records only (NORM2, the statistics: test_stats_combine, test-gpu-nccl) */
    rng += (uint64_t)_i * 7919;
    const size_t es = cr_type_size(in);
    static unsigned char x[N * 8], y[N * 8];
    const uint64_t span = 1 + next() % 7; /* few distinct values: ties everywhere */
    for (size_t i = 0; i < N; i++) {
        uint64_t v = (op == CURED_OP_PRODUCT ? 1 + next() % 3 : next() % span) - (in == CURED_TYPE_INT8 ? 3 : 0);
        put(x + i * es, es, v);
        put(y + i * es, es, next() % 5 - 2); /* DOT's second input: signs too */
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
        uint64_t v = reduce(&r, x + cut[k] * es, y + cut[k] * es, (size_t)n, &hi, &idx);
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
    uint64_t v = reduce(&r, x, y, N, &hi, &idx);
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

/* The moments' records (count, then the state) cut at random points, some
 * shards empty or of one element, merged in rank order, against a long
 * double two-pass over the whole array. Loop index: op x ddof x data. */
static const cured_op stat_ops[] = {CURED_OP_MEAN, CURED_OP_VAR, CURED_OP_STD, CURED_OP_MEAN_VAR};
static const double ddofs[] = {0, 1, 2, 0.5};
#define NDATA 6

START_TEST(test_stats_combine)
{
    const cured_op op = stat_ops[_i / (4 * NDATA * 2)];
    const double ddof = ddofs[_i / (NDATA * 2) % 4];
    const int data = _i / 2 % NDATA;
    const cured_type out = _i % 2 ? CURED_TYPE_FLOAT32 : CURED_TYPE_FLOAT64;
    struct cr_request r;
    ck_assert_int_eq(cr_request_make(op, CURED_ALGO_AUTO, out, out, &r), CURED_SUCCESS); /* float32 data: rounded */
    r.ddof = ddof;
    rng += (uint64_t)_i * 104729;
    static double x[N];
    /* 0: mean 1e8, std ~1; 1: each shard about its own mean (1e6 apart);
     * 2: magnitudes of 1e-30; 3: most shards empty or of one element;
     * 4: an inf (NaN variance); 5: at most 3 elements in all (n <= ddof). */
    const size_t n = data == 5 ? next() % 4 : N;
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(next() >> 11) / 9007199254740992.0 - 0.5;
        x[i] = data == 0 ? 1e8 + u : data == 1 ? u : data == 2 ? 1e-30 * u : 3 * u + 7;
    }
    if (data == 4)
        x[next() % N] = next() % 2 ? INFINITY : -INFINITY;
    for (size_t i = 0; i < n && out == CURED_TYPE_FLOAT32; i++)
        x[i] = (float)x[i];
    const int nranks = 1 + (int)(next() % MAXR);
    size_t cut[MAXR + 1] = {0};
    for (int k = 1; k < nranks; k++)
        cut[k] = data == 3           ? cut[k - 1] + next() % 2
                 : next() % 3 == 0 ? cut[k - 1]
                                   : cut[k - 1] + next() % (n - cut[k - 1] + 1);
    cut[nranks] = n;
    if (data == 1)
        for (int k = 0; k < nranks; k++)
            for (size_t i = cut[k]; i < cut[k + 1]; i++)
                x[i] += 1e6 * (k % 3);
    struct cr_request sr = r;
    cr_request_state(&sr);
    const size_t slot = cr_state_slot(&sr);
    ck_assert_uint_eq(slot, 8 + sizeof(struct cr_mv_state));
    unsigned char rec[MAXR * 40];
    memset(rec, 0xa5, sizeof rec);
    for (int k = 0; k < nranks; k++) {
        const uint64_t c = cut[k + 1] - cut[k];
        const struct cr_mv_state st = cr_mv_host(x + cut[k], (size_t)c);
        memcpy(rec + (size_t)k * slot, &c, 8);
        memcpy(rec + (size_t)k * slot + 8, &st, sizeof st);
    }
    unsigned char got[16];
    memset(got, 0x5a, sizeof got);
    ck_assert(cr_state_combine_host(&r, rec, slot, nranks, got));
    long double sum = 0, m2 = 0;
    int inf = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i], inf |= isinf(x[i]);
    const long double mean = n ? sum / n : NAN;
    for (size_t i = 0; i < n; i++)
        m2 += (x[i] - mean) * (x[i] - mean);
    const double want_mean = (double)mean, want_var = inf || !(n > ddof) ? NAN : (double)(m2 / (n - ddof));
    double want[2] = {op == CURED_OP_VAR ? want_var : op == CURED_OP_STD ? sqrt(want_var) : want_mean, want_var};
    for (int k = 0; k < (op == CURED_OP_MEAN_VAR ? 2 : 1); k++) {
        double g;
        if (out == CURED_TYPE_FLOAT32) {
            float f;
            memcpy(&f, got + 4 * k, 4);
            g = f;
            want[k] = (float)want[k]; /* the variance of data 2 underflows float32 */
        } else {
            memcpy(&g, got + 8 * k, 8);
        }
        /* float64: the merges' rounding (~n ulps of m2); float32: one float ulp. */
        const double tiny = out == CURED_TYPE_FLOAT32 ? 1e-45 : 0.0; /* float32's subnormals */
        const int is_mean = k == 0 && op != CURED_OP_VAR && op != CURED_OP_STD;
        const double tol = out == CURED_TYPE_FLOAT32 ? 1.2e-7 : is_mean ? 4e-16 : 1e-11;
        const int ok = isnan(want[k])   ? isnan(g)
                       : isinf(want[k]) ? g == want[k]
                                        : fabs(g - want[k]) <= tol * fabs(want[k]) + tiny;
        ck_assert_msg(ok, "%s ddof %g data %d %s, %d ranks, n %zu: value %d is %.17g, want %.17g", cured_op_name(op),
                      ddof, data, cured_type_name(out), nranks, n, k, g, want[k]);
    }
}
END_TEST

/* NANMEAN, NANVAR, NANSTD records: each rank's count is its shard's elements, its state that of
 * those that are not NaN (a third NaN, some shards all NaN, few elements in all); the combine gives
 * the base's value over the others, or the too-few NaN (CR_TOO_FEW_F32/F64) where none are left
 * (NANMEAN) or at most ddof. Loop: operator x ddof x result type x trial. */
START_TEST(test_nan_stats_combine)
{
    static const cured_op nops[] = {CURED_OP_NANMEAN, CURED_OP_NANVAR, CURED_OP_NANSTD};
    const cured_op op = nops[_i / 24];
    const double ddof = (double)(_i / 8 % 3);
    const cured_type out = _i / 4 % 2 ? CURED_TYPE_FLOAT32 : CURED_TYPE_FLOAT64;
    struct cr_request r;
    ck_assert_int_eq(cr_request_make(op, CURED_ALGO_AUTO, out, out, &r), CURED_SUCCESS);
    r.ddof = ddof;
    rng += (uint64_t)_i * 15485863;
    static double x[N], kept[N];
    const size_t n = _i % 4 == 0 ? next() % 6 : _i % 4 == 1 ? 40 : N; /* few, some, many */
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(next() >> 11) / 9007199254740992.0 - 0.5;
        x[i] = next() % 3 == 0 ? NAN : out == CURED_TYPE_FLOAT32 ? (double)(float)(100 + u) : 100 + u;
    }
    const int nranks = 1 + (int)(next() % MAXR);
    size_t cut[MAXR + 1] = {0};
    for (int k = 1; k < nranks; k++)
        cut[k] = cut[k - 1] + next() % (n - cut[k - 1] + 1);
    cut[nranks] = n;
    struct cr_request sr = r;
    cr_request_state(&sr);
    const size_t slot = cr_state_slot(&sr);
    unsigned char rec[MAXR * 40];
    size_t m = 0;
    for (int k = 0; k < nranks; k++) {
        const uint64_t c = cut[k + 1] - cut[k];
        size_t mk = 0;
        for (size_t i = cut[k]; i < cut[k + 1]; i++)
            if (!isnan(x[i]))
                kept[m + mk++] = x[i];
        const struct cr_mv_state st = cr_mv_host(kept + m, mk);
        m += mk;
        memcpy(rec + (size_t)k * slot, &c, 8);
        memcpy(rec + (size_t)k * slot + 8, &st, sizeof st);
    }
    unsigned char got[16];
    memset(got, 0x5a, sizeof got);
    ck_assert(cr_state_combine_host(&r, rec, slot, nranks, got));
    const int few = op == CURED_OP_NANMEAN ? m == 0 : !((double)m > ddof);
    if (few) {
        ck_assert_int_eq(cr_op_result_status(op, out, got), CURED_ERROR_TOO_FEW_ELEMENTS);
        return;
    }
    ck_assert_int_eq(cr_op_result_status(op, out, got), CURED_SUCCESS);
    long double sum = 0, m2 = 0;
    for (size_t i = 0; i < m; i++)
        sum += kept[i];
    const long double mean = sum / m;
    for (size_t i = 0; i < m; i++)
        m2 += (kept[i] - mean) * (kept[i] - mean);
    const double var = (double)(m2 / (m - ddof));
    const double want = op == CURED_OP_NANMEAN ? (double)mean : op == CURED_OP_NANVAR ? var : sqrt(var);
    double g;
    if (out == CURED_TYPE_FLOAT32) {
        float f;
        memcpy(&f, got, 4);
        g = f;
    } else {
        memcpy(&g, got, 8);
    }
    const double tol = out == CURED_TYPE_FLOAT32 ? 1.2e-7 : 1e-11;
    ck_assert_msg(fabs(g - want) <= tol * fabs(want) + 1e-300, "%s ddof %g %s, %d ranks, %zu of %zu kept: %.17g, want %.17g",
                  cured_op_name(op), ddof, cured_type_name(out), nranks, m, n, g, want);
}
END_TEST

/* The state and combine kernels of every offered request compile (compute_90
 * PTX, every 16th an sm_90 cubin), on every CPU at once, several units to an NVRTC program
 * (jit_batch.h): the units first, then their compiles, then each unit's
 * result is asserted. */
#define MAX_UNITS 2048
struct compile_jobs {
    struct cr_unit units[MAX_UNITS];
    cured_status st[MAX_UNITS];
    char msg[MAX_UNITS][JIT_BATCH_MSG];
    size_t n;
};

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
     * only (527 units); CURED_TEST_FULL=1: every
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
                if ((cr_op((cured_op)op)->flags & CR_OP_EXACT) || /* test-gpu-exact compiles and runs those */
                    !cr_op_accumulator((cured_op)op, (cured_type)in, (cured_type)out, NULL) ||
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
                const int nreq = r.ninputs == 2 || !seg_too ? 2 : 3; /* DOT: no axes */
                for (int k = 0; k < nreq; k++) {
                    ck_assert_uint_lt(j.n, MAX_UNITS);
                    cr_family_for(reqs[k])->build(reqs[k], &j.units[j.n++]);
                }
            }
    /* PTX, and every 16th unit a cubin: ptxas sees each kind of unit, at a fifth of the CPU */
    struct jit_batch b = {j.units, j.n, 90, j.st, j.msg, "state and combine units", 1, 16};
    ck_assert_int_eq(jit_batch_run(&b), 0);
    for (size_t i = 0; i < j.n; i++)
        ck_assert_msg(j.st[i] == CURED_SUCCESS, "%s: %s", j.units[i].label, j.msg[i]);
    printf("%zu state and combine units compiled\n", j.n);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("comm-combine");
    TCase *tc = tcase_create("host");
    const int nt = (int)(sizeof types / sizeof *types), nops = CURED_OP_COUNT;
    tcase_add_loop_test(tc, test_host_combine, 0, nops * nt * 8);
    tcase_add_loop_test(tc, test_stats_combine, 0, 4 * 4 * NDATA * 2);
    tcase_add_loop_test(tc, test_nan_stats_combine, 0, 3 * 3 * 2 * 4);
    suite_add_tcase(s, tc);
    TCase *jit = tcase_create("compile");
    tcase_set_timeout(jit, 600);
    tcase_add_test(jit, test_units_compile);
    suite_add_tcase(s, jit);
    return run_suite(s);
}
