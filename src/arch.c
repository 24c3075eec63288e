/* Choosing the compilation target for a device. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int parse_override(const char *s, int *arch, int *ptx)
{
    const char *digits;
    int is_ptx;
    if (strncmp(s, "sm_", 3) == 0) {
        is_ptx = 0;
        digits = s + 3;
    } else if (strncmp(s, "compute_", 8) == 0) {
        is_ptx = 1;
        digits = s + 8;
    } else {
        return 0;
    }
    char *end;
    long v = strtol(digits, &end, 10);
    if (end == digits || *end != '\0' || v < 10 || v > 1000)
        return 0;
    *arch = (int)v;
    *ptx = is_ptx;
    return 1;
}

cured_status cr_select_arch(int cc, const int *supported, int nsupported, const char *override,
                            int *arch, int *ptx)
{
    if (override != NULL && *override != '\0') {
        if (!parse_override(override, arch, ptx)) /* cured.h: NOT_SUPPORTED (no argument is wrong) */
            return cr_fail(CURED_ERROR_NOT_SUPPORTED,
                           "CURED_ARCH=\"%s\" is not of the form sm_XY (cubin) or compute_XY (PTX)",
                           override);
        return CURED_SUCCESS;
    }
    int same_major = 0, below = 0;
    for (int i = 0; i < nsupported; i++) {
        int a = supported[i];
        if (a == cc) { /* exact: a cubin for this very device */
            *arch = a;
            *ptx = 0;
            return CURED_SUCCESS;
        }
        /* A cubin of sm_XY runs on sm_XZ for Z >= Y. */
        if (a / 10 == cc / 10 && a < cc && a > same_major)
            same_major = a;
        /* PTX runs on any device at least as new as its target. */
        if (a < cc && a > below)
            below = a;
    }
    if (same_major) {
        *arch = same_major;
        *ptx = 0;
        return CURED_SUCCESS;
    }
    if (below) {
        *arch = below;
        *ptx = 1;
        return CURED_SUCCESS;
    }
    return cr_fail(CURED_ERROR_NOT_SUPPORTED,
                   "this NVRTC cannot target compute capability %d.%d: its oldest architecture is sm_%d",
                   cc / 10, cc % 10, nsupported > 0 ? supported[0] : 0);
}
