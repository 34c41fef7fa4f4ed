/* The record of a change in progress, so that a crash in the middle can be undone. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"
#include "paths.h"

typedef struct IntegrityPlan IntegrityPlan;
typedef struct IntegritySaved IntegritySaved;
typedef struct SafeRoot SafeRoot;

enum {
        JOURNAL_E_CORRUPT = 1,          /* the journal cannot be read: see the message */
};

/* More files than any package has; a journal that lists more is refused. */
#define JOURNAL_MAX_FILES (1u << 20)

/* What package's installed state was before the interrupted change. */
typedef struct Journal {
        char *package;
        char *origin;                   /* (nullable) the origin file's origin */
        char *origin_file;              /* (nullable) the whole origin file, if there was one */
        char *manifest_data;            /* (nullable) not installed before */
        size_t manifest_size;
        /* Version 3: every file whose security.ima the change was to touch,
         * with the value before (integrity.h). Older journals have no
         * such list: recovery plans the hashes again from the manifests. */
        bool has_ima;
        IntegritySaved *ima;            /* (nullable) none */
        size_t n_ima;
} Journal;

/* lock_file + ".journal" (allocated). */
char *journal_path(const ToolPaths *paths);

/*
 * Record package's installed manifest and origin as they are on disk now,
 * and the current security.ima of every file integrity (nullable: none)
 * will change, durably (atomic write), before anything is changed.
 * -E2BIG/-EFBIG when that is more than a journal may hold.
 */
int journal_begin(const ToolPaths *paths, const SafeRoot *root, const char *package,
                  const IntegrityPlan *integrity);
/* The change is committed or rolled back: forget it. */
int journal_end(const ToolPaths *paths);

/*
 * Parse a journal's bytes: 0 and *ret, JOURNAL_E_CORRUPT with the line
 * where it goes wrong in *ret_line (nullable), or -ENOMEM.
 */
int journal_parse(const char *text, size_t size, Journal **ret, unsigned *ret_line);

/*
 * 0 with *ret (NULL when there is no journal), JOURNAL_E_CORRUPT (with
 * *ret_line as journal_parse), or -errno.
 */
int journal_read(const ToolPaths *paths, Journal **ret, unsigned *ret_line);
Journal *journal_free(Journal *journal);

/* Remove what interrupted atomic writes left in dir ("NAME.tmp-XXXXXX"). */
int journal_clean_temporaries(const char *dir);

DEFINE_CLEANUP(Journal *, journal_free);
