/* NCCL, opened with dlopen at first use, as NVRTC is (nvrtc_lib.c). */
#include "internal.h"
#include "nccl_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static struct cr_nccl table;
static const struct cr_nccl *loaded;
static char failure[1536];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const char *env = cr_getenv("CURED_NCCL_LIBRARY"); /* NULL in a privileged process */
    const char *path = env != NULL && *env != '\0' ? env : "libnccl.so.2";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(failure, sizeof failure, "could not load NCCL (set CURED_NCCL_LIBRARY to its path); tried:\n  %s: %s",
                 path, e ? e : "not found");
        return;
    }
#define CR_NCCL_RESOLVE(name, ret, params)                                                        \
    {                                                                                             \
        void *fn = dlsym(lib, "nccl" #name);                                                      \
        if (fn == NULL) {                                                                         \
            snprintf(failure, sizeof failure, "NCCL library %s lacks nccl%s (too old?)", path, #name); \
            return;                                                                               \
        }                                                                                         \
        memcpy(&table.name, &fn, sizeof fn);                                                      \
    }
    CR_NCCL_FUNCTIONS(CR_NCCL_RESOLVE)
#undef CR_NCCL_RESOLVE
    /* NCCL 2.0-2.8 report major * 1000 + minor * 100 + patch (2804), 2.9 on major * 10000 + ... */
    if (table.GetVersion(&table.version) != CR_NCCL_SUCCESS || table.version < 2000) {
        snprintf(failure, sizeof failure, "NCCL library %s reports version %d; cured needs NCCL 2", path,
                 table.version);
        return;
    }
    loaded = &table;
}

cured_status cr_nccl(const struct cr_nccl **out)
{
    pthread_once(&once, load);
    *out = loaded;
    if (loaded == NULL)
        return cr_fail(CURED_ERROR_NO_NCCL, "%s", failure);
    return CURED_SUCCESS;
}

cured_status cr_fail_nccl(const struct cr_nccl *n, int result, const char *what)
{
    const char *s = n->GetErrorString(result);
    return cr_fail(CURED_ERROR_NCCL, "%s failed: NCCL error %d (%s)", what, result, s ? s : "no message");
}
