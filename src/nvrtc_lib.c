/* NVRTC, opened with dlopen at first use. */
#include "internal.h"
#include "diskcache.h"
#include "sha256.h"

#include <sys/stat.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cr_nvrtc table;
static const struct cr_nvrtc *loaded;
static char failure[2048];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *try_open(const char *path, char *tried, size_t cap)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        size_t len = strlen(tried);
        const char *e = dlerror();
        snprintf(tried + len, cap - len, "\n  %s: %s", path, e ? e : "not found");
    }
    return lib;
}

static void load(void)
{
    char tried[1536] = "";
    void *lib = NULL;
    const char *env = cr_getenv("CURED_NVRTC_LIBRARY");
    if (env != NULL && *env != '\0') {
        lib = try_open(env, tried, sizeof tried); /* an explicit choice is not second-guessed */
    } else {
        static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
        for (size_t i = 0; lib == NULL && i < sizeof names / sizeof *names; i++)
            lib = try_open(names[i], tried, sizeof tried);
        /* Toolkits outside the loader path: the configure-time one. */
        static const char *const dirs[] = {CURED_CONFIGURE_CUDA_HOME "/lib64",
                                           CURED_CONFIGURE_CUDA_HOME "/lib"};
        for (size_t i = 0; lib == NULL && i < sizeof dirs / sizeof *dirs; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/libnvrtc.so", dirs[i]);
            lib = try_open(path, tried, sizeof tried);
        }
    }
    if (lib == NULL) {
        snprintf(failure, sizeof failure,
                 "could not load NVRTC (set CURED_NVRTC_LIBRARY to its path); tried:%s", tried);
        return;
    }
#define CR_NVRTC_RESOLVE(name, ret, params)                                                  \
    {                                                                                        \
        void *fn = dlsym(lib, "nvrtc" #name);                                                \
        if (fn == NULL) {                                                                    \
            snprintf(failure, sizeof failure, "NVRTC library lacks nvrtc%s (too old?)", #name); \
            return;                                                                          \
        }                                                                                    \
        memcpy(&table.name, &fn, sizeof fn);                                                 \
    }
    CR_NVRTC_FUNCTIONS(CR_NVRTC_RESOLVE)
#undef CR_NVRTC_RESOLVE
    if (table.Version(&table.major, &table.minor) != NVRTC_SUCCESS ||
        table.GetNumSupportedArchs(&table.narchs) != NVRTC_SUCCESS || table.narchs <= 0 ||
        (table.archs = calloc((size_t)table.narchs, sizeof(int))) == NULL ||
        table.GetSupportedArchs(table.archs) != NVRTC_SUCCESS) {
        snprintf(failure, sizeof failure, "NVRTC did not report its version or architectures");
        return;
    }
    __atomic_store_n(&loaded, &table, __ATOMIC_RELEASE); /* read without the once by cr_nvrtc_facts */
}

cured_status cr_nvrtc(const struct cr_nvrtc **out)
{
    pthread_once(&once, load);
    *out = loaded;
    if (loaded == NULL)
        return cr_fail(CURED_ERROR_NO_NVRTC, "%s", failure);
    return CURED_SUCCESS;
}

/*
 * NVRTC's version and architectures without loading it. Opening the 100 MB
 * library costs milliseconds, and a process whose kernels all come from the
 * disk cache needs nothing else from NVRTC. The facts of the library last
 * loaded are kept in the cache directory, under a name that hashes how the
 * library would be found (CURED_NVRTC_LIBRARY, LD_LIBRARY_PATH), and are
 * trusted while that file keeps its path, size, mtime and inode. Once NVRTC
 * is loaded, its own answers are used.
 */
static struct cr_nvrtc_facts facts;
static int have_facts;
static pthread_mutex_t facts_lock = PTHREAD_MUTEX_INITIALIZER;

static void facts_name(char *name, size_t cap)
{
    char basis[4096], hex[65];
    const char *lib = cr_getenv("CURED_NVRTC_LIBRARY"), *ldp = cr_getenv("LD_LIBRARY_PATH");
    snprintf(basis, sizeof basis, "%s\n%s\n%s", lib ? lib : "", ldp ? ldp : "", PACKAGE_VERSION);
    cr_sha256_hex(basis, strlen(basis), hex);
    snprintf(name, cap, "nvrtc-%.32s", hex);
}

static int stat_line(const char *path, char *out, size_t cap)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    snprintf(out, cap, "%s %lld %lld.%09ld %llu", path, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
    return 1;
}

/* Record the loaded library's facts for later processes. */
static void save_facts(void)
{
    Dl_info info;
    char resolved[PATH_MAX], line[PATH_MAX + 128], text[PATH_MAX + 1024], name[64];
    void *sym;
    memcpy(&sym, &table.Version, sizeof sym);
    if (!dladdr(sym, &info) || info.dli_fname == NULL || realpath(info.dli_fname, resolved) == NULL ||
        !stat_line(resolved, line, sizeof line))
        return;
    int len = snprintf(text, sizeof text, "%s\n%d %d\n", line, table.major, table.minor);
    for (int i = 0; i < table.narchs && len > 0 && (size_t)len < sizeof text - 16; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%d ", table.archs[i]);
    facts_name(name, sizeof name);
    cr_diskcache_write_small(name, text);
}

static struct cr_nvrtc_facts real_facts;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* The loaded library's own facts, saved for later processes once. */
static void fill_real_facts(void)
{
    real_facts.major = table.major;
    real_facts.minor = table.minor;
    real_facts.narchs = 0;
    for (int i = 0; i < table.narchs && i < (int)(sizeof real_facts.archs / sizeof *real_facts.archs); i++)
        real_facts.archs[real_facts.narchs++] = table.archs[i];
    save_facts();
}

int cr_nvrtc_parse_facts(char *text, char **lib_line, struct cr_nvrtc_facts *f)
{
    char *nl = strchr(text, '\n');
    if (nl == NULL || strchr(text, ' ') == NULL || strchr(text, ' ') > nl)
        return 0;
    *nl = '\0';
    *lib_line = text;
    char *p = nl + 1, *end;
    long major = strtol(p, &end, 10), minor = strtol(end, &p, 10);
    if (end == nl + 1 || p == end || major < 1 || major > 1000 || minor < 0 || minor > 1000)
        return 0;
    f->major = (int)major;
    f->minor = (int)minor;
    f->narchs = 0;
    for (end = p;;) {
        long a = strtol(end, &p, 10);
        if (p == end)
            break;
        /* Architectures as NVRTC lists them: ascending, 2 to 4 digits. */
        if (f->narchs == (int)(sizeof f->archs / sizeof *f->archs) || a < 10 || a > 9999 ||
            (f->narchs > 0 && a <= f->archs[f->narchs - 1]))
            return 0;
        f->archs[f->narchs++] = (int)a;
        end = p;
    }
    while (*end == ' ' || *end == '\n')
        end++;
    return *end == '\0' && f->narchs > 0;
}

static int load_facts(struct cr_nvrtc_facts *f)
{
    char name[64], text[PATH_MAX + 1024], now[PATH_MAX + 1200], *lib_line;
    facts_name(name, sizeof name);
    struct cr_nvrtc_facts parsed;
    if (!cr_diskcache_read_small(name, text, sizeof text) || !cr_nvrtc_parse_facts(text, &lib_line, &parsed))
        return 0;
    char *path_end = strchr(lib_line, ' ');
    *path_end = '\0';
    if (!stat_line(lib_line, now, sizeof now))
        return 0;
    *path_end = ' ';
    if (strcmp(now, lib_line) != 0) /* the library changed since */
        return 0;
    *f = parsed;
    return 1;
}

cured_status cr_nvrtc_facts(const struct cr_nvrtc_facts **out)
{
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE) == NULL) {
        pthread_mutex_lock(&facts_lock);
        if (!have_facts)
            have_facts = load_facts(&facts);
        const int have = have_facts; /* read under the lock: another thread may be setting it */
        pthread_mutex_unlock(&facts_lock);
        if (have) {
            *out = &facts;
            return CURED_SUCCESS;
        }
    }
    const struct cr_nvrtc *nv;
    cured_status st = cr_nvrtc(&nv);
    if (st != CURED_SUCCESS)
        return st;
    pthread_once(&real_once, fill_real_facts);
    *out = &real_facts;
    return CURED_SUCCESS;
}
