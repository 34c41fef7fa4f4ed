/*
 * Reading apt's own record of what it verified: the Packages indexes in
 * its lists directory, and the Release files that vouch for them.
 *
 * apt downloads a repository's InRelease (or Release and Release.gpg),
 * checks the signature against the keys the source is configured with,
 * and only then keeps it, and the Packages files whose hashes it lists, in
 * /var/lib/apt/lists; `apt-get indextargets` says which of those are
 * trusted. A package file listed, with its SHA256, in a trusted Packages
 * index is a file that repository vouches for. We ask apt for the list and
 * let apt-helper decompress the indexes, so whatever apt is configured to
 * keep (lz4, gz, plain) reads the same; nothing here parses apt's file
 * naming beyond finding the Release file beside an index.
 *
 * The Release file's Origin and Label are the repository's own words, so
 * apt_release_verify() checks its signature again, with gpgv, against the
 * keyrings the device maker names for an origin (repositories.h): whatever
 * keys apt was told to trust for the source, only the device maker's keys
 * make an origin.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apt-lists.h"
#include "deb822.h"
#include "fileio.h"
#include "spawn.h"

#define APT_HELPER "/usr/lib/apt/apt-helper"
#define RELEASE_MAX (64u << 20)

AptIndexes *apt_indexes_free(AptIndexes *indexes) {
        if (!indexes)
                return NULL;
        for (size_t i = 0; i < indexes->n_items; i++) {
                AptIndex *x = &indexes->items[i];

                free(x->filename);
                free(x->description);
                free(x->inrelease);
                free(x->release);
                free(x->release_gpg);
        }
        free(indexes->items);
        free(indexes);
        return NULL;
}

_printf_(2, 3)
static int failure(char **ret_error, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        if (ret_error && vasprintf(ret_error, format, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return -EIO;
}

static bool exists(const char *path) {
        return access(path, F_OK) == 0;
}

/* "lists/host_dists_suite_main_binary-amd64_Packages.lz4" -> "lists/host_dists_suite_". */
static char *release_prefix(const char *filename, const char *meta_key) {
        static const char *const extensions[] = { ".gz", ".xz", ".bz2", ".lzma", ".lz4", ".zst" };
        _cleanup_free_ char *base = strdup(filename), *suffix = strdup(meta_key);
        size_t n, m;

        if (!base || !suffix)
                return NULL;
        n = strlen(base);
        for (size_t i = 0; i < ELEMENTSOF(extensions); i++) {
                size_t e = strlen(extensions[i]);

                if (n > e && strcmp(base + n - e, extensions[i]) == 0) {
                        base[n -= e] = '\0';
                        break;
                }
        }
        for (char *p = suffix; *p; p++)
                if (*p == '/')
                        *p = '_';
        m = strlen(suffix);
        if (n <= m || strcmp(base + n - m, suffix) != 0)
                return NULL;
        base[n - m] = '\0';
        return TAKE_PTR(base);
}

static char *join(const char *a, const char *b) {
        char *s;

        return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

/* Where the Release file of the index is, as apt stores them side by side. */
static int find_release(AptIndex *x, const char *meta_key) {
        _cleanup_free_ char *prefix = release_prefix(x->filename, meta_key);
        _cleanup_free_ char *inrelease = NULL, *release = NULL, *gpg = NULL;

        if (!prefix)
                return 0;       /* no Release we can find: it can vouch for nothing */
        inrelease = join(prefix, "InRelease");
        release = join(prefix, "Release");
        gpg = join(prefix, "Release.gpg");
        if (!inrelease || !release || !gpg)
                return -ENOMEM;
        if (exists(inrelease))
                x->inrelease = TAKE_PTR(inrelease);
        else if (exists(release) && exists(gpg)) {
                x->release = TAKE_PTR(release);
                x->release_gpg = TAKE_PTR(gpg);
        }
        return 0;
}

static int add_target(const Deb822Paragraph *p, AptIndexes *indexes) {
        const char *identifier = deb822_get(p, "Identifier");
        const char *trusted = deb822_get(p, "Trusted");
        const char *filename = deb822_get(p, "Filename");
        const char *meta_key = deb822_get(p, "MetaKey");
        const char *description = deb822_get(p, "Description");
        AptIndex *items, *x;

        if (!identifier || strcmp(identifier, "Packages") != 0 || !trusted ||
            strcmp(trusted, "yes") != 0 || !filename || !meta_key || !exists(filename))
                return 0;
        items = reallocarray(indexes->items, indexes->n_items + 1, sizeof(AptIndex));
        if (!items)
                return -ENOMEM;
        indexes->items = items;
        x = &items[indexes->n_items++];
        *x = (AptIndex) {
                .filename = strdup(filename),
                .description = strdup(description ? description : filename),
        };
        if (!x->filename || !x->description)
                return -ENOMEM;
        return find_release(x, meta_key);
}

int apt_indexes_list(char *const *apt_options, size_t n_options, AptIndexes **ret,
                     char **ret_error) {
        _cleanup_(apt_indexes_freep) AptIndexes *indexes = calloc(1, sizeof(*indexes));
        _cleanup_free_ char **argv = calloc(n_options + 3, sizeof(char *));
        _cleanup_free_ char *err = NULL;
        Deb822Reader reader;
        Deb822Paragraph p;
        Spawned child;
        int r, status = 0, finish;

        if (!indexes || !argv)
                return -ENOMEM;
        argv[0] = (char *) "apt-get";
        for (size_t i = 0; i < n_options; i++)
                argv[1 + i] = apt_options[i];
        argv[1 + n_options] = (char *) "indextargets";
        r = spawn_start(argv, -1, &child);
        if (r < 0)
                return failure(ret_error, "cannot run %s: %s", "apt-get", strerror(-r));
        deb822_reader_init(&reader, child.out, false);
        while ((r = deb822_read(&reader, &p)) == 1) {
                r = add_target(&p, indexes);
                deb822_paragraph_clear(&p);
                if (r < 0)
                        break;
        }
        deb822_reader_deinit(&reader);
        finish = spawn_finish(&child, &status, &err);
        if (r == DEB822_E_SYNTAX)
                return failure(ret_error, "apt-get indextargets: unexpected output (%s)",
                               reader.error);
        if (r < 0)
                return r;
        if (finish < 0 || status != 0)
                return failure(ret_error, "apt-get indextargets failed: %s",
                               err && *err ? err : "no reason given");
        *ret = TAKE_PTR(indexes);
        return 0;
}

static int add_match(AptWanted *w, size_t index_id) {
        size_t *matches;

        if (w->n_matches > 0 && w->matches[w->n_matches - 1] == index_id)
                return 0;
        matches = reallocarray(w->matches, w->n_matches + 1, sizeof(size_t));
        if (!matches)
                return -ENOMEM;
        matches[w->n_matches++] = index_id;
        w->matches = matches;
        return 0;
}

static bool lists(const Deb822Paragraph *p, const AptWanted *w) {
        const char *version = deb822_get(p, "Version");
        const char *arch = deb822_get(p, "Architecture");
        const char *sha256 = deb822_get(p, "SHA256");
        const char *size = deb822_get(p, "Size");
        char expected_size[32];

        snprintf(expected_size, sizeof(expected_size), "%llu", (unsigned long long) w->size);
        return version && strcmp(version, w->version) == 0 && arch &&
               strcmp(arch, w->architecture) == 0 && sha256 && strcmp(sha256, w->sha256) == 0 &&
               size && strcmp(size, expected_size) == 0;
}

int apt_index_scan(const AptIndex *index, size_t index_id, AptWanted *wanted, size_t n_wanted,
                   char **ret_error) {
        char *argv[] = { (char *) APT_HELPER, (char *) "cat-file", index->filename, NULL };
        _cleanup_free_ char *err = NULL;
        Deb822Reader reader;
        Deb822Paragraph p;
        Spawned child;
        int r, status = 0, finish;

        r = spawn_start(argv, -1, &child);
        if (r < 0)
                return failure(ret_error, "cannot run %s: %s", APT_HELPER, strerror(-r));
        deb822_reader_init(&reader, child.out, false);
        while ((r = deb822_read(&reader, &p)) == 1) {
                const char *package = deb822_get(&p, "Package");

                for (size_t i = 0; r >= 0 && package && i < n_wanted; i++)
                        if (strcmp(package, wanted[i].package) == 0 && lists(&p, &wanted[i]))
                                r = add_match(&wanted[i], index_id);
                deb822_paragraph_clear(&p);
                if (r < 0)
                        break;
        }
        deb822_reader_deinit(&reader);
        finish = spawn_finish(&child, &status, &err);
        if (r == DEB822_E_SYNTAX)
                return failure(ret_error, "%s is not a Packages index: %s", index->filename,
                               reader.error);
        if (r < 0)
                return r;
        if (finish < 0 || status != 0)
                return failure(ret_error, "apt-helper cat-file %s failed: %s", index->filename,
                               err && *err ? err : "no reason given");
        return 0;
}

#define RELEASE_HEADER_READ 100

/* Origin and Label of the first paragraph of a Release file's text. */
static int release_fields(const Deb822Paragraph *p, void *userdata) {
        char **fields = userdata;
        const char *origin = deb822_get(p, "Origin"), *label = deb822_get(p, "Label");

        if (origin && !(fields[0] = strdup(origin)))
                return -ENOMEM;
        if (label && !(fields[1] = strdup(label)))
                return -ENOMEM;
        return RELEASE_HEADER_READ;     /* the first paragraph is the whole header */
}

int apt_release_verify(const AptIndex *index, char *const *keyrings, size_t n_keyrings,
                       char **ret_origin, char **ret_label, char **ret_error) {
        _cleanup_free_ char **argv = calloc(2 * n_keyrings + 6, sizeof(char *));
        _cleanup_free_ char *text = NULL, *err = NULL;
        char *fields[2] = { NULL, NULL };
        size_t n = 0, size = 0;
        int status = 0, r;

        if (!argv)
                return -ENOMEM;
        if (!index->inrelease && !index->release) {
                failure(ret_error, "no Release file beside %s", index->filename);
                return APT_LISTS_E_UNSIGNED;
        }
        argv[n++] = (char *) "gpgv";
        for (size_t i = 0; i < n_keyrings; i++) {
                argv[n++] = (char *) "--keyring";
                argv[n++] = keyrings[i];
        }
        if (index->inrelease) {
                argv[n++] = (char *) "--output";
                argv[n++] = (char *) "-";
                argv[n++] = index->inrelease;
        } else {
                argv[n++] = index->release_gpg;
                argv[n++] = index->release;
        }
        r = spawn_capture(argv, RELEASE_MAX, &text, &size, &status, &err);
        if (r < 0)
                return failure(ret_error, "cannot run gpgv: %s", strerror(-r));
        if (status != 0) {
                failure(ret_error, "not signed by those keys (gpgv: %s)",
                        err && *err ? err : "no reason given");
                return APT_LISTS_E_UNSIGNED;
        }
        if (!index->inrelease) {
                free(text);
                text = NULL;
                r = fileio_read(index->release, &text, &size);
                if (r < 0)
                        return failure(ret_error, "cannot read %s: %s", index->release,
                                       strerror(-r));
        }
        r = deb822_parse_buffer(text, size, false, release_fields, fields, NULL, NULL);
        if (r != RELEASE_HEADER_READ) {
                free(fields[0]);
                free(fields[1]);
                return r < 0 ? r : failure(ret_error, "%s is not a Release file",
                                           index->inrelease ? index->inrelease : index->release);
        }
        *ret_origin = fields[0];
        *ret_label = fields[1];
        return 0;
}
