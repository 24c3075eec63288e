/* File-system helpers of the disk-cache suites; see cache_util.h. */
#include "cache_util.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int make_temp_dir(char *out, size_t cap, const char *tag)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || *base != '/')
        base = "/tmp";
    int n = snprintf(out, cap, "%s/cured-%s.XXXXXX", base, tag);
    return n > 0 && (size_t)n < cap && mkdtemp(out) != NULL ? 0 : -1;
}

int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    chmod(path, 0700);
    DIR *d = opendir(path);
    int rc = 0;
    if (d != NULL) {
        struct dirent *e;
        char sub[4096];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rc |= remove_tree(sub);
        }
        closedir(d);
    }
    return rmdir(path) == 0 ? rc : -1;
}

int chown_tree(const char *path, uid_t uid, gid_t gid)
{
    if (lchown(path, uid, gid) != 0)
        return -1;
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return 0;
    DIR *d = opendir(path);
    if (d == NULL)
        return -1;
    int rc = 0;
    struct dirent *e;
    char sub[4096];
    while (rc == 0 && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            rc = chown_tree(sub, uid, gid);
        }
    closedir(d);
    return rc;
}

static int is_entry_name(const char *s)
{
    size_t n = strlen(s);
    return n == 64 && strspn(s, "0123456789abcdef") == 64;
}

int list_entries(const char *dir, char (*names)[65], int max)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (is_entry_name(e->d_name)) {
            if (names != NULL && n < max)
                memcpy(names[n], e->d_name, 65);
            n++;
        }
    closedir(d);
    return n;
}

int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

const unsigned char *find_bytes(const unsigned char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return hay + i;
    return NULL;
}

int find_entry_with(const char *dir, const char *needle, char name[65])
{
    char names[64][65], path[4096];
    int n = list_entries(dir, names, 64), found = 0;
    for (int i = 0; i < n && i < 64; i++) {
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path)
            return -1;
        size_t size = 0;
        unsigned char *data = read_file(path, &size);
        if (data != NULL && find_bytes(data, size, needle) != NULL) {
            memcpy(name, names[i], 65);
            found++;
        }
        free(data);
    }
    return found == 1 ? 0 : -1;
}

unsigned char *read_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return NULL;
    unsigned char *buf = NULL;
    if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) != NULL) {
        size_t done = 0;
        ssize_t r = 1;
        while (done < (size_t)st.st_size && (r = read(fd, buf + done, (size_t)st.st_size - done)) > 0)
            done += (size_t)r;
        if (done != (size_t)st.st_size) {
            free(buf);
            buf = NULL;
        } else {
            buf[done] = '\0';
            *size = done;
        }
    }
    close(fd);
    return buf;
}

int write_file(const char *path, const void *data, size_t size, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return -1;
    size_t done = 0;
    ssize_t r = 1;
    while (done < size && (r = write(fd, (const char *)data + done, size - done)) > 0)
        done += (size_t)r;
    return close(fd) == 0 && done == size ? 0 : -1;
}

int file_equals(const char *path, const void *data, size_t size)
{
    size_t got = 0;
    unsigned char *buf = read_file(path, &got);
    int eq = buf != NULL && got == size && memcmp(buf, data, size) == 0;
    free(buf);
    return eq;
}

/* src/diskcache.c: magic[8], format, kind, key_len, meta_len (uint32),
 * payload_len (uint64), SHA-256 of kind (4 bytes, little-endian) + meta +
 * payload; then key, meta, payload. */
enum { H_KIND = 12, H_KEY_LEN = 16, H_META_LEN = 20, H_PAYLOAD_LEN = 24, H_SUM = 32, H_SIZE = 64 };

int seal_entry(unsigned char *e, size_t size)
{
    uint32_t key_len, meta_len;
    uint64_t payload_len;
    memcpy(&key_len, e + H_KEY_LEN, 4);
    memcpy(&meta_len, e + H_META_LEN, 4);
    memcpy(&payload_len, e + H_PAYLOAD_LEN, 8);
    if (size < H_SIZE || size != H_SIZE + (uint64_t)key_len + meta_len + payload_len)
        return -1;
    unsigned char *meta = e + H_SIZE + key_len, *payload = meta + meta_len;
    struct cr_sha256 s;
    cr_sha256_init(&s);
    cr_sha256_update(&s, e + H_KIND, 4); /* stored little-endian on the machines cured runs on */
    cr_sha256_update(&s, meta, meta_len);
    cr_sha256_update(&s, payload, (size_t)payload_len);
    cr_sha256_final(&s, e + H_SUM);
    return 0;
}

int forge_entry_payload(const char *path, unsigned char fill)
{
    size_t size = 0;
    unsigned char *e = read_file(path, &size);
    if (e == NULL)
        return -1;
    uint32_t key_len, meta_len;
    uint64_t payload_len;
    memcpy(&key_len, e + H_KEY_LEN, 4);
    memcpy(&meta_len, e + H_META_LEN, 4);
    memcpy(&payload_len, e + H_PAYLOAD_LEN, 8);
    int rc = -1;
    if (size >= H_SIZE && size == H_SIZE + (uint64_t)key_len + meta_len + payload_len) {
        memset(e + H_SIZE + key_len + meta_len, fill, (size_t)payload_len);
        if (seal_entry(e, size) == 0)
            rc = write_file(path, e, size, 0600);
    }
    free(e);
    return rc;
}
