/*
 * The origin file of an installed package (registration.h has the
 * format). The first line alone is what `mssf-policy install --origin`
 * always wrote, so older files read the same; the fields after it are
 * written only by `mssf-policy dpkg configure` and rpm's plugin. The
 * file is ours (root's, under /var/lib/mssf), but it is still parsed
 * strictly: a file we cannot read is refused, never taken as "no
 * origin" silently, because the origin decides what a package may be
 * granted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deb822.h"
#include "registration.h"

void registration_clear(Registration *reg) {
        free(reg->origin);
        free(reg->version);
        free(reg->architecture);
        free(reg->manifest_sha256);
        free(reg->repository);
        free(reg->unpacked);
        free(reg->package_manager);
        *reg = (Registration) {};
}

bool registration_from_dpkg(const Registration *reg) {
        return reg->version != NULL && !reg->package_manager;
}

bool registration_from_rpm(const Registration *reg) {
        return reg->version != NULL && reg->package_manager &&
               strcmp(reg->package_manager, "rpm") == 0;
}

/* One value: printable, one line. */
static bool value_valid(const char *s) {
        for (; *s; s++)
                if ((unsigned char) *s < ' ' || *s == 0x7f)
                        return false;
        return true;
}

static int take(const Deb822Paragraph *p, const char *name, char **ret) {
        const char *value = deb822_get(p, name);

        if (!value)
                return 0;
        if (!value_valid(value))
                return REGISTRATION_E_INVALID;
        *ret = strdup(value);
        return *ret ? 0 : -ENOMEM;
}

static int fields_of(const Deb822Paragraph *p, void *userdata) {
        static const char *const known[] = {
                "Version", "Architecture", "Manifest-SHA256", "Repository", "Unpacked",
                "Package-Manager",
        };
        Registration *reg = userdata;
        int r;

        if (reg->version)
                return REGISTRATION_E_INVALID;  /* one paragraph only */
        for (size_t i = 0; i < p->n_fields; i++) {
                bool ok = false;

                for (size_t k = 0; k < ELEMENTSOF(known); k++)
                        ok = ok || strcasecmp(p->fields[i].name, known[k]) == 0;
                if (!ok)
                        return REGISTRATION_E_INVALID;
        }
        r = take(p, "Version", &reg->version);
        if (r == 0)
                r = take(p, "Architecture", &reg->architecture);
        if (r == 0)
                r = take(p, "Manifest-SHA256", &reg->manifest_sha256);
        if (r == 0)
                r = take(p, "Repository", &reg->repository);
        if (r == 0)
                r = take(p, "Unpacked", &reg->unpacked);
        if (r == 0)
                r = take(p, "Package-Manager", &reg->package_manager);
        if (r == 0 && reg->package_manager && strcmp(reg->package_manager, "rpm") != 0)
                r = REGISTRATION_E_INVALID;
        if (r == 0 && (!reg->version || !reg->architecture || !reg->manifest_sha256))
                r = REGISTRATION_E_INVALID;
        return r;
}

int registration_parse(const char *text, size_t size, Registration *ret) {
        Registration reg = {};
        size_t first = strcspn(text, "\n");
        int r;

        if (memchr(text, '\0', size))
                return REGISTRATION_E_INVALID;
        if (first > 0 && text[first - 1] == '\r')
                first--;
        if (first > 0 && !(first == 1 && text[0] == '-')) {
                reg.origin = strndup(text, first);
                if (!reg.origin)
                        return -ENOMEM;
                if (strpbrk(reg.origin, " \t") || !value_valid(reg.origin)) {
                        registration_clear(&reg);
                        return REGISTRATION_E_INVALID;
                }
        }
        text += strcspn(text, "\n");
        if (*text == '\n')
                text++;
        r = deb822_parse_buffer(text, strlen(text), false, fields_of, &reg, NULL, NULL);
        if (r == DEB822_E_SYNTAX)
                r = REGISTRATION_E_INVALID;
        if (r != 0) {
                registration_clear(&reg);
                return r;
        }
        *ret = reg;
        return 0;
}

int registration_format(const Registration *reg, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\n", reg->origin ? reg->origin : "-");
        if (reg->version) {
                fprintf(f, "Version: %s\nArchitecture: %s\nManifest-SHA256: %s\n", reg->version,
                        reg->architecture ? reg->architecture : "",
                        reg->manifest_sha256 ? reg->manifest_sha256 : "");
                if (reg->repository)
                        fprintf(f, "Repository: %s\n", reg->repository);
                if (reg->unpacked)
                        fprintf(f, "Unpacked: %s\n", reg->unpacked);
                if (reg->package_manager)
                        fprintf(f, "Package-Manager: %s\n", reg->package_manager);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}
