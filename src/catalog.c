/*
 * What the kernel families offer, enumerated once per process for
 * cured_kernel_count(), cured_kernel_name(), cured_compile_kernel() and
 * `cured cache warm`. Calls never look here: a request's compile unit is
 * built when it is first used.
 */
#include "internal.h"

#include <stdlib.h>

static struct cr_spec *specs;
static size_t nspecs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The int32 sums of the Handbook's Table 12-1, which every algorithm offers. */
static int table_12_1(const struct cr_request *r)
{
    return r->op == CURED_OP_SUM && r->in == CURED_TYPE_INT32 &&
           (r->out == CURED_TYPE_INT32 || r->out == CURED_TYPE_INT64);
}

/* Table 12-1 first (every family's int32 sums), then the rest. */
static void build(void)
{
    size_t cap = 0;
    for (int pass = 0; pass < 2; pass++)
    for (size_t f = 0; f < cr_nfamilies; f++) {
        const struct cr_family *fam = cr_families[f];
        struct cr_request r;
        for (size_t i = 0; fam->enumerate(i, &r); i++) {
            if (table_12_1(&r) != (pass == 0))
                continue;
            if (nspecs == cap) {
                struct cr_spec *grown = realloc(specs, (cap = cap ? 2 * cap : 256) * sizeof *grown);
                if (grown == NULL)
                    return; /* the rest is then simply not listed */
                specs = grown;
            }
            specs[nspecs].req = r;
            fam->build(&r, &specs[nspecs].unit);
            nspecs++;
        }
    }
}

size_t cr_catalog_count(void)
{
    pthread_once(&once, build);
    return nspecs;
}

const struct cr_spec *cr_catalog(size_t index)
{
    pthread_once(&once, build);
    return index < nspecs ? &specs[index] : NULL;
}

int cr_catalog_index(const struct cr_request *r)
{
    pthread_once(&once, build);
    uint64_t code = cr_request_code(r);
    for (size_t i = 0; i < nspecs; i++)
        if (cr_request_code(&specs[i].req) == code)
            return (int)i;
    return -1;
}

CR_API size_t cured_kernel_count(void)
{
    return cr_catalog_count();
}

CR_API const char *cured_kernel_name(size_t index)
{
    const struct cr_spec *s = cr_catalog(index);
    return s ? s->unit.label : NULL;
}

CR_API cured_status cured_compile_kernel(size_t index, int sm, int ptx, size_t *bytes)
{
    const struct cr_spec *s = cr_catalog(index);
    if (s == NULL)
        return cr_fail(CURED_ERROR_INVALID_VALUE, "kernel index %zu is out of range (there are %zu)", index,
                       cr_catalog_count());
    const struct cr_image *img;
    cured_status st = cr_kcache_get(&s->unit, sm, ptx != 0, &img);
    if (st == CURED_SUCCESS && bytes != NULL)
        *bytes = img->size;
    if (st == CURED_SUCCESS)
        cr_kcache_put(img);
    return st;
}

const struct cr_unit *cr_catalog_unit(size_t index)
{
    const struct cr_spec *s = cr_catalog(index);
    return s ? &s->unit : NULL;
}
