/*
 * Resolving token names (token-name.h). The checks run in the order the
 * manifest parser has always reported them, so its messages keep their
 * meaning: a POSIX prefix first, then the characters and the "::"
 * structure, then the package part, then the length of the label a bare
 * name of the package's own grows into.
 */
#include "token-name.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db-names.h"
#include "db-read.h"

static bool is_posix_prefix(const char *s, size_t n) {
        static const char *const prefixes[] = { "UID", "GID", "GRP", "CAP" };

        for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
                if (n == 3 && memcmp(s, prefixes[i], 3) == 0)
                        return true;
        return false;
}

/* "pkg::Token": the package part and the token part, each non-empty, one "::" only. */
static int check_qualified(const char *written, const char *sep) {
        char package[POLICY_TOKEN_LABEL_SIZE];
        size_t n = (size_t) (sep - written);

        if (n == 0 || sep[2] == '\0' || strstr(sep + 2, "::"))
                return POLICY_TOKEN_E_INVALID;
        /* written is a valid label, so n < 256. */
        memcpy(package, written, n);
        package[n] = '\0';
        return db_name_is_package_label(package) ? 0 : POLICY_TOKEN_E_PACKAGE;
}

int policy_token_resolve(const char *written, const char *package, PolicyTokenProvided provided,
                         void *userdata, char *ret_label, size_t size) {
        const char *sep;
        int r;

        if (!written || !ret_label || size < POLICY_TOKEN_LABEL_SIZE || (package && !provided))
                return -EINVAL;
        sep = strstr(written, "::");
        if (sep && is_posix_prefix(written, (size_t) (sep - written)))
                return POLICY_TOKEN_E_POSIX;
        if (!db_name_is_label(written))
                return POLICY_TOKEN_E_INVALID;
        if (sep) {
                r = check_qualified(written, sep);
                if (r != 0)
                        return r;
        } else if (package && provided(package, written, userdata)) {
                char label[POLICY_TOKEN_LABEL_SIZE];

                r = snprintf(label, sizeof(label), "%s::%s", package, written);
                if (r < 0 || (size_t) r >= sizeof(label) || !db_name_is_label(label))
                        return POLICY_TOKEN_E_TOO_LONG;
                memcpy(ret_label, label, (size_t) r + 1);
                return 0;
        }
        strcpy(ret_label, written);
        return 0;
}

const char *policy_token_error_to_string(int code) {
        switch (code) {
        case POLICY_TOKEN_E_INVALID:
                return "not a valid token name: write Token or package::Token (at most 255 "
                       "characters, no whitespace, '/', quotes or backslash)";
        case POLICY_TOKEN_E_POSIX:
                return "a POSIX credential, not a resource token";
        case POLICY_TOKEN_E_PACKAGE:
                return "the part before '::' is not a valid package name";
        case POLICY_TOKEN_E_TOO_LONG:
                return "package::Token is longer than a Smack label may be (255 characters)";
        default:
                return NULL;
        }
}

bool policy_db_token_provided(const char *package, const char *name, void *userdata) {
        char label[POLICY_TOKEN_LABEL_SIZE];
        int r = snprintf(label, sizeof(label), "%s::%s", package, name);

        return r > 0 && (size_t) r < sizeof(label) && policy_db_is_provided_token(userdata, label);
}
