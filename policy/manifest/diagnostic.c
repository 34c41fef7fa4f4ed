/*
 * Diagnostics: an append-only list of warnings and errors with positions.
 *
 * The list is bounded (max_items): past it only the counters grow, so a
 * file with a million mistakes costs a million increments, not a million
 * allocations. Adding to a NULL list is allowed and does nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostic.h"
#include "model.h"

int diagnostics_new(Diagnostics **ret) {
        Diagnostics *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->max_items = DIAGNOSTICS_MAX_ITEMS_DEFAULT;
        *ret = d;
        return 0;
}

static Diagnostic *diagnostic_free(Diagnostic *d) {
        if (!d)
                return NULL;
        free(d->file);
        free(d->message);
        free(d);
        return NULL;
}
DEFINE_CLEANUP(Diagnostic *, diagnostic_free);

Diagnostics *diagnostics_free(Diagnostics *diag) {
        if (!diag)
                return NULL;
        for (size_t i = 0; i < diag->n_items; i++)
                diagnostic_free(diag->items[i]);
        free(diag->items);
        free(diag);
        return NULL;
}

static void count(Diagnostics *diag, DiagnosticSeverity severity) {
        if (severity == DIAGNOSTIC_ERROR)
                diag->n_errors++;
        else
                diag->n_warnings++;
}

int diagnostics_addv(Diagnostics *diag, DiagnosticSeverity severity, const char *file,
                     unsigned line, unsigned column, const char *format, va_list ap) {
        if (!diag)
                return 0;
        /* Without a filter, past max_items only the counters grow. */
        if (!diag->keep && diag->n_items >= diag->max_items) {
                count(diag, severity);
                return 0;
        }

        _cleanup_(diagnostic_freep) Diagnostic *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->severity = severity;
        d->line = line;
        d->column = column;
        d->judged = diag->judging;
        if (model_strdup(file, &d->file) < 0 || vasprintf(&d->message, format, ap) < 0) {
                d->message = NULL;
                return -ENOMEM;
        }
        if (diag->keep && !diag->keep(d, diag->keep_userdata)) {
                diag->n_refused++;
                return 0;
        }
        count(diag, severity);
        if (diag->n_items >= diag->max_items)
                return 0;
        int r = model_append(&diag->items, &diag->n_items, d);
        if (r < 0)
                return r;
        TAKE_PTR(d);
        return 0;
}

int diagnostics_add(Diagnostics *diag, DiagnosticSeverity severity, const char *file,
                    unsigned line, unsigned column, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        int r = diagnostics_addv(diag, severity, file, line, column, format, ap);
        va_end(ap);
        return r;
}

bool diagnostics_judging(Diagnostics *diag, bool judging) {
        bool was;

        if (!diag)
                return false;
        was = diag->judging;
        diag->judging = judging;
        return was;
}

void diagnostics_set_keep(Diagnostics *diag, bool (*keep)(Diagnostic *d, void *userdata),
                          void *userdata) {
        if (!diag)
                return;
        diag->keep = keep;
        diag->keep_userdata = userdata;
}

DiagnosticsMark diagnostics_mark(const Diagnostics *diag) {
        if (!diag)
                return (DiagnosticsMark) {};
        return (DiagnosticsMark) {
                .n_items = diag->n_items,
                .n_errors = diag->n_errors,
                .n_warnings = diag->n_warnings,
                .n_refused = diag->n_refused,
        };
}

void diagnostics_rewind(Diagnostics *diag, const DiagnosticsMark *mark) {
        if (!diag)
                return;
        while (diag->n_items > mark->n_items)
                diagnostic_free(diag->items[--diag->n_items]);
        diag->n_errors = mark->n_errors;
        diag->n_warnings = mark->n_warnings;
        diag->n_refused = mark->n_refused;
}

void diagnostics_filter(Diagnostics *diag, bool (*keep)(Diagnostic *d, void *userdata),
                        void *userdata) {
        size_t kept = 0;

        if (!diag)
                return;
        for (size_t i = 0; i < diag->n_items; i++) {
                Diagnostic *d = diag->items[i];

                if (keep(d, userdata)) {
                        diag->items[kept++] = d;
                        continue;
                }
                if (d->severity == DIAGNOSTIC_ERROR)
                        diag->n_errors--;
                else
                        diag->n_warnings--;
                diagnostic_free(d);
        }
        diag->n_items = kept;
}

int diagnostic_format(const Diagnostic *d, char **ret) {
        char where[64] = "";
        if (d->line > 0 && d->column > 0)
                snprintf(where, sizeof(where), ":%u:%u", d->line, d->column);
        else if (d->line > 0)
                snprintf(where, sizeof(where), ":%u", d->line);
        char *s;
        if (asprintf(&s, "%s%s%s%s: %s", d->file ? d->file : "", where,
                     d->file || d->line ? ": " : "",
                     d->severity == DIAGNOSTIC_ERROR ? "error" : "warning", d->message) < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

const Diagnostic *diagnostics_find(const Diagnostics *diag, const char *needle) {
        for (size_t i = 0; i < diag->n_items; i++)
                if (strstr(diag->items[i]->message, needle))
                        return diag->items[i];
        return NULL;
}
