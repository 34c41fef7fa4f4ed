/* What an rpm transaction has begun and not yet finished, so that the next run can finish it. */
#pragma once

#include <stddef.h>

#include "macro.h"
#include "paths.h"

/*
 * LOCK_FILE ".rpm", written (atomically) by the plugin before each step
 * it cannot take back by itself, removed when the transaction's
 * policy.db is written. Its presence alone says that policy.db may be
 * behind the registrations. Format, one entry a line:
 *
 *     mssf-policy rpm transaction 1
 *     suffix ;6b15e473             rpm's temporary file names: PATH + suffix
 *     install NAME VERSION SHA256 ORIGIN KEY
 *                                  a manifest checked, not yet registered:
 *                                  VERSION is rpm's EVR.ARCH, SHA256 the
 *                                  manifest's, ORIGIN and KEY "-" when none
 *     label NAME PATH              PATH (or PATH + suffix) got NAME's
 *                                  SMACK64EXEC before rpm renamed it
 *     erase NAME                   rpm is erasing a package it registered
 */
typedef enum RpmRecordKind {
        RPM_RECORD_INSTALL,
        RPM_RECORD_LABEL,
        RPM_RECORD_ERASE,
} RpmRecordKind;

typedef struct RpmRecordEntry {
        RpmRecordKind kind;
        char *name;
        char *version;                  /* (install) */
        char *sha256;                   /* (install) */
        char *origin;                   /* (install, nullable) */
        char *key;                      /* (install, nullable) the signing key's fingerprint */
        char *path;                     /* (label) */
} RpmRecordEntry;

typedef struct RpmRecord {
        char *suffix;                   /* (nullable) */
        RpmRecordEntry *entries;
        size_t n_entries;
} RpmRecord;

enum {
        RPM_RECORD_E_CORRUPT = 1,       /* not a record we wrote: see the line */
};

/* lock_file + ".rpm" (allocated). */
char *rpm_record_path(const ToolPaths *paths);

int rpm_record_new(RpmRecord **ret);
RpmRecord *rpm_record_free(RpmRecord *record);

/* Add an entry (copies the strings; origin, key nullable). 0 or -ENOMEM. */
int rpm_record_add(RpmRecord *record, RpmRecordKind kind, const char *name, const char *version,
                   const char *sha256, const char *origin, const char *key, const char *path);
/* Forget every entry of name. */
void rpm_record_forget(RpmRecord *record, const char *name);

/* Write it (atomically), or remove the file when it is NULL. 0 or -errno. */
int rpm_record_write(const ToolPaths *paths, const RpmRecord *record);

/*
 * Parse a record's bytes: 0 and *ret, RPM_RECORD_E_CORRUPT with the line
 * in *ret_line, or -ENOMEM. read: the same from the file, *ret NULL when
 * there is none.
 */
int rpm_record_parse(const char *text, size_t size, RpmRecord **ret, unsigned *ret_line);
int rpm_record_read(const ToolPaths *paths, RpmRecord **ret, unsigned *ret_line);

DEFINE_CLEANUP(RpmRecord *, rpm_record_free);
