/*
 * Unit tests of package-rules.c: which Smack rules a package's grants
 * make, from real manifests parsed by policy/manifest and grants resolved
 * against the built-in device policy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device-policy.h"
#include "manifest.h"
#include "model.h"
#include "package-rules.h"
#include "policyset.h"

static const char mce_xml[] =
        "<aegis><request><credential name=\"Cellular\"/><for path=\"/usr/bin/mce\"/></request>"
        "<provide><credential name=\"DeviceModeControl\"/>"
        "<dbus name=\"com.nokia.mce\" own=\"SELF\" bus=\"system\"><node name=\"/\">"
        "<interface name=\"com.nokia.mce.request\"><annotation name=\"com.maemo.Aegis\" value=\"\"/>"
        "<method name=\"req\"><annotation name=\"com.maemo.Aegis\" value=\"DeviceModeControl\"/>"
        "</method></interface></node></dbus></provide></aegis>";
static const char ofono_xml[] =
        "<aegis><provide><dbus name=\"org.ofono\" own=\"SELF\" bus=\"system\">"
        "<owner label=\"ofono-helper\"/><node name=\"/\">"
        "<interface name=\"org.ofono.VoiceCallManager\"><method name=\"Dial\">"
        "<annotation name=\"com.maemo.Aegis\" value=\"Cellular\"/></method></interface>"
        "</node></dbus></provide></aegis>";
static const char maps_xml[] =
        "<aegis><request><credential name=\"Location\"/><credential name=\"mce::DeviceModeControl\"/>"
        "<credential name=\"CAP::net_admin\"/><for path=\"/usr/bin/maps\"/></request></aegis>";
static const char dialer_xml[] =
        "<aegis><request><credential name=\"Cellular\"/><for path=\"/usr/bin/dialer\"/>"
        "<for path=\"/usr/bin/dialer-helper\"/></request></aegis>";
static const char plugin_xml[] =
        "<aegis><request><credential name=\"Location\"/>"
        "<for path=\"launcher::/usr/bin/launcher\"/><for path=\"/usr/lib/plugin/own\"/>"
        "</request></aegis>";
static const char lost_plugin_xml[] =
        "<aegis><request><credential name=\"Location\"/>"
        "<for path=\"absent::/usr/bin/absent\"/></request></aegis>";
static const char installer_xml[] =
        "<aegis><request context=\"INSTALL\"><credential name=\"Location\"/></request>"
        "<request><credential name=\"NetService\"/></request></aegis>";

typedef struct Fixture {
        PolicySet *set;
} Fixture;

static void add_package(PolicySet *set, const char *name, const char *origin, const char *xml) {
        Package *package = NULL;

        assert_int_equal(manifest_parse_buffer(xml, strlen(xml), name, name, origin, NULL, &package), 0);
        assert_int_equal(policy_set_add(set, package, NULL), 0);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        DevicePolicy *device = NULL;

        assert_non_null(f);
        assert_int_equal(device_policy_new_default(&device), 0);
        assert_int_equal(policy_set_new(device, &f->set), 0);
        add_package(f->set, "mce", "system", mce_xml);
        add_package(f->set, "ofono", "system", ofono_xml);
        add_package(f->set, "maps", "thirdparty", maps_xml);
        add_package(f->set, "dialer", "system", dialer_xml);
        add_package(f->set, "launcher", "system", "<aegis/>");
        add_package(f->set, "plugin", "system", plugin_xml);
        add_package(f->set, "storeplugin", "thirdparty", plugin_xml);
        add_package(f->set, "lostplugin", "system", lost_plugin_xml);
        add_package(f->set, "installer", "system", installer_xml);
        add_package(f->set, "stranger", NULL, maps_xml);
        assert_int_equal(policy_set_resolve(f->set, NULL), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        policy_set_free(f->set);
        free(f);
        return 0;
}

/* The rule-file text of one package. */
static char *rules_of(const Fixture *f, const char *name) {
        _cleanup_(smack_rules_freep) SmackRules *rules = NULL;
        const Package *package = policy_set_find_package(f->set, name);
        char *text = NULL;

        assert_non_null(package);
        assert_int_equal(smack_rules_new(&rules), 0);
        assert_int_equal(package_rules_build(f->set, package, rules), 0);
        assert_int_equal(smack_rules_format(rules, NULL, &text), 0);
        return text;
}

static void assert_rules(void **state, const char *name, const char *expected) {
        _cleanup_free_ char *text = rules_of(*state, name);

        assert_string_equal(text, expected);
}

static void test_service_own_token(void **state) {
        /* A package token: the grant, and both directions to its provider. */
        assert_rules(state, "maps", "maps Location w\nmaps mce w\nmaps mce::DeviceModeControl w\n"
                                    "mce maps w\n");
}

static void test_service_guarding_global_token(void **state) {
        /* ofono guards Dial with the global Cellular: dialer reaches ofono and
         * the helper label ofono lets own org.ofono; both binaries share the
         * package label, listed once. */
        assert_rules(state, "dialer", "dialer Cellular w\ndialer ofono w\ndialer ofono-helper w\n"
                                      "ofono dialer w\nofono-helper dialer w\n");
        /* mce requests Cellular too, so it reaches ofono as well. */
        assert_rules(state, "mce", "mce Cellular w\nmce ofono w\nmce ofono-helper w\n"
                                   "ofono mce w\nofono-helper mce w\n");
}

static void test_other_package_binary(void **state) {
        /* pkg::/path: the launcher's label gets the credential; own path: plugin's. */
        assert_rules(state, "plugin", "launcher Location w\nplugin Location w\n");
        /* A store package may not grant to another package's label: only its own gets it. */
        assert_rules(state, "storeplugin", "storeplugin Location w\n");
        /* Nor does a label no installed package owns get rules (they come with the package). */
        assert_rules(state, "lostplugin", "");
}

static void test_install_context_and_no_target(void **state) {
        /* context="INSTALL" makes no rule; a request without <for> is the package's. */
        assert_rules(state, "installer", "installer NetService w\n");
}

static void test_ungranted_make_nothing(void **state) {
        /* Unknown origin: no global token (Location) from the device policy, and
         * CAP:: never makes a rule; a package token without checkorigin is
         * still the providing package's to give. */
        assert_rules(state, "stranger", "mce stranger w\nstranger mce w\n"
                                        "stranger mce::DeviceModeControl w\n");
        assert_rules(state, "ofono", "");
}

static void test_serves_token(void **state) {
        const Fixture *f = *state;

        assert_true(package_serves_token(policy_set_find_package(f->set, "mce"), "mce::DeviceModeControl"));
        assert_true(package_serves_token(policy_set_find_package(f->set, "ofono"), "Cellular"));
        assert_false(package_serves_token(policy_set_find_package(f->set, "ofono"), "Location"));
        assert_false(package_serves_token(policy_set_find_package(f->set, "maps"), "Location"));
}

/* The set's index of who serves a token agrees with package_serves_token(), also after a removal. */
static void assert_servers_agree(const PolicySet *set) {
        static const char *const tokens[] = {
                "mce::DeviceModeControl", "mce::LEDControl", "Cellular", "Location",
                "NetService", "ofono::Modem", "nobody::Nothing",
        };

        for (size_t t = 0; t < ELEMENTSOF(tokens); t++) {
                const Package *const *servers;
                size_t n = 0, expected = 0;

                policy_set_token_servers(set, tokens[t], &servers, &n);
                for (size_t i = 0; i < set->n_packages; i++)
                        if (package_serves_token(set->packages[i], tokens[t]))
                                assert_ptr_equal(servers[expected++], set->packages[i]);
                assert_int_equal(n, expected);
        }
}

static void test_servers_index(void **state) {
        const Fixture *f = *state;
        const Package *const *servers;
        size_t n;

        assert_servers_agree(f->set);
        policy_set_token_servers(f->set, "Cellular", &servers, &n);
        assert_int_equal(n, 1);
        assert_int_equal(policy_set_remove(f->set, "ofono"), 0);
        assert_servers_agree(f->set);
        policy_set_token_servers(f->set, "Cellular", &servers, &n);
        assert_int_equal(n, 0);
        assert_null(policy_set_find_package(f->set, "ofono"));
        assert_non_null(policy_set_find_token(f->set, "mce::DeviceModeControl", NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_service_own_token),
                cmocka_unit_test(test_service_guarding_global_token),
                cmocka_unit_test(test_other_package_binary),
                cmocka_unit_test(test_install_context_and_no_target),
                cmocka_unit_test(test_ungranted_make_nothing),
                cmocka_unit_test(test_serves_token),
                cmocka_unit_test_setup_teardown(test_servers_index, setup, teardown),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
