/*
 * Routing with Smack, against a label with Smack reach but no token that
 * tries to see, forge or reach what a token guards, or to knock a peer
 * off the bus: a real Bus in the test process (tests/broker/bus-harness.c),
 * peers labelled through a wrapped getsockopt(SO_PEERSEC), the fake
 * smackfs of tests/smack as the kernel, and a policy compiled by
 * mssf-policy from a manifest. What is checked:
 *  - an observer (monitor, eavesdropper) gets a copy of a reply only if it
 *    holds every token the call needed (kept in the reply slot): a
 *    protected method's reply and a Properties.Get reply are withheld from
 *    a monitor label without the token, shown to one with it; an open
 *    call's reply is shown to both; the record survives the service
 *    releasing its declared name mid-call and a monitor joining mid-call;
 *  - a call may not reuse the serial of a pending one when it needs a
 *    token (its reply would take the older call's record);
 *  - a service that released its declared name is still judged by it
 *    when called by its unique name;
 *  - Peer: only Ping and GetMachineId pass under a declared name;
 *  - a unicast signal to the declared service is judged as a call of its
 *    member: delivered only with the method's token, never when no
 *    method covers it; a broadcast one is the service's match rules' business;
 *  - the bus's AccessDenied answers are copied to no observer;
 *  - a call or a reply carrying a descriptor its recipient's label could
 *    not receive (a file labelled "filelab", no rule to it) is refused
 *    with AccessDenied naming both labels and the descriptor, the
 *    recipient stays connected, a refused reply's caller is told and its
 *    slot freed; one it may receive, one whose label cannot be read, and
 *    any for a recipient that held CAP_MAC_OVERRIDE are delivered.
 * argv[1] is the mssf-policy binary.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "bus-harness.h"
#include "fake-smackfs.h"
#include "creds-caps.h"
#include "security.h"
#include "smack-oracle.h"

#define NAME "org.mssf.Obs"
#define PATH "/org/mssf/Obs"
#define IFACE "org.mssf.Obs"
#define PROPERTIES "org.freedesktop.DBus.Properties"
#define CONFIG "<busconfig><type>system</type><listen>unix:tmpdir=/tmp</listen>" \
        "<policy context=\"default\"><allow user=\"*\"/><allow send_destination=\"*\" eavesdrop=\"true\"/>" \
        "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>"

static const char manifest[] =
        "<aegis><provide><credential name=\"Control\"/><credential name=\"Read\"/>"
        "<dbus name=\"" NAME "\" own=\"SELF\" bus=\"system\"><node name=\"" PATH "\">"
        "<interface name=\"" IFACE "\">"
        "<method name=\"Guarded\"><annotation name=\"com.maemo.Aegis\" value=\"Control\"/></method>"
        "<method name=\"Open\"><annotation name=\"com.maemo.Aegis\" value=\"\"/></method>"
        "<property name=\"Secret\" access=\"read\"><annotation name=\"com.maemo.Aegis\" value=\"Read\"/></property>"
        "<property name=\"Plain\" access=\"read\"><annotation name=\"com.maemo.Aegis\" value=\"\"/></property>"
        "</interface></node></dbus></provide></aegis>";

/* The kernel: who reaches whom, who holds which token. */
static const char *const kernel_rules[][2] = {
        { "app", "svc" }, { "svc", "app" }, { "holder", "svc" }, { "svc", "holder" },
        { "svc", "mon" }, { "svc", "mon2" }, { "app", "mon" }, { "holder", "mon" }, { "holder", "mon2" },
        { "holder", "svc::Control" }, { "holder", "svc::Read" },
        { "mon2", "svc::Control" }, { "mon2", "svc::Read" },
};

static const char *mssf_policy;
static char dir[] = "/tmp/mssf-obsroute-XXXXXX";
static char policy_path[600];
static const char *next_label = "app";

int __real_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len);

/* SO_PEERSEC of the connection being accepted: next_label, NUL included as Smack gives it. */
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
        size_t size = strlen(next_label) + 1;

        if (level != SOL_SOCKET || name != SO_PEERSEC)
                return __real_getsockopt(fd, level, name, value, len);
        if (*len < size) {
                *len = size;
                errno = ERANGE;
                return -1;
        }
        memcpy(value, next_label, size);
        *len = size;
        return 0;
}

typedef struct Fixture {
        Harness h;
        FakeSmackfs *fake;
        Client svc, app, holder;
} Fixture;

static int write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "w");

        if (!f)
                return -1;
        fputs(text, f);
        return fclose(f) == 0 ? 0 : -1;
}

/* Outside any test: plain returns, no cmocka assertions. */
static int compile_policy(void) {
        char path[700], cmd[2400];

        if (!mkdtemp(dir))
                return -1;
        snprintf(path, sizeof(path), "%s/manifests", dir);
        if (mkdir(path, 0755) < 0)
                return -1;
        snprintf(path, sizeof(path), "%s/manifests/svc.xml", dir);
        if (write_file(path, manifest) < 0)
                return -1;
        snprintf(path, sizeof(path), "%s/device-policy.conf", dir);
        if (write_file(path, "origin *\nmonitor mon mon2\n") < 0)
                return -1;
        snprintf(policy_path, sizeof(policy_path), "%s/policy.db", dir);
        snprintf(cmd, sizeof(cmd), "%s compile --device-policy %s --manifest-dir %s/manifests --output %s",
                 mssf_policy, path, dir, policy_path);
        return system(cmd) == 0 ? 0 : -1;
}

static void connect_as(Fixture *f, Client *c, const char *label) {
        next_label = label;
        client_connect(&f->h, c, false, true);
}

/* RequestName (DO_NOT_QUEUE) or ReleaseName of the service's name, answered. */
static Message *name_call(Fixture *f, Client *c, const char *member) {
        uint32_t serial = strcmp(member, "RequestName") == 0
                ? client_call(&f->h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              member, "su", NAME, (uint32_t) 4)
                : client_call(&f->h, c, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              member, "s", NAME);

        return client_wait_reply(&f->h, c, serial);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        char err[512] = "";
        _cleanup_(message_unrefp) Message *owned = NULL;

        assert_non_null(f);
        f->fake = fake_smackfs_new(true);
        for (size_t i = 0; i < ELEMENTSOF(kernel_rules); i++)
                fake_smackfs_grant(f->fake, kernel_rules[i][0], kernel_rules[i][1], "w");
        harness_start(&f->h, CONFIG);
        f->h.bus->security = security_free(f->h.bus->security);
        assert_int_equal(security_new(f->h.bus->config, 0, policy_path, f->fake->dir, &f->h.bus->security,
                                      NULL, err, sizeof(err)), 0);
        assert_true(security_has_smack(f->h.bus->security));
        connect_as(f, &f->svc, "svc");
        connect_as(f, &f->app, "app");
        connect_as(f, &f->holder, "holder");
        owned = name_call(f, &f->svc, "RequestName");
        assert_non_null(owned);
        assert_int_equal(message_get_type(owned), MESSAGE_METHOD_RETURN);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        client_close(&f->svc);
        client_close(&f->app);
        client_close(&f->holder);
        harness_pump(&f->h);
        harness_stop(&f->h);
        fake_smackfs_free(f->fake);
        free(f);
        return 0;
}

/* The next message for c that is not from the bus driver, or NULL. */
static Message *recv_not_driver(Harness *h, Client *c) {
        for (;;) {
                Message *m = client_recv(h, c);
                const char *sender;

                if (!m)
                        return NULL;
                sender = message_get_sender(m);
                if (!sender || strcmp(sender, "org.freedesktop.DBus") != 0)
                        return m;
                message_unref(m);
        }
}

static void become_monitor(Fixture *f, Client *monitor, const char *label) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *become = NULL, *reply = NULL;
        uint32_t flags = 0;

        connect_as(f, monitor, label);
        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 50), 0);
        assert_int_equal(message_builder_set_destination(b, "org.freedesktop.DBus"), 0);
        assert_int_equal(message_builder_set_path(b, "/org/freedesktop/DBus"), 0);
        assert_int_equal(message_builder_set_interface(b, "org.freedesktop.DBus.Monitoring"), 0);
        assert_int_equal(message_builder_set_member(b, "BecomeMonitor"), 0);
        assert_int_equal(message_builder_open(b, 'a', "s"), 0);
        assert_int_equal(message_builder_close(b), 0);
        assert_int_equal(message_builder_append_basic(b, 'u', &flags), 0);
        assert_int_equal(message_builder_finish(b, &become), 0);
        client_send(&f->h, monitor, become, NULL, 0);
        reply = client_wait_reply(&f->h, monitor, 50);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
}

/* The service answers call with one string. */
static void answer(Fixture *f, Message *call, const char *text) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *reply = NULL;

        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        assert_int_equal(message_builder_append_basic(b, 's', text), 0);
        assert_int_equal(message_builder_finish(b, &reply), 0);
        client_send(&f->h, &f->svc, reply, NULL, 0);
}

/* Counts what observer received, by type: calls of member and replies with text. */
static void observed(Fixture *f, Client *observer, const char *member, const char *text, int *calls,
                     int *replies) {
        Message *m;

        *calls = *replies = 0;
        while ((m = recv_not_driver(&f->h, observer))) {
                const char *s = NULL;

                if (message_get_type(m) == MESSAGE_METHOD_CALL && message_get_member(m) &&
                    strcmp(message_get_member(m), member) == 0)
                        (*calls)++;
                if (message_get_type(m) == MESSAGE_METHOD_RETURN && message_get_signature(m) &&
                    strcmp(message_get_signature(m), "s") == 0 && message_read(m, "s", &s) == 0 &&
                    strcmp(s, text) == 0)
                        (*replies)++;
                message_unref(m);
        }
}

/* caller calls IFACE.member; the service answers text; the caller gets it. */
static void call_answered(Fixture *f, Client *caller, const char *interface, const char *member,
                          const char *text, const char *signature, const char *arg0, const char *arg1) {
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL;
        uint32_t serial = signature ? client_call(&f->h, caller, NAME, PATH, interface, member, signature, arg0, arg1)
                                    : client_call(&f->h, caller, NAME, PATH, interface, member, "");
        const char *got;

        call = recv_not_driver(&f->h, &f->svc);
        assert_non_null(call);
        assert_string_equal(message_get_member(call), member);
        answer(f, call, text);
        reply = client_wait_reply(&f->h, caller, serial);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
        assert_int_equal(message_read(reply, "s", &got), 0);
        assert_string_equal(got, text);
}

static void test_monitor_replies(void **state) {
        Fixture *f = *state;
        Client mon, mon2;
        int calls, replies;

        become_monitor(f, &mon, "mon");
        become_monitor(f, &mon2, "mon2");
        /* A protected method: the call is the holder's to show, the reply needed Control. */
        call_answered(f, &f->holder, IFACE, "Guarded", "position", NULL, NULL, NULL);
        observed(f, &mon, "Guarded", "position", &calls, &replies);
        assert_int_equal(calls, 1);
        assert_int_equal(replies, 0);
        observed(f, &mon2, "Guarded", "position", &calls, &replies);
        assert_int_equal(calls, 1);
        assert_int_equal(replies, 1);
        /* A protected property's value. */
        call_answered(f, &f->holder, PROPERTIES, "Get", "secret-value", "ss", IFACE, "Secret");
        observed(f, &mon, "Get", "secret-value", &calls, &replies);
        assert_int_equal(replies, 0);
        observed(f, &mon2, "Get", "secret-value", &calls, &replies);
        assert_int_equal(replies, 1);
        /* Open ones: both see the reply (the app's call only mon: no Smack rule app -> mon2). */
        call_answered(f, &f->app, IFACE, "Open", "open-value", NULL, NULL, NULL);
        observed(f, &mon, "Open", "open-value", &calls, &replies);
        assert_int_equal(calls, 1);
        assert_int_equal(replies, 1);
        observed(f, &mon2, "Open", "open-value", &calls, &replies);
        assert_int_equal(calls, 0);
        assert_int_equal(replies, 1);
        call_answered(f, &f->holder, PROPERTIES, "Get", "plain-value", "ss", IFACE, "Plain");
        observed(f, &mon, "Get", "plain-value", &calls, &replies);
        assert_int_equal(replies, 1);
        client_close(&mon);
        client_close(&mon2);
}

static void test_eavesdropper_replies(void **state) {
        Fixture *f = *state;
        Client spy;
        int calls, replies;

        connect_as(f, &spy, "mon");
        client_add_match(&f->h, &spy, "eavesdrop='true',type='method_return'");
        call_answered(f, &f->holder, IFACE, "Guarded", "position", NULL, NULL, NULL);
        call_answered(f, &f->holder, IFACE, "Open", "open-value", NULL, NULL, NULL);
        observed(f, &spy, "-", "position", &calls, &replies);
        assert_int_equal(replies, 0);
        call_answered(f, &f->holder, IFACE, "Open", "open-value", NULL, NULL, NULL);
        observed(f, &spy, "-", "open-value", &calls, &replies);
        assert_int_equal(replies, 1);
        client_close(&spy);
}

/* What decided the call stays with it: a monitor joining, the name released, before the reply. */
static void test_record_outlives_changes(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *call = NULL, *reply = NULL, *released = NULL, *call2 = NULL;
        _cleanup_(message_unrefp) Message *reply2 = NULL;
        Client mon;
        uint32_t serial;
        int calls, replies;

        serial = client_call(&f->h, &f->holder, NAME, PATH, IFACE, "Guarded", "");
        call = recv_not_driver(&f->h, &f->svc);
        assert_non_null(call);
        become_monitor(f, &mon, "mon");
        answer(f, call, "late");
        reply = client_wait_reply(&f->h, &f->holder, serial);
        assert_non_null(reply);
        observed(f, &mon, "Guarded", "late", &calls, &replies);
        assert_int_equal(replies, 0);

        serial = client_call(&f->h, &f->holder, NAME, PATH, IFACE, "Guarded", "");
        call2 = recv_not_driver(&f->h, &f->svc);
        assert_non_null(call2);
        released = name_call(f, &f->svc, "ReleaseName");
        assert_non_null(released);
        assert_int_equal(message_get_type(released), MESSAGE_METHOD_RETURN);
        answer(f, call2, "after-release");
        reply2 = client_wait_reply(&f->h, &f->holder, serial);
        assert_non_null(reply2);
        observed(f, &mon, "Guarded", "after-release", &calls, &replies);
        assert_int_equal(replies, 0);
        client_close(&mon);
}

/* Protection follows the connection: after ReleaseName its unique name is still judged by the manifest. */
static void test_released_name_still_protected(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *released = NULL, *denied = NULL, *none = NULL;
        uint32_t serial;

        released = name_call(f, &f->svc, "ReleaseName");
        assert_non_null(released);
        assert_int_equal(message_get_type(released), MESSAGE_METHOD_RETURN);
        serial = client_call(&f->h, &f->app, f->svc.unique_name, PATH, IFACE, "Guarded", "");
        denied = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(denied);
        assert_int_equal(message_get_type(denied), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(denied), "org.freedesktop.DBus.Error.AccessDenied");
        none = recv_not_driver(&f->h, &f->svc);
        assert_null(none);
        /* The holder still may. */
        serial = client_call(&f->h, &f->holder, f->svc.unique_name, PATH, IFACE, "Guarded", "");
        none = recv_not_driver(&f->h, &f->svc);
        assert_non_null(none);
        assert_string_equal(message_get_member(none), "Guarded");
}

static Message *call_with_serial(Fixture *f, Client *c, uint32_t serial, const char *member) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        Message *m = NULL;

        assert_int_equal(message_builder_new(MESSAGE_METHOD_CALL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, serial), 0);
        assert_int_equal(message_builder_set_destination(b, NAME), 0);
        assert_int_equal(message_builder_set_path(b, PATH), 0);
        assert_int_equal(message_builder_set_interface(b, IFACE), 0);
        assert_int_equal(message_builder_set_member(b, member), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(&f->h, c, m, NULL, 0);
        return m;
}

/* A protected call may not reuse the serial of a pending one: its reply would take the older record. */
static void test_serial_reuse(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *open = NULL, *guarded = NULL, *refused = NULL, *forwarded = NULL;
        _cleanup_(message_unrefp) Message *none = NULL;

        open = call_with_serial(f, &f->holder, 900, "Open");
        forwarded = recv_not_driver(&f->h, &f->svc);
        assert_non_null(forwarded);
        guarded = call_with_serial(f, &f->holder, 900, "Guarded");
        refused = client_wait_reply(&f->h, &f->holder, 900);
        assert_non_null(refused);
        assert_int_equal(message_get_type(refused), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(refused), "org.freedesktop.DBus.Error.AccessDenied");
        none = recv_not_driver(&f->h, &f->svc);
        assert_null(none);
}

/* Whether the service receives what c sends (nothing else pending). */
static bool reaches_service(Fixture *f, Client *c, uint8_t type, const char *interface, const char *member) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL, *got = NULL;

        assert_int_equal(message_builder_new(type, &b), 0);
        assert_int_equal(message_builder_set_serial(b, ++c->serial), 0);
        assert_int_equal(message_builder_set_destination(b, NAME), 0);
        assert_int_equal(message_builder_set_path(b, PATH), 0);
        assert_int_equal(message_builder_set_interface(b, interface), 0);
        assert_int_equal(message_builder_set_member(b, member), 0);
        if (type == MESSAGE_SIGNAL)
                assert_int_equal(message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED), 0);
        assert_int_equal(message_builder_finish(b, &m), 0);
        client_send(&f->h, c, m, NULL, 0);
        harness_pump(&f->h);
        got = recv_not_driver(&f->h, &f->svc);
        while (recv_not_driver(&f->h, c))
                ;
        return got && strcmp(message_get_member(got), member) == 0;
}

static void test_peer_and_unicast_signals(void **state) {
        Fixture *f = *state;

        assert_true(reaches_service(f, &f->app, MESSAGE_METHOD_CALL, "org.freedesktop.DBus.Peer", "Ping"));
        assert_true(reaches_service(f, &f->app, MESSAGE_METHOD_CALL, "org.freedesktop.DBus.Peer", "GetMachineId"));
        assert_false(reaches_service(f, &f->holder, MESSAGE_METHOD_CALL, "org.freedesktop.DBus.Peer", "Guarded"));
        assert_false(reaches_service(f, &f->holder, MESSAGE_METHOD_CALL, "org.freedesktop.DBus.Peer", "Get"));
        /* Signals addressed to the service: judged as calls of their member. */
        assert_false(reaches_service(f, &f->app, MESSAGE_SIGNAL, IFACE, "Guarded"));
        assert_true(reaches_service(f, &f->holder, MESSAGE_SIGNAL, IFACE, "Guarded"));
        assert_true(reaches_service(f, &f->app, MESSAGE_SIGNAL, IFACE, "Open"));
        assert_false(reaches_service(f, &f->holder, MESSAGE_SIGNAL, IFACE, "Poke"));
        assert_false(reaches_service(f, &f->holder, MESSAGE_SIGNAL, "org.example.Other", "Open"));
}

/* Counts the bus's errors named error that observer received (every other message dropped). */
static int driver_errors(Fixture *f, Client *observer, const char *error) {
        Message *m;
        int n = 0;

        while ((m = client_recv(&f->h, observer))) {
                if (message_get_type(m) == MESSAGE_ERROR && message_get_error_name(m) &&
                    strcmp(message_get_error_name(m), error) == 0)
                        n++;
                message_unref(m);
        }
        return n;
}

/*
 * The bus's refusals reach only the peer refused: a denied call is copied
 * to no observer, nor is the AccessDenied that answers it (its text names
 * the caller's label, the destination and the member). The bus's other
 * errors (here ServiceUnknown, which any label can get by asking) are
 * still copied, so the monitor does receive the driver's messages.
 */
static void test_denials_not_observed(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *denied = NULL, *unknown = NULL;
        Client mon;
        uint32_t serial;

        become_monitor(f, &mon, "mon");
        (void) driver_errors(f, &mon, "-");
        serial = client_call(&f->h, &f->app, NAME, PATH, IFACE, "Guarded", "");
        denied = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(denied);
        assert_string_equal(message_get_error_name(denied), "org.freedesktop.DBus.Error.AccessDenied");
        serial = client_call(&f->h, &f->app, "org.mssf.Nobody", PATH, IFACE, "Open", "");
        unknown = client_wait_reply(&f->h, &f->app, serial);
        assert_non_null(unknown);
        assert_string_equal(message_get_error_name(unknown), "org.freedesktop.DBus.Error.ServiceUnknown");
        harness_pump(&f->h);
        assert_int_equal(driver_errors(f, &mon, "org.freedesktop.DBus.Error.ServiceUnknown"), 1);
        serial = client_call(&f->h, &f->app, NAME, PATH, IFACE, "Guarded", "");
        message_unref(client_wait_reply(&f->h, &f->app, serial));
        harness_pump(&f->h);
        assert_int_equal(driver_errors(f, &mon, "org.freedesktop.DBus.Error.AccessDenied"), 0);
        client_close(&mon);
}

/* A file in the test directory labelled label (NULL: none), opened read-only; -1 where xattrs cannot be set. */
static int labelled_file(const char *name, const char *label) {
        char path[700];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        if (label && setxattr(path, "security.SMACK64", label, strlen(label), 0) < 0)
                return -1;
        return open(path, O_RDONLY | O_CLOEXEC);
}

/* What the bus recorded at connect (creds-caps.c), set here: this process is root and may hold it. */
static void set_override(Fixture *f, Client *c, bool override) {
        Peer *peer = bus_lookup_peer(f->h.bus, c->unique_name);

        assert_non_null(peer);
        peer->creds.mac_override = override;
}

/* caller sends the service (by unique name) a call carrying fd: the message the service got, or NULL. */
static Message *send_fd(Fixture *f, Client *caller, Client *service, int fd, Message **ret_reply) {
        uint32_t serial = client_call(&f->h, caller, service->unique_name, "/fd", "org.example.Fd", "Take", "h", fd);
        Message *got = recv_not_driver(&f->h, service);

        *ret_reply = got ? NULL : client_wait_reply(&f->h, caller, serial);
        return got;
}

static void test_fd_refused_for_recipient(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *got = NULL, *reply = NULL;
        Client caller, service;
        int denied_fd = labelled_file("private", "filelab"), bare_fd = labelled_file("bare", NULL);
        const char *text = NULL;
        char expected[300];

        if (denied_fd < 0)
                skip();
        next_label = "svc";
        client_connect(&f->h, &service, true, true);
        next_label = "holder";
        client_connect(&f->h, &caller, true, true);
        /* The bus judged this process's own CapEff; each case below sets what it needs. */
        assert_int_equal(bus_lookup_peer(f->h.bus, service.unique_name)->creds.mac_override,
                         creds_caps_mac_override(getpid(), -1));
        set_override(f, &service, false);

        got = send_fd(f, &caller, &service, denied_fd, &reply);
        assert_null(got);
        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(reply), "org.freedesktop.DBus.Error.AccessDenied");
        assert_int_equal(message_read(reply, "s", &text), 0);
        snprintf(expected, sizeof(expected), "Rejected a message for \"%s\" (Smack label \"svc\"): its descriptor 0 "
                 "is labelled \"filelab\", to which that label has no \"r\" access", service.unique_name);
        assert_non_null(strstr(text, expected));
        assert_false(client_is_disconnected(&f->h, &service));
        message_unref(TAKE_PTR(reply));

        /* A descriptor whose label cannot be read: the kernel judges it at receipt. */
        got = send_fd(f, &caller, &service, bare_fd, &reply);
        assert_non_null(got);
        message_unref(TAKE_PTR(got));
        /* The recipient that held CAP_MAC_OVERRIDE: the kernel would let it through. */
        set_override(f, &service, true);
        got = send_fd(f, &caller, &service, denied_fd, &reply);
        assert_non_null(got);
        message_unref(TAKE_PTR(got));
        /* A rule to the label: delivered without the override. */
        set_override(f, &service, false);
        fake_smackfs_grant(f->fake, "svc", "filelab", "r");
        smack_oracle_flush(security_get_oracle(f->h.bus->security));
        got = send_fd(f, &caller, &service, denied_fd, &reply);
        assert_non_null(got);
        close(denied_fd);
        close(bare_fd);
        client_close(&caller);
        client_close(&service);
}

/* A broadcast carrying a descriptor: a subscriber that could not receive it gets no copy and stays. */
static void test_fd_withheld_from_subscriber(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *got = NULL, *granted = NULL;
        Client sender, subscriber;
        int denied_fd = labelled_file("broadcast-private", "filelab");

        if (denied_fd < 0)
                skip();
        next_label = "svc";
        client_connect(&f->h, &subscriber, true, true);
        next_label = "holder";
        client_connect(&f->h, &sender, true, true);
        set_override(f, &subscriber, false);
        client_add_match(&f->h, &subscriber, "type='signal',interface='org.example.Fd'");
        client_signal(&f->h, &sender, "/fd", "org.example.Fd", "Shared", "h", denied_fd);
        got = recv_not_driver(&f->h, &subscriber);
        assert_null(got);
        assert_false(client_is_disconnected(&f->h, &subscriber));
        /* With a rule to the descriptor's label, the same broadcast arrives. */
        fake_smackfs_grant(f->fake, "svc", "filelab", "r");
        smack_oracle_flush(security_get_oracle(f->h.bus->security));
        client_signal(&f->h, &sender, "/fd", "org.example.Fd", "Shared", "h", denied_fd);
        granted = recv_not_driver(&f->h, &subscriber);
        assert_non_null(granted);
        assert_string_equal(message_get_member(granted), "Shared");
        close(denied_fd);
        client_close(&sender);
        client_close(&subscriber);
}

/* The service answers call with a descriptor: what its caller gets is AccessDenied, and the slot is gone. */
static void test_fd_refused_in_reply(void **state) {
        Fixture *f = *state;
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL, *b2 = NULL;
        _cleanup_(message_unrefp) Message *call = NULL, *answer_fd = NULL, *refused = NULL, *told = NULL;
        _cleanup_(message_unrefp) Message *late = NULL, *late_refused = NULL, *none = NULL;
        Client caller, service;
        int denied_fd = labelled_file("service-private", "svclab");
        const int *fds;
        size_t n_fds;
        uint32_t serial;
        const char *text = NULL;

        if (denied_fd < 0)
                skip();
        next_label = "svc";
        client_connect(&f->h, &service, true, true);
        next_label = "holder";
        client_connect(&f->h, &caller, true, true);
        set_override(f, &caller, false);
        serial = client_call(&f->h, &caller, service.unique_name, "/fd", "org.example.Fd", "Give", "");
        call = recv_not_driver(&f->h, &service);
        assert_non_null(call);

        assert_int_equal(message_new_method_return(call, NULL, &b), 0);
        assert_int_equal(message_builder_set_serial(b, 70), 0);
        assert_int_equal(message_builder_append_fd(b, denied_fd), 0);
        assert_int_equal(message_builder_finish(b, &answer_fd), 0);
        fds = message_get_unix_fds(answer_fd, &n_fds);
        client_send(&f->h, &service, answer_fd, fds, n_fds);
        told = client_wait_reply(&f->h, &caller, serial);
        assert_non_null(told);
        assert_string_equal(message_get_error_name(told), "org.freedesktop.DBus.Error.AccessDenied");
        assert_string_equal(message_get_sender(told), "org.freedesktop.DBus");
        assert_int_equal(message_read(told, "s", &text), 0);
        assert_non_null(strstr(text, "was withheld"));
        assert_non_null(strstr(text, "labelled \"svclab\""));
        refused = client_wait_reply(&f->h, &service, 70);
        assert_non_null(refused);
        assert_string_equal(message_get_error_name(refused), "org.freedesktop.DBus.Error.AccessDenied");
        assert_false(client_is_disconnected(&f->h, &caller));

        /* The slot is free: a second answer is an unrequested reply, refused, and never reaches the caller. */
        assert_int_equal(message_new_method_return(call, NULL, &b2), 0);
        assert_int_equal(message_builder_set_serial(b2, 71), 0);
        assert_int_equal(message_builder_finish(b2, &late), 0);
        client_send(&f->h, &service, late, NULL, 0);
        late_refused = client_wait_reply(&f->h, &service, 71);
        assert_non_null(late_refused);
        assert_non_null(strstr(message_get_error_name(late_refused), "AccessDenied"));
        none = recv_not_driver(&f->h, &caller);
        assert_null(none);
        close(denied_fd);
        client_close(&caller);
        client_close(&service);
}

int main(int argc, char **argv) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_monitor_replies, setup, teardown),
                cmocka_unit_test_setup_teardown(test_eavesdropper_replies, setup, teardown),
                cmocka_unit_test_setup_teardown(test_record_outlives_changes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_serial_reuse, setup, teardown),
                cmocka_unit_test_setup_teardown(test_released_name_still_protected, setup, teardown),
                cmocka_unit_test_setup_teardown(test_peer_and_unicast_signals, setup, teardown),
                cmocka_unit_test_setup_teardown(test_denials_not_observed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fd_refused_for_recipient, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fd_refused_in_reply, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fd_withheld_from_subscriber, setup, teardown),
        };
        char cmd[700];
        int failed;

        if (argc < 2) {
                fprintf(stderr, "usage: %s MSSF-POLICY\n", argv[0]);
                return 1;
        }
        mssf_policy = argv[1];
        failed = compile_policy() < 0 ? 1 : cmocka_run_group_tests(tests, NULL, NULL);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", dir);
        return failed;
}
