/* libmssf's privacy calls: encrypt, sign and store with "my key" or a token's, never seeing a key (mssf_crypto(3)). */
#pragma once

#include <stddef.h>

#include <mssf/mssf.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The device's key service (mssf-keyd, org.mssf.Keys1 on the system bus)
 * holds every key; a caller names one and never sees it:
 *
 *   token NULL   the caller's own key, derived from its Smack label: no
 *                other app can use it, whatever it holds (another app
 *                sending the caller's exact blob is refused);
 *   token "T"    the key of token T, T written as its full Smack label
 *                (a global token "Cellular", a package's "calendar::work"):
 *                usable by every app that holds T and by no other.
 *
 * Keys are derived from one device root key that the TPM seals (or, on a
 * device without one, a software key: the weaker mode, which every blob
 * records). docs/keyd.md has the blob format and what survives what.
 *
 * Every call returns 0 or a negative errno; mssf_crypto_last_error() then
 * says why in words (the service's D-Bus error name first). The service's
 * own errors have errno values of their own:
 *
 *   -EINVAL        org.freedesktop.DBus.Error.InvalidArgs: a malformed key
 *                  name, item name or size (decided before anything else)
 *   -EMSGSIZE      TooLarge: input over MSSF_CRYPTO_MAX_INPUT (the message
 *                  says the limit); refused by libmssf before it is sent
 *   -ENODATA       NoLabel: the caller has no Smack label of its own
 *   -EOPNOTSUPP    Unmediated: the bus does not mediate by label (not
 *                  mssf-broker, or no Smack): no key is safe there
 *   -EACCES        KeyNotAvailable: not the caller's key (another app's),
 *                  or a token it does not hold, or one that does not
 *                  exist: the same error, so nobody learns which tokens or
 *                  stored items exist
 *   -EPERM         NotConfigured: the device policy does not let the key
 *                  service ask the bus about tokens ("checkany mssf-keyd")
 *   -EBADMSG       Malformed: not a blob (truncated header, bad fields)
 *   -EPROTO        UnsupportedVersion: a blob of a newer format
 *   -ENOKEY        OtherRoot: made under another root key: on another
 *                  device, or on this one before its TPM was cleared
 *   -EKEYREJECTED  Altered (Decrypt, Load) / BadSignature (Verify): does
 *                  not verify: changed, truncated, or moved to another key
 *   -ENOENT        NoSuchItem: no stored item of that name under that key
 *   -EDQUOT        QuotaExceeded: too many stored items under that key
 *   -EKEYREVOKED   RootKeyLost: the TPM was cleared; nothing sealed before
 *                  can be opened again
 *   -EXDEV         ForeignTpm: the sealed root belongs to another TPM
 *   -ENODEV        TpmUnavailable: the root is sealed by a TPM that does
 *                  not answer
 *   -EBUSY         TpmLockout: the TPM is in dictionary-attack lockout
 *                  (the service does not retry; neither should you)
 *   -EUCLEAN       StateDamaged: the service's own state does not parse
 *   -EIO           Failed: anything else
 *
 * and sd-bus's for the transport (-EHOSTUNREACH when the service is not
 * installed, -ETIMEDOUT, -ECONNREFUSED when there is no system bus).
 *
 * The calls talk to the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the
 * system bus socket) over a connection of the calling thread (sd-bus's
 * default system bus of the thread), blocking for one round trip. They
 * are thread-safe in that sense: each thread its own connection.
 */

#define MSSF_CRYPTO_SERVICE "org.mssf.Keys1"
#define MSSF_CRYPTO_PATH "/org/mssf/Keys1"
#define MSSF_CRYPTO_INTERFACE "org.mssf.Keys1"

/* The most one call takes (plaintext, data to sign, a stored item), in bytes. */
#define MSSF_CRYPTO_MAX_INPUT 65536
/* The most mssf_crypto_random() gives at once. */
#define MSSF_CRYPTO_MAX_RANDOM 4096
/* A stored item's name: 1-128 of [A-Za-z0-9._-], not starting with '.'. */
#define MSSF_CRYPTO_MAX_NAME 128
/* Stored items per key (the caller's own, or one token's). */
#define MSSF_CRYPTO_MAX_ITEMS 256

#define MSSF_CRYPTO_ERROR_FAILED "org.mssf.Keys1.Error.Failed"
#define MSSF_CRYPTO_ERROR_TOO_LARGE "org.mssf.Keys1.Error.TooLarge"
#define MSSF_CRYPTO_ERROR_NO_LABEL "org.mssf.Keys1.Error.NoLabel"
#define MSSF_CRYPTO_ERROR_UNMEDIATED "org.mssf.Keys1.Error.Unmediated"
#define MSSF_CRYPTO_ERROR_KEY_NOT_AVAILABLE "org.mssf.Keys1.Error.KeyNotAvailable"
#define MSSF_CRYPTO_ERROR_NOT_CONFIGURED "org.mssf.Keys1.Error.NotConfigured"
#define MSSF_CRYPTO_ERROR_MALFORMED "org.mssf.Keys1.Error.Malformed"
#define MSSF_CRYPTO_ERROR_UNSUPPORTED_VERSION "org.mssf.Keys1.Error.UnsupportedVersion"
#define MSSF_CRYPTO_ERROR_OTHER_ROOT "org.mssf.Keys1.Error.OtherRoot"
#define MSSF_CRYPTO_ERROR_ALTERED "org.mssf.Keys1.Error.Altered"
#define MSSF_CRYPTO_ERROR_BAD_SIGNATURE "org.mssf.Keys1.Error.BadSignature"
#define MSSF_CRYPTO_ERROR_NO_SUCH_ITEM "org.mssf.Keys1.Error.NoSuchItem"
#define MSSF_CRYPTO_ERROR_QUOTA "org.mssf.Keys1.Error.QuotaExceeded"
#define MSSF_CRYPTO_ERROR_ROOT_KEY_LOST "org.mssf.Keys1.Error.RootKeyLost"
#define MSSF_CRYPTO_ERROR_FOREIGN_TPM "org.mssf.Keys1.Error.ForeignTpm"
#define MSSF_CRYPTO_ERROR_TPM_UNAVAILABLE "org.mssf.Keys1.Error.TpmUnavailable"
#define MSSF_CRYPTO_ERROR_TPM_LOCKOUT "org.mssf.Keys1.Error.TpmLockout"
#define MSSF_CRYPTO_ERROR_STATE_DAMAGED "org.mssf.Keys1.Error.StateDamaged"

/* Where the device's root key lives: in the TPM, or (weaker) a software key only root can read. */
typedef enum MssfCryptoMode {
        MSSF_CRYPTO_MODE_UNKNOWN = 0,
        MSSF_CRYPTO_MODE_TPM = 1,
        MSSF_CRYPTO_MODE_SOFTWARE = 2,
} MssfCryptoMode;

/* Who made a signature, as mssf_crypto_verify() reports it. */
typedef struct MssfCryptoSigner {
        int token;              /* 0: an app's own key, the app's label in key; 1: a token's key */
        char key[256];          /* the label, or the token */
        char signer[256];       /* the Smack label of the app that signed */
        MssfCryptoMode mode;    /* the device mode the signature was made in */
} MssfCryptoSigner;

/* Encrypts len bytes (at most MSSF_CRYPTO_MAX_INPUT) under the caller's key or token's; *ret_out is the blob. */
int mssf_crypto_encrypt(const void *data, size_t len, const char *token, void **ret_out, size_t *ret_out_len);
/* Decrypts a blob of mssf_crypto_encrypt(): the key is the one the blob names (the caller's, or a token it holds). */
int mssf_crypto_decrypt(const void *blob, size_t len, void **ret_out, size_t *ret_out_len);
/* Signs len bytes: a signature only the key service can make and check. */
int mssf_crypto_sign(const void *data, size_t len, const char *token, void **ret_signature,
                     size_t *ret_signature_len);
/*
 * 0 when signature is valid over data, with *ret_signer (when not NULL)
 * saying whose key made it and in which device mode; -EKEYREJECTED when
 * it is not. Anyone may verify an app's own-key signature; a token's only
 * the holders of the token.
 */
int mssf_crypto_verify(const void *data, size_t len, const void *signature, size_t signature_len,
                       MssfCryptoSigner *ret_signer);
/* len (at most MSSF_CRYPTO_MAX_RANDOM) random bytes from the device. */
int mssf_crypto_random(void *buf, size_t len);

/* Protected storage: a named secret under the caller's key (token NULL) or a token it holds. */
int mssf_crypto_store(const char *token, const char *name, const void *data, size_t len);
int mssf_crypto_load(const char *token, const char *name, void **ret_data, size_t *ret_len);
int mssf_crypto_remove(const char *token, const char *name);

/* The device's mode now: where its root key lives. */
int mssf_crypto_mode(MssfCryptoMode *ret_mode);
const char *mssf_crypto_mode_to_string(MssfCryptoMode mode);

/* Wipes and frees what the calls above returned (a plaintext is a secret). NULL-safe. */
void mssf_crypto_free(void *p, size_t len);

/* This thread's last error, in words ("" after a success). */
const char *mssf_crypto_last_error(void);

#ifdef __cplusplus
}
#endif
