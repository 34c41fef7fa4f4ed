/* Unit tests of the policy set: loading a directory, name conflicts, grants, lookups. */
#include <stdlib.h>

#include "test-helpers.h"
#include "device-policy.h"
#include "manifest.h"
#include "model.h"
#include "policyset.h"

static PolicySet *load_installed(Diagnostics **ret_diag) {
        DevicePolicy *device = NULL;
        PolicySet *set = NULL;
        assert_int_equal(device_policy_new_default(&device), 0);
        assert_int_equal(policy_set_new(device, &set), 0);
        assert_int_equal(diagnostics_new(ret_diag), 0);
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s/installed", FIXTURES);
        assert_int_equal(policy_set_load_dir(set, dir, *ret_diag), POLICY_SET_E_INVALID);
        return set;
}

static const Grant *find_grant(const Package *p, const char *name) {
        for (size_t i = 0; i < p->n_grants; i++)
                if (strcmp(p->grants[i]->name, name) == 0)
                        return p->grants[i];
        return NULL;
}

static void assert_grant(const Package *p, const char *name, GrantResult result) {
        const Grant *g = find_grant(p, name);
        if (!g) {
                print_error("no grant entry for %s in %s\n", name, p->name);
                fail();
        }
        assert_int_equal(g->result, result);
        assert_int_equal(policy_set_is_granted(p, name), result == GRANT_GRANTED);
}

static void test_load_dir(void **state) {
        Diagnostics *diag;
        PolicySet *set = load_installed(&diag);
        /* Sorted: accounts, app, bad name (refused), broken (refused), mce, sensorfw, signon,
         * squatter (refused: it claims mce's name). */
        assert_int_equal(set->n_packages, 5);
        assert_string_equal(set->packages[0]->name, "accounts");
        assert_string_equal(set->packages[1]->name, "app");
        assert_string_equal(set->packages[2]->name, "mce");
        assert_null(policy_set_find_package(set, "squatter"));
        assert_null(policy_set_find_package(set, "broken"));
        assert_string_equal(policy_set_find_package(set, "app")->origin, "thirdparty");
        assert_string_equal(policy_set_find_package(set, "signon")->origin, "com.nokia.maemo");

        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "squatter.xml", 4, 5,
                          "bus name com.nokia.mce (system bus) is already declared by package mce at ");
        assert_non_null(diagnostics_find(diag, "installed/mce.xml:15:5: only one package may declare a name"));
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "bad name.xml", 0, 0,
                          "file name 'bad name.xml' is not NAME.xml with a valid package label");
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "broken.xml", 3, 3, "broken XML: mismatched tag");
        assert_int_equal(diag->n_errors, 3);

        /* Lookups across packages. */
        const Package *provider = NULL;
        const ProvidedToken *t = policy_set_find_token(set, "signon::keychain-access", &provider);
        assert_non_null(t);
        assert_true(t->check_origin);
        assert_string_equal(provider->name, "signon");
        assert_null(policy_set_find_token(set, "keychain-access", NULL));
        const DbusName *d = NULL;
        const Package *owner = policy_set_find_name_owner(set, BUS_SYSTEM, "com.nokia.mce", &d);
        assert_string_equal(owner->name, "mce");
        assert_string_equal(d->name, "com.nokia.mce");
        assert_null(policy_set_find_name_owner(set, BUS_SYSTEM, "org.example.Squatter", NULL));
        assert_null(policy_set_find_name_owner(set, BUS_SYSTEM, "com.nokia.SingleSignOn", NULL));
        assert_non_null(policy_set_find_name_owner(set, BUS_SESSION, "com.nokia.SingleSignOn", NULL));
        policy_set_free(set);
        diagnostics_free(diag);
}

static void test_grants(void **state) {
        Diagnostics *diag;
        PolicySet *set = load_installed(&diag);
        Diagnostics *grants;
        assert_int_equal(diagnostics_new(&grants), 0);
        assert_int_equal(policy_set_resolve(set, grants), 0);

        const Package *app = policy_set_find_package(set, "app");
        assert_int_equal(app->n_grants, 10);
        assert_grant(app, "Cellular", GRANT_GRANTED);
        assert_grant(app, "Telephony", GRANT_ORIGIN_DENIED);
        assert_grant(app, "mce::DeviceModeControl", GRANT_GRANTED);
        assert_grant(app, "signon::keychain-access", GRANT_CHECKORIGIN_DENIED);
        assert_grant(app, "nosuch::Token", GRANT_UNKNOWN_TOKEN);
        assert_grant(app, "Bogus", GRANT_UNKNOWN_TOKEN);
        assert_grant(app, "GRP::video", GRANT_GRANTED);
        assert_grant(app, "CAP::sys_admin", GRANT_ORIGIN_DENIED);
        /* match="Tracker*" expanded to the global tokens it covers. */
        assert_grant(app, "TrackerReadAccess", GRANT_GRANTED);
        assert_grant(app, "TrackerWriteAccess", GRANT_GRANTED);
        const Grant *g = find_grant(app, "TrackerReadAccess");
        assert_int_equal(g->kind, CREDENTIAL_TOKEN);
        assert_int_equal(g->credential->kind, CREDENTIAL_MATCH);
        assert_string_equal(g->request->targets[0]->path, "/opt/app/bin/app");
        assert_int_equal(find_grant(app, "GRP::video")->kind, CREDENTIAL_GRP);

        assert_diagnostic(grants, DIAGNOSTIC_WARNING, "app.xml", 4, 5,
                          "Telephony is not granted to app (origin thirdparty): the device "
                          "policy does not grant it to this origin");
        assert_diagnostic(grants, DIAGNOSTIC_WARNING, "app.xml", 6, 5,
                          "signon::keychain-access is not granted to app (origin thirdparty): "
                          "its provider declares checkorigin");
        assert_diagnostic(grants, DIAGNOSTIC_WARNING, "app.xml", 7, 5,
                          "nosuch::Token is not granted to app (origin thirdparty): no installed "
                          "package provides it");
        assert_diagnostic(grants, DIAGNOSTIC_WARNING, "app.xml", 8, 5, "Bogus is not granted");
        assert_diagnostic(grants, DIAGNOSTIC_WARNING, "app.xml", 10, 5, "CAP::sys_admin is not granted");
        assert_diagnostic(grants, DIAGNOSTIC_WARNING, "app.xml", 12, 5,
                          "match=\"Nothing*\" covers no known token: it grants nothing");
        assert_int_equal(grants->n_warnings, 6);
        assert_int_equal(grants->n_errors, 0);

        /* Same origin as the checkorigin provider: granted. */
        const Package *accounts = policy_set_find_package(set, "accounts");
        assert_grant(accounts, "signon::keychain-access", GRANT_GRANTED);
        assert_grant(accounts, "signon::signond-access", GRANT_GRANTED);
        /* The platform: everything it asks for that exists. */
        const Package *mce = policy_set_find_package(set, "mce");
        assert_int_equal(mce->n_grants, 6);
        for (size_t i = 0; i < mce->n_grants; i++)
                assert_int_equal(mce->grants[i]->result, GRANT_GRANTED);
        assert_grant(policy_set_find_package(set, "sensorfw"), "mce::DeviceModeControl", GRANT_GRANTED);

        /* Resolving again starts from scratch. */
        assert_int_equal(policy_set_resolve(set, NULL), 0);
        assert_int_equal(app->n_grants, 10);

        /* Without its provider, a package token is unknown. */
        assert_int_equal(policy_set_remove(set, "mce"), 0);
        assert_int_equal(policy_set_remove(set, "mce"), -ENOENT);
        assert_int_equal(policy_set_resolve(set, NULL), 0);
        assert_grant(app, "mce::DeviceModeControl", GRANT_UNKNOWN_TOKEN);
        assert_grant(policy_set_find_package(set, "sensorfw"), "mce::DeviceModeControl",
                     GRANT_UNKNOWN_TOKEN);
        policy_set_free(set);
        diagnostics_free(diag);
        diagnostics_free(grants);
}

static Package *parse_string(const char *xml, const char *name, const char *origin) {
        Package *p = NULL;
        assert_int_equal(manifest_parse_buffer(xml, strlen(xml), name, name, origin, NULL, &p), 0);
        return p;
}

static void test_add(void **state) {
        PolicySet *set = NULL;
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        /* NULL device policy: the empty one; nothing global is granted. */
        assert_int_equal(policy_set_new(NULL, &set), 0);
        Package *a = parse_string("<aegis><provide><credential name=\"T\"/>"
                                  "<dbus name=\"org.a\" bus=\"system\"/></provide>"
                                  "<request><credential name=\"Cellular\"/><credential name=\"T\"/></request></aegis>",
                                  "a", "system");
        assert_int_equal(policy_set_add(set, a, diag), 0);
        Package *again = parse_string("<aegis/>", "a", NULL);
        assert_int_equal(policy_set_add(set, again, diag), POLICY_SET_E_EXISTS);
        assert_non_null(diagnostics_find(diag, "package a is already loaded from a"));
        package_free(again);
        /* The same name on the other bus is another name. */
        Package *b = parse_string("<aegis><provide><dbus name=\"org.a\" bus=\"session\"/></provide></aegis>",
                                  "b", NULL);
        assert_int_equal(policy_set_add(set, b, diag), 0);
        Package *c = parse_string("<aegis><provide><dbus name=\"org.c\" bus=\"system\"/>\n"
                                  "<dbus name=\"org.a\" bus=\"system\"/></provide></aegis>", "c", NULL);
        assert_int_equal(policy_set_add(set, c, diag), POLICY_SET_E_CONFLICT);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "c", 2, 1,
                          "bus name org.a (system bus) is already declared by package a at a:1:39");
        package_free(c);
        assert_int_equal(set->n_packages, 2);
        assert_int_equal(policy_set_resolve(set, NULL), 0);
        device_policy_free(set->device);
        static const char conf[] = "token Camera\norigin * *\n";
        assert_int_equal(device_policy_parse_buffer(conf, sizeof(conf) - 1, "d", NULL, &set->device), 0);
        Package *d = parse_string("<aegis><request>\n  <credential name=\"camera\"/><credential name=\"Camera\"/>"
                                  "</request></aegis>", "d", NULL);
        assert_int_equal(policy_set_add(set, d, diag), 0);
        assert_int_equal(policy_set_resolve(set, diag), 0);
        assert_grant(d, "Camera", GRANT_GRANTED);
        assert_grant(d, "camera", GRANT_UNKNOWN_TOKEN);
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "d", 2, 3,
                          "camera is not granted to d (origin unknown): no installed package "
                          "provides it and it is not a global token of the device policy (did "
                          "you mean Camera? the case is significant)");
        /* The empty device policy knows no global token. */
        static const char empty[] = "";
        device_policy_free(set->device);
        assert_int_equal(device_policy_parse_buffer(empty, 0, "e", NULL, &set->device), 0);
        assert_int_equal(policy_set_resolve(set, NULL), 0);
        assert_grant(a, "Cellular", GRANT_UNKNOWN_TOKEN);
        assert_grant(a, "a::T", GRANT_GRANTED);
        policy_set_free(set);
        diagnostics_free(diag);
}

static Package *package_of(const char *name, const char *origin, const char *xml) {
        Package *package = NULL;
        assert_int_equal(manifest_parse_buffer(xml, strlen(xml), "m.aegis", name, origin, NULL,
                                               &package), 0);
        return package;
}

/* A manifest with one bus name and one <owner label> on line 2, column 3. */
static Package *owning(const char *name, const char *origin, const char *label) {
        char xml[1024];
        snprintf(xml, sizeof(xml), "<aegis><provide><dbus name=\"org.x.%s\" bus=\"system\">\n"
                 "  <owner label=\"%s\"/></dbus></provide></aegis>", name, label);
        return package_of(name, origin, xml);
}

static PolicySet *label_set(void) {
        DevicePolicy *device = NULL;
        PolicySet *set = NULL;
        static const char policy[] =
                "token Cellular Location drm\norigin system *\norigin thirdparty Location\n"
                "label system *\nlabel operator com.operator.*\nserve system *\nmonitor dbus-monitor\n"
                "checkany mssf-keyd\n";
        assert_int_equal(device_policy_parse_buffer(policy, sizeof(policy) - 1, "d", NULL,
                                                    &device), 0);
        assert_int_equal(policy_set_new(device, &set), 0);
        assert_int_equal(policy_set_add(set, package_of("victim", "system", "<aegis/>"), NULL), 0);
        return set;
}

/* package names owner label: refused at 2:3 with why, or (why NULL) accepted. */
static void check_owner(PolicySet *set, const char *name, const char *origin, const char *label,
                        const char *why) {
        Diagnostics *diag;
        Package *package = owning(name, origin, label);
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(policy_set_add(set, package, diag), 0);
        int r = policy_set_check_labels(set, package, diag);
        if (why) {
                assert_int_equal(r, POLICY_SET_E_LABEL);
                assert_diagnostic(diag, DIAGNOSTIC_ERROR, "m.aegis", 2, 3, why);
        } else {
                if (r != 0)
                        print_error("%s: %s\n", label, diag->items[0]->message);
                assert_int_equal(r, 0);
        }
        assert_int_equal(policy_set_remove(set, name), 0);
        diagnostics_free(diag);
}

static void test_owner_labels(void **state) {
        PolicySet *set = label_set();
        check_owner(set, "store", "thirdparty", "store", NULL);
        check_owner(set, "store", "thirdparty", "store:helper", NULL);
        check_owner(set, "store", "thirdparty", "System",
                    "owner label 'System' is not package store's: a package may name its own "
                    "label, labels store:NAME under it, and labels the device policy grants its "
                    "origin (\"label thirdparty ...\" lines)");
        check_owner(set, "store", "thirdparty", "victim",
                    "owner label 'victim' is package victim's, which comes from another origin "
                    "(system, not thirdparty)");
        check_owner(set, "store", "thirdparty", "victim:sub", "is package victim's");
        check_owner(set, "store", NULL, "store-helper", "origin (\"label unknown ...\" lines)");
        check_owner(set, "store", "thirdparty", "store::Token", "is a token (package::Token)");
        check_owner(set, "store", "thirdparty", "Location", "is a global token of the device");
        check_owner(set, "store", "thirdparty", "_", "one of Smack's special labels");
        check_owner(set, "store", "thirdparty", "@", "one of Smack's special labels");
        check_owner(set, "store", "thirdparty", "^", "one of Smack's special labels");
        /* The device maker's grants: any label for system, a prefix for the operator. */
        check_owner(set, "sys", "system", "victim", NULL);
        check_owner(set, "sys", "system", "ofono-helper", NULL);
        check_owner(set, "sys", "system", "_", "one of Smack's special labels");
        check_owner(set, "sys", "system", "Cellular", "is a global token");
        check_owner(set, "op", "operator", "com.operator.helper", NULL);
        /* Even granted every label, not one an installed package of another origin holds. */
        assert_int_equal(policy_set_add(set, package_of("helperd", "thirdparty", "<aegis/>"),
                                        NULL), 0);
        check_owner(set, "sys", "system", "helperd",
                    "owner label 'helperd' is package helperd's, which comes from another "
                    "origin (thirdparty, not system)");
        check_owner(set, "sys", "system", "helperd:sub", "is package helperd's");
        assert_int_equal(policy_set_remove(set, "helperd"), 0);
        check_owner(set, "op", "operator", "com.other", "is not package op's");
        policy_set_free(set);
}

/* A bus name the device policy reserves to other origins may not be declared first. */
static void test_reserved_names(void **state) {
        DevicePolicy *device = NULL;
        PolicySet *set = NULL;
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(device_policy_new_default(&device), 0);
        assert_int_equal(policy_set_new(device, &set), 0);
        Package *squat = package_of("squat", "thirdparty",
                                    "<aegis><provide>\n  <dbus name=\"com.nokia.mce\" "
                                    "bus=\"system\"/></provide></aegis>");
        assert_int_equal(policy_set_add(set, squat, diag), 0);
        assert_int_equal(policy_set_check_labels(set, squat, diag), POLICY_SET_E_LABEL);
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "m.aegis", 2, 3,
                          "bus name com.nokia.mce is reserved by the device policy to other "
                          "origins than thirdparty");
        Package *mce = package_of("mce", "system",
                                  "<aegis><provide><dbus name=\"com.nokia.mce.x\" "
                                  "bus=\"system\"/><dbus name=\"org.example.Ok\" "
                                  "bus=\"session\"/></provide></aegis>");
        assert_int_equal(policy_set_add(set, mce, diag), 0);
        assert_int_equal(policy_set_check_labels(set, mce, diag), 0);
        policy_set_free(set);
        diagnostics_free(diag);
}

static void test_package_names(void **state) {
        PolicySet *set = label_set();
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        /* Not a valid package name at all: ':' makes labels under another package's. */
        assert_false(manifest_valid_package_label("victim:sub"));
        assert_true(manifest_valid_package_label("victim.sub"));
        /* Nor what mssf-policy's unfinished writes are called (its files are named after packages). */
        assert_false(manifest_valid_package_label("a.tmp-abcdef"));
        assert_false(manifest_valid_package_label("a.tmp-b"));

        Package *drm = package_of("drm", "thirdparty", "<aegis/>");
        assert_int_equal(policy_set_add(set, drm, diag), 0);
        assert_int_equal(policy_set_check_labels(set, drm, diag), POLICY_SET_E_LABEL);
        /* Said at the <aegis> element: the name concerns the whole manifest. */
        assert_diagnostic(diag, DIAGNOSTIC_ERROR, "m.aegis", 1, 1,
                          "package name 'drm' is a global token of the device policy");
        Package *monitor = package_of("dbus-monitor", "thirdparty", "<aegis/>");
        assert_int_equal(policy_set_add(set, monitor, diag), 0);
        assert_int_equal(policy_set_check_labels(set, monitor, diag), POLICY_SET_E_LABEL);
        assert_non_null(diagnostics_find(diag, "package name 'dbus-monitor' is a monitor label"));
        /* The key service's label: a store app named after it would ask about any token. */
        Package *keys = package_of("mssf-keyd", "thirdparty", "<aegis/>");
        assert_int_equal(policy_set_add(set, keys, diag), 0);
        assert_int_equal(policy_set_check_labels(set, keys, diag), POLICY_SET_E_LABEL);
        assert_non_null(diagnostics_find(diag, "package name 'mssf-keyd' is a checkany label of the "
                                               "device policy, which origin thirdparty is not granted"));
        assert_int_equal(policy_set_remove(set, "mssf-keyd"), 0);
        keys = package_of("mssf-keyd", "system", "<aegis/>");
        assert_int_equal(policy_set_add(set, keys, diag), 0);
        assert_int_equal(policy_set_check_labels(set, keys, diag), 0);
        /* A label a system package named as an owner is taken. */
        Package *sys = owning("sys", "system", "helper");
        assert_int_equal(policy_set_add(set, sys, diag), 0);
        assert_int_equal(policy_set_check_labels(set, sys, diag), 0);
        Package *helper = package_of("helper", "thirdparty", "<aegis/>");
        assert_int_equal(policy_set_add(set, helper, diag), 0);
        assert_int_equal(policy_set_check_labels(set, helper, diag), POLICY_SET_E_LABEL);
        assert_non_null(diagnostics_find(diag, "package name 'helper' is a label package sys "
                                               "(origin system) already names as an owner of "
                                               "its bus names: that label is taken for its "
                                               "origin, not thirdparty"));
        /* ...and so is the package of a binary another origin's package grants to. */
        Package *host = package_of("host", "system",
                                   "<aegis><request><credential name=\"Cellular\"/>"
                                   "<for path=\"launcher::/usr/bin/launcher\"/></request></aegis>");
        assert_int_equal(policy_set_add(set, host, diag), 0);
        Package *launcher = package_of("launcher", "thirdparty", "<aegis/>");
        assert_int_equal(policy_set_add(set, launcher, diag), 0);
        assert_int_equal(policy_set_check_labels(set, launcher, diag), POLICY_SET_E_LABEL);
        assert_non_null(diagnostics_find(diag, "package name 'launcher' is a label package host "
                                               "(origin system) already names as the package of "
                                               "a binary it grants to"));
        /* The same origin may take it: the host's own origin's launcher. */
        assert_int_equal(policy_set_remove(set, "launcher"), 0);
        launcher = package_of("launcher", "system", "<aegis/>");
        assert_int_equal(policy_set_add(set, launcher, diag), 0);
        assert_int_equal(policy_set_check_labels(set, launcher, diag), 0);
        policy_set_free(set);
        diagnostics_free(diag);
}

/* What an installed package may no longer name is dropped by resolve, with a warning. */
static void test_resolve_drops(void **state) {
        PolicySet *set = label_set();
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        Package *old = owning("old", "thirdparty", "System");
        assert_int_equal(policy_set_add(set, old, diag), 0);
        Package *plugin = package_of("plugin", "thirdparty",
                                     "<aegis><request><credential name=\"Location\"/>\n"
                                     "  <for path=\"victim::/usr/bin/victimd\"/></request></aegis>");
        assert_int_equal(policy_set_add(set, plugin, diag), 0);
        assert_int_equal(policy_set_resolve(set, diag), 0);
        assert_int_equal(old->names[0]->n_owner_labels, 1);
        assert_string_equal(old->names[0]->owner_labels[0], "old");
        assert_diagnostic(diag, DIAGNOSTIC_WARNING, "m.aegis", 2, 3,
                          "owner label 'System' is not package old's");
        assert_non_null(diagnostics_find(diag, "dropped, it may not own org.x.old"));
        assert_true(plugin->requests[0]->targets[0]->refused);
        assert_non_null(diagnostics_find(diag, "the package of binary 'victim' is package "
                                               "victim's, which comes from another origin"));
        assert_non_null(diagnostics_find(diag, "(victim::/usr/bin/victimd): it would be granted "
                                               "this package's credentials: it is granted "
                                               "nothing"));
        policy_set_free(set);
        diagnostics_free(diag);
}

/* Guarding with a token buys reach only where the package provides it or may serve it. */
static void test_may_serve(void **state) {
        PolicySet *set = label_set();
        Diagnostics *diag;
        assert_int_equal(diagnostics_new(&diag), 0);
        Package *store = package_of("store", "thirdparty",
                                    "<aegis><provide><credential name=\"Own\"/>"
                                    "<dbus name=\"org.x.store\" bus=\"system\"><node name=\"/\">"
                                    "<interface name=\"org.x.I\">\n"
                                    "  <method name=\"A\"><annotation name=\"com.maemo.Aegis\" "
                                    "value=\"Cellular\"/></method>"
                                    "<method name=\"B\"><annotation name=\"com.maemo.Aegis\" "
                                    "value=\"Location\"/></method>"
                                    "<method name=\"C\"><annotation name=\"com.maemo.Aegis\" "
                                    "value=\"Own\"/></method>"
                                    "</interface></node></dbus></provide></aegis>");
        assert_int_equal(policy_set_add(set, store, diag), 0);
        assert_int_equal(policy_set_resolve(set, diag), 0);
        /* Location it may be granted (thirdparty), but not serve: holders did not ask for it. */
        assert_false(policy_set_may_serve(set, store, "Cellular"));
        assert_false(policy_set_may_serve(set, store, "Location"));
        assert_true(policy_set_may_serve(set, store, "store::Own"));
        assert_non_null(diagnostics_find(diag, "store guards org.x.store with Cellular, which "
                                               "package store neither provides nor may serve "
                                               "(origin thirdparty"));
        assert_non_null(diagnostics_find(diag, "store guards org.x.store with Location"));
        assert_null(diagnostics_find(diag, "with store::Own"));
        /* The device maker's serve lines: system serves the global tokens. */
        Package *sys = package_of("sys", "system", "<aegis/>");
        assert_int_equal(policy_set_add(set, sys, diag), 0);
        assert_true(policy_set_may_serve(set, sys, "Cellular"));
        policy_set_free(set);
        diagnostics_free(diag);
}

static void test_missing_dir(void **state) {
        PolicySet *set = NULL;
        assert_int_equal(policy_set_new(NULL, &set), 0);
        assert_int_equal(policy_set_load_dir(set, "/nonexistent/manifests", NULL), -ENOENT);
        assert_int_equal(set->n_packages, 0);
        assert_null(policy_set_free(set));
        assert_null(policy_set_free(NULL));
        assert_null(package_free(NULL));
        assert_null(device_policy_free(NULL));
        assert_null(diagnostics_free(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_load_dir),
                cmocka_unit_test(test_grants),
                cmocka_unit_test(test_add),
                cmocka_unit_test(test_owner_labels),
                cmocka_unit_test(test_reserved_names),
                cmocka_unit_test(test_package_names),
                cmocka_unit_test(test_resolve_drops),
                cmocka_unit_test(test_may_serve),
                cmocka_unit_test(test_missing_dir),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
