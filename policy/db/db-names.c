/*
 * Validators for the strings of the compiled policy. They follow the D-Bus
 * specification's rules for names and paths and the kernel's rules for
 * Smack labels (security/smack/smack_access.c, smk_parse_label_len). They
 * trust nothing: any NUL-terminated input is answered.
 */
#include "db-names.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DB_NAME_MAX 255
#define DB_LABEL_MAX 255

static bool is_alpha_(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* Dot-separated elements; allow_dash: bus names also allow '-'. */
static bool is_dotted_name(const char *s, bool allow_dash) {
        size_t len = 0, elements = 0;
        bool element_start = true;

        for (const char *p = s; *p; p++, len++) {
                char c = *p;

                if (c == '.') {
                        if (element_start)
                                return false;
                        element_start = true;
                        continue;
                }
                if (!is_alpha_(c) && !(allow_dash && c == '-') && !(is_digit(c) && !element_start))
                        return false;
                if (element_start)
                        elements++;
                element_start = false;
        }
        return len > 0 && len <= DB_NAME_MAX && !element_start && elements >= 2;
}

bool db_name_is_bus_name(const char *s) {
        return s && s[0] != ':' && is_dotted_name(s, true);
}

bool db_name_is_interface(const char *s) {
        return s && is_dotted_name(s, false);
}

bool db_name_is_member(const char *s) {
        size_t len = 0;

        if (!s || !is_alpha_(s[0]))
                return false;
        for (const char *p = s; *p; p++, len++)
                if (!is_alpha_(*p) && !is_digit(*p))
                        return false;
        return len <= DB_NAME_MAX;
}

bool db_name_is_object_path(const char *s) {
        bool element_start = true;

        if (!s || s[0] != '/')
                return false;
        if (s[1] == '\0')
                return true;
        for (const char *p = s + 1; *p; p++) {
                if (*p == '/') {
                        if (element_start)
                                return false;
                        element_start = true;
                        continue;
                }
                if (!is_alpha_(*p) && !is_digit(*p))
                        return false;
                element_start = false;
        }
        return !element_start;
}

bool db_name_is_label(const char *s) {
        size_t len = 0;

        if (!s || s[0] == '\0' || s[0] == '-')
                return false;
        for (const char *p = s; *p; p++, len++) {
                char c = *p;

                if (c <= ' ' || c > '~' || c == '/' || c == '"' || c == '\\' || c == '\'')
                        return false;
        }
        return len <= DB_LABEL_MAX;
}

bool db_name_is_package_label(const char *s) {
        static const char *const special[] = { "_", "*", "^", "@" };

        if (!db_name_is_label(s))
                return false;
        for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
                if (strcmp(s, special[i]) == 0)
                        return false;
        /* "::" separates a package from its token: it cannot be in a package. */
        return !strstr(s, "::");
}

/* Length of the UTF-8 sequence at p, or 0 if it is malformed. */
static size_t utf8_sequence(const uint8_t *p) {
        uint32_t cp;
        size_t n;

        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf) {
                n = 2;
                cp = p[0] & 0x1f;
        } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
                n = 3;
                cp = p[0] & 0x0f;
        } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
                n = 4;
                cp = p[0] & 0x07;
        } else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;       /* also stops at the NUL */
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
                return 0;               /* overlong */
        if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        return n;
}

bool db_name_is_utf8(const char *s) {
        const uint8_t *p = (const uint8_t *) s;

        if (!s)
                return false;
        while (*p) {
                size_t n = utf8_sequence(p);

                if (n == 0)
                        return false;
                p += n;
        }
        return true;
}
