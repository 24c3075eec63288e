/* Opening the CUDA driver at run time; see driver.h. */
#include "driver.h"
#include "env.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);

static struct cr_driver table;
static const struct cr_driver *loaded;
static get_proc_fn get_proc;
static const char *lib_path;
static int resolved; /* every entry point found, whether or not cuInit succeeded */
static char failure[512];
static CUresult init_result = CUDA_SUCCESS;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define CR_LIB_SYM(field, sym, ver) {#sym, ver, offsetof(struct cr_driver, field)},
static const struct cr_driver_sym lib_syms[] = {CR_DRIVER_FUNCTIONS(CR_LIB_SYM)};
#undef CR_LIB_SYM

static int resolve(const struct cr_driver_sym *syms, size_t n, void *dst, char *why, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        void *fn = NULL;
        CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (get_proc(syms[i].symbol, &fn, syms[i].version, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS ||
            fn == NULL || q != CU_GET_PROC_ADDRESS_SUCCESS) {
            snprintf(why, cap, "the CUDA driver %s does not provide %s (API version %d)", lib_path,
                     syms[i].symbol, syms[i].version);
            return -1;
        }
        memcpy((char *)dst + syms[i].offset, &fn, sizeof fn);
    }
    return 0;
}

static void load(void)
{
    /* A privileged process never loads a driver named by its environment. */
    const char *path = cr_getenv("CURED_CUDA_DRIVER_LIBRARY");
    if (path == NULL || *path == '\0')
        path = "libcuda.so.1";
    lib_path = path;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "could not load the CUDA driver: dlopen(\"%s\") failed: %s",
                 path, e ? e : "unknown error");
        return;
    }
    /* The one dlsym: everything else comes versioned from cuGetProcAddress. */
    get_proc_fn gp = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    if (gp == NULL) {
        snprintf(failure, sizeof failure,
                 "the CUDA driver %s is too old: it has no cuGetProcAddress_v2 (CUDA 12.0 or newer is needed)",
                 path);
        return;
    }
    get_proc = gp;
    if (resolve(lib_syms, sizeof lib_syms / sizeof *lib_syms, &table, failure, sizeof failure) != 0)
        return;
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

int cr_driver_resolve(const struct cr_driver_sym *syms, size_t n, void *dst, char *why, size_t cap)
{
    pthread_once(&once, load);
    if (!resolved) {
        snprintf(why, cap, "%s", failure);
        return -1;
    }
    return resolve(syms, n, dst, why, cap);
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
    if (table.GetErrorName != NULL && table.GetErrorString != NULL) {
        table.GetErrorName(r, &name);
        table.GetErrorString(r, &desc);
    }
    snprintf(buf, sizeof buf, "%s (%d%s%s)", name ? name : "CUresult", (int)r, desc ? ": " : "",
             desc ? desc : "");
    return buf;
}
