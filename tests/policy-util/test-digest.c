/*
 * Unit tests of digest.c: the FIPS 180-4 SHA-256 examples and RFC 1321's
 * MD5 examples, a million 'a' read from a file in one pass for both, MD5
 * over the lengths where its padding changes, a file that is gone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "digest.h"

static void test_vectors(void **state) {
        char hex[DIGEST_SHA256_HEX_SIZE];

        assert_int_equal(digest_sha256_hex("", 0, hex), 0);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_int_equal(digest_sha256_hex("abc", 3, hex), 0);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_int_equal(digest_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                                           56, hex), 0);
        assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* A file of text, open at its start. */
static int file_of(const char *text, size_t size) {
        char path[] = "/tmp/test-digest.XXXXXX";
        int fd = mkstemp(path);

        assert_true(fd >= 0);
        unlink(path);
        for (size_t done = 0; done < size; ) {
                ssize_t n = write(fd, text + done, size - done);

                assert_true(n > 0);
                done += (size_t) n;
        }
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        return fd;
}

/* A million 'a': both digests from one read, more than one buffer's worth. */
static void test_million(void **state) {
        char *text = malloc(1000000), hex[2 * DIGEST_SHA256_SIZE + 1];
        FileDigests d;
        int fd;

        assert_non_null(text);
        memset(text, 'a', 1000000);
        fd = file_of(text, 1000000);
        assert_int_equal(digest_fd(fd, &d), 0);
        digest_to_hex(d.sha256, DIGEST_SHA256_SIZE, hex);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        digest_to_hex(d.md5, DIGEST_MD5_SIZE, hex);
        assert_string_equal(hex, "7707d6ae4e027c70eea2a935c2296f21");
        close(fd);
        free(text);
}

/* RFC 1321's examples, and the lengths where MD5's padding changes (55, 56, 64 bytes). */
static void test_md5(void **state) {
        static const struct { const char *text; size_t n; const char *md5; } cases[] = {
                { "", 0, "d41d8cd98f00b204e9800998ecf8427e" },
                { "abc", 3, "900150983cd24fb0d6963f7d28e17f72" },
                { "message digest", 14, "f96b697d7cb7938d525a2f31aaf161d0" },
                { NULL, 55, "ef1772b6dff9a122358552954ad0df65" },
                { NULL, 56, "3b0c8ac703f828b04c6c197006d17218" },
                { NULL, 64, "014842d480b571495a4a0363793f7367" },
        };
        char a[64], hex[2 * DIGEST_MD5_SIZE + 1];

        memset(a, 'a', sizeof(a));
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                FileDigests d;
                int fd = file_of(cases[i].text ? cases[i].text : a, cases[i].n);

                assert_int_equal(digest_fd(fd, &d), 0);
                digest_to_hex(d.md5, DIGEST_MD5_SIZE, hex);
                assert_string_equal(hex, cases[i].md5);
                close(fd);
        }
}

static void test_file(void **state) {
        char path[] = "/tmp/test-digest.XXXXXX", hex[DIGEST_SHA256_HEX_SIZE];
        uint64_t size = 0;
        int fd = mkstemp(path);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, "abc", 3), 3);
        close(fd);
        assert_int_equal(digest_sha256_file(path, hex, &size), 0);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_int_equal(size, 3);
        unlink(path);
        assert_int_equal(digest_sha256_file(path, hex, &size), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_vectors),
                cmocka_unit_test(test_million),
                cmocka_unit_test(test_md5),
                cmocka_unit_test(test_file),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
