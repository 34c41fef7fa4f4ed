/*
 * address: D-Bus server addresses ("unix:path=/run/dbus/system_bus_socket")
 * as <listen> elements and --address give them, and the connectable
 * address the bus prints once a socket is bound.
 *
 * Syntax per the D-Bus specification, "Server Addresses": entries separated
 * by ';' (an empty entry is skipped, an empty list refused), each
 * "transport:key=value,key=value"; values are %-escaped and, like libdbus,
 * we refuse a byte outside the optionally-escaped set [-0-9A-Za-z_/.\*]
 * that was not escaped. Transports: unix (exactly one of path, dir,
 * tmpdir, abstract, runtime=yes; other keys are ignored as libdbus does,
 * except guid, which must be 32 hex digits) and systemd. tcp, nonce-tcp,
 * launchd, autolaunch and unixexec are valid addresses that this bus
 * refuses (ADDRESS_E_UNSUPPORTED): a system bus for a device has no
 * business on the network.
 *
 * Nothing here touches a socket: the listener binds what
 * bus_address_socket_path() names.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "macro.h"
#include "address.h"

static const char *const unix_keys[] = {
        [BUS_ADDRESS_UNIX_PATH] = "path",
        [BUS_ADDRESS_UNIX_DIR] = "dir",
        [BUS_ADDRESS_UNIX_TMPDIR] = "tmpdir",
        [BUS_ADDRESS_UNIX_ABSTRACT] = "abstract",
        [BUS_ADDRESS_UNIX_RUNTIME] = "runtime",
};

static const char *const unsupported_transports[] = {
        "tcp", "nonce-tcp", "launchd", "autolaunch", "unixexec",
};

static int fail(AddressError *err, int code, const char *format, ...) _printf_(3, 4);
static int fail(AddressError *err, int code, const char *format, ...) {
        va_list ap;

        if (err) {
                va_start(ap, format);
                vsnprintf(err->message, sizeof(err->message), format, ap);
                va_end(ap);
        }
        return code;
}

static bool optionally_escaped(unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '/' || c == '.' || c == '\\' || c == '*';
}

/* Decodes value[0..len) into a new string. */
static int unescape(const char *value, size_t len, char **ret, AddressError *err) {
        _cleanup_free_ char *out = malloc(len + 1);
        size_t n = 0;

        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)value[i];

                if (c == '%') {
                        int hi = i + 2 < len ? hex_digit_value(value[i + 1]) : -1;
                        int lo = i + 2 < len ? hex_digit_value(value[i + 2]) : -1;

                        if (hi < 0 || lo < 0)
                                return fail(err, ADDRESS_E_INVALID,
                                            "In D-Bus address, percent character was not followed by two hex digits");
                        c = (unsigned char)(hi * 16 + lo);
                        if (c == '\0')
                                return fail(err, ADDRESS_E_INVALID, "In D-Bus address, a value contains a NUL byte");
                        i += 2;
                } else if (!optionally_escaped(c))
                        return fail(err, ADDRESS_E_INVALID, "Character '%c' should have been escaped in D-Bus address",
                                    c);
                out[n++] = (char)c;
        }
        out[n] = '\0';
        *ret = TAKE_PTR(out);
        return 0;
}

int bus_address_escape(const char *value, char **ret) {
        size_t len = strlen(value);
        char *out = malloc(len * 3 + 1);
        size_t n = 0;

        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)value[i];

                if (optionally_escaped(c))
                        out[n++] = (char)c;
                else
                        n += (size_t)sprintf(out + n, "%%%02x", c);
        }
        out[n] = '\0';
        *ret = out;
        return 0;
}

static bool guid_valid(const char *guid) {
        size_t i;

        for (i = 0; guid[i]; i++)
                if (hex_digit_value(guid[i]) < 0)
                        return false;
        return i == 32;
}

static void address_clear(BusAddress *address) {
        free(address->path);
        free(address->guid);
}

BusAddressList *bus_address_list_free(BusAddressList *list) {
        if (!list)
                return NULL;
        for (size_t i = 0; i < list->n_entries; i++)
                address_clear(&list->entries[i]);
        free(list->entries);
        free(list);
        return NULL;
}

/* One key=value pair of an entry; stores unix keys and guid in address. */
static int parse_pair(const char *pair, size_t len, BusAddress *address, bool *seen_kind,
                      AddressError *err) {
        const char *eq = memchr(pair, '=', len);
        _cleanup_free_ char *value = NULL;
        size_t key_len;
        int r;

        if (!eq || eq == pair)
                return fail(err, ADDRESS_E_INVALID, "Address element '%.*s' is not of the form key=value",
                            (int)len, pair);
        key_len = (size_t)(eq - pair);
        r = unescape(eq + 1, len - key_len - 1, &value, err);
        if (r != 0)
                return r;
        if (key_len == 4 && memcmp(pair, "guid", 4) == 0) {
                if (address->guid || !guid_valid(value))
                        return fail(err, ADDRESS_E_INVALID, "Bad or repeated guid in address: '%s'", value);
                address->guid = TAKE_PTR(value);
                return 0;
        }
        for (size_t k = 0; k < ELEMENTSOF(unix_keys); k++) {
                if (strlen(unix_keys[k]) != key_len || memcmp(pair, unix_keys[k], key_len) != 0)
                        continue;
                if (*seen_kind)
                        return fail(err, ADDRESS_E_INVALID,
                                    "Cannot specify two of \"path\", \"dir\", \"tmpdir\", \"abstract\" and \"runtime\" at the same time");
                *seen_kind = true;
                address->kind = (BusAddressKind)k;
                if (address->kind == BUS_ADDRESS_UNIX_RUNTIME) {
                        if (strcmp(value, "yes") != 0)
                                return fail(err, ADDRESS_E_INVALID, "If given, runtime must be \"yes\", not \"%s\"",
                                            value);
                        return 0;
                }
                if (value[0] == '\0')
                        return fail(err, ADDRESS_E_INVALID, "Empty value for \"%s\" in address", unix_keys[k]);
                address->path = TAKE_PTR(value);
                return 0;
        }
        return 0; /* libdbus ignores keys it does not know */
}

static int parse_unix(const char *params, size_t len, BusAddress *address, AddressError *err) {
        bool seen_kind = false;
        size_t start = 0;

        while (start < len) {
                const char *comma = memchr(params + start, ',', len - start);
                size_t end = comma ? (size_t)(comma - params) : len;
                int r = parse_pair(params + start, end - start, address, &seen_kind, err);

                if (r != 0)
                        return r;
                start = end + 1;
        }
        if (!seen_kind)
                return fail(err, ADDRESS_E_INVALID,
                            "Must specify \"path\", \"dir\", \"tmpdir\", \"abstract\" or \"runtime\" in a unix: address");
        return 0;
}

static int parse_entry(const char *entry, size_t len, BusAddress *address, AddressError *err) {
        const char *colon = memchr(entry, ':', len);
        size_t transport_len;

        *address = (BusAddress){};
        if (!colon || colon == entry)
                return fail(err, ADDRESS_E_INVALID, "Address '%.*s' does not start with a transport name and ':'",
                            (int)len, entry);
        transport_len = (size_t)(colon - entry);
        if (transport_len == 4 && memcmp(entry, "unix", 4) == 0)
                return parse_unix(colon + 1, len - transport_len - 1, address, err);
        if (transport_len == 7 && memcmp(entry, "systemd", 7) == 0) {
                address->kind = BUS_ADDRESS_SYSTEMD;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(unsupported_transports); i++)
                if (strlen(unsupported_transports[i]) == transport_len &&
                    memcmp(entry, unsupported_transports[i], transport_len) == 0)
                        return fail(err, ADDRESS_E_UNSUPPORTED,
                                    "The %s: transport is not supported by this bus; use unix: or systemd:",
                                    unsupported_transports[i]);
        return fail(err, ADDRESS_E_INVALID, "Unknown address type '%.*s' (valid types here are \"unix\" and \"systemd\")",
                    (int)transport_len, entry);
}

static int list_append(BusAddressList *list, const char *entry, size_t len, AddressError *err) {
        BusAddress address;
        BusAddress *grown;
        int r;

        r = parse_entry(entry, len, &address, err);
        if (r != 0) {
                address_clear(&address);
                return r;
        }
        grown = realloc(list->entries, (list->n_entries + 1) * sizeof(*grown));
        if (!grown) {
                address_clear(&address);
                return -ENOMEM;
        }
        list->entries = grown;
        list->entries[list->n_entries++] = address;
        return 0;
}

int bus_address_parse(const char *text, BusAddressList **ret, AddressError *err) {
        _cleanup_(bus_address_list_freep) BusAddressList *list = calloc(1, sizeof(*list));
        size_t len = strlen(text), start = 0;

        if (!list)
                return -ENOMEM;
        while (start < len) {
                const char *semicolon = memchr(text + start, ';', len - start);
                size_t end = semicolon ? (size_t)(semicolon - text) : len;

                if (end > start) {
                        int r = list_append(list, text + start, end - start, err);
                        if (r != 0)
                                return r;
                }
                start = end + 1;
        }
        if (list->n_entries == 0)
                return fail(err, ADDRESS_E_INVALID, "Empty address '%s'", text);
        *ret = TAKE_PTR(list);
        return 0;
}

/* "dbus-" and ten random alphanumerics, as libdbus names sockets in dir=. */
static int random_socket_name(const char *dir, char **ret) {
        static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        unsigned char bytes[10];
        char name[16] = "dbus-";

        if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
                return -errno ? -errno : -EIO;
        for (size_t i = 0; i < sizeof(bytes); i++)
                name[5 + i] = alphabet[bytes[i] % (sizeof(alphabet) - 1)];
        name[15] = '\0';
        if (asprintf(ret, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        return 0;
}

int bus_address_socket_path(const BusAddress *address, char **ret_path, bool *ret_abstract) {
        const char *runtime;
        char *path = NULL;
        int r = 0;

        switch (address->kind) {
        case BUS_ADDRESS_UNIX_PATH:
        case BUS_ADDRESS_UNIX_ABSTRACT:
                path = strdup(address->path);
                r = path ? 0 : -ENOMEM;
                break;
        case BUS_ADDRESS_UNIX_DIR:
        case BUS_ADDRESS_UNIX_TMPDIR:
                r = random_socket_name(address->path, &path);
                break;
        case BUS_ADDRESS_UNIX_RUNTIME:
                runtime = getenv("XDG_RUNTIME_DIR");
                if (!runtime || runtime[0] != '/')
                        return -ENXIO;
                r = asprintf(&path, "%s/bus", runtime) < 0 ? -ENOMEM : 0;
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return r;
        *ret_path = path;
        *ret_abstract = address->kind == BUS_ADDRESS_UNIX_ABSTRACT;
        return 0;
}

int bus_address_format_unix(const char *path, bool abstract, const char *guid, char **ret) {
        _cleanup_free_ char *escaped = NULL;
        int r;

        if (!guid_valid(guid))
                return -EINVAL;
        r = bus_address_escape(path, &escaped);
        if (r < 0)
                return r;
        if (asprintf(ret, "unix:%s=%s,guid=%s", abstract ? "abstract" : "path", escaped, guid) < 0)
                return -ENOMEM;
        return 0;
}

const char *bus_address_kind_to_string(BusAddressKind kind) {
        if (kind == BUS_ADDRESS_SYSTEMD)
                return "systemd";
        if ((size_t)kind < ELEMENTSOF(unix_keys))
                return unix_keys[kind];
        return NULL;
}
