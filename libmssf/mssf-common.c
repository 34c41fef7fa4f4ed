/*
 * libmssf's checks before the bus is asked, and the bus's error names
 * sorted into kinds for the two bindings (mssf-gio.c, mssf-sd-bus.c).
 * The checks only keep what cannot be a question out of the bus (and
 * strings GVariant and sd-bus would refuse to marshal); the bus validates
 * every argument again and is the judge.
 */
#include <string.h>

#include "mssf-private.h"
#include "mssf/mssf.h"

static bool is_name_char(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
}

/* ":1.42": elements of [A-Za-z0-9_-], at least two, none empty, 255 bytes at most. */
const char *mssf_check_name(const char *name) {
        size_t n = 0, elements = 1;
        bool element_start = true;

        if (!name || name[0] != ':')
                return "not a unique connection name such as \":1.42\" (the sender of a message)";
        for (const char *p = name + 1; *p; p++, n++) {
                if (*p == '.') {
                        if (element_start)
                                return "not a valid unique connection name";
                        elements++;
                        element_start = true;
                } else if (is_name_char(*p))
                        element_start = false;
                else
                        return "not a valid unique connection name";
        }
        if (element_start || elements < 2 || n + 1 > 255)
                return "not a valid unique connection name";
        return NULL;
}

/* A token is a Smack label: 1-255 printable ASCII bytes. */
const char *mssf_check_token_name(const char *token) {
        size_t n;

        if (!token || !token[0])
                return "an empty token name";
        n = strlen(token);
        if (n > MSSF_TOKEN_MAX)
                return "a token name longer than 255 bytes";
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) token[i] <= ' ' || (unsigned char) token[i] >= 0x7f)
                        return "a token name with a space, a control character or a non-ASCII byte";
        return NULL;
}

MssfErrorKind mssf_error_kind_from_name(const char *name) {
        static const struct {
                const char *name;
                MssfErrorKind kind;
        } table[] = {
                { "org.freedesktop.DBus.Error.InvalidArgs", MSSF_KIND_INVALID_ARGUMENT },
                { "org.freedesktop.DBus.Error.NameHasNoOwner", MSSF_KIND_NO_SUCH_CONNECTION },
                { "org.freedesktop.DBus.Error.AccessDenied", MSSF_KIND_NOT_ALLOWED },
                { MSSF_ERROR_NAME_SMACK_DISABLED, MSSF_KIND_SMACK_DISABLED },
                { MSSF_ERROR_NAME_NO_LABEL, MSSF_KIND_NO_LABEL },
                { MSSF_ERROR_NAME_POLICY_OUTDATED, MSSF_KIND_POLICY_OUTDATED },
                /* dbus-daemon, dbus-broker: the driver has no such method. */
                { "org.freedesktop.DBus.Error.UnknownMethod", MSSF_KIND_NOT_SUPPORTED },
                { "org.freedesktop.DBus.Error.UnknownInterface", MSSF_KIND_NOT_SUPPORTED },
                { "org.freedesktop.DBus.Error.UnknownObject", MSSF_KIND_NOT_SUPPORTED },
        };

        for (size_t i = 0; name && i < sizeof(table) / sizeof(table[0]); i++)
                if (strcmp(name, table[i].name) == 0)
                        return table[i].kind;
        return MSSF_KIND_FAILED;
}
