/* What a planned change does to the other installed packages (effects.c). */
#pragma once

#include <stdio.h>

typedef struct InstallPlan InstallPlan;

/*
 * One line per other package whose rules the plan changes, on out:
 * "PREFIXPACKAGE: granted A, B; revoked C; changed D (rw -> r)", with
 * the package's own label left out of each pair ("calendar::data" rather
 * than "trusted-app -> calendar::data"). 0 or -errno.
 */
int effects_on_others(const InstallPlan *plan, FILE *out, const char *prefix);
