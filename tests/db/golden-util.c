/*
 * Golden files: the expected output, committed. With MSSF_UPDATE_GOLDEN=1
 * the test writes the file instead of comparing (and still passes), so a
 * deliberate format change is one command plus a reviewed diff.
 */
#include "golden-util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db-fixture.h"

void golden_compare(const char *dir, const char *file, const void *data, size_t size) {
        char path[4096];
        _cleanup_free_ char *expected = NULL;
        size_t expected_size, at = 0;
        const char *update = getenv("MSSF_UPDATE_GOLDEN");

        snprintf(path, sizeof(path), "%s/%s", dir, file);
        if (update && strcmp(update, "1") == 0) {
                FILE *f = fopen(path, "wb");

                assert_non_null(f);
                assert_int_equal(fwrite(data, 1, size, f), size);
                assert_int_equal(fclose(f), 0);
                return;
        }
        expected = fixture_read_file(path, &expected_size);
        while (at < size && at < expected_size && ((const char *) data)[at] == expected[at])
                at++;
        if (at != size || at != expected_size)
                fail_msg("%s differs from the output at byte %zu (golden %zu bytes, output %zu); "
                         "rerun with MSSF_UPDATE_GOLDEN=1 if the change is intended",
                         path, at, expected_size, size);
}
