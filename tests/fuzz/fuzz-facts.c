/*
 * libFuzzer harness: the parser of the NVRTC facts file
 * (cr_nvrtc_parse_facts). Accepted facts must be what cured_select_arch can
 * use: a version, and 1 to 64 ascending architectures of 2 to 4 digits.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct cr_nvrtc_facts f;
    char *lib = NULL;
    memset(&f, 0, sizeof f);
    if (cr_nvrtc_parse_facts(text, &lib, &f)) {
        if (lib != text || strchr(lib, '\n') != NULL || strchr(lib, ' ') == NULL || f.major < 1 || f.narchs < 1 ||
            f.narchs > 64)
            abort();
        for (int i = 0; i < f.narchs; i++)
            if (f.archs[i] < 10 || f.archs[i] > 9999 || (i > 0 && f.archs[i] <= f.archs[i - 1]))
                abort();
        int arch = 0, ptx = 0;
        (void)cr_select_arch(90, f.archs, f.narchs, NULL, &arch, &ptx);
    }
    free(text);
    return 0;
}
