/* Diagnostics: the warnings and errors the policy parsers report instead of logging. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/*
 * The policy modules never print. Each parser appends what it found here,
 * with file:line:column, and the caller (mssf-policy) decides how to show
 * it. A warning never stops a manifest from loading; any error does.
 */

typedef enum DiagnosticSeverity {
        DIAGNOSTIC_WARNING,
        DIAGNOSTIC_ERROR,
} DiagnosticSeverity;

typedef struct Diagnostic {
        DiagnosticSeverity severity;
        char *file;                     /* (nullable) */
        unsigned line;                  /* 0: the whole file */
        unsigned column;                /* 0: the whole line */
        char *message;
        /*
         * Judged against the other installed packages (policy_set_resolve():
         * whether a token is granted, a label someone else holds): it can
         * stop being true when another package comes or goes, so within a
         * package manager's run it is reported once the run is over.
         */
        bool judged;
} Diagnostic;

typedef struct Diagnostics {
        Diagnostic **items;
        size_t n_items;
        size_t n_errors;
        size_t n_warnings;
        /* Beyond this many items only the counters grow (a hostile file
         * cannot make us allocate without bound). */
        size_t max_items;
        /* Items added now are judged ones (diagnostics_judging()). */
        bool judging;
        /*
         * (nullable) Which items to keep, asked as each is added (it may
         * rewrite d->file): those it refuses are neither stored nor
         * counted, so a caller that reports one package's findings among
         * thousands of others' never loses them to max_items.
         */
        bool (*keep)(Diagnostic *d, void *userdata);
        void *keep_userdata;
        /* How many keep() refused: a list that lost some is no full record (manifest-cache.c). */
        size_t n_refused;
} Diagnostics;

#define DIAGNOSTICS_MAX_ITEMS_DEFAULT 1000

int diagnostics_new(Diagnostics **ret);
Diagnostics *diagnostics_free(Diagnostics *diag);

/* Append one; returns 0 or -ENOMEM. diag may be NULL (counts nothing). */
int diagnostics_add(Diagnostics *diag, DiagnosticSeverity severity, const char *file,
                    unsigned line, unsigned column, const char *format, ...) _printf_(6, 7);
int diagnostics_addv(Diagnostics *diag, DiagnosticSeverity severity, const char *file,
                     unsigned line, unsigned column, const char *format, va_list ap)
                     _printf_(6, 0);

/* Mark what is added from now on as judged (or stop); returns the previous state. */
bool diagnostics_judging(Diagnostics *diag, bool judging);

/* Keep only what keep() accepts from now on (NULL: everything); diag may be NULL. */
void diagnostics_set_keep(Diagnostics *diag, bool (*keep)(Diagnostic *d, void *userdata),
                          void *userdata);

/* How many there were, to forget what came after (diagnostics_rewind). */
typedef struct DiagnosticsMark {
        size_t n_items;
        size_t n_errors;
        size_t n_warnings;
        size_t n_refused;
} DiagnosticsMark;

DiagnosticsMark diagnostics_mark(const Diagnostics *diag);
/* Drop everything added since mark (diag NULL: nothing). */
void diagnostics_rewind(Diagnostics *diag, const DiagnosticsMark *mark);

/* Drop the items keep() refuses (and their counts); keep() may rewrite d->file. */
void diagnostics_filter(Diagnostics *diag, bool (*keep)(Diagnostic *d, void *userdata),
                        void *userdata);

/* "file:line:column: error: message" (parts that are 0/NULL left out). */
int diagnostic_format(const Diagnostic *d, char **ret);
/* The first item whose message contains needle (for tests and tools), or NULL. */
const Diagnostic *diagnostics_find(const Diagnostics *diag, const char *needle);

DEFINE_CLEANUP(Diagnostics *, diagnostics_free);
