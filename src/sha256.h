/* SHA-256 for the disk cache's keys. */
#ifndef CURED_SHA256_H
#define CURED_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct cr_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t used;
};

void cr_sha256_init(struct cr_sha256 *s);
void cr_sha256_update(struct cr_sha256 *s, const void *data, size_t n);
void cr_sha256_final(struct cr_sha256 *s, unsigned char out[32]);
/* One-shot digest as 64 lowercase hex digits. */
void cr_sha256_hex(const void *data, size_t n, char hex[65]);

#endif
