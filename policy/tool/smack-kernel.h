/* The kernel's Smack rules through smackfs: read the list, set one pair, ask access2. */
#pragma once

#include <stdbool.h>

#include "smack-rules.h"

#define SMACKFS_DEFAULT "/sys/fs/smackfs"

/* Whether dir holds a writable load2 (smackfs mounted, or a test's stand-in). */
bool smack_kernel_available(const char *smackfs);

/* Every rule the kernel has (dir/load2 listing); a repeated pair: last wins. */
int smack_kernel_read(const char *smackfs, SmackRules **ret);

/* Set (subject, object) to access ("-" when 0) with one load2 write. */
int smack_kernel_set(const char *smackfs, const char *subject, const char *object, unsigned access);

/* access2: 1 granted, 0 not, -errno. access is text ("w", "rx"). */
int smack_kernel_access(const char *smackfs, const char *subject, const char *object,
                        const char *access);
