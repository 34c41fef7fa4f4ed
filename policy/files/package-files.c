/*
 * A package speaks only of its own files.
 *
 * mssf-policy writes two things on files: security.SMACK64EXEC on the
 * binaries a manifest names in <for path> (exec then gives the process
 * the package's label and grants) and security.ima on every file of the
 * package (integrity.c). Both are worth stealing: SMACK64EXEC with its own
 * label on a root daemon, a set-user-ID tool or /bin/sh would let a store
 * package run them as itself, and a reference hash written over another
 * package's file blesses whatever it holds. So a file is the package's
 * only where the package database agrees:
 *
 *  - run by the package manager, the file is in the package's own list
 *    (dpkg: info/PACKAGE.list, every architecture) and in no other
 *    package's list; dpkg's diversions decide who holds a diverted path
 *    (package-db.h: the package manager's database, deb/dpkg-db.c for
 *    dpkg);
 *  - run by hand (mssf-policy install), no package but one of the same
 *    name lists it;
 *  - always, no other installed package names it in its own <for path>.
 *
 * And the file must be what it claims, checked on the file itself, opened
 * through a descriptor without following any symlink (safe-root.c): a
 * regular file, not a directory, device or FIFO; not set-user-ID or
 * set-group-ID unless the request says policy="setxid" and the device
 * policy grants the package's origin CAP::setuid / CAP::setgid (a set-id
 * file runs with its owner's rights whatever its label); and with every
 * hard link among the package's own files (a link its maintainer script
 * made to another package's daemon is that daemon).
 *
 * What a new manifest names and cannot have refuses the whole change, at
 * the <for>'s line and column (strict). What an installed version named
 * (an upgrade's or a removal's old files) or the list holds beyond the
 * package's own regular files is left alone, with a warning where it is
 * news: a package registered before these checks must not get its old
 * claims undone on files that were never its own.
 *
 * Every file's dev and ino are kept: the writers (smack-setup.c,
 * integrity.c) open it again and write only if it is still that file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device-policy.h"
#include "package-db.h"
#include "model.h"
#include "package-files.h"
#include "safe-root.h"
#include "strmap.h"

/* A name to consider: from the manifest (target) or the package manager's list. */
typedef struct Candidate {
        char *name;
        char *path;                     /* canonical */
        const RequestTarget *target;    /* (nullable) */
        const Request *request;         /* (nullable) the target's request */
        PackageClaim claim;
        bool own_listed;                /* in the package's own list */
        const char *registered_by;      /* (nullable) another package's <for path> */
} Candidate;

typedef struct Collector {
        const PackageFilesContext *context;
        const char *package_name;
        const Package *package;
        bool with_list;
        bool strict;
        Diagnostics *diag;
        Candidate *candidates;
        size_t n_candidates, n_allocated;
        StrMap index;                   /* canonical path -> index + 1 */
        StrMap registered;              /* other packages' binaries -> their package's name */
        char **registered_paths;        /* (owned) the keys of registered */
        size_t n_registered_paths;
        bool refused;
} Collector;

static void collector_clear(Collector *c) {
        for (size_t i = 0; i < c->n_candidates; i++) {
                free(c->candidates[i].name);
                free(c->candidates[i].path);
                package_claims_clear(&c->candidates[i].claim, 1);
        }
        free(c->candidates);
        strmap_deinit(&c->index);
        strmap_deinit(&c->registered);
        for (size_t i = 0; i < c->n_registered_paths; i++)
                free(c->registered_paths[i]);
        free(c->registered_paths);
}

/* The candidate for canonical path (taking path), merging a second name of one file. */
static Candidate *candidate_add(Collector *c, const char *name, char *path, int *r) {
        uintptr_t found = (uintptr_t) strmap_get(&c->index, path);
        Candidate *candidate;

        *r = 0;
        if (found) {
                free(path);
                return &c->candidates[found - 1];
        }
        if (c->n_candidates == c->n_allocated) {
                size_t grow = c->n_allocated ? c->n_allocated * 2 : 32;
                Candidate *bigger = reallocarray(c->candidates, grow, sizeof(*bigger));

                if (!bigger) {
                        free(path);
                        *r = -ENOMEM;
                        return NULL;
                }
                c->candidates = bigger;
                c->n_allocated = grow;
                /* The index's keys are the candidates' path strings, which did not move. */
        }
        candidate = &c->candidates[c->n_candidates];
        *candidate = (Candidate) { .name = strdup(name), .path = path };
        if (!candidate->name ||
            strmap_put(&c->index, path, (void *) (uintptr_t) (c->n_candidates + 1)) < 0) {
                free(candidate->name);
                free(path);
                *r = -ENOMEM;
                return NULL;
        }
        c->n_candidates++;
        return candidate;
}

/* The formatted text (allocated), or NULL. */
_printf_(1, 0)
static char *format_text(const char *format, va_list ap) {
        char *text = NULL;

        return vasprintf(&text, format, ap) < 0 ? NULL : text;
}

/* An error (strict) or a warning at the target's position; the file is left out either way. */
_printf_(3, 4)
static int refuse_target(Collector *c, const RequestTarget *target, const char *format, ...) {
        _cleanup_free_ char *text = NULL;
        va_list ap;
        int r;

        va_start(ap, format);
        text = format_text(format, ap);
        va_end(ap);
        if (!text)
                return -ENOMEM;
        if (c->strict)
                c->refused = true;
        r = diagnostics_add(c->diag, c->strict ? DIAGNOSTIC_ERROR : DIAGNOSTIC_WARNING,
                            c->package->file, target->loc.line, target->loc.column,
                            c->strict ? "%s" : "%s: the installed version's claim is left alone",
                            text);
        return r < 0 ? r : 0;
}

static bool is_own_binary(const Request *request, const RequestTarget *target) {
        return !request->context_install && target->path && !target->package;
}

static int add_targets(Collector *c) {
        const Package *package = c->package;

        for (size_t i = 0; package && i < package->n_requests; i++) {
                const Request *request = package->requests[i];

                for (size_t j = 0; j < request->n_targets; j++) {
                        const RequestTarget *target = request->targets[j];
                        Candidate *candidate;
                        char *path = NULL;
                        int r;

                        if (!is_own_binary(request, target))
                                continue;
                        r = safe_root_canonical(c->context->root, target->path, &path);
                        if (r < 0)
                                return r;
                        if (r > 0) {
                                r = refuse_target(c, target, "binary path %s is not a normal "
                                                  "absolute path (no \".\", \"..\" or empty "
                                                  "component, no trailing '/')", target->path);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        candidate = candidate_add(c, target->path, path, &r);
                        if (!candidate)
                                return r;
                        if (!candidate->target) {
                                candidate->target = target;
                                candidate->request = request;
                        }
                }
        }
        return 0;
}

static int add_own_list(Collector *c) {
        char **names = NULL;
        size_t n = 0;
        int r;

        if (!c->with_list || !c->context->db)
                return 0;
        r = c->context->db->ops->package_paths(c->context->db, c->package_name, &names, &n);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                Candidate *candidate;
                char *path = NULL;

                r = safe_root_canonical(c->context->root, names[i], &path);
                if (r != 0) {
                        r = r > 0 ? 0 : r;      /* "/.", and nothing a file can be called */
                        continue;
                }
                candidate = candidate_add(c, names[i], path, &r);
                if (candidate)
                        candidate->own_listed = true;
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return r;
}

/* Every other installed package's own binaries: canonical path -> that package's name. */
static int index_registered(Collector *c) {
        const PolicySet *set = c->context->set;

        for (size_t p = 0; set && p < set->n_packages; p++) {
                const Package *other = set->packages[p];

                if (strcmp(other->name, c->package_name) == 0)
                        continue;
                for (size_t i = 0; i < other->n_requests; i++)
                        for (size_t j = 0; j < other->requests[i]->n_targets; j++) {
                                const RequestTarget *target = other->requests[i]->targets[j];
                                char *canonical = NULL;
                                char **bigger;
                                int r;

                                if (!is_own_binary(other->requests[i], target))
                                        continue;
                                r = safe_root_canonical(c->context->root, target->path,
                                                        &canonical);
                                if (r < 0)
                                        return r;
                                if (r > 0)
                                        continue;
                                bigger = reallocarray(c->registered_paths,
                                                      c->n_registered_paths + 1, sizeof(char *));
                                if (!bigger) {
                                        free(canonical);
                                        return -ENOMEM;
                                }
                                c->registered_paths = bigger;
                                c->registered_paths[c->n_registered_paths++] = canonical;
                                r = strmap_put(&c->registered, canonical, other->name);
                                if (r < 0)
                                        return r;
                        }
        }
        return 0;
}

static int find_claims(Collector *c) {
        _cleanup_free_ const char **paths = NULL;
        _cleanup_free_ PackageClaim *claims = NULL;
        int r;

        r = index_registered(c);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_candidates; i++)
                c->candidates[i].registered_by = strmap_get(&c->registered,
                                                            c->candidates[i].path);
        if (!c->context->db || c->n_candidates == 0)
                return 0;
        paths = calloc(c->n_candidates, sizeof(*paths));
        claims = calloc(c->n_candidates, sizeof(*claims));
        if (!paths || !claims)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_candidates; i++)
                paths[i] = c->candidates[i].path;
        r = c->context->db->ops->claims(c->context->db, c->context->root, c->package_name, paths,
                                        c->n_candidates, claims);
        if (r < 0) {
                package_claims_clear(claims, c->n_candidates);
                return r;
        }
        for (size_t i = 0; i < c->n_candidates; i++)
                c->candidates[i].claim = claims[i];
        return 0;
}

/*
 * Whose the file at candidate's path is, if not the package's: a
 * sentence for the message (allocated into *ret), or NULL when it is the
 * package's own.
 */
static int foreign_owner(const Collector *c, const Candidate *candidate, char **ret) {
        const PackageClaim *claim = &candidate->claim;
        const char *diverter = claim->diverted_by;
        bool own_diversion = diverter && strcmp(diverter, c->package_name) == 0;
        int r = 0;

        *ret = NULL;
        if (diverter && !own_diversion && claim->diverted_to)
                r = asprintf(ret, "%s diverts it to %s: the file at that path is %s", diverter,
                             claim->diverted_to, strcmp(diverter, ":") == 0 ?
                             "the administrator's" : "that package's");
        else if (diverter && !own_diversion && claim->holds_diverted &&
                 !(claim->diverted_owner && strcmp(claim->diverted_owner, c->package_name) == 0))
                r = asprintf(ret, "it is %s%s's file %s, which %s diverted here",
                             claim->diverted_owner ? "package " : "",
                             claim->diverted_owner ? claim->diverted_owner : "no package",
                             claim->holds_diverted, strcmp(diverter, ":") == 0 ?
                             "the administrator" : diverter);
        else if (claim->listed_by && !own_diversion)
                r = asprintf(ret, "it belongs to package %s (%s lists it for %s)",
                             claim->listed_by, c->context->db->ops->name, claim->listed_by);
        else if (candidate->registered_by)
                r = asprintf(ret, "it belongs to package %s (its manifest names it as its "
                             "binary)", candidate->registered_by);
        else if (c->with_list && c->context->db && !candidate->own_listed)
                r = asprintf(ret, "%s's file list of %s does not name it",
                             c->context->db->ops->name, c->package_name);
        return r < 0 ? -ENOMEM : 0;
}

const char *package_file_kind(mode_t mode) {
        if (S_ISLNK(mode))
                return "a symbolic link (name the file itself: a label is never written through "
                       "a link)";
        if (S_ISDIR(mode))
                return "a directory";
        if (S_ISCHR(mode) || S_ISBLK(mode))
                return "a device node";
        if (S_ISFIFO(mode))
                return "a FIFO";
        if (S_ISSOCK(mode))
                return "a socket";
        return "not a regular file";
}

bool package_setxid_allowed(const PolicySet *set, const char *origin, bool setxid, mode_t mode) {
        if (!setxid || !set)
                return false;
        if ((mode & S_ISUID) && !device_policy_allows(set->device, origin, "CAP::setuid", false))
                return false;
        if ((mode & S_ISGID) && !device_policy_allows(set->device, origin, "CAP::setgid", false))
                return false;
        return true;
}

/* Why a <for path> binary found as st cannot be labelled, or NULL. */
static int binary_problem(const Collector *c, const Candidate *candidate, const struct stat *st,
                          char **ret) {
        *ret = NULL;
        if (!(st->st_mode & (S_ISUID | S_ISGID)) ||
            package_setxid_allowed(c->context->set, c->package->origin,
                                   candidate->request->policy & REQUEST_POLICY_SETXID, st->st_mode))
                return 0;
        return asprintf(ret, "it is set-%s-ID: a binary that runs with its owner's rights "
                        "needs policy=\"setxid\" on its <request>, and an origin the device "
                        "policy grants CAP::%s (origin %s)",
                        st->st_mode & S_ISUID ? "user" : "group",
                        st->st_mode & S_ISUID ? "setuid" : "setgid",
                        c->package->origin ? c->package->origin : "unknown") < 0 ? -ENOMEM : 0;
}

static int files_add(PackageFiles *files, const Candidate *candidate, const struct stat *st) {
        PackageFile *file;

        if (files->n_files == files->n_allocated) {
                size_t grow = files->n_allocated ? files->n_allocated * 2 : 16;
                PackageFile *bigger = reallocarray(files->files, grow, sizeof(*bigger));

                if (!bigger)
                        return -ENOMEM;
                files->files = bigger;
                files->n_allocated = grow;
        }
        file = &files->files[files->n_files];
        *file = (PackageFile) {
                .path = strdup(candidate->path),
                .name = strdup(candidate->name),
                .st = *st,
                .target = candidate->target,
        };
        if (!file->path || !file->name) {
                free(file->path);
                free(file->name);
                return -ENOMEM;
        }
        files->n_files++;
        return 0;
}

/* A list entry left out: a warning where it is news, nothing for the usual. */
_printf_(2, 3)
static int skip_listed(Collector *c, const char *format, ...) {
        _cleanup_free_ char *text = NULL;
        va_list ap;
        int r;

        va_start(ap, format);
        text = format_text(format, ap);
        va_end(ap);
        if (!text)
                return -ENOMEM;
        r = diagnostics_add(c->diag, DIAGNOSTIC_WARNING, NULL, 0, 0, "package %s: %s",
                            c->package_name, text);
        return r < 0 ? r : 0;
}

/* What opening said, as a refusal of the target or a note about the list entry. */
static int report_unopened(Collector *c, const Candidate *candidate, int verdict,
                           const struct stat *st) {
        const RequestTarget *target = candidate->target;
        _cleanup_free_ char *link = NULL;

        switch (verdict) {
        case SAFE_ROOT_E_MISSING:
                if (!target)
                        return 0;
                return diagnostics_add(c->diag, DIAGNOSTIC_WARNING, c->package->file,
                                       target->loc.line, target->loc.column,
                                       "binary %s does not exist: not labelled, it will run "
                                       "without this package's credentials", target->path) < 0 ?
                        -ENOMEM : 0;
        case SAFE_ROOT_E_SYMLINK:
                link = safe_root_describe_symlink(c->context->root, candidate->path);
                if (target)
                        return refuse_target(c, target, "binary %s is reached through a "
                                             "symbolic link (%s): name the file itself; a "
                                             "label is never written through a link",
                                             target->path, link ? link : "it changed since");
                /* A package's own symlink is in its list as one: nothing to hash there. */
                if (!link || strncmp(link, candidate->path, strlen(candidate->path)) == 0)
                        return 0;
                return skip_listed(c, "%s is not hashed: a symbolic link is on the way (%s)",
                                   candidate->name, link);
        case SAFE_ROOT_E_NOT_REGULAR:
                if (!target)
                        return 0;
                return refuse_target(c, target, "binary %s is %s: only a regular file can be "
                                     "labelled", target->path, package_file_kind(st->st_mode));
        case SAFE_ROOT_E_PATH:
        default:
                if (!target)
                        return 0;
                return refuse_target(c, target, "binary %s cannot be opened inside %s",
                                     target->path, safe_root_path(c->context->root));
        }
}

/*
 * Judge one candidate and, if it is the package's regular file, add it.
 * A <for path> is judged by whose it is before it is opened (another
 * package's file is not even opened); a list entry is opened first,
 * because dpkg lists the directories every package shares.
 */
static int judge(Collector *c, const Candidate *candidate, PackageFiles *files) {
        _cleanup_free_ char *foreign = NULL, *problem = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st = {};
        int r;

        if (!candidate->target) {
                r = safe_root_open(c->context->root, candidate->path, &fd, &st);
                if (r != 0)
                        return r < 0 ? r : report_unopened(c, candidate, r, &st);
        }
        r = foreign_owner(c, candidate, &foreign);
        if (r < 0)
                return r;
        if (foreign) {
                if (candidate->target)
                        return refuse_target(c, candidate->target, "binary %s is not a file of "
                                             "package %s: %s", candidate->target->path,
                                             c->package_name, foreign);
                return skip_listed(c, "%s is not hashed: %s", candidate->name, foreign);
        }
        if (candidate->target) {
                r = safe_root_open(c->context->root, candidate->path, &fd, &st);
                if (r != 0)
                        return r < 0 ? r : report_unopened(c, candidate, r, &st);
                r = binary_problem(c, candidate, &st, &problem);
                if (r < 0)
                        return r;
                if (problem)
                        return refuse_target(c, candidate->target, "binary %s cannot be "
                                             "labelled: %s", candidate->target->path, problem);
        }
        return files_add(files, candidate, &st);
}

/* Every hard link of each file must be among the package's own files. */
static int check_links(Collector *c, PackageFiles *files) {
        size_t kept = 0;
        int r;

        for (size_t i = 0; i < files->n_files; i++) {
                PackageFile *file = &files->files[i];
                nlink_t own = 0;

                for (size_t j = 0; j < files->n_files && file->st.st_nlink > 1; j++)
                        own += safe_root_same_file(&file->st, &files->files[j].st);
                if (file->st.st_nlink > 1 && own < file->st.st_nlink) {
                        if (file->target)
                                r = refuse_target(c, file->target, "binary %s has %ju hard "
                                                  "links, %ju of them outside package %s's "
                                                  "files: one of them may be another "
                                                  "package's binary", file->name,
                                                  (uintmax_t) file->st.st_nlink,
                                                  (uintmax_t) (file->st.st_nlink - own),
                                                  c->package_name);
                        else
                                r = skip_listed(c, "%s is not hashed: it has %ju hard links, "
                                                "some outside the package's files", file->name,
                                                (uintmax_t) file->st.st_nlink);
                        free(file->path);
                        free(file->name);
                        if (r < 0)
                                return r;
                        continue;
                }
                files->files[kept++] = *file;
        }
        files->n_files = kept;
        return 0;
}

int package_files_new(const PackageFilesContext *context, const char *package_name,
                      const Package *package, bool with_list, bool strict,
                      Diagnostics *diag, PackageFiles **ret) {
        _cleanup_(package_files_freep) PackageFiles *files = calloc(1, sizeof(*files));
        Collector c = {
                .context = context,
                .package_name = package_name,
                .package = package,
                .with_list = with_list,
                .strict = strict,
                .diag = diag,
        };
        int r;

        if (!files)
                return -ENOMEM;
        r = add_targets(&c);
        if (r >= 0)
                r = add_own_list(&c);
        if (r >= 0)
                r = find_claims(&c);
        for (size_t i = 0; r >= 0 && i < c.n_candidates; i++)
                r = judge(&c, &c.candidates[i], files);
        if (r >= 0)
                r = check_links(&c, files);
        collector_clear(&c);
        if (r < 0)
                return r;
        if (c.refused)
                return PACKAGE_FILES_E_REFUSED;
        *ret = TAKE_PTR(files);
        return 0;
}

void package_claims_clear(PackageClaim *claims, size_t n) {
        for (size_t i = 0; claims && i < n; i++) {
                free(claims[i].listed_by);
                free(claims[i].diverted_by);
                free(claims[i].diverted_to);
                free(claims[i].holds_diverted);
                free(claims[i].diverted_owner);
                claims[i] = (PackageClaim) {};
        }
}

PackageFiles *package_files_free(PackageFiles *files) {
        if (!files)
                return NULL;
        for (size_t i = 0; i < files->n_files; i++) {
                free(files->files[i].path);
                free(files->files[i].name);
        }
        free(files->files);
        free(files);
        return NULL;
}

const PackageFile *package_files_find(const PackageFiles *files, const char *path) {
        for (size_t i = 0; files && i < files->n_files; i++)
                if (strcmp(files->files[i].path, path) == 0)
                        return &files->files[i];
        return NULL;
}
