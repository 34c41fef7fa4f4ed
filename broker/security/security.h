/* security: the bus's policy state and the per-message checks, in one place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"
#include "mediation.h"

typedef struct BusConfig BusConfig;
typedef struct BusconfigClient BusconfigClient;
typedef struct BusconfigPolicy BusconfigPolicy;
typedef struct Message Message;
typedef struct NamePeerState NamePeerState;
typedef struct PolicyDb PolicyDb;
typedef struct SmackOracle SmackOracle;
typedef struct Security Security;

enum {
        SECURITY_E_DENIED = 1,          /* see SecurityVerdict */
        SECURITY_E_POLICY,              /* the compiled policy did not load: see the text */
};

/* How a message reaches a receiver: busconfig rules treat these apart. */
typedef enum SecurityRoute {
        SECURITY_ROUTE_UNICAST,         /* addressed to the receiver (or the driver) */
        SECURITY_ROUTE_REPLY,           /* an expected reply or error, to its caller */
        SECURITY_ROUTE_BROADCAST,       /* a match rule selected the receiver */
        SECURITY_ROUTE_EAVESDROP,       /* addressed to someone else; the receiver eavesdrops */
        SECURITY_ROUTE_MONITOR,         /* a copy for a monitor (BecomeMonitor) */
} SecurityRoute;

/* Which check denied: the busconfig policy or MSSF mediation. */
typedef enum SecurityLayer {
        SECURITY_LAYER_NONE,
        SECURITY_LAYER_BUSCONFIG,
        SECURITY_LAYER_MSSF,
} SecurityLayer;

typedef struct SecurityVerdict {
        SecurityLayer layer;
        bool log;                       /* a busconfig rule with log="true" decided */
        MediationVerdict mssf;          /* LAYER_MSSF: label, token, reason... */
        char text[1280];                /* the AccessDenied text: names the rule */
} SecurityVerdict;

/*
 * What the checks need of one peer. The owner (the bus's Peer) embeds it,
 * keeps names current with security_peer_names_changed(), and never
 * touches the rest.
 */
typedef struct SecurityPeer {
        uid_t uid;
        gid_t *gids;                    /* (owned) primary + supplementary */
        size_t n_gids;
        BusconfigClient *busconfig;     /* (owned ref) this identity's <policy> rules */
        MediationPeer mssf;             /* label, unique name, names (mssf_names) */
        const char **names;             /* (owned array; strings borrowed from the name registry) */
        size_t n_names;
        size_t cap_names;
        bool names_dirty;
        const NamePeerState *name_state;        /* (borrowed) where names come from */
        /*
         * Protection follows the connection: every declared name it ever
         * owned or queued for (copies), and what mediation sees, names
         * followed by those not among them.
         */
        char **declared;                /* (owned) */
        size_t n_declared;
        const char **mssf_names;        /* (owned array; strings borrowed from names and declared) */
        size_t cap_mssf_names;
        const Security *security;       /* (borrowed) the policy that says which names are declared */
        char label_text[256];           /* SO_PEERSEC as read, for logs ("" without) */
} SecurityPeer;

typedef struct SecurityCounters {
        uint64_t allowed;
        uint64_t busconfig_denied;
        MediationCounters mssf;
} SecurityCounters;

/*
 * Compiles config's <policy>, loads the compiled MSSF policy from
 * policy_path (NULL: none; a missing file means no package has declared
 * anything; one that exists but does not load is SECURITY_E_POLICY, with
 * the reason in err: the bus must not run with a policy it cannot read),
 * and opens the Smack oracle (smackfs NULL: /sys/fs/smackfs).
 * Warnings from the busconfig compiler go to *ret_warnings (may be NULL).
 */
int security_new(const BusConfig *config, uid_t bus_uid, const char *policy_path, const char *smackfs,
                 Security **ret, char ***ret_warnings, char *err, size_t err_size);
Security *security_free(Security *security);

/*
 * Reload: a new busconfig policy from config and the compiled policy
 * again. All or nothing: on any error the old state stays in force and
 * err says why. On success every peer must then be re-attached with
 * security_peer_refresh() before the next message is judged.
 */
int security_reload(Security *security, const BusConfig *config, char ***ret_warnings, char *err,
                    size_t err_size);

/* Whether the connect check judges groups at all (busconfig_policy_connect_uses_groups()). */
bool security_connect_needs_groups(const Security *security);

/* Whether this uid/gid set may connect (<allow user=> / <allow group=>). */
bool security_check_connect(Security *security, uid_t uid, const gid_t *gids, size_t n_gids,
                            char *why, size_t why_size);

/* label may be NULL (no LSM). gids are copied. */
int security_peer_init(Security *security, SecurityPeer *peer, uid_t uid, const gid_t *gids,
                       size_t n_gids, const char *label, const char *unique_name,
                       const NamePeerState *name_state);
void security_peer_deinit(SecurityPeer *peer);
/* After a reload: this peer's busconfig rules from the new policy. */
int security_peer_refresh(Security *security, SecurityPeer *peer);
/* The peer's owned or queued names changed (RequestName, ReleaseName, a queue moving). */
void security_peer_names_changed(SecurityPeer *peer);
/* The peer's unique name once Hello assigned it (borrowed: must outlive the peer). */
void security_peer_set_unique_name(SecurityPeer *peer, const char *unique_name);
/*
 * The well-known names peer owns or is queued for, and every declared one
 * it ever owned or queued for (a service that gives its name up, or loses
 * it to a replacement, stays protected by that name's manifest for the
 * rest of the connection), brought up to date first: *ret_names
 * (borrowed, valid until they change) and *ret_n.
 * 0, or -ENOMEM (nothing written): callers must then fail closed.
 */
int security_peer_get_names(SecurityPeer *peer, const char *const **ret_names, size_t *ret_n);

/*
 * May m go from sender to receiver (NULL: the bus driver) by route?
 * 0 allows; SECURITY_E_DENIED fills ret. busconfig first, then Smack and
 * tokens. No I/O but the Smack oracle's cached kernel questions.
 *
 * The observer routes (EAVESDROP, MONITOR) judge a copy as if the
 * observer were m's recipient: Smack from the sender's label to the
 * observer's (a reply or error too: it is not the observer's expected
 * reply), and a signal's tokens held by the observer. MONITOR skips
 * busconfig (dbus-daemon's monitors are outside it; BecomeMonitor's own
 * checks admitted the peer). A copy withheld from an observer is not a
 * denial of anything the sender did: the observer routes are not counted.
 */
int security_check_message(Security *security, SecurityPeer *sender, SecurityPeer *receiver, Message *m,
                           SecurityRoute route, SecurityVerdict *ret);

/*
 * An observer's copy of a reply (m, a method return or error from a
 * peer), once security_check_message() allowed the copy on its observer
 * route: does the observer hold every token the call needed (needs, from
 * the reply slot; NULL or not known: no)? 0 or SECURITY_E_DENIED. Not
 * counted, like the observer routes.
 */
int security_check_observer_reply(Security *security, SecurityPeer *observer, Message *m,
                                  const MediationNeeds *needs, SecurityVerdict *ret);

/*
 * Bus activation: may m from sender make the bus start the service that
 * will own name (nobody owns it yet)? Judged as if the receiver owned
 * name and nothing else: busconfig send rules match the DESTINATION
 * field (as dbus-daemon judges activation with no recipient), then the
 * tokens name's manifest requires of the sender. The Smack label check
 * waits for delivery, when the service has connected and has a label;
 * the message is judged again in full then. 0 or SECURITY_E_DENIED.
 */
int security_check_activation(Security *security, SecurityPeer *sender, const char *name, Message *m,
                              SecurityVerdict *ret);

/* May peer own or queue for name (busconfig own rules, then the manifests)? */
int security_check_own(Security *security, SecurityPeer *peer, const char *name, SecurityVerdict *ret);

/*
 * May peer watch traffic addressed to others (BecomeMonitor, an
 * eavesdrop=true match rule)? Beyond dbus-daemon's own rules, with Smack
 * the peer's label must be one the device policy names as a monitor
 * (no compiled policy: none is). Without Smack there are no labels to
 * judge, and only dbus-daemon's rules apply.
 */
bool security_check_monitor(Security *security, SecurityPeer *peer, char *why, size_t why_size);

/* Before each batch of dispatch: flushes Smack answers if rules changed. */
int security_refresh(Security *security);
/* The fd to poll for Smack rule changes; -1 without Smack. */
int security_get_fd(const Security *security);

const SecurityCounters *security_get_counters(const Security *security);
const PolicyDb *security_get_policy_db(const Security *security);
SmackOracle *security_get_oracle(const Security *security);
bool security_has_smack(const Security *security);

DEFINE_CLEANUP(Security *, security_free);
