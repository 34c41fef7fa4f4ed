/*
 * Unit tests of smack-setup.c: which files get security.SMACK64EXEC, and
 * which do not (another package's binary, a path leaving --root, "..", a
 * label someone else set). Real security.* xattrs: needs root, else skipped.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "xattr-probe.h"

#include "diagnostic.h"
#include "fileio.h"
#include "manifest.h"
#include "model.h"
#include "paths.h"
#include "smack-setup.h"
#include "transaction.h"

typedef struct Fixture {
        char root[64];
        ToolPaths paths;
} Fixture;

static char *bin_path(const Fixture *f, const char *name) {
        char *path = NULL;

        assert_true(asprintf(&path, "%s/usr/bin/%s", f->root, name) > 0);
        return path;
}

static void make_file(const Fixture *f, const char *name) {
        _cleanup_free_ char *path = bin_path(f, name);

        assert_int_equal(fileio_write_atomic(path, "x", 1, 0755), 0);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        ToolPathOptions options = {};
        _cleanup_free_ char *bin = NULL, *link = NULL, *rel = NULL;

        assert_non_null(f);
        strcpy(f->root, "/tmp/test-smack-setup.XXXXXX");
        assert_non_null(mkdtemp(f->root));
        options.root = f->root;
        assert_int_equal(tool_paths_init(&f->paths, &options), 0);
        assert_true(asprintf(&bin, "%s/usr/bin", f->root) > 0);
        assert_int_equal(fileio_mkdir_p(bin, 0755), 0);
        make_file(f, "app");
        make_file(f, "app2");
        make_file(f, "host");
        link = bin_path(f, "escape");
        assert_int_equal(symlink("/etc/passwd", link), 0);
        rel = bin_path(f, "rel");
        assert_int_equal(symlink("app2", rel), 0);
        *state = f;
        return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

static int teardown(void **state) {
        Fixture *f = *state;

        tool_paths_deinit(&f->paths);
        nftw(f->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(f);
        return 0;
}

static Package *parse(const char *name, const char *xml) {
        Package *package = NULL;

        assert_int_equal(manifest_parse_buffer(xml, strlen(xml), "test.xml", name, "system", NULL,
                                               &package), 0);
        return package;
}

/* The SMACK64EXEC of usr/bin/name, or "none". */
static const char *label_of(const Fixture *f, const char *name) {
        static char value[256];
        _cleanup_free_ char *path = bin_path(f, name);
        ssize_t n = lgetxattr(path, SMACK_XATTR_EXEC, value, sizeof(value) - 1);

        if (n < 0)
                return "none";
        value[n] = '\0';
        return value;
}

static int label(const Fixture *f, const Package *old_package, const Package *new_package,
                 Diagnostics *diag) {
        _cleanup_(transaction_freep) Transaction *t = NULL;
        int r;

        assert_int_equal(transaction_new(NULL, &t), 0);
        r = smack_setup_label(t, &f->paths, old_package, new_package, diag);
        if (r == 0)
                transaction_commit(t);
        return r;
}

static bool xattrs_work(const Fixture *f) {
        _cleanup_free_ char *path = bin_path(f, "host");

        if (setxattr(path, SMACK_XATTR_EXEC, "x", 1, 0) < 0)
                return false;
        assert_int_equal(removexattr(path, SMACK_XATTR_EXEC), 0);
        return true;
}

static void test_label_and_unlabel(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *v1 = NULL, *v2 = NULL;

        if (!xattrs_work(f))
                skip();
        v1 = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                   "<for path=\"/usr/bin/app\"/><for path=\"/usr/bin/missing\"/>"
                   "<for path=\"host::/usr/bin/host\"/></request>"
                   "<request><credential name=\"Cellular\"/><for path=\"/usr/bin/app\"/></request></aegis>");
        v2 = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                   "<for path=\"/usr/bin/rel\"/></request></aegis>");
        assert_int_equal(diagnostics_new(&diag), 0);

        assert_int_equal(label(f, NULL, v1, diag), 0);
        assert_string_equal(label_of(f, "app"), "pkg");
        /* Another package's binary is that package's to label. */
        assert_string_equal(label_of(f, "host"), "none");
        /* A binary that is not there is a warning, not an error. */
        assert_int_equal(diag->n_errors, 0);
        assert_non_null(diagnostics_find(diag, "does not exist"));

        /* Upgrade: app is no longer named; rel (a symlink) labels its target. */
        assert_int_equal(label(f, v1, v2, diag), 0);
        assert_string_equal(label_of(f, "app"), "none");
        assert_string_equal(label_of(f, "app2"), "pkg");

        /* A label someone else set since is not removed. */
        _cleanup_free_ char *app2 = bin_path(f, "app2");
        assert_int_equal(setxattr(app2, SMACK_XATTR_EXEC, "admin", 5, 0), 0);
        assert_int_equal(label(f, v2, NULL, diag), 0);
        assert_string_equal(label_of(f, "app2"), "admin");
        assert_int_equal(removexattr(app2, SMACK_XATTR_EXEC), 0);
}

static void test_refused_paths(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *escape = NULL, *dots = NULL;

        if (!xattrs_work(f))
                skip();
        escape = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                       "<for path=\"/usr/bin/escape\"/></request></aegis>");
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(label(f, NULL, escape, diag), SMACK_SETUP_E_PATH);
        assert_non_null(diagnostics_find(diag, "outside"));
        assert_int_equal(lgetxattr("/etc/passwd", SMACK_XATTR_EXEC, NULL, 0) < 0 ? errno : 0, ENODATA);

        dots = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                     "<for path=\"/usr/bin/../bin/app\"/></request></aegis>");
        if (dots) {
                assert_int_equal(label(f, NULL, dots, diag), SMACK_SETUP_E_PATH);
                assert_non_null(diagnostics_find(diag, ".."));
                assert_string_equal(label_of(f, "app"), "none");
        }
}

int main(void) {
        if (!security_xattrs_available())
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_label_and_unlabel),
                cmocka_unit_test(test_refused_paths),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
