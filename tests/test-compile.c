/*
 * NVRTC compilation without a GPU: the Table 12-1 kernels (int32 sums, every
 * algorithm) for every architecture NVRTC offers, every specialization for
 * sm_90 and every 3rd for the oldest offered architecture, PTX for the newest
 * (the Table 12-1 kernels and every 16th other specialization: PTX shares the
 * front end and NVVM of the cubins, whose arch-specific paths sm_90 covers;
 * CURED_TEST_FULL=1: every one; the exact sums' units, seconds each, only
 * for sm_90 but every 8th: precompile_sampled, precompile_oldest; make check
 * stays within 180 s on two cores),
 * user-defined operators (the documented examples, and compile errors that
 * point into the offending expression), compile-error reporting, the
 * toolkit-header search and the in-memory cache counters.
 *
 * Needs NVRTC (exit 77 without it) and, for the cooperative-groups kernels,
 * a CUDA toolkit's headers, which CI and the GPU hosts have: those kernels
 * must compile, not skip.
 *
 * CURED_TEST_QUICK=1 (the sanitizer pass of .ci/run): every 16th kernel and
 * every 5th architecture only. Otherwise the images also go to the run's
 * shared disk cache (shared_cache.c), which test-warm.sh starts from.
 */
#include "internal.h"
#include "broken.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precompile.h"
#include "shared_cache.h"

static int archs[64];
static int narchs;
static int kstride = 1, astride = 1; /* CURED_TEST_QUICK: a subset */
static int pstride = 16;             /* PTX of every pstride-th kernel past Table 12-1 (CURED_TEST_FULL: 1) */

static const char *toolkit_root(void)
{
    const char *root = getenv("CURED_TEST_CUDA_HOME");
    return root != NULL && *root != '\0' ? root : "/usr/local/cuda";
}

static int is_elf(const struct cr_image *img)
{
    return img->size > 4 && memcmp(img->data, "\177ELF", 4) == 0;
}

/* ---- every kernel, every architecture ------------------------------------------ */

/* The Table 12-1 specializations come first: int32 sums into int32 and int64, each algorithm. */
#define TABLE_12_1 (2 * CURED_ALGO_COUNT)

/* sm_90 (the newest offered if NVRTC lacks it) and the oldest offered architecture. */
static int main_archs[2];
static int nmain;

/* A cubin of kernel k for arch, compiled and then found in the cache with every kernel. */
static void expect_cubin(size_t k, int arch)
{
    const struct cr_unit *p = cr_catalog_unit(k);
    ck_assert_ptr_nonnull(p);
    size_t bytes = 0;
    cured_status st = cured_compile_kernel(k, arch, 0, &bytes);
    ck_assert_msg(st == CURED_SUCCESS, "%s for sm_%d: %s\n%s", cured_kernel_name(k), arch,
                  cured_status_string(st), cured_last_error());
    ck_assert_msg(bytes > 0, "%s for sm_%d: empty image", cured_kernel_name(k), arch);

    /* The same image through the cache: a cubin (ELF) of that size with every kernel. */
    const struct cr_image *img = NULL;
    st = cr_kcache_get(p, arch, 0, &img);
    ck_assert_msg(st == CURED_SUCCESS, "cache lookup: %s", cured_last_error());
    ck_assert_uint_eq(img->size, bytes);
    ck_assert_int_eq(img->ptx, 0);
    ck_assert_msg(is_elf(img), "%s for sm_%d is not an ELF cubin", cured_kernel_name(k), arch);
    for (int f = 0; f < p->nkernels; f++)
        ck_assert_msg(img->lowered[f][0] != '\0', "%s: no lowered name for %s", cured_kernel_name(k),
                      p->kernels[f]);
}

START_TEST(test_table_12_1_first)
{
    ck_assert_uint_ge(cured_kernel_count(), TABLE_12_1);
    int seen[CURED_ALGO_COUNT][2] = {{0}};
    for (size_t k = 0; k < TABLE_12_1; k++) {
        const struct cr_request *p = &cr_catalog(k)->req;
        ck_assert_msg(p->op == CURED_OP_SUM && p->in == CURED_TYPE_INT32 &&
                          (p->out == CURED_TYPE_INT32 || p->out == CURED_TYPE_INT64),
                      "kernel %zu (%s) is not a Table 12-1 int32 sum", k, cured_kernel_name(k));
        seen[p->algo][p->out == CURED_TYPE_INT64]++;
    }
    for (int a = 0; a < CURED_ALGO_COUNT; a++)
        ck_assert_msg(seen[a][0] == 1 && seen[a][1] == 1, "algorithm %d: %d int32 and %d int64 sums", a,
                      seen[a][0], seen[a][1]);
    /* And nothing else offers a non-AUTO algorithm. */
    for (size_t k = TABLE_12_1; k < cured_kernel_count(); k++)
        ck_assert_msg(cr_catalog(k)->req.algo == CURED_ALGO_AUTO, "kernel %zu (%s) is not AUTO", k,
                      cured_kernel_name(k));
}
END_TEST

/* Loop test over the Table 12-1 kernels: a cubin for every architecture NVRTC offers. */
START_TEST(test_cubin_every_arch)
{
    for (int a = 0; a < narchs; a += astride)
        expect_cubin((size_t)_i, archs[a]);
    if ((narchs - 1) % astride != 0)
        expect_cubin((size_t)_i, archs[narchs - 1]); /* and the newest */
}
END_TEST

/* The every-kernel loop tests take kernels in groups of GROUP, one test (one
 * forked process: ~40 ms each with the cache this big) per group; a failure
 * names its kernel. */
#define GROUP 16

static size_t group_end(int i)
{
    size_t end = (size_t)(i + 1) * GROUP, nk = cured_kernel_count();
    return end < nk ? end : nk;
}

/* Loop test over groups of kernels: a cubin for sm_90 and for the oldest architecture. */
START_TEST(test_cubin_main_archs)
{
    for (size_t k = (size_t)_i * GROUP; k < group_end(_i); k += (size_t)kstride)
        for (int a = 0; a < (precompile_oldest(k) ? nmain : 1); a++)
            expect_cubin(k, main_archs[a]);
}
END_TEST

/* PTX of kernel k for the newest architecture. */
static void expect_ptx(size_t k)
{
    int arch = archs[narchs - 1];
    size_t bytes = 0;
    cured_status st = cured_compile_kernel(k, arch, 1, &bytes);
    ck_assert_msg(st == CURED_SUCCESS, "%s for compute_%d: %s\n%s", cured_kernel_name(k), arch,
                  cured_status_string(st), cured_last_error());
    ck_assert_uint_gt(bytes, 0);

    const struct cr_unit *p = cr_catalog_unit(k);
    const struct cr_image *img = NULL;
    ck_assert_int_eq(cr_kcache_get(p, arch, 1, &img), CURED_SUCCESS);
    ck_assert_int_eq(img->ptx, 1);
    ck_assert_uint_eq(img->size, bytes);
    const char *text = img->data;
    size_t len = strlen(text); /* NUL-terminated, as cuModuleLoadData needs */
    ck_assert_msg(len > 0 && len <= img->size, "PTX length %zu, image size %zu", len, img->size);
    /* One assertion, not one per byte: each passing ck_assert is a write
     * to Check's pipe, and the PTX is 15 MB in all (bench/NOTES.md). */
    size_t i = 0;
    while (i < len &&
           (text[i] == '\n' || text[i] == '\t' || text[i] == '\r' || (text[i] >= 0x20 && text[i] < 0x7f)))
        i++;
    ck_assert_msg(i == len, "PTX of %s has a non-text byte 0x%02x at %zu", cured_kernel_name(k),
                  (unsigned char)text[i], i);
    ck_assert_msg(strstr(text, ".version") != NULL, "no .version in the PTX of %s",
                  cured_kernel_name(k));
    char target[32];
    snprintf(target, sizeof target, ".target sm_%d", arch);
    ck_assert_msg(strstr(text, target) != NULL, "no \"%s\" in the PTX of %s", target,
                  cured_kernel_name(k));
    for (int f = 0; f < p->nkernels; f++) {
        char entry[300];
        snprintf(entry, sizeof entry, ".entry %s(", img->lowered[f]);
        ck_assert_msg(strstr(text, entry) != NULL, "the PTX of %s has no %s",
                      cured_kernel_name(k), entry);
    }
}

/* Loop test over groups of kernels: PTX for the newest architecture. */
START_TEST(test_ptx_newest_arch)
{
    for (size_t k = (size_t)_i * GROUP; k < group_end(_i); k += (size_t)kstride)
        if ((k < TABLE_12_1 || k % (size_t)pstride == 0) && !precompile_sampled(k))
            expect_ptx(k);
}
END_TEST

START_TEST(test_supported_archs)
{
    int major = -1, minor = -1;
    ck_assert_int_eq(cured_nvrtc_version(&major, &minor), CURED_SUCCESS);
    ck_assert_int_ge(major, 12);
    ck_assert_int_ge(minor, 0);

    /* Ascending, and a short array gets the first entries and the full count. */
    for (int a = 1; a < narchs; a++)
        ck_assert_int_lt(archs[a - 1], archs[a]);
    int few[3] = {-1, -1, -1}, count = -1;
    ck_assert_int_eq(cured_supported_archs(few, 2, &count), CURED_SUCCESS);
    ck_assert_int_eq(count, narchs);
    ck_assert_int_eq(few[0], archs[0]);
    ck_assert_int_eq(few[1], narchs > 1 ? archs[1] : -1);
    ck_assert_int_eq(few[2], -1);
    count = -1;
    ck_assert_int_eq(cured_supported_archs(NULL, 0, &count), CURED_SUCCESS);
    ck_assert_int_eq(count, narchs);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------- */

START_TEST(test_compile_error_log)
{
    struct cr_unit p;
    broken_program(&p, 0);
    struct cr_image img;
    memset(&img, 0xa5, sizeof img);
    cr_fail(CURED_SUCCESS, "%s", "");
    cured_status st = cr_jit_compile(&p, archs[narchs - 1], 0, &img);
    ck_assert_msg(st == CURED_ERROR_COMPILE, "got %s: %s", cured_status_string(st), cured_last_error());
    const char *msg = cured_last_error();
    ck_assert_msg(strstr(msg, BROKEN_LINE_TAG) != NULL, "the log does not point at %s:\n%s",
                  BROKEN_LINE_TAG, msg);
    ck_assert_msg(strstr(msg, BROKEN_NAME) != NULL, "the log does not name %s:\n%s", BROKEN_NAME, msg);
    ck_assert_msg(img.data == NULL && img.size == 0, "a failed compile left an image behind");

    /* The same for PTX. */
    cr_fail(CURED_SUCCESS, "%s", "");
    st = cr_jit_compile(&p, archs[0], 1, &img);
    ck_assert_int_eq(st, CURED_ERROR_COMPILE);
    ck_assert_msg(strstr(cured_last_error(), BROKEN_LINE_TAG) != NULL, "%s", cured_last_error());
}
END_TEST

START_TEST(test_unoffered_arch)
{
    struct cr_image img;
    memset(&img, 0xa5, sizeof img);
    cr_fail(CURED_SUCCESS, "%s", "");
    cured_status st = cr_jit_compile(cr_catalog_unit(0), 12, 0, &img);
    ck_assert_msg(st == CURED_ERROR_NOT_SUPPORTED, "sm_12: got %s", cured_status_string(st));
    ck_assert_msg(strstr(cured_last_error(), "sm_12") != NULL, "message: %s", cured_last_error());

    size_t bytes = 4242;
    cr_fail(CURED_SUCCESS, "%s", "");
    st = cured_compile_kernel(0, 12, 1, &bytes);
    ck_assert_msg(st == CURED_ERROR_NOT_SUPPORTED, "compute_12: got %s", cured_status_string(st));
    ck_assert_msg(strstr(cured_last_error(), "compute_12") != NULL, "message: %s", cured_last_error());
    ck_assert_uint_eq(bytes, 4242);

    /* Beyond the last and between two offered ones. */
    ck_assert_int_eq(cured_compile_kernel(0, archs[narchs - 1] + 1000, 0, NULL),
                     CURED_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(cured_compile_kernel(0, -90, 0, NULL), CURED_ERROR_NOT_SUPPORTED);
}
END_TEST

START_TEST(test_bad_kernel_index)
{
    size_t bytes = 4242;
    cr_fail(CURED_SUCCESS, "%s", "");
    ck_assert_int_eq(cured_compile_kernel(cured_kernel_count(), archs[0], 0, &bytes),
                     CURED_ERROR_INVALID_VALUE);
    ck_assert_uint_eq(bytes, 4242);
    ck_assert_msg(cured_last_error()[0] != '\0', "no message");
    ck_assert_int_eq(cured_compile_kernel(SIZE_MAX, archs[0], 0, &bytes), CURED_ERROR_INVALID_VALUE);
    ck_assert_uint_eq(bytes, 4242);
}
END_TEST

/* ---- user-defined operators ----------------------------------------------------- */

static const struct custom_example {
    cured_type in, acc;
    int ninputs;
    const char *map, *combine, *identity;
} custom_examples[] = {
    {CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT64, 1, "x*x", "a+b", "0"},         /* sum of squares */
    {CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, "fabs(x)", "fmax(a,b)", "0"}, /* max-abs */
    {CURED_TYPE_INT32, CURED_TYPE_INT64, 1, "x != 0", "a+b", "0"},          /* count of nonzeros */
    {CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 2, "x*y", "a+b", "0"},         /* dot product */
    {CURED_TYPE_FLOAT16, CURED_TYPE_FLOAT32, 2, "x*y", "a+b", "0"},         /* half inputs are floats */
    {CURED_TYPE_BFLOAT16, CURED_TYPE_FLOAT64, 1, "sqrt(fabs(x))", "a+b", "0.0"},
    {CURED_TYPE_UINT8, CURED_TYPE_UINT64, 1, "x & 15", "a > b ? a : b", "0"},
    {CURED_TYPE_INT8, CURED_TYPE_INT16, 2, "(x < y) ? x : y", "min(a, b)", "127"},
};
#define NCUSTOM ((int)(sizeof custom_examples / sizeof *custom_examples))

/* The generated program compiles, off the GPU, to a cubin of the right shape. */
START_TEST(test_custom_compiles)
{
    const struct custom_example *e = &custom_examples[_i];
    int arch = main_archs[0];
    cured_custom op = NULL;
    cured_status st = cr_custom_build(e->in, e->acc, e->ninputs, e->map, e->combine, e->identity, &op);
    ck_assert_msg(st == CURED_SUCCESS, "%s | %s | %s: %s", e->map, e->combine, e->identity, cured_last_error());
    ck_assert_ptr_nonnull(op);
    const struct cr_unit *p = cr_custom_unit(op);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->nkernels, 1);
    ck_assert_uint_eq(cr_custom_request(op)->acc.result_size, cured_type_size(e->acc));
    const struct cr_image *img = NULL;
    st = cr_kcache_get(p, arch, 0, &img);
    ck_assert_msg(st == CURED_SUCCESS, "%s | %s | %s for sm_%d: %s\n%s", e->map, e->combine, e->identity, arch,
                  cured_status_string(st), cured_last_error());
    ck_assert_msg(is_elf(img), "not an ELF cubin");
    ck_assert_msg(img->lowered[0][0] != '\0', "no lowered name for %s", p->kernels[0]);
    /* The same expressions again: a new program of the same source, a memory hit. */
    cured_stats s0, s1;
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    cured_custom again = NULL;
    ck_assert_int_eq(cr_custom_build(e->in, e->acc, e->ninputs, e->map, e->combine, e->identity, &again),
                     CURED_SUCCESS);
    const struct cr_image *img2 = NULL;
    ck_assert_int_eq(cr_kcache_get(cr_custom_unit(again), arch, 0, &img2), CURED_SUCCESS);
    ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
    ck_assert_uint_eq(s1.compiles, s0.compiles);
    ck_assert_uint_eq(s1.memory_hits, s0.memory_hits + 1);
    ck_assert_ptr_eq(img2, img);
    ck_assert_int_eq(cured_custom_destroy(again), CURED_SUCCESS);
    ck_assert_int_eq(cured_custom_destroy(op), CURED_SUCCESS);
}
END_TEST

/* A compile error in one expression: CURED_ERROR_COMPILE, and the log names that expression. */
static void expect_custom_error(const char *map, const char *combine, const char *identity, const char *where,
                                const char *name)
{
    cured_custom op = NULL;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT32, CURED_TYPE_FLOAT32, 1, map, combine, identity, &op),
                     CURED_SUCCESS);
    const struct cr_image *img = (const struct cr_image *)(uintptr_t)0x1;
    cr_fail(CURED_SUCCESS, "%s", "");
    cured_status st = cr_kcache_get(cr_custom_unit(op), main_archs[0], 0, &img);
    char msg[4096];
    snprintf(msg, sizeof msg, "%s", cured_last_error());
    cured_custom_destroy(op);
    ck_assert_msg(st == CURED_ERROR_COMPILE, "%s | %s | %s: got %s: %s", map, combine, identity,
                  cured_status_string(st), msg);
    ck_assert_msg(strstr(msg, where) != NULL, "the log does not point at %s:\n%s", where, msg);
    ck_assert_msg(strstr(msg, name) != NULL, "the log does not name %s:\n%s", name, msg);
}

START_TEST(test_custom_compile_errors)
{
    /* Each passes the grammar (src/expr.c) but is a type error: '%' of a float. */
    expect_custom_error("x % 2.5", "a+b", "0", "map_expr(1)", "integral");
    expect_custom_error("x", "a % b", "0", "combine_expr(1)", "integral");
    expect_custom_error("x", "a+b", "0.5 % 2", "identity_expr(1)", "integral");
    /* Names outside the grammar never reach NVRTC: z in a two-input map, y in a one-input one. */
    cured_custom op = (cured_custom)(uintptr_t)0x1;
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64, 2, "x*y*z", "a+b", "0", &op),
                     CURED_ERROR_INVALID_EXPRESSION);
    ck_assert_msg(op == NULL && strstr(cured_last_error(), "'z'") && strstr(cured_last_error(), "variables x, y;"),
                  "%s", cured_last_error());
    ck_assert_int_eq(cr_custom_build(CURED_TYPE_FLOAT64, CURED_TYPE_FLOAT64, 1, "x*y", "a+b", "0", &op),
                     CURED_ERROR_INVALID_EXPRESSION);
    ck_assert_msg(strstr(cured_last_error(), "'y'") && strstr(cured_last_error(), "variables x;"), "%s",
                  cured_last_error());
}
END_TEST

/* ---- toolkit search -------------------------------------------------------------- */

START_TEST(test_toolkit_search_missing)
{
    const char *const candidates[] = {"/nonexistent/a", NULL, "", "/nonexistent/b"};
    char found[256], searched[1024];
    strcpy(found, "untouched");
    memset(searched, 'x', sizeof searched);
    int ok = cr_toolkit_search(candidates, 4, found, sizeof found, searched, sizeof searched);
    ck_assert_int_eq(ok, 0);
    ck_assert_msg(memchr(searched, '\0', sizeof searched) != NULL, "searched is not terminated");
    ck_assert_msg(strstr(searched, "/nonexistent/a/include") != NULL, "searched: %s", searched);
    ck_assert_msg(strstr(searched, "/nonexistent/b/include") != NULL, "searched: %s", searched);
    ck_assert_str_eq(found, "untouched");

    /* No candidates at all. */
    ok = cr_toolkit_search(candidates, 0, found, sizeof found, searched, sizeof searched);
    ck_assert_int_eq(ok, 0);
    ck_assert_str_eq(searched, "");
}
END_TEST

START_TEST(test_toolkit_search_found)
{
    const char *root = toolkit_root();
    const char *const candidates[] = {"/nonexistent/a", NULL, "", root, "/nonexistent/b"};
    char found[1024], searched[2048];
    memset(found, 'x', sizeof found);
    int ok = cr_toolkit_search(candidates, 5, found, sizeof found, searched, sizeof searched);
    ck_assert_msg(ok == 1, "no cooperative_groups.h under %s (set CURED_TEST_CUDA_HOME); searched: %s",
                  root, searched);
    size_t len = strlen(found);
    ck_assert_msg(len >= 8 && strcmp(found + len - 8, "/include") == 0, "found = %s", found);
    ck_assert_msg(strncmp(found, root, strlen(root)) == 0, "found %s, not under %s", found, root);
    ck_assert_msg(strstr(searched, "/nonexistent/a/include") != NULL, "searched: %s", searched);
    /* The search stops at the first hit. */
    ck_assert_msg(strstr(searched, "/nonexistent/b") == NULL, "searched past the hit: %s", searched);

    /* And the library's own search finds a toolkit here. */
    const char *inc = cured_toolkit_include();
    ck_assert_msg(inc != NULL, "cured_toolkit_include: %s", cured_last_error());
    len = strlen(inc);
    ck_assert_msg(len >= 8 && strcmp(inc + len - 8, "/include") == 0, "toolkit include = %s", inc);
}
END_TEST

/* ---- cache counters -------------------------------------------------------------- */

START_TEST(test_stats_memory_hit)
{
    int arch = archs[narchs / 2];
    cured_stats s0, s1, s2;
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    size_t b1 = 0, b2 = 0;
    ck_assert_int_eq(cured_compile_kernel(2, arch, 0, &b1), CURED_SUCCESS);
    ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
    /* The first call either compiled or (if an earlier test in this process did) hit. */
    ck_assert_uint_eq(s1.compiles + s1.memory_hits, s0.compiles + s0.memory_hits + 1);
    ck_assert_uint_eq(s1.compile_failures, s0.compile_failures);
    if (s1.compiles > s0.compiles)
        ck_assert_msg(s1.compile_seconds > s0.compile_seconds, "compile time was not counted");

    ck_assert_int_eq(cured_compile_kernel(2, arch, 0, &b2), CURED_SUCCESS);
    ck_assert_int_eq(cured_get_stats(&s2), CURED_SUCCESS);
    ck_assert_uint_eq(b2, b1);
    ck_assert_uint_eq(s2.memory_hits, s1.memory_hits + 1);
    ck_assert_uint_eq(s2.compiles, s1.compiles);
    ck_assert_uint_eq(s2.disk_hits, s1.disk_hits);

    /* A cubin and PTX of the same kernel and arch are different entries. */
    ck_assert_int_eq(cured_compile_kernel(2, arch, 1, &b2), CURED_SUCCESS);
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    ck_assert_uint_eq(s0.compiles + s0.memory_hits, s2.compiles + s2.memory_hits + 1);
    const struct cr_image *cubin = NULL, *ptx = NULL;
    ck_assert_int_eq(cr_kcache_get(cr_catalog_unit(2), arch, 0, &cubin), CURED_SUCCESS);
    ck_assert_int_eq(cr_kcache_get(cr_catalog_unit(2), arch, 1, &ptx), CURED_SUCCESS);
    ck_assert_msg(cubin != ptx && cubin->ptx == 0 && ptx->ptx == 1 && ptx->size == b2,
                  "the cache mixed up the cubin and the PTX");
}
END_TEST

static Suite *compile_suite(void)
{
    Suite *s = suite_create("compile");
    int nk = (int)cured_kernel_count();

    TCase *table = tcase_create("table_12_1_every_arch");
    tcase_set_timeout(table, 900);
    tcase_add_test(table, test_table_12_1_first);
    tcase_add_loop_test(table, test_cubin_every_arch, 0, TABLE_12_1);
    suite_add_tcase(s, table);

    TCase *all = tcase_create("every_kernel");
    tcase_set_timeout(all, 900);
    int groups = (nk + GROUP - 1) / GROUP;
    tcase_add_loop_test(all, test_cubin_main_archs, 0, groups);
    tcase_add_loop_test(all, test_ptx_newest_arch, 0, groups);
    suite_add_tcase(s, all);

    TCase *custom = tcase_create("user_defined");
    tcase_set_timeout(custom, 300);
    tcase_add_loop_test(custom, test_custom_compiles, 0, NCUSTOM);
    tcase_add_test(custom, test_custom_compile_errors);
    suite_add_tcase(s, custom);

    TCase *misc = tcase_create("errors_and_cache");
    tcase_set_timeout(misc, 120);
    tcase_add_test(misc, test_supported_archs);
    tcase_add_test(misc, test_compile_error_log);
    tcase_add_test(misc, test_unoffered_arch);
    tcase_add_test(misc, test_bad_kernel_index);
    tcase_add_test(misc, test_toolkit_search_missing);
    tcase_add_test(misc, test_toolkit_search_found);
    tcase_add_test(misc, test_stats_memory_hit);
    suite_add_tcase(s, misc);
    return s;
}

int main(void)
{
    const char *quick = getenv("CURED_TEST_QUICK"), *full = getenv("CURED_TEST_FULL");
    if (full != NULL && strcmp(full, "1") == 0)
        pstride = 1;
    if (quick != NULL && strcmp(quick, "1") == 0) {
        kstride = 16;
        astride = 5;
        printf("CURED_TEST_QUICK=1: every %dth kernel, every %dth architecture\n", kstride, astride);
    }
    /* Every image also goes to a fresh disk cache that test-warm.sh copies
     * (not a subset: test-warm.sh expects every sm_90 cubin there). */
    const int share = kstride == 1 && astride == 1 && shared_cache_open() != NULL;
    if (!share)
        shared_cache_forget();
    /* NVRTC only (no CUDA driver), so loading it here, before the forks, is safe. */
    int major, minor;
    if (cured_nvrtc_version(&major, &minor) != CURED_SUCCESS) {
        printf("SKIP: NVRTC is not available: %s\n", cured_last_error());
        shared_cache_publish(0);
        return 77;
    }
    if (cured_supported_archs(archs, (int)(sizeof archs / sizeof *archs), &narchs) != CURED_SUCCESS ||
        narchs < 1 || narchs > (int)(sizeof archs / sizeof *archs)) {
        printf("FAIL: NVRTC %d.%d reports no usable architecture list: %s\n", major, minor,
               cured_last_error());
        shared_cache_publish(0);
        return 1;
    }
    /* sm_90 if offered (else the newest), and the oldest offered if different. */
    main_archs[0] = archs[narchs - 1];
    for (int a = 0; a < narchs; a++)
        if (archs[a] == 90)
            main_archs[0] = 90;
    nmain = 1;
    if (archs[0] != main_archs[0])
        main_archs[nmain++] = archs[0];
    /* Every image the tests ask for, compiled on all CPUs into the memory
     * cache here, before Check forks: each test then checks its images,
     * found in the cache (a failure there is compiled again in the test,
     * which reports it). */
    if (precompile(TABLE_12_1, archs, narchs, main_archs, nmain, (size_t)pstride, (size_t)kstride, GROUP, astride) !=
        0) {
        shared_cache_publish(0);
        return 99;
    }
    SRunner *sr = srunner_create(compile_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (share)
        shared_cache_publish(failed == 0);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
