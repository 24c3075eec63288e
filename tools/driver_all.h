/*
 * The driver table of the tools and tests: the library's entry points
 * (src/driver.h) and the ones only they call (memory copies, events, graphs,
 * context reset), with the toolkit's PFN types. The library's own table
 * stays minimal, so a driver lacking one of these never stops cured_create.
 */
#ifndef CURED_DRIVER_ALL_H
#define CURED_DRIVER_ALL_H

#include "driver.h"

#define CR_DRIVER_EXTRA_FUNCTIONS(X)                              \
    X(DeviceGetName, cuDeviceGetName, 2000)                       \
    X(DeviceTotalMem, cuDeviceTotalMem, 3020)                     \
    X(DevicePrimaryCtxReset, cuDevicePrimaryCtxReset, 11000)      \
    X(CtxSynchronize, cuCtxSynchronize, 2000)                     \
    X(MemGetInfo, cuMemGetInfo, 3020)                             \
    X(MemsetD8, cuMemsetD8, 3020)                                 \
    X(MemsetD8Async, cuMemsetD8Async, 3020)                       \
    X(MemcpyHtoD, cuMemcpyHtoD, 3020)                             \
    X(MemcpyDtoH, cuMemcpyDtoH, 3020)                             \
    X(MemcpyDtoD, cuMemcpyDtoD, 3020)                             \
    X(MemcpyHtoDAsync, cuMemcpyHtoDAsync, 3020)                   \
    X(StreamBeginCapture, cuStreamBeginCapture, 10010)            \
    X(StreamEndCapture, cuStreamEndCapture, 10000)                \
    X(GraphInstantiate, cuGraphInstantiateWithFlags, 11040)       \
    X(GraphLaunch, cuGraphLaunch, 10000)                          \
    X(GraphExecDestroy, cuGraphExecDestroy, 10000)                \
    X(GraphDestroy, cuGraphDestroy, 10000)                        \
    X(EventCreate, cuEventCreate, 2000)                           \
    X(EventDestroy, cuEventDestroy, 4000)                         \
    X(EventRecord, cuEventRecord, 2000)                           \
    X(EventSynchronize, cuEventSynchronize, 2000)                 \
    X(EventElapsedTime, cuEventElapsedTime, 2000)

#define CR_DRIVER_ALL_FUNCTIONS(X) CR_DRIVER_FUNCTIONS(X) CR_DRIVER_EXTRA_FUNCTIONS(X)

struct cr_driver_all {
    CR_DRIVER_ALL_FUNCTIONS(CR_DRIVER_FIELD)
};

/* As cr_driver_load(), with every entry point above as well (resolved once). */
const struct cr_driver_all *cr_driver_all_load(const char **why, int *no_device);

#endif
