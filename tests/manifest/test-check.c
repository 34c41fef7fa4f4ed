/* Unit tests of manifest_check(): manifests validated on their own. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "test-helpers.h"
#include "device-policy.h"

static char *write_temp(const char *name, const char *text) {
        char *dir = strdup("/tmp/test-check-XXXXXX");
        assert_non_null(dir);
        assert_non_null(mkdtemp(dir));
        char *path = NULL;
        assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        free(dir);
        return path;
}

static void remove_temp(char *path) {
        unlink(path);
        *strrchr(path, '/') = '\0';
        rmdir(path);
        free(path);
}

static void test_real_manifests(void **state) {
        const char *paths[] = {
                strdup(fixture("valid", "mce.xml")),
                strdup(fixture("valid", "timed.xml")),
                strdup(fixture("valid", "usb-moded.xml")),
                strdup(fixture("valid", "dsme.xml")),
        };
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(paths, NULL, ELEMENTSOF(paths), NULL, diag), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        diagnostics_free(diag);
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                free((char *) paths[i]);
}

static void test_unresolved_references_warn(void **state) {
        const char *paths[] = { strdup(fixture("installed", "app.xml")),
                                strdup(fixture("valid", "sensorfw.xml")) };
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(paths, NULL, 2, NULL, diag), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "app.xml", 5, 5,
                          "mce::DeviceModeControl belongs to another package: it is resolved only "
                          "when that package is installed");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "app.xml", 8, 5,
                          "Bogus is neither provided by this package nor a global token of the "
                          "device policy: it will not be granted");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "sensorfw.xml", 4, 5,
                          "mce::DeviceModeControl belongs to another package");
        /* mce, signon, nosuch in app; mce in sensorfw; Bogus. */
        assert_int_equal(diag->n_warnings, 5);
        diagnostics_free(diag);
        free((char *) paths[0]);
        free((char *) paths[1]);
}

/* A label beyond the package's own is the origin's to be granted: a warning at build time. */
static void test_foreign_labels_warn(void **state) {
        char *path = write_temp("plug.aegis",
                                "<aegis><request><credential name=\"Location\"/>\n"
                                "  <for path=\"launcher::/usr/bin/launcher\"/></request>\n"
                                "<provide><dbus name=\"org.x.Plug\" bus=\"system\">\n"
                                "  <owner label=\"plug:helper\"/>\n"
                                "  <owner label=\"System\"/></dbus></provide></aegis>\n");
        const char *paths[] = { path };
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(paths, NULL, 1, NULL, diag), 0);
        assert_int_equal(diag->n_errors, 0);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "plug.aegis", 2, 3,
                          "launcher is not package plug's label nor one under it (plug:NAME)");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "plug.aegis", 5, 3,
                          "System is not package plug's label");
        /* Its own label's sub-label is fine. */
        assert_int_equal(diag->n_warnings, 2);
        diagnostics_free(diag);
        remove_temp(path);
}

static void test_requirements_and_device(void **state) {
        char *path = write_temp("svc.aegis",
                "<aegis>\n"
                "  <provide>\n"
                "    <dbus name=\"org.svc\" own=\"Camera\" bus=\"system\">\n"
                "      <node name=\"/\"><interface name=\"org.svc\">\n"
                "        <method name=\"A\"><annotation name=\"com.maemo.Aegis\" value=\"Camera\"/></method>\n"
                "        <method name=\"B\"><annotation name=\"com.maemo.Aegis\" value=\"Cellular\"/></method>\n"
                "      </interface></node>\n"
                "    </dbus>\n"
                "  </provide>\n"
                "</aegis>\n");
        const char *paths[] = { path };
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        /* Against the built-in default, Camera does not exist: one warning per label. */
        assert_int_equal(manifest_check(paths, NULL, 1, NULL, diag), 0);
        assert_int_equal(diag->n_warnings, 1);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "svc.aegis", 3, 5,
                          "Camera is neither provided by this package nor a global token of the "
                          "device policy: nobody can hold it, so what it guards is denied to everyone");
        diagnostics_free(diag);

        /* The case of a token is significant; the warning says which one was meant. */
        char *lower = write_temp("lower.aegis", "<aegis><request>\n<credential name=\"trackerReadAccess\"/>"
                                 "</request></aegis>");
        const char *lower_paths[] = { lower };
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(lower_paths, NULL, 1, NULL, diag), 0);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "lower.aegis", 2, 1,
                          "trackerReadAccess is not a global token, but TrackerReadAccess is (the "
                          "case is significant): write TrackerReadAccess");
        diagnostics_free(diag);
        remove_temp(lower);

        /* A device policy that has Camera: clean. */
        DevicePolicy *device = NULL;
        static const char conf[] = "token Camera Cellular\n";
        assert_int_equal(device_policy_parse_buffer(conf, sizeof(conf) - 1, "d", NULL, &device), 0);
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(paths, NULL, 1, device, diag), 0);
        assert_int_equal(diag->n_warnings + diag->n_errors, 0);
        diagnostics_free(diag);
        device_policy_free(device);
        remove_temp(path);
}

static void test_errors(void **state) {
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        const char *paths[] = { strdup(fixture("invalid", "bad-member.xml")), "/nonexistent/x.aegis",
                                strdup(fixture("valid", "mce.xml")) };
        assert_int_equal(manifest_check(paths, NULL, 3, NULL, diag), MANIFEST_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "bad-member.xml", 6, 11, "'9lives' is not a valid method name");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "/nonexistent/x.aegis", 0, 0,
                          "cannot read: No such file or directory");
        assert_int_equal(diag->n_errors, 2);
        diagnostics_free(diag);

        /* A file name that is no package label needs an explicit name. */
        char *path = write_temp(".aegis", "<aegis><request><credential name=\"x::T\"/></request></aegis>");
        const char *one[] = { path };
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(one, NULL, 1, NULL, diag), MANIFEST_E_INVALID);
        assert_non_null(diagnostics_find(diag, "no valid package label can be derived"));
        diagnostics_free(diag);
        const char *names[] = { "x" };
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_check(one, names, 1, NULL, diag), 0);
        /* x::T is this package's own token but it does not provide it. */
        assert_non_null(diagnostics_find(diag, "token x::T is not provided by this package"));
        assert_int_equal(diag->n_warnings, 1);
        diagnostics_free(diag);
        remove_temp(path);
        free((char *) paths[0]);
        free((char *) paths[2]);
}

/* Every real-style and quirky fixture passes check without an error. */
static void test_every_valid_fixture(void **state) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s/valid", FIXTURES);
        DIR *d = opendir(dir);
        assert_non_null(d);
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!ends_with(de->d_name, ".xml"))
                        continue;
                char *path = NULL;
                assert_true(asprintf(&path, "%s/%s", dir, de->d_name) > 0);
                const char *paths[] = { path };
                Diagnostics *diag;
                assert_int_equal(diagnostics_new(&diag), 0);
                print_message("%s\n", de->d_name);
                assert_int_equal(manifest_check(paths, NULL, 1, NULL, diag), 0);
                assert_int_equal(diag->n_errors, 0);
                diagnostics_free(diag);
                free(path);
                n++;
        }
        closedir(d);
        assert_true(n >= 20);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_real_manifests),
                cmocka_unit_test(test_unresolved_references_warn),
                cmocka_unit_test(test_foreign_labels_warn),
                cmocka_unit_test(test_requirements_and_device),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_every_valid_fixture),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
