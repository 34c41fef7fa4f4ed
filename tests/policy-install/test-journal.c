/*
 * Unit tests of the crash journal's record of security.ima (journal.c,
 * version 3) and of how recovery turns it into a plan
 * (integrity_plan_restore): what journal_begin() writes reads back byte
 * for byte; a journal that is cut short, garbled or out of bounds is
 * refused with the line that is wrong; a path outside the root is an
 * error and a file that is gone or now behind a symlink is left alone.
 * The round trip needs root for security.* xattrs (else skipped).
 */
#include <errno.h>
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

#include "ima.h"
#include "integrity.h"
#include "journal.h"
#include "safe-root.h"
#include "tool-fixture.h"

static const uint8_t signature[] = { 0x03, 0x02, 0x04, 0xaa, 0x00, 0x0a, 0xff };

typedef struct Paths {
        ToolFixture *fixture;
        ToolPaths paths;
} Paths;

static Paths *paths_new(void) {
        Paths *p = calloc(1, sizeof(*p));
        ToolPathOptions options = {};

        assert_non_null(p);
        p->fixture = tool_fixture_new("test-journal");
        options.root = p->fixture->root;
        assert_int_equal(tool_paths_init(&p->paths, &options), 0);
        assert_int_equal(fileio_mkdir_p(p->paths.manifest_dir, 0755), 0);
        return p;
}

static void paths_free(Paths *p) {
        tool_paths_deinit(&p->paths);
        tool_fixture_free(p->fixture);
        free(p);
}

/* The plan's files keep what they carry: a signature, or none (and a newline in a name). */
static void test_round_trip(void **state) {
        Paths *p = paths_new();
        _cleanup_free_ char *a = fileio_join(p->fixture->root, "a");
        _cleanup_free_ char *b = fileio_join(p->fixture->root, "b\nwith a newline");
        _cleanup_(journal_freep) Journal *journal = NULL;
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        IntegrityEntry entries[] = {
                { .file = a, .path = (char *) "/a" },
                { .file = b, .path = (char *) "/b\nwith a newline" },
        };
        IntegrityPlan plan = { .entries = entries, .n_entries = 2 };
        unsigned line = 0;

        tool_fixture_write(p->fixture->root, "a", "a\n");
        tool_fixture_write(p->fixture->root, "b\nwith a newline", "b\n");
        if (setxattr(a, IMA_XATTR, signature, sizeof(signature), 0) < 0) {
                paths_free(p);
                skip();
        }
        assert_int_equal(safe_root_new(p->fixture->root, &root), 0);
        assert_int_equal(journal_begin(&p->paths, root, "maps", &plan), 0);
        assert_int_equal(journal_read(&p->paths, &journal, &line), 0);
        assert_true(journal->has_ima);
        assert_int_equal(journal->n_ima, 2);
        assert_string_equal(journal->ima[0].file, a);
        /* Which file it was: the same inode must be there for recovery to write. */
        struct stat st;
        assert_int_equal(stat(a, &st), 0);
        assert_true(journal->ima[0].has_inode);
        assert_true(journal->ima[0].dev == (uint64_t) st.st_dev);
        assert_true(journal->ima[0].ino == (uint64_t) st.st_ino);
        assert_int_equal(journal->ima[0].value_size, sizeof(signature));
        assert_memory_equal(journal->ima[0].value, signature, sizeof(signature));
        assert_int_equal(journal->ima[0].line, 4);
        assert_string_equal(journal->ima[1].file, b);
        assert_null(journal->ima[1].value);
        assert_null(journal->manifest_data);
        assert_int_equal(journal_end(&p->paths), 0);
        paths_free(p);
}

static void test_no_plan_is_an_empty_list(void **state) {
        Paths *p = paths_new();
        _cleanup_(journal_freep) Journal *journal = NULL;
        unsigned line = 0;

        assert_int_equal(journal_begin(&p->paths, NULL, "maps", NULL), 0);
        assert_int_equal(journal_read(&p->paths, &journal, &line), 0);
        assert_true(journal->has_ima);
        assert_int_equal(journal->n_ima, 0);
        paths_free(p);
}

typedef struct Case {
        const char *ima;                /* the ima-files section (line 3 on) */
        unsigned line;                  /* 0: parses */
} Case;

static void test_refused_with_the_line(void **state) {
        static const Case cases[] = {
                { "ima-files 1\nfile 7\n/a/b/cd\nima 0404\n", 0 },
                { "ima-files 1\nfile 2\n/a\nima absent\n", 0 },
                { "ima-files 1\nfile 2\n/a\nima empty\n", 0 },
                { "ima-files 2\nfile 2\n/a\nima absent\n", 7 },        /* cut short */
                { "ima-files 1\nfile 2\n/a\nima absent\nfile 2\n/b\nima absent\n", 7 },
                { "ima-files 99999999\n", 3 },                          /* more than there is */
                { "ima-files -1\n", 3 },
                { "ima-files 1\nfile 3\nabc\nima absent\n", 4 },       /* relative */
                { "ima-files 1\nfile 5\n/a/..\nima absent\n", 4 },
                { "ima-files 1\nfile 6\n/a/./b\nima absent\n", 4 },
                { "ima-files 1\nfile 4\n/a//\nima absent\n", 4 },
                { "ima-files 1\nfile 9\n/a\nima absent\n", 4 },        /* wrong size */
                { "ima-files 1\nfile 1\n/a\nima absent\n", 4 },        /* no newline after */
                { "ima-files 1\nfile absent\nima absent\n", 4 },
                { "ima-files 2\nfile 2\n/a\nima absent\nfile 2\n/a\nima 04\n", 7 }, /* twice */
                { "ima-files 1\nfile 2\n/a\nima 040\n", 6 },            /* odd */
                { "ima-files 1\nfile 2\n/a\nima 04AB\n", 6 },           /* upper case */
                { "ima-files 1\nfile 2\n/a\nima 04 4\n", 6 },
                { "ima-files 1\nfile 2\n/a\nima\n", 6 },
                { "ima-file 1\n", 3 },
                { "", 3 },                                              /* a version 2 body */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = NULL;
                Journal *journal = NULL;
                unsigned line = 0;
                int r;

                assert_true(asprintf(&text, "mssf-policy journal 3\npackage maps\n%s"
                                     "origin-file absent\nmanifest absent\n", cases[i].ima) > 0);
                r = journal_parse(text, strlen(text), &journal, &line);
                if (r != (cases[i].line ? JOURNAL_E_CORRUPT : 0) || line != cases[i].line)
                        fail_msg("case %zu: %d at line %u, expected line %u:\n%s", i, r, line,
                                 cases[i].line, text);
                journal_free(journal);
        }
}

/* A value longer than any xattr, NUL bytes, and a wrong package line. */
/* Version 4 adds each file's device and inode ("unknown" when it could not be opened). */
static void test_inodes(void **state) {
        static const Case cases[] = {
                { "ima-files 1\nfile 2\n/a\ninode 2049 1234\nima absent\n", 0 },
                { "ima-files 1\nfile 2\n/a\ninode unknown\nima 0404\n", 0 },
                { "ima-files 1\nfile 2\n/a\nima absent\n", 6 },     /* no inode line */
                { "ima-files 1\nfile 2\n/a\ninode 2049\nima absent\n", 6 },
                { "ima-files 1\nfile 2\n/a\ninode 2049 x\nima absent\n", 6 },
                { "ima-files 1\nfile 2\n/a\ninode -1 2\nima absent\n", 6 },
                { "ima-files 1\nfile 2\n/a\ninode 1 2 3\nima absent\n", 6 },
                { "ima-files 1\nfile 2\n/a\ninode 99999999999999999999999 2\nima absent\n", 6 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = NULL;
                Journal *journal = NULL;
                unsigned line = 0;
                int r;

                assert_true(asprintf(&text, "mssf-policy journal 4\npackage maps\n%s"
                                     "origin-file absent\nmanifest absent\n", cases[i].ima) > 0);
                r = journal_parse(text, strlen(text), &journal, &line);
                if (r != (cases[i].line ? JOURNAL_E_CORRUPT : 0) || line != cases[i].line)
                        fail_msg("case %zu: %d at line %u, expected line %u:\n%s", i, r, line,
                                 cases[i].line, text);
                if (i == 0)
                        assert_true(journal->ima[0].has_inode && journal->ima[0].dev == 2049 &&
                                    journal->ima[0].ino == 1234);
                if (i == 1)
                        assert_false(journal->ima[0].has_inode);
                journal_free(journal);
        }
}

static void test_bounds(void **state) {
        static const char head[] = "mssf-policy journal 3\npackage maps\nima-files 1\nfile 2\n/a\nima ";
        static const char tail[] = "\norigin-file absent\nmanifest absent\n";
        size_t hex = 2 * (FILEIO_XATTR_MAX + 1), size = strlen(head) + hex + strlen(tail);
        _cleanup_free_ char *text = malloc(size + 1);
        static const char nul[] = "mssf-policy journal 3\npackage maps\nima-files 1\nfile 3\n/a\0\n"
                                  "ima absent\norigin-file absent\nmanifest absent\n";
        static const char label[] = "mssf-policy journal 3\npackage a b\nima-files 0\n"
                                    "origin-file absent\nmanifest absent\n";
        Journal *journal = NULL;
        unsigned line = 0;

        assert_non_null(text);
        memcpy(text, head, strlen(head));
        memset(text + strlen(head), '0', hex);
        memcpy(text + strlen(head) + hex, tail, strlen(tail) + 1);
        assert_int_equal(journal_parse(text, size, &journal, &line), JOURNAL_E_CORRUPT);
        assert_int_equal(line, 6);
        /* Exactly the limit is a value. */
        memmove(text + strlen(head) + hex - 2, tail, strlen(tail) + 1);
        assert_int_equal(journal_parse(text, size - 2, &journal, &line), 0);
        assert_int_equal(journal->ima[0].value_size, FILEIO_XATTR_MAX);
        journal = journal_free(journal);
        assert_int_equal(journal_parse(nul, sizeof(nul) - 1, &journal, &line), JOURNAL_E_CORRUPT);
        assert_int_equal(line, 4);
        assert_int_equal(journal_parse(label, strlen(label), &journal, &line), JOURNAL_E_CORRUPT);
        assert_int_equal(line, 2);
}

/* Version 2 journals (an older mssf-policy's) still read, without the list. */
static void test_version_2(void **state) {
        static const char v2[] = "mssf-policy journal 2\npackage maps\norigin-file absent\n"
                                 "manifest absent\n";
        static const char v2_with_list[] = "mssf-policy journal 2\npackage maps\nima-files 0\n"
                                           "origin-file absent\nmanifest absent\n";
        Journal *journal = NULL;
        unsigned line = 0;

        assert_int_equal(journal_parse(v2, strlen(v2), &journal, &line), 0);
        assert_false(journal->has_ima);
        journal = journal_free(journal);
        assert_int_equal(journal_parse(v2_with_list, strlen(v2_with_list), &journal, &line),
                         JOURNAL_E_CORRUPT);
        assert_int_equal(line, 3);
}

static void test_restore_stays_in_the_root(void **state) {
        Paths *p = paths_new();
        _cleanup_free_ char *a = fileio_join(p->fixture->root, "a");
        _cleanup_free_ char *gone = fileio_join(p->fixture->root, "gone");
        _cleanup_free_ char *dir = fileio_join(p->fixture->root, "dir");
        _cleanup_free_ char *linked = fileio_join(p->fixture->root, "dir/b");
        _cleanup_free_ char *elsewhere = fileio_join(p->fixture->root, "elsewhere");
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(integrity_plan_freep) IntegrityPlan *plan = NULL;
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        IntegritySaved saved[] = {
                { .file = a, .value = (uint8_t *) signature, .value_size = sizeof(signature), .line = 3 },
                { .file = gone, .line = 6 },
                { .file = linked, .line = 9 },
                { .file = (char *) "/etc/passwd", .line = 12 },
        };
        const Diagnostic *d;

        assert_int_equal(diagnostics_new(&diag), 0);
        tool_fixture_write(p->fixture->root, "a", "a\n");
        assert_int_equal(fileio_mkdir_p(elsewhere, 0755), 0);
        tool_fixture_write(elsewhere, "b", "b\n");
        assert_int_equal(symlink("elsewhere", dir), 0);

        assert_int_equal(safe_root_new(p->fixture->root, &root), 0);
        assert_int_equal(integrity_plan_restore(root, saved, 3, "J", diag, &plan), 0);
        assert_int_equal(plan->n_entries, 1);
        assert_string_equal(plan->entries[0].file, a);
        assert_memory_equal(plan->entries[0].value, signature, sizeof(signature));
        d = diagnostics_find(diag, "it is gone");
        assert_non_null(d);
        assert_int_equal(d->line, 6);
        d = diagnostics_find(diag, "a symbolic link is on its way now");
        assert_non_null(d);
        assert_int_equal(d->line, 9);
        assert_int_equal(diag->n_errors, 0);
        plan = integrity_plan_free(plan);

        assert_int_equal(integrity_plan_restore(root, saved, 4, "J", diag, &plan),
                         INTEGRITY_E_INVALID);
        assert_null(plan);
        d = diagnostics_find(diag, "/etc/passwd is not under");
        assert_non_null(d);
        assert_string_equal(d->file, "J");
        assert_int_equal(d->line, 12);
        paths_free(p);
}

/*
 * Recovery writes only on the inode the interrupted change was to touch:
 * a file renamed or linked over the path since (a hard link to another
 * package's binary, say) is left alone.
 */
static void test_restore_same_inode(void **state) {
        Paths *p = paths_new();
        _cleanup_free_ char *same = fileio_join(p->fixture->root, "same");
        _cleanup_free_ char *other = fileio_join(p->fixture->root, "other");
        _cleanup_free_ char *victim = fileio_join(p->fixture->root, "victim");
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(integrity_plan_freep) IntegrityPlan *plan = NULL;
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        struct stat st_same, st_other;

        tool_fixture_write(p->fixture->root, "same", "same\n");
        tool_fixture_write(p->fixture->root, "other", "other\n");
        tool_fixture_write(p->fixture->root, "victim", "victim\n");
        assert_int_equal(stat(same, &st_same), 0);
        assert_int_equal(stat(other, &st_other), 0);
        /* The change touched "other"; then the victim was linked over its path. */
        assert_int_equal(unlink(other), 0);
        assert_int_equal(link(victim, other), 0);
        IntegritySaved saved[] = {
                { .file = same, .has_inode = true, .dev = st_same.st_dev, .ino = st_same.st_ino,
                  .line = 3 },
                { .file = other, .has_inode = true, .dev = st_other.st_dev,
                  .ino = st_other.st_ino, .line = 7 },
        };
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(safe_root_new(p->fixture->root, &root), 0);
        assert_int_equal(integrity_plan_restore(root, saved, 2, "J", diag, &plan), 0);
        assert_int_equal(plan->n_entries, 1);
        assert_string_equal(plan->entries[0].file, same);
        const Diagnostic *d = diagnostics_find(diag, "another file is at that path now than the "
                                                     "one the change was to touch");
        assert_non_null(d);
        assert_string_equal(d->file, "J");
        assert_int_equal(d->line, 7);
        paths_free(p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_no_plan_is_an_empty_list),
                cmocka_unit_test(test_refused_with_the_line),
                cmocka_unit_test(test_inodes),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_version_2),
                cmocka_unit_test(test_restore_stays_in_the_root),
                cmocka_unit_test(test_restore_same_inode),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
