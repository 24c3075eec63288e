/* The thread pool of pool.h. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "pool.h"

struct pool {
    pthread_mutex_t lock;
    size_t n, next, finished;
    void (*work)(void *, size_t);
    void (*done)(void *, size_t, size_t);
    void *user;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i == p->n)
            return NULL;
        p->work(p->user, i);
        pthread_mutex_lock(&p->lock);
        p->finished++;
        if (p->done)
            p->done(p->user, i, p->finished);
        pthread_mutex_unlock(&p->lock);
    }
}

int pool_run(size_t n, int nthreads, void (*work)(void *user, size_t i),
             void (*done)(void *user, size_t i, size_t finished), void *user)
{
    struct pool p = {PTHREAD_MUTEX_INITIALIZER, n, 0, 0, work, done, user};
    if (nthreads < 1)
        nthreads = 1;
    if ((size_t)nthreads > n)
        nthreads = n > 0 ? (int)n : 1;
    pthread_t *t = nthreads > 1 ? malloc((size_t)(nthreads - 1) * sizeof *t) : NULL;
    int started = 0;
    if (t != NULL)
        while (started < nthreads - 1 && pthread_create(&t[started], NULL, worker, &p) == 0)
            started++;
    worker(&p); /* the caller is one of the threads */
    for (int k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
    pthread_mutex_destroy(&p.lock);
    return 0;
}

int pool_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
