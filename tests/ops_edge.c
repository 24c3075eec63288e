/*
 * test-ops: edge values. Integer extremes and overflow (wrap in narrow
 * results, exact in wide ones); +-0, +-inf, NaN first / in the middle /
 * last, all-NaN inputs, denormals; all-equal inputs and ties (ARG*: the
 * first index). Each case runs asynchronously (poisoned device slot) and
 * synchronously (poisoned host buffer) against ops_ref.c.
 */
#include "ops_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The library's integer and floating types, and the operators whose result is an element or its
 * index (the oracle's kinds), filled by ops_edge_tcase(). */
static cured_type int_types[CURED_TYPE_COUNT], float_types[CURED_TYPE_COUNT];
static int NINT, NFLOAT;
static cured_op extreme_ops[CURED_OP_COUNT];
static int NEXTREME;

static CUdeviceptr to_device(const void *h, size_t n, cured_type t)
{
    CUdeviceptr d = dev_alloc(n * ref_size(t));
    upload(d, h, n * ref_size(t));
    return d;
}

/* op on h (already at d) into one result type; returns the reference. */
static struct ref_result one(struct ops_batch *b, cured_op op, cured_type in, cured_type out, const void *h,
                             CUdeviceptr d, size_t n, const char *label)
{
    char what[200];
    snprintf(what, sizeof what, "%s: %s %s->%s n=%zu", label, cured_op_name(op), cured_type_name(in),
             cured_type_name(out), n);
    struct ref_result r;
    ops_both(b, op, in, out, h, d, n, &r, what);
    return r;
}

/* op on h into every result type the library offers for it. */
static void every_result(struct ops_batch *b, cured_op op, cured_type in, const void *h, CUdeviceptr d, size_t n,
                         const char *label)
{
    int any = 0;
    for (int out = 0; out < CURED_TYPE_COUNT; out++)
        if (ops_offered(op, in, (cured_type)out)) {
            one(b, op, in, (cured_type)out, h, d, n, label);
            any = 1;
        }
    ck_assert_msg(any, "%s of %s is not offered", cured_op_name(op), cured_type_name(in));
}

/* Every min/max/arg operator offered for in (the NAN* ones for floats only). */
static void every_extreme(struct ops_batch *b, cured_type in, const void *h, CUdeviceptr d, size_t n,
                          const char *label)
{
    for (int k = 0; k < NEXTREME; k++)
        if (ops_offered(extreme_ops[k], in, in))
            one(b, extreme_ops[k], in, in, h, d, n, label);
}

/* A value of type t (as from ref_get_u) as a number. */
static __int128 as_wide(cured_type t, uint64_t v)
{
    return ref_is_signed(t) ? (__int128)(int64_t)v : (__int128)v;
}

static int is_arg_op(cured_op op)
{
    return op == CURED_OP_ARGMIN || op == CURED_OP_ARGMAX || op == CURED_OP_NANARGMIN ||
           op == CURED_OP_NANARGMAX;
}

static uint64_t rnd64(struct rng *r)
{
    uint64_t hi = rng_u32(r);
    return hi << 32 | rng_u32(r);
}

/* ---- integers ---------------------------------------------------------------------- */

/*
 * Loop test over the integer types: sums of values near the top (and, for
 * signed types, the bottom) of the range overflow the element type: the
 * element-width result wraps, the 64-bit one is exact (for types narrower
 * than 64 bits). MIN/MAX/ARG* with both extremes present twice; all
 * elements equal to the type's largest value (ARGMIN's starting value) or
 * smallest (ARGMAX's) give index 0.
 */
START_TEST(test_int_extremes)
{
    const cured_type t = int_types[_i];
    const size_t size = ref_size(t), big = ops_big();
    const size_t sizes[] = {33, big};
    const uint64_t tmax = ref_int_max(t), tmin = ref_int_min(t), span = (tmax - tmin) / 8;
    struct rng r;
    rng_init(&r, "int-extremes", _i);
    struct ops_batch b;
    ops_begin(&b, 400);
    char label[100];

    for (int side = 0; side < (ref_is_signed(t) ? 2 : 1); side++)
        for (int s = 0; s < 2; s++) {
            const size_t n = sizes[s];
            void *h = ops_malloc(n * size);
            __int128 exact = 0;
            for (size_t i = 0; i < n; i++) {
                uint64_t v = side == 0 ? tmax - rnd64(&r) % span : tmin + rnd64(&r) % span;
                ref_put_u(t, h, i, v);
                exact += as_wide(t, ref_get_u(t, h, i));
            }
            CUdeviceptr d = to_device(h, n, t);
            snprintf(label, sizeof label, "sum near the %s of %s", side ? "bottom" : "top", cured_type_name(t));
            every_result(&b, CURED_OP_SUM, t, h, d, n, label);
            /* The data overflow the element type; the 64-bit result of a narrower type is exact. */
            ck_assert_msg(side ? exact < as_wide(t, tmin) : exact > as_wide(t, tmax), "test bug: no overflow");
            if (size < 8) {
                cured_type wide = ref_is_signed(t) ? CURED_TYPE_INT64 : CURED_TYPE_UINT64;
                struct ref_result rw = one(&b, CURED_OP_SUM, t, wide, h, d, n, label);
                ck_assert_msg(as_wide(wide, rw.v[0].u) == exact, "test bug: the 64-bit reference is not exact");
            }
            ops_free(h);
        }

    for (int s = 0; s < 2; s++) { /* both extremes, twice each, at random places */
        const size_t n = sizes[s];
        void *h = ops_malloc(n * size);
        for (size_t i = 0; i < n; i++)
            ref_put_u(t, h, i, rnd64(&r));
        const size_t at = rng_u32(&r) % n; /* four different places */
        for (size_t k = 0; k < 4; k++)
            ref_put_u(t, h, (at + k * (n / 4)) % n, k % 2 ? tmax : tmin);
        CUdeviceptr d = to_device(h, n, t);
        snprintf(label, sizeof label, "extremes of %s", cured_type_name(t));
        every_extreme(&b, t, h, d, n, label);
        every_result(&b, CURED_OP_SUM, t, h, d, n, label);
        every_result(&b, CURED_OP_SUM_ABS, t, h, d, n, label);
        struct ref_result rmin = one(&b, CURED_OP_ARGMIN, t, t, h, d, n, label);
        ck_assert_msg(rmin.v[0].u == tmin, "test bug: the minimum is not planted");
        ops_free(h);
    }

    const size_t all_sizes[] = {1, 33, ops_mid()};
    for (int s = 0; s < 3; s++)
        for (int side = 0; side < 2; side++) {
            const size_t n = all_sizes[s];
            void *h = ops_malloc(n * size);
            for (size_t i = 0; i < n; i++)
                ref_put_u(t, h, i, side ? tmin : tmax);
            CUdeviceptr d = to_device(h, n, t);
            snprintf(label, sizeof label, "all %s %s", cured_type_name(t), side ? "smallest" : "largest");
            every_extreme(&b, t, h, d, n, label);
            struct ref_result ra = one(&b, side ? CURED_OP_ARGMAX : CURED_OP_ARGMIN, t, t, h, d, n, label);
            ck_assert_int_eq(ra.index, 0);
            ops_free(h);
        }

    if (t == CURED_TYPE_INT32) { /* 65536 * 65536 * 3: 0 modulo 2^32, exact in int64 */
        int32_t h[3] = {65536, 65536, 3};
        CUdeviceptr d = to_device(h, 3, t);
        struct ref_result r32 = one(&b, CURED_OP_PRODUCT, t, CURED_TYPE_INT32, h, d, 3, "product overflow");
        struct ref_result r64 = one(&b, CURED_OP_PRODUCT, t, CURED_TYPE_INT64, h, d, 3, "product overflow");
        ck_assert(r32.v[0].u == 3ull << 32 && r64.v[0].u == 3ull << 32); /* truncated to 0 for INT32 */
    }
    ops_finish(&b);
}
END_TEST

/* ---- floats --------------------------------------------------------------------------- */

static double inf_of(int negative)
{
    return negative ? -INFINITY : INFINITY;
}

/* Smallest subnormal of a float type. */
static double subnormal_unit(cured_type t)
{
    switch (t) {
    case CURED_TYPE_FLOAT16: return ldexp(1, -24);
    case CURED_TYPE_BFLOAT16: return ldexp(1, -133);
    case CURED_TYPE_FLOAT32: return ldexp(1, -149);
    default: return ldexp(1, -1074);
    }
}

static void put_nan(cured_type t, void *h, size_t i, struct rng *r)
{
    static const uint64_t quiet[] = {[CURED_TYPE_FLOAT16] = 0x7e00u, [CURED_TYPE_BFLOAT16] = 0x7fc0u,
                                     [CURED_TYPE_FLOAT32] = 0x7fc00000u,
                                     [CURED_TYPE_FLOAT64] = 0x7ff8000000000000ull};
    uint64_t sign = (uint64_t)(rng_u32(r) & 1) << (8 * ref_size(t) - 1);
    ref_put_u(t, h, i, quiet[t] | sign | (rng_u32(r) & 7));
}

/* +0 and -0; +inf and -inf; all +inf (ARGMIN's starting value) or all -inf
 * (ARGMAX's), then with a NaN first. */
static void zeros_and_infinities(struct ops_batch *b, cured_type t, void *h, size_t n, struct rng *r)
{
    char label[100];
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, rng_u32(r) & 1 ? -0.0 : 0.0);
    CUdeviceptr d = to_device(h, n, t);
    every_extreme(b, t, h, d, n, "+-0");
    every_result(b, CURED_OP_SUM, t, h, d, n, "+-0");
    ck_assert_int_eq(one(b, CURED_OP_ARGMAX, t, t, h, d, n, "+-0").index, 0);
    ck_assert_uint_eq(one(b, CURED_OP_COUNT_NONZERO, t, CURED_TYPE_INT64, h, d, n, "+-0").v[0].u, 0);

    /* +inf at p and p + 1, -inf at q */
    ref_fill(t, FL_REAL, r, h, n);
    size_t p = rng_u32(r) % (n - 1), q = (p + 1 + rng_u32(r) % (n - 1)) % n;
    ref_put_f(t, h, p, INFINITY);
    ref_put_f(t, h, q, -INFINITY);
    if (p + 1 != q)
        ref_put_f(t, h, p + 1, INFINITY);
    d = to_device(h, n, t);
    every_extreme(b, t, h, d, n, "+-inf");
    every_result(b, CURED_OP_SUM, t, h, d, n, "+inf and -inf (NaN)");
    ck_assert_int_eq(one(b, CURED_OP_ARGMAX, t, t, h, d, n, "+-inf").index, (int64_t)p);
    ck_assert_int_eq(one(b, CURED_OP_ARGMIN, t, t, h, d, n, "+-inf").index, (int64_t)q);
    one(b, CURED_OP_COUNT_NONZERO, t, CURED_TYPE_INT64, h, d, n, "+-inf");
    ref_put_f(t, h, q, 1.0);
    d = to_device(h, n, t);
    every_result(b, CURED_OP_SUM, t, h, d, n, "+inf only");
    every_result(b, CURED_OP_SUM_ABS, t, h, d, n, "+inf only");

    for (int neg = 0; neg < 2; neg++) {
        for (size_t i = 0; i < n; i++)
            ref_put_f(t, h, i, inf_of(neg));
        d = to_device(h, n, t);
        snprintf(label, sizeof label, "all %cinf", neg ? '-' : '+');
        every_extreme(b, t, h, d, n, label);
        ck_assert_int_eq(one(b, neg ? CURED_OP_NANARGMAX : CURED_OP_NANARGMIN, t, t, h, d, n, label).index, 0);
        put_nan(t, h, 0, r);
        d = to_device(h, n, t);
        snprintf(label, sizeof label, "NaN then all %cinf", neg ? '-' : '+');
        every_extreme(b, t, h, d, n, label);
        ck_assert_int_eq(one(b, neg ? CURED_OP_NANARGMAX : CURED_OP_NANARGMIN, t, t, h, d, n, label).index, 1);
        ck_assert_int_eq(one(b, neg ? CURED_OP_ARGMAX : CURED_OP_ARGMIN, t, t, h, d, n, label).index, 0);
    }
}

/* A lone zero (no -0/+0 tie) among values of one sign: MIN, NANMIN and
 * MINMAX's minimum over positives, or MAX, NANMAX and MINMAX's maximum over
 * negatives, must return it with its sign. (The batch's checks let a zero
 * result have either sign, as a -0/+0 tie may.) */
static void lone_zero(cured_type t, void *h, size_t n, struct rng *r, CUstream stream)
{
    static const cured_op ops[2][3] = {{CURED_OP_MIN, CURED_OP_NANMIN, CURED_OP_MINMAX},
                                       {CURED_OP_MAX, CURED_OP_NANMAX, CURED_OP_MINMAX}};
    for (int neg = 0; neg < 2; neg++)
        for (int zneg = 0; zneg < 2; zneg++) {
            ref_fill(t, FL_REAL, r, h, n);
            for (size_t i = 0; i < n; i++) {
                const double v = 1 + fabs(ref_get_f(t, h, i));
                ref_put_f(t, h, i, neg ? -v : v);
            }
            const size_t p = rng_u32(r) % n;
            ref_put_f(t, h, p, zneg ? -0.0 : 0.0);
            CUdeviceptr d = to_device(h, n, t);
            for (int k = 0; k < 3; k++) {
                const cured_op op = ops[neg][k];
                unsigned char got[OPS_SLOT];
                memset(got, POISON_BYTE, sizeof got);
                cured_status s = cured_reduce(H, op, CURED_ALGO_AUTO, DP(d), t, n, got, t, stream);
                ck_assert_msg(s == CURED_SUCCESS, "%s of %s: %s", cured_op_name(op), cured_type_name(t),
                              cured_status_string(s));
                const double z = ref_get_f(t, got, op == CURED_OP_MINMAX && neg);
                ck_assert_msg(z == 0 && !signbit(z) == !zneg,
                              "%s of %s n=%zu: a lone %s0 at %zu among %s values gave %g%s (seed %llu)",
                              cured_op_name(op), cured_type_name(t), n, zneg ? "-" : "+", p,
                              neg ? "negative" : "positive", z, signbit(z) ? " (negative)" : "", test_seed);
            }
        }
}

/* NaN first, in the middle, last (and a second NaN after the first) among random finite values. */
static void nan_positions(struct ops_batch *b, cured_type t, void *h, size_t n, struct rng *r)
{
    const size_t where[] = {0, n / 2, n - 1};
    char label[100];
    for (int w = 0; w < 3; w++) {
        ref_fill(t, FL_WIDE, r, h, n);
        put_nan(t, h, where[w], r);
        if (where[w] + 1 < n)
            put_nan(t, h, n - 1, r);
        CUdeviceptr d = to_device(h, n, t);
        snprintf(label, sizeof label, "NaN at %zu", where[w]);
        every_extreme(b, t, h, d, n, label);
        ck_assert_int_eq(one(b, CURED_OP_ARGMIN, t, t, h, d, n, label).index, (int64_t)where[w]);
        ck_assert_int_eq(one(b, CURED_OP_ARGMAX, t, t, h, d, n, label).index, (int64_t)where[w]);
    }
}

/* k times the smallest subnormal, |k| <= 7, with both -7 and 7 present and a nonzero sum. */
static void denormals(struct ops_batch *b, cured_type t, void *h, size_t n, struct rng *r)
{
    const double unit = subnormal_unit(t);
    for (size_t i = 0; i < n; i++)
        ref_put_f(t, h, i, ((int)(rng_u32(r) % 15) - 7) * unit);
    const size_t at = rng_u32(r) % (n - 1); /* two places, neither the last (it may change below) */
    ref_put_f(t, h, at, -7 * unit);
    ref_put_f(t, h, (at + 1 + rng_u32(r) % (n - 2)) % (n - 1), 7 * unit);
    struct ref_result rs;
    ref_reduce(CURED_OP_SUM, t, t == CURED_TYPE_FLOAT64 ? t : CURED_TYPE_FLOAT32, h, NULL, n, 1, &rs);
    if (rs.v[0].f == 0) /* keep the sum away from 0, where flushing would not show */
        ref_put_f(t, h, n - 1, ref_get_f(t, h, n - 1) == 7 * unit ? 6 * unit : 7 * unit);
    CUdeviceptr d = to_device(h, n, t);
    every_result(b, CURED_OP_SUM, t, h, d, n, "denormals");
    every_extreme(b, t, h, d, n, "denormals");
    struct ref_result rmin = one(b, CURED_OP_MIN, t, t, h, d, n, "denormals");
    ck_assert_msg(rmin.v[0].f == -7 * unit, "test bug: the smallest denormal is not planted");
}

/*
 * Loop test over the float types: +-0 (min and max compare equal to 0 -
 * the sign of a zero result is not asserted for a -0/+0 tie - and ARG*
 * give index 0, all elements being equal); a lone zero among values of one
 * sign (its sign is kept); +-inf; NaN first, in the middle and last (MIN,
 * MAX, MINMAX and ARG* propagate it, ARG*: the first NaN's index; the NAN*
 * operators ignore it); all-NaN inputs (the NAN* operators: ALL_NAN from
 * the synchronous call with the host buffer untouched, NaN / index -1 from
 * the asynchronous one); denormals (sums exact, min/max the right ones).
 * Sizes 33 and ops_mid(); the NaN positions and all-NaN also ops_big().
 */
START_TEST(test_float_specials)
{
    const cured_type t = float_types[_i];
    const size_t size = ref_size(t), big = ops_big();
    const size_t sizes[] = {33, ops_mid(), big};
    struct rng r;
    rng_init(&r, "float-specials", _i);
    struct ops_batch b;
    ops_begin(&b, 500);

    for (int s = 0; s < 3; s++) {
        const size_t n = sizes[s];
        void *h = ops_malloc(n * size);
        if (n != big) {
            zeros_and_infinities(&b, t, h, n, &r);
            denormals(&b, t, h, n, &r);
        }
        nan_positions(&b, t, h, n, &r);
        lone_zero(t, h, n, &r, b.stream);
        ops_free(h);
    }

    const size_t all_sizes[] = {1, 33, big};
    for (int s = 0; s < 3; s++) {
        const size_t n = all_sizes[s];
        void *h = ops_malloc(n * size);
        for (size_t i = 0; i < n; i++)
            put_nan(t, h, i, &r);
        CUdeviceptr d = to_device(h, n, t);
        every_extreme(&b, t, h, d, n, "all NaN");
        struct ref_result ra = one(&b, CURED_OP_NANARGMIN, t, t, h, d, n, "all NaN");
        ck_assert(ra.status == CURED_ERROR_ALL_NAN && ra.index == -1);
        struct ref_result rm = one(&b, CURED_OP_NANMAX, t, t, h, d, n, "all NaN");
        ck_assert(rm.status == CURED_ERROR_ALL_NAN && rm.v[0].is_nan);
        ck_assert_int_eq(one(&b, CURED_OP_ARGMAX, t, t, h, d, n, "all NaN").index, 0);
        ck_assert_uint_eq(one(&b, CURED_OP_COUNT_NONZERO, t, CURED_TYPE_INT64, h, d, n, "all NaN").v[0].u, n);
        ops_free(h);
    }
    ops_finish(&b);
}
END_TEST

/* ---- every type ------------------------------------------------------------------------ */

/*
 * Loop test over all types: every element equal (ARG*: index 0; MIN, MAX,
 * MINMAX: that value); then ties: the largest and the smallest value
 * planted at several random places (two of them adjacent) among values
 * strictly between them: ARG* give the first place.
 */
START_TEST(test_equal_and_ties)
{
    const cured_type t = (cured_type)_i;
    const size_t size = ref_size(t), big = ops_big();
    const size_t sizes[] = {1, 33, ops_mid(), big}; /* all equal: the first three; ties: the last two */
    struct rng r;
    rng_init(&r, "equal-and-ties", _i);
    struct ops_batch b;
    ops_begin(&b, 200);
    char label[100];

    for (int s = 0; s < 3; s++) {
        const size_t n = sizes[s];
        void *h = ops_malloc(n * size);
        if (ref_is_float(t))
            ref_fill(t, FL_WIDE, &r, h, 1);
        else
            ref_put_u(t, h, 0, rnd64(&r));
        for (size_t i = 1; i < n; i++)
            memcpy((char *)h + i * size, h, size);
        CUdeviceptr d = to_device(h, n, t);
        snprintf(label, sizeof label, "all equal %s", cured_type_name(t));
        every_extreme(&b, t, h, d, n, label);
        for (int k = 0; k < NEXTREME; k++)
            if (ops_offered(extreme_ops[k], t, t) && is_arg_op(extreme_ops[k]))
                ck_assert_int_eq(one(&b, extreme_ops[k], t, t, h, d, n, label).index, 0);
        ops_free(h);
    }

    for (int s = 1; s < 4; s += 2) {
        const size_t n = sizes[s];
        void *h = ops_malloc(n * size);
        /* Values strictly inside: floats in [-1/32, 1/32), integers without their extremes. */
        if (ref_is_float(t))
            ref_fill(t, FL_REAL, &r, h, n);
        else
            for (size_t i = 0; i < n; i++) {
                uint64_t raw, v;
                do {
                    raw = rnd64(&r);
                    v = ref_get_u(t, &raw, 0); /* its first bytes, as a value of t */
                } while (v == ref_int_min(t) || v == ref_int_max(t));
                ref_put_u(t, h, i, v);
            }
        /* The largest value at 4 random places in the first half, the smallest at 4 in the
         * second (so that none covers another), the first plant of each an adjacent pair. */
        for (int k = 0; k < 8; k++) {
            const size_t half = (n - 1) / 2;
            size_t i = (k % 2 ? half : 0) + rng_u32(&r) % half;
            for (size_t j = i; j <= i + (k < 2); j++) {
                if (ref_is_float(t))
                    ref_put_f(t, h, j, k % 2 ? -1.0 : 1.0);
                else
                    ref_put_u(t, h, j, k % 2 ? ref_int_min(t) : ref_int_max(t));
            }
        }
        size_t first_hi = n, first_lo = n;
        for (size_t i = n; i-- > 0;) {
            int hi = ref_is_float(t) ? ref_get_f(t, h, i) == 1.0 : ref_get_u(t, h, i) == ref_int_max(t);
            int lo = ref_is_float(t) ? ref_get_f(t, h, i) == -1.0 : ref_get_u(t, h, i) == ref_int_min(t);
            first_hi = hi ? i : first_hi;
            first_lo = lo ? i : first_lo;
        }
        ck_assert_msg(first_hi < n / 2 && first_lo >= n / 2 - 1, "test bug: plants at %zu and %zu", first_hi,
                      first_lo);
        CUdeviceptr d = to_device(h, n, t);
        snprintf(label, sizeof label, "ties of %s", cured_type_name(t));
        every_extreme(&b, t, h, d, n, label);
        ck_assert_int_eq(one(&b, CURED_OP_ARGMAX, t, t, h, d, n, label).index, (int64_t)first_hi);
        ck_assert_int_eq(one(&b, CURED_OP_ARGMIN, t, t, h, d, n, label).index, (int64_t)first_lo);
        ops_free(h);
    }
    ops_finish(&b);
}
END_TEST

TCase *ops_edge_tcase(void)
{
    NINT = ref_types(0, int_types);
    NFLOAT = ref_types(1, float_types);
    NEXTREME = 0;
    for (int op = 0; op < CURED_OP_COUNT; op++)
        if (ref_op((cured_op)op)->kind == REF_EXTREME || ref_op((cured_op)op)->kind == REF_ARG)
            extreme_ops[NEXTREME++] = (cured_op)op;
    TCase *tc = tcase_create("edge_values");
    tcase_add_checked_fixture(tc, ops_setup, ops_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_int_extremes, 0, NINT);
    tcase_add_loop_test(tc, test_float_specials, 0, NFLOAT);
    tcase_add_loop_test(tc, test_equal_and_ties, 0, CURED_TYPE_COUNT);
    return tc;
}
