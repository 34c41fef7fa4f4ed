/*
 * What the package files of one apt run would put into the device's MSSF
 * configuration, member by member, before dpkg unpacks any of them.
 *
 * A member reaches the configuration (guarded.h) in more ways than by its
 * name: through the symlinks already on the system (dpkg follows them for
 * the directories it unpacks into); through a symlink another member of
 * the same run unpacks first, in this package file or an earlier one; as
 * a symlink that leads there or to one of its ancestors, through which a
 * later member or package would write; as a hard link, since dpkg links
 * whatever file is at the link's target, in the archive or not, and then
 * gives that inode the member's owner and mode; and as a directory, which
 * dpkg puts in the place of a file that is there (so a directory inside a
 * guarded one is accepted only where one already is).
 *
 * So every package file of the run is listed first (deb_run_add), the
 * symlinks they carry are collected with where each lands, and then each
 * member is followed twice (deb_run_inspect): in the tree as it is, and
 * in the tree with the run's symlinks in it. Either reaching the
 * configuration is a finding: which one dpkg meets depends on the order
 * it unpacks in. Where a symlink lands is itself worked out in the tree
 * as it is and then with the symlinks found that way, and both places
 * count (a symlink through a symlink through a symlink of the same run is
 * seen at the second step, deeper chains only as far as that).
 *
 * Everything here is the package's words: names are compared, never
 * opened; the only file system calls are readlinkat() and fstatat()
 * under the root's descriptor. The members of a run are held in memory,
 * at most DEB_RUN_MEMBERS_MAX of them. Symlinks are looked up by binary
 * search, not hashed: a package chooses its names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "deb-contents.h"
#include "deb-inspect.h"
#include "guarded.h"
#include "macro.h"

#define DEB_RUN_MEMBERS_MAX (4u * 1024 * 1024)

enum {
        INSPECT_FOUND = 100,            /* a member of the device's configuration: stop */
};

typedef struct DebPackage {
        DebEntry *members;
        size_t n_members;
} DebPackage;

/* A symlink the run unpacks: where it lands, and where it points. */
typedef struct RunLink {
        char *location;                 /* (owned) absolute, normal */
        const char *target;             /* the member's */
        size_t order;                   /* in the run: a later one at the same place wins */
} RunLink;

struct DebRun {
        int root_fd;
        DebPackage *packages;
        size_t n_packages;
        size_t n_members;
        RunLink *links;                 /* sorted by location, then order, once sealed */
        size_t n_links;
        bool sealed;
};

static void package_clear(DebPackage *package) {
        for (size_t i = 0; i < package->n_members; i++)
                deb_entry_clear(&package->members[i]);
        free(package->members);
        *package = (DebPackage) {};
}

DebRun *deb_run_free(DebRun *run) {
        if (!run)
                return NULL;
        for (size_t i = 0; i < run->n_packages; i++)
                package_clear(&run->packages[i]);
        free(run->packages);
        for (size_t i = 0; i < run->n_links; i++)
                free(run->links[i].location);
        free(run->links);
        free(run);
        return NULL;
}

int deb_run_new(int root_fd, DebRun **ret) {
        DebRun *run = calloc(1, sizeof(*run));

        if (!run)
                return -ENOMEM;
        run->root_fd = root_fd;
        *ret = run;
        return 0;
}

typedef struct Listing {
        DebRun *run;
        DebPackage *package;
} Listing;

static int keep_member(const DebEntry *entry, void *userdata) {
        Listing *listing = userdata;
        DebPackage *package = listing->package;
        DebEntry copy = { .type = entry->type };

        if (listing->run->n_members >= DEB_RUN_MEMBERS_MAX)
                return -E2BIG;
        if (package->n_members % 256 == 0) {
                DebEntry *grown = reallocarray(package->members, package->n_members + 256,
                                               sizeof(DebEntry));
                if (!grown)
                        return -ENOMEM;
                package->members = grown;
        }
        copy.name = strdup(entry->name);
        copy.target = entry->target ? strdup(entry->target) : NULL;
        if (!copy.name || (entry->target && !copy.target)) {
                deb_entry_clear(&copy);
                return -ENOMEM;
        }
        package->members[package->n_members++] = copy;
        listing->run->n_members++;
        return 0;
}

int deb_run_add(DebRun *run, const char *deb, char **ret_error) {
        DebPackage *grown;
        Listing listing = { .run = run };
        int r;

        if (run->sealed)
                return -EBUSY;
        grown = reallocarray(run->packages, run->n_packages + 1, sizeof(DebPackage));
        if (!grown)
                return -ENOMEM;
        run->packages = grown;
        listing.package = &run->packages[run->n_packages];
        *listing.package = (DebPackage) {};
        r = deb_contents_read(deb, keep_member, &listing, ret_error);
        if (r != 0) {
                run->n_members -= listing.package->n_members;
                package_clear(listing.package);
                if (r == -E2BIG && ret_error && !*ret_error &&
                    asprintf(ret_error, "more than %u members in the package files of one apt run",
                             DEB_RUN_MEMBERS_MAX) < 0)
                        *ret_error = NULL;
                return r == -E2BIG ? DEB_CONTENTS_E_SYNTAX : r;
        }
        run->n_packages++;
        return 0;
}

static int compare_links(const void *a, const void *b) {
        const RunLink *x = a, *y = b;
        int c = strcmp(x->location, y->location);

        return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* The run's symlink at path: the last one unpacked there. */
static const char *run_link_at(const char *path, void *userdata) {
        const DebRun *run = userdata;
        size_t low = 0, high = run->n_links;

        while (low < high) {
                size_t middle = low + (high - low) / 2;

                if (strcmp(run->links[middle].location, path) <= 0)
                        low = middle + 1;
                else
                        high = middle;
        }
        return low > 0 && strcmp(run->links[low - 1].location, path) == 0 ?
               run->links[low - 1].target : NULL;
}

/* Where a member named name (normal) lands: its directory followed, its own name not. */
static int land(const DebRun *run, const GuardedRun *through, const char *name, char **ret) {
        return guarded_resolve(run->root_fd, through, name, false, ret);
}

/*
 * Where each symlink member lands, followed through the tree and through
 * (the tree as it is, or with the links already collected). A member
 * whose name cannot be followed is left out here: inspecting it reports it.
 */
static int collect_links(const DebRun *run, const GuardedRun *through, RunLink **ret,
                         size_t *ret_n) {
        RunLink *links = NULL;
        size_t n_links = 0, order = 0;

        for (size_t p = 0; p < run->n_packages; p++)
                for (size_t m = 0; m < run->packages[p].n_members; m++, order++) {
                        const DebEntry *entry = &run->packages[p].members[m];
                        _cleanup_free_ char *name = NULL;
                        char *where = NULL;
                        RunLink *grown;

                        if (entry->type != 'l' || guarded_normalize(entry->name, &name) != 0 ||
                            land(run, through, name, &where) != 0)
                                continue;
                        grown = reallocarray(links, n_links + 1, sizeof(RunLink));
                        if (!grown) {
                                free(where);
                                for (size_t i = 0; i < n_links; i++)
                                        free(links[i].location);
                                free(links);
                                return -ENOMEM;
                        }
                        links = grown;
                        links[n_links++] = (RunLink) {
                                .location = where, .target = entry->target, .order = order,
                        };
                }
        *ret = links;
        *ret_n = n_links;
        return 0;
}

static void sort_links(DebRun *run) {
        if (run->n_links > 1)   /* qsort's base may not be NULL, even for nothing */
                qsort(run->links, run->n_links, sizeof(RunLink), compare_links);
}

int deb_run_seal(DebRun *run) {
        const GuardedRun as_is = {}, with_links = { .link_at = run_link_at, .userdata = run };
        RunLink *more = NULL, *all;
        size_t n_more = 0;
        int r;

        if (run->sealed)
                return 0;
        r = collect_links(run, &as_is, &run->links, &run->n_links);
        if (r < 0)
                return r;
        sort_links(run);
        /* Where they land once the first ones are there: both places count. */
        r = collect_links(run, &with_links, &more, &n_more);
        if (r < 0)
                return r;
        if (n_more > 0) {
                all = reallocarray(run->links, run->n_links + n_more, sizeof(RunLink));
                if (!all) {
                        for (size_t i = 0; i < n_more; i++)
                                free(more[i].location);
                        free(more);
                        return -ENOMEM;
                }
                memcpy(all + run->n_links, more, n_more * sizeof(RunLink));
                run->links = all;
                run->n_links += n_more;
                sort_links(run);
        }
        free(more);
        run->sealed = true;
        return 0;
}

static int found(char **ret, const char *format, ...) _printf_(2, 3);
static int found(char **ret, const char *format, ...) {
        va_list ap;
        int r;

        va_start(ap, format);
        r = vasprintf(ret, format, ap);
        va_end(ap);
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return INSPECT_FOUND;
}

/* Whether root has a directory (not a symlink to one) at path (absolute, resolved). */
static bool is_directory(int root_fd, const char *path) {
        struct stat st;

        return fstatat(root_fd, path[1] ? path + 1 : ".", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               S_ISDIR(st.st_mode);
}

/* Whether path (absolute, normal) is strictly inside one of the guarded directories. */
static bool inside_guarded(const char *path) {
        for (size_t i = 0; guarded_dirs[i]; i++)
                if (strcmp(path, guarded_dirs[i]) == 0)
                        return false;
        return guarded_path(path);
}

/* A hard link member: what it links, as link() resolves it (the last component not followed). */
static int inspect_hard_link(const DebRun *run, const GuardedRun *through, const DebEntry *entry,
                             const char *name, char **ret) {
        _cleanup_free_ char *target = NULL, *where = NULL;
        int r;

        r = guarded_normalize(entry->target, &target);
        if (r == 0)
                r = land(run, through, target, &where);
        if (r == GUARDED_E_DOTDOT || r == GUARDED_E_UNKNOWN)
                return found(ret, "ships the hard link %s to \"%s\", whose \"..\" could lead "
                             "anywhere, the device's MSSF configuration included", name,
                             entry->target);
        if (r < 0)
                return r;
        if (guarded_path(where))
                return found(ret, "ships the hard link %s to %s, which would give it the owner "
                             "and mode of its choice", name, where);
        return 0;
}

/* A symlink member: where it would lead once it is there. */
static int inspect_symlink(const DebRun *run, const GuardedRun *through, const DebEntry *entry,
                           const char *name, const char *where, char **ret) {
        _cleanup_free_ char *from = NULL, *lead = NULL;
        int r;

        if (entry->target[0] == '/')
                from = strdup(entry->target);
        else if (asprintf(&from, "%.*s/%s", (int) (strrchr(where, '/') - where), where,
                          entry->target) < 0)
                from = NULL;
        if (!from)
                return -ENOMEM;
        r = guarded_resolve(run->root_fd, through, from, true, &lead);
        if (r < 0)
                return r;
        if (guarded_reaches(lead))
                return found(ret, "ships the symlink %s -> %s, which leads to %s", name,
                             entry->target, lead);
        return 0;
}

/* One member, followed in the tree through (the tree as it is, or with the run's links). */
static int inspect_member(const DebRun *run, const GuardedRun *through, const DebEntry *entry,
                          char **ret) {
        _cleanup_free_ char *name = NULL, *where = NULL;
        int r;

        r = guarded_normalize(entry->name, &name);
        if (r == 0)
                r = land(run, through, name, &where);
        if (r == GUARDED_E_DOTDOT)
                return found(ret, "ships the member \"%s\", whose \"..\" could lead anywhere, "
                             "the device's MSSF configuration included", entry->name);
        if (r < 0)
                return r;
        if (entry->type == 'd' && inside_guarded(where) && !is_directory(run->root_fd, where))
                return found(ret, "ships the directory %s, which would take the place of what is "
                             "there", where);
        if (entry->type != 'd' && guarded_path(where))
                return strcmp(name, where) == 0 ? found(ret, "ships %s", name) :
                       found(ret, "ships %s, which lands at %s through the symlinks on this "
                             "system or in this run", name, where);
        if (entry->type == 'h')
                return inspect_hard_link(run, through, entry, name, ret);
        if (entry->type == 'l')
                return inspect_symlink(run, through, entry, name, where, ret);
        return 0;
}

int deb_run_inspect(const DebRun *run, size_t index, char **ret_finding) {
        const GuardedRun as_is = {}, with_links = { .link_at = run_link_at, .userdata = (void *) run };
        const DebPackage *package;
        char *finding = NULL;

        if (!run->sealed || index >= run->n_packages)
                return -EINVAL;
        package = &run->packages[index];
        for (size_t m = 0; m < package->n_members; m++) {
                int r = inspect_member(run, &as_is, &package->members[m], &finding);

                if (r == 0)
                        r = inspect_member(run, &with_links, &package->members[m], &finding);
                if (r == INSPECT_FOUND)
                        break;
                if (r != 0)
                        return r;
        }
        *ret_finding = finding;
        return 0;
}
