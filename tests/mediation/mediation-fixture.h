/* The fixture the mediation tests share: peers, a policy built in code, a fake smackfs, messages. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mediation.h"

typedef struct FakeSmackfs FakeSmackfs;
typedef struct Message Message;
typedef struct PolicyDb PolicyDb;
typedef struct SmackOracle SmackOracle;

#define CELLULAR_PATH "/org/mssf/Cellular"
#define CELLULAR_IFACE "org.mssf.Cellular"
#define PROPERTIES "org.freedesktop.DBus.Properties"
#define PEER "org.freedesktop.DBus.Peer"

/*
 * The peers: apps (APP reaches the services but holds nothing, DIALER
 * holds Cellular, PHONE Cellular, Telephony and T1..T5, ISOLATED reaches
 * nothing), services (CELLULAR owns org.mssf.Cellular, CELLULAR_QUEUED
 * waits for it, PLAIN owns an undeclared name, LOCATION owns
 * org.mssf.Location, MULTI owns an undeclared and a declared name),
 * NOLABEL, and DRIVER (the bus: NULL).
 */
enum {
        APP, DIALER, PHONE, ISOLATED, CELLULAR, CELLULAR_QUEUED, PLAIN, LOCATION, MULTI, NOLABEL,
        DRIVER, _PEER_MAX,
};

extern MediationPeer fixture_peers[_PEER_MAX];
extern PolicyDb *fixture_db;

/*
 * The rules of org.mssf.Cellular at CELLULAR_PATH: methods of
 * CELLULAR_IFACE open by default, Dial needs Cellular, Hangup Cellular and
 * Telephony, Big T1..T5; Introspect open; signal CallStarted needs
 * Cellular; property Imei needs Cellular to read, the write of Powered
 * Telephony. org.mssf.Location: GetPosition needs Location.
 * org.mssf.Reserved: no rules.
 */
typedef struct FixtureRule {
        const char *name;
        int kind;                       /* PolicyKind */
        const char *path, *interface, *member;
        const char *tokens[6];          /* NULL-terminated; none: open */
} FixtureRule;

extern const FixtureRule fixture_rules[];
extern const size_t fixture_n_rules;

typedef struct Fixture {
        FakeSmackfs *fake;
        SmackOracle *oracle;
        SmackOracle *no_smack;
} Fixture;

/* cmocka setup/teardown: the policy, the peers, the fake kernel with its rules, two oracles. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* NULL for DRIVER. */
const MediationPeer *fixture_peer(int index);

/* What a message is made of. */
typedef struct MessageSpec {
        uint8_t type;
        const char *destination;
        const char *path;
        const char *interface;
        const char *member;             /* the error name for an error */
        const char *signature;          /* body from arg0/arg1: 's', 'u', 'v' (a boolean) */
        const char *arg0;
        const char *arg1;
        const char *arg2;
} MessageSpec;

Message *fixture_message(const MessageSpec *spec);
