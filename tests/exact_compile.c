/*
 * test-exact's compile case: tests/exact_sketch.cu, the sketches of the exact
 * sums' kernels, through the library's NVRTC path (every embedded header
 * offered, kernels-src/exact.cuh among them), as a cubin for sm_90 and for the
 * newest architecture NVRTC offers, and as PTX for the oldest: the header
 * stays valid CUDA under the options the kernels get. Without NVRTC it
 * says so and passes.
 */
#include "internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void exact_compile_sketches(void);

static char *read_sketch(void)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/exact_sketch.cu", top && *top ? top : ".");
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (set top_srcdir)", path);
    static char text[1 << 16];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    ck_assert_msg(ferror(f) == 0 && n < sizeof text - 1, "%s: read error or too long", path);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void compile_for(const struct cr_unit *u, int arch, int ptx)
{
    struct cr_image img;
    const cured_status st = cr_jit_compile(u, arch, ptx, &img);
    ck_assert_msg(st == CURED_SUCCESS, "exact_sketch.cu for %s_%d: %s: %s", ptx ? "compute" : "sm", arch,
                  cured_status_string(st), cured_last_error());
    ck_assert_msg(img.size > 0, "exact_sketch.cu for %s_%d: an empty image", ptx ? "compute" : "sm", arch);
    cr_image_free(&img);
}

void exact_compile_sketches(void)
{
    int archs[64], n = 0;
    if (cured_supported_archs(archs, 64, &n) != CURED_SUCCESS || n == 0) {
        printf("test-exact: no NVRTC (%s): the sketch kernels are not compiled\n", cured_last_error());
        return;
    }
    struct cr_unit u;
    memset(&u, 0, sizeof u);
    u.file = "exact_sketch.cu";
    u.source = read_sketch();
    snprintf(u.label, sizeof u.label, "exact sketches");
    for (int a = 0; a < n && a < 64; a++)
        if (archs[a] == 90)
            compile_for(&u, 90, 0);
    compile_for(&u, archs[n < 64 ? n - 1 : 63], 0);
    compile_for(&u, archs[0], 1);
}
