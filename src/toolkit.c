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

static void search(void)
{
    const char *candidates[] = {getenv("CURED_CUDA_HOME"), getenv("CUDA_HOME"), getenv("CUDA_PATH"),
                                CURED_CONFIGURE_CUDA_HOME, "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        const char *dir = candidates[i];
        if (dir == NULL || *dir == '\0')
            continue;
        char probe[1200];
        snprintf(probe, sizeof probe, "%s/include/cooperative_groups.h", dir);
        size_t len = strlen(searched);
        snprintf(searched + len, sizeof searched - len, "%s%s", len ? ", " : "", probe);
        if (access(probe, R_OK) == 0) {
            snprintf(found, sizeof found, "%s/include", dir);
            have = 1;
            return;
        }
    }
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
