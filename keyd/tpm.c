/*
 * The TPM, for two things only: sealing one 256-bit secret at the first
 * start, and unsealing it at every start. Nothing here runs per call.
 *
 * What is made: a storage primary key from the standard ECC P-256
 * template in the owner hierarchy (restricted decrypt, AES-128-CFB,
 * noDA), recreated at each start (primaries are derived from the
 * hierarchy's seed, so the same template gives the same key until the
 * TPM is cleared), and under it one keyed-hash data object holding the
 * secret: fixedTPM and fixedParent (it cannot be duplicated to another
 * TPM or parent), userWithAuth with a 32-byte random authorization (not
 * guessable, kept beside the sealed blob), noDA (a wrong authorization
 * never counts towards dictionary-attack lockout, so nobody can lock the
 * TPM through it, and lockout never blocks it). The secret is carried
 * to the TPM and back inside an HMAC session salted with the storage key
 * and with parameter encryption (AES-128-CFB), so it never crosses the
 * TPM's bus in clear.
 *
 * Which TPM this is: the name of a primary made from the same template
 * in the endorsement hierarchy, whose seed a clear does not change. So a
 * sealed blob that does not load is told apart: the storage key's name
 * changed but the endorsement key's did not (this TPM was cleared: the
 * root is lost), or both changed (another TPM).
 *
 * Counting: every command leaves through a small pass-through TCTI that
 * counts it (tpm_commands()), so "no TPM command per call" is a number
 * the service reports, not a promise.
 *
 * Errors: TPM_E_* codes with the TSS's text; a TCTI failure is
 * TPM_E_ABSENT, TPM_RC_LOCKOUT is TPM_E_LOCKOUT, an authorization
 * refused when making a primary is the hierarchy's
 * (TPM_E_HIERARCHY_AUTH), one refused at Load or Unseal the sealed
 * object's (TPM_E_AUTH). No command is ever retried: a caller that gets
 * an error stops (a retry loop is how a service pushes a TPM further
 * into lockout).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_sys.h>
#include <tss2/tss2_tctildr.h>

#include "tpm.h"

/* The TCTI the ESYS context talks to: the real one, wrapped to count commands. */
typedef struct CountingTcti {
        TSS2_TCTI_CONTEXT_COMMON_V2 common;     /* first: ESYS sees a TCTI */
        TSS2_TCTI_CONTEXT *inner;
        uint64_t commands;
} CountingTcti;

struct Tpm {
        TSS2_TCTI_CONTEXT *inner;       /* (owned) from the TCTI loader */
        CountingTcti tcti;
        ESYS_CONTEXT *esys;             /* (owned) */
        ESYS_TR storage;                /* the storage primary, or ESYS_TR_NONE */
};

static TSS2_RC counting_transmit(TSS2_TCTI_CONTEXT *context, size_t size, const uint8_t *command) {
        CountingTcti *t = (CountingTcti *) context;

        t->commands++;
        return Tss2_Tcti_Transmit(t->inner, size, command);
}

static TSS2_RC counting_receive(TSS2_TCTI_CONTEXT *context, size_t *size, uint8_t *response, int32_t timeout) {
        return Tss2_Tcti_Receive(((CountingTcti *) context)->inner, size, response, timeout);
}

static TSS2_RC counting_cancel(TSS2_TCTI_CONTEXT *context) {
        return Tss2_Tcti_Cancel(((CountingTcti *) context)->inner);
}

static TSS2_RC counting_get_poll_handles(TSS2_TCTI_CONTEXT *context, TSS2_TCTI_POLL_HANDLE *handles,
                                         size_t *n) {
        return Tss2_Tcti_GetPollHandles(((CountingTcti *) context)->inner, handles, n);
}

static TSS2_RC counting_set_locality(TSS2_TCTI_CONTEXT *context, uint8_t locality) {
        return Tss2_Tcti_SetLocality(((CountingTcti *) context)->inner, locality);
}

static TSS2_RC counting_make_sticky(TSS2_TCTI_CONTEXT *context, TPM2_HANDLE *handle, uint8_t sticky) {
        return Tss2_Tcti_MakeSticky(((CountingTcti *) context)->inner, handle, sticky);
}

/* The inner TCTI is finalized by tpm_free(), once. */
static void counting_finalize(TSS2_TCTI_CONTEXT *context) {
}

/* An rc as one of our codes, its text into err. */
static int tpm_fail(TSS2_RC rc, const char *what, char *err, size_t err_size) {
        TSS2_RC layer = rc & TSS2_RC_LAYER_MASK, code = rc & ~TSS2_RC_LAYER_MASK;
        bool from_tpm = layer == TSS2_TPM_RC_LAYER || layer == TSS2_RESMGR_TPM_RC_LAYER;

        snprintf(err, err_size, "%s: %s", what, Tss2_RC_Decode(rc));
        if (layer == TSS2_TCTI_RC_LAYER)
                return TPM_E_ABSENT;
        if (from_tpm && code == TPM2_RC_LOCKOUT)
                return TPM_E_LOCKOUT;
        if (from_tpm && (code & TPM2_RC_FMT1)) {
                /* Format 1: the error is the low six bits; the rest says which handle or parameter. */
                TSS2_RC base = code & (TPM2_RC_FMT1 | 0x3f);

                if (base == TPM2_RC_INTEGRITY)
                        return TPM_E_INTEGRITY;
                if (base == TPM2_RC_AUTH_FAIL || base == TPM2_RC_BAD_AUTH)
                        return TPM_E_AUTH;
        }
        return TPM_E_FAILED;
}

/*
 * Why a TCTI did not open, as precisely as can be said: the device TCTI
 * reports every failed open() as one I/O error code and drops the errno
 * (EACCES before udev has labelled the node, ENOENT before the kernel
 * has made it), so for a device the open is tried again here, only to
 * name it.
 */
static void describe_tcti_failure(const char *tcti_conf, TSS2_RC rc, char *err, size_t err_size) {
        const char *path = tcti_conf && strncmp(tcti_conf, "device:", 7) == 0 ? tcti_conf + 7 : NULL;
        int fd;

        if (!path || !*path) {
                snprintf(err, err_size, "%s", Tss2_RC_Decode(rc));
                return;
        }
        fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                snprintf(err, err_size, "%s: %s (%s)", path, strerror(errno), Tss2_RC_Decode(rc));
                return;
        }
        close(fd);
        snprintf(err, err_size, "%s opens, but its TCTI does not (is tpm2-tss's device TCTI library "
                 "installed?): %s", path, Tss2_RC_Decode(rc));
}

/*
 * Whether the TPM at path is a 1.2 one, which tpm2-tss cannot use: its
 * tpm_version_major says 1. Anything else counts as a TPM 2.0, also when
 * the attribute cannot be read (kernels before 5.6 lack it): a TPM that
 * might be usable is never taken for none.
 */
static bool tpm_is_1_2(const char *path) {
        char attribute[4200], major[8] = "";
        FILE *f;

        if (snprintf(attribute, sizeof(attribute), "%s/tpm_version_major", path) >= (int) sizeof(attribute))
                return false;
        f = fopen(attribute, "re");
        if (!f)
                return false;
        if (!fgets(major, sizeof(major), f))
                major[0] = '\0';
        fclose(f);
        return strcmp(major, "1\n") == 0 || strcmp(major, "1") == 0;
}

int tpm_present(const char *sysfs_root, char *name, size_t name_size) {
        char path[4096], device[4200];
        struct dirent *entry;
        DIR *dir;
        int r = 0;

        snprintf(path, sizeof(path), "%s/class/tpm", sysfs_root ? sysfs_root : "/sys");
        dir = opendir(path);
        if (!dir)
                return errno == ENOENT ? 0 : -errno;
        while (r == 0 && (errno = 0, entry = readdir(dir))) {
                if (strncmp(entry->d_name, "tpm", 3) != 0)
                        continue;
                /* A path too long to check is counted as a TPM, as an unreadable attribute is. */
                if (snprintf(device, sizeof(device), "%s/%s", path, entry->d_name) < (int) sizeof(device) &&
                    tpm_is_1_2(device))
                        continue;
                if (name)
                        snprintf(name, name_size, "%s", device);
                r = 1;
        }
        if (r == 0 && errno != 0)
                r = -errno;
        closedir(dir);
        return r;
}

int tpm_open(const char *tcti_conf, Tpm **ret, char *err, size_t err_size) {
        Tpm *tpm = calloc(1, sizeof(*tpm));
        TSS2_RC rc;

        if (!tpm)
                return -ENOMEM;
        tpm->storage = ESYS_TR_NONE;
        rc = Tss2_TctiLdr_Initialize(tcti_conf, &tpm->inner);
        if (rc != TSS2_RC_SUCCESS) {
                describe_tcti_failure(tcti_conf, rc, err, err_size);
                free(tpm);
                return TPM_E_ABSENT;
        }
        tpm->tcti.common.v1.magic = TSS2_TCTI_MAGIC(tpm->inner);
        tpm->tcti.common.v1.version = 2;
        tpm->tcti.common.v1.transmit = counting_transmit;
        tpm->tcti.common.v1.receive = counting_receive;
        tpm->tcti.common.v1.finalize = counting_finalize;
        tpm->tcti.common.v1.cancel = counting_cancel;
        tpm->tcti.common.v1.getPollHandles = counting_get_poll_handles;
        tpm->tcti.common.v1.setLocality = counting_set_locality;
        tpm->tcti.common.makeSticky = counting_make_sticky;
        tpm->tcti.inner = tpm->inner;
        rc = Esys_Initialize(&tpm->esys, (TSS2_TCTI_CONTEXT *) &tpm->tcti, NULL);
        if (rc != TSS2_RC_SUCCESS) {
                int r = tpm_fail(rc, "cannot start the TPM software stack", err, err_size);

                tpm_free(tpm);
                return r;
        }
        *ret = tpm;
        return 0;
}

void tpm_release(Tpm *tpm) {
        if (tpm && tpm->esys && tpm->storage != ESYS_TR_NONE)
                (void) Esys_FlushContext(tpm->esys, tpm->storage);
        if (tpm)
                tpm->storage = ESYS_TR_NONE;
}

Tpm *tpm_free(Tpm *tpm) {
        if (!tpm)
                return NULL;
        tpm_release(tpm);
        if (tpm->esys)
                Esys_Finalize(&tpm->esys);
        if (tpm->inner)
                Tss2_TctiLdr_Finalize(&tpm->inner);
        free(tpm);
        return NULL;
}

uint64_t tpm_commands(const Tpm *tpm) {
        return tpm ? tpm->tcti.commands : 0;
}

/* The standard storage key template (TCG's ECC P-256 SRK): the same key from the same seed. */
static const TPM2B_PUBLIC primary_template = {
        .publicArea = {
                .type = TPM2_ALG_ECC,
                .nameAlg = TPM2_ALG_SHA256,
                .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
                                    TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
                .parameters.eccDetail = {
                        .symmetric = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
                                       .mode.aes = TPM2_ALG_CFB },
                        .scheme = { .scheme = TPM2_ALG_NULL },
                        .curveID = TPM2_ECC_NIST_P256,
                        .kdf = { .scheme = TPM2_ALG_NULL },
                },
                .unique.ecc = { .x.size = 32, .y.size = 32 },
        },
};

static int create_primary(Tpm *tpm, ESYS_TR hierarchy, ESYS_TR *ret, char *err, size_t err_size) {
        static const TPM2B_SENSITIVE_CREATE no_sensitive = { 0 };
        static const TPM2B_DATA no_outside = { 0 };
        static const TPML_PCR_SELECTION no_pcrs = { 0 };
        TPM2B_PUBLIC *out_public = NULL;
        TPM2B_CREATION_DATA *creation_data = NULL;
        TPM2B_DIGEST *creation_hash = NULL;
        TPMT_TK_CREATION *creation_ticket = NULL;
        TSS2_RC rc;

        rc = Esys_CreatePrimary(tpm->esys, hierarchy, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                                &no_sensitive, &primary_template, &no_outside, &no_pcrs, ret,
                                &out_public, &creation_data, &creation_hash, &creation_ticket);
        Esys_Free(out_public);
        Esys_Free(creation_data);
        Esys_Free(creation_hash);
        Esys_Free(creation_ticket);
        if (rc == TSS2_RC_SUCCESS)
                return 0;
        /*
         * An authorization refused here is the hierarchy's (its authValue,
         * which the service does not know), never the sealed object's: a
         * state file cannot cause it, so it must not read as a damaged one.
         */
        if (tpm_fail(rc, "", err, err_size) == TPM_E_AUTH) {
                snprintf(err, err_size, "the TPM's %s hierarchy has an authorization set, and the service "
                         "uses that hierarchy without one (it keeps no hierarchy password): %s",
                         hierarchy == ESYS_TR_RH_OWNER ? "owner (storage)" : "endorsement", Tss2_RC_Decode(rc));
                return TPM_E_HIERARCHY_AUTH;
        }
        return tpm_fail(rc, hierarchy == ESYS_TR_RH_OWNER ?
                        "cannot make the storage key in the owner hierarchy" :
                        "cannot make the key that names this TPM (endorsement hierarchy)",
                        err, err_size);
}

static int get_name(Tpm *tpm, ESYS_TR object, TpmName *ret, char *err, size_t err_size) {
        TPM2B_NAME *name = NULL;
        TSS2_RC rc = Esys_TR_GetName(tpm->esys, object, &name);

        if (rc != TSS2_RC_SUCCESS)
                return tpm_fail(rc, "cannot read a key's name", err, err_size);
        if (name->size > sizeof(ret->bytes)) {
                Esys_Free(name);
                snprintf(err, err_size, "a TPM object name of %u bytes", name->size);
                return TPM_E_FAILED;
        }
        memcpy(ret->bytes, name->name, name->size);
        ret->size = name->size;
        Esys_Free(name);
        return 0;
}

/* The storage primary, made once per Tpm and kept loaded until tpm_free(). */
static int storage_key(Tpm *tpm, char *err, size_t err_size) {
        if (tpm->storage != ESYS_TR_NONE)
                return 0;
        return create_primary(tpm, ESYS_TR_RH_OWNER, &tpm->storage, err, err_size);
}

int tpm_storage_name(Tpm *tpm, TpmName *ret, char *err, size_t err_size) {
        int r = storage_key(tpm, err, err_size);

        return r != 0 ? r : get_name(tpm, tpm->storage, ret, err, err_size);
}

int tpm_endorsement_name(Tpm *tpm, TpmName *ret, char *err, size_t err_size) {
        ESYS_TR primary = ESYS_TR_NONE;
        int r = create_primary(tpm, ESYS_TR_RH_ENDORSEMENT, &primary, err, err_size);

        if (r != 0)
                return r;
        r = get_name(tpm, primary, ret, err, err_size);
        (void) Esys_FlushContext(tpm->esys, primary);
        return r;
}

int tpm_random(Tpm *tpm, uint8_t *buf, size_t size, char *err, size_t err_size) {
        TPM2B_DIGEST *random = NULL;
        TSS2_RC rc;

        if (size > 64)
                return -EINVAL;
        rc = Esys_GetRandom(tpm->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, (UINT16) size, &random);
        if (rc != TSS2_RC_SUCCESS)
                return tpm_fail(rc, "cannot read the TPM's random generator", err, err_size);
        if (random->size != size) {
                Esys_Free(random);
                snprintf(err, err_size, "the TPM gave %u random bytes, not %zu", random->size, size);
                return TPM_E_FAILED;
        }
        memcpy(buf, random->buffer, size);
        explicit_bzero(random->buffer, size);
        Esys_Free(random);
        return 0;
}

/* An HMAC session salted with the storage key, encrypting the first parameter both ways. */
static int encrypted_session(Tpm *tpm, ESYS_TR *ret, char *err, size_t err_size) {
        static const TPMT_SYM_DEF aes_cfb = { .algorithm = TPM2_ALG_AES, .keyBits.aes = 128,
                                              .mode.aes = TPM2_ALG_CFB };
        TSS2_RC rc;

        rc = Esys_StartAuthSession(tpm->esys, tpm->storage, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                   ESYS_TR_NONE, NULL, TPM2_SE_HMAC, &aes_cfb, TPM2_ALG_SHA256, ret);
        if (rc != TSS2_RC_SUCCESS)
                return tpm_fail(rc, "cannot start an encrypted session with the TPM", err, err_size);
        /* continueSession clear: the TPM flushes it after its one command. */
        rc = Esys_TRSess_SetAttributes(tpm->esys, *ret, TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT, 0xff);
        if (rc != TSS2_RC_SUCCESS) {
                (void) Esys_FlushContext(tpm->esys, *ret);
                return tpm_fail(rc, "cannot set up the session", err, err_size);
        }
        return 0;
}

int tpm_seal(Tpm *tpm, const uint8_t *secret, size_t size, const uint8_t auth[32], TpmSealed *ret,
             char *err, size_t err_size) {
        static const TPM2B_PUBLIC sealed_template = {
                .publicArea = {
                        .type = TPM2_ALG_KEYEDHASH,
                        .nameAlg = TPM2_ALG_SHA256,
                        .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                                            TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA,
                        .parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL,
                },
        };
        static const TPM2B_DATA no_outside = { 0 };
        static const TPML_PCR_SELECTION no_pcrs = { 0 };
        TPM2B_SENSITIVE_CREATE sensitive = { 0 };
        TPM2B_PRIVATE *out_private = NULL;
        TPM2B_PUBLIC *out_public = NULL;
        TPM2B_CREATION_DATA *creation_data = NULL;
        TPM2B_DIGEST *creation_hash = NULL;
        TPMT_TK_CREATION *creation_ticket = NULL;
        size_t public_size = 0, private_size = 0;
        ESYS_TR session;
        TSS2_RC rc;
        int r;

        if (size > sizeof(sensitive.sensitive.data.buffer))
                return -EINVAL;
        if ((r = storage_key(tpm, err, err_size)) != 0 ||
            (r = encrypted_session(tpm, &session, err, err_size)) != 0)
                return r;
        sensitive.sensitive.userAuth.size = 32;
        memcpy(sensitive.sensitive.userAuth.buffer, auth, 32);
        sensitive.sensitive.data.size = (UINT16) size;
        memcpy(sensitive.sensitive.data.buffer, secret, size);
        rc = Esys_Create(tpm->esys, tpm->storage, session, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive,
                         &sealed_template, &no_outside, &no_pcrs, &out_private, &out_public,
                         &creation_data, &creation_hash, &creation_ticket);
        explicit_bzero(&sensitive, sizeof(sensitive));
        Esys_Free(creation_data);
        Esys_Free(creation_hash);
        Esys_Free(creation_ticket);
        if (rc != TSS2_RC_SUCCESS) {
                (void) Esys_FlushContext(tpm->esys, session);
                return tpm_fail(rc, "cannot seal the root secret", err, err_size);
        }
        rc = Tss2_MU_TPM2B_PUBLIC_Marshal(out_public, ret->public_area, sizeof(ret->public_area),
                                          &public_size);
        if (rc == TSS2_RC_SUCCESS)
                rc = Tss2_MU_TPM2B_PRIVATE_Marshal(out_private, ret->private_area,
                                                   sizeof(ret->private_area), &private_size);
        Esys_Free(out_public);
        Esys_Free(out_private);
        if (rc != TSS2_RC_SUCCESS)
                return tpm_fail(rc, "cannot keep the sealed object", err, err_size);
        ret->public_size = public_size;
        ret->private_size = private_size;
        return 0;
}

/*
 * ESYS decrypts an encrypted response parameter in place, in the
 * command/response buffer it keeps for the context: after Unseal that
 * buffer holds the root in clear until a later response overwrites it
 * (the next one, a FlushContext, is shorter). Wiped here.
 */
static void wipe_response(Tpm *tpm) {
        TSS2_SYS_CONTEXT *sys = NULL;
        const uint8_t *parameters = NULL;
        size_t size = 0;

        if (Esys_GetSysContext(tpm->esys, &sys) == TSS2_RC_SUCCESS && sys &&
            Tss2_Sys_GetRpBuffer(sys, &size, &parameters) == TSS2_RC_SUCCESS && parameters)
                explicit_bzero((void *) parameters, size);
}

int tpm_unseal(Tpm *tpm, const TpmSealed *sealed, const uint8_t auth[32], uint8_t *out, size_t size,
               char *err, size_t err_size) {
        TPM2B_PUBLIC public_area = { 0 };
        TPM2B_PRIVATE private_area = { 0 };
        TPM2B_SENSITIVE_DATA *data = NULL;
        TPM2B_AUTH object_auth = { .size = 32 };
        ESYS_TR object = ESYS_TR_NONE, session;
        size_t offset = 0;
        TSS2_RC rc;
        int r;

        if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(sealed->public_area, sealed->public_size, &offset,
                                           &public_area) != TSS2_RC_SUCCESS || offset != sealed->public_size) {
                snprintf(err, err_size, "the sealed object's public part does not parse");
                return TPM_E_INTEGRITY;
        }
        offset = 0;
        if (Tss2_MU_TPM2B_PRIVATE_Unmarshal(sealed->private_area, sealed->private_size, &offset,
                                            &private_area) != TSS2_RC_SUCCESS ||
            offset != sealed->private_size) {
                snprintf(err, err_size, "the sealed object's private part does not parse");
                return TPM_E_INTEGRITY;
        }
        if ((r = storage_key(tpm, err, err_size)) != 0)
                return r;
        rc = Esys_Load(tpm->esys, tpm->storage, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private_area,
                       &public_area, &object);
        if (rc != TSS2_RC_SUCCESS)
                return tpm_fail(rc, "cannot load the sealed root", err, err_size);
        memcpy(object_auth.buffer, auth, 32);
        rc = Esys_TR_SetAuth(tpm->esys, object, &object_auth);
        explicit_bzero(&object_auth, sizeof(object_auth));
        if (rc != TSS2_RC_SUCCESS) {
                r = tpm_fail(rc, "cannot use the sealed root's authorization", err, err_size);
                goto flush;
        }
        if ((r = encrypted_session(tpm, &session, err, err_size)) != 0)
                goto flush;
        rc = Esys_Unseal(tpm->esys, object, session, ESYS_TR_NONE, ESYS_TR_NONE, &data);
        if (rc != TSS2_RC_SUCCESS) {
                (void) Esys_FlushContext(tpm->esys, session);
                r = tpm_fail(rc, "cannot unseal the root", err, err_size);
                goto flush;
        }
        if (data->size != size) {
                snprintf(err, err_size, "the sealed secret has %u bytes, not %zu", data->size, size);
                r = TPM_E_INTEGRITY;
        } else {
                memcpy(out, data->buffer, size);
                r = 0;
        }
        /*
         * The two copies of the root the TSS hands us access to, wiped before
         * they go back to the ordinary heap; the stack array ESYS decrypted
         * through is out of reach (docs/keyd.md says so).
         */
        explicit_bzero(data, sizeof(*data));
        Esys_Free(data);
        wipe_response(tpm);
flush:
        (void) Esys_FlushContext(tpm->esys, object);
        return r;
}
