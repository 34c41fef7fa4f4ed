/*
 * The blob format (keyd/blob.c): what the writer writes the parser reads
 * back; the parser refuses, by its three codes, everything else, without
 * reading past what it is given (the fuzzer covers the rest).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blob.h"

static const BlobHeader header = {
        .type = BLOB_TYPE_CIPHERTEXT,
        .mode = ROOT_MODE_TPM,
        .key = { .kind = KEY_KIND_TOKEN, .name = "calendar::work" },
        .creator = "appB",
        .root_id = { 1, 2, 3, 4, 5, 6, 7, 8 },
};

/* header, then a nonce, 3 bytes of ciphertext and a tag: a whole ciphertext blob. */
static size_t make(const BlobHeader *h, uint8_t *out) {
        size_t n = blob_header_size(h);

        assert_int_equal(blob_write_header(h, out, 1024), 0);
        memset(out + n, 0xaa, BLOB_NONCE_SIZE + 3 + BLOB_GCM_TAG_SIZE);
        return n + BLOB_NONCE_SIZE + 3 + BLOB_GCM_TAG_SIZE;
}

static void test_round_trip(void **unused) {
        uint8_t buf[1024];
        size_t n = make(&header, buf);
        BlobView v;

        assert_int_equal(n, BLOB_FIXED_HEADER_SIZE + 14 + 4 + 12 + 3 + 16);
        assert_memory_equal(buf, "MK\x01\x01\x01\x02\x0e" "calendar::work" "\x04" "appB", 2 + 5 + 14 + 1 + 4);
        assert_int_equal(blob_parse(buf, n, BLOB_TYPE_CIPHERTEXT, &v), 0);
        assert_int_equal(v.header.key.kind, KEY_KIND_TOKEN);
        assert_string_equal(v.header.key.name, "calendar::work");
        assert_string_equal(v.header.creator, "appB");
        assert_memory_equal(v.header.root_id, header.root_id, 8);
        assert_int_equal(v.header_size, blob_header_size(&header));
        assert_ptr_equal(v.nonce, buf + v.header_size);
        assert_int_equal(v.payload_size, 3);
        assert_ptr_equal(v.tag, buf + n - 16);
        /* The same bytes as another type: BLOB_E_TYPE, said after the header parsed. */
        assert_int_equal(blob_parse(buf, n, BLOB_TYPE_SIGNATURE, &v), BLOB_E_TYPE);
}

static void test_signature_size(void **unused) {
        BlobHeader h = header;
        uint8_t buf[1024];
        size_t n;
        BlobView v;

        h.type = BLOB_TYPE_SIGNATURE;
        n = blob_header_size(&h);
        assert_int_equal(blob_write_header(&h, buf, sizeof(buf)), 0);
        memset(buf + n, 0x55, BLOB_MAC_SIZE + 1);
        assert_int_equal(blob_parse(buf, n + BLOB_MAC_SIZE, BLOB_TYPE_SIGNATURE, &v), 0);
        assert_int_equal(v.tag_size, BLOB_MAC_SIZE);
        assert_null(v.nonce);
        /* Exactly a MAC after the header: one byte more or less is not a signature. */
        assert_int_equal(blob_parse(buf, n + BLOB_MAC_SIZE + 1, BLOB_TYPE_SIGNATURE, &v), BLOB_E_MALFORMED);
        assert_int_equal(blob_parse(buf, n + BLOB_MAC_SIZE - 1, BLOB_TYPE_SIGNATURE, &v), BLOB_E_MALFORMED);
}

static void test_refused(void **unused) {
        uint8_t buf[1024], bad[1024];
        size_t n = make(&header, buf);
        BlobView v;

        /* Every prefix of the header and of the nonce+tag is refused as malformed (version first). */
        for (size_t i = 0; i < blob_header_size(&header) + BLOB_NONCE_SIZE + BLOB_GCM_TAG_SIZE; i++)
                assert_int_equal(blob_parse(buf, i, BLOB_TYPE_CIPHERTEXT, &v), BLOB_E_MALFORMED);
        assert_int_equal(blob_parse(NULL, 10, BLOB_TYPE_CIPHERTEXT, &v), BLOB_E_MALFORMED);
        /* Each field that may not be what it is. */
        struct { size_t at; uint8_t value; int expected; } cases[] = {
                { 0, 'X', BLOB_E_MALFORMED },           /* magic */
                { 2, 0, BLOB_E_VERSION },               /* version */
                { 2, 9, BLOB_E_VERSION },
                { 3, 0, BLOB_E_MALFORMED },             /* type */
                { 3, 4, BLOB_E_MALFORMED },
                { 4, 3, BLOB_E_MALFORMED },             /* mode */
                { 5, 0, BLOB_E_MALFORMED },             /* kind */
                { 6, 0, BLOB_E_MALFORMED },             /* key length 0 */
                { 6, 250, BLOB_E_MALFORMED },           /* key length past the end */
                { 7, ' ', BLOB_E_MALFORMED },           /* a space in the key's name */
                { 7, 0, BLOB_E_MALFORMED },             /* a NUL in it */
                { 21, 0, BLOB_E_MALFORMED },            /* creator length 0 */
                { 22, '/', BLOB_E_MALFORMED },          /* a slash in the creator */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                memcpy(bad, buf, n);
                bad[cases[i].at] = cases[i].value;
                if (blob_parse(bad, n, BLOB_TYPE_CIPHERTEXT, &v) != cases[i].expected)
                        fail_msg("byte %zu = %u: not %d", cases[i].at, cases[i].value, cases[i].expected);
        }
        /* An own key's blob made by another label cannot exist: malformed, and never written. */
        BlobHeader h = header;
        h.key = (KeyRef) { .kind = KEY_KIND_LABEL, .name = "appA" };
        assert_int_equal(blob_write_header(&h, bad, sizeof(bad)), -EINVAL);
        strcpy(h.creator, "appA");
        n = make(&h, bad);
        memcpy(bad + 7 + 4 + 1, "appB", 4);
        assert_int_equal(blob_parse(bad, n, BLOB_TYPE_CIPHERTEXT, &v), BLOB_E_MALFORMED);
        /* POSIX credentials and Smack's special labels are no key. */
        h = header;
        strcpy(h.key.name, "UID::root");
        assert_int_equal(blob_write_header(&h, bad, sizeof(bad)), -EINVAL);
        strcpy(h.key.name, "_");
        assert_int_equal(blob_write_header(&h, bad, sizeof(bad)), -EINVAL);
        /* Nor does the writer write into too small a buffer. */
        assert_int_equal(blob_write_header(&header, bad, blob_header_size(&header) - 1), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_signature_size),
                cmocka_unit_test(test_refused),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
