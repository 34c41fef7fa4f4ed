/*
 * The Aegis manifest parser: one file into one Package.
 *
 * Manifests are untrusted input written by package authors; a manifest is
 * trusted only to describe its own package. This file reads the bytes,
 * tolerates what real Harmattan files do (a bare AutoGenerateAegisFile or
 * NoAegisFile first line, empty files, an XML declaration after a
 * modified-checksum comment, CRLF), and drives expat. The element handlers
 * (manifest-elements.c) build the model; the final pass
 * (manifest-finish.c) resolves and checks it.
 *
 * Invariants: the input is bounded (MANIFEST_MAX_FILE_SIZE, _DEPTH,
 * _ITEMS); DOCTYPEs and entity declarations are refused, so no entity
 * expansion ever happens; any error means no Package is returned, so a
 * half-understood manifest never reaches the policy.
 *
 * A bare token name means the package's own token when the file provides
 * one of that name anywhere, else the global one. One pass resolves it
 * by the tokens declared so far; in the rare file that uses one of its
 * own tokens bare before its <provide> declares it, the pass is repeated
 * knowing every provided name (a device compiles thousands of manifests,
 * so the usual file is read once).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "manifest-internal.h"
#include "model.h"

/* --------------------------------------------------------------------- */
/* Diagnostics at the parser's position. */

static SourceLoc parser_here(Parser *p) {
        return (SourceLoc) {
                .file = p->package->file,
                .line = (unsigned) XML_GetCurrentLineNumber(p->xml),
                .column = (unsigned) XML_GetCurrentColumnNumber(p->xml) + 1,
        };
}

/*
 * The same for a start tag, the one place asked at every element: worked
 * out from the byte index (columns in characters, a CR LF or a lone CR one
 * line end, as expat counts them), forward from the last tag. expat's own
 * XML_GetCurrentLineNumber() decodes the bytes again and was 6% of a
 * parse. Errors keep expat's count (parser_here), which is also right for
 * input that is not text.
 */
static SourceLoc parser_tag_here(Parser *p) {
        XML_Index index = XML_GetCurrentByteIndex(p->xml);
        size_t target = index < 0 ? p->pos : (size_t) index;

        if (target > p->buf_size)
                target = p->buf_size;
        if (target < p->pos) {
                /* Never seen, but cheap to get right: start again. */
                p->pos = p->line_start = 0;
                p->line = 1;
        }
        /* Line ends by memchr; byte by byte only where there is a CR. */
        if (!memchr(p->buf + p->pos, '\r', target - p->pos)) {
                const char *at = p->buf + p->pos, *end = p->buf + target, *nl;

                while ((nl = memchr(at, '\n', (size_t) (end - at)))) {
                        p->line++;
                        at = nl + 1;
                        p->line_start = (size_t) (at - p->buf);
                }
                p->pos = target;
        }
        for (; p->pos < target; p->pos++) {
                char c = p->buf[p->pos];

                if (c == '\n' || (c == '\r' && (p->pos + 1 >= p->buf_size ||
                                                 p->buf[p->pos + 1] != '\n'))) {
                        p->line++;
                        p->line_start = p->pos + 1;
                }
        }
        unsigned column = 1;
        for (size_t i = p->line_start; i < target; i++)
                /* UTF-8 continuation bytes are part of the character before. */
                if (((unsigned char) p->buf[i] & 0xc0) != 0x80)
                        column++;
        return (SourceLoc) { .file = p->package->file, .line = p->line, .column = column };
}

static void parser_report(Parser *p, DiagnosticSeverity severity, const SourceLoc *loc,
                          const char *format, va_list ap) _printf_(4, 0);
static void parser_report(Parser *p, DiagnosticSeverity severity, const SourceLoc *loc,
                          const char *format, va_list ap) {
        SourceLoc here = loc ? *loc : parser_here(p);
        if (severity == DIAGNOSTIC_ERROR)
                p->n_errors++;
        int r = diagnostics_addv(p->diag, severity, p->package->file, here.line, here.column,
                                 format, ap);
        if (r < 0)
                parser_fail(p, r);
}

void parser_error(Parser *p, const SourceLoc *loc, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        parser_report(p, DIAGNOSTIC_ERROR, loc, format, ap);
        va_end(ap);
}

void parser_warning(Parser *p, const SourceLoc *loc, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        parser_report(p, DIAGNOSTIC_WARNING, loc, format, ap);
        va_end(ap);
}

int parser_fail(Parser *p, int r) {
        if (!p->oom)
                p->oom = r;
        if (p->xml)
                XML_StopParser(p->xml, XML_FALSE);
        return r;
}

/* --------------------------------------------------------------------- */
/* expat callbacks of the main pass. */

static void XMLCALL on_start(void *userdata, const XML_Char *name, const XML_Char **attrs) {
        Parser *p = userdata;
        if (p->oom)
                return;
        SourceLoc loc = parser_tag_here(p);
        if (++p->n_elements > MANIFEST_MAX_ITEMS) {
                parser_error(p, &loc, "more than %d elements: a manifest this large is refused",
                             MANIFEST_MAX_ITEMS);
                XML_StopParser(p->xml, XML_FALSE);
                return;
        }
        if (p->depth + p->skip_depth >= MANIFEST_MAX_DEPTH) {
                parser_error(p, &loc, "elements nested deeper than %d: a manifest is at most "
                             "aegis/provide/dbus/node/interface/method/annotation",
                             MANIFEST_MAX_DEPTH);
                XML_StopParser(p->xml, XML_FALSE);
                return;
        }
        if (p->skip_depth > 0) {
                p->skip_depth++;
                return;
        }
        const Frame *parent = p->depth > 0 ? &p->stack[p->depth - 1] : NULL;
        Frame frame = { .kind = ELEMENT_SKIPPED, .loc = loc };
        parser_start_element(p, parent, name, attrs, loc, &frame);
        p->saw_root = true;
        if (frame.kind == ELEMENT_SKIPPED || frame.kind == ELEMENT_DOCSTRING) {
                p->skip_depth = 1;
                return;
        }
        p->stack[p->depth++] = frame;
}

static void XMLCALL on_end(void *userdata, const XML_Char *name) {
        Parser *p = userdata;
        if (p->skip_depth > 0)
                p->skip_depth--;
        else if (p->depth > 0)
                p->depth--;
}

static void XMLCALL on_text(void *userdata, const XML_Char *s, int len) {
        Parser *p = userdata;
        if (p->skip_depth > 0 || p->text_warned || p->oom)
                return;
        for (int i = 0; i < len; i++)
                if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') {
                        p->text_warned = true;
                        parser_warning(p, NULL, "text inside an element is ignored: manifests "
                                       "carry everything in attributes (use <docstring> "
                                       "for prose)");
                        return;
                }
}

static void XMLCALL on_doctype(void *userdata, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset) {
        Parser *p = userdata;
        /* expat is past the name here: report the line, not a misleading column. */
        SourceLoc loc = parser_here(p);
        loc.column = 0;
        parser_error(p, &loc, "a DOCTYPE is not allowed in a manifest: remove it");
        XML_StopParser(p->xml, XML_FALSE);
}

static void XMLCALL on_entity(void *userdata, const XML_Char *name, int is_parameter,
                              const XML_Char *value, int value_length, const XML_Char *base,
                              const XML_Char *sysid, const XML_Char *pubid,
                              const XML_Char *notation) {
        Parser *p = userdata;
        parser_error(p, NULL, "entity declarations are not allowed in a manifest: remove them");
        XML_StopParser(p->xml, XML_FALSE);
}

/* --------------------------------------------------------------------- */
/* What real files put before the XML. */

static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Overwrite [start, end) with spaces, keeping line ends (positions stay right). */
static void blank(char *buf, size_t start, size_t end) {
        for (size_t i = start; i < end; i++)
                if (buf[i] != '\n' && buf[i] != '\r')
                        buf[i] = ' ';
}

/* Skip whitespace and comments from i; returns the new offset. */
static size_t skip_space_and_comments(const char *buf, size_t size, size_t i, bool *saw_comment) {
        for (;;) {
                while (i < size && is_space(buf[i]))
                        i++;
                if (size - i < 4 || memcmp(buf + i, "<!--", 4) != 0)
                        return i;
                const char *end = memmem(buf + i + 4, size - i - 4, "-->", 3);
                if (!end)
                        return i;
                *saw_comment = true;
                i = (size_t) (end - buf) + 3;
        }
}

typedef enum Magic {
        MAGIC_NONE,
        MAGIC_AUTOGENERATE,
        MAGIC_NO_AEGIS,
} Magic;

/*
 * A bare first line "AutoGenerateAegisFile" or "NoAegisFile" (optionally
 * after "#"), from Qt Creator's templates: blank it out.
 */
static Magic strip_magic_line(char *buf, size_t size, size_t start) {
        size_t i = start;
        while (i < size && is_space(buf[i]))
                i++;
        size_t line_start = i;
        size_t eol = i;
        while (eol < size && buf[eol] != '\n' && buf[eol] != '\r')
                eol++;
        size_t word = line_start;
        if (word < eol && buf[word] == '#')
                word++;
        while (word < eol && (buf[word] == ' ' || buf[word] == '\t'))
                word++;
        size_t word_end = eol;
        while (word_end > word && is_space(buf[word_end - 1]))
                word_end--;
        size_t n = word_end - word;
        Magic magic = MAGIC_NONE;
        if (n == strlen("AutoGenerateAegisFile") && memcmp(buf + word, "AutoGenerateAegisFile", n) == 0)
                magic = MAGIC_AUTOGENERATE;
        else if (n == strlen("NoAegisFile") && memcmp(buf + word, "NoAegisFile", n) == 0)
                magic = MAGIC_NO_AEGIS;
        if (magic != MAGIC_NONE)
                blank(buf, line_start, eol);
        return magic;
}

/*
 * An XML declaration that is not at the very start (after a magic line or
 * a modified-checksum comment) is an XML error; it carries nothing we use,
 * so blank it. Returns true if it followed a comment (worth a warning).
 */
static bool strip_late_declaration(char *buf, size_t size, size_t start, size_t *ret_offset) {
        bool saw_comment = false;
        size_t i = skip_space_and_comments(buf, size, start, &saw_comment);
        if (i == start || size - i < 6 || memcmp(buf + i, "<?xml", 5) != 0 || !is_space(buf[i + 5]))
                return false;
        const char *end = memmem(buf + i, size - i, "?>", 2);
        if (!end)
                return false;
        blank(buf, i, (size_t) (end - buf) + 2);
        *ret_offset = i;
        return saw_comment;
}

static void line_column_of(const char *buf, size_t offset, unsigned *line, unsigned *column) {
        *line = 1;
        *column = 1;
        for (size_t i = 0; i < offset; i++) {
                if (buf[i] == '\n') {
                        (*line)++;
                        *column = 1;
                } else
                        (*column)++;
        }
}

static void preprocess(Parser *p, char *buf, size_t size) {
        size_t start = 0;
        if (size >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
                start = 3;
        Magic magic = strip_magic_line(buf, size, start);
        if (magic == MAGIC_AUTOGENERATE)
                diagnostics_add(p->diag, DIAGNOSTIC_WARNING, p->package->file, 1, 1,
                                "AutoGenerateAegisFile: this is a Qt Creator template that the "
                                "build should have replaced; only what follows it is used");
        size_t offset = 0;
        if (strip_late_declaration(buf, size, start, &offset)) {
                unsigned line, column;
                line_column_of(buf, offset, &line, &column);
                diagnostics_add(p->diag, DIAGNOSTIC_WARNING, p->package->file, line, column,
                                "XML declaration after a comment is ignored: move it to the "
                                "first line or drop it");
        }
}

/* --------------------------------------------------------------------- */
/* The main pass. */

static void report_xml_error(Parser *p) {
        enum XML_Error code = XML_GetErrorCode(p->xml);
        if (code == XML_ERROR_ABORTED)
                return;         /* reported by whoever stopped */
        if (code == XML_ERROR_NO_ELEMENTS && p->depth > 0) {
                const Frame *open = &p->stack[p->depth - 1];
                parser_error(p, NULL, "broken XML: the file ends inside <%s> opened at line %u "
                             "column %u: close it with </%s>", parser_element_name(open->kind),
                             open->loc.line, open->loc.column, parser_element_name(open->kind));
                return;
        }
        if (code == XML_ERROR_TAG_MISMATCH && p->depth > 0 && p->skip_depth == 0) {
                const Frame *open = &p->stack[p->depth - 1];
                parser_error(p, NULL, "broken XML: mismatched tag: <%s> opened at line %u "
                             "column %u is not closed: write </%s> before this",
                             parser_element_name(open->kind), open->loc.line, open->loc.column,
                             parser_element_name(open->kind));
                return;
        }
        const char *hint = "";
        if (code == XML_ERROR_TAG_MISMATCH)
                hint = ": every element needs its end tag (e.g. </request>) before its parent's";
        else if (code == XML_ERROR_INVALID_TOKEN || code == XML_ERROR_UNCLOSED_TOKEN)
                hint = ": write well-formed XML (escape < and & in values as &lt; and &amp;)";
        else if (code == XML_ERROR_JUNK_AFTER_DOC_ELEMENT)
                hint = ": a manifest has one <aegis> root element";
        parser_error(p, NULL, "broken XML: %s%s", XML_ErrorString(code), hint);
}

/*
 * expat salts its hash tables against crafted attribute names; left alone
 * it asks the kernel for a salt per parser, which is a system call per
 * manifest. One random salt per process protects as well.
 */
static unsigned long hash_salt(void) {
        static unsigned long salt;
        static bool done;

        if (!done) {
                if (getrandom(&salt, sizeof(salt), 0) != (ssize_t) sizeof(salt))
                        salt = 0;       /* expat then draws its own, per parser */
                done = true;
        }
        return salt;
}

static int parse_xml(Parser *p, const char *buf, size_t size) {
        unsigned long salt = hash_salt();

        p->buf = buf;
        p->buf_size = size;
        p->pos = p->line_start = 0;
        p->line = 1;
        p->xml = XML_ParserCreate(NULL);
        if (!p->xml)
                return -ENOMEM;
        if (salt != 0)
                XML_SetHashSalt(p->xml, salt);
        XML_SetUserData(p->xml, p);
        XML_SetElementHandler(p->xml, on_start, on_end);
        XML_SetCharacterDataHandler(p->xml, on_text);
        XML_SetStartDoctypeDeclHandler(p->xml, on_doctype);
        XML_SetEntityDeclHandler(p->xml, on_entity);
        enum XML_Status status = XML_Parse(p->xml, buf, (int) size, XML_TRUE);
        if (status != XML_STATUS_OK && !p->oom) {
                /* Whitespace and comments only: an empty manifest. */
                if (XML_GetErrorCode(p->xml) != XML_ERROR_NO_ELEMENTS || p->saw_root)
                        report_xml_error(p);
        }
        XML_ParserFree(p->xml);
        p->xml = NULL;
        return p->oom;
}

/*
 * The file provides a token it named bare before: forget the first pass
 * (its package and its diagnostics) and parse again, every provided name
 * known from the start.
 */
static int parse_again(Parser *p, Package **package, const char *buf, size_t size,
                       const char *origin, const DiagnosticsMark *mark) {
        _cleanup_(package_freep) Package *fresh = NULL;
        char **provided = NULL;
        size_t n_provided = 0;
        int r;

        for (size_t i = 0; i < (*package)->n_tokens; i++)
                if (model_strv_append(&provided, &n_provided, (*package)->tokens[i]->name) < 0) {
                        model_strv_free(provided, n_provided);
                        return -ENOMEM;
                }
        r = package_new((*package)->name, origin, (*package)->file, &fresh);
        if (r < 0) {
                model_strv_free(provided, n_provided);
                return r;
        }
        diagnostics_rewind(p->diag, mark);
        model_strv_free(p->provided, p->n_provided);
        model_strv_free(p->globals, p->n_globals);
        package_free(*package);
        *package = TAKE_PTR(fresh);
        *p = (Parser) {
                .package = *package,
                .diag = p->diag,
                .provided = provided,
                .n_provided = n_provided,
                .provided_known = true,
        };
        return parse_xml(p, buf, size);
}

/* Parse buf (size bytes and a NUL, modified in place, freed here). */
static int parse_owned(char *data, size_t size, const char *file, const char *package_name,
                       const char *origin, Diagnostics *diag, Package **ret) {
        _cleanup_free_ char *buf = data;

        if (!file)
                file = "<manifest>";
        if (!manifest_valid_package_label(package_name))
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, file, 0, 0,
                                       "'%s' is not a valid package label: 1-255 printable "
                                       "characters, no whitespace, '/', quotes, backslash or "
                                       "'::', not starting with '-', not _ * ^ @",
                                       package_name ? package_name : "") ?: MANIFEST_E_INVALID;
        if (size > MANIFEST_MAX_FILE_SIZE)
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, file, 0, 0,
                                       "file too large (%zu bytes): a manifest is at most %d bytes",
                                       size, MANIFEST_MAX_FILE_SIZE) ?: MANIFEST_E_INVALID;

        _cleanup_(package_freep) Package *package = NULL;
        int r = package_new(package_name, origin, file, &package);
        if (r < 0)
                return r;
        Parser p = { .package = package, .diag = diag };
        preprocess(&p, buf, size);
        DiagnosticsMark mark = diagnostics_mark(diag);
        r = size > 0 ? parse_xml(&p, buf, size) : 0;
        if (r >= 0 && p.rerun)
                r = parse_again(&p, &package, buf, size, origin, &mark);
        if (r >= 0 && p.n_errors == 0)
                r = parser_finish(&p);
        model_strv_free(p.provided, p.n_provided);
        model_strv_free(p.globals, p.n_globals);
        if (r < 0)
                return r;
        if (p.n_errors > 0)
                return MANIFEST_E_INVALID;
        *ret = TAKE_PTR(package);
        return 0;
}

int manifest_parse_buffer(const char *data, size_t size, const char *file,
                          const char *package_name, const char *origin,
                          Diagnostics *diag, Package **ret) {
        char *copy;

        if (size > MANIFEST_MAX_FILE_SIZE)
                return parse_owned(NULL, size, file, package_name, origin, diag, ret);
        copy = malloc(size + 1);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, data, size);
        copy[size] = '\0';
        return parse_owned(copy, size, file, package_name, origin, diag, ret);
}

/* The file's bytes, NUL-terminated, in a buffer sized from fstat (not the 1 MB limit). */
static int read_file(const char *path, Diagnostics *diag, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0,
                                       "not a regular file") ?: MANIFEST_E_INVALID;
        if (st.st_size > MANIFEST_MAX_FILE_SIZE)
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, path, 0, 0,
                                       "file too large (%lld bytes): a manifest is at most %d bytes",
                                       (long long) st.st_size, MANIFEST_MAX_FILE_SIZE)
                       ?: MANIFEST_E_INVALID;
        /* Sized from fstat, grown if the file grew meanwhile, up to one byte past the limit. */
        size_t cap = (size_t) st.st_size + 1, size = 0;
        _cleanup_free_ char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (size == cap) {
                        if (cap > (size_t) MANIFEST_MAX_FILE_SIZE)
                                break;
                        cap = cap * 2 > (size_t) MANIFEST_MAX_FILE_SIZE + 1 ?
                                (size_t) MANIFEST_MAX_FILE_SIZE + 1 : cap * 2;
                        char *bigger = realloc(buf, cap + 1);
                        if (!bigger)
                                return -ENOMEM;
                        buf = bigger;
                }
                ssize_t n = read(fd, buf + size, cap - size);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        buf[size] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}

int manifest_parse_file(const char *path, const char *package_name, const char *origin,
                        Diagnostics *diag, Package **ret) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        int r = read_file(path, diag, &buf, &size);
        if (r != 0)
                return r;
        return parse_owned(TAKE_PTR(buf), size, path, package_name, origin, diag, ret);
}

int manifest_package_name_from_path(const char *path, char **ret) {
        static const char *const suffixes[] = { ".aegis.xml", ".aegis", ".xml" };
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(base);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                size_t k = strlen(suffixes[i]);
                if (n > k && strcmp(base + n - k, suffixes[i]) == 0) {
                        n -= k;
                        break;
                }
        }
        _cleanup_free_ char *name = strndup(base, n);
        if (!name)
                return -ENOMEM;
        /* A hidden file (".aegis") names no package. */
        if (name[0] == '.' || !manifest_valid_package_label(name))
                return MANIFEST_E_INVALID;
        *ret = TAKE_PTR(name);
        return 0;
}
