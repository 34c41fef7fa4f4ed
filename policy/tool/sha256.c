/*
 * SHA-256, the digest apt lists for every package file (the SHA256 field
 * of a Packages stanza) and that mssf-policy uses to tie an installed
 * package to the repository that vouched for its bytes. A plain
 * implementation of FIPS 180-4 from its text, checked against the
 * standard's test vectors (tests/policy-tool/test-sha256.c); mssf-policy
 * links no crypto library for this one use.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "sha256.h"

static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) {
        return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const uint8_t block[64]) {
        uint32_t w[64], a, b, c, d, e, f, g, h;

        for (size_t i = 0; i < 16; i++)
                w[i] = (uint32_t) block[4 * i] << 24 | (uint32_t) block[4 * i + 1] << 16 |
                       (uint32_t) block[4 * i + 2] << 8 | block[4 * i + 3];
        for (size_t i = 16; i < 64; i++) {
                uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);

                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        a = state[0], b = state[1], c = state[2], d = state[3];
        e = state[4], f = state[5], g = state[6], h = state[7];
        for (size_t i = 0; i < 64; i++) {
                uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                              k[i] + w[i];
                uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

                h = g, g = f, f = e, e = d + t1;
                d = c, c = b, b = a, a = t1 + t2;
        }
        state[0] += a, state[1] += b, state[2] += c, state[3] += d;
        state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

void sha256_init(Sha256 *s) {
        static const uint32_t initial[8] = {
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        };

        memcpy(s->state, initial, sizeof(initial));
        s->length = 0;
        s->n_block = 0;
}

void sha256_update(Sha256 *s, const void *data, size_t size) {
        const uint8_t *p = data;

        s->length += size;
        while (size > 0) {
                size_t n = 64 - s->n_block;

                if (n > size)
                        n = size;
                memcpy(s->block + s->n_block, p, n);
                s->n_block += n;
                p += n;
                size -= n;
                if (s->n_block == 64) {
                        compress(s->state, s->block);
                        s->n_block = 0;
                }
        }
}

void sha256_final(Sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE]) {
        uint64_t bits = s->length * 8;
        uint8_t pad = 0x80;

        sha256_update(s, &pad, 1);
        pad = 0;
        while (s->n_block != 56)
                sha256_update(s, &pad, 1);
        for (int i = 7; i >= 0; i--) {
                uint8_t byte = (uint8_t) (bits >> (8 * i));

                sha256_update(s, &byte, 1);
        }
        for (size_t i = 0; i < 8; i++) {
                digest[4 * i] = (uint8_t) (s->state[i] >> 24);
                digest[4 * i + 1] = (uint8_t) (s->state[i] >> 16);
                digest[4 * i + 2] = (uint8_t) (s->state[i] >> 8);
                digest[4 * i + 3] = (uint8_t) s->state[i];
        }
}

void sha256_digest_to_hex(const uint8_t digest[SHA256_DIGEST_SIZE], char hex[SHA256_HEX_SIZE]) {
        static const char digits[] = "0123456789abcdef";

        for (size_t i = 0; i < SHA256_DIGEST_SIZE; i++) {
                hex[2 * i] = digits[digest[i] >> 4];
                hex[2 * i + 1] = digits[digest[i] & 0xf];
        }
        hex[2 * SHA256_DIGEST_SIZE] = '\0';
}

void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX_SIZE]) {
        uint8_t digest[SHA256_DIGEST_SIZE];
        Sha256 s;

        sha256_init(&s);
        sha256_update(&s, data, size);
        sha256_final(&s, digest);
        sha256_digest_to_hex(digest, hex);
}

int sha256_file(const char *path, char hex[SHA256_HEX_SIZE], uint64_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        uint8_t digest[SHA256_DIGEST_SIZE], buf[65536];
        Sha256 s;

        if (fd < 0)
                return -errno;
        sha256_init(&s);
        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                sha256_update(&s, buf, (size_t) n);
        }
        if (ret_size)
                *ret_size = s.length;
        sha256_final(&s, digest);
        sha256_digest_to_hex(digest, hex);
        return 0;
}
