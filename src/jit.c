/* One NVRTC compilation of a kernel program for one target. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every embedded source is offered to NVRTC as a header: the .cuh files,
 * and fast.cu, which user-defined ops include for the AUTO kernels. */
#define NHEADERS cr_nsources

static cured_status nvrtc_error(const struct cr_nvrtc *nv, nvrtcResult r, const char *what,
                                const struct cr_unit *p)
{
    return cr_fail(CURED_ERROR_INTERNAL, "%s failed for kernels-src/%s: %s", what, p->file,
                   nv->GetErrorString(r));
}

static int arch_offered(const struct cr_nvrtc *nv, int arch)
{
    for (int i = 0; i < nv->narchs; i++)
        if (nv->archs[i] == arch)
            return 1;
    return 0;
}

cured_status cr_jit_options(const struct cr_unit *p, int arch, int ptx, struct cr_options *o)
{
    o->argc = 0;
    snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", arch);
    o->argv[o->argc++] = o->arch;
    o->argv[o->argc++] = "--std=c++17";
    /* No texture, device-runtime or driver-type declarations, which no
     * kernel uses: the same images, ~4 ms less front end per compile
     * (NVRTC 12.4+; bench/NOTES.md). */
    const struct cr_nvrtc_facts *nv;
    if (cr_nvrtc_facts(&nv) == CURED_SUCCESS && (nv->major > 12 || (nv->major == 12 && nv->minor >= 4)))
        o->argv[o->argc++] = "--minimal";
    if (p->needs_toolkit) {
        const char *inc = cr_toolkit_include_dir();
        if (inc == NULL)
            return CURED_ERROR_NOT_SUPPORTED; /* message already recorded */
        snprintf(o->inc[0], sizeof o->inc[0], "--include-path=%s", inc);
        snprintf(o->inc[1], sizeof o->inc[1], "--include-path=%s/cccl", inc); /* CUDA 13 keeps libcu++ here */
        o->argv[o->argc++] = o->inc[0];
        o->argv[o->argc++] = o->inc[1];
    }
    return CURED_SUCCESS;
}

cured_status cr_jit_compile(const struct cr_unit *p, int arch, int ptx, struct cr_image *out)
{
    const struct cr_nvrtc *nv;
    cured_status st = cr_nvrtc(&nv);
    if (st != CURED_SUCCESS)
        return st;
    memset(out, 0, sizeof *out);
    if (!arch_offered(nv, arch))
        return cr_fail(CURED_ERROR_NOT_SUPPORTED, "NVRTC %d.%d cannot compile for %s_%d", nv->major,
                       nv->minor, ptx ? "compute" : "sm", arch);
    struct cr_options o;
    if ((st = cr_jit_options(p, arch, ptx, &o)) != CURED_SUCCESS)
        return st;

    const char *text = p->source ? p->source : cr_source_text(p->file);
    const char *headers[64], *names[64];
    if (text == NULL || NHEADERS > 64)
        return cr_fail(CURED_ERROR_INTERNAL, "kernel source %s is not embedded", p->file);
    for (size_t i = 0; i < NHEADERS; i++) {
        headers[i] = cr_sources[i].text;
        names[i] = cr_sources[i].name;
    }

    /* The program is named by its path so the log points at kernels-src/<file>:<line>. */
    char name[128];
    snprintf(name, sizeof name, "kernels-src/%s", p->file);
    nvrtcProgram prog;
    nvrtcResult r = nv->CreateProgram(&prog, text, name, (int)NHEADERS, headers, names);
    if (r != NVRTC_SUCCESS)
        return r == NVRTC_ERROR_OUT_OF_MEMORY
                   ? cr_fail(CURED_ERROR_OUT_OF_MEMORY, "nvrtcCreateProgram: out of memory")
                   : nvrtc_error(nv, r, "nvrtcCreateProgram", p);
    for (int k = 0; k < p->nkernels; k++)
        if ((r = nv->AddNameExpression(prog, p->kernels[k])) != NVRTC_SUCCESS) {
            st = nvrtc_error(nv, r, "nvrtcAddNameExpression", p);
            goto done;
        }

    r = nv->CompileProgram(prog, o.argc, o.argv);
    if (r != NVRTC_SUCCESS) {
        size_t log_size = 0;
        char *log = NULL;
        if (nv->GetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && (log = malloc(log_size + 1)))
            if (nv->GetProgramLog(prog, log) != NVRTC_SUCCESS)
                log[0] = '\0';
        st = cr_fail(CURED_ERROR_COMPILE, "NVRTC failed to compile %s for %s_%d (%s):\n%s", name,
                     ptx ? "compute" : "sm", arch, nv->GetErrorString(r), log ? log : "(no log)");
        free(log);
        goto done;
    }
    for (int k = 0; k < p->nkernels; k++) {
        const char *lowered = NULL;
        if ((r = nv->GetLoweredName(prog, p->kernels[k], &lowered)) != NVRTC_SUCCESS ||
            lowered == NULL || strlen(lowered) >= sizeof out->lowered[k]) {
            st = cr_fail(CURED_ERROR_INTERNAL, "no lowered name for %s", p->kernels[k]);
            goto done;
        }
        strcpy(out->lowered[k], lowered);
    }
    r = ptx ? nv->GetPTXSize(prog, &out->size) : nv->GetCUBINSize(prog, &out->size);
    if (r != NVRTC_SUCCESS) {
        st = nvrtc_error(nv, r, ptx ? "nvrtcGetPTXSize" : "nvrtcGetCUBINSize", p);
        goto done;
    }
    if ((out->data = malloc(out->size + 1)) == NULL) {
        st = cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory for a %zu-byte image", out->size);
        goto done;
    }
    r = ptx ? nv->GetPTX(prog, out->data) : nv->GetCUBIN(prog, out->data);
    if (r != NVRTC_SUCCESS) {
        st = nvrtc_error(nv, r, ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", p);
        goto done;
    }
    ((char *)out->data)[out->size] = '\0';
    out->ptx = ptx;
    st = CURED_SUCCESS;
done:
    nv->DestroyProgram(&prog);
    if (st != CURED_SUCCESS)
        cr_image_free(out);
    return st;
}

void cr_image_free(struct cr_image *img)
{
    free(img->data);
    img->data = NULL;
    img->size = 0;
}
