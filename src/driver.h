/*
 * The CUDA driver, opened with dlopen() and resolved through cuGetProcAddress
 * with explicit API versions, so that nothing links libcuda and the ABI of
 * every entry point is the one written here. Compiled into the library and,
 * as the same file, into the tools and tests (each gets its own table).
 */
#ifndef CURED_DRIVER_H
#define CURED_DRIVER_H

#include <cuda.h>

/* X(field, symbol, version it is requested at, return type and parameters) */
#define CR_DRIVER_FUNCTIONS(X)                                                            \
    X(Init, "cuInit", 2000, CUresult, (unsigned int))                                     \
    X(DriverGetVersion, "cuDriverGetVersion", 2020, CUresult, (int *))                    \
    X(GetErrorName, "cuGetErrorName", 6000, CUresult, (CUresult, const char **))          \
    X(GetErrorString, "cuGetErrorString", 6000, CUresult, (CUresult, const char **))      \
    X(DeviceGetCount, "cuDeviceGetCount", 2000, CUresult, (int *))                        \
    X(DeviceGet, "cuDeviceGet", 2000, CUresult, (CUdevice *, int))                        \
    X(DeviceGetName, "cuDeviceGetName", 2000, CUresult, (char *, int, CUdevice))          \
    X(DeviceGetAttribute, "cuDeviceGetAttribute", 2000, CUresult,                         \
      (int *, CUdevice_attribute, CUdevice))                                              \
    X(DeviceTotalMem, "cuDeviceTotalMem", 3020, CUresult, (size_t *, CUdevice))           \
    X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, CUresult,                 \
      (CUcontext *, CUdevice))                                                            \
    X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 11000, CUresult, (CUdevice))  \
    X(CtxGetCurrent, "cuCtxGetCurrent", 4000, CUresult, (CUcontext *))                    \
    X(CtxPushCurrent, "cuCtxPushCurrent", 4000, CUresult, (CUcontext))                    \
    X(CtxPopCurrent, "cuCtxPopCurrent", 4000, CUresult, (CUcontext *))                    \
    X(CtxGetDevice, "cuCtxGetDevice", 2000, CUresult, (CUdevice *))                       \
    X(CtxSynchronize, "cuCtxSynchronize", 2000, CUresult, (void))                         \
    X(MemAlloc, "cuMemAlloc", 3020, CUresult, (CUdeviceptr *, size_t))                    \
    X(MemFree, "cuMemFree", 3020, CUresult, (CUdeviceptr))                                \
    X(MemAllocHost, "cuMemAllocHost", 3020, CUresult, (void **, size_t))                  \
    X(MemFreeHost, "cuMemFreeHost", 2000, CUresult, (void *))                             \
    X(MemGetInfo, "cuMemGetInfo", 3020, CUresult, (size_t *, size_t *))                   \
    X(MemsetD8, "cuMemsetD8", 3020, CUresult, (CUdeviceptr, unsigned char, size_t))       \
    X(MemsetD32Async, "cuMemsetD32Async", 3020, CUresult,                                 \
      (CUdeviceptr, unsigned int, size_t, CUstream))                                      \
    X(MemcpyHtoD, "cuMemcpyHtoD", 3020, CUresult, (CUdeviceptr, const void *, size_t))    \
    X(MemcpyDtoH, "cuMemcpyDtoH", 3020, CUresult, (void *, CUdeviceptr, size_t))          \
    X(MemcpyDtoD, "cuMemcpyDtoD", 3020, CUresult, (CUdeviceptr, CUdeviceptr, size_t))     \
    X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync", 3020, CUresult,                               \
      (CUdeviceptr, const void *, size_t, CUstream))                                      \
    X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync", 3020, CUresult,                               \
      (void *, CUdeviceptr, size_t, CUstream))                                            \
    X(PointerGetAttributes, "cuPointerGetAttributes", 7000, CUresult,                     \
      (unsigned int, CUpointer_attribute *, void **, CUdeviceptr))                        \
    X(ModuleLoadData, "cuModuleLoadData", 2000, CUresult, (CUmodule *, const void *))     \
    X(ModuleUnload, "cuModuleUnload", 2000, CUresult, (CUmodule))                         \
    X(ModuleGetFunction, "cuModuleGetFunction", 2000, CUresult,                           \
      (CUfunction *, CUmodule, const char *))                                             \
    X(FuncGetAttribute, "cuFuncGetAttribute", 2020, CUresult,                             \
      (int *, CUfunction_attribute, CUfunction))                                          \
    X(OccupancyMaxActiveBlocksPerMultiprocessor,                                          \
      "cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, CUresult,                      \
      (int *, CUfunction, int, size_t))                                                   \
    X(LaunchKernel, "cuLaunchKernel", 4000, CUresult,                                     \
      (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,  \
       unsigned int, unsigned int, CUstream, void **, void **))                           \
    X(StreamCreate, "cuStreamCreate", 2000, CUresult, (CUstream *, unsigned int))         \
    X(StreamDestroy, "cuStreamDestroy", 4000, CUresult, (CUstream))                       \
    X(StreamSynchronize, "cuStreamSynchronize", 2000, CUresult, (CUstream))               \
    X(StreamIsCapturing, "cuStreamIsCapturing", 10000, CUresult,                          \
      (CUstream, CUstreamCaptureStatus *))                                                \
    X(StreamBeginCapture, "cuStreamBeginCapture", 10010, CUresult,                        \
      (CUstream, CUstreamCaptureMode))                                                    \
    X(StreamEndCapture, "cuStreamEndCapture", 10000, CUresult, (CUstream, CUgraph *))     \
    X(GraphInstantiate, "cuGraphInstantiateWithFlags", 11040, CUresult,                   \
      (CUgraphExec *, CUgraph, unsigned long long))                                       \
    X(GraphLaunch, "cuGraphLaunch", 10000, CUresult, (CUgraphExec, CUstream))             \
    X(GraphExecDestroy, "cuGraphExecDestroy", 10000, CUresult, (CUgraphExec))             \
    X(GraphDestroy, "cuGraphDestroy", 10000, CUresult, (CUgraph))                         \
    X(EventCreate, "cuEventCreate", 2000, CUresult, (CUevent *, unsigned int))            \
    X(EventDestroy, "cuEventDestroy", 4000, CUresult, (CUevent))                          \
    X(EventRecord, "cuEventRecord", 2000, CUresult, (CUevent, CUstream))                  \
    X(EventSynchronize, "cuEventSynchronize", 2000, CUresult, (CUevent))                  \
    X(EventElapsedTime, "cuEventElapsedTime", 2000, CUresult, (float *, CUevent, CUevent))

struct cr_driver {
#define CR_DRIVER_FIELD(field, sym, ver, ret, params) ret (*field) params;
    CR_DRIVER_FUNCTIONS(CR_DRIVER_FIELD)
#undef CR_DRIVER_FIELD
};

/*
 * Load the driver once (thread-safe) and call cuInit(0). Returns the table,
 * or NULL with *why pointing at a static message naming what was tried (the
 * library path, the missing symbol or the failing cuInit). The first failure
 * is remembered: the driver is not retried within a process. *no_device (if
 * not NULL) is set when the driver loaded but cuInit found no device.
 */
const struct cr_driver *cr_driver_load(const char **why, int *no_device);
/* cuDriverGetVersion, which needs no cuInit: it answers when the driver
 * loaded but cuInit failed (no device); CUDA_ERROR_NOT_INITIALIZED when the
 * driver did not load. */
CUresult cr_driver_get_version(int *version);

/* "CUDA_ERROR_X (description)" for a driver result; a static string. */
const char *cr_driver_error_text(CUresult r);

#endif
