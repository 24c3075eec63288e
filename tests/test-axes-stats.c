/*
 * The statistics and user-defined ops along axes and over segments, without
 * a GPU: the planner takes them at every shape, the calls' ddof and op
 * checks (distinct status, message), every plan fits with ddof as the last
 * parameter, and NVRTC compiles every shape for MEAN_VAR, LOGSUMEXP, VAR,
 * NANVAR and for one-field and multi-field user ops (batched: tests/jit_batch.h,
 * whose failures are each unit's own).
 */
#include "api_test.h"
#include "jit_batch.h"
#include "plan_fake.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>


/* Layouts that reach every shape: rows, split rows, columns, strided, empty,
 * and rows of two elements (16 bytes or less for every type: packed). */
#define NLAYOUTS 7
static const cured_layout layouts[NLAYOUTS] = {
    {2, {1 << 12, 12}, {12, 1}},       /* axis 1: rows */
    {2, {4, 1 << 16}, {1 << 16, 1}},   /* axis 1: split rows */
    {2, {1 << 10, 64}, {64, 1}},       /* axis 0: columns */
    {3, {4, 5, 6}, {30, 6, 1}},        /* axes 0, 2: strided */
    {2, {6, 8}, {1, 6}},               /* transposed, axis 1: columns */
    {2, {7, 0}, {0, 1}},               /* axis 1 of extent 0: empty rows */
    {2, {1 << 12, 2}, {2, 1}},         /* axis 1: short rows, packed */
};
static const uint32_t layout_axes[NLAYOUTS] = {2u, 2u, 1u, 5u, 2u, 2u, 2u};
static const enum cr_shape layout_shape[NLAYOUTS] = {CR_SHAPE_ROWS, CR_SHAPE_ROWS_SPLIT, CR_SHAPE_COLS,
                                                     CR_SHAPE_STRIDED, CR_SHAPE_COLS, CR_SHAPE_ROWS,
                                                     CR_SHAPE_PACKED};

static void plan_of(cured_op op, cured_type t, int k, struct cr_request *r, struct cr_geometry *g)
{
    fake_h200();
    memset(g, 0, sizeof *g);
    cured_type out;
    ck_assert_int_eq(cured_default_result(op, t, &out), CURED_SUCCESS);
    int whole = 0;
    cured_status st = cr_axes_request(&fake, op, IN_OK, t, &layouts[k], layout_axes[k], OUT_OK, out, NULL, 0, r, g, &whole);
    ck_assert_msg(st == CURED_SUCCESS, "%s along layout %d: %s", cr_op(op)->name, k, cured_last_error());
    ck_assert(!whole);
    ck_assert_msg(r->shape == layout_shape[k], "%s layout %d: shape %d, want %d", cr_op(op)->name, k, r->shape,
                  layout_shape[k]);
}

static const cured_op stats_ops[] = {CURED_OP_MEAN,    CURED_OP_VAR,    CURED_OP_STD,   CURED_OP_MEAN_VAR,
                                     CURED_OP_LOGSUMEXP, CURED_OP_NANMEAN, CURED_OP_NANVAR, CURED_OP_NANSTD};

/* Every statistic is planned at every shape, served by the segmented family,
 * and its plan fits with ddof last (bit for bit). */
START_TEST(test_stats_planned)
{
    for (size_t o = 0; o < sizeof stats_ops / sizeof *stats_ops; o++)
        for (int k = 0; k < NLAYOUTS; k++) {
            struct cr_request r;
            struct cr_geometry g;
            plan_of(stats_ops[o], CURED_TYPE_FLOAT32, k, &r, &g);
            ck_assert_ptr_eq(cr_family_for(&r), &cr_family_segmented);
            struct cr_unit u;
            cr_family_for(&r)->build(&r, &u);
            ck_assert_msg(strstr(u.kernels[0], "::State") != NULL, "%s", u.kernels[0]);
            struct cr_plan p;
            fake_plan(&r, &u, &g, 1.5, &p);
            ck_assert_msg(!p.overflow && p.nlaunch == 1, "layout %d: overflow %d", k, p.overflow);
            double last;
            memcpy(&last, p.l[0].params[p.l[0].nparams - 1], sizeof last);
            ck_assert_msg(last == 1.5, "layout %d: the last parameter is %g, not ddof", k, last);
            if (r.shape == CR_SHAPE_ROWS_SPLIT)
                ck_assert_int_eq(p.l[0].nparams, 10);
        }
}
END_TEST

static void expect(cured_status got, cured_status want, const char *needle)
{
    ck_assert_msg(got == want, "got %s, want %s (%s)", cured_status_string(got), cured_status_string(want),
                  cured_last_error());
    if (want != CURED_SUCCESS)
        assert_message_contains("call", needle);
}

/* ddof and operator checks of the stats calls, before any GPU work. */
START_TEST(test_stats_bad_calls)
{
    fake_h200();
    const cured_layout l = layouts[0];
    const double bad[] = {-1.0, NAN, INFINITY};
    for (int i = 0; i < 3; i++) {
        clear_error();
        expect(cured_reduce_axes_stats_async(&fake, CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT32, &l, 2u, bad[i], OUT_OK,
                                             CURED_TYPE_FLOAT32, NULL, NULL),
               CURED_ERROR_INVALID_VALUE, "ddof");
        clear_error();
        expect(cured_segmented_reduce_stats_async(&fake, CURED_OP_STD, IN_OK, CURED_TYPE_FLOAT32, 4, IN_OK, IN_OK,
                                                  CURED_TYPE_INT32, bad[i], OUT_OK, CURED_TYPE_FLOAT32, NULL),
               CURED_ERROR_INVALID_VALUE, "ddof");
    }
    clear_error();
    expect(cured_reduce_axes_stats_async(&fake, CURED_OP_SUM, IN_OK, CURED_TYPE_FLOAT32, &l, 2u, 0.0, OUT_OK,
                                         CURED_TYPE_FLOAT32, NULL, NULL),
           CURED_ERROR_INVALID_VALUE, "not SUM");
    clear_error();
    expect(cured_segmented_reduce_stats_async(&fake, CURED_OP_MAX, IN_OK, CURED_TYPE_FLOAT32, 4, IN_OK, IN_OK,
                                              CURED_TYPE_INT32, 0.0, OUT_OK, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_INVALID_VALUE, "not MAX");
    expect(cured_reduce_axes_stats_async(NULL, CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT32, &l, 2u, 0.0, OUT_OK,
                                         CURED_TYPE_FLOAT32, NULL, NULL),
           CURED_ERROR_NULL_HANDLE, "NULL");
    clear_error();
    expect(cured_reduce_axes_stats_async(&fake, CURED_OP_MEAN_VAR, IN_OK, CURED_TYPE_INT32, &l, 2u, 0.0, OUT_OK,
                                         CURED_TYPE_INT32, NULL, NULL),
           CURED_ERROR_TYPE_MISMATCH, "MEAN_VAR");
    clear_error();
    expect(cured_reduce_axes_stats_async(&fake, CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT32, NULL, 2u, 0.0, OUT_OK,
                                         CURED_TYPE_FLOAT32, NULL, NULL),
           CURED_ERROR_NULL_POINTER, "layout");
    clear_error();
    expect(cured_segmented_reduce_stats_async(&fake, CURED_OP_VAR, IN_OK, CURED_TYPE_FLOAT32, 4, IN_OK, IN_OK,
                                              CURED_TYPE_INT16, 0.0, OUT_OK, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_INVALID_VALUE, "offsets");
    /* user ops */
    cured_custom two, one;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 2, "x * y", "a + b", "0", &two),
                     CURED_SUCCESS);
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x", "a + b", "0", &one),
                     CURED_SUCCESS);
    clear_error();
    expect(cured_custom_reduce_axes_async(&fake, two, IN_OK, &l, 2u, OUT_OK, NULL, NULL), CURED_ERROR_INVALID_VALUE,
           "two inputs");
    clear_error();
    expect(cured_custom_segmented_reduce_async(&fake, two, IN_OK, 4, IN_OK, IN_OK, CURED_TYPE_INT32, OUT_OK, NULL),
           CURED_ERROR_INVALID_VALUE, "two inputs");
    clear_error();
    expect(cured_custom_reduce_axes_async(&fake, NULL, IN_OK, &l, 2u, OUT_OK, NULL, NULL), CURED_ERROR_NULL_POINTER,
           "op");
    expect(cured_custom_reduce_axes_async(NULL, one, IN_OK, &l, 2u, OUT_OK, NULL, NULL), CURED_ERROR_NULL_HANDLE,
           "handle");
    clear_error();
    cured_layout big = l;
    big.rank = 9;
    expect(cured_custom_reduce_axes_async(&fake, one, IN_OK, &big, 2u, OUT_OK, NULL, NULL), CURED_ERROR_INVALID_VALUE,
           "rank 9");
    clear_error();
    expect(cured_custom_reduce_axes_async(&fake, one, (const char *)IN_OK + 2, &l, 2u, OUT_OK, NULL, NULL),
           CURED_ERROR_MISALIGNED, "aligned");
    clear_error();
    expect(cured_custom_segmented_reduce_async(&fake, one, IN_OK, 4, IN_OK, NULL, CURED_TYPE_INT64, OUT_OK, NULL),
           CURED_ERROR_NULL_POINTER, "end offsets");
    /* no outputs: nothing to do, before any GPU work */
    expect(cured_custom_segmented_reduce_async(&fake, one, NULL, 0, NULL, NULL, CURED_TYPE_INT64, NULL, NULL),
           CURED_SUCCESS, "");
    cured_custom_destroy(two);
    cured_custom_destroy(one);
}
END_TEST

static int pick_arch(int *arch)
{
    int archs[64], count = 0;
    if (cured_supported_archs(archs, 64, &count) != CURED_SUCCESS || count == 0)
        return 0; /* test-compile reports a missing NVRTC */
    *arch = archs[count - 1];
    for (int i = 0; i < count && i < 64; i++)
        if (archs[i] == 90)
            *arch = 90;
    return 1;
}

/* The units compile for sm_90 (or the newest target), cubins or (ptx)
 * PTX, on every CPU, several to an NVRTC program (jit_batch.h); each
 * unit's result asserted. */
#define MAX_UNITS 16
static void compile_all(const struct cr_unit *units, size_t n, const char *what, int ptx)
{
    int arch;
    if (!pick_arch(&arch))
        return;
    static cured_status st[MAX_UNITS];
    static char msg[MAX_UNITS][JIT_BATCH_MSG];
    struct jit_batch b = {units, n, arch, st, msg, what, ptx, 0};
    ck_assert_int_eq(jit_batch_run(&b), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(st[i] == CURED_SUCCESS, "%s: %s", units[i].kernels[0], msg[i]);
}

static void add_unit(const struct cr_request *r, struct cr_unit *units, size_t *n)
{
    ck_assert_uint_lt(*n, MAX_UNITS);
    cr_family_for(r)->build(r, &units[(*n)++]);
}

/* The suites' batched compiles (jit_batch.h): a unit that breaks its
 * program gets its own status and NVRTC's message, its neighbours in that
 * program still compile. */
START_TEST(test_batch_names_failure)
{
    struct cr_unit units[3] = {*cr_catalog_unit(2), *cr_catalog_unit(2), *cr_catalog_unit(4)};
    ck_assert_str_eq(units[0].file, units[2].file); /* one program text: one program */
    snprintf(units[1].kernels[0], sizeof units[1].kernels[0], "%s", "reduce_no_such_kernel<int>");
    cured_status st[3] = {CURED_ERROR_INTERNAL, CURED_ERROR_INTERNAL, CURED_ERROR_INTERNAL};
    char msg[3][JIT_BATCH_MSG] = {"x", "", "x"};
    int arch;
    if (!pick_arch(&arch))
        return;
    struct jit_batch b = {units, 3, arch, st, msg, "units", 0, 0};
    ck_assert_int_eq(jit_batch_run(&b), 0);
    ck_assert_msg(st[0] == CURED_SUCCESS && st[2] == CURED_SUCCESS && msg[0][0] == '\0' && msg[2][0] == '\0',
                  "the good units: %s (%s), %s (%s)", cured_status_string(st[0]), msg[0],
                  cured_status_string(st[2]), msg[2]);
    ck_assert_msg(st[1] == CURED_ERROR_COMPILE, "the broken unit: %s", cured_status_string(st[1]));
    ck_assert_msg(strstr(msg[1], "reduce_no_such_kernel") != NULL, "its message: %s", msg[1]);
}
END_TEST

/* NVRTC compiles every shape of the statistics (loop: operator x type):
 * PTX, and for one type of each operator sm_90 cubins (ptxas too). */
START_TEST(test_stats_compile)
{
    static const cured_op ops[] = {CURED_OP_MEAN_VAR, CURED_OP_LOGSUMEXP, CURED_OP_VAR, CURED_OP_NANVAR};
    static const cured_type types[] = {CURED_TYPE_FLOAT32, CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT64, CURED_TYPE_INT8};
    const cured_op op = ops[_i % 4];
    const cured_type t = types[_i / 4];
    struct cr_unit units[MAX_UNITS];
    size_t n = 0;
    for (int k = 0; k < NLAYOUTS; k++) {
        struct cr_request r;
        struct cr_geometry g;
        plan_of(op, t, k, &r, &g);
        add_unit(&r, units, &n);
    }
    struct cr_request r;
    cured_type out;
    ck_assert_int_eq(cured_default_result(op, t, &out), CURED_SUCCESS);
    ck_assert_int_eq(cr_request_make(op, CURED_ALGO_AUTO, t, out, &r), CURED_SUCCESS);
    r.shape = CR_SHAPE_SEGMENTS;
    r.group = 4; /* as cr_segments_layout plans them */
    r.offsets = _i % 2 ? CURED_TYPE_INT64 : CURED_TYPE_INT32;
    add_unit(&r, units, &n);
    const int cubins = _i == 0 || _i == 5 || _i == 10 || _i == 7; /* each operator once (NANVAR: bfloat16) */
    compile_all(units, n, "statistics units", !cubins);
}
END_TEST

/* NVRTC compiles every shape of a one-field and a two-field user op. */
START_TEST(test_user_compile)
{
    cured_custom op;
    if (_i == 0) {
        ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "(double)x * x", "a + b", "0", &op),
                         CURED_SUCCESS);
    } else {
        const cured_custom_field f[2] = {{CURED_TYPE_FLOAT64, "x", "a0 + b0", "0"},
                                         {CURED_TYPE_INT64, "1", "a1 + b1", "0"}};
        const char *fin[1] = {"a1 > 0 ? a0 / (double)a1 : 0.0"};
        ck_assert_int_eq(cr_custom_build_multi(CURED_TYPE_BFLOAT16, 1, f, 2, CURED_TYPE_FLOAT64, fin, 1, &op),
                         CURED_SUCCESS);
    }
    static struct cr_unit units[MAX_UNITS];
    size_t n = 0;
    for (int k = 0; k < NLAYOUTS; k++) {
        struct cr_request r = *cr_custom_request(op);
        struct cr_geometry g;
        memset(&g, 0, sizeof g);
        fake_h200();
        int whole = 0;
        ck_assert_int_eq(cr_axes_layout(&fake, IN_OK, &layouts[k], layout_axes[k], OUT_OK, NULL, &r, &g, &whole),
                         CURED_SUCCESS);
        const enum cr_shape want = layout_shape[k] == CR_SHAPE_PACKED ? CR_SHAPE_ROWS : layout_shape[k]; /* no vector step */
        ck_assert_msg(r.shape == want, "user op, layout %d: shape %d", k, r.shape);
        add_unit(&r, units, &n);
    }
    struct cr_request r = *cr_custom_request(op);
    struct cr_geometry g;
    ck_assert_int_eq(cr_segments_layout(IN_OK, 10, IN_OK, IN_OK, CURED_TYPE_INT64, OUT_OK, &r, &g), CURED_SUCCESS);
    ck_assert_int_eq(r.shape, CR_SHAPE_SEGMENTS);
    add_unit(&r, units, &n);
    compile_all(units, n, "user-op units", 0); /* their source lives with op */
    cured_custom_destroy(op);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("axes-stats");
    TCase *tc = tcase_create("planner");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_stats_planned);
    tcase_add_test(tc, test_stats_bad_calls);
    tcase_add_loop_test(tc, test_stats_compile, 0, 16);
    tcase_add_test(tc, test_batch_names_failure);
    tcase_add_loop_test(tc, test_user_compile, 0, 2);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
