/*
 * The message bus: peers and routing, one message in, copies out or an
 * error (broker/bus/, README.md).
 *
 * Direction: the bus calls io/ and the rooms below it (security/,
 * busconfig/, mediation/, propfilter/, registry/, smack/, wire/,
 * config/). It knows neither the driver nor activation: they call down
 * into it and hand it messages through dispatch.h, and it calls up only
 * through the BusHooks that daemon/ gives it (bus-hooks.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "connection.h"
#include "creds.h"
#include "ilist.h"
#include "loop.h"
#include "macro.h"
#include "match.h"
#include "names.h"
#include "notify.h"
#include "reply.h"
#include "security.h"
#include "strmap.h"
#include "uidcount.h"
#include "userdb.h"

typedef struct BusActivation BusActivation;
typedef struct BusConfig BusConfig;
typedef struct BusHooks BusHooks;
typedef struct Listener Listener;
typedef struct MatchRule MatchRule;
typedef struct Message Message;
typedef struct MessageBuilder MessageBuilder;
typedef struct QuotaAccount QuotaAccount;
typedef struct QuotaRegistry QuotaRegistry;

#define BUS_DRIVER_NAME "org.freedesktop.DBus"
#define BUS_DRIVER_PATH "/org/freedesktop/DBus"
#define BUS_UNIQUE_NAME_MAX 32

typedef struct Bus Bus;

typedef struct Peer {
        Bus *bus;
        uint64_t id;
        Connection connection;
        LoopSource source;
        LoopTimer auth_timer;           /* auth_timeout until Hello; pending_fd_timeout after it */
        Creds creds;
        char unique_name[BUS_UNIQUE_NAME_MAX];  /* empty until Hello */
        bool connect_checked;           /* authenticated, and allowed to connect (peer_check_connect) */
        bool registered;                /* Hello done */
        bool monitor;
        bool dead;                      /* disconnected; freed after the batch */
        bool doomed;                    /* to be disconnected after this batch (Bus.doomed) */
        bool queue_full_logged;         /* a refusal for its full queue was logged; reset once it drains */
        bool want_out;                  /* its socket was full: waiting for EPOLLOUT */
        ConnectionCharge *charge;       /* (owned ref) what it has queued at others (statistics) */
        QuotaAccount *quota;            /* (owned ref, nullable) its label's account: with Smack, from Hello (bus-quota.h) */
        NamePeerState names;
        SecurityPeer security;          /* what busconfig and MSSF checks read */
        MatchOwner matches;
        ReplyOwner replies;
        size_t n_eavesdrop_rules;       /* its AddMatch rules with eavesdrop='true' */
        MatchRule **monitor_rules;      /* (owned) BecomeMonitor rules; none: everything */
        size_t n_monitor_rules;
        IList link;                     /* Bus.peers, then Bus.dead */
        IList dirty_link;               /* Bus.dirty while output is queued */
        IList monitor_link;             /* Bus.monitors */
        IList doomed_link;              /* Bus.doomed */
} Peer;

/* What flow control did (peer.c, dispatch.c): org.mssf.Broker1.GetStats. */
typedef struct BusFlowCounters {
        uint64_t refused;               /* unicasts refused: the recipient's queue was full */
        uint64_t disconnected;          /* peers disconnected: they did not take what they asked for */
} BusFlowCounters;

struct Bus {
        Security *security;             /* (owned) busconfig policy, MSSF policy, Smack oracle */
        UserDb *userdb;                 /* (owned, nullable) NSS's groups per uid, while true */
        Loop *loop;                     /* (not owned) */
        BusConfig *config;              /* (owned) */
        char guid[33];
        char machine_id[33];
        unsigned auth_mechanisms;
        Listener *listeners;            /* (owned) list */
        char **listen_bound;            /* (owned, nullable) the <listen> texts bound at start-up */
        size_t n_listen_bound;
        NameRegistry *names;            /* (owned) */
        MatchRegistry *matches;         /* (owned) */
        ReplyRegistry *replies;         /* (owned) */
        LoopTimer reply_timer;
        StrMap peers_by_name;           /* unique name -> Peer */
        IList peers;
        IList dirty;
        IList dead;
        IList monitors;
        IList doomed;                   /* peers to disconnect once the batch is done */
        BusFlowCounters flow;
        QuotaRegistry *quota;           /* (owned, nullable) per-label accounts: with Smack, from the first Hello */
        bool accepting_paused;          /* max_incomplete_connections reached: listeners wait */
        uint64_t next_peer_id;
        size_t n_incomplete;
        size_t n_complete;
        UidCount complete_by_uid;       /* registered peers per uid: max_connections_per_user */
        /*
         * An upper bound of the eavesdropping rules on the bus (rules that
         * the registry drops by itself, for a departed sender, are not
         * subtracted): while 0, unicast messages skip the eavesdropper
         * lookup and the body-argument scan it needs.
         */
        size_t n_eavesdrop_rules;
        const BusHooks *hooks;          /* (not owned) the driver, activation, the daemon */
        void *hooks_userdata;           /* (not owned) the daemon's, for its hooks */
        BusActivation *activation;      /* (nullable) activation/'s, which daemon/ sets up and frees */
        Notify notify;                  /* sd_notify: READY, RELOADING, STATUS */
};

/* A bus on loop with config (taken), calling up through hooks (bus-hooks.h; every one set). */
int bus_new(Loop *loop, BusConfig *config, const BusHooks *hooks, void *hooks_userdata, Bus **ret);
Bus *bus_free(Bus *bus);

/* Binds every <listen> address (or the one given); systemd: adopts LISTEN_FDS. */
int bus_listen(Bus *bus, const char *address_override);
/* The connectable addresses of all listeners, ';'-separated (for --print-address). */
int bus_addresses(const Bus *bus, char **ret);

/* The policy state: busconfig <policy>, the compiled MSSF policy, Smack. Logs its errors. */
int bus_setup_security(Bus *bus, const char *policy_path);
/*
 * The bus's part of ReloadConfig/SIGHUP with a loaded config (taken): the
 * policy and every peer's view of it, all or nothing, then the
 * configuration; logged. Like dbus-daemon, it never re-binds: changed
 * <listen> addresses are logged once and apply at the next start. The
 * daemon does the rest (daemon_reload()).
 */
int bus_reload(Bus *bus, BusConfig *config);
/* Replaces the configuration (limits apply to new connections and quotas from now on). */
void bus_set_config(Bus *bus, BusConfig *config);

/* Accepts a new connection (the listener callback). */
int bus_accept(Bus *bus, int fd);

/* (Re)arm the reply timeout timer. */
int bus_arm_reply_timer(Bus *bus);
int bus_on_reply_timeout(LoopTimer *timer, void *userdata);

/* Drops all of a peer's match rules, keeping the eavesdrop count right. */
void peer_drop_matches(Peer *peer);

/* Peers (peer.c). */
int peer_new(Bus *bus, int fd, Peer **ret);
/* Reads and dispatches what the peer sent; pauses or disconnects it as needed. */
void peer_read(Peer *peer);
/* Recomputes the epoll events of a peer from want_out. */
void peer_update_events(Peer *peer);
/* Disconnects: names, replies, matches, signals; freed after the batch. */
void peer_disconnect(Peer *peer);
/* NoReply to every caller still waiting for this peer to answer; their slots end. */
void peer_fail_owed_replies(Peer *peer);
/*
 * Its queue cannot take m, a copy it subscribed to or a message of the
 * driver's (what): it is disconnected once the current batch is done (its
 * registries may be walked right now), logged once and counted; nothing
 * more is queued for it meanwhile.
 */
void peer_doom(Peer *peer, Message *m, const char *what);
/* Disconnects the doomed peers (the loop's post phase). */
void bus_disconnect_doomed(Bus *bus);
/* Listeners stop accepting at max_incomplete_connections and resume below it (bus.c). */
void bus_update_accepting(Bus *bus);
Peer *peer_free(Peer *peer);
/* A unique or well-known name to its owner; NULL if none (the driver is no peer). */
Peer *bus_lookup_peer(Bus *bus, const char *name);
bool peer_is_privileged(const Peer *peer);

DEFINE_CLEANUP(Bus *, bus_free)
DEFINE_CLEANUP(Peer *, peer_free)
