/* Unit tests of sha256.c: the FIPS 180-4 examples, block boundaries, a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"
#include "sha256.h"

static void test_vectors(void **state) {
        char hex[SHA256_HEX_SIZE];

        sha256_hex("", 0, hex);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        sha256_hex("abc", 3, hex);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
        assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* A million 'a', fed in pieces that straddle the 64-byte blocks. */
static void test_pieces(void **state) {
        uint8_t digest[SHA256_DIGEST_SIZE];
        char hex[SHA256_HEX_SIZE], chunk[1000];
        Sha256 s;

        memset(chunk, 'a', sizeof(chunk));
        sha256_init(&s);
        for (size_t done = 0, step = 1; done < 1000000; done += step, step = step % 990 + 7)
                sha256_update(&s, chunk, done + step > 1000000 ? 1000000 - done : step);
        sha256_final(&s, digest);
        sha256_digest_to_hex(digest, hex);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_file(void **state) {
        char path[] = "/tmp/test-sha256.XXXXXX", hex[SHA256_HEX_SIZE];
        uint64_t size = 0;
        int fd = mkstemp(path);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, "abc", 3), 3);
        close(fd);
        assert_int_equal(sha256_file(path, hex, &size), 0);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_int_equal(size, 3);
        unlink(path);
        assert_int_equal(sha256_file(path, hex, &size), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_vectors),
                cmocka_unit_test(test_pieces),
                cmocka_unit_test(test_file),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
