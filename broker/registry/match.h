/* Match rules: parsing, per-peer rule lists, indexed broadcast matching. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ilist.h"
#include "macro.h"

struct Peer;
typedef struct MessageArg MessageArg;           /* broker/wire/message.h */
typedef struct NamePeerState NamePeerState;     /* names.h */

/*
 * AddMatch/RemoveMatch and the choice of broadcast recipients, with the
 * semantics of dbus-daemon's bus/signals.c (see match-rule.c for the
 * grammar and the few deliberate, stricter deviations; the parser is
 * tested against dbus-daemon itself).
 *
 * Rules are parsed from their string form (untrusted: any bytes, bounded
 * by MATCH_RULE_MAX), validated, and stored in an index keyed by
 * eavesdrop, sender, (interface, member) and then arg0, path or
 * path_namespace (match.c), so delivering a message looks at the few
 * lists that can match instead of every rule on the bus.
 *
 * Return codes: 0; MATCH_E_INVALID (MatchRuleInvalid), MATCH_E_TOO_LONG
 * and MATCH_E_QUOTA (LimitsExceeded), MATCH_E_NOT_FOUND
 * (MatchRuleNotFound); -ENOMEM.
 */

#define MATCH_RULE_MAX 1024     /* DBUS_MAXIMUM_MATCH_RULE_LENGTH */
#define MATCH_ARGS_MAX 64       /* arg0 .. arg63 */

enum {
        MATCH_E_INVALID = 1,
        MATCH_E_TOO_LONG,
        MATCH_E_QUOTA,
        MATCH_E_NOT_FOUND,
};

typedef struct MatchRegistry MatchRegistry;
typedef struct MatchRule MatchRule;

/*
 * Per-peer state, embedded in the peer: the peer's rules, so a disconnect
 * costs O(its own rules). The peer pointer is opaque, never dereferenced.
 */
typedef struct MatchOwner {
        MatchRegistry *registry;
        struct Peer *peer;
        IList rules;            /* MatchRule.owner_link, in AddMatch order */
        size_t n_rules;
        size_t *tally;          /* (nullable, not owned) moves with n_rules: a total over several owners */
        uint64_t stamp;         /* dedup during one match_registry_dispatch() */
} MatchOwner;

/*
 * The message being routed, as the bus sees it. Strings are the header
 * fields (NULL when absent); args are the first n_args body arguments as
 * message_get_args() provides them.
 */
typedef struct MatchMessage {
        uint8_t type;                           /* MESSAGE_METHOD_CALL .. MESSAGE_SIGNAL */
        const char *sender;                     /* unique name, or "org.freedesktop.DBus" from the driver */
        const NamePeerState *sender_names;      /* (nullable) the sending peer's names; NULL for the driver */
        const char *destination;                /* (nullable) NULL: a broadcast */
        const NamePeerState *destination_names; /* (nullable) the addressed peer's names */
        struct Peer *recipient;                 /* (nullable) addressed peer: gets it by routing, skipped here */
        const char *path;
        const char *interface;
        const char *member;
        const MessageArg *args;
        size_t n_args;
} MatchMessage;

int match_registry_new(MatchRegistry **ret);
/* Every owner must have been deinitialised first (asserted). */
MatchRegistry *match_registry_free(MatchRegistry *registry);
size_t match_registry_n_rules(const MatchRegistry *registry);
/*
 * Sender sets, buckets, leaves and per-destination lists of the index
 * (statistics and tests: the index frees empty nodes at once, so this is
 * 0 iff there are no rules).
 * Walks the index: not for the hot path.
 */
size_t match_registry_n_index_nodes(const MatchRegistry *registry);

void match_owner_init(MatchOwner *owner, MatchRegistry *registry, struct Peer *peer);
/* From now on tally (nullable) counts the owner's rules too; what it has moves over. */
void match_owner_set_tally(MatchOwner *owner, size_t *tally);
/* Removes all of the owner's rules. */
void match_owner_deinit(MatchOwner *owner);

/*
 * AddMatch: parses text (n bytes, need not be NUL-terminated) and adds the
 * rule for owner, unless the owner already has max_rules rules
 * (MATCH_E_QUOTA). Identical rules may be added more than once.
 */
int match_owner_add(MatchOwner *owner, const char *text, size_t n, size_t max_rules);

/*
 * RemoveMatch: removes the most recently added one of owner's rules that
 * is equal to the parsed text (dbus-daemon's comparison: same keys, same
 * values; eavesdrop='false' equals no eavesdrop key). MATCH_E_INVALID if
 * text does not parse, MATCH_E_NOT_FOUND if no rule is equal.
 */
int match_owner_remove(MatchOwner *owner, const char *text, size_t n);

/*
 * A unique name disconnected: drop every rule (of any owner) with
 * sender='that unique name' or destination='that unique name'; unique
 * names are never reused, so they can never match again (dbus-daemon does
 * the same, and RemoveMatch of them then answers MatchRuleNotFound).
 */
void match_registry_forget_sender(MatchRegistry *registry, const char *unique_name);

/*
 * Delivery: calls fn once for each owner (other than msg->recipient) with
 * at least one rule matching msg. eavesdrop is true when msg has a
 * destination: then only eavesdrop='true' rules match and the caller must
 * apply its eavesdropping policy. A non-zero return from fn stops the walk
 * and is returned. fn must not add or remove rules.
 */
typedef int (*MatchRecipientFn)(void *userdata, MatchOwner *owner, bool eavesdrop);
int match_registry_dispatch(MatchRegistry *registry, const MatchMessage *msg,
                            MatchRecipientFn fn, void *userdata);

/* A standalone rule (parsing and testing one rule, for tests and monitors). */
int match_rule_parse(const char *text, size_t n, MatchRule **ret);
MatchRule *match_rule_free(MatchRule *rule);
bool match_rule_matches(const MatchRule *rule, const MatchMessage *msg);
/*
 * BecomeMonitor: dbus-daemon turns every monitor rule into an eavesdropping
 * one, so type='method_call' sees calls addressed to others. Only for a
 * standalone rule (one not added to an owner).
 */
void match_rule_set_eavesdrop(MatchRule *rule, bool eavesdrop);
bool match_rule_equal(const MatchRule *a, const MatchRule *b);

DEFINE_CLEANUP(MatchRule *, match_rule_free);
DEFINE_CLEANUP(MatchRegistry *, match_registry_free);
