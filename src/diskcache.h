/* The persistent kernel cache; see diskcache.c. Every failure is a miss. */
#ifndef CURED_DISKCACHE_H
#define CURED_DISKCACHE_H

#include <stddef.h>
#include <sys/stat.h>

struct cr_image;

/* Fill img from the entry for key (full key text) of that kind (PTX or
 * cubin); 1 on a hit, 0 on a miss. */
int cr_diskcache_load(const char *key, int nkernels, int ptx, struct cr_image *img);
/* Store img under key; failures are logged ("store failed: ...") and ignored. */
void cr_diskcache_store(const char *key, const struct cr_image *img, int nkernels);
/* Remove the entry for key if it holds img's payload (the driver refused it)
 * or is damaged; a fresh entry another process stored since stays. */
void cr_diskcache_drop(const char *key, const struct cr_image *img, int nkernels);
/* The versioned cache directory in use, or NULL when the cache is off or unusable. */
const char *cr_diskcache_dir(void);
/* A small private file of the cache directory (not an entry): read whole into
 * buf (1 on success), or written atomically. Failures are silent misses. */
int cr_diskcache_read_small(const char *name, char *buf, size_t cap);
void cr_diskcache_write_small(const char *name, const char *text);
/* Tests: forget the opened directory (and cured_set_cache_dir) so the environment is read again. */
void cr_diskcache_reset_for_tests(void);
/* Tests: replaces write(2) for entry files, to inject ENOSPC and the like. */
extern int (*cr_diskcache_write_hook)(int fd, const void *buf, size_t n);

/*
 * Check an entry read whole into buf[size] (buf has one spare byte): header,
 * kind (PTX when ptx), sizes, key, checksum, kernel names. On success the
 * payload is moved to buf's start and NUL-terminated, img (data = buf, size,
 * ptx, lowered names) is filled and NULL is returned; else the reason. Pure:
 * the fuzzers call it.
 */
const char *cr_diskcache_check_entry(unsigned char *buf, size_t size, const char *key, int nkernels, int ptx,
                                     struct cr_image *img);

/* ---- shared by diskcache.c, diskcache_list.c and cachedir.c ---- */
/* The cache's directory descriptors (opening the cache on first use); 0 when off. */
int cr_diskcache_fds(int *dir, int *tmp);
/* Open name in dir for reading if it is a regular file of ours, without
 * blocking on a FIFO; -1 with *why NULL when absent, else the reason. */
int cr_diskcache_open_entry(int dir, const char *name, struct stat *st, const char **why);
/* An entry's key text (malloc'd), for listing; 0 on success. */
int cr_diskcache_read_key(int dir, const char *name, char **key, struct stat *st);
/* Sweep stale temp files, then evict least recently used entries above the limit. */
void cr_diskcache_tidy(int dir, int tmp, const char *keep);
/* name in at as a private directory of ours (created 0700 if create), or -1 with why set. */
int cr_cachedir_private(int at, const char *name, int create, char *why, size_t cap);
/* Resolve and open the cache root (explicit_dir: cured_set_cache_dir's, or
 * NULL) and its schema and tmp directories; 1 usable, 0 off (logged). */
int cr_cachedir_open(const char *explicit_dir, const char *schema, int *root_fd, int *tmp_fd, char *path,
                     size_t cap);

#endif
