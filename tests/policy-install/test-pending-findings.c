/*
 * Unit tests of the list of packages whose judged findings wait for a
 * package manager's trigger (pending-findings.c): each package once, in
 * order, whatever the file held before (a last line without its newline,
 * lines that are no package label), names taken off while others stay,
 * the file gone when empty, and a list beyond its bound refused.
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

#include "fileio.h"
#include "paths.h"
#include "pending-findings.h"

typedef struct Fixture {
        char dir[64];
        char lock[96];
        ToolPaths paths;
        char *list;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        snprintf(f->dir, sizeof(f->dir), "/tmp/pending-findings.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        snprintf(f->lock, sizeof(f->lock), "%s/lock", f->dir);
        f->paths.lock_file = f->lock;
        f->list = pending_findings_path(&f->paths);
        assert_non_null(f->list);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        unlink(f->list);
        rmdir(f->dir);
        free(f->list);
        free(f);
        return 0;
}

static char *names_text(const ToolPaths *paths) {
        char **names = NULL, *text = NULL;
        size_t n = 0, size = 0;
        FILE *out = open_memstream(&text, &size);

        assert_int_equal(pending_findings_read(paths, &names, &n), 0);
        for (size_t i = 0; i < n; i++)
                fprintf(out, "%s%s", i ? " " : "", names[i]);
        fclose(out);
        pending_findings_free(names, n);
        return text;
}

static void assert_names(const ToolPaths *paths, const char *expected) {
        char *text = names_text(paths);

        assert_string_equal(text, expected);
        free(text);
}

static void test_add_read_remove(void **state) {
        Fixture *f = *state;
        char *gone[] = { (char *) "calendar", (char *) "never-listed" };

        assert_names(&f->paths, "");
        assert_int_equal(pending_findings_add(&f->paths, "trusted-app"), 0);
        assert_int_equal(pending_findings_add(&f->paths, "calendar"), 0);
        assert_int_equal(pending_findings_add(&f->paths, "trusted-app"), 0);
        assert_names(&f->paths, "trusted-app calendar");
        assert_int_equal(pending_findings_remove(&f->paths, gone, 2), 0);
        assert_names(&f->paths, "trusted-app");
        assert_int_equal(pending_findings_remove(&f->paths, (char *[]) { (char *) "trusted-app" }, 1), 0);
        assert_int_equal(access(f->list, F_OK), -1);
        assert_names(&f->paths, "");
        /* A name that is no package label is not written. */
        assert_int_equal(pending_findings_add(&f->paths, "../etc"), -EINVAL);
        assert_int_equal(pending_findings_add(&f->paths, "a\nb"), -EINVAL);
}

static void test_what_the_file_held(void **state) {
        Fixture *f = *state;
        const char *text = "app\n\n../x\nsvc\napp\nlong name\nlast-without-newline";

        assert_int_equal(fileio_write_atomic(f->list, text, strlen(text), 0644), 0);
        assert_names(&f->paths, "app svc last-without-newline");
        assert_int_equal(pending_findings_add(&f->paths, "new"), 0);
        assert_names(&f->paths, "app svc last-without-newline new");
}

static void test_bounded(void **state) {
        Fixture *f = *state;
        size_t size = PENDING_FINDINGS_MAX_SIZE + 1;
        char *big = malloc(size), **names = NULL;
        size_t n = 0;

        assert_non_null(big);
        memset(big, 'a', size);
        for (size_t i = 63; i < size; i += 64)
                big[i] = '\n';
        assert_int_equal(fileio_write_atomic(f->list, big, size, 0644), 0);
        free(big);
        assert_int_equal(pending_findings_read(&f->paths, &names, &n), -EFBIG);
        assert_null(names);
        assert_int_equal(pending_findings_add(&f->paths, "app"), -EFBIG);
        /* Not a regular file: refused, not followed. */
        unlink(f->list);
        assert_int_equal(symlink("/etc/passwd", f->list), 0);
        assert_int_equal(pending_findings_read(&f->paths, &names, &n), -EBADMSG);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_add_read_remove, setup, teardown),
                cmocka_unit_test_setup_teardown(test_what_the_file_held, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
