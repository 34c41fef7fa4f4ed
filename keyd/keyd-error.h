/* What a call to the key service can end in: one code per outcome, one D-Bus name per code. */
#pragma once

#include <stddef.h>

#include "macro.h"

/*
 * Expected outcomes, positive (STYLE.md): each one a caller is told by
 * name. Negative errno values are unexpected failures, answered as
 * org.mssf.Keys1.Error.Failed.
 */
typedef enum KeydErrorCode {
        KEYD_E_INVALID_ARGS = 1,        /* a malformed argument (key name, item name, size) */
        KEYD_E_TOO_LARGE,               /* input over the documented limit */
        KEYD_E_NO_LABEL,                /* the caller has no Smack label of its own */
        KEYD_E_UNMEDIATED,              /* the bus does not mediate (not mssf-broker, no Smack) */
        KEYD_E_KEY_NOT_AVAILABLE,       /* not the caller's key: another's, or a token it does not hold or that does not exist */
        KEYD_E_NOT_CONFIGURED,          /* the bus does not let the service ask about tokens (no checkany) */
        KEYD_E_MALFORMED,               /* not a blob */
        KEYD_E_UNSUPPORTED_VERSION,     /* a blob of an unknown format version */
        KEYD_E_OTHER_ROOT,              /* made under another root: another device, or a lost root */
        KEYD_E_ALTERED,                 /* does not verify: changed, truncated, moved to another key */
        KEYD_E_BAD_SIGNATURE,           /* a signature that does not verify over the data */
        KEYD_E_NO_SUCH_ITEM,            /* no stored item of that name under that key */
        KEYD_E_QUOTA,                   /* too many stored items under that key */
        KEYD_E_ROOT_KEY_LOST,           /* the TPM was cleared: the sealed root cannot come back */
        KEYD_E_FOREIGN_TPM,             /* the sealed root belongs to another TPM */
        KEYD_E_TPM_UNAVAILABLE,         /* the root is sealed by a TPM that does not answer */
        KEYD_E_TPM_LOCKOUT,             /* the TPM is in dictionary-attack lockout */
        KEYD_E_STATE_DAMAGED,           /* the root's state file does not parse or does not unseal */
        _KEYD_E_MAX,
} KeydErrorCode;

/* An outcome with the sentence the caller reads. */
typedef struct KeydError {
        int code;                       /* 0, a KeydErrorCode, or -errno */
        char message[512];
} KeydError;

/* Sets error (when not NULL) and returns code. */
int keyd_fail(KeydError *error, int code, const char *format, ...) _printf_(3, 4);

/* The D-Bus error name of code (KeydErrorCode or -errno). */
const char *keyd_error_name(int code);
