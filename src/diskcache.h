/* The persistent kernel cache; see diskcache.c. Every failure is a miss. */
#ifndef CURED_DISKCACHE_H
#define CURED_DISKCACHE_H

struct cr_image;

/* Fill img from the entry for key (full key text); 1 on a hit, 0 on a miss. */
int cr_diskcache_load(const char *key, int nkernels, struct cr_image *img);
/* Store img under key; failures are logged and ignored. */
void cr_diskcache_store(const char *key, const struct cr_image *img, int nkernels);
/* Remove the entry for key (e.g. the driver rejected its payload). */
void cr_diskcache_drop(const char *key);
/* The versioned cache directory in use, or NULL when the cache is off or unusable. */
const char *cr_diskcache_dir(void);
/* A small private file of the cache directory (not an entry): read whole into
 * buf (1 on success), or written atomically. Failures are silent misses. */
int cr_diskcache_read_small(const char *name, char *buf, size_t cap);
void cr_diskcache_write_small(const char *name, const char *text);
/* Tests: forget the opened directory so the environment is read again. */
void cr_diskcache_reset_for_tests(void);
/* Tests: replaces write(2) for entry files, to inject ENOSPC and the like. */
extern int (*cr_diskcache_write_hook)(int fd, const void *buf, size_t n);

#endif
