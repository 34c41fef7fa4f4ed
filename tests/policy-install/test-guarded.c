/*
 * Unit tests of guarded.c: which paths are the device's MSSF
 * configuration (the set rpm's plugin, apt's hook and dpkg's configure
 * all guard), how a name from a package archive or a list is made normal,
 * and where a path really leads once the symlinks of a tree are followed
 * the way dpkg follows them, in a scratch tree.
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

#include "guarded.h"
#include "tool-fixture.h"

static void test_path(void **state) {
        assert_true(guarded_path("/etc/mssf"));
        assert_true(guarded_path("/etc/mssf/device-policy.conf"));
        assert_true(guarded_path("/etc/mssf/keys/system.gpg"));
        assert_true(guarded_path("/etc/smack/accesses.d"));
        assert_true(guarded_path("/etc/smack/accesses.d/mssf-x"));
        /* Neighbours with the same prefix are not it. */
        assert_false(guarded_path("/etc/mssf2/x"));
        assert_false(guarded_path("/etc/mssf.conf"));
        assert_false(guarded_path("/etc/smack/accesses.d2/x"));
        assert_false(guarded_path("/etc/smack/cipso"));
        assert_false(guarded_path("/etc"));
        assert_false(guarded_path("/"));
        assert_false(guarded_path("/usr/etc/mssf/x"));
        /* A symlink to an ancestor leads there as well. */
        assert_true(guarded_reaches("/"));
        assert_true(guarded_reaches("/etc"));
        assert_true(guarded_reaches("/etc/smack"));
        assert_true(guarded_reaches("/etc/mssf/keys"));
        assert_false(guarded_reaches("/etc/ssl"));
        assert_false(guarded_reaches("/etc/sm"));
        assert_false(guarded_reaches("/usr"));
}

static void assert_normal(const char *name, const char *expected) {
        _cleanup_free_ char *normal = NULL;

        assert_int_equal(guarded_normalize(name, &normal), 0);
        assert_string_equal(normal, expected);
}

static void test_normalize(void **state) {
        char *normal = NULL;

        assert_normal("./etc/mssf/x", "/etc/mssf/x");
        assert_normal("etc/mssf/x", "/etc/mssf/x");
        assert_normal("/etc/mssf/x", "/etc/mssf/x");
        assert_normal("etc/mssf", "/etc/mssf");
        assert_normal("./etc/mssf/", "/etc/mssf");
        assert_normal(".//etc//./mssf/./x/", "/etc/mssf/x");
        assert_normal("./", "/");
        assert_normal(".", "/");
        assert_normal("", "/");
        assert_normal("./etc/mssf/...", "/etc/mssf/...");
        assert_normal("./etc/mssf/..x", "/etc/mssf/..x");
        /* ".." is the file system's to resolve, never guessed. */
        assert_int_equal(guarded_normalize("./etc/mssf/../", &normal), GUARDED_E_DOTDOT);
        assert_int_equal(guarded_normalize("./usr/../etc/mssf/x", &normal), GUARDED_E_DOTDOT);
        assert_int_equal(guarded_normalize("..", &normal), GUARDED_E_DOTDOT);
        assert_null(normal);
}

static void assert_resolves_in_run(int root_fd, const GuardedRun *run, const char *path,
                                   bool follow_last, const char *expected) {
        _cleanup_free_ char *where = NULL;

        assert_int_equal(guarded_resolve(root_fd, run, path, follow_last, &where), 0);
        assert_string_equal(where, expected);
}

/* In the tree as it will be read (dpkg's lists). */
static void assert_resolves(int root_fd, const char *path, bool follow_last, const char *expected) {
        assert_resolves_in_run(root_fd, NULL, path, follow_last, expected);
}

static void test_resolve(void **state) {
        ToolFixture *f = tool_fixture_new("mssf-guarded");
        _cleanup_free_ char *etc = fileio_join(f->root, "etc/mssf");
        _cleanup_free_ char *share = fileio_join(f->root, "usr/share/x");
        _cleanup_free_ char *certs = fileio_join(f->root, "etc/ssl/certs");
        char *where = NULL;
        int root_fd;

        assert_int_equal(fileio_mkdir_p(etc, 0755), 0);
        assert_int_equal(fileio_mkdir_p(share, 0755), 0);
        assert_int_equal(fileio_mkdir_p(certs, 0755), 0);
        root_fd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(symlinkat("/etc/mssf", root_fd, "usr/share/x/abs"), 0);
        assert_int_equal(symlinkat("../../../etc/mssf", root_fd, "usr/share/x/rel"), 0);
        assert_int_equal(symlinkat("/etc/ssl/certs", root_fd, "usr/share/x/certs"), 0);
        assert_int_equal(symlinkat("usr/share", root_fd, "share"), 0);
        assert_int_equal(symlinkat("loop2", root_fd, "loop1"), 0);
        assert_int_equal(symlinkat("loop1", root_fd, "loop2"), 0);
        /* Absolute links start again at the tree's root, never the host's. */
        assert_resolves(root_fd, "/usr/share/x/abs/device-policy.conf", false,
                        "/etc/mssf/device-policy.conf");
        assert_resolves(root_fd, "/usr/share/x/rel/device-policy.conf", false,
                        "/etc/mssf/device-policy.conf");
        assert_resolves(root_fd, "/share/x/abs/y", false, "/etc/mssf/y");
        /* ".." after a link is taken from where the link led, as the kernel does. */
        assert_resolves(root_fd, "/usr/share/x/certs/../../mssf/z", false, "/etc/mssf/z");
        /* ".." never leaves the root. */
        assert_resolves(root_fd, "/../../etc/mssf", true, "/etc/mssf");
        /* The last component is followed only when asked. */
        assert_resolves(root_fd, "/usr/share/x/abs", false, "/usr/share/x/abs");
        assert_resolves(root_fd, "/usr/share/x/abs", true, "/etc/mssf");
        /* What does not exist yet is taken as named... */
        assert_resolves(root_fd, "/usr/share/x/abs/new/dir/f", false, "/etc/mssf/new/dir/f");
        /* ...but not a ".." after it: "new" may be a symlink unpacked later, to
         * /etc/ssl say, and "new/../mssf" is then /etc/mssf, not /usr/lib/mssf. */
        assert_int_equal(guarded_resolve(root_fd, NULL, "/usr/lib/new/../file", false, &where),
                         GUARDED_E_UNKNOWN);
        assert_null(where);
        assert_int_equal(guarded_resolve(root_fd, NULL, "/etc/hostile/u/../mssf", true, &where),
                         GUARDED_E_UNKNOWN);
        assert_null(where);
        assert_resolves(root_fd, "/", true, "/");
        assert_resolves(root_fd, "//./", false, "/");
        assert_int_equal(guarded_resolve(root_fd, NULL, "/loop1/x", false, &where), -ELOOP);
        assert_null(where);
        close(root_fd);
        tool_fixture_free(f);
}

static const char *planned_link(const char *path, void *userdata) {
        const char *const *links = userdata;

        for (size_t i = 0; links[i]; i += 2)
                if (strcmp(links[i], path) == 0)
                        return links[i + 1];
        return NULL;
}

/* Before a run: what is not there yet becomes a directory, or one of the run's symlinks. */
static void test_resolve_run(void **state) {
        ToolFixture *f = tool_fixture_new("mssf-guarded-run");
        _cleanup_free_ char *share = fileio_join(f->root, "usr/share/x");
        _cleanup_free_ char *etc = fileio_join(f->root, "etc/ssl");
        const char *links[] = {
                "/etc/hostile/u", "../ssl",             /* in a directory the run creates */
                "/etc/hostile/s", "u/../mssf",
                "/usr/share/x", "/etc/mssf",            /* a directory is there: dpkg keeps it */
                "/opt/l/s", "t", "/opt/l/t", "s",       /* a loop only the run makes */
                NULL,
        };
        const GuardedRun as_is = {}, with_links = { .link_at = planned_link, .userdata = links };
        char *where = NULL;
        int root_fd;

        assert_int_equal(fileio_mkdir_p(share, 0755), 0);
        assert_int_equal(fileio_mkdir_p(etc, 0755), 0);
        root_fd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(root_fd >= 0);
        assert_int_equal(symlinkat("/etc/mssf", root_fd, "usr/share/x/abs"), 0);
        /* ".." past a directory the run creates goes back to its parent... */
        assert_resolves_in_run(root_fd, &as_is, "/usr/lib/new/../file", false, "/usr/lib/file");
        /* ...which is followed again from there on: a link after it is still a link. */
        assert_resolves_in_run(root_fd, &as_is, "/usr/new/../share/x/abs/f", false, "/etc/mssf/f");
        /* The run's symlinks are followed where the tree has nothing yet. */
        assert_resolves_in_run(root_fd, &as_is, "/etc/hostile/s/repositories.conf", false,
                               "/etc/hostile/s/repositories.conf");
        assert_resolves_in_run(root_fd, &with_links, "/etc/hostile/s/repositories.conf", false,
                               "/etc/mssf/repositories.conf");
        assert_resolves_in_run(root_fd, &with_links, "/usr/share/x/y", false, "/usr/share/x/y");
        assert_int_equal(guarded_resolve(root_fd, &with_links, "/opt/l/s/x", false, &where), -ELOOP);
        assert_null(where);
        close(root_fd);
        tool_fixture_free(f);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path),
                cmocka_unit_test(test_normalize),
                cmocka_unit_test(test_resolve),
                cmocka_unit_test(test_resolve_run),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
