/*
 * Fuzzer over what the key service reads from outside: blobs
 * (blob_parse() as every type), and the root's state file
 * (rootstate_parse()). Any bytes must be refused with a code or parse
 * into something the writer would write back: a parsed header encodes
 * to the same bytes it was read from.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "rootstate.h"
#include "secmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_blob(const uint8_t *data, size_t size) {
        for (int type = BLOB_TYPE_CIPHERTEXT; type <= BLOB_TYPE_STORED; type++) {
                uint8_t again[BLOB_HEADER_MAX];
                BlobView v;
                int r = blob_parse(data, size, (BlobType) type, &v);

                if (r != 0 && r != BLOB_E_MALFORMED && r != BLOB_E_VERSION && r != BLOB_E_TYPE)
                        abort();
                if (r != 0)
                        continue;
                /* What was parsed is what the writer writes: the header is canonical. */
                if (v.header_size != blob_header_size(&v.header) ||
                    blob_write_header(&v.header, again, sizeof(again)) != 0 ||
                    memcmp(again, data, v.header_size) != 0)
                        abort();
                if (v.tag + v.tag_size != data + size)
                        abort();
        }
}

static void parse_state(const uint8_t *data, size_t size) {
        RootState *state = rootstate_new();
        char err[256];
        int r;

        if (!state)
                abort();
        r = rootstate_parse((const char *) data, size, state, err, sizeof(err));
        if (r != 0 && r != ROOTSTATE_E_INVALID)
                abort();
        if (r == 0 && state->mode != ROOT_MODE_TPM && state->mode != ROOT_MODE_SOFTWARE)
                abort();
        rootstate_free(state);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static bool initialized;

        if (!initialized) {
                if (secmem_init() < 0)
                        abort();
                initialized = true;
        }
        /* The first byte chooses: even, a blob; odd, a state file. */
        if (size == 0)
                return 0;
        if (data[0] % 2 == 0)
                parse_blob(data + 1, size - 1);
        else
                parse_state(data + 1, size - 1);
        return 0;
}
