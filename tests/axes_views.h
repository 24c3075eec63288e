/*
 * Views NumPy makes that random views of rank 1-4 do not: 0-d, ranks up to
 * 8, every stride 0, length-1 axes with huge strides, an empty axis, a
 * Fortran-order rank-8 array; each with the axis subsets it is reduced
 * along. Planned off the GPU by test-axes-views, run by test-gpu-axes-rank.
 */
#ifndef CURED_TESTS_AXES_VIEWS_H
#define CURED_TESTS_AXES_VIEWS_H

#include "cured.h"

/* A view and the axis subsets it is reduced along (a list ended by AXES_END). */
struct fixed_view {
    const char *label;
    cured_layout l;
    uint32_t axes[6];
};

#define AXES_END 0xffffffffu
static const struct fixed_view axes_views[] = {
    {"0-d", {0, {0}, {0}}, {0, AXES_END}},
    {"broadcast row", {2, {4, 5}, {1, 0}}, {1, 2, 3, 0, AXES_END}},
    {"broadcast scalar", {3, {3, 4, 5}, {0, 0, 0}}, {7, 5, 2, 0, AXES_END}},
    {"length-1 axes, huge strides", {3, {1, 6, 1}, {(int64_t)1 << 40, 1, (int64_t)1 << 40}}, {1, 2, 5, 7, 0, AXES_END}},
    {"rank 8 of 2s", {8, {2, 2, 2, 2, 2, 2, 2, 2}, {128, 64, 32, 16, 8, 4, 2, 1}}, {0xff, 0x0f, 0xf0, 0xaa, 0x81, AXES_END}},
    {"rank 8 of 1s", {8, {1, 1, 1, 1, 1, 1, 1, 1}, {7, 0, 3, 1, 0, 9, 2, 5}}, {0xff, 0x0, 0x10, AXES_END}},
    {"rank 8, empty axis", {8, {2, 2, 0, 2, 2, 2, 2, 2}, {64, 32, 32, 16, 8, 4, 2, 1}}, {0x04, 0x0c, 0xff, 0x03, AXES_END}},
    {"rank 8, transposed", {8, {2, 3, 2, 1, 2, 3, 1, 2}, {1, 2, 6, 999, 12, 24, 5, 72}}, {0x01, 0x22, 0xe0, 0xff, 0, AXES_END}},
};
#define AXES_NVIEWS (sizeof axes_views / sizeof *axes_views)

/* Elements from the view's base to its last element, plus one (1 for an empty view). */
static inline int64_t axes_view_span(const cured_layout *l)
{
    int64_t span = 1;
    for (int k = 0; k < l->rank; k++) {
        if (l->extent[k] == 0)
            return 1;
        span += (l->extent[k] - 1) * l->stride[k];
    }
    return span;
}

#endif
