/*
 * security: the glue between the bus and its two policies. It owns the
 * compiled busconfig <policy> (broker/busconfig), the compiled MSSF policy
 * (policy/db) and the Smack oracle (broker/smack), and answers, per
 * message and receiver, whether delivery is allowed: busconfig send and
 * receive rules first, exactly as dbus-daemon applies them, then MSSF
 * mediation (Smack label, then tokens; broker/mediation has the threat
 * model). Every check must allow; any error denies.
 *
 * Snapshots: a reload builds the new busconfig policy and reads the new
 * compiled policy before anything is swapped, so a failure leaves the old
 * ones in force; the bus then re-attaches every peer before it judges the
 * next message, so no message is judged by a mix of old and new.
 *
 * Per peer it keeps what the checks read (uid, groups, label, the names it
 * owns or is queued for), rebuilt only when those change, so the hot path
 * allocates nothing. It does no logging: the bus logs denials.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busconfig-policy.h"
#include "config.h"
#include "db-read.h"
#include "message.h"
#include "names.h"
#include "security.h"
#include "smack-label.h"
#include "smack-oracle.h"

struct Security {
        uid_t bus_uid;
        char *policy_path;              /* (owned, nullable) */
        BusconfigPolicy *busconfig;     /* (owned) */
        PolicyDb *db;                   /* (owned, nullable): nothing declared */
        SmackOracle *oracle;            /* (owned) */
        SecurityCounters counters;
};

/* A missing file: no package declared anything yet. Anything else that fails denies loading. */
static int load_policy_db(const char *path, PolicyDb **ret, char *err, size_t err_size) {
        *ret = NULL;
        if (!path)
                return 0;
        if (access(path, F_OK) < 0 && errno == ENOENT)
                return 0;
        int r = policy_db_open(path, ret);
        if (r != 0) {
                snprintf(err, err_size, "%s: %s", path,
                         r < 0 ? strerror(-r) : policy_db_error_to_string(r));
                return SECURITY_E_POLICY;
        }
        return 0;
}

int security_new(const BusConfig *config, uid_t bus_uid, const char *policy_path, const char *smackfs,
                 Security **ret, char ***ret_warnings, char *err, size_t err_size) {
        Security *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->bus_uid = bus_uid;
        int r = 0;
        if (policy_path && !(s->policy_path = strdup(policy_path)))
                r = -ENOMEM;
        if (r == 0)
                r = busconfig_policy_new(config, bus_uid, &s->busconfig, ret_warnings);
        if (r == 0)
                r = load_policy_db(policy_path, &s->db, err, err_size);
        if (r == 0)
                r = smack_oracle_new(smackfs, &s->oracle);
        if (r != 0) {
                if (r < 0 && err_size && !err[0])
                        snprintf(err, err_size, "%s", strerror(-r));
                security_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

Security *security_free(Security *s) {
        if (!s)
                return NULL;
        busconfig_policy_unref(s->busconfig);
        policy_db_free(s->db);
        smack_oracle_free(s->oracle);
        free(s->policy_path);
        free(s);
        return NULL;
}

int security_reload(Security *s, const BusConfig *config, char ***ret_warnings, char *err, size_t err_size) {
        BusconfigPolicy *busconfig = NULL;
        PolicyDb *db = NULL;
        int r = busconfig_policy_new(config, s->bus_uid, &busconfig, ret_warnings);
        if (r < 0) {
                snprintf(err, err_size, "compiling <policy>: %s", strerror(-r));
                return r;
        }
        r = load_policy_db(s->policy_path, &db, err, err_size);
        if (r != 0) {
                busconfig_policy_unref(busconfig);
                return r;
        }
        busconfig_policy_unref(s->busconfig);
        policy_db_free(s->db);
        s->busconfig = busconfig;
        s->db = db;
        smack_oracle_flush(s->oracle);
        return 0;
}

static BusconfigIdentity identity_of(const Security *s, uid_t uid, const gid_t *gids, size_t n_gids) {
        bool console = busconfig_policy_uses_console(s->busconfig) && busconfig_user_at_console(uid);

        return (BusconfigIdentity){ uid, gids, n_gids, console };
}

bool security_connect_needs_groups(const Security *s) {
        return busconfig_policy_connect_uses_groups(s->busconfig);
}

bool security_check_connect(Security *s, uid_t uid, const gid_t *gids, size_t n_gids, char *why,
                            size_t why_size) {
        BusconfigIdentity id = identity_of(s, uid, gids, n_gids);
        BusconfigVerdict v;
        busconfig_policy_check_connect(s->busconfig, &id, &v);
        if (!v.allow && why_size) {
                char rule[768];
                busconfig_verdict_describe(&v, rule, sizeof(rule));
                snprintf(why, why_size, "uid %u may not connect: %s", (unsigned)uid, rule);
        }
        return v.allow;
}

int security_peer_init(Security *s, SecurityPeer *peer, uid_t uid, const gid_t *gids, size_t n_gids,
                       const char *label, const char *unique_name, const NamePeerState *name_state) {
        *peer = (SecurityPeer){ .uid = uid, .name_state = name_state, .names_dirty = true, .security = s };
        peer->mssf.unique_name = unique_name;
        if (n_gids) {
                peer->gids = malloc(n_gids * sizeof(gid_t));
                if (!peer->gids)
                        return -ENOMEM;
                memcpy(peer->gids, gids, n_gids * sizeof(gid_t));
                peer->n_gids = n_gids;
        }
        if (label) {
                snprintf(peer->label_text, sizeof(peer->label_text), "%s", label);
                /* An invalid label stays NULL: with Smack on, mediation then denies. */
                if (smack_oracle_has_smack(s->oracle) && smack_label_intern(label, &peer->mssf.label) == -ENOMEM)
                        return -ENOMEM;
        }
        return security_peer_refresh(s, peer);
}

void security_peer_deinit(SecurityPeer *peer) {
        busconfig_client_unref(peer->busconfig);
        free(peer->gids);
        free(peer->names);
        for (size_t i = 0; i < peer->n_declared; i++)
                free(peer->declared[i]);
        free(peer->declared);
        free(peer->mssf_names);
        *peer = (SecurityPeer){ 0 };
}

int security_peer_refresh(Security *s, SecurityPeer *peer) {
        BusconfigIdentity id = identity_of(s, peer->uid, peer->gids, peer->n_gids);
        BusconfigClient *client = NULL;
        int r = busconfig_policy_get_client(s->busconfig, &id, &client);
        if (r < 0)
                return r;
        busconfig_client_unref(peer->busconfig);
        peer->busconfig = client;
        /* The new policy may declare a name it holds: remember it before it is released. */
        peer->names_dirty = true;
        return 0;
}

void security_peer_names_changed(SecurityPeer *peer) {
        peer->names_dirty = true;
}

void security_peer_set_unique_name(SecurityPeer *peer, const char *unique_name) {
        peer->mssf.unique_name = unique_name;
}

static bool names_contain(const char *const *names, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(names[i], name) == 0)
                        return true;
        return false;
}

/*
 * Remembers each declared name among the current ones: a service that
 * released its name, or lost it to a replacement, must not serve
 * unprotected by its unique name, or a caller could reach what the
 * manifest protects by addressing the unique name instead. Bounded by the names the policy
 * declares.
 */
static int peer_remember_declared(SecurityPeer *peer) {
        const PolicyDb *db = peer->security ? peer->security->db : NULL;

        for (size_t i = 0; db && i < peer->n_names; i++) {
                char **grown, *copy;

                if (!policy_db_declares_name(db, peer->names[i]) ||
                    names_contain((const char *const *) peer->declared, peer->n_declared, peer->names[i]))
                        continue;
                grown = reallocarray(peer->declared, peer->n_declared + 1, sizeof(char *));
                if (!grown)
                        return -ENOMEM;
                peer->declared = grown;
                copy = strdup(peer->names[i]);
                if (!copy)
                        return -ENOMEM;
                peer->declared[peer->n_declared++] = copy;
        }
        return 0;
}

/* What mediation sees: the current names, then the remembered ones not among them. */
static int peer_mssf_names(SecurityPeer *peer) {
        size_t n = peer->n_names + peer->n_declared, k = 0;

        if (n > peer->cap_mssf_names) {
                const char **grown = reallocarray(peer->mssf_names, n, sizeof(char *));
                if (!grown)
                        return -ENOMEM;
                peer->mssf_names = grown;
                peer->cap_mssf_names = n;
        }
        for (size_t i = 0; i < peer->n_names; i++)
                peer->mssf_names[k++] = peer->names[i];
        for (size_t i = 0; i < peer->n_declared; i++)
                if (!names_contain(peer->names, peer->n_names, peer->declared[i]))
                        peer->mssf_names[k++] = peer->declared[i];
        peer->mssf.names = peer->mssf_names;
        peer->mssf.n_names = k;
        return 0;
}

/* The owned and queued names, rebuilt only after a change; a failure leaves them dirty. */
static int peer_names(SecurityPeer *peer) {
        int r;

        if (!peer->names_dirty)
                return 0;
        size_t n = peer->name_state ? peer->name_state->n_ownerships : 0;
        if (n > peer->cap_names) {
                const char **grown = reallocarray(peer->names, n, sizeof(char *));
                if (!grown)
                        return -ENOMEM;
                peer->names = grown;
                peer->cap_names = n;
        }
        peer->n_names = 0;
        const IList *iter = NULL;
        const char *name;
        bool primary;
        while (peer->name_state && peer->n_names < n &&
               name_peer_state_next(peer->name_state, &iter, &name, &primary))
                peer->names[peer->n_names++] = name;
        if ((r = peer_remember_declared(peer)) < 0 || (r = peer_mssf_names(peer)) < 0)
                return r;
        peer->names_dirty = false;
        return 0;
}

int security_peer_get_names(SecurityPeer *peer, const char *const **ret_names, size_t *ret_n) {
        int r = peer_names(peer);

        if (r < 0)
                return r;
        *ret_names = peer->mssf.names;
        *ret_n = peer->mssf.n_names;
        return 0;
}

static bool is_observer_route(SecurityRoute route) {
        return route == SECURITY_ROUTE_EAVESDROP || route == SECURITY_ROUTE_MONITOR;
}

static const char *type_name(uint8_t type) {
        static const char *const names[] = { "invalid", "method_call", "method_return", "error", "signal" };
        return type < ELEMENTSOF(names) ? names[type] : "unknown";
}

static const char *or_unset(const char *s) {
        return s ? s : "(unset)";
}

/* dbus-daemon's words, with the deciding rule named. */
static void busconfig_text(SecurityVerdict *ret, const char *what, const BusconfigVerdict *v, Message *m,
                           const SecurityPeer *sender, const SecurityPeer *receiver, bool requested) {
        char rule[768], from[64], to[64];
        busconfig_verdict_describe(v, rule, sizeof(rule));
        if (sender)
                snprintf(from, sizeof(from), "uid=%u", (unsigned)sender->uid);
        else
                snprintf(from, sizeof(from), "bus");
        if (receiver)
                snprintf(to, sizeof(to), "uid=%u", (unsigned)receiver->uid);
        else
                snprintf(to, sizeof(to), "bus");
        snprintf(ret->text, sizeof(ret->text),
                 "Rejected %s message, %s; type=\"%s\", sender=\"%s\" (%s) interface=\"%s\" "
                 "member=\"%s\" error name=\"%s\" requested_reply=\"%d\" destination=\"%s\" (%s)",
                 what, rule, type_name(message_get_type(m)),
                 sender ? or_unset(sender->mssf.unique_name) : "org.freedesktop.DBus", from,
                 or_unset(message_get_interface(m)), or_unset(message_get_member(m)),
                 or_unset(message_get_error_name(m)), requested, or_unset(message_get_destination(m)), to);
        ret->layer = SECURITY_LAYER_BUSCONFIG;
        ret->log = v->log;
}

static BusconfigMessage busconfig_message(Message *m) {
        size_t n_fds = 0;
        (void)message_get_unix_fds(m, &n_fds);
        return (BusconfigMessage){
                .type = message_get_type(m),
                .is_reply = message_get_reply_serial(m) != 0,
                .path = message_get_path(m),
                .interface = message_get_interface(m),
                .member = message_get_member(m),
                .error_name = message_get_error_name(m),
                .destination = message_get_destination(m),
                .sender = message_get_sender(m),
                .n_fds = (unsigned)n_fds,
        };
}

static BusconfigPeer busconfig_peer(const SecurityPeer *peer) {
        return (BusconfigPeer){ peer->mssf.unique_name, peer->names, peer->n_names };
}

static int check_busconfig(Security *s, SecurityPeer *sender, SecurityPeer *receiver, Message *m,
                           SecurityRoute route, SecurityVerdict *ret) {
        bool requested = route == SECURITY_ROUTE_REPLY;
        size_t n_fds = 0;
        (void)message_get_unix_fds(m, &n_fds);
        /* Rules that allow anything (a session bus's) need not see the message. */
        bool check_send = sender && !busconfig_client_allows_every_send(sender->busconfig, (unsigned)n_fds);
        bool check_receive = receiver &&
                             !busconfig_client_allows_every_receive(receiver->busconfig, (unsigned)n_fds);
        if (!check_send && !check_receive)
                return 0;
        BusconfigMessage bm = busconfig_message(m);
        BusconfigVerdict v;
        if (check_send) {
                BusconfigPeer to = receiver ? busconfig_peer(receiver) : (BusconfigPeer){ 0 };
                busconfig_client_check_send(sender->busconfig, &bm, receiver ? &to : NULL, requested, &v);
                if (!v.allow) {
                        busconfig_text(ret, "send", &v, m, sender, receiver, requested);
                        return SECURITY_E_DENIED;
                }
        }
        if (check_receive) {
                BusconfigPeer from = sender ? busconfig_peer(sender) : (BusconfigPeer){ 0 };
                busconfig_client_check_receive(receiver->busconfig, &bm, sender ? &from : NULL,
                                               route == SECURITY_ROUTE_EAVESDROP, requested, &v);
                if (!v.allow) {
                        busconfig_text(ret, "receive", &v, m, sender, receiver, requested);
                        return SECURITY_E_DENIED;
                }
        }
        return 0;
}

int security_check_message(Security *s, SecurityPeer *sender, SecurityPeer *receiver, Message *m,
                           SecurityRoute route, SecurityVerdict *ret) {
        ret->layer = SECURITY_LAYER_NONE;
        ret->log = false;
        ret->text[0] = '\0';
        /* Names feed both layers; failing to know them denies. */
        if ((sender && peer_names(sender) < 0) || (receiver && peer_names(receiver) < 0)) {
                snprintf(ret->text, sizeof(ret->text), "Rejected: out of memory while checking the policy");
                ret->layer = SECURITY_LAYER_MSSF;
                return SECURITY_E_DENIED;
        }
        bool observer = is_observer_route(route);
        int r = route == SECURITY_ROUTE_MONITOR ? 0 : check_busconfig(s, sender, receiver, m, route, ret);
        if (r != 0) {
                if (!observer)
                        s->counters.busconfig_denied++;
                return r;
        }
        r = mediation_check_message(sender ? &sender->mssf : NULL, receiver ? &receiver->mssf : NULL, m,
                                    route == SECURITY_ROUTE_REPLY, s->db, s->oracle, &ret->mssf);
        if (!observer)
                mediation_counters_record(&s->counters.mssf, &ret->mssf);
        if (r != 0) {
                ret->layer = SECURITY_LAYER_MSSF;
                snprintf(ret->text, sizeof(ret->text), "%s", ret->mssf.text);
                return SECURITY_E_DENIED;
        }
        if (!observer)
                s->counters.allowed++;
        return 0;
}

int security_check_observer_reply(Security *s, SecurityPeer *observer, Message *m,
                                  const MediationNeeds *needs, SecurityVerdict *ret) {
        ret->layer = SECURITY_LAYER_NONE;
        ret->log = false;
        ret->text[0] = '\0';
        if (mediation_check_observer_reply(&observer->mssf, m, needs, s->oracle, &ret->mssf) == 0)
                return 0;
        ret->layer = SECURITY_LAYER_MSSF;
        snprintf(ret->text, sizeof(ret->text), "%s", ret->mssf.text);
        return SECURITY_E_DENIED;
}

int security_check_activation(Security *s, SecurityPeer *sender, const char *name, Message *m,
                              SecurityVerdict *ret) {
        ret->layer = SECURITY_LAYER_NONE;
        ret->log = false;
        ret->text[0] = '\0';
        if (peer_names(sender) < 0) {
                snprintf(ret->text, sizeof(ret->text), "Rejected: out of memory while checking the policy");
                ret->layer = SECURITY_LAYER_MSSF;
                return SECURITY_E_DENIED;
        }
        int r = check_busconfig(s, sender, NULL, m, SECURITY_ROUTE_UNICAST, ret);
        if (r != 0) {
                s->counters.busconfig_denied++;
                return r;
        }
        /*
         * The stand-in for the service to be: it owns only name, and it
         * carries the sender's own label, so the Smack step (a label
         * always has access to itself) defers to delivery and only the
         * tokens are judged here.
         */
        const char *names[] = { name };
        MediationPeer service = { .label = sender->mssf.label, .unique_name = name, .names = names, .n_names = 1 };
        r = mediation_check_message(&sender->mssf, &service, m, false, s->db, s->oracle, &ret->mssf);
        mediation_counters_record(&s->counters.mssf, &ret->mssf);
        if (r != 0) {
                ret->layer = SECURITY_LAYER_MSSF;
                snprintf(ret->text, sizeof(ret->text), "%s", ret->mssf.text);
                return SECURITY_E_DENIED;
        }
        s->counters.allowed++;
        return 0;
}

int security_check_own(Security *s, SecurityPeer *peer, const char *name, SecurityVerdict *ret) {
        BusconfigVerdict v;
        ret->layer = SECURITY_LAYER_NONE;
        ret->log = false;
        ret->text[0] = '\0';
        busconfig_client_check_own(peer->busconfig, name, &v);
        if (!v.allow) {
                char rule[768];
                busconfig_verdict_describe(&v, rule, sizeof(rule));
                snprintf(ret->text, sizeof(ret->text),
                         "Connection \"%s\" is not allowed to own the service \"%s\" due to security policies "
                         "in the configuration file (%s)",
                         or_unset(peer->mssf.unique_name), name, rule);
                ret->layer = SECURITY_LAYER_BUSCONFIG;
                s->counters.busconfig_denied++;
                return SECURITY_E_DENIED;
        }
        if (peer_names(peer) < 0)
                return -ENOMEM;
        int r = mediation_check_own(&peer->mssf, name, s->db, s->oracle, &ret->mssf);
        mediation_counters_record(&s->counters.mssf, &ret->mssf);
        if (r != 0) {
                ret->layer = SECURITY_LAYER_MSSF;
                snprintf(ret->text, sizeof(ret->text), "%s", ret->mssf.text);
                return SECURITY_E_DENIED;
        }
        return 0;
}

bool security_check_monitor(Security *s, SecurityPeer *peer, char *why, size_t why_size) {
        if (!smack_oracle_has_smack(s->oracle))
                return true;
        if (peer->mssf.label && s->db && policy_db_is_monitor_label(s->db, peer->mssf.label->text))
                return true;
        snprintf(why, why_size,
                 "Rejected: label \"%s\" of %s is not a monitor label of the device policy: it may not watch "
                 "messages addressed to others",
                 peer->label_text[0] ? peer->label_text : "(none)", or_unset(peer->mssf.unique_name));
        return false;
}

int security_refresh(Security *s) {
        int r = smack_oracle_refresh(s->oracle);
        return r < 0 ? r : 0;
}

int security_get_fd(const Security *s) {
        return smack_oracle_get_fd(s->oracle);
}

const SecurityCounters *security_get_counters(const Security *s) {
        return &s->counters;
}

const PolicyDb *security_get_policy_db(const Security *s) {
        return s->db;
}

SmackOracle *security_get_oracle(const Security *s) {
        return s->oracle;
}

bool security_has_smack(const Security *s) {
        return smack_oracle_has_smack(s->oracle);
}
