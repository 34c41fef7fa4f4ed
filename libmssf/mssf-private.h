/* What libmssf's two bindings share: argument checks, and the bus's errors sorted into kinds. */
#pragma once

#include <stdbool.h>

/* What went wrong, whichever binding reports it. */
typedef enum MssfErrorKind {
        MSSF_KIND_FAILED,
        MSSF_KIND_INVALID_ARGUMENT,
        MSSF_KIND_NO_SUCH_CONNECTION,
        MSSF_KIND_NOT_ALLOWED,
        MSSF_KIND_SMACK_DISABLED,
        MSSF_KIND_NO_LABEL,
        MSSF_KIND_POLICY_OUTDATED,
        MSSF_KIND_NOT_SUPPORTED,
} MssfErrorKind;

/* The most a token name may be: a Smack label (255 bytes). */
#define MSSF_TOKEN_MAX 255

/*
 * Checked before the bus is asked; NULL when fine, else a sentence for the
 * error (the bus checks again, fully). name: a unique name (":1.42").
 */
const char *mssf_check_name(const char *name);
const char *mssf_check_token_name(const char *token);

/* The kind of a D-Bus error name the bus answered CheckToken with. */
MssfErrorKind mssf_error_kind_from_name(const char *name);

/* The sentence for MSSF_KIND_NOT_SUPPORTED. */
#define MSSF_NOT_SUPPORTED_TEXT \
        "the bus does not answer org.mssf.Broker1.CheckToken: it is not mssf-broker, or too old"
