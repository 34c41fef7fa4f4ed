/*
 * MD5, because dpkg records each file's MD5 in info/PACKAGE.md5sums and
 * that record is what says a file on disk is still the one the package
 * shipped. The reference hash mssf-policy writes for IMA is SHA-256; MD5
 * only tells "changed since unpack" for a file nobody is trying to forge
 * (the package archive's own signature chain is what vouches for it).
 */
#include <string.h>

#include "md5.h"

static const uint32_t md5_k[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
        0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
        0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
        0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
        0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
        0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
        0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static const uint8_t md5_shift[64] = {
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static uint32_t rotl(uint32_t x, unsigned n) {
        return (x << n) | (x >> (32 - n));
}

static void md5_block(Md5 *m, const uint8_t *p) {
        uint32_t w[16], a = m->state[0], b = m->state[1], c = m->state[2], d = m->state[3];

        for (size_t i = 0; i < 16; i++)
                w[i] = (uint32_t) p[4 * i] | (uint32_t) p[4 * i + 1] << 8 |
                       (uint32_t) p[4 * i + 2] << 16 | (uint32_t) p[4 * i + 3] << 24;
        for (unsigned i = 0; i < 64; i++) {
                uint32_t f, tmp;
                unsigned g;

                if (i < 16) {
                        f = (b & c) | (~b & d);
                        g = i;
                } else if (i < 32) {
                        f = (d & b) | (~d & c);
                        g = (5 * i + 1) % 16;
                } else if (i < 48) {
                        f = b ^ c ^ d;
                        g = (3 * i + 5) % 16;
                } else {
                        f = c ^ (b | ~d);
                        g = (7 * i) % 16;
                }
                tmp = d;
                d = c;
                c = b;
                b = b + rotl(a + f + md5_k[i] + w[g], md5_shift[i]);
                a = tmp;
        }
        m->state[0] += a;
        m->state[1] += b;
        m->state[2] += c;
        m->state[3] += d;
}

void md5_init(Md5 *m) {
        *m = (Md5) { .state = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 } };
}

void md5_update(Md5 *m, const void *data, size_t size) {
        const uint8_t *p = data;

        m->length += size;
        while (size > 0) {
                size_t n = 64 - m->n_block;

                if (n > size)
                        n = size;
                memcpy(m->block + m->n_block, p, n);
                m->n_block += n;
                p += n;
                size -= n;
                if (m->n_block == 64) {
                        md5_block(m, m->block);
                        m->n_block = 0;
                }
        }
}

void md5_final(Md5 *m, uint8_t digest[MD5_DIGEST_SIZE]) {
        uint64_t bits = m->length * 8;
        uint8_t pad = 0x80, zero = 0, length[8];

        for (size_t i = 0; i < 8; i++)
                length[i] = (uint8_t) (bits >> (8 * i));
        md5_update(m, &pad, 1);
        while (m->n_block != 56)
                md5_update(m, &zero, 1);
        md5_update(m, length, 8);
        for (size_t i = 0; i < 4; i++)
                for (size_t j = 0; j < 4; j++)
                        digest[4 * i + j] = (uint8_t) (m->state[i] >> (8 * j));
}
