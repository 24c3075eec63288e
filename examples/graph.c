/*
 * cured in a CUDA graph: a float32 sum captured on a stream, then the graph
 * launched again after the input changed. The first call runs outside
 * capture, so that its kernel is compiled (NVRTC) and the stream gets its
 * workspace before anything is captured.
 */
#include <cured.h>
#include <stdint.h>
#include <stdio.h>

#include "driver.h"

#define N (1 << 20)

static float host[N];

int main(void)
{
    int rc = 1;
    float result = 0;
    double want = 0;
    for (int i = 0; i < N; i++) {
        host[i] = (float)(i % 7 - 3); /* small integers: every float sum is exact */
        want += host[i];
    }

    cured_handle h;
    cured_status st = cured_create(0, &h);
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured_create: %s: %s\n", cured_status_string(st), cured_last_error());
        return 1;
    }
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr in = 0, out = 0;
    CUstream stream = NULL;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    if (load_driver() != 0)
        goto out;
    CU(DeviceGet(&dev, 0));
    CU(DevicePrimaryCtxRetain(&ctx, dev));
    CU(CtxSetCurrent(ctx)); /* cured_create made no context current for this thread */
    CU(StreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU(MemAlloc(&in, sizeof host));
    CU(MemAlloc(&out, sizeof result));
    CU(MemcpyHtoD(in, host, sizeof host));

    /* Outside capture: compiles the kernel, gives the stream its workspace. */
    CURED(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, (void *)(uintptr_t)in, CURED_TYPE_FLOAT32,
                             N, (void *)(uintptr_t)out, CURED_TYPE_FLOAT32, stream));
    CU(StreamSynchronize(stream));

    /* The same call, captured. The graph reads `in` and writes `out` each time it runs. */
    CU(StreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    st = cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, (void *)(uintptr_t)in, CURED_TYPE_FLOAT32, N,
                            (void *)(uintptr_t)out, CURED_TYPE_FLOAT32, stream);
    CU(StreamEndCapture(stream, &graph)); /* ends the capture even if the call failed */
    if (st != CURED_SUCCESS) {
        fprintf(stderr, "cured_reduce_async (captured): %s: %s\n", cured_status_string(st), cured_last_error());
        goto out;
    }
    CU(GraphInstantiate(&exec, graph, 0));

    for (int round = 1; round <= 2; round++) {
        CU(GraphLaunch(exec, stream));
        CU(MemcpyDtoHAsync(&result, out, sizeof result, stream));
        CU(StreamSynchronize(stream));
        printf("graph launch %d: sum = %.1f (expected %.1f)\n", round, result, want);
        if ((double)result != want)
            goto out;
        /* New input for the next launch: every element doubled. */
        for (int i = 0; i < N; i++)
            host[i] *= 2;
        want *= 2;
        CU(MemcpyHtoDAsync(in, host, sizeof host, stream));
    }
    rc = 0;
out:
    if (stream != NULL && cu.StreamSynchronize(stream) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuStreamSynchronize failed\n");
    if (exec != NULL && cu.GraphExecDestroy(exec) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuGraphExecDestroy failed\n");
    if (graph != NULL && cu.GraphDestroy(graph) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuGraphDestroy failed\n");
    if (in != 0 && cu.MemFree(in) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuMemFree failed\n");
    if (out != 0 && cu.MemFree(out) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuMemFree failed\n");
    /* The handle goes before the stream: it holds a workspace for it. */
    if ((st = cured_destroy(h)) != CURED_SUCCESS)
        rc = 1, fprintf(stderr, "cured_destroy: %s: %s\n", cured_status_string(st), cured_last_error());
    if (stream != NULL && cu.StreamDestroy(stream) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuStreamDestroy failed\n");
    if (ctx != NULL && cu.DevicePrimaryCtxRelease(dev) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuDevicePrimaryCtxRelease failed\n");
    return rc;
}
