/*
 * activate: what the bus does with a message for a name that has no
 * owner, as dbus-daemon does it.
 *
 * A method call (or StartServiceByName) for a name some .service file
 * provides becomes a waiter of that name's pending start
 * (broker/activation keeps the bookkeeping). The first waiter launches
 * the service: Exec= spawned directly, or, with --systemd-activation and
 * SystemdService=, an ActivationRequest signal to systemd (held back
 * until org.freedesktop.systemd1 is on the bus: activate-systemd.c). The
 * start ends when the name gets an owner (every waiter is routed again,
 * in order, and judged again on delivery), or fails: the child exited,
 * exec failed, systemd said ActivationFailure, or service_start_timeout
 * passed; then every waiter gets that error. Each waiter is handed over
 * exactly once.
 *
 * Trust: a caller must not be able to make a service start that it may
 * not talk to. So a call is judged before it is queued (busconfig send
 * rules by destination name, and the tokens the name's manifest
 * requires): a denied caller gets AccessDenied and nothing starts.
 * StartServiceByName names no member, so the manifests have nothing to
 * judge it by: only busconfig's rules for the driver apply, as with
 * dbus-daemon, and nothing reaches the service on the caller's behalf.
 * ActivationFailure is believed only from the owner of
 * org.freedesktop.systemd1. Service files come from root-owned
 * directories.
 *
 * The activation error names are dbus-daemon's Spawn.* ones and those
 * systemd sends; they are written here, beside their texts, since the
 * systemd path must forward names the bus does not know anyway.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activate.h"
#include "activate-internal.h"
#include "activation-spawn.h"
#include "activation.h"
#include "bus-error.h"
#include "bus.h"
#include "config.h"
#include "dispatch.h"
#include "log.h"
#include "mediate.h"
#include "message.h"
#include "service-file.h"
#include "validate.h"

#define ACTIVATE_ERROR_CHILD_EXITED "org.freedesktop.DBus.Error.Spawn.ChildExited"
#define ACTIVATE_ERROR_CHILD_SIGNALED "org.freedesktop.DBus.Error.Spawn.ChildSignaled"
#define ACTIVATE_ERROR_EXEC_FAILED "org.freedesktop.DBus.Error.Spawn.ExecFailed"
#define ACTIVATE_ERROR_FORK_FAILED "org.freedesktop.DBus.Error.Spawn.ForkFailed"
#define ACTIVATE_ERROR_SPAWN_FAILED "org.freedesktop.DBus.Error.Spawn.Failed"
#define ACTIVATE_ERROR_TIMED_OUT "org.freedesktop.DBus.Error.TimedOut"
enum {
        ACTIVATE_START_REPLY_SUCCESS = 1,
        ACTIVATE_START_REPLY_ALREADY_RUNNING = 2,
};

static int activate_on_timeout(LoopTimer *timer, void *userdata);

static bool activate_is_system_bus(const Bus *bus) {
        return bus->config->type && strcmp(bus->config->type, "system") == 0;
}

/* Logs the skipped files this load found that the previous one did not. */
static void activate_log_warnings(BusActivation *a, char **warnings) {
        for (size_t i = 0; warnings && warnings[i]; i++) {
                bool seen = false;

                for (size_t j = 0; a->warnings && a->warnings[j] && !seen; j++)
                        seen = strcmp(a->warnings[j], warnings[i]) == 0;
                if (!seen)
                        log_warning("%s", warnings[i]);
        }
        service_strv_free(a->warnings);
        a->warnings = warnings;
}

static int activate_load_services(Bus *bus) {
        unsigned flags = activate_is_system_bus(bus) ? SERVICE_TABLE_STRICT_NAMING : 0;
        ServiceTable *table = NULL;
        char **warnings = NULL;
        int r;

        r = service_table_load(bus->config->servicedirs, bus->config->n_servicedirs, flags, &table, &warnings);
        if (r < 0)
                return log_error_errno(r, "Failed to read the activatable services");
        activate_log_warnings(bus->activation, warnings);
        activation_set_services(bus->activation->state, table);
        return 0;
}

int bus_activation_init(Bus *bus) {
        const BusConfigLimits *limits = &bus->config->limits;
        size_t max = limits->max_pending_service_starts < 0 ? SIZE_MAX :
                     (size_t) limits->max_pending_service_starts;
        uint64_t timeout = limits->service_start_timeout < 0 ? UINT64_MAX :
                           (uint64_t) limits->service_start_timeout * 1000;
        BusActivation *a = calloc(1, sizeof(*a));
        int r;

        if (!a)
                return -ENOMEM;
        bus->activation = a;
        loop_timer_init(&a->timer, activate_on_timeout, bus);
        r = activation_new(max, timeout, &a->state);
        if (r < 0)
                return r;
        return activate_load_services(bus);
}

void bus_activation_deinit(Bus *bus) {
        BusActivation *a = bus->activation;

        if (!a)
                return;
        loop_timer_disarm(bus->loop, &a->timer);
        a->state = activation_free(a->state);
        for (size_t i = 0; i < a->n_children; i++)
                free(a->children[i].name);
        free(a->children);
        for (size_t i = 0; i < a->n_backlog; i++) {
                free(a->backlog[i].name);
                message_unref(a->backlog[i].message);
        }
        free(a->backlog);
        service_strv_free(a->warnings);
        free(a);
        bus->activation = NULL;
}

int bus_activation_reload(Bus *bus) {
        return activate_load_services(bus);
}

static void activate_arm_timer(Bus *bus) {
        uint64_t deadline = activation_next_deadline(bus->activation->state);

        if (deadline == UINT64_MAX)
                loop_timer_disarm(bus->loop, &bus->activation->timer);
        else if (!loop_timer_armed(&bus->activation->timer) || bus->activation->timer.deadline != deadline)
                (void) loop_timer_arm(bus->loop, &bus->activation->timer, deadline);
}

/* Answers. */

/* An error to peer for its call, or for its StartServiceByName (serial). */
static int activate_send_error(Bus *bus, Peer *peer, Message *call, uint32_t serial, const char *error_name,
                               const char *text) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        int r;

        if (peer->dead)
                return 0;
        /* As dbus-daemon: every waiter hears why, whatever its message's type and flags. */
        if (call) {
                r = bus_error_new(call, error_name, text, &m);
        } else {
                r = message_builder_new(MESSAGE_ERROR, &b);
                if (r == 0)
                        r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
                if (r == 0)
                        r = message_builder_set_reply_serial(b, serial);
                if (r == 0)
                        r = message_builder_set_error_name(b, error_name);
                if (r == 0)
                        r = message_builder_set_destination(b, peer->unique_name);
                if (r == 0)
                        r = message_builder_set_sender(b, BUS_DRIVER_NAME);
                if (r == 0)
                        r = message_builder_append_basic(b, 's', text);
                if (r == 0)
                        r = message_builder_finish(b, &m);
        }
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        return bus_send_from_driver(bus, peer, m);
}

/* StartServiceByName's answer: a 'u' to serial (sent even with NO_REPLY_EXPECTED, as dbus-daemon). */
static int activate_send_start_reply(Bus *bus, Peer *peer, uint32_t serial, uint32_t value) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_(message_unrefp) Message *m = NULL;
        int r;

        if (peer->dead)
                return 0;
        r = message_builder_new(MESSAGE_METHOD_RETURN, &b);
        if (r == 0)
                r = message_builder_set_flags(b, MESSAGE_FLAG_NO_REPLY_EXPECTED);
        if (r == 0)
                r = message_builder_set_reply_serial(b, serial);
        if (r == 0)
                r = message_builder_set_destination(b, peer->unique_name);
        if (r == 0)
                r = message_builder_set_sender(b, BUS_DRIVER_NAME);
        if (r == 0)
                r = message_builder_append_basic(b, 'u', &value);
        if (r == 0)
                r = message_builder_finish(b, &m);
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        return bus_send_from_driver(bus, peer, m);
}

/* Ends name's start: every waiter gets error_name with the text (name is copied first). */
void activate_fail(Bus *bus, const char *name, const char *error_name, const char *format, ...) {
        ActivationQueued *waiters = NULL;
        char text[512], copy[256];
        va_list ap;
        size_t n;

        snprintf(copy, sizeof(copy), "%s", name);
        va_start(ap, format);
        vsnprintf(text, sizeof(text), format, ap);
        va_end(ap);
        log_notice("Activation of %s failed: %s", copy, text);
        n = activation_take(bus->activation->state, copy, &waiters);
        for (size_t i = 0; i < n; i++) {
                int r = activate_send_error(bus, waiters[i].peer, waiters[i].message, waiters[i].start_serial,
                                            error_name, text);

                if (r < 0)
                        log_warning_errno(r, "Failed to tell a caller that %s did not start", copy);
        }
        activation_queued_free(waiters, n);
        activate_arm_timer(bus);
}

/* Children. */

static int activate_add_child(BusActivation *a, pid_t pid, const char *name) {
        BusActivationChild *grown = reallocarray(a->children, a->n_children + 1, sizeof(*grown));
        char *copy = strdup(name);

        if (grown)
                a->children = grown;
        if (!grown || !copy) {
                free(copy);
                return -ENOMEM;
        }
        a->children[a->n_children++] = (BusActivationChild) { .pid = pid, .name = copy };
        return 0;
}

static void activate_remove_child(BusActivation *a, size_t i) {
        free(a->children[i].name);
        a->children[i] = a->children[--a->n_children];
}

/* The environment's bus address: every listener's, ';'-separated (a valid address list). */
static int activate_spawn(Bus *bus, const char *name, const ServiceFile *file) {
        _cleanup_free_ char *address = NULL;
        char err[512] = "";
        pid_t pid = 0;
        int r;

        r = bus_addresses(bus, &address);
        if (r < 0)
                return r;
        ActivationSpawn spawn = {
                .bus_address = address,
                .bus_type = activate_is_system_bus(bus) ? "system" : "session",
                .env = activation_get_env(bus->activation->state),
                .switch_user = activate_is_system_bus(bus) && geteuid() == 0,
        };
        r = activation_spawn(file, &spawn, &pid, err, sizeof(err));
        if (r == ACTIVATION_SPAWN_E_EXEC) {
                activate_fail(bus, name, ACTIVATE_ERROR_EXEC_FAILED, "%s", err);
                return 0;
        }
        if (r == ACTIVATION_SPAWN_E_USER) {
                activate_fail(bus, name, ACTIVATE_ERROR_SPAWN_FAILED, "%s", err);
                return 0;
        }
        if (r < 0) {
                activate_fail(bus, name, ACTIVATE_ERROR_FORK_FAILED, "Failed to fork a new process %s: %s",
                              file->argv[0], strerror(-r));
                return 0;
        }
        log_info("Activating service name='%s' (pid %d)", name, (int) pid);
        activation_set_pid(bus->activation->state, name, pid);
        r = activate_add_child(bus->activation, pid, name);
        if (r < 0)
                /* Not tracked: it still counts as started; only its early exit goes unnoticed. */
                log_warning_errno(r, "Failed to track the process of %s", name);
        return 0;
}

void bus_activation_reap(Bus *bus) {
        BusActivation *a = bus->activation;
        int status;
        pid_t pid;

        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
                const char *name = activation_name_for_pid(a->state, pid);

                for (size_t i = 0; i < a->n_children; i++)
                        if (a->children[i].pid == pid) {
                                activate_remove_child(a, i);
                                break;
                        }
                /*
                 * As dbus-daemon: a service that "daemonizes" exits 0 while its
                 * child goes on to take the name; the start waits (or times out).
                 */
                if (!name || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
                        continue;
                if (WIFSIGNALED(status))
                        activate_fail(bus, name, ACTIVATE_ERROR_CHILD_SIGNALED, "Process %s received signal %d",
                                      name, WTERMSIG(status));
                else
                        activate_fail(bus, name, ACTIVATE_ERROR_CHILD_EXITED, "Process %s exited with status %d",
                                      name, WEXITSTATUS(status));
        }
}

/* Starting. */

static int activate_launch(Bus *bus, const char *name, const ServiceFile *file) {
        int r;

        if (bus->activation->systemd && strcmp(name, BUS_SYSTEMD_NAME) == 0)
                r = 0;  /* systemd starts itself: wait for it to connect */
        else if (bus->activation->systemd && file->systemd_service)
                r = activate_via_systemd(bus, name, file->systemd_service);
        else
                r = activate_spawn(bus, name, file);
        if (r < 0)
                activate_fail(bus, name, ACTIVATE_ERROR_FAILED, "Failed to start %s: %s", name, strerror(-r));
        activate_arm_timer(bus);
        return 0;
}

/* Queues waiter behind name's start; positive BusError with the text in error. */
static int activate_enqueue(Bus *bus, const char *name, const ActivationQueued *waiter, char *error,
                            size_t error_size) {
        const ServiceFile *file = NULL;
        bool new_start = false;
        int r;

        r = activation_enqueue(bus->activation->state, name, waiter, loop_now(), &new_start, &file);
        if (r == ACTIVATION_E_UNKNOWN) {
                snprintf(error, error_size, "The name %s was not provided by any .service files", name);
                return BUS_ERROR_SERVICE_UNKNOWN;
        }
        if (r == ACTIVATION_E_LIMIT) {
                snprintf(error, error_size,
                         "The maximum number of pending activations has been reached, activation of %s failed",
                         name);
                return BUS_ERROR_LIMITS_EXCEEDED;
        }
        if (r == ACTIVATION_E_QUEUE_FULL) {
                snprintf(error, error_size, "Too many messages queued up for activation of %s", name);
                return BUS_ERROR_LIMITS_EXCEEDED;
        }
        if (r != 0)
                return r < 0 ? r : -EINVAL;
        return new_start ? activate_launch(bus, name, file) : 0;
}

bool bus_activation_knows(Bus *bus, const char *name) {
        return service_table_lookup(activation_get_services(bus->activation->state), name) ||
               activation_is_pending(bus->activation->state, name);
}

/*
 * Monitors see m when it arrives (as dbus-daemon captures in
 * bus_dispatch()), before the error it gets, but after the
 * ActivationRequest its start sent (dbus-daemon runs that request's
 * transaction first); not again when it is delivered. Under MSSF
 * mediation (bus_observes_denials() false) a message the policy
 * refuses is copied to no observer, and one waiting for its service is
 * captured when it is delivered, once allowed (bus_dispatch_activated()).
 */
int bus_activate(Bus *bus, Peer *sender, Message *m, const char *destination) {
        MediateVerdict verdict;
        char error[512];
        int r;

        if (message_get_flags(m) & MESSAGE_FLAG_NO_AUTO_START) {
                bus_monitors_capture(bus, m, sender);
                return bus_reply_error(bus, sender, m, BUS_ERROR_NAME_HAS_NO_OWNER,
                                       "Name \"%s\" does not exist", destination);
        }
        if (destination[0] == ':' || !bus_activation_knows(bus, destination)) {
                bus_monitors_capture(bus, m, sender);
                return bus_reply_error(bus, sender, m, BUS_ERROR_SERVICE_UNKNOWN,
                                       "The name %s was not provided by any .service files",
                                       destination);
        }
        /* Before anything starts: a caller that may not call the service cannot start it. */
        if (mediate_activation(sender, destination, m, &verdict) != 0) {
                if (bus_observes_denials(bus))
                        bus_monitors_capture(bus, m, sender);
                return bus_reply_error(bus, sender, m, verdict.error, "%s", verdict.text);
        }
        r = activate_enqueue(bus, destination, &(ActivationQueued) { .peer = sender, .message = m }, error,
                             sizeof(error));
        if (bus_observes_denials(bus))
                bus_monitors_capture(bus, m, sender);
        if (r > 0)
                return bus_reply_error(bus, sender, m, r, "%s", error);
        return r;
}

int bus_activation_start(Bus *bus, Peer *peer, Message *call, const char *name, char *error,
                         size_t error_size) {
        uint32_t serial = message_get_serial(call);

        /* dbus-daemon looks for the .service file before it looks at the owner. */
        if (!bus_activation_knows(bus, name)) {
                snprintf(error, error_size, "The name %s was not provided by any .service files", name);
                return BUS_ERROR_SERVICE_UNKNOWN;
        }
        if (bus_lookup_peer(bus, name))
                return activate_send_start_reply(bus, peer, serial, ACTIVATE_START_REPLY_ALREADY_RUNNING);
        return activate_enqueue(bus, name, &(ActivationQueued) { .peer = peer, .start_serial = serial }, error,
                                error_size);
}

/* Ending well. */

void bus_activation_name_acquired(Bus *bus, const char *name) {
        BusActivation *a = bus->activation;
        ActivationQueued *waiters = NULL;
        Peer *owner;
        size_t n;

        if (a->systemd && strcmp(name, BUS_SYSTEMD_NAME) == 0 && a->n_backlog > 0 &&
            (owner = bus_lookup_peer(bus, name)))
                activate_flush_backlog(bus, owner);
        n = activation_take(a->state, name, &waiters);
        if (n == 0 && !waiters)
                return;
        /* Its process is the service now: no longer the bus's to kill on a timeout. */
        for (size_t i = a->n_children; i > 0; i--)
                if (strcmp(a->children[i - 1].name, name) == 0)
                        activate_remove_child(a, i - 1);
        for (size_t i = 0; i < n; i++) {
                Peer *peer = waiters[i].peer;
                int r;

                if (!waiters[i].message) {
                        r = activate_send_start_reply(bus, peer, waiters[i].start_serial,
                                                      ACTIVATE_START_REPLY_SUCCESS);
                } else {
                        /* Routed as if just sent, and judged again now that the receiver is known. */
                        r = bus_dispatch_activated(peer, TAKE_PTR(waiters[i].message));
                }
                if (r < 0)
                        log_warning_errno(r, "Failed to deliver a message queued for %s", name);
        }
        activation_queued_free(waiters, n);
        activate_arm_timer(bus);
}

void bus_activation_forget_peer(Bus *bus, Peer *peer) {
        activation_forget_peer(bus->activation->state, peer);
}

static int activate_on_timeout(LoopTimer *timer, void *userdata) {
        Bus *bus = userdata;
        BusActivation *a = bus->activation;
        const char *name;

        while ((name = activation_first_expired(a->state, loop_now()))) {
                /* As dbus-daemon: a service too slow to take its name is not kept running. */
                for (size_t i = 0; i < a->n_children; i++)
                        if (strcmp(a->children[i].name, name) == 0)
                                (void) kill(a->children[i].pid, SIGKILL);
                activate_fail(bus, name, ACTIVATE_ERROR_TIMED_OUT, "Activation of %s timed out", name);
        }
        activate_arm_timer(bus);
        return 0;
}
