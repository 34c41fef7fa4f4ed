/*
 * mssf.so, rpm's transaction plugin: MSSF manifests registered as rpm
 * installs, upgrades and erases packages (docs/packaging-rpm.md).
 *
 * A thin layer: what a registration is, and how it is checked, applied
 * all or nothing and journalled, is policy/install's, as for dpkg; this
 * file only decides when, from rpm's hooks, which carry no goal and run
 * more than once per element (pretrans, install or erase, file
 * triggers, posttrans). So each element is acted on once, by state, not
 * by counting calls:
 *
 *  - psm_pre: a package that ships files where only mssf-policy writes
 *    (/var/lib/mssf), another package's manifest, or its own manifest as
 *    anything but one plain regular file of at most 1 MiB is refused
 *    before rpm writes a file. Erasing a package rpm registered is noted
 *    in the record first.
 *  - fsm_file_prepare, at the manifest (RPM_AEGIS_DIR NAME.aegis): read
 *    through the descriptor rpm wrote it by (the very inode), its origin
 *    decided from the key that signed the package (rpm-signer.c), and
 *    everything that can refuse it checked (rpm_register_check()). A
 *    refusal fails the element: rpm removes what it wrote, its database
 *    is unchanged, the other packages go on. After the manifest, each of
 *    its binaries gets security.SMACK64EXEC through its descriptor
 *    before rpm renames it into place; the payload is in path order, so
 *    most binaries (/usr/bin < /usr/share) come before the manifest and
 *    are labelled with the rest at psm_post.
 *  - psm_post of an element whose manifest was checked, rpm having
 *    succeeded: the registration (rpm_register()), labels, rules, kernel
 *    rules and reference hashes; policy.db waits. Only the install goal
 *    writes files, so only its psm_post finds a checked manifest.
 *  - psm_post of an erased element, once rpm's database no longer holds
 *    its instance: unregister, unless another instance of the name that
 *    ships a manifest stays (an upgrade: the new version registered
 *    before its old one is erased; rpm fails the old one's erase when
 *    the new one fails).
 *  - tsm_post: policy.db compiled once and the bus asked to reload,
 *    without waiting for it more than a moment. rpm has committed by
 *    then: a failure cannot fail rpm; it prints one line and leaves the
 *    record, which the next transaction or `mssf-policy rpm recover`
 *    finishes (rpm-recover.c), as after a crash.
 *  - tsm_pre: first, whatever a killed transaction left is finished.
 *
 * rpm calls tsm hooks outside `rpm --root`'s chroot and psm and fsm
 * hooks inside it, so there are two sets of paths: outside, under
 * rpmtsRootDir(); inside, as the package sees them. With a root other
 * than "/" (an image being built) or without smackfs, the kernel's rules
 * are left alone and the bus is not told. --test changes nothing. The
 * environment of whoever runs rpm or dnf is not read.
 *
 * Trust: as policy/install (a package's manifest, files and scriptlets
 * are its own word), plus rpm's verified header (its file list, its
 * signatures) and database, and the device maker's rpm-origins.conf. A
 * scriptlet runs as root and is not defended against (the threat model
 * in docs/packaging-rpm.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <rpm/rpmfiles.h>
#include <rpm/rpmte.h>
#include <rpm/rpmts.h>

#include "bus-reload.h"
#include "context.h"
#include "fileio.h"
#include "guarded.h"
#include "install-plan.h"
#include "install.h"
#include "installed.h"
#include "manifest.h"
#include "registration.h"
#include "rpm-db.h"
#include "rpm-hooks.h"
#include "rpm-origins.h"
#include "rpm-record.h"
#include "rpm-recover.h"
#include "rpm-register.h"
#include "rpm-signer.h"
#include "safe-root.h"
#include "smack-setup.h"

/* How long tsm_post lets the bus take to answer ReloadConfig. */
#define PLUGIN_BUS_TIMEOUT_USEC (2u * 1000000u)

#ifdef MSSF_RPM_FAULTS
/*
 * Test builds only (tests/rpm, never installed): MSSF_RPM_FAULT=POINT
 * kills rpm with SIGKILL at that point, as a power cut would.
 */
static void fault(const char *point) {
        const char *wanted = getenv("MSSF_RPM_FAULT");

        if (wanted && strcmp(wanted, point) == 0)
                raise(SIGKILL);
}
#else
#define fault(point) do {} while (0)
#endif

typedef enum ElementState {
        ELEMENT_SEEN,                   /* nothing done yet */
        ELEMENT_CHECKED,                /* its manifest passed: registered at its psm_post */
        ELEMENT_DONE,                   /* acted on, or nothing to do: never again */
} ElementState;

typedef struct Element {
        rpmte te;                       /* (not owned) rpm's element: its identity */
        bool added;
        ElementState state;
        bool signer_known;
        RpmSigner signer;               /* (signer_known) what its signature says */
        RpmPackage package;             /* (checked) */
        RpmStrings targets;             /* (checked) its binaries, canonical */
        RpmStrings labelled;            /* those labelled through their descriptor */
        RpmStrings said;                /* the lines already printed about it, not said twice */
        bool findings_wait;             /* judged findings about its manifest left to tsm_post */
} Element;

typedef struct Plugin {
        bool active;                    /* a transaction that changes things (not --test) */
        rpmts ts;
        char *root;                     /* (nullable) rpmtsRootDir() when not "/" */
        ToolPaths outside;              /* under the root: tsm hooks */
        ToolPaths inside;               /* in rpm's chroot: psm and fsm hooks */
        bool reload_bus;
        RpmDb *db;
        RpmOrigins *origins;
        RpmKeyring *keyring;
        RpmRecord *record;              /* (nullable) as written */
        Element **elements;
        size_t n_elements;
        Element *current;               /* (nullable) between its psm_pre and psm_post */
        bool changed;                   /* a registration changed: policy.db is behind */
} Plugin;

static void element_free(Element *e) {
        if (!e)
                return;
        rpm_package_clear(&e->package);
        rpm_strings_clear(&e->targets);
        rpm_strings_clear(&e->labelled);
        rpm_strings_clear(&e->said);
        free(e);
}

/* What one transaction held; the plugin itself stays for the next. */
static void plugin_reset(Plugin *p) {
        for (size_t i = 0; i < p->n_elements; i++)
                element_free(p->elements[i]);
        free(p->elements);
        tool_paths_deinit(&p->outside);
        tool_paths_deinit(&p->inside);
        rpm_db_free(p->db);
        rpm_origins_free(p->origins);
        rpm_keyring_free(p->keyring);
        rpm_record_free(p->record);
        free(p->root);
        *p = (Plugin) {};
}

static Element *element_get(Plugin *p, rpmte te) {
        Element **elements, *e;

        for (size_t i = 0; i < p->n_elements; i++)
                if (p->elements[i]->te == te)
                        return p->elements[i];
        elements = reallocarray(p->elements, p->n_elements + 1, sizeof(Element *));
        if (!elements)
                return NULL;
        p->elements = elements;
        e = calloc(1, sizeof(*e));
        if (!e)
                return NULL;
        *e = (Element) { .te = te, .added = rpmteType(te) == TR_ADDED };
        elements[p->n_elements++] = e;
        return e;
}

/* A run's context: paths in or outside the chroot, fresh diagnostics. */
static int context_init(ToolContext *c, ToolPaths *paths, PackageDb *db) {
        *c = (ToolContext) {
                .paths = *paths,
                .out = stdout,
                .err = stderr,
                .defer_policy_db = true,
                .package_db = db,
        };
        return diagnostics_new(&c->diag);
}

/* What the paths part of a run changed (the lock's cache flag) goes back. */
static void context_done(ToolContext *c, ToolPaths *paths) {
        paths->write_cache = c->paths.write_cache;
        c->diag = diagnostics_free(c->diag);
}

/*
 * Errors, and the warnings of focus (nullable) or of no file: another
 * package's are not this one's. A line said (nullable) already holds is
 * not said again (what the check said, when the registration says it too).
 * Findings judged against the other packages (Diagnostic.judged: a token
 * no installed package provides yet) may stop being true before the
 * transaction ends, when a later element brings the provider: with
 * wait (nullable) they are not said but *wait is set, for tsm_post to
 * judge them again (print_waiting()), as dpkg's trigger does.
 */
static void print_diagnostics_waiting(const Diagnostics *diag, const char *focus, RpmStrings *said,
                                      bool *wait) {
        for (size_t i = 0; diag && i < diag->n_items; i++) {
                const Diagnostic *d = diag->items[i];
                _cleanup_free_ char *line = NULL;

                if (d->severity != DIAGNOSTIC_ERROR && d->file && (!focus || strcmp(d->file, focus) != 0))
                        continue;
                if (wait && d->severity != DIAGNOSTIC_ERROR && d->judged) {
                        *wait = true;
                        continue;
                }
                if (diagnostic_format(d, &line) < 0 || (said && rpm_strings_has(said, line)))
                        continue;
                fprintf(stderr, "%s\n", line);
                if (said)
                        (void) rpm_strings_add(said, line);
        }
        fflush(stderr);
}

static void print_diagnostics(const Diagnostics *diag, const char *focus, RpmStrings *said) {
        print_diagnostics_waiting(diag, focus, said, NULL);
}

static void print_error(int r, const char *what) {
        if (r < 0)
                fprintf(stderr, "mssf-policy: %s: %s\n", what, strerror(-r));
        fflush(stderr);
}

/* The transaction's record, begun (with rpm's temporary names' suffix) when first needed. */
static int record_get(Plugin *p, RpmRecord **ret) {
        int r;

        if (!p->record) {
                r = rpm_record_new(&p->record);
                if (r < 0)
                        return r;
                if (asprintf(&p->record->suffix, ";%08x", (unsigned) rpmtsGetTid(p->ts)) < 0)
                        return -ENOMEM;
        }
        *ret = p->record;
        return 0;
}

static int record_save(Plugin *p, const ToolPaths *paths) {
        RpmRecord *record;
        int r = record_get(p, &record);

        return r < 0 ? r : rpm_record_write(paths, record);
}

/* ---- tsm_pre ---------------------------------------------------------- */

static int paths_init(Plugin *p) {
        const char *root = rpmtsRootDir(p->ts);
        size_t length = root ? strlen(root) : 0;
        ToolPathOptions outside = { .ignore_environment = true };
        ToolPathOptions inside = { .ignore_environment = true, .no_reload = true };
        int r;

        while (length > 1 && root[length - 1] == '/')
                length--;
        if (root && !(length == 1 && root[0] == '/')) {
                p->root = strndup(root, length);
                if (!p->root)
                        return -ENOMEM;
                outside.root = p->root;
                inside.no_kernel = true;
        }
        r = tool_paths_init(&p->outside, &outside);
        if (r < 0)
                return r;
        r = tool_paths_init(&p->inside, &inside);
        if (r < 0)
                return r;
        /* Inside an image's chroot the run is still an image build's: no kernel, no notes about it. */
        if (p->root && !(p->inside.root = strdup("/")))
                return -ENOMEM;
        /* The bus is told only by the plugin itself, and never in an image. */
        p->reload_bus = p->outside.reload_bus && p->outside.smackfs;
        p->outside.reload_bus = false;
        return 0;
}

static int origins_load(Plugin *p) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_free_ char *path = fileio_join(p->root ? p->root : "/", "etc/mssf/rpm-origins.conf");
        int r;

        if (!path || diagnostics_new(&diag) < 0)
                return -ENOMEM;
        r = rpm_origins_load(path, diag, &p->origins);
        print_diagnostics(diag, NULL, NULL);
        if (r == RPM_ORIGINS_E_INVALID)
                fprintf(stderr, "mssf-policy: %s does not parse: no package is installed or "
                        "erased until it does\n", path);
        return r;
}

static void tell_bus(Plugin *p) {
        _cleanup_free_ char *message = NULL;
        int r;

        if (!p->reload_bus)
                return;
        r = bus_reload_within(PLUGIN_BUS_TIMEOUT_USEC, &message);
        if (r == BUS_RELOAD_E_TIMEOUT)
                fprintf(stderr, "mssf-policy: warning: the system bus did not answer within %u s; "
                        "it reads the new policy when it reloads (or run 'mssf-policy "
                        "compile')\n", PLUGIN_BUS_TIMEOUT_USEC / 1000000u);
        else if (r < 0)
                fprintf(stderr, "mssf-policy: warning: the system bus did not reload (%s%s%s); "
                        "the new policy is installed: run 'mssf-policy compile' or restart the "
                        "bus\n", strerror(-r), message ? ": " : "", message ? message : "");
}

/* Whatever a killed transaction left: its journal and its record. */
static void recover(Plugin *p) {
        ToolContext c;
        bool written = false;
        int r;

        if (context_init(&c, &p->outside, rpm_db_package_db(p->db)) < 0)
                return;
        r = rpm_recover(&c, p->db, &written);
        print_diagnostics(c.diag, NULL, NULL);
        print_error(r, "finishing an interrupted rpm transaction");
        context_done(&c, &p->outside);
        if (r == 0 && written)
                tell_bus(p);
}

static rpmRC mssf_tsm_pre(rpmPlugin plugin, rpmts ts) {
        Plugin *p = rpmPluginGetData(plugin);
        int r;

        plugin_reset(p);
        if (rpmtsFlags(ts) & RPMTRANS_FLAG_TEST)
                return RPMRC_OK;
        p->active = true;
        p->ts = ts;
        r = paths_init(p);
        if (r == 0)
                r = rpm_db_new(ts, &p->db);
        if (r == 0)
                r = origins_load(p);
        if (r == 0)
                r = rpm_keyring_load(ts, &p->keyring);
        if (r != 0) {
                print_error(r, "cannot start");
                plugin_reset(p);
                return RPMRC_FAIL;
        }
        recover(p);
        fault("tsm_pre");
        return RPMRC_OK;
}

/* ---- psm_pre: what the header alone refuses ------------------------------ */

_printf_(3, 4)
static rpmRC refuse_package(Element *e, const char *file, const char *format, ...) {
        va_list ap;

        fprintf(stderr, "%s: error: ", file);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputc('\n', stderr);
        fflush(stderr);
        e->state = ELEMENT_DONE;
        return RPMRC_FAIL;
}

static bool under(const char *path, const char *dir) {
        size_t length = strlen(dir);

        return strncmp(path, dir, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

static void rpmfilesp(rpmfiles *files) {
        if (*files)
                rpmfilesFree(*files);
}

static rpmRC check_header(Element *e) {
        _cleanup_(rpmfilesp) rpmfiles files = rpmteFiles(e->te);
        _cleanup_free_ char *manifest = NULL;
        const char *name = rpmteN(e->te);

        if (asprintf(&manifest, RPM_AEGIS_DIR "%s.aegis", name) < 0)
                return RPMRC_FAIL;
        for (int i = 0; files && i < (int) rpmfilesFC(files); i++) {
                _cleanup_free_ char *path = rpmfilesFN(files, i);
                rpm_mode_t mode = rpmfilesFMode(files, i);

                if (!path)
                        return RPMRC_FAIL;
                if (under(path, "/var/lib/mssf") && !S_ISDIR(mode))
                        return refuse_package(e, path, "package %s ships a file in mssf-policy's "
                                              "own state (/var/lib/mssf), which only "
                                              "mssf-policy writes", name);
                if (strncmp(path, RPM_AEGIS_DIR, strlen(RPM_AEGIS_DIR)) == 0 &&
                    strcmp(path, manifest) != 0)
                        return refuse_package(e, path, "package %s ships a file in "
                                              RPM_AEGIS_DIR " other than its own manifest "
                                              "(%s.aegis): each package ships its own there",
                                              name, name);
                if (strcmp(path, manifest) != 0)
                        continue;
                if (!manifest_valid_package_label(name))
                        return refuse_package(e, path, "\"%s\" is not a package name mssf-policy "
                                              "can register (it becomes a Smack label)", name);
                if (!S_ISREG(mode) || rpmfilesFNlink(files, i) != 1 ||
                    (rpmfilesFFlags(files, i) & (RPMFILE_GHOST | RPMFILE_CONFIG)))
                        return refuse_package(e, path, "package %s's manifest is not a plain "
                                              "file of the package (a regular file, not a link "
                                              "or a directory, not %%config or %%ghost)", name);
                if (rpmfilesFSize(files, i) > MANIFEST_MAX_FILE_SIZE)
                        return refuse_package(e, path, "package %s's manifest is larger than "
                                              "1 MiB", name);
        }
        return RPMRC_OK;
}

/* Erasing a package rpm registered: noted before rpm removes anything. */
static rpmRC note_erase(Plugin *p, Element *e) {
        RpmRecord *record;
        Registration reg = {};
        const char *name = rpmteN(e->te);
        bool noted = false;
        int r;

        for (size_t i = 0; p->record && i < p->record->n_entries; i++)
                noted = noted || (p->record->entries[i].kind == RPM_RECORD_ERASE &&
                                  strcmp(p->record->entries[i].name, name) == 0);
        if (noted || installed_read_registration(&p->inside, name, &reg) < 0)
                return RPMRC_OK;
        r = registration_from_rpm(&reg) ? 0 : 1;
        registration_clear(&reg);
        if (r != 0)
                return RPMRC_OK;
        r = record_get(p, &record);
        if (r >= 0)
                r = rpm_record_add(record, RPM_RECORD_ERASE, name, NULL, NULL, NULL, NULL, NULL);
        if (r >= 0)
                r = record_save(p, &p->inside);
        print_error(r, "cannot write the record of this transaction");
        return r < 0 ? RPMRC_FAIL : RPMRC_OK;
}

static rpmRC mssf_psm_pre(rpmPlugin plugin, rpmte te) {
        Plugin *p = rpmPluginGetData(plugin);
        Element *e;
        rpmRC rc = RPMRC_OK;

        if (!p->active)
                return RPMRC_OK;
        e = element_get(p, te);
        if (!e)
                return RPMRC_FAIL;
        p->current = e;
        if (e->state != ELEMENT_SEEN)
                return RPMRC_OK;
        rc = e->added ? check_header(e) : note_erase(p, e);
        fault("psm_pre");
        return rc;
}

/* ---- fsm_file_prepare: the manifest, then its binaries ------------------ */

/*
 * The manifest rpm has just written, through fd: rpm opened it write-only,
 * so it is read through a descriptor of its own for path, opened without
 * following a link, and only if that is the very inode fd is.
 */
static int read_manifest(Element *e, int fd, const char *path, const char *dest) {
        _cleanup_close_ int own = -1;
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        RpmPackage *package = &e->package;
        struct stat st, st_own;
        const char *why;
        size_t size = 0;
        int r, reader = fd;

        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                refuse_package(e, dest, "package %s's manifest is not a regular file",
                               rpmteN(e->te));
                return 1;
        }
        if (st.st_size > MANIFEST_MAX_FILE_SIZE) {
                refuse_package(e, dest, "package %s's manifest is larger than 1 MiB",
                               rpmteN(e->te));
                return 1;
        }
        if ((fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY) {
                r = safe_root_new("", &root);
                if (r == 0)
                        r = safe_root_open(root, path, &own, &st_own);
                if (r < 0)
                        return r;
                if (r > 0 || !safe_root_same_file(&st, &st_own)) {
                        refuse_package(e, dest, "package %s's manifest changed while rpm wrote "
                                       "it", rpmteN(e->te));
                        return 1;
                }
                reader = own;
        }
        r = fileio_read_regular_fd(reader, MANIFEST_MAX_FILE_SIZE, &package->manifest, &size, &why);
        if (r > 0) {
                refuse_package(e, dest, "package %s's manifest cannot be read (%s)", rpmteN(e->te), why);
                return 1;
        }
        if (r < 0)
                return r;
        package->manifest_size = size;
        return digest_sha256_hex(package->manifest, size, package->manifest_sha256);
}

/* Decided once, when rpm has verified the element (never before its install goal: pretrans). */
static const RpmSigner *element_signer(Plugin *p, Element *e) {
        if (!e->signer_known) {
                e->signer = rpm_signer_decide(p->ts, e->te, p->keyring, p->origins);
                e->signer_known = true;
        }
        return &e->signer;
}

static int package_init(Plugin *p, Element *e, const char *dest) {
        RpmPackage *package = &e->package;
        RpmSigner signer = *element_signer(p, e);

        package->name = strdup(rpmteN(e->te));
        package->evr = strdup(rpmteEVR(e->te));
        package->arch = strdup(rpmteA(e->te) ? rpmteA(e->te) : "noarch");
        package->manifest_path = strdup(dest);
        if (!package->name || !package->evr || !package->arch || !package->manifest_path)
                return -ENOMEM;
        if (signer.origin && !(package->origin = strdup(signer.origin)))
                return -ENOMEM;
        if (signer.key[0] && !(package->key = strdup(signer.key)))
                return -ENOMEM;
        package->why_unknown = signer.why_unknown;
        return 0;
}

static rpmRC on_manifest(Plugin *p, Element *e, int fd, const char *path, const char *dest) {
        _cleanup_(rpmfilesp) rpmfiles files = rpmteFiles(e->te);
        _cleanup_free_ char *version = NULL;
        RpmRecord *record;
        ToolContext c;
        int r;

        r = read_manifest(e, fd, path, dest);
        if (r > 0)
                return RPMRC_FAIL;
        if (r == 0)
                r = package_init(p, e, dest);
        if (r == 0)
                r = context_init(&c, &p->inside, rpm_db_package_db(p->db));
        if (r < 0) {
                print_error(r, "cannot read the manifest");
                return RPMRC_FAIL;
        }
        rpm_db_set_element(p->db, e->te);
        r = rpm_register_check(&c, &e->package, files, &e->targets);
        rpm_db_set_element(p->db, NULL);
        /* A refused manifest is not judged again: all is said now. */
        print_diagnostics_waiting(c.diag, dest, &e->said, r == 0 ? &e->findings_wait : NULL);
        print_error(r, "cannot check the manifest");
        context_done(&c, &p->inside);
        if (r != 0) {
                e->state = ELEMENT_DONE;
                return RPMRC_FAIL;
        }
        /* Before any label: what a crash from here on leaves is in the record. */
        version = rpm_package_version(&e->package);
        r = version ? record_get(p, &record) : -ENOMEM;
        if (r == 0)
                r = rpm_record_add(record, RPM_RECORD_INSTALL, e->package.name, version,
                                   e->package.manifest_sha256, e->package.origin,
                                   e->package.key, NULL);
        if (r == 0)
                r = record_save(p, &p->inside);
        if (r < 0) {
                print_error(r, "cannot write the record of this transaction");
                e->state = ELEMENT_DONE;
                return RPMRC_FAIL;
        }
        e->state = ELEMENT_CHECKED;
        fault("fsm_manifest");
        return RPMRC_OK;
}

/* One of the manifest's binaries, written after it: labelled before rpm renames it. */
static rpmRC label_by_descriptor(Plugin *p, Element *e, int fd, const char *dest) {
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;
        _cleanup_free_ char *canonical = NULL;
        const char *name = e->package.name;
        struct stat st;
        int r;

        r = safe_root_new("", &root);
        if (r == 0)
                r = safe_root_canonical(root, dest, &canonical);
        if (r != 0 || !rpm_strings_has(&e->targets, canonical) ||
            rpm_strings_has(&e->labelled, canonical))
                return r < 0 ? RPMRC_FAIL : RPMRC_OK;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return RPMRC_OK;        /* not what the header said: psm_post judges it on disk */
        r = rpm_record_add(p->record, RPM_RECORD_LABEL, name, NULL, NULL, NULL, NULL, canonical);
        if (r == 0)
                r = record_save(p, &p->inside);
        if (r == 0 && fsetxattr(fd, SMACK_XATTR_EXEC, name, strlen(name), 0) < 0)
                r = -errno;
        if (r < 0) {
                fprintf(stderr, "%s: error: cannot label package %s's binary through its "
                        "descriptor: %s\n", dest, name, strerror(-r));
                return RPMRC_FAIL;
        }
        r = rpm_strings_add(&e->labelled, canonical);
        fault("fsm_label");
        return r < 0 ? RPMRC_FAIL : RPMRC_OK;
}

static rpmRC mssf_fsm_file_prepare(rpmPlugin plugin, rpmfi fi, int fd, const char *path,
                                   const char *dest, mode_t file_mode, rpmFsmOp op) {
        Plugin *p = rpmPluginGetData(plugin);
        Element *e = p->current;
        rpmFileAction action = XFO_ACTION(op);
        _cleanup_free_ char *manifest = NULL;

        if (!p->active || !e || !e->added || !fi || !dest || XFA_SKIPPING(action))
                return RPMRC_OK;
        if (!S_ISDIR(file_mode) &&
            guarded_path(dest) &&
            !element_signer(p, e)->most_trusted)
                return refuse_package(e, dest, "package %s ships a file of the device's MSSF "
                                      "configuration, which decides origins and grants: only a "
                                      "package signed by a key of the first paragraph of "
                                      "rpm-origins.conf (the device maker's) may", rpmteN(e->te));
        if (e->state == ELEMENT_CHECKED)
                return label_by_descriptor(p, e, fd, dest);
        if (e->state != ELEMENT_SEEN)
                return RPMRC_OK;
        if (asprintf(&manifest, RPM_AEGIS_DIR "%s.aegis", rpmteN(e->te)) < 0)
                return RPMRC_FAIL;
        if (strcmp(dest, manifest) != 0)
                return RPMRC_OK;
        return on_manifest(p, e, fd, path, dest);
}

/* ---- psm_post: register, unregister ------------------------------------- */

/* What the element's labels by descriptor became when it was not registered. */
static void unlabel_all(Plugin *p, Element *e) {
        _cleanup_(safe_root_freep) SafeRoot *root = NULL;

        if (safe_root_new("", &root) < 0)
                return;
        for (size_t i = 0; i < e->labelled.n_items; i++) {
                _cleanup_close_ int fd = -1;
                _cleanup_free_ char *value = NULL;
                struct stat st;
                size_t size = 0;

                if (safe_root_open(root, e->labelled.items[i], &fd, &st) != 0 ||
                    fileio_fget_xattr(fd, SMACK_XATTR_EXEC, &value, &size) < 0 || !value ||
                    strcmp(value, e->package.name) != 0)
                        continue;
                (void) fremovexattr(fd, SMACK_XATTR_EXEC);
        }
}

/* The element is acted on: its record entries go (the file stays while policy.db is behind). */
static void element_done(Plugin *p, Element *e, const char *name) {
        int r;

        e->state = ELEMENT_DONE;
        if (!p->record)
                return;
        rpm_record_forget(p->record, name);
        if (p->changed || p->record->n_entries > 0)
                r = record_save(p, &p->inside);
        else
                r = rpm_record_write(&p->inside, NULL);
        print_error(r, "cannot write the record of this transaction");
}

static void post_install(Plugin *p, Element *e, int res) {
        RpmPackage *package = &e->package;
        _cleanup_free_ char *version = rpm_package_version(package);
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        ToolContext c;
        int r;

        if (res != 0) {
                /* rpm failed the element: what it wrote is gone, or is no registered package's. */
                e->findings_wait = false;
                unlabel_all(p, e);
                return element_done(p, e, package->name);
        }
        fault("psm_post");
        r = context_init(&c, &p->inside, rpm_db_package_db(p->db));
        if (r < 0)
                return print_error(r, "cannot register");
        rpm_db_set_element(p->db, e->te);
        r = rpm_register(&c, package, &plan);
        rpm_db_set_element(p->db, NULL);
        if (r != 0)
                e->findings_wait = false;
        print_diagnostics_waiting(c.diag, package->manifest_path, &e->said,
                                  r == 0 ? &e->findings_wait : NULL);
        if (r != 0) {
                print_error(r, "cannot register");
                fprintf(stderr, "mssf-policy: %s %s is installed but not registered: its "
                        "binaries have no labels and no grants ('mssf-policy verify' lists it)\n",
                        package->name, version ? version : "");
                unlabel_all(p, e);
        } else {
                p->changed = true;
                if (package->origin)
                        fprintf(stderr, "mssf-policy: %s %s registered, origin %s (signed by %s)\n",
                                package->name, version ? version : "", package->origin,
                                package->key);
                else
                        fprintf(stderr, "mssf-policy: %s %s registered with the unknown origin: "
                                "%s\n", package->name, version ? version : "",
                                package->why_unknown ? package->why_unknown : "no signature");
                install_note_effects(&c, plan);
        }
        context_done(&c, &p->inside);
        fflush(stderr);
        fault("psm_post_done");
        element_done(p, e, package->name);
}

static void post_erase(Plugin *p, Element *e, int res) {
        const char *name = rpmteN(e->te);
        _cleanup_(install_plan_freep) InstallPlan *plan = NULL;
        RpmInstalled installed = {};
        ToolContext c;
        bool done = false;
        int r;

        /* Other psm calls of this element (file triggers) come while rpm still holds it. */
        if (res != 0 || rpm_db_has_instance(p->db, rpmteDBInstance(e->te)))
                return;
        r = rpm_db_installed(p->db, name, &installed);
        if (r == 0 && installed.with_manifest) {
                rpm_installed_clear(&installed);
                return element_done(p, e, name);
        }
        fault("erase");
        if (r == 0)
                r = context_init(&c, &p->inside, rpm_db_package_db(p->db));
        if (r == 0) {
                r = rpm_unregister(&c, name, &done, &plan);
                print_diagnostics(c.diag, NULL, NULL);
                if (r == 0 && done) {
                        p->changed = true;
                        fprintf(stderr, "mssf-policy: %s unregistered\n", name);
                        install_note_effects(&c, plan);
                        fflush(stderr);
                }
                context_done(&c, &p->inside);
        }
        print_error(r, "cannot unregister");
        if (r == 0)
                element_done(p, e, name);
}

static rpmRC mssf_psm_post(rpmPlugin plugin, rpmte te, int res) {
        Plugin *p = rpmPluginGetData(plugin);
        Element *e;

        if (!p->active)
                return RPMRC_OK;
        p->current = NULL;
        e = element_get(p, te);
        if (!e || e->state == ELEMENT_DONE)
                return RPMRC_OK;
        if (e->added && e->state == ELEMENT_CHECKED)
                post_install(p, e, res);
        else if (!e->added)
                post_erase(p, e, res);
        return RPMRC_OK;
}

/* ---- tsm_post: policy.db, once ----------------------------------------- */

/*
 * The findings left to the transaction's end, judged again by the compile
 * against the whole installed set: of each element whose findings wait,
 * what still holds, named by the manifest it shipped (the installed copy
 * has its bytes: the same lines and columns).
 */
static void print_waiting(Plugin *p, const ToolContext *c) {
        for (size_t i = 0; i < p->n_elements; i++) {
                Element *e = p->elements[i];
                _cleanup_free_ char *installed = NULL;

                if (!e->findings_wait || !e->package.name || !e->package.manifest_path)
                        continue;
                installed = installed_manifest_path(&c->paths, e->package.name);
                if (!installed)
                        return;
                for (size_t j = 0; c->diag && j < c->diag->n_items; j++) {
                        Diagnostic shown = *c->diag->items[j];
                        _cleanup_free_ char *line = NULL;

                        if (shown.severity == DIAGNOSTIC_ERROR || !shown.judged || !shown.file ||
                            strcmp(shown.file, installed) != 0)
                                continue;
                        shown.file = e->package.manifest_path;
                        if (diagnostic_format(&shown, &line) < 0 || rpm_strings_has(&e->said, line))
                                continue;
                        fprintf(stderr, "%s\n", line);
                        (void) rpm_strings_add(&e->said, line);
                }
        }
}

static rpmRC mssf_tsm_post(rpmPlugin plugin, rpmts ts, int res) {
        Plugin *p = rpmPluginGetData(plugin);
        ToolContext c;
        bool written = false;
        int r;

        (void) ts;
        (void) res;
        if (!p->active || (!p->changed && !p->record)) {
                plugin_reset(p);
                return RPMRC_OK;
        }
        fault("tsm_post");
        r = context_init(&c, &p->outside, NULL);
        if (r == 0) {
                r = install_compile(&c, NULL, true, &written);
                print_diagnostics(c.diag, NULL, NULL);
                print_waiting(p, &c);
                context_done(&c, &p->outside);
        }
        fault("tsm_post_done");
        if (r == 0)
                r = rpm_record_write(&p->outside, NULL);
        if (r != 0) {
                fprintf(stderr, "mssf-policy: policy.db was not compiled (%s): the labels and "
                        "rules are installed; the next rpm transaction or 'mssf-policy rpm "
                        "recover' finishes it\n", r < 0 ? strerror(-r) : "see above");
        } else if (written) {
                fprintf(stderr, "mssf-policy: policy.db compiled\n");
                tell_bus(p);
        }
        fflush(stderr);
        plugin_reset(p);
        return RPMRC_OK;
}

/* ---- the plugin --------------------------------------------------------- */

static rpmRC mssf_init(rpmPlugin plugin, rpmts ts) {
        Plugin *p = calloc(1, sizeof(*p));

        (void) ts;
        if (!p)
                return RPMRC_FAIL;
        rpmPluginSetData(plugin, p);
        return RPMRC_OK;
}

static void mssf_cleanup(rpmPlugin plugin) {
        Plugin *p = rpmPluginGetData(plugin);

        if (!p)
                return;
        plugin_reset(p);
        free(p);
}

/* What rpm looks up (rpm-hooks.h): the plugin is named after its file, mssf.so. */
struct rpmPluginHooks_s mssf_hooks = {
        .init = mssf_init,
        .cleanup = mssf_cleanup,
        .tsm_pre = mssf_tsm_pre,
        .tsm_post = mssf_tsm_post,
        .psm_pre = mssf_psm_pre,
        .psm_post = mssf_psm_post,
        .fsm_file_prepare = mssf_fsm_file_prepare,
};
