/* Unit tests of the device policy: the line format, its errors, the built-in default. */
#include <stdlib.h>

#include "test-helpers.h"
#include "device-policy.h"
#include "model.h"

static void test_vendor_file(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(device_policy_parse_file(fixture("device", "vendor.conf"), diag, &p), 0);
        assert_int_equal(diag->n_errors + diag->n_warnings, 0);
        assert_true(ends_with(p->file, "vendor.conf"));
        assert_int_equal(p->n_global_tokens, 4);
        assert_true(device_policy_has_global_token(p, "Camera"));
        assert_false(device_policy_has_global_token(p, "Telephony"));
        assert_false(device_policy_has_global_token(p, "#"));
        /* "origin operator" on two lines adds up. */
        const OriginGrant *o = device_policy_find_origin(p, "operator");
        assert_non_null(o);
        assert_int_equal(o->n_patterns, 4);
        assert_int_equal(o->loc.line, 6);
        assert_true(device_policy_allows(p, "operator", "Location", false));
        assert_true(device_policy_allows(p, "operator", "GRP::video", false));
        assert_false(device_policy_allows(p, "operator", "CAP::sys_admin", false));
        assert_true(device_policy_allows(p, "system", "CAP::sys_admin", false));
        assert_true(device_policy_allows(p, "system", "mce::DeviceModeControl", true));
        /* A prefix pattern never covers a checkorigin token; an exact one does. */
        assert_false(device_policy_allows(p, "operator", "GRP::x", true));
        assert_true(device_policy_allows(p, "thirdparty", "mce::DeviceModeControl", true));
        assert_false(device_policy_allows(p, "thirdparty", "Cellular", false));
        /* Unknown and absent origins fall to "origin *". */
        assert_true(device_policy_allows(p, "elsewhere", "NetService", false));
        assert_true(device_policy_allows(p, NULL, "NetService", false));
        assert_false(device_policy_allows(p, NULL, "Cellular", false));
        assert_true(device_policy_is_monitor(p, "dbus-monitor"));
        assert_true(device_policy_is_monitor(p, "System"));
        assert_false(device_policy_is_monitor(p, "_"));
        device_policy_free(p);
        diagnostics_free(diag);
}

static void test_broken_file(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(device_policy_parse_file(fixture("device", "broken.conf"), diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_null(p);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 2, 7,
                          "'bad/token' is not a global token name");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 2, 17,
                          "'pkg::Token' is not a global token name");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 3, 1,
                          "unknown keyword 'grant': lines start with token, origin, label, serve, name, "
                          "monitor or checkany");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 5, 1, "origin needs a name");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 6, 19,
                          "'Cel*lular' is not a credential pattern");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 7, 8,
                          "'bad/origin' is not a valid origin name");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.conf", 8, 9,
                          "'*' is not a valid Smack label for monitor");
        assert_int_equal(diag->n_errors, 7);
        diagnostics_free(diag);
}

static void test_builtin_default(void **state) {
        DevicePolicy *p = NULL;
        assert_int_equal(device_policy_new_default(&p), 0);
        assert_null(p->file);
        static const char *const tokens[] = {
                "Cellular", "Location", "UserData", "Telephony", "NetService",
                "TrackerReadAccess", "TrackerWriteAccess", "ReadUserData", "ReadWriteUserData",
                "drm", "tcb",
        };
        assert_int_equal(p->n_global_tokens, ELEMENTSOF(tokens));
        for (size_t k = 0; k < ELEMENTSOF(tokens); k++) {
                assert_true(device_policy_has_global_token(p, tokens[k]));
                assert_true(device_policy_allows(p, "system", tokens[k], false));
                assert_true(device_policy_allows(p, "com.nokia.maemo", tokens[k], false));
                assert_false(device_policy_allows(p, NULL, tokens[k], false));
                assert_false(device_policy_allows(p, "nowhere", tokens[k], false));
        }
        assert_true(device_policy_allows(p, "system", "CAP::sys_admin", false));
        assert_true(device_policy_allows(p, "operator", "Telephony", false));
        assert_false(device_policy_allows(p, "operator", "tcb", false));
        assert_false(device_policy_allows(p, "operator", "CAP::net_admin", false));
        assert_true(device_policy_allows(p, "thirdparty", "Location", false));
        assert_true(device_policy_allows(p, "thirdparty", "GRP::video", false));
        assert_false(device_policy_allows(p, "thirdparty", "Telephony", false));
        assert_false(device_policy_allows(p, "thirdparty", "drm", false));
        assert_false(device_policy_allows(p, "thirdparty", "UID::root", false));
        assert_int_equal(p->n_monitor_labels, 0);
        /* Nobody may ask the bus about any token unless the device maker says so. */
        assert_int_equal(p->n_checkany_labels, 0);
        assert_false(device_policy_is_checkany(p, "mssf-keyd"));
        device_policy_free(p);
}

/* "checkany LABEL...": exact package labels only, lines add up; never a pattern or a special label. */
static void test_checkany_lines(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        static const char text[] = "checkany mssf-keyd\ncheckany other-keys mssf-keyd\n";
        assert_int_equal(device_policy_parse_buffer(text, sizeof(text) - 1, "c.conf", diag, &p), 0);
        assert_int_equal(p->n_checkany_labels, 2);
        assert_true(device_policy_is_checkany(p, "mssf-keyd"));
        assert_true(device_policy_is_checkany(p, "other-keys"));
        assert_false(device_policy_is_checkany(p, "mssf-key"));
        assert_false(device_policy_is_checkany(p, "mssf-keyd:helper"));
        /* It is no other right: not a monitor, not a label any origin may name. */
        assert_false(device_policy_is_monitor(p, "mssf-keyd"));
        assert_false(device_policy_grants_label(p, "system", "mssf-keyd"));
        device_policy_free(p);
        p = NULL;

        static const char bad[] = "checkany * _\ncheckany mssf-* pkg::Token ^ @ ok\n";
        assert_int_equal(device_policy_parse_buffer(bad, sizeof(bad) - 1, "b.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_null(p);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 1, 10, "'*' is not a label for checkany");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 1, 12, "'_' is not a label for checkany");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 10, "'mssf-*' is not a label for checkany");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 17,
                          "'pkg::Token' is not a label for checkany");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 28, "'^' is not a label for checkany");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 30, "'@' is not a label for checkany");
        assert_int_equal(diag->n_errors, 6);
        diagnostics_free(diag);
}

/* "label ORIGIN PATTERN...": which labels beyond its own a package of an origin may name. */
static void test_label_lines(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        static const char text[] = "label system *\nlabel operator com.operator.* helper\n"
                                   "label * shared-helper\n";
        assert_int_equal(device_policy_parse_buffer(text, sizeof(text) - 1, "l.conf", diag, &p), 0);
        assert_true(device_policy_grants_label(p, "system", "anything"));
        assert_true(device_policy_grants_label(p, "operator", "com.operator.x"));
        assert_true(device_policy_grants_label(p, "operator", "helper"));
        assert_false(device_policy_grants_label(p, "operator", "com.other"));
        assert_false(device_policy_grants_label(p, "operator", "shared-helper"));
        /* Origins without a line of their own, and none, fall to "label *". */
        assert_true(device_policy_grants_label(p, "thirdparty", "shared-helper"));
        assert_true(device_policy_grants_label(p, NULL, "shared-helper"));
        assert_false(device_policy_grants_label(p, NULL, "helper"));
        /* label lines grant no credential, origin lines no label. */
        assert_false(device_policy_allows(p, "system", "Cellular", false));
        device_policy_free(p);
        p = NULL;

        static const char bad[] = "label\nlabel store _\nlabel store pkg::Token @ ^ ok\n";
        assert_int_equal(device_policy_parse_buffer(bad, sizeof(bad) - 1, "b.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 1, 1, "label needs an origin");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 13, "'_' is not a label pattern");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 3, 13,
                          "'pkg::Token' is not a label pattern");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 3, 24, "'@' is not a label pattern");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 3, 26, "'^' is not a label pattern");
        assert_int_equal(diag->n_errors, 5);

        /* The built-in policy: the platform's packages may name any label; nobody else. */
        assert_int_equal(device_policy_new_default(&p), 0);
        assert_true(device_policy_grants_label(p, "system", "ofono-helper"));
        assert_true(device_policy_grants_label(p, "com.nokia.maemo", "ofono-helper"));
        assert_false(device_policy_grants_label(p, "thirdparty", "ofono-helper"));
        assert_false(device_policy_grants_label(p, "operator", "ofono-helper"));
        assert_false(device_policy_grants_label(p, NULL, "ofono-helper"));
        device_policy_free(p);
        diagnostics_free(diag);
}

/* "serve ORIGIN PATTERN...": which global tokens a package of an origin may serve. */
static void test_serve_lines(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        static const char text[] = "token Cellular Location TrackerRead\nserve operator Cellular "
                                   "Tracker*\nserve * Location\n";
        assert_int_equal(device_policy_parse_buffer(text, sizeof(text) - 1, "s.conf", diag, &p), 0);
        assert_true(device_policy_allows_serving(p, "operator", "Cellular"));
        assert_true(device_policy_allows_serving(p, "operator", "TrackerRead"));
        assert_false(device_policy_allows_serving(p, "operator", "Location"));
        assert_true(device_policy_allows_serving(p, "thirdparty", "Location"));
        assert_true(device_policy_allows_serving(p, NULL, "Location"));
        assert_false(device_policy_allows_serving(p, NULL, "Cellular"));
        /* Only global tokens: a pattern cannot reach a package's. */
        assert_false(device_policy_allows_serving(p, "operator", "Tracker::x"));
        /* serve lines grant nothing to hold. */
        assert_false(device_policy_allows(p, "operator", "Cellular", false));
        device_policy_free(p);
        p = NULL;
        static const char bad[] = "serve\nserve operator pkg::Token\n";
        assert_int_equal(device_policy_parse_buffer(bad, sizeof(bad) - 1, "b.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 1, 1, "serve needs an origin");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 16,
                          "'pkg::Token' is not a pattern of global tokens");
        /* The built-in policy: the platform's packages serve every global token; nobody else. */
        assert_int_equal(device_policy_new_default(&p), 0);
        assert_true(device_policy_allows_serving(p, "system", "Cellular"));
        assert_true(device_policy_allows_serving(p, "com.nokia.maemo", "Location"));
        assert_false(device_policy_allows_serving(p, "thirdparty", "Cellular"));
        assert_false(device_policy_allows_serving(p, "operator", "Location"));
        assert_false(device_policy_allows_serving(p, NULL, "Location"));
        device_policy_free(p);
        diagnostics_free(diag);
}

/* "name ORIGIN PATTERN...": bus names reserved to an origin's packages. */
static void test_name_lines(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        static const char text[] = "name system org.freedesktop.* org.ofono\n"
                                   "name operator com.operator.*\n";
        assert_int_equal(device_policy_parse_buffer(text, sizeof(text) - 1, "n.conf", diag, &p), 0);
        assert_true(device_policy_allows_name(p, "system", "org.freedesktop.NetworkManager"));
        assert_false(device_policy_allows_name(p, "thirdparty", "org.freedesktop.NetworkManager"));
        assert_false(device_policy_allows_name(p, NULL, "org.ofono"));
        assert_false(device_policy_allows_name(p, "operator", "org.ofono"));
        /* A name no line covers: first come, for anyone. */
        assert_true(device_policy_allows_name(p, "thirdparty", "org.ofono.Modem"));
        assert_true(device_policy_allows_name(p, NULL, "com.example.App"));
        assert_true(device_policy_allows_name(p, "operator", "com.operator.Svc"));
        assert_false(device_policy_allows_name(p, "system", "com.operator.Svc"));
        device_policy_free(p);
        p = NULL;
        static const char bad[] = "name * org.x.*\nname system *\nname system org/x\n";
        assert_int_equal(device_policy_parse_buffer(bad, sizeof(bad) - 1, "b.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 1, 6, "a name reserved to every "
                          "origin is reserved to none");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 2, 13, "'*' is not a bus name pattern");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "b.conf", 3, 13, "'org/x' is not a bus name pattern");
        /* Built in: the platform's names are the platform's origins'. */
        assert_int_equal(device_policy_new_default(&p), 0);
        assert_true(device_policy_allows_name(p, "system", "org.freedesktop.UPower"));
        assert_true(device_policy_allows_name(p, "com.nokia.maemo", "com.nokia.mce"));
        assert_false(device_policy_allows_name(p, "thirdparty", "com.nokia.mce"));
        assert_false(device_policy_allows_name(p, NULL, "org.freedesktop.UPower"));
        assert_true(device_policy_allows_name(p, "thirdparty", "com.example.Maps"));
        device_policy_free(p);
        diagnostics_free(diag);
}

static void test_load_falls_back(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(device_policy_load("/nonexistent/device-policy.conf", diag, &p), 0);
        assert_null(p->file);
        assert_true(device_policy_has_global_token(p, "tcb"));
        device_policy_free(p);
        p = NULL;
        /* A broken file does not fall back to the default: it fails. */
        assert_int_equal(device_policy_load(fixture("device", "broken.conf"), diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_null(p);
        assert_int_equal(device_policy_load(fixture("device", "vendor.conf"), diag, &p), 0);
        assert_true(device_policy_has_global_token(p, "Camera"));
        device_policy_free(p);
        diagnostics_free(diag);
}

static void test_buffers(void **state) {
        Diagnostics *diag;
        DevicePolicy *p = NULL;
        assert_int_equal(diagnostics_new(&diag), 0);
        static const char nul[] = "token A\0B\n";
        assert_int_equal(device_policy_parse_buffer(nul, sizeof(nul) - 1, "nul.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_non_null(diagnostics_find(diag, "NUL byte"));
        /* Empty lines keep the numbering; no final newline is fine. */
        static const char text[] = "\n\n# c\n  \ntoken  A\torigin";
        assert_int_equal(device_policy_parse_buffer(text, sizeof(text) - 1, "t.conf", diag, &p), 0);
        assert_int_equal(p->n_global_tokens, 2);
        assert_string_equal(p->global_tokens[1], "origin");
        device_policy_free(p);
        p = NULL;
        static const char bad[] = "\n\n\nmonitor a b\nflavour x\n";
        assert_int_equal(device_policy_parse_buffer(bad, sizeof(bad) - 1, "t.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "t.conf", 5, 1, "unknown keyword 'flavour'");
        /* Too many words on one line. */
        char longline[1024] = "token";
        for (int k = 0; k < 70; k++)
                strcat(longline, " T");
        assert_int_equal(device_policy_parse_buffer(longline, strlen(longline), "w.conf", diag, &p),
                         DEVICE_POLICY_E_INVALID);
        assert_non_null(diagnostics_find(diag, "more than 63 words"));
        diagnostics_free(diag);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_vendor_file),
                cmocka_unit_test(test_broken_file),
                cmocka_unit_test(test_builtin_default),
                cmocka_unit_test(test_checkany_lines),
                cmocka_unit_test(test_label_lines),
                cmocka_unit_test(test_serve_lines),
                cmocka_unit_test(test_name_lines),
                cmocka_unit_test(test_load_falls_back),
                cmocka_unit_test(test_buffers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
