/*
 * Reading rpm's database: which package installed which file, the digest
 * rpm recorded for each, and which files rpm signs for IMA itself.
 *
 * A manifest's word about a file is believed only where rpm agrees that
 * the file is the package's. rpm writes its database from the package
 * headers it verified, under its transaction lock, and only root changes
 * it; but every name and digest in it still comes from a package, so
 * each is treated as a string to compare, never as something to open or
 * trust for more: paths are compared after canonicalisation through the
 * root (safe-root.c: the merged-/usr aliases), and a name that is not a
 * normal absolute path matches nothing.
 *
 * During a transaction the plugin asks through rpm's own open database
 * (rpm_db_new()); the element being installed speaks for its name with
 * the file list rpm is writing, because the database still holds the
 * version it replaces, or none. mssf-policy opens a read-only view of its
 * own (rpm_db_open()). rpm has no diversions: those fields stay NULL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmfiles.h>
#include <rpm/rpmfileutil.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmpgp.h>
#include <rpm/rpmte.h>
#include <rpm/rpmts.h>

#include "digest.h"
#include "fileio.h"
#include "rpm-db.h"
#include "safe-root.h"

struct RpmDb {
        PackageDb base;                 /* first: an RpmDb is a PackageDb */
        rpmts ts;
        bool own_ts;                    /* rpm_db_open(): ours to free */
        bool empty;                     /* no database in this root: nothing installed */
        rpmte element;                  /* (nullable, not owned) */
};

static const PackageDbOps rpm_ops;

static const RpmDb *rpm_of(const PackageDb *db) {
        return (const RpmDb *) db;
}

int rpm_db_new(rpmts ts, RpmDb **ret) {
        RpmDb *db = calloc(1, sizeof(*db));

        if (!db)
                return -ENOMEM;
        db->base.ops = &rpm_ops;
        db->ts = ts;
        *ret = db;
        return 0;
}

/* Whether root's %_dbpath exists: opening a missing one would create it, or complain. */
static bool database_exists(const char *root) {
        _cleanup_free_ char *dbpath = rpmGetPath("%{_dbpath}", NULL);
        _cleanup_free_ char *path = NULL;

        if (!dbpath || dbpath[0] != '/')
                return false;
        path = fileio_join(root ? root : "/", dbpath + 1);
        return path && access(path, F_OK) == 0;
}

int rpm_db_open(const char *root, RpmDb **ret) {
        static bool configured;
        RpmDb *db;
        int r;

        /* rpm's configuration decides where its database is (%_dbpath). */
        if (!configured) {
                if (rpmReadConfigFiles(NULL, NULL) != 0)
                        return -EIO;
                configured = true;
        }
        r = rpm_db_new(rpmtsCreate(), &db);
        if (r < 0)
                return r;
        db->own_ts = true;
        if (!db->ts || rpmtsSetRootDir(db->ts, root ? root : "/") != 0) {
                rpm_db_free(db);
                return -ENOMEM;
        }
        db->empty = !database_exists(root);
        if (!db->empty && rpmtsOpenDB(db->ts, O_RDONLY) != 0) {
                rpm_db_free(db);
                return -EIO;
        }
        *ret = db;
        return 0;
}

RpmDb *rpm_db_free(RpmDb *db) {
        if (!db)
                return NULL;
        if (db->own_ts && db->ts)
                rpmtsFree(db->ts);
        free(db);
        return NULL;
}

PackageDb *rpm_db_package_db(RpmDb *db) {
        return db ? &db->base : NULL;
}

rpmts rpm_db_ts(const RpmDb *db) {
        return db->ts;
}

void rpm_db_set_element(RpmDb *db, rpmte te) {
        db->element = te;
}

static rpmdbMatchIterator db_iterator(const RpmDb *db, rpmDbiTagVal tag, const char *key) {
        if (db->empty)
                return NULL;
        return rpmtsInitIterator(db->ts, tag, key, 0);
}

static bool is_element(const RpmDb *db, const char *name) {
        return db->element && rpmteType(db->element) == TR_ADDED &&
               strcmp(rpmteN(db->element), name) == 0;
}

static void rpmfilesp(rpmfiles *files) {
        if (*files)
                rpmfilesFree(*files);
}

/* One more path into a NULL-terminated list. */
static int list_add(char ***list, size_t *n, char *path) {
        char **bigger;

        if (!path)
                return -ENOMEM;
        bigger = reallocarray(*list, *n + 2, sizeof(char *));
        if (!bigger) {
                free(path);
                return -ENOMEM;
        }
        *list = bigger;
        bigger[(*n)++] = path;
        bigger[*n] = NULL;
        return 0;
}

static int list_files(rpmfiles files, char ***list, size_t *n) {
        int r = 0;

        for (int i = 0; r >= 0 && files && i < (int) rpmfilesFC(files); i++)
                r = list_add(list, n, rpmfilesFN(files, i));
        return r;
}

static void list_free(char **list, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(list[i]);
        free(list);
}

static int rpm_package_paths(const PackageDb *base, const char *package, char ***ret,
                             size_t *ret_n) {
        const RpmDb *db = rpm_of(base);
        rpmdbMatchIterator mi = NULL;
        char **list = NULL;
        size_t n = 0;
        Header h;
        int r = 0;

        if (is_element(db, package)) {
                _cleanup_(rpmfilesp) rpmfiles files = rpmteFiles(db->element);

                r = list_files(files, &list, &n);
        } else {
                mi = db_iterator(db, RPMDBI_NAME, package);
                while (r >= 0 && mi && (h = rpmdbNextIterator(mi))) {
                        _cleanup_(rpmfilesp) rpmfiles files = rpmfilesNew(NULL, h, RPMTAG_BASENAMES,
                                                                          RPMFI_FLAGS_QUERY);

                        r = list_files(files, &list, &n);
                }
                rpmdbFreeIterator(mi);
        }
        if (r < 0) {
                list_free(list, n);
                return r;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}

/*
 * The names a canonical path may have in rpm's lists: itself, and each
 * merged-/usr alias the root has ("/bin/x" for "/usr/bin/x" where /bin
 * is usr/bin), which a package may still list.
 */
static int path_spellings(const SafeRoot *root, const char *path, char ***ret, size_t *ret_n) {
        static const char *const aliased[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
        char **list = NULL;
        size_t n = 0;
        int r;

        r = list_add(&list, &n, strdup(path));
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(aliased); i++) {
                size_t length = strlen(aliased[i]);
                _cleanup_free_ char *alias = NULL, *canonical = NULL;

                if (strncmp(path, "/usr/", 5) != 0 || strncmp(path + 5, aliased[i], length) != 0 ||
                    path[5 + length] != '/')
                        continue;
                if (asprintf(&alias, "/%s", path + 5) < 0) {
                        r = -ENOMEM;
                        break;
                }
                r = safe_root_canonical(root, alias, &canonical);
                if (r > 0 || (r == 0 && strcmp(canonical, path) != 0)) {
                        r = 0;
                        continue;
                }
                if (r == 0)
                        r = list_add(&list, &n, TAKE_PTR(alias));
        }
        if (r < 0) {
                list_free(list, n);
                return r;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}

/* The first package other than package that rpm's index of installed files names for spelling. */
static int other_owner(const RpmDb *db, const char *package, const char *spelling, char **ret) {
        rpmdbMatchIterator mi = db_iterator(db, RPMDBI_INSTFILENAMES, spelling);
        Header h;
        int r = 0;

        while (mi && !*ret && (h = rpmdbNextIterator(mi))) {
                const char *name = headerGetString(h, RPMTAG_NAME);

                if (name && strcmp(name, package) != 0 && !(*ret = strdup(name)))
                        r = -ENOMEM;
        }
        rpmdbFreeIterator(mi);
        return r;
}

static int rpm_claims(const PackageDb *base, const SafeRoot *root, const char *package,
                      const char *const *paths, size_t n, PackageClaim *claims) {
        const RpmDb *db = rpm_of(base);
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n; i++) {
                char **spellings = NULL;
                size_t n_spellings = 0;

                r = path_spellings(root, paths[i], &spellings, &n_spellings);
                for (size_t s = 0; r >= 0 && s < n_spellings && !claims[i].listed_by; s++)
                        r = other_owner(db, package, spellings[s], &claims[i].listed_by);
                list_free(spellings, n_spellings);
        }
        return r;
}

/*
 * The file list rpm has for package, for its recorded digests and
 * signatures: the element's, else the first installed instance's (NULL
 * when rpm has none).
 */
static rpmfiles package_files(const RpmDb *db, const char *package) {
        rpmdbMatchIterator mi;
        rpmfiles files = NULL;
        Header h;

        if (is_element(db, package))
                return rpmteFiles(db->element);
        mi = db_iterator(db, RPMDBI_NAME, package);
        if (mi && (h = rpmdbNextIterator(mi)))
                files = rpmfilesNew(NULL, h, RPMTAG_BASENAMES, RPMFI_NOHEADER);
        rpmdbFreeIterator(mi);
        return files;
}

/* The index of name (as the package names it, else its canonical path) in files, or -1. */
static int find_file(rpmfiles files, const char *name, const char *path) {
        int ix = rpmfilesFindFN(files, name);

        return ix >= 0 ? ix : rpmfilesFindFN(files, path);
}

/*
 * rpm recorded each file's digest from the package header, which its
 * signature covers. %config files are the administrator's to change and
 * %ghost files have no content in the package: neither has a record that
 * holds, so they get the hash of what is there.
 */
static int rpm_check_contents(const PackageDb *base, const char *package,
                              const char *const *names, const char *const *paths,
                              const FileDigests *digests, size_t n, bool *bad,
                              Diagnostics *diag) {
        _cleanup_(rpmfilesp) rpmfiles files = package_files(rpm_of(base), package);

        for (size_t i = 0; files && i < n; i++) {
                int ix = find_file(files, names[i], paths[i]), algo = 0;
                const unsigned char *recorded;
                const uint8_t *actual;
                size_t size = 0;

                if (ix < 0 || (rpmfilesFFlags(files, ix) & (RPMFILE_CONFIG | RPMFILE_GHOST)))
                        continue;
                recorded = rpmfilesFDigest(files, ix, &algo, &size);
                if (!recorded)
                        continue;
                if (algo == PGPHASHALGO_SHA256 && size == DIGEST_SHA256_SIZE)
                        actual = digests[i].sha256;
                else if (algo == PGPHASHALGO_MD5 && size == DIGEST_MD5_SIZE)
                        actual = digests[i].md5;
                else
                        continue;       /* a digest we do not compute: no record to hold */
                if (memcmp(recorded, actual, size) == 0)
                        continue;
                bad[i] = true;
                diagnostics_add(diag, DIAGNOSTIC_ERROR, paths[i], 0, 0,
                                "%s was changed after rpm installed it (its digest differs from "
                                "package %s's): refusing to record it as the reference for IMA; "
                                "reinstall the package", names[i], package);
        }
        return 0;
}

/* rpm's ima plugin writes the file signature the package carries: that file's security.ima is rpm's. */
static int rpm_ima_managed(const PackageDb *base, const char *package, const char *const *names,
                           const char *const *paths, size_t n, bool *managed) {
        _cleanup_(rpmfilesp) rpmfiles files = package_files(rpm_of(base), package);

        for (size_t i = 0; files && i < n; i++) {
                int ix = find_file(files, names[i], paths[i]);
                size_t size = 0;

                managed[i] = ix >= 0 && rpmfilesFSignature(files, ix, &size) && size > 0;
        }
        return 0;
}

static void rpm_free_db(PackageDb *base) {
        rpm_db_free((RpmDb *) base);
}

static const PackageDbOps rpm_ops = {
        .name = "rpm",
        .package_paths = rpm_package_paths,
        .claims = rpm_claims,
        .check_contents = rpm_check_contents,
        .ima_managed = rpm_ima_managed,
        .free = rpm_free_db,
};

void rpm_installed_clear(RpmInstalled *installed) {
        free(installed->with_manifest);
        *installed = (RpmInstalled) {};
}

/* Whether h lists its own manifest, RPM_AEGIS_DIR NAME.aegis. */
static bool lists_manifest(Header h) {
        const char *name = headerGetString(h, RPMTAG_NAME);
        _cleanup_(rpmfilesp) rpmfiles files = NULL;
        _cleanup_free_ char *path = NULL;

        if (!name || asprintf(&path, RPM_AEGIS_DIR "%s.aegis", name) < 0)
                return false;
        files = rpmfilesNew(NULL, h, RPMTAG_BASENAMES, RPMFI_FLAGS_QUERY);
        return files && rpmfilesFindFN(files, path) >= 0;
}

/* "EVR.ARCH" of h (allocated), or NULL. */
static char *version_of(Header h) {
        _cleanup_free_ char *evr = headerGetAsString(h, RPMTAG_EVR);
        const char *arch = headerGetString(h, RPMTAG_ARCH);
        char *version = NULL;

        if (!evr || asprintf(&version, "%s.%s", evr, arch ? arch : "noarch") < 0)
                return NULL;
        return version;
}

int rpm_db_installed(const RpmDb *db, const char *name, RpmInstalled *ret) {
        rpmdbMatchIterator mi = db_iterator(db, RPMDBI_NAME, name);
        RpmInstalled installed = {};
        Header h;
        int r = 0;

        while (r >= 0 && mi && (h = rpmdbNextIterator(mi))) {
                installed.n++;
                if (!installed.with_manifest && lists_manifest(h) &&
                    !(installed.with_manifest = version_of(h)))
                        r = -ENOMEM;
        }
        rpmdbFreeIterator(mi);
        if (r < 0) {
                rpm_installed_clear(&installed);
                return r;
        }
        *ret = installed;
        return 0;
}

bool rpm_db_has_instance(const RpmDb *db, unsigned int instance) {
        rpmdbMatchIterator mi;
        bool found;

        if (db->empty || instance == 0)
                return false;
        mi = rpmtsInitIterator(db->ts, RPMDBI_PACKAGES, &instance, sizeof(instance));
        found = mi && rpmdbNextIterator(mi);
        rpmdbFreeIterator(mi);
        return found;
}

int rpm_db_with_manifest(const RpmDb *db, char ***ret_names, char ***ret_versions, size_t *ret_n) {
        rpmdbMatchIterator mi = db_iterator(db, RPMDBI_DIRNAMES, RPM_AEGIS_DIR);
        char **names = NULL, **versions = NULL;
        size_t n = 0, n_versions = 0;
        Header h;
        int r = 0;

        while (r >= 0 && mi && (h = rpmdbNextIterator(mi))) {
                const char *name = headerGetString(h, RPMTAG_NAME);

                if (!name || !lists_manifest(h))
                        continue;
                r = list_add(&names, &n, strdup(name));
                if (r >= 0)
                        r = list_add(&versions, &n_versions, version_of(h));
        }
        rpmdbFreeIterator(mi);
        if (r < 0) {
                list_free(names, n);
                list_free(versions, n_versions);
                return r;
        }
        *ret_names = names;
        *ret_versions = versions;
        *ret_n = n;
        return 0;
}
