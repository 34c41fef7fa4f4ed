/*
 * Keyed hashing for every table in the registry.
 *
 * Job: map client-chosen bytes (bus names, match keys) and integers (reply
 * serials, peer handles) to 64-bit hashes an attacker cannot predict, so
 * no client can fill one hash chain and make the bus quadratic.
 *
 * SipHash-1-3 (one compression round, three finalisation rounds; the
 * variant Rust and Python use for their tables). The 128-bit key is
 * derived once from the 16 random bytes the kernel hands every process
 * (getauxval(AT_RANDOM)); no I/O, nothing can fail. The derivation runs
 * the bytes through SipHash itself so the key is not the raw AT_RANDOM
 * value glibc also uses for its stack protector.
 */
#include <string.h>
#include <sys/auxv.h>

#include "hash.h"
#include "macro.h"

typedef struct SipState {
        uint64_t v0, v1, v2, v3;
} SipState;

static inline uint64_t rotl(uint64_t x, unsigned b) {
        return (x << b) | (x >> (64 - b));
}

static inline void sip_round(SipState *s) {
        s->v0 += s->v1;
        s->v1 = rotl(s->v1, 13);
        s->v1 ^= s->v0;
        s->v0 = rotl(s->v0, 32);
        s->v2 += s->v3;
        s->v3 = rotl(s->v3, 16);
        s->v3 ^= s->v2;
        s->v0 += s->v3;
        s->v3 = rotl(s->v3, 21);
        s->v3 ^= s->v0;
        s->v2 += s->v1;
        s->v1 = rotl(s->v1, 17);
        s->v1 ^= s->v2;
        s->v2 = rotl(s->v2, 32);
}

static inline uint64_t load_le64(const uint8_t *p) {
        uint64_t v = 0;
        for (unsigned i = 0; i < 8; i++)
                v |= (uint64_t)p[i] << (8 * i);
        return v;
}

static inline void sip_compress(SipState *s, uint64_t m) {
        s->v3 ^= m;
        sip_round(s);
        s->v0 ^= m;
}

static uint64_t siphash13(const uint64_t key[2], const void *data, size_t n) {
        const uint8_t *p = data;
        SipState s = {
                key[0] ^ UINT64_C(0x736f6d6570736575),
                key[1] ^ UINT64_C(0x646f72616e646f6d),
                key[0] ^ UINT64_C(0x6c7967656e657261),
                key[1] ^ UINT64_C(0x7465646279746573),
        };
        size_t full = n & ~(size_t)7;

        for (size_t i = 0; i < full; i += 8)
                sip_compress(&s, load_le64(p + i));

        uint64_t last = (uint64_t)(n & 0xff) << 56;
        for (size_t i = 0; i < (n & 7); i++)
                last |= (uint64_t)p[full + i] << (8 * i);
        sip_compress(&s, last);

        s.v2 ^= 0xff;
        sip_round(&s);
        sip_round(&s);
        sip_round(&s);
        return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

static const uint64_t *hash_key(void) {
        static uint64_t key[2];
        static int ready;

        if (_unlikely_(!ready)) {
                static const uint64_t zero[2];
                uint8_t seed[16] = { 0 };
                const void *random = (const void *)getauxval(AT_RANDOM);

                if (random)
                        memcpy(seed, random, sizeof(seed));
                key[0] = siphash13(zero, seed, sizeof(seed));
                key[1] = siphash13(zero, seed, sizeof(seed) - 1) ^ key[0];
                ready = 1;
        }
        return key;
}

uint64_t hash_bytes(const void *data, size_t n) {
        return siphash13(hash_key(), data, n);
}

uint64_t hash_u64_pair(uint64_t a, uint64_t b) {
        uint8_t buf[16];

        memcpy(buf, &a, 8);
        memcpy(buf + 8, &b, 8);
        return siphash13(hash_key(), buf, sizeof(buf));
}
