/*
 * The benchmarks' CUB/Thrust comparator (cub_compare.h) from a separate
 * shared library, cured-cub.so, built by nvcc and opened with dlopen at the
 * first call: so the `cured` program links neither the CUDA runtime nor
 * libstdc++, and its other commands never load them. Each cmp_* function
 * here forwards to the library's; when it cannot be loaded, the calls fail
 * (cmp_last_error() says why) and the benchmarks show their CUB rows as
 * failed. The library is looked for in $CURED_BENCH_COMPARATOR, beside the
 * program (and one directory up, for libtool's .libs/), then in the
 * installed CURED_PKGLIBDIR.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cub_compare.h"

#define COMPARATOR_NAME "cured-cub.so"

static struct {
    int (*prepare)(int, size_t, cmp_state **);
    void (*release)(cmp_state *);
    int (*cub_sum_i64)(cmp_state *, const int *, size_t, long long *, struct CUstream_st *);
    int (*cub_sum_i32)(cmp_state *, const int *, size_t, int *, struct CUstream_st *);
    int (*thrust_sum_i64)(const int *, size_t, long long *, struct CUstream_st *);
    int (*read_ceiling)(cmp_state *, const int *, size_t, struct CUstream_st *);
    int (*read_ceiling_result)(cmp_state *, struct CUstream_st *, unsigned int *);
    int (*read_ceiling_function)(cmp_state *, void **, void **);
    void (*read_ceiling_grid)(const cmp_state *, int *, int *);
    int (*thrust_sum_f32)(const float *, size_t, float *, struct CUstream_st *);
    const char *(*op_call)(cmp_op, cmp_type);
    int (*reserve)(cmp_state *, cmp_op, cmp_type, size_t);
    int (*reduce)(cmp_state *, cmp_op, cmp_type, const void *, size_t, void *, struct CUstream_st *);
    const char *(*cub_version)(void);
    const char *(*last_error)(void);
    int (*segmented)(cmp_op, cmp_type, const void *, long long, const long long *, const long long *, long long,
                     void *, void *, size_t *, struct CUstream_st *);
} f;

static const char *const names[] = {
    "cmp_prepare", "cmp_release", "cmp_cub_sum_i64", "cmp_cub_sum_i32", "cmp_thrust_sum_i64",
    "cmp_read_ceiling", "cmp_read_ceiling_result", "cmp_read_ceiling_function", "cmp_read_ceiling_grid",
    "cmp_thrust_sum_f32", "cmp_op_call", "cmp_reserve", "cmp_reduce", "cmp_cub_version", "cmp_last_error",
    "cmp_segmented"};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[2048], loaded_from[PATH_MAX + 64];

static void *try_open(const char *path, size_t *used)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h != NULL)
        snprintf(loaded_from, sizeof loaded_from, "%s", path);
    int n = snprintf(load_error + *used, sizeof load_error - *used, "%s%s", *used ? "; " : "",
                     h ? path : dlerror());
    if (n > 0 && (size_t)n < sizeof load_error - *used)
        *used += (size_t)n;
    return h;
}

static void load(void)
{
    size_t used = 0;
    void *h = NULL;
    const char *env = getenv("CURED_BENCH_COMPARATOR");
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t len;
    if (env != NULL && *env != '\0')
        h = try_open(env, &used);
    else {
        if ((len = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
            exe[len] = '\0';
            char *slash = strrchr(exe, '/');
            if (slash != NULL) {
                *slash = '\0';
                snprintf(path, sizeof path, "%s/%s", exe, COMPARATOR_NAME);
                if (access(path, F_OK) == 0)
                    h = try_open(path, &used);
                if (h == NULL && (slash = strrchr(exe, '/')) != NULL && strcmp(slash, "/.libs") == 0) {
                    *slash = '\0';
                    snprintf(path, sizeof path, "%s/%s", exe, COMPARATOR_NAME);
                    if (access(path, F_OK) == 0)
                        h = try_open(path, &used);
                }
            }
        }
        if (h == NULL)
            h = try_open(CURED_PKGLIBDIR "/" COMPARATOR_NAME, &used);
    }
    if (h == NULL)
        return;
    void **slots = (void **)&f;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if ((slots[i] = dlsym(h, names[i])) == NULL) {
            snprintf(load_error, sizeof load_error, "the comparator library has no %s", names[i]);
            return;
        }
    loaded = 1;
}

static int ok(void)
{
    pthread_once(&once, load);
    return loaded;
}

const char *cmp_library_path(void)
{
    return ok() ? loaded_from : NULL;
}

static const char *not_loaded(void)
{
    static char msg[sizeof load_error + 64];
    snprintf(msg, sizeof msg, "the CUB comparator (%s) could not be loaded: %s", COMPARATOR_NAME, load_error);
    return msg;
}

int cmp_prepare(int device, size_t n, cmp_state **out)
{
    if (!ok()) {
        *out = NULL;
        return -1;
    }
    return f.prepare(device, n, out);
}

void cmp_release(cmp_state *s)
{
    if (s != NULL && ok())
        f.release(s);
}

int cmp_cub_sum_i64(cmp_state *s, const int *in, size_t n, long long *out, struct CUstream_st *st)
{
    return ok() ? f.cub_sum_i64(s, in, n, out, st) : -1;
}

int cmp_cub_sum_i32(cmp_state *s, const int *in, size_t n, int *out, struct CUstream_st *st)
{
    return ok() ? f.cub_sum_i32(s, in, n, out, st) : -1;
}

int cmp_thrust_sum_i64(const int *in, size_t n, long long *out, struct CUstream_st *st)
{
    return ok() ? f.thrust_sum_i64(in, n, out, st) : -1;
}

int cmp_read_ceiling(cmp_state *s, const int *in, size_t n, struct CUstream_st *st)
{
    return ok() ? f.read_ceiling(s, in, n, st) : -1;
}

int cmp_read_ceiling_result(cmp_state *s, struct CUstream_st *st, unsigned int *sum)
{
    return ok() ? f.read_ceiling_result(s, st, sum) : -1;
}

int cmp_read_ceiling_function(cmp_state *s, void **function, void **partials)
{
    return ok() ? f.read_ceiling_function(s, function, partials) : -1;
}

void cmp_read_ceiling_grid(const cmp_state *s, int *blocks, int *threads)
{
    if (ok())
        f.read_ceiling_grid(s, blocks, threads);
    else
        *blocks = *threads = 0;
}

int cmp_thrust_sum_f32(const float *in, size_t n, float *out, struct CUstream_st *st)
{
    return ok() ? f.thrust_sum_f32(in, n, out, st) : -1;
}

const char *cmp_op_call(cmp_op op, cmp_type type)
{
    return ok() ? f.op_call(op, type) : "CUB (not loaded)";
}

int cmp_reserve(cmp_state *s, cmp_op op, cmp_type type, size_t n)
{
    return ok() ? f.reserve(s, op, type, n) : -1;
}

int cmp_reduce(cmp_state *s, cmp_op op, cmp_type type, const void *in, size_t n, void *out,
               struct CUstream_st *st)
{
    return ok() ? f.reduce(s, op, type, in, n, out, st) : -1;
}

int cmp_segmented(cmp_op op, cmp_type type, const void *in, long long nseg, const long long *begin,
                  const long long *end, long long seg_len, void *out, void *temp, size_t *temp_bytes,
                  struct CUstream_st *st)
{
    return ok() ? f.segmented(op, type, in, nseg, begin, end, seg_len, out, temp, temp_bytes, st) : -1;
}

const char *cmp_cub_version(void)
{
    return ok() ? f.cub_version() : not_loaded();
}

const char *cmp_last_error(void)
{
    return ok() ? f.last_error() : not_loaded();
}
