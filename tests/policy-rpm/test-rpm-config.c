/*
 * Unit tests of what the RPM side reads and keeps: the device maker's
 * rpm-origins.conf (rpm-origins.c), the record of a transaction in
 * progress (rpm-record.c), an rpm registration's origin file
 * (registration.c's Package-Manager), and the files whose security.ima
 * the package manager writes itself, which integrity.c leaves alone.
 * Each is refused with a precise reason when it is wrong.
 */
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

#include "fileio.h"
#include "integrity.h"
#include "package-db.h"
#include "package-files.h"
#include "paths.h"
#include "registration.h"
#include "rpm-origins.h"
#include "rpm-record.h"
#include "safe-root.h"

#define FPR_A "2EEE75A285961EF3105A93EC0F2BC6D7751E5DED"
#define FPR_B "2EEE 75A2 8596 1EF3 105A  93EC 0F2B C6D7 751E 5DEE"

static int origins(const char *text, Diagnostics *diag, RpmOrigins **ret) {
        return rpm_origins_parse(text, strlen(text), "rpm-origins.conf", diag, ret);
}

static void test_origins(void **state) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        RpmOrigins *o = NULL;
        RpmFingerprint a = {}, c = {};
        char hex[2 * RPM_ORIGINS_MAX_FINGERPRINT + 1];

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(origins("# the device maker's\nMssf-Origin: system\nSigned-By: " FPR_A "\n\n"
                                 "Mssf-Origin: thirdparty\nSigned-By: " FPR_B ",\n " FPR_A "\n",
                                 diag, &o), 0);
        assert_int_equal(o->n_items, 2);
        assert_string_equal(o->items[0].mssf_origin, "system");
        assert_int_equal(o->items[1].n_keys, 2);
        /* The first paragraph that names a key wins, whatever the others say. */
        a = o->items[0].keys[0];
        assert_int_equal(a.size, 20);
        assert_ptr_equal(rpm_origins_find(o, &a), &o->items[0]);
        rpm_fingerprint_hex(&o->items[1].keys[0], hex);
        assert_string_equal(hex, "2EEE75A285961EF3105A93EC0F2BC6D7751E5DEE");
        assert_ptr_equal(rpm_origins_find(o, &o->items[1].keys[0]), &o->items[1]);
        c = a;
        c.bytes[19] ^= 1;
        c.bytes[0] ^= 1;
        assert_null(rpm_origins_find(o, &c));
        o = rpm_origins_free(o);
        assert_int_equal(diag->n_errors, 0);

        /* What is not a fingerprint, a field or an origin is an error, never "matches anything". */
        assert_int_equal(origins("Mssf-Origin: system\nSigned-By: 751E5DED\n", diag, &o),
                         RPM_ORIGINS_E_INVALID);
        assert_non_null(diagnostics_find(diag, "short key ID"));
        assert_int_equal(diag->n_errors, 1);
        assert_int_equal(origins("Mssf-Origin: system\n", diag, &o), RPM_ORIGINS_E_INVALID);
        assert_int_equal(origins("Signed-By: " FPR_A "\n", diag, &o), RPM_ORIGINS_E_INVALID);
        assert_int_equal(origins("Mssf-Origin: sys tem\nSigned-By: " FPR_A "\n", diag, &o),
                         RPM_ORIGINS_E_INVALID);
        assert_int_equal(origins("Mssf-Origin: *\nSigned-By: " FPR_A "\n", diag, &o),
                         RPM_ORIGINS_E_INVALID);
        assert_int_equal(origins("Mssf-Origin: system\nSigned-By: " FPR_A "\nRelease-Label: x\n",
                                 diag, &o), RPM_ORIGINS_E_INVALID);
        assert_non_null(diagnostics_find(diag, "unknown field 'Release-Label'"));
        assert_int_equal(origins("Mssf-Origin: system\nSigned-By: " FPR_A "00\n", diag, &o),
                         RPM_ORIGINS_E_INVALID);
        /* No file: no paragraph, every package unknown. */
        assert_int_equal(rpm_origins_load("/nonexistent/rpm-origins.conf", diag, &o), 0);
        assert_int_equal(o->n_items, 0);
        rpm_origins_free(o);
}

static int record(const char *text, RpmRecord **ret, unsigned *line) {
        return rpm_record_parse(text, strlen(text), ret, line);
}

static void test_record(void **state) {
        char dir[] = "/tmp/test-rpm-record.XXXXXX";
        _cleanup_free_ char *lock = NULL;
        ToolPaths paths = {};
        RpmRecord *r = NULL, *again = NULL;
        unsigned line = 0;

        assert_non_null(mkdtemp(dir));
        assert_non_null(lock = fileio_join(dir, "lock"));
        paths.lock_file = lock;
        assert_int_equal(rpm_record_read(&paths, &r, &line), 0);
        assert_null(r);

        assert_int_equal(rpm_record_new(&r), 0);
        assert_non_null(r->suffix = strdup(";6b15e473"));
        assert_int_equal(rpm_record_add(r, RPM_RECORD_INSTALL, "svc", "1:1.0-1.noarch",
                                        "2dca2fb90ae44a13c33b7b847ac380628f9fb5d249d9227da0a70b3f3165f28e",
                                        "system", FPR_A, NULL), 0);
        assert_int_equal(rpm_record_add(r, RPM_RECORD_LABEL, "svc", NULL, NULL, NULL, NULL,
                                        "/usr/share/svc/a helper"), 0);
        assert_int_equal(rpm_record_add(r, RPM_RECORD_INSTALL, "app", "1.0-1.noarch",
                                        "2dca2fb90ae44a13c33b7b847ac380628f9fb5d249d9227da0a70b3f3165f28e",
                                        NULL, NULL, NULL), 0);
        assert_int_equal(rpm_record_add(r, RPM_RECORD_ERASE, "old", NULL, NULL, NULL, NULL, NULL), 0);
        assert_int_equal(rpm_record_write(&paths, r), 0);
        assert_int_equal(rpm_record_read(&paths, &again, &line), 0);
        assert_int_equal(again->n_entries, 4);
        assert_string_equal(again->suffix, ";6b15e473");
        assert_string_equal(again->entries[0].origin, "system");
        assert_string_equal(again->entries[0].key, FPR_A);
        assert_string_equal(again->entries[1].path, "/usr/share/svc/a helper");
        assert_null(again->entries[2].origin);
        assert_null(again->entries[2].key);
        assert_int_equal(again->entries[3].kind, RPM_RECORD_ERASE);
        /* Forgetting a package takes all of its entries. */
        rpm_record_forget(again, "svc");
        assert_int_equal(again->n_entries, 2);
        again = rpm_record_free(again);
        assert_int_equal(rpm_record_write(&paths, NULL), 0);
        assert_int_equal(rpm_record_read(&paths, &again, &line), 0);
        assert_null(again);
        r = rpm_record_free(r);

        /* What a crash or a stranger left is refused whole, with its line. */
        assert_int_equal(record("mssf-policy rpm transaction 2\n", &r, &line), RPM_RECORD_E_CORRUPT);
        assert_int_equal(line, 1);
        assert_int_equal(record("mssf-policy rpm transaction 1\nerase ../x\n", &r, &line),
                         RPM_RECORD_E_CORRUPT);
        assert_int_equal(line, 2);
        assert_int_equal(record("mssf-policy rpm transaction 1\nlabel svc /usr/../etc/x\n", &r, &line),
                         RPM_RECORD_E_CORRUPT);
        assert_int_equal(record("mssf-policy rpm transaction 1\nlabel svc usr/bin/x\n", &r, &line),
                         RPM_RECORD_E_CORRUPT);
        assert_int_equal(record("mssf-policy rpm transaction 1\ninstall svc 1.0-1.noarch ab - -\n",
                                &r, &line), RPM_RECORD_E_CORRUPT);
        assert_int_equal(record("mssf-policy rpm transaction 1\nerase svc", &r, &line),
                         RPM_RECORD_E_CORRUPT);
        assert_int_equal(line, 2);
        assert_int_equal(record("mssf-policy rpm transaction 1\nsuffix ;1\nsuffix ;2\n", &r, &line),
                         RPM_RECORD_E_CORRUPT);
        assert_int_equal(record("", &r, &line), RPM_RECORD_E_CORRUPT);
        assert_int_equal(rmdir(dir), 0);
}

static void test_registration(void **state) {
        Registration reg;
        char *text = NULL;
        static const char rpm[] = "system\nVersion: 1:1.0-1\nArchitecture: noarch\n"
                                  "Manifest-SHA256: ab\nRepository: signed by " FPR_A "\n"
                                  "Package-Manager: rpm\n";
        static const char dpkg[] = "system\nVersion: 1:1.0-1\nArchitecture: noarch\n"
                                   "Manifest-SHA256: ab\n";
        static const char other[] = "system\nVersion: 1\nArchitecture: all\nManifest-SHA256: ab\n"
                                    "Package-Manager: pacman\n";

        assert_int_equal(registration_parse(rpm, strlen(rpm), &reg), 0);
        assert_true(registration_from_rpm(&reg));
        assert_false(registration_from_dpkg(&reg));
        assert_int_equal(registration_format(&reg, &text), 0);
        assert_string_equal(text, rpm);
        free(text);
        registration_clear(&reg);
        /* Without the field a versioned registration stays dpkg's, as written before. */
        assert_int_equal(registration_parse(dpkg, strlen(dpkg), &reg), 0);
        assert_true(registration_from_dpkg(&reg));
        assert_false(registration_from_rpm(&reg));
        registration_clear(&reg);
        assert_int_equal(registration_parse(other, strlen(other), &reg), REGISTRATION_E_INVALID);
}

/* ---- integrity: what the package manager signs is left alone ---- */

typedef struct FakeDb {
        PackageDb base;
        const char *managed;            /* the one file it writes security.ima for */
        size_t checked;                 /* files check_contents was asked about */
} FakeDb;

static int fake_paths(const PackageDb *db, const char *package, char ***ret, size_t *ret_n) {
        *ret = NULL;
        *ret_n = 0;
        return 0;
}

static int fake_claims(const PackageDb *db, const SafeRoot *root, const char *package,
                       const char *const *paths, size_t n, PackageClaim *claims) {
        return 0;
}

static int fake_check(const PackageDb *db, const char *package, const char *const *names,
                      const char *const *paths, const FileDigests *digests, size_t n, bool *bad,
                      Diagnostics *diag) {
        FakeDb *fake = (FakeDb *) db;

        for (size_t i = 0; i < n; i++)
                assert_string_not_equal(paths[i], fake->managed);
        fake->checked += n;
        return 0;
}

static int fake_managed(const PackageDb *db, const char *package, const char *const *names,
                        const char *const *paths, size_t n, bool *managed) {
        for (size_t i = 0; i < n; i++)
                managed[i] = strcmp(paths[i], ((const FakeDb *) db)->managed) == 0;
        return 0;
}

static void fake_free(PackageDb *db) {
}

static const PackageDbOps fake_ops = {
        .name = "fake",
        .package_paths = fake_paths,
        .claims = fake_claims,
        .check_contents = fake_check,
        .ima_managed = fake_managed,
        .free = fake_free,
};

static void test_integrity_managed(void **state) {
        char dir[] = "/tmp/test-rpm-ima.XXXXXX";
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        IntegrityPlan *plan = NULL;
        PackageFile entries[2];
        PackageFiles files = { .files = entries, .n_files = 2 };
        FakeDb db = { .base.ops = &fake_ops, .managed = "/signed" };
        const char *names[] = { "/signed", "/plain" };

        assert_non_null(mkdtemp(dir));
        for (size_t i = 0; i < 2; i++) {
                _cleanup_free_ char *path = fileio_join(dir, names[i] + 1);

                assert_int_equal(fileio_write_atomic(path, "x", 1, 0755), 0);
                entries[i] = (PackageFile) { .path = (char *) names[i], .name = (char *) names[i] };
                assert_int_equal(stat(path, &entries[i].st), 0);
        }
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(safe_root_new(dir, &root), 0);
        /* Installed: only the file rpm does not sign gets a reference hash. */
        assert_int_equal(integrity_plan_new(root, &db.base, "pkg", NULL, &files, diag, &plan), 0);
        assert_int_equal(plan->n_entries, 1);
        assert_string_equal(plan->entries[0].path, "/plain");
        assert_int_equal(db.checked, 1);
        plan = integrity_plan_free(plan);
        /* Removed: only that file loses it; rpm's signature stays. */
        assert_int_equal(integrity_plan_new(root, &db.base, "pkg", &files, NULL, diag, &plan), 0);
        assert_int_equal(plan->n_entries, 1);
        assert_string_equal(plan->entries[0].path, "/plain");
        assert_null(plan->entries[0].value);
        integrity_plan_free(plan);
        for (size_t i = 0; i < 2; i++) {
                _cleanup_free_ char *path = fileio_join(dir, names[i] + 1);

                unlink(path);
        }
        rmdir(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_origins),
                cmocka_unit_test(test_record),
                cmocka_unit_test(test_registration),
                cmocka_unit_test(test_integrity_managed),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
