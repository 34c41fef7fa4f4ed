/*
 * Validators for what manifests and the device policy name: Smack labels,
 * package labels, D-Bus names and paths.
 *
 * Pure functions over NUL-terminated strings; any input (NULL included) is
 * accepted and answered. The D-Bus rules are the specification's; they are
 * written out here rather than taken from broker/wire so that policy/
 * depends on nothing in broker/.
 */
#include <string.h>

#include "db-names.h"
#include "manifest.h"

#define DBUS_NAME_MAX 255

static bool is_alpha_or_underscore(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

bool manifest_valid_label(const char *s) {
        if (!s)
                return false;
        size_t n = strlen(s);
        if (n == 0 || n > MANIFEST_MAX_LABEL || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                /* Printable ASCII only; no whitespace, slash, quotes or backslash. */
                if (c <= ' ' || c >= 0x7f || c == '/' || c == '"' || c == '\'' || c == '\\')
                        return false;
        }
        return true;
}

bool manifest_valid_package_label(const char *s) {
        /*
         * One rule with the token names' (policy/db, token-name.c), and no
         * colon at all: "PACKAGE:NAME" are the labels under a package's, so
         * no package may be called what is under another's. Nor may it
         * contain ".tmp-": mssf-policy's files are named after packages,
         * and NAME.tmp-XXXXXX are its unfinished writes, which it removes.
         */
        return db_name_is_package_label(s) && !strchr(s, ':') && !strstr(s, ".tmp-");
}

/* Dot-separated elements, at least two; dash allowed only in bus names. */
static bool valid_dotted(const char *s, bool allow_dash) {
        if (!s)
                return false;
        size_t n = strlen(s);
        if (n == 0 || n > DBUS_NAME_MAX)
                return false;
        unsigned elements = 1;
        bool element_start = true;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (c == '.') {
                        if (element_start)
                                return false;
                        elements++;
                        element_start = true;
                        continue;
                }
                bool ok = is_alpha_or_underscore(c) || (allow_dash && c == '-') ||
                          (!element_start && is_digit(c));
                if (!ok)
                        return false;
                element_start = false;
        }
        return !element_start && elements >= 2;
}

bool manifest_valid_file_path(const char *s) {
        size_t n = s ? strlen(s) : 0;
        if (n < 2 || n >= 4096 || s[0] != '/' || s[n - 1] == '/')
                return false;
        for (const char *c = s; *c; ) {
                const char *start = c + 1, *end = strchr(start, '/');
                size_t len = end ? (size_t) (end - start) : strlen(start);
                if (len == 0 || (len == 1 && start[0] == '.') ||
                    (len == 2 && start[0] == '.' && start[1] == '.'))
                        return false;
                c = start + len;
        }
        return true;
}

bool manifest_valid_bus_name(const char *s) {
        /* Manifests declare well-known names; unique names (":1.4") never. */
        return valid_dotted(s, true);
}

bool manifest_valid_interface_name(const char *s) {
        return valid_dotted(s, false);
}

bool manifest_valid_member_name(const char *s) {
        if (!s)
                return false;
        size_t n = strlen(s);
        if (n == 0 || n > DBUS_NAME_MAX || is_digit(s[0]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_alpha_or_underscore(s[i]) && !is_digit(s[i]))
                        return false;
        return true;
}

bool manifest_valid_object_path(const char *s) {
        if (!s || s[0] != '/')
                return false;
        if (s[1] == '\0')
                return true;
        bool element_start = true;
        for (const char *c = s + 1; *c; c++) {
                if (*c == '/') {
                        if (element_start)
                                return false;
                        element_start = true;
                        continue;
                }
                if (!is_alpha_or_underscore(*c) && !is_digit(*c))
                        return false;
                element_start = false;
        }
        return !element_start;
}
