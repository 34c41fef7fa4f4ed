/*
 * Fuzzer for the "CapEff:" parser of /proc/PID/status
 * (broker/io/creds-caps.c), text the bus reads from processes it does not
 * control. Checks its contract: it accepts only a text with exactly one
 * well-formed CapEff line, and what it returns is that line's value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz-text.h"
#include "creds-caps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value of the first "\nCapEff:\t" line, read independently (1), or 0 if none. */
static int find_capeff(const char *text, size_t size, uint64_t *ret) {
        for (size_t at = 0; at + 8 + 16 < size; at++) {
                if ((at > 0 && text[at - 1] != '\n') || memcmp(text + at, "CapEff:\t", 8) != 0)
                        continue;
                *ret = strtoull(text + at + 8, NULL, 16);
                return 1;
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size);
        uint64_t effective = UINT64_C(0x5a5a5a5a5a5a5a5a), expected;
        int r;

        if (!text)
                return 0;
        r = creds_caps_parse_status(text, size, &effective);
        if (r != 0 && r != -ENODATA && r != -EBADMSG && r != -E2BIG)
                abort();
        if (r != 0 && effective != UINT64_C(0x5a5a5a5a5a5a5a5a))
                abort();        /* written on failure */
        if (r == 0 && (memchr(text, '\0', size) || !find_capeff(text, size, &expected) || expected != effective))
                abort();
        free(text);
        return 0;
}
