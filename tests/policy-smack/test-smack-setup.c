/*
 * Unit tests of smack-setup.c: the package's binaries (as package-files.c
 * found them) get security.SMACK64EXEC, a binary no longer named loses
 * it, a label someone else set stays, and a binary replaced between the
 * check and the write is not labelled (neither the new file nor the old
 * one). Real security.* xattrs: needs root, else skipped.
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
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "xattr-probe.h"

#include "diagnostic.h"
#include "fileio.h"
#include "manifest.h"
#include "model.h"
#include "package-files.h"
#include "safe-root.h"
#include "smack-setup.h"
#include "transaction.h"

typedef struct Fixture {
        char root[64];
        SafeRoot *safe;
} Fixture;

static char *bin_path(const Fixture *f, const char *name) {
        char *path = NULL;

        assert_true(asprintf(&path, "%s/usr/bin/%s", f->root, name) > 0);
        return path;
}

static void make_file(const Fixture *f, const char *name, const char *text) {
        _cleanup_free_ char *path = bin_path(f, name);

        assert_int_equal(fileio_write_atomic(path, text, strlen(text), 0755), 0);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        _cleanup_free_ char *bin = NULL;

        assert_non_null(f);
        strcpy(f->root, "/tmp/test-smack-setup.XXXXXX");
        assert_non_null(mkdtemp(f->root));
        assert_true(asprintf(&bin, "%s/usr/bin", f->root) > 0);
        assert_int_equal(fileio_mkdir_p(bin, 0755), 0);
        make_file(f, "app", "app");
        make_file(f, "app2", "app2");
        make_file(f, "host", "host");
        assert_int_equal(safe_root_new(f->root, &f->safe), 0);
        *state = f;
        return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

static int teardown(void **state) {
        Fixture *f = *state;

        safe_root_free(f->safe);
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

/* The package's files, as an install would find them (by hand: no dpkg database). */
static PackageFiles *files_of(const Fixture *f, const Package *package) {
        PackageFilesContext context = { .root = f->safe };
        PackageFiles *files = NULL;

        if (!package)
                return NULL;
        assert_int_equal(package_files_new(&context, package->name, package, false, true, NULL,
                                           &files), 0);
        return files;
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

static int label_files(const Fixture *f, const PackageFiles *old_files,
                       const PackageFiles *new_files, Diagnostics *diag) {
        _cleanup_(transaction_freep) Transaction *t = NULL;
        int r;

        assert_int_equal(transaction_new(NULL, &t), 0);
        r = smack_setup_label(t, f->safe, old_files, "pkg", new_files, "pkg", diag);
        if (r == 0)
                transaction_commit(t);
        return r;
}

static int label(const Fixture *f, const Package *old_package, const Package *new_package,
                 Diagnostics *diag) {
        _cleanup_(package_files_freep) PackageFiles *old_files = files_of(f, old_package);
        _cleanup_(package_files_freep) PackageFiles *new_files = files_of(f, new_package);

        return label_files(f, old_files, new_files, diag);
}

static void test_label_and_unlabel(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *v1 = NULL, *v2 = NULL;

        v1 = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                   "<for path=\"/usr/bin/app\"/>"
                   "<for path=\"host::/usr/bin/host\"/></request>"
                   "<request><credential name=\"Cellular\"/><for path=\"/usr/bin/app\"/></request></aegis>");
        v2 = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                   "<for path=\"/usr/bin/app2\"/></request></aegis>");
        assert_int_equal(diagnostics_new(&diag), 0);

        assert_int_equal(label(f, NULL, v1, diag), 0);
        assert_string_equal(label_of(f, "app"), "pkg");
        /* Another package's binary is that package's to label. */
        assert_string_equal(label_of(f, "host"), "none");

        /* Upgrade: app is no longer named and loses its label; app2 gets one. */
        assert_int_equal(label(f, v1, v2, diag), 0);
        assert_string_equal(label_of(f, "app"), "none");
        assert_string_equal(label_of(f, "app2"), "pkg");

        /* A label someone else set since is not removed. */
        _cleanup_free_ char *app2 = bin_path(f, "app2");
        assert_int_equal(setxattr(app2, SMACK_XATTR_EXEC, "admin", 5, 0), 0);
        assert_int_equal(label(f, v2, NULL, diag), 0);
        assert_string_equal(label_of(f, "app2"), "admin");
        assert_int_equal(removexattr(app2, SMACK_XATTR_EXEC), 0);
        assert_int_equal(diag->n_errors, 0);
}

/* A path swapped between the check and the write: whatever is there now is not labelled. */
static void test_replaced_binary(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        _cleanup_free_ char *app = bin_path(f, "app"), *moved = bin_path(f, "app.moved");
        _cleanup_free_ char *victim = bin_path(f, "victim");

        package = parse("pkg", "<aegis><request><credential name=\"Location\"/>"
                        "<for path=\"/usr/bin/app\"/></request></aegis>");
        assert_int_equal(diagnostics_new(&diag), 0);
        files = files_of(f, package);
        /* Checked; then someone renames another file over the path. */
        assert_int_equal(rename(app, moved), 0);
        make_file(f, "victim", "victim");
        assert_int_equal(link(victim, app), 0);
        assert_int_equal(label_files(f, NULL, files, diag), SMACK_SETUP_E_CHANGED);
        assert_non_null(diagnostics_find(diag, "changed while mssf-policy ran"));
        assert_string_equal(label_of(f, "victim"), "none");
        assert_string_equal(label_of(f, "app.moved"), "none");
        /* A symlink swapped in instead. */
        assert_int_equal(unlink(app), 0);
        assert_int_equal(symlink("victim", app), 0);
        assert_int_equal(label_files(f, NULL, files, diag), SMACK_SETUP_E_CHANGED);
        assert_string_equal(label_of(f, "victim"), "none");
        assert_int_equal(unlink(app), 0);
        assert_int_equal(rename(moved, app), 0);
        assert_int_equal(unlink(victim), 0);
}

int main(void) {
        if (!security_xattrs_available())
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_label_and_unlabel),
                cmocka_unit_test(test_replaced_binary),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
