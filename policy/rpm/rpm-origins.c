/*
 * rpm-origins.conf, the device maker's statement of which signing keys'
 * packages get which origin (rpm-origins.h has the format,
 * docs/packaging-rpm.md the reasoning).
 *
 * The file is configuration written by root, the only word on origins an
 * rpm device has: a paragraph that is incomplete, a field we do not know
 * or a fingerprint that is not one is an error with its line, and the
 * plugin then refuses the whole rpm transaction rather than install
 * packages with origins nobody meant. Fingerprints are compared whole: a
 * short key ID is not a key.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deb822.h"
#include "manifest.h"
#include "rpm-origins.h"

#define RPM_ORIGINS_MAX_SIZE (1u << 20)

RpmOrigins *rpm_origins_free(RpmOrigins *origins) {
        if (!origins)
                return NULL;
        for (size_t i = 0; i < origins->n_items; i++) {
                free(origins->items[i].mssf_origin);
                free(origins->items[i].keys);
        }
        free(origins->items);
        free(origins->file);
        free(origins);
        return NULL;
}

typedef struct Loader {
        RpmOrigins *origins;
        Diagnostics *diag;
        size_t n_errors;
} Loader;

_printf_(3, 4)
static void error_at(Loader *l, unsigned line, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        diagnostics_addv(l->diag, DIAGNOSTIC_ERROR, l->origins->file, line, 0, format, ap);
        va_end(ap);
        l->n_errors++;
}

/* One fingerprint as written (spaces ignored): true and *ret, or false. */
static bool parse_fingerprint(const char *text, size_t length, RpmFingerprint *ret) {
        size_t digits = 0;

        *ret = (RpmFingerprint) {};
        for (size_t i = 0; i < length; i++) {
                int value;

                if (text[i] == ' ' || text[i] == '\t')
                        continue;
                value = hex_digit_value(text[i]);
                if (value < 0 || digits >= 2 * RPM_ORIGINS_MAX_FINGERPRINT)
                        return false;
                ret->bytes[digits / 2] |= (uint8_t) (digits % 2 ? value : value << 4);
                digits++;
        }
        if (digits != 40 && digits != 64)
                return false;
        ret->size = digits / 2;
        return true;
}

static int split_keys(Loader *l, const Deb822Field *f, RpmOrigin *origin) {
        const char *p = f->value;
        size_t errors = l->n_errors;

        while (*p) {
                size_t length = strcspn(p, ",\n");
                RpmFingerprint key, *keys;

                if (strspn(p, " \t") >= length) {
                        p += length + (p[length] != '\0');
                        continue;
                }
                if (!parse_fingerprint(p, length, &key)) {
                        error_at(l, f->line, "Signed-By: '%.*s' is not an OpenPGP fingerprint "
                                 "(40 hex digits for a v4 key, 64 for v5 or v6; a short key "
                                 "ID names no key)", (int) length, p);
                        p += length + (p[length] != '\0');
                        continue;
                }
                keys = reallocarray(origin->keys, origin->n_keys + 1, sizeof(*keys));
                if (!keys)
                        return -ENOMEM;
                origin->keys = keys;
                keys[origin->n_keys++] = key;
                p += length + (p[length] != '\0');
        }
        if (origin->n_keys == 0 && errors == l->n_errors)
                error_at(l, f->line, "Signed-By names no key: name the fingerprints of the keys "
                         "whose packages get this origin");
        return 0;
}

static int add_paragraph(const Deb822Paragraph *p, void *userdata) {
        Loader *l = userdata;
        RpmOrigin origin = { .line = p->line }, *items;
        const Deb822Field *name = deb822_field(p, "Mssf-Origin"), *keys = deb822_field(p, "Signed-By");
        int r = 0;

        for (size_t i = 0; i < p->n_fields; i++)
                if (strcasecmp(p->fields[i].name, "Mssf-Origin") != 0 &&
                    strcasecmp(p->fields[i].name, "Signed-By") != 0)
                        error_at(l, p->fields[i].line, "unknown field '%s': a paragraph has "
                                 "Mssf-Origin and Signed-By", p->fields[i].name);
        items = reallocarray(l->origins->items, l->origins->n_items + 1, sizeof(*items));
        if (!items)
                return -ENOMEM;
        l->origins->items = items;
        if (!name || !name->value[0])
                error_at(l, p->line, "this paragraph has no Mssf-Origin field");
        else if (strchr(name->value, '\n') || !manifest_valid_label(name->value) ||
                 strchr(name->value, '*'))
                error_at(l, name->line, "Mssf-Origin '%s' is not an origin name (one line, "
                         "printable, no spaces or '*')", name->value);
        else if (!(origin.mssf_origin = strdup(name->value)))
                r = -ENOMEM;
        if (r == 0 && keys)
                r = split_keys(l, keys, &origin);
        else if (r == 0)
                error_at(l, p->line, "this paragraph has no Signed-By field: name the keys "
                         "whose packages get this origin");
        /* Kept even when incomplete, so that free() finds everything. */
        items[l->origins->n_items++] = origin;
        return r;
}

int rpm_origins_parse(const char *text, size_t size, const char *file, Diagnostics *diag,
                      RpmOrigins **ret) {
        _cleanup_(rpm_origins_freep) RpmOrigins *origins = calloc(1, sizeof(*origins));
        Loader l = { .diag = diag };
        int r;

        if (!origins || !(origins->file = strdup(file)))
                return -ENOMEM;
        l.origins = origins;
        r = deb822_parse_config(text, size, file, diag, add_paragraph, &l);
        if (r == DEB822_E_REPORTED || (r == 0 && l.n_errors > 0))
                return RPM_ORIGINS_E_INVALID;
        if (r != 0)
                return r;
        *ret = TAKE_PTR(origins);
        return 0;
}

int rpm_origins_load(const char *path, Diagnostics *diag, RpmOrigins **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r = deb822_load_config(path, RPM_ORIGINS_MAX_SIZE, diag, &text, &size);

        if (r == DEB822_E_REPORTED)
                return RPM_ORIGINS_E_INVALID;
        if (r < 0)
                return r;
        return rpm_origins_parse(text, size, path, diag, ret);
}

const RpmOrigin *rpm_origins_find(const RpmOrigins *origins, const RpmFingerprint *fingerprint) {
        for (size_t i = 0; origins && i < origins->n_items; i++)
                for (size_t k = 0; k < origins->items[i].n_keys; k++) {
                        const RpmFingerprint *key = &origins->items[i].keys[k];

                        if (key->size == fingerprint->size &&
                            memcmp(key->bytes, fingerprint->bytes, key->size) == 0)
                                return &origins->items[i];
                }
        return NULL;
}

void rpm_fingerprint_hex(const RpmFingerprint *fingerprint, char *hex) {
        static const char digits[] = "0123456789ABCDEF";

        for (size_t i = 0; i < fingerprint->size; i++) {
                hex[2 * i] = digits[fingerprint->bytes[i] >> 4];
                hex[2 * i + 1] = digits[fingerprint->bytes[i] & 15];
        }
        hex[2 * fingerprint->size] = '\0';
}
