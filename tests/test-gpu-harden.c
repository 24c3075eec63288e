/*
 * Issue 13 on the GPU. Out-of-range inputs and outputs (1024 int32
 * allocated, n = 2^28) are refused with CURED_ERROR_OUT_OF_RANGE, nothing is
 * launched (the output stays poisoned) and the context survives (a later
 * reduction is right); before, the kernel faulted and every later CUDA call
 * of the process failed. A user-defined op survives a reset of the primary
 * context: after cuDevicePrimaryCtxReset the context may keep its handle
 * value, and the op must load its module again rather than launch the old
 * one. The reset runs in a new process (this program again, with --reset),
 * since it destroys everything of the suite's own context.
 *
 * Issue 36: wild segment offsets (negative, past the input, INT32_MAX /
 * INT64_MAX, end < begin, int32 and int64, short, long and listed-long
 * segments, random mixes) give the bad segments the empty value, the good
 * ones their sums, nothing else written, and cured_check_stream() returns
 * CURED_ERROR_BAD_SEGMENT once; outputs over the input or the offsets are
 * refused (CURED_ERROR_OVERLAP); a {2^62, 3} broadcast view is refused;
 * memory mapped through cuMemCreate + cuMemMap (two chunks back to back in
 * a larger reservation): a range one element past them is refused for each
 * kind of call, and segment offsets past them are bad segments. After each,
 * the context still works. Exits 77 (SKIP) without a GPU.
 */
#include "gpu_util.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SMALL 1024
#define HUGE_N ((size_t)1 << 28)

/* The context still works: a plain sum of SMALL known values is right. */
static void expect_context_alive(CUdeviceptr x, const uint32_t *h, const char *what)
{
    CU_OK(D->CtxSynchronize());
    int64_t got = 0;
    CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(x), CURED_TYPE_INT32, SMALL, &got, CURED_TYPE_INT64,
                          NULL));
    ck_assert_msg(got == ref_sum(h, SMALL), "%s: the sum after the refusal is %lld, want %lld", what,
                  (long long)got, (long long)ref_sum(h, SMALL));
}

START_TEST(test_input_out_of_range)
{
    uint32_t h[SMALL];
    struct rng r;
    rng_init(&r, "out-of-range", 0);
    fill_random(&r, h, SMALL);
    CUdeviceptr x = dev_alloc(SMALL * 4), out = dev_alloc(16);
    upload(x, h, sizeof h);
    poison(out, 16);
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(x),
                                                              CURED_TYPE_INT32, HUGE_N, DP(out), CURED_TYPE_INT64,
                                                              NULL));
    ck_assert_msg(strstr(cured_last_error(), "the input") && strstr(cured_last_error(), "+ 1073741824)"), "%s",
                  cured_last_error());
    unsigned char got[16];
    download(got, out, sizeof got);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "the refused call wrote its output (byte %d)", i);
    expect_context_alive(x, h, "input");

    cured_arg_result arg;
    memset(&arg, POISON_BYTE, sizeof arg);
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce(H, CURED_OP_ARGMAX, CURED_ALGO_AUTO, DP(x), CURED_TYPE_INT32,
                                                        HUGE_N, &arg, CURED_TYPE_INT32, NULL));
    ck_assert_msg((uint64_t)arg.index == POISON64, "the refused synchronous call wrote its output");
    uint64_t host = POISON64;
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_dot(H, DP(x), DP(x), CURED_TYPE_INT32, HUGE_N, &host,
                                                     CURED_TYPE_INT64, NULL));
    cured_custom op = NULL;
    CURED_OK(cured_custom_create(H, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a+b", "0", &op));
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_custom_reduce(H, op, DP(x), NULL, HUGE_N, &host, NULL));
    CURED_OK(cured_custom_destroy(op));
    expect_context_alive(x, h, "dot and user op");
}
END_TEST

START_TEST(test_second_input_out_of_range)
{
    uint32_t h[SMALL];
    struct rng r;
    rng_init(&r, "out-of-range", 1);
    fill_random(&r, h, SMALL);
    CUdeviceptr x = dev_alloc(HUGE_N / 64 * 4), y = dev_alloc(SMALL * 4), out = dev_alloc(16);
    upload(x, h, sizeof h);
    poison(out, 16);
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_dot_async(H, DP(x), DP(y), CURED_TYPE_INT32, HUGE_N / 64, DP(out),
                                                           CURED_TYPE_INT64, NULL));
    ck_assert_msg(strstr(cured_last_error(), "the second input (y)") != NULL, "%s", cured_last_error());
    unsigned char got[16];
    download(got, out, sizeof got);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "the refused call wrote its output (byte %d)", i);
    expect_context_alive(x, h, "second input");
}
END_TEST

/* ---- issue 36: segment offsets checked in the kernel ---------------------------------------- */

/* One segmented call's case: nseg (begin, end) pairs over `n` int32 elements (element i = i % 97 - 48,
 * n a multiple of 4) at the start of an allocation whose output follows the input (so the segments
 * may read exactly n elements: the output ends the limit), results SUM int32 -> int64 and MEAN ->
 * float64, each call with its own copy of the input. */
struct seg_case {
    const char *what;
    size_t n, nseg;
    const int64_t *begin, *end;
};

static int32_t seg_value(int64_t i) { return (int32_t)(i % 97) - 48; }

/* Is segment s bad for a limit of n (either offset outside [0, n], as cured.h says)? */
static int seg_is_bad(int64_t b, int64_t e, size_t n) { return b < 0 || e < 0 || (uint64_t)b > n || (uint64_t)e > n; }

static void run_seg_case(const struct seg_case *c, cured_type off_type)
{
    const size_t osize = off_type == CURED_TYPE_INT32 ? 4 : 8, guard = 256;
    /* [input n int32][pad to 16][SUM results][guard][MEAN results][guard]: one allocation */
    const size_t in_bytes = (c->n * 4 + 15) / 16 * 16, res_bytes = c->nseg * 8;
    /* one allocation per call, [input][results][guard]: each call's output ends its limit at n */
    CUdeviceptr buf = dev_alloc(in_bytes + res_bytes + guard), buf2 = dev_alloc(in_bytes + res_bytes + guard);
    CUdeviceptr offs = dev_alloc(2 * c->nseg * osize);
    const CUdeviceptr sums = buf + in_bytes, means = buf2 + in_bytes;
    int32_t *hin = malloc(c->n * 4 + 1);
    unsigned char *hoff = malloc(2 * c->nseg * osize + 1);
    ck_assert_ptr_nonnull(hin);
    ck_assert_ptr_nonnull(hoff);
    for (size_t i = 0; i < c->n; i++)
        hin[i] = seg_value((int64_t)i);
    for (size_t s = 0; s < c->nseg; s++) {
        if (osize == 4) {
            const int32_t b = (int32_t)c->begin[s], e = (int32_t)c->end[s];
            memcpy(hoff + s * 4, &b, 4);
            memcpy(hoff + (c->nseg + s) * 4, &e, 4);
        } else {
            memcpy(hoff + s * 8, &c->begin[s], 8);
            memcpy(hoff + (c->nseg + s) * 8, &c->end[s], 8);
        }
    }
    upload(buf, hin, c->n * 4);
    upload(buf2, hin, c->n * 4);
    upload(offs, hoff, 2 * c->nseg * osize);
    poison(sums, res_bytes + guard);
    poison(means, res_bytes + guard);
    const void *b = DP(offs), *e = DP(offs + c->nseg * osize);
    CURED_OK(cured_check_stream(H, NULL)); /* nothing left from earlier calls */
    CURED_OK(cured_segmented_reduce_async(H, CURED_OP_SUM, DP(buf), CURED_TYPE_INT32, c->nseg, b, e, off_type,
                                          DP(sums), CURED_TYPE_INT64, NULL));
    CURED_OK(cured_segmented_reduce_stats_async(H, CURED_OP_MEAN, DP(buf2), CURED_TYPE_INT32, c->nseg, b, e,
                                                off_type, 0.0, DP(means), CURED_TYPE_FLOAT64, NULL));
    /* the reads that cured_check_stream must find: the lowest bad index */
    size_t first_bad = SIZE_MAX;
    for (size_t s = 0; s < c->nseg && first_bad == SIZE_MAX; s++) {
        const int64_t bs = osize == 4 ? (int32_t)c->begin[s] : c->begin[s];
        const int64_t es = osize == 4 ? (int32_t)c->end[s] : c->end[s];
        if (seg_is_bad(bs, es, c->n))
            first_bad = s;
    }
    const cured_status checked = cured_check_stream(H, NULL);
    if (first_bad == SIZE_MAX) {
        ck_assert_msg(checked == CURED_SUCCESS, "%s (%s offsets): cured_check_stream: %s: %s (seed %llu)", c->what,
                      type_name(off_type), cured_status_string(checked), cured_last_error(), test_seed);
    } else {
        char needle[64];
        snprintf(needle, sizeof needle, "segment %zu)", first_bad);
        ck_assert_msg(checked == CURED_ERROR_BAD_SEGMENT && strstr(cured_last_error(), needle) != NULL,
                      "%s (%s offsets): cured_check_stream: %s: %s; want BAD_SEGMENT naming %s (seed %llu)", c->what,
                      type_name(off_type), cured_status_string(checked), cured_last_error(), needle, test_seed);
        CURED_OK(cured_check_stream(H, NULL)); /* reported once */
    }
    int64_t *got = malloc(res_bytes + guard + 1);
    double *mean = malloc(res_bytes + guard + 1);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(mean);
    download(got, sums, res_bytes + guard);
    download(mean, means, res_bytes + guard);
    for (size_t s = 0; s < c->nseg; s++) {
        const int64_t bs = osize == 4 ? (int32_t)c->begin[s] : c->begin[s];
        const int64_t es = osize == 4 ? (int32_t)c->end[s] : c->end[s];
        int64_t want = 0, count = 0;
        if (!seg_is_bad(bs, es, c->n))
            for (int64_t i = bs; i < es; i++)
                want += seg_value(i), count++;
        ck_assert_msg(got[s] == want, "%s (%s offsets): segment %zu [%lld, %lld): sum %lld, want %lld%s (seed %llu)",
                      c->what, type_name(off_type), s, (long long)bs, (long long)es, (long long)got[s],
                      (long long)want, seg_is_bad(bs, es, c->n) ? " (bad: the empty value)" : "", test_seed);
        const double wm = (double)want / (double)count;
        ck_assert_msg(count == 0 ? isnan(mean[s]) : fabs(mean[s] - wm) <= 1e-9 * (1 + fabs(wm)),
                      "%s (%s offsets): segment %zu [%lld, %lld): mean %.17g, want %.17g (seed %llu)", c->what,
                      type_name(off_type), s, (long long)bs, (long long)es, mean[s], count ? wm : NAN, test_seed);
    }
    const unsigned char *gs = (const unsigned char *)got + res_bytes, *gm = (const unsigned char *)mean + res_bytes;
    for (size_t i = 0; i < guard; i++)
        ck_assert_msg(gs[i] == POISON_BYTE && gm[i] == POISON_BYTE,
                      "%s: byte %zu past the results was written (seed %llu)", c->what, i, test_seed);
    for (int k = 0; k < 2; k++) {
        download(hin, k ? buf2 : buf, c->n * 4);
        for (size_t i = 0; i < c->n; i++)
            ck_assert_msg(hin[i] == seg_value((int64_t)i), "%s: input element %zu changed", c->what, i);
    }
    free(got);
    free(mean);
    free(hin);
    free(hoff);
}

static void expect_context_alive_now(const char *what)
{
    uint32_t h[SMALL];
    for (int i = 0; i < SMALL; i++)
        h[i] = (uint32_t)(i * 2654435761u);
    CUdeviceptr x = dev_alloc(SMALL * 4);
    upload(x, h, sizeof h);
    expect_context_alive(x, h, what);
}

START_TEST(test_wild_offsets)
{
    enum { N = 70000 }; /* over 16 KiB: a segment of all of it goes to reduce_long_segments */
    const int64_t I32 = INT32_MAX, I64 = INT64_MAX;
    static const int64_t b1[] = {0, -1, 10, 0, 5, 50, N - 1, 0, N, 0, -100, N + 1, 0, 7, 0, 100};
    static const int64_t e1[] = {10, 10, -5, N + 1, 5, 40, N, N, N, 0, -50, N + 1, 20000, 7, 1, 20100};
    struct seg_case c = {"short, long, empty, reversed and bad segments", N, 16, b1, e1};
    run_seg_case(&c, CURED_TYPE_INT32);
    run_seg_case(&c, CURED_TYPE_INT64);
    /* the extremes of each offset type */
    static const int64_t b2[] = {0, 0, 0, I32, 1, INT32_MIN, 3};
    static const int64_t e2[] = {I32, 16, I32, I32, 2, 0, 4};
    c = (struct seg_case){"INT32_MAX and INT32_MIN offsets", 1000, 7, b2, e2};
    run_seg_case(&c, CURED_TYPE_INT32);
    run_seg_case(&c, CURED_TYPE_INT64);
    static const int64_t b3[] = {0, 0, I64, INT64_MIN, (int64_t)1 << 40, 2, I64 - 5};
    static const int64_t e3[] = {I64, 16, I64, 0, ((int64_t)1 << 40) + 5, 9, I64};
    c = (struct seg_case){"INT64_MAX, INT64_MIN and 2^40 offsets", 1000, 7, b3, e3};
    run_seg_case(&c, CURED_TYPE_INT64);
    expect_context_alive_now("after wild offsets");
}
END_TEST

/* More listed-long segments than the list holds (each by a block, every_long_segment), and a random
 * mix of good and bad offsets; the data of the mix comes from the seed. */
START_TEST(test_wild_offsets_many)
{
    enum { N = 1 << 16, NSEG = 12000 };
    static int64_t b[NSEG], e[NSEG];
    for (int s = 0; s < NSEG; s++) { /* 6000 long ones over 16 KiB, 4600 good: past the list's CR_LONG_MAX (512) */
        b[s] = s % 2 ? s : 0;
        e[s] = s % 2 ? s + 3 : N - (s % 5);
        if (s % 7 == 3)
            b[s] = -1 - s; /* bad */
        if (s % 11 == 5)
            e[s] = N + s; /* bad: past the limit */
    }
    struct seg_case c = {"12000 segments, 6000 long, bad ones among them", N, NSEG, b, e};
    run_seg_case(&c, CURED_TYPE_INT64);
    run_seg_case(&c, CURED_TYPE_INT32);
    struct rng r;
    rng_init(&r, "wild-offsets", 0);
    for (int round = 0; round < 4; round++) {
        for (int s = 0; s < NSEG; s++) {
            const uint32_t k = rng_u32(&r) % 16;
            const int64_t x = rng_u32(&r) % (N + 64), y = rng_u32(&r) % (N + 64);
            b[s] = k == 0 ? -(int64_t)(rng_u32(&r) % 1000) - 1 : k == 1 ? INT32_MAX : x;
            e[s] = k == 2 ? INT64_MAX : k == 3 ? -5 : k < 8 ? x + rng_u32(&r) % 64 : y;
        }
        c.what = "random offsets";
        run_seg_case(&c, CURED_TYPE_INT64);
    }
    expect_context_alive_now("after many wild offsets");
}
END_TEST

/* Outputs over the input or the offsets, and a broadcast view of 3 * 2^62 elements over 4 bytes:
 * refused, nothing written, the context alive. */
START_TEST(test_overlap_and_huge_views)
{
    uint32_t h[SMALL];
    struct rng r;
    rng_init(&r, "overlap", 0);
    fill_random(&r, h, SMALL);
    /* x holds the largest output below (1024 int64 results), so that each is an overlap, not a range past x */
    CUdeviceptr x = dev_alloc(SMALL * 4 > 8192 ? SMALL * 4 : 8192), off = dev_alloc(64 * 8), out = dev_alloc(256);
    upload(x, h, sizeof h);
    int64_t hoff[64];
    for (int i = 0; i < 64; i++)
        hoff[i] = i * 16;
    upload(off, hoff, sizeof hoff);
    poison(out, 256);
    const cured_layout m = {2, {32, 32}, {32, 1}};
    CURED_EXPECT(CURED_ERROR_OVERLAP, cured_reduce_axes_async(H, CURED_OP_SUM, DP(x), CURED_TYPE_INT32, &m, 2u, DP(x),
                                                              CURED_TYPE_INT64, NULL, NULL));
    CURED_EXPECT(CURED_ERROR_OVERLAP, cured_reduce_axes_async(H, CURED_OP_SUM, DP(x), CURED_TYPE_INT32, &m, 0u, DP(x),
                                                              CURED_TYPE_INT64, NULL, NULL));
    CURED_EXPECT(CURED_ERROR_OVERLAP, cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(x), CURED_TYPE_INT32,
                                                         SMALL, DP(x + 64), CURED_TYPE_INT64, NULL));
    CURED_EXPECT(CURED_ERROR_OVERLAP, cured_dot_async(H, DP(out), DP(x), CURED_TYPE_INT32, 16, DP(x),
                                                      CURED_TYPE_INT64, NULL));
    CURED_EXPECT(CURED_ERROR_OVERLAP,
                 cured_segmented_reduce_async(H, CURED_OP_SUM, DP(x), CURED_TYPE_INT32, 32, DP(off), DP(off + 8),
                                              CURED_TYPE_INT64, DP(off + 16), CURED_TYPE_INT64, NULL));
    CURED_EXPECT(CURED_ERROR_OVERLAP,
                 cured_segmented_reduce_async(H, CURED_OP_SUM, DP(x), CURED_TYPE_INT32, 32, DP(off), DP(off + 8),
                                              CURED_TYPE_INT64, DP(x), CURED_TYPE_INT64, NULL));
    const cured_layout bcast = {2, {(int64_t)1 << 62, 3}, {0, 0}};
    CURED_EXPECT(CURED_ERROR_SIZE_OVERFLOW, cured_reduce_axes_async(H, CURED_OP_SUM, DP(x), CURED_TYPE_INT32, &bcast,
                                                                    3u, DP(out), CURED_TYPE_INT64, NULL, NULL));
    CURED_EXPECT(CURED_ERROR_SIZE_OVERFLOW, cured_reduce_axes_async(H, CURED_OP_SUM, DP(x), CURED_TYPE_INT32, &bcast,
                                                                    1u, DP(out), CURED_TYPE_INT64, NULL, NULL));
    unsigned char got[256];
    download(got, out, sizeof got);
    for (int i = 0; i < 256; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "a refused call wrote byte %d of its output", i);
    uint32_t back[SMALL];
    download(back, x, sizeof back);
    ck_assert_msg(memcmp(back, h, sizeof h) == 0, "a refused call wrote into its input");
    int64_t hoff_back[64];
    download(hoff_back, off, sizeof hoff_back);
    ck_assert_msg(memcmp(hoff_back, hoff, sizeof hoff) == 0, "a refused call wrote into the offsets");
    expect_context_alive(x, h, "overlaps and huge views");
}
END_TEST

/* ---- memory of cuMemCreate + cuMemMap ------------------------------------------------------- */

typedef CUresult (*pfn_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*pfn_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                               unsigned long long);
typedef CUresult (*pfn_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*pfn_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*pfn_gran)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
typedef CUresult (*pfn_unmap)(CUdeviceptr, size_t);
typedef CUresult (*pfn_release)(CUmemGenericAllocationHandle);
typedef CUresult (*pfn_free)(CUdeviceptr, size_t);

START_TEST(test_vmm_ranges)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL)
        lib = dlopen("libcuda.so.1", RTLD_NOW);
    ck_assert_msg(lib != NULL, "libcuda.so.1: %s", dlerror());
    pfn_reserve reserve;
    pfn_create create;
    pfn_map map;
    pfn_access access_;
    pfn_gran gran;
    pfn_unmap unmap;
    pfn_release release;
    pfn_free vfree;
    *(void **)&reserve = dlsym(lib, "cuMemAddressReserve");
    *(void **)&create = dlsym(lib, "cuMemCreate");
    *(void **)&map = dlsym(lib, "cuMemMap");
    *(void **)&access_ = dlsym(lib, "cuMemSetAccess");
    *(void **)&gran = dlsym(lib, "cuMemGetAllocationGranularity");
    *(void **)&unmap = dlsym(lib, "cuMemUnmap");
    *(void **)&release = dlsym(lib, "cuMemRelease");
    *(void **)&vfree = dlsym(lib, "cuMemAddressFree");
    ck_assert_msg(reserve && create && map && access_ && gran && unmap && release && vfree,
                  "the driver lacks the virtual memory management API");
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = DEV;
    size_t g = 0;
    CU_OK(gran(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    /* a reservation of 4 chunks; 2 mapped back to back at its start, the rest reserved only */
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle c0, c1;
    CU_OK(reserve(&va, 4 * g, 0, 0, 0));
    CU_OK(create(&c0, g, &prop, 0));
    CU_OK(create(&c1, g, &prop, 0));
    CU_OK(map(va, g, 0, c0, 0));
    CU_OK(map(va + g, g, 0, c1, 0));
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_OK(access_(va, 2 * g, &acc, 1));
    const size_t n = 2 * g / 4; /* int32 elements over both chunks */
    uint32_t *h = malloc(2 * g);
    ck_assert_ptr_nonnull(h);
    for (size_t i = 0; i < n; i++)
        h[i] = (uint32_t)(i % 1000);
    CU_OK(D->MemcpyHtoD(va, h, 2 * g));
    CUdeviceptr out = dev_alloc(4096);
    poison(out, 4096);
    int64_t sum = 0;
    CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(va), CURED_TYPE_INT32, n, &sum, CURED_TYPE_INT64, NULL));
    ck_assert_msg(sum == ref_sum(h, n), "the sum over two chunks is %lld, want %lld", (long long)sum,
                  (long long)ref_sum(h, n));
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(va),
                                                              CURED_TYPE_INT32, n + 1, DP(out), CURED_TYPE_INT64, NULL));
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(va + g),
                                                              CURED_TYPE_INT32, g / 4 + 1, DP(out), CURED_TYPE_INT64,
                                                              NULL));
    /* Reserved but not mapped: the driver may know the address (OUT_OF_RANGE) or not (NOT_DEVICE_POINTER). */
    const cured_status unmapped = cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(va + 2 * g),
                                                     CURED_TYPE_INT32, 1, DP(out), CURED_TYPE_INT64, NULL);
    ck_assert_msg(unmapped == CURED_ERROR_OUT_OF_RANGE || unmapped == CURED_ERROR_NOT_DEVICE_POINTER,
                  "a pointer into the reservation's unmapped part: %s: %s (seed %llu)", cured_status_string(unmapped),
                  cured_last_error(), test_seed);
    /* axis input: two rows of g / 4 + 1 elements, g / 4 apart */
    const cured_layout rows = {2, {2, (int64_t)(g / 4) + 1}, {(int64_t)(g / 4), 1}};
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce_axes_async(H, CURED_OP_SUM, DP(va), CURED_TYPE_INT32, &rows,
                                                                   2u, DP(out), CURED_TYPE_INT64, NULL, NULL));
    cured_custom op = NULL;
    CURED_OK(cured_custom_create(H, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x", "a+b", "0", &op));
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_custom_reduce_axes_async(H, op, DP(va), &rows, 2u, DP(out), NULL,
                                                                          NULL));
    CURED_OK(cured_custom_destroy(op));
    /* output layout: 16 int64 results at the end of the second chunk, dense, then two apart */
    const cured_layout m = {2, {16, 4}, {4, 1}}, padded = {1, {16}, {2}};
    const CUdeviceptr tail = va + 2 * g - 16 * 8;
    CURED_OK(cured_reduce_axes_async(H, CURED_OP_SUM, DP(va), CURED_TYPE_INT32, &m, 2u, DP(tail), CURED_TYPE_INT64,
                                     NULL, NULL));
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE, cured_reduce_axes_async(H, CURED_OP_SUM, DP(va), CURED_TYPE_INT32, &m, 2u,
                                                                   DP(tail), CURED_TYPE_INT64, &padded, NULL));
    /* offset arrays: 16 int64 entries at the end of the second chunk, then 17 */
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE,
                 cured_segmented_reduce_async(H, CURED_OP_SUM, DP(va), CURED_TYPE_INT32, 17, DP(tail), DP(tail),
                                              CURED_TYPE_INT64, DP(out), CURED_TYPE_INT64, NULL));
    /* uniform segments over both chunks, and one element more */
    CURED_EXPECT(CURED_ERROR_OUT_OF_RANGE,
                 cured_uniform_segmented_reduce_async(H, CURED_OP_MAX, DP(va), CURED_TYPE_INT32, 2, g / 4 + 1,
                                                      DP(out), CURED_TYPE_INT32, NULL));
    CU_OK(D->CtxSynchronize());
    unsigned char got[4096];
    download(got, out, sizeof got);
    for (size_t i = 0; i < sizeof got; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "a refused call wrote byte %zu of its output", i);
    /* segments whose offsets reach past the two chunks are bad (the limit is the mapped memory) */
    CUdeviceptr offs = dev_alloc(4 * 8), res = dev_alloc(2 * 8);
    const int64_t ho[4] = {0, (int64_t)n - 10, 10, (int64_t)n + 1}; /* begins, then ends */
    upload(offs, ho, sizeof ho);
    poison(res, 16);
    CURED_OK(cured_segmented_reduce_async(H, CURED_OP_SUM, DP(va), CURED_TYPE_INT32, 2, DP(offs), DP(offs + 16),
                                          CURED_TYPE_INT64, DP(res), CURED_TYPE_INT64, NULL));
    CURED_EXPECT(CURED_ERROR_BAD_SEGMENT, cured_check_stream(H, NULL));
    ck_assert_msg(strstr(cured_last_error(), "segment 1)") != NULL, "%s", cured_last_error());
    int64_t rs[2];
    download(rs, res, sizeof rs);
    ck_assert_msg(rs[0] == ref_sum(h, 10) && rs[1] == 0, "segments over VMM memory: %lld and %lld, want %lld and 0",
                  (long long)rs[0], (long long)rs[1], (long long)ref_sum(h, 10));
    CU_OK(D->CtxSynchronize());
    CU_OK(unmap(va, 2 * g));
    CU_OK(release(c0));
    CU_OK(release(c1));
    CU_OK(vfree(va, 4 * g));
    free(h);
    expect_context_alive_now("after VMM ranges");
}
END_TEST

/* --reset: a user op used before and after a primary context reset. Prints "ok SAME" or "error: ...". */
static int reset_child(void)
{
    const char *why = "?";
    const struct cr_driver_all *d = cr_driver_all_load(&why, NULL);
    if (d == NULL)
        return printf("error: %s\n", why), 1;
    enum { N = 4096 };
    static int32_t h[N];
    int64_t want = 0;
    for (int i = 0; i < N; i++)
        want += 2 * (h[i] = i % 7 - 3);
    CUdevice dev = 0;
    CUcontext ctx = NULL, again = NULL, popped;
    CUdeviceptr x = 0;
    cured_handle h1 = NULL, h2 = NULL;
    cured_custom op = NULL;
    int64_t before = 0, after = 0;
    CUresult r = d->DeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS && (r = d->DevicePrimaryCtxRetain(&ctx, dev)) == CUDA_SUCCESS &&
        (r = d->CtxPushCurrent(ctx)) == CUDA_SUCCESS && (r = d->MemAlloc(&x, sizeof h)) == CUDA_SUCCESS)
        r = d->MemcpyHtoD(x, h, sizeof h);
    if (r != CUDA_SUCCESS)
        return printf("error: before the reset: %s\n", cr_driver_error_text(r)), 1;
    cured_status st = cured_create(0, &h1);
    if (st == CURED_SUCCESS)
        st = cured_custom_create(h1, CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x * 2", "a+b", "0", &op);
    if (st == CURED_SUCCESS)
        st = cured_custom_reduce(h1, op, DP(x), NULL, N, &before, NULL);
    if (st == CURED_SUCCESS)
        st = cured_destroy(h1);
    if (st != CURED_SUCCESS)
        return printf("error: before the reset: %s: %s\n", cured_status_string(st), cured_last_error()), 1;
    d->CtxPopCurrent(&popped);
    if ((r = d->DevicePrimaryCtxReset(dev)) != CUDA_SUCCESS ||
        (r = d->DevicePrimaryCtxRetain(&again, dev)) != CUDA_SUCCESS || (r = d->CtxPushCurrent(again)) != CUDA_SUCCESS ||
        (r = d->MemAlloc(&x, sizeof h)) != CUDA_SUCCESS || (r = d->MemcpyHtoD(x, h, sizeof h)) != CUDA_SUCCESS)
        return printf("error: resetting the primary context: %s\n", cr_driver_error_text(r)), 1;
    st = cured_create(0, &h2);
    if (st == CURED_SUCCESS)
        st = cured_custom_reduce(h2, op, DP(x), NULL, N, &after, NULL);
    if (st != CURED_SUCCESS)
        return printf("error: the op after the reset: %s: %s\n", cured_status_string(st), cured_last_error()), 1;
    if (before != want || after != want)
        return printf("error: sums %lld before and %lld after the reset, want %lld\n", (long long)before,
                      (long long)after, (long long)want), 1;
    if ((st = cured_custom_destroy(op)) != CURED_SUCCESS || (st = cured_destroy(h2)) != CURED_SUCCESS)
        return printf("error: cleaning up: %s\n", cured_last_error()), 1;
    d->MemFree(x);
    d->CtxPopCurrent(&popped);
    d->DevicePrimaryCtxRelease(dev);
    d->DevicePrimaryCtxRelease(dev);
    printf("ok %s\n", again == ctx ? "same" : "new"); /* "same": the case a CUcontext key got wrong */
    return 0;
}

START_TEST(test_custom_after_primary_reset)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        if (dup2(fd[1], STDOUT_FILENO) < 0)
            _exit(126);
        close(fd[0]);
        close(fd[1]);
        execl("/proc/self/exe", "test-gpu-harden", "--reset", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char out[1024];
    ssize_t n, len = 0;
    while ((n = read(fd[0], out + len, sizeof out - 1 - (size_t)len)) > 0 || (n < 0 && errno == EINTR))
        len += n > 0 ? n : 0;
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strncmp(out, "ok ", 3) == 0,
                  "the reset process failed (status 0x%x): %s", (unsigned)status, out);
    printf("test_custom_after_primary_reset: the context's handle after the reset: %s", out + 3);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--reset") == 0)
        return reset_child();
    Suite *s = suite_create("gpu-harden");
    TCase *tc = tcase_create("harden");
    tcase_add_checked_fixture(tc, gpu_setup, gpu_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_input_out_of_range);
    tcase_add_test(tc, test_second_input_out_of_range);
    tcase_add_test(tc, test_wild_offsets);
    tcase_add_test(tc, test_wild_offsets_many);
    tcase_add_test(tc, test_overlap_and_huge_views);
    tcase_add_test(tc, test_vmm_ranges);
    tcase_add_test(tc, test_custom_after_primary_reset);
    suite_add_tcase(s, tc);
    return gpu_main("test-gpu-harden", s);
}
