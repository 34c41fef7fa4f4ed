/*
 * Unit tests for the bus driver (broker/driver/driver.c, driver-names.c,
 * driver-match.c, driver-info.c) on an in-process bus.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "activate.h"
#include "activation.h"
#include "bus-harness.h"

#define CONFIG_HEAD "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>"
#define CONFIG_POLICY "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>" \
        "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy>"
#define CONFIG CONFIG_HEAD CONFIG_POLICY "</busconfig>"

#define DBUS "org.freedesktop.DBus"
#define DBUS_PATH "/org/freedesktop/DBus"

typedef struct Fixture {
        Harness h;
        Client a;
} Fixture;

static int setup(void **state) {
        static Fixture f;

        harness_start(&f.h, CONFIG);
        client_connect(&f.h, &f.a, true, true);
        *state = &f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        client_close(&f->a);
        harness_stop(&f->h);
        return 0;
}

/* Calls a driver method with one string (or none) and returns the reply. */
static Message *call_driver(Fixture *f, const char *interface, const char *member, const char *arg) {
        uint32_t serial;

        if (arg)
                serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, interface, member, "s", arg);
        else
                serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, interface, member, "");
        return client_wait_reply(&f->h, &f->a, serial);
}

static void assert_error(Message *m, const char *name, const char *text) {
        const char *got;

        assert_non_null(m);
        assert_int_equal(message_get_type(m), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(m), name);
        if (text) {
                assert_int_equal(message_read(m, "s", &got), 0);
                assert_string_equal(got, text);
        }
}

static uint32_t request_name(Fixture *f, Client *c, const char *name, uint32_t flags) {
        _cleanup_(message_unrefp) Message *reply = NULL;
        uint32_t serial, result = 0;

        serial = client_call(&f->h, c, DBUS, DBUS_PATH, DBUS, "RequestName", "su", name, flags);
        reply = client_wait_reply(&f->h, c, serial);
        assert_non_null(reply);
        assert_int_equal(message_read(reply, "u", &result), 0);
        return result;
}

static bool list_contains(Message *m, const char *wanted) {
        MessageReader reader;
        bool found = false;

        message_reader_init(&reader, m);
        assert_int_equal(message_reader_enter(&reader, 'a', "s"), 0);
        while (!message_reader_at_end(&reader)) {
                const char *name;

                assert_int_equal(message_reader_read_basic(&reader, 's', &name), 0);
                found = found || strcmp(name, wanted) == 0;
        }
        return found;
}

static void test_request_name_and_queue(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *owner = NULL, *queue = NULL, *names = NULL;
        Client b;
        const char *text;

        client_connect(&f->h, &b, false, true);
        assert_int_equal(request_name(f, &f->a, "org.example.Name", 0), 1);
        assert_int_equal(request_name(f, &f->a, "org.example.Name", 0), 4);
        assert_int_equal(request_name(f, &b, "org.example.Name", 0), 2);
        assert_int_equal(request_name(f, &b, "org.example.Other", 4), 1);

        owner = call_driver(f, DBUS, "GetNameOwner", "org.example.Name");
        assert_int_equal(message_read(owner, "s", &text), 0);
        assert_string_equal(text, f->a.unique_name);
        queue = call_driver(f, DBUS, "ListQueuedOwners", "org.example.Name");
        assert_true(list_contains(queue, f->a.unique_name));
        assert_true(list_contains(queue, b.unique_name));
        names = call_driver(f, DBUS, "ListNames", NULL);
        assert_true(list_contains(names, "org.example.Other"));
        assert_true(list_contains(names, b.unique_name));
        assert_true(list_contains(names, DBUS));
        client_close(&b);
}

static void test_release_name_passes_to_queue(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL, *owner = NULL, *acquired = NULL;
        Client b;
        uint32_t serial, result;
        const char *text;

        client_connect(&f->h, &b, false, true);
        assert_int_equal(request_name(f, &f->a, "org.example.Q", 0), 1);
        assert_int_equal(request_name(f, &b, "org.example.Q", 0), 2);
        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "ReleaseName", "s", "org.example.Q");
        reply = client_wait_reply(&f->h, &f->a, serial);
        assert_int_equal(message_read(reply, "u", &result), 0);
        assert_int_equal(result, 1);
        /* b's next message is NameAcquired for the name */
        acquired = client_recv(&f->h, &b);
        assert_non_null(acquired);
        assert_string_equal(message_get_member(acquired), "NameAcquired");
        assert_int_equal(message_read(acquired, "s", &text), 0);
        assert_string_equal(text, "org.example.Q");
        owner = call_driver(f, DBUS, "GetNameOwner", "org.example.Q");
        assert_int_equal(message_read(owner, "s", &text), 0);
        assert_string_equal(text, b.unique_name);
        client_close(&b);
}

static void test_name_owner_changed(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *signal = NULL;
        Client b;
        const char *name, *old_owner, *new_owner;

        client_add_match(&f->h, &f->a, "type='signal',member='NameOwnerChanged',arg0='org.example.W'");
        client_connect(&f->h, &b, false, true);
        assert_int_equal(request_name(f, &b, "org.example.W", 0), 1);
        signal = client_recv(&f->h, &f->a);
        assert_non_null(signal);
        assert_string_equal(message_get_member(signal), "NameOwnerChanged");
        assert_string_equal(message_get_sender(signal), DBUS);
        assert_int_equal(message_read(signal, "sss", &name, &old_owner, &new_owner), 0);
        assert_string_equal(name, "org.example.W");
        assert_string_equal(old_owner, "");
        assert_string_equal(new_owner, b.unique_name);
        signal = message_unref(signal);

        client_close(&b);
        signal = client_recv(&f->h, &f->a);
        assert_non_null(signal);
        assert_int_equal(message_read(signal, "sss", &name, &old_owner, &new_owner), 0);
        assert_string_equal(old_owner, b.unique_name);
        assert_string_equal(new_owner, "");
}

static void test_request_name_invalid(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *e1 = NULL, *e2 = NULL, *e3 = NULL;
        uint32_t serial;

        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "RequestName", "su", ":1.5", 0);
        e1 = client_wait_reply(&f->h, &f->a, serial);
        assert_error(e1, "org.freedesktop.DBus.Error.InvalidArgs",
                     "Cannot acquire a service starting with ':' such as \":1.5\"");
        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "RequestName", "su", DBUS, 0);
        e2 = client_wait_reply(&f->h, &f->a, serial);
        assert_error(e2, "org.freedesktop.DBus.Error.InvalidArgs", NULL);
        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "RequestName", "su", "no", 0);
        e3 = client_wait_reply(&f->h, &f->a, serial);
        assert_error(e3, "org.freedesktop.DBus.Error.InvalidArgs", NULL);
}

static void test_max_names(void **state) {
        Fixture f;
        _cleanup_(message_unrefp) Message *error = NULL;
        uint32_t serial;

        /* As in dbus-daemon, the unique name counts: 2 leaves room for one more. */
        harness_start(&f.h, CONFIG_HEAD CONFIG_POLICY
                      "<limit name=\"max_names_per_connection\">2</limit></busconfig>");
        client_connect(&f.h, &f.a, false, true);
        assert_int_equal(request_name(&f, &f.a, "org.example.One", 0), 1);
        serial = client_call(&f.h, &f.a, DBUS, DBUS_PATH, DBUS, "RequestName", "su", "org.example.Two", 0);
        error = client_wait_reply(&f.h, &f.a, serial);
        assert_error(error, "org.freedesktop.DBus.Error.LimitsExceeded", NULL);
        client_close(&f.a);
        harness_stop(&f.h);
}

static void test_name_lookups(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *e1 = NULL, *e2 = NULL, *has = NULL, *hasnt = NULL, *self = NULL;
        int b;
        const char *text;

        e1 = call_driver(f, DBUS, "GetNameOwner", "org.example.Nobody");
        assert_error(e1, "org.freedesktop.DBus.Error.NameHasNoOwner",
                     "Could not get owner of name 'org.example.Nobody': no such name");
        e2 = call_driver(f, DBUS, "GetConnectionUnixUser", "org.example.Nobody");
        assert_error(e2, "org.freedesktop.DBus.Error.NameHasNoOwner",
                     "Could not get UID of name 'org.example.Nobody': no such name");
        has = call_driver(f, DBUS, "NameHasOwner", f->a.unique_name);
        assert_int_equal(message_read(has, "b", &b), 0);
        assert_true(b);
        hasnt = call_driver(f, DBUS, "NameHasOwner", "org.example.Nobody");
        assert_int_equal(message_read(hasnt, "b", &b), 0);
        assert_false(b);
        self = call_driver(f, DBUS, "GetNameOwner", DBUS);
        assert_int_equal(message_read(self, "s", &text), 0);
        assert_string_equal(text, DBUS);
}

static void test_unix_user_and_pid(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *user = NULL, *pid = NULL;
        uint32_t value;

        user = call_driver(f, DBUS, "GetConnectionUnixUser", f->a.unique_name);
        assert_int_equal(message_read(user, "u", &value), 0);
        assert_int_equal(value, getuid());
        pid = call_driver(f, DBUS, "GetConnectionUnixProcessID", f->a.unique_name);
        assert_int_equal(message_read(pid, "u", &value), 0);
        assert_int_equal(value, getpid());
}

static void test_credentials(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL;
        MessageReader reader;
        bool have_uid = false, have_pid = false, have_groups = false;

        reply = call_driver(f, DBUS, "GetConnectionCredentials", f->a.unique_name);
        assert_non_null(reply);
        assert_string_equal(message_get_signature(reply), "a{sv}");
        message_reader_init(&reader, reply);
        assert_int_equal(message_reader_enter(&reader, 'a', "{sv}"), 0);
        while (!message_reader_at_end(&reader)) {
                const char *key;
                uint32_t value;

                assert_int_equal(message_reader_enter(&reader, 'e', "sv"), 0);
                assert_int_equal(message_reader_read_basic(&reader, 's', &key), 0);
                if (strcmp(key, "UnixUserID") == 0) {
                        assert_int_equal(message_reader_enter(&reader, 'v', "u"), 0);
                        assert_int_equal(message_reader_read_basic(&reader, 'u', &value), 0);
                        assert_int_equal(value, getuid());
                        have_uid = true;
                } else if (strcmp(key, "ProcessID") == 0) {
                        assert_int_equal(message_reader_enter(&reader, 'v', "u"), 0);
                        assert_int_equal(message_reader_read_basic(&reader, 'u', &value), 0);
                        assert_int_equal(value, getpid());
                        have_pid = true;
                } else if (strcmp(key, "UnixGroupIDs") == 0) {
                        assert_int_equal(message_reader_enter(&reader, 'v', "au"), 0);
                        have_groups = true;
                } else if (strcmp(key, "LinuxSecurityLabel") == 0) {
                        char type;

                        assert_int_equal(message_reader_enter(&reader, 'v', "ay"), 0);
                        assert_int_equal(message_reader_peek(&reader, &type), 'a');
                } else {
                        assert_int_equal(message_reader_skip(&reader), 0);
                        assert_int_equal(message_reader_exit(&reader), 0);
                        continue;
                }
                assert_int_equal(message_reader_exit(&reader), 0);      /* the variant */
                assert_int_equal(message_reader_exit(&reader), 0);      /* the entry */
        }
        assert_true(have_uid);
        assert_true(have_pid);
        assert_true(have_groups);
}

static void test_unknown_method_and_interface(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *e1 = NULL, *e2 = NULL, *e3 = NULL;
        uint32_t serial;

        e1 = call_driver(f, DBUS, "Foo", NULL);
        assert_error(e1, "org.freedesktop.DBus.Error.UnknownMethod",
                     "org.freedesktop.DBus does not understand message Foo");
        e2 = call_driver(f, "org.example.Nope", "Foo", NULL);
        assert_error(e2, "org.freedesktop.DBus.Error.UnknownInterface",
                     "org.freedesktop.DBus does not understand message Foo");
        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "GetNameOwner", "u", 5);
        e3 = client_wait_reply(&f->h, &f->a, serial);
        assert_error(e3, "org.freedesktop.DBus.Error.InvalidArgs",
                     "Call to GetNameOwner has wrong args (u, expected s)");
}

/*
 * A message of unknown type (parsed from bytes: nothing builds one) for
 * the driver: AccessDenied, as dbus-daemon answers; the peer stays.
 */
static void test_unknown_message_type(void **state) {
        static const uint8_t raw[32] = {
                'l', 7, 0, 1, 0, 0, 0, 0, 0x42, 0, 0, 0, 29, 0, 0, 0,
                6, 1, 's', 0, 20, 0, 0, 0, 'o', 'r', 'g', '.', 'f', 'r', 'e', 'e',
        };
        static const char rest[] = "desktop.DBus\0\0\0";
        _cleanup_(message_unrefp) Message *m = NULL, *error = NULL, *reply = NULL;
        Fixture *f = *state;
        uint8_t data[48];

        memcpy(data, raw, sizeof(raw));
        memcpy(data + sizeof(raw), rest, 16);
        assert_int_equal(message_parse(data, sizeof(data), NULL, 0, &m), 0);
        assert_int_equal(message_get_type(m), 7);
        client_send(&f->h, &f->a, m, NULL, 0);
        error = client_wait_reply(&f->h, &f->a, 0x42);
        assert_error(error, "org.freedesktop.DBus.Error.AccessDenied",
                     "Message bus will not accept messages of unknown type\n");
        reply = call_driver(f, NULL, "GetId", NULL);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
}

static void test_no_interface(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL;
        const char *id;

        reply = call_driver(f, NULL, "GetId", NULL);
        assert_non_null(reply);
        assert_int_equal(message_read(reply, "s", &id), 0);
        assert_int_equal(strlen(id), 32);
}

static void test_second_hello(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *error = NULL;

        error = call_driver(f, DBUS, "Hello", NULL);
        assert_error(error, "org.freedesktop.DBus.Error.Failed", "Already handled an Hello message");
}

static void test_match_errors(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *e1 = NULL, *e2 = NULL, *ok = NULL;

        e1 = call_driver(f, DBUS, "AddMatch", "type='nonsense'");
        assert_error(e1, "org.freedesktop.DBus.Error.MatchRuleInvalid", NULL);
        e2 = call_driver(f, DBUS, "RemoveMatch", "type='signal'");
        assert_error(e2, "org.freedesktop.DBus.Error.MatchRuleNotFound", NULL);
        client_add_match(&f->h, &f->a, "type='signal'");
        ok = call_driver(f, DBUS, "RemoveMatch", "type='signal'");
        assert_int_equal(message_get_type(ok), MESSAGE_METHOD_RETURN);
}

static void test_activation(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *error = NULL, *running = NULL, *names = NULL;
        uint32_t serial;

        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "StartServiceByName", "su", "org.x", 0);
        error = client_wait_reply(&f->h, &f->a, serial);
        assert_error(error, "org.freedesktop.DBus.Error.ServiceUnknown",
                     "The name org.x was not provided by any .service files");
        /* Owned but without a .service file: still unknown, as in dbus-daemon. */
        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, DBUS, "StartServiceByName", "su", DBUS, 0);
        running = client_wait_reply(&f->h, &f->a, serial);
        assert_error(running, "org.freedesktop.DBus.Error.ServiceUnknown", NULL);
        names = call_driver(f, DBUS, "ListActivatableNames", NULL);
        assert_true(list_contains(names, DBUS));
}

static void test_properties(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *interfaces = NULL, *e1 = NULL, *e2 = NULL, *all = NULL;
        MessageReader reader;
        const char *first;
        uint32_t serial;

        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, "org.freedesktop.DBus.Properties", "Get", "ss",
                             DBUS, "Interfaces");
        interfaces = client_wait_reply(&f->h, &f->a, serial);
        assert_non_null(interfaces);
        message_reader_init(&reader, interfaces);
        assert_int_equal(message_reader_enter(&reader, 'v', "as"), 0);
        assert_int_equal(message_reader_enter(&reader, 'a', "s"), 0);
        assert_int_equal(message_reader_read_basic(&reader, 's', &first), 0);
        assert_string_equal(first, "org.freedesktop.DBus.Monitoring");

        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, "org.freedesktop.DBus.Properties", "Get", "ss",
                             DBUS, "Nope");
        e1 = client_wait_reply(&f->h, &f->a, serial);
        assert_error(e1, "org.freedesktop.DBus.Error.UnknownProperty",
                     "Property \"org.freedesktop.DBus.Nope\" not found");
        serial = client_call(&f->h, &f->a, DBUS, DBUS_PATH, "org.freedesktop.DBus.Properties", "Get", "ss",
                             "org.x", "Features");
        e2 = client_wait_reply(&f->h, &f->a, serial);
        assert_error(e2, "org.freedesktop.DBus.Error.UnknownInterface", "Interface \"org.x\" not found");
        all = call_driver(f, "org.freedesktop.DBus.Properties", "GetAll", DBUS);
        assert_string_equal(message_get_signature(all), "a{sv}");
}

static void test_introspect_and_peer(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *xml = NULL, *id = NULL, *ping = NULL;
        const char *text;

        xml = call_driver(f, "org.freedesktop.DBus.Introspectable", "Introspect", NULL);
        assert_int_equal(message_read(xml, "s", &text), 0);
        assert_non_null(strstr(text, "<interface name=\"org.freedesktop.DBus\">"));
        assert_non_null(strstr(text, "<method name=\"GetConnectionCredentials\">"));
        assert_non_null(strstr(text, "org.freedesktop.DBus.Monitoring"));
        /* The canonical path is a leaf: no child that would make the tree endless. */
        assert_null(strstr(text, "<node name="));
        id = call_driver(f, "org.freedesktop.DBus.Peer", "GetMachineId", NULL);
        assert_int_equal(message_read(id, "s", &text), 0);
        assert_int_equal(strlen(text), 32);
        ping = call_driver(f, "org.freedesktop.DBus.Peer", "Ping", NULL);
        assert_int_equal(message_get_type(ping), MESSAGE_METHOD_RETURN);
}

static void test_introspect_tree(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *root = NULL, *org = NULL;
        const char *text;
        uint32_t serial;

        serial = client_call(&f->h, &f->a, DBUS, "/", "org.freedesktop.DBus.Introspectable", "Introspect", "");
        root = client_wait_reply(&f->h, &f->a, serial);
        assert_int_equal(message_read(root, "s", &text), 0);
        assert_non_null(strstr(text, "<node name=\"org/freedesktop/DBus\"/>"));
        assert_null(strstr(text, "org.freedesktop.DBus.Monitoring"));
        serial = client_call(&f->h, &f->a, DBUS, "/org", "org.freedesktop.DBus.Introspectable", "Introspect", "");
        org = client_wait_reply(&f->h, &f->a, serial);
        assert_int_equal(message_read(org, "s", &text), 0);
        assert_non_null(strstr(text, "<node name=\"freedesktop/DBus\"/>"));
}

static void test_adt_and_selinux(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *adt = NULL, *selinux = NULL;

        adt = call_driver(f, DBUS, "GetAdtAuditSessionData", f->a.unique_name);
        assert_error(adt, "org.freedesktop.DBus.Error.AdtAuditDataUnknown", NULL);
        selinux = call_driver(f, DBUS, "GetConnectionSELinuxSecurityContext", f->a.unique_name);
        assert_error(selinux, "org.freedesktop.DBus.Error.SELinuxSecurityContextUnknown", NULL);
}

static void test_update_activation_environment(void **state) {
        Fixture *f = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *reply = NULL;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 900), 0);
        assert_int_equal(message_builder_set_destination(b, DBUS), 0);
        assert_int_equal(message_builder_set_path(b, DBUS_PATH), 0);
        assert_int_equal(message_builder_set_interface(b, DBUS), 0);
        assert_int_equal(message_builder_set_member(b, "UpdateActivationEnvironment"), 0);
        assert_int_equal(message_builder_open(b, 'a', "{ss}"), 0);
        assert_int_equal(message_builder_open(b, 'e', "ss"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "FOO"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "bar"), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(&f->h, &f->a, m, NULL, 0);
        reply = client_wait_reply(&f->h, &f->a, 900);
        assert_non_null(reply);
        /* The test runs as the bus's own user, so it is privileged. */
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        assert_string_equal(activation_get_env(f->h.bus->activation->state)[0], "FOO=bar");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_request_name_and_queue, setup, teardown),
                cmocka_unit_test_setup_teardown(test_release_name_passes_to_queue, setup, teardown),
                cmocka_unit_test_setup_teardown(test_name_owner_changed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_request_name_invalid, setup, teardown),
                cmocka_unit_test(test_max_names),
                cmocka_unit_test_setup_teardown(test_name_lookups, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unix_user_and_pid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_credentials, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unknown_method_and_interface, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_interface, setup, teardown),
                cmocka_unit_test_setup_teardown(test_second_hello, setup, teardown),
                cmocka_unit_test_setup_teardown(test_match_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_activation, setup, teardown),
                cmocka_unit_test_setup_teardown(test_properties, setup, teardown),
                cmocka_unit_test_setup_teardown(test_introspect_and_peer, setup, teardown),
                cmocka_unit_test_setup_teardown(test_introspect_tree, setup, teardown),
                cmocka_unit_test_setup_teardown(test_adt_and_selinux, setup, teardown),
                cmocka_unit_test_setup_teardown(test_update_activation_environment, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unknown_message_type, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
