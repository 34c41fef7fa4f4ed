/*
 * Key names. A caller never handles a key; it names one: its own ("",
 * keyed by the Smack label the bus gives for it, never by anything it
 * says) or a token's ("token:T"). Everything here is syntax, decided
 * before the bus is asked anything, so a malformed name is refused the
 * same way whoever holds what.
 *
 * A token is named by its full Smack label, because that label is what
 * the key is derived from and what the bus checks: a bare name that is
 * one of the key service's own tokens would be resolved by the bus as the
 * service's token (its manifest provides it), not as a global one of that
 * name, so it is refused here and must be written in full.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "keyref.h"

#define TOKEN_PREFIX "token:"

bool keyref_valid_label(const char *s) {
        static const char *const special[] = { "_", "*", "^", "@" };
        size_t n;

        if (!s)
                return false;
        n = strlen(s);
        if (n == 0 || n > KEYREF_NAME_MAX || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c <= ' ' || c > '~' || c == '/' || c == '"' || c == '\'' || c == '\\')
                        return false;
        }
        for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
                if (strcmp(s, special[i]) == 0)
                        return false;
        return true;
}

/* "UID::", "GID::", "GRP::", "CAP::": POSIX credentials of a manifest, never Smack labels. */
static bool is_posix_credential(const char *s) {
        static const char *const prefixes[] = { "UID::", "GID::", "GRP::", "CAP::" };

        for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
                if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
                        return true;
        return false;
}

bool keyref_valid_token(const char *s) {
        return keyref_valid_label(s) && !is_posix_credential(s);
}

const char *const keyref_own_tokens[] = { "crypto", NULL };

int keyref_parse(const char *key, const char *caller_label, const char *const *own_tokens,
                 KeyRef *ret, const char **ret_problem) {
        const char *token;

        *ret_problem = NULL;
        if (!key) {
                *ret_problem = "no key named";
                return -EINVAL;
        }
        if (key[0] == '\0') {
                if (!keyref_valid_label(caller_label)) {
                        *ret_problem = "the caller has no label of its own to key by";
                        return -EINVAL;
                }
                ret->kind = KEY_KIND_LABEL;
                snprintf(ret->name, sizeof(ret->name), "%s", caller_label);
                return 0;
        }
        if (strncmp(key, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) != 0) {
                *ret_problem = "a key is \"\" (the caller's own) or \"token:NAME\" (a token's)";
                return -EINVAL;
        }
        token = key + strlen(TOKEN_PREFIX);
        if (!keyref_valid_token(token)) {
                *ret_problem = "a token is a Smack label: 1-255 printable ASCII bytes without "
                               "/ \" ' \\ or a leading -, not _ * ^ @, not a POSIX credential";
                return -EINVAL;
        }
        for (const char *const *own = own_tokens; own && *own; own++)
                if (strcmp(token, *own) == 0) {
                        *ret_problem = "a bare name of one of the key service's own tokens: "
                                       "name it in full (package::Token)";
                        return -EINVAL;
                }
        ret->kind = KEY_KIND_TOKEN;
        snprintf(ret->name, sizeof(ret->name), "%s", token);
        return 0;
}

void keyref_format(const KeyRef *ref, char *buf, size_t size) {
        snprintf(buf, size, "%s:%s", ref->kind == KEY_KIND_TOKEN ? "token" : "label", ref->name);
}
