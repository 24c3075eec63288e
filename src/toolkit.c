/* Finding a CUDA toolkit's headers, needed only by the cooperative-groups kernels. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char found[1024];
static char searched[2048];
static int have;
static pthread_once_t once = PTHREAD_ONCE_INIT;

int cr_toolkit_search(const char *const *candidates, size_t n, char *out, size_t out_cap,
                      char *probes, size_t probes_cap)
{
    probes[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *dir = candidates[i];
        if (dir == NULL || *dir == '\0')
            continue;
        int seen = 0; /* CUDA_HOME and the configure-time path are often the same */
        for (size_t j = 0; j < i; j++)
            seen |= candidates[j] != NULL && strcmp(candidates[j], dir) == 0;
        if (seen)
            continue;
        char probe[1200];
        snprintf(probe, sizeof probe, "%s/include/cooperative_groups.h", dir);
        size_t len = strlen(probes);
        snprintf(probes + len, probes_cap - len, "%s%s", len ? ", " : "", probe);
        if (access(probe, R_OK) == 0) {
            snprintf(out, out_cap, "%s/include", dir);
            return 1;
        }
    }
    return 0;
}

static void search(void)
{
    const char *candidates[] = {cr_getenv("CURED_CUDA_HOME"), cr_getenv("CUDA_HOME"), cr_getenv("CUDA_PATH"),
                                CURED_CONFIGURE_CUDA_HOME, "/usr/local/cuda"};
    have = cr_toolkit_search(candidates, sizeof candidates / sizeof *candidates, found, sizeof found,
                             searched, sizeof searched);
}

const char *cr_toolkit_include_dir(void)
{
    pthread_once(&once, search);
    if (!have) {
        cr_fail(CURED_ERROR_NOT_SUPPORTED,
                "this kernel includes cooperative_groups.h, which needs a CUDA toolkit's headers at "
                "run time (set CURED_CUDA_HOME); searched: %s",
                searched[0] ? searched : "(no candidate directories)");
        return NULL;
    }
    return found;
}

CR_API const char *cured_toolkit_include(void)
{
    return cr_toolkit_include_dir();
}
