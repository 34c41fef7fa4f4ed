/*
 * A package's origin, from the key that signed it.
 *
 * On an rpm device the origin is what the device maker's rpm-origins.conf
 * says of the key whose signature rpm verified over the package's header
 * (docs/packaging-rpm.md). Nothing else in the package counts: not its
 * name, tags (MSSFDOMAIN, which rpm reserves), files or scriptlets. And a
 * signature counts only where rpm itself checked it in this transaction:
 *
 *  - the verification level includes signatures (%_pkgverify_level
 *    signature or all), so that rpm refuses a package whose signature is
 *    missing, bad or by a key not in its keyring (NOKEY) rather than
 *    install it with a warning;
 *  - rpm says it verified this element's signatures (rpmteVerified()),
 *    and it checks every signature a header carries, so each one's key
 *    is in its keyring;
 *  - the tag was not left out of the check (--nosignature, vsflags).
 *
 * rpm finds a signature's key by its 64-bit key ID; so do we, in rpm's
 * own keyring, and a key ID two keys there share maps to neither: the
 * device maker names full fingerprints, and which of the two rpm used
 * cannot be told. A subkey's signature maps through its primary key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/header.h>
#include <rpm/rpmbase64.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmkeyring.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmpgp.h>
#include <rpm/rpmtd.h>
#include <rpm/rpmte.h>
#include <rpm/rpmts.h>

#include "rpm-signer.h"

RpmKeyring *rpm_keyring_free(RpmKeyring *keyring) {
        if (!keyring)
                return NULL;
        free(keyring->keys);
        free(keyring);
        return NULL;
}

static int keyring_add(RpmKeyring *keyring, const uint8_t *keyid, const RpmFingerprint *primary) {
        RpmKeyringKey *keys = reallocarray(keyring->keys, keyring->n_keys + 1, sizeof(*keys));

        if (!keys)
                return -ENOMEM;
        keyring->keys = keys;
        memcpy(keys[keyring->n_keys].keyid, keyid, 8);
        keys[keyring->n_keys].primary = *primary;
        keyring->n_keys++;
        return 0;
}

/* One certificate (a primary key, its subkeys), base64 as rpm keeps it. */
static int add_certificate(RpmKeyring *keyring, const char *base64) {
        uint8_t *packets = NULL, *fp = NULL;
        size_t size = 0, fp_size = 0;
        RpmFingerprint primary = {};
        rpmPubkey key = NULL;
        rpmPubkey *subkeys = NULL;
        pgpDigParams params;
        int n_subkeys = 0, r = 0;

        /* A certificate rpm cannot parse is no key of its keyring either. */
        if (rpmBase64Decode(base64, (void **) &packets, &size) != 0 || !packets)
                return 0;
        if (pgpPubkeyFingerprint(packets, size, &fp, &fp_size) != 0 || fp_size == 0 ||
            fp_size > RPM_ORIGINS_MAX_FINGERPRINT || !(key = rpmPubkeyNew(packets, size)))
                goto done;
        memcpy(primary.bytes, fp, fp_size);
        primary.size = fp_size;
        params = rpmPubkeyPgpDigParams(key);
        if (params)
                r = keyring_add(keyring, pgpDigParamsSignID(params), &primary);
        subkeys = rpmGetSubkeys(key, &n_subkeys);
        for (int i = 0; i < n_subkeys; i++) {
                pgpDigParams sub = rpmPubkeyPgpDigParams(subkeys[i]);

                if (r >= 0 && sub)
                        r = keyring_add(keyring, pgpDigParamsSignID(sub), &primary);
                rpmPubkeyFree(subkeys[i]);
        }
        free(subkeys);
done:
        rpmPubkeyFree(key);
        free(fp);
        free(packets);
        return r;
}

int rpm_keyring_load(rpmts ts, RpmKeyring **ret) {
        _cleanup_(rpm_keyring_freep) RpmKeyring *keyring = calloc(1, sizeof(*keyring));
        _cleanup_free_ char *backend = rpmExpand("%{?_keyring}", NULL);
        rpmdbMatchIterator mi;
        Header h;
        int r = 0;

        if (!keyring || !backend)
                return -ENOMEM;
        if (backend[0] && strcmp(backend, "rpmdb") != 0) {
                keyring->unreadable = "rpm keeps its keyring outside its database (%_keyring), "
                                      "where the plugin does not read it";
                *ret = TAKE_PTR(keyring);
                return 0;
        }
        mi = rpmtsInitIterator(ts, RPMDBI_NAME, "gpg-pubkey", 0);
        while (r >= 0 && mi && (h = rpmdbNextIterator(mi))) {
                struct rpmtd_s td;
                const char *base64;

                if (!headerGet(h, RPMTAG_PUBKEYS, &td, HEADERGET_MINMEM))
                        continue;
                while (r >= 0 && (base64 = rpmtdNextString(&td)))
                        r = add_certificate(keyring, base64);
                rpmtdFreeData(&td);
        }
        rpmdbFreeIterator(mi);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(keyring);
        return 0;
}

/* The signature tags rpm may have checked, and the flag that leaves each out. */
static const struct {
        rpmTagVal tag;
        rpmVSFlags skipped_by;
} signature_tags[] = {
        { RPMTAG_RSAHEADER, RPMVSF_NORSAHEADER },
        { RPMTAG_DSAHEADER, RPMVSF_NODSAHEADER },
        { RPMTAG_SIGPGP, RPMVSF_NORSA },
        { RPMTAG_SIGGPG, RPMVSF_NODSA },
};

#define MAX_ISSUERS ELEMENTSOF(signature_tags)

/* The key IDs that issued h's checked signatures: how many, into issuers. */
static size_t issuers_of(Header h, rpmVSFlags vsflags, uint8_t issuers[][8]) {
        size_t n = 0;

        for (size_t i = 0; i < ELEMENTSOF(signature_tags); i++) {
                struct rpmtd_s td;
                pgpDigParams sig = NULL;

                if ((vsflags & signature_tags[i].skipped_by) ||
                    !headerGet(h, signature_tags[i].tag, &td, HEADERGET_MINMEM))
                        continue;
                if (td.type == RPM_BIN_TYPE && td.count > 0 &&
                    pgpPrtParams(td.data, td.count, PGPTAG_SIGNATURE, &sig) == 0 && sig)
                        memcpy(issuers[n++], pgpDigParamsSignID(sig), 8);
                pgpDigParamsFree(sig);
                rpmtdFreeData(&td);
        }
        return n;
}

/* The primary fingerprint of the one key in keyring with keyid, or NULL (none, or two). */
static const RpmFingerprint *key_of(const RpmKeyring *keyring, const uint8_t *keyid) {
        const RpmFingerprint *found = NULL;

        for (size_t i = 0; i < keyring->n_keys; i++) {
                if (memcmp(keyring->keys[i].keyid, keyid, 8) != 0)
                        continue;
                if (found && (found->size != keyring->keys[i].primary.size ||
                              memcmp(found->bytes, keyring->keys[i].primary.bytes, found->size) != 0))
                        return NULL;
                found = &keyring->keys[i].primary;
        }
        return found;
}

static void headerp(Header *h) {
        if (*h)
                headerFree(*h);
}

RpmSigner rpm_signer_decide(rpmts ts, rpmte te, const RpmKeyring *keyring,
                            const RpmOrigins *origins) {
        _cleanup_(headerp) Header h = rpmteHeader(te);
        uint8_t issuers[MAX_ISSUERS][8];
        const RpmFingerprint *keys[MAX_ISSUERS];
        RpmSigner signer = {};
        size_t n_issuers, n_keys = 0;
        int verified = rpmteVerified(te);

        if (!(rpmtsVfyLevel(ts) & RPMSIG_SIGNATURE_TYPE)) {
                signer.why_unknown = "rpm's verification level does not require signatures "
                                     "(%_pkgverify_level is not signature or all)";
                return signer;
        }
        if ((verified & RPMSIG_UNVERIFIED_TYPE) || !(verified & RPMSIG_SIGNATURE_TYPE)) {
                signer.why_unknown = "rpm did not verify its signature in this transaction";
                return signer;
        }
        if (!keyring || keyring->unreadable) {
                signer.why_unknown = keyring ? keyring->unreadable : "rpm's keyring was not read";
                return signer;
        }
        n_issuers = h ? issuers_of(h, rpmtsVSFlags(ts), issuers) : 0;
        for (size_t i = 0; i < n_issuers; i++)
                if ((keys[n_keys] = key_of(keyring, issuers[i])))
                        n_keys++;
        if (n_keys == 0) {
                signer.why_unknown = n_issuers == 0 ?
                        "it has no header signature rpm checked" :
                        "the key ID of its signature is no single key of rpm's keyring";
                return signer;
        }
        rpm_fingerprint_hex(keys[0], signer.key);
        /* The first paragraph, in the device maker's order of trust, that names a signer. */
        for (size_t p = 0; origins && p < origins->n_items; p++)
                for (size_t k = 0; k < n_keys; k++) {
                        RpmOrigins one = { .items = &origins->items[p], .n_items = 1 };

                        if (!rpm_origins_find(&one, keys[k]))
                                continue;
                        rpm_fingerprint_hex(keys[k], signer.key);
                        signer.origin = origins->items[p].mssf_origin;
                        signer.paragraph = origins->items[p].line;
                        signer.most_trusted = p == 0;
                        return signer;
                }
        signer.why_unknown = "rpm-origins.conf names no key that signed it";
        return signer;
}
