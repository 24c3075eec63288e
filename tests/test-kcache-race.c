/*
 * The in-memory kernel cache's entry lifetime under many threads, without
 * NVRTC: a fill hook (cr_kcache_fill_hook) makes the images, and the first
 * fill of each round holds its entry PENDING until every other thread of
 * the round is blocked on it, so each round takes the path it is meant to
 * take, whatever the scheduler does.
 *  - identical user-defined ops' first calls together: the compiling thread
 *    returns its reference at once (as a user op's axis shape does in
 *    cr_kernel_load) while the others still wait; every thread gets the one
 *    image, the entry goes with the last reference;
 *  - the same with a failed compilation: every thread gets the failure, the
 *    entry is forgotten;
 *  - a built-in kernel whose disk image tests/fakecuda.c's driver refuses
 *    (fake_reject) while the others wait, through cr_kernel_load on a handle
 *    of the fake device: every thread loads the fresh image, the rejected
 *    entry is freed, no NULL image reaches cuModuleLoadData;
 * each with cured_cache_clear, cured_create/cured_destroy and
 * cured_get_stats running alongside in other threads. Each test runs in its
 * own process (Check's fork mode). Run under AddressSanitizer and
 * ThreadSanitizer by .ci/run.
 */
#include "fake_device.h"
#include "cache_util.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define NTHREADS 8
#define ROUNDS 40
#define GOOD "GOOD image"
#define REJECT "REJECT image"

static void (*fake_reject)(const char *prefix);
static void (*fake_images)(int *rejected, int *null);

/* ---- the fill hook ---- */

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int fills;        /* this round's */
    int first_fails;  /* the round's first fill is a compile error */
    int first_reject; /* the round's first fill is an image "from disk" the driver refuses */
    int wait_for;     /* the round's first fill waits until this many threads are blocked */
    int timeouts;     /* fills that gave up waiting */
} hook;

static void sleep_us(long us)
{
    struct timespec ts = {0, us * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Until n threads wait on a PENDING entry; 0 when they do, -1 after 60 s. */
static int wait_blocked(int n)
{
    for (long i = 0; i < 60L * 10000; i++) {
        if (cr_kcache_blocked() >= (size_t)n)
            return 0;
        sleep_us(100);
    }
    return -1;
}

static cured_status fill(const struct cr_unit *p, int arch, int ptx, struct cr_image *img)
{
    pthread_mutex_lock(&hook_lock);
    const int n = hook.fills++, fails = hook.first_fails, reject = hook.first_reject, wait_for = hook.wait_for;
    pthread_mutex_unlock(&hook_lock);
    if (n == 0 && wait_blocked(wait_for) != 0) {
        pthread_mutex_lock(&hook_lock);
        hook.timeouts++;
        pthread_mutex_unlock(&hook_lock);
    }
    if (n == 0 && fails)
        return cr_fail(CURED_ERROR_COMPILE, "kernels-src/%s: a made-up compile error", p->file);
    char text[128];
    snprintf(text, sizeof text, "%s %d of kernels-src/%s for sm_%d", n == 0 && reject ? REJECT : GOOD, n, p->file,
             arch);
    img->data = strdup(text);
    if (img->data == NULL)
        return cr_fail(CURED_ERROR_OUT_OF_MEMORY, "strdup");
    img->size = strlen(text) + 1;
    img->ptx = ptx;
    img->from_disk = n == 0 && reject;
    for (int k = 0; k < p->nkernels; k++)
        snprintf(img->lowered[k], sizeof img->lowered[k], "_Z4fake%d", k);
    return CURED_SUCCESS;
}

static void new_round(int first_fails, int first_reject, int wait_for)
{
    pthread_mutex_lock(&hook_lock);
    hook.fills = 0;
    hook.first_fails = first_fails;
    hook.first_reject = first_reject;
    hook.wait_for = wait_for;
    pthread_mutex_unlock(&hook_lock);
}

static int fills(void)
{
    pthread_mutex_lock(&hook_lock);
    int n = hook.fills;
    pthread_mutex_unlock(&hook_lock);
    return n;
}

/* ---- what runs alongside: cache clears, handles made and destroyed, counters ---- */

static struct noise {
    pthread_t tid[3];
    int stop;   /* under hook_lock */
    int clears, handles, stats;
    char err[256];
} noise;

static int stopping(void)
{
    pthread_mutex_lock(&hook_lock);
    int s = noise.stop;
    pthread_mutex_unlock(&hook_lock);
    return s;
}

static void noise_fail(const char *what, cured_status st)
{
    pthread_mutex_lock(&hook_lock);
    if (noise.err[0] == '\0')
        snprintf(noise.err, sizeof noise.err, "%s: %s", what, cured_status_string(st));
    pthread_mutex_unlock(&hook_lock);
}

static void *clear_loop(void *arg)
{
    (void)arg;
    while (!stopping()) {
        size_t removed = 1;
        cured_status st = cured_cache_clear(&removed);
        if (st != CURED_SUCCESS || removed != 0)
            noise_fail("cured_cache_clear (nothing on disk to remove)", st);
        noise.clears++;
        sleep_us(200);
    }
    return NULL;
}

static void *handle_loop(void *arg)
{
    (void)arg;
    while (!stopping()) {
        cured_handle h = NULL;
        cured_status st = cured_create(0, &h);
        if (st == CURED_SUCCESS)
            st = cured_destroy(h);
        if (st != CURED_SUCCESS)
            noise_fail("cured_create/cured_destroy", st);
        noise.handles++;
        sleep_us(1000);
    }
    return NULL;
}

static void *stats_loop(void *arg)
{
    (void)arg;
    while (!stopping()) {
        cured_stats s;
        cured_status st = cured_get_stats(&s);
        if (st != CURED_SUCCESS)
            noise_fail("cured_get_stats", st);
        (void)cr_kcache_entries();
        noise.stats++;
        sleep_us(100);
    }
    return NULL;
}

static void noise_start(void)
{
    void *(*fn[3])(void *) = {clear_loop, handle_loop, stats_loop};
    noise.stop = 0;
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&noise.tid[i], NULL, fn[i], NULL), 0);
}

static void noise_stop(void)
{
    pthread_mutex_lock(&hook_lock);
    noise.stop = 1;
    pthread_mutex_unlock(&hook_lock);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_join(noise.tid[i], NULL), 0);
    ck_assert_msg(noise.err[0] == '\0', "alongside: %s", noise.err);
    ck_assert_msg(noise.clears > 0 && noise.handles > 0 && noise.stats > 0,
                  "alongside: %d clears, %d handles, %d counter reads", noise.clears, noise.handles, noise.stats);
}

/* The fake device (no NVRTC: nothing here compiles), a private disk cache, the hook. */
static char dir[512];

static void setup(void)
{
    ck_assert_msg(make_temp_dir(dir, sizeof dir, "kcache-race") == 0, "mkdtemp: %s", strerror(errno));
    ck_assert_int_eq(setenv("CURED_CACHE_DIR", dir, 1), 0);
    ck_assert_int_eq(unsetenv("CURED_CACHE_DISABLE"), 0);
    fake_use(0);
    cr_kcache_fill_hook = fill;
}

static void teardown(void)
{
    if (remove_tree(dir) != 0)
        fprintf(stderr, "cannot remove %s: %s\n", dir, strerror(errno));
}

/* ---- identical user ops' first calls ---- */

static const char *user_source = "/* a user op's generated program (never compiled here) */\n";

struct getter {
    pthread_barrier_t *barrier;
    struct cr_unit unit; /* each op has its own unit; equal ones share a key */
    int arch;
    cured_status st;
    const struct cr_image *img;
    char text[64]; /* the image's first bytes, read before the put */
};

static void *get_and_put(void *arg)
{
    struct getter *g = arg;
    pthread_barrier_wait(g->barrier);
    g->st = cr_kcache_get(&g->unit, g->arch, 0, &g->img);
    if (g->st == CURED_SUCCESS) {
        snprintf(g->text, sizeof g->text, "%s", g->img->data ? (const char *)g->img->data : "(NULL)");
        cr_kcache_put(g->img); /* at once, as cr_kernel_load does for a user op's shape */
    }
    return NULL;
}

static void user_unit(struct cr_unit *u)
{
    memset(u, 0, sizeof *u);
    u->file = "custom.cu";
    u->source = user_source;
    u->nkernels = 1;
    snprintf(u->kernels[0], sizeof u->kernels[0], "reduce_user<int, long long>");
    snprintf(u->label, sizeof u->label, "a user op");
}

/* One round of NTHREADS identical ops; fail: the compilation fails. */
static void user_round(int round, int fail)
{
    struct getter g[NTHREADS];
    pthread_t tid[NTHREADS];
    pthread_barrier_t barrier;
    const size_t base = cr_kcache_entries();
    cured_stats s0, s1;
    ck_assert_int_eq(cured_get_stats(&s0), CURED_SUCCESS);
    ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, NTHREADS), 0);
    new_round(fail, 0, NTHREADS - 1);
    for (int i = 0; i < NTHREADS; i++) {
        memset(&g[i], 0, sizeof g[i]);
        g[i].barrier = &barrier;
        user_unit(&g[i].unit);
        g[i].arch = 90;
        g[i].st = (cured_status)-1;
        ck_assert_int_eq(pthread_create(&tid[i], NULL, get_and_put, &g[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
    ck_assert_int_eq(cured_get_stats(&s1), CURED_SUCCESS);
    ck_assert_msg(hook.timeouts == 0, "round %d: the other threads never waited on the entry", round);
    ck_assert_msg(fills() == 1, "round %d: %d fills for one key", round, fills());
    for (int i = 0; i < NTHREADS; i++) {
        if (fail) {
            ck_assert_msg(g[i].st == CURED_ERROR_COMPILE, "round %d, thread %d: %s, want the shared failure", round,
                          i, cured_status_string(g[i].st));
            continue;
        }
        ck_assert_msg(g[i].st == CURED_SUCCESS, "round %d, thread %d: %s", round, i, cured_status_string(g[i].st));
        ck_assert_msg(g[i].img == g[0].img, "round %d: thread %d got another image", round, i);
        ck_assert_msg(strncmp(g[i].text, GOOD " 0 ", strlen(GOOD " 0 ")) == 0, "round %d, thread %d read \"%s\"",
                      round, i, g[i].text);
    }
    ck_assert_msg(s1.memory_hits - s0.memory_hits == (fail ? 0 : NTHREADS - 1),
                  "round %d: %llu memory hits, want %d", round, (unsigned long long)(s1.memory_hits - s0.memory_hits),
                  fail ? 0 : NTHREADS - 1);
    ck_assert_msg(s1.compile_failures - s0.compile_failures == (unsigned)fail, "round %d: %llu failures", round,
                  (unsigned long long)(s1.compile_failures - s0.compile_failures));
    /* Every reference returned: a user op's entry (or a failure) is gone. */
    ck_assert_msg(cr_kcache_entries() == base, "round %d: %zu entries, want %zu", round, cr_kcache_entries(), base);
}

START_TEST(test_user_ops_first_calls)
{
    cured_handle h = fake_handle(0);
    noise_start();
    for (int r = 0; r < ROUNDS; r++)
        user_round(r, r % 4 == 3);
    noise_stop();
    expect(cured_destroy(h), CURED_SUCCESS, "cured_destroy");
}
END_TEST

/* ---- a built-in kernel's disk image refused while others wait ---- */

struct loader {
    pthread_barrier_t *barrier;
    cured_handle h;
    const struct cr_unit *unit;
    cured_status st;
    struct cr_kernel k;
    char message[256];
};

static void *load(void *arg)
{
    struct loader *l = arg;
    pthread_barrier_wait(l->barrier);
    l->st = cr_kernel_load(l->h, l->unit, &l->k);
    if (l->st != CURED_SUCCESS)
        snprintf(l->message, sizeof l->message, "%s", cured_last_error());
    return NULL;
}

START_TEST(test_rejected_while_waiting)
{
    cured_handle h = fake_handle(0);
    *(void **)&fake_reject = dlsym(dlopen(fake_driver, RTLD_NOW | RTLD_NOLOAD), "fake_reject");
    *(void **)&fake_images = dlsym(dlopen(fake_driver, RTLD_NOW | RTLD_NOLOAD), "fake_images");
    ck_assert_msg(fake_reject && fake_images, "the fake driver lacks fake_reject/fake_images");
    fake_reject(REJECT);
    /* A built-in unit (no source of its own): its entry stays for the process. */
    struct cr_unit unit;
    memset(&unit, 0, sizeof unit);
    unit.file = "fast.cu";
    unit.nkernels = 2;
    snprintf(unit.kernels[0], sizeof unit.kernels[0], "reduce_fake<0>");
    snprintf(unit.kernels[1], sizeof unit.kernels[1], "reduce_fake<1>");
    snprintf(unit.label, sizeof unit.label, "a built-in kernel");
    unit.block = 256;
    noise_start();
    const size_t base = cr_kcache_entries();
    int rejected0, null0;
    fake_images(&rejected0, &null0);
    for (int r = 0; r < ROUNDS; r++) {
        /* A new key each round: the architecture (no NVRTC here, so the handle's is set directly). */
        pthread_mutex_lock(&h->lock);
        h->arch = 1000 + r;
        h->ptx = 0;
        h->arch_status = CURED_SUCCESS;
        pthread_mutex_unlock(&h->lock);
        struct loader l[NTHREADS];
        pthread_t tid[NTHREADS];
        pthread_barrier_t barrier;
        ck_assert_int_eq(pthread_barrier_init(&barrier, NULL, NTHREADS), 0);
        new_round(0, 1, NTHREADS - 1);
        int rejected, null;
        fake_images(&rejected, &null);
        const int rejected_before = rejected;
        for (int i = 0; i < NTHREADS; i++) {
            memset(&l[i], 0, sizeof l[i]);
            l[i].barrier = &barrier;
            l[i].h = h;
            l[i].unit = &unit;
            l[i].st = (cured_status)-1;
            ck_assert_int_eq(pthread_create(&tid[i], NULL, load, &l[i]), 0);
        }
        for (int i = 0; i < NTHREADS; i++)
            ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
        pthread_barrier_destroy(&barrier);
        ck_assert_msg(hook.timeouts == 0, "round %d: the other threads never waited on the entry", r);
        fake_images(&rejected, &null);
        for (int i = 0; i < NTHREADS; i++) {
            ck_assert_msg(l[i].st == CURED_SUCCESS, "round %d, thread %d: %s: %s", r, i, cured_status_string(l[i].st),
                          l[i].message);
            ck_assert_int_eq(h->d->ModuleUnload(l[i].k.module), CUDA_SUCCESS);
        }
        /* The refused image went to the driver at least once (its filler), at most once a thread;
         * the fresh one was made once, after the refusal. */
        ck_assert_msg(rejected - rejected_before >= 1 && rejected - rejected_before <= NTHREADS,
                      "round %d: the driver refused %d images", r, rejected - rejected_before);
        ck_assert_msg(fills() == 2, "round %d: %d fills, want the refused one and one fresh", r, fills());
        /* The rejected entry is freed, the fresh built-in one stays. */
        ck_assert_msg(cr_kcache_entries() == base + (size_t)r + 1, "round %d: %zu entries, want %zu", r,
                      cr_kcache_entries(), base + (size_t)r + 1);
    }
    noise_stop();
    int rejected, null;
    fake_images(&rejected, &null);
    ck_assert_msg(null == null0, "cuModuleLoadData was handed %d NULL images", null - null0);
    expect(cured_destroy(h), CURED_SUCCESS, "cured_destroy");
}
END_TEST

int main(void)
{
    if (!fake_driver_found())
        return 77;
    Suite *s = suite_create("kcache-race");
    TCase *tc = tcase_create("lifetime");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_user_ops_first_calls);
    tcase_add_test(tc, test_rejected_while_waiting);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK); /* library state is per process */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
