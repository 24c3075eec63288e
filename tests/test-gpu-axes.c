/*
 * Axis and segmented reductions on the GPU against a host reference:
 * random strided views (rank 1-4, random axis subsets, transposed, sliced
 * and broadcast strides, zero and length-1 extents, misaligned bases,
 * padded output layouts) for every operator and type, the bench's matrix
 * shapes, determinism, graph capture and two streams, bad pointers, and
 * (unless CURED_TEST_NO_HUGE) more than 2^32 elements and more than 2^31
 * segments. The other segment cases are in test-gpu-segments.c.
 * Each output's elements are gathered on the host in row-major order of the
 * reduced axes and reduced by tests/ops_ref.c (tests/axes_case.c).
 *
 * Exits 77 (SKIP) without a GPU.
 */
#include "axes_case.h"
#include "ops_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loop test over operators: random views of every type the operator takes. */
START_TEST(test_axes_random)
{
    const cured_op op = (cured_op)_i;
    if (cr_op(op)->flags & CR_OP_TWO_INPUTS) /* DOT, EXACT_DOT: whole arrays only */
        return;
    struct rng r;
    rng_init(&r, "axes-random", _i);
    CUstream s = stream_new();
    long id = 0;
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        cured_type out;
        if (cured_default_result(op, (cured_type)t, &out) != CURED_SUCCESS)
            continue;
        const int cases = ops_reduced() ? 3 : 8;
        for (int c = 0; c < cases; c++)
            axes_one_case(&r, op, (cured_type)t, out, c == cases - 1 && !ops_reduced(), 1, 4, s, id++);
    }
}
END_TEST

/* The bench's 2-D shapes at 2^20 elements: float32 SUM of exact values, both axes. */
START_TEST(test_matrix_shapes)
{
    const size_t n = (size_t)1 << (ops_reduced() ? 14 : 20);
    const int lg = ops_reduced() ? 14 : 20;
    struct rng r;
    rng_init(&r, "matrix", 0);
    float *h = ops_malloc(n * 4);
    ref_fill(CURED_TYPE_FLOAT32, FL_RAND, &r, h, n);
    CUdeviceptr d = dev_alloc(n * 4), o = dev_alloc(n * 4 + 64);
    upload(d, h, n * 4);
    float *got = ops_malloc(n * 4);
    for (int k = 0; k <= lg; k += 2) {
        const size_t rows = (size_t)1 << k, cols = n / rows;
        cured_layout l = {2, {(int64_t)rows, (int64_t)cols}, {(int64_t)cols, 1}};
        for (int axis = 0; axis < 2; axis++) {
            const size_t nout = axis ? rows : cols;
            poison(o, n * 4 + 64);
            CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, &l, 1u << axis, DP(o),
                                             CURED_TYPE_FLOAT32, NULL, NULL));
            download(got, o, nout * 4);
            for (size_t j = 0; j < nout; j++) {
                double want = 0;
                const size_t len = axis ? cols : rows;
                for (size_t i = 0; i < len; i++)
                    want += axis ? h[j * cols + i] : h[i * cols + j];
                ck_assert_msg(got[j] == (float)want, "%zu x %zu axis %d output %zu: %.9g, want %.9g", rows, cols,
                              axis, j, (double)got[j], want);
            }
        }
    }
}
END_TEST

/* Short rows (1 to 64 bytes) and views that reduce nothing, read as whole vectors (packed.cuh): odd row
 * counts (rows after the last whole vector), dense, strided and misaligned outputs. */
START_TEST(test_short_rows)
{
    static const cured_op ops[] = {CURED_OP_SUM, CURED_OP_ARGMAX, CURED_OP_MINMAX, CURED_OP_NANMAX,
                                   CURED_OP_COUNT_NONZERO, CURED_OP_SUM_SQUARES};
    static const cured_type types[] = {CURED_TYPE_INT8, CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT32, CURED_TYPE_INT32,
                                       CURED_TYPE_FLOAT64, CURED_TYPE_UINT8};
    const cured_op op = ops[_i % 6];
    const cured_type t = types[(_i / 6) % 6];
    cured_type out;
    if (cured_default_result(op, t, &out) != CURED_SUCCESS)
        return;
    struct rng rg;
    rng_init(&rg, "short-rows", _i);
    const size_t size = ref_size(t), rsize = ref_result_size(op, out);
    for (size_t rb = size; rb <= 64; rb *= 2) {
        const size_t len = rb / size, rows = (ops_reduced() ? 300 : 5000) + 2 * (rb / size) + 1;
        unsigned char *host = ops_malloc(rows * len * size);
        ref_fill(t, axes_flavour(op), &rg, host, rows * len);
        CUdeviceptr d = dev_alloc(rows * len * size);
        upload(d, host, rows * len * size);
        for (int form = 0; form < 3; form++) { /* dense, every other result, shifted by one result */
            const int64_t ostride = form == 1 ? 2 : 1;
            const size_t shift = form == 2 ? rsize : 0, obytes = (rows * (size_t)ostride + 1) * rsize + 64;
            CUdeviceptr o = dev_alloc(obytes);
            poison(o, obytes);
            cured_layout l = {2, {(int64_t)rows, (int64_t)len}, {(int64_t)len, 1}};
            cured_layout ol = {1, {(int64_t)rows}, {ostride}};
            CURED_OK(cured_reduce_axes_async(H, op, DP(d), t, &l, 2u, DP(o + shift), out, &ol, NULL));
            unsigned char *got = ops_malloc(obytes), *gather = ops_malloc(len * size);
            download(got, o, obytes);
            for (size_t j = 0; j < rows; j++) {
                char w[200];
                snprintf(w, sizeof w, "%s %s->%s rows of %zu, form %d, row %zu of %zu", cured_op_name(op),
                         cured_type_name(t), cured_type_name(out), len, form, j, rows);
                const int64_t idx[1] = {(int64_t)j};
                axes_check_output(op, t, out, host, &l, 2u, idx, got + shift + j * (size_t)ostride * rsize, gather, w);
            }
            for (size_t b = 0; b < obytes; b++) {
                const size_t rel = b - shift;
                const size_t slot = rel / rsize;
                const int inside = b >= shift && slot < rows * (size_t)ostride && slot % (size_t)ostride == 0;
                if (!inside)
                    ck_assert_msg(got[b] == POISON_BYTE, "%s %s rows of %zu form %d: byte %zu written",
                                  cured_op_name(op), cured_type_name(t), len, form, b);
            }
            ops_free(gather);
            ops_free(got);
            dev_free(o);
        }
        dev_free(d);
        ops_free(host);
    }
}
END_TEST

/* Columns narrower than 16 bytes of dense rows, read as 16-byte rows and folded (reduce_cols' fold):
 * row counts that fill whole vectors and ones that do not (element by element), one batch and three,
 * foldable operators and ARGMIN (never folded). */
START_TEST(test_narrow_columns)
{
    static const cured_op ops[] = {CURED_OP_SUM,   CURED_OP_MAX,     CURED_OP_MINMAX,        CURED_OP_NANMIN,
                                   CURED_OP_PRODUCT, CURED_OP_NORM2, CURED_OP_COUNT_NONZERO, CURED_OP_ARGMIN};
    static const cured_type types[] = {CURED_TYPE_INT8,    CURED_TYPE_UINT8, CURED_TYPE_BFLOAT16, CURED_TYPE_INT16,
                                       CURED_TYPE_FLOAT32, CURED_TYPE_INT32, CURED_TYPE_FLOAT64};
    const cured_op op = ops[_i % 8];
    const cured_type t = types[(_i / 8) % 7];
    cured_type out;
    if (cured_default_result(op, t, &out) != CURED_SUCCESS)
        return;
    struct rng rg;
    rng_init(&rg, "narrow-columns", _i);
    const size_t size = ref_size(t), rsize = ref_result_size(op, out);
    static const int64_t row_counts[] = {16, 48, 17, 4096, 4095, 70000, 262144};
    const int nrc = ops_reduced() ? 5 : 7;
    for (int64_t cols = 1; cols * (int64_t)size < 16; cols *= 2)
        for (int ri = 0; ri < nrc; ri++)
            for (int64_t batches = 1; batches <= 3; batches += 2) {
                const int64_t rows = row_counts[ri], n = batches * rows * cols;
                unsigned char *host = ops_malloc((size_t)n * size);
                ref_fill(t, axes_flavour(op), &rg, host, (size_t)n);
                CUdeviceptr d = dev_alloc((size_t)n * size);
                upload(d, host, (size_t)n * size);
                const size_t nout = (size_t)(batches * cols), obytes = nout * rsize + 64;
                CUdeviceptr o = dev_alloc(obytes);
                poison(o, obytes);
                cured_layout l = {3, {batches, rows, cols}, {rows * cols, cols, 1}};
                CURED_OK(cured_reduce_axes_async(H, op, DP(d), t, &l, 2u, DP(o), out, NULL, NULL));
                unsigned char *got = ops_malloc(obytes), *gather = ops_malloc((size_t)rows * size);
                download(got, o, obytes);
                for (size_t j = 0; j < nout; j++) {
                    char w[200];
                    snprintf(w, sizeof w, "%s %s->%s %lld x %lld x %lld along axis 1, output %zu", cured_op_name(op),
                             cured_type_name(t), cured_type_name(out), (long long)batches, (long long)rows,
                             (long long)cols, j);
                    const int64_t idx[2] = {(int64_t)j / cols, (int64_t)j % cols};
                    axes_check_output(op, t, out, host, &l, 2u, idx, got + j * rsize, gather, w);
                }
                for (size_t b = nout * rsize; b < obytes; b++)
                    ck_assert_msg(got[b] == POISON_BYTE, "%s %s %lld x %lld x %lld: byte %zu written",
                                  cured_op_name(op), cured_type_name(t), (long long)batches, (long long)rows,
                                  (long long)cols, b);
                ops_free(gather);
                ops_free(got);
                dev_free(o);
                dev_free(d);
                ops_free(host);
            }
}
END_TEST

/* 8-bit sums down columns long enough that each thread takes several chunks of the 16-bit lanes
 * (sums8.cuh), with one split: a broadcast batch axis (stride 0) of 2048 gives the blocks. 257 rows a
 * thread is one chunk of 257; 514 is 256 + 256 + 2. All-max bytes fill a lane to 255 x 257 = 65535. */
START_TEST(test_int8_long_columns)
{
    static const struct {
        cured_type t;
        int64_t rows, cols; /* 4 columns: folded (16-byte rows of 4 rows); 16: TX = 1; 512: TX = 32 */
    } cases[] = {
        {CURED_TYPE_INT8, 4 * 65792, 4},  {CURED_TYPE_INT8, 4 * 65792 * 2, 4},  {CURED_TYPE_UINT8, 4 * 65792 * 2, 4},
        {CURED_TYPE_INT8, 257 * 256, 16}, {CURED_TYPE_INT8, 514 * 256, 16},     {CURED_TYPE_UINT8, 514 * 256, 16},
        {CURED_TYPE_INT8, 8 * 257, 512},  {CURED_TYPE_INT8, 8 * 514, 512},      {CURED_TYPE_UINT8, 8 * 514, 512},
    };
    const int64_t batches = 2048;
    struct rng rg;
    rng_init(&rg, "int8-long-columns", 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int fill = 0; fill < 3; fill++) { /* random, all the largest, all the smallest */
            const cured_type t = cases[i].t;
            const int64_t rows = cases[i].rows, cols = cases[i].cols, n = rows * cols;
            const int is_signed = t == CURED_TYPE_INT8;
            unsigned char *host = ops_malloc((size_t)n);
            for (int64_t e = 0; e < n; e++)
                host[e] = fill == 0 ? (unsigned char)rng_u32(&rg) : fill == 1 ? (is_signed ? 127 : 255)
                                                                                : (is_signed ? 128 : 0);
            int64_t *want = ops_malloc((size_t)cols * 8);
            for (int64_t c = 0; c < cols; c++) {
                want[c] = 0;
                for (int64_t r = 0; r < rows; r++)
                    want[c] += is_signed ? (int64_t)(signed char)host[r * cols + c] : (int64_t)host[r * cols + c];
            }
            CUdeviceptr d = dev_alloc((size_t)n);
            upload(d, host, (size_t)n);
            const size_t nout = (size_t)(batches * cols), obytes = nout * 8 + 64;
            CUdeviceptr o = dev_alloc(obytes);
            poison(o, obytes);
            cured_type out;
            CURED_OK(cured_default_result(CURED_OP_SUM, t, &out));
            cured_layout l = {3, {batches, rows, cols}, {0, cols, 1}};
            CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), t, &l, 2u, DP(o), out, NULL, NULL));
            unsigned char *got = ops_malloc(obytes);
            download(got, o, obytes);
            for (size_t j = 0; j < nout; j++) {
                int64_t v;
                memcpy(&v, got + j * 8, 8);
                ck_assert_msg(v == want[j % (size_t)cols], "%s %lld x %lld x %lld fill %d, output %zu: %lld, want %lld",
                              cured_type_name(t), (long long)batches, (long long)rows, (long long)cols, fill, j,
                              (long long)v, (long long)want[j % (size_t)cols]);
            }
            for (size_t b = nout * 8; b < obytes; b++)
                ck_assert_msg(got[b] == POISON_BYTE, "%s x %lld columns: byte %zu written", cured_type_name(t),
                              (long long)cols, b);
            ops_free(got);
            dev_free(o);
            dev_free(d);
            ops_free(want);
            ops_free(host);
        }
}
END_TEST

/* Bitwise identical float sums run to run, through a graph and on two streams at once. */
START_TEST(test_determinism_capture_streams)
{
    const size_t rows = 4096, cols = 96, n = rows * cols;
    struct rng r;
    rng_init(&r, "determinism", 0);
    float *h = ops_malloc(n * 4);
    ref_fill(CURED_TYPE_FLOAT32, FL_REAL, &r, h, n);
    CUdeviceptr d = dev_alloc(n * 4), o[4];
    for (int k = 0; k < 4; k++)
        o[k] = dev_alloc(rows * 4);
    upload(d, h, n * 4);
    cured_layout l = {2, {(int64_t)rows, (int64_t)cols}, {(int64_t)cols, 1}};
    CUstream s1 = stream_new(), s2 = stream_new();
    /* first calls outside capture: each stream gets its workspace, the kernels compile */
    CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, &l, 1u, DP(o[0]), CURED_TYPE_FLOAT32,
                                     NULL, s1));
    CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, &l, 2u, DP(o[1]), CURED_TYPE_FLOAT32,
                                     NULL, s2));
    CU_OK(D->StreamSynchronize(s1));
    CU_OK(D->StreamSynchronize(s2));
    float *a = ops_malloc(rows * 4), *b = ops_malloc(rows * 4);
    for (int rep = 0; rep < 3; rep++) {
        CU_OK(D->StreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
        cured_status st = cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, &l, 1u, DP(o[2]),
                                                  CURED_TYPE_FLOAT32, NULL, s1);
        CUgraph g;
        CU_OK(D->StreamEndCapture(s1, &g));
        ck_assert_msg(st == CURED_SUCCESS, "captured axis reduction: %s", cured_last_error());
        CUgraphExec ge;
        CU_OK(D->GraphInstantiate(&ge, g, 0));
        CU_OK(D->GraphLaunch(ge, s1));
        CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, &l, 2u, DP(o[3]),
                                         CURED_TYPE_FLOAT32, NULL, s2));
        CU_OK(D->StreamSynchronize(s1));
        CU_OK(D->StreamSynchronize(s2));
        CU_OK(D->GraphExecDestroy(ge));
        CU_OK(D->GraphDestroy(g));
        download(a, o[0], cols * 4);
        download(b, o[2], cols * 4);
        ck_assert_msg(memcmp(a, b, cols * 4) == 0, "axis 0: the graph's result differs bitwise (repeat %d)", rep);
        download(a, o[1], rows * 4);
        download(b, o[3], rows * 4);
        ck_assert_msg(memcmp(a, b, rows * 4) == 0, "axis 1: a repeat differs bitwise (repeat %d)", rep);
    }
}
END_TEST

/* Pointers only the GPU can judge: host memory, offsets in host memory. */
START_TEST(test_bad_pointers)
{
    static float host_in[64];
    static int32_t host_off[4];
    CUdeviceptr d = dev_alloc(256), o = dev_alloc(64);
    poison(o, 64);
    cured_layout l = {2, {8, 8}, {8, 1}};
    CURED_EXPECT(CURED_ERROR_NOT_DEVICE_POINTER,
                 cured_reduce_axes_async(H, CURED_OP_SUM, host_in, CURED_TYPE_FLOAT32, &l, 2u, DP(o),
                                         CURED_TYPE_FLOAT32, NULL, NULL));
    CURED_EXPECT(CURED_ERROR_NOT_DEVICE_POINTER,
                 cured_segmented_reduce_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, 4, host_off, host_off + 1,
                                              CURED_TYPE_INT32, DP(o), CURED_TYPE_FLOAT32, NULL));
    CURED_EXPECT(CURED_ERROR_INVALID_VALUE,
                 cured_segmented_reduce_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_FLOAT32, 4, DP(d), DP(d),
                                              CURED_TYPE_FLOAT32, DP(o), CURED_TYPE_FLOAT32, NULL));
    unsigned char got[64];
    download(got, o, 64);
    for (int i = 0; i < 64; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "a refused call wrote its output");
}
END_TEST

/* More than 2^32 elements (two rows of 2^31 + 16 int8 ones) and more than 2^31 segments. */
START_TEST(test_huge)
{
    size_t free_b = 0, total = 0;
    CU_OK(D->MemGetInfo(&free_b, &total));
    const size_t row = ((size_t)1 << 31) + 16, nseg = ((size_t)1 << 31) + 5;
    const size_t need = 2 * row + nseg * 8 + nseg * 8 + (1u << 20); /* int8 rows; int32 begin/end; int64 sums */
    ck_assert_msg(free_b > need, "test-gpu-axes needs %zu bytes of free device memory, %zu are free", need, free_b);
    CUdeviceptr d = dev_alloc(2 * row), o = dev_alloc(64);
    CU_OK(D->MemsetD8(d, 1, 2 * row));
    cured_layout l = {2, {2, (int64_t)row}, {(int64_t)row, 1}};
    CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(d), CURED_TYPE_INT8, &l, 2u, DP(o), CURED_TYPE_INT64, NULL,
                                     NULL));
    int64_t got[2];
    download(got, o, 16);
    ck_assert_msg(got[0] == (int64_t)row && got[1] == (int64_t)row, "rows of 2^31 + 16: %lld %lld", (long long)got[0],
                  (long long)got[1]);
    dev_free(d);
    /* 2^31 + 5 segments [0, 1) over in = {7}, int32 offsets */
    CUdeviceptr in = dev_alloc(4), b = dev_alloc(nseg * 4), e = dev_alloc(nseg * 4), out = dev_alloc(nseg * 8);
    int32_t seven = 7;
    upload(in, &seven, 4);
    CU_OK(D->MemsetD8(b, 0, nseg * 4));
    CU_OK(D->MemsetD32Async(e, 1, nseg, NULL));
    CU_OK(D->MemsetD8(out, 0xff, nseg * 8));
    CURED_OK(cured_segmented_reduce_async(H, CURED_OP_SUM, DP(in), CURED_TYPE_INT32, nseg, DP(b), DP(e),
                                          CURED_TYPE_INT32, DP(out), CURED_TYPE_INT64, NULL));
    const size_t probe[] = {0, 1, ((size_t)1 << 31) - 1, (size_t)1 << 31, nseg - 1};
    for (size_t k = 0; k < sizeof probe / sizeof *probe; k++) {
        int64_t v = 0;
        download(&v, out + probe[k] * 8, 8);
        ck_assert_msg(v == 7, "segment %zu of 2^31 + 5: %lld", probe[k], (long long)v);
    }
}
END_TEST

static Suite *axes_suite(void)
{
    Suite *s = suite_create("gpu-axes");
    TCase *tc = tcase_create("axes");
    tcase_add_checked_fixture(tc, ops_setup, ops_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_axes_random, 0, CURED_OP_COUNT);
    tcase_add_test(tc, test_matrix_shapes);
    tcase_add_loop_test(tc, test_short_rows, 0, 36);
    tcase_add_loop_test(tc, test_narrow_columns, 0, 56);
    tcase_add_test(tc, test_int8_long_columns);
    tcase_add_test(tc, test_determinism_capture_streams);
    tcase_add_test(tc, test_bad_pointers);
    suite_add_tcase(s, tc);
    if (!ops_reduced()) { /* CURED_TEST_NO_HUGE: not registered, so not counted as a pass */
        TCase *huge = tcase_create("huge"); /* CK_RUN_CASE=huge: this alone */
        tcase_add_checked_fixture(huge, ops_setup, ops_teardown);
        tcase_set_timeout(huge, 600);
        tcase_add_test(huge, test_huge);
        suite_add_tcase(s, huge);
    }
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-axes", axes_suite());
}
