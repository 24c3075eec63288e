/*
 * User-defined reductions: operators written as C++ expressions, compiled
 * with NVRTC for the device at cured_custom_create(): the sum of squares of
 * float32 accumulated in float64, and the largest absolute value.
 */
#include <cured.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "driver.h"

#define N 100000

static float host[N];

int main(void)
{
    int rc = 1;
    double sumsq = 0, want_sumsq = 0;
    float maxabs = 0, want_maxabs = 0;
    for (int i = 0; i < N; i++) {
        host[i] = (float)(i % 201 - 100) / 4; /* quarters: exact in float and their squares in double */
        want_sumsq += (double)host[i] * host[i];
        want_maxabs = fabsf(host[i]) > want_maxabs ? fabsf(host[i]) : want_maxabs;
    }

    cured_handle h;
    cured_status st = cured_create(0, &h);
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured_create: %s: %s\n", cured_status_string(st), cured_last_error());
        return 1;
    }
    cured_custom sq = NULL, amax = NULL;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr d = 0;
    if (load_driver() != 0)
        goto out;
    CU(DeviceGet(&dev, 0));
    CU(DevicePrimaryCtxRetain(&ctx, dev));
    CU(CtxSetCurrent(ctx)); /* cured_create made no context current for this thread */
    CU(MemAlloc(&d, sizeof host));
    CU(MemcpyHtoD(d, host, sizeof host));

    /* map x -> x*x, combine with a+b, identity 0; the result has the accumulator type. */
    CURED(cured_custom_create(h, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x*x", "a+b", "0", &sq));
    CURED(cured_custom_reduce(h, sq, (void *)(uintptr_t)d, NULL, N, &sumsq, NULL));
    CURED(cured_custom_create(h, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "fabs(x)", "fmax(a,b)", "0",
                              &amax));
    CURED(cured_custom_reduce(h, amax, (void *)(uintptr_t)d, NULL, N, &maxabs, NULL));
    printf("sum of squares = %.2f (expected %.2f), max |x| = %.2f (expected %.2f)\n", sumsq, want_sumsq,
           maxabs, want_maxabs);
    rc = sumsq != want_sumsq || maxabs != want_maxabs;
out:
    if (d != 0 && cu.MemFree(d) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuMemFree failed\n");
    if (ctx != NULL && cu.DevicePrimaryCtxRelease(dev) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuDevicePrimaryCtxRelease failed\n");
    /* The ops before the handle: their modules live in its context. */
    if ((st = cured_custom_destroy(sq)) != CURED_SUCCESS || (st = cured_custom_destroy(amax)) != CURED_SUCCESS)
        rc = 1, fprintf(stderr, "cured_custom_destroy: %s: %s\n", cured_status_string(st), cured_last_error());
    if ((st = cured_destroy(h)) != CURED_SUCCESS)
        rc = 1, fprintf(stderr, "cured_destroy: %s: %s\n", cured_status_string(st), cured_last_error());
    return rc;
}
