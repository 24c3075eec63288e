/*
 * Reductions on the GPU against host references on fresh random data: every
 * algorithm, both result types, sizes around every boundary, unaligned
 * starts, int32 wrap-around, n > 2^31, repeatability, and ARG indices
 * around 2^32.
 *
 * Exits 77 (SKIP) without a GPU. The seed is printed with any failure;
 * CURED_TEST_SEED=<seed> reproduces the data. CURED_TEST_NO_HUGE=1 shrinks
 * the 8 GiB and 4 GiB cases (e.g. under compute-sanitizer) and says so.
 */
#include "gpu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OFFSETS 4
#define NTYPES 2
static const cured_type out_types[NTYPES] = {CURED_TYPE_INT32, CURED_TYPE_INT64};

static const size_t sizes[] = {
    0, 1, 2, 3, 4, 5, 31, 32, 33, 1023, 1024, 1025, ((size_t)1 << 20) + 3, ((size_t)1 << 26) + 1,
};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))

/*
 * One size: the input is n + 4 random elements, reduced from offsets of 0..3
 * elements (0 and 3 only for the large sizes) by every algorithm into both
 * result types, asynchronously (each call into its own poisoned slot) and
 * synchronously (into a poisoned host value).
 */
START_TEST(test_sizes)
{
    const size_t n = sizes[_i];
    static const size_t small_offsets[] = {0, 1, 2, 3}, large_offsets[] = {0, 3};
    const int large = n > 100000;
    const size_t *offsets = large ? large_offsets : small_offsets;
    const size_t noffsets = large ? 2 : 4;
    char what[200];

    struct rng r;
    rng_init(&r, "sizes", _i);
    const size_t total = n + MAX_OFFSETS;
    uint32_t *h = malloc(total * sizeof *h);
    ck_assert_ptr_nonnull(h);
    fill_random(&r, h, total);
    int64_t exact[MAX_OFFSETS];
    for (size_t o = 0; o < noffsets; o++)
        exact[o] = ref_sum(h + offsets[o], n);
    CUdeviceptr d = dev_alloc(total * 4);
    upload(d, h, total * 4);
    free(h);

    enum { MAX_CASES = CURED_ALGO_COUNT * NTYPES * MAX_OFFSETS };
    const size_t ncases = (size_t)CURED_ALGO_COUNT * NTYPES * noffsets;
    CUdeviceptr out = dev_alloc(MAX_CASES * 8);
    poison(out, MAX_CASES * 8);
    CUstream s = stream_new();

    size_t c = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int t = 0; t < NTYPES; t++)
            for (size_t o = 0; o < noffsets; o++, c++) {
                snprintf(what, sizeof what, "async %s n=%zu offset %zu -> %s", algo_name(a), n,
                         offsets[o], type_name(out_types[t]));
                expect_status(cured_reduce_async(H, CURED_OP_SUM, (cured_algorithm)a,
                                                 DP(d + offsets[o] * 4), CURED_TYPE_INT32, n,
                                                 DP(out + c * 8), out_types[t], s),
                              CURED_SUCCESS, what);
            }
    CU_OK(D->StreamSynchronize(s));
    unsigned char got[MAX_CASES * 8];
    download(got, out, ncases * 8);
    c = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int t = 0; t < NTYPES; t++)
            for (size_t o = 0; o < noffsets; o++, c++) {
                snprintf(what, sizeof what, "async %s n=%zu offset %zu -> %s", algo_name(a), n,
                         offsets[o], type_name(out_types[t]));
                check_result(got + c * 8, out_types[t], exact[o], what);
            }

    /* Synchronous, alternately on the test stream and the legacy default stream. */
    c = 0;
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        for (int t = 0; t < NTYPES; t++)
            for (size_t o = 0; o < noffsets; o++, c++) {
                uint64_t host = POISON64;
                CUstream on = c % 2 ? s : NULL;
                snprintf(what, sizeof what, "sync %s n=%zu offset %zu -> %s on %s stream",
                         algo_name(a), n, offsets[o], type_name(out_types[t]),
                         on ? "a created" : "the default");
                expect_status(cured_reduce(H, CURED_OP_SUM, (cured_algorithm)a,
                                           DP(d + offsets[o] * 4), CURED_TYPE_INT32, n, &host,
                                           out_types[t], on),
                              CURED_SUCCESS, what);
                check_result(&host, out_types[t], exact[o], what);
            }

    /* n == 0 accepts a NULL input and gives 0. */
    if (n == 0)
        for (int a = 0; a < CURED_ALGO_COUNT; a++)
            for (int t = 0; t < NTYPES; t++) {
                uint64_t host = POISON64;
                snprintf(what, sizeof what, "sync %s n=0 in=NULL -> %s", algo_name(a),
                         type_name(out_types[t]));
                expect_status(cured_reduce(H, CURED_OP_SUM, (cured_algorithm)a, NULL,
                                           CURED_TYPE_INT32, 0, &host, out_types[t], s),
                              CURED_SUCCESS, what);
                check_result(&host, out_types[t], 0, what);
            }
}
END_TEST

/*
 * Sums that overflow int32 (all values near INT32_MAX, or near INT32_MIN):
 * the int32 result is the exact sum modulo 2^32, which differs from the
 * exact sum; the int64 result is exact.
 */
START_TEST(test_wrap)
{
    enum { N = 1000 };
    uint32_t h[N];
    struct rng r;
    rng_init(&r, "wrap", _i);
    for (int i = 0; i < N; i++) {
        uint32_t spread = rng_u32(&r) % 147483648u;
        h[i] = _i == 0 ? 2000000000u + spread : 0x80000000u + spread; /* [2e9, INT32_MAX] or [INT32_MIN, ...] */
    }
    const int64_t exact = ref_sum(h, N);
    ck_assert_msg(exact > INT32_MAX || exact < INT32_MIN, "test bug: %lld does not overflow",
                  (long long)exact);
    CUdeviceptr d = dev_alloc(sizeof h);
    upload(d, h, sizeof h);
    CUdeviceptr out = dev_alloc(8);
    CUstream s = stream_new();
    char what[160];
    for (int a = 0; a < CURED_ALGO_COUNT; a++) {
        uint64_t r32 = POISON64, r64 = POISON64;
        snprintf(what, sizeof what, "%s, %s overflow, int32", algo_name(a), _i ? "negative" : "positive");
        expect_status(cured_reduce(H, CURED_OP_SUM, (cured_algorithm)a, DP(d), CURED_TYPE_INT32, N,
                                   &r32, CURED_TYPE_INT32, s),
                      CURED_SUCCESS, what);
        check_result(&r32, CURED_TYPE_INT32, exact, what);
        uint32_t low;
        memcpy(&low, &r32, 4);
        ck_assert_msg(as_int32(low) != exact, "%s: the int32 result did not wrap", what);

        snprintf(what, sizeof what, "%s, %s overflow, int64", algo_name(a), _i ? "negative" : "positive");
        expect_status(cured_reduce(H, CURED_OP_SUM, (cured_algorithm)a, DP(d), CURED_TYPE_INT32, N,
                                   &r64, CURED_TYPE_INT64, s),
                      CURED_SUCCESS, what);
        check_result(&r64, CURED_TYPE_INT64, exact, what);

        /* The same through the asynchronous call. */
        poison(out, 8);
        snprintf(what, sizeof what, "async %s, %s overflow, int32", algo_name(a),
                 _i ? "negative" : "positive");
        expect_status(cured_reduce_async(H, CURED_OP_SUM, (cured_algorithm)a, DP(d), CURED_TYPE_INT32,
                                         N, DP(out), CURED_TYPE_INT32, s),
                      CURED_SUCCESS, what);
        CU_OK(D->StreamSynchronize(s));
        unsigned char got[8];
        download(got, out, 8);
        check_result(got, CURED_TYPE_INT32, exact, what);
    }
}
END_TEST

/* Device memory for a case of n elements that needs `bytes`: fails with what
 * is free when the device lacks the bytes plus 256 MiB of headroom. */
static CUdeviceptr dev_alloc_big(size_t bytes, size_t n)
{
    size_t free_bytes = 0, total_bytes = 0;
    CU_OK(D->MemGetInfo(&free_bytes, &total_bytes));
    ck_assert_msg(free_bytes > bytes + ((size_t)256 << 20),
                  "n = %zu needs %zu bytes of device memory plus headroom; %zu of %zu are free", n, bytes,
                  free_bytes, total_bytes);
    return dev_alloc(bytes);
}

/*
 * n > 2^31 elements (8 GiB of int32), filled from the host in chunks while
 * the reference is accumulated. CURED_TEST_NO_HUGE=1 runs the same checks
 * on 2^24 + 5 elements instead and says so.
 */
START_TEST(test_huge)
{
    const char *env = getenv("CURED_TEST_NO_HUGE");
    const int reduced = env != NULL && *env != '\0' && strcmp(env, "0") != 0;
    const size_t n = reduced ? ((size_t)1 << 24) + 5 : ((size_t)1 << 31) + 5;
    if (reduced)
        printf("test-gpu: CURED_TEST_NO_HUGE=%s: the n > 2^31 case runs with n = %zu instead\n", env, n);
    const size_t total = n + 1; /* one more element for a start at offset 1 */
    const size_t bytes = total * 4;

    CUdeviceptr d = dev_alloc_big(bytes, n);

    const size_t chunk = (size_t)64 << 20;
    uint32_t *buf = malloc(chunk * sizeof *buf);
    ck_assert_ptr_nonnull(buf);
    struct rng r;
    rng_init(&r, "huge", 0);
    int64_t sum0 = 0; /* elements [0, n) */
    uint32_t first = 0, last = 0;
    for (size_t off = 0; off < total; off += chunk) {
        const size_t cnt = total - off < chunk ? total - off : chunk;
        fill_random(&r, buf, cnt);
        sum0 += ref_sum(buf, off + cnt <= n ? cnt : n - off);
        if (off == 0)
            first = buf[0];
        if (off + cnt == total)
            last = buf[cnt - 1];
        CU_OK(D->MemcpyHtoD(d + off * 4, buf, cnt * 4));
    }
    free(buf);
    CU_OK(D->CtxSynchronize());
    const int64_t sum1 = sum0 - as_int32(first) + as_int32(last); /* elements [1, n] */

    static const struct {
        cured_algorithm algo;
        cured_type type;
        size_t offset;
    } cases[] = {
        {CURED_ALGO_AUTO, CURED_TYPE_INT64, 0},
        {CURED_ALGO_SINGLE_PASS_TICKET, CURED_TYPE_INT64, 0},
        {CURED_ALGO_TWO_PASS_SHUFFLE, CURED_TYPE_INT64, 0},
        {CURED_ALGO_AUTO, CURED_TYPE_INT32, 0},
        {CURED_ALGO_AUTO, CURED_TYPE_INT64, 1},
    };
    enum { NCASES = sizeof cases / sizeof *cases };
    CUdeviceptr out = dev_alloc(NCASES * 8);
    poison(out, NCASES * 8);
    CUstream s = stream_new();
    char what[160];
    for (int c = 0; c < NCASES; c++) {
        snprintf(what, sizeof what, "%s n=%zu offset %zu -> %s", algo_name(cases[c].algo), n,
                 cases[c].offset, type_name(cases[c].type));
        expect_status(cured_reduce_async(H, CURED_OP_SUM, cases[c].algo, DP(d + cases[c].offset * 4),
                                         CURED_TYPE_INT32, n, DP(out + (size_t)c * 8), cases[c].type, s),
                      CURED_SUCCESS, what);
    }
    CU_OK(D->StreamSynchronize(s));
    unsigned char got[NCASES * 8];
    download(got, out, sizeof got);
    for (int c = 0; c < NCASES; c++) {
        snprintf(what, sizeof what, "%s n=%zu offset %zu -> %s", algo_name(cases[c].algo), n,
                 cases[c].offset, type_name(cases[c].type));
        check_result(got + c * 8, cases[c].type, cases[c].offset ? sum1 : sum0, what);
    }
    /* And the synchronous call. */
    uint64_t host = POISON64;
    CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(d), CURED_TYPE_INT32, n, &host,
                          CURED_TYPE_INT64, s));
    check_result(&host, CURED_TYPE_INT64, sum0, "sync AUTO huge -> int64");
    dev_free(d);
}
END_TEST

/*
 * ARG indices around 2^32 (4 GiB of int8, zero but for planted values): the
 * kernels pack (key, index) into 64 bits while n <= 2^32 - 1 and keep a
 * 64-bit index above that. Planted: -3 at 2^32 - 2, 5 at 2^32 - 1 (the index
 * whose low word is the packed "no element"), -7 at 2^32 + 1 and again at
 * 2^32 + 3 (a tie). Read as int8 and as uint8 (-7 is 249, -3 is 253).
 * CURED_TEST_NO_HUGE=1 plants around 2^24 instead and says so.
 */
START_TEST(test_huge_arg)
{
    const char *env = getenv("CURED_TEST_NO_HUGE");
    const int reduced = env != NULL && *env != '\0' && strcmp(env, "0") != 0;
    const size_t base = reduced ? (size_t)1 << 24 : (size_t)1 << 32;
    if (reduced)
        printf("test-gpu: CURED_TEST_NO_HUGE=%s: the ARG indices are planted around 2^24\n", env);
    const size_t total = base + 8;
    CUdeviceptr d = dev_alloc_big(total, base);
    CU_OK(D->MemsetD8(d, 0, total));
    const struct { size_t at; int8_t v; } plant[] = {{base - 2, -3}, {base - 1, 5}, {base + 1, -7}, {base + 3, -7}};
    for (size_t k = 0; k < sizeof plant / sizeof *plant; k++)
        upload(d + plant[k].at, &plant[k].v, 1);
    CU_OK(D->CtxSynchronize());

    static const struct {
        cured_op op;
        cured_type type;
        int n_past; /* n = base + n_past */
        int want_past;  /* index = base + want_past; 100: index 0 */
        int8_t value;
    } cases[] = {
        {CURED_OP_ARGMIN, CURED_TYPE_INT8, -1, -2, -3},  /* the largest packed n: last element */
        {CURED_OP_ARGMAX, CURED_TYPE_INT8, -1, 100, 0},  /* all zero but one: the first */
        {CURED_OP_ARGMAX, CURED_TYPE_UINT8, -1, -2, -3}, /* 253 */
        {CURED_OP_ARGMAX, CURED_TYPE_INT8, 0, -1, 5},    /* 64-bit index from here (full size) */
        {CURED_OP_ARGMIN, CURED_TYPE_INT8, 0, -2, -3},
        {CURED_OP_ARGMIN, CURED_TYPE_INT8, 5, 1, -7},    /* the first of the tie */
        {CURED_OP_ARGMAX, CURED_TYPE_INT8, 5, -1, 5},
        {CURED_OP_ARGMAX, CURED_TYPE_UINT8, 5, -2, -3},
        {CURED_OP_ARGMIN, CURED_TYPE_UINT8, 5, 100, 0},
    };
    CUstream s = stream_new();
    char what[160];
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const size_t n = base + cases[c].n_past;
        const int64_t want = cases[c].want_past == 100 ? 0 : (int64_t)(base + cases[c].want_past);
        snprintf(what, sizeof what, "%s over %s, n = %zu", cured_op_name(cases[c].op),
                 cured_type_name(cases[c].type), n);
        cured_arg_result got;
        memset(&got, POISON_BYTE, sizeof got);
        expect_status(cured_reduce(H, cases[c].op, CURED_ALGO_AUTO, DP(d), cases[c].type, n, &got,
                                   cases[c].type, s),
                      CURED_SUCCESS, what);
        ck_assert_msg(got.index == want, "%s: index %lld, want %lld", what, (long long)got.index, (long long)want);
        ck_assert_msg(got.value.i8 == cases[c].value, "%s: value %d, want %d", what, got.value.i8, cases[c].value);
    }
    dev_free(d);
}
END_TEST

/* The same input reduced ten times gives the same (correct) result each time. */
START_TEST(test_repeatable)
{
    enum { RUNS = 10 };
    const size_t n = (size_t)1 << 24;
    struct rng r;
    rng_init(&r, "repeat", 0);
    uint32_t *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    fill_random(&r, h, n);
    const int64_t exact = ref_sum(h, n);
    CUdeviceptr d = dev_alloc(n * 4);
    upload(d, h, n * 4);
    free(h);

    CUdeviceptr out = dev_alloc(2 * RUNS * 8);
    poison(out, 2 * RUNS * 8);
    CUstream s = stream_new();
    for (int i = 0; i < RUNS; i++)
        for (int t = 0; t < NTYPES; t++)
            CURED_OK(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(d), CURED_TYPE_INT32, n,
                                        DP(out + (size_t)(2 * i + t) * 8), out_types[t], s));
    CU_OK(D->StreamSynchronize(s));
    unsigned char got[2 * RUNS * 8];
    download(got, out, sizeof got);
    char what[64];
    for (int i = 0; i < RUNS; i++)
        for (int t = 0; t < NTYPES; t++) {
            snprintf(what, sizeof what, "AUTO run %d -> %s", i, type_name(out_types[t]));
            check_result(got + (2 * i + t) * 8, out_types[t], exact, what);
            ck_assert_msg(memcmp(got + (2 * i + t) * 8, got + t * 8, 8) == 0,
                          "run %d differs from run 0", i);
        }
}
END_TEST

static Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *sums = tcase_create("sums");
    tcase_add_checked_fixture(sums, gpu_setup, gpu_teardown);
    tcase_set_timeout(sums, 600);
    tcase_add_loop_test(sums, test_sizes, 0, NSIZES);
    tcase_add_loop_test(sums, test_wrap, 0, 2);
    tcase_add_test(sums, test_repeatable);
    suite_add_tcase(s, sums);

    TCase *huge = tcase_create("huge");
    tcase_add_checked_fixture(huge, gpu_setup, gpu_teardown);
    tcase_set_timeout(huge, 600);
    tcase_add_test(huge, test_huge);
    tcase_add_test(huge, test_huge_arg);
    suite_add_tcase(s, huge);
    return s;
}

int main(void)
{
    return gpu_main("test-gpu", gpu_suite());
}
