/* Refusing to compile while a package not of the most trusted origin owns the device's configuration. */
#pragma once

typedef struct ToolContext ToolContext;

/*
 * A package's origin as `mssf-policy dpkg configure` would decide it now
 * (dpkg.c): 0 and *ret (allocated; NULL for the unknown origin), or
 * -errno.
 */
typedef int (*DpkgOriginOf)(ToolContext *c, const char *package, char **ret, void *userdata);

/*
 * Whether the device's configuration (guarded.h) is the most trusted
 * origin's, as dpkg's database has it (dpkg_db_guarded_files()): every
 * file there that a package owns must be owned by a package whose origin
 * (origin_of) is the Mssf-Origin of repositories.conf's first paragraph.
 * 0; TOOL_E_INVALID with an error per file in c->diag (the file, the
 * package, its origin), also when dpkg's lists cannot be resolved or
 * repositories.conf does not parse; or -errno. Read only: the caller
 * changes nothing when it is refused.
 */
int dpkg_guard_check(ToolContext *c, DpkgOriginOf origin_of, void *userdata);
