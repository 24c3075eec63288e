/*
 * Segmented reductions on the GPU against a host reference: random offsets
 * (empty, reversed, overlapping, long; int32 and int64), CSR offsets, more
 * long segments than the long list holds, a few segments of millions of
 * elements among short ones (cut into parts over the grid), bitwise
 * repeats, and uniform segments. More than 2^31 segments: test-gpu-axes.c.
 *
 * Exits 77 (SKIP) without a GPU.
 */
#include "../kernels-src/abi.h" /* CR_LONG_MAX, the long list's cap */
#include "axes_case.h"
#include "ops_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Random segments, int32 and int64 offsets: anywhere (empty, reversed,
 * overlapping, long), or CSR (begin = off, end = off + 1: contiguous, from
 * an unaligned start; empty, tiny, short and, for 4- and 8-byte types,
 * some over 16 KiB, fewer than the long list holds). */
static void segments_case(int i, int csr)
{
    static const cured_op ops[] = {CURED_OP_SUM, CURED_OP_ARGMAX, CURED_OP_NANMIN, CURED_OP_MINMAX,
                                   CURED_OP_COUNT_NONZERO, CURED_OP_PRODUCT};
    static const cured_type types[] = {CURED_TYPE_FLOAT32, CURED_TYPE_INT8, CURED_TYPE_BFLOAT16, CURED_TYPE_INT64,
                                       CURED_TYPE_UINT16, CURED_TYPE_FLOAT64};
    struct rng r;
    rng_init(&r, "segments", i);
    const cured_op op = ops[i % 6];
    const cured_type t = types[(i / 6) % 6];
    cured_type out;
    if (cured_default_result(op, t, &out) != CURED_SUCCESS)
        return;
    const size_t size = ref_size(t), rsize = ref_result_size(op, out);
    const size_t n = ops_reduced() ? 5000 : csr ? 1000000 : 200000, nseg = ops_reduced() ? 100 : 3000;
    unsigned char *host = ops_malloc(n * size);
    ref_fill(t, axes_flavour(op), &r, host, n);
    int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
    int64_t at = csr ? 1 + (int64_t)(rng_u32(&r) % 7) : 0;
    for (size_t s = 0; s < nseg; s++) {
        const uint32_t kind = rng_u32(&r) % (csr ? 20 : 10);
        if (csr) {
            const uint64_t len = kind < 2 ? 0 : kind == 2 ? rng_u32(&r) % 6000 : kind < 6 ? 1 + rng_u32(&r) % 3
                                                                                      : rng_u32(&r) % 300;
            b[s] = at;
            at = at + (int64_t)len > (int64_t)n ? (int64_t)n : at + (int64_t)len;
            e[s] = at;
            continue;
        }
        b[s] = rng_u32(&r) % n;
        const uint64_t len = kind == 0 ? 0 : kind == 1 ? (uint64_t)(rng_u32(&r) % 40000) : rng_u32(&r) % 300;
        e[s] = kind == 2 ? b[s] - 1 - (int64_t)(rng_u32(&r) % 5) : (int64_t)(b[s] + len > n ? n : b[s] + len);
    }
    const int wide = i % 2;
    void *hb = ops_malloc((nseg + 1) * 8), *he = ops_malloc(nseg * 8);
    if (csr) { /* one array: begin = hb, end = hb + 1 */
        for (size_t s = 0; s <= nseg; s++) {
            const int64_t v = s < nseg ? b[s] : e[nseg - 1];
            const int32_t v32 = (int32_t)v;
            memcpy((char *)hb + s * (wide ? 8 : 4), wide ? (const void *)&v : (const void *)&v32, wide ? 8 : 4);
        }
    } else {
        for (size_t s = 0; s < nseg; s++) {
            if (wide) {
                memcpy((char *)hb + s * 8, &b[s], 8);
                memcpy((char *)he + s * 8, &e[s], 8);
            } else {
                int32_t bb = (int32_t)b[s], ee = (int32_t)e[s];
                memcpy((char *)hb + s * 4, &bb, 4);
                memcpy((char *)he + s * 4, &ee, 4);
            }
        }
    }
    const size_t osz = wide ? 8 : 4;
    CUdeviceptr d = dev_alloc(n * size), db = dev_alloc((nseg + 1) * osz), de = csr ? db + osz : dev_alloc(nseg * osz);
    CUdeviceptr o = dev_alloc(nseg * rsize + 64);
    upload(d, host, n * size);
    upload(db, hb, (nseg + (size_t)csr) * osz);
    if (!csr)
        upload(de, he, nseg * osz);
    poison(o, nseg * rsize + 64);
    CURED_OK(cured_segmented_reduce_async(H, op, DP(d), t, nseg, DP(db), DP(de),
                                          wide ? CURED_TYPE_INT64 : CURED_TYPE_INT32, DP(o), out, NULL));
    unsigned char *got = ops_malloc(nseg * rsize + 64);
    download(got, o, nseg * rsize + 64);
    for (size_t s = 0; s < nseg; s++) {
        char w[200];
        snprintf(w, sizeof w, "%s %s->%s segment %zu [%lld, %lld) of %zu (%s%s offsets)", cured_op_name(op),
                 cured_type_name(t), cured_type_name(out), s, (long long)b[s], (long long)e[s], nseg,
                 csr ? "CSR " : "", wide ? "int64" : "int32");
        const size_t len = e[s] > b[s] ? (size_t)(e[s] - b[s]) : 0;
        cured_layout l = {1, {(int64_t)len}, {1}};
        int64_t none[1] = {0};
        unsigned char *gather = ops_malloc((len ? len : 1) * size);
        axes_check_output(op, t, out, host + (size_t)b[s] * size, &l, 1u, none, got + s * rsize, gather, w);
        ops_free(gather);
    }
    for (size_t k = 0; k < 64; k++)
        ck_assert_msg(got[nseg * rsize + k] == POISON_BYTE, "written past the last result");
}

START_TEST(test_segments_random)
{
    segments_case(_i, 0);
}
END_TEST

START_TEST(test_segments_csr)
{
    segments_case(_i, 1);
}
END_TEST

/* The host data and offsets, and the device input, offsets and results, of a segments test. */
static void segments_free(void *h, int64_t *b, int64_t *e, CUdeviceptr d, CUdeviceptr db, CUdeviceptr de, CUdeviceptr o)
{
    ops_free(h);
    ops_free(b);
    ops_free(e);
    dev_free(d);
    dev_free(db);
    dev_free(de);
    dev_free(o);
}

/* int32 sums (exact) of the nseg segments [b[s], e[s]) of n random int32
 * elements against the host's, twice (the long list's counters are back at
 * zero for the next call), and with argmax their ARGMAX; frees b and e. */
static void int32_segments(int64_t *b, int64_t *e, size_t nseg, size_t n, struct rng *r, int argmax)
{
    int32_t *h = ops_malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        h[i] = (int32_t)(rng_u32(r) % 2001) - 1000;
    CUdeviceptr d = dev_alloc(n * 4), db = dev_alloc(nseg * 8), de = dev_alloc(nseg * 8), o = dev_alloc(nseg * 16);
    upload(d, h, n * 4);
    upload(db, b, nseg * 8);
    upload(de, e, nseg * 8);
    int64_t *got = ops_malloc(nseg * 16);
    for (int rep = 0; rep < 2; rep++) {
        poison(o, nseg * 16);
        CURED_OK(cured_segmented_reduce_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_INT32, nseg, DP(db), DP(de),
                                              CURED_TYPE_INT64, DP(o), CURED_TYPE_INT64, NULL));
        download(got, o, nseg * 8);
        for (size_t s = 0; s < nseg; s++) {
            int64_t want = 0;
            for (int64_t i = b[s]; i < e[s]; i++)
                want += h[i];
            ck_assert_msg(got[s] == want, "%zu segments, repeat %d, segment %zu [%lld, %lld): %lld, want %lld", nseg, rep, s,
                          (long long)b[s], (long long)e[s], (long long)got[s], (long long)want);
        }
    }
    if (argmax) {
        poison(o, nseg * 16);
        CURED_OK(cured_segmented_reduce_async(H, CURED_OP_ARGMAX, DP(d), CURED_TYPE_INT32, nseg, DP(db), DP(de),
                                              CURED_TYPE_INT64, DP(o), CURED_TYPE_INT32, NULL));
        unsigned char *res = (unsigned char *)got;
        download(res, o, nseg * 16);
        const size_t rs = ref_result_size(CURED_OP_ARGMAX, CURED_TYPE_INT32);
        for (size_t s = 0; s < nseg; s++) {
            int64_t best = -1;
            for (int64_t i = b[s]; i < e[s]; i++)
                if (best < 0 || h[i] > h[b[s] + best])
                    best = i - b[s];
            int64_t idx;
            memcpy(&idx, res + s * rs, 8);
            ck_assert_msg(idx == best, "%zu segments: ARGMAX segment %zu [%lld, %lld): index %lld, want %lld", nseg, s,
                          (long long)b[s], (long long)e[s], (long long)idx, (long long)best);
        }
    }
    ops_free(got);
    segments_free(h, b, e, d, db, de, o);
}

/* Segments over 16 KiB, listed (about 470 of them, chunks shared out over the
 * long kernel's wave; about 5100, past CR_LONG_MAX: an entry a block) and
 * more than the long list holds (about 9800, past CR_LONG_LISTED: then a
 * block each, overlapping in a smaller input); every kind
 * of segment length around the limits, against a host sum of integers (exact)
 * and ARGMAX. */
static void segments_listed(size_t nseg, int overlap)
{
    struct rng r;
    rng_init(&r, "listed", (int)nseg);
    int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
    size_t n = overlap ? (size_t)1 << 21 : 0;
    for (size_t s = 0; s < nseg; s++) {
        /* most over 16 KiB of int32, some at and around the short, warp and list limits */
        static const size_t lens[] = {4097, 4096, 4095, 257, 256, 0, 1, 6000, 5000};
        const size_t len = s % 3 ? 4097 + rng_u32(&r) % 3000 : lens[(s / 3) % 9];
        if (overlap) {
            b[s] = (int64_t)(rng_u32(&r) % (uint32_t)(n - len));
            e[s] = b[s] + (int64_t)len;
            continue;
        }
        b[s] = (int64_t)n + (int64_t)(rng_u32(&r) % 3);
        e[s] = b[s] + (int64_t)len;
        n = (size_t)e[s];
    }
    int32_segments(b, e, nseg, n, &r, 1);
}

START_TEST(test_segments_listed)
{
    segments_listed(600, 0); /* about 470 long ones */
    segments_listed(6600, 1); /* about 5100 long ones: an entry a block */
    segments_listed(12600, 1); /* about 9800: past CR_LONG_LISTED, a block each of a fixed share */
}
END_TEST

/* Exactly the chunks' cap of segments over 16 KiB and one more (chunks, then
 * an entry a block from the counter), exactly the list's CR_LONG_LISTED and
 * one more (then a block each of a fixed share), one of them of 4M elements
 * among others just over 16 KiB (its parts take most of the pool's chunks):
 * int32 sums against the host's. */
START_TEST(test_segments_cap_edge)
{
    static const size_t counts[] = {CR_LONG_MAX, CR_LONG_MAX + 1, CR_LONG_LISTED, CR_LONG_LISTED + 1};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        const size_t nseg = counts[c], huge = (size_t)4 << 20;
        struct rng r;
        rng_init(&r, "cap-edge", (int)c);
        int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
        size_t n = 0;
        for (size_t s = 0; s < nseg; s++) {
            const size_t len = s == nseg / 3 ? huge : 4097 + rng_u32(&r) % 64;
            b[s] = (int64_t)n;
            e[s] = b[s] + (int64_t)len;
            n = (size_t)e[s];
        }
        int32_segments(b, e, nseg, n, &r, 0);
    }
}
END_TEST

/* Float sums of segments over 16 KiB, bitwise the same in every call:
 * with 300 of them (listed: chunks shared out over the long kernel's wave),
 * 2000 and 4500 (past CR_LONG_MAX: an entry a block, from the counter) and
 * 9000 (past CR_LONG_LISTED: a block each of a fixed share, the list
 * ignored), overlapping, beside a host sum in double. A segment reduced by
 * one block has the same bits whichever block takes it: the last three
 * agree on the segments they share. */
START_TEST(test_segments_long_repeat)
{
    const size_t nseg = 9000;
    ck_assert(nseg > CR_LONG_LISTED);
    struct rng r;
    rng_init(&r, "long-repeat", 0);
    int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
    const size_t n = (size_t)1 << 21;
    for (size_t s = 0; s < nseg; s++) {
        const int64_t len = 4097 + (int64_t)(rng_u32(&r) % 2000);
        b[s] = (int64_t)(rng_u32(&r) % (uint32_t)(n - (size_t)len));
        e[s] = b[s] + len;
    }
    float *h = ops_malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)((double)rng_u32(&r) / 4294967296.0 - 0.25) * 1e3f;
    CUdeviceptr d = dev_alloc(n * 4), db = dev_alloc(nseg * 8), de = dev_alloc(nseg * 8), o = dev_alloc(nseg * 4);
    upload(d, h, n * 4);
    upload(db, b, nseg * 8);
    upload(de, e, nseg * 8);
    float *first = ops_malloc(nseg * 4), *got = ops_malloc(nseg * 4);
    static const size_t counts[] = {300, 2000, 4500, 9000};
    float *whole = ops_malloc(nseg * 4); /* the previous count's results, a block a segment */
    for (int c = 0; c < 4; c++) {
        const size_t m = counts[c];
        for (int rep = 0; rep < 5; rep++) {
            poison(o, nseg * 4);
            CURED_OK(cured_segmented_reduce_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, m, DP(db), DP(de),
                                                  CURED_TYPE_INT64, DP(o), CURED_TYPE_FLOAT32, NULL));
            download(rep ? got : first, o, nseg * 4);
            if (rep)
                ck_assert_msg(memcmp(got, first, m * 4) == 0, "%zu segments: call %d differs from the first", m, rep);
            ops_expect_poison((const unsigned char *)(rep ? got : first), m * 4, nseg * 4, "past the segments' results");
        }
        for (size_t s = 0; s < m; s++) {
            double want = 0, mag = 0;
            for (int64_t i = b[s]; i < e[s]; i++) {
                want += h[i];
                mag += fabs(h[i]);
            }
            ck_assert_msg(fabs(first[s] - want) <= 1e-5 * mag, "%zu segments, segment %zu: %.9g, want %.9g", m, s,
                          first[s], want);
        }
        if (c >= 2)
            for (size_t s = 0; s < counts[c - 1]; s++)
                ck_assert_msg(memcmp(&first[s], &whole[s], 4) == 0,
                              "segment %zu: %.9g with %zu segments, %.9g with %zu (a block each)", s, first[s], m,
                              whole[s], counts[c - 1]);
        memcpy(whole, first, m * 4);
    }
    ops_free(whole);
    ops_free(first);
    ops_free(got);
    segments_free(h, b, e, d, db, de, o);
}
END_TEST

/* Uniform segments are the rows of a matrix. */
START_TEST(test_uniform_segments)
{
    const size_t nseg = 1000, len = 37;
    int32_t *h = ops_malloc(nseg * len * 4);
    for (size_t i = 0; i < nseg * len; i++)
        h[i] = (int32_t)(i % 1000) - 500;
    CUdeviceptr d = dev_alloc(nseg * len * 4), o = dev_alloc(nseg * 8);
    upload(d, h, nseg * len * 4);
    CURED_OK(cured_uniform_segmented_reduce_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_INT32, nseg, len, DP(o),
                                                  CURED_TYPE_INT64, NULL));
    int64_t *got = ops_malloc(nseg * 8);
    download(got, o, nseg * 8);
    for (size_t s = 0; s < nseg; s++) {
        int64_t want = 0;
        for (size_t i = 0; i < len; i++)
            want += h[s * len + i];
        ck_assert_msg(got[s] == want, "segment %zu: %lld, want %lld", s, (long long)got[s], (long long)want);
    }
    /* segments of size 0: every result is the empty value */
    poison(o, nseg * 8);
    CURED_OK(cured_uniform_segmented_reduce_async(H, CURED_OP_PRODUCT, DP(d), CURED_TYPE_INT32, nseg, 0, DP(o),
                                                  CURED_TYPE_INT64, NULL));
    download(got, o, nseg * 8);
    for (size_t s = 0; s < nseg; s++)
        ck_assert_int_eq(got[s], 1);
}
END_TEST

/* A few segments of a million elements and more among medium and short
 * ones: the listed ones are cut into parts (at most 64, each over 16 KiB and
 * over a quarter block's share of all the listed elements) that the grid
 * shares out.
 * Each operator kind against the host, bitwise the same in every call. */
START_TEST(test_segments_split)
{
    static const cured_op ops[] = {CURED_OP_SUM,      CURED_OP_ARGMAX,    CURED_OP_MINMAX, CURED_OP_MEAN_VAR,
                                   CURED_OP_LOGSUMEXP, CURED_OP_NANMAX, CURED_OP_NANSUM, CURED_OP_NANVAR};
    const cured_op op = ops[_i];
    const cured_type t = CURED_TYPE_FLOAT32;
    const int reduced = ops_reduced();
    const size_t nseg = reduced ? 150 : 600;
    struct rng r;
    rng_init(&r, "split", _i);
    cured_type out;
    ck_assert_int_eq(cured_default_result(op, t, &out), CURED_SUCCESS);
    const size_t rsize = ref_result_size(op, out);
    int64_t *b = ops_malloc(nseg * 8), *e = ops_malloc(nseg * 8);
    size_t n = 0, longest = 1;
    for (size_t s = 0; s < nseg; s++) {
        /* the big ones set the chunk over 16 KiB in the full run; medium ones fall on
         * both sides of the list's 4096 (the warp's path below it) */
        const size_t big = reduced ? 100000 : 1000000;
        const size_t len = s % 75 == 7 ? big + rng_u32(&r) % (2 * big)
                           : s % 3 == 1 ? 2000 + rng_u32(&r) % 14000 : rng_u32(&r) % 300;
        b[s] = (int64_t)n + (int64_t)(rng_u32(&r) % 3);
        e[s] = b[s] + (int64_t)len;
        n = (size_t)e[s];
        longest = len > longest ? len : longest;
    }
    unsigned char *host = ops_malloc(n * 4), *gather = ops_malloc(longest * 4);
    ref_fill(t, axes_flavour(op), &r, host, n);
    const size_t obytes = nseg * rsize + 64;
    CUdeviceptr d = dev_alloc(n * 4), db = dev_alloc(nseg * 8), de = dev_alloc(nseg * 8), o = dev_alloc(obytes);
    upload(d, host, n * 4);
    upload(db, b, nseg * 8);
    upload(de, e, nseg * 8);
    unsigned char *first = ops_malloc(obytes), *got = ops_malloc(obytes);
    for (int rep = 0; rep < 3; rep++) {
        poison(o, obytes);
        CURED_OK(cured_segmented_reduce_async(H, op, DP(d), t, nseg, DP(db), DP(de), CURED_TYPE_INT64, DP(o), out,
                                              NULL));
        download(rep ? got : first, o, obytes);
        if (rep)
            ck_assert_msg(memcmp(got, first, nseg * rsize) == 0, "%s: call %d differs from the first",
                          cured_op_name(op), rep);
    }
    ops_expect_poison(first, nseg * rsize, obytes, "past the segments' results");
    for (size_t s = 0; s < nseg; s++) {
        char w[160];
        snprintf(w, sizeof w, "%s segment %zu [%lld, %lld) of %zu", cured_op_name(op), s, (long long)b[s],
                 (long long)e[s], nseg);
        const cured_layout l = {1, {e[s] - b[s]}, {1}};
        const int64_t none[1] = {0};
        axes_check_output(op, t, out, host + (size_t)b[s] * 4, &l, 1u, none, first + s * rsize, gather, w);
    }
    ops_free(first);
    ops_free(got);
    ops_free(gather);
    segments_free(host, b, e, d, db, de, o);
}
END_TEST

static Suite *segments_suite(void)
{
    Suite *s = suite_create("gpu-segments");
    TCase *tc = tcase_create("segments");
    tcase_add_checked_fixture(tc, ops_setup, ops_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_segments_random, 0, 36);
    tcase_add_loop_test(tc, test_segments_csr, 0, 36);
    tcase_add_test(tc, test_segments_listed);
    tcase_add_test(tc, test_segments_cap_edge);
    tcase_add_test(tc, test_segments_long_repeat);
    tcase_add_loop_test(tc, test_segments_split, 0, 8);
    tcase_add_test(tc, test_uniform_segments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-segments", segments_suite());
}
