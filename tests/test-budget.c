/*
 * cured.h's compile budget of user-defined ops, off the GPU on
 * tests/fakecuda.c's device with NVRTC (skipped without it): a new shape
 * along axes or over segments past CURED_CUSTOM_MAX_SHAPES, or past the
 * op's CURED_CUSTOM_COMPILE_SECONDS, and a new op past the process's
 * CURED_CUSTOM_PROCESS_COMPILE_SECONDS, are refused with
 * CURED_ERROR_COMPILE_BUDGET and a message naming the limit, with nothing
 * compiled, loaded or launched; shapes already loaded still run. A call of
 * a loaded shape does not wait while another thread compiles a new one for
 * the same op. (The operator cost budget of multi-field ops needs no device:
 * test-expr.) Each test runs in its own process (Check's fork mode), so each
 * starts with the process's budget unspent.
 */
#include "fake_device.h"
#include "custom.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static int nvrtc_here(void)
{
    if (cured_nvrtc_version(NULL, NULL) == CURED_SUCCESS)
        return 1;
    printf("no NVRTC (%s): not tested\n", cured_last_error());
    return 0;
}

static const cured_layout rows_layout = {2, {8, 128}, {128, 1}};

static cured_status rows(cured_handle h, cured_custom op, const int32_t *x, int64_t *out)
{
    return cured_custom_reduce_axes_async(h, op, x, &rows_layout, 2u, out, NULL, NULL);
}

static cured_status cols(cured_handle h, cured_custom op, const int32_t *x, int64_t *out)
{
    return cured_custom_reduce_axes_async(h, op, x, &rows_layout, 1u, out, NULL, NULL);
}

/* A refusal of the budget: its status and message, and nothing compiled, loaded or launched. */
static void refused(const char *what, cured_status st, const char *needle, struct fake_counts c0)
{
    expect(st, CURED_ERROR_COMPILE_BUDGET, what);
    assert_message_contains(what, needle);
    const struct fake_counts c = counts();
    ck_assert_msg(c.launches == c0.launches && c.loads == c0.loads && c.allocs == c0.allocs,
                  "%s: %d launches, %d module loads, %d allocations", what, c.launches - c0.launches,
                  c.loads - c0.loads, c.allocs - c0.allocs);
}

struct compiler {
    cured_handle h;
    cured_custom op;
    const int32_t *x;
    int64_t *out;
    cured_status st;
    atomic_int done;
};

static void *compile_cols(void *arg)
{
    struct compiler *c = arg;
    c->st = cols(c->h, c->op, c->x, c->out);
    atomic_store(&c->done, 1);
    return NULL;
}

/* The op's charged shapes and its loaded variants, read together under its lock. */
static void op_counts(cured_custom op, size_t *shapes, size_t *variants)
{
    pthread_mutex_lock(&op->lock);
    *shapes = op->nshapes;
    *variants = op->nvariants;
    pthread_mutex_unlock(&op->lock);
}

/* CURED_CUSTOM_MAX_SHAPES=2: rows and columns compile (the columns while a loaded shape keeps running in
 * this thread), a third shape (segments) is refused, and the loaded ones still run. */
START_TEST(test_max_shapes)
{
    if (!nvrtc_here())
        return;
    ck_assert_int_eq(setenv("CURED_CUSTOM_MAX_SHAPES", "2", 1), 0);
    /* a disk cache hit could end the columns' load before this thread looks */
    ck_assert_int_eq(setenv("CURED_CACHE_DISABLE", "1", 1), 0);
    cured_handle h = fake_handle(1);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(4096, 1, 0), *off = fake_alloc(256, 1, 0);
    for (int i = 0; i <= 8; i++)
        off[i] = 100 * i;
    cured_custom op = NULL;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a + b", "0", &op), CURED_SUCCESS,
           "a user op");
    expect(rows(h, op, x, out), CURED_SUCCESS, "rows, the first shape");
    size_t shapes, variants;
    op_counts(op, &shapes, &variants);
    ck_assert_msg(shapes == 1 && variants == 1, "after the rows: %zu shapes, %zu variants", shapes, variants);
    /* Another thread compiles the columns: the shape is charged before NVRTC runs and the variant kept
     * after, so seeing two shapes and one variant means the op's lock is free during the compile; the
     * rows, loaded, then run without waiting for it. */
    struct compiler c = {h, op, x, out, CURED_ERROR_INTERNAL, 0};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, compile_cols, &c), 0);
    do {
        nanosleep(&(struct timespec){0, 200000}, NULL);
        op_counts(op, &shapes, &variants);
    } while (shapes < 2 && !atomic_load(&c.done));
    const size_t seen_shapes = shapes, seen_variants = variants;
    int ran = 0;
    for (; ran < 3 && variants == 1; ran++) {
        expect(rows(h, op, x, out), CURED_SUCCESS, "rows while another thread compiles the columns");
        op_counts(op, &shapes, &variants);
    }
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    expect(c.st, CURED_SUCCESS, "columns, the second shape");
    ck_assert_msg(seen_shapes == 2 && seen_variants == 1,
                  "the columns' compile held the op's lock (first seen: %zu shapes, %zu variants)", seen_shapes,
                  seen_variants);
    ck_assert_msg(ran == 3 && variants == 1, "the loaded rows waited for the columns' compile (%d calls)", ran);
    op_counts(op, &shapes, &variants);
    ck_assert_msg(shapes == 2 && variants == 2, "after the columns: %zu shapes, %zu variants", shapes, variants);
    /* The third shape is refused; the loaded ones and the whole-array kernel run. */
    clear_error();
    struct fake_counts c0 = counts();
    refused("segments, a third shape",
            cured_custom_segmented_reduce_async(h, op, x, 8, off, off + 1, CURED_TYPE_INT64, out, NULL),
            "CURED_CUSTOM_MAX_SHAPES", c0);
    assert_message_contains("segments, a third shape", "2 shapes");
    c0 = counts();
    expect(rows(h, op, x, out), CURED_SUCCESS, "rows after the refusal");
    expect(cols(h, op, x, out), CURED_SUCCESS, "columns after the refusal");
    expect(cured_custom_reduce_async(h, op, x, NULL, 1000, out, NULL), CURED_SUCCESS, "the whole array");
    const struct fake_counts c1 = counts();
    ck_assert_msg(c1.loads == c0.loads + 1 && c1.launches > c0.launches,
                  "after the refusal: %d loads (the whole-array kernel's), %d launches", c1.loads - c0.loads,
                  c1.launches - c0.launches);
    /* 0 lifts the cap: the segments compile. */
    ck_assert_int_eq(setenv("CURED_CUSTOM_MAX_SHAPES", "0", 1), 0);
    expect(cured_custom_segmented_reduce_async(h, op, x, 8, off, off + 1, CURED_TYPE_INT64, out, NULL), CURED_SUCCESS,
           "segments without a cap");
    expect(cured_custom_destroy(op), CURED_SUCCESS, "destroy the op");
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
}
END_TEST

/* The op's seconds: once its creation has spent them, a new shape is refused. The process's: once spent, a
 * new op is refused (out NULL), and the ops made before still run their loaded kernels. */
START_TEST(test_seconds)
{
    if (!nvrtc_here())
        return;
    ck_assert_int_eq(setenv("CURED_CUSTOM_COMPILE_SECONDS", "1e-6", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUSTOM_PROCESS_COMPILE_SECONDS", "1e-6", 1), 0);
    cured_handle h = fake_handle(1);
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t *out = fake_alloc(4096, 1, 0);
    cured_custom op = NULL, op2 = (cured_custom)(uintptr_t)1;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a + b", "0", &op), CURED_SUCCESS,
           "the first op (nothing spent yet)");
    expect(cured_custom_reduce_async(h, op, x, NULL, 1000, out, NULL), CURED_SUCCESS, "its whole-array kernel");
    ck_assert_int_eq(setenv("CURED_CUSTOM_PROCESS_COMPILE_SECONDS", "0", 1), 0);
    clear_error();
    refused("a new shape past the op's seconds", rows(h, op, x, out), "CURED_CUSTOM_COMPILE_SECONDS", counts());
    ck_assert_int_eq(setenv("CURED_CUSTOM_PROCESS_COMPILE_SECONDS", "1e-6", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUSTOM_COMPILE_SECONDS", "0", 1), 0);
    clear_error();
    refused("a new shape past the process's seconds", rows(h, op, x, out), "CURED_CUSTOM_PROCESS_COMPILE_SECONDS",
            counts());
    clear_error();
    refused("a new op past the process's seconds",
            cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 2", "a + b", "0", &op2),
            "CURED_CUSTOM_PROCESS_COMPILE_SECONDS", counts());
    ck_assert_ptr_null(op2);
    expect(cured_custom_reduce_async(h, op, x, NULL, 1000, out, NULL), CURED_SUCCESS, "the loaded kernel still runs");
    /* A malformed limit is the default (600 s), which this process has not spent. */
    ck_assert_int_eq(setenv("CURED_CUSTOM_PROCESS_COMPILE_SECONDS", "-1", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUSTOM_MAX_SHAPES", "lots", 1), 0);
    expect(rows(h, op, x, out), CURED_SUCCESS, "rows under the defaults");
    expect(cured_custom_destroy(op), CURED_SUCCESS, "destroy the op");
    expect(cured_destroy(h), CURED_SUCCESS, "destroy");
}
END_TEST

int main(void)
{
    if (!fake_driver_found())
        return 77;
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("budget");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_max_shapes);
    tcase_add_test(tc, test_seconds);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
