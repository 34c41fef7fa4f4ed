/* Key names: the caller's own key (its label) or a token's, as a caller names them and blobs record them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A Smack label: 1-255 bytes. */
#define KEYREF_NAME_MAX 255

typedef enum KeyKind {
        KEY_KIND_LABEL = 1,     /* an app's own key: keyed by its Smack label */
        KEY_KIND_TOKEN = 2,     /* a token's key: usable by every holder of the token */
} KeyKind;

typedef struct KeyRef {
        KeyKind kind;
        char name[KEYREF_NAME_MAX + 1];         /* the label, or the token's full label */
} KeyRef;

/*
 * Whether s is a Smack label a caller may have a key under: 1-255
 * printable ASCII bytes without / " ' \, not starting with '-' (what the
 * kernel accepts), and none of Smack's special labels (_ * ^ @), which
 * many unrelated processes share.
 */
bool keyref_valid_label(const char *s);

/* Whether s may name a token's key: a valid label above that is not a POSIX credential ("UID::root"). */
bool keyref_valid_token(const char *s);

/*
 * The key service's own tokens, by bare name, NULL-terminated: those its
 * manifest (keyd/mssf-keyd.aegis) provides. Kept by hand, so
 * keyd-manifest compares the two: a token added to one and not the
 * other fails the tests.
 */
extern const char *const keyref_own_tokens[];

/*
 * Parses a key as a caller names it: "" is its own key, keyed by
 * caller_label; "token:T" is the key of token T, a token's full Smack
 * label ("Cellular", "calendar::work"). Returns 0 or -EINVAL, with
 * *ret_problem (static text) saying why. A POSIX credential
 * ("UID::root") is not a token; neither is a bare name of one of
 * own_tokens (the key service's own tokens, which the bus would resolve
 * as the service's and not as the global token of that name).
 */
int keyref_parse(const char *key, const char *caller_label, const char *const *own_tokens,
                 KeyRef *ret, const char **ret_problem);

/* "label:NAME" or "token:NAME", as Verify reports it and derivation names it; size >= 263. */
void keyref_format(const KeyRef *ref, char *buf, size_t size);
#define KEYREF_FORMAT_MAX (6 + KEYREF_NAME_MAX + 1)
