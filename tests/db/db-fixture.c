/*
 * The basic fixture, written with the builder directly so that the reader,
 * the decision and the dump are tested without the manifest parser. Rules
 * come in a scrambled order and some twice, as manifests repeat them.
 */
#include "db-fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"

#define MCE_PATH "/com/nokia/mce/request"
#define MCE_IFACE "com.nokia.mce.request"

typedef struct FixtureRule {
        const char *name;
        PolicyKind kind;
        const char *path, *interface, *member, *token;
} FixtureRule;

static const FixtureRule basic_rules[] = {
        { "org.ofono", POLICY_KIND_METHOD, "/ril_0", "org.ofono.Modem", "SetProperty", "Cellular" },
        { "com.nokia.mce", POLICY_KIND_METHOD, MCE_PATH, MCE_IFACE, NULL, NULL },
        { "com.nokia.mce", POLICY_KIND_METHOD, MCE_PATH, MCE_IFACE, "req_radio_states_change",
          "mce::DeviceModeControl" },
        { "com.nokia.mce", POLICY_KIND_METHOD, MCE_PATH, "org.freedesktop.DBus.Introspectable",
          "Introspect", NULL },
        { "com.nokia.mce", POLICY_KIND_SIGNAL, "/com/nokia/mce/signal", "com.nokia.mce.signal",
          "display_status_ind", "mce::DisplayStatus" },
        { "org.ofono", POLICY_KIND_METHOD, "/ril_0", "org.ofono.Modem", "GetProperties", NULL },
        { "org.ofono", POLICY_KIND_METHOD, "/ril_0", "org.ofono.SimManager", "GetProperties",
          "ofono::Sim" },
        { "org.ofono", POLICY_KIND_PROPERTY_READ, "/ril_0", "org.ofono.Modem", "Serial",
          "ofono::Identity" },
        { "org.ofono", POLICY_KIND_PROPERTY_WRITE, "/ril_0", "org.ofono.Modem", "Serial",
          "ofono::Identity" },
        { "org.ofono", POLICY_KIND_PROPERTY_READ, "/ril_0", "org.ofono.Modem", "Powered", NULL },
        { "org.ofono", POLICY_KIND_PROPERTY_WRITE, "/ril_0", "org.ofono.Modem", "Powered",
          "Cellular" },
        { "org.ofono", POLICY_KIND_SIGNAL, "/ril_0", "org.ofono.Modem", "PropertyChanged",
          "Cellular" },
        /* A repeat, and a second token for one key: both are then needed. */
        { "org.ofono", POLICY_KIND_METHOD, "/ril_0", "org.ofono.Modem", "SetProperty", "Cellular" },
        { "org.ofono", POLICY_KIND_METHOD, "/ril_0", "org.ofono.Modem", "Dial", "Cellular" },
        { "org.ofono", POLICY_KIND_METHOD, "/ril_0", "org.ofono.Modem", "Dial", "Telephony" },
};

static uint32_t add_name(PolicyBuilder *b, const char *name) {
        uint32_t handle;

        assert_int_equal(policy_builder_add_name(b, name, &handle), 0);
        return handle;
}

void fixture_build_basic(uint8_t **ret_data, size_t *ret_size) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        uint32_t ofono, mce, multi, locked;

        assert_int_equal(policy_builder_new(&b), 0);
        ofono = add_name(b, "org.ofono");
        mce = add_name(b, "com.nokia.mce");
        multi = add_name(b, "com.example.Multi");
        locked = add_name(b, "org.example.Locked");
        assert_int_equal(policy_builder_add_owner(b, ofono, "ofono"), 0);
        assert_int_equal(policy_builder_set_own_token(b, ofono, "ofono::OwnName"), 0);
        assert_int_equal(policy_builder_add_owner(b, mce, "mce"), 0);
        assert_int_equal(policy_builder_add_owner(b, multi, "multi-helper"), 0);
        assert_int_equal(policy_builder_add_owner(b, multi, "multi"), 0);
        assert_int_equal(policy_builder_add_owner(b, multi, "multi"), 0);
        assert_int_equal(policy_builder_set_own_token(b, locked, "Locked"), 0);
        /* org.example.Locked records no declarer, as a builder user may leave it. */
        assert_int_equal(policy_builder_set_declarer(b, ofono, "ofono"), 0);
        assert_int_equal(policy_builder_set_declarer(b, mce, "mce"), 0);
        assert_int_equal(policy_builder_set_declarer(b, multi, "multi"), 0);
        for (size_t i = 0; i < ELEMENTSOF(basic_rules); i++) {
                const FixtureRule *r = &basic_rules[i];
                uint32_t handle = add_name(b, r->name);

                assert_int_equal(policy_builder_add_rule(b, handle, r->kind, r->path,
                                                         r->interface, r->member, r->token),
                                 0);
        }
        assert_int_equal(policy_builder_add_global_token(b, "Location"), 0);
        assert_int_equal(policy_builder_add_global_token(b, "Cellular"), 0);
        assert_int_equal(policy_builder_add_monitor_label(b, "dbus-monitor"), 0);
        /* Two, in reverse order and one twice: sorted and listed once. */
        assert_int_equal(policy_builder_add_checkany_label(b, "mssf-keyd"), 0);
        assert_int_equal(policy_builder_add_checkany_label(b, "keys"), 0);
        assert_int_equal(policy_builder_add_checkany_label(b, "mssf-keyd"), 0);
        assert_int_equal(policy_builder_add_provided_token(b, "mce::LEDControl"), 0);
        assert_int_equal(policy_builder_add_provided_token(b, "mce::DeviceModeControl"), 0);
        assert_int_equal(policy_builder_add_provided_token(b, "mce::LEDControl"), 0);
        assert_int_equal(policy_builder_build(b, ret_data, ret_size), 0);
}

PolicyDb *fixture_open_basic(void) {
        _cleanup_free_ uint8_t *data = NULL;
        PolicyDb *db = NULL;
        size_t size;

        fixture_build_basic(&data, &size);
        assert_int_equal(policy_db_open_buffer(data, size, &db), 0);
        return db;
}

int mock_has_token(const char *label, const char *token, void *userdata) {
        MockOracle *oracle = userdata;
        char key[600];

        oracle->calls++;
        if (oracle->fail_with)
                return oracle->fail_with;
        snprintf(key, sizeof(key), "%s %s", label, token);
        for (const char *const *g = oracle->grants; g && *g; g++)
                if (strcmp(*g, key) == 0)
                        return 1;
        return 0;
}

char *fixture_read_file(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "rb");
        char *data;
        long size;

        if (!f)
                fail_msg("cannot open %s", path);
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        size = ftell(f);
        assert_true(size >= 0);
        rewind(f);
        data = malloc((size_t) size + 1);
        assert_non_null(data);
        assert_int_equal(fread(data, 1, (size_t) size, f), (size_t) size);
        data[size] = '\0';
        fclose(f);
        *ret_size = (size_t) size;
        return data;
}
