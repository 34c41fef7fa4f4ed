/*
 * Fuzz harness for the two files the RPM side reads that others could
 * have written or a crash could have cut short: the record of a
 * transaction in progress (rpm_record_parse) and the device maker's
 * rpm-origins.conf (rpm_origins_parse). Beyond "no crash, no leak": every
 * record entry that parses is one the plugin could have written (a name
 * it could register, a path normal and absolute), and every paragraph of
 * an origins file that parses has an origin and whole fingerprints.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz-text.h"
#include "manifest.h"
#include "rpm-origins.h"
#include "rpm-record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_record(const char *text, size_t size) {
        _cleanup_(rpm_record_freep) RpmRecord *record = NULL;

        if (rpm_record_parse(text, size, &record, NULL) != 0)
                return;
        for (size_t i = 0; i < record->n_entries; i++) {
                const RpmRecordEntry *e = &record->entries[i];

                if (!manifest_valid_package_label(e->name))
                        abort();
                if (e->kind == RPM_RECORD_LABEL && (!e->path || !manifest_valid_file_path(e->path)))
                        abort();
                if (e->kind == RPM_RECORD_INSTALL && (!e->version || !e->sha256 ||
                                                      strlen(e->sha256) != 64))
                        abort();
        }
}

static void check_origins(const char *text, size_t size) {
        _cleanup_(rpm_origins_freep) RpmOrigins *origins = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;

        if (diagnostics_new(&diag) < 0)
                abort();
        if (rpm_origins_parse(text, size, "fuzz", diag, &origins) != 0)
                return;
        for (size_t i = 0; i < origins->n_items; i++) {
                if (!origins->items[i].mssf_origin || origins->items[i].n_keys == 0)
                        abort();
                for (size_t k = 0; k < origins->items[i].n_keys; k++)
                        if (origins->items[i].keys[k].size != 20 && origins->items[i].keys[k].size != 32)
                                abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size);

        if (!text)
                return 0;
        check_record(text, size);
        check_origins(text, size);
        free(text);
        return 0;
}
