/*
 * The one place that maps the service's outcomes to D-Bus error names.
 * The names are libmssf's public ones (<mssf/mssf-crypto.h>), which also
 * maps them to errno values for C callers, so the two cannot drift.
 */
#include <stdarg.h>
#include <stdio.h>

#include "keyd-error.h"
#include "mssf/mssf-crypto.h"

int keyd_fail(KeydError *error, int code, const char *format, ...) {
        va_list ap;

        if (error) {
                error->code = code;
                va_start(ap, format);
                vsnprintf(error->message, sizeof(error->message), format, ap);
                va_end(ap);
        }
        return code;
}

const char *keyd_error_name(int code) {
        static const char *const names[_KEYD_E_MAX] = {
                [KEYD_E_INVALID_ARGS] = "org.freedesktop.DBus.Error.InvalidArgs",
                [KEYD_E_TOO_LARGE] = MSSF_CRYPTO_ERROR_TOO_LARGE,
                [KEYD_E_NO_LABEL] = MSSF_CRYPTO_ERROR_NO_LABEL,
                [KEYD_E_UNMEDIATED] = MSSF_CRYPTO_ERROR_UNMEDIATED,
                [KEYD_E_KEY_NOT_AVAILABLE] = MSSF_CRYPTO_ERROR_KEY_NOT_AVAILABLE,
                [KEYD_E_NOT_CONFIGURED] = MSSF_CRYPTO_ERROR_NOT_CONFIGURED,
                [KEYD_E_MALFORMED] = MSSF_CRYPTO_ERROR_MALFORMED,
                [KEYD_E_UNSUPPORTED_VERSION] = MSSF_CRYPTO_ERROR_UNSUPPORTED_VERSION,
                [KEYD_E_OTHER_ROOT] = MSSF_CRYPTO_ERROR_OTHER_ROOT,
                [KEYD_E_ALTERED] = MSSF_CRYPTO_ERROR_ALTERED,
                [KEYD_E_BAD_SIGNATURE] = MSSF_CRYPTO_ERROR_BAD_SIGNATURE,
                [KEYD_E_NO_SUCH_ITEM] = MSSF_CRYPTO_ERROR_NO_SUCH_ITEM,
                [KEYD_E_QUOTA] = MSSF_CRYPTO_ERROR_QUOTA,
                [KEYD_E_ROOT_KEY_LOST] = MSSF_CRYPTO_ERROR_ROOT_KEY_LOST,
                [KEYD_E_FOREIGN_TPM] = MSSF_CRYPTO_ERROR_FOREIGN_TPM,
                [KEYD_E_TPM_UNAVAILABLE] = MSSF_CRYPTO_ERROR_TPM_UNAVAILABLE,
                [KEYD_E_TPM_LOCKOUT] = MSSF_CRYPTO_ERROR_TPM_LOCKOUT,
                [KEYD_E_STATE_DAMAGED] = MSSF_CRYPTO_ERROR_STATE_DAMAGED,
        };

        if (code > 0 && code < _KEYD_E_MAX && names[code])
                return names[code];
        return MSSF_CRYPTO_ERROR_FAILED;
}
