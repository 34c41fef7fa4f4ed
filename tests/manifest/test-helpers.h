/* Helpers shared by the manifest tests: fixture paths, diagnostics lookups. */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "diagnostic.h"
#include "manifest.h"

#ifndef FIXTURES
#error "FIXTURES must name tests/manifest/fixtures"
#endif

static inline const char *fixture(const char *dir, const char *name) {
        static char path[4096];
        snprintf(path, sizeof(path), "%s/%s/%s", FIXTURES, dir, name);
        return path;
}

static inline bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && strcmp(s + n - k, suffix) == 0;
}

/*
 * Assert that diag holds a diagnostic of severity at file (suffix):line:column
 * whose message contains needle.
 */
static inline void assert_diagnostic(const Diagnostics *diag, DiagnosticSeverity severity,
                                     const char *file, unsigned line, unsigned column,
                                     const char *needle) {
        for (size_t i = 0; i < diag->n_items; i++) {
                const Diagnostic *d = diag->items[i];
                if (d->severity == severity && d->line == line && d->column == column &&
                    d->file && ends_with(d->file, file) && strstr(d->message, needle))
                        return;
        }
        for (size_t i = 0; i < diag->n_items; i++) {
                char *s = NULL;
                if (diagnostic_format(diag->items[i], &s) == 0)
                        print_error("  have: %s\n", s);
                free(s);
        }
        print_error("missing %s at %s:%u:%u containing \"%s\"\n",
                    severity == DIAGNOSTIC_ERROR ? "error" : "warning", file, line, column, needle);
        fail();
}
