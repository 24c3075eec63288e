/*
 * test-ops: user-defined reductions (cured_custom_*) on the GPU. The
 * documented examples against host references (sizes 0, 1, 33, 2^20 + 7,
 * misaligned starts, asynchronous and synchronous), one op reused across
 * calls, handles and two threads on their own streams at once, and the
 * errors reported at creation and at call time.
 */
#include "ops_test.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EX_SUM_SQUARES, EX_MAX_ABS, EX_COUNT_NONZERO, EX_DOT, EX_HALF_SQUARES, NEXAMPLES };

static const struct example {
    const char *name;
    cured_type in, acc;
    int ninputs;
    const char *map, *combine, *identity;
    enum ref_flavour fl; /* data: exact results for the sums (see ops_ref.h) */
} examples[NEXAMPLES] = {
    [EX_SUM_SQUARES] = {"sum of squares", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x*x", "a+b", "0", FL_RAND},
    [EX_MAX_ABS] = {"max-abs", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "fabs(x)", "fmax(a,b)", "0", FL_WIDE},
    [EX_COUNT_NONZERO] = {"count of nonzeros", CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x != 0", "a+b", "0", FL_AND},
    [EX_DOT] = {"dot product", CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 2, "x*y", "a+b", "0", FL_RAND},
    [EX_HALF_SQUARES] = {"float16 sum of squares", CURED_TYPE_FLOAT16, CURED_TYPE_FLOAT32, 1, "x*x", "a+b", "0",
                         FL_RAND},
};

/* The input of an example: its flavour, except that the count of nonzeros
 * gets a third of zeros (made from the FL_AND buffer, whose values are
 * otherwise nonzero). */
static const struct ops_input *example_input(int e, int second)
{
    const struct example *ex = &examples[e];
    if (second)
        return ops_input(ex->in, FL_RAND2);
    const struct ops_input *in = ops_input(ex->in, ex->fl);
    if (e == EX_COUNT_NONZERO && ((int32_t *)in->host)[0] != 0) { /* once per test */
        struct rng r;
        rng_init(&r, "custom-zeros", 0);
        int32_t *h = in->host;
        for (size_t i = 0; i < in->n; i++)
            if (rng_u32(&r) % 3 == 0 || i == 0)
                h[i] = 0;
        upload(in->dev, h, in->n * sizeof *h);
    }
    return in;
}

/* The exact result of an example over x[0..n) (and y), as acc_type bytes. */
static void example_ref(int e, const void *x, const void *y, size_t n, unsigned char out[8])
{
    const struct example *ex = &examples[e];
    double sum = 0; /* exact for these data: a few k/64 squares or products */
    float max = 0;
    int64_t count = 0;
    for (size_t i = 0; i < n; i++) {
        switch (e) {
        case EX_SUM_SQUARES:
        case EX_HALF_SQUARES: {
            float v = (float)ref_get_f(ex->in, x, i);
            sum += (double)(v * v);
            break;
        }
        case EX_MAX_ABS: {
            float a = fabsf((float)ref_get_f(ex->in, x, i));
            max = a > max ? a : max;
            break;
        }
        case EX_COUNT_NONZERO: count += ((const int32_t *)x)[i] != 0; break;
        default: sum += (double)((float)ref_get_f(ex->in, x, i) * (float)ref_get_f(ex->in, y, i)); break;
        }
    }
    memset(out, 0, 8);
    if (e == EX_COUNT_NONZERO)
        memcpy(out, &count, 8);
    else if (e == EX_MAX_ABS)
        memcpy(out, &max, 4);
    else if (ex->acc == CURED_TYPE_FLOAT64)
        memcpy(out, &sum, 8);
    else {
        float f = (float)sum;
        ck_assert_msg((double)f == sum, "test bug: %s of the test data is not exact in float", ex->name);
        memcpy(out, &f, 4);
    }
}

static void expect_same(int e, const unsigned char *got, const unsigned char *want, const char *what)
{
    cured_type acc = examples[e].acc;
    if (acc == CURED_TYPE_INT64) {
        ck_assert_msg(memcmp(got, want, 8) == 0, "%s: got %lld, want %lld (seed %llu)", what,
                      (long long)ref_get_u(acc, got, 0), (long long)ref_get_u(acc, want, 0), test_seed);
        return;
    }
    double g = ref_get_f(acc, got, 0), w = ref_get_f(acc, want, 0);
    ck_assert_msg(g == w, "%s: got %.17g, want %.17g (seed %llu)", what, g, w, test_seed);
}

static cured_custom create_example(int e)
{
    const struct example *ex = &examples[e];
    cured_custom op = NULL;
    CURED_OK(cured_custom_create(H, ex->in, ex->acc, ex->ninputs, ex->map, ex->combine, ex->identity, &op));
    ck_assert_ptr_nonnull(op);
    return op;
}

/*
 * Loop test over the examples: one op, created once, on n = 0, 1, 33, big
 * from offsets 0 and within 16 bytes (two-input: also x and y at different
 * offsets), asynchronously into poisoned slots (results queued back to
 * back), then synchronously into poisoned host memory, twice.
 */
START_TEST(test_custom_examples)
{
    const int e = _i;
    const struct example *ex = &examples[e];
    const size_t size = ref_size(ex->in), acc = ref_size(ex->acc), vec = 16 / size, big = ops_big();
    /* Starts 1 and vec - 1 elements into 16 bytes (a float16 input 2 bytes past a 4-byte boundary). */
    const size_t o = vec - 1;
    const struct {
        size_t n, xoff, yoff;
    } cases[] = {{0, 0, 0}, {1, 0, 0}, {33, 0, 0}, {33, 1, 1}, {big, 0, 0}, {big, o, o}, {33, 0, 1}, {big, 1, 0}};
    const int ncases = ex->ninputs == 2 ? 8 : 6;
    const struct ops_input *x = example_input(e, 0), *y = ex->ninputs == 2 ? example_input(e, 1) : NULL;
    cured_custom op = create_example(e);

    CUstream s = stream_new();
    CUdeviceptr slots = dev_alloc((size_t)(ncases + 1) * OPS_SLOT);
    poison(slots, (size_t)(ncases + 1) * OPS_SLOT);
    char what[160];
    for (int c = 0; c < ncases; c++) {
        size_t n = cases[c].n;
        CUdeviceptr dx = n ? x->dev + cases[c].xoff * size : 0, dy = y && n ? y->dev + cases[c].yoff * size : 0;
        snprintf(what, sizeof what, "async %s n=%zu offsets %zu/%zu", ex->name, n, cases[c].xoff, cases[c].yoff);
        expect_status(cured_custom_reduce_async(H, op, DP(dx), DP(dy), n, DP(slots + (size_t)(c + 1) * OPS_SLOT), s),
                      CURED_SUCCESS, what);
    }
    CU_OK(D->StreamSynchronize(s));
    unsigned char got[(8 + 1) * OPS_SLOT];
    download(got, slots, (size_t)(ncases + 1) * OPS_SLOT);
    ops_expect_poison(got, 0, OPS_SLOT, "the guard slot");
    for (int c = 0; c < ncases; c++) {
        size_t n = cases[c].n;
        unsigned char want[8];
        example_ref(e, (const char *)x->host + cases[c].xoff * size,
                    y ? (const char *)y->host + cases[c].yoff * size : NULL, n, want);
        snprintf(what, sizeof what, "async %s n=%zu offsets %zu/%zu", ex->name, n, cases[c].xoff, cases[c].yoff);
        const unsigned char *slot = got + (size_t)(c + 1) * OPS_SLOT;
        expect_same(e, slot, want, what);
        ops_expect_poison(slot, acc, OPS_SLOT, what);

        for (int rep = 0; rep < 2; rep++) { /* the same op again, synchronously */
            unsigned char host[OPS_SLOT];
            memset(host, POISON_BYTE, sizeof host);
            CUdeviceptr dx = n ? x->dev + cases[c].xoff * size : 0, dy = y && n ? y->dev + cases[c].yoff * size : 0;
            snprintf(what, sizeof what, "sync %s n=%zu offsets %zu/%zu (call %d)", ex->name, n, cases[c].xoff,
                     cases[c].yoff, rep);
            expect_status(cured_custom_reduce(H, op, DP(dx), DP(dy), n, host, rep ? s : NULL), CURED_SUCCESS, what);
            expect_same(e, host, want, what);
            ops_expect_poison(host, acc, OPS_SLOT, what);
        }
    }
    CURED_OK(cured_custom_destroy(op));
}
END_TEST

/* ---- two threads, one op ----------------------------------------------------------------- */

enum { ITERS = 24 };

struct worker {
    cured_custom op;
    CUdeviceptr x;
    size_t n[ITERS];
    CUstream stream;
    double got[ITERS];
    cured_status status;
    int failed_at;
    char message[512];
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < ITERS; i++) {
        w->got[i] = NAN;
        cured_status st = cured_custom_reduce(H, w->op, DP(w->x), NULL, w->n[i], &w->got[i], w->stream);
        if (st != CURED_SUCCESS) {
            w->status = st;
            w->failed_at = i;
            snprintf(w->message, sizeof w->message, "%s", cured_last_error());
            break;
        }
    }
    return NULL;
}

/*
 * The sum-of-squares op created once and used from two threads at once,
 * each on its own stream and part of the input, through the shared handle
 * H; then through a second handle (same device and context) on the main
 * thread; results against the host.
 */
START_TEST(test_custom_threads)
{
    const struct example *ex = &examples[EX_SUM_SQUARES];
    const struct ops_input *x = example_input(EX_SUM_SQUARES, 0);
    cured_custom op = create_example(EX_SUM_SQUARES);
    const size_t big = ops_big();
    struct worker w[2];
    memset(w, 0, sizeof w);
    for (int t = 0; t < 2; t++) {
        w[t].op = op;
        w[t].x = x->dev + (size_t)t * 3 * ref_size(ex->in); /* thread 1 starts 3 elements later */
        w[t].stream = stream_new();
        w[t].status = CURED_SUCCESS;
        for (int i = 0; i < ITERS; i++)
            w[t].n[i] = i % 3 == 0 ? big - (size_t)i : (size_t)(i * 37 + t);
    }
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
    for (int t = 0; t < 2; t++)
        ck_assert_int_eq(pthread_join(th[t], NULL), 0);

    char what[160];
    for (int t = 0; t < 2; t++) {
        ck_assert_msg(w[t].status == CURED_SUCCESS, "thread %d, call %d: %s: %s", t, w[t].failed_at,
                      cured_status_string(w[t].status), w[t].message);
        for (int i = 0; i < ITERS; i++) {
            unsigned char want[8];
            example_ref(EX_SUM_SQUARES, (const char *)x->host + (size_t)t * 3 * ref_size(ex->in), NULL, w[t].n[i],
                        want);
            snprintf(what, sizeof what, "thread %d call %d (n=%zu)", t, i, w[t].n[i]);
            expect_same(EX_SUM_SQUARES, (const unsigned char *)&w[t].got[i], want, what);
        }
    }

    cured_handle h2 = NULL;
    CURED_OK(cured_create(0, &h2));
    double got = NAN;
    unsigned char want[8];
    example_ref(EX_SUM_SQUARES, x->host, NULL, big, want);
    cured_status st = cured_custom_reduce(h2, op, DP(x->dev), NULL, big, &got, NULL);
    cured_status st2 = cured_destroy(h2);
    expect_status(st, CURED_SUCCESS, "the op through a second handle");
    expect_status(st2, CURED_SUCCESS, "cured_destroy of the second handle");
    expect_same(EX_SUM_SQUARES, (const unsigned char *)&got, want, "the op through a second handle");
    CURED_OK(cured_custom_destroy(op));
}
END_TEST

/* ---- errors ---------------------------------------------------------------------------- */

static void expect_create_error(cured_status want, const char *map, const char *combine, const char *identity,
                                const char *needle)
{
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    cr_fail(CURED_SUCCESS, "%s", "");
    cured_status st = cured_custom_create(H, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, map, combine, identity, &op);
    ck_assert_msg(st == want, "create(%s | %s | %s): got %s, want %s: %s", map, combine, identity,
                  cured_status_string(st), cured_status_string(want), cured_last_error());
    ck_assert_msg(op == NULL, "create(%s | %s | %s) failed but did not set the op to NULL", map, combine, identity);
    ck_assert_msg(strstr(cured_last_error(), needle) != NULL, "create(%s | %s | %s): the message does not name %s:\n%s",
                  map, combine, identity, needle, cured_last_error());
}

START_TEST(test_custom_errors)
{
    /* Compile errors (type errors the grammar lets through): NVRTC's log points into the expression. */
    expect_create_error(CURED_ERROR_COMPILE, "x % 2.5", "a+b", "0", "map_expr(1)");
    ck_assert_msg(strstr(cured_last_error(), "integral") != NULL, "%s", cured_last_error());
    expect_create_error(CURED_ERROR_COMPILE, "x", "a % b", "0", "combine_expr(1)");
    expect_create_error(CURED_ERROR_COMPILE, "x", "a+b", "0.5 % 2", "identity_expr(1)");
    /* Rejected before compiling. */
    expect_create_error(CURED_ERROR_INVALID_EXPRESSION, "x; x", "a+b", "0", "map_expr");
    expect_create_error(CURED_ERROR_INVALID_EXPRESSION, "x", "a+b)", "0", "combine_expr");
    expect_create_error(CURED_ERROR_INVALID_EXPRESSION, "x * undefined_thing", "a+b", "0", "'undefined_thing'");

    cured_custom op = create_example(EX_DOT);
    CUdeviceptr x = dev_alloc(64 * 4);
    float host_out = 0, host_in[4] = {0};
    const float *hp = host_in;
    CUdeviceptr out = dev_alloc(16);
    cured_custom nothing = NULL;
    expect_status(cured_custom_reduce(H, nothing, DP(x), DP(x), 4, &host_out, NULL), CURED_ERROR_NULL_POINTER,
                  "a NULL op");
    expect_status(cured_custom_reduce(NULL, op, DP(x), DP(x), 4, &host_out, NULL), CURED_ERROR_NULL_HANDLE,
                  "a NULL handle");
    expect_status(cured_custom_reduce(H, op, DP(x), NULL, 4, &host_out, NULL), CURED_ERROR_NULL_POINTER,
                  "a two-input op without y");
    expect_status(cured_custom_reduce(H, op, NULL, DP(x), 4, &host_out, NULL), CURED_ERROR_NULL_POINTER,
                  "a NULL x");
    expect_status(cured_custom_reduce(H, op, DP(x), DP(x), 4, NULL, NULL), CURED_ERROR_NULL_POINTER, "a NULL output");
    expect_status(cured_custom_reduce(H, op, DP(x + 2), DP(x), 4, &host_out, NULL), CURED_ERROR_MISALIGNED,
                  "a misaligned x");
    expect_status(cured_custom_reduce(H, op, DP(x), DP(x + 1), 4, &host_out, NULL), CURED_ERROR_MISALIGNED,
                  "a misaligned y");
    expect_status(cured_custom_reduce_async(H, op, DP(x), DP(x), 4, DP(out + 2), NULL), CURED_ERROR_MISALIGNED,
                  "a misaligned output");
    expect_status(cured_custom_reduce(H, op, hp, hp, 4, &host_out, NULL), CURED_ERROR_NOT_DEVICE_POINTER,
                  "host inputs");
    expect_status(cured_custom_reduce_async(H, op, DP(x), DP(x), 4, &host_out, NULL),
                  CURED_ERROR_NOT_DEVICE_POINTER, "a host output for the asynchronous call");
    ck_assert_msg(host_out == 0, "a failed call wrote its output");
    CURED_OK(cured_custom_destroy(op));
    CURED_OK(cured_custom_destroy(NULL));

    /* Pointers need only be aligned to their element and result sizes: an
     * int16 op reading from and writing to addresses 2 bytes past a 4-byte boundary. */
    cured_custom op16 = NULL;
    CURED_OK(cured_custom_create(H, CURED_TYPE_INT16, CURED_TYPE_INT16, 1, "x", "a+b", "0", &op16));
    const int16_t vals[5] = {1, 2, 3, 4, 5};
    upload(x, vals, sizeof vals);
    poison(out, 16);
    CURED_OK(cured_custom_reduce_async(H, op16, DP(x + 2), NULL, 4, DP(out + 2), NULL));
    unsigned char got[16];
    download(got, out, sizeof got);
    int16_t sum16;
    memcpy(&sum16, got + 2, 2);
    ck_assert_int_eq(sum16, 2 + 3 + 4 + 5);
    ops_expect_poison(got, 0, 2, "an int16 result at offset 2");
    ops_expect_poison(got, 4, 16, "an int16 result at offset 2");
    int16_t host16 = 0;
    CURED_OK(cured_custom_reduce(H, op16, DP(x + 6), NULL, 2, &host16, NULL));
    ck_assert_int_eq(host16, 4 + 5);
    CURED_OK(cured_custom_destroy(op16));
}
END_TEST

TCase *ops_custom_tcase(void)
{
    TCase *tc = tcase_create("user_defined");
    tcase_add_checked_fixture(tc, ops_setup, ops_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_custom_examples, 0, NEXAMPLES);
    tcase_add_test(tc, test_custom_threads);
    tcase_add_test(tc, test_custom_errors);
    return tc;
}
