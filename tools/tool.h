/*
 * The `cured` program: subcommands and the helpers they share. Every
 * subcommand is `int cmd_X(int argc, char **argv)` with argv[0] naming the
 * subcommand, and returns the process's exit status (0 success, 1 failure,
 * 2 usage).
 */
#ifndef CURED_TOOL_H
#define CURED_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "cured.h"

int cmd_info(int argc, char **argv);      /* cured.c */
int cmd_cache(int argc, char **argv);     /* cache.c */
int cmd_cache_warm(int argc, char **argv); /* cache_warm.c */
int cmd_bench_table(int argc, char **argv); /* bench.c: Table 12-1 */
int cmd_warmstart(int argc, char **argv); /* warmstart.c */
int cmd_bench_sweep(int argc, char **argv); /* sweep.c: sizes 2^10 ... 2^30 beside CUB */
int cmd_bench_ops(int argc, char **argv);   /* opsbench.c: operators x types beside CUB */
int cmd_bench_axes(int argc, char **argv);  /* axesbench.c: axes and segments vs the read ceiling */
int cmd_bench_allreduce(int argc, char **argv); /* allreducebench.c: cured_comm over NCCL's latency */
int cmd_warmstart_child(int argc, char **argv); /* warmstart_child.c: run by cmd_warmstart */

/* ---- util.c -------------------------------------------------------------- */

/* Milliseconds on CLOCK_MONOTONIC. */
double now_ms(void);

/* Decimal count with an optional binary suffix: 64M, 1G, 4Ki. 0 or -1. */
int parse_count(const char *s, uint64_t *out);

/* "sm_90" (cubin), "compute_90" (PTX) or "90" (cubin); 0 or -1. */
int parse_arch(const char *s, int *sm, int *ptx);

/* "--name V" or "--name=V" at argv[*i]: returns 1 and sets *val (NULL when
 * the value is missing; *i is advanced past a separate value), 0 if argv[*i]
 * is not that option. */
int match_option(int argc, char **argv, int *i, const char *name, const char **val);

/* "--help" or "-h". */
int is_help(const char *arg);

/* The options of a bench subcommand: counts (name, bounds, value with its
 * default) and strings (name, value with its default). Returns 0 when parsed,
 * 1 after printing usage for --help, 2 after saying on stderr what is wrong. */
struct count_option {
    const char *name;
    uint64_t lo, hi, value;
};
struct string_option {
    const char *name;
    const char *value;
};
int parse_options(int argc, char **argv, const char *prog, const char *usage, struct count_option *counts,
                  int ncounts, struct string_option *strings, int nstrings);

/* qsort comparator for doubles, ascending. */
int cmp_double(const void *a, const void *b);

/* Median of a sorted array of n > 0 values. */
double median_sorted(const double *v, size_t n);

/* Where a kernel came from, by the cache counters around the call:
 * "jit", "disk", "mem" or "". */
const char *kernel_source(const cured_stats *before, const cured_stats *after);

/* The length of the longest built-in kernel name (for columns), at most 120. */
int kernel_name_width(void);

/* Whether NVRTC can target sm (1), cannot (0) or cannot say (-1: no NVRTC). */
int arch_offered(int sm);

/* One cured_compile_kernel() with its wall time and cache outcome. */
struct compile_result {
    cured_status status;
    size_t bytes;
    double ms;
    const char *source; /* kernel_source() of the call */
    char why[1024];     /* cured_last_error() when status is not success */
};
cured_status compile_one(size_t index, int sm, int ptx, struct compile_result *r);

/* The disk cache directory, or NULL with *reason saying why it is off or
 * unusable (the library's own log message when it gave one). */
const char *cache_dir_or_reason(const char **reason);

/* cache.c: the disk cache directory, or NULL after saying on stderr that
 * `cured cache what` cannot run because the cache is off. */
const char *cache_need_dir(const char *what);

/* Entries of the disk cache: count and total bytes. */
void cache_totals(size_t *entries, uint64_t *bytes);

/* The entry files (64 hex digits) in the cache directory dir, read with
 * opendir(): their number, their bytes, and how many were written or used
 * (mtime) at or after `since`. 0, or -1 if dir cannot be read. */
int scan_cache_dir(const char *dir, int64_t since, size_t *entries, uint64_t *bytes, size_t *fresh);

/* Bytes as "123 B", "1.2 KiB", "3.4 MiB" or "5.6 GiB" in buf; returns buf. */
const char *human_bytes(uint64_t bytes, char buf[32]);

#endif
