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

int transaction_new(const char *smackfs, Transaction **ret);
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

/*
 * Set a kernel Smack rule through smackfs (the smackfs given at
 * transaction_new, which must not be NULL for this). The kernel's rules
 * are read once, before the first change, to know what to restore.
 */
int transaction_set_kernel_rule(Transaction *t, const char *subject, const char *object,
                                unsigned access);

/* Undo everything, newest first; returns the first failure (it goes on past it). */
int transaction_rollback(Transaction *t);
void transaction_commit(Transaction *t);
/* What the first change that failed was ("writing /var/lib/mssf/policy.db"), or NULL. */
const char *transaction_failure(const Transaction *t);
/* Number of recorded changes. */
size_t transaction_size(const Transaction *t);

DEFINE_CLEANUP(Transaction *, transaction_free);
