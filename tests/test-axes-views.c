/*
 * The views of tests/axes_views.h (0-d, rank 8, stride 0 everywhere,
 * length-1 axes with huge strides, an empty axis, a Fortran-order rank-8
 * array) planned without a GPU, for every operator and type that
 * test-gpu-axes-rank runs: each request is accepted with the number of
 * outputs NumPy gives, a one-element or contiguous whole reduction goes to
 * the whole-array kernels with the right length, an empty reduced axis
 * gives rows of length 0, and every other plan fits struct cr_plan.
 */
#include "api_test.h"
#include "plan_fake.h"
#include "axes_views.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>


/* Outputs, reduced elements per output, and whether the view has no element. */
static void counts(const cured_layout *l, uint32_t axes, uint64_t *nout, uint64_t *len)
{
    *nout = *len = 1;
    for (int k = 0; k < l->rank; k++)
        *((axes >> k) & 1 ? len : nout) *= (uint64_t)l->extent[k];
}

/* Is the reduction one contiguous run of memory (row-major order = memory order)? */
static int contiguous(const cured_layout *l, uint32_t axes)
{
    int64_t expect = 1;
    for (int k = l->rank - 1; k >= 0; k--) {
        if (!((axes >> k) & 1) && l->extent[k] != 1)
            return 0;
        if (l->extent[k] == 1)
            continue;
        if (l->stride[k] != expect)
            return 0;
        expect *= l->extent[k];
    }
    return 1;
}

static void plan_view(cured_op op, cured_type t, cured_type out, const struct fixed_view *v, uint32_t axes)
{
    char what[160];
    snprintf(what, sizeof what, "%s %s->%s, %s, axes 0x%x", cured_op_name(op), cured_type_name(t),
             cured_type_name(out), v->label, axes);
    struct cr_request r;
    struct cr_geometry g;
    int whole = 0;
    fake_h200();
    memset(&g, 0, sizeof g);
    memset(&r, 0, sizeof r);
    clear_error();
    cured_status st = cr_axes_request(&fake, op, IN_OK, t, &v->l, axes, OUT_OK, out, NULL, 0, &r, &g, &whole);
    ck_assert_msg(st == CURED_SUCCESS, "%s: %s (%s)", what, cured_status_string(st), cured_last_error());
    uint64_t nout, len;
    counts(&v->l, axes, &nout, &len);
    if (nout == 0) /* no results: nothing to plan, nothing launched */
        return;
    ck_assert_msg(g.nout == nout, "%s: %llu outputs, NumPy has %llu", what, (unsigned long long)g.nout,
                  (unsigned long long)nout);
    if (cr_op(op)->flags & CR_OP_EXACT) { /* the exact family reads every view from the geometry */
        ck_assert_msg(r.shape == CR_SHAPE_WHOLE && (whole || g.len == len), "%s: shape %d, len %llu", what, r.shape,
                      (unsigned long long)g.len);
        return;
    }
    if (len == 0) {
        ck_assert_msg(r.shape == CR_SHAPE_ROWS && g.len == 0 && !whole, "%s: empty rows expected (shape %d)", what,
                      r.shape);
        return;
    }
    if (nout == 1 && contiguous(&v->l, axes)) {
        ck_assert_msg(whole && g.len == len, "%s: whole %d, len %llu (want %llu)", what, whole,
                      (unsigned long long)g.len, (unsigned long long)len);
        return;
    }
    ck_assert_msg(!whole, "%s: a non-contiguous view went to the whole-array kernels", what);
    struct cr_unit u;
    cr_family_for(&r)->build(&r, &u);
    struct cr_plan p;
    fake_plan(&r, &u, &g, 0.0, &p);
    ck_assert_msg(!p.overflow && p.nlaunch >= 1 && p.nlaunch <= 2 && p.l[0].grid >= 1 && p.l[0].grid_y >= 1,
                  "%s: shape %d, overflow %d, %d launches", what, r.shape, p.overflow, p.nlaunch);
}

/* Loop test over operators: every view, axis subset and type the operator takes. */
START_TEST(test_views_planned)
{
    const cured_op op = (cured_op)_i;
    if (op == CURED_OP_DOT || op == CURED_OP_EXACT_DOT)
        return;
    int planned = 0;
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        cured_type out;
        if (cured_default_result(op, (cured_type)t, &out) != CURED_SUCCESS)
            continue;
        for (size_t v = 0; v < AXES_NVIEWS; v++)
            for (int k = 0; axes_views[v].axes[k] != AXES_END; k++, planned++)
                plan_view(op, (cured_type)t, out, &axes_views[v], axes_views[v].axes[k]);
    }
    ck_assert_int_gt(planned, 0);
}
END_TEST

/* The views' edges themselves: a stride on a length-1 axis is never followed. */
START_TEST(test_view_spans)
{
    ck_assert_int_eq(axes_view_span(&axes_views[0].l), 1);  /* 0-d: one element */
    ck_assert_int_eq(axes_view_span(&axes_views[2].l), 1);  /* every stride 0: one element read 60 times */
    ck_assert_int_eq(axes_view_span(&axes_views[3].l), 6);  /* strides of 2^40 on length-1 axes */
    ck_assert_int_eq(axes_view_span(&axes_views[7].l), 144);
    struct cr_request r;
    struct cr_geometry g;
    int whole = 0;
    fake_h200();
    memset(&g, 0, sizeof g);
    ck_assert_int_eq(cr_axes_request(&fake, CURED_OP_SUM, IN_OK, CURED_TYPE_FLOAT32, &axes_views[3].l, 7u, OUT_OK,
                                     CURED_TYPE_FLOAT32, NULL, 0, &r, &g, &whole),
                     CURED_SUCCESS);
    ck_assert_msg(whole && g.len == 6 && g.in_bytes == 24, "whole %d len %llu in_bytes %zu", whole,
                  (unsigned long long)g.len, g.in_bytes);
}
END_TEST

static Suite *views_suite(void)
{
    Suite *s = suite_create("axes-views");
    TCase *tc = tcase_create("views");
    tcase_add_loop_test(tc, test_views_planned, 0, CURED_OP_COUNT);
    tcase_add_test(tc, test_view_spans);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(views_suite());
}
