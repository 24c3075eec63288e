/*
 * The CUDA driver, opened with dlopen() and resolved through cuGetProcAddress
 * with explicit API versions, so that nothing links libcuda and the ABI of
 * every entry point is the toolkit's own: each field has the PFN_<symbol>_v<version>
 * type of cudaTypedefs.h, so the compiler checks every signature. The
 * library's table holds only what the library calls; tests and tools add
 * their own entry points (tools/driver_all.h). Compiled into the library and,
 * as the same file, into the tools.
 */
#ifndef CURED_DRIVER_H
#define CURED_DRIVER_H

#include <stddef.h>

#include <cuda.h>
#include <cudaTypedefs.h>

/* X(field, symbol, API version it is requested at): what the library calls. */
#define CR_DRIVER_FUNCTIONS(X)                                            \
    X(Init, cuInit, 2000)                                                 \
    X(DriverGetVersion, cuDriverGetVersion, 2020)                         \
    X(GetErrorName, cuGetErrorName, 6000)                                 \
    X(GetErrorString, cuGetErrorString, 6000)                             \
    X(DeviceGetCount, cuDeviceGetCount, 2000)                             \
    X(DeviceGet, cuDeviceGet, 2000)                                       \
    X(DeviceGetAttribute, cuDeviceGetAttribute, 2000)                     \
    X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000)             \
    X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 11000)          \
    X(CtxGetCurrent, cuCtxGetCurrent, 4000)                               \
    X(CtxPushCurrent, cuCtxPushCurrent, 4000)                             \
    X(CtxPopCurrent, cuCtxPopCurrent, 4000)                               \
    X(CtxGetDevice, cuCtxGetDevice, 2000)                                 \
    X(CtxGetId, cuCtxGetId, 12000)                                        \
    X(MemAlloc, cuMemAlloc, 3020)                                         \
    X(MemFree, cuMemFree, 3020)                                           \
    X(MemsetD32Async, cuMemsetD32Async, 3020)                             \
    X(MemcpyDtoHAsync, cuMemcpyDtoHAsync, 3020)                           \
    X(PointerGetAttributes, cuPointerGetAttributes, 7000)                 \
    X(ModuleLoadData, cuModuleLoadData, 2000)                             \
    X(ModuleUnload, cuModuleUnload, 2000)                                 \
    X(ModuleGetFunction, cuModuleGetFunction, 2000)                       \
    X(OccupancyMaxActiveBlocksPerMultiprocessor,                          \
      cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)                  \
    X(LaunchKernel, cuLaunchKernel, 4000)                                 \
    X(StreamCreate, cuStreamCreate, 2000)                                 \
    X(StreamDestroy, cuStreamDestroy, 4000)                               \
    X(StreamSynchronize, cuStreamSynchronize, 2000)                       \
    X(StreamIsCapturing, cuStreamIsCapturing, 10000)

/* A table field of the toolkit's type for (symbol, version); sym and ver are
 * only pasted, never expanded (cuda.h maps e.g. cuMemAlloc to cuMemAlloc_v2). */
#define CR_DRIVER_FIELD(field, sym, ver) PFN_##sym##_v##ver field;

struct cr_driver {
    CR_DRIVER_FUNCTIONS(CR_DRIVER_FIELD)
};

/* One entry point to resolve: its symbol, API version and place in a table. */
struct cr_driver_sym {
    const char *symbol;
    int version;
    size_t offset;
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

/*
 * Resolve n entry points into table (a struct of function pointers) through
 * the loaded driver's cuGetProcAddress, for tests' and tools' own tables.
 * 0 on success; -1 with a message in why (the first symbol missing, or that
 * the driver did not load).
 */
int cr_driver_resolve(const struct cr_driver_sym *syms, size_t n, void *table, char *why, size_t cap);

#endif
