/*
 * GPU behaviour beyond plain sums: streams and handles used concurrently,
 * graph capture, the per-stream workspaces, bad arguments that only a GPU
 * can detect (host pointers), handle creation and the chosen architecture.
 *
 * Exits 77 (SKIP) without a GPU. The seed is printed with any failure;
 * CURED_TEST_SEED=<seed> reproduces the data.
 */
#include "gpu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An input of n random elements on the device, with its exact sum. */
static CUdeviceptr random_input(struct rng *r, size_t n, int64_t *exact)
{
    uint32_t *h = malloc((n ? n : 1) * sizeof *h);
    ck_assert_ptr_nonnull(h);
    fill_random(r, h, n);
    *exact = ref_sum(h, n);
    CUdeviceptr d = dev_alloc(n * 4);
    upload(d, h, n * 4);
    free(h);
    return d;
}

/* Read one 8-byte device slot after everything queued has finished. */
static void read_slot(CUdeviceptr slot, unsigned char got[8])
{
    download(got, slot, 8);
}

/* An int32 -> int64 SUM on s inside a global-mode capture whose graph is
 * dropped unlaunched: the call's status, and cured_last_error() in message. */
static cured_status captured_sum(cured_handle h, cured_algorithm algo, CUdeviceptr in, size_t n, CUdeviceptr out,
                                 CUstream s, char message[512])
{
    CU_OK(D->StreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    cured_status st = cured_reduce_async(h, CURED_OP_SUM, algo, DP(in), CURED_TYPE_INT32, n, DP(out),
                                         CURED_TYPE_INT64, s);
    snprintf(message, 512, "%s", cured_last_error());
    CUgraph g = NULL;
    CUresult end = D->StreamEndCapture(s, &g);
    if (g != NULL)
        D->GraphDestroy(g);
    CU_OK(end);
    return st;
}

/*
 * Interleaved asynchronous calls on two streams: _i == 0 with two handles
 * (one per stream), _i == 1 with one handle on both streams. Each call has
 * its own input and output slot; the algorithms with workspace state
 * (tickets, accumulators, partials) are all in the mix.
 */
START_TEST(test_interleaved_streams)
{
    enum { CALLS = 32 };
    struct rng r;
    rng_init(&r, "streams", _i);
    cured_handle h2 = NULL;
    if (_i == 0)
        CURED_OK(cured_create(0, &h2));
    else
        h2 = H;
    CUstream s[2] = {stream_new(), stream_new()};
    CUdeviceptr in[CALLS];
    int64_t exact[CALLS];
    size_t n[CALLS];
    for (int i = 0; i < CALLS; i++) {
        n[i] = ((size_t)1 << 22) + (size_t)(i * 37) + (size_t)(i % 4);
        in[i] = random_input(&r, n[i], &exact[i]);
    }
    CUdeviceptr out = dev_alloc(CALLS * 8);
    poison(out, CALLS * 8);
    char what[160];
    for (int i = 0; i < CALLS; i++) {
        cured_handle h = i % 2 ? h2 : H;
        cured_algorithm algo = (cured_algorithm)((i / 2) % CURED_ALGO_COUNT);
        cured_type type = (i / 4) % 2 ? CURED_TYPE_INT32 : CURED_TYPE_INT64;
        snprintf(what, sizeof what, "call %d: %s n=%zu -> %s on stream %d", i, algo_name(algo), n[i],
                 type_name(type), i % 2);
        expect_status(cured_reduce_async(h, CURED_OP_SUM, algo, DP(in[i]), CURED_TYPE_INT32, n[i],
                                         DP(out + (size_t)i * 8), type, s[i % 2]),
                      CURED_SUCCESS, what);
    }
    CU_OK(D->StreamSynchronize(s[0]));
    CU_OK(D->StreamSynchronize(s[1]));
    unsigned char got[CALLS * 8];
    download(got, out, sizeof got);
    for (int i = 0; i < CALLS; i++) {
        cured_algorithm algo = (cured_algorithm)((i / 2) % CURED_ALGO_COUNT);
        cured_type type = (i / 4) % 2 ? CURED_TYPE_INT32 : CURED_TYPE_INT64;
        snprintf(what, sizeof what, "call %d: %s n=%zu -> %s on stream %d (%s)", i, algo_name(algo),
                 n[i], type_name(type), i % 2, _i == 0 ? "two handles" : "one handle");
        check_result(got + i * 8, type, exact[i], what);
    }
    if (_i == 0)
        CURED_OK(cured_destroy(h2));
}
END_TEST

/*
 * A handle serves more streams than its first workspace chunk (16): a 17th
 * stream seen first inside a graph capture is refused (its workspace cannot
 * be allocated while capturing) and nothing is written; outside capture it
 * gets a workspace, and all 17 streams give correct results.
 */
START_TEST(test_many_streams)
{
    enum { NS = CR_SLOTS_PER_CHUNK + 1 };
    struct rng r;
    rng_init(&r, "many", 0);
    cured_handle h = NULL;
    CURED_OK(cured_create(0, &h));
    int64_t exact;
    const size_t n = ((size_t)1 << 18) + 11;
    CUdeviceptr in = random_input(&r, n, &exact);
    CUdeviceptr out = dev_alloc(NS * 8);
    poison(out, NS * 8);
    CUstream s[NS];
    for (int i = 0; i < NS; i++)
        s[i] = stream_new();
    for (int i = 0; i < NS - 1; i++)
        CURED_OK(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_SINGLE_PASS_TICKET, DP(in),
                                    CURED_TYPE_INT32, n, DP(out + (size_t)i * 8), CURED_TYPE_INT64, s[i]));

    char message[512];
    cured_status st = captured_sum(h, CURED_ALGO_SINGLE_PASS_TICKET, in, n, out + (NS - 1) * 8, s[NS - 1], message);
    expect_status(st, CURED_ERROR_NOT_SUPPORTED, "first call on a 17th stream during capture");
    ck_assert_msg(strstr(message, "captur") != NULL, "the message does not mention capture: %s", message);
    unsigned char got[8];
    read_slot(out + (NS - 1) * 8, got);
    ck_assert_msg(memcmp(got, "\xa5\xa5\xa5\xa5\xa5\xa5\xa5\xa5", 8) == 0,
                  "the refused call wrote its output");

    CURED_OK(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_SINGLE_PASS_TICKET, DP(in),
                                CURED_TYPE_INT32, n, DP(out + (NS - 1) * 8), CURED_TYPE_INT64, s[NS - 1]));
    for (int i = 0; i < NS; i++)
        CU_OK(D->StreamSynchronize(s[i]));
    unsigned char all[NS * 8];
    download(all, out, sizeof all);
    char what[64];
    for (int i = 0; i < NS; i++) {
        snprintf(what, sizeof what, "stream %d of %d", i, NS);
        check_result(all + i * 8, CURED_TYPE_INT64, exact, what);
    }
    CURED_OK(cured_destroy(h));
}
END_TEST

/*
 * A stream's first call made during capture (a free workspace is taken, as
 * cured.h allows): the graph is dropped unlaunched, then a plain call on
 * that stream must find its workspace's ticket at zero. Workspaces are
 * zeroed when made; a memset at a slot's first use would only have been
 * recorded into the graph.
 */
START_TEST(test_first_call_captured)
{
    struct rng r;
    rng_init(&r, "first-captured", 0);
    cured_handle h = NULL;
    CURED_OK(cured_create(0, &h));
    int64_t exact;
    const size_t n = ((size_t)1 << 20) + 3;
    CUdeviceptr in = random_input(&r, n, &exact);
    CUdeviceptr out = dev_alloc(8);
    CUstream warm = stream_new(), s = stream_new();
    /* compiles outside capture */
    CURED_OK(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, n, DP(out),
                                CURED_TYPE_INT64, warm));
    CU_OK(D->StreamSynchronize(warm));
    poison(out, 8);

    char message[512];
    cured_status st = captured_sum(h, CURED_ALGO_AUTO, in, n, out, s, message);
    ck_assert_msg(st == CURED_SUCCESS, "first call on a stream during capture: %s: %s", cured_status_string(st),
                  message);

    CURED_OK(cured_reduce_async(h, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, n, DP(out),
                                CURED_TYPE_INT64, s));
    CU_OK(D->StreamSynchronize(s));
    unsigned char got[8];
    read_slot(out, got);
    check_result(got, CURED_TYPE_INT64, exact, "a call on a stream whose first call was captured, not launched");
    CURED_OK(cured_destroy(h));
}
END_TEST

/*
 * Graph capture, for each algorithm: one call outside capture (compiles,
 * assigns the stream's workspace), one captured call, then the instantiated
 * graph is launched on new data, twice on the same data, and on new data again.
 */
START_TEST(test_graph_capture)
{
    const cured_algorithm algo = (cured_algorithm)_i;
    const cured_type type = _i % 2 ? CURED_TYPE_INT32 : CURED_TYPE_INT64;
    const size_t n = ((size_t)1 << 20) + 7 + (size_t)_i;
    char what[160];
    struct rng r;
    rng_init(&r, "graph", _i);
    uint32_t *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    fill_random(&r, h, n);
    int64_t exact = ref_sum(h, n);
    CUdeviceptr in = dev_alloc(n * 4), out = dev_alloc(8);
    upload(in, h, n * 4);
    poison(out, 8);
    CUstream s = stream_new();

    snprintf(what, sizeof what, "%s -> %s before capture", algo_name(algo), type_name(type));
    expect_status(cured_reduce_async(H, CURED_OP_SUM, algo, DP(in), CURED_TYPE_INT32, n, DP(out), type, s),
                  CURED_SUCCESS, what);
    CU_OK(D->StreamSynchronize(s));
    unsigned char got[8];
    read_slot(out, got);
    check_result(got, type, exact, what);

    CU_OK(D->StreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    cured_status st = cured_reduce_async(H, CURED_OP_SUM, algo, DP(in), CURED_TYPE_INT32, n, DP(out),
                                         type, s);
    char message[512];
    snprintf(message, sizeof message, "%s", cured_last_error());
    CUgraph g = NULL;
    CUresult end = D->StreamEndCapture(s, &g);
    if (st != CURED_SUCCESS && g != NULL)
        D->GraphDestroy(g);
    ck_assert_msg(st == CURED_SUCCESS, "%s during capture: %s: %s", algo_name(algo),
                  cured_status_string(st), message);
    CU_OK(end);
    ck_assert_ptr_nonnull(g);
    CUgraphExec exec = NULL;
    CUresult inst = D->GraphInstantiate(&exec, g, 0);
    D->GraphDestroy(g);
    CU_OK(inst);

    /* Launch four times (round 2 on unchanged data); check after destroying the graph. */
    enum { ROUNDS = 4 };
    int64_t want[ROUNDS];
    unsigned char results[ROUNDS][8];
    CUresult lr = CUDA_SUCCESS;
    int rounds = 0;
    for (; rounds < ROUNDS && lr == CUDA_SUCCESS; rounds++) {
        if (rounds != 2) {
            fill_random(&r, h, n);
            exact = ref_sum(h, n);
            upload(in, h, n * 4);
        }
        want[rounds] = exact;
        poison(out, 8);
        lr = D->GraphLaunch(exec, s);
        if (lr == CUDA_SUCCESS)
            lr = D->StreamSynchronize(s);
        if (lr == CUDA_SUCCESS)
            read_slot(out, results[rounds]);
    }
    D->GraphExecDestroy(exec);
    CU_OK(lr);
    for (int i = 0; i < ROUNDS; i++) {
        snprintf(what, sizeof what, "%s -> %s graph launch %d", algo_name(algo), type_name(type), i);
        check_result(results[i], type, want[i], what);
    }
    free(h);
}
END_TEST

/* Inputs that only the device can reject leave the output untouched. */
START_TEST(test_bad_pointers)
{
    enum { N = 4096 };
    struct rng r;
    rng_init(&r, "bad", 0);
    int64_t exact;
    CUdeviceptr in = random_input(&r, N, &exact);
    CUdeviceptr out = dev_alloc(16);
    poison(out, 16);
    CUstream s = stream_new();
    uint32_t *host_in = malloc(N * sizeof *host_in);
    ck_assert_ptr_nonnull(host_in);
    fill_random(&r, host_in, N);
    uint64_t host_out = POISON64, sync_out = POISON64;

    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, host_in, CURED_TYPE_INT32, N,
                                     DP(out), CURED_TYPE_INT64, s),
                  CURED_ERROR_NOT_DEVICE_POINTER, "malloc'd host input");
    ck_assert_msg(strstr(cured_last_error(), "input") != NULL, "message: %s", cured_last_error());
    expect_status(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, host_in, CURED_TYPE_INT32, N,
                               &sync_out, CURED_TYPE_INT64, s),
                  CURED_ERROR_NOT_DEVICE_POINTER, "malloc'd host input (sync)");
    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, N,
                                     &host_out, CURED_TYPE_INT64, s),
                  CURED_ERROR_NOT_DEVICE_POINTER, "host output");
    ck_assert_msg(strstr(cured_last_error(), "output") != NULL, "message: %s", cured_last_error());
    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in + 1), CURED_TYPE_INT32,
                                     N - 1, DP(out), CURED_TYPE_INT64, s),
                  CURED_ERROR_MISALIGNED, "input misaligned by one byte");
    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, N,
                                     DP(out + 4), CURED_TYPE_INT64, s),
                  CURED_ERROR_MISALIGNED, "int64 output misaligned by 4 bytes");
    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32,
                                     SIZE_MAX, DP(out), CURED_TYPE_INT64, s),
                  CURED_ERROR_SIZE_OVERFLOW, "n = SIZE_MAX");
    expect_status(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32,
                               SIZE_MAX / 4 + 1, &sync_out, CURED_TYPE_INT64, s),
                  CURED_ERROR_SIZE_OVERFLOW, "n = SIZE_MAX / 4 + 1 (sync)");
    expect_status(cured_reduce_async(H, CURED_OP_SUM, (cured_algorithm)CURED_ALGO_COUNT, DP(in),
                                     CURED_TYPE_INT32, N, DP(out), CURED_TYPE_INT64, s),
                  CURED_ERROR_INVALID_ENUM, "unknown algorithm");
    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32,
                                     N, DP(out), CURED_TYPE_FLOAT32, s),
                  CURED_ERROR_TYPE_MISMATCH, "int32 sum with a float32 result");
    expect_status(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_TWO_PASS_SHUFFLE, DP(in),
                                     CURED_TYPE_INT64, N / 2, DP(out), CURED_TYPE_INT64, s),
                  CURED_ERROR_NOT_SUPPORTED, "int64 input with a Handbook algorithm");
    expect_status(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, N, NULL,
                               CURED_TYPE_INT64, s),
                  CURED_ERROR_NULL_POINTER, "NULL host output");
    CU_OK(D->StreamSynchronize(s));
    CU_OK(D->CtxSynchronize());
    ck_assert_msg(host_out == POISON64, "the host output was written: 0x%llx",
                  (unsigned long long)host_out);
    ck_assert_msg(sync_out == POISON64, "the sync output was written: 0x%llx",
                  (unsigned long long)sync_out);
    unsigned char got[16];
    download(got, out, 16);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(got[i] == POISON_BYTE, "a refused call wrote output byte %d (0x%02x)", i, got[i]);

    /* The handle still works after all the refusals. */
    CURED_OK(cured_reduce(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, N, &sync_out,
                          CURED_TYPE_INT64, s));
    check_result(&sync_out, CURED_TYPE_INT64, exact, "after the refused calls");
    free(host_in);
}
END_TEST

START_TEST(test_create_and_context)
{
    cured_handle h = (cured_handle)(uintptr_t)0x1;
    expect_status(cured_create(999, &h), CURED_ERROR_INVALID_DEVICE, "cured_create(999)");
    ck_assert_msg(h == NULL, "the handle was not set to NULL on failure");
    h = (cured_handle)(uintptr_t)0x1;
    expect_status(cured_create(-1, &h), CURED_ERROR_INVALID_DEVICE, "cured_create(-1)");
    ck_assert_ptr_null(h);
    h = (cured_handle)(uintptr_t)0x1;
    expect_status(cured_create_for_context(NULL, &h), CURED_ERROR_NULL_POINTER,
                  "cured_create_for_context(NULL)");
    ck_assert_ptr_null(h);

    int version = -1, dv = -2;
    CURED_OK(cured_driver_version(&version));
    CU_OK(D->DriverGetVersion(&dv));
    ck_assert_int_eq(version, dv);
    ck_assert_int_ge(version, 12000);

    /* A handle for an explicit context (the primary one) reduces correctly. */
    CUcontext primary = NULL;
    CU_OK(D->DevicePrimaryCtxRetain(&primary, DEV));
    cured_status st = cured_create_for_context(primary, &h);
    if (st != CURED_SUCCESS)
        D->DevicePrimaryCtxRelease(DEV);
    expect_status(st, CURED_SUCCESS, "cured_create_for_context(primary context)");
    struct rng r;
    rng_init(&r, "context", 0);
    int64_t exact;
    const size_t n = 1000003;
    CUdeviceptr in = random_input(&r, n, &exact);
    uint64_t got = POISON64;
    st = cured_reduce(h, CURED_OP_SUM, CURED_ALGO_AUTO, DP(in), CURED_TYPE_INT32, n, &got,
                      CURED_TYPE_INT64, NULL);

    /* With no context current, cured makes its own current and restores "none". */
    CUcontext popped = NULL, cur = (CUcontext)(uintptr_t)0x1;
    CU_OK(D->CtxPopCurrent(&popped));
    uint64_t got2 = POISON64;
    cured_status st2 = cured_reduce(h, CURED_OP_SUM, CURED_ALGO_TWO_PASS_SHUFFLE, DP(in),
                                    CURED_TYPE_INT32, n, &got2, CURED_TYPE_INT64, NULL);
    CUresult rc = D->CtxGetCurrent(&cur);
    cured_status destroyed = cured_destroy(h);
    D->DevicePrimaryCtxRelease(DEV);
    if (popped != NULL)
        CU_OK(D->CtxPushCurrent(popped));
    expect_status(st, CURED_SUCCESS, "reduce on a cured_create_for_context handle");
    check_result(&got, CURED_TYPE_INT64, exact, "reduce on a cured_create_for_context handle");
    expect_status(st2, CURED_SUCCESS, "reduce with no current context");
    check_result(&got2, CURED_TYPE_INT64, exact, "reduce with no current context");
    CU_OK(rc);
    ck_assert_msg(cur == NULL, "cured left a context current (%p)", (void *)cur);
    ck_assert_msg(popped == CTX, "test bug: the primary context was not current");
    expect_status(destroyed, CURED_SUCCESS, "cured_destroy");
}
END_TEST

START_TEST(test_arch)
{
    int major = 0, minor = 0;
    CU_OK(D->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, DEV));
    CU_OK(D->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, DEV));
    const int cc = major * 10 + minor;
    int sm = -1, ptx = -1;
    CURED_OK(cured_get_arch(H, &sm, &ptx));
    CURED_OK(cured_get_arch(H, NULL, NULL));

    const char *override = getenv("CURED_ARCH");
    if (override != NULL && *override != '\0') {
        int want = 0, want_ptx = strncmp(override, "compute_", 8) == 0;
        ck_assert_msg(sscanf(override + (want_ptx ? 8 : 3), "%d", &want) == 1,
                      "test bug: cannot read CURED_ARCH=%s", override);
        ck_assert_msg(sm == want && ptx == want_ptx, "CURED_ARCH=%s but the handle uses %s_%d",
                      override, ptx ? "compute" : "sm", sm);
        return;
    }
    int archs[64], count = 0;
    CURED_OK(cured_supported_archs(archs, 64, &count));
    int listed = 0;
    for (int i = 0; i < count && i < 64; i++)
        listed |= archs[i] == cc;
    if (listed) {
        ck_assert_msg(sm == cc && ptx == 0, "compute capability %d: the handle uses %s_%d", cc,
                      ptx ? "compute" : "sm", sm);
    } else {
        /* NVRTC cannot target this device exactly: an older cubin of its major or PTX. */
        ck_assert_msg(sm < cc && (ptx || sm / 10 == cc / 10), "compute capability %d: %s_%d", cc,
                      ptx ? "compute" : "sm", sm);
    }
}
END_TEST

/* cured.h: INT64 and UINT64 sums, sums of squares and products whose true value does not fit wrap modulo
 * 2^64 (two's complement), whatever the grouping, as NumPy's int64 and uint64: against the host's unsigned
 * arithmetic, over enough elements for many blocks. */
START_TEST(test_wide_integer_wrap)
{
    struct rng r;
    rng_init(&r, "wide-wrap", 0);
    const size_t n = ((size_t)1 << 20) + 5;
    uint64_t *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    uint64_t sum = 0, squares = 0, product = 1;
    for (size_t i = 0; i < n; i++) {
        /* large magnitudes of both signs; odd, so that the product does not become 0 */
        h[i] = ((uint64_t)rng_u32(&r) << 32 | rng_u32(&r)) | 1u;
        sum += h[i];
        squares += h[i] * h[i];
        product *= h[i];
    }
    CUdeviceptr d = dev_alloc(n * sizeof *h);
    upload(d, h, n * sizeof *h);
    static const struct {
        cured_op op;
        cured_type t;
    } cases[] = {{CURED_OP_SUM, CURED_TYPE_INT64},         {CURED_OP_SUM, CURED_TYPE_UINT64},
                 {CURED_OP_SUM_SQUARES, CURED_TYPE_INT64}, {CURED_OP_SUM_SQUARES, CURED_TYPE_UINT64},
                 {CURED_OP_PRODUCT, CURED_TYPE_INT64},     {CURED_OP_PRODUCT, CURED_TYPE_UINT64}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const uint64_t want = cases[k].op == CURED_OP_SUM ? sum : cases[k].op == CURED_OP_PRODUCT ? product : squares;
        uint64_t got = POISON64;
        CURED_OK(cured_reduce(H, cases[k].op, CURED_ALGO_AUTO, DP(d), cases[k].t, n, &got, cases[k].t, NULL));
        ck_assert_msg(got == want, "%s of %zu %s: 0x%016llx, want 0x%016llx (mod 2^64) (seed %llu)",
                      cured_op_name(cases[k].op), n, cured_type_name(cases[k].t), (unsigned long long)got,
                      (unsigned long long)want, test_seed);
    }
    dev_free(d);
    free(h);
}
END_TEST

/*
 * cured_prepare: the kernel is compiled and loaded by the call itself, so
 * the first reduction of that specialization compiles nothing and looks in
 * no cache, and can be captured; bad arguments are refused.
 */
START_TEST(test_prepare)
{
    CURED_OK(cured_prepare(H, CURED_OP_COUNT_NONZERO, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_INT64));
    cured_stats before, after;
    const size_t n = 1000;
    float h[1000];
    int64_t want = 0;
    for (size_t i = 0; i < n; i++) {
        h[i] = (i % 3 == 0) ? 0.0f : (i % 7 == 0) ? -0.0f : (float)i;
        want += h[i] != 0.0f;
    }
    CUdeviceptr d = dev_alloc(n * 4), out = dev_alloc(8);
    upload(d, h, n * 4);
    CUstream s;
    CU_OK(D->StreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CURED_OK(cured_reduce_async(H, CURED_OP_SUM, CURED_ALGO_AUTO, DP(d), CURED_TYPE_FLOAT32, 0, DP(out),
                                CURED_TYPE_FLOAT32, s)); /* the stream's workspace, outside capture */
    CU_OK(D->StreamSynchronize(s));
    CURED_OK(cured_get_stats(&before));
    CU_OK(D->StreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    cured_status st = cured_reduce_async(H, CURED_OP_COUNT_NONZERO, CURED_ALGO_AUTO, DP(d), CURED_TYPE_FLOAT32, n,
                                         DP(out), CURED_TYPE_INT64, s);
    CUgraph g;
    CU_OK(D->StreamEndCapture(s, &g));
    ck_assert_msg(st == CURED_SUCCESS, "captured call after cured_prepare: %s", cured_last_error());
    CUgraphExec ge;
    CU_OK(D->GraphInstantiate(&ge, g, 0));
    CU_OK(D->GraphLaunch(ge, s));
    CU_OK(D->StreamSynchronize(s));
    CURED_OK(cured_get_stats(&after));
    ck_assert_uint_eq(after.compiles, before.compiles);
    ck_assert_uint_eq(after.disk_hits, before.disk_hits);
    ck_assert_uint_eq(after.memory_hits, before.memory_hits);
    int64_t got = -1;
    download(&got, out, 8);
    ck_assert_int_eq(got, want);
    CU_OK(D->GraphExecDestroy(ge));
    CU_OK(D->GraphDestroy(g));
    CU_OK(D->StreamDestroy(s));

    ck_assert_int_eq(cured_prepare(NULL, CURED_OP_SUM, CURED_ALGO_AUTO, CURED_TYPE_INT32, CURED_TYPE_INT64),
                     CURED_ERROR_NULL_HANDLE);
    ck_assert_int_eq(cured_prepare(H, CURED_OP_AND, CURED_ALGO_AUTO, CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32),
                     CURED_ERROR_TYPE_MISMATCH);
    ck_assert_int_eq(cured_prepare(H, CURED_OP_MIN, CURED_ALGO_TWO_PASS_SHARED, CURED_TYPE_INT32, CURED_TYPE_INT32),
                     CURED_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(cured_prepare(H, (cured_op)99, CURED_ALGO_AUTO, CURED_TYPE_INT32, CURED_TYPE_INT32),
                     CURED_ERROR_INVALID_ENUM);
}
END_TEST

static Suite *misc_suite(void)
{
    Suite *s = suite_create("gpu-misc");
    TCase *streams = tcase_create("streams");
    tcase_add_checked_fixture(streams, gpu_setup, gpu_teardown);
    tcase_set_timeout(streams, 600);
    tcase_add_loop_test(streams, test_interleaved_streams, 0, 2);
    tcase_add_test(streams, test_many_streams);
    tcase_add_test(streams, test_first_call_captured);
    tcase_add_loop_test(streams, test_graph_capture, 0, CURED_ALGO_COUNT);
    suite_add_tcase(s, streams);

    TCase *api = tcase_create("api");
    tcase_add_checked_fixture(api, gpu_setup, gpu_teardown);
    tcase_set_timeout(api, 600);
    tcase_add_test(api, test_bad_pointers);
    tcase_add_test(api, test_create_and_context);
    tcase_add_test(api, test_arch);
    tcase_add_test(api, test_prepare);
    tcase_add_test(api, test_wide_integer_wrap);
    suite_add_tcase(s, api);
    return s;
}

int main(void)
{
    return gpu_main("test-gpu-misc", misc_suite());
}
