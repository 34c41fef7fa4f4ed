/*
 * mssf-keyd: the device's key service. Apps encrypt, sign and store with
 * "my key" or "the key of token T" and never see a key (MSSF's privacy
 * layer, Harmattan's libaegis-crypto, Tizen's key-manager).
 *
 * Threat model.
 *
 * What it protects: user data at rest that an app has the service
 * encrypt, sign or store. An app's own key is keyed by its Smack label;
 * a token's key by the token. The guarantees:
 *  - no other app can use an app's key, holding the app's blobs or not
 *    (another label, the same uid, sending the exact blob: refused);
 *  - a token's key is usable by exactly the holders of the token, as the
 *    kernel says now (a revoked grant is seen by the next call);
 *  - no key ever leaves the service: no method, property or signal
 *    returns key material, and nothing it writes holds the root (TPM
 *    mode) or any derived key;
 *  - a blob cannot be changed, cut short, re-labelled, moved to another
 *    key or to another device without failing by name.
 *
 * Whom it trusts:
 *  - the kernel: Smack labels (SO_PEERSEC), Smack rules (who holds a
 *    token), the file system under its state directory, its own memory;
 *  - the message bus, mssf-broker: the sender of each call, the caller's
 *    label (GetConnectionCredentials), whether it holds a token
 *    (org.mssf.Broker1.CheckToken, which the device policy's "checkany"
 *    line lets this service ask for any token). A bus that does not
 *    mediate (not mssf-broker, no Smack) is found at start, and then
 *    every call is refused (Unmediated): a label nobody vouches for keys
 *    nothing;
 *  - the TPM, for the root: sealed at the first start to this TPM's
 *    storage key, unsealed once per start over an encrypted session, in
 *    a child process that takes the TSS's unwiped copies with it;
 *  - OpenSSL's libcrypto for every primitive (HKDF-SHA256, AES-256-GCM,
 *    HMAC-SHA256, the random generator), tpm2-tss for the TPM.
 *
 * Whom it does not trust: every caller and every byte a caller sends:
 * bounded (MaxInput, 64 KiB), parsed strictly (blob.c, keyref.c,
 * store.c), refused by name; a caller with no label of its own (none,
 * or Smack's shared _ * ^ @) gets NoLabel. Nor the disk: root.state and
 * stored items are parsed as untrusted, and a damaged root.state stops
 * the service (StateDamaged) rather than being replaced by a new root
 * that would make every blob unreadable.
 *
 * What it does not protect against:
 *  - root, or anything with CAP_MAC_OVERRIDE, on the running device:
 *    it can ptrace a process of its label, load Smack rules, read the
 *    service's memory. The secure heap keeps keys out of swap and core
 *    dumps, not out of a privileged debugger;
 *  - an app whose label another process can take (Smack's business, and
 *    mssf-policy's: labels come from packages' manifests);
 *  - in software mode (no TPM), anyone who can read root.state: the
 *    root is there in the clear, for the service's user alone. That mode
 *    is reported (property Mode, a log line) and recorded in every blob;
 *  - in TPM mode, anyone who can read root.state and use this device's
 *    TPM: the sealed object's authorization is stored beside it and it
 *    has no PCR policy, so the root is tied to this TPM, not to a boot;
 *  - bus monitors the device policy allows: they see the plaintexts of
 *    Encrypt and Store calls and Decrypt and Load replies; and sd-bus
 *    frees the message buffers that carry them (here and in libmssf)
 *    without wiping them;
 *  - traffic analysis: the bus and anyone it lets watch know who called
 *    the service, and blob headers name their key in clear;
 *  - the EVM master key (evm.c), which passes through user space once
 *    per boot on kernels without trusted keys.
 *
 * Deliberate choices: no key database (keys are derived); the TPM is
 * used at start only (TpmCommands counts it); no TPM command is ever
 * retried, and no error at start is "repaired" by a new root: the
 * service stays on the bus and answers every call with that error
 * (RootKeyLost, ForeignTpm, TpmUnavailable, TpmLockout, StateDamaged).
 *
 * This file: the command line, the start (locked memory, the root, the
 * bus), the loop. docs/keyd.md is the manual.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "build-config.h"
#include "evm.h"
#include "keyref.h"
#include "provision.h"
#include "secmem.h"
#include "service-bus.h"
#include "service.h"

#define DEFAULT_STATE_DIR LOCALSTATEDIR "/lib/mssf-keyd"

typedef struct Options {
        ProvisionOptions provision;
        const char *address;            /* NULL: the system bus */
        bool check;                     /* start the root, say how, exit */
        const char *evm_master;         /* load the EVM master key, exit */
        int32_t keyring;
} Options;

static void usage(FILE *f) {
        fprintf(f,
                "Usage: mssf-keyd [OPTION...]\n"
                "The device's key service, org.mssf.Keys1 on the system bus (docs/keyd.md).\n\n"
                "  --state-dir DIR       root.state and the store (default %s)\n"
                "  --tcti CONF           the TPM (default %s)\n"
                "  --tpm auto|required|none\n"
                "                        at the first start: the TPM if one answers, a software key\n"
                "                        if the device has none (auto, the default); the TPM or\n"
                "                        nothing; software only\n"
                "  --address ADDRESS     the bus (default: the system bus)\n"
                "  --check               start the root key, say where it lives, and exit\n"
                "  --evm-master NAME     add EVM's master key, derived from the root, to the kernel as\n"
                "                        user key NAME (for: keyctl add encrypted evm-key \"load ...\"),\n"
                "                        and exit\n"
                "  --keyring user|session  where --evm-master adds it (default user)\n",
                DEFAULT_STATE_DIR, PROVISION_DEFAULT_TCTI);
}

static int parse_options(int argc, char **argv, Options *o) {
        enum { OPT_STATE_DIR = 256, OPT_TCTI, OPT_TPM, OPT_ADDRESS, OPT_CHECK, OPT_EVM_MASTER, OPT_KEYRING };
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, OPT_STATE_DIR },
                { "tcti", required_argument, NULL, OPT_TCTI },
                { "tpm", required_argument, NULL, OPT_TPM },
                { "address", required_argument, NULL, OPT_ADDRESS },
                { "check", no_argument, NULL, OPT_CHECK },
                { "evm-master", required_argument, NULL, OPT_EVM_MASTER },
                { "keyring", required_argument, NULL, OPT_KEYRING },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        int c;

        *o = (Options) { .provision = { .state_dir = DEFAULT_STATE_DIR, .tpm_policy = TPM_POLICY_AUTO },
                         .keyring = KEY_SPEC_USER_KEYRING };
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case OPT_STATE_DIR:
                        o->provision.state_dir = optarg;
                        break;
                case OPT_TCTI:
                        o->provision.tcti = optarg;
                        break;
                case OPT_TPM:
                        if (strcmp(optarg, "auto") == 0)
                                o->provision.tpm_policy = TPM_POLICY_AUTO;
                        else if (strcmp(optarg, "required") == 0)
                                o->provision.tpm_policy = TPM_POLICY_REQUIRED;
                        else if (strcmp(optarg, "none") == 0)
                                o->provision.tpm_policy = TPM_POLICY_NONE;
                        else
                                return -EINVAL;
                        break;
                case OPT_ADDRESS:
                        o->address = optarg;
                        break;
                case OPT_CHECK:
                        o->check = true;
                        break;
                case OPT_EVM_MASTER:
                        o->evm_master = optarg;
                        break;
                case OPT_KEYRING:
                        if (strcmp(optarg, "user") == 0)
                                o->keyring = KEY_SPEC_USER_KEYRING;
                        else if (strcmp(optarg, "session") == 0)
                                o->keyring = KEY_SPEC_SESSION_KEYRING;
                        else
                                return -EINVAL;
                        break;
                case 'h':
                        usage(stdout);
                        exit(EXIT_SUCCESS);
                default:
                        return -EINVAL;
                }
        return optind == argc ? 0 : -EINVAL;
}

/* The one line that says where the root lives, or why there is none. */
static void log_root(const Options *o, const RootKey *root, const ProvisionResult *result, const KeydError *error) {
        static const char digits[] = "0123456789abcdef";
        char id[2 * ROOTKEY_ID_SIZE + 1];

        if (!root) {
                fprintf(stderr, "mssf-keyd: no root key: %s: %s; every call gets this error until the service "
                        "restarts (%llu TPM commands sent)\n", keyd_error_name(error->code), error->message,
                        (unsigned long long) result->tpm_commands);
                return;
        }
        for (int i = 0; i < ROOTKEY_ID_SIZE; i++) {
                id[2 * i] = digits[rootkey_id(root)[i] >> 4];
                id[2 * i + 1] = digits[rootkey_id(root)[i] & 0xf];
        }
        id[sizeof(id) - 1] = '\0';
        if (rootkey_mode(root) == ROOT_MODE_TPM)
                fprintf(stderr, "mssf-keyd: root key %s: sealed by the TPM, %s at this start (%llu TPM commands); "
                        "no TPM command from now on\n", id, result->created ? "made, sealed and checked" :
                        "unsealed once", (unsigned long long) result->tpm_commands);
        else
                fprintf(stderr, "mssf-keyd: root key %s: WEAKER MODE: a software key%s, in the clear in "
                        "%s/root.state for this service's user alone (no TPM: %s); every blob records "
                        "mode software\n", id, result->created ? " made at this start" : "",
                        o->provision.state_dir, result->tpm_note[0] ? result->tpm_note : "made without one");
}

static int connect_bus(const char *address, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (!address)
                return sd_bus_open_system(ret);
        if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_address(bus, address)) < 0 ||
            (r = sd_bus_set_bus_client(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

static int serve(const Options *o, Service *service, uint64_t tpm_commands) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        KeydBus k;
        const char *self = NULL;
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return -errno;
        if ((r = sd_event_default(&event)) < 0 ||
            (r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL)) < 0 ||
            (r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL)) < 0)
                return r;
        r = connect_bus(o->address, &bus);
        if (r < 0) {
                fprintf(stderr, "mssf-keyd: cannot connect to the bus: %s\n", strerror(-r));
                return r;
        }
        if ((r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL)) < 0 ||
            (r = keyd_bus_start(&k, bus, service, tpm_commands)) < 0)
                return r;
        if (!k.mediated)
                fprintf(stderr, "mssf-keyd: %s\n", k.mediation.message);
        r = sd_bus_request_name(bus, KEYD_BUS_NAME, 0);
        if (r < 0) {
                fprintf(stderr, "mssf-keyd: cannot own %s: %s\n", KEYD_BUS_NAME, strerror(-r));
                keyd_bus_stop(&k);
                return r;
        }
        (void) sd_bus_get_unique_name(bus, &self);
        printf("mssf-keyd: ready as %s (%s), mode %s, state %s\n", self ? self : "?", KEYD_BUS_NAME,
               service->root ? root_mode_to_string(rootkey_mode(service->root)) : "none",
               !k.mediated ? "Unmediated" : service->root ? "ready" : keyd_error_name(service->state.code));
        fflush(stdout);
        (void) sd_notify(0, "READY=1");
        r = sd_event_loop(event);
        keyd_bus_stop(&k);
        return r;
}

int main(int argc, char **argv) {
        _cleanup_(rootkey_freep) RootKey *root = NULL;
        ProvisionResult result;
        KeydError error = { 0 };
        Options o;
        Service service;
        char store_dir[4096];
        int32_t serial;
        int r;

        if (parse_options(argc, argv, &o) < 0) {
                usage(stderr);
                return 2;
        }
        /* The TSS's own error lines would repeat ours in other words. */
        (void) setenv("TSS2_LOG", "all+NONE", 0);
        r = secmem_init();
        if (r < 0) {
                fprintf(stderr, "mssf-keyd: cannot lock memory for keys (%s): raise RLIMIT_MEMLOCK "
                        "(LimitMEMLOCK=); no key is held in memory that could be swapped\n", strerror(-r));
                return 1;
        }
        r = provision_root(&o.provision, &root, &result, &error);
        log_root(&o, root, &result, &error);
        if (o.check)
                return r == 0 ? 0 : 1;
        if (o.evm_master) {
                if (r != 0)
                        return 1;
                r = evm_load_master(root, o.evm_master, o.keyring, &serial, &error);
                if (r != 0) {
                        fprintf(stderr, "mssf-keyd: %s\n", error.message);
                        return 1;
                }
                printf("%d\n", serial);
                return 0;
        }
        snprintf(store_dir, sizeof(store_dir), "%s/store", o.provision.state_dir);
        service = (Service) { .root = root, .state = error, .store_dir = store_dir,
                              .own_tokens = keyref_own_tokens };
        r = serve(&o, &service, result.tpm_commands);
        return r < 0 ? 1 : 0;
}
