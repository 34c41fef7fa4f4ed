/*
 * The compiler, from real manifest XML (parsed by policy/manifest) to the
 * file: golden bytes and golden dump, order independence, the mapping
 * rules (defaults, write fall-backs, own rules, session names skipped),
 * and the refusal of a bus name two packages declare.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compile.h"
#include "db-fixture.h"
#include "decide.h"
#include "dump.h"
#include "golden-util.h"
#include "manifest.h"
#include "model.h"
#include "policyset.h"

static const char *manifest_dir, *golden_dir;

static Package *parse(const char *name) {
        _cleanup_free_ char *data = NULL;
        Package *package = NULL;
        char path[4096];
        size_t size;

        snprintf(path, sizeof(path), "%s/%s.xml", manifest_dir, name);
        data = fixture_read_file(path, &size);
        if (manifest_parse_buffer(data, size, path, name, NULL, NULL, &package) != 0)
                fail_msg("manifest %s does not parse", path);
        return package;
}

static PolicySet *make_set(const char *const *names) {
        PolicySet *set = NULL;
        DevicePolicy *device;

        assert_int_equal(policy_set_new(NULL, &set), 0);
        for (const char *const *n = names; *n; n++) {
                Package *package = parse(*n);

                assert_int_equal(MODEL_APPEND(set->packages, set->n_packages, package), 0);
        }
        device = set->device;
        assert_int_equal(model_strv_append(&device->global_tokens, &device->n_global_tokens,
                                           "Cellular"), 0);
        assert_int_equal(model_strv_append(&device->monitor_labels, &device->n_monitor_labels,
                                           "dbus-monitor"), 0);
        assert_int_equal(model_strv_append(&device->checkany_labels, &device->n_checkany_labels,
                                           "mssf-keyd"), 0);
        return set;
}

static void compile_names(const char *const *names, uint8_t **ret, size_t *ret_size) {
        _cleanup_(policy_set_freep) PolicySet *set = make_set(names);

        assert_int_equal(policy_compile(set, ret, ret_size, NULL), 0);
}

#define NAMES(...) ((const char *const[]) { __VA_ARGS__, NULL })

static void test_golden(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *text = NULL;
        size_t size, text_size;
        FILE *f;

        compile_names(NAMES("mce", "ofono", "timed"), &data, &size);
        golden_compare(golden_dir, "compile.db", data, size);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        f = open_memstream(&text, &text_size);
        assert_non_null(f);
        assert_int_equal(policy_db_dump(db, f), 0);
        assert_int_equal(fclose(f), 0);
        golden_compare(golden_dir, "compile.dump", text, text_size);
}

static void test_order_independent(void **state) {
        const char *const *orders[] = {
                NAMES("ofono", "mce", "timed"), NAMES("timed", "ofono", "mce"),
                NAMES("mce", "timed", "ofono"),
        };
        _cleanup_free_ uint8_t *first = NULL;
        size_t first_size;

        compile_names(NAMES("mce", "ofono", "timed"), &first, &first_size);
        for (size_t i = 0; i < ELEMENTSOF(orders); i++) {
                _cleanup_free_ uint8_t *data = NULL;
                size_t size;

                compile_names(orders[i], &data, &size);
                assert_int_equal(size, first_size);
                assert_memory_equal(data, first, size);
        }
}

static PolicyDb *open_compiled(void) {
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        size_t size;

        compile_names(NAMES("mce", "ofono", "timed"), &data, &size);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        return db;
}

static int decide(PolicyDb *db, const char *name, const char *label, const char *grant,
                  PolicyMessage m) {
        const char *grants[] = { grant, NULL };
        MockOracle oracle = { .grants = grants };
        PolicyDecision d;

        return policy_db_decide(db, &name, 1, label, &m, mock_has_token, &oracle, &d);
}

#define CALL(p, i, m) ((PolicyMessage) { .type = POLICY_MESSAGE_METHOD_CALL, .path = p, \
                                         .interface = i, .member = m })
#define SIGNAL(p, i, m) ((PolicyMessage) { .type = POLICY_MESSAGE_SIGNAL, .path = p, \
                                           .interface = i, .member = m })
#define GET(m, i, p) ((PolicyMessage) { .type = POLICY_MESSAGE_METHOD_CALL, .path = "/ril_0", \
                                        .interface = "org.freedesktop.DBus.Properties", \
                                        .member = m, .property_interface = i, .property = p })

static void test_mapping(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = open_compiled();
        const char *mce = "com.nokia.mce", *ofono = "org.ofono", *timed = "com.nokia.time";

        /* Session-bus names are not compiled. */
        assert_false(policy_db_declares_name(db, "com.nokia.mce.user"));
        assert_true(policy_db_is_global_token(db, "Cellular"));
        assert_true(policy_db_is_monitor_label(db, "dbus-monitor"));
        assert_true(policy_db_is_checkany_label(db, "mssf-keyd"));
        assert_false(policy_db_is_checkany_label(db, "dbus-monitor"));
        /* Own tokens are resolved to the package's label. */
        assert_int_equal(decide(db, mce, "app", NULL, CALL("/com/nokia/mce/request",
                                "com.nokia.mce.request", "req_radio_states_change")),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(decide(db, mce, "app", "app mce::DeviceModeControl",
                                CALL("/com/nokia/mce/request", "com.nokia.mce.request",
                                     "req_radio_states_change")), 0);
        /* An unannotated method under an open default is open... */
        assert_int_equal(decide(db, mce, "app", NULL, CALL("/com/nokia/mce/request",
                                "com.nokia.mce.request", "get_tklock_mode")), 0);
        /* ... and without a default it is not declared. */
        assert_int_equal(decide(db, ofono, "app", "app Cellular",
                                CALL("/ril_0", "org.ofono.Modem", "Unannotated")),
                         POLICY_DECIDE_E_NOT_DECLARED);
        /* An interface default covers members the manifest does not list. */
        assert_int_equal(decide(db, ofono, "app", NULL,
                                CALL("/ril_0", "org.ofono.SimManager", "ChangePin")),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(decide(db, ofono, "app", "app ofono::Identity",
                                CALL("/ril_0", "org.ofono.SimManager", "ChangePin")), 0);
        assert_int_equal(decide(db, timed, "app", NULL,
                                CALL("/com/nokia/time", "org.freedesktop.DBus.Introspectable",
                                     "Introspect")), 0);
        /* Signals: annotated ones reach holders only, others are open. */
        assert_int_equal(decide(db, mce, "listener", NULL, SIGNAL("/com/nokia/mce/signal",
                                "com.nokia.mce.signal", "display_status_ind")),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(decide(db, mce, "listener", NULL, SIGNAL("/com/nokia/mce/signal",
                                "com.nokia.mce.signal", "unprotected_ind")), 0);
        /* Properties: read token, write token, write falling back to read. */
        assert_int_equal(decide(db, ofono, "app", NULL, GET("Get", "org.ofono.Modem", "Serial")),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(decide(db, ofono, "app", "app ofono::Identity",
                                GET("Set", "org.ofono.Modem", "Serial")), 0);
        assert_int_equal(decide(db, ofono, "app", NULL, GET("Get", "org.ofono.Modem", "Powered")),
                         0);
        assert_int_equal(decide(db, ofono, "app", NULL, GET("Set", "org.ofono.Modem", "Powered")),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        /* The interface write default covers unlisted properties. */
        assert_int_equal(decide(db, ofono, "app", "app ofono::Identity",
                                GET("Set", "org.ofono.SimManager", "Pin")),
                         POLICY_DECIDE_E_MISSING_TOKEN);
        assert_int_equal(decide(db, ofono, "app", "app Cellular",
                                GET("Set", "org.ofono.SimManager", "Pin")), 0);
}

/* Who declared each name, and what each package may ask the bus about (CheckToken). */
static void test_declarers(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = open_compiled();
        const char *package;

        assert_int_equal(policy_db_name_declarer(db, "com.nokia.mce", &package), 0);
        assert_string_equal(package, "mce");
        assert_int_equal(policy_db_name_declarer(db, "org.ofono", &package), 0);
        assert_string_equal(package, "ofono");
        assert_int_equal(policy_db_name_declarer(db, "com.nokia.time", &package), 0);
        assert_string_equal(package, "timed");
        /* The session-bus name is not this bus's. */
        assert_int_equal(policy_db_name_declarer(db, "com.nokia.mce.user", &package),
                         POLICY_DB_UNDECLARED);
        /* ofono guards with the global Cellular, owns by its own OwnName, provides Identity. */
        assert_true(policy_db_package_serves_token(db, "ofono", "Cellular"));
        assert_true(policy_db_package_serves_token(db, "ofono", "ofono::OwnName"));
        assert_true(policy_db_package_serves_token(db, "ofono", "ofono::Identity"));
        assert_true(policy_db_package_serves_token(db, "mce", "mce::DeviceModeControl"));
        assert_false(policy_db_package_serves_token(db, "mce", "Cellular"));
        /* timed requests mce::DeviceModeControl: holding a token is not serving it. */
        assert_true(policy_db_package_serves_token(db, "timed", "timed::TimeControl"));
        assert_false(policy_db_package_serves_token(db, "timed", "mce::DeviceModeControl"));
}

static void test_ownership(void **state) {
        _cleanup_(policy_db_freep) PolicyDb *db = open_compiled();
        const char *grants[] = { "holder ofono::OwnName", NULL };
        MockOracle oracle = { .grants = grants };
        PolicyDecision d;

        assert_int_equal(policy_db_may_own(db, "org.ofono", "ofono", mock_has_token, &oracle,
                                           &d), 0);
        assert_int_equal(policy_db_may_own(db, "org.ofono", "ofono-helper", mock_has_token,
                                           &oracle, &d), 0);
        assert_int_equal(policy_db_may_own(db, "org.ofono", "holder", mock_has_token, &oracle,
                                           &d), 0);
        assert_int_equal(policy_db_may_own(db, "org.ofono", "app", mock_has_token, &oracle, &d),
                         POLICY_DECIDE_E_OWN_REFUSED);
        /* own absent: the safe reading, only the package itself. */
        assert_int_equal(policy_db_may_own(db, "com.nokia.time", "timed", mock_has_token,
                                           &oracle, &d), 0);
        assert_int_equal(policy_db_may_own(db, "com.nokia.time", "holder", mock_has_token,
                                           &oracle, &d), POLICY_DECIDE_E_OWN_REFUSED);
}

static void test_conflict(void **state) {
        _cleanup_(policy_set_freep) PolicySet *set = make_set(NAMES("ofono", "squatter"));
        PolicyCompileError error = { 0 };
        uint8_t *data = NULL;
        size_t size = 0;

        assert_int_equal(policy_compile(set, &data, &size, &error), POLICY_COMPILE_E_CONFLICT);
        assert_null(data);
        assert_string_equal(error.name, "org.ofono");
        assert_string_equal(error.package, "squatter");
        assert_string_equal(error.other_package, "ofono");
}

static void test_empty_set(void **state) {
        _cleanup_(policy_set_freep) PolicySet *set = NULL;
        _cleanup_(policy_db_freep) PolicyDb *db = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;

        assert_int_equal(policy_set_new(NULL, &set), 0);
        assert_int_equal(policy_compile(set, &data, &size, NULL), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        assert_false(policy_db_declares_name(db, "org.ofono"));
        assert_int_equal(policy_compile(NULL, &data, &size, NULL), -EINVAL);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_golden),
                cmocka_unit_test(test_order_independent),
                cmocka_unit_test(test_mapping),
                cmocka_unit_test(test_declarers),
                cmocka_unit_test(test_ownership),
                cmocka_unit_test(test_conflict),
                cmocka_unit_test(test_empty_set),
        };

        if (argc != 3) {
                fprintf(stderr, "usage: %s MANIFEST-DIR GOLDEN-DIR\n", argv[0]);
                return 2;
        }
        manifest_dir = argv[1];
        golden_dir = argv[2];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
