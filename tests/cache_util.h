/*
 * File-system helpers of the disk-cache suites (test-diskcache, test-gpu-cache):
 * private temporary trees, entry files, and a forged entry.
 */
#ifndef CURED_TESTS_CACHE_UTIL_H
#define CURED_TESTS_CACHE_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* A fresh directory (mkdtemp, mode 0700) under $TMPDIR or /tmp; 0 or -1. */
int make_temp_dir(char *out, size_t cap, const char *tag);
/* rm -rf that never follows symlinks and makes directories writable first; 0 or -1. */
int remove_tree(const char *path);
/* chown -h of path and everything under it; 0 or -1 (errno set). */
int chown_tree(const char *path, uid_t uid, gid_t gid);
/* Names of 64 hex digits in dir (cache entries, of any file type): their
 * number, the first max of them copied into names (may be NULL); -1 if dir
 * cannot be read. */
int list_entries(const char *dir, char (*names)[65], int max);
/* Names in dir other than . and ..; -1 if dir cannot be read. */
int count_files(const char *dir);
/* The first occurrence of needle in hay[0..n) (memmem, which C11 lacks), or NULL. */
const unsigned char *find_bytes(const unsigned char *hay, size_t n, const char *needle);
/* The one entry in dir whose file contains needle; 0, or -1 if none or several. */
int find_entry_with(const char *dir, const char *needle, char name[65]);
/* A whole file, NUL-terminated, in malloc'd memory; NULL on error. */
unsigned char *read_file(const char *path, size_t *size);
/* Create or replace path with data (mode for a new file); 0 or -1. */
int write_file(const char *path, const void *data, size_t size, mode_t mode);
/* 1 if the file at path holds exactly data, 0 if not or unreadable. */
int file_equals(const char *path, const void *data, size_t size);
/*
 * Overwrite every payload byte of the entry at path with fill and store the
 * matching checksum: a well-formed entry that no driver can load. Mirrors
 * the entry header of src/diskcache.c (test-diskcache checks that the result
 * is served as a disk hit, so a format change is caught there). 0 or -1.
 */
int forge_entry_payload(const char *path, unsigned char fill);
/* Recompute the checksum of a whole entry e[size] after editing it; 0 or -1. */
int seal_entry(unsigned char *e, size_t size);

#endif
