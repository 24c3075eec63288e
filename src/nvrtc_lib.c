/* NVRTC, opened with dlopen at first use. */
#include "internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cr_nvrtc table;
static const struct cr_nvrtc *loaded;
static char failure[2048];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *try_open(const char *path, char *tried, size_t cap)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        size_t len = strlen(tried);
        const char *e = dlerror();
        snprintf(tried + len, cap - len, "\n  %s: %s", path, e ? e : "not found");
    }
    return lib;
}

static void load(void)
{
    char tried[1536] = "";
    void *lib = NULL;
    const char *env = getenv("CURED_NVRTC_LIBRARY");
    if (env != NULL && *env != '\0') {
        lib = try_open(env, tried, sizeof tried); /* an explicit choice is not second-guessed */
    } else {
        static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
        for (size_t i = 0; lib == NULL && i < sizeof names / sizeof *names; i++)
            lib = try_open(names[i], tried, sizeof tried);
        /* Toolkits outside the loader path: the configure-time one. */
        static const char *const dirs[] = {CURED_CONFIGURE_CUDA_HOME "/lib64",
                                           CURED_CONFIGURE_CUDA_HOME "/lib"};
        for (size_t i = 0; lib == NULL && i < sizeof dirs / sizeof *dirs; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/libnvrtc.so", dirs[i]);
            lib = try_open(path, tried, sizeof tried);
        }
    }
    if (lib == NULL) {
        snprintf(failure, sizeof failure,
                 "could not load NVRTC (set CURED_NVRTC_LIBRARY to its path); tried:%s", tried);
        return;
    }
#define CR_NVRTC_RESOLVE(name, ret, params)                                                  \
    {                                                                                        \
        void *fn = dlsym(lib, "nvrtc" #name);                                                \
        if (fn == NULL) {                                                                    \
            snprintf(failure, sizeof failure, "NVRTC library lacks nvrtc%s (too old?)", #name); \
            return;                                                                          \
        }                                                                                    \
        memcpy(&table.name, &fn, sizeof fn);                                                 \
    }
    CR_NVRTC_FUNCTIONS(CR_NVRTC_RESOLVE)
#undef CR_NVRTC_RESOLVE
    if (table.Version(&table.major, &table.minor) != NVRTC_SUCCESS ||
        table.GetNumSupportedArchs(&table.narchs) != NVRTC_SUCCESS || table.narchs <= 0 ||
        (table.archs = calloc((size_t)table.narchs, sizeof(int))) == NULL ||
        table.GetSupportedArchs(table.archs) != NVRTC_SUCCESS) {
        snprintf(failure, sizeof failure, "NVRTC did not report its version or architectures");
        return;
    }
    loaded = &table;
}

cured_status cr_nvrtc(const struct cr_nvrtc **out)
{
    pthread_once(&once, load);
    *out = loaded;
    if (loaded == NULL)
        return cr_fail(CURED_ERROR_NO_NVRTC, "%s", failure);
    return CURED_SUCCESS;
}
