/* The record of a change in progress, so that a crash in the middle can be undone. */
#pragma once

#include <stddef.h>

#include "macro.h"
#include "paths.h"

enum {
        JOURNAL_E_CORRUPT = 1,          /* the journal cannot be read: see the message */
};

/* What package's installed state was before the interrupted change. */
typedef struct Journal {
        char *package;
        char *origin;                   /* (nullable) the origin file's origin */
        char *origin_file;              /* (nullable) the whole origin file, if there was one */
        char *manifest_data;            /* (nullable) not installed before */
        size_t manifest_size;
} Journal;

/* lock_file + ".journal" (allocated). */
char *journal_path(const ToolPaths *paths);

/*
 * Record package's installed manifest and origin as they are on disk now,
 * durably (atomic write), before anything is changed.
 */
int journal_begin(const ToolPaths *paths, const char *package);
/* The change is committed or rolled back: forget it. */
int journal_end(const ToolPaths *paths);

/* Parse a journal's bytes: 0 and *ret, JOURNAL_E_CORRUPT, or -ENOMEM. */
int journal_parse(const char *text, size_t size, Journal **ret);

/* 0 with *ret (NULL when there is no journal), JOURNAL_E_CORRUPT, or -errno. */
int journal_read(const ToolPaths *paths, Journal **ret);
Journal *journal_free(Journal *journal);

/* Remove what interrupted atomic writes left in dir ("NAME.tmp-XXXXXX"). */
int journal_clean_temporaries(const char *dir);

DEFINE_CLEANUP(Journal *, journal_free);
