/* An undo log: every change mssf-policy makes, and how to take it back. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

/*
 * Each transaction_*() call records the current state of what it is about
 * to change, then changes it. transaction_rollback() puts every recorded
 * state back, newest first; transaction_commit() forgets them. Freeing a
 * transaction that was neither rolled back nor committed rolls it back.
 */
typedef struct Transaction Transaction;
typedef struct SafeRoot SafeRoot;

/*
 * Rules kept outside files, by pair: the kernel's Smack rules. The
 * transaction asks a pair's access before it first changes it, and sets
 * that back on rollback, through these (smack-kernel.c provides them for
 * smackfs), so that it need not know where the rules live.
 */
typedef struct TransactionRules {
        /* What (subject, object) has now (0: nothing): 0 or -errno. */
        int (*get)(void *userdata, const char *subject, const char *object, unsigned *ret_access);
        /* Set (subject, object) to access (0: none): 0 or -errno. */
        int (*set)(void *userdata, const char *subject, const char *object, unsigned access);
        /* For messages: where the rules are ("/sys/fs/smackfs"). */
        const char *where;
        void *userdata;
} TransactionRules;

/* rules (nullable: none to change) is copied; what it points to must outlive the transaction. */
int transaction_new(const TransactionRules *rules, Transaction **ret);
Transaction *transaction_free(Transaction *t);

/* Replace a file atomically (fileio_write_atomic) / remove it. */
int transaction_write_file(Transaction *t, const char *path, const void *data, size_t size,
                           mode_t mode);
int transaction_remove_file(Transaction *t, const char *path);

/*
 * Set (value non-NULL) or remove (value NULL) an extended attribute of
 * the file open as fd, which safe_root_open() opened at path in root.
 * Undoing opens path in root again the same way and writes the old value
 * back only if it is still the same file (device and inode): a file
 * replaced since is not ours to write on. root must outlive t.
 */
int transaction_set_xattr(Transaction *t, const SafeRoot *root, int fd, const char *path,
                          const char *name, const void *value, size_t size);

/* Set a rule through the TransactionRules given at transaction_new (-EINVAL without). */
int transaction_set_rule(Transaction *t, const char *subject, const char *object,
                         unsigned access);

/* Undo everything, newest first; returns the first failure (it goes on past it). */
int transaction_rollback(Transaction *t);
void transaction_commit(Transaction *t);
/* What the first change that failed was ("writing /var/lib/mssf/policy.db"), or NULL. */
const char *transaction_failure(const Transaction *t);
/* Number of recorded changes. */
size_t transaction_size(const Transaction *t);

DEFINE_CLEANUP(Transaction *, transaction_free);
