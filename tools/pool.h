/*
 * A small thread pool for work that is many independent calls, such as
 * compiling every kernel (NVRTC and cured's kernel cache are thread-safe):
 * `cured cache warm -j N` and tests/test-compile use it.
 */
#ifndef CURED_POOL_H
#define CURED_POOL_H

#include <stddef.h>

/* Calls work(user, i) once for every i in [0, n), on nthreads threads (the
 * caller's among them), handing out indices in increasing order. After each
 * call, done(user, i, finished) runs with the pool's lock held, so it may
 * print progress or update shared counts without its own lock (done may be
 * NULL). Returns 0 when every index was done. With nthreads <= 1, or when
 * further threads cannot be started, fewer threads (at least the caller)
 * do all the work. */
int pool_run(size_t n, int nthreads, void (*work)(void *user, size_t i),
             void (*done)(void *user, size_t i, size_t finished), void *user);

/* The number of online CPUs (at least 1, at most 256). */
int pool_cpus(void);

#endif
