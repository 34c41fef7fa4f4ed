/*
 * mssf-policy apt-hook: where a package's origin is established.
 *
 * apt runs it as root before it runs dpkg (DPkg::Pre-Install-Pkgs,
 * protocol version 3: docs/packaging.md has the configuration), with the
 * list of package files it is about to have dpkg unpack, files it has
 * just checked against the hashes of the indexes it verified. For each
 * file that carries an MSSF manifest it finds the repositories whose
 * trusted Packages index lists exactly that file (name, version,
 * architecture, size, SHA256), checks their Release file's signature
 * against the device maker's keyrings, and maps the first one the device
 * maker's repositories.conf names to an origin. The answer is written to
 * APT_ORIGIN_DIR/PACKAGE for `mssf-policy dpkg configure`, bound to the
 * version, the architecture, the SHA256 of the manifest inside the file
 * and that of its md5sums member (every file it ships but conffiles, by
 * MD5), so it cannot be used for any other file.
 *
 * Nothing here comes from the package: not its control fields, not its
 * scripts (they have not run yet), not its manifest (only hashed). A file
 * no mapped repository vouches for gets a record with no origin, which
 * `dpkg configure` reads as the unknown origin. A repositories.conf that
 * does not parse stops apt, with file:line, rather than installing
 * packages with origins nobody meant.
 *
 * The device's own configuration. /etc/mssf and /etc/smack/accesses.d
 * (guarded.h) decide every package's origin and grants, and dpkg lets a
 * package's file replace one there that no package owns. So every file
 * apt is about to unpack, with a manifest or without, is listed (the real
 * dpkg-deb and tar: deb-contents.c), and one that would put a
 * non-directory there (by its name, or through the symlinks already on
 * the system), ships a symlink that leads there, or names a member with
 * "..", stops apt before dpkg unpacks anything, unless its origin is the
 * most trusted one: the Mssf-Origin of repositories.conf's first
 * paragraph, as rpm's plugin trusts the first paragraph of
 * rpm-origins.conf. Such a package must carry a manifest, so that dpkg
 * configure registers the origin that `mssf-policy dpkg` checks the same
 * files against at every compile (dpkg-guard.c): without one it is
 * refused whatever its origin. Nothing is recorded when anything is
 * refused: apt stops, and no record waits for a dpkg run that never
 * comes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <fcntl.h>
#include <unistd.h>

#include "apt-hook.h"
#include "apt-lists.h"
#include "apt-record.h"
#include "deb-inspect.h"
#include "manifest.h"
#include "context.h"
#include "repositories.h"
#include "digest.h"
#include "spawn.h"

#define HOOK_INPUT_MAX (64u << 20)
#define AEGIS_MEMBER "usr/share/mssf/aegis/"

/* A package file apt is about to unpack (kept when it ships a manifest or guarded files). */
typedef struct Candidate {
        char *package;
        char *version;
        char *architecture;
        char *deb;                      /* the .deb apt passed */
        bool has_manifest;
        /* (nullable) what it ships of the device's configuration, first
         * found ("ships /etc/mssf/x"): only the most trusted origin may */
        char *guarded;
        char deb_sha256[DIGEST_SHA256_HEX_SIZE];
        uint64_t deb_size;
        char manifest_sha256[DIGEST_SHA256_HEX_SIZE];
        char md5sums_sha256[DIGEST_SHA256_HEX_SIZE];   /* its md5sums member: what dpkg will keep */
} Candidate;

typedef struct Hook {
        ToolContext *c;
        char **apt_options;             /* "-o", "Dir::...=..." pairs for apt-get */
        size_t n_apt_options;
        Candidate *candidates;
        size_t n_candidates;
        int root_fd;                    /* O_PATH: the system dpkg will unpack into */
} Hook;

static void candidate_clear(Candidate *cand) {
        free(cand->package);
        free(cand->version);
        free(cand->architecture);
        free(cand->deb);
        free(cand->guarded);
}

static void hook_clear(Hook *h) {
        for (size_t i = 0; i < h->n_apt_options; i++)
                free(h->apt_options[i]);
        free(h->apt_options);
        for (size_t i = 0; i < h->n_candidates; i++)
                candidate_clear(&h->candidates[i]);
        free(h->candidates);
}

static int hook_error(Hook *h, const char *what) {
        diagnostics_add(h->c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0, "apt-hook: %s", what);
        return TOOL_E_INVALID;
}

/* apt %-encodes configuration values; decode in place, false if malformed. */
static bool percent_decode(char *s) {
        char *out = s;

        for (; *s; s++) {
                unsigned value;

                if (*s != '%') {
                        *out++ = *s;
                        continue;
                }
                if (sscanf(s + 1, "%2x", &value) != 1 || !s[1] || !s[2] || value == 0)
                        return false;
                *out++ = (char) value;
                s += 2;
        }
        *out = '\0';
        return true;
}

/* The configuration that says where apt's lists and sources are, for apt-get indextargets. */
static int take_option(Hook *h, char *line) {
        static const char *const keys[] = {
                "Dir", "Dir::State", "Dir::State::lists", "Dir::Etc", "Dir::Etc::main",
                "Dir::Etc::parts", "Dir::Etc::sourcelist", "Dir::Etc::sourceparts",
        };
        char *equals = strchr(line, '='), **options;
        bool wanted = false;

        if (!equals)
                return hook_error(h, "a configuration line without '=' in apt's input");
        *equals = '\0';
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                wanted = wanted || strcasecmp(line, keys[i]) == 0;
        if (!wanted)
                return 0;
        if (!percent_decode(equals + 1))
                return hook_error(h, "a malformed %-escape in apt's configuration");
        *equals = '=';
        options = reallocarray(h->apt_options, h->n_apt_options + 2, sizeof(char *));
        if (!options)
                return -ENOMEM;
        h->apt_options = options;
        options[h->n_apt_options] = strdup("-o");
        options[h->n_apt_options + 1] = strdup(line);
        h->n_apt_options += 2;
        return options[h->n_apt_options - 2] && options[h->n_apt_options - 1] ? 0 : -ENOMEM;
}

/* "name oldver oldarch oldma < newver newarch newma /path/file.deb": an unpack. */
static int take_action(Hook *h, char *line) {
        char *fields[10], *save = NULL;
        size_t n = 0;
        Candidate *candidates;

        for (char *w = strtok_r(line, " ", &save); w && n < ELEMENTSOF(fields); w = strtok_r(NULL, " ", &save))
                fields[n++] = w;
        if (n != 9)
                return hook_error(h, "a package line that is not protocol version 3 (set "
                                  "DPkg::Tools::Options::/usr/bin/mssf-policy::Version \"3\")");
        if (fields[8][0] != '/')
                return 0;       /* **CONFIGURE**, **REMOVE** */
        candidates = reallocarray(h->candidates, h->n_candidates + 1, sizeof(Candidate));
        if (!candidates)
                return -ENOMEM;
        h->candidates = candidates;
        candidates[h->n_candidates] = (Candidate) {
                .package = strdup(fields[0]),
                .version = strdup(fields[5]),
                .architecture = strdup(fields[6]),
                .deb = strdup(fields[8]),
        };
        h->n_candidates++;
        if (!candidates[h->n_candidates - 1].package || !candidates[h->n_candidates - 1].version ||
            !candidates[h->n_candidates - 1].architecture || !candidates[h->n_candidates - 1].deb)
                return -ENOMEM;
        return 0;
}

static int parse_input(Hook *h, char *text) {
        char *line = text, *next;
        bool header = true, config = true;
        int r = 0;

        for (; line && *line && r == 0; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (header) {
                        if (strcmp(line, "VERSION 3") != 0)
                                return hook_error(h, "apt does not speak protocol version 3 to "
                                                  "this hook: set DPkg::Tools::Options::"
                                                  "/usr/bin/mssf-policy::Version \"3\"");
                        header = false;
                } else if (config) {
                        config = line[0] != '\0';
                        r = config ? take_option(h, line) : 0;
                } else
                        r = line[0] ? take_action(h, line) : 0;
        }
        if (r == 0 && header)
                return hook_error(h, "no input from apt");
        return r;
}

/* Whether the package's md5sums lists its manifest (dh_md5sums lists every file). */
static bool lists_manifest(const char *md5sums, const char *package) {
        size_t n = strlen(package);

        for (const char *line = md5sums; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                const char *path = strstr(line, "  " AEGIS_MEMBER);
                const char *end = strchr(line, '\n');

                if (!path || (end && path > end))
                        continue;
                path += 2 + strlen(AEGIS_MEMBER);
                if (strncmp(path, package, n) == 0 && strncmp(path + n, ".aegis", 6) == 0 &&
                    (path[n + 6] == '\n' || path[n + 6] == '\0'))
                        return true;
        }
        return false;
}

/*
 * The manifest inside the .deb, through dpkg-deb and tar: 0 and its hash
 * (and the hash of the md5sums member, which binds the record to the
 * file's contents), 1 when it has none.
 */
static int hash_manifest(Hook *h, Candidate *cand) {
        _cleanup_free_ char *md5sums = NULL, *member = NULL, *data = NULL, *err = NULL, *err2 = NULL;
        char *info[] = { (char *) "dpkg-deb", (char *) "--info", cand->deb, (char *) "md5sums", NULL };
        char *fsys[] = { (char *) "dpkg-deb", (char *) "--fsys-tarfile", cand->deb, NULL };
        size_t size = 0, md5sums_size = 0;
        Spawned deb;
        int status = 0, status2 = 0, r;

        r = spawn_capture(info, 64u << 20, &md5sums, &md5sums_size, &status, NULL);
        if (r < 0)
                return r;
        if (status != 0 || !lists_manifest(md5sums, cand->package))
                return 1;
        r = digest_sha256_hex(md5sums, md5sums_size, cand->md5sums_sha256);
        if (r < 0)
                return r;
        if (asprintf(&member, "./" AEGIS_MEMBER "%s.aegis", cand->package) < 0)
                return -ENOMEM;
        r = spawn_start(fsys, -1, &deb);
        if (r < 0)
                return r;
        {
                char *tar[] = { (char *) "tar", (char *) "-xOf", (char *) "-", member, NULL };

                r = spawn_capture_from(tar, fileno(deb.out), MANIFEST_MAX_FILE_SIZE, &data, &size,
                                       &status, &err);
        }
        (void) spawn_finish(&deb, &status2, &err2);
        if (r < 0)
                return r;
        if (status != 0 || status2 != 0) {
                fprintf(h->c->err, "warning: %s lists %s in its md5sums but it cannot be read "
                        "from the file (%s): the package will have the unknown origin\n",
                        cand->deb, member, status2 != 0 && err2 ? err2 : err ? err : "?");
                return 1;
        }
        r = digest_sha256_hex(data, size, cand->manifest_sha256);
        if (r < 0)
                return r;
        return digest_sha256_file(cand->deb, cand->deb_sha256, &cand->deb_size);
}

static void cannot_follow(Hook *h, const Candidate *cand, const char *what, int r, const char *error) {
        diagnostics_add(h->c->diag, DIAGNOSTIC_ERROR, cand->deb, 0, 0,
                        "apt-hook: cannot %s what package %s would unpack (%s): refused, since "
                        "it might ship the device's MSSF configuration (/etc/mssf, "
                        "/etc/smack/accesses.d); nothing was unpacked", what, cand->package,
                        r < 0 ? strerror(-r) : error ? error : "?");
}

/*
 * List every candidate's members, then follow each with the symlinks of
 * the whole run (deb-inspect.c): cand->guarded is set for each that ships
 * any of the device's configuration. 0, or TOOL_E_INVALID when a file
 * cannot be listed or followed (diagnosed; the others are still done).
 */
static int inspect_run(Hook *h, bool *ret_failed) {
        _cleanup_(deb_run_freep) DebRun *run = NULL;
        _cleanup_free_ size_t *at = calloc(h->n_candidates ? h->n_candidates : 1, sizeof(size_t));
        size_t added = 0;
        int r;

        if (!at)
                return -ENOMEM;
        r = deb_run_new(h->root_fd, &run);
        if (r < 0)
                return r;
        for (size_t i = 0; i < h->n_candidates; i++) {
                _cleanup_free_ char *error = NULL;

                r = deb_run_add(run, h->candidates[i].deb, &error);
                ret_failed[i] = r != 0;
                if (r != 0) {
                        cannot_follow(h, &h->candidates[i], "list", r, error);
                        continue;
                }
                at[i] = added++;
        }
        r = deb_run_seal(run);
        if (r < 0)
                return r;
        for (size_t i = 0; i < h->n_candidates; i++) {
                if (ret_failed[i])
                        continue;
                r = deb_run_inspect(run, at[i], &h->candidates[i].guarded);
                ret_failed[i] = r != 0;
                if (r != 0)
                        cannot_follow(h, &h->candidates[i], "follow", r, NULL);
        }
        return 0;
}

/*
 * Keep the candidates that ship a manifest (hashed) or files of the
 * device's configuration. Every file is listed, so that one run reports
 * every refusal: TOOL_E_INVALID when any file cannot be read.
 */
static int inspect_all(Hook *h) {
        _cleanup_free_ bool *unreadable = calloc(h->n_candidates ? h->n_candidates : 1, sizeof(bool));
        size_t kept = 0;
        int failed = 0;
        int r;

        if (!unreadable)
                return -ENOMEM;
        r = inspect_run(h, unreadable);
        if (r < 0)
                return r;
        for (size_t i = 0; i < h->n_candidates; i++) {
                Candidate *cand = &h->candidates[i];

                r = unreadable[i] ? TOOL_E_INVALID : 0;
                if (r == 0 && !failed)
                        r = manifest_valid_package_label(cand->package) ? hash_manifest(h, cand) : 1;
                else if (r == 0)
                        r = 1;          /* no need to hash what will not be recorded */
                else
                        failed = r;
                if (r < 0) {
                        diagnostics_add(h->c->diag, DIAGNOSTIC_ERROR, cand->deb, 0, 0,
                                        "apt-hook: cannot read this package file: %s",
                                        strerror(-r));
                        failed = TOOL_E_INVALID;
                }
                cand->has_manifest = r == 0;
                if (cand->has_manifest || cand->guarded) {
                        h->candidates[kept++] = *cand;
                        continue;
                }
                candidate_clear(cand);
        }
        h->n_candidates = kept;
        return failed;
}

/* The first repository of the map that one of the indexes listing the file satisfies. */
typedef struct Verdict {
        const Repository *repository;   /* (nullable) unknown origin */
        const AptIndex *index;          /* (nullable) */
        char *origin;                   /* Release fields as signed */
        char *label;
} Verdict;

static int judge(Hook *h, const Repositories *repos, const AptIndexes *indexes,
                 const AptWanted *w, Verdict *ret) {
        for (size_t r = 0; r < repos->n_items; r++) {
                const Repository *repo = &repos->items[r];

                for (size_t m = 0; m < w->n_matches; m++) {
                        const AptIndex *index = &indexes->items[w->matches[m]];
                        _cleanup_free_ char *origin = NULL, *label = NULL, *error = NULL;
                        int v = apt_release_verify(index, repo->keyrings, repo->n_keyrings,
                                                   &origin, &label, &error);

                        if (v < 0)
                                return hook_error(h, error ? error : strerror(-v));
                        if (v > 0 || !origin || !label || strcmp(origin, repo->release_origin) != 0 ||
                            strcmp(label, repo->release_label) != 0)
                                continue;
                        *ret = (Verdict) { .repository = repo, .index = index,
                                           .origin = TAKE_PTR(origin), .label = TAKE_PTR(label) };
                        return 0;
                }
        }
        *ret = (Verdict) {};
        return 0;
}

static int record(Hook *h, const Candidate *cand, const Verdict *v) {
        _cleanup_free_ char *repository = NULL;
        AptRecord rec = {
                .package = cand->package,
                .architecture = cand->architecture,
                .version = cand->version,
                .deb_sha256 = (char *) cand->deb_sha256,
                .manifest_sha256 = (char *) cand->manifest_sha256,
                .md5sums_sha256 = (char *) cand->md5sums_sha256,
                .origin = v->repository ? v->repository->mssf_origin : NULL,
        };
        int r;

        if (v->repository && asprintf(&repository, "%s / %s, %s", v->origin, v->label,
                                      v->index->description) < 0)
                return -ENOMEM;
        rec.repository = repository;
        r = apt_record_write(&h->c->paths, &rec);
        if (r < 0)
                return r;
        if (v->repository)
                fprintf(h->c->err, "mssf-policy: %s %s: origin %s (%s)\n", cand->package,
                        cand->version, rec.origin, repository);
        else
                fprintf(h->c->err, "mssf-policy: %s %s: unknown origin (no repository that %s "
                        "maps lists this file)\n", cand->package, cand->version,
                        h->c->paths.repositories);
        return 0;
}

/*
 * The candidates that ship the device's configuration: refused, each with
 * a diagnostic, unless they carry a manifest and their origin is the most
 * trusted, the first paragraph's. 0 or TOOL_E_INVALID.
 */
static int refuse_guarded(Hook *h, const Repositories *repos, const Verdict *verdicts) {
        const char *trusted = repos->n_items > 0 ? repos->items[0].mssf_origin : NULL;
        int r = 0;

        for (size_t i = 0; i < h->n_candidates; i++) {
                const Candidate *cand = &h->candidates[i];
                const Verdict *v = &verdicts[i];
                const char *origin = v->repository ? v->repository->mssf_origin : NULL;
                _cleanup_free_ char *its = NULL;

                if (!cand->guarded || (cand->has_manifest && trusted && origin &&
                                       strcmp(origin, trusted) == 0))
                        continue;
                r = TOOL_E_INVALID;
                if (!cand->has_manifest) {
                        diagnostics_add(h->c->diag, DIAGNOSTIC_ERROR, cand->deb, 0, 0,
                                        "apt-hook: package %s %s %s, the device's MSSF "
                                        "configuration (/etc/mssf and /etc/smack/accesses.d "
                                        "decide every package's origin and grants): a package "
                                        "that ships it must come from the most trusted origin "
                                        "and carry an MSSF manifest (an empty <aegis/> will do), "
                                        "so that its origin is registered, and this one has "
                                        "none; refused before dpkg unpacks anything",
                                        cand->package, cand->version, cand->guarded);
                        continue;
                }
                if (origin && asprintf(&its, "%s (%s / %s)", origin, v->origin, v->label) < 0)
                        return -ENOMEM;
                diagnostics_add(h->c->diag, DIAGNOSTIC_ERROR, cand->deb, 0, 0,
                                "apt-hook: package %s %s %s, the device's MSSF configuration "
                                "(/etc/mssf and /etc/smack/accesses.d decide every package's "
                                "origin and grants): only a package of the most trusted origin "
                                "may%s%s%s, and its origin is %s; refused before dpkg unpacks "
                                "anything", cand->package, cand->version, cand->guarded,
                                trusted ? " (" : " (none: ", trusted ? trusted : h->c->paths.repositories,
                                trusted ? ", the first paragraph of repositories.conf)" :
                                " maps no repository)",
                                its ? its : "the unknown one (no repository that repositories.conf "
                                "maps lists this file)");
        }
        return r;
}

static void verdicts_free(Verdict *verdicts, size_t n) {
        for (size_t i = 0; verdicts && i < n; i++) {
                free(verdicts[i].origin);
                free(verdicts[i].label);
        }
        free(verdicts);
}

/*
 * Which repositories list each candidate, then what the map makes of
 * them; the device's configuration refused; then the records, none if
 * anything was refused.
 */
static int decide_all(Hook *h, const Repositories *repos) {
        _cleanup_(apt_indexes_freep) AptIndexes *indexes = NULL;
        _cleanup_free_ AptWanted *wanted = calloc(h->n_candidates, sizeof(AptWanted));
        Verdict *verdicts = calloc(h->n_candidates, sizeof(Verdict));
        _cleanup_free_ char *error = NULL;
        int r = 0;

        if (!wanted || !verdicts) {
                free(verdicts);
                return -ENOMEM;
        }
        for (size_t i = 0; i < h->n_candidates; i++)
                wanted[i] = (AptWanted) {
                        .package = h->candidates[i].package,
                        .version = h->candidates[i].version,
                        .architecture = h->candidates[i].architecture,
                        .sha256 = h->candidates[i].deb_sha256,
                        .size = h->candidates[i].deb_size,
                };
        if (repos->n_items > 0) {
                r = apt_indexes_list(h->apt_options, h->n_apt_options, &indexes, &error);
                for (size_t x = 0; r == 0 && x < indexes->n_items; x++)
                        r = apt_index_scan(&indexes->items[x], x, wanted, h->n_candidates, &error);
        }
        /* A file without a manifest was not hashed: nothing can vouch for it, nor need to. */
        for (size_t i = 0; r == 0 && indexes && i < h->n_candidates; i++)
                if (h->candidates[i].has_manifest)
                        r = judge(h, repos, indexes, &wanted[i], &verdicts[i]);
        if (r == 0)
                r = refuse_guarded(h, repos, verdicts);
        for (size_t i = 0; r == 0 && i < h->n_candidates; i++)
                if (h->candidates[i].has_manifest)
                        r = record(h, &h->candidates[i], &verdicts[i]);
        for (size_t i = 0; i < h->n_candidates; i++)
                free(wanted[i].matches);
        verdicts_free(verdicts, h->n_candidates);
        if (r < 0 && error)
                return hook_error(h, error);
        return r;
}

int tool_apt_hook(ToolContext *c, FILE *input) {
        _cleanup_(repositories_freep) Repositories *repos = NULL;
        _cleanup_free_ char *text = calloc(1, HOOK_INPUT_MAX + 1);
        _cleanup_close_ int root_fd = open(c->paths.root ? c->paths.root : "/",
                                           O_PATH | O_DIRECTORY | O_CLOEXEC);
        Hook h = { .c = c, .root_fd = root_fd };
        size_t size;
        int r;

        if (root_fd < 0)
                return -errno;
        if (!text)
                return -ENOMEM;
        /* All of it: apt must not block on a pipe nobody reads. */
        size = fread(text, 1, HOOK_INPUT_MAX + 1, input);
        if (ferror(input))
                return -EIO;
        if (size > HOOK_INPUT_MAX || memchr(text, '\0', size))
                return hook_error(&h, "apt's input is larger than 64 MiB or not text");
        r = parse_input(&h, text);
        if (r == 0)
                r = inspect_all(&h);
        if (r == 0 && h.n_candidates > 0) {
                r = repositories_load(c->paths.repositories, c->diag, &repos);
                if (r == REPOSITORIES_E_INVALID)
                        r = TOOL_E_INVALID;
        }
        if (r == 0 && h.n_candidates > 0)
                r = decide_all(&h, repos);
        hook_clear(&h);
        return r;
}
