/*
 * A kernel program with a deliberate compile error on line 3, for the tests
 * of NVRTC failure reporting and of the kernel cache's failure handling.
 */
#ifndef CURED_TESTS_BROKEN_H
#define CURED_TESTS_BROKEN_H

#include "internal.h"

#include <string.h>

#define BROKEN_FILE "broken.cu"
#define BROKEN_LINE_TAG "broken.cu(3)" /* NVRTC logs "kernels-src/broken.cu(3): error: ..." */
#define BROKEN_NAME "undefined_name"

/*
 * The "slow" variant adds valid but expensive constant evaluation after the
 * error (about 0.2-0.5 s of NVRTC time), so that threads started together
 * are certain to find the compilation still pending.
 */
static const char broken_source[] =
    "// cured test program: the error below must be reported as line 3\n"
    "__global__ void broken(int *out) {\n"
    "    int x = undefined_name;\n"
    "    *out = x;\n"
    "}\n";

static const char broken_slow_source[] =
    "// cured test program: the error below must be reported as line 3\n"
    "__global__ void broken(int *out) {\n"
    "    int x = undefined_name;\n"
    "    *out = x;\n"
    "}\n"
    "__device__ constexpr unsigned spin(unsigned n, unsigned s)\n"
    "{\n"
    "    for (unsigned i = 0; i < n; i++)\n"
    "        s = s * 1664525u + i;\n"
    "    return s;\n"
    "}\n"
    "template <unsigned K> struct slow { static_assert(spin(250000u, K) != 1u, \"\"); };\n"
    "template struct slow<1>; template struct slow<2>; template struct slow<3>;\n"
    "template struct slow<4>; template struct slow<5>; template struct slow<6>;\n";

static inline void broken_program(struct cr_unit *p, int slow)
{
    memset(p, 0, sizeof *p);
    p->file = BROKEN_FILE;
    p->source = slow ? broken_slow_source : broken_source;
    p->needs_toolkit = 0;
    p->nkernels = 1;
    strcpy(p->kernels[0], "broken");
    strcpy(p->label, "deliberately broken test program");
}

#endif
