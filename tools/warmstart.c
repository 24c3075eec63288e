/*
 * `cured bench warmstart`: how long the first reduction of a fresh process
 * takes when the disk cache already holds its kernel (goal: 1 ms), measured
 * from the call's entry to its return just after cuLaunchKernel; cuInit and
 * context creation (cured_create) come first and are not timed. Also the
 * cold compile of every built-in kernel.
 *
 * The parent (here) runs this program again (/proc/self/exe bench
 * warmstart-child MODE ...; warmstart_child.c) as fresh processes that share
 * a new, empty cache directory (CURED_CACHE_DIR), and reads one result line
 * from each: "launch" children time the first call (the first of them finds
 * the cache empty and compiles, the others find it warm); "lookup" children,
 * which need no GPU, time the NVRTC load and the cache lookup alone; one
 * "compile" child, with CURED_CACHE_DISABLE=1, compiles every kernel.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

extern char **environ;

#define GOAL_MS 1.0
#define LOOKUP_RUNS 3

static const char usage_text[] =
    "usage: cured bench warmstart [--runs K] [--n N] [--device D] [--arch T]\n"
    "Time the first cured_reduce_async() (AUTO, int32 -> int64) of a fresh process\n"
    "against a warm disk cache, from the call's entry to its return just after\n"
    "cuLaunchKernel; cuInit and cured_create happen before and are not timed.\n"
    "Goal: <= 1 ms. This program is run again as K fresh processes sharing a new,\n"
    "empty cache directory (CURED_CACHE_DIR): run 1 finds the cache empty and\n"
    "compiles, runs 2..K find it warm. Then, in fresh processes without a launch:\n"
    "the NVRTC load and the cache lookup alone (no GPU needed), and with a GPU the\n"
    "cold compile of every built-in kernel (CURED_CACHE_DISABLE=1).\n"
    "  --runs K    processes in all, the first one cold (default 10, at least 2)\n"
    "  --n N       int32 elements summed (default 1Mi; suffixes K, M, G: binary)\n"
    "  --device D  CUDA device ordinal (default 0)\n"
    "  --arch T    target of the compiles without a GPU: sm_XY or compute_XY\n"
    "              (default sm_90)\n"
    "Exit status: 0 if every run was correct, the warm runs were served by the\n"
    "disk cache and their median met the goal; 1 otherwise or without a GPU;\n"
    "2 for usage.\n";

/* The environment without the cache variables, plus add (NULL-terminated). */
static char **child_env(const char *const *add)
{
    size_t n = 0, k = 0, extra = 0;
    while (environ[n] != NULL)
        n++;
    while (add[extra] != NULL)
        extra++;
    char **env = malloc((n + extra + 1) * sizeof *env);
    if (env == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "CURED_CACHE_DIR=", 16) != 0 &&
            strncmp(environ[i], "CURED_CACHE_DISABLE=", 20) != 0)
            env[k++] = environ[i];
    for (size_t i = 0; i < extra; i++)
        env[k++] = (char *)add[i];
    env[k] = NULL;
    return env;
}

/*
 * Run `/proc/self/exe bench warmstart-child <args>` with the environment
 * additions; its stdout goes to out when out is not NULL (else to ours).
 * Returns its exit status, or -1 after a message.
 */
static int run_child(const char *const *args, const char *const *env_add, char *out, size_t cap)
{
    char *argv[16] = {"cured", "bench", "warmstart-child"};
    int argc = 3, fds[2] = {-1, -1}, status = 0, rc = -1;
    for (const char *const *a = args; *a != NULL && argc < 15; a++)
        argv[argc++] = (char *)*a;
    argv[argc] = NULL;
    if (out != NULL)
        out[0] = '\0';
    char **envp = child_env(env_add);
    posix_spawn_file_actions_t fa;
    int e = envp != NULL ? posix_spawn_file_actions_init(&fa) : ENOMEM;
    if (e != 0) {
        fprintf(stderr, "cured bench warmstart: %s\n", strerror(e));
        free(envp);
        return -1;
    }
    if (out != NULL) {
        if (pipe(fds) != 0 || (e = posix_spawn_file_actions_adddup2(&fa, fds[1], 1)) != 0 ||
            (e = posix_spawn_file_actions_addclose(&fa, fds[0])) != 0 ||
            (e = posix_spawn_file_actions_addclose(&fa, fds[1])) != 0) {
            fprintf(stderr, "cured bench warmstart: pipe: %s\n", strerror(e ? e : errno));
            goto done;
        }
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    if ((e = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, envp)) != 0) {
        fprintf(stderr, "cured bench warmstart: cannot run /proc/self/exe: %s\n", strerror(e));
        goto done;
    }
    if (out != NULL) {
        close(fds[1]);
        fds[1] = -1;
        size_t len = 0;
        for (;;) {
            char buf[4096];
            ssize_t r = read(fds[0], buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            size_t take = (size_t)r < cap - 1 - len ? (size_t)r : cap - 1 - len;
            memcpy(out + len, buf, take);
            out[len += take] = '\0';
        }
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "cured bench warmstart: waitpid: %s\n", strerror(errno));
            goto done;
        }
    if (WIFEXITED(status))
        rc = WEXITSTATUS(status);
    else
        fprintf(stderr, "cured bench warmstart: a child process died (signal %d)\n",
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
done:
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    return rc;
}

/* The text after "warmstart-<tag> " in a child's output, or NULL. */
static const char *child_line(const char *out, const char *tag)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "warmstart-%s ", tag);
    for (const char *p = out; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return p + strlen(prefix);
    return NULL;
}

/* What a child said when it gave no result: its error line, or its status. */
static void child_failed(const char *what, const char *out, int status)
{
    const char *err = child_line(out, "error");
    if (err != NULL)
        printf("  %s FAILED: %.*s\n", what, (int)strcspn(err, "\n"), err);
    else
        printf("  %s FAILED: no result (exit status %d)\n", what, status);
}

/* rm -r of the temporary cache (it holds only what the children wrote). */
static int remove_tree(int at, const char *name, int depth)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return unlinkat(at, name, 0) == 0 || errno == ENOENT ? 0 : -1;
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            rc |= depth < 8 ? remove_tree(dirfd(d), e->d_name, depth + 1) : -1;
    closedir(d);
    return unlinkat(at, name, AT_REMOVEDIR) == 0 ? rc : -1;
}

/* A signal that should end the parent: noted, so that the temporary cache
 * is removed first, then delivered again. */
static volatile sig_atomic_t stop_signal;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define NSTOP ((int)(sizeof stop_signals / sizeof *stop_signals))

static void note_signal(int sig)
{
    stop_signal = sig;
}

struct stats {
    double med, min, max;
};

static struct stats summarize(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return (struct stats){median_sorted(v, n), v[0], v[n - 1]};
}

int cmd_warmstart(int argc, char **argv)
{
    uint64_t runs = 10, n = 1 << 20, device = 0;
    int sm = 90, ptx = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int ok;
        if (is_help(a)) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (match_option(argc, argv, &i, "--runs", &v))
            ok = parse_count(v, &runs) == 0 && runs >= 2 && runs <= 1000;
        else if (match_option(argc, argv, &i, "--n", &v))
            ok = parse_count(v, &n) == 0 && n >= 1 && n <= SIZE_MAX / 4;
        else if (match_option(argc, argv, &i, "--device", &v))
            ok = parse_count(v, &device) == 0 && device <= 1024;
        else if (match_option(argc, argv, &i, "--arch", &v))
            ok = parse_arch(v, &sm, &ptx) == 0;
        else {
            fprintf(stderr, "cured bench warmstart: unknown argument %s\n%s", a, usage_text);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "cured bench warmstart: bad or missing value for %.*s: %s\n%s",
                    (int)strcspn(a, "="), a, v ? v : "", usage_text);
            return 2;
        }
    }
    const char *tmp = getenv("TMPDIR");
    char dir[1024], env_dir[1100], ndev[32], nn[32], target[32];
    snprintf(dir, sizeof dir, "%s/cured-warmstart.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "cured bench warmstart: cannot make %s: %s\n", dir, strerror(errno));
        return 1;
    }
    struct sigaction sa, saved[NSTOP];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = note_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSTOP; i++)
        if (sigaction(stop_signals[i], &sa, &saved[i]) != 0)
            saved[i].sa_handler = SIG_DFL;
    snprintf(env_dir, sizeof env_dir, "CURED_CACHE_DIR=%s", dir);
    snprintf(ndev, sizeof ndev, "%" PRIu64, device);
    snprintf(nn, sizeof nn, "%" PRIu64, n);
    snprintf(target, sizeof target, "%s_%d", ptx ? "compute" : "sm", sm);
    const char *const cache_env[] = {env_dir, NULL}, *const off_env[] = {"CURED_CACHE_DISABLE=1", NULL};

    printf("cured bench warmstart (cured %s): the first cured_reduce_async() of a fresh process, "
           "%" PRIu64 " int32 -> int64 (AUTO)\n", cured_version_string(), n);
    printf("timed from the call's entry to its return after cuLaunchKernel; cuInit and cured_create "
           "(context creation) come before, untimed\n");
    printf("cache: %s (new and empty; removed at the end)\n", dir);

    int rc = 0, gpu = 1, nwarm = 0, missed = 0;
    double *warm = calloc((size_t)runs, sizeof *warm), *second = calloc((size_t)runs, sizeof *second);
    double cold_us = -1;
    char out[8192], device_name[256] = "?";
    if (warm == NULL || second == NULL) {
        fprintf(stderr, "cured bench warmstart: out of memory\n");
        rc = 1;
        goto cleanup;
    }
    for (uint64_t r = 0; r < runs && gpu && !stop_signal; r++) {
        const char *args[] = {"launch", "--device", ndev, "--n", nn, NULL};
        int status = run_child(args, cache_env, out, sizeof out);
        const char *res = child_line(out, "result"), *nogpu = child_line(out, "nogpu");
        char what[48];
        snprintf(what, sizeof what, "run %2" PRIu64 " (%s)", r + 1, r == 0 ? "cold cache" : "warm cache");
        if (r == 0 && nogpu != NULL) {
            printf("the launch part needs a GPU: %.*s\n", (int)strcspn(nogpu, "\n"), nogpu);
            gpu = 0;
            break;
        }
        double first = 0, sec = 0;
        unsigned long long compiles = 0, disk = 0, mem = 0;
        char tgt[24] = "";
        if (status != 0 || res == NULL ||
            sscanf(res, "first_us=%lf second_us=%lf compiles=%llu disk_hits=%llu memory_hits=%llu "
                        "target=%23s device=%255[^\n]", &first, &sec, &compiles, &disk, &mem, tgt,
                   device_name) != 7) {
            child_failed(what, out, status);
            rc = 1;
            continue;
        }
        if (r == 0)
            snprintf(target, sizeof target, "%s", tgt);
        const char *src = compiles ? "compiled" : disk ? "disk hit" : mem ? "memory hit" : "?";
        printf("  %s  first call %10.1f us  %-9s  second call %7.1f us\n", what, first, src, sec);
        if (r == 0) {
            cold_us = first;
        } else {
            warm[nwarm] = first / 1e3;
            second[nwarm++] = sec;
            missed += compiles != 0 || disk != 1;
        }
    }

    int warm_cache = gpu && nwarm > 0;
    if (!gpu && !stop_signal) { /* fill the cache without a GPU, so that the lookups below find it warm */
        const char *args[] = {"lookup", "--target", target, NULL};
        int status = run_child(args, cache_env, out, sizeof out);
        const char *res = child_line(out, "lookup");
        double a = 0, b = 0;
        if (status != 0 || res == NULL || sscanf(res, "nvrtc_ms=%lf lookup_us=%lf", &a, &b) != 2) {
            child_failed("filling the cache", out, status);
            rc = 1;
        } else {
            printf("  cold cache, no launch (%s): loading NVRTC %.2f ms, compiling and storing the "
                   "kernel %.1f ms\n", target, a, b / 1e3);
            warm_cache = 1;
        }
    }
    /* Where a warm first call's time goes, without the launch: NVRTC and the cache. */
    double nvrtc_ms[LOOKUP_RUNS], lookup_ms[LOOKUP_RUNS];
    int nlook = 0;
    for (int k = 0; k < LOOKUP_RUNS && warm_cache && !stop_signal; k++) {
        const char *args[] = {"lookup", "--target", target, NULL};
        int status = run_child(args, cache_env, out, sizeof out);
        const char *res = child_line(out, "lookup");
        char src[16] = "";
        double a = 0, b = 0;
        if (status != 0 || res == NULL || sscanf(res, "nvrtc_ms=%lf lookup_us=%lf source=%15s", &a, &b, src) != 3) {
            child_failed("lookup", out, status);
            rc = 1;
            break;
        }
        if (strcmp(src, "disk") != 0) {
            printf("  lookup FAILED: the kernel did not come from the disk cache (%s)\n", src);
            rc = 1;
            break;
        }
        nvrtc_ms[nlook] = a;
        lookup_ms[nlook++] = b / 1e3;
    }

    printf("\n");
    if (gpu && nwarm > 0) {
        struct stats w = summarize(warm, (size_t)nwarm), s2 = summarize(second, (size_t)nwarm);
        printf("device %" PRIu64 ": %s; cured compiles for %s\n", device, device_name, target);
        if (cold_us >= 0)
            printf("cold first call (empty cache: NVRTC compile, then stored): %.2f ms\n", cold_us / 1e3);
        printf("warm first call over %d fresh processes: median %.3f ms, min %.3f ms, max %.3f ms "
               "(a second call: median %.1f us)\n", nwarm, w.med, w.min, w.max, s2.med);
        if (missed)
            printf("%d warm run(s) were not served by the disk cache\n", missed);
        printf("goal: warm first call <= %.0f ms: %s\n", GOAL_MS, w.med <= GOAL_MS && !missed ? "PASS" : "MISS");
        rc |= w.med > GOAL_MS || missed;
    } else if (gpu) {
        printf("no warm run gave a result\n");
        rc = 1;
    }
    if (nlook > 0) {
        struct stats a = summarize(nvrtc_ms, (size_t)nlook), b = summarize(lookup_ms, (size_t)nlook);
        printf("without the launch (%d fresh processes, warm cache, %s): loading NVRTC %.2f ms, then the "
               "cache lookup (key, read, checksum) %.3f ms (medians)%s\n", nlook, target, a.med, b.med,
               gpu ? "; the rest of a warm first call is the argument checks, loading the module and the launch" : "");
    }
    printf("\n");
    /* Without a GPU the run ends here, as every benchmark's does: `cured cache warm` compiles every kernel. */
    if (!stop_signal && gpu) {
        const char *args[] = {"compile", "--target", target, NULL};
        int status = run_child(args, off_env, NULL, 0);
        if (status != 0) /* 1: the child said what failed */
            rc = 1;
        if (status != 0 && status != 1)
            printf("cold compile FAILED (exit status %d)\n", status);
    }
    if (!gpu)
        fprintf(stderr, "cured bench warmstart: no first call was timed and no cold compile run (no CUDA GPU here; "
                        "cured cache warm compiles every kernel without one)\n");

cleanup:
    if (remove_tree(AT_FDCWD, dir, 0) != 0)
        fprintf(stderr, "cured bench warmstart: could not remove %s completely\n", dir);
    free(warm);
    free(second);
    for (int i = 0; i < NSTOP; i++)
        sigaction(stop_signals[i], &saved[i], NULL);
    if (stop_signal)
        raise(stop_signal);
    return rc || !gpu;
}
