/*
 * Unit tests of transaction.c and of the all-or-nothing promise of
 * install and remove. System calls the tool makes changes with (write,
 * fsync, rename, unlink, fsetxattr, fremovexattr) are wrapped with
 * -Wl,--wrap=; the loop tests fail the Nth of them, for every N an
 * install or remove makes, and check that the tree (every file's bytes,
 * SMACK64EXEC label, security.ima and security.evm) and the stand-in
 * smackfs's effective rules are exactly as before. The dpkg cases run
 * `dpkg configure` and `dpkg remove` against a dpkg admin directory in
 * the scratch root, so that files beyond the manifest's binaries (dpkg's
 * file list) get and lose reference hashes too; one listed file carries a
 * security.ima that is not its hash, which recovery must put back as it
 * was. Needs root for security.* xattrs (else skipped).
 * With MSSF_TEST_SMACKFS=/sys/fs/smackfs (tests/uml runs it so, inside a
 * guest) the kernel's own rules are the ones checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "xattr-probe.h"

#include "diagnostic.h"
#include "dpkg.h"
#include "fileio.h"
#include "ima.h"
#include "context.h"
#include "install.h"
#include "safe-root.h"
#include "smack-kernel.h"
#include "smack-rules.h"
#include "transaction.h"

/* ------------------------------------------------------------------ */
/* Failure injection. */

static unsigned injected_calls;
static unsigned fail_at;                /* 0: never */
static unsigned crash_at;               /* 0: never; else _exit() there, like a power cut */

#define CRASH_STATUS 86

static bool inject(void) {
        injected_calls++;
        if (crash_at != 0 && injected_calls == crash_at)
                _exit(CRASH_STATUS);
        if (fail_at != 0 && injected_calls == fail_at) {
                errno = EIO;
                return true;
        }
        return false;
}

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);
int __real_unlink(const char *path);
int __wrap_unlink(const char *path);
int __real_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
int __wrap_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
int __real_fremovexattr(int fd, const char *name);
int __wrap_fremovexattr(int fd, const char *name);

ssize_t __wrap_write(int fd, const void *buf, size_t n) {
        return inject() ? -1 : __real_write(fd, buf, n);
}
int __wrap_fsync(int fd) {
        return inject() ? -1 : __real_fsync(fd);
}
int __wrap_rename(const char *from, const char *to) {
        return inject() ? -1 : __real_rename(from, to);
}
int __wrap_unlink(const char *path) {
        return inject() ? -1 : __real_unlink(path);
}
int __wrap_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
        return inject() ? -1 : __real_fsetxattr(fd, name, value, size, flags);
}
int __wrap_fremovexattr(int fd, const char *name) {
        return inject() ? -1 : __real_fremovexattr(fd, name);
}

/* ------------------------------------------------------------------ */
/* A scratch root and a description of its whole state. */

typedef struct Scratch {
        char root[64];
        char smackfs[96];
        char manifest_dir[96];
} Scratch;

static FILE *state_out;
static const char *state_root;

/* " name=HEX", or nothing when the file has no such xattr. */
static void describe_xattr(const char *path, const char *name) {
        uint8_t value[1024];
        ssize_t n = getxattr(path, name, value, sizeof(value));

        if (n < 0) {
                assert_int_equal(errno, ENODATA);
                return;
        }
        fprintf(state_out, " %s=", name);
        for (ssize_t i = 0; i < n; i++)
                fprintf(state_out, "%02x", value[i]);
}

static int describe_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        _cleanup_free_ char *data = NULL;
        char label[256] = "-";
        size_t size = 0;
        ssize_t n;

        if (type != FTW_F || strcmp(path + strlen(path) - 5, "/lock") == 0 ||
            strstr(path, "/smackfs/"))
                return 0;
        assert_int_equal(fileio_read(path, &data, &size), 0);
        n = getxattr(path, "security.SMACK64EXEC", label, sizeof(label) - 1);
        label[n > 0 ? n : 1] = '\0';
        fprintf(state_out, "%s [%s]", path + strlen(state_root), label);
        describe_xattr(path, IMA_XATTR);
        describe_xattr(path, EVM_XATTR);
        fprintf(state_out, " %zu:", size);
        fwrite(data, 1, size, state_out);
        fputc('\n', state_out);
        return 0;
}

/* Every file with its bytes, label and IMA/EVM xattrs, then the effective kernel rules. */
static char *describe(const Scratch *s) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        _cleanup_free_ char *load2 = NULL, *path = NULL, *kernel = NULL;
        char *text = NULL;
        size_t size = 0;

        state_out = open_memstream(&text, &size);
        state_root = s->root;
        assert_non_null(state_out);
        assert_int_equal(nftw(s->root, describe_entry, 16, FTW_PHYS), 0);
        path = fileio_join(s->smackfs, "load2");
        assert_int_equal(fileio_read(path, &load2, NULL), 0);
        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(smack_rules_parse(rules, load2, true, NULL), 0);
        assert_int_equal(smack_rules_format(rules, "kernel", &kernel), 0);
        fputs(kernel, state_out);
        fclose(state_out);
        return text;
}

static const char mce_xml[] =
        "<aegis><request><credential name=\"Cellular\"/><for path=\"/usr/bin/mce\"/></request>"
        "<provide><credential name=\"DeviceModeControl\"/>"
        "<dbus name=\"com.nokia.mce\" own=\"SELF\" bus=\"system\"><node name=\"/\">"
        "<interface name=\"com.nokia.mce.request\"><method name=\"req\">"
        "<annotation name=\"com.maemo.Aegis\" value=\"DeviceModeControl\"/>"
        "</method></interface></node></dbus></provide></aegis>\n";
static const char maps_xml[] =
        "<aegis><request><credential name=\"Location\"/><credential name=\"mce::DeviceModeControl\"/>"
        "<for path=\"/usr/bin/maps\"/></request></aegis>\n";
static const char maps2_xml[] =
        "<aegis><request><credential name=\"NetService\"/>"
        "<for path=\"/usr/bin/maps2\"/></request></aegis>\n";

static void write_text(const char *dir, const char *name, const char *text) {
        _cleanup_free_ char *path = fileio_join(dir, name);

        assert_int_equal(fileio_write_atomic(path, text, strlen(text), 0644), 0);
}

static bool security_xattrs_work(const char *dir) {
        _cleanup_free_ char *path = fileio_join(dir, "probe");
        bool ok;

        write_text(dir, "probe", "");
        ok = setxattr(path, "security.SMACK64EXEC", "x", 1, 0) == 0;
        unlink(path);
        return ok;
}

static int setup(void **state) {
        Scratch *s = calloc(1, sizeof(*s));
        _cleanup_free_ char *bin = NULL;

        assert_non_null(s);
        strcpy(s->root, "/tmp/test-transaction.XXXXXX");
        assert_non_null(mkdtemp(s->root));
        /* MSSF_TEST_SMACKFS: the real one (tests/uml runs this test in a guest). */
        if (getenv("MSSF_TEST_SMACKFS"))
                snprintf(s->smackfs, sizeof(s->smackfs), "%s", getenv("MSSF_TEST_SMACKFS"));
        else
                snprintf(s->smackfs, sizeof(s->smackfs), "%s/smackfs", s->root);
        snprintf(s->manifest_dir, sizeof(s->manifest_dir), "%s/input", s->root);
        bin = fileio_join(s->root, "usr/bin");
        assert_int_equal(fileio_mkdir_p(bin, 0755), 0);
        assert_int_equal(fileio_mkdir_p(s->manifest_dir, 0755), 0);
        if (!getenv("MSSF_TEST_SMACKFS")) {
                assert_int_equal(fileio_mkdir_p(s->smackfs, 0755), 0);
                write_text(s->smackfs, "load2", "");
        }
        assert_int_equal(smack_kernel_set(s->smackfs, "other", "rule", SMACK_ACCESS_READ), 0);
        write_text(bin, "mce", "#!/bin/true\n");
        write_text(bin, "maps", "#!/bin/true\n");
        write_text(bin, "maps2", "#!/bin/true\n");
        write_text(s->manifest_dir, "mce.xml", mce_xml);
        write_text(s->manifest_dir, "maps.xml", maps_xml);
        write_text(s->manifest_dir, "maps2.xml", maps2_xml);
        *state = s;
        return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

static int teardown(void **state) {
        Scratch *s = *state;

        nftw(s->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(s);
        return 0;
}

/* ------------------------------------------------------------------ */
/* The transaction module on its own. */

static void test_rollback_restores_everything(void **state) {
        const Scratch *s = *state;
        _cleanup_(transaction_freep) Transaction *t = NULL;
        _cleanup_free_ char *before = NULL, *after = NULL, *changed = NULL;
        _cleanup_free_ char *a = fileio_join(s->root, "a"), *b = fileio_join(s->root, "b");
        _cleanup_free_ char *bin = fileio_join(s->root, "usr/bin/mce");
        _cleanup_(smack_kernel_rules_freep) SmackKernelRules *kernel = NULL;
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        _cleanup_close_ int fd = -1;
        TransactionRules rules;
        struct stat st;

        if (!security_xattrs_work(s->root))
                skip();
        write_text(s->root, "a", "old a\n");
        assert_int_equal(chmod(a, 0600), 0);
        assert_int_equal(setxattr(bin, "security.SMACK64EXEC", "old", 3, 0), 0);
        before = describe(s);

        assert_int_equal(safe_root_new(s->root, &root), 0);
        assert_int_equal(safe_root_open(root, "/usr/bin/mce", &fd, &st), 0);
        assert_int_equal(smack_kernel_rules_new(s->smackfs, &kernel), 0);
        rules = smack_kernel_transaction_rules(kernel);
        assert_int_equal(transaction_new(&rules, &t), 0);
        assert_int_equal(transaction_write_file(t, a, "new a\n", 6, 0644), 0);
        assert_int_equal(transaction_write_file(t, b, "new b\n", 6, 0644), 0);
        assert_int_equal(transaction_write_file(t, b, "newer b\n", 8, 0644), 0);
        assert_int_equal(transaction_set_xattr(t, root, fd, "/usr/bin/mce", "security.SMACK64EXEC",
                                               "new", 3), 0);
        assert_int_equal(transaction_set_rule(t, "other", "rule", SMACK_ACCESS_WRITE), 0);
        assert_int_equal(transaction_set_rule(t, "x", "y", SMACK_ACCESS_READ), 0);
        assert_int_equal(transaction_size(t), 6);
        changed = describe(s);
        assert_string_not_equal(before, changed);
        assert_int_equal(transaction_rollback(t), 0);
        after = describe(s);
        assert_string_equal(before, after);

        assert_int_equal(stat(a, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(access(b, F_OK), -1);
        assert_int_equal(removexattr(bin, "security.SMACK64EXEC"), 0);
        unlink(a);
}

static void test_free_without_commit_rolls_back(void **state) {
        const Scratch *s = *state;
        _cleanup_free_ char *path = fileio_join(s->root, "c"), *text = NULL;
        Transaction *t = NULL;

        assert_int_equal(transaction_new(NULL, &t), 0);
        assert_int_equal(transaction_write_file(t, path, "c", 1, 0644), 0);
        assert_int_equal(transaction_set_rule(t, "a", "b", SMACK_ACCESS_READ), -EINVAL);
        transaction_free(t);
        assert_int_equal(access(path, F_OK), -1);

        assert_int_equal(transaction_new(NULL, &t), 0);
        assert_int_equal(transaction_write_file(t, path, "c", 1, 0644), 0);
        transaction_commit(t);
        transaction_free(t);
        assert_int_equal(fileio_read(path, &text, NULL), 0);
        assert_string_equal(text, "c");
        unlink(path);
}

static void test_failed_change_is_undone(void **state) {
        const Scratch *s = *state;
        _cleanup_(transaction_freep) Transaction *t = NULL;
        _cleanup_free_ char *path = fileio_join(s->root, "d"), *text = NULL;

        write_text(s->root, "d", "original");
        assert_int_equal(transaction_new(NULL, &t), 0);
        /* The rename of the atomic write fails: the file stays, no temp is left. */
        injected_calls = 0;
        fail_at = 3;                            /* write, fsync, rename */
        assert_int_equal(transaction_write_file(t, path, "replacement", 11, 0644), -EIO);
        fail_at = 0;
        assert_non_null(transaction_failure(t));
        assert_non_null(strstr(transaction_failure(t), path));
        assert_int_equal(transaction_rollback(t), 0);
        assert_int_equal(fileio_read(path, &text, NULL), 0);
        assert_string_equal(text, "original");
        unlink(path);
}

/* ------------------------------------------------------------------ */
/* install and remove, failing at every step. */

typedef enum Operation {
        OPERATION_INSTALL_MAPS,
        OPERATION_UPGRADE_MAPS,                 /* maps2.xml as package maps */
        OPERATION_REMOVE_MAPS,
        OPERATION_DPKG_CONFIGURE_MAPS,          /* as dh_mssf's postinst: dpkg's list too */
        OPERATION_DPKG_REMOVE_MAPS,             /* as dh_mssf's prerm */
        OPERATION_DPKG_UNDO_CONFIGURE,          /* dpkg remove, then NEWS's foreign value back */
        OPERATION_RECOVER,                      /* compile, which recovers first */
} Operation;

/*
 * A security.ima that is not the file's hash (a signature someone else
 * wrote): a configure replaces it, and recovery must put exactly it back.
 */
static const uint8_t foreign_ima[] = { 0x03, 0x02, 0x04, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 };

static void stamp_foreign_ima(const Scratch *s) {
        _cleanup_free_ char *news = fileio_join(s->root, "usr/share/doc/maps/NEWS");

        assert_int_equal(setxattr(news, IMA_XATTR, foreign_ima, sizeof(foreign_ima), 0), 0);
}

static bool journal_exists(const Scratch *s) {
        _cleanup_free_ char *path = NULL;

        assert_true(asprintf(&path, "%s/var/lib/mssf/lock.journal", s->root) > 0);
        return access(path, F_OK) == 0;
}

static int run_operation(const Scratch *s, Operation operation) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_free_ char *maps = fileio_join(s->manifest_dir, "maps.xml");
        _cleanup_free_ char *maps2 = fileio_join(s->manifest_dir, "maps2.xml");
        ToolPathOptions options = { .root = s->root };
        ToolContext c = {};
        int r;

        options.paths[TOOL_PATH_SMACKFS] = s->smackfs;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(tool_paths_init(&c.paths, &options), 0);
        c.diag = diag;
        c.out = c.err = fopen("/dev/null", "w");
        assert_non_null(c.out);
        switch (operation) {
        case OPERATION_INSTALL_MAPS:
                r = tool_install(&c, "maps", maps, "thirdparty");
                break;
        case OPERATION_UPGRADE_MAPS:
                r = tool_install(&c, "maps", maps2, "system");
                break;
        case OPERATION_REMOVE_MAPS:
                r = tool_remove(&c, "maps");
                break;
        case OPERATION_DPKG_CONFIGURE_MAPS:
                r = tool_dpkg(&c, "configure", "maps");
                break;
        case OPERATION_DPKG_REMOVE_MAPS:
        case OPERATION_DPKG_UNDO_CONFIGURE:
                r = tool_dpkg(&c, "remove", "maps");
                if (r == 0 && operation == OPERATION_DPKG_UNDO_CONFIGURE)
                        stamp_foreign_ima(s);
                break;
        default:
                r = tool_compile(&c, NULL);
                break;
        }
        fclose(c.out);
        tool_paths_deinit(&c.paths);
        if (r != 0 && !(r == -EIO && fail_at != 0)) {
                /* Say why, for a failure that was not injected. */
                fprintf(stderr, "operation %d: %d (%s)\n", (int) operation, r,
                        r < 0 ? strerror(-r) : "expected outcome");
                for (size_t i = 0; i < diag->n_items; i++)
                        fprintf(stderr, "  %s\n", diag->items[i]->message);
        }
        return r;
}

static void install_mce(const Scratch *s) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_free_ char *mce = fileio_join(s->manifest_dir, "mce.xml");
        ToolPathOptions options = { .root = s->root };
        ToolContext c = {};

        options.paths[TOOL_PATH_SMACKFS] = s->smackfs;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(tool_paths_init(&c.paths, &options), 0);
        c.diag = diag;
        c.out = c.err = stderr;
        assert_int_equal(tool_install(&c, "mce", mce, "system"), 0);
        tool_paths_deinit(&c.paths);
}

/* Both states whole (cmocka's message would cut them short), and the lines that differ. */
static void print_states(const char *before, const char *after) {
        fprintf(stderr, "--- before\n%s\n--- after\n%s\n--- lines only before (-) or after (+)\n",
                before, after);
        for (int side = 0; side < 2; side++) {
                const char *text = side ? after : before, *other = side ? before : after;

                for (const char *line = text, *end; *line; line = end + 1) {
                        _cleanup_free_ char *needle = NULL;

                        end = strchrnul(line, '\n');
                        needle = strndup(line, (size_t) (end - line) + (*end ? 1 : 0));
                        assert_non_null(needle);
                        if (!strstr(other, needle))
                                fprintf(stderr, "%c%s", side ? '+' : '-', needle);
                        if (!*end)
                                break;
                }
        }
}

/*
 * Fail the 1st, 2nd, ... wrapped call of operation; each failing run must
 * leave the state as it was, each run that still succeeds (a failure the
 * tool may ignore, like a directory fsync) is undone by undo. Returns how
 * many runs failed.
 */
static unsigned fail_each_step(const Scratch *s, Operation operation, Operation undo,
                               const char *expected_after) {
        _cleanup_free_ char *before = describe(s);
        unsigned total, failed = 0;

        injected_calls = 0;
        fail_at = 0;
        assert_int_equal(run_operation(s, operation), 0);
        total = injected_calls;
        if (expected_after) {
                _cleanup_free_ char *after = describe(s);

                assert_string_equal(after, expected_after);
        }
        assert_int_equal(run_operation(s, undo), 0);
        {
                _cleanup_free_ char *again = describe(s);

                assert_string_equal(again, before);
        }
        assert_true(total > 5);
        for (unsigned n = 1; n <= total; n++) {
                _cleanup_free_ char *after = NULL;
                int r;

                injected_calls = 0;
                fail_at = n;
                r = run_operation(s, operation);
                fail_at = 0;
                if (r == 0) {
                        assert_int_equal(run_operation(s, undo), 0);
                } else {
                        assert_int_equal(r, -EIO);
                        failed++;
                        /* Only forgetting the journal failed: the change is
                         * committed, and the next run undoes it. */
                        if (journal_exists(s))
                                assert_int_equal(run_operation(s, OPERATION_RECOVER), 0);
                }
                after = describe(s);
                if (strcmp(after, before) != 0) {
                        print_states(before, after);
                        fail_msg("failing call %u of %u changed the state", n, total);
                }
        }
        return failed;
}

/* Run operation in a child that dies at its nth wrapped call: CRASH_STATUS, or its result. */
static int crash_operation_at(const Scratch *s, Operation operation, unsigned n) {
        int status;
        pid_t pid;

        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                injected_calls = 0;
                crash_at = n;
                _exit(run_operation(s, operation) == 0 ? 0 : 1);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        return WEXITSTATUS(status);
}

/*
 * Kill operation at its 1st, 2nd, ... wrapped call; the next run (compile)
 * must find the journal and put everything back as it was. Returns how
 * many crashes there were.
 */
static unsigned crash_each_step(const Scratch *s, Operation operation, Operation undo) {
        _cleanup_free_ char *before = describe(s);
        unsigned crashes = 0;

        for (unsigned n = 1;; n++) {
                _cleanup_free_ char *after = NULL;
                int status = crash_operation_at(s, operation, n);

                if (status == 0) {
                        /* It finished before the nth call: done. */
                        assert_int_equal(run_operation(s, undo), 0);
                        break;
                }
                assert_int_equal(status, CRASH_STATUS);
                crashes++;
                assert_int_equal(run_operation(s, OPERATION_RECOVER), 0);
                assert_false(journal_exists(s));
                after = describe(s);
                if (strcmp(after, before) != 0) {
                        print_states(before, after);
                        fail_msg("crash at call %u, then recovery, changed the state", n);
                }
        }
        {
                _cleanup_free_ char *end = describe(s);

                assert_string_equal(end, before);
        }
        return crashes;
}

static void test_crash_at_every_step_recovers(void **state) {
        const Scratch *s = *state;

        install_mce(s);
        assert_true(crash_each_step(s, OPERATION_INSTALL_MAPS, OPERATION_REMOVE_MAPS) > 5);
        assert_int_equal(run_operation(s, OPERATION_INSTALL_MAPS), 0);
        assert_true(crash_each_step(s, OPERATION_UPGRADE_MAPS, OPERATION_INSTALL_MAPS) > 5);
        assert_true(crash_each_step(s, OPERATION_REMOVE_MAPS, OPERATION_INSTALL_MAPS) > 5);
        assert_int_equal(run_operation(s, OPERATION_REMOVE_MAPS), 0);
}

/* "MD5  path" for dpkg's md5sums. */
static void md5sums_line(FILE *f, const Scratch *s, const char *name) {
        _cleanup_free_ char *path = fileio_join(s->root, name);
        ImaDigests digests;

        assert_int_equal(ima_digest_file(path, &digests), 0);
        for (size_t i = 0; i < DIGEST_MD5_SIZE; i++)
                fprintf(f, "%02x", digests.md5[i]);
        fprintf(f, "  %s\n", name);
}

/*
 * dpkg's view of package maps, as after its unpack: a status entry, the
 * file list (the binary, two documents, a conffile, directories, a file
 * that is gone) and md5sums (not for the conffile), and the manifest
 * dh_mssf ships. NEWS carries a foreign security.ima.
 */
static void setup_dpkg(const Scratch *s) {
        _cleanup_free_ char *info = fileio_join(s->root, "var/lib/dpkg/info");
        _cleanup_free_ char *doc = fileio_join(s->root, "usr/share/doc/maps");
        _cleanup_free_ char *etc = fileio_join(s->root, "etc");
        _cleanup_free_ char *aegis = fileio_join(s->root, "usr/share/mssf/aegis");
        _cleanup_free_ char *dpkg = fileio_join(s->root, "var/lib/dpkg");
        _cleanup_free_ char *md5sums = NULL;
        size_t size = 0;
        FILE *f;

        assert_int_equal(fileio_mkdir_p(info, 0755), 0);
        assert_int_equal(fileio_mkdir_p(doc, 0755), 0);
        assert_int_equal(fileio_mkdir_p(etc, 0755), 0);
        assert_int_equal(fileio_mkdir_p(aegis, 0755), 0);
        write_text(doc, "README", "read me\n");
        write_text(doc, "NEWS", "news\n");
        write_text(etc, "maps.conf", "zoom=3\n");
        write_text(aegis, "maps.aegis", maps_xml);
        write_text(dpkg, "status", "Package: maps\nStatus: install ok unpacked\nVersion: 1\n"
                   "Architecture: all\nMaintainer: t <t@example.org>\nDescription: t\n");
        write_text(info, "maps.list", "/.\n/etc\n/etc/maps.conf\n/usr\n/usr/bin\n/usr/bin/maps\n"
                   "/usr/share/doc/maps\n/usr/share/doc/maps/README\n"
                   "/usr/share/doc/maps/NEWS\n/usr/share/doc/maps/gone\n");
        f = open_memstream(&md5sums, &size);
        assert_non_null(f);
        md5sums_line(f, s, "usr/bin/maps");
        md5sums_line(f, s, "usr/share/doc/maps/README");
        md5sums_line(f, s, "usr/share/doc/maps/NEWS");
        assert_int_equal(fclose(f), 0);
        write_text(info, "maps.md5sums", md5sums);
        stamp_foreign_ima(s);
}

/* Whether path (under the root) has a security.ima that is the hash of its content. */
static bool has_own_ima(const Scratch *s, const char *name) {
        _cleanup_free_ char *path = fileio_join(s->root, name);
        uint8_t value[IMA_VALUE_SIZE + 1];
        ImaDigests digests;
        ssize_t n = getxattr(path, IMA_XATTR, value, sizeof(value));

        assert_int_equal(ima_digest_file(path, &digests), 0);
        return n >= 0 && ima_value_equal(value, (size_t) n, digests.value);
}

/*
 * dpkg configure and remove touch every regular file dpkg lists, not only
 * the manifest's binary; a crash at any step of either must be undone for
 * all of them, to the very value each had before.
 */
static void test_dpkg_crash_at_every_step_recovers(void **state) {
        const Scratch *s = *state;

        if (!security_xattrs_work(s->root))
                skip();
        setup_dpkg(s);
        /* The fixture is what the test says it is: configure hashes the listed files. */
        assert_int_equal(run_operation(s, OPERATION_DPKG_CONFIGURE_MAPS), 0);
        assert_true(has_own_ima(s, "usr/bin/maps"));
        assert_true(has_own_ima(s, "usr/share/doc/maps/README"));
        assert_true(has_own_ima(s, "usr/share/doc/maps/NEWS"));
        assert_true(has_own_ima(s, "etc/maps.conf"));
        assert_int_equal(run_operation(s, OPERATION_DPKG_UNDO_CONFIGURE), 0);
        assert_false(has_own_ima(s, "usr/share/doc/maps/README"));

        assert_true(crash_each_step(s, OPERATION_DPKG_CONFIGURE_MAPS,
                                    OPERATION_DPKG_UNDO_CONFIGURE) > 5);
        assert_int_equal(run_operation(s, OPERATION_DPKG_CONFIGURE_MAPS), 0);
        assert_true(crash_each_step(s, OPERATION_DPKG_REMOVE_MAPS,
                                    OPERATION_DPKG_CONFIGURE_MAPS) > 5);
        assert_int_equal(run_operation(s, OPERATION_DPKG_UNDO_CONFIGURE), 0);
}

/* The same for failures: the rollback puts every listed file's value back. */
static void test_dpkg_fails_cleanly_at_every_step(void **state) {
        const Scratch *s = *state;

        if (!security_xattrs_work(s->root))
                skip();
        setup_dpkg(s);
        assert_true(fail_each_step(s, OPERATION_DPKG_CONFIGURE_MAPS, OPERATION_DPKG_UNDO_CONFIGURE,
                                   NULL) > 5);
        assert_int_equal(run_operation(s, OPERATION_DPKG_CONFIGURE_MAPS), 0);
        assert_true(fail_each_step(s, OPERATION_DPKG_REMOVE_MAPS, OPERATION_DPKG_CONFIGURE_MAPS,
                                   NULL) > 5);
        assert_int_equal(run_operation(s, OPERATION_DPKG_UNDO_CONFIGURE), 0);
}

static void test_install_fails_cleanly_at_every_step(void **state) {
        const Scratch *s = *state;
        unsigned failed;

        if (!security_xattrs_work(s->root))
                skip();
        install_mce(s);
        failed = fail_each_step(s, OPERATION_INSTALL_MAPS, OPERATION_REMOVE_MAPS, NULL);
        /* Every write, rename, xattr and kernel rule is a step that can fail. */
        assert_true(failed > 5);
}

static void test_upgrade_fails_cleanly_at_every_step(void **state) {
        const Scratch *s = *state;
        _cleanup_free_ char *installed = NULL;
        unsigned failed;

        if (!security_xattrs_work(s->root))
                skip();
        assert_int_equal(run_operation(s, OPERATION_INSTALL_MAPS), 0);
        installed = describe(s);
        /* The upgrade relabels maps2, unlabels maps, rewrites rules: undo it by
         * reinstalling the old manifest. */
        failed = fail_each_step(s, OPERATION_UPGRADE_MAPS, OPERATION_INSTALL_MAPS, NULL);
        assert_true(failed > 5);
        {
                _cleanup_free_ char *now = describe(s);

                assert_string_equal(now, installed);
        }
        assert_int_equal(run_operation(s, OPERATION_REMOVE_MAPS), 0);
}

static void test_remove_fails_cleanly_at_every_step(void **state) {
        const Scratch *s = *state;
        unsigned failed;

        if (!security_xattrs_work(s->root))
                skip();
        assert_int_equal(run_operation(s, OPERATION_INSTALL_MAPS), 0);
        failed = fail_each_step(s, OPERATION_REMOVE_MAPS, OPERATION_INSTALL_MAPS, NULL);
        assert_true(failed > 5);
        assert_int_equal(run_operation(s, OPERATION_REMOVE_MAPS), 0);
}

int main(void) {
        if (!security_xattrs_available())
                return 77;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rollback_restores_everything),
                cmocka_unit_test(test_free_without_commit_rolls_back),
                cmocka_unit_test(test_failed_change_is_undone),
                cmocka_unit_test(test_install_fails_cleanly_at_every_step),
                cmocka_unit_test(test_upgrade_fails_cleanly_at_every_step),
                cmocka_unit_test(test_remove_fails_cleanly_at_every_step),
                cmocka_unit_test(test_crash_at_every_step_recovers),
                cmocka_unit_test(test_dpkg_fails_cleanly_at_every_step),
                cmocka_unit_test(test_dpkg_crash_at_every_step_recovers),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
