/*
 * Axis and segmented reductions without a GPU: the planner's choices for
 * the shapes of `cured bench axes` on a fake H200-like device, the layout
 * checks and their messages, and NVRTC compilation of every kernel shape
 * the planner can choose.
 */
#include "api_test.h"
#include "jit_batch.h"
#include "plan_fake.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>


static cured_layout matrix(int64_t rows, int64_t cols)
{
    cured_layout l = {2, {rows, cols}, {cols, 1}};
    return l;
}

static cured_status plan(cured_op op, cured_type t, const cured_layout *l, uint32_t axes, const cured_layout *ol,
                         struct cr_request *r, struct cr_geometry *g, int *whole)
{
    fake_h200();
    memset(g, 0, sizeof *g);
    memset(r, 0, sizeof *r);
    *whole = 0;
    cured_type out;
    ck_assert_int_eq(cured_default_result(op, t, &out), CURED_SUCCESS);
    clear_error();
    cured_status st = cr_axes_request(&fake, op, IN_OK, t, l, axes, OUT_OK, out, ol, 0, r, g, whole);
    if (st == CURED_SUCCESS && !*whole && r->shape == CR_SHAPE_COLS) {
        /* the splits are the launch plan's (a full SM of the kernel): the geometry as launched */
        struct cr_unit u;
        struct cr_plan p;
        cr_family_for(r)->build(r, &u);
        fake_plan(r, &u, g, 0.0, &p);
        ck_assert(!p.overflow && p.l[0].nparams > 1);
        memcpy(&g->cols, p.l[0].params[1], sizeof g->cols);
    }
    return st;
}

/* Column splits: enough blocks, partials (both levels) and tickets within the workspace. */
static void check_col_splits(const struct cr_geometry *g, size_t acc)
{
    const struct cr_cols *c = &g->cols;
    ck_assert_msg(c->splits >= 1 && c->splits * c->batches <= 65535, "splits %u", c->splits);
    if (c->splits == 1)
        return;
    const uint64_t level2 = c->ngroups > 1 ? c->ngroups : 0;
    ck_assert_msg((uint64_t)(c->splits + level2) * (uint64_t)c->cols * (uint64_t)c->batches <=
                      (fake.facts.partials_capacity * CR_MAX_ACC + CR_WS_COLS_BYTES) / acc,
                  "the partials fit the workspace");
    ck_assert_msg(c->group >= 1 && (uint64_t)c->group * c->ngroups >= c->splits &&
                      (uint64_t)c->group * (c->ngroups - 1) < c->splits,
                  "%u splits in %u groups of %u", c->splits, c->ngroups, c->group);
    ck_assert_msg(c->splits <= 16 || (c->group <= 64 && c->ngroups <= 64), "%u splits: groups of %u, %u groups",
                  c->splits, c->group, c->ngroups);
    ck_assert_msg((uint64_t)c->tiles * (uint64_t)c->batches * (c->ngroups > 1 ? c->ngroups + 1 : 1) <= CR_WS_NTICKETS,
                  "tickets: %u tiles, %u groups", c->tiles, c->ngroups);
}

/* Dense columns narrower than 16 bytes: folded (16-byte rows of several rows) when whole vectors
 * cover them and the operator's values combine in any grouping; otherwise element by element. */
START_TEST(test_plan_fold)
{
    static const struct {
        cured_op op;
        cured_type t;
        int64_t rows, cols;
        unsigned fold; /* 0: not folded */
    } cases[] = {
        {CURED_OP_SUM, CURED_TYPE_INT8, 1 << 24, 4, 4},      {CURED_OP_SUM, CURED_TYPE_INT8, 1 << 22, 8, 8},
        {CURED_OP_SUM, CURED_TYPE_BFLOAT16, 1 << 25, 2, 2},  {CURED_OP_MAX, CURED_TYPE_FLOAT32, 1 << 20, 2, 2},
        {CURED_OP_MINMAX, CURED_TYPE_INT16, 4096, 4, 4},     {CURED_OP_SUM, CURED_TYPE_INT8, 17, 4, 0},
        {CURED_OP_ARGMAX, CURED_TYPE_INT8, 1 << 20, 4, 0},   {CURED_OP_MEAN, CURED_TYPE_FLOAT32, 1 << 20, 2, 0},
        {CURED_OP_SUM, CURED_TYPE_FLOAT32, 1 << 20, 4, 0} /* a whole vector already */,
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cured_layout l = matrix(cases[i].rows, cases[i].cols);
        struct cr_request r;
        struct cr_geometry g;
        int whole;
        ck_assert_int_eq(plan(cases[i].op, cases[i].t, &l, 1u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_msg(r.shape == CR_SHAPE_COLS && g.cols.fold == cases[i].fold, "case %zu: shape %d fold %u", i,
                      r.shape, g.cols.fold);
        ck_assert_msg(g.cols.len == cases[i].rows && g.cols.cols == cases[i].cols, "case %zu: len %lld cols %lld", i,
                      (long long)g.cols.len, (long long)g.cols.cols);
        if (cases[i].fold) { /* 16-byte rows, a thread column each */
            const int vec = 16 / (int)cr_type_size(cases[i].t);
            ck_assert_int_eq(r.vec, vec);
            ck_assert_int_eq(g.cols.row, vec);
            ck_assert_int_eq(g.cols.rows, cases[i].rows * cases[i].cols / vec);
            ck_assert_int_eq(r.group, 1);
            check_col_splits(&g, r.acc.size);
        }
    }
    /* test-gpu-axes' long 8-bit columns: one split, and each thread takes over 256 rows (several
     * chunks of the 16-bit lanes), folded, TX = 1 and TX = 32; a batch stride of 0 counts as aligned. */
    static const struct {
        int64_t rows, cols;
        int tx;
        unsigned fold;
        int64_t per_thread;
    } longs[] = {{4 * 65792, 4, 1, 4, 257}, {4 * 65792 * 2, 4, 1, 4, 514}, {257 * 256, 16, 1, 0, 257},
                 {514 * 256, 16, 1, 0, 514}, {8 * 257, 512, 32, 0, 257},  {8 * 514, 512, 32, 0, 514}};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++) {
        const cured_layout lb = {3, {2048, longs[i].rows, longs[i].cols}, {0, longs[i].cols, 1}};
        struct cr_request rb;
        struct cr_geometry gb;
        int wb;
        ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_INT8, &lb, 2u, NULL, &rb, &gb, &wb), CURED_SUCCESS);
        ck_assert_msg(rb.shape == CR_SHAPE_COLS && rb.group == longs[i].tx && gb.cols.fold == longs[i].fold &&
                          gb.cols.splits == 1 && gb.cols.batches == 2048 && gb.cols.batch == 0,
                      "long case %zu: shape %d tx %d fold %u splits %u", i, rb.shape, rb.group, gb.cols.fold,
                      gb.cols.splits);
        ck_assert_int_eq(gb.cols.rows / (256 / rb.group), longs[i].per_thread);
    }
    /* A misaligned base: element by element. */
    const cured_layout l = matrix(1 << 20, 4);
    struct cr_request r;
    struct cr_geometry g;
    int whole;
    fake_h200();
    ck_assert_int_eq(cr_axes_request(&fake, CURED_OP_SUM, (const char *)IN_OK + 1, CURED_TYPE_INT8, &l, 1u, OUT_OK,
                                     CURED_TYPE_INT64, NULL, 0, &r, &g, &whole),
                     CURED_SUCCESS);
    ck_assert_msg(r.shape == CR_SHAPE_COLS && g.cols.fold == 0 && r.vec == 1, "misaligned: fold %u vec %d",
                  g.cols.fold, r.vec);
}
END_TEST

/* The 2-D shapes of 2^26 float32 elements, both axes. */
START_TEST(test_plan_matrix_shapes)
{
    for (int k = 0; k <= 26; k += 2) {
        const int64_t rows = (int64_t)1 << k, cols = (int64_t)1 << (26 - k);
        const cured_layout l = matrix(rows, cols);
        struct cr_request r;
        struct cr_geometry g;
        int whole;
        /* axis 1: a contiguous row per output */
        ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &l, 2u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_uint_eq(g.nout, (uint64_t)rows);
        if (rows == 1) {
            ck_assert_msg(whole, "1 x 2^26 along axis 1 is the whole-array kernel");
        } else if (cols * 4 <= 64) { /* rows of at most 64 bytes (one element: nothing reduced): packed */
            ck_assert_msg(r.shape == CR_SHAPE_PACKED && r.group == (int)cols * 4 && g.dense,
                          "%lld x %lld axis 1: shape %d", (long long)rows, (long long)cols, r.shape);
        } else {
            ck_assert_msg(r.shape == CR_SHAPE_ROWS || r.shape == CR_SHAPE_ROWS_SPLIT, "%lld x %lld axis 1: shape %d",
                          (long long)rows, (long long)cols, r.shape);
            ck_assert_uint_eq(g.len, (uint64_t)cols);
            if (r.shape == CR_SHAPE_ROWS)
                ck_assert_msg(r.group >= 1 && r.group <= 32 && (r.group & (r.group - 1)) == 0, "group %d", r.group);
            else /* enough blocks for the device, within the workspace */
                ck_assert_msg(g.per >= 1 && (g.nout * g.per >= 132 * 8 || g.per == g.len * 4 / 16384 ||
                                             g.nout * g.per > 132 * 8 / 2),
                              "%lld rows: %u blocks per row", (long long)rows, g.per);
        }
        /* axis 0: columns */
        ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &l, 1u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_uint_eq(g.nout, (uint64_t)cols);
        if (cols == 1) {
            ck_assert_msg(whole, "2^26 x 1 along axis 0 is the whole-array kernel");
        } else if (rows == 1) { /* a length-1 axis: each result is one element, loaded 16 bytes at a time */
            ck_assert_msg(r.shape == CR_SHAPE_PACKED && r.group == 4 && g.len == 1 && g.dense,
                          "1 x n axis 0: shape %d", r.shape);
        } else {
            ck_assert_msg(r.shape == CR_SHAPE_COLS, "%lld x %lld axis 0: shape %d", (long long)rows, (long long)cols,
                          r.shape);
            ck_assert_int_eq(r.vec, 4);
            ck_assert_msg(g.cols.splits >= 1 && g.cols.splits * g.cols.batches <= 65535, "splits %u", g.cols.splits);
            check_col_splits(&g, 4);
        }
    }
}
END_TEST

/* The bench's other cells (256 MiB of bfloat16, int8, and float32 ARGMAX): short rows packed, columns'
 * splits within the workspace for their accumulators. */
START_TEST(test_plan_bench_cells)
{
    static const cured_type types[] = {CURED_TYPE_BFLOAT16, CURED_TYPE_INT8, CURED_TYPE_FLOAT32, CURED_TYPE_INT32};
    static const cured_op ops[] = {CURED_OP_SUM, CURED_OP_SUM, CURED_OP_ARGMAX, CURED_OP_SUM};
    for (int c = 0; c < 4; c++) {
        const int64_t n = ((int64_t)256 << 20) / (int64_t)cured_type_size(types[c]);
        for (int k = 0; k <= 26; k += 2) {
            const int64_t rows = (int64_t)1 << k, cols = n / rows;
            const cured_layout l = matrix(rows, cols);
            struct cr_request r;
            struct cr_geometry g;
            int whole;
            ck_assert_int_eq(plan(ops[c], types[c], &l, 2u, NULL, &r, &g, &whole), CURED_SUCCESS);
            const int64_t rb = cols * (int64_t)cured_type_size(types[c]);
            if (!whole && rb <= 64)
                ck_assert_msg(r.shape == CR_SHAPE_PACKED && r.group == (int)rb && g.dense,
                              "%s %lld x %lld axis 1: shape %d", cured_type_name(types[c]), (long long)rows,
                              (long long)cols, r.shape);
            ck_assert_int_eq(plan(ops[c], types[c], &l, 1u, NULL, &r, &g, &whole), CURED_SUCCESS);
            if (r.shape == CR_SHAPE_COLS)
                check_col_splits(&g, r.acc.size);
            else
                ck_assert_msg(whole || (rows == 1 && r.shape == CR_SHAPE_PACKED), "%s %lld x %lld axis 0: shape %d",
                              cured_type_name(types[c]), (long long)rows, (long long)cols, r.shape);
        }
    }
}
END_TEST

/* A middle axis of a 3-D array is columns with batches; a transposed view is strided. */
START_TEST(test_plan_other_shapes)
{
    struct cr_request r;
    struct cr_geometry g;
    int whole;
    cured_layout l3 = {3, {64, 1024, 256}, {1024 * 256, 256, 1}};
    ck_assert_int_eq(plan(CURED_OP_MAX, CURED_TYPE_FLOAT32, &l3, 2u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_int_eq(r.shape, CR_SHAPE_COLS);
    ck_assert_int_eq(g.cols.batches, 64);
    ck_assert_int_eq(g.cols.cols, 256);
    ck_assert_int_eq(g.cols.rows, 1024);
    /* Reducing axes 0 and 2 of it: strided */
    ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_INT32, &l3, 5u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_int_eq(r.shape, CR_SHAPE_STRIDED);
    ck_assert_uint_eq(g.len, 64u * 256u);
    /* Axes 1 and 2 nest: one contiguous row per output */
    ck_assert_int_eq(plan(CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, &l3, 6u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_msg(r.shape == CR_SHAPE_ROWS_SPLIT || r.shape == CR_SHAPE_ROWS, "shape %d", r.shape);
    ck_assert_uint_eq(g.len, 1024u * 256u);
    /* All axes of a contiguous array: the whole-array kernel */
    ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_INT8, &l3, 7u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_msg(whole && g.len == 64u * 1024u * 256u, "whole %d len %llu", whole, (unsigned long long)g.len);
    /* A broadcast axis (stride 0) is not contiguous */
    cured_layout b = {2, {1000, 1000}, {0, 1}};
    ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT64, &b, 1u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_int_eq(r.shape, CR_SHAPE_COLS);
    /* An empty reduced axis: empty rows; an empty kept axis: nothing to do */
    cured_layout e = {2, {5, 0}, {0, 1}};
    ck_assert_int_eq(plan(CURED_OP_ARGMIN, CURED_TYPE_INT16, &e, 2u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_msg(r.shape == CR_SHAPE_ROWS && g.len == 0 && g.nout == 5, "empty rows");
    ck_assert_int_eq(plan(CURED_OP_ARGMIN, CURED_TYPE_INT16, &e, 1u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_uint_eq(g.nout, 0);
    /* No axis: one element per output */
    ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &l3, 0u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_msg(r.shape == CR_SHAPE_PACKED && r.group == 4 && g.len == 1 && g.nout == 64 * 1024 * 256 && g.dense,
                  "no axis: shape %d", r.shape);
    /* ... with a padded (keepdims-style) output: packed loads, results one by one */
    cured_layout pad = {3, {64, 1024, 256}, {1024 * 257, 257, 1}};
    ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &l3, 0u, &pad, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_msg(r.shape != CR_SHAPE_PACKED || !g.dense, "a padded output is not stored as vectors");
    /* No axis of a transposed view: one strided element per output */
    cured_layout t2 = {2, {300, 200}, {1, 300}};
    ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &t2, 0u, NULL, &r, &g, &whole), CURED_SUCCESS);
    ck_assert_msg(r.shape == CR_SHAPE_ROWS && g.len == 1 && r.group == 1, "no axis, transposed: shape %d",
                  r.shape);
}
END_TEST

static void expect_bad(cured_status want, const char *needle, cured_op op, const cured_layout *l, uint32_t axes,
                       const cured_layout *ol, const void *in, const void *out)
{
    struct cr_request r;
    struct cr_geometry g;
    int whole;
    fake_h200();
    memset(&g, 0, sizeof g);
    clear_error();
    cured_type ot = CURED_TYPE_FLOAT32;
    if (op == CURED_OP_ARGMIN)
        ot = CURED_TYPE_FLOAT32;
    cured_status st = cr_axes_request(&fake, op, in, CURED_TYPE_FLOAT32, l, axes, out, ot, ol, 0, &r, &g, &whole);
    /* an overlap is found here and refused after the range checks (cr_reduce_run_many) */
    if (st == CURED_SUCCESS && g.overlap != NULL)
        st = CURED_ERROR_OVERLAP;
    ck_assert_msg(st == want, "got %s, want %s (%s)", cured_status_string(st), cured_status_string(want),
                  cured_last_error());
    if (want == CURED_ERROR_OVERLAP)
        ck_assert_msg(strstr(g.overlap, needle) != NULL, "the overlap \"%s\" does not name %s", g.overlap, needle);
    else if (want != CURED_SUCCESS)
        assert_message_contains("cr_axes_request", needle);
}

START_TEST(test_bad_layouts)
{
    cured_layout l = matrix(10, 20);
    expect_bad(CURED_ERROR_NULL_POINTER, "layout", CURED_OP_SUM, NULL, 1u, NULL, IN_OK, OUT_OK);
    cured_layout big = l;
    big.rank = 9;
    expect_bad(CURED_ERROR_INVALID_VALUE, "rank 9", CURED_OP_SUM, &big, 1u, NULL, IN_OK, OUT_OK);
    big.rank = -1;
    expect_bad(CURED_ERROR_INVALID_VALUE, "rank -1", CURED_OP_SUM, &big, 1u, NULL, IN_OK, OUT_OK);
    expect_bad(CURED_ERROR_INVALID_VALUE, "0x4", CURED_OP_SUM, &l, 4u, NULL, IN_OK, OUT_OK);
    cured_layout neg = l;
    neg.stride[0] = -20;
    expect_bad(CURED_ERROR_INVALID_VALUE, "stride -20", CURED_OP_SUM, &neg, 1u, NULL, IN_OK, OUT_OK);
    neg = l;
    neg.extent[1] = -3;
    expect_bad(CURED_ERROR_INVALID_VALUE, "extent -3", CURED_OP_SUM, &neg, 1u, NULL, IN_OK, OUT_OK);
    cured_layout huge = {2, {(int64_t)1 << 40, (int64_t)1 << 40}, {(int64_t)1 << 40, 1}};
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "overflow", CURED_OP_SUM, &huge, 2u, NULL, IN_OK, OUT_OK);
    cured_layout far = {1, {1000}, {(int64_t)1 << 62}};
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "overflow", CURED_OP_SUM, &far, 1u, NULL, IN_OK, OUT_OK);
    /* output layouts */
    cured_layout o1 = {1, {10}, {1}};
    expect_bad(CURED_ERROR_INVALID_VALUE, "rank 1; 0 axes", CURED_OP_SUM, &l, 3u, &o1, IN_OK, OUT_OK);
    cured_layout o2 = {1, {11}, {1}};
    expect_bad(CURED_ERROR_INVALID_VALUE, "extent 11", CURED_OP_SUM, &l, 2u, &o2, IN_OK, OUT_OK);
    cured_layout l3 = {3, {4, 5, 6}, {30, 6, 1}};
    cured_layout overlap = {2, {4, 6}, {3, 1}}; /* rows of 6 results 3 apart */
    expect_bad(CURED_ERROR_INVALID_VALUE, "two results at one address", CURED_OP_SUM, &l3, 2u, &overlap, IN_OK,
               OUT_OK);
    cured_layout zero = {2, {4, 6}, {0, 1}};
    expect_bad(CURED_ERROR_INVALID_VALUE, "two results at one address", CURED_OP_SUM, &l3, 2u, &zero, IN_OK, OUT_OK);
    cured_layout keep = {2, {4, 6}, {12, 2}}; /* padded, no overlap */
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &l3, 2u, &keep, IN_OK, OUT_OK);
    /* NumPy's C-order (5, 1) result has strides (1, 1): an extent-1 axis takes no part in the nesting rule
     * (cured.h), whatever its stride, even 0 */
    cured_layout l51 = {3, {5, 1, 7}, {7, 7, 1}};
    cured_layout numpy51 = {2, {5, 1}, {1, 1}}, zero51 = {2, {5, 1}, {1, 0}}, big51 = {2, {5, 1}, {1, 1000}};
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &l51, 4u, &numpy51, IN_OK, OUT_OK);
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &l51, 4u, &zero51, IN_OK, OUT_OK);
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &l51, 4u, &big51, IN_OK, OUT_OK);
    cured_layout tie = {2, {5, 2}, {1, 1}}; /* extent 2: a tie that does overlap */
    cured_layout l52 = {3, {5, 2, 7}, {14, 7, 1}};
    expect_bad(CURED_ERROR_INVALID_VALUE, "two results at one address", CURED_OP_SUM, &l52, 4u, &tie, IN_OK, OUT_OK);
    /* pointers and alignment */
    expect_bad(CURED_ERROR_NULL_POINTER, "input", CURED_OP_SUM, &l, 1u, NULL, NULL, OUT_OK);
    expect_bad(CURED_ERROR_NULL_POINTER, "output", CURED_OP_SUM, &l, 1u, NULL, IN_OK, NULL);
    expect_bad(CURED_ERROR_MISALIGNED, "aligned", CURED_OP_SUM, &l, 1u, NULL, (const char *)IN_OK + 2, OUT_OK);
    expect_bad(CURED_ERROR_INVALID_VALUE, "two inputs", CURED_OP_DOT, &l, 1u, NULL, IN_OK, OUT_OK);
    expect_bad(CURED_ERROR_INVALID_ENUM, "operator", (cured_op)77, &l, 1u, NULL, IN_OK, OUT_OK);
    /* an empty view needs no input pointer */
    cured_layout e = {2, {5, 0}, {0, 1}};
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &e, 2u, NULL, NULL, OUT_OK);
    /* a zero extent empties the view whatever the other extents multiply to, on either side of it */
    const int64_t e40 = (int64_t)1 << 40;
    cured_layout zero_last = {3, {e40, e40, 0}, {0, 0, 1}}, zero_first = {3, {0, e40, e40}, {1, 0, 0}};
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &zero_last, 3u, NULL, NULL, OUT_OK);
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &zero_first, 6u, NULL, NULL, OUT_OK);
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &zero_last, 0u, NULL, NULL, OUT_OK);
    /* two results of an empty reduction over axes whose extents multiply past 2^64 (merged axes too) */
    cured_layout wide = {4, {2, e40, e40, 0}, {1, e40, 1, 1}}; /* axes 1 and 2 merge */
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &wide, 0xEu, NULL, NULL, OUT_OK);
    /* but results that would number 2^80 overflow even when the reduced axis is empty */
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "overflows", CURED_OP_SUM, &zero_last, 4u, NULL, NULL, OUT_OK);
    /* Issue 36: a broadcast view of 3 * 2^62 elements over 4 bytes (its axes merged into an extent
     * past 2^63), and views just past CURED_MAX_ELEMENTS, elements or results; at the limit, planned. */
    const int64_t e62 = (int64_t)1 << 62, e53 = CURED_MAX_ELEMENTS;
    cured_layout bcast = {2, {e62, 3}, {0, 0}};
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "CURED_MAX_ELEMENTS", CURED_OP_SUM, &bcast, 3u, NULL, IN_OK, OUT_OK);
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "CURED_MAX_ELEMENTS", CURED_OP_SUM, &bcast, 1u, NULL, IN_OK, OUT_OK);
    cured_layout past = {2, {e53 / 2 + 1, 2}, {0, 0}}, at = {2, {e53 / 2, 2}, {0, 0}};
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "CURED_MAX_ELEMENTS", CURED_OP_SUM, &past, 3u, NULL, IN_OK, OUT_OK);
    expect_bad(CURED_ERROR_SIZE_OVERFLOW, "CURED_MAX_ELEMENTS", CURED_OP_MAX, &past, 0u, NULL, IN_OK, OUT_OK);
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &at, 3u, NULL, IN_OK, OUT_OK);
    /* merged axes never wrap: every extent of the plan is positive and at most the count */
    {
        struct cr_request r;
        struct cr_geometry g;
        int whole = 0;
        memset(&g, 0, sizeof g);
        cured_layout b3 = {3, {e53 / 8, 4, 2}, {0, 0, 0}};
        ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &b3, 6u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_msg(g.len == 8 && g.nout == (uint64_t)(e53 / 8), "len %llu nout %llu",
                      (unsigned long long)g.len, (unsigned long long)g.nout);
        for (int k = 0; k < g.kept.n; k++)
            ck_assert_msg(g.kept.extent[k] > 0 && g.kept.extent[k] <= e53, "kept extent %lld",
                          (long long)g.kept.extent[k]);
    }
    /* Outputs over the bytes the view reads (issue 36): out == in, a result inside a strided view,
     * and an output layout that reaches back into the input; disjoint neighbours pass. */
    const char *in = (const char *)IN_OK;
    cured_layout m = matrix(10, 20); /* 200 float32 from in: [in, in + 800) */
    expect_bad(CURED_ERROR_OVERLAP, "input", CURED_OP_SUM, &m, 2u, NULL, in, (void *)in);
    expect_bad(CURED_ERROR_OVERLAP, "input", CURED_OP_SUM, &m, 0u, NULL, in, (void *)in);
    expect_bad(CURED_ERROR_OVERLAP, "input", CURED_OP_SUM, &m, 1u, NULL, in, (void *)(in + 796));
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &m, 1u, NULL, in, (void *)(in + 800));
    /* 20 results (80 bytes) just before an input at in + 400, then 40 bytes into it */
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &m, 1u, NULL, in + 400, (void *)(in + 320));
    expect_bad(CURED_ERROR_OVERLAP, "input", CURED_OP_SUM, &m, 1u, NULL, in + 400, (void *)(in + 360));
    cured_layout pad = {1, {20}, {2}}; /* 20 results 2 apart: [out, out + 39 * 4) */
    expect_bad(CURED_SUCCESS, "", CURED_OP_SUM, &m, 1u, &pad, in + 200, (void *)(in + 44));
    expect_bad(CURED_ERROR_OVERLAP, "input", CURED_OP_SUM, &m, 1u, &pad, in + 200, (void *)(in + 48));
}
END_TEST

/* Every shape's plan fits struct cr_plan (split rows take 10 parameters). */
START_TEST(test_plans_fit)
{
    const cured_layout layouts[] = {matrix(4, 1 << 16), matrix(1 << 12, 4), matrix(64, 1 << 16),
                                    {3, {4, 5, 6}, {30, 6, 1}}};
    const uint32_t axes[] = {2u, 2u, 1u, 5u};
    int shapes = 0;
    for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++) {
        struct cr_request r;
        struct cr_geometry g;
        int whole;
        ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &layouts[k], axes[k], NULL, &r, &g, &whole),
                         CURED_SUCCESS);
        struct cr_unit u;
        cr_family_for(&r)->build(&r, &u);
        struct cr_plan p;
        fake_plan(&r, &u, &g, 0.0, &p);
        ck_assert_msg(!p.overflow && p.nlaunch == 1 && p.l[0].grid >= 1 && p.l[0].grid_y >= 1,
                      "shape %d: overflow %d, %d launches", r.shape, p.overflow, p.nlaunch);
        if (r.shape == CR_SHAPE_ROWS_SPLIT)
            ck_assert_int_eq(p.l[0].nparams, 10); /* and ddof last */
        shapes |= 1 << r.shape;
    }
    ck_assert_msg(shapes & (1 << CR_SHAPE_ROWS_SPLIT), "no split rows planned");
    /* Many long rows: a block per row (not the resident blocks striding over them). */
    {
        const cured_layout l = matrix(16384, 4096);
        struct cr_request r;
        struct cr_geometry g;
        int whole;
        /* ARG's block merge is dear: rows up to 64 KiB, many of them, keep a warp each */
        ck_assert_int_eq(plan(CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, &l, 2u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_msg(r.shape == CR_SHAPE_ROWS && r.group == 32, "ARGMAX, 16384 rows of 16 KiB: shape %d, group %d",
                      r.shape, r.group);
        ck_assert_int_eq(plan(CURED_OP_SUM, CURED_TYPE_FLOAT32, &l, 2u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_msg(r.shape == CR_SHAPE_ROWS_SPLIT && g.per == 1, "16384 rows of 16 KiB: shape %d, %u per row",
                      r.shape, g.per);
        struct cr_unit u;
        cr_family_for(&r)->build(&r, &u);
        struct cr_plan p;
        fake_plan(&r, &u, &g, 0.0, &p);
        ck_assert_uint_eq(p.l[0].grid, 16384);
    }
    /* Segments: the segments' launch, then the long segments' (about a wave of blocks sharing the list). */
    struct cr_request r;
    ck_assert_int_eq(cr_request_make(CURED_OP_ARGMAX, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, &r),
                     CURED_SUCCESS);
    r.shape = CR_SHAPE_SEGMENTS;
    r.group = 4; /* as cr_segments_layout plans them */
    r.offsets = CURED_TYPE_INT64;
    struct cr_geometry g;
    memset(&g, 0, sizeof g);
    g.nout = 1 << 20;
    g.begin = IN_OK;
    g.end = IN_OK;
    g.limit = 123456789;
    struct cr_unit u;
    cr_family_for(&r)->build(&r, &u);
    ck_assert_int_eq(u.nkernels, 2);
    struct cr_plan p;
    /* on an H200, a small GPU and one of very many SMs (whose list the area caps) */
    static const int sms[] = {132, 20, 4000};
    for (size_t k = 0; k < sizeof sms / sizeof *sms; k++) {
        fake_h200();
        fake.facts.sms = sms[k];
        fake.facts.partials_capacity = (size_t)sms[k] * 8;
        fake_plan(&r, &u, &g, 0.0, &p);
        /* the fake kernel has no occupancy of its own: 4 blocks an SM */
        ck_assert_msg(!p.overflow && p.nlaunch == 2 && p.l[1].fn == 1 && p.l[1].grid == 4u * (unsigned)sms[k] &&
                          p.l[1].grid_y == 1 && p.l[1].nparams == 11 && p.l[0].nparams == 10,
                      "segments, %d SMs: overflow %d, %d launches", sms[k], p.overflow, p.nlaunch);
        /* the long list (the 8th parameter of both kernels) */
        struct cr_long_list list, list0;
        memcpy(&list, p.l[1].params[7], sizeof list);
        memcpy(&list0, p.l[0].params[7], sizeof list0);
        ck_assert_msg(memcmp(&list, &list0, sizeof list) == 0, "both kernels see one list");
        /* the guard (the 9th): the limit the offsets may reach and the slot's error word */
        struct cr_seg_guard guard, guard0;
        memcpy(&guard, p.l[1].params[8], sizeof guard);
        memcpy(&guard0, p.l[0].params[8], sizeof guard0);
        ck_assert_msg(guard.limit == 123456789 && guard.bad == 0x40000 + CR_WS_ERROR &&
                          memcmp(&guard, &guard0, sizeof guard) == 0,
                      "the guard: limit %llu, error word 0x%llx", (unsigned long long)guard.limit,
                      (unsigned long long)guard.bad);
        /* every device here holds the whole list; the very many SMs' pool takes fewer chunks a block */
        const unsigned grid = p.l[1].grid;
        ck_assert_msg(list.cap == CR_LONG_MAX && list.chunks == (sms[k] == 4000 ? 4u : 8u),
                      "%d SMs: the list holds %u, %u chunks a block", sms[k], list.cap, list.chunks);
        /* the partials' pool (a chunk each: at most cap + chunks x grid of them), then the 32-byte
         * entries, 16-byte aligned, and their lengths, inside the partials area */
        const uint64_t partials = 0x40000 + CR_WS_PARTIALS;
        ck_assert_uint_eq(list.seg, partials + ((uint64_t)list.cap + (uint64_t)list.chunks * grid) * CR_MAX_ACC);
        ck_assert_uint_eq(list.seg % 16, 0);
        /* past the chunks' cap, entries alone up to CR_LONG_LISTED (an entry a block) */
        ck_assert_msg(list.listed == CR_LONG_LISTED && list.pad == 0, "%d SMs: the list holds %u entries", sms[k],
                      list.listed);
        ck_assert_uint_eq(list.len, list.seg + 32u * list.listed); /* the chunked entries' 32-bit lengths after them */
        ck_assert_msg(list.len + 4u * list.cap <= partials + fake.facts.partials_capacity * CR_MAX_ACC + CR_WS_COLS_BYTES,
                      "%d SMs: the long-segment list outgrows the workspace", sms[k]);
        /* the count, the done word and the chunk counter: three of the slot's tickets */
        const uint64_t tickets = 0x40000 + CR_WS_TICKETS;
        ck_assert_msg(list.count >= tickets && list.done != list.count && list.next != list.count &&
                          list.next != list.done && list.count + 4 <= tickets + 4u * CR_WS_NTICKETS &&
                          list.done + 4 <= tickets + 4u * CR_WS_NTICKETS && list.next + 4 <= tickets + 4u * CR_WS_NTICKETS,
                      "the list's counters outgrow the slot's tickets");
    }
}
END_TEST

/* The plan of a float32 EXACT_SUM over nout segments of an input of `limit` elements (limit_sized as given),
 * and its first launch's job. */
static void plan_exact_sum_segments(uint64_t nout, uint64_t limit, int sized, struct cr_plan *p, struct cr_exact_job *q)
{
    struct cr_request r;
    ck_assert_int_eq(cr_request_make(CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, &r),
                     CURED_SUCCESS);
    struct cr_geometry g;
    memset(&g, 0, sizeof g);
    g.nout = nout, g.begin = IN_OK, g.end = IN_OK, g.limit = limit, g.limit_sized = sized;
    struct cr_unit u;
    cr_family_for(&r)->build(&r, &u);
    fake_plan(&r, &u, &g, 0.0, p);
    memcpy(q, p->l[0].params[0], sizeof *q);
}

/* Exact SUM and MEAN over segments: exact_quick (listing the segments past cr_exact_long_len of its lanes an
 * output), exact_quick_long over one wave of its blocks, then the lanes over the groups they marked; and over
 * columns, exact_quick_columns' parts. */
START_TEST(test_plan_exact_segments)
{
    static const struct {
        cured_op op;
        cured_type in;
        uint64_t nout, limit;
        unsigned group, long_len; /* long_len 0: no list, no exact_quick_long; group 0: no exact_quick */
    } cases[] = {
        {CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT32, 1 << 20, 64 << 20, 8, 512},    /* a mean of 64: 17 lines */
        {CURED_OP_EXACT_MEAN, CURED_TYPE_BFLOAT16, 2048, 2048 * 8192, 32, 1024}, /* a mean of 8192 */
        {CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT16, 1000, 500, 1, 0},              /* none can be long */
        {CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT32, 1000, 512, 1, 0},              /* none over 512 */
        {CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT32, 1000, 513, 1, 512},
        {CURED_OP_EXACT_SUM_SQUARES, CURED_TYPE_FLOAT32, 1 << 20, 64 << 20, 0, 0},
        {CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT64, 1 << 20, 64 << 20, 0, 0},
    };
    fake_h200();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cr_request r;
        const cured_type out = cases[i].in == CURED_TYPE_FLOAT64 ? CURED_TYPE_FLOAT64 : CURED_TYPE_FLOAT32;
        ck_assert_int_eq(cr_request_make(cases[i].op, CURED_ALGO_AUTO, cases[i].in, out, &r), CURED_SUCCESS);
        struct cr_geometry g;
        memset(&g, 0, sizeof g);
        g.nout = cases[i].nout;
        g.begin = IN_OK;
        g.end = IN_OK;
        g.limit = cases[i].limit;
        g.limit_sized = 1;
        struct cr_unit u;
        cr_family_for(&r)->build(&r, &u);
        struct cr_plan p;
        fake_plan(&r, &u, &g, 0.0, &p);
        ck_assert_msg(!p.overflow, "case %zu: the plan overflows", i);
        if (cases[i].group == 0) { /* a warp a segment, or a lane: no exact_quick */
            ck_assert_msg(p.nlaunch == 1 && p.l[0].fn != 3, "case %zu: %d launches, the first of kernel %d", i, p.nlaunch,
                          p.l[0].fn);
            continue;
        }
        const int want = cases[i].long_len ? 3 : 2;
        ck_assert_msg(u.nkernels == 7 && p.nlaunch == want && p.l[0].fn == 6 && p.l[want - 1].fn == 2 &&
                          (want == 2 || p.l[1].fn == 5),
                      "case %zu: %d launches (want %d: exact_quick_segments, %sthe lanes)", i, p.nlaunch, want,
                      want == 3 ? "exact_quick_long, " : "");
        struct cr_exact_job q;
        memcpy(&q, p.l[0].params[0], sizeof q);
        ck_assert_msg(q.view == EXACT_VIEW_SEGMENTS && q.group == cases[i].group && q.long_len == cases[i].long_len &&
                          q.vec == 4,
                      "case %zu: group %u, long_len %u, vec %u (want %u, %u, 4: the input is aligned)", i, q.group,
                      q.long_len, q.vec, cases[i].group, cases[i].long_len);
        if (!cases[i].long_len) {
            ck_assert_msg(q.longs == 0 && q.long_count == 0 && q.long_cap == 0, "case %zu: a list without long_len", i);
            continue;
        }
        struct cr_exact_job l;
        memcpy(&l, p.l[1].params[0], sizeof l);
        ck_assert_msg(memcmp(&q, &l, sizeof q) == 0, "case %zu: exact_quick and exact_quick_long see one job", i);
        /* the entries in the partials area, the three words in the slot's tickets (no split output takes one) */
        const uint64_t partials = 0x40000 + CR_WS_PARTIALS, area = fake.facts.partials_capacity * CR_MAX_ACC + CR_WS_COLS_BYTES;
        ck_assert_uint_eq(q.longs, partials);
        ck_assert_uint_eq(q.long_count, 0x40000 + CR_WS_TICKETS);
        ck_assert_msg(q.long_cap == (area / 32 < CR_EXACT_LONG_CAP ? area / 32 : CR_EXACT_LONG_CAP) && q.splits == 1 &&
                          q.tickets == 0,
                      "case %zu: %u entries, %u parts, tickets 0x%llx", i, q.long_cap, q.splits,
                      (unsigned long long)q.tickets);
        ck_assert_uint_eq((uint64_t)q.long_cap * 32, (uint64_t)q.long_cap * sizeof(struct cr_long_entry));
        /* pieces of 32 KiB: a block each */
        ck_assert_uint_eq(q.long_piece, CR_EXACT_LONG_PIECE_BYTES / (cases[i].in == CURED_TYPE_FLOAT32 ? 4 : 2));
        /* the fake kernel has no occupancy of its own: a block an SM */
        ck_assert_uint_eq(p.l[1].grid, (unsigned)fake.facts.sms);
    }
    struct cr_plan p;
    struct cr_exact_job q;
    /* memory the driver cannot size: no end for the last line, so terms (vec 0, about four a lane) */
    plan_exact_sum_segments(1 << 20, 64 << 20, 0, &p, &q);
    ck_assert_msg(!p.overflow && p.l[0].fn == 6 && q.vec == 0 && q.group == 16, "unsized: kernel %d, vec %u, group %u",
                  p.l[0].fn, q.vec, q.group);
    /* the tests' force: a shorter list, and grid 1 for every kernel */
    cr_exact_force.long_cap = 3;
    cr_exact_force.long_piece = 5;
    cr_exact_force.grid = 1;
    plan_exact_sum_segments(100000, 6400000, 0, &p, &q);
    ck_assert_msg(p.nlaunch == 3 && q.long_cap == 3 && q.long_piece == 5 && p.l[0].grid == 1 && p.l[1].grid == 1 &&
                      p.l[2].grid == 1,
                  "forced: %d launches, cap %u, pieces of %u", p.nlaunch, q.long_cap, q.long_piece);
    memset(&cr_exact_force, 0, sizeof cr_exact_force);
    struct cr_request r;
    struct cr_geometry g;
    struct cr_unit u;
    /* columns for exact_quick_columns (the fifth kernel, first): few columns' thousands of parts meet in chunks of
     * CR_EXACT_COLS_FAN, their doubles and the chunks' inside the partials area, their tickets inside the slot's */
    static const struct {
        uint64_t cols, rows;
    } cols[] = {{8, 1 << 23}, {16, 1 << 22}, {64, 1 << 20}, {256, 1 << 18}, {1 << 14, 4096}, {1 << 16, 1024}};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        ck_assert_int_eq(cr_request_make(CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, &r),
                         CURED_SUCCESS);
        memset(&g, 0, sizeof g);
        g.nout = cols[i].cols;
        g.len = cols[i].rows;
        g.kept.n = 1, g.kept.extent[0] = (long long)cols[i].cols, g.kept.in_stride[0] = 1, g.kept.out_stride[0] = 1;
        g.red.n = 1, g.red.extent[0] = (long long)cols[i].rows, g.red.stride[0] = (long long)cols[i].cols;
        cr_family_for(&r)->build(&r, &u);
        fake_plan(&r, &u, &g, 0.0, &p);
        ck_assert_msg(!p.overflow && p.nlaunch >= 2 && p.l[0].fn == 4, "%llu columns: %d launches, the first of kernel %d",
                      (unsigned long long)cols[i].cols, p.nlaunch, p.l[0].fn);
        memcpy(&q, p.l[0].params[0], sizeof q);
        const uint64_t groups = (q.nout + 31) / 32, chunks = (q.splits + CR_EXACT_COLS_FAN - 1) / CR_EXACT_COLS_FAN;
        const uint64_t area = fake.facts.partials_capacity * CR_MAX_ACC + CR_WS_COLS_BYTES;
        ck_assert_msg(q.splits >= 1 && (q.splits + chunks) * 8 * q.nout <= area &&
                          groups * (chunks > 1 ? chunks + 1 : 1) <= CR_EXACT_COLS_TICKETS &&
                          q.part * q.splits >= q.len && q.part * (q.splits - 1) < q.len,
                      "%llu columns: %u parts of %llu rows", (unsigned long long)cols[i].cols, q.splits,
                      (unsigned long long)q.part);
        /* the items (a group's part each) fill whole waves of exact_quick_columns' warps (the fake's: a block
         * an SM), at least two */
        const uint64_t wave = (uint64_t)fake.facts.sms * 8, items = groups * q.splits, waves = (items + wave - 1) / wave;
        ck_assert_msg(waves >= 2 && items * 100 >= 95 * waves * wave, "%llu columns: %u parts, %llu items, waves of %llu",
                      (unsigned long long)cols[i].cols, q.splits, (unsigned long long)items, (unsigned long long)wave);
        /* a few long columns take many parts: two waves of warps, not one a group */
        if (cols[i].cols <= 256)
            ck_assert_msg(q.splits > 2 * CR_EXACT_COLS_FAN, "%llu columns: %u parts", (unsigned long long)cols[i].cols,
                          q.splits);
    }
    /* fewer than 8 float32 columns: the warp units (no exact_quick_columns); bfloat16's take it */
    for (int bf = 0; bf < 2; bf++) {
        ck_assert_int_eq(cr_request_make(CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, bf ? CURED_TYPE_BFLOAT16 : CURED_TYPE_FLOAT32,
                                         CURED_TYPE_FLOAT32, &r),
                         CURED_SUCCESS);
        memset(&g, 0, sizeof g);
        g.nout = 4, g.len = 1 << 24;
        g.kept.n = 1, g.kept.extent[0] = 4, g.kept.in_stride[0] = 1, g.kept.out_stride[0] = 1;
        g.red.n = 1, g.red.extent[0] = 1 << 24, g.red.stride[0] = 4;
        cr_family_for(&r)->build(&r, &u);
        fake_plan(&r, &u, &g, 0.0, &p);
        ck_assert_msg(!p.overflow && (p.l[0].fn == 4) == bf, "4 %s columns: first kernel %d", bf ? "bfloat16" : "float32",
                      p.l[0].fn);
    }
    /* rows of whole vectors take exact_quick up to CR_EXACT_LANE_LEN vectors (by vectors, 32 lanes a row past
     * 128 vectors); terms past CR_EXACT_LANE_LEN, and longer rows, warp units */
    static const struct {
        cured_type t;
        uint64_t len;
        int quick;
    } rows[] = {{CURED_TYPE_FLOAT32, 1024, 1}, {CURED_TYPE_FLOAT32, 1028, 0}, {CURED_TYPE_FLOAT32, 1026, 0},
                {CURED_TYPE_BFLOAT16, 2048, 1}, {CURED_TYPE_BFLOAT16, 512, 1}, {CURED_TYPE_FLOAT32, 256, 1}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        ck_assert_int_eq(cr_request_make(CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, rows[i].t, CURED_TYPE_FLOAT32, &r),
                         CURED_SUCCESS);
        memset(&g, 0, sizeof g);
        g.nout = 65536;
        g.len = rows[i].len;
        g.kept.n = 1, g.kept.extent[0] = 65536, g.kept.in_stride[0] = (long long)rows[i].len, g.kept.out_stride[0] = 1;
        g.red.n = 1, g.red.extent[0] = (long long)rows[i].len, g.red.stride[0] = 1;
        cr_family_for(&r)->build(&r, &u);
        fake_plan(&r, &u, &g, 0.0, &p);
        memcpy(&q, p.l[0].params[0], sizeof q);
        const unsigned v = 16 / (unsigned)cr_type_size(rows[i].t);
        ck_assert_msg(!p.overflow && (p.l[0].fn == 3) == rows[i].quick &&
                          (!rows[i].quick || (q.vec == 1 && q.group == (rows[i].len / v >= 128 ? 32u : rows[i].len / v / 4))),
                      "rows of %llu %s: first kernel %d, vec %u, group %u", (unsigned long long)rows[i].len,
                      cr_type_name(rows[i].t), p.l[0].fn, q.vec, q.group);
    }
    /* the parts' rule on an H100's 660 resident blocks (5 an SM): the fewest parts from two waves on that fill
     * the last to 95%; the fullest where none does within twice the least; never more than `most` */
    static const struct {
        uint64_t groups, len, most, wave, parts;
    } fill[] = {{2048, 1024, 32, 5280, 10},  {8192, 256, 8, 5280, 3},      {512, 16384, 512, 5280, 30},
                {32, 65536, 2048, 5280, 330}, {2048, 192, 6, 5280, 6},     {2048, 32, 1, 5280, 1},
                {1 << 20, 2048, 64, 5280, 1}, {0, 256, 8, 5280, 1},        {2048, 1, 8, 5280, 1},
                /* counted as the kernel splits: 217 parts of 7000 rows would run as 213 of 33 (87% of the
                 * last wave); 219 of 32 fill 90% */
                {13, 7000, 219, 1056, 219}};
    for (size_t i = 0; i < sizeof fill / sizeof *fill; i++) {
        const uint64_t got = cr_exact_cols_parts(fill[i].groups, fill[i].len, fill[i].most, fill[i].wave);
        ck_assert_msg(got == fill[i].parts, "%llu groups of %llu rows, at most %llu parts: %llu (want %llu)",
                      (unsigned long long)fill[i].groups, (unsigned long long)fill[i].len,
                      (unsigned long long)fill[i].most, (unsigned long long)got, (unsigned long long)fill[i].parts);
        if (fill[i].len > 1) { /* what the kernel runs: parts of ceil(len / parts) rows, as many */
            const uint64_t rows = (fill[i].len + got - 1) / got;
            ck_assert_uint_eq((fill[i].len + rows - 1) / rows, got);
        }
    }
    /* the list's length: 32 terms a lane of exact_quick's group, at least CR_EXACT_LONG_MIN */
    ck_assert_uint_eq(cr_exact_long_len(1), CR_EXACT_LONG_MIN);
    ck_assert_uint_eq(cr_exact_long_len(16), CR_EXACT_LONG_MIN);
    ck_assert_uint_eq(cr_exact_long_len(32), 1024);
}
END_TEST

/* Column splits fill one wave of the blocks that the loaded kernel fits: the
 * planner's bound (8 an SM) when it fits 8, fewer splits when it fits fewer. */
START_TEST(test_plan_cols_wave)
{
    static const struct {
        cured_op op;
        cured_type t;
        int64_t rows, cols;
    } cases[] = {{CURED_OP_SUM, CURED_TYPE_FLOAT32, 1024, 65536}, {CURED_OP_SUM, CURED_TYPE_FLOAT32, 16384, 4096},
                 {CURED_OP_SUM, CURED_TYPE_INT8, 1 << 20, 256},    {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32, 4096, 16384},
                 {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32, 4096, 16384}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const cured_layout l = matrix(cases[i].rows, cases[i].cols);
        struct cr_request r;
        struct cr_geometry g;
        int whole;
        ck_assert_int_eq(plan(cases[i].op, cases[i].t, &l, 1u, NULL, &r, &g, &whole), CURED_SUCCESS);
        ck_assert_msg(r.shape == CR_SHAPE_COLS && g.cols.splits > 1, "case %zu: shape %d, %u splits", i, r.shape,
                      g.cols.splits);
        struct cr_unit u;
        cr_family_for(&r)->build(&r, &u);
        unsigned last = 0;
        for (int bps = 8; bps >= 1; bps /= 2) {
            struct cr_plan p;
            fake_plan_occupancy(&r, &u, &g, 0.0, bps, &p);
            const uint64_t blocks = (uint64_t)p.l[0].grid * p.l[0].grid_y, resident = 132u * (unsigned)bps;
            ck_assert_msg(!p.overflow && p.l[0].grid == g.cols.tiles && p.l[0].grid_y % g.cols.batches == 0,
                          "case %zu, %d an SM: grid %u x %u", i, bps, p.l[0].grid, p.l[0].grid_y);
            const unsigned splits = p.l[0].grid_y / (unsigned)g.cols.batches;
            if (bps == 8)
                ck_assert_msg(splits == g.cols.splits, "case %zu: %u splits planned, %u launched", i, g.cols.splits,
                              splits);
            ck_assert_msg(splits == 1 || blocks <= resident, "case %zu, %d an SM: %llu blocks for %llu resident", i,
                          bps, (unsigned long long)blocks, (unsigned long long)resident);
            ck_assert_msg(last == 0 || splits <= last, "case %zu: fewer blocks an SM, more splits", i);
            last = splits;
        }
    }
}
END_TEST

/* Column splits are chosen once, at launch, with the loaded kernel's
 * occupancy. They equal the two steps they replace: the planner's split for
 * the device's bound on resident blocks of 256 threads (sms * min(max blocks
 * an SM, 8)), then, only where that gave more than one split, the launch's
 * split for the kernel's own occupancy (at most that bound: a block of 256
 * threads fits 8 times in the 2048 threads of an SM, and the handle clamps
 * it to the device's most). A sweep of devices, occupancies, operators and
 * column geometries, batched and not. */
START_TEST(test_plan_cols_once)
{
    static const struct {
        cured_op op;
        cured_type t;
    } ops[] = {{CURED_OP_SUM, CURED_TYPE_INT8},      {CURED_OP_SUM, CURED_TYPE_FLOAT32},
               {CURED_OP_SUM, CURED_TYPE_FLOAT64},   {CURED_OP_MEAN_VAR, CURED_TYPE_FLOAT32},
               {CURED_OP_ARGMAX, CURED_TYPE_FLOAT32}, {CURED_OP_MINMAX, CURED_TYPE_INT16}};
    static const int64_t rows[] = {64, 1000, 4096, 65536, 1 << 20}, cols[] = {3, 4, 17, 256, 4096, 65536},
                         batches[] = {1, 3, 300};
    static const int sms[] = {1, 28, 80, 132, 170}, most[] = {1, 2, 4, 6, 8, 16, 32};
    unsigned long checked = 0, split = 0;
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t a = 0; a < sizeof rows / sizeof *rows; a++)
            for (size_t b = 0; b < sizeof cols / sizeof *cols; b++)
                for (size_t c = 0; c < sizeof batches / sizeof *batches; c++) {
                    const int64_t R = rows[a], C = cols[b], B = batches[c];
                    const cured_layout l = {3, {B, R, C}, {R * C, C, 1}};
                    for (size_t d = 0; d < sizeof sms / sizeof *sms; d++)
                        for (size_t e = 0; e < sizeof most / sizeof *most; e++) {
                            memset(&fake, 0, sizeof fake);
                            fake.facts.sms = sms[d];
                            fake.max_blocks_per_sm = most[e];
                            fake.facts.partials_capacity = (size_t)sms[d] * (size_t)most[e];
                            struct cr_request r;
                            struct cr_geometry g;
                            int whole = 0;
                            cured_type out;
                            ck_assert_int_eq(cured_default_result(ops[o].op, ops[o].t, &out), CURED_SUCCESS);
                            memset(&g, 0, sizeof g);
                            ck_assert_int_eq(cr_axes_request(&fake, ops[o].op, IN_OK, ops[o].t, &l, 2u, OUT_OK, out,
                                                             NULL, 0, &r, &g, &whole),
                                             CURED_SUCCESS);
                            if (whole || r.shape != CR_SHAPE_COLS)
                                continue;
                            struct cr_unit u;
                            cr_family_for(&r)->build(&r, &u);
                            const unsigned ty = 256u / (unsigned)r.group;
                            const uint64_t room = cr_cols_room(&fake.facts, r.acc.size);
                            const uint64_t bound = (uint64_t)sms[d] * (uint64_t)(most[e] < 8 ? most[e] : 8);
                            for (int bps = 1; bps <= most[e] && bps <= 8; bps++) {
                                struct cr_cols old = g.cols; /* the planner's step, then the launch's */
                                cr_cols_splits(&old, bound, ty, room);
                                if (old.splits > 1)
                                    cr_cols_splits(&old, (uint64_t)bps * (uint64_t)sms[d], ty, room);
                                struct cr_plan p;
                                fake_plan_occupancy(&r, &u, &g, 0.0, bps, &p);
                                ck_assert(!p.overflow && p.l[0].nparams > 1);
                                struct cr_cols now;
                                memcpy(&now, p.l[0].params[1], sizeof now);
                                ck_assert_msg(memcmp(&old, &now, sizeof now) == 0 &&
                                                  p.l[0].grid_y == (unsigned)B * old.splits,
                                              "%s of %s, %lld x %lld x %lld, %d SMs of %d blocks, %d resident: "
                                              "splits %u/%u/%u (two steps) against %u/%u/%u (at launch)",
                                              cured_op_name(ops[o].op), cured_type_name(ops[o].t), (long long)B,
                                              (long long)R, (long long)C, sms[d], most[e], bps, old.splits,
                                              old.group, old.ngroups, now.splits, now.group, now.ngroups);
                                checked++;
                                split += now.splits > 1;
                            }
                        }
                }
    /* the sweep reaches both sides of the question */
    ck_assert_msg(checked > 1000 && split > 100 && checked - split > 100, "%lu launches, %lu split", checked, split);
}
END_TEST

/* The public calls' checks that come before any GPU work. */
START_TEST(test_bad_calls)
{
    cured_layout l = matrix(10, 20);
    ck_assert_int_eq(cured_reduce_axes_async(NULL, CURED_OP_SUM, IN_OK, CURED_TYPE_FLOAT32, &l, 1u, OUT_OK,
                                             CURED_TYPE_FLOAT32, NULL, NULL),
                     CURED_ERROR_NULL_HANDLE);
    ck_assert_int_eq(cured_segmented_reduce_async(NULL, CURED_OP_SUM, IN_OK, CURED_TYPE_FLOAT32, 4, IN_OK, IN_OK,
                                                  CURED_TYPE_INT32, OUT_OK, CURED_TYPE_FLOAT32, NULL),
                     CURED_ERROR_NULL_HANDLE);
    ck_assert_int_eq(cured_uniform_segmented_reduce_async(NULL, CURED_OP_SUM, IN_OK, CURED_TYPE_FLOAT32, 4, 4, OUT_OK,
                                                          CURED_TYPE_FLOAT32, NULL),
                     CURED_ERROR_NULL_HANDLE);
}
END_TEST

/* NVRTC compiles every kernel shape the planner can choose, for a spread
 * of operators and types (loop: operator x type): the pair's units planned
 * and its shapes checked, then compiled, several to an NVRTC program
 * (jit_batch.h), and each unit's result asserted. PTX for compute_90 (every
 * C++ and template error, at a quarter of the CPU), except the pairs on a
 * diagonal (each operator and each type once): sm_90 cubins, ptxas too. */
#define NPAIRS 36
#define MAX_UNITS 8
static int plan_pair(int pair, struct cr_unit *units)
{
    static const cured_op ops[] = {CURED_OP_SUM, CURED_OP_ARGMAX, CURED_OP_MINMAX, CURED_OP_NANMIN,
                                   CURED_OP_COUNT_NONZERO, CURED_OP_XOR};
    static const cured_type types[] = {CURED_TYPE_FLOAT32, CURED_TYPE_BFLOAT16, CURED_TYPE_INT8, CURED_TYPE_FLOAT64,
                                       CURED_TYPE_UINT16, CURED_TYPE_INT64};
    const cured_op op = ops[pair % 6];
    const cured_type t = types[(pair / 6) % 6];
    cured_type out;
    if (cured_default_result(op, t, &out) != CURED_SUCCESS)
        return 0;
    const cured_layout layouts[] = {
        matrix(1 << 12, 4),  matrix(1 << 10, 64), matrix(8, 1 << 16),     {3, {4, 5, 6}, {30, 6, 1}},
        matrix(1 << 12, 100), matrix(1 << 12, 1), matrix(1 << 12, 32),
    };
    const uint32_t axes[] = {2u, 1u, 2u, 5u, 2u, 2u, 2u};
    int shapes = 0, n = 0;
    for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++) {
        struct cr_request r;
        struct cr_geometry g;
        int whole = 0;
        fake_h200();
        memset(&g, 0, sizeof g);
        ck_assert_int_eq(cr_axes_request(&fake, op, IN_OK, t, &layouts[k], axes[k], OUT_OK, out, NULL, 0, &r, &g, &whole),
                         CURED_SUCCESS);
        if (whole)
            continue;
        cr_family_for(&r)->build(&r, &units[n++]);
        shapes |= 1 << r.shape;
    }
    /* and segments of either offset type */
    static const cured_type offs[] = {CURED_TYPE_INT32, CURED_TYPE_INT64};
    struct cr_request r;
    ck_assert_int_eq(cr_request_make(op, CURED_ALGO_AUTO, t, out, &r), CURED_SUCCESS);
    r.shape = CR_SHAPE_SEGMENTS;
    r.group = 4; /* as cr_segments_layout plans them */
    r.offsets = offs[pair % 2];
    cr_family_for(&r)->build(&r, &units[n++]);
    const char *on = cured_op_name(op), *tn = cured_type_name(t);
    ck_assert_msg(shapes & (1 << CR_SHAPE_COLS), "%s %s: no column kernel planned", on, tn);
    ck_assert_msg(shapes & (1 << CR_SHAPE_PACKED), "%s %s: no short-row kernel planned", on, tn);
    ck_assert_msg(shapes & (1 << CR_SHAPE_ROWS), "%s %s: no row kernel planned", on, tn);
    ck_assert_msg(shapes & (1 << CR_SHAPE_STRIDED), "%s %s: no strided kernel planned", on, tn);
    return n;
}

START_TEST(test_compile_shapes)
{
    int archs[64], count = 0, arch;
    if (cured_supported_archs(archs, 64, &count) != CURED_SUCCESS || count == 0)
        return; /* test-compile reports a missing NVRTC */
    arch = archs[count - 1];
    for (int i = 0; i < count && i < 64; i++)
        if (archs[i] == 90)
            arch = 90;
    struct cr_unit units[MAX_UNITS];
    cured_status st[MAX_UNITS];
    char msg[MAX_UNITS][JIT_BATCH_MSG];
    const size_t n = (size_t)plan_pair(_i, units);
    struct jit_batch b = {units, n, arch, st, msg, "axis kernels", _i % 7 != 0, 0};
    ck_assert_int_eq(jit_batch_run(&b), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(st[i] == CURED_SUCCESS, "%s: %s", units[i].kernels[0], msg[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("axes");
    TCase *tc = tcase_create("planner");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_plan_matrix_shapes);
    tcase_add_test(tc, test_plan_fold);
    tcase_add_test(tc, test_plan_cols_wave);
    tcase_add_test(tc, test_plan_cols_once);
    tcase_add_test(tc, test_plan_other_shapes);
    tcase_add_test(tc, test_plan_exact_segments);
    tcase_add_test(tc, test_plan_bench_cells);
    tcase_add_test(tc, test_bad_layouts);
    tcase_add_test(tc, test_bad_calls);
    tcase_add_test(tc, test_plans_fit);
    tcase_add_loop_test(tc, test_compile_shapes, 0, NPAIRS);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
