/*
 * Fuzz harness for what apt's hook and dpkg's configure read from a
 * package before deciding whether it ships the device's configuration:
 * a line of tar's listing of its data (deb_contents_parse_line) and a
 * name as an archive or a file list spells it (guarded_normalize). Each
 * line of the input is given to both, and a parsed entry's name (as
 * apt's hook does) and its target to the second too.
 *
 * Properties checked beyond "no crash, no leak", each an abort():
 *   - a parsed entry has a non-empty name and a printable type letter,
 *     and a target exactly when it is a symlink or a hard link;
 *   - the entry formatted back the way tar quotes it (the formatter is
 *     here, the code has none) parses to the same entry;
 *   - a normalized name is absolute, has no empty, "." or ".." component
 *     (so no "//", "/./" or trailing '/' but for "/" itself), and
 *     normalizes to itself; a name is refused as GUARDED_E_DOTDOT only
 *     when it has a ".." component;
 *   - a guarded path reaches the configuration, so does each of its
 *     ancestors, and what is under it is guarded too (guarded.h);
 *   - neither function writes *ret when it fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz-text.h"
#include "deb-contents.h"
#include "guarded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether name has a ".." component, separated by '/' as guarded_normalize() reads it. */
static bool has_dotdot(const char *name) {
        for (const char *p = name; *p;) {
                size_t n;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return true;
                p += n;
        }
        return false;
}

/* Whether normal is "/" or '/' followed by components none of which is empty, "." or "..". */
static bool is_normal(const char *normal) {
        if (normal[0] != '/')
                return false;
        if (strcmp(normal, "/") == 0)
                return true;
        if (strstr(normal, "//") || strstr(normal, "/./"))
                return false;
        for (const char *p = normal + 1;;) {
                size_t n = strcspn(p, "/");

                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (p[n] == '\0')
                        return true;
                p += n + 1;
        }
}

/* What guarded.h promises of a guarded path: everything above it reaches it, everything under it is guarded. */
static void check_guarded(const char *normal) {
        _cleanup_free_ char *copy = NULL, *child = NULL;

        if (!guarded_path(normal))
                return;
        if (!guarded_reaches(normal))
                abort();
        if (asprintf(&child, "%s/x", normal) < 0)
                abort();
        if (!guarded_path(child))
                abort();
        copy = strdup(normal);
        if (!copy)
                abort();
        for (char *slash = strrchr(copy, '/'); slash; slash = strrchr(copy, '/')) {
                *slash = '\0';
                if (!guarded_reaches(slash == copy ? "/" : copy))
                        abort();
        }
}

static void check_normalize(const char *name) {
        char *sentinel = (char *) "unwritten", *normal = sentinel;
        _cleanup_free_ char *again = NULL;
        int r;

        r = guarded_normalize(name, &normal);
        if (r == -ENOMEM)
                return;
        if (r == GUARDED_E_DOTDOT) {
                if (normal != sentinel || !has_dotdot(name))
                        abort();
                return;
        }
        if (r != 0 || has_dotdot(name) || !is_normal(normal))
                abort();
        if (guarded_normalize(normal, &again) != 0 || strcmp(again, normal) != 0)
                abort();
        check_guarded(normal);
        free(normal);
}

/* s as tar's --quoting-style=c writes it under LC_ALL=C, at out (room for 4 bytes each of s's, and 3). */
static char *quote(char *out, const char *s) {
        static const char escapes[] = "\aa\bb\ff\nn\rr\tt\vv\\\\\"\"";

        *out++ = '"';
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                const char *e = strchr(escapes, c);

                if (e && (e - escapes) % 2 == 0) {
                        *out++ = '\\';
                        *out++ = e[1];
                } else if (c < 0x20 || c >= 0x7f)
                        out += sprintf(out, "\\%03o", c);   /* always three digits: a digit may follow */
                else
                        *out++ = (char) c;
        }
        *out++ = '"';
        *out = '\0';
        return out;
}

static void check_entry(const DebEntry *entry) {
        _cleanup_free_ char *line = NULL;
        DebEntry again = {};
        size_t size;
        char *p;

        if (!entry->name || !entry->name[0] || entry->type <= ' ' || entry->type >= 0x7f)
                abort();
        if (!!entry->target != (entry->type == 'l' || entry->type == 'h'))
                abort();
        if (entry->target && !entry->target[0])
                abort();

        /* Another owner, size and time than the input's: only the type and the names are the entry. */
        size = 64 + 4 * strlen(entry->name) + (entry->target ? 4 * strlen(entry->target) : 0);
        line = malloc(size);
        if (!line)
                abort();
        p = line + sprintf(line, "%crw-r--r-- 0/0 0 2024-01-01 00:00 ", entry->type);
        p = quote(p, entry->name);
        if (entry->target) {
                p = stpcpy(p, entry->type == 'l' ? " -> " : " link to ");
                quote(p, entry->target);
        }
        if (deb_contents_parse_line(line, &again) != 0)
                abort();
        if (again.type != entry->type || strcmp(again.name, entry->name) != 0 ||
            !!again.target != !!entry->target ||
            (entry->target && strcmp(again.target, entry->target) != 0))
                abort();
        deb_entry_clear(&again);

        check_normalize(entry->name);
        if (entry->target)
                check_normalize(entry->target);
}

static void check_line(const char *line) {
        char sentinel[] = "unwritten";
        DebEntry entry = { .type = '?', .name = sentinel };
        int r;

        r = deb_contents_parse_line(line, &entry);
        if (r == 0) {
                check_entry(&entry);
                deb_entry_clear(&entry);
        } else if (r == DEB_CONTENTS_E_SYNTAX || r == -ENOMEM) {
                if (entry.type != '?' || entry.name != sentinel || entry.target)
                        abort();
        } else
                abort();
        check_normalize(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size);

        if (!text)
                return 0;
        /* A line at a time, without its newline, as deb_contents_read() gives them (up to a NUL). */
        for (char *line = text, *end; line; line = end) {
                end = strchr(line, '\n');
                if (end)
                        *end++ = '\0';
                check_line(line);
        }
        free(text);
        return 0;
}
