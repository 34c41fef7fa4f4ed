/*
 * A reader of deb822, the format of Debian's control files (deb-control(5),
 * "Debian control files" in Debian Policy 5.1): paragraphs separated by
 * blank lines, each a list of "Name: value" fields, a value continued on
 * lines that start with a space or a tab.
 *
 * It reads what apt and dpkg hand mssf-policy (Packages and Release files
 * as apt stored them, apt-get indextargets, dpkg-query) and mssf-policy's
 * own files. A Packages file is written by whoever runs the repository,
 * so nothing is assumed about it: lines, paragraphs and field counts are
 * bounded, a NUL byte or a continuation with nothing to continue is an
 * error with its line. It never allocates more than one paragraph.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "deb822.h"
#include "diagnostic.h"
#include "fileio.h"

void deb822_reader_init(Deb822Reader *r, FILE *f, bool comments) {
        *r = (Deb822Reader) { .f = f, .comments = comments };
}

void deb822_reader_deinit(Deb822Reader *r) {
        free(r->buf);
        r->buf = NULL;
        r->buf_size = 0;
}

void deb822_paragraph_clear(Deb822Paragraph *p) {
        for (size_t i = 0; i < p->n_fields; i++) {
                free(p->fields[i].name);
                free(p->fields[i].value);
        }
        free(p->fields);
        *p = (Deb822Paragraph) {};
}

static int syntax_error(Deb822Reader *r, const char *what) {
        r->error = what;
        r->error_line = r->line;
        return DEB822_E_SYNTAX;
}

#define LINE_END 100       /* next_line(): no more lines */

/* The next line, without its line end, in r->buf: 0, LINE_END, DEB822_E_SYNTAX or -errno. */
static int next_line(Deb822Reader *r, ssize_t *ret_len) {
        ssize_t n;

        errno = 0;
        n = getline(&r->buf, &r->buf_size, r->f);
        if (n < 0)
                return errno != 0 ? -errno : LINE_END;
        r->line++;
        if ((size_t) n > DEB822_MAX_LINE)
                return syntax_error(r, "a line longer than 1 MiB");
        if (memchr(r->buf, '\0', (size_t) n))
                return syntax_error(r, "a NUL byte");
        while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
                r->buf[--n] = '\0';
        *ret_len = n;
        return 0;
}

static bool blank(const char *s) {
        return s[strspn(s, " \t")] == '\0';
}

/* "Name: value": a new field. */
static int add_field(Deb822Reader *r, Deb822Paragraph *p, const char *line) {
        const char *colon = strchr(line, ':');
        const char *value;
        Deb822Field *fields;
        size_t name_len;

        if (!colon || colon == line)
                return syntax_error(r, "a line that is neither \"Field: value\" nor a continuation");
        name_len = (size_t) (colon - line);
        if (memchr(line, ' ', name_len) || memchr(line, '\t', name_len) || line[0] == '-')
                return syntax_error(r, "a field name with a space, or starting with '-'");
        if (p->n_fields >= DEB822_MAX_FIELDS)
                return syntax_error(r, "more than 1024 fields in one paragraph");
        fields = reallocarray(p->fields, p->n_fields + 1, sizeof(Deb822Field));
        if (!fields)
                return -ENOMEM;
        p->fields = fields;
        value = colon + 1 + strspn(colon + 1, " \t");
        fields[p->n_fields] = (Deb822Field) {
                .name = strndup(line, name_len),
                .value = strdup(value),
                .line = r->line,
        };
        if (!fields[p->n_fields].name || !fields[p->n_fields].value) {
                free(fields[p->n_fields].name);
                free(fields[p->n_fields].value);
                return -ENOMEM;
        }
        /* Trailing blanks are not part of a value. */
        for (char *v = fields[p->n_fields].value, *end = v + strlen(v);
             end > v && (end[-1] == ' ' || end[-1] == '\t');)
                *--end = '\0';
        if (p->n_fields == 0)
                p->line = r->line;
        p->n_fields++;
        return 0;
}

/* " text": one more line of the last field's value. */
static int continue_field(Deb822Reader *r, Deb822Paragraph *p, const char *line) {
        Deb822Field *f;
        const char *text = line + strspn(line, " \t");
        size_t old, add;
        char *value;

        if (p->n_fields == 0)
                return syntax_error(r, "a continuation line with no field to continue");
        f = &p->fields[p->n_fields - 1];
        if (strcmp(text, ".") == 0)
                text = "";
        old = strlen(f->value);
        add = strlen(text);
        value = realloc(f->value, old + 1 + add + 1);
        if (!value)
                return -ENOMEM;
        value[old] = '\n';
        memcpy(value + old + 1, text, add + 1);
        f->value = value;
        return 0;
}

static int read_into(Deb822Reader *r, Deb822Paragraph *p) {
        size_t bytes = 0;
        ssize_t len;
        int r_line;

        for (;;) {
                r_line = next_line(r, &len);
                if (r_line == LINE_END)
                        return p->n_fields > 0;
                if (r_line != 0)
                        return r_line;
                if (r->comments && r->buf[0] == '#')
                        continue;
                if (blank(r->buf)) {
                        if (p->n_fields > 0)
                                return 1;
                        continue;
                }
                bytes += (size_t) len;
                if (bytes > DEB822_MAX_PARAGRAPH)
                        return syntax_error(r, "a paragraph larger than 16 MiB");
                r_line = r->buf[0] == ' ' || r->buf[0] == '\t' ? continue_field(r, p, r->buf) :
                                                                 add_field(r, p, r->buf);
                if (r_line != 0)
                        return r_line;
        }
}

int deb822_read(Deb822Reader *r, Deb822Paragraph *ret) {
        Deb822Paragraph p = {};
        int result = read_into(r, &p);

        if (result != 1) {
                deb822_paragraph_clear(&p);
                return result;
        }
        *ret = p;
        return 1;
}

const Deb822Field *deb822_field(const Deb822Paragraph *p, const char *name) {
        for (size_t i = 0; i < p->n_fields; i++)
                if (strcasecmp(p->fields[i].name, name) == 0)
                        return &p->fields[i];
        return NULL;
}

const char *deb822_get(const Deb822Paragraph *p, const char *name) {
        const Deb822Field *f = deb822_field(p, name);

        return f ? f->value : NULL;
}

int deb822_parse_buffer(const char *data, size_t size, bool comments,
                        int (*fn)(const Deb822Paragraph *p, void *userdata), void *userdata,
                        const char **ret_error, unsigned *ret_error_line) {
        FILE *f;
        Deb822Reader r;
        int result;

        if (size == 0)
                return 0;
        f = fmemopen((void *) data, size, "r");
        if (!f)
                return -errno;
        deb822_reader_init(&r, f, comments);
        for (;;) {
                Deb822Paragraph p;

                result = deb822_read(&r, &p);
                if (result != 1)
                        break;
                result = fn(&p, userdata);
                deb822_paragraph_clear(&p);
                if (result != 0)
                        break;
        }
        if (result == DEB822_E_SYNTAX) {
                if (ret_error)
                        *ret_error = r.error;
                if (ret_error_line)
                        *ret_error_line = r.error_line;
        }
        deb822_reader_deinit(&r);
        fclose(f);
        return result;
}

int deb822_load_config(const char *path, size_t max_size, Diagnostics *diag, char **ret_text, size_t *ret_size) {
        char *text = NULL;
        size_t size = 0;
        int r = fileio_read(path, &text, &size);

        if (r == -ENOENT) {
                text = strdup("");
                size = 0;
                r = text ? 0 : -ENOMEM;
        }
        if (r == -EFBIG || (r >= 0 && size > max_size)) {
                free(text);
                diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0, "larger than %zu MiB", max_size >> 20);
                return DEB822_E_REPORTED;
        }
        if (r < 0)
                return r;
        *ret_text = text;
        *ret_size = size;
        return 0;
}

int deb822_parse_config(const char *text, size_t size, const char *file, Diagnostics *diag,
                        int (*fn)(const Deb822Paragraph *p, void *userdata), void *userdata) {
        const char *error = NULL;
        unsigned line = 0;
        int r = deb822_parse_buffer(text, size, true, fn, userdata, &error, &line);

        if (r == DEB822_E_SYNTAX) {
                diagnostics_add(diag, DIAGNOSTIC_ERROR, file, line, 0, "%s", error);
                return DEB822_E_REPORTED;
        }
        return r;
}
