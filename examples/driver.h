/*
 * The CUDA driver calls that examples/graph.c and examples/custom.c make
 * themselves, looked up at run time as examples/sum.c does (and explains):
 * each program then starts, and says why it cannot run, where there is no
 * driver. CU(call) runs cu.call and jumps to the caller's `out` label, after
 * naming the call and its error, when it fails.
 */
#ifndef CURED_EXAMPLE_DRIVER_H
#define CURED_EXAMPLE_DRIVER_H

#include <cuda.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static struct ex_driver {
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*StreamBeginCapture)(CUstream, CUstreamCaptureMode);
    CUresult (*StreamEndCapture)(CUstream, CUgraph *);
    CUresult (*GraphInstantiate)(CUgraphExec *, CUgraph, unsigned long long);
    CUresult (*GraphLaunch)(CUgraphExec, CUstream);
    CUresult (*GraphExecDestroy)(CUgraphExec);
    CUresult (*GraphDestroy)(CUgraph);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

static int load_driver(void)
{
    static const struct {
        size_t offset;
        const char *name;
    } entries[] = {
#define ENTRY(f, name) {offsetof(struct ex_driver, f), name}
        ENTRY(DeviceGet, "cuDeviceGet"),
        ENTRY(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
        ENTRY(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
        ENTRY(CtxSetCurrent, "cuCtxSetCurrent"),
        ENTRY(MemAlloc, "cuMemAlloc_v2"),
        ENTRY(MemFree, "cuMemFree_v2"),
        ENTRY(MemcpyHtoD, "cuMemcpyHtoD_v2"),
        ENTRY(MemcpyDtoH, "cuMemcpyDtoH_v2"),
        ENTRY(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
        ENTRY(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
        ENTRY(StreamCreate, "cuStreamCreate"),
        ENTRY(StreamDestroy, "cuStreamDestroy_v2"),
        ENTRY(StreamSynchronize, "cuStreamSynchronize"),
        ENTRY(StreamBeginCapture, "cuStreamBeginCapture_v2"),
        ENTRY(StreamEndCapture, "cuStreamEndCapture"),
        ENTRY(GraphInstantiate, "cuGraphInstantiateWithFlags"),
        ENTRY(GraphLaunch, "cuGraphLaunch"),
        ENTRY(GraphExecDestroy, "cuGraphExecDestroy"),
        ENTRY(GraphDestroy, "cuGraphDestroy"),
        ENTRY(GetErrorName, "cuGetErrorName"),
#undef ENTRY
    };
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "cannot use the CUDA driver: %s\n", dlerror());
        return -1;
    }
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
        void *f = dlsym(lib, entries[i].name);
        if (f == NULL) {
            fprintf(stderr, "the CUDA driver has no %s\n", entries[i].name);
            return -1;
        }
        memcpy((char *)&cu + entries[i].offset, &f, sizeof f);
    }
    return 0;
}

#define CU(call)                                                  \
    do {                                                          \
        CUresult r_ = cu.call;                                    \
        const char *name_ = "?";                                  \
        if (r_ != CUDA_SUCCESS) {                                 \
            cu.GetErrorName(r_, &name_);                          \
            fprintf(stderr, "cu%s: %s\n", #call, name_);          \
            goto out;                                             \
        }                                                         \
    } while (0)

/* A cured call that must succeed; otherwise its status and message, and out. */
#define CURED(call)                                                                          \
    do {                                                                                     \
        cured_status s_ = (call);                                                            \
        if (s_ != CURED_SUCCESS) {                                                           \
            fprintf(stderr, "%s: %s: %s\n", #call, cured_status_string(s_), cured_last_error()); \
            goto out;                                                                        \
        }                                                                                    \
    } while (0)

#endif
