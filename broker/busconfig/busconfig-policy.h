/* busconfig-policy: dbus-daemon's <policy> language, compiled for lookups. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

typedef struct BusConfig BusConfig;
typedef struct BusPolicyRule BusPolicyRule;
typedef struct BusconfigPolicy BusconfigPolicy;
typedef struct BusconfigClient BusconfigClient;

/*
 * Who a connection is, as far as <policy> contexts care. gids holds every
 * group of the connection (primary and supplementary, from the kernel).
 */
typedef struct BusconfigIdentity {
        uid_t uid;
        const gid_t *gids;
        size_t n_gids;
        bool at_console;
} BusconfigIdentity;

/* The parts of a message that rules look at; strings are nullable. */
typedef struct BusconfigMessage {
        uint8_t type;                   /* 1 call, 2 return, 3 error, 4 signal */
        bool is_reply;                  /* it carries a REPLY_SERIAL */
        const char *path;
        const char *interface;
        const char *member;
        const char *error_name;
        const char *destination;        /* the DESTINATION field as sent */
        const char *sender;             /* the SENDER field the bus stamped */
        unsigned n_fds;
} BusconfigMessage;

/*
 * A peer as rules see it: its unique name and every well-known name it owns
 * or is queued for. NULL in place of a peer stands for the bus driver.
 */
typedef struct BusconfigPeer {
        const char *unique_name;
        const char *const *names;
        size_t n_names;
} BusconfigPeer;

typedef enum BusconfigCheck {
        BUSCONFIG_CHECK_SEND,
        BUSCONFIG_CHECK_RECEIVE,
        BUSCONFIG_CHECK_OWN,
        BUSCONFIG_CHECK_CONNECT,
} BusconfigCheck;

/*
 * The outcome of one check. rule is the rule that decided (the last one
 * that matched), or NULL when none did and the default decided.
 */
typedef struct BusconfigVerdict {
        bool allow;
        bool log;                       /* the deciding rule had log="true" */
        BusconfigCheck check;
        const BusPolicyRule *rule;      /* (borrowed, nullable) */
        const char *context;            /* (borrowed, nullable) "default", "user=\"root\"", ... */
} BusconfigVerdict;

/*
 * Compiles the <policy> elements of config. config must outlive the
 * policy (rules are borrowed, not copied). User and group names are
 * resolved through NSS now; unknown ones are skipped as dbus-daemon skips
 * them, each with a "file:line: ..." line added to *ret_warnings (a
 * NULL-terminated array the caller frees with busconfig_warnings_free(); may be NULL).
 * bus_uid is the uid the bus runs as: it may always connect.
 */
int busconfig_policy_new(const BusConfig *config, uid_t bus_uid, BusconfigPolicy **ret,
                         char ***ret_warnings);
BusconfigPolicy *busconfig_policy_ref(BusconfigPolicy *policy);
BusconfigPolicy *busconfig_policy_unref(BusconfigPolicy *policy);

/*
 * May a connection of this user connect at all: the user= and group=
 * rules of the default and mandatory contexts, last match wins, starting
 * from "only the bus's own user".
 */
/*
 * Whether a connect rule (<allow|deny group="...">, in the default or
 * mandatory context) names a group: only then do a connecting uid's
 * groups change busconfig_policy_check_connect()'s answer ("*" matches
 * whatever the groups).
 */
bool busconfig_policy_connect_uses_groups(const BusconfigPolicy *policy);

void busconfig_policy_check_connect(const BusconfigPolicy *policy, const BusconfigIdentity *identity,
                                    BusconfigVerdict *ret);

/*
 * The rules that apply to one identity, in dbus-daemon's order: default,
 * each group, the user, at_console true or false, mandatory. Identities
 * that compare equal share one client (returned with a new reference).
 */
int busconfig_policy_get_client(BusconfigPolicy *policy, const BusconfigIdentity *identity,
                                BusconfigClient **ret);
BusconfigClient *busconfig_client_ref(BusconfigClient *client);
BusconfigClient *busconfig_client_unref(BusconfigClient *client);

/* May this client send message to receiver (NULL: the bus driver)? */
void busconfig_client_check_send(const BusconfigClient *client, const BusconfigMessage *message,
                                 const BusconfigPeer *receiver, bool requested_reply,
                                 BusconfigVerdict *ret);

/*
 * May this client receive message from sender (NULL: the bus driver)?
 * eavesdropping: the client is not the message's addressed recipient
 * although the message has a destination.
 */
void busconfig_client_check_receive(const BusconfigClient *client, const BusconfigMessage *message,
                                    const BusconfigPeer *sender, bool eavesdropping,
                                    bool requested_reply, BusconfigVerdict *ret);

/*
 * Whether check_send() (check_receive()) would allow every message with
 * n_fds descriptors, whatever else it holds and whoever the peer
 * (precomputed when the client was built): then the check may be skipped.
 * false says only that the check must run.
 */
bool busconfig_client_allows_every_send(const BusconfigClient *client, unsigned n_fds);
bool busconfig_client_allows_every_receive(const BusconfigClient *client, unsigned n_fds);

/* May this client own (or queue for) name? */
void busconfig_client_check_own(const BusconfigClient *client, const char *name,
                                BusconfigVerdict *ret);

/*
 * dbus-daemon's at_console test: with logind, a session on a seat;
 * without, /var/run/console/USER exists. Does I/O: call at connect time.
 */
bool busconfig_user_at_console(uid_t uid);

/*
 * Whether any rule is in an at_console context: only then is a
 * connection's console state worth asking (it costs a passwd lookup and
 * a file check per connection), and without such rules it changes nothing.
 */
bool busconfig_policy_uses_console(const BusconfigPolicy *policy);

/* Frees the warnings of busconfig_policy_new(); NULL-safe, returns NULL. */
char **busconfig_warnings_free(char **warnings);

DEFINE_CLEANUP(BusconfigPolicy *, busconfig_policy_unref);
DEFINE_CLEANUP(BusconfigClient *, busconfig_client_unref);

/*
 * Describes why a verdict was reached, for AccessDenied texts and logs:
 * 'denied by <deny send_destination="x" send_member="Y"/> (file:line) in
 * context="default" (file:line)', or 'no rule allows it' when none
 * matched. Always NUL-terminates; truncates to size.
 */
void busconfig_verdict_describe(const BusconfigVerdict *verdict, char *buf, size_t size);
