/*
 * The device-side checks off the GPU, against tests/fakecuda.c in its
 * one-device mode (FAKECUDA_DEVICE=1): inputs and outputs that run past
 * their allocations are refused with CURED_ERROR_OUT_OF_RANGE before
 * anything is launched (also views along axes and padded output layouts) (adjacent allocations count as mapped, memory the
 * driver cannot size is not checked); cured_dot names y as y; a driver
 * lacking entry points the library never calls still serves cured_create;
 * a user op used again after a primary context reset loads its module anew
 * (needs NVRTC, else skipped). Issue 36: memory mapped through the virtual
 * memory management API (fake_reserve / fake_map: a reservation whose chunks
 * are the mappings) for every kind of range; the limit of a segmented call's
 * offsets (cr_segment_limit); outputs overlapping what a call reads
 * (CURED_ERROR_OVERLAP), views past CURED_MAX_ELEMENTS, uniform segments
 * with none; cured_check_stream's error word. Each test runs in its own process (Check's
 * fork mode), which loads the driver at its first call.
 */
#include "api_test.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fake_driver;
static void *(*fake_alloc)(size_t bytes, int sized, size_t gap_after);
static int (*fake_launches)(void);
static int (*fake_loads)(void);
static void (*fake_reset)(void);
static void *(*fake_reserve)(size_t bytes);
static int (*fake_map)(void *at, size_t bytes);

/* The fake driver with a device, loaded now; NVRTC missing unless asked for. */
static cured_handle fake_handle(int nvrtc)
{
    ck_assert_int_eq(setenv("FAKECUDA_DEVICE", "1", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", fake_driver, 1), 0);
    if (!nvrtc)
        no_nvrtc();
    cured_handle h = NULL;
    cured_status st = cured_create(0, &h);
    ck_assert_msg(st == CURED_SUCCESS, "cured_create with the fake device: %s", cured_last_error());
    void *lib = dlopen(fake_driver, RTLD_NOW | RTLD_NOLOAD); /* the copy the library loaded */
    ck_assert_ptr_nonnull(lib);
    *(void **)&fake_alloc = dlsym(lib, "fake_alloc");
    *(void **)&fake_launches = dlsym(lib, "fake_launches");
    *(void **)&fake_loads = dlsym(lib, "fake_loads");
    *(void **)&fake_reset = dlsym(lib, "fake_reset");
    *(void **)&fake_reserve = dlsym(lib, "fake_reserve");
    *(void **)&fake_map = dlsym(lib, "fake_map");
    ck_assert_msg(fake_alloc && fake_launches && fake_loads && fake_reset && fake_reserve && fake_map,
                  "the fake driver lacks its test hooks");
    return h;
}

static void expect(cured_status got, cured_status want, const char *what)
{
    ck_assert_msg(got == want, "%s: got %s, want %s: %s", what, cured_status_string(got), cured_status_string(want),
                  cured_last_error());
}

#define POISON 0x5a5a5a5a5a5a5a5aull

/* 1024 int32 allocated (with unmapped memory after them), n = 2^28: refused, nothing launched. */
START_TEST(test_input_out_of_range)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(1024 * 4, 1, 4096);
    uint64_t *out = fake_alloc(256, 1, 4096);
    *out = POISON;
    uint64_t host = POISON;
    clear_error();
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, (size_t)1 << 28, out,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_OUT_OF_RANGE, "n = 2^28 over 1024 elements");
    assert_message_contains("the message", "the input");
    assert_message_contains("the message", "+ 1073741824)"); /* the requested range */
    assert_message_contains("the message", "+ 4096)");       /* the allocation */
    expect(cured_reduce(h, CURED_OP_MAX, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1025, &host, CURED_TYPE_INT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "one element too many, synchronous");
    ck_assert_msg(*out == POISON && host == POISON, "a refused call wrote its output");
    ck_assert_int_eq(fake_launches(), 0);
    /* In range: the checks pass (the call then stops for want of NVRTC). */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 1024, out, CURED_TYPE_INT64,
                              NULL),
           CURED_ERROR_NO_NVRTC, "all 1024 elements");
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x + 1000, CURED_TYPE_INT32, 24, out,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_NO_NVRTC, "the last 24 elements");
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x + 1000, CURED_TYPE_INT32, 25, out,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_OUT_OF_RANGE, "the last 24 elements and one more");
    /* Plain host memory is still NOT_DEVICE_POINTER. */
    int32_t on_host[4] = {0};
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, on_host, CURED_TYPE_INT32, 4, out, CURED_TYPE_INT64,
                              NULL),
           CURED_ERROR_NOT_DEVICE_POINTER, "host input");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

START_TEST(test_output_out_of_range)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(4096, 1, 0);
    unsigned char *slot = fake_alloc(256, 1, 4096); /* unmapped memory after it */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 16, slot + 248,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_NO_NVRTC, "an int64 result in the last 8 bytes");
    expect(cured_reduce_async(h, CURED_OP_ARGMAX, CURED_ALGO_AUTO, x, CURED_TYPE_INT32, 16, slot + 248,
                              CURED_TYPE_INT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "a 16-byte ARG result in the last 8 bytes");
    assert_message_contains("the message", "the output");
    expect(cured_reduce_async(h, CURED_OP_MINMAX, CURED_ALGO_AUTO, x, CURED_TYPE_INT64, 16, slot + 248,
                              CURED_TYPE_INT64, NULL),
           CURED_ERROR_OUT_OF_RANGE, "a 16-byte MINMAX result in the last 8 bytes");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Views along axes: the last element a layout reaches, and the last result of a
 * (padded) output layout, are checked against the allocations; stride-0
 * views reach one element however large they are. Nothing is launched. */
START_TEST(test_axes_out_of_range)
{
    cured_handle h = fake_handle(0);
    int32_t *x = fake_alloc(1024 * 4, 1, 4096);
    int64_t *out = fake_alloc(256, 1, 4096);
    out[0] = (int64_t)POISON;
    const cured_layout fits = {2, {32, 32}, {32, 1}}, over = {2, {32, 33}, {32, 1}};
    const cured_layout wide = {2, {(int64_t)1 << 20, (int64_t)1 << 20}, {0, 0}};
    const cured_layout padded = {1, {32}, {2}};
    const struct {
        const char *what;
        const cured_layout *in, *ol;
        uint32_t axes;
        const void *o;
        cured_status want;
    } cases[] = {
        {"32 rows of 32", &fits, NULL, 2u, out, CURED_ERROR_NO_NVRTC},
        {"rows of 33: one element past", &over, NULL, 2u, out, CURED_ERROR_OUT_OF_RANGE},
        {"32 results one past", &fits, NULL, 2u, out + 1, CURED_ERROR_OUT_OF_RANGE},
        {"32 results two apart", &fits, &padded, 2u, out, CURED_ERROR_OUT_OF_RANGE},
        {"2^40 elements of stride 0", &wide, NULL, 3u, out, CURED_ERROR_NO_NVRTC},
        {"the columns of rows of 33", &over, NULL, 1u, out, CURED_ERROR_OUT_OF_RANGE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        clear_error();
        expect(cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_INT32, cases[k].in, cases[k].axes,
                                       (void *)cases[k].o, CURED_TYPE_INT64, cases[k].ol, NULL),
               cases[k].want, cases[k].what);
        if (cases[k].want == CURED_ERROR_OUT_OF_RANGE)
            assert_message_contains(cases[k].what, cases[k].o == out && cases[k].ol == NULL ? "the input" : "the output");
        expect(cured_reduce_axes_stats_async(h, CURED_OP_VAR, x, CURED_TYPE_INT32, cases[k].in, cases[k].axes, 1.0,
                                             (void *)cases[k].o, CURED_TYPE_FLOAT64, cases[k].ol, NULL),
               cases[k].want, cases[k].what);
    }
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_MAX, x, CURED_TYPE_INT32, 32, 33, out, CURED_TYPE_INT32,
                                                NULL),
           CURED_ERROR_OUT_OF_RANGE, "32 segments of 33 over 1024 elements");
    ck_assert_msg(out[0] == (int64_t)POISON, "a refused call wrote its output");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* DOT through the one-input calls, a non-statistic through the statistics' calls:
 * INVALID_VALUE naming the right call, nothing launched or written. */
START_TEST(test_wrong_entry_points)
{
    cured_handle h = fake_handle(0);
    float *x = fake_alloc(4096, 1, 0);
    double *out = fake_alloc(256, 1, 0);
    out[0] = -1.5;
    double host = -1.5;
    const cured_layout l = {1, {16}, {1}};
    expect(cured_reduce_async(h, CURED_OP_DOT, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 16, out, CURED_TYPE_FLOAT64,
                              NULL),
           CURED_ERROR_INVALID_VALUE, "DOT through cured_reduce_async");
    assert_message_contains("DOT async", "cured_dot_async()");
    expect(cured_reduce(h, CURED_OP_DOT, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 16, &host, CURED_TYPE_FLOAT64, NULL),
           CURED_ERROR_INVALID_VALUE, "DOT through cured_reduce");
    assert_message_contains("DOT sync", "cured_dot()");
    expect(cured_reduce_axes_async(h, CURED_OP_DOT, x, CURED_TYPE_FLOAT32, &l, 1u, out, CURED_TYPE_FLOAT64, NULL,
                                   NULL),
           CURED_ERROR_INVALID_VALUE, "DOT along axes");
    expect(cured_reduce_stats_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 16, 0.0, out, CURED_TYPE_FLOAT64, NULL),
           CURED_ERROR_INVALID_VALUE, "SUM through cured_reduce_stats_async");
    expect(cured_reduce_axes_stats_async(h, CURED_OP_ARGMAX, x, CURED_TYPE_FLOAT32, &l, 1u, 0.0, out,
                                         CURED_TYPE_FLOAT32, NULL, NULL),
           CURED_ERROR_INVALID_VALUE, "ARGMAX through cured_reduce_axes_stats_async");
    ck_assert_msg(out[0] == -1.5 && host == -1.5, "a refused call wrote its output");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Allocations mapped back to back (a virtual reservation's chunks) are one range; a gap ends it. */
START_TEST(test_adjacent_and_unsized)
{
    cured_handle h = fake_handle(0);
    uint64_t *out = fake_alloc(256, 1, 4096);
    float *a = fake_alloc(4096, 1, 0);
    fake_alloc(4096, 1, 0);
    fake_alloc(4096, 1, 4096); /* then a gap */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, a, CURED_TYPE_FLOAT32, 3 * 1024, out,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "three adjacent allocations");
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, a, CURED_TYPE_FLOAT32, 3 * 1024 + 1, out,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "three adjacent allocations and one element");
    /* Memory the driver reports no range for is not checked. */
    float *unsized = fake_alloc(4096, 0, 4096);
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, unsized, CURED_TYPE_FLOAT32, (size_t)1 << 28, out,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "memory the driver cannot size");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* cured_dot's y: its own messages, and its own range; a user op's inputs too. */
START_TEST(test_dot_and_custom)
{
    cured_handle h = fake_handle(0);
    float *x = fake_alloc(4096, 1, 0), *y = fake_alloc(1024, 1, 4096);
    float *out = fake_alloc(256, 1, 4096);
    clear_error();
    expect(cured_dot_async(h, x, NULL, CURED_TYPE_FLOAT32, 16, out, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NULL_POINTER, "a NULL y");
    assert_message_contains("a NULL y", "the second input (y) is NULL");
    expect(cured_dot_async(h, x, (char *)y + 2, CURED_TYPE_FLOAT32, 16, out, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_MISALIGNED, "a misaligned y");
    assert_message_contains("a misaligned y", "the second input (y)");
    expect(cured_dot_async(h, x, y, CURED_TYPE_FLOAT32, 1024, out, CURED_TYPE_FLOAT32, NULL), CURED_ERROR_OUT_OF_RANGE,
           "y shorter than x");
    assert_message_contains("y shorter than x", "the second input (y) [");
    expect(cured_dot_async(h, x, y, CURED_TYPE_FLOAT32, 256, out, CURED_TYPE_FLOAT32, NULL), CURED_ERROR_NO_NVRTC,
           "both long enough");
    cured_custom op = NULL;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 2, "x*y", "a+b", "0", &op), 0);
    expect(cured_custom_reduce_async(h, op, x, y, 1024, out, NULL), CURED_ERROR_OUT_OF_RANGE, "a user op's short y");
    expect(cured_custom_reduce_async(h, op, y, x, (size_t)1 << 30, out, NULL), CURED_ERROR_OUT_OF_RANGE,
           "a user op's short x");
    ck_assert_int_eq(fake_launches(), 0);
    cured_custom_destroy(op);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Memory of the virtual memory management API (issue 36): the driver reports a chunk's whole
 * reservation as its allocation range, so the mapping decides. A range one element past one
 * chunk, or past two chunks mapped back to back, is refused for every kind of call that reads or
 * writes a range; a pointer into the reservation's unmapped part too. Nothing is launched. */
START_TEST(test_vmm_ranges)
{
    cured_handle h = fake_handle(0);
    int64_t *out = fake_alloc(4096, 1, 4096);
    for (int i = 0; i < 512; i++)
        out[i] = (int64_t)POISON;
    char *two = fake_reserve(65536), *one = fake_reserve(65536);
    ck_assert_ptr_nonnull(two);
    ck_assert_ptr_nonnull(one);
    ck_assert_int_eq(fake_map(two, 16384), 0);
    ck_assert_int_eq(fake_map(two + 16384, 16384), 0); /* back to back, then 32 KiB reserved, not mapped */
    ck_assert_int_eq(fake_map(one, 16384), 0);
    const float *f2 = (const float *)two, *f1 = (const float *)one;
    const cured_status fits = CURED_ERROR_NO_NVRTC; /* the checks pass; no compiler here */
    const struct {
        const char *what;
        const float *x;
        size_t n;
        cured_status want;
    } whole[] = {
        {"two chunks, all of them", f2, 8192, fits},
        {"two chunks and one element", f2, 8193, CURED_ERROR_OUT_OF_RANGE},
        {"the second chunk", f2 + 4096, 4096, fits},
        {"the second chunk and one element", f2 + 4096, 4097, CURED_ERROR_OUT_OF_RANGE},
        {"one chunk", f1, 4096, fits},
        {"one chunk and one element", f1, 4097, CURED_ERROR_OUT_OF_RANGE},
        {"the reservation's unmapped part", f2 + 8192, 1, CURED_ERROR_OUT_OF_RANGE},
    };
    for (size_t k = 0; k < sizeof whole / sizeof *whole; k++) {
        clear_error();
        expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, whole[k].x, CURED_TYPE_FLOAT32, whole[k].n, out,
                                  CURED_TYPE_FLOAT32, NULL),
               whole[k].want, whole[k].what);
        if (whole[k].want == CURED_ERROR_OUT_OF_RANGE)
            assert_message_contains(whole[k].what, "the input");
    }
    /* axis inputs: two rows of 4096 or of 4097 (stride 4096) over the two chunks */
    const cured_layout rows = {2, {2, 4096}, {4096, 1}}, rows_over = {2, {2, 4097}, {4096, 1}};
    expect(cured_reduce_axes_async(h, CURED_OP_SUM, f2, CURED_TYPE_FLOAT32, &rows, 2u, out, CURED_TYPE_FLOAT32, NULL,
                                   NULL),
           fits, "rows over two chunks");
    expect(cured_reduce_axes_async(h, CURED_OP_SUM, f2, CURED_TYPE_FLOAT32, &rows_over, 2u, out, CURED_TYPE_FLOAT32,
                                   NULL, NULL),
           CURED_ERROR_OUT_OF_RANGE, "rows one element past two chunks");
    /* output layouts: 32 int64 results in the chunk's last 256 bytes, dense and padded */
    int64_t *o1 = (int64_t *)(one + 16384 - 256);
    const cured_layout m = {2, {32, 4}, {4, 1}}, padded = {1, {32}, {2}};
    expect(cured_reduce_axes_async(h, CURED_OP_SUM, f2, CURED_TYPE_FLOAT32, &m, 2u, o1, CURED_TYPE_FLOAT64, NULL,
                                   NULL),
           fits, "dense results at the chunk's end");
    expect(cured_reduce_axes_async(h, CURED_OP_SUM, f2, CURED_TYPE_FLOAT32, &m, 2u, o1, CURED_TYPE_FLOAT64, &padded,
                                   NULL),
           CURED_ERROR_OUT_OF_RANGE, "padded results past the chunk's end");
    assert_message_contains("padded results", "the output");
    /* segment offsets: 8 or 9 int32 entries from the chunk's last 32 bytes */
    const int32_t *off = (const int32_t *)(one + 16384 - 32);
    expect(cured_segmented_reduce_async(h, CURED_OP_SUM, f2, CURED_TYPE_FLOAT32, 8, off, off, CURED_TYPE_INT32, out,
                                        CURED_TYPE_FLOAT32, NULL),
           fits, "8 offsets at the chunk's end");
    expect(cured_segmented_reduce_async(h, CURED_OP_SUM, f2, CURED_TYPE_FLOAT32, 9, off, off, CURED_TYPE_INT32, out,
                                        CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "9 offsets past the chunk's end");
    assert_message_contains("9 offsets", "offsets");
    /* uniform segments over the two chunks */
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_MAX, f2, CURED_TYPE_FLOAT32, 8, 1024, out,
                                                CURED_TYPE_FLOAT32, NULL),
           fits, "8 segments of 1024 over two chunks");
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_MAX, f2, CURED_TYPE_FLOAT32, 8, 1025, out,
                                                CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_OUT_OF_RANGE, "8 segments of 1025 over two chunks");
    /* a user op along axes */
    cured_custom op = NULL;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "x", "a+b", "0", &op), 0);
    expect(cured_custom_reduce_axes_async(h, op, f2, &rows_over, 2u, out, NULL, NULL), CURED_ERROR_OUT_OF_RANGE,
           "a user op's rows one element past two chunks");
    expect(cured_custom_reduce_axes_async(h, op, f1, &rows, 2u, out, NULL, NULL), CURED_ERROR_OUT_OF_RANGE,
           "a user op's rows past one chunk");
    expect(cured_custom_reduce_axes_async(h, op, f2, &rows, 2u, out, NULL, NULL), fits, "a user op's rows");
    cured_custom_destroy(op);
    for (int i = 0; i < 512; i++)
        ck_assert_msg(out[i] == (int64_t)POISON, "a refused call wrote out[%d]", i);
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* The elements a segmented call's offsets may index (cr_segment_limit): the mapped memory
 * from the input on (adjacent allocations and back-to-back chunks included), ended at the output
 * when it lies after the input; unsized memory gives no limit (int32 offsets: 2^31). */
START_TEST(test_segment_limit)
{
    cured_handle h = fake_handle(0);
    char *before = fake_alloc(4096, 1, 4096);
    float *x = fake_alloc(4096, 1, 4096); /* 1024 floats, then a gap */
    float *a = fake_alloc(4096, 1, 0);
    fake_alloc(4096, 1, 0);
    fake_alloc(4096, 1, 4096); /* three adjacent allocations, then a gap */
    float *unsized = fake_alloc(4096, 0, 4096);
    char *two = fake_reserve(65536);
    ck_assert_int_eq(fake_map(two, 16384), 0);
    ck_assert_int_eq(fake_map(two + 16384, 16384), 0);
    const struct {
        const char *what;
        const void *in, *out;
        int offsets_32;
        uint64_t want;
        int sized; /* the limit is measured memory (exact_quick_segments reads lines up to it) */
    } cases[] = {
        {"one allocation, the output elsewhere", x, before, 0, 1024, 1},
        {"from element 1000", x + 1000, before, 0, 24, 1},
        {"the output 100 elements in", x, x + 100, 0, 100, 1},
        {"the output 2 bytes in", x, (char *)x + 2, 0, 0, 1},
        {"the output in the next allocation", a, (char *)a + 8192 + 40, 0, 2048 + 10, 1},
        {"three adjacent allocations", a, before, 0, 3072, 1},
        {"two chunks back to back", two, before, 0, 8192, 1},
        {"from the second chunk", two + 16384, before, 0, 4096, 1},
        {"unsized memory", unsized, before, 0, (uint64_t)INT64_MAX, 0},
        {"unsized memory, int32 offsets", unsized, before, 1, (uint64_t)1 << 31, 0},
        {"unsized memory, the output 100 elements in", unsized, unsized + 100, 0, 100, 0},
        {"int32 offsets, sized memory", x, before, 1, 1024, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct cr_geometry g;
        memset(&g, 0, sizeof g);
        g.in_bytes = 4;
        g.offsets_32 = cases[k].offsets_32;
        expect(cr_segment_limit(h, cases[k].in, cases[k].out, &g), CURED_SUCCESS, cases[k].what);
        ck_assert_msg(g.limit == cases[k].want && g.limit_sized == cases[k].sized,
                      "%s: limit %llu (sized %d), want %llu (%d)", cases[k].what, (unsigned long long)g.limit,
                      g.limit_sized, (unsigned long long)cases[k].want, cases[k].sized);
    }
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Outputs over what a call reads (issue 36): CURED_ERROR_OVERLAP with its message, nothing
 * written or launched; neighbours that do not overlap pass the checks. Views past
 * CURED_MAX_ELEMENTS are SIZE_OVERFLOW; uniform segments with no segments succeed. */
START_TEST(test_overlaps)
{
    cured_handle h = fake_handle(0);
    float *x = fake_alloc(4096, 1, 0), *y = fake_alloc(4096, 1, 4096);
    int32_t *off = fake_alloc(4096, 1, 4096);
    for (int i = 0; i < 1024; i++)
        x[i] = y[i] = 7.0f, off[i] = i;
    /* each refusal: its status and a message naming what overlaps */
#define OVERLAPS(what, needle, call)                                                                    \
    do {                                                                                                \
        clear_error();                                                                                  \
        expect((call), CURED_ERROR_OVERLAP, what);                                                      \
        assert_message_contains(what, needle);                                                          \
    } while (0)
    OVERLAPS("whole: out == in", "overlaps the input [",
             cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 1024, x, CURED_TYPE_FLOAT32,
                                NULL));
    OVERLAPS("whole: out in the input's last element", "overlaps the input [",
             cured_reduce_async(h, CURED_OP_MAX, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 1024, x + 1023,
                                CURED_TYPE_FLOAT32, NULL));
    OVERLAPS("dot: out inside y", "overlaps the second input (y)",
             cured_dot_async(h, x, y, CURED_TYPE_FLOAT32, 1024, y + 8, CURED_TYPE_FLOAT32, NULL));
    OVERLAPS("axes: out == in", "overlaps the input",
             cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, &(cured_layout){2, {32, 32}, {32, 1}},
                                     2u, x, CURED_TYPE_FLOAT32, NULL, NULL));
    OVERLAPS("axes, nothing reduced: out == in", "overlaps the input",
             cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, &(cured_layout){1, {1024}, {1}}, 0u, x,
                                     CURED_TYPE_FLOAT32, NULL, NULL));
    OVERLAPS("axes stats: out inside the view", "overlaps the input",
             cured_reduce_axes_stats_async(h, CURED_OP_VAR, x, CURED_TYPE_FLOAT32,
                                           &(cured_layout){2, {32, 16}, {32, 1}}, 2u, 0.0, x + 500, CURED_TYPE_FLOAT32,
                                           NULL, NULL));
    OVERLAPS("uniform segments: out inside the input", "overlaps the input",
             cured_uniform_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 32, 32, x + 64,
                                                  CURED_TYPE_FLOAT32, NULL));
    OVERLAPS("segments: out == begin", "overlaps the begin offsets",
             cured_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 8, off, off + 100, CURED_TYPE_INT32,
                                          off, CURED_TYPE_FLOAT32, NULL));
    OVERLAPS("segments: out over end", "overlaps the end offsets",
             cured_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 8, off, off + 100, CURED_TYPE_INT32,
                                          off + 104, CURED_TYPE_FLOAT32, NULL));
    OVERLAPS("segments: out == in", "overlaps the input's first element",
             cured_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 8, off, off + 1, CURED_TYPE_INT32, x,
                                          CURED_TYPE_FLOAT32, NULL));
    OVERLAPS("segment stats: out over begin", "overlaps the begin offsets",
             cured_segmented_reduce_stats_async(h, CURED_OP_MEAN, x, CURED_TYPE_FLOAT32, 8, off, off + 1,
                                                CURED_TYPE_INT32, 0.0, off + 4, CURED_TYPE_FLOAT32, NULL));
    cured_custom op = NULL;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "x", "a+b", "0", &op), 0);
    OVERLAPS("user op: out inside x", "overlaps the input [", cured_custom_reduce_async(h, op, x, NULL, 1024, x + 5, NULL));
    OVERLAPS("user op along axes: out == in", "overlaps the input",
             cured_custom_reduce_axes_async(h, op, x, &(cured_layout){2, {32, 32}, {32, 1}}, 2u, x, NULL, NULL));
    OVERLAPS("user op over segments: out == end", "overlaps the end offsets",
             cured_custom_segmented_reduce_async(h, op, x, 8, off, off + 100, CURED_TYPE_INT32, off + 100, NULL));
    cured_custom_destroy(op);
#undef OVERLAPS
    for (int i = 0; i < 1024; i++)
        ck_assert_msg(x[i] == 7.0f && y[i] == 7.0f && off[i] == i, "a refused call wrote element %d", i);
    /* neighbours: the checks pass (and the call stops for want of NVRTC) */
    expect(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, x, CURED_TYPE_FLOAT32, 1023, x + 1023,
                              CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "whole: out right after the input");
    expect(cured_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 8, off, off + 1, CURED_TYPE_INT32,
                                        x + 512, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "segments: out after the input's first element (the limit ends there)");
    expect(cured_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 8, off, off + 1, CURED_TYPE_INT32,
                                        off + 9, CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "segments: out right after the offsets");
    /* a broadcast view of 3 * 2^62 elements over 4 bytes, and one just past CURED_MAX_ELEMENTS */
    const cured_layout bcast = {2, {(int64_t)1 << 62, 3}, {0, 0}};
    const cured_layout past = {2, {CURED_MAX_ELEMENTS / 4 + 1, 4}, {0, 0}};
    clear_error();
    expect(cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, &bcast, 3u, y, CURED_TYPE_FLOAT32, NULL,
                                   NULL),
           CURED_ERROR_SIZE_OVERFLOW, "{2^62, 3} of stride 0");
    assert_message_contains("{2^62, 3}", "CURED_MAX_ELEMENTS");
    expect(cured_reduce_axes_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, &bcast, 2u, y, CURED_TYPE_FLOAT32, NULL,
                                   NULL),
           CURED_ERROR_SIZE_OVERFLOW, "{2^62, 3} of stride 0, 2^62 results");
    expect(cured_reduce_axes_async(h, CURED_OP_MAX, x, CURED_TYPE_FLOAT32, &past, 3u, y, CURED_TYPE_FLOAT32, NULL,
                                   NULL),
           CURED_ERROR_SIZE_OVERFLOW, "2^53 + 4 elements of stride 0");
    /* no segments: success whatever their size, nothing launched */
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_SUM, x, CURED_TYPE_FLOAT32, 0, SIZE_MAX, y,
                                                CURED_TYPE_FLOAT32, NULL),
           CURED_SUCCESS, "no segments of SIZE_MAX elements");
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_ARGMAX, NULL, CURED_TYPE_FLOAT32, 0, SIZE_MAX, NULL,
                                                CURED_TYPE_FLOAT32, NULL),
           CURED_SUCCESS, "no segments of SIZE_MAX elements, NULL pointers");
    /* uniform segments of size 0 need no input */
    expect(cured_uniform_segmented_reduce_async(h, CURED_OP_SUM, NULL, CURED_TYPE_FLOAT32, 8, 0, y,
                                                CURED_TYPE_FLOAT32, NULL),
           CURED_ERROR_NO_NVRTC, "8 segments of size 0, NULL input");
    for (int i = 0; i < 1024; i++)
        ck_assert_msg(x[i] == 7.0f && y[i] == 7.0f, "a refused call wrote element %d", i);
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* cured_check_stream: the stream slot's error word, as a segment kernel leaves it (the
 * complement of the lowest bad index), gives CURED_ERROR_BAD_SEGMENT naming it, once. */
START_TEST(test_check_stream)
{
    clear_error();
    expect(cured_check_stream(NULL, NULL), CURED_ERROR_NULL_HANDLE, "a NULL handle");
    cured_handle h = fake_handle(0);
    expect(cured_check_stream(h, NULL), CURED_SUCCESS, "a stream with no calls");
    CUdeviceptr ws = 0;
    expect(cr_slot_for(h, NULL, &ws), CURED_SUCCESS, "the stream's slot");
    uint64_t *word = (uint64_t *)(uintptr_t)(ws + CR_WS_ERROR);
    ck_assert_uint_eq(*word, 0);
    *word = ~(uint64_t)5;
    clear_error();
    expect(cured_check_stream(h, NULL), CURED_ERROR_BAD_SEGMENT, "a bad segment 5");
    assert_message_contains("bad segment", "segment 5");
    ck_assert_uint_eq(*word, 0);
    expect(cured_check_stream(h, NULL), CURED_SUCCESS, "checked once");
    /* another stream's word is its own */
    *word = ~(uint64_t)0;
    expect(cured_check_stream(h, (struct CUstream_st *)(uintptr_t)0x5), CURED_SUCCESS, "another stream");
    CUdeviceptr other = 0;
    ck_assert_msg(!cr_slot_find(h, (CUstream)(uintptr_t)0x5, &other), "checking a stream made it a workspace slot");
    expect(cured_check_stream(h, NULL), CURED_ERROR_BAD_SEGMENT, "segment 0");
    ck_assert_int_eq(fake_launches(), 0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

/* Entry points cured never calls may be missing from the driver (issue 11); those it calls may not. */
START_TEST(test_missing_entry_points)
{
    ck_assert_int_eq(setenv("FAKECUDA_MISSING", "cuMemAllocHost,cuEventElapsedTime,cuGraphLaunch,cuMemcpyHtoD,"
                                                "cuCtxSynchronize,cuDeviceTotalMem",
                            1),
                     0);
    cured_handle h = fake_handle(0);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
}
END_TEST

START_TEST(test_missing_needed_entry_point)
{
    ck_assert_int_eq(setenv("FAKECUDA_MISSING", "cuLaunchKernel", 1), 0);
    ck_assert_int_eq(setenv("FAKECUDA_DEVICE", "1", 1), 0);
    ck_assert_int_eq(setenv("CURED_CUDA_DRIVER_LIBRARY", fake_driver, 1), 0);
    cured_handle h = NULL;
    clear_error();
    ck_assert_int_eq(cured_create(0, &h), CURED_ERROR_NO_DRIVER);
    assert_message_contains("cured_create", "does not provide cuLaunchKernel");
}
END_TEST

/* A user op after a primary context reset: the context keeps its handle but not its id, and the
 * op loads its module again instead of launching the old one (issue 13, item 11). */
START_TEST(test_custom_after_reset)
{
    if (cured_nvrtc_version(NULL, NULL) != CURED_SUCCESS) {
        printf("test_custom_after_reset: NVRTC is not available (%s): not tested\n", cured_last_error());
        return;
    }
    cured_handle h = fake_handle(1);
    struct CUctx_st *ctx = (struct CUctx_st *)h->ctx;
    cured_custom op = NULL;
    expect(cured_custom_create(h, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 2", "a+b", "0", &op), CURED_SUCCESS,
           "cured_custom_create");
    int32_t *x = fake_alloc(4096, 1, 0);
    int64_t got = 0;
    expect(cured_custom_reduce(h, op, x, NULL, 1024, &got, NULL), CURED_SUCCESS, "before the reset");
    ck_assert_int_eq(fake_loads(), 1);
    ck_assert_int_eq(fake_launches(), 1);
    ck_assert_int_eq(cured_destroy(h), CURED_SUCCESS);
    fake_reset();
    cured_handle h2 = NULL;
    expect(cured_create(0, &h2), CURED_SUCCESS, "cured_create after the reset");
    ck_assert_msg((struct CUctx_st *)h2->ctx == ctx, "test bug: the fake driver gave the context a new handle");
    x = fake_alloc(4096, 1, 0);
    expect(cured_custom_reduce(h2, op, x, NULL, 1024, &got, NULL), CURED_SUCCESS, "after the reset");
    ck_assert_msg(fake_loads() == 2, "the op's module was not loaded again in the new context (%d loads)",
                  fake_loads());
    ck_assert_int_eq(fake_launches(), 2);
    ck_assert_int_eq(cured_custom_destroy(op), CURED_SUCCESS);
    ck_assert_int_eq(cured_destroy(h2), CURED_SUCCESS);
}
END_TEST

int main(void)
{
    fake_driver = getenv("CURED_TEST_FAKE_DRIVER");
    if (fake_driver == NULL || access(fake_driver, R_OK) != 0) {
        printf("SKIP: the fake driver library %s was not built (static-only build?)\n",
               fake_driver ? fake_driver : "(CURED_TEST_FAKE_DRIVER unset)");
        return 77;
    }
    Suite *s = suite_create("fakedev");
    TCase *tc = tcase_create("fakedev");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_input_out_of_range);
    tcase_add_test(tc, test_output_out_of_range);
    tcase_add_test(tc, test_axes_out_of_range);
    tcase_add_test(tc, test_wrong_entry_points);
    tcase_add_test(tc, test_adjacent_and_unsized);
    tcase_add_test(tc, test_dot_and_custom);
    tcase_add_test(tc, test_vmm_ranges);
    tcase_add_test(tc, test_segment_limit);
    tcase_add_test(tc, test_overlaps);
    tcase_add_test(tc, test_check_stream);
    tcase_add_test(tc, test_missing_entry_points);
    tcase_add_test(tc, test_missing_needed_entry_point);
    tcase_add_test(tc, test_custom_after_reset);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
