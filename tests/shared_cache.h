/* test-compile's disk cache, shared with tests/test-warm.sh (shared_cache.c). */
#ifndef CURED_TEST_SHARED_CACHE_H
#define CURED_TEST_SHARED_CACHE_H

/* Before the first library call: a fresh directory PREFIX.XXXXXX as the
 * disk cache (after removing the one an earlier run published); its path,
 * or NULL when CURED_TEST_SHARED_CACHE is unset or unusable. */
const char *shared_cache_open(void);
/* Remove the directory an earlier run published (when this run shares nothing). */
void shared_cache_forget(void);
/* After the suite: name the directory in PREFIX.path if passed, else remove it. */
void shared_cache_publish(int passed);

#endif
