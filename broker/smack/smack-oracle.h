/* The Smack oracle: the kernel's access decisions (smackfs access2), cached and kept fresh. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "macro.h"
#include "smack-label.h"

typedef struct SmackOracle SmackOracle;

/* Entries of the decision cache (4-way sets; 24 bytes each). */
#define SMACK_ORACLE_CACHE_SLOTS 8192u

#define SMACK_ORACLE_DEFAULT_PATH "/sys/fs/smackfs"

typedef struct SmackOracleStats {
        uint64_t queries;               /* smack_has_access() questions asked */
        uint64_t same_label;            /* answered "yes" without the kernel: subject == object */
        uint64_t cache_hits;
        uint64_t kernel_queries;        /* asked through access2 */
        uint64_t kernel_errors;         /* the kernel's answer could not be read: denied */
        uint64_t flushes;               /* explicit ones and those inotify caused */
        uint64_t no_smack_denials;      /* token questions denied because there is no Smack */
        unsigned watches;               /* smackfs rule files watched with inotify */
        bool cache_enabled;             /* false once a watch is lost: every question goes to the kernel */
} SmackOracleStats;

/*
 * smackfs: where smackfs is mounted (NULL: /sys/fs/smackfs; tests pass a
 * fake directory). Without an access2 file there the oracle reports "no
 * Smack" (smack_oracle_has_smack() false): that is not an error. Returns
 * 0 or a negative errno (-ENOMEM, or failing to watch a rule file that
 * exists: a cache that could not be kept fresh is not started).
 */
int smack_oracle_new(const char *smackfs, SmackOracle **ret);
SmackOracle *smack_oracle_free(SmackOracle *oracle);

bool smack_oracle_has_smack(const SmackOracle *oracle);

/*
 * The inotify descriptor to poll (readable when a rule file was written),
 * or -1 without Smack. Call smack_oracle_refresh() when it is readable,
 * and in any case before each batch of dispatch.
 */
int smack_oracle_get_fd(const SmackOracle *oracle);

/*
 * Reads the pending inotify events without blocking; if there were any,
 * flushes the cache. Returns 1 (flushed), 0 (nothing changed) or a
 * negative errno (the cache is flushed then too).
 */
int smack_oracle_refresh(SmackOracle *oracle);

/* Forgets every cached answer, in O(1). Call on policy reload. */
void smack_oracle_flush(SmackOracle *oracle);

/*
 * Whether subject has access (any combination of "rwxatl", e.g. "w") to
 * object, as the kernel answers it: 1 yes, 0 no, or a negative errno,
 * which the caller must treat as "no": -EINVAL for a bad argument,
 * -EOPNOTSUPP without Smack, or the error reading the kernel's answer
 * (counted in kernel_errors, never cached).
 */
int smack_has_access(SmackOracle *oracle, const SmackLabel *subject, const SmackLabel *object,
                     const char *access);

/*
 * Whether subject holds token (DESIGN.md decision 4: the rule "subject
 * token w"). 1, 0, or a negative errno (a denial too). Without Smack no
 * label holds any token: 0, counted in no_smack_denials. A token that is
 * not a valid label is -EINVAL.
 */
int smack_has_token(SmackOracle *oracle, const SmackLabel *subject, const char *token);

/*
 * The same, and on 1 *ret_token is the token's interned label (valid for
 * the life of the process), so a caller can remember which tokens a
 * decision needed without copying them. Not written otherwise.
 */
int smack_has_token_label(SmackOracle *oracle, const SmackLabel *subject, const char *token,
                          const SmackLabel **ret_token);

/*
 * smack_has_token() for a token a client named (org.mssf.Broker1.CheckToken),
 * which must not grow the label table or fill the cache: asked of the
 * kernel every time, neither interned nor cached. 1, 0, or a negative
 * errno (-EINVAL: not a valid label); 0 without Smack, as above.
 */
int smack_has_token_uncached(SmackOracle *oracle, const SmackLabel *subject, const char *token);

/*
 * smack_has_token() as a PolicyHasToken (decide.h), userdata the oracle,
 * for callers that hold label strings rather than interned labels.
 */
int smack_oracle_policy_has_token(const char *label, const char *token, void *userdata);

void smack_oracle_get_stats(const SmackOracle *oracle, SmackOracleStats *ret);

DEFINE_CLEANUP(SmackOracle *, smack_oracle_free);
