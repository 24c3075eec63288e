/*
 * User-defined reductions: three C++ expressions placed into a generated
 * operator struct and compiled with the AUTO kernels of kernels-src/fast.cu.
 */
#include "call.h"
#include "custom.h"
#include "env.h"
#include "expr.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void custom_free(cured_custom op);

/* ---- the compile budget of user-defined ops (cured.h: CURED_ERROR_COMPILE_BUDGET) ---- */

#define DEFAULT_MAX_SHAPES 16
#define DEFAULT_OP_SECONDS 120.0
#define DEFAULT_PROCESS_SECONDS 600.0

/* The user ops' compile and load seconds of the process, in nanoseconds. */
static atomic_ullong process_ns;

/* A non-negative number from the environment (0: no limit), or the default; read at each use, so that a
 * process may change it between calls. */
static double env_limit(const char *name, double def)
{
    const char *env = cr_getenv(name);
    if (env == NULL || *env == '\0')
        return def;
    char *end;
    errno = 0;
    double v = strtod(env, &end);
    if (errno || end == env || *end != '\0' || !(v >= 0) || isinf(v)) {
        cr_log(CURED_LOG_WARN, "%s=\"%s\" is not a non-negative number; using %g", name, env, def);
        return def;
    }
    return v;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void charge(cured_custom op, double seconds)
{
    if (seconds > 0)
        atomic_fetch_add(&process_ns, (unsigned long long)(seconds * 1e9));
    if (op != NULL)
        op->compile_seconds += seconds; /* under op->lock, or before the op is shared */
}

/* CURED_ERROR_COMPILE_BUDGET when the process has spent its seconds (op NULL), or op its own. */
static cured_status seconds_left(cured_custom op, const char *call)
{
    const double process = env_limit("CURED_CUSTOM_PROCESS_COMPILE_SECONDS", DEFAULT_PROCESS_SECONDS);
    const double spent = 1e-9 * (double)atomic_load(&process_ns);
    if (process > 0 && spent >= process)
        return cr_fail(CURED_ERROR_COMPILE_BUDGET,
                       "%s: the process's user-defined ops have spent %.1f s compiling, their budget of %g s "
                       "(CURED_CUSTOM_PROCESS_COMPILE_SECONDS)",
                       call, spent, process);
    if (op == NULL)
        return CURED_SUCCESS;
    const double own = env_limit("CURED_CUSTOM_COMPILE_SECONDS", DEFAULT_OP_SECONDS);
    if (own > 0 && op->compile_seconds >= own)
        return cr_fail(CURED_ERROR_COMPILE_BUDGET,
                       "%s: the user-defined op has spent %.1f s compiling, its budget of %g s "
                       "(CURED_CUSTOM_COMPILE_SECONDS)",
                       call, op->compile_seconds, own);
    return CURED_SUCCESS;
}

cured_status cr_custom_load_budgeted(cured_handle h, const struct cr_unit *u, struct cr_kernel *k, const char *call)
{
    cured_status st = seconds_left(NULL, call);
    if (st != CURED_SUCCESS)
        return st;
    const double t0 = now_seconds();
    st = cr_kernel_load(h, u, k);
    charge(NULL, now_seconds() - t0);
    return st;
}

static int has_shape(const struct cured_custom_st *op, uint64_t code)
{
    for (size_t i = 0; i < op->nshapes; i++)
        if (op->shapes[i] == code)
            return 1;
    return 0;
}

static void drop_shape(cured_custom op, uint64_t code)
{
    for (size_t i = 0; i < op->nshapes; i++)
        if (op->shapes[i] == code) {
            op->shapes[i] = op->shapes[--op->nshapes];
            return;
        }
}

cured_status cr_custom_variant_load(cured_handle h, cured_custom op, struct cr_variant *v)
{
    static const char call[] = "a user-defined op's new shape";
    const int fresh = !has_shape(op, v->code);
    cured_status st;
    if (fresh) { /* charged now, so that threads compiling at once cannot pass the cap together */
        const double cap = env_limit("CURED_CUSTOM_MAX_SHAPES", DEFAULT_MAX_SHAPES);
        if (cap > 0 && (double)op->nshapes >= cap)
            return cr_fail(CURED_ERROR_COMPILE_BUDGET,
                           "%s: the op has compiled %zu shapes along axes or over segments, its budget "
                           "(CURED_CUSTOM_MAX_SHAPES=%g)",
                           call, op->nshapes, cap);
        if ((st = seconds_left(op, call)) != CURED_SUCCESS)
            return st;
        uint64_t *grown = realloc(op->shapes, (op->nshapes + 1) * sizeof *grown);
        if (grown == NULL)
            return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
        op->shapes = grown;
        op->shapes[op->nshapes++] = v->code;
    }
    pthread_mutex_unlock(&op->lock); /* NVRTC may take long: callers of loaded shapes go on */
    const double t0 = now_seconds();
    st = cr_kernel_load(h, &v->unit, &v->l.k);
    const double took = now_seconds() - t0;
    pthread_mutex_lock(&op->lock);
    charge(op, took);
    if (st != CURED_SUCCESS) {
        if (fresh)
            drop_shape(op, v->code); /* a failure is not cached: a later call may try again */
        return st;
    }
    struct cr_variant **grown = realloc(op->variants, (op->nvariants + 1) * sizeof *grown);
    if (grown == NULL) {
        cr_loaded_unload(&(struct loaded){h->ctx, h->ctx_id, h->d, v->l.k});
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    op->variants = grown; /* other threads may have added variants while the lock was free */
    return CURED_SUCCESS;
}

/* Type of x and y as the expressions see them: half types as float. */
const char *cr_custom_expr_type(cured_type t)
{
    return t == CURED_TYPE_FLOAT16 || t == CURED_TYPE_BFLOAT16 ? "float" : cr_type_cxx(t);
}

/* The generated program. #line makes NVRTC's messages name the expression. */
static char *generate(cured_type in, cured_type acc, int ninputs, const char *map, const char *combine,
                      const char *identity)
{
    const char *t = cr_type_cxx(in), *x = cr_custom_expr_type(in), *a = cr_type_cxx(acc);
    const char *fmt =
        "// Generated by cured_custom_create().\n"
        "#include \"fast.cu\"\n"
        "struct UserOp {\n"
        "    typedef %s T;\n"
        "    typedef %s X;\n"
        "    typedef %s A;\n"
        "    __device__ static A identity()\n"
        "    {\n"
        "        return (A)(\n"
        "#line 1 \"identity_expr\"\n"
        "%s\n"
        "#line 13 \"user-op.cu\"\n"
        "        );\n"
        "    }\n"
        "    __device__ A %s(T x_in, %su64) const\n"
        "    {\n"
        "        X x = widen<X>(x_in);\n"
        "        %s\n"
        "        return (A)(\n"
        "#line 1 \"map_expr\"\n"
        "%s\n"
        "#line 23 \"user-op.cu\"\n"
        "        );\n"
        "    }\n"
        "    __device__ A operator()(A a, A b) const\n"
        "    {\n"
        "        return (A)(\n"
        "#line 1 \"combine_expr\"\n"
        "%s\n"
        "#line 31 \"user-op.cu\"\n"
        "        );\n"
        "    }\n"
        "    __device__ void write(void *out, A a, u64) const { *(A *)out = a; }\n"
        "};\n";
    const char *name = ninputs == 2 ? "map2" : "map";
    const char *second = ninputs == 2 ? "T y_in, " : "";
    const char *widen_y = ninputs == 2 ? "X y = widen<X>(y_in);" : "";
    size_t len = strlen(fmt) + strlen(t) + strlen(x) + strlen(a) + strlen(map) + strlen(combine) +
                 strlen(identity) + 64;
    char *src = malloc(len);
    if (src)
        snprintf(src, len, fmt, t, x, a, identity, name, second, widen_y, map, combine);
    return src;
}

cured_status cr_custom_build(cured_type in_type, cured_type acc_type, int ninputs, const char *map_expr,
                             const char *combine_expr, const char *identity_expr, cured_custom *out)
{
    *out = NULL;
    if (cr_type_size(in_type) == 0 || cr_type_size(acc_type) == 0)
        return cr_fail(CURED_ERROR_INVALID_ENUM, "unknown type %d or %d", (int)in_type, (int)acc_type);
    if (acc_type == CURED_TYPE_FLOAT16 || acc_type == CURED_TYPE_BFLOAT16)
        return cr_fail(CURED_ERROR_TYPE_MISMATCH, "the accumulator of a user-defined op must not be a half type");
    if (ninputs != 1 && ninputs != 2)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "ninputs must be 1 or 2, not %d", ninputs);
    static const char *const map_vars[] = {"x", "y"}, *const combine_vars[] = {"a", "b"};
    cured_status st;
    if ((st = cr_expr_check("map_expr", map_expr, map_vars, (size_t)ninputs, CR_MAX_EXPR_COST)) != CURED_SUCCESS ||
        (st = cr_expr_check("combine_expr", combine_expr, combine_vars, 2, CR_MAX_COMBINE_COST)) != CURED_SUCCESS ||
        (st = cr_expr_check("identity_expr", identity_expr, NULL, 0, CR_MAX_EXPR_COST)) != CURED_SUCCESS)
        return st;
    struct cr_request r = {0};
    r.out = acc_type;
    r.acc.layout = CR_LAYOUT_VALUE;
    r.acc.scalar = acc_type;
    r.acc.size = r.acc.align = r.acc.result_size = r.acc.result_align = cr_type_size(acc_type);
    return cr_custom_new(in_type, ninputs, &r, generate(in_type, acc_type, ninputs, map_expr, combine_expr,
                                                        identity_expr), out);
}

cured_status cr_custom_new(cured_type in_type, int ninputs, const struct cr_request *proto, char *source,
                           cured_custom *out)
{
    *out = NULL;
    cured_custom op = calloc(1, sizeof *op);
    if (op == NULL || source == NULL) {
        free(op);
        free(source);
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    op->user.source = source;
    /* The many-result kernels of segmented.cu around the same UserOp (custom_axes.c). */
    static const char axes_head[] = "#include \"segmented.cu\"\n";
    op->user.axes_source = malloc(sizeof axes_head + strlen(source));
    if (op->user.axes_source == NULL) {
        free(op);
        free(source);
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    memcpy(op->user.axes_source, axes_head, sizeof axes_head - 1);
    strcpy(op->user.axes_source + sizeof axes_head - 1, source);
    struct cr_request *r = &op->req;
    *r = *proto;
    r->op = CURED_OP_SUM; /* unused: the user's functor is the operator */
    r->algo = CURED_ALGO_AUTO;
    r->in = in_type;
    r->ninputs = ninputs;
    r->user = &op->user;
    cr_family_for(r)->build(r, &op->unit);
    pthread_mutex_init(&op->lock, NULL);
    *out = op;
    return CURED_SUCCESS;
}

const struct cr_request *cr_custom_request(cured_custom op)
{
    return &op->req;
}

const struct cr_unit *cr_custom_unit(cured_custom op)
{
    return &op->unit;
}

CR_API cured_status cured_custom_create(cured_handle h, cured_type in_type, cured_type acc_type,
                                        int ninputs, const char *map_expr, const char *combine_expr,
                                        const char *identity_expr, cured_custom *out)
{
    if (out == NULL)
        return cr_fail(CURED_ERROR_NULL_POINTER, "cured_custom_create: out is NULL");
    *out = NULL;
    if (h == NULL)
        return cr_fail(CURED_ERROR_NULL_HANDLE, "cured_custom_create: the handle is NULL");
    cured_custom op;
    cured_status st = cr_custom_build(in_type, acc_type, ninputs, map_expr, combine_expr, identity_expr, &op);
    if (st != CURED_SUCCESS)
        return st;
    if ((st = cr_custom_compile(h, op)) != CURED_SUCCESS)
        return st;
    *out = op;
    return CURED_SUCCESS;
}

cured_status cr_custom_compile(cured_handle h, cured_custom op)
{
    int arch, ptx;
    const struct cr_image *img;
    cured_status st;
    if ((st = seconds_left(NULL, "cured_custom_create")) != CURED_SUCCESS ||
        (st = cr_handle_arch(h, &arch, &ptx)) != CURED_SUCCESS) {
        custom_free(op);
        return st;
    }
    const double t0 = now_seconds();
    st = cr_kcache_get(&op->unit, arch, ptx, &img);
    charge(op, now_seconds() - t0);
    if (st != CURED_SUCCESS) {
        custom_free(op);
        return st;
    }
    op->compiled = img; /* kept for the op's first use in each context (cr_kernel_load) */
    return CURED_SUCCESS;
}

/* The op's kernels already loaded in h's context, or NULL; under op->lock. */
static const struct cr_kernel *loaded_in(const struct cured_custom_st *op, unsigned long long ctx_id)
{
    for (size_t i = 0; i < op->nloaded; i++)
        if (op->loaded[i]->ctx_id == ctx_id)
            return &op->loaded[i]->k;
    return NULL;
}

/* The op's family, unit and kernels in h's context (current), loading them on first use there. The load runs
 * without the op's lock, so that callers in other contexts do not wait for it; two first uses in one context
 * racing both load, and the second module is unloaded. */
cured_status cr_custom_target(cured_handle h, const void *arg, struct cr_target *t)
{
    cured_custom op = (cured_custom)arg;
    t->fam = cr_family_for(&op->req);
    t->req = &op->req;
    t->unit = &op->unit;
    pthread_mutex_lock(&op->lock);
    t->k = loaded_in(op, h->ctx_id);
    pthread_mutex_unlock(&op->lock);
    if (t->k != NULL)
        return CURED_SUCCESS;
    struct loaded *l = calloc(1, sizeof *l);
    if (l == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    const double t0 = now_seconds();
    cured_status st = cr_kernel_load(h, &op->unit, &l->k);
    const double took = now_seconds() - t0;
    if (st != CURED_SUCCESS) {
        free(l);
        return st;
    }
    l->ctx = h->ctx;
    l->ctx_id = h->ctx_id;
    l->d = h->d;
    pthread_mutex_lock(&op->lock);
    charge(op, took);
    t->k = loaded_in(op, h->ctx_id);
    struct loaded **grown = t->k ? NULL : realloc(op->loaded, (op->nloaded + 1) * sizeof *grown);
    if (grown != NULL) {
        op->loaded = grown;
        grown[op->nloaded++] = l;
        t->k = &l->k;
    }
    pthread_mutex_unlock(&op->lock);
    if (grown == NULL) { /* another thread's module serves, or no memory to keep ours */
        cr_loaded_unload(l);
        free(l);
        if (t->k == NULL)
            return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    return CURED_SUCCESS;
}

void cr_loaded_unload(const struct loaded *l)
{
    unsigned long long id = 0;
    /* the handle may now name a new context: the id tells */
    if (l->d->CtxGetId(l->ctx, &id) == CUDA_SUCCESS && id == l->ctx_id &&
        l->d->CtxPushCurrent(l->ctx) == CUDA_SUCCESS) {
        CUcontext popped;
        l->d->ModuleUnload(l->k.module);
        l->d->CtxPopCurrent(&popped);
    }
}

/* Free an op and its kernels (cured_custom_destroy, and a failed creation). */
static void custom_free(cured_custom op)
{
    for (size_t i = 0; i < op->nloaded; i++) {
        cr_loaded_unload(op->loaded[i]);
        free(op->loaded[i]);
    }
    cr_custom_variants_free(op);
    free(op->shapes);
    cr_kcache_put(op->compiled);
    pthread_mutex_destroy(&op->lock);
    free(op->loaded);
    free(op->user.source);
    free(op->user.axes_source);
    free(op);
}

CR_API cured_status cured_custom_destroy(cured_custom op)
{
    if (op != NULL)
        custom_free(op);
    return CURED_SUCCESS;
}
