/* swtpm in socket mode for the key service's tests: a private port and state directory, an orderly shutdown. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

typedef struct Swtpm {
        pid_t pid;
        int port, ctrl_port;
        char dir[256];                  /* its state directory (ours to remove) */
        char tcti[96];                  /* "swtpm:host=127.0.0.1,port=N" */
} Swtpm;

/* Whether swtpm can be run here; when not, *ret_reason says why (for a skip). */
bool swtpm_available(const char **ret_reason);

/*
 * Starts swtpm as an ordinary child process on free local ports, with a
 * fresh state directory under /tmp (or dir, kept, when not NULL: the same
 * TPM again), logging every command. 0 or -errno.
 */
int swtpm_start(Swtpm *s, const char *dir);

/*
 * Stops it the way a device shuts down: TPM2_Shutdown(CLEAR), then
 * swtpm's own shutdown command on the control channel, then waits for it
 * (killed only if it does not go). keep: leave the state directory.
 */
int swtpm_stop(Swtpm *s, bool keep);

/* TPM2_Clear through the platform hierarchy: new owner seed, same endorsement seed. */
int swtpm_clear(Swtpm *s);

/*
 * Sets an authorization on the owner hierarchy (endorsement: on the
 * endorsement hierarchy), as tpm2_changeauth -c owner AUTH would. 0 or
 * -EIO.
 */
int swtpm_set_hierarchy_auth(Swtpm *s, bool endorsement, const char *auth);

/*
 * Dictionary-attack lockout on: maxTries 0 ("always in lockout"), as
 * tpm2_dictionarylockout --setup-parameters --max-tries=0 would.
 */
int swtpm_lockout(Swtpm *s);

/* Commands swtpm has logged so far (its "SWTPM_IO_Read" lines): the TPM's own count. */
long swtpm_logged_commands(const Swtpm *s);
