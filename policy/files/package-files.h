/* Which files a package may have labelled and hashed: its own, checked and opened safely. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "diagnostic.h"
#include "macro.h"

typedef struct PackageDb PackageDb;
typedef struct Package Package;
typedef struct PolicySet PolicySet;
typedef struct RequestTarget RequestTarget;
typedef struct SafeRoot SafeRoot;

/* One regular file of the package, as found when the change was planned. */
typedef struct PackageFile {
        char *path;                     /* canonical, inside the root: "/usr/bin/x" */
        char *name;                     /* as the package manager's list or the manifest names it */
        struct stat st;                 /* dev and ino: the write must find the same file */
        /* (nullable, not owned) the manifest's <for> naming it: a binary
         * that gets SMACK64EXEC; NULL: only hashed (dpkg's list) */
        const RequestTarget *target;
} PackageFile;

typedef struct PackageFiles {
        PackageFile *files;
        size_t n_files;
        size_t n_allocated;
} PackageFiles;

/* Where the files are, and who else has a word about them. */
typedef struct PackageFilesContext {
        const SafeRoot *root;
        const PackageDb *db;            /* (nullable) no package manager's database */
        /* (nullable) the installed set: other packages' <for path> binaries
         * are theirs, and the device policy says who may have set-id files */
        const PolicySet *set;
} PackageFilesContext;

enum {
        /* a <for path> names a file that is not the package's, or cannot be
         * labelled safely: errors in diag with the manifest's line and column */
        PACKAGE_FILES_E_REFUSED = 1,
};

/*
 * The files of package (nullable: none of its binaries) named
 * package_name: its own "<for path>" binaries and, with with_list (the
 * package manager runs us), every regular file of the package manager's
 * list of package_name (context->db). A file is the package's when the
 * list names it for the package and no other (dpkg's diversions
 * respected) and no other installed package names it in a <for path>;
 * without with_list (mssf-policy install by hand) when no other package
 * lists it and no other installed package names it. Every file
 * is opened through the root without following a symlink (safe-root.h).
 *
 * A <for path> that names anything else (another package's file, a
 * symlink or a symlink on the way, a directory, device or FIFO, a file
 * with hard links outside the package, a set-user-ID or set-group-ID file
 * without policy="setxid" and an origin the device policy grants
 * CAP::setuid or CAP::setgid) is, with strict, an error with the
 * manifest's line and column (PACKAGE_FILES_E_REFUSED); without strict
 * (what an installed version had), a warning, and the file is left out.
 * dpkg's list entries that are not the package's regular files are left
 * out, with a warning where that is news (another package's, a symlink on
 * the way, hard links elsewhere). A <for path> binary that does not exist
 * is a warning: it runs without the package's credentials.
 * 0 and *ret, PACKAGE_FILES_E_REFUSED, or -errno.
 */
int package_files_new(const PackageFilesContext *context, const char *package_name,
                      const Package *package, bool with_list, bool strict,
                      Diagnostics *diag, PackageFiles **ret);
PackageFiles *package_files_free(PackageFiles *files);

/* The file at canonical path, or NULL. */
const PackageFile *package_files_find(const PackageFiles *files, const char *path);

/* What a file of this mode is, for a refusal that says it must be a regular file. */
const char *package_file_kind(mode_t mode);

/*
 * Whether a set-user-ID or set-group-ID file (mode) may be labelled for a
 * package of origin: its <request> says policy="setxid" (setxid), and the
 * device policy grants the origin CAP::setuid (for S_ISUID) and
 * CAP::setgid (for S_ISGID). Without a policy set, never.
 */
bool package_setxid_allowed(const PolicySet *set, const char *origin, bool setxid, mode_t mode);

DEFINE_CLEANUP(PackageFiles *, package_files_free);
