/*
 * Unit tests of what the package-manager glue keeps on disk: the origin
 * file (registration.c, older one-line files included), the journal that
 * carries it across a crash (journal.c, version 1 still read), apt's
 * records (apt-record.c) and the device maker's repositories.conf
 * (repositories.c), each refused with a precise reason when it is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apt-record.h"
#include "journal.h"
#include "registration.h"
#include "repositories.h"
#include "tool-fixture.h"

static int parse(const char *text, Registration *reg) {
        return registration_parse(text, strlen(text), reg);
}

static void test_origin_file(void **state) {
        Registration reg;
        char *text = NULL;

        assert_int_equal(parse("thirdparty\n", &reg), 0);
        assert_string_equal(reg.origin, "thirdparty");
        assert_false(registration_from_dpkg(&reg));
        registration_clear(&reg);
        assert_int_equal(parse("-\n", &reg), 0);
        assert_null(reg.origin);
        registration_clear(&reg);
        assert_int_equal(parse("system\nVersion: 1.0-1\nArchitecture: all\nManifest-SHA256: ab\n"
                               "Repository: A / B, file:/srv ./ Packages\n", &reg), 0);
        assert_string_equal(reg.origin, "system");
        assert_true(registration_from_dpkg(&reg));
        assert_string_equal(reg.version, "1.0-1");
        assert_string_equal(reg.repository, "A / B, file:/srv ./ Packages");
        assert_int_equal(registration_format(&reg, &text), 0);
        assert_string_equal(text, "system\nVersion: 1.0-1\nArchitecture: all\nManifest-SHA256: ab\n"
                                  "Repository: A / B, file:/srv ./ Packages\n");
        free(text);
        registration_clear(&reg);
        /* Which unpack the origin was established for: kept, written last. */
        assert_int_equal(parse("system\nVersion: 1\nArchitecture: all\nManifest-SHA256: ab\n"
                               "Unpacked: 2049:77 1733390000.000000001\n", &reg), 0);
        assert_string_equal(reg.unpacked, "2049:77 1733390000.000000001");
        assert_int_equal(registration_format(&reg, &text), 0);
        assert_string_equal(text, "system\nVersion: 1\nArchitecture: all\nManifest-SHA256: ab\n"
                                  "Unpacked: 2049:77 1733390000.000000001\n");
        free(text);
        registration_clear(&reg);
        assert_int_equal(parse("system\nVersion: 1\nArchitecture: all\nManifest-SHA256: ab\n"
                               "Unpacked: 1\x01\n", &reg), REGISTRATION_E_INVALID);

        /* What is not an origin file is refused, not read as "no origin". */
        assert_int_equal(parse("two words\n", &reg), REGISTRATION_E_INVALID);
        assert_int_equal(parse("system\nVersion: 1\n", &reg), REGISTRATION_E_INVALID);
        assert_int_equal(parse("system\nVersion: 1\nArchitecture: all\nManifest-SHA256: a\n"
                               "Extra: x\n", &reg), REGISTRATION_E_INVALID);
        assert_int_equal(parse("system\nVersion: 1\nArchitecture: all\nManifest-SHA256: a\n\n"
                               "Version: 2\n", &reg), REGISTRATION_E_INVALID);
}

/* A journal keeps the whole origin file, and reads version 1's origin line. */
static void test_journal(void **state) {
        static const char v2[] = "mssf-policy journal 2\npackage app\norigin-file 31\n"
                                 "system\nVersion: 1\nArchitecture: all\n"
                                 "manifest 8\n<aegis/>";
        static const char v1[] = "mssf-policy journal 1\npackage app\norigin thirdparty\n"
                                 "manifest absent\n";
        Journal *j = NULL;

        /* 31 bytes is not a whole origin file here: refused as corrupt. */
        assert_int_equal(journal_parse(v2, strlen(v2), &j, NULL), JOURNAL_E_CORRUPT);
        {
                static const char good[] = "mssf-policy journal 2\npackage app\norigin-file 56\n"
                                           "system\nVersion: 1\nArchitecture: all\nManifest-SHA256: ab\n"
                                           "manifest 8\n<aegis/>";
                assert_int_equal(journal_parse(good, strlen(good), &j, NULL), 0);
                assert_string_equal(j->origin, "system");
                assert_non_null(strstr(j->origin_file, "Manifest-SHA256: ab\n"));
                assert_int_equal(j->manifest_size, 8);
                journal_free(j);
        }
        assert_int_equal(journal_parse(v1, strlen(v1), &j, NULL), 0);
        assert_string_equal(j->origin, "thirdparty");
        assert_null(j->origin_file);
        assert_null(j->manifest_data);
        journal_free(j);
        {
                static const char none[] = "mssf-policy journal 2\npackage app\n"
                                           "origin-file absent\nmanifest absent\n";
                assert_int_equal(journal_parse(none, strlen(none), &j, NULL), 0);
        }
        assert_null(j->origin);
        journal_free(j);
}

static void test_apt_record(void **state) {
        ToolFixture *f = tool_fixture_new("test-registration");
        ToolPaths paths = { .apt_origin_dir = fileio_join(f->root, "apt-origins") };
        AptRecord rec = {
                .package = (char *) "app", .architecture = (char *) "all",
                .version = (char *) "1.0", .deb_sha256 = (char *) "00",
                .manifest_sha256 = (char *) "11", .md5sums_sha256 = (char *) "22",
                .origin = (char *) "system", .repository = (char *) "R",
        }, back;

        assert_int_equal(apt_record_read(&paths, "app", &back), 0);
        assert_null(back.package);
        assert_int_equal(apt_record_write(&paths, &rec), 0);
        assert_int_equal(apt_record_read(&paths, "app", &back), 0);
        assert_string_equal(back.origin, "system");
        assert_string_equal(back.manifest_sha256, "11");
        assert_string_equal(back.md5sums_sha256, "22");
        apt_record_clear(&back);
        /* A record of an older mssf-policy, without Md5sums-SHA256, still reads (and binds nothing). */
        tool_fixture_write(paths.apt_origin_dir, "app", "Package: app\nArchitecture: all\n"
                           "Version: 1\nDeb-SHA256: 0\nManifest-SHA256: 1\n");
        assert_int_equal(apt_record_read(&paths, "app", &back), 0);
        assert_null(back.md5sums_sha256);
        apt_record_clear(&back);
        rec.origin = NULL;
        assert_int_equal(apt_record_write(&paths, &rec), 0);
        assert_int_equal(apt_record_read(&paths, "app", &back), 0);
        assert_null(back.origin);
        apt_record_clear(&back);
        /* A record for another package, or with a field we do not know, is refused. */
        tool_fixture_write(paths.apt_origin_dir, "other", "Package: app\nArchitecture: all\n"
                           "Version: 1\nDeb-SHA256: 0\nManifest-SHA256: 1\n");
        assert_int_equal(apt_record_read(&paths, "other", &back), APT_RECORD_E_INVALID);
        tool_fixture_write(paths.apt_origin_dir, "app", "Package: app\nArchitecture: all\n"
                           "Version: 1\nDeb-SHA256: 0\nManifest-SHA256: 1\nMssf-Origin: a b\n");
        assert_int_equal(apt_record_read(&paths, "app", &back), APT_RECORD_E_INVALID);
        assert_int_equal(apt_record_remove(&paths, "app"), 0);
        assert_int_equal(apt_record_remove(&paths, "app"), 0);
        free(paths.apt_origin_dir);
        tool_fixture_free(f);
}

static void test_repositories(void **state) {
        static const char good[] =
                "# the device maker's\n"
                "Mssf-Origin: system\nRelease-Origin: Example Devices\n"
                "Release-Label: Example Devices System\nSigned-By: /a.gpg\n /b.gpg\n\n"
                "Mssf-Origin: thirdparty\nRelease-Origin: S\nRelease-Label: S\nSigned-By: /s.gpg\n";
        static const char bad[] =
                "Mssf-Origin: system\nRelease-Origin: A\nSigned-By: relative.gpg\n\n"
                "Mssf-Origin: *\nRelease-Origin: B\nRelease-Label: B\nSigned-By: /b.gpg\nColour: red\n";
        Diagnostics *diag = NULL;
        Repositories *repos = NULL;
        char *line = NULL;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(repositories_parse(good, strlen(good), "r.conf", diag, &repos), 0);
        assert_int_equal(repos->n_items, 2);
        assert_string_equal(repos->items[0].release_origin, "Example Devices");
        assert_int_equal(repos->items[0].n_keyrings, 2);
        assert_string_equal(repos->items[0].keyrings[1], "/b.gpg");
        assert_int_equal(repos->items[1].line, 8);
        repositories_free(repos);

        assert_int_equal(repositories_parse(bad, strlen(bad), "r.conf", diag, &repos),
                         REPOSITORIES_E_INVALID);
        assert_non_null(diagnostics_find(diag, "no Release-Label field"));
        assert_non_null(diagnostics_find(diag, "'relative.gpg' is not an absolute path"));
        assert_non_null(diagnostics_find(diag, "Mssf-Origin '*'"));
        assert_int_equal(diagnostic_format(diagnostics_find(diag, "unknown field 'Colour'"), &line), 0);
        assert_string_equal(line, "r.conf:9: error: unknown field 'Colour': a paragraph has "
                                  "Mssf-Origin, Release-Origin, Release-Label and Signed-By");
        free(line);
        diagnostics_free(diag);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_origin_file),
                cmocka_unit_test(test_journal),
                cmocka_unit_test(test_apt_record),
                cmocka_unit_test(test_repositories),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
