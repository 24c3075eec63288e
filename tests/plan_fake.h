/* The planner suites' stand-in handle: an H200's facts (132 SMs, 8 resident
 * blocks of 256 an SM, the partials area those blocks need), no device. The
 * planner reads only these; pointers IN_OK and OUT_OK are aligned for any type,
 * and far enough apart that no view of the suites makes them overlap. */
#ifndef CURED_TESTS_PLAN_FAKE_H
#define CURED_TESTS_PLAN_FAKE_H

#include "internal.h"

#include <stdint.h>
#include <string.h>

#define IN_OK ((const void *)(uintptr_t)0x10000)
#define OUT_OK ((void *)(uintptr_t)0x7000000000000000u)

static struct cured_handle_st fake;

static inline void fake_h200(void)
{
    memset(&fake, 0, sizeof fake);
    fake.facts.sms = 132;
    fake.max_blocks_per_sm = 8;
    fake.facts.partials_capacity = 132 * 8;
}

/* The launches of a built unit on the stand-in device (a kernel of
 * blocks_per_sm resident blocks, the workspace slot at 0x40000), with the
 * request's ddof. */
static inline void fake_plan_occupancy(const struct cr_request *r, const struct cr_unit *u,
                                       const struct cr_geometry *g, double ddof, int blocks_per_sm,
                                       struct cr_plan *p)
{
    struct cr_kernel kern = {0};
    kern.blocks_per_sm = blocks_per_sm;
    const struct cr_args a = {IN_OK, NULL, 0, (CUdeviceptr)(uintptr_t)OUT_OK, 0x40000, g, ddof, NULL};
    memset(p, 0, sizeof *p);
    cr_family_for(r)->plan(r, u, &kern, &fake.facts, &a, p);
}

/* The same with 8 resident blocks (256 threads: a full SM). */
static inline void fake_plan(const struct cr_request *r, const struct cr_unit *u, const struct cr_geometry *g,
                             double ddof, struct cr_plan *p)
{
    fake_plan_occupancy(r, u, g, ddof, 8, p);
}

#endif
