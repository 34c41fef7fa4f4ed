/*
 * The mediation tests' fixture: a policy built in code with policy/db's
 * builder from fixture_rules, peers with interned labels and names, and
 * the real oracle asking the fake smackfs of tests/smack (or reporting no
 * Smack). Messages are built with the wire builder.
 */
#include "mediation-fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "builder.h"
#include "db-read.h"
#include "fake-smackfs.h"
#include "message.h"
#include "smack-label.h"
#include "smack-oracle.h"

MediationPeer fixture_peers[_PEER_MAX];
PolicyDb *fixture_db;

static const char *const peer_labels[_PEER_MAX] = {
        [APP] = "untrusted-app",
        [DIALER] = "dialer",
        [PHONE] = "phone",
        [ISOLATED] = "isolated",
        [CELLULAR] = "cellular-daemon",
        [CELLULAR_QUEUED] = "cellular-daemon",
        [PLAIN] = "plain-daemon",
        [LOCATION] = "location-daemon",
        [MULTI] = "location-daemon",
};

static const char *const peer_unique_names[_PEER_MAX] = {
        [APP] = ":1.10", [DIALER] = ":1.11", [PHONE] = ":1.12", [ISOLATED] = ":1.13",
        [CELLULAR] = ":1.1", [CELLULAR_QUEUED] = ":1.2", [PLAIN] = ":1.3", [LOCATION] = ":1.4",
        [MULTI] = ":1.5", [NOLABEL] = ":1.20",
};

static const char *const cellular_names[] = { "org.mssf.Cellular" };
static const char *const queued_names[] = { "com.example.Other", "org.mssf.Cellular" };
static const char *const plain_names[] = { "com.example.Plain" };
static const char *const location_names[] = { "org.mssf.Location" };
static const char *const multi_names[] = { "com.example.Plain2", "org.mssf.Location" };

/* Smack rules of the fake kernel: who may write to whom, and tokens. */
static const char *const kernel_rules[][3] = {
        { "untrusted-app", "cellular-daemon", "w" },
        { "untrusted-app", "plain-daemon", "w" },
        { "untrusted-app", "location-daemon", "w" },
        { "dialer", "cellular-daemon", "w" },
        { "dialer", "location-daemon", "w" },
        { "phone", "cellular-daemon", "w" },
        { "cellular-daemon", "untrusted-app", "w" },
        { "cellular-daemon", "dialer", "w" },
        { "cellular-daemon", "phone", "w" },
        { "location-daemon", "cellular-daemon", "w" },
        { "dialer", "Cellular", "w" },
        { "phone", "Cellular", "w" },
        { "phone", "Telephony", "rw" },
        { "untrusted-app", "Telephony", "r" },    /* read is not holding */
        { "location-daemon", "cellular::Own", "w" },
        { "phone", "T1", "w" }, { "phone", "T2", "w" }, { "phone", "T3", "w" },
        { "phone", "T4", "w" }, { "phone", "T5", "w" },
};

const FixtureRule fixture_rules[] = {
        { "org.mssf.Cellular", POLICY_KIND_METHOD, CELLULAR_PATH, CELLULAR_IFACE, NULL, { NULL } },
        { "org.mssf.Cellular", POLICY_KIND_METHOD, CELLULAR_PATH, CELLULAR_IFACE, "Dial", { "Cellular" } },
        { "org.mssf.Cellular", POLICY_KIND_METHOD, CELLULAR_PATH, CELLULAR_IFACE, "Hangup",
          { "Cellular", "Telephony" } },
        { "org.mssf.Cellular", POLICY_KIND_METHOD, CELLULAR_PATH, CELLULAR_IFACE, "Big",
          { "T1", "T2", "T3", "T4", "T5" } },
        { "org.mssf.Cellular", POLICY_KIND_METHOD, CELLULAR_PATH, "org.freedesktop.DBus.Introspectable",
          "Introspect", { NULL } },
        { "org.mssf.Cellular", POLICY_KIND_SIGNAL, CELLULAR_PATH, CELLULAR_IFACE, "CallStarted",
          { "Cellular" } },
        { "org.mssf.Cellular", POLICY_KIND_PROPERTY_READ, CELLULAR_PATH, CELLULAR_IFACE, "Imei",
          { "Cellular" } },
        { "org.mssf.Cellular", POLICY_KIND_PROPERTY_WRITE, CELLULAR_PATH, CELLULAR_IFACE, "Powered",
          { "Telephony" } },
        { "org.mssf.Location", POLICY_KIND_METHOD, "/org/mssf/Location", "org.mssf.Location",
          "GetPosition", { "Location" } },
};

const size_t fixture_n_rules = sizeof(fixture_rules) / sizeof(fixture_rules[0]);

static void build_policy(void) {
        _cleanup_(policy_builder_freep) PolicyBuilder *builder = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        uint32_t handle;
        size_t size;

        assert_int_equal(policy_builder_new(&builder), 0);
        assert_int_equal(policy_builder_add_name(builder, "org.mssf.Cellular", &handle), 0);
        assert_int_equal(policy_builder_add_owner(builder, handle, "cellular-daemon"), 0);
        assert_int_equal(policy_builder_set_own_token(builder, handle, "cellular::Own"), 0);
        assert_int_equal(policy_builder_add_name(builder, "org.mssf.Location", &handle), 0);
        assert_int_equal(policy_builder_add_owner(builder, handle, "location-daemon"), 0);
        assert_int_equal(policy_builder_add_name(builder, "org.mssf.Reserved", &handle), 0);
        for (size_t i = 0; i < fixture_n_rules; i++) {
                const FixtureRule *rule = &fixture_rules[i];

                assert_int_equal(policy_builder_add_name(builder, rule->name, &handle), 0);
                if (!rule->tokens[0])
                        assert_int_equal(policy_builder_add_rule(builder, handle, rule->kind, rule->path,
                                                                 rule->interface, rule->member, NULL), 0);
                for (size_t t = 0; rule->tokens[t]; t++)
                        assert_int_equal(policy_builder_add_rule(builder, handle, rule->kind, rule->path,
                                                                 rule->interface, rule->member,
                                                                 rule->tokens[t]), 0);
        }
        assert_int_equal(policy_builder_build(builder, &data, &size), 0);
        assert_int_equal(policy_db_open_buffer(data, size, &fixture_db), 0);
}

static void setup_peers(void) {
        static const struct {
                int peer;
                const char *const *names;
                size_t n_names;
        } names[] = {
                { CELLULAR, cellular_names, 1 },
                { CELLULAR_QUEUED, queued_names, 2 },
                { PLAIN, plain_names, 1 },
                { LOCATION, location_names, 1 },
                { MULTI, multi_names, 2 },
        };

        for (int i = 0; i < _PEER_MAX; i++) {
                fixture_peers[i] = (MediationPeer) { .unique_name = peer_unique_names[i] };
                if (peer_labels[i])
                        assert_int_equal(smack_label_intern(peer_labels[i], &fixture_peers[i].label), 0);
        }
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                fixture_peers[names[i].peer].names = names[i].names;
                fixture_peers[names[i].peer].n_names = names[i].n_names;
        }
}

int fixture_setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        build_policy();
        setup_peers();
        f->fake = fake_smackfs_new(true);
        for (size_t i = 0; i < sizeof(kernel_rules) / sizeof(kernel_rules[0]); i++)
                fake_smackfs_grant(f->fake, kernel_rules[i][0], kernel_rules[i][1], kernel_rules[i][2]);
        assert_int_equal(smack_oracle_new(f->fake->dir, &f->oracle), 0);
        assert_int_equal(smack_oracle_new("/nonexistent/smackfs", &f->no_smack), 0);
        *state = f;
        return 0;
}

int fixture_teardown(void **state) {
        Fixture *f = *state;

        smack_oracle_free(f->oracle);
        smack_oracle_free(f->no_smack);
        fake_smackfs_free(f->fake);
        fixture_db = policy_db_free(fixture_db);
        free(f);
        return 0;
}

const MediationPeer *fixture_peer(int index) {
        return index == DRIVER ? NULL : &fixture_peers[index];
}

static void append_body(MessageBuilder *builder, const MessageSpec *spec) {
        const char *const strings[] = { spec->arg0, spec->arg1, spec->arg2 };

        for (const char *t = spec->signature; t && *t; t++) {
                size_t i = (size_t) (t - spec->signature);
                uint32_t u = 7;
                int b = 1;

                switch (*t) {
                case 's':
                        assert_true(i < 3 && strings[i]);
                        assert_int_equal(message_builder_append_basic(builder, 's', strings[i]), 0);
                        break;
                case 'u':
                        assert_int_equal(message_builder_append_basic(builder, 'u', &u), 0);
                        break;
                case 'v':
                        assert_int_equal(message_builder_open(builder, 'v', "b"), 0);
                        assert_int_equal(message_builder_append_basic(builder, 'b', &b), 0);
                        assert_int_equal(message_builder_close(builder), 0);
                        break;
                default:
                        fail();
                }
        }
}

Message *fixture_message(const MessageSpec *spec) {
        _cleanup_(message_builder_freep) MessageBuilder *builder = NULL;
        Message *m = NULL;

        assert_int_equal(message_builder_new(spec->type, &builder), 0);
        if (spec->type == MESSAGE_METHOD_RETURN || spec->type == MESSAGE_ERROR)
                assert_int_equal(message_builder_set_reply_serial(builder, 7), 0);
        if (spec->type == MESSAGE_ERROR)
                assert_int_equal(message_builder_set_error_name(builder, spec->member), 0);
        else {
                if (spec->path)
                        assert_int_equal(message_builder_set_path(builder, spec->path), 0);
                if (spec->interface)
                        assert_int_equal(message_builder_set_interface(builder, spec->interface), 0);
                if (spec->member)
                        assert_int_equal(message_builder_set_member(builder, spec->member), 0);
        }
        if (spec->destination)
                assert_int_equal(message_builder_set_destination(builder, spec->destination), 0);
        append_body(builder, spec);
        assert_int_equal(message_builder_finish(builder, &m), 0);
        return m;
}
