/*
 * Routing calls the property filter (broker/bus/dispatch.c, broker/propfilter):
 * a service owning a name a manifest declares, its protected properties
 * removed from GetAll and GetManagedObjects replies and PropertiesChanged
 * signals for a client without the token. There is no Smack here, so no
 * label holds any token: protected means hidden. argv[1] is the
 * mssf-policy binary that compiles the manifest.
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

#include "bus-harness.h"
#include "names.h"

#define CONFIG "<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen>" \
        "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>" \
        "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>"

#define NAME "org.mssf.Test"
#define PATH "/org/mssf/Test"
#define DEV "org.mssf.Test.Dev"
#define LOCKED "org.mssf.Test.Locked"
#define PROPERTIES "org.freedesktop.DBus.Properties"
#define OBJECT_MANAGER "org.freedesktop.DBus.ObjectManager"

/*
 * Dev: Open is open, Secret needs the token, anything else is not in the
 * manifest (hidden, as an undeclared method is denied). Locked: every
 * property needs it (the interface default). Other: not in the manifest.
 * Sig: Call open, signal Alarm needs the token, Tick open.
 */
static const char manifest[] =
        "<aegis><provide><credential name=\"Secret\"/>"
        "<dbus name=\"" NAME "\" own=\"SELF\" bus=\"system\"><node name=\"" PATH "\">"
        "<interface name=\"" DEV "\">"
        "<property name=\"Open\" access=\"read\"><annotation name=\"com.maemo.Aegis\" value=\"\"/></property>"
        "<property name=\"Secret\" access=\"read\">"
        "<annotation name=\"com.maemo.Aegis\" value=\"Secret\"/></property>"
        "</interface>"
        "<interface name=\"" LOCKED "\"><annotation name=\"com.maemo.Aegis\" value=\"Secret\"/>"
        "<property name=\"Hidden\" access=\"read\"/></interface>"
        "<interface name=\"" OBJECT_MANAGER "\"><method name=\"GetManagedObjects\">"
        "<annotation name=\"com.maemo.Aegis\" value=\"\"/></method></interface>"
        "<interface name=\"org.mssf.Test.Sig\"><method name=\"Call\">"
        "<annotation name=\"com.maemo.Aegis\" value=\"\"/></method>"
        "<signal name=\"Alarm\"><annotation name=\"com.maemo.Aegis\" value=\"Secret\"/></signal>"
        "<signal name=\"Tick\"><annotation name=\"com.maemo.Aegis\" value=\"\"/></signal>"
        "</interface>"
        "</node></dbus></provide></aegis>";

static const char *mssf_policy;
static char dir[] = "/tmp/mssf-pfroute-XXXXXX";
static char policy_path[600];

typedef struct Fixture {
        Harness h;
        Client service, app;
} Fixture;

/* Outside any test: plain returns, no cmocka assertions. */
static int compile_policy(void) {
        char path[700], cmd[2048];
        FILE *f;

        if (!mkdtemp(dir))
                return -1;
        snprintf(path, sizeof(path), "%s/manifests", dir);
        if (mkdir(path, 0755) < 0)
                return -1;
        snprintf(path, sizeof(path), "%s/manifests/svc.xml", dir);
        f = fopen(path, "w");
        if (!f)
                return -1;
        fputs(manifest, f);
        if (fclose(f) != 0)
                return -1;
        snprintf(policy_path, sizeof(policy_path), "%s/policy.db", dir);
        snprintf(cmd, sizeof(cmd), "%s compile --manifest-dir %s/manifests --output %s", mssf_policy, dir,
                 policy_path);
        return system(cmd) == 0 ? 0 : -1;
}

static void remove_policy(void) {
        char cmd[700];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * The service's name, put in the registry as RequestName would: without
 * Smack no connection is the package's label, so the manifest's "SELF"
 * lets nobody own it through the driver.
 */
static void own_name(Harness *h, Client *c, const char *name) {
        Peer *peer = bus_lookup_peer(h->bus, c->unique_name);
        NameChange change;
        uint32_t reply;

        assert_non_null(peer);
        assert_int_equal(names_request(h->bus->names, &peer->names, name, 0, 16, &change, &reply), 0);
        assert_int_equal(reply, 1);
        security_peer_names_changed(&peer->security);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        harness_start(&f->h, CONFIG);
        f->h.bus->security = security_free(f->h.bus->security);
        assert_int_equal(bus_setup_security(f->h.bus, policy_path), 0);
        assert_non_null(security_get_policy_db(f->h.bus->security));
        client_connect(&f->h, &f->service, false, true);
        client_connect(&f->h, &f->app, false, true);
        own_name(&f->h, &f->service, NAME);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        client_close(&f->service);
        client_close(&f->app);
        harness_pump(&f->h);
        harness_stop(&f->h);
        free(f);
        return 0;
}

/* The next message for c that is not a signal from the bus driver. */
static Message *recv_not_driver(Harness *h, Client *c) {
        for (;;) {
                Message *m = client_recv(h, c);
                const char *sender;

                if (!m)
                        return NULL;
                sender = message_get_sender(m);
                if (message_get_type(m) != MESSAGE_SIGNAL || !sender ||
                    strcmp(sender, "org.freedesktop.DBus") != 0)
                        return m;
                message_unref(m);
        }
}

/* Appends "name=Value" string properties from "A,B" to an open a{sv}. */
static void append_properties(MessageBuilder *b, const char *names) {
        char copy[256], *save = NULL;

        snprintf(copy, sizeof(copy), "%s", names);
        assert_int_equal(message_builder_open(b, 'a', "{sv}"), 0);
        for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
                assert_int_equal(message_builder_open(b, '{', "sv"), 0);
                assert_int_equal(message_builder_append_basic(b, 's', name), 0);
                assert_int_equal(message_builder_open(b, 'v', "s"), 0);
                assert_int_equal(message_builder_append_basic(b, 's', name), 0);
                assert_int_equal(message_builder_close(b), 0);
                assert_int_equal(message_builder_close(b), 0);
        }
        assert_int_equal(message_builder_close(b), 0);
}

/* "A,B" from the a{sv} at r (which it enters and leaves). */
static void read_keys(MessageReader *r, char *out, size_t size) {
        const char *key;
        char type;

        out[0] = '\0';
        assert_int_equal(message_reader_enter(r, 'a', "{sv}"), 0);
        while (message_reader_peek(r, &type) > 0) {
                assert_int_equal(message_reader_enter(r, '{', "sv"), 0);
                assert_int_equal(message_reader_read_basic(r, 's', &key), 0);
                assert_int_equal(message_reader_exit(r), 0);
                snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "," : "", key);
        }
        assert_int_equal(message_reader_exit(r), 0);
}

/* service answers call with a{sv} of properties. */
static void reply_properties(Harness *h, Client *service, Message *call, const char *properties) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *reply = NULL;

        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        append_properties(b, properties);
        assert_int_equal(message_builder_finish(b, &reply), 0);
        client_send(h, service, reply, NULL, 0);
}

/* app calls GetAll(interface) on the service; the service answers with properties. */
static Message *get_all(Fixture *f, Client *service, const char *destination, const char *interface,
                        const char *properties) {
        _cleanup_(message_unrefp) Message *call = NULL;
        uint32_t serial;

        serial = client_call(&f->h, &f->app, destination, PATH, PROPERTIES, "GetAll", "s", interface);
        call = recv_not_driver(&f->h, service);
        assert_non_null(call);
        assert_string_equal(message_get_member(call), "GetAll");
        reply_properties(&f->h, service, call, properties);
        return client_wait_reply(&f->h, &f->app, serial);
}

static void assert_keys(Message *m, const char *expected) {
        MessageReader r;
        char keys[256];

        assert_non_null(m);
        assert_int_equal(message_get_type(m), MESSAGE_METHOD_RETURN);
        assert_string_equal(message_get_signature(m), "a{sv}");
        message_reader_init(&r, m);
        read_keys(&r, keys, sizeof(keys));
        assert_string_equal(keys, expected);
}

static void test_get_all_protected_removed(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL;

        reply = get_all(f, &f->service, NAME, DEV, "Open,Secret,Extra");
        /* Extra: not in the manifest, so hidden; Secret: needs the token nobody holds here. */
        assert_keys(reply, "Open");
}

static void test_get_all_unprotected_intact(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *other = NULL, *by_unique = NULL, *everything = NULL;
        _cleanup_(message_unrefp) Message *none = NULL;
        uint32_t serial;

        /* An interface the manifest does not declare at that path: refused, never forwarded. */
        serial = client_call(&f->h, &f->app, NAME, PATH, PROPERTIES, "GetAll", "s", "org.mssf.Test.Other");
        other = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(other);
        assert_int_equal(message_get_type(other), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(other), "org.freedesktop.DBus.Error.AccessDenied");
        none = recv_not_driver(&f->h, &f->service);
        assert_null(none);
        /* Addressed by unique name: the same service, the same filter. */
        by_unique = get_all(f, &f->service, f->service.unique_name, DEV, "Open,Secret");
        assert_keys(by_unique, "Open");
        /*
         * GetAll(""): the interface is not known, so each property is asked
         * of every interface at the path; Locked's default covers them all.
         */
        everything = get_all(f, &f->service, NAME, "", "Open,Secret,Hidden");
        assert_keys(everything, "");
}

/* A service owning no declared name: its replies pass as sent. */
static void test_undeclared_service_untouched(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL;
        Client plain;

        client_connect(&f->h, &plain, false, true);
        own_name(&f->h, &plain, "org.mssf.Plain");
        reply = get_all(f, &plain, "org.mssf.Plain", DEV, "Open,Secret");
        assert_keys(reply, "Open,Secret");
        client_close(&plain);
}

/* A reply whose body does not fit GetAll: the caller gets AccessDenied, not silence. */
static void test_malformed_reply_denied(void **state) {
        Fixture *f = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *answer = NULL;
        uint32_t serial;

        serial = client_call(&f->h, &f->app, NAME, PATH, PROPERTIES, "GetAll", "s", DEV);
        call = recv_not_driver(&f->h, &f->service);
        assert_non_null(call);
        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        assert_int_equal(message_builder_append_basic(b, 's', "Secret"), 0);
        assert_int_equal(message_builder_finish(b, &reply), 0);
        client_send(&f->h, &f->service, reply, NULL, 0);
        answer = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(answer);
        assert_int_equal(message_get_type(answer), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(answer), "org.freedesktop.DBus.Error.AccessDenied");
        assert_int_equal(message_get_reply_serial(answer), serial);
}

static void emit_properties_changed(Fixture *f, const char *destination, const char *changed,
                                    const char *invalidated) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;

        assert_int_equal(message_new_signal(NULL, PATH, PROPERTIES, "PropertiesChanged", &b), 0);
        if (destination)
                assert_int_equal(message_builder_set_destination(b, destination), 0);
        assert_int_equal(message_builder_append_basic(b, 's', DEV), 0);
        append_properties(b, changed);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        if (invalidated[0])
                assert_int_equal(message_builder_append_basic(b, 's', invalidated), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(&f->h, &f->service, m, NULL, 0);
}

/* "changed|invalidated" of a PropertiesChanged signal. */
static void assert_changed(Message *m, const char *expected) {
        const char *interface, *name;
        MessageReader r;
        char keys[256], text[512] = "";
        char type;

        assert_non_null(m);
        assert_int_equal(message_get_type(m), MESSAGE_SIGNAL);
        assert_string_equal(message_get_member(m), "PropertiesChanged");
        message_reader_init(&r, m);
        assert_int_equal(message_reader_read_basic(&r, 's', &interface), 0);
        assert_string_equal(interface, DEV);
        read_keys(&r, keys, sizeof(keys));
        snprintf(text, sizeof(text), "%s|", keys);
        assert_int_equal(message_reader_enter(&r, 'a', "s"), 0);
        while (message_reader_peek(&r, &type) > 0) {
                assert_int_equal(message_reader_read_basic(&r, 's', &name), 0);
                snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", name);
        }
        assert_int_equal(message_reader_exit(&r), 0);
        assert_string_equal(text, expected);
}

static void test_properties_changed_filtered(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *first = NULL, *unicast = NULL, *none = NULL, *own = NULL;

        client_add_match(&f->h, &f->app, "type='signal',interface='" PROPERTIES "'");
        emit_properties_changed(f, NULL, "Open,Secret", "Secret");
        first = recv_not_driver(&f->h, &f->app);
        assert_changed(first, "Open|");

        /* Addressed to the app: filtered the same way. */
        emit_properties_changed(f, f->app.unique_name, "Secret,Open", "");
        unicast = recv_not_driver(&f->h, &f->app);
        assert_changed(unicast, "Open|");

        /* Nothing left for the app: no signal at all. */
        emit_properties_changed(f, NULL, "Secret", "Secret");
        emit_properties_changed(f, f->app.unique_name, "Secret", "");
        none = recv_not_driver(&f->h, &f->app);
        assert_null(none);

        /* The service hears itself unchanged. */
        client_add_match(&f->h, &f->service, "type='signal',interface='" PROPERTIES "'");
        emit_properties_changed(f, NULL, "Secret", "");
        own = recv_not_driver(&f->h, &f->service);
        assert_changed(own, "Secret|");
}

/* "/path:interface=A,B;interface=|/path2:" of a GetManagedObjects reply. */
static void read_objects(Message *m, char *out, size_t size) {
        const char *path, *interface;
        MessageReader r;
        char keys[256], type;

        out[0] = '\0';
        message_reader_init(&r, m);
        assert_int_equal(message_reader_enter(&r, 'a', "{oa{sa{sv}}}"), 0);
        while (message_reader_peek(&r, &type) > 0) {
                bool first = true;

                assert_int_equal(message_reader_enter(&r, '{', "oa{sa{sv}}"), 0);
                assert_int_equal(message_reader_read_basic(&r, 'o', &path), 0);
                snprintf(out + strlen(out), size - strlen(out), "%s%s:", out[0] ? "|" : "", path);
                assert_int_equal(message_reader_enter(&r, 'a', "{sa{sv}}"), 0);
                while (message_reader_peek(&r, &type) > 0) {
                        assert_int_equal(message_reader_enter(&r, '{', "sa{sv}"), 0);
                        assert_int_equal(message_reader_read_basic(&r, 's', &interface), 0);
                        read_keys(&r, keys, sizeof(keys));
                        snprintf(out + strlen(out), size - strlen(out), "%s%s=%s", first ? "" : ";",
                                 interface, keys);
                        first = false;
                        assert_int_equal(message_reader_exit(&r), 0);
                }
                assert_int_equal(message_reader_exit(&r), 0);
                assert_int_equal(message_reader_exit(&r), 0);
        }
        assert_int_equal(message_reader_exit(&r), 0);
}

static void append_interface(MessageBuilder *b, const char *interface, const char *properties) {
        assert_int_equal(message_builder_open(b, '{', "sa{sv}"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', interface), 0);
        append_properties(b, properties);
        assert_int_equal(message_builder_close(b), 0);
}

static void test_get_managed_objects_filtered(void **state) {
        Fixture *f = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *answer = NULL;
        char objects[512];
        uint32_t serial;

        serial = client_call(&f->h, &f->app, NAME, PATH, OBJECT_MANAGER, "GetManagedObjects", "");
        call = recv_not_driver(&f->h, &f->service);
        assert_non_null(call);
        assert_string_equal(message_get_member(call), "GetManagedObjects");
        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        assert_int_equal(message_builder_open(b, 'a', "{oa{sa{sv}}}"), 0);
        assert_int_equal(message_builder_open(b, '{', "oa{sa{sv}}"), 0);
        assert_int_equal(message_builder_append_basic(b, 'o', PATH), 0);
        assert_int_equal(message_builder_open(b, 'a', "{sa{sv}}"), 0);
        append_interface(b, DEV, "Open,Secret");
        append_interface(b, LOCKED, "Hidden");
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_finish(b, &reply), 0);
        client_send(&f->h, &f->service, reply, NULL, 0);

        answer = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(answer);
        assert_int_equal(message_get_type(answer), MESSAGE_METHOD_RETURN);
        read_objects(answer, objects, sizeof(objects));
        /* Locked is protected and shows nothing: gone with its property. */
        assert_string_equal(objects, PATH ":" DEV "=Open");
}

/* An eavesdropper gets the reply filtered for its own label. */
static void test_eavesdropper_filtered(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL, *copy = NULL;
        Client spy;

        client_connect(&f->h, &spy, false, true);
        client_add_match(&f->h, &spy, "eavesdrop='true',type='method_return'");
        reply = get_all(f, &f->service, NAME, DEV, "Open,Secret");
        assert_keys(reply, "Open");
        copy = recv_not_driver(&f->h, &spy);
        assert_keys(copy, "Open");
        client_close(&spy);
}

static void emit_interfaces_removed(Fixture *f, const char *interfaces[]) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;

        assert_int_equal(message_new_signal(NULL, "/", OBJECT_MANAGER, "InterfacesRemoved", &b), 0);
        assert_int_equal(message_builder_append_basic(b, 'o', PATH), 0);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        for (size_t i = 0; interfaces[i]; i++)
                assert_int_equal(message_builder_append_basic(b, 's', interfaces[i]), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(&f->h, &f->service, m, NULL, 0);
}

/* InterfacesRemoved loses the protected Locked for the app; with nothing left, no signal. */
static void test_interfaces_removed_filtered(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *some = NULL, *none = NULL;
        const char *both[] = { DEV, LOCKED, NULL }, *locked[] = { LOCKED, NULL };
        const char *path, *name;
        MessageReader r;
        char type;

        client_add_match(&f->h, &f->app, "type='signal',interface='" OBJECT_MANAGER "'");
        emit_interfaces_removed(f, both);
        some = recv_not_driver(&f->h, &f->app);
        assert_non_null(some);
        assert_string_equal(message_get_member(some), "InterfacesRemoved");
        message_reader_init(&r, some);
        assert_int_equal(message_reader_read_basic(&r, 'o', &path), 0);
        assert_string_equal(path, PATH);
        assert_int_equal(message_reader_enter(&r, 'a', "s"), 0);
        assert_int_equal(message_reader_read_basic(&r, 's', &name), 0);
        assert_string_equal(name, DEV);
        assert_int_equal(message_reader_peek(&r, &type), 0);
        emit_interfaces_removed(f, locked);
        none = recv_not_driver(&f->h, &f->app);
        assert_null(none);
}

/* BecomeMonitor with one rule (serial 50); its reply eaten. */
static void become_monitor(Harness *h, Client *monitor, const char *rule) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *become = NULL, *reply = NULL;
        uint32_t flags = 0;

        client_connect(h, monitor, false, true);
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 50), 0);
        assert_int_equal(message_builder_set_destination(b, "org.freedesktop.DBus"), 0);
        assert_int_equal(message_builder_set_path(b, "/org/freedesktop/DBus"), 0);
        assert_int_equal(message_builder_set_interface(b, "org.freedesktop.DBus.Monitoring"), 0);
        assert_int_equal(message_builder_set_member(b, "BecomeMonitor"), 0);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        assert_int_equal(message_builder_append_basic(b, 's', rule), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &flags), 0);
        assert_int_equal(message_builder_finish(b, &become), 0);
        client_send(h, monitor, become, NULL, 0);
        reply = client_wait_reply(h, monitor, 50);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
}

/* The next message for c whose member (or, for a reply, reply serial) is as given; NULL if none. */
static Message *recv_member(Harness *h, Client *c, const char *member) {
        for (;;) {
                Message *m = client_recv(h, c);
                const char *mm;

                if (!m)
                        return NULL;
                mm = message_get_member(m);
                if (mm && strcmp(mm, member) == 0)
                        return m;
                message_unref(m);
        }
}

/*
 * A monitor gets what it could have received as the recipient: the
 * service's PropertiesChanged with the protected property removed, none
 * at all when nothing is left.
 */
static void test_monitor_filtered(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *copy = NULL, *none = NULL, *app_none = NULL;
        Client monitor;

        become_monitor(&f->h, &monitor, "type='signal',member='PropertiesChanged'");
        client_add_match(&f->h, &f->app, "type='signal',interface='" PROPERTIES "'");
        emit_properties_changed(f, NULL, "Open,Secret", "Secret");
        copy = recv_not_driver(&f->h, &monitor);
        assert_changed(copy, "Open|");
        emit_properties_changed(f, NULL, "Secret", "");
        none = recv_not_driver(&f->h, &monitor);
        assert_null(none);
        message_unref(recv_not_driver(&f->h, &f->app));
        app_none = recv_not_driver(&f->h, &f->app);
        assert_null(app_none);
        client_close(&monitor);
}

/* A monitor sees a GetAll reply filtered for its own label, as an eavesdropper does. */
static void test_monitor_reply_filtered(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *reply = NULL, *copy = NULL;
        Client monitor;

        become_monitor(&f->h, &monitor, "type='method_return'");
        reply = get_all(f, &f->service, NAME, DEV, "Open,Secret");
        assert_keys(reply, "Open");
        copy = recv_not_driver(&f->h, &monitor);
        while (copy && message_get_sender(copy) && strcmp(message_get_sender(copy), "org.freedesktop.DBus") == 0)
                copy = (message_unref(copy), recv_not_driver(&f->h, &monitor));
        assert_keys(copy, "Open");
        client_close(&monitor);
}

static void emit_signal(Fixture *f, const char *member) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;

        assert_int_equal(message_new_signal(NULL, PATH, "org.mssf.Test.Sig", member, &b), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(&f->h, &f->service, m, NULL, 0);
}

/*
 * Signal tokens: without Smack nobody holds Secret, so the monitor (and
 * an eavesdropper) never see Alarm; the open Tick they see.
 */
static void test_observers_need_signal_tokens(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *tick = NULL, *spy_tick = NULL;
        Client monitor, spy;

        become_monitor(&f->h, &monitor, "type='signal',interface='org.mssf.Test.Sig'");
        client_connect(&f->h, &spy, false, true);
        client_add_match(&f->h, &spy, "eavesdrop='true',type='signal',interface='org.mssf.Test.Sig'");
        emit_signal(f, "Alarm");
        emit_signal(f, "Tick");
        tick = recv_not_driver(&f->h, &monitor);
        assert_non_null(tick);
        assert_string_equal(message_get_member(tick), "Tick");
        spy_tick = recv_not_driver(&f->h, &spy);
        assert_non_null(spy_tick);
        assert_string_equal(message_get_member(spy_tick), "Tick");
        client_close(&monitor);
        client_close(&spy);
}

/*
 * Denied messages are copied to no one under MSSF mediation (a compiled
 * policy, here without Smack): a call the manifest does not declare
 * reaches neither the service nor the monitor nor an eavesdropper (nor
 * does the caller's AccessDenied: tests/security, test-observer-routing).
 * An observer learns nothing of what the policy refused, failing closed;
 * without any policy monitors see both, as dbus-daemon's do (dbus-tests
 * /monitor/forbidden*, tests/bus).
 */
static void test_denied_not_observed(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *error = NULL, *seen = NULL, *spied = NULL, *none = NULL,
                                          *allowed = NULL, *call = NULL, *refusal = NULL;
        Client monitor, spy, errors;
        uint32_t serial;

        become_monitor(&f->h, &monitor, "type='method_call',interface='org.mssf.Test.Sig'");
        become_monitor(&f->h, &errors, "type='error'");
        client_connect(&f->h, &spy, false, true);
        client_add_match(&f->h, &spy, "eavesdrop='true',type='method_call',interface='org.mssf.Test.Sig'");
        serial = client_call(&f->h, &f->app, NAME, PATH, "org.mssf.Test.Sig", "Undeclared", "");
        error = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(error);
        assert_string_equal(message_get_error_name(error), "org.freedesktop.DBus.Error.AccessDenied");
        seen = recv_member(&f->h, &monitor, "Undeclared");
        assert_null(seen);
        spied = recv_member(&f->h, &spy, "Undeclared");
        assert_null(spied);
        none = recv_not_driver(&f->h, &f->service);
        assert_null(none);
        refusal = recv_not_driver(&f->h, &errors);
        assert_null(refusal);
        client_close(&errors);

        /* The declared Call passes, and both observers see it. */
        client_call(&f->h, &f->app, NAME, PATH, "org.mssf.Test.Sig", "Call", "");
        call = recv_not_driver(&f->h, &f->service);
        assert_non_null(call);
        allowed = recv_member(&f->h, &monitor, "Call");
        assert_non_null(allowed);
        message_unref(allowed);
        allowed = recv_member(&f->h, &spy, "Call");
        assert_non_null(allowed);
        client_close(&monitor);
        client_close(&spy);
}

/* The service answers call with a method return of the given serial. */
static void reply_with_serial(Harness *h, Client *service, Message *call, uint32_t serial) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *reply = NULL;

        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        assert_int_equal(message_builder_finish(b, &reply), 0);
        client_send(h, service, reply, NULL, 0);
}

/*
 * Under MSSF mediation (here a compiled policy, no Smack) only requested
 * replies are delivered, although this busconfig's eavesdrop="true" allow
 * rules would admit unrequested ones (as session.conf does): a second
 * answer to the same call is refused with AccessDenied to the replier and
 * never reaches the caller, whose library would take any reply carrying
 * a pending serial as its answer: anyone who may write to the caller
 * could forge the service's reply.
 */
static void test_unrequested_reply_refused(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *second = NULL, *refusal = NULL;
        uint32_t serial;

        serial = client_call(&f->h, &f->app, NAME, PATH, "org.mssf.Test.Sig", "Call", "");
        call = recv_not_driver(&f->h, &f->service);
        assert_non_null(call);
        reply_with_serial(&f->h, &f->service, call, 900);
        reply = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        reply_with_serial(&f->h, &f->service, call, 901);
        refusal = client_wait_reply(&f->h, &f->service, 901);
        assert_non_null(refusal);
        assert_string_equal(message_get_error_name(refusal), "org.freedesktop.DBus.Error.AccessDenied");
        second = recv_not_driver(&f->h, &f->app);
        assert_null(second);
}

/*
 * A GetAll forwarded while the callee held no declared name: its reply is
 * filtered all the same once the callee has acquired one (decided when the
 * reply arrives), whether it owns the name or waits in its queue.
 */
static void test_reply_filtered_by_late_name(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *call2 = NULL, *reply2 = NULL;
        Client late;
        Peer *peer;
        NameChange change;
        uint32_t serial, result;

        client_connect(&f->h, &late, false, true);
        serial = client_call(&f->h, &f->app, late.unique_name, PATH, PROPERTIES, "GetAll", "s", DEV);
        call = recv_not_driver(&f->h, &late);
        assert_non_null(call);
        /* Meanwhile late queues for the declared name (the service owns it). */
        peer = bus_lookup_peer(f->h.bus, late.unique_name);
        assert_int_equal(names_request(f->h.bus->names, &peer->names, NAME, 0, 16, &change, &result), 0);
        assert_int_equal(result, 2);
        security_peer_names_changed(&peer->security);
        reply_properties(&f->h, &late, call, "Open,Secret");
        reply = client_wait_reply(&f->h, &f->app, serial);
        assert_keys(reply, "Open");

        /* Without any declared name by reply time, the reply passes as sent. */
        client_close(&late);
        harness_pump(&f->h);
        client_connect(&f->h, &late, false, true);
        serial = client_call(&f->h, &f->app, late.unique_name, PATH, PROPERTIES, "GetAll", "s", DEV);
        call2 = recv_not_driver(&f->h, &late);
        assert_non_null(call2);
        reply_properties(&f->h, &late, call2, "Open,Secret");
        reply2 = client_wait_reply(&f->h, &f->app, serial);
        assert_keys(reply2, "Open,Secret");
        client_close(&late);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_get_all_protected_removed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_get_all_unprotected_intact, setup, teardown),
                cmocka_unit_test_setup_teardown(test_undeclared_service_untouched, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_reply_denied, setup, teardown),
                cmocka_unit_test_setup_teardown(test_properties_changed_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_get_managed_objects_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_eavesdropper_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_interfaces_removed_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_monitor_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_monitor_reply_filtered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_observers_need_signal_tokens, setup, teardown),
                cmocka_unit_test_setup_teardown(test_denied_not_observed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unrequested_reply_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reply_filtered_by_late_name, setup, teardown),
        };
        int failed;

        if (argc < 2) {
                fprintf(stderr, "usage: %s MSSF-POLICY\n", argv[0]);
                return 1;
        }
        mssf_policy = argv[1];
        if (compile_policy() < 0) {
                fprintf(stderr, "could not compile the test manifest with %s\n", mssf_policy);
                remove_policy();
                return 1;
        }
        failed = cmocka_run_group_tests(tests, NULL, NULL);
        remove_policy();
        return failed;
}
