/* The tools' and tests' driver table; see driver_all.h. */
#include "driver_all.h"

#include <pthread.h>

static struct cr_driver_all table;
static const struct cr_driver_all *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define CR_ALL_SYM(field, sym, ver) {#sym, ver, offsetof(struct cr_driver_all, field)},
static const struct cr_driver_sym syms[] = {CR_DRIVER_ALL_FUNCTIONS(CR_ALL_SYM)};
#undef CR_ALL_SYM

static void load(void)
{
    if (cr_driver_load(NULL, NULL) != NULL &&
        cr_driver_resolve(syms, sizeof syms / sizeof *syms, &table, failure, sizeof failure) == 0)
        loaded = &table;
}

const struct cr_driver_all *cr_driver_all_load(const char **why, int *no_device)
{
    const char *lib_why = NULL;
    if (cr_driver_load(&lib_why, no_device) == NULL) {
        if (why != NULL)
            *why = lib_why;
        return NULL;
    }
    pthread_once(&once, load);
    if (loaded == NULL && why != NULL)
        *why = failure;
    return loaded;
}
