/*
 * libFuzzer harness: the disk-cache entry reader (cr_diskcache_check_entry),
 * given a whole entry file. The first input byte chooses the expected kind
 * and kernel count and whether the harness first makes the stored key and
 * checksum right, so that the fuzzer reaches the checks behind them. A hit
 * must hand back a NUL-terminated payload of the right kind and named kernels.
 */
#include "internal.h"
#include "diskcache.h"
#include "sha256.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char key[] = "cured kernel cache key 1\nfuzz\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    const unsigned flags = data[0];
    const int ptx = flags & 1, nkernels = 1 + ((flags >> 1) & 1);
    size_t n = size - 1;
    unsigned char *buf = malloc(n + 1);
    memcpy(buf, data + 1, n);
    if (n >= 64) {
        uint32_t key_len, meta_len, kind;
        uint64_t payload_len;
        memcpy(&kind, buf + 12, 4);
        memcpy(&key_len, buf + 16, 4);
        memcpy(&meta_len, buf + 20, 4);
        memcpy(&payload_len, buf + 24, 8);
        if ((flags & 4) && key_len == sizeof key - 1 && 64 + (uint64_t)key_len <= n)
            memcpy(buf + 64, key, key_len);
        if ((flags & 8) && payload_len <= n && n == 64 + (uint64_t)key_len + meta_len + payload_len) {
            struct cr_sha256 s; /* the checksum of src/diskcache.c */
            cr_sha256_init(&s);
            cr_sha256_update(&s, buf + 12, 4);
            cr_sha256_update(&s, buf + 64 + key_len, meta_len);
            cr_sha256_update(&s, buf + 64 + key_len + meta_len, (size_t)payload_len);
            cr_sha256_final(&s, buf + 32);
        }
    }
    struct cr_image img;
    memset(&img, 0, sizeof img);
    const char *why = cr_diskcache_check_entry(buf, n, key, nkernels, ptx, &img);
    if (why == NULL) {
        if (img.data != buf || img.size == 0 || img.size > n || ((char *)img.data)[img.size] != '\0' ||
            img.ptx != ptx)
            abort();
        for (int k = 0; k < nkernels; k++)
            if (img.lowered[k][0] == '\0' || memchr(img.lowered[k], '\0', sizeof img.lowered[k]) == NULL)
                abort();
    } else if (*why == '\0') {
        abort();
    }
    free(buf);
    return 0;
}
