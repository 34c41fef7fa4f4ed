/*
 * The members of a package file's data, listed by the real tools: dpkg-deb
 * takes the data member out of the .deb (whatever its compression) and
 * GNU tar lists it, the way `dpkg-deb --contents` does. The listing is
 * still the package's words, so each line is parsed strictly: tar is asked
 * for numeric owners (a user name could hold a quote) and C-quoted names
 * in the C locale (every byte outside printable ASCII escaped), so a line
 * is its type letter, fields without quotes, and one or two quoted
 * strings. Anything else, a line too long, or either tool failing, is an
 * error, never a shorter list: a caller that guards paths must see every
 * member dpkg would unpack.
 *
 * dpkg's own reader (lib/dpkg/tarfn.c) refuses pax headers and any member
 * type it does not know, and reads names the way tar does (ustar prefix,
 * GNU long names), so what tar lists here is what dpkg would unpack; a
 * file member whose name ends in '/' is a directory to dpkg, and GNU tar
 * lists it as one too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deb-contents.h"
#include "spawn.h"

void deb_entry_clear(DebEntry *entry) {
        free(entry->name);
        free(entry->target);
        *entry = (DebEntry) {};
}

static int octal_value(const char **p) {
        int value = 0, digits = 0;

        while (digits < 3 && **p >= '0' && **p <= '7') {
                value = value * 8 + (**p - '0');
                (*p)++;
                digits++;
        }
        return value;
}

/* The quoted string at *p (its opening quote), decoded; *p then points past its closing quote. */
static int unquote(const char **p, char **ret) {
        static const char escapes[] = "a\ab\bf\fn\nr\rt\tv\v\\\\\"\"?\?''";
        _cleanup_free_ char *out = NULL;
        const char *s = *p;
        size_t length = 0;

        if (*s != '"')
                return DEB_CONTENTS_E_SYNTAX;
        out = malloc(strlen(s) + 1);
        if (!out)
                return -ENOMEM;
        for (s++; *s != '"'; s++) {
                unsigned char c = (unsigned char) *s;
                const char *e;

                if (c < 0x20 || c >= 0x7f)
                        return DEB_CONTENTS_E_SYNTAX;   /* the C locale escapes these; and the end */
                if (c != '\\') {
                        out[length++] = (char) c;
                        continue;
                }
                s++;
                if (*s >= '0' && *s <= '7') {
                        int value = octal_value(&s);

                        if (value == 0 || value > 0xff)
                                return DEB_CONTENTS_E_SYNTAX;
                        out[length++] = (char) value;
                        s--;
                        continue;
                }
                for (e = escapes; *e && *e != *s; e += 2)
                        ;
                if (!*s || !*e)
                        return DEB_CONTENTS_E_SYNTAX;
                out[length++] = e[1];
        }
        out[length] = '\0';
        if (length == 0)
                return DEB_CONTENTS_E_SYNTAX;
        *p = s + 1;
        *ret = TAKE_PTR(out);
        return 0;
}

int deb_contents_parse_line(const char *line, DebEntry *ret) {
        _cleanup_free_ char *name = NULL, *target = NULL;
        const char *quote = strchr(line, '"'), *p;
        int r;

        /* "TMMMMMMMMM " then owner, size, date and time: no quotes, only these characters. */
        if (!quote || quote - line < 12 || line[0] <= ' ' || line[0] >= 0x7f || line[10] != ' ' ||
            quote[-1] != ' ')
                return DEB_CONTENTS_E_SYNTAX;
        for (p = line + 1; p < line + 10; p++)
                if (!strchr("rwxsStT-", *p))
                        return DEB_CONTENTS_E_SYNTAX;
        for (p = line + 11; p < quote; p++)
                if (!strchr("0123456789 /:,.+-", *p))
                        return DEB_CONTENTS_E_SYNTAX;
        p = quote;
        r = unquote(&p, &name);
        if (r != 0)
                return r;
        if (line[0] == 'l' && strncmp(p, " -> ", 4) == 0)
                p += 4;
        else if (line[0] == 'h' && strncmp(p, " link to ", 9) == 0)
                p += 9;
        else if (*p == '\0') {
                if (line[0] == 'l' || line[0] == 'h')
                        return DEB_CONTENTS_E_SYNTAX;
                goto done;
        } else
                return DEB_CONTENTS_E_SYNTAX;
        r = unquote(&p, &target);
        if (r != 0)
                return r;
        if (*p != '\0')
                return DEB_CONTENTS_E_SYNTAX;
done:
        *ret = (DebEntry) { .type = line[0], .name = TAKE_PTR(name), .target = TAKE_PTR(target) };
        return 0;
}

static void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

/* Read tar's listing from out: 0 or fn's value, a syntax error (into *ret_error), or -errno. */
static int read_listing(FILE *out, int (*fn)(const DebEntry *entry, void *userdata),
                        void *userdata, char **ret_error) {
        _cleanup_free_ char *line = malloc(DEB_CONTENTS_LINE_MAX + 2);
        unsigned long line_no = 0;

        if (!line)
                return -ENOMEM;
        while (fgets(line, DEB_CONTENTS_LINE_MAX + 2, out)) {
                DebEntry entry;
                size_t n = strlen(line);
                int r;

                line_no++;
                if (n == 0 || line[n - 1] != '\n') {
                        if (asprintf(ret_error, "line %lu of tar's listing is longer than %u "
                                     "bytes or not text", line_no, DEB_CONTENTS_LINE_MAX) < 0)
                                return -ENOMEM;
                        return DEB_CONTENTS_E_SYNTAX;
                }
                line[n - 1] = '\0';
                r = deb_contents_parse_line(line, &entry);
                if (r == DEB_CONTENTS_E_SYNTAX) {
                        if (asprintf(ret_error, "line %lu of tar's listing is not one member "
                                     "(type, mode, owner, size, time, quoted name): %.200s",
                                     line_no, line) < 0)
                                return -ENOMEM;
                        return r;
                }
                if (r < 0)
                        return r;
                r = fn(&entry, userdata);
                deb_entry_clear(&entry);
                if (r != 0)
                        return r;
        }
        return ferror(out) ? -EIO : 0;
}

int deb_contents_read(const char *deb, int (*fn)(const DebEntry *entry, void *userdata),
                      void *userdata, char **ret_error) {
        char *dpkg_deb[] = { (char *) "dpkg-deb", (char *) "--fsys-tarfile", (char *) deb, NULL };
        char *tar[] = { (char *) "env", (char *) "LC_ALL=C", (char *) "tar", (char *) "-tv",
                        (char *) "--numeric-owner", (char *) "--quoting-style=c", (char *) "-f",
                        (char *) "-", NULL };
        _cleanup_free_ char *deb_err = NULL, *tar_err = NULL;
        Spawned data, listing;
        int deb_status = 0, tar_status = 0, r, r_finish;

        *ret_error = NULL;
        r = spawn_start(dpkg_deb, -1, &data);
        if (r < 0)
                return r;
        r = spawn_start(tar, fileno(data.out), &listing);
        /* tar holds the pipe now: dpkg-deb must see it close when tar does. */
        fclosep(&data.out);
        data.out = NULL;
        if (r == 0) {
                r = read_listing(listing.out, fn, userdata, ret_error);
                r_finish = spawn_finish(&listing, &tar_status, &tar_err);
                r = r != 0 ? r : r_finish;
        }
        r_finish = spawn_finish(&data, &deb_status, &deb_err);
        if (r != 0)
                return r;
        if (r_finish < 0)
                return r_finish;
        if (deb_status != 0 || tar_status != 0) {
                if (asprintf(ret_error, "%s", deb_status != 0 ?
                             (deb_err && *deb_err ? deb_err : "dpkg-deb --fsys-tarfile failed") :
                             (tar_err && *tar_err ? tar_err : "tar cannot list its data")) < 0)
                        return -ENOMEM;
                return DEB_CONTENTS_E_SYNTAX;
        }
        return 0;
}
