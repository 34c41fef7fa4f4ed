/*
 * Fuzzer for the SASL server (broker/io/auth.c), the first parser every
 * unauthenticated peer reaches. Input byte 0 picks the peer uid's low
 * bits and the mechanisms, byte 1 the chunk size the stream is fed in;
 * the rest is the stream. Checks the state machine's contract on every
 * call: it never consumes more than it got nor writes more than allowed,
 * every reply is a whole known line, BEGIN ends it for good, and feeding
 * the same stream in other chunk sizes gives the same result.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"

#define FUZZ_GUID "0123456789abcdef0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_replies(const char *out, size_t n) {
        static const char *const verbs[] = { "OK ", "REJECTED", "DATA\r\n", "AGREE_UNIX_FD\r\n", "ERROR" };
        size_t i = 0;

        while (i < n) {
                const char *end = memchr(out + i, '\n', n - i);
                bool known = false;

                if (!end || end == out + i || end[-1] != '\r')
                        abort();
                for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++)
                        known = known || strncmp(out + i, verbs[v], strlen(verbs[v])) == 0;
                if (!known)
                        abort();
                i = (size_t) (end - out) + 1;
        }
}

/* Feeds stream in chunks of chunk bytes, as a connection would; returns the final result. */
static int run(const uint8_t *stream, size_t n, size_t chunk, uid_t uid, unsigned mechanisms,
               size_t *ret_consumed) {
        Auth auth;
        size_t fed = 0, pending = 0;
        uint8_t *buf = malloc(n + 1);
        int r = AUTH_E_MORE;

        if (!buf)
                abort();
        auth_init(&auth, uid, mechanisms, true, FUZZ_GUID);
        while (r == AUTH_E_MORE && fed < n) {
                size_t take = n - fed < chunk ? n - fed : chunk;
                char out[AUTH_OUT_MIN * 4];
                size_t consumed, out_len;

                memcpy(buf + pending, stream + fed, take);
                pending += take;
                fed += take;
                do {
                        r = auth_feed(&auth, buf, pending, &consumed, out, sizeof(out), &out_len);
                        if (consumed > pending || out_len > sizeof(out))
                                abort();
                        check_replies(out, out_len);
                        memmove(buf, buf + consumed, pending - consumed);
                        pending -= consumed;
                        *ret_consumed = fed - pending;
                } while (r == AUTH_E_MORE && consumed > 0 && pending > 0);
        }
        if (r == AUTH_E_DONE && auth.state != AUTH_STATE_DONE)
                abort();
        if (r == AUTH_E_DONE && !(mechanisms & AUTH_MECH_ANONYMOUS) && auth.anonymous)
                abort();
        free(buf);
        return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        unsigned mechanisms;
        size_t chunk, consumed_a = 0, consumed_b = 0;
        uid_t uid;
        int a, b;

        if (size < 2)
                return 0;
        uid = (uid_t) (data[0] & 0x7);
        mechanisms = AUTH_MECH_EXTERNAL | ((data[0] & 0x8) ? AUTH_MECH_ANONYMOUS : 0);
        chunk = (size_t) data[1] % 64 + 1;
        a = run(data + 2, size - 2, chunk, uid, mechanisms, &consumed_a);
        b = run(data + 2, size - 2, size, uid, mechanisms, &consumed_b);
        /* Chunking must not change the outcome (only "need more" may stop earlier). */
        if (a == AUTH_E_DONE && (b != AUTH_E_DONE || consumed_a != consumed_b))
                abort();
        return 0;
}
