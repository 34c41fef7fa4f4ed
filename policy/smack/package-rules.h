/* The Smack rules a package's grants need: tokens, and the way to its services. */
#pragma once

#include <stdbool.h>

#include "smack-rules.h"

typedef struct Package Package;
typedef struct PolicySet PolicySet;
typedef struct Request Request;

/* "mssf-" + package: the package's file in the rule store. */
#define PACKAGE_RULES_PREFIX "mssf-"

/*
 * Add to rules what package needs, from its grants (policy_set_resolve()
 * must have run on set): for each granted token T and each subject S
 * that the grant's request labels,
 *   S T w              the grant itself (the kernel holds who has what);
 *   S P w, P S w       for each other package P that provides T or whose
 *                      D-Bus declarations require T, and for each other
 *                      label P lets own its names (<owner label>): S may
 *                      call P's services and they may answer and signal S.
 * Only resource tokens make rules; UID/GID/GRP/CAP credentials and
 * context="INSTALL" requests make none.
 */
int package_rules_build(const PolicySet *set, const Package *package, SmackRules *rules);

/*
 * The labels a request's credentials go to: the package's own label for
 * its own binaries (or when it names none), and pkg for each
 * "pkg::/path" target (that binary runs this package's code, so it gets
 * the credentials too; its file keeps the label its own package gave it).
 * Calls fn for each distinct label; stops at the first negative return.
 */
int package_request_subjects(const Package *package, const Request *request,
                             int (*fn)(const char *label, void *userdata), void *userdata);

/* Whether package provides token or requires it anywhere in its D-Bus declarations. */
bool package_serves_token(const Package *package, const char *token);
