/*
 * The root key against a real (software) TPM: swtpm in socket mode,
 * started here on a private port and state directory and shut down in
 * order (swtpm-fixture.c). What a device maker relies on:
 *  - the first start seals a root, the file holds no byte of it (raw or
 *    hex), and the TPM gives the same root back at the next start;
 *  - the TPM is used at start only: the service's own count of commands
 *    equals what swtpm logged, and a thousand encryptions later swtpm has
 *    logged nothing more;
 *  - the errors by name: another TPM (ForeignTpm), this TPM cleared
 *    (RootKeyLost), no TPM (TpmUnavailable), a damaged or altered state
 *    (StateDamaged), lockout (TpmLockout, injected: one attempt, no
 *    retry); the state file is never replaced;
 *  - the objects are not subject to dictionary-attack lockout: with the
 *    TPM in lockout for good (maxTries 0), sealing and unsealing work;
 *  - a hierarchy with an authorization: TpmUnavailable saying which,
 *    not StateDamaged, and no state written;
 *  - without a TPM, under "auto", the software key: reported as such,
 *    and there the scan does find the root in root.state (which shows
 *    the scan can find it); with a TPM that does not open, not that but
 *    TpmUnavailable, naming why, and no state written.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <tss2/tss2_esys.h>

#include "envelope.h"
#include "provision.h"
#include "rootstate.h"
#include "secmem.h"
#include "swtpm-fixture.h"
#include "tpm.h"

/* A port nothing listens on: swtpm's default one, never the fixture's. */
#define NO_TPM "swtpm:host=127.0.0.1,port=1"

static Swtpm shared;

/*
 * Two sysfs trees for "auto": one where the kernel knows no TPM (the
 * default of every start here, whatever the host has), one with tpm0.
 */
static char sysfs_without_tpm[64], sysfs_with_tpm[64], sysfs_tpm12_major[128];
static const char *sysfs_root = sysfs_without_tpm;

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

/*
 * Injected by the lockout test: CreatePrimary answers this instead of
 * reaching the TPM. The service calls it in a child process of its own,
 * so the count lives in memory shared with the children.
 */
static TSS2_RC inject_create_primary;
static unsigned *create_primary_calls;

TSS2_RC __real_Esys_CreatePrimary(ESYS_CONTEXT *esys, ESYS_TR primary, ESYS_TR s1, ESYS_TR s2, ESYS_TR s3,
                                  const TPM2B_SENSITIVE_CREATE *sensitive, const TPM2B_PUBLIC *in_public,
                                  const TPM2B_DATA *outside, const TPML_PCR_SELECTION *pcrs, ESYS_TR *object,
                                  TPM2B_PUBLIC **out_public, TPM2B_CREATION_DATA **creation_data,
                                  TPM2B_DIGEST **creation_hash, TPMT_TK_CREATION **ticket);
TSS2_RC __wrap_Esys_CreatePrimary(ESYS_CONTEXT *esys, ESYS_TR primary, ESYS_TR s1, ESYS_TR s2, ESYS_TR s3,
                                  const TPM2B_SENSITIVE_CREATE *sensitive, const TPM2B_PUBLIC *in_public,
                                  const TPM2B_DATA *outside, const TPML_PCR_SELECTION *pcrs, ESYS_TR *object,
                                  TPM2B_PUBLIC **out_public, TPM2B_CREATION_DATA **creation_data,
                                  TPM2B_DIGEST **creation_hash, TPMT_TK_CREATION **ticket);
TSS2_RC __wrap_Esys_CreatePrimary(ESYS_CONTEXT *esys, ESYS_TR primary, ESYS_TR s1, ESYS_TR s2, ESYS_TR s3,
                                  const TPM2B_SENSITIVE_CREATE *sensitive, const TPM2B_PUBLIC *in_public,
                                  const TPM2B_DATA *outside, const TPML_PCR_SELECTION *pcrs, ESYS_TR *object,
                                  TPM2B_PUBLIC **out_public, TPM2B_CREATION_DATA **creation_data,
                                  TPM2B_DIGEST **creation_hash, TPMT_TK_CREATION **ticket) {
        (*create_primary_calls)++;
        if (inject_create_primary) {
                *out_public = NULL;
                *creation_data = NULL;
                *creation_hash = NULL;
                *ticket = NULL;
                return inject_create_primary;
        }
        return __real_Esys_CreatePrimary(esys, primary, s1, s2, s3, sensitive, in_public, outside, pcrs, object,
                                         out_public, creation_data, creation_hash, ticket);
}

static void make_dir(char *dir, size_t size) {
        snprintf(dir, size, "/tmp/keyd-state-XXXXXX");
        assert_non_null(mkdtemp(dir));
}

static void remove_dir(const char *dir) {
        char command[400];

        snprintf(command, sizeof(command), "rm -rf '%s'", dir);
        assert_int_equal(system(command), 0);
}

/* The whole file, into a malloc'd buffer. */
static char *read_file(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "rb");
        char *buf = calloc(1, 65536);
        size_t n;

        assert_non_null(f);
        assert_non_null(buf);
        n = fread(buf, 1, 65535, f);
        fclose(f);
        *ret_size = n;
        return buf;
}

static char *state_text(const char *dir, size_t *ret_size) {
        char path[300];

        snprintf(path, sizeof(path), "%s/%s", dir, ROOTSTATE_FILE);
        return read_file(path, ret_size);
}

/* Whether bytes, raw or as hex in either case, appear in text. */
static bool holds_bytes(const char *text, size_t size, const uint8_t *bytes, size_t n) {
        char lower[2 * 64 + 1], upper[2 * 64 + 1];

        if (memmem(text, size, bytes, n))
                return true;
        for (size_t i = 0; i < n; i++) {
                snprintf(lower + 2 * i, 3, "%02x", bytes[i]);
                snprintf(upper + 2 * i, 3, "%02X", bytes[i]);
        }
        return memmem(text, size, lower, 2 * n) || memmem(text, size, upper, 2 * n);
}

static int start(const char *dir, const char *tcti, TpmPolicy policy, RootKey **root, ProvisionResult *result,
                 KeydError *error) {
        ProvisionOptions options = { .state_dir = dir, .tcti = tcti, .tpm_policy = policy,
                                     .sysfs_root = sysfs_root };

        *root = NULL;
        *error = (KeydError) { 0 };
        return provision_root(&options, root, result, error);
}

/* The root as the TPM gives it back from dir's state, unsealed here: the test's own copy. */
static void unseal_here(const char *dir, const char *tcti, uint8_t secret[ROOTKEY_SIZE]) {
        RootState *state = rootstate_new();
        Tpm *tpm = NULL;
        char err[256];

        assert_non_null(state);
        assert_int_equal(rootstate_read(dir, state, err, sizeof(err)), 0);
        assert_int_equal(state->mode, ROOT_MODE_TPM);
        assert_int_equal(tpm_open(tcti, &tpm, err, sizeof(err)), 0);
        assert_int_equal(tpm_unseal(tpm, &state->sealed, state->auth, secret, ROOTKEY_SIZE, err, sizeof(err)), 0);
        tpm_free(tpm);
        rootstate_free(state);
}

static void test_first_start_and_restart(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *again = NULL, *copy = NULL;
        uint8_t secret[ROOTKEY_SIZE];
        ProvisionResult result;
        KeydError error;
        char dir[64], *text;
        size_t size;
        long before;

        make_dir(dir, sizeof(dir));
        before = swtpm_logged_commands(&shared);
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        assert_true(result.created);
        assert_int_equal(rootkey_mode(root), ROOT_MODE_TPM);
        /* The service's count is the TPM's: every command it sent, and nothing it did not. */
        assert_int_equal(result.tpm_commands, swtpm_logged_commands(&shared) - before);
        /* docs/keyd.md's figure for tpm2-tss 3.2.1 (Debian 12): a TSS that sends more changes both. */
        assert_int_equal(result.tpm_commands, 11);
        /* root.state: the sealed object, never the root (raw or hex). */
        unseal_here(dir, shared.tcti, secret);
        assert_int_equal(rootkey_new(secret, ROOT_MODE_TPM, &copy), 0);
        assert_memory_equal(rootkey_id(copy), rootkey_id(root), ROOTKEY_ID_SIZE);
        text = state_text(dir, &size);
        assert_non_null(strstr(text, "mode tpm\n"));
        assert_false(holds_bytes(text, size, secret, ROOTKEY_SIZE));
        /* Nor does any half of it appear (a root split across lines would). */
        assert_false(holds_bytes(text, size, secret, 16));
        assert_false(holds_bytes(text, size, secret + 16, 16));
        free(text);
        /* The next start unseals the same root: once, a handful of commands. */
        before = swtpm_logged_commands(&shared);
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &again, &result, &error), 0);
        assert_false(result.created);
        assert_int_equal(result.tpm_commands, swtpm_logged_commands(&shared) - before);
        assert_int_equal(result.tpm_commands, 6);
        assert_memory_equal(rootkey_id(again), rootkey_id(root), ROOTKEY_ID_SIZE);
        explicit_bzero(secret, sizeof(secret));
        remove_dir(dir);
}

/*
 * The root of dir's state, masked: unsealed in a child of the test (so
 * the TSS's copies of it stay there) and handed over XORed with mask, so
 * that this process never holds it in clear for the scan to find.
 */
static void masked_root(const char *dir, const char *tcti, const uint8_t mask[ROOTKEY_SIZE],
                        uint8_t masked[ROOTKEY_SIZE]) {
        int fds[2], status;
        pid_t pid;

        assert_int_equal(pipe(fds), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                uint8_t secret[ROOTKEY_SIZE];

                unseal_here(dir, tcti, secret);
                for (size_t i = 0; i < ROOTKEY_SIZE; i++)
                        secret[i] ^= mask[i];
                _exit(write(fds[1], secret, ROOTKEY_SIZE) == ROOTKEY_SIZE ? 0 : 1);
        }
        close(fds[1]);
        assert_int_equal(read(fds[0], masked, ROOTKEY_SIZE), ROOTKEY_SIZE);
        close(fds[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

#if defined(__SANITIZE_ADDRESS__)
#define SCAN_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCAN_UNDER_ASAN 1
#endif
#endif

/*
 * AddressSanitizer's shadow on x86-64 (its LowShadow and HighShadow,
 * 0x7fff8000 to 0x10007fff8000: terabytes, mapped writable) says which
 * bytes may be used and never holds their contents: reading it would
 * take hours and could find nothing.
 */
static bool asan_shadow(unsigned long start, unsigned long end) {
#if defined(SCAN_UNDER_ASAN) && defined(__x86_64__)
        return start >= 0x7fff8000UL && end <= 0x10007fff8000UL;
#else
        (void) start;
        (void) end;
        return false;
#endif
}

/* Whether any readable, writable mapping of this process holds the root (given masked), or its first or second half. */
static bool memory_holds(const uint8_t mask[ROOTKEY_SIZE], const uint8_t masked[ROOTKEY_SIZE]) {
        static uint8_t chunk[1 << 20];
        FILE *maps = fopen("/proc/self/maps", "r");
        int mem = open("/proc/self/mem", O_RDONLY);
        char line[512], perms[8];
        unsigned long start, end;
        bool found = false;

        assert_non_null(maps);
        assert_true(mem >= 0);
        while (!found && fgets(line, sizeof(line), maps)) {
                if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[0] != 'r' || perms[1] != 'w' ||
                    asan_shadow(start, end))
                        continue;
                for (unsigned long at = start; !found && at < end; at += sizeof(chunk) - 16) {
                        size_t want = end - at < sizeof(chunk) ? end - at : sizeof(chunk);
                        ssize_t n = pread(mem, chunk, want, (off_t) at);

                        for (ssize_t i = 0; n > 0 && !found && i + 16 <= n; i++)
                                for (size_t half = 0; half < ROOTKEY_SIZE && !found; half += 16) {
                                        size_t j = 0;

                                        while (j < 16 && (chunk[i + j] ^ mask[half + j]) == masked[half + j])
                                                j++;
                                        found = j == 16;
                                }
                        if (want < sizeof(chunk))
                                break;
                }
        }
        close(mem);
        fclose(maps);
        return found;
}

/*
 * No copy of the root in the service's memory but its secure heap's,
 * which holds only what HKDF made of it: the TSS's copies (the sealed
 * sensitive part ESYS keeps, the stack array it decrypts the unsealed
 * root through) stay in the child that used the TPM. Scanned after a
 * first start (seal and unseal) and a later one (unseal), the roots
 * still held; then the root put in the heap on purpose is found, which
 * shows the scan can find it.
 */
static void test_root_not_left_in_memory(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *again = NULL;
        uint8_t mask[ROOTKEY_SIZE], masked[ROOTKEY_SIZE], *planted;
        ProvisionResult result;
        KeydError error;
        char dir[64];

        for (size_t i = 0; i < ROOTKEY_SIZE; i++)
                mask[i] = (uint8_t) (0xa5 ^ (i * 37));
        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        masked_root(dir, shared.tcti, mask, masked);
        assert_false(memory_holds(mask, masked));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &again, &result, &error), 0);
        assert_false(memory_holds(mask, masked));
        planted = malloc(ROOTKEY_SIZE);
        assert_non_null(planted);
        for (size_t i = 0; i < ROOTKEY_SIZE; i++)
                planted[i] = masked[i] ^ mask[i];
        assert_true(memory_holds(mask, masked));
        explicit_bzero(planted, ROOTKEY_SIZE);
        free(planted);
        remove_dir(dir);
}

/* A thousand encryptions and as many key derivations: not one command reaches the TPM. */
static void test_no_tpm_per_call(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL;
        uint8_t data[4096] = { 1, 2, 3 };
        KeyRef ref = { .kind = KEY_KIND_LABEL, .name = "app" };
        ProvisionResult result;
        KeydError error;
        char dir[64];
        long before;

        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        before = swtpm_logged_commands(&shared);
        for (int i = 0; i < 1000; i++) {
                Buffer blob = { 0 };

                assert_int_equal(envelope_seal(root, BLOB_TYPE_CIPHERTEXT, KEY_PURPOSE_ENCRYPT, &ref, "app", NULL,
                                               data, sizeof(data), &blob), 0);
                buffer_wipe(&blob);
        }
        assert_int_equal(swtpm_logged_commands(&shared), before);
        remove_dir(dir);
}

static void test_other_tpm(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *other = NULL;
        ProvisionResult result;
        KeydError error;
        Swtpm fresh;
        char dir[64], *text, *after;
        size_t size, after_size;

        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        text = state_text(dir, &size);
        /* The same state, another TPM (a fresh swtpm state): named, and the file left as it was. */
        assert_int_equal(swtpm_start(&fresh, NULL), 0);
        assert_int_equal(start(dir, fresh.tcti, TPM_POLICY_AUTO, &other, &result, &error), KEYD_E_FOREIGN_TPM);
        assert_null(other);
        assert_non_null(strstr(error.message, "sealed by another TPM"));
        assert_string_equal(keyd_error_name(error.code), "org.mssf.Keys1.Error.ForeignTpm");
        after = state_text(dir, &after_size);
        assert_int_equal(after_size, size);
        assert_memory_equal(after, text, size);
        assert_int_equal(swtpm_stop(&fresh, false), 0);
        free(text);
        free(after);
        remove_dir(dir);
}

static void test_cleared_tpm(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *lost = NULL;
        ProvisionResult result;
        KeydError error;
        Swtpm own;
        char dir[64];

        make_dir(dir, sizeof(dir));
        assert_int_equal(swtpm_start(&own, NULL), 0);
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        assert_int_equal(swtpm_clear(&own), 0);
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_AUTO, &lost, &result, &error), KEYD_E_ROOT_KEY_LOST);
        assert_null(lost);
        assert_non_null(strstr(error.message, "root key lost: this TPM was cleared"));
        assert_string_equal(keyd_error_name(error.code), "org.mssf.Keys1.Error.RootKeyLost");
        /* Still lost at the next start: nothing made a new root behind the device maker's back. */
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_AUTO, &lost, &result, &error), KEYD_E_ROOT_KEY_LOST);
        assert_int_equal(swtpm_stop(&own, false), 0);
        remove_dir(dir);
}

static void test_no_tpm(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *none = NULL, *soft = NULL;
        ProvisionResult result;
        KeydError error;
        char dir[64], soft_dir[64], path[300], *text;
        size_t size;

        /* The state says TPM, and none answers: that error, no TPM command, no new root. */
        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        assert_int_equal(start(dir, NO_TPM, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_int_equal(result.tpm_commands, 0);
        assert_non_null(strstr(error.message, "no TPM answers"));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_NONE, &none, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        /* A TPM required at the first start, and none: nothing written. */
        make_dir(soft_dir, sizeof(soft_dir));
        assert_int_equal(start(soft_dir, NO_TPM, TPM_POLICY_REQUIRED, &none, &result, &error),
                         KEYD_E_TPM_UNAVAILABLE);
        snprintf(path, sizeof(path), "%s/%s", soft_dir, ROOTSTATE_FILE);
        assert_int_equal(access(path, F_OK), -1);
        /* "auto" without a TPM: the software key, which is in root.state (the scan finds it there). */
        assert_int_equal(start(soft_dir, NO_TPM, TPM_POLICY_AUTO, &soft, &result, &error), 0);
        assert_true(result.created);
        assert_int_equal(rootkey_mode(soft), ROOT_MODE_SOFTWARE);
        assert_non_null(strstr(result.tpm_note, "no TPM 2.0 in"));
        assert_non_null(strstr(result.tpm_note, "nothing answers"));
        text = state_text(soft_dir, &size);
        assert_non_null(strstr(text, "mode software\n"));
        assert_non_null(strstr(text, "secret "));
        free(text);
        /* Required from now on: the software root is refused, by name. */
        rootkey_free(TAKE_PTR(soft));
        assert_int_equal(start(soft_dir, shared.tcti, TPM_POLICY_REQUIRED, &soft, &result, &error),
                         KEYD_E_TPM_UNAVAILABLE);
        remove_dir(dir);
        remove_dir(soft_dir);
}

/*
 * "auto" on a device that has a TPM which does not open at this start
 * (its node not there yet, or not yet open to the service): no fall back
 * to a software root, which every later start would keep; the error
 * names the TPM, the device and why it did not open, and nothing is
 * written, so the next start, with the TPM there, seals a root in it.
 */
static void test_tpm_that_does_not_open(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL;
        ProvisionResult result;
        KeydError error;
        char dir[64], path[300], device[300], tcti[320];

        make_dir(dir, sizeof(dir));
        snprintf(path, sizeof(path), "%s/%s", dir, ROOTSTATE_FILE);
        snprintf(device, sizeof(device), "%s/tpmrm0", dir);
        snprintf(tcti, sizeof(tcti), "device:%s", device);
        sysfs_root = sysfs_with_tpm;
        assert_int_equal(start(dir, tcti, TPM_POLICY_AUTO, &root, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_null(root);
        assert_string_equal(keyd_error_name(error.code), "org.mssf.Keys1.Error.TpmUnavailable");
        assert_non_null(strstr(error.message, "this device has a TPM"));
        assert_non_null(strstr(error.message, "/class/tpm/tpm0"));
        assert_non_null(strstr(error.message, device));
        assert_non_null(strstr(error.message, strerror(ENOENT)));
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(start(dir, NO_TPM, TPM_POLICY_AUTO, &root, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_non_null(strstr(error.message, NO_TPM));
        assert_int_equal(access(path, F_OK), -1);
        /* A TPM 1.2, which tpm2-tss cannot use, is no TPM here: the software key, saying why. */
        write_text(sysfs_tpm12_major, "1\n");
        assert_int_equal(start(dir, NO_TPM, TPM_POLICY_AUTO, &root, &result, &error), 0);
        assert_int_equal(rootkey_mode(root), ROOT_MODE_SOFTWARE);
        assert_non_null(strstr(result.tpm_note, "no TPM 2.0 in"));
        rootkey_free(TAKE_PTR(root));
        assert_int_equal(unlink(path), 0);
        /* The same TPM saying it is a 2.0: refused again. */
        write_text(sysfs_tpm12_major, "2\n");
        assert_int_equal(start(dir, NO_TPM, TPM_POLICY_AUTO, &root, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(unlink(sysfs_tpm12_major), 0);
        /* The TPM answers at the next start: the root is sealed in it. */
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        assert_int_equal(rootkey_mode(root), ROOT_MODE_TPM);
        sysfs_root = sysfs_without_tpm;
        remove_dir(dir);
}

/*
 * A TPM whose owner or endorsement hierarchy has an authorization (set
 * by its owner, tpm2_changeauth): the service uses both without one and
 * is refused. That is TpmUnavailable, saying which hierarchy, at a
 * first start (nothing written) and at a later one; never StateDamaged,
 * which would send a person after a state file that is fine.
 */
static void test_hierarchy_with_auth(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *none = NULL;
        ProvisionResult result;
        KeydError error;
        Swtpm own;
        char dir[64], fresh[64], path[300];

        make_dir(dir, sizeof(dir));
        make_dir(fresh, sizeof(fresh));
        snprintf(path, sizeof(path), "%s/%s", fresh, ROOTSTATE_FILE);
        assert_int_equal(swtpm_start(&own, NULL), 0);
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        assert_int_equal(swtpm_set_hierarchy_auth(&own, false, "owner-secret"), 0);
        assert_int_equal(start(fresh, own.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_null(none);
        assert_non_null(strstr(error.message, "owner (storage) hierarchy has an authorization"));
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_non_null(strstr(error.message, "owner (storage) hierarchy has an authorization"));
        assert_int_equal(swtpm_stop(&own, false), 0);
        /* The endorsement hierarchy, which names the TPM, at a first start. */
        assert_int_equal(swtpm_start(&own, NULL), 0);
        assert_int_equal(swtpm_set_hierarchy_auth(&own, true, "endorsement-secret"), 0);
        assert_int_equal(start(fresh, own.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_TPM_UNAVAILABLE);
        assert_non_null(strstr(error.message, "endorsement hierarchy has an authorization"));
        assert_string_equal(keyd_error_name(error.code), "org.mssf.Keys1.Error.TpmUnavailable");
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(swtpm_stop(&own, false), 0);
        remove_dir(dir);
        remove_dir(fresh);
}

/* Rewrites one field's value of dir's root.state (keeping its mode 0600). */
static void rewrite_field(const char *dir, const char *field, const char *value) {
        char path[300], *text, *line, *end, out[16384];
        size_t size;
        int fd;

        text = state_text(dir, &size);
        line = strstr(text, field);
        assert_non_null(line);
        end = strchr(line, '\n');
        assert_non_null(end);
        snprintf(out, sizeof(out), "%.*s%s %s%s", (int) (line - text), text, field, value, end);
        snprintf(path, sizeof(path), "%s/%s", dir, ROOTSTATE_FILE);
        fd = open(path, O_WRONLY | O_TRUNC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, out, strlen(out)), (ssize_t) strlen(out));
        close(fd);
        free(text);
}

static void test_damaged_state(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *none = NULL;
        ProvisionResult result;
        KeydError error;
        char dir[64], path[300], *text, *value;
        size_t size;

        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        text = state_text(dir, &size);
        /* The sealed object altered (one hex digit of its private part): it does not unseal. */
        value = strstr(text, "private ") + strlen("private ") + 20;
        *value = *value == '0' ? '1' : '0';
        *strchr(value, '\n') = '\0';
        rewrite_field(dir, "private", strstr(text, "private ") + strlen("private "));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_STATE_DAMAGED);
        free(text);
        /* The authorization altered: refused, and no lockout counted (noDA): it keeps answering. */
        remove_dir(dir);
        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error), 0);
        rootkey_free(TAKE_PTR(none));
        rewrite_field(dir, "auth", "00000000000000000000000000000000000000000000000000000000000000ff");
        for (int i = 0; i < 5; i++)
                assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error),
                                 KEYD_E_STATE_DAMAGED);
        /* Not a state file at all: refused and kept, never replaced by a new root. */
        snprintf(path, sizeof(path), "%s/%s", dir, ROOTSTATE_FILE);
        assert_int_equal(truncate(path, 40), 0);
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_STATE_DAMAGED);
        assert_int_equal(result.tpm_commands, 0);
        text = state_text(dir, &size);
        assert_int_equal(size, 40);
        free(text);
        /* Others may read it: refused too. */
        assert_int_equal(chmod(path, 0644), 0);
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_STATE_DAMAGED);
        remove_dir(dir);
}

/*
 * The TPM in lockout for good (maxTries 0): objects without noDA, and
 * authorizations under DA protection, are refused now. The service's
 * are noDA: the root is sealed and unsealed all the same.
 */
static void test_not_subject_to_lockout(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *again = NULL;
        ProvisionResult result;
        KeydError error;
        Swtpm own;
        char dir[64];

        make_dir(dir, sizeof(dir));
        assert_int_equal(swtpm_start(&own, NULL), 0);
        assert_int_equal(swtpm_lockout(&own), 0);
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_REQUIRED, &root, &result, &error), 0);
        assert_int_equal(rootkey_mode(root), ROOT_MODE_TPM);
        assert_int_equal(start(dir, own.tcti, TPM_POLICY_REQUIRED, &again, &result, &error), 0);
        assert_memory_equal(rootkey_id(again), rootkey_id(root), ROOTKEY_ID_SIZE);
        assert_int_equal(swtpm_stop(&own, false), 0);
        remove_dir(dir);
}

/* A TPM that answers TPM_RC_LOCKOUT: that error by name, after exactly one attempt. */
static void test_lockout_is_not_retried(void **unused) {
        _cleanup_(rootkey_freep) RootKey *root = NULL, *none = NULL;
        ProvisionResult result;
        KeydError error;
        char dir[64], fresh[64], path[300];
        long before;

        make_dir(dir, sizeof(dir));
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &root, &result, &error), 0);
        inject_create_primary = TPM2_RC_LOCKOUT;
        *create_primary_calls = 0;
        before = swtpm_logged_commands(&shared);
        assert_int_equal(start(dir, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_TPM_LOCKOUT);
        assert_int_equal(*create_primary_calls, 1);
        assert_int_equal(swtpm_logged_commands(&shared), before);
        assert_string_equal(keyd_error_name(error.code), "org.mssf.Keys1.Error.TpmLockout");
        assert_non_null(strstr(error.message, "does not retry"));
        /* At a first start too: no state is written, and no fall back to software. */
        make_dir(fresh, sizeof(fresh));
        *create_primary_calls = 0;
        assert_int_equal(start(fresh, shared.tcti, TPM_POLICY_AUTO, &none, &result, &error), KEYD_E_TPM_LOCKOUT);
        assert_int_equal(*create_primary_calls, 1);
        snprintf(path, sizeof(path), "%s/%s", fresh, ROOTSTATE_FILE);
        assert_int_equal(access(path, F_OK), -1);
        inject_create_primary = 0;
        remove_dir(dir);
        remove_dir(fresh);
}

static int setup(void **unused) {
        char tpm0[128];

        make_dir(sysfs_without_tpm, sizeof(sysfs_without_tpm));
        make_dir(sysfs_with_tpm, sizeof(sysfs_with_tpm));
        snprintf(tpm0, sizeof(tpm0), "%s/class", sysfs_with_tpm);
        if (mkdir(tpm0, 0755) < 0)
                return -1;
        snprintf(tpm0, sizeof(tpm0), "%s/class/tpm", sysfs_with_tpm);
        if (mkdir(tpm0, 0755) < 0)
                return -1;
        snprintf(tpm0, sizeof(tpm0), "%s/class/tpm/tpm0", sysfs_with_tpm);
        if (mkdir(tpm0, 0755) < 0)
                return -1;
        if (snprintf(sysfs_tpm12_major, sizeof(sysfs_tpm12_major), "%s/tpm_version_major", tpm0) >=
            (int) sizeof(sysfs_tpm12_major))
                return -1;
        return swtpm_start(&shared, NULL) == 0 ? 0 : -1;
}

static int teardown(void **unused) {
        remove_dir(sysfs_without_tpm);
        remove_dir(sysfs_with_tpm);
        /* The orderly shutdown is part of the test: it must succeed. */
        return swtpm_stop(&shared, false) == 0 ? 0 : -1;
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_first_start_and_restart),
                cmocka_unit_test(test_no_tpm_per_call),
                cmocka_unit_test(test_root_not_left_in_memory),
                cmocka_unit_test(test_other_tpm),
                cmocka_unit_test(test_cleared_tpm),
                cmocka_unit_test(test_no_tpm),
                cmocka_unit_test(test_tpm_that_does_not_open),
                cmocka_unit_test(test_damaged_state),
                cmocka_unit_test(test_not_subject_to_lockout),
                cmocka_unit_test(test_hierarchy_with_auth),
                cmocka_unit_test(test_lockout_is_not_retried),
        };
        const char *reason;

        if (!swtpm_available(&reason)) {
                printf("SKIP: %s\n", reason);
                return 77;
        }
        create_primary_calls = mmap(NULL, sizeof(*create_primary_calls), PROT_READ | PROT_WRITE,
                                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (create_primary_calls == MAP_FAILED) {
                printf("cannot map the shared counter: %s\n", strerror(errno));
                return 1;
        }
        if (secmem_init() < 0) {
                printf("cannot lock memory for the keys (RLIMIT_MEMLOCK)\n");
                return 1;
        }
        (void) setenv("TSS2_LOG", "all+NONE", 0);
        return cmocka_run_group_tests(tests, setup, teardown);
}
