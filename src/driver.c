/* Opening the CUDA driver at run time; see driver.h. */
#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);

static struct cr_driver table;
static const struct cr_driver *loaded;
static int resolved; /* every entry point found, whether or not cuInit succeeded */
static char failure[512];
static CUresult init_result = CUDA_SUCCESS;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const char *path = getenv("CURED_CUDA_DRIVER_LIBRARY");
    if (path == NULL || *path == '\0')
        path = "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "could not load the CUDA driver: dlopen(\"%s\") failed: %s",
                 path, e ? e : "unknown error");
        return;
    }
    /* The one dlsym: everything else comes versioned from cuGetProcAddress. */
    get_proc_fn get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    if (get_proc == NULL) {
        snprintf(failure, sizeof failure,
                 "the CUDA driver %s is too old: it has no cuGetProcAddress_v2 (CUDA 12.0 or newer is needed)",
                 path);
        return;
    }
#define CR_DRIVER_RESOLVE(field, sym, ver, ret, params)                                        \
    {                                                                                          \
        void *fn = NULL;                                                                       \
        CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;               \
        if (get_proc(sym, &fn, ver, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS ||        \
            fn == NULL || q != CU_GET_PROC_ADDRESS_SUCCESS) {                                  \
            snprintf(failure, sizeof failure,                                                  \
                     "the CUDA driver %s does not provide %s (API version %d)", path, sym, ver); \
            return;                                                                            \
        }                                                                                      \
        memcpy(&table.field, &fn, sizeof fn);                                                  \
    }
    CR_DRIVER_FUNCTIONS(CR_DRIVER_RESOLVE)
#undef CR_DRIVER_RESOLVE
    resolved = 1;
    CUresult r = table.Init(0);
    init_result = r;
    if (r != CUDA_SUCCESS) {
        snprintf(failure, sizeof failure, "cuInit(0) failed in %s: %s", path, cr_driver_error_text(r));
        return;
    }
    loaded = &table;
}

const struct cr_driver *cr_driver_load(const char **why, int *no_device)
{
    pthread_once(&once, load);
    if (loaded == NULL && why != NULL)
        *why = failure;
    if (no_device != NULL)
        *no_device = loaded == NULL && init_result == CUDA_ERROR_NO_DEVICE;
    return loaded;
}

CUresult cr_driver_get_version(int *version)
{
    pthread_once(&once, load);
    return resolved ? table.DriverGetVersion(version) : CUDA_ERROR_NOT_INITIALIZED;
}

const char *cr_driver_error_text(CUresult r)
{
    static __thread char buf[256];
    const char *name = NULL, *desc = NULL;
    if (table.GetErrorName != NULL) {
        table.GetErrorName(r, &name);
        table.GetErrorString(r, &desc);
    }
    snprintf(buf, sizeof buf, "%s (%d%s%s)", name ? name : "CUresult", (int)r, desc ? ": " : "",
             desc ? desc : "");
    return buf;
}
