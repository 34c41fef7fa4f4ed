/* Unit tests of ima.c: the security.ima bytes and dpkg's MD5 (digest.c has the vectors). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ima.h"

static void hex(const uint8_t *data, size_t size, char *out) {
        for (size_t i = 0; i < size; i++)
                sprintf(out + 2 * i, "%02x", data[i]);
}

static int digest_text(const char *text, ImaDigests *ret) {
        char path[] = "/tmp/test-ima.XXXXXX";
        int fd = mkstemp(path), r;

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        unlink(path);
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        r = ima_digest_fd(fd, ret);
        close(fd);
        return r;
}

/* The bytes "evmctl ima_hash -a sha256" writes for "abc": 04 04 + SHA-256. */
static void test_value_is_evmctls(void **state) {
        ImaDigests d;
        char text[2 * IMA_VALUE_SIZE + 1], md5[2 * DIGEST_MD5_SIZE + 1];

        (void) state;
        assert_int_equal(digest_text("abc", &d), 0);
        hex(d.value, IMA_VALUE_SIZE, text);
        assert_string_equal(text, "0404ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        hex(d.md5, DIGEST_MD5_SIZE, md5);
        assert_string_equal(md5, "900150983cd24fb0d6963f7d28e17f72");
}

static void test_empty_file(void **state) {
        ImaDigests d;
        char text[2 * IMA_VALUE_SIZE + 1], md5[2 * DIGEST_MD5_SIZE + 1];

        (void) state;
        assert_int_equal(digest_text("", &d), 0);
        hex(d.value, IMA_VALUE_SIZE, text);
        assert_string_equal(text, "0404e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        hex(d.md5, DIGEST_MD5_SIZE, md5);
        assert_string_equal(md5, "d41d8cd98f00b204e9800998ecf8427e");
}

static void test_value_equal(void **state) {
        ImaDigests d;
        uint8_t other[IMA_VALUE_SIZE];

        (void) state;
        assert_int_equal(digest_text("abc", &d), 0);
        assert_true(ima_value_equal(d.value, IMA_VALUE_SIZE, d.value));
        assert_false(ima_value_equal(d.value, IMA_VALUE_SIZE - 1, d.value));
        memcpy(other, d.value, sizeof(other));
        other[0] = 0x03;                /* a signature's type byte */
        assert_false(ima_value_equal(other, IMA_VALUE_SIZE, d.value));
        other[0] = 0x04;
        other[IMA_VALUE_SIZE - 1] ^= 1;
        assert_false(ima_value_equal(other, IMA_VALUE_SIZE, d.value));
}

static void test_digest_refuses_non_files(void **state) {
        ImaDigests d;

        (void) state;
        assert_int_equal(ima_digest_file("/", &d), -EINVAL);
        assert_int_equal(ima_digest_file("/nonexistent/file", &d), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_value_is_evmctls),
                cmocka_unit_test(test_empty_file),
                cmocka_unit_test(test_value_equal),
                cmocka_unit_test(test_digest_refuses_non_files),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
