/*
 * Unit tests of package-files.c, dpkg-db.c and safe-root.c: which files a
 * manifest may have labelled and hashed. A scratch root holds a dpkg
 * database (file lists, diversions) with a victim package, and every kind
 * of file a hostile manifest may name: another package's binary, a
 * symlink to it, a directory symlink on the way, a directory, a FIFO, a
 * device node, a set-user-ID file, a hard link to the victim's binary.
 * Each must be refused with the <for>'s line and column, and only the
 * package's own regular files kept. The same runs with openat2 taken away
 * (-Wl,--wrap=fileio_openat2), so the component-by-component walk is
 * tested too. Device nodes need root (mknod); without it the test skips.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "device-policy.h"
#include "diagnostic.h"
#include "dpkg-db.h"
#include "fileio.h"
#include "manifest.h"
#include "model.h"
#include "package-files.h"
#include "policyset.h"
#include "safe-root.h"

/* ------------------------------------------------------------------ */
/* openat2, or the kernel without it. */

static bool without_openat2;

struct open_how;
int __real_fileio_openat2(int dirfd, const char *path, struct open_how *how);
int __wrap_fileio_openat2(int dirfd, const char *path, struct open_how *how);

int __wrap_fileio_openat2(int dirfd, const char *path, struct open_how *how) {
        return without_openat2 ? -ENOSYS : __real_fileio_openat2(dirfd, path, how);
}

/* ------------------------------------------------------------------ */
/* The scratch root. */

typedef struct Fixture {
        char root[64];
        SafeRoot *safe;
        DpkgDb *dpkg;
        PolicySet *set;
} Fixture;

static void put(const Fixture *f, const char *name, const char *text, mode_t mode) {
        _cleanup_free_ char *path = fileio_join(f->root, name + 1);
        _cleanup_free_ char *dir = strdup(path);

        *strrchr(dir, '/') = '\0';
        assert_int_equal(fileio_mkdir_p(dir, 0755), 0);
        assert_int_equal(fileio_write_atomic(path, text, strlen(text), mode), 0);
        assert_int_equal(chmod(path, mode), 0);
}

static void make_dir(const Fixture *f, const char *name) {
        _cleanup_free_ char *path = fileio_join(f->root, name + 1);

        assert_int_equal(fileio_mkdir_p(path, 0755), 0);
}

static void make_link(const Fixture *f, const char *target, const char *name) {
        _cleanup_free_ char *path = fileio_join(f->root, name + 1);

        assert_int_equal(symlink(target, path), 0);
}

static const char pkg_list[] =
        "/.\n/usr\n/usr/bin\n/usr/bin/app\n/bin/alias-app\n/usr/bin/link\n/opt/dirlink/victimd\n"
        "/usr/bin/dir\n/usr/bin/fifo\n/usr/bin/dev\n/usr/bin/suid\n/usr/bin/hard\n"
        "/usr/bin/twin1\n/usr/bin/twin2\n/usr/bin/diverted\n/usr/bin/shared\n/usr/bin/gone\n"
        "/usr/bin/own-link\n";

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        _cleanup_free_ char *admindir = NULL, *hard = NULL, *victimd = NULL, *twin2 = NULL;
        _cleanup_free_ char *fifo = NULL, *dev = NULL, *twin1 = NULL;
        DevicePolicy *device = NULL;

        assert_non_null(f);
        strcpy(f->root, "/tmp/test-package-files.XXXXXX");
        assert_non_null(mkdtemp(f->root));
        put(f, "/usr/bin/app", "app", 0755);
        put(f, "/usr/bin/alias-app", "alias", 0755);
        put(f, "/usr/sbin/victimd", "victim", 0755);
        put(f, "/usr/bin/unlisted", "unlisted", 0755);
        put(f, "/usr/bin/suid", "suid", 04755);
        put(f, "/usr/bin/twin1", "twin", 0755);
        put(f, "/usr/bin/diverted", "the diverter's", 0755);
        put(f, "/usr/bin/shared", "shared", 0755);
        put(f, "/usr/local/bin/free", "free", 0755);
        put(f, "/usr/bin/registered", "registered", 0755);
        put(f, "/usr/bin/chfn.distrib", "victim's chfn, moved by the administrator", 0755);
        make_dir(f, "/usr/bin/dir");
        make_dir(f, "/opt");
        make_link(f, "usr/bin", "/bin");
        make_link(f, "/usr/sbin/victimd", "/usr/bin/link");
        make_link(f, "app", "/usr/bin/own-link");
        make_link(f, "/usr/sbin", "/opt/dirlink");
        hard = fileio_join(f->root, "usr/bin/hard");
        victimd = fileio_join(f->root, "usr/sbin/victimd");
        assert_int_equal(link(victimd, hard), 0);
        twin1 = fileio_join(f->root, "usr/bin/twin1");
        twin2 = fileio_join(f->root, "usr/bin/twin2");
        assert_int_equal(link(twin1, twin2), 0);
        fifo = fileio_join(f->root, "usr/bin/fifo");
        assert_int_equal(mkfifo(fifo, 0644), 0);
        dev = fileio_join(f->root, "usr/bin/dev");
        if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) < 0) {
                printf("SKIP: cannot make a device node (needs root)\n");
                exit(77);
        }
        put(f, "/var/lib/dpkg/info/pkg.list", pkg_list, 0644);
        put(f, "/var/lib/dpkg/info/victim:amd64.list",
            "/.\n/usr\n/usr/bin\n/usr/sbin/victimd\n/usr/bin/chfn\n", 0644);
        put(f, "/var/lib/dpkg/info/neighbour.list", "/usr/bin\n/usr/bin/shared\n/usr/bin/diverted\n",
            0644);
        put(f, "/var/lib/dpkg/diversions", "/usr/bin/diverted\n/usr/bin/diverted.distrib\n"
            "neighbour\n/usr/bin/chfn\n/usr/bin/chfn.distrib\n:\n", 0644);
        admindir = fileio_join(f->root, "var/lib/dpkg");
        assert_int_equal(safe_root_new(f->root, &f->safe), 0);
        assert_int_equal(dpkg_db_new(admindir, &f->dpkg), 0);
        assert_int_equal(device_policy_new_default(&device), 0);
        assert_int_equal(policy_set_new(device, &f->set), 0);
        *state = f;
        return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

static int teardown(void **state) {
        Fixture *f = *state;

        nftw(f->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        safe_root_free(f->safe);
        dpkg_db_free(f->dpkg);
        policy_set_free(f->set);
        free(f);
        return 0;
}

static Package *parse(const char *name, const char *origin, const char *xml) {
        Package *package = NULL;

        assert_int_equal(manifest_parse_buffer(xml, strlen(xml), "pkg.aegis", name, origin, NULL,
                                               &package), 0);
        return package;
}

/* A manifest naming path as its binary (on line 2, column 3). */
static Package *naming(const char *path, const char *policy, const char *origin) {
        _cleanup_free_ char *xml = NULL;

        assert_true(asprintf(&xml, "<aegis><request%s%s%s><credential name=\"Location\"/>\n"
                             "  <for path=\"%s\"/></request></aegis>", policy ? " policy=\"" : "",
                             policy ? policy : "", policy ? "\"" : "", path) > 0);
        return parse("pkg", origin, xml);
}

static int files_of(const Fixture *f, const Package *package, bool with_dpkg, bool strict,
                    Diagnostics *diag, PackageFiles **ret) {
        PackageFilesContext context = { .root = f->safe, .db = dpkg_db_package_db(f->dpkg), .set = f->set };

        *ret = NULL;
        return package_files_new(&context, "pkg", package, with_dpkg, strict, diag, ret);
}

/* path named by a store package's <for>, under dpkg: refused at 2:3 with a message saying why. */
static void assert_refused(const Fixture *f, const char *path, const char *why) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *package = naming(path, NULL, "thirdparty");
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        const Diagnostic *d;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(files_of(f, package, true, true, diag, &files), PACKAGE_FILES_E_REFUSED);
        assert_null(files);
        d = diagnostics_find(diag, why);
        if (!d) {
                for (size_t i = 0; i < diag->n_items; i++)
                        fprintf(stderr, "  %s\n", diag->items[i]->message);
                fail_msg("%s: no diagnostic with \"%s\"", path, why);
        }
        assert_int_equal(d->severity, DIAGNOSTIC_ERROR);
        assert_string_equal(d->file, "pkg.aegis");
        assert_int_equal(d->line, 2);
        assert_int_equal(d->column, 3);
}

static void test_refused(void **state) {
        const Fixture *f = *state;

        assert_refused(f, "/usr/sbin/victimd", "it belongs to package victim");
        assert_refused(f, "/usr/bin/unlisted", "dpkg's file list of pkg does not name it");
        assert_refused(f, "/usr/bin/link", "symbolic link (/usr/bin/link -> /usr/sbin/victimd)");
        assert_refused(f, "/opt/dirlink/victimd", "symbolic link (/opt/dirlink -> /usr/sbin)");
        assert_refused(f, "/usr/bin/own-link", "symbolic link");
        assert_refused(f, "/usr/bin/dir", "is a directory");
        assert_refused(f, "/usr/bin/fifo", "is a FIFO");
        assert_refused(f, "/usr/bin/dev", "is a device node");
        assert_refused(f, "/usr/bin/suid", "set-user-ID");
        assert_refused(f, "/usr/bin/hard", "2 hard links, 1 of them outside package pkg's files");
        assert_refused(f, "/usr/bin/diverted", "neighbour diverts it");
        assert_refused(f, "/usr/bin/shared", "it belongs to package neighbour");
}

static void test_own_files(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        const PackageFile *file;

        package = parse("pkg", "thirdparty", "<aegis><request><credential name=\"Location\"/>"
                        "<for path=\"/usr/bin/app\"/><for path=\"/bin/alias-app\"/>"
                        "<for path=\"/usr/bin/twin1\"/><for path=\"/usr/bin/gone\"/>"
                        "<for path=\"other::/usr/sbin/victimd\"/></request></aegis>");
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(files_of(f, package, true, true, diag, &files), 0);
        assert_int_equal(diag->n_errors, 0);
        /* A binary that is not there is only a warning. */
        assert_non_null(diagnostics_find(diag, "binary /usr/bin/gone does not exist"));
        /* Listed entries that are not the package's regular files are left out, with a word. */
        assert_non_null(diagnostics_find(diag, "/usr/bin/shared is not hashed: it belongs to "
                                               "package neighbour"));
        assert_non_null(diagnostics_find(diag, "/opt/dirlink/victimd is not hashed: a symbolic "
                                               "link is on the way"));
        assert_non_null(diagnostics_find(diag, "/usr/bin/hard is not hashed"));
        /* Shared directories and the package's own symlinks are not news. */
        assert_null(diagnostics_find(diag, "/usr/bin is not hashed"));
        assert_null(diagnostics_find(diag, "own-link"));

        file = package_files_find(files, "/usr/bin/app");
        assert_non_null(file);
        assert_non_null(file->target);
        /* /bin is the merged-/usr alias: the file is found under /usr/bin. */
        file = package_files_find(files, "/usr/bin/alias-app");
        assert_non_null(file);
        assert_non_null(file->target);
        /* Two links, both the package's. */
        assert_non_null(package_files_find(files, "/usr/bin/twin1"));
        assert_non_null(package_files_find(files, "/usr/bin/twin2"));
        /* The set-user-ID file is hashed (dpkg installed it), just not labelled. */
        file = package_files_find(files, "/usr/bin/suid");
        assert_non_null(file);
        assert_null(file->target);
        assert_null(package_files_find(files, "/usr/sbin/victimd"));
        assert_null(package_files_find(files, "/usr/bin/diverted"));
        assert_null(package_files_find(files, "/usr/bin/dir"));
        assert_null(package_files_find(files, "/usr/bin/fifo"));
        assert_null(package_files_find(files, "/usr/bin/dev"));
        assert_null(package_files_find(files, "/usr/bin/link"));
}

static void test_setxid(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *system = naming("/usr/bin/suid", "setxid", "system");
        _cleanup_(package_freep) Package *store = naming("/usr/bin/suid", "setxid", "thirdparty");
        _cleanup_(package_files_freep) PackageFiles *files = NULL;

        assert_int_equal(diagnostics_new(&diag), 0);
        /* The built-in device policy grants the system origin everything, CAP::setuid too. */
        assert_int_equal(files_of(f, system, true, true, diag, &files), 0);
        assert_non_null(package_files_find(files, "/usr/bin/suid")->target);
        files = package_files_free(files);
        assert_int_equal(files_of(f, store, true, true, diag, &files), PACKAGE_FILES_E_REFUSED);
        assert_non_null(diagnostics_find(diag, "origin the device policy grants CAP::setuid "
                                               "(origin thirdparty)"));
}

static void test_by_hand(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *free_file = naming("/usr/local/bin/free", NULL, NULL);
        _cleanup_(package_freep) Package *victim = naming("/usr/sbin/victimd", NULL, NULL);
        _cleanup_(package_freep) Package *moved = naming("/usr/bin/chfn.distrib", NULL, NULL);
        _cleanup_(package_files_freep) PackageFiles *files = NULL;

        assert_int_equal(diagnostics_new(&diag), 0);
        /* Outside dpkg, a file no package lists may be named; dpkg's list is not read. */
        assert_int_equal(files_of(f, free_file, false, true, diag, &files), 0);
        assert_int_equal(files->n_files, 1);
        assert_non_null(package_files_find(files, "/usr/local/bin/free"));
        files = package_files_free(files);
        assert_int_equal(files_of(f, victim, false, true, diag, &files), PACKAGE_FILES_E_REFUSED);
        assert_non_null(diagnostics_find(diag, "it belongs to package victim"));
        /* Where a diversion moved another package's file, the file is still that package's. */
        assert_int_equal(files_of(f, moved, false, true, diag, &files), PACKAGE_FILES_E_REFUSED);
        assert_non_null(diagnostics_find(diag, "it is package victim's file /usr/bin/chfn, which "
                                               "the administrator diverted here"));
}

static void test_registered_by_another(void **state) {
        Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *mine = naming("/usr/bin/registered", NULL, NULL);
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        Package *other = parse("other", "system", "<aegis><request><credential name=\"Location\"/>"
                               "<for path=\"/usr/bin/registered\"/></request></aegis>");

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(policy_set_add(f->set, other, diag), 0);
        assert_int_equal(files_of(f, mine, false, true, diag, &files), PACKAGE_FILES_E_REFUSED);
        assert_non_null(diagnostics_find(diag, "it belongs to package other (its manifest names "
                                               "it as its binary)"));
        assert_int_equal(policy_set_remove(f->set, "other"), 0);
}

/* What an installed version claimed is left alone where it is not the package's: no error. */
static void test_lenient(void **state) {
        const Fixture *f = *state;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(package_freep) Package *old = naming("/usr/sbin/victimd", NULL, "thirdparty");
        _cleanup_(package_files_freep) PackageFiles *files = NULL;
        const Diagnostic *d;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(files_of(f, old, false, false, diag, &files), 0);
        assert_int_equal(files->n_files, 0);
        assert_int_equal(diag->n_errors, 0);
        d = diagnostics_find(diag, "the installed version's claim is left alone");
        assert_non_null(d);
        assert_int_equal(d->severity, DIAGNOSTIC_WARNING);
}

static void test_without_openat2(void **state) {
        without_openat2 = true;
        test_refused(state);
        test_own_files(state);
        without_openat2 = false;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_own_files),
                cmocka_unit_test(test_setxid),
                cmocka_unit_test(test_by_hand),
                cmocka_unit_test(test_registered_by_another),
                cmocka_unit_test(test_lenient),
                cmocka_unit_test(test_without_openat2),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
