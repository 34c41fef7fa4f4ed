/* Which key signed a package rpm is installing, and the origin the device maker gives it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpm/rpmtypes.h>

#include "macro.h"
#include "rpm-origins.h"

/* The keys in rpm's keyring: each key ID (primary or subkey) with its primary's fingerprint. */
typedef struct RpmKeyringKey {
        uint8_t keyid[8];
        RpmFingerprint primary;
        RpmFingerprint own;             /* the subkey's own, or the primary's */
} RpmKeyringKey;

typedef struct RpmKeyring {
        RpmKeyringKey *keys;
        size_t n_keys;
        /* (static, nullable) why the keyring could not be read: no origin but unknown then */
        const char *unreadable;
} RpmKeyring;

/*
 * rpm's keyring as the transaction ts uses it (%_keyring rpmdb: the
 * gpg-pubkey packages in its database). A keyring kept elsewhere (rpm
 * 4.19's %_keyring fs) is not read: *ret says so, and every package then
 * has the unknown origin. 0 and *ret, or -errno.
 */
int rpm_keyring_load(rpmts ts, RpmKeyring **ret);
RpmKeyring *rpm_keyring_free(RpmKeyring *keyring);

/* What the signature of a package says about its origin. */
typedef struct RpmSigner {
        const char *origin;             /* (not owned, nullable) the unknown origin */
        char key[2 * RPM_ORIGINS_MAX_FINGERPRINT + 1];   /* the signing key's fingerprint, or "" */
        unsigned paragraph;             /* (with origin) rpm-origins.conf's line of its paragraph */
        bool most_trusted;              /* (with origin) that paragraph is the first: the device maker's */
        const char *why_unknown;        /* (static, nullable) */
} RpmSigner;

/*
 * The origin of te (an element rpm is installing, its header read): the
 * first paragraph of origins that lists the key that issued a header
 * signature (RSAHEADER, DSAHEADER; or SIGPGP, SIGGPG where rpm checked
 * them), and only when ts's verification level includes signatures, rpm
 * verified te's signatures in this transaction, and that key is in
 * keyring, the only one there with its key ID. Anything else is the
 * unknown origin, with the reason. Nothing in the package but its
 * signature is read.
 */
RpmSigner rpm_signer_decide(rpmts ts, rpmte te, const RpmKeyring *keyring,
                            const RpmOrigins *origins);

DEFINE_CLEANUP(RpmKeyring *, rpm_keyring_free);
