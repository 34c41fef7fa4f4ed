/*
 * Fuzz harness for the deb822 parsers of the package-manager glue: a
 * Packages or Release file (written by whoever runs a repository),
 * repositories.conf, an origin file and an apt record. Properties beyond
 * "no crash, no leak": every paragraph has at least one field and no NUL,
 * an origin file that parses formats to text that parses to the same
 * registration, and a repositories.conf that parses has complete entries.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz-text.h"
#include "deb822.h"
#include "registration.h"
#include "repositories.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_paragraph(const Deb822Paragraph *p, void *userdata) {
        if (p->n_fields == 0)
                abort();
        for (size_t i = 0; i < p->n_fields; i++)
                if (!p->fields[i].name[0] || deb822_get(p, p->fields[i].name) == NULL)
                        abort();
        return 0;
}

static bool same(const char *a, const char *b) {
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_registration(const char *text, size_t size) {
        Registration reg, again;
        _cleanup_free_ char *formatted = NULL;

        if (registration_parse(text, size, &reg) != 0)
                return;
        if (registration_format(&reg, &formatted) < 0)
                abort();
        if (registration_parse(formatted, strlen(formatted), &again) != 0)
                abort();
        if (!same(reg.origin, again.origin) || !same(reg.version, again.version) ||
            !same(reg.manifest_sha256, again.manifest_sha256) ||
            !same(reg.repository, again.repository))
                abort();
        registration_clear(&reg);
        registration_clear(&again);
}

static void check_repositories(const char *text, size_t size) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_(repositories_freep) Repositories *repos = NULL;

        if (diagnostics_new(&diag) < 0)
                abort();
        if (repositories_parse(text, size, "fuzz.conf", diag, &repos) != 0)
                return;
        for (size_t i = 0; i < repos->n_items; i++)
                if (!repos->items[i].mssf_origin || !repos->items[i].release_origin ||
                    !repos->items[i].release_label || repos->items[i].n_keyrings == 0)
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size);

        if (!text)
                return 0;
        (void) deb822_parse_buffer(text, size, false, check_paragraph, NULL, NULL, NULL);
        (void) deb822_parse_buffer(text, size, true, check_paragraph, NULL, NULL, NULL);
        check_registration(text, size);
        check_repositories(text, size);
        free(text);
        return 0;
}
