/*
 * org.mssf.Broker1.CheckToken (broker/driver/driver-mssf.c) on a real Bus in the
 * test process, with a fake Smack: SO_PEERSEC is a wrapped getsockopt
 * (each connection gets the label set before it connects), the kernel's
 * access2 is tests/smack's fake smackfs, and security_new() is wrapped to
 * point the bus at it and at a policy.db built here. What a service sees:
 * yes for a token its caller holds (bare names resolved as the manifest
 * of the package it speaks for would: the declarer of the name it serves,
 * else its label's), no once the grant is revoked, without a reload;
 * errors, never "false", for everything that is not a plain answer;
 * AccessDenied, in one wording, when it asks about a connection that is
 * not its to ask about or for a token its package neither provides nor
 * guards; PolicyOutdated where an older policy.db cannot say.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "builder.h"
#include "bus-harness.h"
#include "crc32c.h"
#include "fake-smackfs.h"
#include "format.h"
#include "security.h"
#include "smack-label.h"

#define CONFIG "<busconfig><type>system</type><listen>unix:tmpdir=/tmp</listen>" \
        "<policy context=\"default\"><allow send_destination=\"*\"/><allow receive_sender=\"*\"/><allow own=\"*\"/></policy></busconfig>"
#define DRIVER "org.freedesktop.DBus"
#define DRIVER_PATH "/org/freedesktop/DBus"

static const char *next_label;          /* SO_PEERSEC of the next connection; NULL: none */
static FakeSmackfs *fake;               /* NULL: the bus runs without Smack */
static char policy_path[64];

int __real_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len);
int __real_security_new(const BusConfig *config, uid_t bus_uid, const char *path, const char *smackfs,
                        Security **ret, char ***ret_warnings, char *err, size_t err_size);
int __wrap_security_new(const BusConfig *config, uid_t bus_uid, const char *path, const char *smackfs,
                        Security **ret, char ***ret_warnings, char *err, size_t err_size);

int __wrap_getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
        if (level == SOL_SOCKET && name == SO_PEERSEC) {
                size_t n;

                if (!next_label) {
                        errno = ENOPROTOOPT;
                        return -1;
                }
                n = strlen(next_label) + 1;
                if (*len < n) {
                        *len = (socklen_t) n;
                        errno = ERANGE;
                        return -1;
                }
                memcpy(value, next_label, n);
                *len = (socklen_t) n;
                return 0;
        }
        return __real_getsockopt(fd, level, name, value, len);
}

/* The bus as the daemon makes it, but with our policy.db and (maybe) the fake smackfs. */
int __wrap_security_new(const BusConfig *config, uid_t bus_uid, const char *path, const char *smackfs,
                        Security **ret, char ***ret_warnings, char *err, size_t err_size) {
        return __real_security_new(config, bus_uid, policy_path[0] ? policy_path : NULL,
                                   fake ? fake->dir : "/nonexistent/smackfs", ret, ret_warnings, err,
                                   err_size);
}

/*
 * The same policy as an older version wrote it (docs/policy-db.md): each
 * older file is the newer one cut short, version 3 without the checkany
 * labels (the last refs; the packages and declarers move up over them),
 * version 2 also before the packages and declarers (and their refs),
 * version 1 also before the provided tokens; each older header a prefix,
 * the sections moved up.
 */
static void to_version(uint8_t *data, size_t *size, uint32_t version) {
        uint32_t header_size = version == POLICY_DB_FORMAT_VERSION_1 ? POLICY_DB_HEADER_SIZE_V1 :
                               version == POLICY_DB_FORMAT_VERSION_2 ? POLICY_DB_HEADER_SIZE_V2 :
                                                                       POLICY_DB_HEADER_SIZE_V3;
        uint32_t shift = (uint32_t) sizeof(DbHeader) - header_size, n_refs;
        DbHeader h;
        DbSection *sections[] = { &h.strings, &h.names, &h.name_index, &h.rules, &h.rule_index, &h.refs,
                                  &h.packages, &h.declarers };
        size_t n_sections = version == POLICY_DB_FORMAT_VERSION_3 ? ELEMENTSOF(sections) : 6;

        memcpy(&h, data, sizeof(h));
        if (version == POLICY_DB_FORMAT_VERSION_3) {
                uint32_t cut = 4 * le32toh(h.checkany_labels.count);
                size_t tail = le32toh(h.packages.offset);

                n_refs = le32toh(h.checkany_labels.first);
                memmove(data + tail - cut, data + tail, *size - tail);
                *size -= cut;
                h.packages.offset = htole32(le32toh(h.packages.offset) - cut);
                h.declarers.offset = htole32(le32toh(h.declarers.offset) - cut);
        } else {
                n_refs = le32toh(h.provided_tokens.first);
                if (version != POLICY_DB_FORMAT_VERSION_1)
                        n_refs += le32toh(h.provided_tokens.count);
                *size = le32toh(h.refs.offset) + 4 * (size_t) n_refs;
        }
        h.refs.count = htole32(n_refs);
        memmove(data + header_size, data + sizeof(h), *size - sizeof(h));
        *size -= shift;
        for (size_t i = 0; i < n_sections; i++)
                sections[i]->offset = htole32(le32toh(sections[i]->offset) - shift);
        h.version = htole32(version);
        h.header_size = htole32(header_size);
        h.file_size = htole32((uint32_t) *size);
        h.checksum = 0;
        memcpy(data, &h, header_size);
        h.checksum = htole32(policy_db_compute_checksum(data, *size));
        memcpy(data, &h, header_size);
}

static void add_rule(PolicyBuilder *b, uint32_t name, const char *path, const char *interface,
                     const char *member, const char *token) {
        assert_int_equal(policy_builder_add_rule(b, name, POLICY_KIND_METHOD, path, interface, member, token),
                         0);
}

/*
 * The device (format 4, or an older version cut from it):
 *  - calendar provides read and work and declares org.example.Calendar,
 *    which its label and calendar-helper may own, and whose methods need
 *    read, work, the global Cellular and the global Location;
 *  - locator declares org.example.Locator (locator and shared may own it),
 *    one method guarded by the global Location: nothing else;
 *  - org.example.Unrecorded, which anon may own, records no declarer;
 *  - the global tokens Cellular, Location and work (so that a bare "work"
 *    that is not calendar's is a token that exists);
 *  - the checkany label keys (the key service's): from format 4 on.
 * shared may also own org.example.Calendar: it can serve both packages.
 */
static void write_policy(uint32_t version) {
        _cleanup_(policy_builder_freep) PolicyBuilder *b = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        uint32_t calendar, locator, unrecorded;
        size_t size;
        FILE *f;
        int fd;

        assert_int_equal(policy_builder_new(&b), 0);
        if (version != POLICY_DB_FORMAT_VERSION_1) {
                assert_int_equal(policy_builder_add_provided_token(b, "calendar::read"), 0);
                assert_int_equal(policy_builder_add_provided_token(b, "calendar::work"), 0);
        }
        assert_int_equal(policy_builder_add_name(b, "org.example.Calendar", &calendar), 0);
        assert_int_equal(policy_builder_set_declarer(b, calendar, "calendar"), 0);
        assert_int_equal(policy_builder_add_owner(b, calendar, "calendar"), 0);
        assert_int_equal(policy_builder_add_owner(b, calendar, "calendar-helper"), 0);
        assert_int_equal(policy_builder_add_owner(b, calendar, "shared"), 0);
        add_rule(b, calendar, "/", "org.example.Calendar", "List", NULL);
        add_rule(b, calendar, "/", "org.example.Calendar", "Read", "calendar::read");
        add_rule(b, calendar, "/", "org.example.Calendar", "Edit", "calendar::work");
        add_rule(b, calendar, "/", "org.example.Calendar", "Dial", "Cellular");
        add_rule(b, calendar, "/", "org.example.Calendar", "Where", "Location");
        assert_int_equal(policy_builder_add_name(b, "org.example.Locator", &locator), 0);
        assert_int_equal(policy_builder_set_declarer(b, locator, "locator"), 0);
        assert_int_equal(policy_builder_add_owner(b, locator, "locator"), 0);
        assert_int_equal(policy_builder_add_owner(b, locator, "shared"), 0);
        add_rule(b, locator, "/", "org.example.Locator", "Where", "Location");
        assert_int_equal(policy_builder_add_name(b, "org.example.Unrecorded", &unrecorded), 0);
        assert_int_equal(policy_builder_add_owner(b, unrecorded, "anon"), 0);
        add_rule(b, unrecorded, "/", "org.example.Unrecorded", "Do", "Cellular");
        assert_int_equal(policy_builder_add_global_token(b, "Cellular"), 0);
        assert_int_equal(policy_builder_add_global_token(b, "Location"), 0);
        assert_int_equal(policy_builder_add_global_token(b, "work"), 0);
        assert_int_equal(policy_builder_add_checkany_label(b, "keys"), 0);
        assert_int_equal(policy_builder_build(b, &data, &size), 0);
        if (version != POLICY_DB_FORMAT_VERSION)
                to_version(data, &size, version);
        strcpy(policy_path, "/tmp/test-driver-mssf-XXXXXX");
        fd = mkstemp(policy_path);
        assert_true(fd >= 0);
        f = fdopen(fd, "w");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, size, f), size);
        assert_int_equal(fclose(f), 0);
}

typedef struct World {
        Harness h;
        Client svc, app, other;
} World;

/* svc is the calendar service (its label, no name yet), app and other two apps; app may reach svc, other may not. */
static void world_start_with(World *w, bool smack, uint32_t version) {
        write_policy(version);
        fake = smack ? fake_smackfs_new(true) : NULL;
        if (fake)
                fake_smackfs_grant(fake, "app", "calendar", "w");
        harness_start(&w->h, CONFIG);
        next_label = "calendar";
        client_connect(&w->h, &w->svc, false, true);
        next_label = "app";
        client_connect(&w->h, &w->app, false, true);
        next_label = "other";
        client_connect(&w->h, &w->other, false, true);
}

static void world_start(World *w, bool smack) {
        world_start_with(w, smack, POLICY_DB_FORMAT_VERSION);
}

/* One more connection, labelled label. */
static void connect_as(World *w, Client *c, const char *label) {
        next_label = label;
        client_connect(&w->h, c, false, true);
}

/* RequestName(name): 1 (primary owner) expected. */
static void own(World *w, Client *c, const char *name) {
        uint32_t serial = client_call(&w->h, c, DRIVER, DRIVER_PATH, "org.freedesktop.DBus", "RequestName", "su",
                                      name, (uint32_t) 4);
        _cleanup_(message_unrefp) Message *reply = client_wait_reply(&w->h, c, serial);
        uint32_t result = 0;

        assert_non_null(reply);
        if (message_get_type(reply) == MESSAGE_ERROR)
                fail_msg("RequestName(%s): %s", name, message_get_error_name(reply));
        assert_int_equal(message_read(reply, "u", &result), 0);
        assert_int_equal(result, 1);
}

static void release(World *w, Client *c, const char *name) {
        uint32_t serial = client_call(&w->h, c, DRIVER, DRIVER_PATH, "org.freedesktop.DBus", "ReleaseName", "s",
                                      name);
        _cleanup_(message_unrefp) Message *reply = client_wait_reply(&w->h, c, serial);

        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_METHOD_RETURN);
}

static void world_stop(World *w) {
        client_close(&w->svc);
        client_close(&w->app);
        client_close(&w->other);
        harness_stop(&w->h);
        if (fake)
                fake_smackfs_free(fake);
        fake = NULL;
        unlink(policy_path);
        policy_path[0] = '\0';
}

/* caller calls callee's List; callee has received the call (so caller waits for its reply). */
static void calls(World *w, Client *caller, Client *callee) {
        _cleanup_(message_unrefp) Message *call = NULL;

        client_call(&w->h, caller, callee->unique_name, "/", "org.example.Calendar", "List", "");
        call = client_recv(&w->h, callee);
        assert_non_null(call);
        assert_int_equal(message_get_type(call), MESSAGE_METHOD_CALL);
        assert_string_equal(message_get_member(call), "List");
}

static void app_calls_service(World *w, Client *caller) {
        calls(w, caller, &w->svc);
}

/* CheckToken from asker: 1 or 0 for an answer; for an error its name is copied to error_name. */
static int check_token(World *w, Client *asker, const char *name, const char *token, char *error_name) {
        uint32_t serial = client_call(&w->h, asker, DRIVER, DRIVER_PATH, "org.mssf.Broker1", "CheckToken",
                                      "ss", name, token);
        _cleanup_(message_unrefp) Message *reply = client_wait_reply(&w->h, asker, serial);
        int held = -1;

        assert_non_null(reply);
        if (message_get_type(reply) == MESSAGE_ERROR) {
                assert_non_null(error_name);
                strcpy(error_name, message_get_error_name(reply));
                return -1;
        }
        assert_string_equal(message_get_signature(reply), "b");
        assert_int_equal(message_read(reply, "b", &held), 0);
        return held;
}

static void expect_error(World *w, Client *asker, const char *name, const char *token, const char *error) {
        char got[256] = "";

        assert_int_equal(check_token(w, asker, name, token, got), -1);
        assert_string_equal(got, error);
}

/* The text of the error CheckToken answers (error expected), into text. */
static void error_text(World *w, Client *asker, const char *name, const char *token, const char *error,
                       char *text, size_t size) {
        uint32_t serial = client_call(&w->h, asker, DRIVER, DRIVER_PATH, "org.mssf.Broker1", "CheckToken",
                                      "ss", name, token);
        _cleanup_(message_unrefp) Message *reply = client_wait_reply(&w->h, asker, serial);
        const char *got;

        assert_non_null(reply);
        assert_int_equal(message_get_type(reply), MESSAGE_ERROR);
        assert_string_equal(message_get_error_name(reply), error);
        assert_int_equal(message_read(reply, "s", &got), 0);
        snprintf(text, size, "%s", got);
}

#define ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"
#define INVALID_ARGS "org.freedesktop.DBus.Error.InvalidArgs"
#define POLICY_OUTDATED "org.mssf.Broker1.Error.PolicyOutdated"

/*
 * The one refusal, word for word, whichever rule refused: the connection
 * named, or the token (label: as the asker's name for it resolved).
 */
static void expect_not_its_to_ask(World *w, Client *asker, const char *name, const char *token,
                                  const char *label) {
        char got[1024], want[1024];

        error_text(w, asker, name, token, ACCESS_DENIED, got, sizeof(got));
        snprintf(want, sizeof(want),
                 "Connection \"%s\" may ask CheckToken only about itself, about connections waiting for its "
                 "reply and those whose Smack label may send to its own, and about those only for a token "
                 "its package provides or guards; whether \"%s\" holds %s is not its to ask",
                 asker->unique_name, name, label);
        assert_string_equal(got, want);
}

static void test_held_and_resolved(void **state) {
        World w;

        world_start(&w, true);
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        fake_smackfs_grant(fake, "app", "Cellular", "w");
        app_calls_service(&w, &w.app);
        /* The calendar's bare "work" is its own calendar::work; "read" too, but not granted. */
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "work", NULL), 1);
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "calendar::work", NULL), 1);
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "read", NULL), 0);
        /* Not its own: the global one. */
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "Cellular", NULL), 1);
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "Location", NULL), 0);
        /* The question reached the kernel as "label token w". */
        assert_string_equal(fake->last_request, "app Location w");
        /* An app asks about itself: its bare "work" is the global work (app provides nothing). */
        assert_int_equal(check_token(&w, &w.app, w.app.unique_name, "work", NULL), 0);
        assert_string_equal(fake->last_request, "app work w");
        assert_int_equal(check_token(&w, &w.app, w.app.unique_name, "calendar::work", NULL), 1);
        world_stop(&w);
}

/*
 * Token names the policy does not know are asked of the kernel each time
 * and never interned: a client cannot grow the bus's label table by
 * asking about made-up names.
 */
static void test_made_up_tokens_cost_no_memory(void **state) {
        World w;
        char token[32];
        size_t labels;
        unsigned questions;

        world_start(&w, true);
        fake_smackfs_grant(fake, "app", "custom-label", "w");
        assert_int_equal(check_token(&w, &w.app, w.app.unique_name, "custom-label", NULL), 1);
        labels = smack_label_count();
        questions = fake->questions;
        for (int i = 0; i < 200; i++) {
                snprintf(token, sizeof(token), "made-up-%d", i);
                assert_int_equal(check_token(&w, &w.app, w.app.unique_name, token, NULL), 0);
        }
        assert_int_equal(smack_label_count(), labels);
        assert_int_equal(fake->questions, questions + 200);
        /* Not cached either: asked again, asked of the kernel again. */
        assert_int_equal(check_token(&w, &w.app, w.app.unique_name, "custom-label", NULL), 1);
        assert_int_equal(fake->questions, questions + 201);
        world_stop(&w);
}

/* A grant revoked between two questions: the second says no, with no reload in between. */
static void test_revocation_seen_at_once(void **state) {
        World w;

        world_start(&w, true);
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        app_calls_service(&w, &w.app);
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "work", NULL), 1);
        /* Cached now: the same question again does not reach the kernel. */
        unsigned questions = fake->questions;
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "work", NULL), 1);
        assert_int_equal(fake->questions, questions);
        /* As mssf-policy revokes: the kernel forgets, a write to load2 says so. */
        fake_smackfs_revoke(fake, "app", "calendar::work");
        fake_smackfs_write_file(fake, "load2", "app calendar::work -");
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "work", NULL), 0);
        world_stop(&w);
}

static void test_who_may_ask(void **state) {
        World w;
        char error[256];

        world_start(&w, true);
        fake_smackfs_grant(fake, "other", "calendar::work", "w");
        /* other has no call pending at the service and no Smack rule to it. */
        expect_error(&w, &w.svc, w.other.unique_name, "work", "org.freedesktop.DBus.Error.AccessDenied");
        /* Nor may app ask about other, or other about app. */
        expect_error(&w, &w.app, w.other.unique_name, "calendar::work", "org.freedesktop.DBus.Error.AccessDenied");
        expect_error(&w, &w.other, w.app.unique_name, "calendar::work", "org.freedesktop.DBus.Error.AccessDenied");
        /* A label that may send to the service's may be asked about, without a call... */
        fake_smackfs_grant(fake, "other", "calendar", "w");
        fake_smackfs_write_file(fake, "load2", "other calendar w");
        assert_int_equal(check_token(&w, &w.svc, w.other.unique_name, "work", NULL), 1);
        /* ...and not once the rule is gone. */
        fake_smackfs_revoke(fake, "other", "calendar");
        fake_smackfs_write_file(fake, "load2", "other calendar -");
        assert_int_equal(check_token(&w, &w.svc, w.other.unique_name, "work", error), -1);
        assert_string_equal(error, "org.freedesktop.DBus.Error.AccessDenied");
        world_stop(&w);
}

/*
 * The oracle that was: a package guarding one method with the global
 * Location has Smack reach from every holder of Location (mssf-policy
 * writes "holder package w"), so it could ask about each of them for any
 * token. It learns Location, which it guards, and nothing else: any
 * other token is not its to ask, in the same words as a connection it
 * may not ask about, decided before the connection named is looked at
 * (even one that does not exist), with no question to the kernel.
 */
static void test_asks_only_what_it_serves(void **state) {
        Client locator, unnamed;
        unsigned questions;
        World w;

        world_start(&w, true);
        connect_as(&w, &locator, "locator");
        own(&w, &locator, "org.example.Locator");
        fake_smackfs_grant(fake, "app", "Location", "w");
        fake_smackfs_grant(fake, "app", "Cellular", "w");
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        fake_smackfs_grant(fake, "app", "locator", "w");
        assert_int_equal(check_token(&w, &locator, w.app.unique_name, "Location", NULL), 1);
        questions = fake->questions;
        expect_not_its_to_ask(&w, &locator, w.app.unique_name, "Cellular", "Cellular");
        expect_not_its_to_ask(&w, &locator, w.app.unique_name, "calendar::work", "calendar::work");
        expect_not_its_to_ask(&w, &locator, w.app.unique_name, "work", "work");
        expect_not_its_to_ask(&w, &locator, w.app.unique_name, "made-up", "made-up");
        expect_not_its_to_ask(&w, &locator, ":1.999", "Cellular", "Cellular");
        assert_int_equal(fake->questions, questions);
        /* A token it guards, about a connection without reach to it: the same refusal. */
        expect_not_its_to_ask(&w, &locator, w.other.unique_name, "Location", "Location");
        /* About itself it may ask anything: the answer is its own. */
        assert_int_equal(check_token(&w, &locator, locator.unique_name, "Cellular", NULL), 0);
        assert_string_equal(fake->last_request, "locator Cellular w");
        /* Its label without the name speaks for the same package (the package named by the label). */
        connect_as(&w, &unnamed, "locator");
        assert_int_equal(check_token(&w, &unnamed, w.app.unique_name, "Location", NULL), 1);
        expect_not_its_to_ask(&w, &unnamed, w.app.unique_name, "Cellular", "Cellular");
        /* An app that provides and guards nothing may ask about nobody but itself. */
        fake_smackfs_grant(fake, "app", "other", "w");
        expect_not_its_to_ask(&w, &w.other, w.app.unique_name, "Location", "Location");
        client_close(&unnamed);
        client_close(&locator);
        world_stop(&w);
}

/*
 * The device policy's checkany label (the key service's) may ask about its
 * callers for any token, none of which its package provides or guards:
 * held, not held, made up, resolved as any connection's bare name is. The
 * second rule still holds for it (only its callers, and labels that may
 * send to it), a label under it or another label does not inherit the
 * right, and a version 3 policy.db gives it to nobody.
 */
static void test_checkany_label(void **state) {
        for (uint32_t version = POLICY_DB_FORMAT_VERSION_3; version <= POLICY_DB_FORMAT_VERSION; version++) {
                bool checkany = version == POLICY_DB_FORMAT_VERSION;
                Client keys, helper;
                World w;

                world_start_with(&w, true, version);
                connect_as(&w, &keys, "keys");
                connect_as(&w, &helper, "keys:helper");
                fake_smackfs_grant(fake, "app", "Cellular", "w");
                fake_smackfs_grant(fake, "app", "calendar::work", "w");
                fake_smackfs_grant(fake, "other", "Cellular", "w");
                /* app may call both (mssf-policy grants reach to the key service). */
                fake_smackfs_grant(fake, "app", "keys", "w");
                fake_smackfs_grant(fake, "app", "keys:helper", "w");
                calls(&w, &w.app, &keys);
                calls(&w, &w.app, &helper);
                if (checkany) {
                        assert_int_equal(check_token(&w, &keys, w.app.unique_name, "Cellular", NULL), 1);
                        assert_string_equal(fake->last_request, "app Cellular w");
                        assert_int_equal(check_token(&w, &keys, w.app.unique_name, "calendar::work", NULL), 1);
                        assert_int_equal(check_token(&w, &keys, w.app.unique_name, "Location", NULL), 0);
                        /* A made-up token and one not held: the same plain "no". */
                        assert_int_equal(check_token(&w, &keys, w.app.unique_name, "made-up", NULL), 0);
                        assert_string_equal(fake->last_request, "app made-up w");
                        /* Bare "work" is the global work: keys provides nothing. */
                        assert_int_equal(check_token(&w, &keys, w.app.unique_name, "work", NULL), 0);
                        assert_string_equal(fake->last_request, "app work w");
                        /* Not about a connection that neither waits for it nor may send to it. */
                        expect_error(&w, &keys, w.other.unique_name, "Cellular", ACCESS_DENIED);
                } else {
                        expect_not_its_to_ask(&w, &keys, w.app.unique_name, "Cellular", "Cellular");
                        expect_not_its_to_ask(&w, &keys, w.app.unique_name, "made-up", "made-up");
                }
                /* Its label, not its package: a label under it has no such right. */
                expect_not_its_to_ask(&w, &helper, w.app.unique_name, "Cellular", "Cellular");
                /* Nor has the calendar service, for a token it does not guard. */
                app_calls_service(&w, &w.app);
                expect_not_its_to_ask(&w, &w.svc, w.app.unique_name, "made-up", "made-up");
                client_close(&helper);
                client_close(&keys);
                world_stop(&w);
        }
}

/*
 * A helper whose label is not its package's, serving the package's name
 * through <owner label>: a bare name is its package's own token, as the
 * manifest that declared the name means it, not the global token of that
 * name; and the package's tokens are its to ask about. Before it serves
 * the name its label speaks for no package; after it gives the name up it
 * still does (it served the name).
 */
static void test_bare_names_follow_the_served_name(void **state) {
        Client helper;
        World w;

        world_start(&w, true);
        connect_as(&w, &helper, "calendar-helper");
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        fake_smackfs_grant(fake, "app", "calendar-helper", "w");
        expect_not_its_to_ask(&w, &helper, w.app.unique_name, "work", "work");
        own(&w, &helper, "org.example.Calendar");
        assert_int_equal(check_token(&w, &helper, w.app.unique_name, "work", NULL), 1);
        assert_string_equal(fake->last_request, "app calendar::work w");
        assert_int_equal(check_token(&w, &helper, w.app.unique_name, "read", NULL), 0);
        assert_string_equal(fake->last_request, "app calendar::read w");
        /* The calendar guards Dial with the global Cellular. */
        assert_int_equal(check_token(&w, &helper, w.app.unique_name, "Cellular", NULL), 0);
        assert_int_equal(check_token(&w, &helper, helper.unique_name, "work", NULL), 0);
        assert_string_equal(fake->last_request, "calendar-helper calendar::work w");
        release(&w, &helper, "org.example.Calendar");
        assert_int_equal(check_token(&w, &helper, w.app.unique_name, "work", NULL), 1);
        client_close(&helper);
        world_stop(&w);
}

/*
 * A helper labelled under its package's label ("calendar:sync", a label
 * its package may give it) speaks for that package even before it serves
 * a name: its bare "work" is calendar::work, and the calendar's tokens
 * are its to ask about. A label that only starts like the package's
 * ("calendarX") is another package's.
 */
static void test_label_under_the_package(void **state) {
        Client sync, lookalike;
        World w;

        world_start(&w, true);
        connect_as(&w, &sync, "calendar:sync");
        connect_as(&w, &lookalike, "calendarX");
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        fake_smackfs_grant(fake, "app", "calendar:sync", "w");
        fake_smackfs_grant(fake, "app", "calendarX", "w");
        assert_int_equal(check_token(&w, &sync, w.app.unique_name, "work", NULL), 1);
        assert_string_equal(fake->last_request, "app calendar::work w");
        expect_not_its_to_ask(&w, &lookalike, w.app.unique_name, "work", "work");
        client_close(&lookalike);
        client_close(&sync);
        world_stop(&w);
}

/*
 * A connection serving names of two packages: a bare name that the two
 * would resolve differently is refused (InvalidArgs: name it in full),
 * even about itself; one they resolve alike (a global token neither
 * provides) is not ambiguous. A token written in full is askable when one
 * of them serves it.
 */
static void test_names_of_two_packages(void **state) {
        Client shared;
        World w;

        world_start(&w, true);
        connect_as(&w, &shared, "shared");
        own(&w, &shared, "org.example.Calendar");
        own(&w, &shared, "org.example.Locator");
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        fake_smackfs_grant(fake, "app", "Location", "w");
        fake_smackfs_grant(fake, "app", "shared", "w");
        expect_error(&w, &shared, w.app.unique_name, "work", INVALID_ARGS);
        expect_error(&w, &shared, shared.unique_name, "work", INVALID_ARGS);
        assert_int_equal(check_token(&w, &shared, w.app.unique_name, "calendar::work", NULL), 1);
        assert_int_equal(check_token(&w, &shared, w.app.unique_name, "Location", NULL), 1);
        assert_int_equal(check_token(&w, &shared, w.app.unique_name, "Cellular", NULL), 0);
        expect_not_its_to_ask(&w, &shared, w.app.unique_name, "made-up", "made-up");
        client_close(&shared);
        world_stop(&w);
}

/*
 * A declared name whose declarer the file does not record (only a file
 * built without it, not mssf-policy's): its server's bare names cannot
 * be resolved (PolicyOutdated), global ones included, and it speaks for
 * no package, so about others it may ask nothing.
 */
static void test_unrecorded_declarer(void **state) {
        Client anon;
        World w;

        world_start(&w, true);
        connect_as(&w, &anon, "anon");
        own(&w, &anon, "org.example.Unrecorded");
        fake_smackfs_grant(fake, "app", "anon", "w");
        fake_smackfs_grant(fake, "app", "Cellular", "w");
        fake_smackfs_grant(fake, "app", "calendar::work", "w");
        expect_error(&w, &anon, anon.unique_name, "work", POLICY_OUTDATED);
        expect_error(&w, &anon, w.app.unique_name, "Cellular", POLICY_OUTDATED);
        assert_int_equal(check_token(&w, &anon, anon.unique_name, "calendar::work", NULL), 0);
        expect_not_its_to_ask(&w, &anon, w.app.unique_name, "calendar::work", "calendar::work");
        client_close(&anon);
        world_stop(&w);
}

/* A caller still waiting for the service's reply may be asked about, even without a Smack rule. */
static void test_pending_call_is_enough(void **state) {
        World w;

        world_start(&w, true);
        fake_smackfs_grant(fake, "app", "calendar::read", "w");
        app_calls_service(&w, &w.app);
        /* app's rule to the service goes; its call is still waiting. */
        fake_smackfs_revoke(fake, "app", "calendar");
        fake_smackfs_write_file(fake, "load2", "app calendar -");
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "read", NULL), 1);
        world_stop(&w);
}

static void test_bad_arguments(void **state) {
        World w;

        world_start(&w, true);
        app_calls_service(&w, &w.app);
        expect_error(&w, &w.svc, "org.example.App", "read", "org.freedesktop.DBus.Error.InvalidArgs");
        expect_error(&w, &w.svc, ":not valid", "read", "org.freedesktop.DBus.Error.InvalidArgs");
        expect_error(&w, &w.svc, ":1.999", "read", "org.freedesktop.DBus.Error.NameHasNoOwner");
        expect_error(&w, &w.svc, w.app.unique_name, "UID::root", "org.freedesktop.DBus.Error.InvalidArgs");
        expect_error(&w, &w.svc, w.app.unique_name, "two words", "org.freedesktop.DBus.Error.InvalidArgs");
        expect_error(&w, &w.svc, w.app.unique_name, "", "org.freedesktop.DBus.Error.InvalidArgs");
        expect_error(&w, &w.svc, w.app.unique_name, "*::x", "org.freedesktop.DBus.Error.InvalidArgs");
        world_stop(&w);
}

/* Every case the bus cannot answer is an error, never "false". */
static void test_fails_closed(void **state) {
        World w;
        Client unlabelled;

        world_start(&w, true);
        fake_smackfs_grant(fake, "app", "calendar::read", "w");
        next_label = NULL;
        client_connect(&w.h, &unlabelled, false, true);
        expect_error(&w, &unlabelled, unlabelled.unique_name, "calendar::read", "org.mssf.Broker1.Error.NoLabel");
        app_calls_service(&w, &w.app);
        fake->answer = FAKE_ANSWER_READ_ERROR;
        expect_error(&w, &w.svc, w.app.unique_name, "read", "org.freedesktop.DBus.Error.Failed");
        fake->answer = FAKE_ANSWER_GARBAGE;
        expect_error(&w, &w.svc, w.app.unique_name, "read", "org.freedesktop.DBus.Error.Failed");
        fake->answer = FAKE_ANSWER_KERNEL;
        assert_int_equal(check_token(&w, &w.svc, w.app.unique_name, "read", NULL), 1);
        client_close(&unlabelled);
        world_stop(&w);
}

/* Without Smack nobody holds a token: SmackDisabled, for a caller the service may ask about. */
static void test_without_smack(void **state) {
        World w;

        world_start(&w, false);
        app_calls_service(&w, &w.app);
        expect_error(&w, &w.svc, w.app.unique_name, "read", "org.mssf.Broker1.Error.SmackDisabled");
        expect_error(&w, &w.app, w.app.unique_name, "Cellular", "org.mssf.Broker1.Error.SmackDisabled");
        /* Who may ask is still decided first. */
        expect_error(&w, &w.svc, w.other.unique_name, "read", "org.freedesktop.DBus.Error.AccessDenied");
        /*
         * Without Smack nobody holds anything and every answer is this
         * error: there is nothing for the tokens' rule to protect.
         */
        expect_error(&w, &w.svc, w.app.unique_name, "made-up", "org.mssf.Broker1.Error.SmackDisabled");
        world_stop(&w);
}

/*
 * Older files do not say what a package serves, so no question about
 * another connection can be judged (PolicyOutdated); about itself a
 * connection is answered as far as the file can say: a full name always,
 * a bare one resolved by its label from version 2's provided tokens, and
 * not once it serves a declared name (whose declarer the file lacks).
 */
static void test_policy_outdated(void **state) {
        for (uint32_t version = POLICY_DB_FORMAT_VERSION_1; version <= POLICY_DB_FORMAT_VERSION_2; version++) {
                Client helper;
                World w;

                world_start_with(&w, true, version);
                fake_smackfs_grant(fake, "app", "calendar::work", "w");
                fake_smackfs_grant(fake, "calendar", "calendar::work", "w");
                app_calls_service(&w, &w.app);
                expect_error(&w, &w.svc, w.app.unique_name, "work", POLICY_OUTDATED);
                expect_error(&w, &w.svc, w.app.unique_name, "calendar::work", POLICY_OUTDATED);
                assert_int_equal(check_token(&w, &w.svc, w.svc.unique_name, "calendar::work", NULL), 1);
                if (version == POLICY_DB_FORMAT_VERSION_1)
                        expect_error(&w, &w.svc, w.svc.unique_name, "work", POLICY_OUTDATED);
                else
                        assert_int_equal(check_token(&w, &w.svc, w.svc.unique_name, "work", NULL), 1);
                connect_as(&w, &helper, "calendar-helper");
                own(&w, &helper, "org.example.Calendar");
                expect_error(&w, &helper, helper.unique_name, "work", POLICY_OUTDATED);
                assert_int_equal(check_token(&w, &helper, helper.unique_name, "calendar::work", NULL), 0);
                client_close(&helper);
                world_stop(&w);
        }
}

/* Introspection lists it; away from the canonical path it does not exist. */
static void test_introspection_and_path(void **state) {
        World w;
        const char *xml;

        world_start(&w, true);
        uint32_t serial = client_call(&w.h, &w.app, DRIVER, DRIVER_PATH, "org.freedesktop.DBus.Introspectable",
                                      "Introspect", "");
        _cleanup_(message_unrefp) Message *reply = client_wait_reply(&w.h, &w.app, serial);
        assert_non_null(reply);
        assert_int_equal(message_read(reply, "s", &xml), 0);
        assert_non_null(strstr(xml, "<interface name=\"org.mssf.Broker1\">\n"
                                    "    <method name=\"GetStats\">"));
        /* Who may ask about whom is documented where a client reads the method. */
        assert_non_null(strstr(xml, "Who may ask about whom: the asker about itself, for any token;\n"));
        assert_non_null(strstr(xml, "token its package provides or guards (decided first, from its own\n"));
        assert_non_null(strstr(xml, "    -->\n    <method name=\"CheckToken\">\n"
                                    "      <arg name=\"name\" direction=\"in\" type=\"s\"/>\n"
                                    "      <arg name=\"token\" direction=\"in\" type=\"s\"/>\n"
                                    "      <arg name=\"held\" direction=\"out\" type=\"b\"/>\n"
                                    "    </method>\n  </interface>\n"));
        serial = client_call(&w.h, &w.app, DRIVER, "/", "org.mssf.Broker1", "CheckToken", "ss",
                             w.app.unique_name, "x");
        _cleanup_(message_unrefp) Message *error = client_wait_reply(&w.h, &w.app, serial);
        assert_non_null(error);
        assert_string_equal(message_get_error_name(error), "org.freedesktop.DBus.Error.UnknownInterface");
        world_stop(&w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_held_and_resolved),
                cmocka_unit_test(test_revocation_seen_at_once),
                cmocka_unit_test(test_made_up_tokens_cost_no_memory),
                cmocka_unit_test(test_who_may_ask),
                cmocka_unit_test(test_asks_only_what_it_serves),
                cmocka_unit_test(test_checkany_label),
                cmocka_unit_test(test_bare_names_follow_the_served_name),
                cmocka_unit_test(test_label_under_the_package),
                cmocka_unit_test(test_names_of_two_packages),
                cmocka_unit_test(test_unrecorded_declarer),
                cmocka_unit_test(test_pending_call_is_enough),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_fails_closed),
                cmocka_unit_test(test_without_smack),
                cmocka_unit_test(test_policy_outdated),
                cmocka_unit_test(test_introspection_and_path),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
