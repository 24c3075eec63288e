/*
 * The make check run's shared disk cache: test-compile's precompile stores
 * every image it compiles in a fresh directory, and once every test passed
 * names that directory in PREFIX.path, so that tests/test-warm.sh starts
 * from a copy of it instead of compiling every kernel a second time.
 * PREFIX is $CURED_TEST_SHARED_CACHE (tests/tests.am sets it under the
 * build tree); unset, nothing is shared.
 */
#define _XOPEN_SOURCE 700
#include "cured.h"
#include "shared_cache.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

/* rm -rf of a directory this file made: only a name PREFIX.XXXXXX is touched. */
static void remove_dir(const char *prefix, const char *path)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) == 0 && path[n] == '.' && strlen(path + n + 1) == 6)
        nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void path_file(const char *prefix, char *out, size_t cap)
{
    snprintf(out, cap, "%s.path", prefix);
}

void shared_cache_forget(void)
{
    const char *prefix = getenv("CURED_TEST_SHARED_CACHE");
    if (prefix == NULL || *prefix != '/')
        return;
    char pf[4096], old[4096];
    path_file(prefix, pf, sizeof pf);
    FILE *f = fopen(pf, "r");
    if (f != NULL) {
        if (fgets(old, sizeof old, f) != NULL) {
            old[strcspn(old, "\n")] = '\0';
            remove_dir(prefix, old);
        }
        fclose(f);
        unlink(pf);
    }
}

const char *shared_cache_open(void)
{
    const char *prefix = getenv("CURED_TEST_SHARED_CACHE");
    if (prefix == NULL || *prefix != '/')
        return NULL;
    /* The previous run's directory goes first: a later suite must never
     * find images that this run did not compile. */
    shared_cache_forget();
    snprintf(dir, sizeof dir, "%s.XXXXXX", prefix);
    if (mkdtemp(dir) == NULL || cured_set_cache_dir(dir) != CURED_SUCCESS) {
        printf("shared cache: could not use %s; nothing shared\n", dir);
        dir[0] = '\0';
        return NULL;
    }
    return dir;
}

void shared_cache_publish(int passed)
{
    const char *prefix = getenv("CURED_TEST_SHARED_CACHE");
    if (dir[0] == '\0' || prefix == NULL)
        return;
    if (!passed) {
        remove_dir(prefix, dir);
        return;
    }
    char pf[4096], tmp[4200];
    path_file(prefix, pf, sizeof pf);
    snprintf(tmp, sizeof tmp, "%s.tmp", pf);
    FILE *f = fopen(tmp, "w");
    int ok = f != NULL && fprintf(f, "%s\n", dir) > 0;
    if (f != NULL)
        ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, pf) == 0)
        printf("shared cache: %s\n", dir);
    else
        unlink(tmp);
}
