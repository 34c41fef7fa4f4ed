/*
 * Unit tests of mediation: a table of messages between peers, each with
 * the verdict and the exact text it must get, under a policy built in
 * code, with the real oracle asking a fake smackfs (fake-smackfs.h) or
 * reporting no Smack; then ownership, oracle failures, counters and
 * argument errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db-read.h"
#include "fake-smackfs.h"
#include "mediation-fixture.h"
#include "message.h"
#include "smack-oracle.h"

typedef struct Case {
        const char *what;
        int sender;                     /* DRIVER: the bus driver */
        int receiver;
        uint8_t type;
        const char *destination;
        const char *path;
        const char *interface;
        const char *member;
        const char *signature;          /* body: "s", "ss", "ssv" or "su" from arg0/arg1 */
        const char *arg0;
        const char *arg1;
        bool expected_reply;
        bool no_policy;
        bool no_smack;
        MediationReason reason;
        const char *token;
        const char *text;
} Case;

#define CALL(dest, iface, member_) \
        .type = MESSAGE_METHOD_CALL, .destination = dest, .path = CELLULAR_PATH, \
        .interface = iface, .member = member_
#define DIAL CALL("org.mssf.Cellular", CELLULAR_IFACE, "Dial")
#define SIGNAL_(iface, member_) \
        .type = MESSAGE_SIGNAL, .path = CELLULAR_PATH, .interface = iface, .member = member_

static const Case cases[] = {
        { "call with its token", PHONE, CELLULAR, DIAL },
        { "call without its token", APP, CELLULAR, DIAL, .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for method org.mssf.Cellular.Dial" },
        { "unique name addressed: same requirement", APP, CELLULAR, CALL(":1.1", CELLULAR_IFACE, "Dial"),
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for method org.mssf.Cellular.Dial" },
        { "two tokens, one held", DIALER, CELLULAR, CALL("org.mssf.Cellular", CELLULAR_IFACE, "Hangup"),
          .reason = MEDIATION_REASON_TOKEN, .token = "Telephony",
          .text = "Rejected: label \"dialer\" lacks token \"Telephony\" required by org.mssf.Cellular "
                  "for method org.mssf.Cellular.Hangup" },
        { "read access is not holding a token", APP, CELLULAR, CALL("org.mssf.Cellular", CELLULAR_IFACE, "Hangup"),
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular" },
        { "two tokens, both held", PHONE, CELLULAR, CALL("org.mssf.Cellular", CELLULAR_IFACE, "Hangup") },
        { "interface default is open", APP, CELLULAR, CALL("org.mssf.Cellular", CELLULAR_IFACE, "Status") },
        { "undeclared interface under a declared name", APP, CELLULAR,
          CALL("org.mssf.Cellular", "org.mssf.Other", "Foo"), .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare method org.mssf.Other.Foo "
                  "at /org/mssf/Cellular (label \"untrusted-app\")" },
        { "undeclared path", APP, CELLULAR, .type = MESSAGE_METHOD_CALL, .destination = "org.mssf.Cellular",
          .path = "/elsewhere", .interface = CELLULAR_IFACE, .member = "Dial",
          .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare method org.mssf.Cellular.Dial "
                  "at /elsewhere (label \"untrusted-app\")" },
        { "Peer stays open", APP, CELLULAR, CALL("org.mssf.Cellular", "org.freedesktop.DBus.Peer", "Ping") },
        { "Peer.GetMachineId too", APP, CELLULAR, CALL("org.mssf.Cellular", PEER, "GetMachineId") },
        { "Ping without interface", APP, CELLULAR, CALL("org.mssf.Cellular", NULL, "Ping") },
        { "any other member of Peer is undeclared", PHONE, CELLULAR, CALL("org.mssf.Cellular", PEER, "Dial"),
          .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare method "
                  "org.freedesktop.DBus.Peer.Dial at /org/mssf/Cellular (label \"phone\")" },
        { "Peer.Get(ss)", APP, CELLULAR, CALL("org.mssf.Cellular", PEER, "Get"), .signature = "ss",
          .arg0 = CELLULAR_IFACE, .arg1 = "Imei", .reason = MEDIATION_REASON_NOT_DECLARED },
        { "Peer.Ping elsewhere", APP, CELLULAR, .type = MESSAGE_METHOD_CALL, .destination = ":1.1",
          .path = "/", .interface = PEER, .member = "Ping" },
        { "Peer with another member, undeclared service", APP, PLAIN, CALL("com.example.Plain", PEER, "Foo") },
        { "explicitly open Introspect", APP, CELLULAR,
          CALL("org.mssf.Cellular", "org.freedesktop.DBus.Introspectable", "Introspect") },
        { "no interface field: the member's union", APP, CELLULAR, CALL("org.mssf.Cellular", NULL, "Dial"),
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for method Dial" },
        { "no interface field, with the tokens", PHONE, CELLULAR, CALL("org.mssf.Cellular", NULL, "Hangup") },
        { "no interface field: a default alone does not cover it", APP, CELLULAR,
          CALL("org.mssf.Cellular", NULL, "Status"), .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare method Status at /org/mssf/Cellular "
                  "(label \"untrusted-app\")" },
        { "no interface field: Properties.Get sent without its interface", APP, CELLULAR,
          CALL("org.mssf.Cellular", NULL, "Get"), .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare method Get at /org/mssf/Cellular "
                  "(label \"untrusted-app\")" },
        { "queued owner is protected too", APP, CELLULAR_QUEUED, CALL(":1.2", CELLULAR_IFACE, "Dial"),
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for method org.mssf.Cellular.Dial" },
        { "undeclared service", APP, PLAIN, CALL("com.example.Plain", "com.example.Plain", "Anything") },
        { "second name declared", DIALER, MULTI, .type = MESSAGE_METHOD_CALL, .destination = "com.example.Plain2",
          .path = "/org/mssf/Location", .interface = "org.mssf.Location", .member = "GetPosition",
          .reason = MEDIATION_REASON_TOKEN, .token = "Location",
          .text = "Rejected: label \"dialer\" lacks token \"Location\" required by org.mssf.Location "
                  "for method org.mssf.Location.GetPosition" },
        { "Smack denies before tokens", ISOLATED, CELLULAR, DIAL, .reason = MEDIATION_REASON_SMACK,
          .text = "Rejected: label \"isolated\" lacks Smack access \"isolated cellular-daemon w\" to send "
                  "method org.mssf.Cellular.Dial to org.mssf.Cellular" },
        { "Smack denies an undeclared service", ISOLATED, PLAIN,
          CALL("com.example.Plain", "com.example.Plain", "Anything"), .reason = MEDIATION_REASON_SMACK,
          .text = "Rejected: label \"isolated\" lacks Smack access \"isolated plain-daemon w\" to send "
                  "method com.example.Plain.Anything to com.example.Plain" },
        { "expected reply is exempt", CELLULAR, ISOLATED, .type = MESSAGE_METHOD_RETURN, .destination = ":1.13",
          .expected_reply = true },
        { "unexpected reply is a write", CELLULAR, ISOLATED, .type = MESSAGE_METHOD_RETURN,
          .destination = ":1.13", .reason = MEDIATION_REASON_SMACK,
          .text = "Rejected: label \"cellular-daemon\" lacks Smack access \"cellular-daemon isolated w\" to send "
                  "a reply to :1.13" },
        { "expected error is exempt", CELLULAR, ISOLATED, .type = MESSAGE_ERROR, .destination = ":1.13",
          .member = "org.mssf.Error.Failed", .expected_reply = true },
        { "unexpected error is a write", CELLULAR, ISOLATED, .type = MESSAGE_ERROR, .destination = ":1.13",
          .member = "org.mssf.Error.Failed", .reason = MEDIATION_REASON_SMACK,
          .text = "Rejected: label \"cellular-daemon\" lacks Smack access \"cellular-daemon isolated w\" to send "
                  "error org.mssf.Error.Failed to :1.13" },
        { "expected reply needs no token", CELLULAR, APP, .type = MESSAGE_METHOD_RETURN, .destination = ":1.10",
          .expected_reply = true },
        { "call to the driver", ISOLATED, DRIVER, .type = MESSAGE_METHOD_CALL,
          .destination = "org.freedesktop.DBus", .path = "/org/freedesktop/DBus",
          .interface = "org.freedesktop.DBus", .member = "Hello" },
        { "signal from the driver", DRIVER, ISOLATED, .type = MESSAGE_SIGNAL, .path = "/org/freedesktop/DBus",
          .interface = "org.freedesktop.DBus", .member = "NameOwnerChanged" },
        { "protected signal, recipient holds the token", CELLULAR, DIALER, SIGNAL_(CELLULAR_IFACE, "CallStarted") },
        { "protected signal, recipient lacks the token", CELLULAR, APP, SIGNAL_(CELLULAR_IFACE, "CallStarted"),
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "to receive signal org.mssf.Cellular.CallStarted" },
        { "unicast protected signal", CELLULAR, APP, SIGNAL_(CELLULAR_IFACE, "CallStarted"), .destination = ":1.10",
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular" },
        { "uncovered signal is open", CELLULAR, APP, SIGNAL_(CELLULAR_IFACE, "SignalStrength") },
        { "a protected signal back to its own sender", CELLULAR, CELLULAR, SIGNAL_(CELLULAR_IFACE, "CallStarted") },
        { "same label, another connection: tokens apply", CELLULAR, CELLULAR_QUEUED,
          SIGNAL_(CELLULAR_IFACE, "CallStarted"), .reason = MEDIATION_REASON_TOKEN,
          .text = "Rejected: label \"cellular-daemon\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "to receive signal org.mssf.Cellular.CallStarted" },
        { "signal from an undeclared sender", PLAIN, APP, SIGNAL_(CELLULAR_IFACE, "CallStarted"),
          .reason = MEDIATION_REASON_SMACK,
          .text = "Rejected: label \"plain-daemon\" lacks Smack access \"plain-daemon untrusted-app w\" to send "
                  "signal org.mssf.Cellular.CallStarted to :1.10" },
        { "signal without Smack access", CELLULAR, ISOLATED, SIGNAL_(CELLULAR_IFACE, "SignalStrength"),
          .reason = MEDIATION_REASON_SMACK,
          .text = "Rejected: label \"cellular-daemon\" lacks Smack access \"cellular-daemon isolated w\" to send "
                  "signal org.mssf.Cellular.SignalStrength to :1.13" },
        { "Properties.Get of a protected property", APP, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Imei",
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for property org.mssf.Cellular.Imei (Properties.Get)" },
        { "Properties.Get with the token", DIALER, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Imei" },
        { "Properties.Get, interface \"\"", APP, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ss", .arg0 = "", .arg1 = "Imei", .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for property Imei (Properties.Get)" },
        { "Properties.Get of an uncovered property", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Status", .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare property org.mssf.Cellular.Status "
                  "at /org/mssf/Cellular (Properties.Get) (label \"phone\")" },
        { "Properties.Get, interface in another case", DIALER, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ss", .arg0 = "org.mssf.cellular", .arg1 = "Imei", .reason = MEDIATION_REASON_NOT_DECLARED },
        { "Properties.Get, property in another case", DIALER, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "IMEI", .reason = MEDIATION_REASON_NOT_DECLARED },
        { "Properties.Get at another path", DIALER, CELLULAR, .type = MESSAGE_METHOD_CALL,
          .destination = "org.mssf.Cellular", .path = "/", .interface = PROPERTIES, .member = "Get",
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Imei", .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare property org.mssf.Cellular.Imei "
                  "at / (Properties.Get) (label \"dialer\")" },
        { "Properties.Get at a child path (a subtree)", DIALER, CELLULAR, .type = MESSAGE_METHOD_CALL,
          .destination = "org.mssf.Cellular", .path = CELLULAR_PATH "/0", .interface = PROPERTIES,
          .member = "Get", .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Imei",
          .reason = MEDIATION_REASON_NOT_DECLARED },
        { "Properties.Set needs the write token", DIALER, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Set"),
          .signature = "ssv", .arg0 = CELLULAR_IFACE, .arg1 = "Powered",
          .reason = MEDIATION_REASON_TOKEN, .token = "Telephony",
          .text = "Rejected: label \"dialer\" lacks token \"Telephony\" required by org.mssf.Cellular "
                  "for property org.mssf.Cellular.Powered (Properties.Set)" },
        { "Properties.Set with the write token", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Set"),
          .signature = "ssv", .arg0 = CELLULAR_IFACE, .arg1 = "Powered" },
        { "Properties.Get with one argument", APP, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "s", .arg0 = CELLULAR_IFACE, .reason = MEDIATION_REASON_BAD_MESSAGE,
          .text = "Rejected: Properties.Get to org.mssf.Cellular (declared by a manifest) without exactly its "
                  "arguments (interface and property, signature \"ss\") (label \"untrusted-app\")" },
        { "Properties.Get without arguments", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .reason = MEDIATION_REASON_BAD_MESSAGE },
        { "Properties.Get (su)", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "su", .arg0 = CELLULAR_IFACE, .reason = MEDIATION_REASON_BAD_MESSAGE },
        { "Properties.Get with a third argument", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ssv", .arg0 = CELLULAR_IFACE, .arg1 = "Imei", .reason = MEDIATION_REASON_BAD_MESSAGE },
        { "Properties.Set without its value", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Set"),
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Powered",
          .reason = MEDIATION_REASON_BAD_MESSAGE,
          .text = "Rejected: Properties.Set to org.mssf.Cellular (declared by a manifest) without exactly its "
                  "arguments (interface, property and value, signature \"ssv\") (label \"phone\")" },
        { "Properties.GetAll passes (the reply is filtered)", APP, CELLULAR,
          CALL("org.mssf.Cellular", PROPERTIES, "GetAll"), .signature = "s", .arg0 = CELLULAR_IFACE },
        { "Properties.GetAll(\"\")", APP, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "GetAll"),
          .signature = "s", .arg0 = "" },
        { "Properties.GetAll of an interface without properties here", PHONE, CELLULAR,
          CALL("org.mssf.Cellular", PROPERTIES, "GetAll"), .signature = "s",
          .arg0 = "org.freedesktop.DBus.Introspectable", .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular declares no property of interface "
                  "\"org.freedesktop.DBus.Introspectable\" at /org/mssf/Cellular (Properties.GetAll) "
                  "(label \"phone\")" },
        { "Properties.GetAll at another path", PHONE, CELLULAR, .type = MESSAGE_METHOD_CALL,
          .destination = "org.mssf.Cellular", .path = "/org/mssf", .interface = PROPERTIES, .member = "GetAll",
          .signature = "s", .arg0 = CELLULAR_IFACE, .reason = MEDIATION_REASON_NOT_DECLARED },
        { "Properties.GetAll, interface in another case", PHONE, CELLULAR,
          CALL("org.mssf.Cellular", PROPERTIES, "GetAll"), .signature = "s", .arg0 = "ORG.mssf.Cellular",
          .reason = MEDIATION_REASON_NOT_DECLARED },
        { "Properties.GetAll without its argument", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "GetAll"),
          .reason = MEDIATION_REASON_BAD_MESSAGE,
          .text = "Rejected: Properties.GetAll to org.mssf.Cellular (declared by a manifest) without exactly its "
                  "arguments (interface, signature \"s\") (label \"phone\")" },
        { "Properties.GetAll (ss)", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "GetAll"),
          .signature = "ss", .arg0 = CELLULAR_IFACE, .arg1 = "Imei", .reason = MEDIATION_REASON_BAD_MESSAGE },
        { "Properties.GetAll (u)", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "GetAll"),
          .signature = "u", .reason = MEDIATION_REASON_BAD_MESSAGE },
        { "Properties.Get (ss) then more", PHONE, CELLULAR, CALL("org.mssf.Cellular", PROPERTIES, "Get"),
          .signature = "ssu", .arg0 = CELLULAR_IFACE, .arg1 = "Imei", .reason = MEDIATION_REASON_BAD_MESSAGE },
        /* A unicast signal to a declared service is judged as a call of its member. */
        { "unicast signal named like a protected method", APP, CELLULAR, SIGNAL_(CELLULAR_IFACE, "Dial"),
          .destination = "org.mssf.Cellular", .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: label \"untrusted-app\" lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for method org.mssf.Cellular.Dial, and a signal sent to it is judged as that call" },
        { "the same signal from a holder", DIALER, CELLULAR, SIGNAL_(CELLULAR_IFACE, "Dial"), .destination = ":1.1" },
        { "unicast signal no method covers", PHONE, CELLULAR, SIGNAL_("org.example.Any", "Poke"),
          .destination = "org.mssf.Cellular", .reason = MEDIATION_REASON_NOT_DECLARED,
          .text = "Rejected: the manifest of org.mssf.Cellular does not declare method org.example.Any.Poke at "
                  "/org/mssf/Cellular, so it may not be sent that signal (label \"phone\")" },
        { "unicast signal under an open default", APP, CELLULAR, SIGNAL_(CELLULAR_IFACE, "Status"),
          .destination = "org.mssf.Cellular" },
        { "unicast signal to a queued owner", APP, CELLULAR_QUEUED, SIGNAL_("org.example.Any", "Poke"),
          .destination = ":1.2", .reason = MEDIATION_REASON_NOT_DECLARED },
        { "unicast signal to an undeclared service", APP, PLAIN, SIGNAL_("org.example.Any", "Poke"),
          .destination = "com.example.Plain" },
        { "broadcast signal seen by a declared service", APP, CELLULAR, SIGNAL_("org.example.Any", "Poke") },
        { "unicast signal between declared services: both manifests", LOCATION, CELLULAR,
          SIGNAL_(CELLULAR_IFACE, "SignalStrength"), .destination = "org.mssf.Cellular" },
        { "...and one no method covers", LOCATION, CELLULAR, SIGNAL_("org.example.Any", "Poke"),
          .destination = "org.mssf.Cellular", .reason = MEDIATION_REASON_NOT_DECLARED },
        { "the driver's unicast signal to a declared service", DRIVER, CELLULAR, .type = MESSAGE_SIGNAL,
          .destination = ":1.1", .path = "/org/freedesktop/DBus", .interface = "org.freedesktop.DBus",
          .member = "NameAcquired" },
        { "malformed Get to an undeclared service", APP, PLAIN, CALL("com.example.Plain", PROPERTIES, "Get"),
          .signature = "s", .arg0 = "x" },
        { "no policy: tokens have nothing to enforce", APP, CELLULAR, DIAL, .no_policy = true },
        { "no policy: Smack still applies", ISOLATED, CELLULAR, DIAL, .no_policy = true,
          .reason = MEDIATION_REASON_SMACK },
        { "no Smack: label checks skipped", ISOLATED, PLAIN,
          CALL("com.example.Plain", "com.example.Plain", "Anything"), .no_smack = true },
        { "no Smack: every token requirement denies", PHONE, CELLULAR, DIAL, .no_smack = true,
          .reason = MEDIATION_REASON_TOKEN, .token = "Cellular",
          .text = "Rejected: a peer without a Smack label lacks token \"Cellular\" required by org.mssf.Cellular "
                  "for method org.mssf.Cellular.Dial (this system has no Smack: no label holds a token)" },
        { "no Smack: open members stay open", APP, CELLULAR, CALL("org.mssf.Cellular", CELLULAR_IFACE, "Status"),
          .no_smack = true },
        { "no Smack: protected signals denied", CELLULAR, DIALER, SIGNAL_(CELLULAR_IFACE, "CallStarted"),
          .no_smack = true, .reason = MEDIATION_REASON_TOKEN },
        { "no Smack: unexpected replies pass mediation", CELLULAR, ISOLATED, .type = MESSAGE_METHOD_RETURN,
          .destination = ":1.13", .no_smack = true },
        { "sender without a label", NOLABEL, CELLULAR, DIAL, .reason = MEDIATION_REASON_NO_LABEL,
          .text = "Rejected: the sender has no Smack label (method org.mssf.Cellular.Dial to org.mssf.Cellular)" },
        { "receiver without a label", APP, NOLABEL, CALL(":1.20", "com.example.X", "Y"),
          .reason = MEDIATION_REASON_NO_LABEL,
          .text = "Rejected: the receiver has no Smack label (method com.example.X.Y to :1.20)" },
        { "no label and no Smack", NOLABEL, PLAIN, CALL("com.example.Plain", "com.example.Plain", "Anything"),
          .no_smack = true },
};

static Message *build_message(const Case *c) {
        return fixture_message(&(MessageSpec) {
                .type = c->type, .destination = c->destination, .path = c->path,
                .interface = c->interface, .member = c->member, .signature = c->signature,
                .arg0 = c->arg0, .arg1 = c->arg1,
        });
}

static void test_table(void **state) {
        Fixture *f = *state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const Case *c = &cases[i];
                _cleanup_(message_unrefp) Message *m = NULL;
                MediationVerdict verdict;
                int r;

                m = build_message(c);
                r = mediation_check_message(fixture_peer(c->sender), fixture_peer(c->receiver), m, c->expected_reply,
                                            c->no_policy ? NULL : fixture_db, c->no_smack ? f->no_smack : f->oracle,
                                            &verdict);
                if (verdict.reason != c->reason)
                        fail_msg("case %zu \"%s\": reason %s, expected %s (%s)", i, c->what,
                                 mediation_reason_to_string(verdict.reason),
                                 mediation_reason_to_string(c->reason), verdict.text);
                assert_int_equal(r, c->reason == MEDIATION_REASON_NONE ? 0 : MEDIATION_E_DENIED);
                if (c->reason == MEDIATION_REASON_NONE) {
                        assert_null(verdict.error_name);
                        assert_string_equal(verdict.text, "");
                        continue;
                }
                assert_string_equal(verdict.error_name, "org.freedesktop.DBus.Error.AccessDenied");
                assert_non_null(verdict.destination);
                if (c->text && strcmp(verdict.text, c->text) != 0)
                        fail_msg("case %zu \"%s\":\n got      %s\n expected %s", i, c->what, verdict.text, c->text);
                if (c->token)
                        assert_string_equal(verdict.token, c->token);
                else if (c->reason != MEDIATION_REASON_TOKEN)
                        assert_null(verdict.token);
        }
}

/*
 * Without a policy and without Smack the ladder refuses nothing of a known
 * type, and a call needs nothing (check_tokens()): mediation_check_message()
 * answers that without walking the ladder, and must answer exactly it, for
 * every message and every pair of peers, the driver on either side too.
 */
static void test_no_policy_no_smack(void **state) {
        Fixture *f = *state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_(message_unrefp) Message *m = build_message(&cases[i]);

                for (int side = 0; side < 3; side++) {
                        const MediationPeer *sender = side == 1 ? NULL : fixture_peer(cases[i].sender);
                        const MediationPeer *receiver = side == 2 ? NULL : fixture_peer(cases[i].receiver);
                        MediationVerdict verdict;

                        for (int expected_reply = 0; expected_reply < 2; expected_reply++) {
                                assert_int_equal(mediation_check_message(sender, receiver, m, expected_reply, NULL,
                                                                         f->no_smack, &verdict), 0);
                                assert_int_equal(verdict.reason, MEDIATION_REASON_NONE);
                                assert_null(verdict.error_name);
                                assert_null(verdict.token);
                                assert_string_equal(verdict.text, "");
                                assert_int_equal(verdict.needs.known,
                                                 message_get_type(m) == MESSAGE_METHOD_CALL);
                                assert_int_equal(verdict.needs.n_tokens, 0);
                        }
                }
        }
}

/* The journal fields of one denial. */
static void test_fields(void **state) {
        Fixture *f = *state;
        const Case *c = &cases[1];
        _cleanup_(message_unrefp) Message *m = build_message(c);
        MediationVerdict verdict;

        assert_int_equal(mediation_check_message(&fixture_peers[APP], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle, &verdict),
                         MEDIATION_E_DENIED);
        assert_string_equal(verdict.label, "untrusted-app");
        assert_string_equal(verdict.token, "Cellular");
        assert_string_equal(verdict.destination, "org.mssf.Cellular");
        assert_string_equal(verdict.member, "org.mssf.Cellular.Dial");
        assert_string_equal(mediation_reason_to_string(verdict.reason), "token");
        assert_null(verdict.object_label);

        m = message_unref(m);
        m = build_message(&(Case) { DIAL });
        assert_int_equal(mediation_check_message(&fixture_peers[ISOLATED], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle,
                                                 &verdict), MEDIATION_E_DENIED);
        assert_string_equal(mediation_reason_to_string(verdict.reason), "smack");
        assert_string_equal(verdict.label, "isolated");
        assert_string_equal(verdict.object_label, "cellular-daemon");
        assert_null(verdict.token);
        assert_null(mediation_reason_to_string(_MEDIATION_REASON_MAX));
}

/* The kernel's answer cannot be read: denied, with the errno, never cached. */
static void test_oracle_errors(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *m = build_message(&cases[0]);
        MediationVerdict verdict;

        f->fake->answer = FAKE_ANSWER_READ_ERROR;
        assert_int_equal(mediation_check_message(&fixture_peers[APP], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle, &verdict),
                         MEDIATION_E_DENIED);
        assert_int_equal(verdict.reason, MEDIATION_REASON_ERROR);
        assert_int_equal(verdict.error, -EIO);
        assert_string_equal(verdict.text,
                            "Rejected: the Smack check could not be answered (Input/output error), so it denies: "
                            "label \"untrusted-app\", method org.mssf.Cellular.Dial to org.mssf.Cellular");

        /* Smack answered (and cached), then the token question fails. */
        f->fake->answer = FAKE_ANSWER_KERNEL;
        assert_int_equal(mediation_check_message(&fixture_peers[DIALER], &fixture_peers[CELLULAR], m, false, NULL, f->oracle,
                                                 &verdict), 0);
        f->fake->answer = FAKE_ANSWER_GARBAGE;
        assert_int_equal(mediation_check_message(&fixture_peers[DIALER], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle,
                                                 &verdict), MEDIATION_E_DENIED);
        assert_int_equal(verdict.reason, MEDIATION_REASON_ERROR);
        assert_string_equal(verdict.text,
                            "Rejected: the token check could not be answered (Input/output error), so it denies: "
                            "label \"dialer\", method org.mssf.Cellular.Dial to org.mssf.Cellular");
        f->fake->answer = FAKE_ANSWER_KERNEL;
        assert_int_equal(mediation_check_message(&fixture_peers[DIALER], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle,
                                                 &verdict), 0);
}

/* A warm cache answers a whole message without the kernel. */
static void test_cached(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *m = build_message(&cases[0]);
        MediationVerdict verdict;
        unsigned questions;

        assert_int_equal(mediation_check_message(&fixture_peers[PHONE], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle,
                                                 &verdict), 0);
        questions = f->fake->questions;
        for (int i = 0; i < 10; i++)
                assert_int_equal(mediation_check_message(&fixture_peers[PHONE], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle,
                                                         &verdict), 0);
        assert_int_equal(f->fake->questions, questions);

        /* A revoked grant takes effect after the rule-file write is seen. */
        fake_smackfs_revoke(f->fake, "phone", "Cellular");
        fake_smackfs_write_file(f->fake, "load2", "phone Cellular -");
        assert_int_equal(smack_oracle_refresh(f->oracle), 1);
        assert_int_equal(mediation_check_message(&fixture_peers[PHONE], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle,
                                                 &verdict), MEDIATION_E_DENIED);
        assert_int_equal(verdict.reason, MEDIATION_REASON_TOKEN);
}

static void test_own(void **state) {
        Fixture *f = *state;
        MediationVerdict verdict;

        assert_int_equal(mediation_check_own(&fixture_peers[CELLULAR], "org.mssf.Cellular", fixture_db, f->oracle, &verdict), 0);
        assert_int_equal(verdict.reason, MEDIATION_REASON_NONE);
        /* Holders of the own token may own it. */
        assert_int_equal(mediation_check_own(&fixture_peers[LOCATION], "org.mssf.Cellular", fixture_db, f->oracle, &verdict), 0);
        assert_int_equal(mediation_check_own(&fixture_peers[APP], "org.mssf.Cellular", fixture_db, f->oracle, &verdict),
                         MEDIATION_E_DENIED);
        assert_int_equal(verdict.reason, MEDIATION_REASON_OWN);
        assert_string_equal(verdict.text,
                            "Rejected: label \"untrusted-app\" may not own org.mssf.Cellular: its manifest reserves it "
                            "for other labels and holders of token \"cellular::Own\"");
        assert_string_equal(verdict.error_name, "org.freedesktop.DBus.Error.AccessDenied");
        assert_string_equal(verdict.destination, "org.mssf.Cellular");
        assert_string_equal(verdict.token, "cellular::Own");
        assert_string_equal(verdict.label, "untrusted-app");
        /* A declared name nobody may own. */
        assert_int_equal(mediation_check_own(&fixture_peers[CELLULAR], "org.mssf.Reserved", fixture_db, f->oracle, &verdict),
                         MEDIATION_E_DENIED);
        assert_string_equal(verdict.text,
                            "Rejected: label \"cellular-daemon\" may not own org.mssf.Reserved: its manifest "
                            "reserves it for other labels");
        /* Undeclared names, and no policy. */
        assert_int_equal(mediation_check_own(&fixture_peers[APP], "com.example.Mine", fixture_db, f->oracle, &verdict), 0);
        assert_int_equal(mediation_check_own(&fixture_peers[APP], "org.mssf.Cellular", NULL, f->oracle, &verdict), 0);
        /* Without Smack there are no labels to judge: busconfig alone decides ownership. */
        assert_int_equal(mediation_check_own(&fixture_peers[APP], "org.mssf.Cellular", fixture_db, f->no_smack, &verdict), 0);
        assert_int_equal(mediation_check_own(&fixture_peers[APP], "com.example.Mine", fixture_db, f->no_smack, &verdict), 0);
        /* The own-token question fails: denied. */
        f->fake->answer = FAKE_ANSWER_READ_ERROR;
        assert_int_equal(mediation_check_own(&fixture_peers[PHONE], "org.mssf.Cellular", fixture_db, f->oracle, &verdict),
                         MEDIATION_E_DENIED);
        assert_int_equal(verdict.reason, MEDIATION_REASON_ERROR);
        assert_int_equal(verdict.error, -EIO);
        assert_string_equal(verdict.text,
                            "Rejected: the ownership check for org.mssf.Cellular could not be answered "
                            "(Input/output error), so it denies (label \"phone\")");
        f->fake->answer = FAKE_ANSWER_KERNEL;
}

static void test_counters(void **state) {
        Fixture *f = *state;
        MediationCounters counters = {};
        MediationVerdict verdict;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_(message_unrefp) Message *m = NULL;

                m = build_message(&cases[i]);
                (void) mediation_check_message(fixture_peer(cases[i].sender), fixture_peer(cases[i].receiver), m,
                                               cases[i].expected_reply, cases[i].no_policy ? NULL : fixture_db,
                                               cases[i].no_smack ? f->no_smack : f->oracle, &verdict);
                mediation_counters_record(&counters, &verdict);
        }
        assert_int_equal(counters.allowed + counters.denied, sizeof(cases) / sizeof(cases[0]));
        assert_int_equal(counters.by_reason[MEDIATION_REASON_NONE], counters.allowed);
        {
                uint64_t expected[_MEDIATION_REASON_MAX] = {};

                for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                        expected[cases[i].reason]++;
                for (int reason = 0; reason < _MEDIATION_REASON_MAX; reason++)
                        assert_int_equal(counters.by_reason[reason], expected[reason]);
                assert_int_equal(counters.denied, sizeof(cases) / sizeof(cases[0]) - expected[0]);
        }
        assert_int_equal(counters.by_reason[MEDIATION_REASON_SMACK], 7);
        assert_int_equal(counters.by_reason[MEDIATION_REASON_BAD_MESSAGE], 9);
        assert_int_equal(counters.by_reason[MEDIATION_REASON_ERROR], 0);
}

static void test_bad_arguments(void **state) {
        Fixture *f = *state;
        _cleanup_(message_unrefp) Message *m = build_message(&cases[0]);
        MediationVerdict verdict;

        assert_int_equal(mediation_check_message(&fixture_peers[APP], &fixture_peers[CELLULAR], NULL, false, fixture_db, f->oracle,
                                                 &verdict), -EINVAL);
        assert_int_equal(verdict.reason, MEDIATION_REASON_ERROR);
        assert_int_equal(mediation_check_message(&fixture_peers[APP], &fixture_peers[CELLULAR], m, false, fixture_db, NULL, &verdict),
                         -EINVAL);
        assert_int_equal(verdict.reason, MEDIATION_REASON_ERROR);
        assert_int_equal(mediation_check_message(&fixture_peers[APP], &fixture_peers[CELLULAR], m, false, fixture_db, f->oracle, NULL),
                         -EINVAL);
        assert_int_equal(mediation_check_own(NULL, "org.x", fixture_db, f->oracle, &verdict), -EINVAL);
        assert_int_equal(mediation_check_own(&fixture_peers[APP], NULL, fixture_db, f->oracle, &verdict), -EINVAL);
        assert_int_equal(mediation_check_own(&fixture_peers[APP], "org.x", fixture_db, f->oracle, NULL), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_table, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_fields, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_no_policy_no_smack, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_oracle_errors, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_cached, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_own, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_counters, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_bad_arguments, fixture_setup, fixture_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
