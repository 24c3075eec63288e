/*
 * libFuzzer harness: layout validation and planning without a GPU (the
 * stand-in H200 of tests/plan_fake.h): views along axes with and without
 * output layouts, segments given by offset arrays, uniform segments. The
 * input picks the call, the operator and types, the ranks, extents, strides
 * and pointers (some of them overlapping). An accepted request must keep the
 * promises of cured.h: at most CURED_MAX_ELEMENTS elements and results, an
 * output that meets the bytes the call reads marked for refusal (g.overlap:
 * refused after the range checks) and no other, positive extents in
 * the plan, and a plan that fits struct cr_plan; a refusal must carry a
 * message. Any crash or sanitizer report is a failure.
 */
#include "../plan_fake.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct bytes {
    const uint8_t *p;
    size_t n;
};

static uint64_t take(struct bytes *b, unsigned width)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < width && b->n > 0; i++, b->p++, b->n--)
        v |= (uint64_t)*b->p << (8 * i);
    return v;
}

/* An extent or stride: mostly small, sometimes anything (negative, 2^62, INT64_MAX). */
static int64_t take_dim(struct bytes *b)
{
    const unsigned kind = (unsigned)take(b, 1);
    if (kind < 160)
        return (int64_t)(kind % 40);
    if (kind < 224)
        return (int64_t)take(b, 2);
    if (kind < 240)
        return (int64_t)1 << (take(b, 1) % 63);
    return (int64_t)take(b, 8);
}

static void check_plan(const struct cr_request *r0, const struct cr_geometry *g)
{
    struct cr_request r = *r0;
    const struct cr_family *f = cr_family_for(&r);
    if (f == NULL)
        abort();
    struct cr_unit u;
    f->build(&r, &u);
    struct cr_plan p;
    fake_plan(&r, &u, g, 0.0, &p);
    if (p.overflow || p.nlaunch < 1 || p.nlaunch > CR_MAX_KERNELS)
        abort();
    for (int i = 0; i < p.nlaunch; i++)
        if (p.l[i].grid < 1 || p.l[i].grid_y < 1 || p.l[i].block < 1)
            abort();
}

static void check_accepted_view(const cured_layout *lay, const struct cr_geometry *g, const void *in,
                                const void *out, int whole)
{
    unsigned __int128 total = 1;
    int empty = 0;
    for (int k = 0; k < lay->rank; k++) {
        empty |= lay->extent[k] == 0;
        total *= (unsigned __int128)(uint64_t)lay->extent[k];
        if (total > ((unsigned __int128)1 << 64))
            total = (unsigned __int128)1 << 64; /* saturate: only the comparison matters */
    }
    if (!empty && total > (unsigned __int128)CURED_MAX_ELEMENTS)
        abort(); /* an accepted view past the limit */
    if (g->nout > (uint64_t)CURED_MAX_ELEMENTS || g->len > (uint64_t)CURED_MAX_ELEMENTS)
        abort();
    if (!empty && g->nout > 0 && !whole && cr_ranges_overlap(in, g->in_bytes, out, g->out_bytes) != (g->overlap != NULL))
        abort(); /* an output over the input not marked for refusal, or a false one */
    if (!whole && g->nout > 0)
        for (int k = 0; k < g->kept.n; k++)
            if (g->kept.extent[k] <= 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bytes b = {data, size};
    fake_h200();
    const unsigned mode = (unsigned)take(&b, 1) % 4;
    const cured_op op = (cured_op)(take(&b, 1) % (CURED_OP_COUNT + 1));
    const cured_type in_type = (cured_type)(take(&b, 1) % (CURED_TYPE_COUNT + 1));
    cured_type out_type = CURED_TYPE_FLOAT64;
    if (cured_default_result(op, in_type, &out_type) != CURED_SUCCESS || take(&b, 1) % 8 == 0)
        out_type = (cured_type)(take(&b, 1) % (CURED_TYPE_COUNT + 1));
    /* pointers: the input at IN_OK (maybe misaligned), the output far away, inside the input, or before it */
    /* (addresses computed as integers: they are never dereferenced) */
    const uintptr_t in_at = (uintptr_t)IN_OK + take(&b, 1) % 4 * 8 + (take(&b, 1) % 16 == 0);
    const unsigned where = (unsigned)take(&b, 1) % 4;
    const uintptr_t out_at = where == 0 ? (uintptr_t)OUT_OK
                             : where == 1 ? in_at + take(&b, 2) * 8
                             : where == 2 ? (uintptr_t)IN_OK - take(&b, 2) % 0x2000 * 8
                                          : (uintptr_t)(take(&b, 2) * 8);
    const char *in = (const char *)in_at;
    char *out = (char *)out_at;
    if (take(&b, 1) % 32 == 0)
        in = NULL;
    struct cr_request r;
    struct cr_geometry g;
    memset(&r, 0, sizeof r);
    memset(&g, 0, sizeof g);
    int whole = 0;
    cured_status st;
    cr_fail(CURED_SUCCESS, "%s", ""); /* so that a refusal's message is this call's */
    if (mode == 0 || mode == 1) {
        cured_layout lay, ol;
        memset(&lay, 0, sizeof lay);
        memset(&ol, 0, sizeof ol);
        lay.rank = (int)(take(&b, 1) % (CURED_MAX_RANK + 2)) - (take(&b, 1) % 64 == 0);
        for (int k = 0; k < CURED_MAX_RANK; k++) {
            lay.extent[k] = take_dim(&b);
            lay.stride[k] = take_dim(&b);
            ol.extent[k] = take_dim(&b);
            ol.stride[k] = take_dim(&b);
        }
        const uint32_t axes = (uint32_t)take(&b, 2);
        if (mode == 1) { /* an output layout of the kept extents, with the fuzzer's strides */
            int j = 0;
            for (int k = 0; k < lay.rank && k < CURED_MAX_RANK; k++)
                if (!((axes >> k) & 1))
                    ol.extent[j++] = lay.extent[k];
            ol.rank = j;
        }
        st = cr_axes_request(&fake, op, in, in_type, &lay, axes, out, out_type, mode == 1 ? &ol : NULL, 0, &r, &g,
                             &whole);
        if (st == CURED_SUCCESS) {
            check_accepted_view(&lay, &g, in, out, whole);
            if (g.nout > 0 && !whole)
                check_plan(&r, &g);
        }
    } else if (mode == 2) {
        const size_t nseg = (size_t)take_dim(&b);
        const cured_type ot = (cured_type)(take(&b, 1) % 3 == 0 ? take(&b, 1) % (CURED_TYPE_COUNT + 1)
                                           : take(&b, 1) % 2 ? CURED_TYPE_INT64 : CURED_TYPE_INT32);
        const unsigned w = (unsigned)take(&b, 1);
        const uintptr_t begin_at = w % 4 == 0 ? out_at : (uintptr_t)0x5000000000000000u + w % 8;
        const uintptr_t end_at = w % 5 == 0 ? out_at + 8 : begin_at + (w % 3) * 8;
        const void *begin = (const void *)begin_at, *end = (const void *)end_at;
        st = cr_check_args(op, CURED_ALGO_AUTO, (const void *)(uintptr_t)64, in_type, 1, (const void *)(uintptr_t)64,
                           out_type, &r);
        if (st == CURED_SUCCESS && r.ninputs == 1) {
            st = cr_segments_layout(in, nseg, begin, end, ot, out, &r, &g);
            if (st == CURED_SUCCESS && g.nout > 0) {
                if ((cr_ranges_overlap(out, g.out_bytes, begin, g.offset_bytes) ||
                     cr_ranges_overlap(out, g.out_bytes, end, g.offset_bytes) ||
                     cr_ranges_overlap(out, g.out_bytes, in, cr_type_size(r.in))) != (g.overlap != NULL))
                    abort(); /* an output over the offsets or the input's first element not marked, or a false one */
                g.limit = take(&b, 8);
                check_plan(&r, &g);
            }
        }
    } else {
        cured_layout lay;
        const size_t nseg = (size_t)take(&b, 8) >> (take(&b, 1) % 64), len = (size_t)take(&b, 8) >> (take(&b, 1) % 64);
        st = cr_uniform_layout(nseg, len, &lay);
        if (st == CURED_SUCCESS) {
            st = cr_axes_request(&fake, op, in, in_type, &lay, 2u, out, out_type, NULL, 0, &r, &g, &whole);
            if (st == CURED_SUCCESS) {
                check_accepted_view(&lay, &g, in, out, whole);
                if (g.nout > 0 && !whole)
                    check_plan(&r, &g);
            }
        } else if (nseg == 0) {
            abort(); /* no segments: no results, whatever their size */
        }
    }
    if (st != CURED_SUCCESS) {
        const char *msg = cured_last_error();
        if (msg == NULL || msg[0] == '\0')
            abort(); /* a refusal without a message */
    }
    return 0;
}
