/*
 * Unit tests of what apt's hook and dpkg's configure read to keep the
 * device's MSSF configuration the most trusted origin's: tar's listing of
 * a package file, line by line (deb-contents.c: every line a package
 * could make tar print, and lines it cannot), the same through the real
 * dpkg-deb and tar on a .deb built here with names that try to confuse
 * the listing, and the files of the configuration dpkg's database says a
 * package owns (dpkg-db.c: lists, symlinks on the way, diversions); and
 * what the package files of one apt run would put there (deb-inspect.c),
 * on .debs built here with dpkg-deb, or by hand where dpkg-deb cannot
 * (a hard link whose target is not in the archive).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "deb-contents.h"
#include "deb-inspect.h"
#include "dpkg-db.h"
#include "spawn.h"
#include "tool-fixture.h"

static void assert_entry(const char *line, char type, const char *name, const char *target) {
        DebEntry entry = {};

        assert_int_equal(deb_contents_parse_line(line, &entry), 0);
        assert_int_equal(entry.type, type);
        assert_string_equal(entry.name, name);
        if (target)
                assert_string_equal(entry.target, target);
        else
                assert_null(entry.target);
        deb_entry_clear(&entry);
}

static void assert_syntax(const char *line) {
        DebEntry entry = {};

        assert_int_equal(deb_contents_parse_line(line, &entry), DEB_CONTENTS_E_SYNTAX);
        assert_null(entry.name);
}

static void test_parse_line(void **state) {
        assert_entry("drwxr-xr-x 0/0               0 2026-12-07 02:39 \"./etc/mssf/\"", 'd',
                     "./etc/mssf/", NULL);
        assert_entry("-rw-r--r-- 0/0               2 2026-12-07 02:39 \"./etc/mssf/x\"", '-',
                     "./etc/mssf/x", NULL);
        assert_entry("lrwxrwxrwx 0/0               0 2026-12-07 02:39 \"./a b/lnk\" -> \"../etc/mssf\"",
                     'l', "./a b/lnk", "../etc/mssf");
        assert_entry("hrw-r--r-- 0/0               0 2026-12-07 02:39 \"./hard\" link to \"./etc/mssf/x\"",
                     'h', "./hard", "./etc/mssf/x");
        assert_entry("crw-rw---- 0/6             8,1 2026-12-07 02:39 \"./dev/x\"", 'c', "./dev/x", NULL);
        assert_entry("-rwsr-xr-x 0/0           35672 1970-01-01 00:00 \"./usr/bin/s\"", '-',
                     "./usr/bin/s", NULL);
        /* Quotes, " -> ", newlines and bytes past ASCII stay inside the one name. */
        assert_entry("-rw-r--r-- 0/0 1 2026-12-07 02:39 \"./a\\\" -> \\\"b\\nc \\303\\251\"", '-',
                     "./a\" -> \"b\nc \xc3\xa9", NULL);
        assert_entry("lrwxrwxrwx 0/0 0 2026-12-07 02:39 \"./x -> y\" -> \"/etc/mssf\"", 'l', "./x -> y",
                     "/etc/mssf");
        assert_entry("-rw-r--r-- 0/0 1 -123456 \"./\\\\\\t\\?\"", '-', "./\\\t?", NULL);
        /* Lines tar should not print for the listing asked. */
        assert_syntax("");
        assert_syntax("\"./etc/mssf/x\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 ./etc/mssf/x");
        assert_syntax("-rw-r--r-- root/root 2 2026-12-07 02:39 \"./x\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./x");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./x\" trailing");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./x\" -> \"y\"");      /* not a link */
        assert_syntax("lrwxrwxrwx 0/0 0 2026-12-07 02:39 \"./x\"");               /* a link without target */
        assert_syntax("lrwxrwxrwx 0/0 0 2026-12-07 02:39 \"./x\" -> \"y\" -> \"z\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./\\000x\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./\\q\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./\xc3\xa9\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 \"./x\\\"");
        assert_syntax(" rw-r--r-- 0/0 2 2026-12-07 02:39 \"./x\"");
        assert_syntax("-rw-r--r--0/0 2 2026-12-07 02:39 \"./x\"");
        assert_syntax("-rw-r--r-- 0/0 2 2026-12-07 02:39 unknown file type \"./x\"");
}

typedef struct Listing {
        char *text;
        size_t size;
} Listing;

static int add_entry(const DebEntry *entry, void *userdata) {
        Listing *listing = userdata;
        char *grown = NULL;
        int n = asprintf(&grown, "%s%c %s%s%s\n", listing->text ? listing->text : "", entry->type,
                         entry->name, entry->target ? " => " : "", entry->target ? entry->target : "");

        assert_true(n > 0);
        free(listing->text);
        listing->text = grown;
        return 0;
}

static int stop_at_mssf(const DebEntry *entry, void *userdata) {
        return strcmp(entry->name, "./etc/mssf/x") == 0 ? 42 : 0;
}

static void run(const char *command) {
        char *argv[] = { (char *) "sh", (char *) "-ec", (char *) command, NULL };
        _cleanup_free_ char *out = NULL, *err = NULL;
        int status = -1;

        assert_int_equal(spawn_capture(argv, 1 << 20, &out, NULL, &status, &err), 0);
        if (status != 0)
                fail_msg("%s: %s", command, err ? err : "");
}

static void file_at(const ToolFixture *f, const char *path, const char *text) {
        _cleanup_free_ char *full = fileio_join(f->root, path);
        char *slash = strrchr(full, '/');

        *slash = '\0';
        assert_int_equal(fileio_mkdir_p(full, 0755), 0);
        *slash = '/';
        assert_int_equal(fileio_write_atomic(full, text, strlen(text), 0644), 0);
}

/* The real dpkg-deb and tar, on a .deb built here. */
static void test_read_deb(void **state) {
        ToolFixture *f = tool_fixture_new("mssf-deb-contents");
        _cleanup_free_ char *build = NULL, *deb = NULL, *error = NULL, *garbage = NULL;
        Listing listing = {};

        assert_true(asprintf(&build, "cd %s && mkdir -p pkg/DEBIAN pkg/etc/mssf 'pkg/a b' && "
                             "printf 'Package: t\\nVersion: 1\\nArchitecture: all\\n"
                             "Maintainer: t <t@t>\\nDescription: t\\n' >pkg/DEBIAN/control && "
                             "echo x >pkg/etc/mssf/x && "
                             "ln -s ../etc/mssf 'pkg/a b/l -> x' && "
                             "dpkg-deb --root-owner-group -Zgzip --build pkg t.deb >/dev/null",
                             f->root) > 0);
        file_at(f, "pkg/a b/we'ird\tname\\ \"q\"", "y");
        run(build);
        assert_true(asprintf(&deb, "%s/t.deb", f->root) > 0);
        assert_int_equal(deb_contents_read(deb, add_entry, &listing, &error), 0);
        assert_null(error);
        assert_non_null(strstr(listing.text, "d ./etc/mssf/\n"));
        assert_non_null(strstr(listing.text, "- ./etc/mssf/x\n"));
        assert_non_null(strstr(listing.text, "- ./a b/we'ird\tname\\ \"q\"\n"));
        assert_non_null(strstr(listing.text, "l ./a b/l -> x => ../etc/mssf\n"));
        free(listing.text);
        /* The walk stops where the caller says, and says so. */
        assert_int_equal(deb_contents_read(deb, stop_at_mssf, NULL, &error), 42);
        /* A file that is no package is an error, never an empty list. */
        assert_true(asprintf(&garbage, "%s/garbage.deb", f->root) > 0);
        tool_fixture_write(f->root, "garbage.deb", "!<arch>\nnot a package\n");
        assert_int_equal(deb_contents_read(garbage, add_entry, &listing, &error),
                         DEB_CONTENTS_E_SYNTAX);
        assert_non_null(error);
        tool_fixture_free(f);
}

static void assert_owned(const DpkgGuardedFile *files, size_t n, const char *path, const char *owner,
                         const char *lister) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(files[i].path, path) == 0 && strcmp(files[i].owner, owner) == 0 &&
                    strcmp(files[i].lister, lister) == 0)
                        return;
        fail_msg("%s is not found as %s's (listed by %s)", path, owner, lister);
}

/* dpkg's database in a scratch root: what it says a package put in the configuration. */
static void test_guarded_files(void **state) {
        ToolFixture *f = tool_fixture_new("mssf-dpkg-guard");
        _cleanup_free_ char *admindir = fileio_join(f->root, "var/lib/dpkg");
        _cleanup_(dpkg_db_freep) DpkgDb *db = NULL;
        DpkgGuardedFile *files = NULL;
        char *error = NULL;
        size_t n = 0;
        int root_fd;

        file_at(f, "etc/mssf/device-policy.conf", "origin system *\n");
        file_at(f, "etc/mssf/repositories.conf", "");
        file_at(f, "etc/mssf/unowned.conf", "");
        file_at(f, "etc/smack/accesses.d/store-rules", "a b rwx\n");
        file_at(f, "etc/mssf/diverted.conf", "");
        file_at(f, "etc/other.conf", "");
        file_at(f, "usr/share/doc/x", "");
        root_fd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(mkdirat(root_fd, "usr/lib", 0755), 0);
        assert_int_equal(symlinkat("../../etc/mssf", root_fd, "usr/lib/sneaky"), 0);
        /* Read as text, "gone/../../etc/mssf" is /etc/mssf; the kernel stops at "gone". */
        assert_int_equal(symlinkat("gone/../../etc/mssf", root_fd, "usr/lib/dangling"), 0);
        /* Directories and files elsewhere are no one's concern. */
        file_at(f, "var/lib/dpkg/info/mssf-policy.list", "/etc\n/etc/mssf\n/etc/smack\n"
                "/etc/smack/accesses.d\n/usr/share/doc/x\n");
        file_at(f, "var/lib/dpkg/info/honest.list", "/etc/other.conf\n/etc/mssf/gone.conf\n");
        /* Named plainly, without the leading slash's normal form, and through a link. */
        file_at(f, "var/lib/dpkg/info/store-app.list", "/etc/smack/accesses.d/store-rules\n");
        file_at(f, "var/lib/dpkg/info/nowhere.list", "/usr/lib/dangling/device-policy.conf\n");
        file_at(f, "var/lib/dpkg/info/evil:amd64.list", "/usr/lib/sneaky/device-policy.conf\n"
                "/etc//mssf/./repositories.conf\n");
        /* A package whose file another package's diversion put there. */
        file_at(f, "var/lib/dpkg/info/diverted.list", "/usr/share/diverted.conf\n");
        file_at(f, "var/lib/dpkg/info/local.list", "/usr/share/local.conf\n");
        file_at(f, "var/lib/dpkg/diversions",
                "/usr/share/diverted.conf\n/etc/mssf/diverted.conf\ndiverter\n"
                "/usr/share/local.conf\n/etc/mssf/unowned.conf\n:\n");
        assert_int_equal(dpkg_db_new(admindir, &db), 0);
        assert_int_equal(dpkg_db_guarded_files(db, root_fd, &files, &n, &error), 0);
        assert_null(error);
        assert_int_equal(n, 4);
        assert_owned(files, n, "/etc/smack/accesses.d/store-rules", "store-app", "store-app");
        assert_owned(files, n, "/etc/mssf/device-policy.conf", "evil", "evil");
        assert_owned(files, n, "/etc/mssf/repositories.conf", "evil", "evil");
        assert_owned(files, n, "/etc/mssf/diverted.conf", "diverter", "diverted");
        dpkg_guarded_files_free(files, n);
        /* A line whose way cannot be followed is an error naming it, not a file skipped. */
        assert_int_equal(symlinkat("loop", root_fd, "loop"), 0);
        file_at(f, "var/lib/dpkg/info/loopy.list", "/loop/x\n");
        assert_int_equal(dpkg_db_guarded_files(db, root_fd, &files, &n, &error), -ELOOP);
        assert_non_null(strstr(error, "loopy.list, line /loop/x"));
        free(error);
        close(root_fd);
        tool_fixture_free(f);
}

/* pkg/ under the fixture's root, with a control file, built as NAME.deb. */
static char *build_deb(const ToolFixture *f, const char *name, const char *tree_commands) {
        _cleanup_free_ char *command = NULL;
        char *deb = NULL;

        assert_true(asprintf(&command, "cd %s && rm -rf pkg && mkdir -p pkg/DEBIAN && "
                             "printf 'Package: %s\\nVersion: 1\\nArchitecture: all\\n"
                             "Maintainer: t <t@t>\\nDescription: t\\n' >pkg/DEBIAN/control && "
                             "%s && dpkg-deb --root-owner-group -Zgzip --build pkg %s.deb >/dev/null",
                             f->root, name, tree_commands, name) > 0);
        run(command);
        assert_true(asprintf(&deb, "%s/%s.deb", f->root, name) > 0);
        return deb;
}

/* A .deb whose data is one hard link, ./etc/h/x, to a file it does not carry. */
static char *build_hard_link_deb(const ToolFixture *f) {
        _cleanup_free_ char *command = NULL;
        char *deb = NULL;

        file_at(f, "hard/make.py",
                "import tarfile\n"
                "with tarfile.open('data.tar.gz', 'w:gz', format=tarfile.GNU_FORMAT) as t:\n"
                "    for d in ('./', './etc/', './etc/h/'):\n"
                "        i = tarfile.TarInfo(d); i.type = tarfile.DIRTYPE; i.mode = 0o755; t.addfile(i)\n"
                "    i = tarfile.TarInfo('./etc/h/x'); i.type = tarfile.LNKTYPE\n"
                "    i.linkname = './etc/mssf/repositories.conf'; i.mode = 0o666; t.addfile(i)\n");
        assert_true(asprintf(&command, "cd %s/hard && mkdir -p c && "
                             "printf 'Package: h\\nVersion: 1\\nArchitecture: all\\n"
                             "Maintainer: t <t@t>\\nDescription: t\\n' >c/control && "
                             "tar -C c -czf control.tar.gz ./control && /usr/bin/python3 make.py && "
                             "echo 2.0 >debian-binary && "
                             "ar rc h.deb debian-binary control.tar.gz data.tar.gz", f->root) > 0);
        run(command);
        assert_true(asprintf(&deb, "%s/hard/h.deb", f->root) > 0);
        return deb;
}

static void assert_finding(const DebRun *run, size_t index, const char *expected) {
        _cleanup_free_ char *finding = NULL;

        assert_int_equal(deb_run_inspect(run, index, &finding), 0);
        if (!expected) {
                if (finding)
                        fail_msg("unexpected finding: %s", finding);
                return;
        }
        if (!finding || !strstr(finding, expected))
                fail_msg("finding \"%s\", expected one with \"%s\"", finding ? finding : "(none)",
                         expected);
}

/* The ways a member reaches the configuration other than by its name. */
static void test_inspect_run(void **state) {
        ToolFixture *f = tool_fixture_new("mssf-deb-inspect");
        _cleanup_(deb_run_freep) DebRun *run = NULL;
        _cleanup_free_ char *plain = NULL, *dir_over_file = NULL, *dir_kept = NULL, *links = NULL;
        _cleanup_free_ char *through = NULL, *hard = NULL, *relative = NULL, *loop = NULL;
        _cleanup_free_ char *root = fileio_join(f->root, "root");
        int root_fd;

        file_at(f, "root/etc/mssf/device-policy.conf", "origin system *\n");
        file_at(f, "root/etc/mssf/repositories.conf", "");
        file_at(f, "root/etc/mssf/keyrings/k", "");
        file_at(f, "root/etc/ssl/certs/c", "");
        file_at(f, "root/usr/lib/x", "");
        plain = build_deb(f, "plain", "mkdir -p pkg/usr/lib/plain && echo x >pkg/usr/lib/plain/f && "
                          "ln -s ../../share/doc pkg/usr/lib/plain/doc");
        /* dpkg puts a new directory in the place of the file that is there. */
        dir_over_file = build_deb(f, "dir-over-file", "mkdir -p pkg/etc/mssf/device-policy.conf");
        dir_kept = build_deb(f, "dir-kept", "mkdir -p pkg/etc/mssf/keyrings");
        /* One package's symlinks in a directory the run creates, another's file through them. */
        links = build_deb(f, "links", "mkdir -p pkg/etc/hostile && ln -s ../ssl pkg/etc/hostile/u && "
                          "ln -s u/../mssf pkg/etc/hostile/s");
        through = build_deb(f, "through", "mkdir -p pkg/etc/hostile/s && "
                            "echo evil >pkg/etc/hostile/s/repositories.conf");
        hard = build_hard_link_deb(f);
        /* ".." in a directory of the package's own: the directory, not a link. */
        relative = build_deb(f, "relative", "mkdir -p pkg/usr/lib/rel/sub && "
                             "ln -s ../../x pkg/usr/lib/rel/sub/x");

        root_fd = openat(AT_FDCWD, root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(deb_run_new(root_fd, &run), 0);
        const char *debs[] = { plain, dir_over_file, dir_kept, links, through, hard, relative };
        for (size_t i = 0; i < ELEMENTSOF(debs); i++) {
                _cleanup_free_ char *error = NULL;
                assert_int_equal(deb_run_add(run, debs[i], &error), 0);
        }
        assert_int_equal(deb_run_seal(run), 0);
        assert_finding(run, 0, NULL);
        assert_finding(run, 1, "ships the directory /etc/mssf/device-policy.conf");
        assert_finding(run, 2, NULL);
        assert_finding(run, 3, "ships the symlink /etc/hostile/s -> u/../mssf, which leads to /etc/mssf");
        assert_finding(run, 4, "lands at /etc/mssf/repositories.conf");
        assert_finding(run, 5, "ships the hard link /etc/h/x to /etc/mssf/repositories.conf");
        assert_finding(run, 6, NULL);
        /* The same files, each alone in its run: the file needs the other's links. */
        deb_run_free(TAKE_PTR(run));
        assert_int_equal(deb_run_new(root_fd, &run), 0);
        {
                _cleanup_free_ char *error = NULL;
                assert_int_equal(deb_run_add(run, through, &error), 0);
        }
        assert_int_equal(deb_run_seal(run), 0);
        assert_finding(run, 0, NULL);
        /* A member that cannot be followed is an error, never no finding. */
        deb_run_free(TAKE_PTR(run));
        loop = build_deb(f, "loop", "mkdir -p pkg/opt/l && ln -s t pkg/opt/l/s && ln -s s pkg/opt/l/t && "
                         "mkdir -p pkg/opt/m && ln -s ../l/s/x pkg/opt/m/x");
        assert_int_equal(deb_run_new(root_fd, &run), 0);
        {
                _cleanup_free_ char *error = NULL, *finding = NULL;
                assert_int_equal(deb_run_add(run, loop, &error), 0);
                assert_int_equal(deb_run_seal(run), 0);
                assert_int_equal(deb_run_inspect(run, 0, &finding), -ELOOP);
                assert_null(finding);
        }
        close(root_fd);
        tool_fixture_free(f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_line),
                cmocka_unit_test(test_read_deb),
                cmocka_unit_test(test_guarded_files),
                cmocka_unit_test(test_inspect_run),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
