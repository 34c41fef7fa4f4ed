/*
 * The root key at start, once per process.
 *
 * The TPM's part of each start runs in a child process (tpmwork.c), so
 * the copies of the root the TSS keeps and does not wipe die with it.
 *
 * First start (no state file): a TPM that answers gets a new 256-bit
 * root, from libcrypto's generator mixed with the TPM's own (either alone
 * would do; both so that neither has to be trusted alone), sealed under
 * its storage key with a random authorization; the sealed object is then
 * unsealed once and compared before anything is written, so a state file
 * always holds a root that comes back. Only then is root.state written,
 * and it never holds the root. Without a TPM (nothing answers at the
 * TCTI, the kernel knows no TPM either, and the policy allows it) the
 * root is a software key, written to root.state in the clear for the
 * service's user alone: the weaker mode, logged and reported as such,
 * and recorded in every blob.
 *
 * Only "no TPM at all" allows that: a software root.state is kept by
 * every later start, so a TPM that exists but does not open at this one
 * start (its node not made yet, not yet labelled for the service by
 * udev, a TCTI library missing) must not lead there; that start fails
 * with TpmUnavailable, writes nothing, and the next one tries again.
 *
 * Every later start: the state says which mode. In TPM mode the storage
 * key is recreated and its name compared with the one recorded: a
 * different name means the sealed root cannot load, and the endorsement
 * key's name says why (the same TPM, cleared: RootKeyLost; another TPM:
 * ForeignTpm), without sending the Load that would fail. Otherwise the
 * root is unsealed, once.
 *
 * What it never does: make a new root over a state it cannot use (a
 * damaged file, a cleared TPM, a TPM that does not answer), since every
 * blob made under the old root would then be silently unreadable; a
 * person moves root.state away for that (docs/keyd.md). Nor try a TPM
 * command twice, nor fall back from a TPM that answers with an error to
 * software: each start is one attempt, and the error is the service's
 * state until it restarts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cipher.h"
#include "provision.h"
#include "rootstate.h"
#include "tpm.h"
#include "tpmwork.h"

/* A TPM_E_* outcome as the service's error. */
static int tpm_error(int r, const char *tcti, const char *tpm_err, KeydError *error) {
        switch (r) {
        case TPM_E_ABSENT:
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "the root key is sealed by a TPM, and no TPM answers at %s (%s)", tcti, tpm_err);
        case TPM_E_LOCKOUT:
                return keyd_fail(error, KEYD_E_TPM_LOCKOUT,
                                 "the TPM is in dictionary-attack lockout (%s); the service does not retry "
                                 "(that would only prolong it): wait for the lockout to end, or reset it "
                                 "with the lockout authorization, then restart the service", tpm_err);
        case TPM_E_INTEGRITY:
        case TPM_E_AUTH:
                return keyd_fail(error, KEYD_E_STATE_DAMAGED,
                                 "the sealed root in root.state does not unseal although it names this TPM's "
                                 "storage key: the file was altered (%s)", tpm_err);
        case TPM_E_HIERARCHY_AUTH:
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "the TPM cannot be used: %s; remove that authorization "
                                 "(tpm2_changeauth -p OLD) and restart the service", tpm_err);
        case TPM_E_FAILED:
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE, "the TPM refused: %s", tpm_err);
        }
        return keyd_fail(error, r < 0 ? r : -EIO, "TPM: %s", strerror(r < 0 ? -r : EIO));
}

static int software_start(const ProvisionOptions *options, RootState *state, RootKey **ret_root,
                          KeydError *error) {
        int r = rootkey_new(state->secret, ROOT_MODE_SOFTWARE, ret_root);

        return r < 0 ? keyd_fail(error, r, "cannot hold the root key in locked memory: %s", strerror(-r)) : 0;
}

/* The child's run, or why there was none: the one attempt of this start. */
static int run_work(TpmWork *work, ProvisionResult *result, KeydError *error) {
        int r = tpm_work_run(work);

        if (r == -ECHILD)
                return keyd_fail(error, -EIO, "the process that uses the TPM did not finish (it crashed or was "
                                 "killed); nothing is retried");
        if (r < 0)
                return keyd_fail(error, r, "the process that uses the TPM could not run: %s", strerror(-r));
        result->tpm_commands = work->commands;
        return 0;
}

static int tpm_start(const ProvisionOptions *options, const char *tcti, RootState *state,
                     RootKey **ret_root, ProvisionResult *result, KeydError *error) {
        _cleanup_(tpm_work_freep) TpmWork *work = tpm_work_new();
        int r;

        if (!work)
                return keyd_fail(error, -ENOMEM, "no locked memory for the root key (raise LimitMEMLOCK)");
        work->tcti = tcti;
        work->storage_name = state->storage_name;
        work->endorsement_name = state->endorsement_name;
        work->sealed = state->sealed;
        memcpy(work->auth, state->auth, sizeof(work->auth));
        if ((r = run_work(work, result, error)) < 0)
                return r;
        if (work->r != 0)
                return tpm_error(work->r, tcti, work->err, error);
        if (work->storage_changed && work->endorsement_same)
                return keyd_fail(error, KEYD_E_ROOT_KEY_LOST,
                                 "root key lost: this TPM was cleared after the root key was sealed "
                                 "(its storage hierarchy changed, its endorsement key did not), so "
                                 "nothing made under that root can be opened again; root.state in %s "
                                 "is kept; move it away to make a new root (docs/keyd.md)",
                                 options->state_dir);
        if (work->storage_changed)
                return keyd_fail(error, KEYD_E_FOREIGN_TPM,
                                 "the root key in %s/root.state was sealed by another TPM (neither this "
                                 "TPM's storage key nor its endorsement key is the one it names): the state "
                                 "was copied from another device, or the TPM was replaced",
                                 options->state_dir);
        r = rootkey_new(work->secret, ROOT_MODE_TPM, ret_root);
        return r < 0 ? keyd_fail(error, r, "cannot hold the root key in locked memory: %s", strerror(-r)) : 0;
}

static int software_first_start(const ProvisionOptions *options, RootState *state, RootKey **ret_root,
                                ProvisionResult *result, KeydError *error) {
        int r;

        state->mode = ROOT_MODE_SOFTWARE;
        if (cipher_random(state->secret, ROOTKEY_SIZE) < 0)
                return keyd_fail(error, -EIO, "libcrypto's random generator failed");
        r = rootstate_write(options->state_dir, state);
        if (r < 0)
                return keyd_fail(error, r, "cannot write %s/root.state: %s", options->state_dir, strerror(-r));
        result->created = true;
        return software_start(options, state, ret_root, error);
}

/* "auto", and the TCTI did not open: software only if this device has no TPM at all. */
static int auto_without_tpm(const ProvisionOptions *options, const char *tcti, const char *tpm_err,
                            RootState *state, RootKey **ret_root, ProvisionResult *result, KeydError *error) {
        const char *sysfs_root = options->sysfs_root ? options->sysfs_root : "/sys";
        char device[512] = "";
        int r = tpm_present(options->sysfs_root, device, sizeof(device));

        if (r < 0)
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "nothing answers at %s (%s), and whether this device has a TPM cannot be "
                                 "told (%s/class/tpm: %s); no root is made and nothing is written",
                                 tcti, tpm_err, sysfs_root, strerror(-r));
        if (r > 0)
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "this device has a TPM (%s), and it does not open at %s (%s); no root is "
                                 "made and nothing is written (a software root would be kept for good): "
                                 "restart the service once the TPM opens", device, tcti, tpm_err);
        snprintf(result->tpm_note, sizeof(result->tpm_note),
                 "no TPM 2.0 in %s/class/tpm, and nothing answers at %s: %s", sysfs_root, tcti, tpm_err);
        return software_first_start(options, state, ret_root, result, error);
}

/*
 * The first start: a new root, from libcrypto's generator and the TPM's
 * (either alone would do; both so that neither has to be trusted alone),
 * sealed and unsealed once to check, then recorded. The TPM's part runs
 * in the child; a TCTI that does not open there decides between the
 * software key and an error, by the policy and by whether a TPM exists.
 */
static int first_start(const ProvisionOptions *options, const char *tcti, RootState *state,
                       RootKey **ret_root, ProvisionResult *result, KeydError *error) {
        _cleanup_(tpm_work_freep) TpmWork *work = NULL;
        int r;

        if (mkdir(options->state_dir, 0700) < 0 && errno != EEXIST)
                return keyd_fail(error, -errno, "cannot make %s: %s", options->state_dir, strerror(errno));
        if (options->tpm_policy == TPM_POLICY_NONE) {
                snprintf(result->tpm_note, sizeof(result->tpm_note), "software only, by configuration");
                return software_first_start(options, state, ret_root, result, error);
        }
        work = tpm_work_new();
        if (!work)
                return keyd_fail(error, -ENOMEM, "no locked memory for the root key (raise LimitMEMLOCK)");
        work->first = true;
        work->tcti = tcti;
        if (cipher_random(work->secret, ROOTKEY_SIZE) < 0 || cipher_random(work->auth, ROOTSTATE_AUTH_SIZE) < 0)
                return keyd_fail(error, -EIO, "libcrypto's random generator failed");
        if ((r = run_work(work, result, error)) < 0)
                return r;
        if (!work->opened && work->r == TPM_E_ABSENT && options->tpm_policy == TPM_POLICY_AUTO)
                return auto_without_tpm(options, tcti, work->err, state, ret_root, result, error);
        if (!work->opened && work->r == TPM_E_ABSENT)
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE, "a TPM is required, and none answers at %s (%s)",
                                 tcti, work->err);
        if (work->r != 0)
                return tpm_error(work->r, tcti, work->err, error);
        if (work->mismatch)
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "the TPM unsealed something other than what it sealed");
        state->mode = ROOT_MODE_TPM;
        state->storage_name = work->storage_name;
        state->endorsement_name = work->endorsement_name;
        state->sealed = work->sealed;
        memcpy(state->auth, work->auth, sizeof(state->auth));
        r = rootstate_write(options->state_dir, state);
        if (r < 0)
                return keyd_fail(error, r, "cannot write %s/root.state: %s", options->state_dir, strerror(-r));
        result->created = true;
        r = rootkey_new(work->secret, ROOT_MODE_TPM, ret_root);
        return r < 0 ? keyd_fail(error, r, "cannot hold the root key in locked memory: %s", strerror(-r)) : 0;
}

int provision_root(const ProvisionOptions *options, RootKey **ret_root, ProvisionResult *ret_result,
                   KeydError *error) {
        _cleanup_(rootstate_freep) RootState *state = rootstate_new();
        const char *tcti = options->tcti ? options->tcti : PROVISION_DEFAULT_TCTI;
        char state_err[256] = "";
        int r;

        *ret_result = (ProvisionResult) { 0 };
        if (!state)
                return keyd_fail(error, -ENOMEM, "no locked memory for the root key (raise LimitMEMLOCK)");
        r = rootstate_read(options->state_dir, state, state_err, sizeof(state_err));
        if (r == -ENOENT)
                return first_start(options, tcti, state, ret_root, ret_result, error);
        if (r == ROOTSTATE_E_INVALID)
                return keyd_fail(error, KEYD_E_STATE_DAMAGED,
                                 "%s/root.state is damaged (%s); it is kept as it is, since a new root would "
                                 "make every blob unreadable: restore it, or move it away to start over",
                                 options->state_dir, state_err);
        if (r < 0)
                return keyd_fail(error, r, "cannot read %s/root.state: %s", options->state_dir, strerror(-r));
        if (state->mode == ROOT_MODE_SOFTWARE && options->tpm_policy == TPM_POLICY_REQUIRED)
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "the root key is a software key (made without a TPM), and a TPM is required");
        if (state->mode == ROOT_MODE_SOFTWARE)
                return software_start(options, state, ret_root, error);
        if (options->tpm_policy == TPM_POLICY_NONE)
                return keyd_fail(error, KEYD_E_TPM_UNAVAILABLE,
                                 "the root key is sealed by a TPM, and the service is told to use none");
        return tpm_start(options, tcti, state, ret_root, ret_result, error);
}
