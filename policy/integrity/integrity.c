/*
 * Reference hashes for IMA appraisal, set at install.
 *
 * Which files: the package's own regular files as package-files.c found
 * them (its <for path> binaries and, when dpkg runs mssf-policy, every
 * regular file of dpkg's list that is the package's and no one else's),
 * each opened through the root without following a symlink.
 *
 * Trust: the file on disk is hashed as it is when mssf-policy runs, so a
 * file altered between the package manager's unpack and our run would be
 * blessed. The package manager recorded each file's digest from the
 * package archive (dpkg: info/PACKAGE.md5sums, which apt's signature
 * chain vouches for; package-db.h asks it): a file that no longer matches
 * refuses the whole change, naming the record's line. Files without a
 * record (conffiles, packages without md5sums) get the hash of what is
 * there.
 *
 * Every file is read in integrity_plan_new(), before the transaction
 * touches anything; integrity_apply() opens each again, checks that it is
 * the same file (device, inode) and hashes it again through the very
 * descriptor it then writes security.ima on, so what is blessed is what
 * was checked even if the file was replaced or rewritten in between (the
 * second read is the price of that: the page cache makes it cheap). A
 * crash is covered by the journal, which keeps every planned file's value
 * from before the change (integrity_plan_save()): recovery puts those very
 * values back (integrity_plan_restore()) rather than planning again,
 * because a new plan could not know which files the interrupted one
 * covered (dpkg's list or only the manifest's binaries) nor what a file
 * carried before (a signature, a stale hash, nothing). The kernel keeps
 * security.evm in step with each setxattr when EVM's key is loaded;
 * integrity_apply() checks that it did.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileio.h"
#include "integrity.h"
#include "package-db.h"
#include "package-files.h"
#include "safe-root.h"

/* Add "set path's security.ima to value" (NULL: remove it); value is copied. */
static int plan_add(IntegrityPlan *plan, const SafeRoot *root, const char *path,
                    const struct stat *st, const uint8_t *value, size_t size) {
        IntegrityEntry *e;

        if (plan->n_entries == plan->n_allocated) {
                size_t allocated = plan->n_allocated ? 2 * plan->n_allocated : 16;
                IntegrityEntry *entries = reallocarray(plan->entries, allocated, sizeof(*entries));

                if (!entries)
                        return -ENOMEM;
                plan->entries = entries;
                plan->n_allocated = allocated;
        }
        e = &plan->entries[plan->n_entries];
        *e = (IntegrityEntry) {
                .file = safe_root_host_path(root, path),
                .path = strdup(path),
                .check_file = st != NULL,
                .value_size = value ? size : 0,
        };
        if (st)
                e->st = *st;
        if (value)
                e->value = malloc(size ? size : 1);
        if (!e->file || !e->path || (value && !e->value)) {
                free(e->file);
                free(e->path);
                free(e->value);
                return -ENOMEM;
        }
        if (value)
                memcpy(e->value, value, size);
        plan->n_entries++;
        return 0;
}

/* Hash file through a descriptor that is still the file package-files.c found. */
static int hash_file(const SafeRoot *root, const PackageFile *file, FileDigests *ret,
                     Diagnostics *diag) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r;

        r = safe_root_open(root, file->path, &fd, &st);
        if (r < 0) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, file->path, 0, 0,
                                "cannot read it to record its reference hash: %s", strerror(-r));
                return INTEGRITY_E_INVALID;
        }
        if (r > 0 || !safe_root_same_file(&st, &file->st)) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, file->path, 0, 0,
                                "changed while mssf-policy ran (it is no longer the file that "
                                "was checked): not hashed");
                return INTEGRITY_E_INVALID;
        }
        r = digest_fd(fd, ret);
        if (r < 0) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, file->path, 0, 0,
                                "cannot read it to record its reference hash: %s", strerror(-r));
                return INTEGRITY_E_INVALID;
        }
        return 0;
}

int integrity_managed_files(const PackageDb *db, const char *package_name,
                            const PackageFiles *files, bool **ret) {
        _cleanup_free_ const char **names = NULL, **paths = NULL;
        _cleanup_free_ bool *managed = NULL;
        int r;

        *ret = NULL;
        if (!db || !db->ops->ima_managed || !files || files->n_files == 0)
                return 0;
        names = calloc(files->n_files, sizeof(*names));
        paths = calloc(files->n_files, sizeof(*paths));
        managed = calloc(files->n_files, sizeof(*managed));
        if (!names || !paths || !managed)
                return -ENOMEM;
        for (size_t i = 0; i < files->n_files; i++) {
                names[i] = files->files[i].name;
                paths[i] = files->files[i].path;
        }
        r = db->ops->ima_managed(db, package_name, names, paths, files->n_files, managed);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(managed);
        return 0;
}

/*
 * Hash every file of files but those whose security.ima the package
 * manager writes itself, have the package manager check each against
 * what it recorded at unpack (db nullable: nothing recorded), and add
 * them to plan.
 */
static int plan_hashes(IntegrityPlan *plan, const SafeRoot *root, const PackageDb *db,
                       const char *package_name, const PackageFiles *files, Diagnostics *diag) {
        _cleanup_free_ FileDigests *digests = calloc(files->n_files + 1, sizeof(*digests));
        _cleanup_free_ const char **names = calloc(files->n_files + 1, sizeof(*names));
        _cleanup_free_ const char **paths = calloc(files->n_files + 1, sizeof(*paths));
        _cleanup_free_ const PackageFile **hashed = calloc(files->n_files + 1, sizeof(*hashed));
        _cleanup_free_ bool *bad = calloc(files->n_files + 1, sizeof(*bad));
        _cleanup_free_ bool *managed = NULL;
        size_t n = 0;
        int r, result = 0;

        if (!digests || !names || !paths || !hashed || !bad)
                return -ENOMEM;
        r = integrity_managed_files(db, package_name, files, &managed);
        if (r < 0)
                return r;
        for (size_t i = 0; i < files->n_files; i++) {
                if (managed && managed[i])
                        continue;
                r = hash_file(root, &files->files[i], &digests[n], diag);
                if (r != 0)
                        return r;
                hashed[n] = &files->files[i];
                names[n] = files->files[i].name;
                paths[n] = files->files[i].path;
                n++;
        }
        if (db && n > 0) {
                r = db->ops->check_contents(db, package_name, names, paths, digests, n, bad, diag);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n; i++) {
                uint8_t value[IMA_VALUE_SIZE] = { IMA_XATTR_DIGEST_NG, IMA_HASH_ALGO_SHA256 };

                if (bad[i]) {
                        result = INTEGRITY_E_INVALID;
                        continue;
                }
                memcpy(value + 2, digests[i].sha256, DIGEST_SHA256_SIZE);
                r = plan_add(plan, root, hashed[i]->path, &hashed[i]->st, value, IMA_VALUE_SIZE);
                if (r < 0)
                        return r;
        }
        return result;
}

int integrity_plan_new(const SafeRoot *root, const PackageDb *db, const char *package_name,
                       const PackageFiles *old_files, const PackageFiles *new_files,
                       Diagnostics *diag, IntegrityPlan **ret) {
        _cleanup_(integrity_plan_freep) IntegrityPlan *plan = calloc(1, sizeof(*plan));
        _cleanup_free_ bool *managed = NULL;
        int r = 0, refused = 0;

        if (!plan)
                return -ENOMEM;
        if (new_files)
                r = plan_hashes(plan, root, db, package_name, new_files, diag);
        if (r < 0)
                return r;
        /* Kept apart: planning the removals must not clear a refusal. */
        refused = r;
        /* A file whose security.ima the package manager wrote keeps it. */
        r = integrity_managed_files(db, package_name, old_files, &managed);
        for (size_t i = 0; r >= 0 && old_files && i < old_files->n_files; i++) {
                const PackageFile *file = &old_files->files[i];

                if (!package_files_find(new_files, file->path) && !(managed && managed[i]))
                        r = plan_add(plan, root, file->path, &file->st, NULL, 0);
        }
        if (r < 0)
                return r;
        if (refused != 0)
                return refused;
        *ret = TAKE_PTR(plan);
        return 0;
}

IntegrityPlan *integrity_plan_free(IntegrityPlan *plan) {
        if (!plan)
                return NULL;
        for (size_t i = 0; i < plan->n_entries; i++) {
                free(plan->entries[i].file);
                free(plan->entries[i].path);
                free(plan->entries[i].value);
        }
        free(plan->entries);
        free(plan);
        return NULL;
}

void integrity_saved_free(IntegritySaved *saved, size_t n) {
        for (size_t i = 0; saved && i < n; i++) {
                free(saved[i].file);
                free(saved[i].value);
        }
        free(saved);
}

int integrity_plan_save(const SafeRoot *root, const IntegrityPlan *plan, IntegritySaved **ret) {
        IntegritySaved *saved = NULL;
        size_t n = plan ? plan->n_entries : 0;

        if (n > 0) {
                saved = calloc(n, sizeof(*saved));
                if (!saved)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                _cleanup_close_ int fd = -1;
                char *value = NULL;
                struct stat st;
                int r;

                saved[i].file = strdup(plan->entries[i].file);
                r = saved[i].file ? safe_root_open(root, plan->entries[i].path, &fd, &st) : -ENOMEM;
                if (r == 0) {
                        saved[i].has_inode = true;
                        saved[i].dev = (uint64_t) st.st_dev;
                        saved[i].ino = (uint64_t) st.st_ino;
                        r = fileio_fget_xattr(fd, IMA_XATTR, &value, &saved[i].value_size);
                }
                if (r < 0) {
                        integrity_saved_free(saved, n);
                        return r;
                }
                saved[i].value = (uint8_t *) value;
        }
        *ret = saved;
        return 0;
}

/* integrity_plan_restore(): another inode at the path than the journal's. */
#define ENTRY_REPLACED 100

static const char *verdict_text(int verdict) {
        switch (verdict) {
        case ENTRY_REPLACED:
                return "another file is at that path now than the one the change was to touch";
        case SAFE_ROOT_E_MISSING:
                return "it is gone";
        case SAFE_ROOT_E_SYMLINK:
                return "a symbolic link is on its way now";
        case SAFE_ROOT_E_NOT_REGULAR:
                return "it is no longer a regular file";
        default:
                return "its path is not a normal one";
        }
}

int integrity_plan_restore(const SafeRoot *root, const IntegritySaved *saved, size_t n,
                           const char *source, Diagnostics *diag, IntegrityPlan **ret) {
        _cleanup_(integrity_plan_freep) IntegrityPlan *plan = calloc(1, sizeof(*plan));
        int r;

        if (!plan)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const IntegritySaved *s = &saved[i];
                const char *path = safe_root_inside(root, s->file);
                _cleanup_close_ int fd = -1;
                struct stat st;

                if (!path) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, source, s->line, 0,
                                        "%s is not under %s: not a journal of this root's "
                                        "packages", s->file, safe_root_path(root));
                        return INTEGRITY_E_INVALID;
                }
                r = safe_root_open(root, path, &fd, &st);
                if (r < 0)
                        return r;
                if (r == 0 && s->has_inode &&
                    ((uint64_t) st.st_dev != s->dev || (uint64_t) st.st_ino != s->ino))
                        r = ENTRY_REPLACED;
                if (r > 0) {
                        diagnostics_add(diag, DIAGNOSTIC_WARNING, source, s->line, 0,
                                        "%s: %s, so its %s from before the interrupted change "
                                        "is not put back", s->file, verdict_text(r), IMA_XATTR);
                        continue;
                }
                r = plan_add(plan, root, path, NULL, s->value, s->value_size);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(plan);
        return 0;
}

/* Whether fd's file already has e's security.ima (or, for a removal, none). */
static bool current_is(int fd, const IntegrityEntry *e) {
        _cleanup_free_ char *current = NULL;
        size_t size = 0;

        if (fileio_fget_xattr(fd, IMA_XATTR, &current, &size) < 0)
                return false;
        if (!current || !e->value)
                return !current && !e->value;
        return size == e->value_size && memcmp(current, e->value, size) == 0;
}

static int check_evm(int fd, const IntegrityEntry *e, Diagnostics *diag) {
        uint8_t type;
        ssize_t n = fgetxattr(fd, EVM_XATTR, &type, 1);

        if (n < 0 && errno == ERANGE)
                return 0;               /* longer than one byte: a signature, also fine */
        if (n == 1)
                return 0;
        diagnostics_add(diag, DIAGNOSTIC_ERROR, e->file, 0, 0,
                        "EVM's key is loaded but the kernel wrote no %s with the reference hash "
                        "(%s): the file would be refused", EVM_XATTR,
                        n < 0 ? strerror(errno) : "empty");
        return INTEGRITY_E_INVALID;
}

/* open_entry(): a removal whose file is gone or replaced: nothing to do. */
#define ENTRY_GONE 2

/*
 * Open e's file for the write: 0 and *ret_fd; ENTRY_GONE; INTEGRITY_E_INVALID
 * when a hash's file changed since it was planned.
 */
static int open_entry(const SafeRoot *root, const IntegrityEntry *e, int *ret_fd,
                      Diagnostics *diag) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        ImaDigests now;
        int r;

        r = safe_root_open(root, e->path, &fd, &st);
        if (r < 0)
                return r;
        if (r == 0 && e->check_file && !safe_root_same_file(&st, &e->st))
                r = 1;
        if (r > 0 && !e->value)
                return ENTRY_GONE;
        if (r == 0 && e->value && e->check_file) {
                r = ima_digest_fd(fd, &now);
                if (r < 0)
                        return r;
                r = ima_value_equal(e->value, e->value_size, now.value) ? 0 : 1;
        }
        if (r > 0) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, e->file, 0, 0,
                                "changed while mssf-policy ran (%s): its reference hash is "
                                "not written", r == SAFE_ROOT_E_SYMLINK ? "a symbolic link "
                                "is on the way now" : "not the file or content that was "
                                "checked");
                return INTEGRITY_E_INVALID;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int integrity_apply(Transaction *t, const SafeRoot *root, const IntegrityPlan *plan, bool evm,
                    Diagnostics *diag) {
        for (size_t i = 0; plan && i < plan->n_entries; i++) {
                const IntegrityEntry *e = &plan->entries[i];
                _cleanup_close_ int fd = -1;
                int r;

                r = open_entry(root, e, &fd, diag);
                if (r == ENTRY_GONE)
                        continue;
                if (r != 0)
                        return r;
                /* With EVM on, a right value without its HMAC is rewritten so the kernel adds one. */
                if (current_is(fd, e) &&
                    !(e->value && evm && fgetxattr(fd, EVM_XATTR, NULL, 0) < 0))
                        continue;
                r = transaction_set_xattr(t, root, fd, e->path, IMA_XATTR, e->value,
                                          e->value_size);
                if (r == -EPERM && evm) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, e->file, 0, 0,
                                        "the kernel refused to change %s: EVM says the file's "
                                        "security xattrs, owner or mode were changed without "
                                        "the device key", IMA_XATTR);
                        return INTEGRITY_E_INVALID;
                }
                if (r < 0)
                        return r;
                if (e->value && evm) {
                        r = check_evm(fd, e, diag);
                        if (r != 0)
                                return r;
                }
        }
        return 0;
}
