/*
 * Reference hashes for IMA appraisal, set at install.
 *
 * Which files: the binaries a package's manifest names as its own
 * ("<for path>", the same ones smack-setup labels) and, when dpkg runs
 * mssf-policy (dpkg configure, remove, triggered), every regular file in
 * dpkg's file list (info/PACKAGE.list).
 * Each is resolved under --root and must stay there; directories,
 * devices and files that are gone are left out (a symlink counts as the
 * file it points to, which must itself be inside the root).
 *
 * Trust: the file on disk is hashed as it is when mssf-policy runs, so a
 * file altered between dpkg's unpack and configure would be blessed. dpkg
 * recorded each file's MD5 from the package archive (info/PACKAGE.md5sums,
 * which apt's signature chain vouches for): a file that no longer matches
 * it refuses the whole change, naming the md5sums line. Files without an
 * md5sums line (conffiles, packages without md5sums) get the hash of what
 * is there.
 *
 * Every file is read in integrity_plan_new(), before the transaction
 * touches anything; integrity_apply() only writes xattrs, each recorded in
 * the transaction, so a failure rolls them back. A crash is covered by the
 * journal, which keeps every planned file's value from before the change
 * (integrity_plan_save()): recovery puts those very values back
 * (integrity_plan_restore()) rather than planning again, because a new
 * plan could not know which files the interrupted one covered (dpkg's
 * list or only the manifest's binaries) nor what a file carried before
 * (a signature, a stale hash, nothing). The kernel keeps security.evm in
 * step with each setxattr when EVM's key is loaded; integrity_apply()
 * checks that it did.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileio.h"
#include "integrity.h"
#include "model.h"

/* One file: how the package names it, and where it is. */
typedef struct NamedFile {
        char *name;                     /* "/usr/bin/x" */
        char *file;                     /* resolved, under the root */
} NamedFile;

typedef struct FileSet {
        NamedFile *files;
        size_t n, allocated;
} FileSet;

static void file_set_clear(FileSet *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->files[i].name);
                free(s->files[i].file);
        }
        free(s->files);
        *s = (FileSet) {};
}

static bool file_set_has(const FileSet *s, const char *file) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->files[i].file, file) == 0)
                        return true;
        return false;
}

/* Add name if it is a regular file inside the root (else nothing). */
static int file_set_add(FileSet *s, const ToolPaths *paths, const char *root, const char *name) {
        _cleanup_free_ char *joined = NULL, *resolved = NULL;
        struct stat st;
        size_t n = strlen(root);

        if (name[0] != '/')
                return 0;
        joined = tool_paths_file(paths, name);
        if (!joined)
                return -ENOMEM;
        resolved = realpath(joined, NULL);
        if (!resolved)
                return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 0 : -errno;
        if (n > 1 && (strncmp(resolved, root, n) != 0 || resolved[n] != '/'))
                return 0;
        if (stat(resolved, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        if (file_set_has(s, resolved))
                return 0;
        if (s->n == s->allocated) {
                size_t allocated = s->allocated ? 2 * s->allocated : 16;
                NamedFile *files = reallocarray(s->files, allocated, sizeof(*files));

                if (!files)
                        return -ENOMEM;
                s->files = files;
                s->allocated = allocated;
        }
        s->files[s->n].name = strdup(name);
        if (!s->files[s->n].name)
                return -ENOMEM;
        s->files[s->n++].file = TAKE_PTR(resolved);
        return 0;
}

static int add_manifest_binaries(FileSet *s, const ToolPaths *paths, const char *root,
                                 const Package *package) {
        for (size_t i = 0; package && i < package->n_requests; i++) {
                const Request *request = package->requests[i];

                if (request->context_install)
                        continue;
                for (size_t j = 0; j < request->n_targets; j++) {
                        const RequestTarget *target = request->targets[j];
                        int r;

                        if (target->package || !target->path || strstr(target->path, "/.."))
                                continue;
                        r = file_set_add(s, paths, root, target->path);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

char *integrity_dpkg_admindir(const ToolPaths *paths) {
        char *dir = NULL;

        if (paths->root)
                return asprintf(&dir, "%s/var/lib/dpkg", paths->root) < 0 ? NULL : dir;
        return strdup(getenv("DPKG_ADMINDIR") ?: "/var/lib/dpkg");
}

/* ADMINDIR/info/PACKAGE.SUFFIX, or PACKAGE:ARCH.SUFFIX (Multi-Arch: same): 0 and *ret (NULL if none). */
static int dpkg_info_file(const ToolPaths *paths, const char *package, const char *suffix,
                          char **ret) {
        _cleanup_free_ char *admindir = integrity_dpkg_admindir(paths);
        _cleanup_free_ char *plain = NULL, *pattern = NULL;
        glob_t g = {};

        *ret = NULL;
        if (!admindir)
                return -ENOMEM;
        if (asprintf(&plain, "%s/info/%s.%s", admindir, package, suffix) < 0 ||
            asprintf(&pattern, "%s/info/%s:*.%s", admindir, package, suffix) < 0)
                return -ENOMEM;
        if (access(plain, F_OK) == 0) {
                *ret = TAKE_PTR(plain);
                return 0;
        }
        if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0)
                *ret = strdup(g.gl_pathv[0]);
        globfree(&g);
        return 0;
}

static int add_dpkg_list(FileSet *s, const ToolPaths *paths, const char *root,
                         const char *package) {
        _cleanup_free_ char *list = NULL, *text = NULL;
        size_t size = 0;
        int r;

        r = dpkg_info_file(paths, package, "list", &list);
        if (r < 0 || !list)
                return r;
        r = fileio_read(list, &text, &size);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (char *line = text, *end; line < text + size; line = end + 1) {
                end = memchr(line, '\n', (size_t) (text + size - line));
                if (!end)
                        end = text + size;
                *end = '\0';
                r = file_set_add(s, paths, root, line);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int collect(FileSet *s, const ToolPaths *paths, const char *package_name,
                   const Package *package, bool with_dpkg) {
        _cleanup_free_ char *root = NULL;
        int r;

        root = realpath(paths->file_root[0] ? paths->file_root : "/", NULL);
        if (!root)
                return -errno;
        r = add_manifest_binaries(s, paths, root, package);
        if (r >= 0 && with_dpkg)
                r = add_dpkg_list(s, paths, root, package_name);
        return r;
}

int integrity_package_files(const ToolPaths *paths, const char *package_name,
                            const Package *package, bool with_dpkg, char ***ret, size_t *ret_n) {
        FileSet s = {};
        char **files;
        int r;

        r = collect(&s, paths, package_name, package, with_dpkg);
        files = r < 0 ? NULL : calloc(s.n + 1, sizeof(*files));
        if (r < 0 || !files) {
                file_set_clear(&s);
                return r < 0 ? r : -ENOMEM;
        }
        for (size_t i = 0; i < s.n; i++)
                files[i] = TAKE_PTR(s.files[i].file);
        *ret_n = s.n;
        file_set_clear(&s);
        *ret = files;
        return 0;
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

/*
 * Check file (named name) against dpkg's md5sums text: 0 when it matches
 * or the md5sums does not list it, INTEGRITY_E_INVALID (diag) when it
 * differs or the md5sums line is malformed.
 */
static int check_md5sums(const char *md5sums, const char *text, size_t size, const char *name,
                         const uint8_t md5[MD5_DIGEST_SIZE], Diagnostics *diag) {
        size_t name_len = strlen(name + 1);
        unsigned line_no = 0;

        for (const char *line = text, *end; line < text + size; line = end + 1) {
                uint8_t listed[MD5_DIGEST_SIZE];
                bool valid = true;

                line_no++;
                end = memchr(line, '\n', (size_t) (text + size - line));
                if (!end)
                        end = text + size;
                if (end - line < 2 * MD5_DIGEST_SIZE + 2 || line[32] != ' ' || line[33] != ' ') {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, md5sums, line_no, 0,
                                        "not a dpkg md5sums line (\"MD5  path\")");
                        return INTEGRITY_E_INVALID;
                }
                if ((size_t) (end - line - 34) != name_len || memcmp(line + 34, name + 1, name_len) != 0)
                        continue;
                for (size_t i = 0; i < MD5_DIGEST_SIZE; i++) {
                        int hi = hex_digit(line[2 * i]), lo = hex_digit(line[2 * i + 1]);

                        valid = valid && hi >= 0 && lo >= 0;
                        listed[i] = (uint8_t) (hi << 4 | lo);
                }
                if (!valid) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, md5sums, line_no, 1,
                                        "not an MD5 digest (32 lower-case hex digits)");
                        return INTEGRITY_E_INVALID;
                }
                if (memcmp(listed, md5, MD5_DIGEST_SIZE) == 0)
                        return 0;
                diagnostics_add(diag, DIAGNOSTIC_ERROR, md5sums, line_no, 35,
                                "%s was changed after dpkg unpacked it (its MD5 differs from the "
                                "package's): refusing to record it as the reference for IMA; "
                                "reinstall the package", name);
                return INTEGRITY_E_INVALID;
        }
        return 0;
}

/* Add "set file's security.ima to value" (NULL: remove it); value is copied. */
static int plan_add(IntegrityPlan *plan, const char *file, const uint8_t *value, size_t size) {
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
        *e = (IntegrityEntry) { .file = strdup(file), .value_size = value ? size : 0 };
        if (value)
                e->value = malloc(size ? size : 1);
        if (!e->file || (value && !e->value)) {
                free(e->file);
                free(e->value);
                return -ENOMEM;
        }
        if (value)
                memcpy(e->value, value, size);
        plan->n_entries++;
        return 0;
}

/* Hash every file of s, check each against md5sums, add them to plan. */
static int plan_hashes(IntegrityPlan *plan, const ToolPaths *paths, const char *package_name,
                       const FileSet *s, Diagnostics *diag) {
        _cleanup_free_ char *md5sums = NULL, *text = NULL;
        size_t size = 0;
        int r, result = 0;

        r = dpkg_info_file(paths, package_name, "md5sums", &md5sums);
        if (r < 0)
                return r;
        if (md5sums) {
                r = fileio_read(md5sums, &text, &size);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < s->n; i++) {
                ImaDigests digests;

                r = ima_digest_file(s->files[i].file, &digests);
                if (r < 0) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, s->files[i].file, 0, 0,
                                        "cannot read it to record its reference hash: %s",
                                        strerror(-r));
                        return INTEGRITY_E_INVALID;
                }
                if (text) {
                        r = check_md5sums(md5sums, text, size, s->files[i].name, digests.md5, diag);
                        if (r != 0) {
                                result = r;
                                continue;
                        }
                }
                r = plan_add(plan, s->files[i].file, digests.value, IMA_VALUE_SIZE);
                if (r < 0)
                        return r;
        }
        return result;
}

int integrity_plan_new(const ToolPaths *paths, const char *package_name,
                       const Package *old_package, const Package *new_package, bool with_dpkg,
                       Diagnostics *diag, IntegrityPlan **ret) {
        _cleanup_(integrity_plan_freep) IntegrityPlan *plan = calloc(1, sizeof(*plan));
        FileSet old_files = {}, new_files = {};
        int r;

        if (!plan)
                return -ENOMEM;
        /* On remove, dpkg's list still names what the package installed. */
        r = collect(&old_files, paths, package_name, old_package, with_dpkg && !new_package);
        if (r >= 0 && new_package)
                r = collect(&new_files, paths, package_name, new_package, with_dpkg);
        if (r >= 0 && new_package)
                r = plan_hashes(plan, paths, package_name, &new_files, diag);
        for (size_t i = 0; r >= 0 && i < old_files.n; i++)
                if (!file_set_has(&new_files, old_files.files[i].file))
                        r = plan_add(plan, old_files.files[i].file, NULL, 0);
        file_set_clear(&old_files);
        file_set_clear(&new_files);
        if (r != 0)
                return r;
        *ret = TAKE_PTR(plan);
        return 0;
}

IntegrityPlan *integrity_plan_free(IntegrityPlan *plan) {
        if (!plan)
                return NULL;
        for (size_t i = 0; i < plan->n_entries; i++) {
                free(plan->entries[i].file);
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

int integrity_plan_save(const IntegrityPlan *plan, IntegritySaved **ret) {
        IntegritySaved *saved = NULL;
        size_t n = plan ? plan->n_entries : 0;

        if (n > 0) {
                saved = calloc(n, sizeof(*saved));
                if (!saved)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                char *value = NULL;
                int r;

                saved[i].file = strdup(plan->entries[i].file);
                r = saved[i].file ? fileio_get_xattr(saved[i].file, IMA_XATTR, &value,
                                                     &saved[i].value_size) : -ENOMEM;
                if (r < 0) {
                        integrity_saved_free(saved, n);
                        return r;
                }
                saved[i].value = (uint8_t *) value;
        }
        *ret = saved;
        return 0;
}

/* Whether file is (lexically) root or under it; root "/" holds every absolute path. */
static bool under_root(const char *root, const char *file) {
        size_t n = strlen(root);

        if (strcmp(root, "/") == 0)
                return file[0] == '/';
        return strncmp(file, root, n) == 0 && file[n] == '/';
}

/* Why saved's file can no longer take its value back (NULL: it can), or -errno in *r. */
static const char *restore_problem(const char *file, int *r) {
        _cleanup_free_ char *resolved = realpath(file, NULL);
        struct stat st;

        *r = 0;
        if (!resolved) {
                if (errno == ENOENT || errno == ENOTDIR)
                        return "it is gone";
                if (errno == ELOOP)
                        return "a symlink loop is on its way";
                *r = -errno;
                return NULL;
        }
        if (strcmp(resolved, file) != 0)
                return "a symlink is on its way now";
        if (stat(resolved, &st) < 0) {
                *r = -errno;
                return NULL;
        }
        return S_ISREG(st.st_mode) ? NULL : "it is no longer a regular file";
}

int integrity_plan_restore(const ToolPaths *paths, const IntegritySaved *saved, size_t n,
                           const char *source, Diagnostics *diag, IntegrityPlan **ret) {
        _cleanup_(integrity_plan_freep) IntegrityPlan *plan = calloc(1, sizeof(*plan));
        _cleanup_free_ char *root = NULL;
        int r;

        if (!plan)
                return -ENOMEM;
        root = realpath(paths->file_root[0] ? paths->file_root : "/", NULL);
        if (!root)
                return -errno;
        for (size_t i = 0; i < n; i++) {
                const IntegritySaved *s = &saved[i];
                const char *problem;

                if (!under_root(root, s->file)) {
                        diagnostics_add(diag, DIAGNOSTIC_ERROR, source, s->line, 0,
                                        "%s is not under %s: not a journal of this root's "
                                        "packages", s->file, root);
                        return INTEGRITY_E_INVALID;
                }
                problem = restore_problem(s->file, &r);
                if (r < 0)
                        return r;
                if (problem) {
                        diagnostics_add(diag, DIAGNOSTIC_WARNING, source, s->line, 0,
                                        "%s: %s, so its %s from before the interrupted change "
                                        "is not put back", s->file, problem, IMA_XATTR);
                        continue;
                }
                r = plan_add(plan, s->file, s->value, s->value_size);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(plan);
        return 0;
}

/* Whether e's file already has e's security.ima (or, for a removal, none). */
static bool current_is(const IntegrityEntry *e) {
        _cleanup_free_ char *current = NULL;
        size_t size = 0;

        if (fileio_get_xattr(e->file, IMA_XATTR, &current, &size) < 0)
                return false;
        if (!current || !e->value)
                return !current && !e->value;
        return size == e->value_size && memcmp(current, e->value, size) == 0;
}

static int check_evm(const char *file, Diagnostics *diag) {
        uint8_t type;
        ssize_t n = getxattr(file, EVM_XATTR, &type, 1);

        if (n < 0 && errno == ERANGE)
                return 0;               /* longer than one byte: a signature, also fine */
        if (n == 1)
                return 0;
        diagnostics_add(diag, DIAGNOSTIC_ERROR, file, 0, 0,
                        "EVM's key is loaded but the kernel wrote no %s with the reference hash "
                        "(%s): the file would be refused", EVM_XATTR,
                        n < 0 ? strerror(errno) : "empty");
        return INTEGRITY_E_INVALID;
}

int integrity_apply(Transaction *t, const ToolPaths *paths, const IntegrityPlan *plan,
                    Diagnostics *diag) {
        bool evm = !paths->root && (ima_evm_state() & 1);

        for (size_t i = 0; plan && i < plan->n_entries; i++) {
                const IntegrityEntry *e = &plan->entries[i];
                int r;

                /* With EVM on, a right value without its HMAC is rewritten so the kernel adds one. */
                if (current_is(e) && !(e->value && evm && getxattr(e->file, EVM_XATTR, NULL, 0) < 0))
                        continue;
                r = transaction_set_xattr_bytes(t, e->file, IMA_XATTR, e->value, e->value_size);
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
                        r = check_evm(e->file, diag);
                        if (r != 0)
                                return r;
                }
        }
        return 0;
}

int integrity_dpkg_info_file(const ToolPaths *paths, const char *package, const char *suffix, char **ret) {
        return dpkg_info_file(paths, package, suffix, ret);
}
