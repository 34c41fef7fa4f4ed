/*
 * The records apt's hook leaves for dpkg's configure step (apt-record.h).
 * They live in a root-owned directory that only mssf-policy writes; a
 * record that does not parse is refused (the package then gets the
 * unknown origin and the error says why), never half-used.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apt-record.h"
#include "deb822.h"
#include "fileio.h"
#include "manifest.h"

void apt_record_clear(AptRecord *record) {
        free(record->package);
        free(record->architecture);
        free(record->version);
        free(record->deb_sha256);
        free(record->manifest_sha256);
        free(record->md5sums_sha256);
        free(record->origin);
        free(record->repository);
        *record = (AptRecord) {};
}

char *apt_record_path(const ToolPaths *paths, const char *package) {
        return fileio_join(paths->apt_origin_dir, package);
}

static const struct {
        const char *name;
        size_t offset;
        bool required;
} fields[] = {
        { "Package", offsetof(AptRecord, package), true },
        { "Architecture", offsetof(AptRecord, architecture), true },
        { "Version", offsetof(AptRecord, version), true },
        { "Deb-SHA256", offsetof(AptRecord, deb_sha256), true },
        { "Manifest-SHA256", offsetof(AptRecord, manifest_sha256), true },
        { "Md5sums-SHA256", offsetof(AptRecord, md5sums_sha256), false },
        { "Mssf-Origin", offsetof(AptRecord, origin), false },
        { "Repository", offsetof(AptRecord, repository), false },
};

static char **field_of(AptRecord *record, size_t i) {
        return (char **) ((char *) record + fields[i].offset);
}

static int take_paragraph(const Deb822Paragraph *p, void *userdata) {
        AptRecord *record = userdata;

        if (record->package)
                return APT_RECORD_E_INVALID;    /* one paragraph only */
        for (size_t i = 0; i < p->n_fields; i++) {
                bool known = false;

                for (size_t k = 0; k < ELEMENTSOF(fields); k++)
                        known = known || strcasecmp(p->fields[i].name, fields[k].name) == 0;
                if (!known || strchr(p->fields[i].value, '\n'))
                        return APT_RECORD_E_INVALID;
        }
        for (size_t k = 0; k < ELEMENTSOF(fields); k++) {
                const char *value = deb822_get(p, fields[k].name);

                if (!value) {
                        if (fields[k].required)
                                return APT_RECORD_E_INVALID;
                        continue;
                }
                *field_of(record, k) = strdup(value);
                if (!*field_of(record, k))
                        return -ENOMEM;
        }
        return 0;
}

int apt_record_read(const ToolPaths *paths, const char *package, AptRecord *ret) {
        _cleanup_free_ char *path = apt_record_path(paths, package), *text = NULL;
        AptRecord record = {};
        size_t size = 0;
        int r;

        *ret = (AptRecord) {};
        if (!path)
                return -ENOMEM;
        r = fileio_read(path, &text, &size);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        r = deb822_parse_buffer(text, size, false, take_paragraph, &record, NULL, NULL);
        if (r == DEB822_E_SYNTAX)
                r = APT_RECORD_E_INVALID;
        if (r == 0 && (!record.package || strcmp(record.package, package) != 0 ||
                       (record.origin && !manifest_valid_label(record.origin))))
                r = APT_RECORD_E_INVALID;
        if (r != 0) {
                apt_record_clear(&record);
                return r;
        }
        *ret = record;
        return 0;
}

int apt_record_write(const ToolPaths *paths, const AptRecord *record) {
        _cleanup_free_ char *path = apt_record_path(paths, record->package), *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (!path)
                return -ENOMEM;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        for (size_t k = 0; k < ELEMENTSOF(fields); k++) {
                const char *value = *field_of((AptRecord *) record, k);

                if (value)
                        fprintf(f, "%s: %s\n", fields[k].name, value);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        r = fileio_mkdir_p(paths->apt_origin_dir, 0755);
        if (r < 0)
                return r;
        return fileio_write_atomic(path, text, size, 0644);
}

int apt_record_remove(const ToolPaths *paths, const char *package) {
        _cleanup_free_ char *path = apt_record_path(paths, package);

        if (!path)
                return -ENOMEM;
        return fileio_unlink(path);
}
