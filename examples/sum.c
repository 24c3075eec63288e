/* Sum 1000 int32 on GPU 0 with cured, checking every status. */
#include <cured.h>
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

/* The driver calls this program makes itself, looked up at run time as cured
 * looks up its own: so the program starts, and says why it cannot run, on a
 * machine without a driver (linked with -lcuda, the loader would stop it). */
static struct {
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*GetErrorName)(CUresult, const char **);
} cu;

static int load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
#define LOAD(f, name) (*(void **)&cu.f = dlsym(lib, name)) != NULL
    if (lib != NULL && LOAD(DeviceGet, "cuDeviceGet") &&
        LOAD(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
        LOAD(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
        LOAD(CtxSetCurrent, "cuCtxSetCurrent") && LOAD(MemAlloc, "cuMemAlloc_v2") &&
        LOAD(MemcpyHtoD, "cuMemcpyHtoD_v2") && LOAD(MemFree, "cuMemFree_v2") &&
        LOAD(GetErrorName, "cuGetErrorName"))
        return 0;
    fprintf(stderr, "cannot use the CUDA driver: %s\n", dlerror());
    return -1;
}

/* A driver call that must succeed; otherwise say which failed, and how. */
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

int main(void)
{
    int host[1000], rc = 1;
    long long sum = 0;
    for (int i = 0; i < 1000; i++)
        host[i] = i - 500;

    cured_handle h;
    cured_status s = cured_create(0, &h); /* device 0: loads the driver, retains the primary context */
    if (s != CURED_SUCCESS) {
        fprintf(stderr, "cured_create: %s: %s\n", cured_status_string(s), cured_last_error());
        return 1;
    }
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUdeviceptr d = 0;
    if (load_driver() != 0)
        goto out;
    /* cured_create made no context current for this thread; cuMemAlloc needs
     * one: the device's primary context, the one cured uses. */
    CU(DeviceGet(&dev, 0));
    CU(DevicePrimaryCtxRetain(&ctx, dev));
    CU(CtxSetCurrent(ctx));
    CU(MemAlloc(&d, sizeof host));
    CU(MemcpyHtoD(d, host, sizeof host));

    s = cured_reduce(h, CURED_OP_SUM, CURED_ALGO_AUTO, (void *)(uintptr_t)d, CURED_TYPE_INT32, 1000,
                     &sum, CURED_TYPE_INT64, NULL /* the legacy default stream */);
    if (s != CURED_SUCCESS)
        fprintf(stderr, "cured_reduce: %s: %s\n", cured_status_string(s), cured_last_error());
    else
        printf("sum = %lld\n", sum); /* -500 */
    rc = s != CURED_SUCCESS || sum != -500;
out:
    if (d != 0 && cu.MemFree(d) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuMemFree failed\n");
    if (ctx != NULL && cu.DevicePrimaryCtxRelease(dev) != CUDA_SUCCESS)
        rc = 1, fprintf(stderr, "cuDevicePrimaryCtxRelease failed\n");
    if ((s = cured_destroy(h)) != CURED_SUCCESS)
        rc = 1, fprintf(stderr, "cured_destroy: %s: %s\n", cured_status_string(s), cured_last_error());
    return rc;
}
