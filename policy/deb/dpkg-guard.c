/*
 * The device's own configuration, checked at every change dpkg asks for.
 *
 * apt's hook refuses a package file that would ship a file of /etc/mssf
 * or /etc/smack/accesses.d from any origin but the most trusted one
 * (apt-hook.c), before dpkg unpacks it. A .deb given to `dpkg -i` never
 * passes the hook: dpkg unpacks its files, the device maker's
 * device-policy.conf or repositories.conf replaced, before any of our
 * code runs. What can still be done is not to believe them: before
 * `mssf-policy dpkg configure`, `remove` and `triggered` change labels,
 * rules or policy.db, this looks at every file dpkg's database says a
 * package put there, and refuses while one belongs to a package whose
 * origin, as its configure would decide it, is not the most trusted. The
 * previous policy.db and rules stay in force; the error names the file
 * and the package, and the fix is the administrator's (remove the
 * package, put the device maker's file back).
 *
 * Trusted: dpkg's database (root's), the tree as it is now (symlinks
 * followed as dpkg followed them), repositories.conf. A file no package
 * owns is the device maker's; a maintainer script that writes one is
 * beyond this check (docs/packaging.md, threat model).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "dpkg-db.h"
#include "dpkg-guard.h"
#include "repositories.h"

/* One refusal: the file, whose it is, and what it would take. */
static void refuse(ToolContext *c, const DpkgGuardedFile *file, const char *origin,
                   const char *trusted) {
        _cleanup_free_ char *how = NULL;

        if (strcmp(file->lister, file->owner) != 0)
                (void) asprintf(&how, " (its diversion put package %s's %s there)", file->lister,
                                file->listed);
        else if (strcmp(file->listed, file->path) != 0)
                (void) asprintf(&how, " (its list names it %s)", file->listed);
        diagnostics_add(c->diag, DIAGNOSTIC_ERROR, file->path, 0, 0,
                        "package %s owns this file of the device's MSSF configuration%s, which "
                        "decides every package's origin and grants, and its origin is %s: only a "
                        "package of the most trusted origin (%s%s) may; nothing is changed "
                        "(policy.db and the Smack rules stay as they were) until the file is "
                        "not that package's: remove %s and put the device maker's file back",
                        file->owner, how ? how : "", origin ? origin : "the unknown one",
                        trusted ? trusted : "none: ", trusted ?
                        ", the first paragraph of repositories.conf" :
                        "repositories.conf maps no repository", file->owner);
}

int dpkg_guard_check(ToolContext *c, DpkgOriginOf origin_of, void *userdata) {
        _cleanup_close_ int root_fd = open(c->paths.root ? c->paths.root : "/",
                                           O_PATH | O_DIRECTORY | O_CLOEXEC);
        _cleanup_(dpkg_db_freep) DpkgDb *db = NULL;
        _cleanup_(repositories_freep) Repositories *repos = NULL;
        _cleanup_free_ char *error = NULL;
        DpkgGuardedFile *files = NULL;
        const char *trusted;
        size_t n = 0;
        int r, refused = 0;

        if (root_fd < 0)
                return -errno;
        r = dpkg_db_new_for(&c->paths, &db);
        if (r < 0)
                return r;
        r = dpkg_db_guarded_files(db, root_fd, &files, &n, &error);
        if (r < 0) {
                diagnostics_add(c->diag, DIAGNOSTIC_ERROR, error, 0, 0,
                                "cannot tell where dpkg put this file (%s): nothing is changed "
                                "while it might be in the device's MSSF configuration",
                                strerror(-r));
                return TOOL_E_INVALID;
        }
        if (n > 0) {
                r = repositories_load(c->paths.repositories, c->diag, &repos);
                if (r == REPOSITORIES_E_INVALID)
                        r = TOOL_E_INVALID;
        }
        trusted = repos && repos->n_items > 0 ? repos->items[0].mssf_origin : NULL;
        for (size_t i = 0; r == 0 && i < n; i++) {
                _cleanup_free_ char *origin = NULL;

                r = origin_of(c, files[i].owner, &origin, userdata);
                if (r < 0)
                        break;
                if (trusted && origin && strcmp(origin, trusted) == 0)
                        continue;
                refuse(c, &files[i], origin, trusted);
                refused = TOOL_E_INVALID;
        }
        dpkg_guarded_files_free(files, n);
        return r != 0 ? r : refused;
}
