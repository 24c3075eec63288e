/* Several units to an NVRTC program, on every CPU; see jit_batch.h. */
#include "jit_batch.h"
#include "pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Units to a program: 8 already takes the per-program cost down to an
 * eighth; larger programs only lengthen the pool's last task. */
#define PER_PROGRAM 8

struct plan {
    struct jit_batch *b;
    size_t (*member)[PER_PROGRAM]; /* the units of each program */
    int *count;
    size_t nprog, units_done, next_report;
};

static const char *text_of(const struct cr_unit *u)
{
    return u->source ? u->source : cr_source_text(u->file);
}

/* Whether unit i is compiled to PTX. */
static int as_ptx(const struct jit_batch *b, size_t i)
{
    return b->ptx && !(b->cubin_every > 0 && i % b->cubin_every == 0);
}

/* Same program text, file name and options (cr_jit_options depends on the unit and target only). */
static int same_program(const struct cr_unit *a, const struct cr_unit *b, int arch, int ptx)
{
    const char *ta = text_of(a), *tb = text_of(b);
    if (strcmp(a->file, b->file) != 0 || ta == NULL || tb == NULL || (ta != tb && strcmp(ta, tb) != 0))
        return 0;
    struct cr_options oa, ob;
    if (cr_jit_options(a, arch, ptx, &oa) != CURED_SUCCESS || cr_jit_options(b, arch, ptx, &ob) != CURED_SUCCESS ||
        oa.argc != ob.argc)
        return 0;
    for (int i = 0; i < oa.argc; i++)
        if (strcmp(oa.argv[i], ob.argv[i]) != 0)
            return 0;
    return 1;
}

static void one_by_one(struct jit_batch *b, const size_t *units, int n)
{
    for (int k = 0; k < n; k++) {
        const size_t i = units[k];
        struct cr_image img;
        b->st[i] = cr_jit_compile(&b->units[i], b->arch, as_ptx(b, i), &img);
        b->msg[i][0] = '\0';
        if (b->st[i] == CURED_SUCCESS)
            cr_image_free(&img);
        else
            snprintf(b->msg[i], JIT_BATCH_MSG, "%s", cured_last_error());
    }
}

/* One program with every kernel of its units, as cr_jit_compile builds one. */
static int compile_together(const struct jit_batch *b, const size_t *units, int n, const struct cr_nvrtc *nv)
{
    const struct cr_unit *first = &b->units[units[0]];
    const int ptx = as_ptx(b, units[0]);
    struct cr_options o;
    const char *headers[64], *names[64];
    if (cr_jit_options(first, b->arch, ptx, &o) != CURED_SUCCESS || cr_nsources > 64)
        return 0;
    for (size_t i = 0; i < cr_nsources; i++)
        headers[i] = cr_sources[i].text, names[i] = cr_sources[i].name;
    char name[128];
    snprintf(name, sizeof name, "kernels-src/%s", first->file);
    nvrtcProgram prog;
    if (nv->CreateProgram(&prog, text_of(first), name, (int)cr_nsources, headers, names) != NVRTC_SUCCESS)
        return 0;
    int ok = 1;
    for (int k = 0; k < n && ok; k++) {
        const struct cr_unit *u = &b->units[units[k]];
        for (int f = 0; f < u->nkernels && ok; f++) {
            int seen = 0; /* a name expression twice in one program: once */
            for (int j = 0; j < k && !seen; j++)
                for (int g = 0; g < b->units[units[j]].nkernels; g++)
                    seen |= strcmp(b->units[units[j]].kernels[g], u->kernels[f]) == 0;
            ok = seen || nv->AddNameExpression(prog, u->kernels[f]) == NVRTC_SUCCESS;
        }
    }
    size_t size = 0;
    ok = ok && nv->CompileProgram(prog, o.argc, o.argv) == NVRTC_SUCCESS &&
         (ptx ? nv->GetPTXSize(prog, &size) : nv->GetCUBINSize(prog, &size)) == NVRTC_SUCCESS && size > 0;
    for (int k = 0; k < n && ok; k++) {
        const struct cr_unit *u = &b->units[units[k]];
        for (int f = 0; f < u->nkernels && ok; f++) {
            const char *lowered = NULL; /* cr_jit_compile's limit on a mangled name */
            ok = nv->GetLoweredName(prog, u->kernels[f], &lowered) == NVRTC_SUCCESS && lowered != NULL &&
                 strlen(lowered) < sizeof ((struct cr_image *)0)->lowered[0];
        }
    }
    nv->DestroyProgram(&prog);
    return ok;
}

static void run_program(void *user, size_t p)
{
    struct plan *pl = user;
    struct jit_batch *b = pl->b;
    const struct cr_nvrtc *nv;
    if (cr_nvrtc(&nv) == CURED_SUCCESS && compile_together(b, pl->member[p], pl->count[p], nv)) {
        for (int k = 0; k < pl->count[p]; k++)
            b->st[pl->member[p][k]] = CURED_SUCCESS, b->msg[pl->member[p][k]][0] = '\0';
        return;
    }
    one_by_one(b, pl->member[p], pl->count[p]); /* each unit's own status and message */
}

static void program_done(void *user, size_t p, size_t finished)
{
    struct plan *pl = user;
    pl->units_done += (size_t)pl->count[p];
    if (pl->units_done >= pl->next_report || finished == pl->nprog) {
        printf("compiled %zu/%zu %s\n", pl->units_done, pl->b->n, pl->b->what);
        fflush(stdout);
        while (pl->next_report <= pl->units_done)
            pl->next_report += 100;
    }
}

int jit_batch_run(struct jit_batch *b)
{
    struct plan pl = {b, malloc((b->n + 1) * sizeof *pl.member), malloc((b->n + 1) * sizeof *pl.count), 0, 0, 100};
    char *taken = calloc(b->n + 1, 1);
    if (pl.member == NULL || pl.count == NULL || taken == NULL) {
        free(pl.member), free(pl.count), free(taken);
        return -1;
    }
    /* Programs in the units' order: each takes the next free unit and the
     * following ones of the same program text, up to PER_PROGRAM. */
    for (size_t i = 0; i < b->n; i++) {
        if (taken[i])
            continue;
        size_t p = pl.nprog++;
        pl.count[p] = 0;
        for (size_t j = i; j < b->n && pl.count[p] < PER_PROGRAM; j++)
            if (!taken[j] && (j == i || (as_ptx(b, i) == as_ptx(b, j) &&
                                         same_program(&b->units[i], &b->units[j], b->arch, as_ptx(b, i))))) {
                taken[j] = 1;
                pl.member[p][pl.count[p]++] = j;
            }
    }
    int r = pool_run(pl.nprog, pool_cpus(), run_program, program_done, &pl);
    free(pl.member), free(pl.count), free(taken);
    return r;
}
