/*
 * The exact sums on the GPU (CURED_OP_EXACT_*): every operator, element
 * type and result type against the host's exact state (tests/exact_emu.cc,
 * exact.cuh's arithmetic on the CPU, which test-exact checks against an
 * independent wide-integer reference), bit for bit; the same bits for every
 * forced split, unit and grid (cr_exact_force), for transposed and strided
 * views of the same values, for offset and uniform segments; the IEEE
 * rules; and a digest of fixed inputs for comparing GPUs.
 *
 * Exits 77 (SKIP) without a GPU. The seed is printed with any failure;
 * CURED_TEST_SEED=<seed> reproduces the data.
 */
#include "gpu_util.h"
#include "exact_emu.h"
#include "pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cured_type FT[4] = {CURED_TYPE_FLOAT16, CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64};
static const cured_op XOP[5] = {CURED_OP_EXACT_SUM, CURED_OP_EXACT_MEAN, CURED_OP_EXACT_SUM_SQUARES,
                                CURED_OP_EXACT_NORM2, CURED_OP_EXACT_DOT};

static int et_of(cured_type t)
{
    return t == CURED_TYPE_FLOAT16 ? ET_HALF : t == CURED_TYPE_BFLOAT16 ? ET_BF16 : t == CURED_TYPE_FLOAT32 ? ET_FLOAT : ET_DOUBLE;
}
/* sign, exponent and fraction bits */
static void fmt_bits(cured_type t, int *eb, int *fb)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: *eb = 5, *fb = 10; break;
    case CURED_TYPE_BFLOAT16: *eb = 8, *fb = 7; break;
    case CURED_TYPE_FLOAT32: *eb = 8, *fb = 23; break;
    default: *eb = 11, *fb = 52; break;
    }
}
static uint64_t rnd64(struct rng *r)
{
    return (uint64_t)rng_u32(r) << 32 | rng_u32(r);
}

enum { M_NORMAL, M_SPREAD, M_CANCEL, M_COUNT };
static const char *const mode_name[M_COUNT] = {"normal", "spread", "cancel"};

/* A finite element: exponent field in [lo, hi], random fraction and sign. */
static uint64_t element(struct rng *r, cured_type t, int lo, int hi, int neg)
{
    int eb, fb;
    fmt_bits(t, &eb, &fb);
    const uint64_t e = (uint64_t)(lo + (int)(rnd64(r) % (uint64_t)(hi - lo + 1)));
    const uint64_t f = rnd64(r) & ((1ull << fb) - 1);
    return (uint64_t)(neg ? 1 : 0) << (eb + fb) | e << fb | f;
}

/* n elements of mode m as bit patterns. */
static void fill(struct rng *r, cured_type t, int m, uint64_t *x, size_t n)
{
    int eb, fb;
    fmt_bits(t, &eb, &fb);
    const int bias = (1 << (eb - 1)) - 1, emax = (1 << eb) - 2;
    for (size_t i = 0; i < n; i++) {
        switch (m) {
        case M_NORMAL: x[i] = element(r, t, bias - 3, bias + 2, rng_u32(r) & 1); break;
        case M_SPREAD: x[i] = element(r, t, 0, emax, (int)(i & 1)); break;
        default: /* cancellation: big values and their negations, then small ones */
            if (i % 4 < 2 && i + 1 < n && i % 4 == 0) {
                x[i] = element(r, t, emax - 2, emax, 0);
                x[i + 1] = x[i] ^ 1ull << (eb + fb);
                i++;
            } else {
                x[i] = element(r, t, 1, bias, rng_u32(r) & 1);
            }
        }
    }
    for (size_t i = n; i > 1; i--) { /* shuffled: the cancelling pairs land anywhere */
        const size_t k = rnd64(r) % i;
        const uint64_t v = x[i - 1];
        x[i - 1] = x[k];
        x[k] = v;
    }
}

static int is_prod(cured_op op)
{
    return op == CURED_OP_EXACT_SUM_SQUARES || op == CURED_OP_EXACT_NORM2 || op == CURED_OP_EXACT_DOT;
}

/* The host's exact state of x (and y) for op: the widest formats, so the reference does not share the kernels'
 * choice of format. */
struct ref {
    int fmt;
    size_t n;
    _Alignas(16) unsigned char s[2048];
};
static void ref_make(struct ref *rf, cured_op op, cured_type t, const uint64_t *x, const uint64_t *y, size_t n)
{
    rf->fmt = is_prod(op) ? EF_DOUBLE_PRODUCTS : EF_DOUBLE;
    rf->n = n;
    ck_assert(emu_exact_bytes(rf->fmt) <= sizeof rf->s);
    emu_exact_init(rf->fmt, rf->s);
    for (size_t i = 0; i < n; i++) {
        if (is_prod(op))
            emu_exact_add_product(rf->fmt, rf->s, et_of(t), x[i], op == CURED_OP_EXACT_DOT ? y[i] : x[i]);
        else
            emu_exact_add(rf->fmt, rf->s, et_of(t), x[i]);
        if ((i & 0xfffff) == 0xfffff)
            emu_exact_normalize(rf->fmt, rf->s);
    }
    emu_exact_normalize(rf->fmt, rf->s);
}
static uint64_t ref_result(const struct ref *rf, cured_op op, cured_type out)
{
    if (op == CURED_OP_EXACT_MEAN)
        return emu_exact_mean(rf->fmt, rf->s, rf->n, et_of(out));
    if (op == CURED_OP_EXACT_NORM2)
        return emu_exact_norm2(rf->fmt, rf->s, et_of(out));
    return emu_exact_round(rf->fmt, rf->s, et_of(out));
}

/* Bit patterns packed as elements of t (2, 4 or 8 bytes). */
static void *pack(cured_type t, const uint64_t *x, size_t n)
{
    const size_t sz = cr_type_size(t);
    unsigned char *p = malloc(n * sz + 16);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++)
        memcpy(p + i * sz, &x[i], sz); /* little-endian: the low bytes */
    return p;
}
static CUdeviceptr upload_bits(cured_type t, const uint64_t *x, size_t n)
{
    const size_t sz = cr_type_size(t);
    void *h = pack(t, x, n);
    CUdeviceptr d = dev_alloc(n * sz + 64);
    if (n)
        upload(d, h, n * sz);
    free(h);
    return d;
}
static uint64_t read_bits(CUdeviceptr p, cured_type out, size_t index)
{
    uint64_t v = 0;
    download(&v, p + index * cr_type_size(out), cr_type_size(out));
    return v;
}

/* One asynchronous whole-array call into a poisoned result. */
static uint64_t run_whole(cured_op op, cured_type t, CUdeviceptr x, CUdeviceptr y, size_t n, cured_type out,
                          CUdeviceptr res)
{
    poison(res, 8);
    if (op == CURED_OP_EXACT_DOT)
        CURED_OK(cured_exact_dot_async(H, DP(x), DP(y), t, n, DP(res), out, NULL));
    else
        CURED_OK(cured_reduce_async(H, op, CURED_ALGO_AUTO, DP(x), t, n, DP(res), out, NULL));
    CU_OK(D->CtxSynchronize());
    return read_bits(res, out, 0);
}

static void expect_bits(uint64_t got, uint64_t want, const char *what)
{
    ck_assert_msg(got == want, "%s: got 0x%llx, want 0x%llx (seed %llu)", what, (unsigned long long)got,
                  (unsigned long long)want, test_seed);
}

/* _i: operator x element type. Every offered result type, sizes across the chunks and modes. */
START_TEST(test_whole)
{
    const cured_op op = XOP[_i / 4];
    const cured_type t = FT[_i % 4];
    static const size_t sizes[] = {0, 1, 2, 33, 1000, 8191, 16385, 65537, 300007, (1u << 20) + 3};
    enum { NS = sizeof sizes / sizeof *sizes };
    const size_t most = sizes[NS - 1];
    uint64_t *x = malloc(most * 8), *y = malloc(most * 8);
    ck_assert(x && y);
    CUdeviceptr res = dev_alloc(64);
    for (int m = 0; m < M_COUNT; m++)
        for (int k = 0; k < NS; k++) {
            const size_t n = sizes[k];
            struct rng r;
            rng_init(&r, "exact-whole", (long)(_i * 100 + m * 16 + k));
            fill(&r, t, m, x, n);
            fill(&r, t, m == M_CANCEL ? M_NORMAL : m, y, n);
            struct ref rf;
            ref_make(&rf, op, t, x, y, n);
            CUdeviceptr dx = upload_bits(t, x, n), dy = upload_bits(t, y, n);
            for (int o = 0; o < CURED_TYPE_COUNT; o++) {
                if (!cured_result_offered(op, t, (cured_type)o))
                    continue;
                char what[160];
                snprintf(what, sizeof what, "%s %s->%s %s n=%zu", cured_op_name(op), cr_type_name(t),
                         cr_type_name((cured_type)o), mode_name[m], n);
                expect_bits(run_whole(op, t, dx, dy, n, (cured_type)o, res), ref_result(&rf, op, (cured_type)o),
                            what);
            }
            dev_free(dx);
            dev_free(dy);
        }
    dev_free(res);
    free(x);
    free(y);
}
END_TEST

/* The same bits whatever the split: parts an output, warps a unit, grid (cr_exact_force). */
START_TEST(test_forced_splits)
{
    const cured_op op = _i < 4 ? CURED_OP_EXACT_SUM : CURED_OP_EXACT_DOT;
    const cured_type t = FT[_i % 4];
    const size_t n = 500009;
    uint64_t *x = malloc(n * 8), *y = malloc(n * 8);
    ck_assert(x && y);
    struct rng r;
    rng_init(&r, "exact-force", _i);
    fill(&r, t, M_SPREAD, x, n);
    fill(&r, t, M_NORMAL, y, n);
    struct ref rf;
    ref_make(&rf, op, t, x, y, n);
    const cured_type out = t;
    const uint64_t want = ref_result(&rf, op, out);
    CUdeviceptr dx = upload_bits(t, x, n), dy = upload_bits(t, y, n), res = dev_alloc(64);
    static const unsigned splits[] = {0, 1, 2, 3, 7, 31, 64, 200};
    static const unsigned grids[] = {0, 1, 2, 5};
    for (size_t a = 0; a < sizeof splits / sizeof *splits; a++)
        for (unsigned uw = 0; uw < 4; uw++)
            for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
                cr_exact_force.splits = splits[a];
                cr_exact_force.unit_warps = uw == 0 || uw == 3 ? 0 : uw == 1 ? 1 : 8;
                cr_exact_force.lanes = uw == 3 ? 1 : -1; /* 3: a lane sums the whole array */
                if (uw == 3 && g > 1)
                    continue;
                cr_exact_force.grid = grids[g];
                cr_exact_force.finish = (int)((a + g) & 1); /* the parts meet in records, or in accumulators */
                char what[160];
                snprintf(what, sizeof what, "%s %s splits %u unit warps %u grid %u%s", cured_op_name(op),
                         cr_type_name(t), splits[a], cr_exact_force.unit_warps, grids[g],
                         cr_exact_force.finish ? " (exact_finish)" : "");
                expect_bits(run_whole(op, t, dx, dy, n, out, res), want, what);
            }
    memset(&cr_exact_force, 0, sizeof cr_exact_force);
    dev_free(dx);
    dev_free(dy);
    dev_free(res);
    free(x);
    free(y);
}
END_TEST

/* Rows and columns of a matrix and of its transpose, and a 3-D view reduced over two axes: each result is the
 * exact value of its elements, whatever their strides. _i: element type x operator (SUM, MEAN, NORM2). */
START_TEST(test_layouts)
{
    static const cured_op ops[3] = {CURED_OP_EXACT_SUM, CURED_OP_EXACT_MEAN, CURED_OP_EXACT_NORM2};
    const cured_type t = FT[_i % 4];
    const cured_op op = ops[_i / 4];
    static const int64_t shapes[][2] = {{3, 70001}, {1000, 37}, {64, 4096}, {50000, 3}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const int64_t R = shapes[s][0], C = shapes[s][1];
        const size_t n = (size_t)(R * C);
        uint64_t *a = malloc(n * 8), *at = malloc(n * 8), *row = malloc((size_t)(R > C ? R : C) * 8);
        ck_assert(a && at && row);
        struct rng r;
        rng_init(&r, "exact-layouts", (long)(_i * 10 + s));
        fill(&r, t, M_SPREAD, a, n);
        for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < C; j++)
                at[j * R + i] = a[i * C + j];
        CUdeviceptr da = upload_bits(t, a, n), dat = upload_bits(t, at, n);
        CUdeviceptr o1 = dev_alloc((size_t)(R > C ? R : C) * 8), o2 = dev_alloc((size_t)(R > C ? R : C) * 8);
        for (int axis = 0; axis < 2; axis++) {
            const int64_t nout = axis == 1 ? R : C, len = axis == 1 ? C : R;
            /* the matrix, and the same values as a strided view of its transpose */
            const cured_layout la = {2, {R, C}, {C, 1}}, lt = {2, {R, C}, {1, R}};
            poison(o1, (size_t)nout * 8);
            poison(o2, (size_t)nout * 8);
            CURED_OK(cured_reduce_axes_async(H, op, DP(da), t, &la, 1u << axis, DP(o1), t, NULL, NULL));
            CURED_OK(cured_reduce_axes_async(H, op, DP(dat), t, &lt, 1u << axis, DP(o2), t, NULL, NULL));
            CU_OK(D->CtxSynchronize());
            for (int64_t k = 0; k < nout; k++) {
                for (int64_t e = 0; e < len; e++)
                    row[e] = axis == 1 ? a[k * C + e] : a[e * C + k];
                struct ref rf;
                ref_make(&rf, op, t, row, row, (size_t)len);
                const uint64_t want = ref_result(&rf, op, t);
                char what[160];
                snprintf(what, sizeof what, "%s %s %lldx%lld axis %d result %lld", cured_op_name(op),
                         cr_type_name(t), (long long)R, (long long)C, axis, (long long)k);
                expect_bits(read_bits(o1, t, (size_t)k), want, what);
                expect_bits(read_bits(o2, t, (size_t)k), want, what);
                if (nout > 64 && k == 16)
                    k = nout - 16; /* the first and last results of long outputs */
            }
        }
        /* 3-D: (R/…, 2, C) reduced over axes 0 and 2 (several reduced dimensions) */
        if (R % 2 == 0 && n <= 300000) {
            const cured_layout l3 = {3, {R / 2, 2, C}, {2 * C, C, 1}};
            poison(o1, 16);
            CURED_OK(cured_reduce_axes_async(H, op, DP(da), t, &l3, 5u, DP(o1), t, NULL, NULL));
            CU_OK(D->CtxSynchronize());
            for (int64_t mid = 0; mid < 2; mid++) {
                size_t m = 0;
                uint64_t *v = malloc(n / 2 * 8);
                ck_assert_ptr_nonnull(v);
                for (int64_t i = 0; i < R / 2; i++)
                    for (int64_t j = 0; j < C; j++)
                        v[m++] = a[(2 * i + mid) * C + j];
                struct ref rf;
                ref_make(&rf, op, t, v, v, m);
                free(v);
                char what[160];
                snprintf(what, sizeof what, "%s %s 3-D axes 0,2 result %lld", cured_op_name(op), cr_type_name(t),
                         (long long)mid);
                expect_bits(read_bits(o1, t, (size_t)mid), ref_result(&rf, op, t), what);
            }
        }
        dev_free(da);
        dev_free(dat);
        dev_free(o1);
        dev_free(o2);
        free(a);
        free(at);
        free(row);
    }
}
END_TEST

/* Offset segments (int32 and int64, empty ones, end < begin) and uniform segments. _i: element type. */
START_TEST(test_segments)
{
    const cured_type t = FT[_i];
    const size_t n = 400000, nseg = 700;
    uint64_t *x = malloc(n * 8);
    int64_t *b64 = malloc(nseg * 8), *e64 = malloc(nseg * 8);
    int32_t *b32 = malloc(nseg * 4), *e32 = malloc(nseg * 4);
    ck_assert(x && b64 && e64 && b32 && e32);
    struct rng r;
    rng_init(&r, "exact-segments", _i);
    fill(&r, t, M_SPREAD, x, n);
    for (size_t s = 0; s < nseg; s++) {
        const uint64_t b = rnd64(&r) % n, kind = rnd64(&r) % 10;
        const uint64_t len = kind == 0 ? 0 : kind == 1 ? 40000 + rnd64(&r) % 30000 : rnd64(&r) % 3000;
        b64[s] = (int64_t)b;
        e64[s] = kind == 2 && b >= 5 ? (int64_t)b - 5 : (int64_t)(b + len < n ? b + len : n);
        b32[s] = (int32_t)b64[s];
        e32[s] = (int32_t)e64[s];
    }
    CUdeviceptr dx = upload_bits(t, x, n), db64 = dev_alloc(nseg * 8), de64 = dev_alloc(nseg * 8),
                db32 = dev_alloc(nseg * 4), de32 = dev_alloc(nseg * 4), o = dev_alloc(nseg * 8),
                o2 = dev_alloc(nseg * 8);
    upload(db64, b64, nseg * 8);
    upload(de64, e64, nseg * 8);
    upload(db32, b32, nseg * 4);
    upload(de32, e32, nseg * 4);
    for (int w = 0; w < 4; w++) {
        cr_exact_force.lanes = w >= 2 ? 1 : -1; /* a warp a segment, then a lane a segment */
        poison(o, nseg * 8);
        if (w % 2 == 0)
            CURED_OK(cured_segmented_reduce_async(H, CURED_OP_EXACT_SUM, DP(dx), t, nseg, DP(db64), DP(de64),
                                                  CURED_TYPE_INT64, DP(o), t, NULL));
        else
            CURED_OK(cured_segmented_reduce_async(H, CURED_OP_EXACT_MEAN, DP(dx), t, nseg, DP(db32), DP(de32),
                                                  CURED_TYPE_INT32, DP(o), t, NULL));
        CU_OK(D->CtxSynchronize());
        for (size_t s = 0; s < nseg; s++) {
            const size_t len = e64[s] > b64[s] ? (size_t)(e64[s] - b64[s]) : 0;
            struct ref rf;
            const cured_op op = w % 2 == 0 ? CURED_OP_EXACT_SUM : CURED_OP_EXACT_MEAN;
            ref_make(&rf, op, t, x + b64[s], NULL, len);
            char what[160];
            snprintf(what, sizeof what, "%s %s segment %zu [%lld, %lld)", cured_op_name(op), cr_type_name(t), s,
                     (long long)b64[s], (long long)e64[s]);
            expect_bits(read_bits(o, t, s), ref_result(&rf, op, t), what);
        }
    }
    memset(&cr_exact_force, 0, sizeof cr_exact_force);
    /* uniform segments: the same bits as offset segments over the same elements */
    const size_t seg = 571;
    poison(o, nseg * 8);
    CURED_OK(cured_uniform_segmented_reduce_async(H, CURED_OP_EXACT_SUM, DP(dx), t, nseg, seg, DP(o), t, NULL));
    CU_OK(D->CtxSynchronize());
    for (size_t s = 0; s < nseg; s++) {
        struct ref rf;
        ref_make(&rf, CURED_OP_EXACT_SUM, t, x + s * seg, NULL, seg);
        char what[160];
        snprintf(what, sizeof what, "EXACT_SUM %s uniform segment %zu", cr_type_name(t), s);
        expect_bits(read_bits(o, t, s), ref_result(&rf, CURED_OP_EXACT_SUM, t), what);
    }
    (void)o2;
    dev_free(dx);
    dev_free(db64);
    dev_free(de64);
    dev_free(db32);
    dev_free(de32);
    dev_free(o);
    dev_free(o2);
    free(x);
    free(b64);
    free(e64);
    free(b32);
    free(e32);
}
END_TEST

/* Outputs in doubles first (exact_quick, then the lanes for the groups it marks; exact_quick_columns, then the
 * warp units): rows of 1 to 1000 elements along axis 1, columns of 5 to 20000 along axis 0 and short segments (a
 * few past 1024: exact_quick_long's list), on data a double sums exactly, with some
 * outputs salted with terms it cannot take beside the others; every output against the host, and the same bits
 * without exact_quick, on a forced grid of one block, with a list of 3 (the rest to the lanes) and with the long
 * segments in pieces of 300 terms. _i: element
 * type x (SUM, MEAN). */
START_TEST(test_short)
{
    const cured_type t = FT[_i % 4];
    const cured_op op = _i / 4 ? CURED_OP_EXACT_MEAN : CURED_OP_EXACT_SUM;
    const cured_type out = t == CURED_TYPE_FLOAT64 ? t : _i % 2 ? CURED_TYPE_FLOAT64 : t;
    /* rows of 16 and 64 (exact_quick reads them by vectors); of 2, 4 and 8 (a vector of rows a lane); outputs
     * of one term and columns of 4 rows, a vector of outputs a lane where they are many (over four waves of
     * exact_quick_columns' groups: 2^20 and 600000 of them) */
    /* columns of 16 and 3 (fewer than a warp: lanes wrap over rows; thousands of parts meet in chunks) */
    static const int64_t shapes[][3] = {{70000, 1, 1}, {20000, 3, 1}, {20000, 16, 1}, {6000, 64, 1}, {300, 1000, 1},
                                        {40000, 2, 1}, {40000, 4, 1}, {24000, 8, 1}, {1, 70000, 0},
                                        {1, 1 << 20, 0}, {4, 600000, 0},
                                        {5, 9000, 0},  {200, 300, 0}, {3000, 700, 0}, {20000, 40, 0}, {100000, 16, 0},
                                        {300000, 3, 0}};
    struct rng r;
    rng_init(&r, "exact-short", _i);
    for (size_t sh = 0; sh <= sizeof shapes / sizeof *shapes; sh++) {
        const int seg = sh == sizeof shapes / sizeof *shapes;
        const int64_t R = seg ? 0 : shapes[sh][0], C = seg ? 0 : shapes[sh][1];
        const int axis = seg ? 1 : (int)shapes[sh][2];
        /* segments: an input that ends inside a 16-byte line (exact_quick_segments reads its last line term by
         * term), exactly as long as its elements */
        const size_t n = seg ? 300001 : (size_t)(R * C), nout = seg ? 20000 : (size_t)(axis ? R : C);
        uint64_t *x = malloc(n * 8), *row = malloc(n * 8);
        int64_t *b = malloc(nout * 8), *e = malloc(nout * 8);
        ck_assert(x && row && b && e);
        int eb, fb;
        fmt_bits(t, &eb, &fb);
        const uint64_t inf = ((1ull << eb) - 1) << fb;
        fill(&r, t, M_NORMAL, x, n);
        for (size_t k = 0; k < n / 500; k++) /* about one output in 100: a term of another binade, an infinity */
            x[rnd64(&r) % n] = k % 7 ? element(&r, t, 1, 3, (int)(k & 1)) : inf;
        for (size_t s = 0; seg && s < nout; s++) { /* mean 15; one in 500 past 1024 (some in several pieces) */
            const uint64_t len = rnd64(&r) % 500 == 0 ? 1025 + rnd64(&r) % (rnd64(&r) % 4 ? 3000 : 40000) : rnd64(&r) % 31;
            b[s] = (int64_t)(s % 50 == 0 && len < n ? n - len : rnd64(&r) % n); /* one in 50 ends at the input's end */
            e[s] = b[s] + (int64_t)len < (int64_t)n ? b[s] + (int64_t)len : (int64_t)n;
        }
        const size_t esz = cr_type_size(t);
        CUdeviceptr dx = seg ? dev_alloc(n * esz) : upload_bits(t, x, n), dxm = seg ? dev_alloc((n + 1) * esz) : 0,
                    db = dev_alloc(nout * 8), de = dev_alloc(nout * 8),
                    o[6] = {dev_alloc(nout * 8), dev_alloc(nout * 8), dev_alloc(nout * 8), dev_alloc(nout * 8),
                            dev_alloc(nout * 8), dev_alloc(nout * 8)};
        if (seg) {
            void *h = pack(t, x, n);
            upload(dx, h, n * esz);
            upload(dxm + esz, h, n * esz); /* one element off 16 bytes: exact_quick_segments reads terms */
            free(h);
            upload(db, b, nout * 8);
            upload(de, e, nout * 8);
        }
        const cured_layout la = {2, {R, C}, {C, 1}};
        const int nv = seg ? 6 : 4; /* pieces of 300 terms and a misaligned input only where there are segments */
        for (int v = 0; v < nv; v++) { /* the planner's; without exact_quick; on one block; a list of 3 entries;
                                          * the long segments in pieces of 300 terms, which meet by their tickets;
                                          * the input one element off its line */
            cr_exact_force.quick = v == 1 ? -1 : 0;
            cr_exact_force.grid = v == 2 ? 1 : 0;
            cr_exact_force.long_cap = v == 3 ? 3 : 0;
            cr_exact_force.long_piece = v == 4 ? 300 : 0;
            poison(o[v], nout * 8);
            if (seg)
                CURED_OK(cured_segmented_reduce_async(H, op, DP(v == 5 ? dxm + esz : dx), t, nout, DP(db), DP(de),
                                                      CURED_TYPE_INT64, DP(o[v]), out, NULL));
            else
                CURED_OK(cured_reduce_axes_async(H, op, DP(dx), t, &la, 1u << axis, DP(o[v]), out, NULL, NULL));
            CU_OK(D->CtxSynchronize());
        }
        memset(&cr_exact_force, 0, sizeof cr_exact_force);
        const size_t sz = cr_type_size(out);
        unsigned char *got = malloc(6 * nout * sz);
        ck_assert_ptr_nonnull(got);
        for (int v = 0; v < nv; v++)
            download(got + (size_t)v * nout * sz, o[v], nout * sz);
        for (size_t k = 0; k < nout; k++) {
            size_t len = 0;
            if (seg)
                for (int64_t i = b[k]; i < e[k]; i++)
                    row[len++] = x[i];
            else
                for (int64_t i = 0; i < (axis ? C : R); i++)
                    row[len++] = axis ? x[(int64_t)k * C + i] : x[i * C + (int64_t)k];
            struct ref rf;
            ref_make(&rf, op, t, row, row, len);
            const uint64_t want = ref_result(&rf, op, out);
            for (int v = 0; v < nv; v++) {
                char what[200];
                snprintf(what, sizeof what, "%s %s->%s %s, output %zu of %zu (%s)", cured_op_name(op), cr_type_name(t),
                         cr_type_name(out), seg ? "segments" : axis ? "rows" : "columns", k, nout,
                         v == 0   ? "the planner's"
                         : v == 1 ? "without exact_quick"
                         : v == 2 ? "one block"
                         : v == 3 ? "3 listed"
                         : v == 4 ? "pieces of 300"
                                  : "misaligned input");
                uint64_t bits = 0;
                memcpy(&bits, got + ((size_t)v * nout + k) * sz, sz); /* little-endian: the low bytes */
                expect_bits(bits, want, what);
            }
        }
        free(got);
        dev_free(dx);
        if (dxm)
            dev_free(dxm);
        dev_free(db);
        dev_free(de);
        for (int v = 0; v < 6; v++)
            dev_free(o[v]);
        free(x);
        free(row);
        free(b);
        free(e);
    }
}
END_TEST

/* The IEEE rules and n == 0, by every operator and type. */
START_TEST(test_rules)
{
    const cured_type t = FT[_i];
    int eb, fb;
    fmt_bits(t, &eb, &fb);
    const uint64_t sign = 1ull << (eb + fb), inf = ((1ull << eb) - 1) << fb, one = ((1ull << (eb - 1)) - 1) << fb;
    const uint64_t qnan = inf | 1ull << (fb - 1), maxf = inf - 1;
    const uint64_t cases[][6] = {
        {sign, sign, sign, 0, 0, 3},          /* all -0.0: -0.0 */
        {sign, 0, sign, 0, 0, 3},             /* -0.0 and +0.0: +0.0 */
        {one, inf, one, 0, 0, 3},             /* +inf */
        {inf | sign, one, one, 0, 0, 3},      /* -inf */
        {inf, inf | sign, one, 0, 0, 3},      /* both: NaN */
        {one, qnan, one, 0, 0, 3},            /* NaN */
        {maxf, maxf, maxf, 0, 0, 3},          /* overflows only when rounded (for the element type) */
        {maxf, maxf, maxf | sign, 0, 0, 3},   /* does not overflow */
        {one, one | sign, sign, 0, 0, 3},     /* exact cancellation: +0.0 */
    };
    CUdeviceptr res = dev_alloc(64);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const size_t n = (size_t)cases[c][5];
        CUdeviceptr dx = upload_bits(t, cases[c], n);
        for (int k = 0; k < 5; k++) {
            const cured_op op = XOP[k];
            struct ref rf;
            ref_make(&rf, op, t, cases[c], cases[c], n);
            for (int o = 0; o < CURED_TYPE_COUNT; o++) {
                if (!cured_result_offered(op, t, (cured_type)o))
                    continue;
                char what[160];
                snprintf(what, sizeof what, "%s %s->%s rule case %zu", cured_op_name(op), cr_type_name(t),
                         cr_type_name((cured_type)o), c);
                expect_bits(run_whole(op, t, dx, dx, n, (cured_type)o, res), ref_result(&rf, op, (cured_type)o),
                            what);
            }
        }
        dev_free(dx);
    }
    /* n == 0: +0.0, NaN for the mean; the synchronous mean refuses it */
    for (int k = 0; k < 5; k++) {
        struct ref rf;
        ref_make(&rf, XOP[k], t, NULL, NULL, 0);
        expect_bits(run_whole(XOP[k], t, 0, 0, 0, t, res), ref_result(&rf, XOP[k], t), "n = 0");
    }
    uint64_t host = POISON64;
    CURED_EXPECT(CURED_ERROR_TOO_FEW_ELEMENTS,
                 cured_reduce(H, CURED_OP_EXACT_MEAN, CURED_ALGO_AUTO, NULL, t, 0, &host, t, NULL));
    ck_assert_msg(host == POISON64, "the refused mean wrote its output");
    dev_free(res);
}
END_TEST

/* The synchronous calls, and refusals that need the GPU's pointers. */
START_TEST(test_sync)
{
    const size_t n = 123457;
    uint64_t *x = malloc(n * 8), *y = malloc(n * 8);
    ck_assert(x && y);
    struct rng r;
    rng_init(&r, "exact-sync", 0);
    fill(&r, CURED_TYPE_FLOAT64, M_SPREAD, x, n);
    fill(&r, CURED_TYPE_FLOAT64, M_NORMAL, y, n);
    CUdeviceptr dx = upload_bits(CURED_TYPE_FLOAT64, x, n), dy = upload_bits(CURED_TYPE_FLOAT64, y, n);
    struct ref rf;
    ref_make(&rf, CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT64, x, NULL, n);
    uint64_t got = 0;
    CURED_OK(cured_reduce(H, CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, DP(dx), CURED_TYPE_FLOAT64, n, &got,
                          CURED_TYPE_FLOAT64, NULL));
    expect_bits(got, ref_result(&rf, CURED_OP_EXACT_SUM, CURED_TYPE_FLOAT64), "cured_reduce EXACT_SUM");
    ref_make(&rf, CURED_OP_EXACT_DOT, CURED_TYPE_FLOAT64, x, y, n);
    CURED_OK(cured_exact_dot(H, DP(dx), DP(dy), CURED_TYPE_FLOAT64, n, &got, CURED_TYPE_FLOAT64, NULL));
    expect_bits(got, ref_result(&rf, CURED_OP_EXACT_DOT, CURED_TYPE_FLOAT64), "cured_exact_dot");
    /* refusals: integer elements, a narrower result, DOT through the one-input call, other algorithms */
    CURED_EXPECT(CURED_ERROR_TYPE_MISMATCH, cured_reduce(H, CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, DP(dx),
                                                         CURED_TYPE_INT32, 8, &got, CURED_TYPE_INT32, NULL));
    CURED_EXPECT(CURED_ERROR_TYPE_MISMATCH, cured_reduce(H, CURED_OP_EXACT_SUM, CURED_ALGO_AUTO, DP(dx),
                                                         CURED_TYPE_FLOAT64, 8, &got, CURED_TYPE_FLOAT32, NULL));
    CURED_EXPECT(CURED_ERROR_INVALID_VALUE, cured_reduce(H, CURED_OP_EXACT_DOT, CURED_ALGO_AUTO, DP(dx),
                                                         CURED_TYPE_FLOAT64, 8, &got, CURED_TYPE_FLOAT64, NULL));
    CURED_EXPECT(CURED_ERROR_NOT_SUPPORTED,
                 cured_reduce(H, CURED_OP_EXACT_SUM, CURED_ALGO_TWO_PASS_SHARED, DP(dx), CURED_TYPE_FLOAT64, 8, &got,
                              CURED_TYPE_FLOAT64, NULL));
    dev_free(dx);
    dev_free(dy);
    free(x);
    free(y);
}
END_TEST

/* Fixed inputs (not the seed's) whose result bits are folded into a digest printed on stdout: the same
 * digest on two GPUs means the same bits. */
START_TEST(test_digest)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned long long saved = test_seed;
    test_seed = 20261206;
    CUdeviceptr res = dev_alloc(64);
    const size_t n = 777777;
    uint64_t *x = malloc(n * 8), *y = malloc(n * 8);
    ck_assert(x && y);
    for (int k = 0; k < 5; k++)
        for (int ti = 0; ti < 4; ti++)
            for (int m = 0; m < M_COUNT; m++) {
                struct rng r;
                rng_init(&r, "exact-digest", k * 100 + ti * 10 + m);
                fill(&r, FT[ti], m, x, n);
                fill(&r, FT[ti], M_NORMAL, y, n);
                CUdeviceptr dx = upload_bits(FT[ti], x, n), dy = upload_bits(FT[ti], y, n);
                const uint64_t v = run_whole(XOP[k], FT[ti], dx, dy, n, FT[ti], res);
                h = (h ^ v) * 1099511628211ull;
                dev_free(dx);
                dev_free(dy);
            }
    test_seed = saved;
    printf("test-gpu-exact: digest of the fixed inputs' results: %016llx\n", (unsigned long long)h);
    fflush(stdout);
    dev_free(res);
    free(x);
    free(y);
}
END_TEST

/* Every operator's unit for each type and result type, through cured_prepare: seconds of NVRTC
 * each, so they compile on every CPU (CURED_TEST_JOBS threads) before the first test instead of
 * one after another inside the tests. */
static void prepare_one(void *user, size_t i)
{
    (void)user;
    /* the units first (an operator's unit serves every result type: the other calls find it) */
    const size_t unit = i % 20, k = i / 20;
    const cured_type t = FT[unit % 4], out = k == 0 ? t : k == 1 ? CURED_TYPE_FLOAT32 : CURED_TYPE_FLOAT64;
    (void)cured_prepare(H, XOP[unit / 4], CURED_ALGO_AUTO, t, out); /* a pair not offered is refused: no unit */
}

static void exact_setup(void)
{
    static int prepared;
    gpu_setup();
    if (!prepared) {
        prepared = 1;
        pool_run(5 * 4 * 3, test_jobs(), prepare_one, NULL, NULL);
    }
}

static Suite *exact_suite(void)
{
    Suite *s = suite_create("gpu-exact");
    TCase *c = tcase_create("exact");
    tcase_add_checked_fixture(c, exact_setup, gpu_teardown);
    tcase_set_timeout(c, 600);
    tcase_add_loop_test(c, test_whole, 0, 20);
    tcase_add_loop_test(c, test_forced_splits, 0, 8);
    tcase_add_loop_test(c, test_layouts, 0, 12);
    tcase_add_loop_test(c, test_segments, 0, 4);
    tcase_add_loop_test(c, test_short, 0, 8);
    tcase_add_loop_test(c, test_rules, 0, 4);
    tcase_add_test(c, test_sync);
    tcase_add_test(c, test_digest);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-exact", exact_suite());
}
