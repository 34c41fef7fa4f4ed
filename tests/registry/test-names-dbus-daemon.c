/*
 * Differential test of names.c against the reference dbus-daemon: a long
 * random sequence of RequestName (every flag combination), ReleaseName
 * and disconnects by four connections over three names runs against a
 * private dbus-daemon and against a NameRegistry side by side. After every
 * step the replies, LimitsExceeded, and every name's queue
 * (ListQueuedOwners) must agree, and the NameChange our registry reported
 * must be exactly the change of primary owner dbus-daemon shows.
 * Skipped (exit 77) without /usr/bin/dbus-daemon.
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names.h"
#include "reference-daemon.h"

#define N_PEERS 4
#define N_NAMES 3
#define N_STEPS 3000
#define MAX_NAMES 4             /* the unique name and three others */

static const char *const names[N_NAMES] = { "org.example.N0", "org.example.N1", "org.example.N2" };

typedef struct Side {
        ReferenceDaemon daemon;
        DBusConnection *conns[N_PEERS];
        char unique[N_PEERS][64];
        NameRegistry *registry;
        NamePeerState peers[N_PEERS];
} Side;

static void drain(Side *side) {
        for (size_t i = 0; i < N_PEERS; i++) {
                DBusMessage *m;
                dbus_connection_read_write(side->conns[i], 0);
                while ((m = dbus_connection_pop_message(side->conns[i])))
                        dbus_message_unref(m);
        }
}

static int connect_peer(Side *side, size_t i) {
        side->conns[i] = reference_daemon_connect(&side->daemon);
        if (!side->conns[i])
                return -1;
        snprintf(side->unique[i], sizeof(side->unique[i]), "%s", dbus_bus_get_unique_name(side->conns[i]));
        name_peer_state_init(&side->peers[i], NULL, side->unique[i]);
        return 0;
}

/* The daemon's queue for name as indices of our peers, -1 on error; n = 0 if unowned. */
static int reference_queue(Side *side, const char *name, int queue[N_PEERS], size_t *n) {
        DBusMessage *call = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                         "org.freedesktop.DBus", "ListQueuedOwners");
        DBusError error;
        DBusMessageIter iter, array;

        *n = 0;
        if (!call || !dbus_message_append_args(call, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID))
                return -1;
        dbus_error_init(&error);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(side->conns[0], call, 10000, &error);
        dbus_message_unref(call);
        if (!reply) {
                bool unowned = dbus_error_has_name(&error, "org.freedesktop.DBus.Error.NameHasNoOwner");
                dbus_error_free(&error);
                return unowned ? 0 : -1;
        }
        dbus_message_iter_init(reply, &iter);
        dbus_message_iter_recurse(&iter, &array);
        while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRING) {
                const char *unique;
                dbus_message_iter_get_basic(&array, &unique);
                int found = -1;
                for (size_t i = 0; i < N_PEERS; i++)
                        if (strcmp(side->unique[i], unique) == 0)
                                found = (int)i;
                if (found < 0 || *n >= N_PEERS) {
                        dbus_message_unref(reply);
                        return -1;
                }
                queue[(*n)++] = found;
                dbus_message_iter_next(&array);
        }
        dbus_message_unref(reply);
        return 0;
}

static int our_queue(Side *side, const char *name, int queue[N_PEERS], size_t *n) {
        NamePeerState **owners = NULL;
        size_t n_owners = 0;

        *n = 0;
        int r = names_list_queued_owners(side->registry, name, &owners, &n_owners);
        if (r == NAMES_E_NO_SUCH_NAME)
                return 0;
        if (r < 0 || n_owners > N_PEERS)
                return -1;
        for (size_t i = 0; i < n_owners; i++)
                queue[i] = (int)(owners[i] - side->peers);
        *n = n_owners;
        free(owners);
        return 0;
}

/* Compares every queue; fills primary[] with each name's owner (-1: none). */
static int compare_queues(Side *side, int step, int primary[N_NAMES]) {
        for (size_t k = 0; k < N_NAMES; k++) {
                int theirs[N_PEERS], ours[N_PEERS];
                size_t n_theirs, n_ours;

                if (reference_queue(side, names[k], theirs, &n_theirs) < 0 ||
                    our_queue(side, names[k], ours, &n_ours) < 0)
                        return -1;
                if (n_theirs != n_ours || memcmp(theirs, ours, n_ours * sizeof(int)) != 0) {
                        fprintf(stderr, "step %d: queue of %s differs (dbus-daemon %zu entries, ours %zu)\n",
                                step, names[k], n_theirs, n_ours);
                        return 1;
                }
                primary[k] = n_ours > 0 ? ours[0] : -1;
        }
        return 0;
}

static int peer_index(const Side *side, const NamePeerState *state) {
        return state ? (int)(state - side->peers) : -1;
}

/* The change we reported must be the one the queues show. */
static int check_change(Side *side, int step, size_t k, const NameChange *change, const int before[N_NAMES],
                        const int after[N_NAMES]) {
        int old_owner = peer_index(side, change->old_owner), new_owner = peer_index(side, change->new_owner);

        if (before[k] == after[k] ? old_owner != new_owner :
                                    old_owner != before[k] || new_owner != after[k]) {
                fprintf(stderr, "step %d: %s went %d -> %d, we reported %d -> %d\n", step, names[k],
                        before[k], after[k], old_owner, new_owner);
                return 1;
        }
        return 0;
}

static int step_request(Side *side, int step, size_t p, size_t k, uint32_t flags, const int before[N_NAMES],
                        int after[N_NAMES]) {
        DBusError error;
        NameChange change;
        uint32_t ours = 0;

        dbus_error_init(&error);
        int theirs = dbus_bus_request_name(side->conns[p], names[k], flags, &error);
        bool limited = theirs < 0 && dbus_error_has_name(&error, "org.freedesktop.DBus.Error.LimitsExceeded");
        dbus_error_free(&error);
        if (theirs < 0 && !limited)
                return -1;

        int r = names_request(side->registry, &side->peers[p], names[k], flags, MAX_NAMES, &change, &ours);
        if (r < 0)
                return -1;
        if ((r == NAMES_E_LIMIT) != limited || (!limited && (uint32_t)theirs != ours)) {
                fprintf(stderr, "step %d: peer %zu RequestName(%s, %u): dbus-daemon %d%s, ours %d/%u\n", step,
                        p, names[k], flags, theirs, limited ? " (LimitsExceeded)" : "", r, ours);
                return 1;
        }
        r = compare_queues(side, step, after);
        if (r != 0)
                return r;
        if (limited) {
                for (size_t i = 0; i < N_NAMES; i++)
                        if (before[i] != after[i])
                                return 1;
                return 0;
        }
        return check_change(side, step, k, &change, before, after);
}

static int step_release(Side *side, int step, size_t p, size_t k, const int before[N_NAMES],
                        int after[N_NAMES]) {
        DBusError error;
        NameChange change;
        uint32_t ours = 0;

        dbus_error_init(&error);
        int theirs = dbus_bus_release_name(side->conns[p], names[k], &error);
        dbus_error_free(&error);
        if (theirs < 0 || names_release(side->registry, &side->peers[p], names[k], &change, &ours) < 0)
                return -1;
        if ((uint32_t)theirs != ours) {
                fprintf(stderr, "step %d: peer %zu ReleaseName(%s): dbus-daemon %d, ours %u\n", step, p,
                        names[k], theirs, ours);
                return 1;
        }
        int r = compare_queues(side, step, after);
        return r != 0 ? r : check_change(side, step, k, &change, before, after);
}

/* Waits until the daemon has dropped a closed connection's unique name. */
static int wait_gone(Side *side, size_t watcher, const char *unique) {
        for (int i = 0; i < 2000; i++) {
                DBusError error;
                dbus_error_init(&error);
                dbus_bool_t has = dbus_bus_name_has_owner(side->conns[watcher], unique, &error);
                bool failed = dbus_error_is_set(&error);
                dbus_error_free(&error);
                if (failed)
                        return -1;
                if (!has)
                        return 0;
                nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
        }
        return -1;
}

static int step_disconnect(Side *side, int step, size_t p, const int before[N_NAMES], int after[N_NAMES]) {
        char gone[64];
        NameChange changes[N_NAMES];
        size_t n_changes = 0;
        NameChange change;

        snprintf(gone, sizeof(gone), "%s", side->unique[p]);
        reference_daemon_disconnect(side->conns[p]);
        side->conns[p] = NULL;
        while (names_release_next(side->registry, &side->peers[p], &change) == 0) {
                if (n_changes == N_NAMES)
                        return 1;
                changes[n_changes++] = change;
        }
        name_peer_state_deinit(&side->peers[p]);
        if (wait_gone(side, (p + 1) % N_PEERS, gone) < 0 || connect_peer(side, p) < 0)
                return -1;

        int r = compare_queues(side, step, after);
        if (r != 0)
                return r;
        /* One change per name whose owner left, none for names where it only queued. */
        for (size_t k = 0; k < N_NAMES; k++) {
                NameChange none = { .old_owner = NULL, .new_owner = NULL };
                const NameChange *found = &none;
                for (size_t c = 0; c < n_changes; c++)
                        if (strcmp(changes[c].name, names[k]) == 0)
                                found = &changes[c];
                if (found == &none && before[k] != after[k]) {
                        fprintf(stderr, "step %d: no change reported for %s\n", step, names[k]);
                        return 1;
                }
                if (found != &none && check_change(side, step, k, found, before, after) != 0)
                        return 1;
        }
        return 0;
}

static int run(Side *side) {
        unsigned seed = 4242;
        int primary[N_NAMES] = { -1, -1, -1 };
        unsigned counts[3] = { 0 };

        for (int step = 0; step < N_STEPS; step++) {
                int after[N_NAMES];
                seed = seed * 1103515245u + 12345u;
                unsigned x = seed >> 8;
                size_t p = x % N_PEERS, k = (x / N_PEERS) % N_NAMES;
                uint32_t flags = (x / 16) % 8;
                unsigned op = (x / 128) % 20;
                int r;

                if (op < 11) {
                        r = step_request(side, step, p, k, flags, primary, after);
                        counts[0]++;
                } else if (op < 18) {
                        r = step_release(side, step, p, k, primary, after);
                        counts[1]++;
                } else {
                        r = step_disconnect(side, step, p, primary, after);
                        counts[2]++;
                }
                if (r != 0)
                        return r;
                memcpy(primary, after, sizeof(primary));
                drain(side);
        }
        printf("%d steps agree with dbus-daemon: %u RequestName, %u ReleaseName, %u disconnects\n",
               N_STEPS, counts[0], counts[1], counts[2]);
        return 0;
}

int main(void) {
        Side side = { 0 };
        int r = -1;

        if (!reference_daemon_available()) {
                printf("no %s: skipped\n", REFERENCE_DAEMON);
                return 77;
        }
        if (reference_daemon_start(&side.daemon, MAX_NAMES, 512) < 0 ||
            name_registry_new(&side.registry) < 0)
                return 1;
        for (size_t i = 0; i < N_PEERS; i++)
                if (connect_peer(&side, i) < 0)
                        goto out;
        r = run(&side);
out:
        if (r < 0)
                fprintf(stderr, "talking to dbus-daemon failed\n");
        for (size_t i = 0; i < N_PEERS; i++)
                reference_daemon_disconnect(side.conns[i]);
        name_registry_free(side.registry);
        reference_daemon_stop(&side.daemon);
        return r == 0 ? 0 : 1;
}
