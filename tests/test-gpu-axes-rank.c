/*
 * Axis reductions of the views NumPy makes that test-gpu-axes's random
 * views (rank 1-4) do not: 0-d arrays (rank 0: one element, reduced or
 * not), ranks 5-8 (random extents up to 3, permuted, broadcast, padded
 * outputs), broadcast rows and scalars (every stride 0), length-1 axes with
 * huge strides (NumPy leaves any stride there), dense rank-8 arrays reduced
 * along every kind of axis subset and with an empty reduced axis; every
 * operator and type (CURED_TEST_NO_HUGE: int32, uint8, float16, float32,
 * float64) against tests/ops_ref.c (tests/axes_case.c).
 *
 * Exits 77 (SKIP) without a GPU.
 */
#include "axes_case.h"
#include "axes_views.h"
#include "ops_test.h"

#include <stdio.h>
#include <string.h>

/* Loop test over operators: the fixed views and random views of rank 0 and 5-8, every type. */
START_TEST(test_numpy_views)
{
    const cured_op op = (cured_op)_i;
    if (cr_op(op)->flags & CR_OP_TWO_INPUTS)
        return;
    struct rng r;
    rng_init(&r, "axes-rank", _i);
    CUstream s = stream_new();
    long id = 0;
    for (int t = 0; t < CURED_TYPE_COUNT; t++) {
        cured_type out;
        if (cured_default_result(op, (cured_type)t, &out) != CURED_SUCCESS)
            continue;
        /* CURED_TEST_NO_HUGE: five types (each new type costs NVRTC compiles) */
        if (ops_reduced() && t != CURED_TYPE_INT32 && t != CURED_TYPE_UINT8 && t != CURED_TYPE_FLOAT16 &&
            t != CURED_TYPE_FLOAT32 && t != CURED_TYPE_FLOAT64)
            continue;
        for (size_t v = 0; v < AXES_NVIEWS; v++)
            for (int a = 0; axes_views[v].axes[a] != AXES_END; a++) {
                const struct fixed_view *fv = &axes_views[v];
                char label[80];
                snprintf(label, sizeof label, "%s, axes 0x%x", fv->label, fv->axes[a]);
                axes_run_case(&r, op, (cured_type)t, out, &fv->l, fv->axes[a], axes_view_span(&fv->l), s, label);
            }
        axes_one_case(&r, op, (cured_type)t, out, 0, 0, 0, s, id++);
        const int cases = ops_reduced() ? 2 : 4;
        for (int c = 0; c < cases; c++)
            axes_one_case(&r, op, (cured_type)t, out, 0, 5, CURED_MAX_RANK, s, id++);
    }
}
END_TEST

static Suite *rank_suite(void)
{
    Suite *s = suite_create("gpu-axes-rank");
    TCase *tc = tcase_create("rank");
    tcase_add_checked_fixture(tc, ops_setup, ops_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_numpy_views, 0, CURED_OP_COUNT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-axes-rank", rank_suite());
}
