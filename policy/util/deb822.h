/* Debian control-file syntax (deb822): paragraphs of "Field: value" lines. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "macro.h"

/*
 * What apt and dpkg write and read: Packages and Release files, apt-get
 * indextargets, dpkg-query output, and mssf-policy's own records and
 * configuration. Input is untrusted (a repository writes its Packages
 * file): every size is bounded and every mistake has a line number.
 */
enum {
        /* Not deb822: see the reader's error and line. (Not 1: deb822_read()
         * returns 1 for a paragraph; callbacks may return other codes.) */
        DEB822_E_SYNTAX = 2,
        /* A configuration file's mistake, said in the caller's Diagnostics. */
        DEB822_E_REPORTED = 3,
};

typedef struct Diagnostics Diagnostics;

#define DEB822_MAX_LINE (1u << 20)              /* bytes in one line */
#define DEB822_MAX_PARAGRAPH (16u << 20)        /* bytes in one paragraph */
#define DEB822_MAX_FIELDS 1024                  /* fields in one paragraph */

typedef struct Deb822Field {
        char *name;
        /* The first line's text and each continuation line (without its
         * leading space), joined by '\n'; " ." lines give empty lines. */
        char *value;
        unsigned line;
} Deb822Field;

typedef struct Deb822Paragraph {
        Deb822Field *fields;
        size_t n_fields;
        unsigned line;                  /* of its first field */
} Deb822Paragraph;

typedef struct Deb822Reader {
        FILE *f;                        /* (not owned) */
        bool comments;                  /* '#' lines are comments (configuration files) */
        unsigned line;                  /* lines read so far */
        char *buf;                      /* (owned) getline's */
        size_t buf_size;
        const char *error;              /* (static) after DEB822_E_SYNTAX: what */
        unsigned error_line;
} Deb822Reader;

void deb822_reader_init(Deb822Reader *r, FILE *f, bool comments);
void deb822_reader_deinit(Deb822Reader *r);

/*
 * The next paragraph: 1 and *ret (free with deb822_paragraph_clear), 0 at
 * the end, DEB822_E_SYNTAX (r->error, r->error_line), or -errno.
 */
int deb822_read(Deb822Reader *r, Deb822Paragraph *ret);
void deb822_paragraph_clear(Deb822Paragraph *p);

/* A field's value (names compare case-insensitively), or NULL; and its field. */
const char *deb822_get(const Deb822Paragraph *p, const char *name);
const Deb822Field *deb822_field(const Deb822Paragraph *p, const char *name);

/*
 * Parse a whole buffer: calls fn per paragraph; stops at fn's first
 * nonzero return and returns it (which must not be DEB822_E_SYNTAX).
 */
int deb822_parse_buffer(const char *data, size_t size, bool comments,
                        int (*fn)(const Deb822Paragraph *p, void *userdata), void *userdata,
                        const char **ret_error, unsigned *ret_error_line);

/*
 * A configuration file of paragraphs that root writes (repositories.conf,
 * rpm-origins.conf): comments allowed, and what is wrong with it said in
 * diag at its file and line. load reads path whole into *ret_text (an
 * absent file reads as empty: no paragraph), refusing one larger than
 * max_size; parse calls fn per paragraph of text. Both return 0,
 * DEB822_E_REPORTED (said in diag), fn's nonzero return, or -errno.
 */
int deb822_load_config(const char *path, size_t max_size, Diagnostics *diag, char **ret_text, size_t *ret_size);
int deb822_parse_config(const char *text, size_t size, const char *file, Diagnostics *diag,
                        int (*fn)(const Deb822Paragraph *p, void *userdata), void *userdata);
