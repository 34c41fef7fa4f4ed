/* The kernel's Smack rules through smackfs: read the list, set one pair, ask access2. */
#pragma once

#include <stdbool.h>

#include "macro.h"
#include "smack-rules.h"
#include "transaction.h"

#define SMACKFS_DEFAULT "/sys/fs/smackfs"

/* Whether dir holds a writable load2 (smackfs mounted, or a test's stand-in). */
bool smack_kernel_available(const char *smackfs);

/* Every rule the kernel has (dir/load2 listing); a repeated pair: last wins. */
int smack_kernel_read(const char *smackfs, SmackRules **ret);

/* Set (subject, object) to access ("-" when 0) with one load2 write. */
int smack_kernel_set(const char *smackfs, const char *subject, const char *object, unsigned access);

/*
 * smackfs for a transaction (transaction.h): what each pair had before
 * the transaction's first change is read once (load2's listing), and
 * each change is one load2 write.
 */
typedef struct SmackKernelRules SmackKernelRules;
int smack_kernel_rules_new(const char *smackfs, SmackKernelRules **ret);
SmackKernelRules *smack_kernel_rules_free(SmackKernelRules *k);
/* The TransactionRules over k (k must outlive the transaction). */
TransactionRules smack_kernel_transaction_rules(SmackKernelRules *k);

/* access2: 1 granted, 0 not, -errno. access is text ("w", "rx"). */
int smack_kernel_access(const char *smackfs, const char *subject, const char *object,
                        const char *access);

DEFINE_CLEANUP(SmackKernelRules *, smack_kernel_rules_free);
