/*
 * The bus driver's names: RequestName, ReleaseName, GetNameOwner,
 * NameHasOwner, ListNames, ListActivatableNames and ListQueuedOwners of
 * org.freedesktop.DBus (driver.c finds the method in this table, checks
 * its signature and turns a handler's error into the reply; see there).
 *
 * Trust: a name argument comes from any peer; it is validated here before
 * it reaches the registry (names.h relies on that), and owning a name is
 * mediated (mediate_own(): busconfig, and the manifests' declared names)
 * before the registry changes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "activate.h"
#include "activation.h"
#include "bus-error.h"
#include "bus-quota.h"
#include "bus.h"
#include "config.h"
#include "driver-internal.h"
#include "driver-stats.h"
#include "driver.h"
#include "mediate.h"
#include "message.h"
#include "service-file.h"
#include "validate.h"

static int driver_method_request_name(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        MediateVerdict verdict;
        const char *name;
        uint32_t flags, reply;
        NameChange change;
        int64_t max = bus->config->limits.max_names_per_connection;
        int r;

        r = message_read(m, "su", &name, &flags);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        if (!validate_bus_name(name, strlen(name)))
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Requested bus name \"%s\" is not valid", name);
        if (name[0] == ':')
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Cannot acquire a service starting with ':' such as \"%s\"", name);
        if (strcmp(name, BUS_DRIVER_NAME) == 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Connection \"%s\" is not allowed to own the service \"%s\"because it is reserved for D-Bus' use only",
                                   peer->unique_name, name);
        if (mediate_own(peer, name, &verdict) != 0)
                return driver_fail(error, verdict.error, "%s", verdict.text);
        /* As the connection's own limit: checked first, even for a name it holds. */
        r = peer_quota_check(peer, QUOTA_NAMES, error->text, sizeof(error->text));
        if (r != 0)
                return r;
        r = names_request(bus->names, &peer->names, name, flags, max < 0 ? SIZE_MAX : (size_t) max,
                          &change, &reply);
        if (r == NAMES_E_LIMIT)
                return driver_fail(error, BUS_ERROR_LIMITS_EXCEEDED,
                                   "Connection \"%s\" is not allowed to own more services (increase limits in configuration file if required; max_names_per_connection=%lld)",
                                   peer->unique_name, (long long) max);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        /* Queued or owner: either way its names changed for the policy checks. */
        security_peer_names_changed(&peer->security);
        driver_stats_update_peaks(bus);
        /*
         * As dbus-daemon's transaction orders them: NameOwnerChanged,
         * NameAcquired and the calls queued for an activated name reach
         * their recipients before the caller's reply.
         */
        r = driver_emit_name_change(bus, &change);
        if (r < 0)
                return r;
        return driver_return_basic(bus, peer, m, 'u', &reply);
}

static int driver_method_release_name(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        uint32_t reply;
        NameChange change;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        if (!validate_bus_name(name, strlen(name)))
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Given bus name \"%s\" is not valid", name);
        if (name[0] == ':')
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Cannot release a service starting with ':' such as \"%s\"", name);
        if (strcmp(name, BUS_DRIVER_NAME) == 0)
                return driver_fail(error, BUS_ERROR_INVALID_ARGS,
                                   "Cannot release the service \"%s\" because it is owned by the bus", name);
        r = names_release(bus->names, &peer->names, name, &change, &reply);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_FAILED;
        security_peer_names_changed(&peer->security);
        /* NameLost and NameOwnerChanged first, as from RequestName. */
        r = driver_emit_name_change(bus, &change);
        if (r < 0)
                return r;
        return driver_return_basic(bus, peer, m, 'u', &reply);
}


static int driver_method_get_name_owner(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *owner;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_resolve(bus, name, &owner);
        if (r != 0)
                return driver_fail(error, r, "Could not get owner of name '%s': no such name", name);
        return driver_return_basic(bus, peer, m, 's', owner ? owner->unique_name : BUS_DRIVER_NAME);
}

static int driver_method_name_has_owner(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *owner;
        int r, has;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_resolve(bus, name, &owner);
        has = r == 0;
        return driver_return_basic(bus, peer, m, 'b', &has);
}

static int driver_append_names(Bus *bus, MessageBuilder *b) {
        const char *name;
        size_t iter = 0;
        IList *node;
        int r;

        /* Unique names the bus made, names the registry validated: no check again. */
        r = message_builder_append_basic(b, 's', BUS_DRIVER_NAME);
        for (node = bus->peers.next; r == 0 && node != &bus->peers; node = node->next) {
                Peer *p = ILIST_ENTRY(node, Peer, link);

                if (p->registered && !p->monitor)
                        r = message_builder_append_known_string(b, p->unique_name, strlen(p->unique_name));
        }
        while (r == 0 && names_next(bus->names, &iter, &name, NULL))
                r = message_builder_append_known_string(b, name, strlen(name));
        return r;
}

static int driver_method_list_names(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r;

        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        if (r == 0)
                r = driver_append_names(bus, b);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_method_list_activatable_names(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const ServiceTable *table = activation_get_services(bus->activation->state);
        const char *const *names = NULL;
        size_t n = table ? service_table_names(table, &names) : 0;
        int r;

        /* dbus-daemon always lists itself first. */
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        if (r == 0)
                r = message_builder_append_basic(b, 's', BUS_DRIVER_NAME);
        for (size_t i = 0; r == 0 && i < n; i++)
                r = message_builder_append_basic(b, 's', names[i]);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_append_queue(Bus *bus, MessageBuilder *b, const char *name, Peer *owner) {
        _cleanup_free_ NamePeerState **owners = NULL;
        size_t n = 0;
        int r;

        if (!owner)
                return message_builder_append_basic(b, 's', BUS_DRIVER_NAME);
        if (name[0] == ':')
                return message_builder_append_basic(b, 's', owner->unique_name);
        r = names_list_queued_owners(bus->names, name, &owners, &n);
        if (r != 0)
                return r < 0 ? r : -ENOENT;
        for (size_t i = 0; r == 0 && i < n; i++)
                r = message_builder_append_basic(b, 's', owners[i]->unique_name);
        return r;
}

static int driver_method_list_queued_owners(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const char *name;
        Peer *owner;
        int r;

        r = message_read(m, "s", &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_resolve(bus, name, &owner);
        if (r != 0)
                return driver_fail(error, r, "Could not get owners of name '%s': no such name", name);
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        if (r == 0)
                r = driver_append_queue(bus, b, name, owner);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

const DriverMethod driver_names_methods[] = {
        { DRIVER_INTERFACE, "RequestName", "su", driver_method_request_name },
        { DRIVER_INTERFACE, "ReleaseName", "s", driver_method_release_name },
        { DRIVER_INTERFACE, "NameHasOwner", "s", driver_method_name_has_owner },
        { DRIVER_INTERFACE, "ListNames", "", driver_method_list_names },
        { DRIVER_INTERFACE, "ListActivatableNames", "", driver_method_list_activatable_names },
        { DRIVER_INTERFACE, "GetNameOwner", "s", driver_method_get_name_owner },
        { DRIVER_INTERFACE, "ListQueuedOwners", "s", driver_method_list_queued_owners },
};

const unsigned driver_n_names_methods = ELEMENTSOF(driver_names_methods);
