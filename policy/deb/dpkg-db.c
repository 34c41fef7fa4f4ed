/*
 * Reading dpkg's database: the file lists (info/PACKAGE.list) and the
 * diversions, so that mssf-policy can tell which package a file is.
 *
 * A manifest's word about a file is believed only where dpkg agrees that
 * the file is the package's: dpkg's lists are written by dpkg from the
 * package archives, under dpkg's lock, and only root changes them. Their
 * contents still come from packages, so each line is treated as a name to
 * compare, never as something to open or trust for more: lines are
 * compared after canonicalisation (safe-root.c: the merged-/usr aliases),
 * and a line that is not a normal absolute path matches nothing.
 *
 * dpkg's diversions move a file away from the path its package ships:
 * "from" is where the diverting package's file (or the administrator's,
 * package ":") is, "to" where the diverted package's file went. So the
 * file at "from" is the diverter's, and the file at "to" is the other
 * package's; both are reported, and package-files.c decides.
 *
 * Nothing here is cached between calls: one install asks once.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "dpkg-db.h"
#include "fileio.h"
#include "guarded.h"
#include "safe-root.h"
#include "strmap.h"

struct DpkgDb {
        PackageDb base;                 /* first: a DpkgDb is a PackageDb */
        char *admindir;
};

static const PackageDbOps dpkg_ops;

int dpkg_db_new(const char *admindir, DpkgDb **ret) {
        DpkgDb *db = calloc(1, sizeof(*db));

        if (!db)
                return -ENOMEM;
        db->base.ops = &dpkg_ops;
        db->admindir = strdup(admindir);
        if (!db->admindir) {
                free(db);
                return -ENOMEM;
        }
        *ret = db;
        return 0;
}

int dpkg_db_new_for(const ToolPaths *paths, DpkgDb **ret) {
        _cleanup_free_ char *admindir = NULL;

        if (paths->root)
                admindir = fileio_join(paths->root, "var/lib/dpkg");
        else
                admindir = strdup(getenv("DPKG_ADMINDIR") ?: "/var/lib/dpkg");
        if (!admindir)
                return -ENOMEM;
        return dpkg_db_new(admindir, ret);
}

DpkgDb *dpkg_db_free(DpkgDb *db) {
        if (!db)
                return NULL;
        free(db->admindir);
        free(db);
        return NULL;
}

PackageDb *dpkg_db_package_db(DpkgDb *db) {
        return db ? &db->base : NULL;
}

static const DpkgDb *dpkg_of(const PackageDb *db) {
        return (const DpkgDb *) db;
}

int dpkg_db_info_file(const DpkgDb *db, const char *package, const char *suffix, char **ret) {
        _cleanup_free_ char *plain = NULL, *pattern = NULL;
        glob_t g = {};

        *ret = NULL;
        if (asprintf(&plain, "%s/info/%s.%s", db->admindir, package, suffix) < 0 ||
            asprintf(&pattern, "%s/info/%s:*.%s", db->admindir, package, suffix) < 0)
                return -ENOMEM;
        if (access(plain, F_OK) == 0) {
                *ret = TAKE_PTR(plain);
                return 0;
        }
        if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0) {
                *ret = strdup(g.gl_pathv[0]);
                globfree(&g);
                return *ret ? 0 : -ENOMEM;
        }
        globfree(&g);
        return 0;
}

/* The package a list file is of: "NAME.list" or "NAME:ARCH.list" -> NAME (allocated). */
static char *list_package(const char *file) {
        const char *base = strrchr(file, '/'), *end;

        base = base ? base + 1 : file;
        end = strchr(base, ':');
        if (!end)
                end = base + strlen(base) - strlen(".list");
        return strndup(base, (size_t) (end - base));
}

/* Longer lines name no file (PATH_MAX). */
#define DPKG_DB_LINE_MAX 4096

static void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

/*
 * Call fn for every line of file, read a line at a time: another
 * package's list of any size is read through (one that could not be read
 * would have to stop everyone's install, since it might name the file in
 * question). A line longer than a path can be names no file and is
 * skipped whole.
 */
static int for_each_line(const char *file, int (*fn)(char *line, void *userdata),
                         void *userdata) {
        _cleanup_(fclosep) FILE *f = fopen(file, "re");
        char line[DPKG_DB_LINE_MAX + 2];
        bool skipping = false;
        int r;

        if (!f)
                return errno == ENOENT ? 0 : -errno;
        while (fgets(line, sizeof(line), f)) {
                size_t n = strlen(line);
                bool ends = n > 0 && line[n - 1] == '\n';

                if (skipping) {
                        skipping = !ends;       /* the rest of a long line */
                        continue;
                }
                if (!ends && n == sizeof(line) - 1) {
                        skipping = true;
                        continue;
                }
                if (ends)
                        line[n - 1] = '\0';
                r = fn(line, userdata);
                if (r < 0)
                        return r;
        }
        return ferror(f) ? -EIO : 0;
}

/* The list files, ADMINDIR/info/NAME.list, sorted. */
static int list_files(const DpkgDb *db, glob_t *g) {
        _cleanup_free_ char *pattern = NULL;
        int r;

        if (asprintf(&pattern, "%s/info/*.list", db->admindir) < 0)
                return -ENOMEM;
        r = glob(pattern, 0, NULL, g);
        if (r == GLOB_NOMATCH)
                return 0;
        return r == 0 ? 0 : -EIO;
}

typedef struct PathList {
        char **paths;
        size_t n, allocated;
} PathList;

static int path_list_add(char *line, void *userdata) {
        PathList *list = userdata;

        if (list->n + 1 >= list->allocated) {
                size_t grow = list->allocated ? list->allocated * 2 : 64;
                char **bigger = reallocarray(list->paths, grow, sizeof(char *));

                if (!bigger)
                        return -ENOMEM;
                list->paths = bigger;
                list->allocated = grow;
        }
        list->paths[list->n] = strdup(line);
        if (!list->paths[list->n])
                return -ENOMEM;
        list->paths[++list->n] = NULL;
        return 0;
}

static int dpkg_package_paths(const PackageDb *base, const char *package, char ***ret,
                              size_t *ret_n) {
        const DpkgDb *db = dpkg_of(base);
        PathList list = {};
        glob_t g = {};
        int r;

        r = list_files(db, &g);
        for (size_t i = 0; r >= 0 && i < g.gl_pathc; i++) {
                _cleanup_free_ char *owner = list_package(g.gl_pathv[i]);

                if (!owner) {
                        r = -ENOMEM;
                        break;
                }
                if (strcmp(owner, package) == 0)
                        r = for_each_line(g.gl_pathv[i], path_list_add, &list);
        }
        globfree(&g);
        if (r < 0) {
                for (size_t i = 0; i < list.n; i++)
                        free(list.paths[i]);
                free(list.paths);
                return r;
        }
        *ret = list.paths;
        *ret_n = list.n;
        return 0;
}

typedef struct ClaimScan {
        const SafeRoot *root;
        const char *package;            /* the package asking */
        StrMap index;                   /* canonical path -> claim */
        /* the "from" of a diversion whose "to" is asked about -> that claim */
        StrMap diverted_from;
        char **keys;                    /* (owned) diverted_from's keys */
        size_t n_keys;
        const char *owner;              /* the list being read */
} ClaimScan;

static char *canonical_of(const ClaimScan *scan, const char *name, int *r) {
        char *canonical = NULL;

        *r = safe_root_canonical(scan->root, name, &canonical);
        if (*r > 0)
                *r = 0;                 /* "/.", or a name no file can have: matches nothing */
        return canonical;
}

static PackageClaim *claim_of(const ClaimScan *scan, const StrMap *map, const char *name, int *r) {
        _cleanup_free_ char *canonical = canonical_of(scan, name, r);

        return canonical ? strmap_get(map, canonical) : NULL;
}

static int set_string(char **field, const char *value) {
        if (*field)
                return 0;
        *field = strdup(value);
        return *field ? 0 : -ENOMEM;
}

static int scan_list_line(char *line, void *userdata) {
        ClaimScan *scan = userdata;
        _cleanup_free_ char *canonical = NULL;
        PackageClaim *claim;
        int r;

        canonical = canonical_of(scan, line, &r);
        if (!canonical)
                return r;
        claim = strmap_get(&scan->diverted_from, canonical);
        if (claim && (r = set_string(&claim->diverted_owner, scan->owner)) < 0)
                return r;
        /* The package's own lists only say whose a diverted file is. */
        if (strcmp(scan->owner, scan->package) == 0)
                return 0;
        claim = strmap_get(&scan->index, canonical);
        if (!claim)
                return 0;
        return set_string(&claim->listed_by, scan->owner);
}

/*
 * ADMINDIR/diversions: triplets of lines "from", "to", "package", each
 * given to fn (NUL-terminated in place; a non-zero return stops the walk
 * and is returned). An absent file has none; a last triplet cut short is
 * -EBADMSG.
 */
static int for_each_diversion(const DpkgDb *db,
                              int (*fn)(const char *from, const char *to, const char *by, void *userdata),
                              void *userdata) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        char *lines[3];
        size_t size = 0, n = 0;
        int r;

        if (asprintf(&path, "%s/diversions", db->admindir) < 0)
                return -ENOMEM;
        r = fileio_read(path, &text, &size);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (char *line = text, *end; line < text + size; line = end + 1) {
                end = memchr(line, '\n', (size_t) (text + size - line));
                if (!end)
                        end = text + size;
                *end = '\0';
                lines[n++] = line;
                if (n < 3)
                        continue;
                n = 0;
                r = fn(lines[0], lines[1], lines[2], userdata);
                if (r != 0)
                        return r;
        }
        return n == 0 ? 0 : -EBADMSG;
}

/* One diversion, into the claims of the paths asked about. */
static int scan_diversion(const char *from_path, const char *to_path, const char *by, void *userdata) {
        ClaimScan *scan = userdata;
        PackageClaim *from, *to;
        char *key, **keys;
        int r;

        from = claim_of(scan, &scan->index, from_path, &r);
        if (r < 0)
                return r;
        to = claim_of(scan, &scan->index, to_path, &r);
        if (r < 0)
                return r;
        if (from && ((r = set_string(&from->diverted_by, by)) < 0 ||
                     (r = set_string(&from->diverted_to, to_path)) < 0))
                return r;
        if (!to)
                return 0;
        if ((r = set_string(&to->diverted_by, by)) < 0 ||
            (r = set_string(&to->holds_diverted, from_path)) < 0)
                return r;
        key = canonical_of(scan, from_path, &r);
        if (!key)
                return r;
        keys = reallocarray(scan->keys, scan->n_keys + 1, sizeof(char *));
        if (!keys) {
                free(key);
                return -ENOMEM;
        }
        scan->keys = keys;
        scan->keys[scan->n_keys++] = key;
        return strmap_put(&scan->diverted_from, key, to);
}

static int scan_diversions(const DpkgDb *db, ClaimScan *scan) {
        return for_each_diversion(db, scan_diversion, scan);
}

static int dpkg_claims(const PackageDb *base, const SafeRoot *root, const char *package,
                       const char *const *paths, size_t n, PackageClaim *claims) {
        const DpkgDb *db = dpkg_of(base);
        ClaimScan scan = { .root = root, .package = package };
        glob_t g = {};
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n; i++)
                r = strmap_put(&scan.index, paths[i], &claims[i]);
        /* First the diversions, so the lists can say whose a diverted file is. */
        if (r >= 0 && n > 0)
                r = scan_diversions(db, &scan);
        if (r >= 0)
                r = list_files(db, &g);
        for (size_t i = 0; r >= 0 && n > 0 && i < g.gl_pathc; i++) {
                _cleanup_free_ char *owner = list_package(g.gl_pathv[i]);

                if (!owner) {
                        r = -ENOMEM;
                        break;
                }
                scan.owner = owner;
                r = for_each_line(g.gl_pathv[i], scan_list_line, &scan);
        }
        globfree(&g);
        strmap_deinit(&scan.index);
        strmap_deinit(&scan.diverted_from);
        for (size_t i = 0; i < scan.n_keys; i++)
                free(scan.keys[i]);
        free(scan.keys);
        return r;
}

/* dpkg writes md5sums in lower case: anything else is not its line. */
static int lower_hex(char c) {
        return c >= 'A' && c <= 'F' ? -1 : hex_digit_value(c);
}

/* The file's line of md5sums text ("MD5  path", the path without its '/'), or NULL. */
static const char *md5sums_line(const char *text, size_t size, const char *name, size_t *ret_line) {
        size_t length = strlen(name + 1), line_no = 0;

        for (const char *line = text, *end; line < text + size; line = end + 1) {
                line_no++;
                end = memchr(line, '\n', (size_t) (text + size - line));
                if (!end)
                        end = text + size;
                if ((size_t) (end - line) == 34 + length && memcmp(line + 34, name + 1, length) == 0) {
                        *ret_line = line_no;
                        return line;
                }
        }
        return NULL;
}

/* Every line of md5sums text is "MD5  path": 0, or the first bad line's number. */
static size_t md5sums_bad_line(const char *text, size_t size) {
        size_t line_no = 0;

        for (const char *line = text, *end; line < text + size; line = end + 1) {
                line_no++;
                end = memchr(line, '\n', (size_t) (text + size - line));
                if (!end)
                        end = text + size;
                if (end - line < 2 * DIGEST_MD5_SIZE + 2 || line[32] != ' ' || line[33] != ' ')
                        return line_no;
                for (size_t i = 0; i < 2 * DIGEST_MD5_SIZE; i++)
                        if (lower_hex(line[i]) < 0)
                                return line_no;
        }
        return 0;
}

/*
 * dpkg recorded each file's MD5 from the package archive
 * (info/PACKAGE.md5sums, which apt's signature chain vouches for); a file
 * without a line (a conffile, a package without md5sums) has no record.
 */
static int dpkg_check_contents(const PackageDb *base, const char *package,
                               const char *const *names, const char *const *paths,
                               const FileDigests *digests, size_t n, bool *bad,
                               Diagnostics *diag) {
        _cleanup_free_ char *md5sums = NULL, *text = NULL;
        size_t size = 0, bad_line;
        int r;

        r = dpkg_db_info_file(dpkg_of(base), package, "md5sums", &md5sums);
        if (r < 0 || !md5sums)
                return r;
        r = fileio_read(md5sums, &text, &size);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        bad_line = md5sums_bad_line(text, size);
        if (bad_line) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, md5sums, (unsigned) bad_line, 1,
                                "not a dpkg md5sums line (\"MD5  path\", 32 lower-case hex "
                                "digits)");
                for (size_t i = 0; i < n; i++)
                        bad[i] = true;
                return 0;
        }
        for (size_t i = 0; i < n; i++) {
                uint8_t listed[DIGEST_MD5_SIZE];
                size_t line_no = 0;
                const char *line = md5sums_line(text, size, names[i], &line_no);

                if (!line)
                        line = md5sums_line(text, size, paths[i], &line_no);
                if (!line)
                        continue;
                for (size_t b = 0; b < DIGEST_MD5_SIZE; b++)
                        listed[b] = (uint8_t) (lower_hex(line[2 * b]) << 4 | lower_hex(line[2 * b + 1]));
                if (memcmp(listed, digests[i].md5, DIGEST_MD5_SIZE) == 0)
                        continue;
                bad[i] = true;
                diagnostics_add(diag, DIAGNOSTIC_ERROR, md5sums, (unsigned) line_no, 35,
                                "%s was changed after dpkg unpacked it (its MD5 differs from the "
                                "package's): refusing to record it as the reference for IMA; "
                                "reinstall the package", names[i]);
        }
        return 0;
}

/* ---- the device's configuration ------------------------------------------ */

typedef struct Diversion {
        char *from, *to, *by;
} Diversion;

typedef struct GuardScan {
        int root_fd;
        const char *lister;             /* whose list is read */
        StrMap diverted;                /* "from" -> its Diversion */
        Diversion *diversions;
        size_t n_diversions;
        char *dir, *dir_resolved;       /* the last directory resolved, which the next line likely shares */
        DpkgGuardedFile *files;
        size_t n_files;
        char *failed;                   /* (nullable) the line that could not be resolved */
} GuardScan;

static void guard_scan_clear(GuardScan *scan) {
        for (size_t i = 0; i < scan->n_diversions; i++) {
                free(scan->diversions[i].from);
                free(scan->diversions[i].to);
                free(scan->diversions[i].by);
        }
        free(scan->diversions);
        strmap_deinit(&scan->diverted);
        free(scan->dir);
        free(scan->dir_resolved);
}

void dpkg_guarded_files_free(DpkgGuardedFile *files, size_t n) {
        for (size_t i = 0; files && i < n; i++) {
                free(files[i].path);
                free(files[i].owner);
                free(files[i].listed);
                free(files[i].lister);
        }
        free(files);
}

static int keep_diversion(const char *from, const char *to, const char *by, void *userdata) {
        GuardScan *scan = userdata;
        Diversion *grown = reallocarray(scan->diversions, scan->n_diversions + 1, sizeof(Diversion));

        if (!grown)
                return -ENOMEM;
        scan->diversions = grown;
        grown[scan->n_diversions++] = (Diversion) { .from = strdup(from), .to = strdup(to), .by = strdup(by) };
        return grown[scan->n_diversions - 1].from && grown[scan->n_diversions - 1].to &&
               grown[scan->n_diversions - 1].by ? 0 : -ENOMEM;
}

/* ADMINDIR/diversions kept, "from" indexed. */
static int read_diversions(const DpkgDb *db, GuardScan *scan) {
        int r = for_each_diversion(db, keep_diversion, scan);

        if (r != 0)
                return r;
        /* The array is complete: its strings stay where they are as keys. */
        for (size_t i = 0; i < scan->n_diversions; i++) {
                r = strmap_put(&scan->diverted, scan->diversions[i].from, &scan->diversions[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/*
 * Where path is in the root: its directory resolved (cached for the next
 * line), its name as it is. 0 and *ret, GUARDED_E_UNKNOWN, or -errno.
 */
static int locate(GuardScan *scan, const char *path, char **ret) {
        _cleanup_free_ char *normal = NULL;
        const char *slash = strrchr(path, '/');
        int r;

        r = guarded_normalize(path, &normal);
        if (r != 0 || strcmp(normal, path) != 0 || strcmp(path, "/") == 0)
                return r < 0 ? r : guarded_resolve(scan->root_fd, NULL, path, false, ret);
        if (!scan->dir || strlen(scan->dir) != (size_t) (slash - path) ||
            strncmp(scan->dir, path, (size_t) (slash - path)) != 0) {
                free(scan->dir);
                scan->dir = strndup(path, (size_t) (slash - path));
                free(scan->dir_resolved);
                scan->dir_resolved = NULL;
                if (!scan->dir)
                        return -ENOMEM;
                r = guarded_resolve(scan->root_fd, NULL, scan->dir[0] ? scan->dir : "/", true,
                                    &scan->dir_resolved);
                if (r != 0) {
                        free(scan->dir);
                        scan->dir = NULL;
                        return r;
                }
        }
        if (asprintf(ret, "%s%s", strcmp(scan->dir_resolved, "/") == 0 ? "" : scan->dir_resolved,
                     slash) < 0)
                return -ENOMEM;
        return 0;
}

static int scan_guarded_line(char *line, void *userdata) {
        GuardScan *scan = userdata;
        const Diversion *diversion = strmap_get(&scan->diverted, line);
        const char *owner = scan->lister, *at = line;
        _cleanup_free_ char *where = NULL;
        DpkgGuardedFile *grown;
        struct stat st;
        int r;

        if (line[0] != '/')
                return 0;               /* dpkg writes absolute paths: this names no file */
        if (diversion && strcmp(diversion->by, scan->lister) != 0) {
                if (strcmp(diversion->by, ":") == 0)
                        return 0;       /* the administrator's */
                owner = diversion->by;
                at = diversion->to;
        }
        r = locate(scan, at, &where);
        if (r < 0) {
                scan->failed = strdup(line);
                return r;
        }
        if (r == GUARDED_E_UNKNOWN)
                return 0;       /* a ".." past a missing directory: the kernel finds no file there */
        if (!guarded_path(where))
                return 0;
        if (fstatat(scan->root_fd, where + 1, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        if (S_ISDIR(st.st_mode))
                return 0;
        grown = reallocarray(scan->files, scan->n_files + 1, sizeof(DpkgGuardedFile));
        if (!grown)
                return -ENOMEM;
        scan->files = grown;
        grown[scan->n_files] = (DpkgGuardedFile) {
                .path = TAKE_PTR(where), .owner = strdup(owner), .listed = strdup(line),
                .lister = strdup(scan->lister),
        };
        scan->n_files++;
        return grown[scan->n_files - 1].owner && grown[scan->n_files - 1].listed &&
               grown[scan->n_files - 1].lister ? 0 : -ENOMEM;
}

int dpkg_db_guarded_files(const DpkgDb *db, int root_fd, DpkgGuardedFile **ret, size_t *ret_n,
                          char **ret_error) {
        GuardScan scan = { .root_fd = root_fd };
        glob_t g = {};
        int r;

        if (ret_error)
                *ret_error = NULL;
        r = read_diversions(db, &scan);
        if (r >= 0)
                r = list_files(db, &g);
        for (size_t i = 0; r >= 0 && i < g.gl_pathc; i++) {
                _cleanup_free_ char *lister = list_package(g.gl_pathv[i]);

                if (!lister) {
                        r = -ENOMEM;
                        break;
                }
                scan.lister = lister;
                r = for_each_line(g.gl_pathv[i], scan_guarded_line, &scan);
                if (r < 0 && scan.failed && ret_error &&
                    asprintf(ret_error, "%s, line %s", g.gl_pathv[i], scan.failed) < 0)
                        *ret_error = NULL;
        }
        globfree(&g);
        free(scan.failed);
        guard_scan_clear(&scan);
        if (r < 0) {
                dpkg_guarded_files_free(scan.files, scan.n_files);
                return r;
        }
        *ret = scan.files;
        *ret_n = scan.n_files;
        return 0;
}

static void dpkg_free(PackageDb *base) {
        dpkg_db_free((DpkgDb *) base);
}

static const PackageDbOps dpkg_ops = {
        .name = "dpkg",
        .package_paths = dpkg_package_paths,
        .claims = dpkg_claims,
        .check_contents = dpkg_check_contents,
        .free = dpkg_free,
};
