/* The environment, ignored in privileged processes; see env.h. */
#include "env.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/auxv.h>

static atomic_int forced = -1;

int cr_env_privileged(void)
{
    int f = atomic_load(&forced);
    if (f >= 0)
        return f;
    /* AT_SECURE is what secure_getenv itself consults; getauxval is used so
     * that the tests can pretend (a test program cannot be made setuid). */
    return getauxval(AT_SECURE) != 0;
}

const char *cr_getenv(const char *name)
{
    return cr_env_privileged() ? NULL : getenv(name);
}

void cr_env_force_secure(int secure)
{
    atomic_store(&forced, secure < 0 ? -1 : secure != 0);
}
