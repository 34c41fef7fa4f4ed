/* The root key's state file: the sealed blob (TPM mode) or the software key, in a strict text format. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "rootkey.h"
#include "tpm.h"

#define ROOTSTATE_FILE "root.state"
/* Larger files are refused unread: the real one is about 2 KiB. */
#define ROOTSTATE_MAX_SIZE 8192
#define ROOTSTATE_AUTH_SIZE 32

enum {
        ROOTSTATE_E_INVALID = 1,        /* the file does not parse: damaged, or not ours */
};

/*
 * What the file holds. In TPM mode never the root: the sealed object
 * (only this TPM can unseal it), its authorization, and the names that
 * tell this TPM apart (storage key: changes when the TPM is cleared;
 * endorsement key: does not). In software mode the root itself: the
 * weaker mode, the file readable by the service's user alone.
 * Allocated in the secure heap (it holds an authorization, or a root).
 */
typedef struct RootState {
        RootMode mode;
        TpmName storage_name;
        TpmName endorsement_name;
        uint8_t auth[ROOTSTATE_AUTH_SIZE];
        TpmSealed sealed;
        uint8_t secret[ROOTKEY_SIZE];   /* software mode only */
} RootState;

RootState *rootstate_new(void);
RootState *rootstate_free(RootState *state);
DEFINE_CLEANUP(RootState *, rootstate_free);

/* Parses the text (untrusted: the disk may be damaged or edited). 0 or ROOTSTATE_E_INVALID (err says where). */
int rootstate_parse(const char *text, size_t size, RootState *ret, char *err, size_t err_size);

/*
 * Reads dir/ROOTSTATE_FILE: 0, -ENOENT when there is none (a first
 * start), ROOTSTATE_E_INVALID, or -errno. Opened without following a
 * symlink; a file others may write is refused as invalid.
 */
int rootstate_read(const char *dir, RootState *ret, char *err, size_t err_size);

/*
 * Writes dir/ROOTSTATE_FILE atomically (a temporary file, 0600, fsync,
 * rename, fsync of the directory), never over an existing one: -EEXIST
 * if it appeared meanwhile.
 */
int rootstate_write(const char *dir, const RootState *state);
