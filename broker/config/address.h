/* address: D-Bus server addresses, as <listen> and --address give them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/*
 * Positive codes are expected outcomes; negative errno values are failures.
 * ADDRESS_E_INVALID: the text is not a valid address (AddressError says why).
 * ADDRESS_E_UNSUPPORTED: a valid address for a transport this bus refuses
 * (tcp:, nonce-tcp:, launchd:, autolaunch:, ...).
 */
enum {
        ADDRESS_E_INVALID = 1,
        ADDRESS_E_UNSUPPORTED,
};

typedef enum BusAddressKind {
        BUS_ADDRESS_UNIX_PATH,          /* unix:path=P         bind P */
        BUS_ADDRESS_UNIX_DIR,           /* unix:dir=D          bind D/dbus-XXXXXXXXXX */
        BUS_ADDRESS_UNIX_TMPDIR,        /* unix:tmpdir=D       like dir= (as dbus >= 1.14.4) */
        BUS_ADDRESS_UNIX_ABSTRACT,      /* unix:abstract=N     abstract socket N */
        BUS_ADDRESS_UNIX_RUNTIME,       /* unix:runtime=yes    $XDG_RUNTIME_DIR/bus */
        BUS_ADDRESS_SYSTEMD,            /* systemd:            sockets from LISTEN_FDS */
} BusAddressKind;

typedef struct AddressError {
        char message[256];
} AddressError;

/* One transport entry of an address: what the listener binds. */
typedef struct BusAddress {
        BusAddressKind kind;
        char *path;     /* (owned, nullable) unescaped path, dir or abstract name; NULL for runtime and systemd */
        char *guid;     /* (owned, nullable) 32 lowercase hex digits when guid= was given */
} BusAddress;

/*
 * An address is a ';'-separated list of alternatives; dbus-daemon (through
 * dbus_server_listen()) binds the first one that works, and so should the
 * listener. entries[] keeps the written order.
 */
typedef struct BusAddressList {
        BusAddress *entries;    /* (owned) */
        size_t n_entries;
} BusAddressList;

/*
 * Parses text per the D-Bus specification ("Server Addresses"): %-escapes
 * are decoded, bytes outside [-0-9A-Za-z_/.\*] must be escaped, keys may
 * not repeat, and an empty list is invalid. Returns 0 and *ret, or
 * ADDRESS_E_INVALID / ADDRESS_E_UNSUPPORTED with err->message filled, or
 * -ENOMEM. err may be NULL.
 */
int bus_address_parse(const char *text, BusAddressList **ret, AddressError *err);
BusAddressList *bus_address_list_free(BusAddressList *list);

/*
 * The socket a unix entry binds. For path= and abstract= that is the
 * given name; for dir= and tmpdir= a fresh random "dbus-XXXXXXXXXX" inside
 * the directory (as dbus-daemon does); for runtime=yes $XDG_RUNTIME_DIR/bus
 * (-ENXIO when XDG_RUNTIME_DIR is unset or not absolute). -EINVAL for
 * systemd:. *ret_abstract says whether *ret_path is an abstract name.
 */
int bus_address_socket_path(const BusAddress *address, char **ret_path, bool *ret_abstract);

/*
 * The connectable address dbus-daemon prints (--print-address) for a bound
 * unix socket: "unix:path=P,guid=G" or "unix:abstract=N,guid=G", values
 * escaped. guid must be 32 hex digits (-EINVAL otherwise).
 */
int bus_address_format_unix(const char *path, bool abstract, const char *guid, char **ret);

/* %-escapes value per the specification (optionally-escaped bytes stay). */
int bus_address_escape(const char *value, char **ret);

/* The key that names the kind ("path", "dir", "tmpdir", "abstract", "runtime") or "systemd". */
const char *bus_address_kind_to_string(BusAddressKind kind);

DEFINE_CLEANUP(BusAddressList *, bus_address_list_free);
