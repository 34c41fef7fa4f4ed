/*
 * The bus object: configuration, listeners, the registries, and the
 * loop's post phase.
 *
 * Invariants: every live peer is on Bus.peers; a registered one (after
 * Hello) is also in Bus.peers_by_name under its unique name. A peer with
 * queued output is on Bus.dirty until the post phase flushes it, so all
 * the messages one wakeup produced for a peer leave in one sendmsg().
 * Disconnected peers wait on Bus.dead until the end of the batch.
 *
 * Trust: configuration comes from root-owned files; everything a peer
 * sends is untrusted and handled in dispatch.c and, for the driver's
 * calls, in driver/.
 */
#include <errno.h>
#include <pwd.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>


#include "address.h"
#include "auth.h"
#include "bus.h"
#include "service-env.h"
#include "busconfig-policy.h"
#include "config.h"
#include "listener.h"
#include "log.h"
#include "message.h"
#include "quota.h"

static void bus_random_hex(char out[33]) {
        uint8_t bytes[16] = {};

        (void) !getrandom(bytes, sizeof(bytes), 0);
        for (size_t i = 0; i < sizeof(bytes); i++)
                snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

/* /etc/machine-id, else /var/lib/dbus/machine-id, else a random one for this run. */
static void bus_read_machine_id(char out[33]) {
        static const char *const paths[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                _cleanup_close_ int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
                char buf[33] = {};

                if (fd < 0 || read(fd, buf, 32) != 32)
                        continue;
                if (strspn(buf, "0123456789abcdef") == 32) {
                        memcpy(out, buf, 33);
                        return;
                }
        }
        bus_random_hex(out);
}

static int bus_post(Loop *loop, void *userdata);

/* What STATUS= reports: registered connections and well-known names, both O(1). */
static void bus_count(void *userdata, NotifyCounts *ret) {
        Bus *bus = userdata;

        ret->n_connections = strmap_size(&bus->peers_by_name);
        ret->n_names = strmap_size(&bus->names->names);
}

/*
 * Before each batch: a Smack rule written since the last one (a token
 * revoked) flushes the cached answers, so the batch is judged by the
 * kernel's current rules. Failing to tell denies nothing by itself: the
 * oracle then stops caching, and every question goes to the kernel.
 */
static int bus_pre(Loop *loop, void *userdata) {
        Bus *bus = userdata;

        if (bus->security)
                (void) security_refresh(bus->security);
        return 0;
}

int bus_new(Loop *loop, BusConfig *config, const BusHooks *hooks, void *hooks_userdata, Bus **ret) {
        _cleanup_(bus_freep) Bus *bus = NULL;
        int r;

        bus = calloc(1, sizeof(*bus));
        if (!bus)
                return -ENOMEM;
        bus->loop = loop;
        bus->hooks = hooks;
        bus->hooks_userdata = hooks_userdata;
        ilist_init(&bus->peers);
        ilist_init(&bus->dirty);
        ilist_init(&bus->dead);
        ilist_init(&bus->monitors);
        ilist_init(&bus->doomed);
        strmap_init(&bus->peers_by_name);
        loop_timer_init(&bus->reply_timer, bus_on_reply_timeout, bus);
        bus->next_peer_id = 0;    /* dbus-daemon's first peer is :1.0 */
        bus_random_hex(bus->guid);
        bus_read_machine_id(bus->machine_id);
        r = name_registry_new(&bus->names);
        if (r < 0)
                return r;
        r = match_registry_new(&bus->matches);
        if (r < 0)
                return r;
        r = reply_registry_new(&bus->replies);
        if (r < 0)
                return r;
        /* Without its watch NSS is asked at every connect: slower, never stale. */
        r = userdb_new("/etc", &bus->userdb);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_warning_errno(r, "Cannot watch /etc for user and group changes; asking NSS at every "
                                  "connection");
        bus_set_config(bus, config);
        notify_init(&bus->notify, loop, bus_count, bus);
        loop_set_post(loop, bus_post, bus);
        loop_set_pre(loop, bus_pre, bus);
        *ret = TAKE_PTR(bus);
        return 0;
}

static void bus_free_listen_bound(Bus *bus) {
        for (size_t i = 0; i < bus->n_listen_bound; i++)
                free(bus->listen_bound[i]);
        free(bus->listen_bound);
        bus->listen_bound = NULL;
        bus->n_listen_bound = 0;
}

static void bus_free_peers(IList *head) {
        IList *node, *tmp;

        ILIST_FOREACH_SAFE(node, tmp, head)
                peer_free(ILIST_ENTRY(node, Peer, link));
}

Bus *bus_free(Bus *bus) {
        if (!bus)
                return NULL;
        bus_free_peers(&bus->peers);
        bus_free_peers(&bus->dead);
        while (bus->listeners) {
                Listener *next = bus->listeners->next;

                listener_free(bus->listeners);
                bus->listeners = next;
        }
        loop_timer_disarm(bus->loop, &bus->reply_timer);
        notify_deinit(&bus->notify);
        bus_free_listen_bound(bus);
        reply_registry_free(bus->replies);
        match_registry_free(bus->matches);
        name_registry_free(bus->names);
        strmap_deinit(&bus->peers_by_name);
        quota_registry_free(bus->quota);
        uid_count_deinit(&bus->complete_by_uid);
        security_free(bus->security);
        userdb_free(bus->userdb);
        bus_config_free(bus->config);
        free(bus);
        return NULL;
}

void bus_set_config(Bus *bus, BusConfig *config) {
        bus_config_free(bus->config);
        bus->config = config;
        bus->auth_mechanisms = auth_mechanisms_from_names((const char *const *) config->auth,
                                                          config->n_auth, config->allow_anonymous);
        if (bus->quota) {
                QuotaLimits limits;

                quota_limits_from_config(&config->limits, &limits);
                quota_registry_set_limits(bus->quota, &limits);
        }
        bus_update_accepting(bus);
}

/* The uid the bus runs as once it dropped to <user>: it may always connect. */
static uid_t bus_uid(const BusConfig *config) {
        struct passwd *pw = config->user ? getpwnam(config->user) : NULL;

        return pw && getuid() == 0 ? pw->pw_uid : getuid();
}

static void bus_log_warnings(char **warnings) {
        for (size_t i = 0; warnings && warnings[i]; i++)
                log_warning("%s", warnings[i]);
        busconfig_warnings_free(warnings);
}

int bus_setup_security(Bus *bus, const char *policy_path) {
        char err[1024] = "";
        char **warnings = NULL;
        int r = security_new(bus->config, bus_uid(bus->config), policy_path, NULL, &bus->security, &warnings,
                             err, sizeof(err));

        bus_log_warnings(warnings);
        if (r != 0) {
                log_error("Failed to load the bus policy: %s", err[0] ? err : strerror(r < 0 ? -r : EINVAL));
                return r < 0 ? r : -EINVAL;
        }
        if (!security_has_smack(bus->security))
                log_info("No Smack on this system: messages are not mediated by label, and every MSSF token requirement denies");
        return 0;
}

/*
 * dbus-daemon binds its <listen> addresses once; a reload that changes
 * them changes nothing until the next start. We do the same (re-binding
 * would drop the socket systemd handed us, or a path clients use) and
 * say so, once per reload that differs from what the bus listens on.
 */
static void bus_check_listen(Bus *bus, const BusConfig *config) {
        bool same = bus->n_listen_bound == config->n_listen;

        if (!bus->listen_bound)
                return;         /* --address: <listen> was never used */
        for (size_t i = 0; same && i < config->n_listen; i++)
                same = strcmp(bus->listen_bound[i], config->listen[i]) == 0;
        if (!same)
                log_warning("The reloaded configuration has other <listen> addresses; the bus keeps "
                            "listening where it started, the new ones apply after a restart");
}

/* Remembers the <listen> addresses bound at start-up, for bus_check_listen(). */
static int bus_remember_listen(Bus *bus) {
        bus->listen_bound = calloc(bus->config->n_listen + 1, sizeof(char *));
        if (!bus->listen_bound)
                return -ENOMEM;
        for (size_t i = 0; i < bus->config->n_listen; i++) {
                bus->listen_bound[i] = strdup(bus->config->listen[i]);
                if (!bus->listen_bound[i])
                        return -ENOMEM;
                bus->n_listen_bound = i + 1;
        }
        return 0;
}

/*
 * ReloadConfig: the new busconfig policy and the compiled MSSF policy are
 * built first; only if both load is anything swapped, and every peer is
 * re-attached before the next message, so none is judged by a mix.
 */
int bus_reload(Bus *bus, BusConfig *config) {
        char err[1024] = "";
        char **warnings = NULL;
        IList *node;
        int r = security_reload(bus->security, config, &warnings, err, sizeof(err));

        /* As dbus-daemon: a reload forgets what NSS said (userdb.c says when else it is forgotten). */
        userdb_flush(bus->userdb);
        bus_log_warnings(warnings);
        if (r != 0) {
                log_error("Failed to reload the bus policy, keeping the previous one: %s",
                          err[0] ? err : strerror(r < 0 ? -r : EINVAL));
                bus_config_free(config);
                return r < 0 ? r : -EINVAL;
        }
        for (node = bus->peers.next; node != &bus->peers; node = node->next) {
                Peer *peer = ILIST_ENTRY(node, Peer, link);

                r = security_peer_refresh(bus->security, &peer->security);
                if (r < 0) {
                        /* Fail closed: a peer we cannot judge by the new policy goes. */
                        log_warning_errno(r, "Dropping %s: cannot apply the new policy to it", peer->unique_name);
                        peer_disconnect(peer);
                }
        }
        bus_check_listen(bus, config);
        bus_set_config(bus, config);
        return 0;
}

static int bus_on_accept(Listener *listener, int fd, void *userdata) {
        return bus_accept(userdata, fd);
}

static void bus_add_listener(Bus *bus, Listener *listener) {
        Listener **tail = &bus->listeners;

        while (*tail)
                tail = &(*tail)->next;
        *tail = listener;
}

/* systemd: every socket in LISTEN_FDS becomes a listener. */
static int bus_listen_systemd(Bus *bus) {
        int n = service_env_listen_fds();

        if (n < 0)
                return n;
        if (n == 0)
                return -EBADF;
        for (int i = 0; i < n; i++) {
                Listener *listener;
                int r = listener_new_fd(bus->loop, SERVICE_ENV_LISTEN_FDS_START + i, bus->guid,
                                        bus_on_accept, bus, &listener);

                if (r < 0)
                        return r;
                bus_add_listener(bus, listener);
        }
        return 0;
}

/* One <listen> address: the first alternative that binds wins, as dbus_server_listen(). */
static int bus_listen_one(Bus *bus, const char *text) {
        _cleanup_(bus_address_list_freep) BusAddressList *list = NULL;
        AddressError error = {};
        int r = -EINVAL;

        r = bus_address_parse(text, &list, &error);
        if (r < 0)
                return log_error_errno(r, "Failed to parse the address '%s'", text);
        if (r > 0) {
                log_error("Invalid address '%s': %s", text, error.message);
                return -EINVAL;
        }
        for (size_t i = 0; i < list->n_entries; i++) {
                Listener *listener;

                if (list->entries[i].kind == BUS_ADDRESS_SYSTEMD)
                        r = bus_listen_systemd(bus);
                else {
                        r = listener_new(bus->loop, &list->entries[i], bus->guid,
                                         bus_on_accept, bus, &listener);
                        if (r >= 0)
                                bus_add_listener(bus, listener);
                }
                if (r >= 0)
                        return 0;
        }
        return log_error_errno(r, "Failed to listen on '%s'", text);
}

int bus_listen(Bus *bus, const char *address_override) {
        int r;

        if (address_override)
                return bus_listen_one(bus, address_override);
        if (bus->config->n_listen == 0)
                return log_error_errno(EINVAL, "The configuration has no <listen> address");
        for (size_t i = 0; i < bus->config->n_listen; i++) {
                r = bus_listen_one(bus, bus->config->listen[i]);
                if (r < 0)
                        return r;
        }
        return bus_remember_listen(bus);
}

int bus_addresses(const Bus *bus, char **ret) {
        size_t size = 1;
        char *text;

        for (Listener *l = bus->listeners; l; l = l->next)
                size += strlen(l->address) + 1;
        text = calloc(1, size);
        if (!text)
                return -ENOMEM;
        for (Listener *l = bus->listeners; l; l = l->next) {
                if (l != bus->listeners)
                        strcat(text, ";");
                strcat(text, l->address);
        }
        *ret = text;
        return 0;
}

static bool bus_incomplete_full(const Bus *bus) {
        int64_t max = bus->config->limits.max_incomplete_connections;

        return max >= 0 && bus->n_incomplete >= (uint64_t) max;
}

/*
 * As dbus-daemon (fd.o #80919): at max_incomplete_connections the
 * listeners stop accepting, so further clients wait in the kernel's
 * backlog instead of being dropped, and are served as soon as one of
 * the incomplete connections completes Hello, fails or times out.
 */
void bus_update_accepting(Bus *bus) {
        bool full = bus_incomplete_full(bus);

        if (full == bus->accepting_paused)
                return;
        bus->accepting_paused = full;
        for (Listener *l = bus->listeners; l; l = l->next)
                listener_set_accepting(l, !full);
}

int bus_accept(Bus *bus, int fd) {
        Peer *peer;
        int r;

        /* Accepted within a batch that had room when it began: served anyway, then accepting stops. */
        r = peer_new(bus, fd, &peer);
        if (r < 0)
                log_warning_errno(r, "Failed to set up a new connection");
        bus_update_accepting(bus);
        return 0;
}

/* Write what the batch queued; a peer whose socket is full waits for EPOLLOUT. */
static void bus_flush(Bus *bus) {
        IList *node;

        while ((node = ilist_first(&bus->dirty))) {
                Peer *peer = ILIST_ENTRY(node, Peer, dirty_link);
                int r;

                ilist_remove(node);
                r = connection_flush(&peer->connection);
                if (r == CONNECTION_E_CLOSED) {
                        peer_disconnect(peer);
                        continue;
                }
                peer->want_out = r == CONNECTION_E_AGAIN;
                if (!connection_has_output(&peer->connection))
                        peer->queue_full_logged = false;
                peer_update_events(peer);
        }
}

static int bus_post(Loop *loop, void *userdata) {
        Bus *bus = userdata;
        IList *node;

        bus_disconnect_doomed(bus);
        bus_flush(bus);
        while ((node = ilist_first(&bus->dead)))
                peer_free(ILIST_ENTRY(node, Peer, link));
        notify_status_update(&bus->notify);
        return 0;
}

int bus_arm_reply_timer(Bus *bus) {
        uint64_t deadline;

        if (!reply_registry_next_deadline(bus->replies, &deadline) || deadline == UINT64_MAX) {
                loop_timer_disarm(bus->loop, &bus->reply_timer);
                return 0;
        }
        if (loop_timer_armed(&bus->reply_timer) && bus->reply_timer.deadline == deadline)
                return 0;
        return loop_timer_arm(bus->loop, &bus->reply_timer, deadline);
}
