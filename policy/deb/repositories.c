/*
 * repositories.conf, the device maker's statement of which APT
 * repositories' packages get which origin (repositories.h has the format,
 * docs/packaging.md the reasoning).
 *
 * Origin and Label are text any repository can write into its Release
 * file, so a line that named only them would let a store repository claim
 * to be the system's. Every paragraph therefore names the keyrings whose
 * signature the Release file must carry, and the hook checks that
 * signature itself (apt-lists.c), whatever keys apt trusts for the source.
 * The file is configuration written by root, but a paragraph that is
 * incomplete or has a field we do not know is an error with its line,
 * never read as "matches anything".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deb822.h"
#include "manifest.h"
#include "repositories.h"

#define REPOSITORIES_MAX_SIZE (1u << 20)

Repositories *repositories_free(Repositories *repos) {
        if (!repos)
                return NULL;
        for (size_t i = 0; i < repos->n_items; i++) {
                Repository *r = &repos->items[i];

                free(r->mssf_origin);
                free(r->release_origin);
                free(r->release_label);
                for (size_t k = 0; k < r->n_keyrings; k++)
                        free(r->keyrings[k]);
                free(r->keyrings);
        }
        free(repos->items);
        free(repos->file);
        free(repos);
        return NULL;
}

typedef struct Loader {
        Repositories *repos;
        Diagnostics *diag;
        size_t n_errors;
} Loader;

_printf_(3, 4)
static void error_at(Loader *l, unsigned line, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        diagnostics_addv(l->diag, DIAGNOSTIC_ERROR, l->repos->file, line, 0, format, ap);
        va_end(ap);
        l->n_errors++;
}

static int split_keyrings(Loader *l, const Deb822Field *f, Repository *repo) {
        _cleanup_free_ char *copy = strdup(f->value);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *word = strtok_r(copy, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save)) {
                char **keyrings;

                if (word[0] != '/') {
                        error_at(l, f->line, "Signed-By: '%s' is not an absolute path to a "
                                 "keyring file", word);
                        continue;
                }
                keyrings = reallocarray(repo->keyrings, repo->n_keyrings + 1, sizeof(char *));
                if (!keyrings)
                        return -ENOMEM;
                repo->keyrings = keyrings;
                keyrings[repo->n_keyrings] = strdup(word);
                if (!keyrings[repo->n_keyrings])
                        return -ENOMEM;
                repo->n_keyrings++;
        }
        if (repo->n_keyrings == 0)
                error_at(l, f->line, "Signed-By names no keyring: the Release file must be "
                         "signed by a key the device maker trusts");
        return 0;
}

/* One value of a single line, or an error. */
static int take(Loader *l, const Deb822Paragraph *p, const char *name, char **ret) {
        const Deb822Field *f = deb822_field(p, name);

        if (!f || !f->value[0]) {
                error_at(l, p->line, "this paragraph has no %s field (each needs Mssf-Origin, "
                         "Release-Origin, Release-Label and Signed-By)", name);
                return 0;
        }
        if (strchr(f->value, '\n')) {
                error_at(l, f->line, "%s takes one line", name);
                return 0;
        }
        *ret = strdup(f->value);
        return *ret ? 0 : -ENOMEM;
}

static int add_paragraph(const Deb822Paragraph *p, void *userdata) {
        static const char *const known[] = { "Mssf-Origin", "Release-Origin", "Release-Label",
                                             "Signed-By" };
        Loader *l = userdata;
        Repository repo = { .line = p->line }, *items;
        const Deb822Field *keys;
        int r;

        for (size_t i = 0; i < p->n_fields; i++) {
                bool ok = false;

                for (size_t k = 0; k < ELEMENTSOF(known); k++)
                        ok = ok || strcasecmp(p->fields[i].name, known[k]) == 0;
                if (!ok)
                        error_at(l, p->fields[i].line, "unknown field '%s': a paragraph has "
                                 "Mssf-Origin, Release-Origin, Release-Label and Signed-By",
                                 p->fields[i].name);
        }
        items = reallocarray(l->repos->items, l->repos->n_items + 1, sizeof(Repository));
        if (!items)
                return -ENOMEM;
        l->repos->items = items;
        r = take(l, p, "Mssf-Origin", &repo.mssf_origin);
        if (r == 0)
                r = take(l, p, "Release-Origin", &repo.release_origin);
        if (r == 0)
                r = take(l, p, "Release-Label", &repo.release_label);
        keys = deb822_field(p, "Signed-By");
        if (r == 0 && keys)
                r = split_keyrings(l, keys, &repo);
        else if (r == 0)
                error_at(l, p->line, "this paragraph has no %s field: name the keyrings that "
                         "must have signed the repository's Release file", "Signed-By");
        if (r == 0 && repo.mssf_origin &&
            (!manifest_valid_label(repo.mssf_origin) || strchr(repo.mssf_origin, '*')))
                error_at(l, deb822_field(p, "Mssf-Origin")->line, "Mssf-Origin '%s' is not an "
                         "origin name (printable, no spaces or '*')", repo.mssf_origin);
        /* Kept even when incomplete, so that free() finds everything. */
        items[l->repos->n_items++] = repo;
        return r;
}

int repositories_parse(const char *text, size_t size, const char *file, Diagnostics *diag,
                       Repositories **ret) {
        _cleanup_(repositories_freep) Repositories *repos = calloc(1, sizeof(*repos));
        Loader l = { .diag = diag };
        int r;

        if (!repos || !(repos->file = strdup(file)))
                return -ENOMEM;
        l.repos = repos;
        r = deb822_parse_config(text, size, file, diag, add_paragraph, &l);
        if (r == DEB822_E_REPORTED || (r == 0 && l.n_errors > 0))
                return REPOSITORIES_E_INVALID;
        if (r != 0)
                return r;
        *ret = TAKE_PTR(repos);
        return 0;
}

int repositories_load(const char *path, Diagnostics *diag, Repositories **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r = deb822_load_config(path, REPOSITORIES_MAX_SIZE, diag, &text, &size);

        if (r == DEB822_E_REPORTED)
                return REPOSITORIES_E_INVALID;
        if (r < 0)
                return r;
        return repositories_parse(text, size, path, diag, ret);
}
