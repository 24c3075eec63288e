/*
 * The read ceiling of `cured bench axes`: a kernel that only reads, compiled
 * here with NVRTC (no nvcc needed) and launched with the tool's driver
 * table. Each thread keeps UNROLL 16-byte streaming loads (ld.global.cs) in
 * flight over a grid-stride loop and folds them with XOR into one word per
 * block, so nothing is optimised away; the grid is swept (1 to 32 blocks
 * per SM, 256 or 512 threads) and the fastest configuration is the ceiling.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceiling.h"

static const char source[] =
    "template <int UNROLL> __global__ void read_ceiling(const uint4 *in, unsigned long long nvec, unsigned *out)\n"
    "{\n"
    "    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;\n"
    "    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    unsigned acc = 0;\n"
    "    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {\n"
    "        uint4 v[UNROLL];\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < UNROLL; u++) v[u] = __ldcs(in + i + u * stride);\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < UNROLL; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;\n"
    "    }\n"
    "    for (; i < nvec; i += stride) { uint4 v = __ldcs(in + i); acc ^= v.x ^ v.y ^ v.z ^ v.w; }\n"
    "    acc = __reduce_xor_sync(0xffffffffu, acc);\n"
    "    if ((threadIdx.x & 31) == 0) atomicXor(out + blockIdx.x % 1024, acc);\n"
    "}\n";

typedef nvrtcResult (*create_fn)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                                 const char *const *);
typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*get_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*name_fn)(nvrtcProgram, const char *const);
typedef nvrtcResult (*lowered_fn)(nvrtcProgram, const char *const, const char **);
typedef nvrtcResult (*destroy_fn)(nvrtcProgram *);

int ceiling_prepare(struct ceiling *c, const struct cr_driver_all *d, int ccmaj, int ccmin, char *why, size_t len)
{
    memset(c, 0, sizeof c[0]);
    c->d = d;
    static const char *const libs[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    void *lib = NULL;
    const char *env = getenv("CURED_NVRTC_LIBRARY");
    if (env != NULL && *env != '\0')
        lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; lib == NULL && i < sizeof libs / sizeof *libs; i++)
        lib = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(why, len, "NVRTC could not be loaded for the ceiling kernel");
        return -1;
    }
    create_fn create = (create_fn)dlsym(lib, "nvrtcCreateProgram");
    compile_fn compile = (compile_fn)dlsym(lib, "nvrtcCompileProgram");
    size_fn ptx_size = (size_fn)dlsym(lib, "nvrtcGetPTXSize");
    get_fn get_ptx = (get_fn)dlsym(lib, "nvrtcGetPTX");
    name_fn add_name = (name_fn)dlsym(lib, "nvrtcAddNameExpression");
    lowered_fn lowered = (lowered_fn)dlsym(lib, "nvrtcGetLoweredName");
    destroy_fn destroy = (destroy_fn)dlsym(lib, "nvrtcDestroyProgram");
    if (!create || !compile || !ptx_size || !get_ptx || !add_name || !lowered || !destroy) {
        snprintf(why, len, "NVRTC lacks an entry point the ceiling kernel needs");
        dlclose(lib);
        return -1;
    }
    static const char *const names[CEILING_VARIANTS] = {"read_ceiling<4>", "read_ceiling<8>"};
    nvrtcProgram prog;
    char arch[48];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", ccmaj, ccmin);
    const char *opts[] = {arch, "--std=c++17"};
    int rc = -1;
    if (create(&prog, source, "read_ceiling.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
        snprintf(why, len, "nvrtcCreateProgram failed for the ceiling kernel");
        dlclose(lib);
        return -1;
    }
    for (int k = 0; k < CEILING_VARIANTS; k++)
        add_name(prog, names[k]);
    size_t n = 0;
    char *ptx = NULL;
    if (compile(prog, 2, opts) != NVRTC_SUCCESS || ptx_size(prog, &n) != NVRTC_SUCCESS || (ptx = malloc(n)) == NULL ||
        get_ptx(prog, ptx) != NVRTC_SUCCESS) {
        snprintf(why, len, "NVRTC could not compile the ceiling kernel for compute_%d%d", ccmaj, ccmin);
        goto done;
    }
    CUresult e = d->ModuleLoadData(&c->module, ptx);
    for (int k = 0; e == CUDA_SUCCESS && k < CEILING_VARIANTS; k++) {
        const char *low = NULL;
        if (lowered(prog, names[k], &low) != NVRTC_SUCCESS || low == NULL)
            e = CUDA_ERROR_NOT_FOUND;
        else
            e = d->ModuleGetFunction(&c->fn[k], c->module, low);
    }
    if (e == CUDA_SUCCESS)
        e = d->MemAlloc(&c->out, 1024 * sizeof(unsigned));
    if (e != CUDA_SUCCESS) {
        snprintf(why, len, "loading the ceiling kernel: %s", cr_driver_error_text(e));
        goto done;
    }
    rc = 0;
done:
    free(ptx);
    destroy(&prog);
    dlclose(lib);
    return rc;
}

int ceiling_launch(const struct ceiling *c, int variant, unsigned grid, unsigned block, const void *in, size_t bytes,
                   CUstream s)
{
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)in, out = c->out;
    unsigned long long nvec = bytes / 16;
    void *params[] = {&p, &nvec, &out};
    return c->d->LaunchKernel(c->fn[variant], grid, 1, 1, block, 1, 1, 0, s, params, NULL) == CUDA_SUCCESS ? 0 : -1;
}

void ceiling_release(struct ceiling *c)
{
    if (c->out)
        c->d->MemFree(c->out);
    if (c->module)
        c->d->ModuleUnload(c->module);
    memset(c, 0, sizeof *c);
}
