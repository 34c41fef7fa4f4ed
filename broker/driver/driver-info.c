/*
 * The bus driver's informational and administrative methods: who is at
 * the other end of a name (credentials), the driver's own description
 * (Introspectable, Properties), and BecomeMonitor.
 *
 * Credentials are the ones the kernel reported at accept (creds.c), never
 * re-read. A LinuxSecurityLabel is sent as bytes with its trailing NUL,
 * as dbus-daemon does; a ProcessFD only to a caller that negotiated fd
 * passing, and only when the kernel gave one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activate.h"
#include "bus-error.h"
#include "bus.h"
#include "driver-internal.h"
#include "driver.h"
#include "mediate.h"
#include "smack-oracle.h"
#include "message.h"

#define DRIVER_PROPERTIES "org.freedesktop.DBus.Properties"

static int driver_info_read_name(Message *m, const char **ret_name) {
        int r = message_read(m, "s", ret_name);

        return r == 0 ? 0 : r < 0 ? r : BUS_ERROR_INVALID_ARGS;
}

/* The peer behind the name argument; NULL with 0 for the bus itself. */
static int driver_info_lookup(Bus *bus, Message *m, const char *what, Peer **ret, const char **ret_name,
                              DriverError *error) {
        int r = driver_info_read_name(m, ret_name);

        if (r != 0)
                return r;
        r = driver_resolve(bus, *ret_name, ret);
        if (r != 0)
                return driver_fail(error, BUS_ERROR_NAME_HAS_NO_OWNER, "Could not get %s of name '%s': no such name", what, *ret_name);
        return 0;
}

static int driver_info_return_u32(Bus *bus, Peer *peer, Message *m, uint32_t value) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        int r = driver_return_new(m, &b);

        if (r == 0)
                r = message_builder_append_basic(b, 'u', &value);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_method_get_unix_user(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *target;
        int r = driver_info_lookup(bus, m, "UID", &target, &name, error);

        if (r != 0)
                return r;
        return driver_info_return_u32(bus, peer, m, target ? target->creds.uid : (uint32_t) getuid());
}

static int driver_method_get_unix_process_id(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *target;
        pid_t pid;
        int r = driver_info_lookup(bus, m, "PID", &target, &name, error);

        if (r != 0)
                return r;
        pid = target ? target->creds.pid : getpid();
        if (pid <= 0)
                return driver_fail(error, BUS_ERROR_UNIX_PROCESS_ID_UNKNOWN,
                                   "Could not determine PID for '%s'", name);
        return driver_info_return_u32(bus, peer, m, (uint32_t) pid);
}

static int driver_info_open_entry(MessageBuilder *b, const char *key, const char *type) {
        int r = message_builder_open(b, 'e', "sv");

        if (r == 0)
                r = message_builder_append_basic(b, 's', key);
        if (r == 0)
                r = message_builder_open(b, 'v', type);
        return r;
}

static int driver_info_close_entry(MessageBuilder *b) {
        int r = message_builder_close(b);

        return r == 0 ? message_builder_close(b) : r;
}

static int driver_info_append_u32(MessageBuilder *b, const char *key, uint32_t value) {
        int r = driver_info_open_entry(b, key, "u");

        if (r == 0)
                r = message_builder_append_basic(b, 'u', &value);
        return r == 0 ? driver_info_close_entry(b) : r;
}

static int driver_info_append_groups(MessageBuilder *b, const Creds *creds) {
        int r = driver_info_open_entry(b, "UnixGroupIDs", "au");

        if (r == 0)
                r = message_builder_open(b, 'a', "u");
        for (size_t i = 0; r == 0 && i < creds->n_groups; i++) {
                uint32_t gid = creds->groups[i];

                r = message_builder_append_basic(b, 'u', &gid);
        }
        if (r == 0)
                r = message_builder_close(b);
        return r == 0 ? driver_info_close_entry(b) : r;
}

static int driver_info_append_label(MessageBuilder *b, const char *label) {
        int r = driver_info_open_entry(b, "LinuxSecurityLabel", "ay");

        if (r == 0)
                r = message_builder_open(b, 'a', "y");
        for (size_t i = 0; r == 0 && i <= strlen(label); i++) {
                uint8_t byte = (uint8_t) label[i];

                r = message_builder_append_basic(b, 'y', &byte);
        }
        if (r == 0)
                r = message_builder_close(b);
        return r == 0 ? driver_info_close_entry(b) : r;
}

static int driver_info_append_pidfd(MessageBuilder *b, int pidfd) {
        int r = driver_info_open_entry(b, "ProcessFD", "h");

        if (r == 0)
                r = message_builder_append_fd(b, pidfd);
        return r == 0 ? driver_info_close_entry(b) : r;
}

static int driver_info_append_creds(MessageBuilder *b, const Creds *creds, bool with_fd) {
        int r = message_builder_open(b, 'a', "{sv}");

        if (r == 0)
                r = driver_info_append_u32(b, "UnixUserID", creds->uid);
        if (r == 0 && creds->n_groups > 0)
                r = driver_info_append_groups(b, creds);
        if (r == 0 && creds->pid > 0)
                r = driver_info_append_u32(b, "ProcessID", (uint32_t) creds->pid);
        if (r == 0 && with_fd && creds->pidfd >= 0)
                r = driver_info_append_pidfd(b, creds->pidfd);
        if (r == 0 && creds->label)
                r = driver_info_append_label(b, creds->label);
        return r == 0 ? message_builder_close(b) : r;
}

static int driver_method_get_credentials(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const char *name;
        Peer *target;
        Creds own = { .pid = getpid(), .uid = getuid(), .gid = getgid(), .pidfd = -1 };
        int r = driver_info_lookup(bus, m, "credentials", &target, &name, error);

        if (r != 0)
                return r;
        r = driver_return_new(m, &b);
        if (r == 0)
                r = driver_info_append_creds(b, target ? &target->creds : &own,
                                             connection_unix_fd(&peer->connection));
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_method_get_adt(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *target;
        int r = driver_info_lookup(bus, m, "audit session data", &target, &name, error);

        if (r != 0)
                return r;
        return driver_fail(error, BUS_ERROR_ADT_AUDIT_DATA_UNKNOWN,
                           "Could not determine audit session data for '%s'", name);
}

static int driver_method_get_selinux(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        const char *name;
        Peer *target;
        int r = driver_info_lookup(bus, m, "security context", &target, &name, error);

        if (r != 0)
                return r;
        return driver_fail(error, BUS_ERROR_SELINUX_CONTEXT_UNKNOWN,
                           "Could not determine security context for '%s'", name);
}

/*
 * Properties of org.freedesktop.DBus: Features and Interfaces, both
 * read-only "as". Features lists what dbus-daemon 1.14 lists in the same
 * situation and this bus does too: HeaderFiltering (message_stamp_sender()
 * drops header fields the specification does not define from everything
 * routed), ActivatableServicesChanged (broadcast after every reload,
 * bus_reload()), SystemdActivation with --systemd-activation. Interfaces:
 * the optional ones offered (Debug.Stats in driver-stats.c). Features not
 * listed, as not done: AppArmor and SELinux (no mediation by them here).
 */

static const char *const driver_features[] = { "ActivatableServicesChanged", "HeaderFiltering", NULL };
static const char *const driver_features_systemd[] = {
        "ActivatableServicesChanged", "HeaderFiltering", "SystemdActivation", NULL
};
static const char *const driver_interfaces[] = {
        "org.freedesktop.DBus.Monitoring", "org.freedesktop.DBus.Debug.Stats", NULL
};

static const char *const *driver_property(Bus *bus, const char *name) {
        if (strcmp(name, "Features") == 0)
                return bus->activation->systemd ? driver_features_systemd : driver_features;
        if (strcmp(name, "Interfaces") == 0)
                return driver_interfaces;
        return NULL;
}

static int driver_append_strv_variant(MessageBuilder *b, const char *const *strv) {
        int r = message_builder_open(b, 'v', "as");

        if (r == 0)
                r = message_builder_open(b, 'a', "s");
        for (size_t i = 0; r == 0 && strv[i]; i++)
                r = message_builder_append_basic(b, 's', strv[i]);
        if (r == 0)
                r = message_builder_close(b);
        return r == 0 ? message_builder_close(b) : r;
}

static int driver_check_properties_interface(const char *interface, DriverError *error) {
        if (strcmp(interface, DRIVER_INTERFACE) != 0)
                return driver_fail(error, BUS_ERROR_UNKNOWN_INTERFACE,
                                   "Interface \"%s\" not found", interface);
        return 0;
}

static int driver_method_properties_get(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        const char *interface, *name;
        const char *const *value;
        int r;

        r = message_read(m, "ss", &interface, &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_check_properties_interface(interface, error);
        if (r != 0)
                return r;
        value = driver_property(bus, name);
        if (!value)
                return driver_fail(error, BUS_ERROR_UNKNOWN_PROPERTY,
                                   "Property \"%s.%s\" not found", interface, name);
        r = driver_return_new(m, &b);
        if (r == 0)
                r = driver_append_strv_variant(b, value);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_method_properties_get_all(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        static const char *const names[] = { "Features", "Interfaces" };
        const char *interface;
        int r;

        r = message_read(m, "s", &interface);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        /* As dbus-daemon: GetAll("") is an unknown interface, too. */
        r = driver_check_properties_interface(interface, error);
        if (r != 0)
                return r;
        r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_open(b, 'a', "{sv}");
        for (size_t i = 0; r == 0 && i < ELEMENTSOF(names); i++) {
                r = message_builder_open(b, 'e', "sv");
                if (r == 0)
                        r = message_builder_append_basic(b, 's', names[i]);
                if (r == 0)
                        r = driver_append_strv_variant(b, driver_property(bus, names[i]));
                if (r == 0)
                        r = message_builder_close(b);
        }
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

static int driver_method_properties_set(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        MessageReader reader;
        const char *interface = NULL, *name = NULL;
        int r;

        message_reader_init(&reader, m);
        r = message_reader_read_basic(&reader, 's', &interface);
        if (r == 0)
                r = message_reader_read_basic(&reader, 's', &name);
        if (r != 0)
                return r < 0 ? r : BUS_ERROR_INVALID_ARGS;
        r = driver_check_properties_interface(interface, error);
        if (r != 0)
                return r;
        if (!driver_property(bus, name))
                return driver_fail(error, BUS_ERROR_UNKNOWN_PROPERTY,
                                   "Property \"%s.%s\" not found", interface, name);
        return driver_fail(error, BUS_ERROR_PROPERTY_READ_ONLY,
                           "Property '%s.%s' cannot be set", interface, name);
}

/* Introspection: the XML dbus-daemon gives, interface by interface. */

static const char driver_xml_head[] =
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
        "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"
        "<node>\n";

static const char driver_xml_dbus[] =
        "  <interface name=\"org.freedesktop.DBus\">\n"
        "    <method name=\"Hello\">\n      <arg direction=\"out\" type=\"s\"/>\n    </method>\n"
        "    <method name=\"RequestName\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"in\" type=\"u\"/>\n      <arg direction=\"out\" type=\"u\"/>\n    </method>\n"
        "    <method name=\"ReleaseName\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"u\"/>\n    </method>\n"
        "    <method name=\"StartServiceByName\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"in\" type=\"u\"/>\n      <arg direction=\"out\" type=\"u\"/>\n    </method>\n"
        "    <method name=\"UpdateActivationEnvironment\">\n      <arg direction=\"in\" type=\"a{ss}\"/>\n    </method>\n"
        "    <method name=\"NameHasOwner\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"b\"/>\n    </method>\n"
        "    <method name=\"ListNames\">\n      <arg direction=\"out\" type=\"as\"/>\n    </method>\n"
        "    <method name=\"ListActivatableNames\">\n      <arg direction=\"out\" type=\"as\"/>\n    </method>\n"
        "    <method name=\"AddMatch\">\n      <arg direction=\"in\" type=\"s\"/>\n    </method>\n"
        "    <method name=\"RemoveMatch\">\n      <arg direction=\"in\" type=\"s\"/>\n    </method>\n"
        "    <method name=\"GetNameOwner\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"s\"/>\n    </method>\n"
        "    <method name=\"ListQueuedOwners\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"as\"/>\n    </method>\n"
        "    <method name=\"GetConnectionUnixUser\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"u\"/>\n    </method>\n"
        "    <method name=\"GetConnectionUnixProcessID\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"u\"/>\n    </method>\n"
        "    <method name=\"GetAdtAuditSessionData\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"ay\"/>\n    </method>\n"
        "    <method name=\"GetConnectionSELinuxSecurityContext\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"ay\"/>\n    </method>\n"
        "    <method name=\"ReloadConfig\">\n    </method>\n"
        "    <method name=\"GetId\">\n      <arg direction=\"out\" type=\"s\"/>\n    </method>\n"
        "    <method name=\"GetConnectionCredentials\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"a{sv}\"/>\n    </method>\n"
        "    <property name=\"Features\" type=\"as\" access=\"read\">\n"
        "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"const\"/>\n"
        "    </property>\n"
        "    <property name=\"Interfaces\" type=\"as\" access=\"read\">\n"
        "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"const\"/>\n"
        "    </property>\n"
        "    <signal name=\"NameOwnerChanged\">\n      <arg type=\"s\"/>\n      <arg type=\"s\"/>\n"
        "      <arg type=\"s\"/>\n    </signal>\n"
        "    <signal name=\"NameLost\">\n      <arg type=\"s\"/>\n    </signal>\n"
        "    <signal name=\"NameAcquired\">\n      <arg type=\"s\"/>\n    </signal>\n"
        "    <signal name=\"ActivatableServicesChanged\">\n    </signal>\n"
        "  </interface>\n";

static const char driver_xml_properties[] =
        "  <interface name=\"org.freedesktop.DBus.Properties\">\n"
        "    <method name=\"Get\">\n      <arg direction=\"in\" type=\"s\"/>\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"v\"/>\n    </method>\n"
        "    <method name=\"GetAll\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"a{sv}\"/>\n    </method>\n"
        "    <method name=\"Set\">\n      <arg direction=\"in\" type=\"s\"/>\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"in\" type=\"v\"/>\n    </method>\n"
        "    <signal name=\"PropertiesChanged\">\n      <arg type=\"s\" name=\"interface_name\"/>\n"
        "      <arg type=\"a{sv}\" name=\"changed_properties\"/>\n"
        "      <arg type=\"as\" name=\"invalidated_properties\"/>\n    </signal>\n"
        "  </interface>\n";

static const char driver_xml_introspectable[] =
        "  <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
        "    <method name=\"Introspect\">\n      <arg direction=\"out\" type=\"s\"/>\n    </method>\n"
        "  </interface>\n";

static const char driver_xml_monitoring[] =
        "  <interface name=\"org.freedesktop.DBus.Monitoring\">\n"
        "    <method name=\"BecomeMonitor\">\n      <arg direction=\"in\" type=\"as\"/>\n"
        "      <arg direction=\"in\" type=\"u\"/>\n    </method>\n"
        "  </interface>\n";

static const char driver_xml_stats[] =
        "  <interface name=\"org.freedesktop.DBus.Debug.Stats\">\n"
        "    <method name=\"GetStats\">\n      <arg direction=\"out\" type=\"a{sv}\"/>\n    </method>\n"
        "    <method name=\"GetConnectionStats\">\n      <arg direction=\"in\" type=\"s\"/>\n"
        "      <arg direction=\"out\" type=\"a{sv}\"/>\n    </method>\n"
        "    <method name=\"GetAllMatchRules\">\n      <arg direction=\"out\" type=\"a{sas}\"/>\n    </method>\n"
        "  </interface>\n";

static const char driver_xml_broker[] =
        "  <interface name=\"org.mssf.Broker1\">\n"
        "    <method name=\"GetStats\">\n      <arg direction=\"out\" type=\"a{sv}\"/>\n    </method>\n";

static const char driver_xml_peer[] =
        "  <interface name=\"org.freedesktop.DBus.Peer\">\n"
        "    <method name=\"GetMachineId\">\n      <arg direction=\"out\" type=\"s\"/>\n    </method>\n"
        "    <method name=\"Ping\">\n    </method>\n"
        "  </interface>\n";

/*
 * As dbus-daemon: the canonical path has every interface; any other path
 * has the bus interface, Introspectable and Peer, plus a child node
 * leading towards the canonical path when it is a prefix of it.
 */
static int driver_introspection(const char *path, char **ret) {
        static const char canonical[] = BUS_DRIVER_PATH;
        bool is_canonical = strcmp(path, canonical) == 0;
        size_t n = strlen(path);
        const char *child = NULL;
        char node[64] = "";

        if (strcmp(path, "/") == 0)
                child = canonical + 1;
        else if (!is_canonical && strncmp(canonical, path, n) == 0 && canonical[n] == '/')
                child = canonical + n + 1;
        if (child)
                snprintf(node, sizeof(node), "  <node name=\"%s\"/>\n", child);
        if (asprintf(ret, "%s%s%s%s%s%s%s%s%s%s%s</node>\n", driver_xml_head, driver_xml_dbus,
                     is_canonical ? driver_xml_properties : "", driver_xml_introspectable,
                     is_canonical ? driver_xml_monitoring : "", is_canonical ? driver_xml_stats : "",
                     is_canonical ? driver_xml_broker : "",
                     is_canonical ? driver_mssf_xml_check_token : "",
                     is_canonical ? "  </interface>\n" : "", driver_xml_peer, node) < 0)
                return -ENOMEM;
        return 0;
}

static int driver_method_introspect(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        _cleanup_free_ char *xml = NULL;
        int r = driver_introspection(message_get_path(m), &xml);

        if (r == 0)
                r = driver_return_new(m, &b);
        if (r == 0)
                r = message_builder_append_basic(b, 's', xml);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

/* BecomeMonitor: the caller stops being a normal peer and receives copies of everything. */

static int driver_monitor_parse_rules(Message *m, MatchRule ***ret, size_t *ret_n, DriverError *error) {
        _cleanup_free_ MatchRule **rules = NULL;
        MessageReader reader;
        uint32_t flags = 0;
        size_t n = 0;
        int r;

        message_reader_init(&reader, m);
        r = message_reader_enter(&reader, 'a', "s");
        while (r == 0 && !message_reader_at_end(&reader)) {
                const char *text;
                MatchRule **grown;

                r = message_reader_read_basic(&reader, 's', &text);
                if (r != 0)
                        break;
                grown = realloc(rules, (n + 1) * sizeof(*rules));
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                rules = grown;
                r = match_rule_parse(text, strlen(text), &rules[n]);
                if (r == 0)
                        /* As dbus-daemon: a monitor's rules see messages addressed to others. */
                        match_rule_set_eavesdrop(rules[n++], true);
                else if (r > 0)
                        r = driver_fail(error, BUS_ERROR_MATCH_RULE_INVALID,
                                        "Invalid match rule \"%s\"", text);
        }
        if (r == 0)
                r = message_reader_exit(&reader);
        if (r == 0)
                r = message_reader_read_basic(&reader, 'u', &flags);
        if (r == 0 && flags != 0)
                r = driver_fail(error, BUS_ERROR_INVALID_ARGS, "BecomeMonitor does not support any flags yet");
        if (r != 0) {
                for (size_t i = 0; i < n; i++)
                        match_rule_free(rules[i]);
                return r == MESSAGE_E_SIGNATURE ? BUS_ERROR_INVALID_ARGS : r;
        }
        *ret = TAKE_PTR(rules);
        *ret_n = n;
        return 0;
}

static int driver_method_become_monitor(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        MediateVerdict verdict;
        NameChange change;
        bool others;
        int r;

        if (!peer_is_privileged(peer))
                return driver_fail(error, BUS_ERROR_ACCESS_DENIED,
                                   "Connection \"%s\" is not allowed to become a monitor", peer->unique_name);
        if (mediate_monitor(peer, &verdict) != 0)
                return driver_fail(error, verdict.error, "%s", verdict.text);
        r = driver_monitor_parse_rules(m, &peer->monitor_rules, &peer->n_monitor_rules, error);
        if (r != 0)
                return r;
        r = driver_return_ack(bus, peer, m);
        if (r < 0)
                return r;
        /*
         * As dbus-daemon 1.14: it loses every name, its unique one (its
         * first) first, and its match rules. Its monitor rules already
         * apply while it does, so it sees the NameOwnerChanged of its own
         * names as a monitor (never a copy of what is addressed to it:
         * dispatch_capture()), but only when another monitor was there
         * before: dbus-daemon captures nothing while its list of monitors,
         * which the new one joins last, is empty.
         */
        others = !ilist_is_empty(&bus->monitors);
        if (others)
                ilist_append(&bus->monitors, &peer->monitor_link);
        change = (NameChange) { .old_owner = &peer->names };
        strncpy(change.name, peer->unique_name, sizeof(change.name) - 1);
        (void) driver_emit_name_change(bus, &change);
        while (names_release_next(bus->names, &peer->names, &change) == 0)
                (void) driver_emit_name_change(bus, &change);
        peer_drop_matches(peer);
        if (!others)
                ilist_append(&bus->monitors, &peer->monitor_link);
        peer->monitor = true;
        /* It may not answer any more, and what it waits for is no longer its concern. */
        peer_fail_owed_replies(peer);
        reply_owner_deinit(&peer->replies);
        return 0;
}

/*
 * org.mssf.Broker1.GetStats: connection counts, and what the policy layers
 * decided since the bus started (MSSF per reason, busconfig, the Smack
 * oracle's cache), and each label's quotas (driver-quota.c); dbus-daemon's
 * Debug.Stats is driver-stats.c. A
 * system.d snippet of ours (dbus-conf/org.mssf.Broker1.conf) lets root
 * call it on the system bus.
 */
static int driver_stats_u64(MessageBuilder *b, const char *key, uint64_t value) {
        return driver_append_entry(b, key, 't', &value);
}

static int driver_stats_mssf(MessageBuilder *b, const SecurityCounters *c) {
        char key[96];
        int r = driver_stats_u64(b, "MssfAllowed", c->mssf.allowed);

        if (r == 0)
                r = driver_stats_u64(b, "MssfDenied", c->mssf.denied);
        for (unsigned i = 1; r == 0 && i < _MEDIATION_REASON_MAX; i++) {
                snprintf(key, sizeof(key), "MssfDenied:%s", mediation_reason_to_string((MediationReason) i));
                r = driver_stats_u64(b, key, c->mssf.by_reason[i]);
        }
        if (r == 0)
                r = driver_stats_u64(b, "BusconfigDenied", c->busconfig_denied);
        if (r == 0)
                r = driver_stats_u64(b, "Delivered", c->allowed);
        return r;
}

static int driver_stats_smack(MessageBuilder *b, const Security *security) {
        SmackOracleStats s;
        int has_smack = security_has_smack(security);
        int policy = security_get_policy_db(security) != NULL;
        int r;

        smack_oracle_get_stats(security_get_oracle(security), &s);
        r = driver_append_entry(b, "SmackEnabled", 'b', &has_smack);
        if (r == 0)
                r = driver_append_entry(b, "MssfPolicyLoaded", 'b', &policy);
        if (r == 0)
                r = driver_stats_u64(b, "SmackQueries", s.queries);
        if (r == 0)
                r = driver_stats_u64(b, "SmackCacheHits", s.cache_hits);
        if (r == 0)
                r = driver_stats_u64(b, "SmackKernelQueries", s.kernel_queries);
        if (r == 0)
                r = driver_stats_u64(b, "SmackKernelErrors", s.kernel_errors);
        if (r == 0)
                r = driver_stats_u64(b, "SmackCacheFlushes", s.flushes);
        return r;
}

static int driver_method_get_stats(Bus *bus, Peer *peer, Message *m, DriverError *error) {
        _cleanup_(message_builder_freep) MessageBuilder *b = NULL;
        uint32_t active = (uint32_t) bus->n_complete, incomplete = (uint32_t) bus->n_incomplete;
        int r = driver_return_new(m, &b);

        if (r == 0)
                r = message_builder_open(b, 'a', "{sv}");
        if (r == 0)
                r = driver_append_entry(b, "ActiveConnections", 'u', &active);
        if (r == 0)
                r = driver_append_entry(b, "IncompleteConnections", 'u', &incomplete);
        /* Flow control (dispatch.c): unicasts refused for a full queue, peers dropped for one. */
        if (r == 0)
                r = driver_stats_u64(b, "QueueFullRefused", bus->flow.refused);
        if (r == 0)
                r = driver_stats_u64(b, "QueueFullDisconnected", bus->flow.disconnected);
        if (r == 0 && bus->security)
                r = driver_stats_mssf(b, security_get_counters(bus->security));
        if (r == 0 && bus->security)
                r = driver_stats_smack(b, bus->security);
        if (r == 0)
                r = driver_stats_label_quotas(b, bus);
        if (r == 0)
                r = message_builder_close(b);
        return r < 0 ? r : driver_send(bus, peer, m, b);
}

const DriverMethod driver_info_methods[] = {
        { DRIVER_INTERFACE, "GetConnectionUnixUser", "s", driver_method_get_unix_user },
        { DRIVER_INTERFACE, "GetConnectionUnixProcessID", "s", driver_method_get_unix_process_id },
        { DRIVER_INTERFACE, "GetConnectionCredentials", "s", driver_method_get_credentials },
        { DRIVER_INTERFACE, "GetAdtAuditSessionData", "s", driver_method_get_adt },
        { DRIVER_INTERFACE, "GetConnectionSELinuxSecurityContext", "s", driver_method_get_selinux },
        { DRIVER_PROPERTIES, "Get", "ss", driver_method_properties_get, true },
        { DRIVER_PROPERTIES, "GetAll", "s", driver_method_properties_get_all, true },
        { DRIVER_PROPERTIES, "Set", "ssv", driver_method_properties_set, true },
        { "org.freedesktop.DBus.Introspectable", "Introspect", "", driver_method_introspect },
        { "org.freedesktop.DBus.Monitoring", "BecomeMonitor", "asu", driver_method_become_monitor, true },
        { "org.mssf.Broker1", "GetStats", "", driver_method_get_stats, true },
};

const unsigned driver_n_info_methods = ELEMENTSOF(driver_info_methods);
