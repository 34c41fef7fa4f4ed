/* What a .deb's data member holds, as the real dpkg-deb and tar list it. */
#pragma once

#include "macro.h"

/* One member of the archive. */
typedef struct DebEntry {
        /* tar's letter: 'd' directory, '-' file, 'l' symlink, 'h' hard
         * link, 'c', 'b', 'p' devices and FIFOs; any other is some other
         * non-directory */
        char type;
        char *name;                     /* as the archive spells it ("./etc/x") */
        char *target;                   /* (nullable) a symlink's or hard link's */
} DebEntry;

enum {
        DEB_CONTENTS_E_SYNTAX = 1,      /* not a line of the listing we asked tar for */
};

/* The longest line of tar's listing read: a name is at most PATH_MAX, four bytes a byte quoted. */
#define DEB_CONTENTS_LINE_MAX (64u << 10)

/*
 * One line (without its newline) of `tar -tv --numeric-owner
 * --quoting-style=c` under LC_ALL=C:
 *
 *     lrwxrwxrwx 0/0     0 2024-01-01 00:00 "./usr/lib/x" -> "../y"
 *
 * Names are C strings there, so a name with spaces, quotes, newlines or
 * " -> " in it is still one name. 0 and *ret, DEB_CONTENTS_E_SYNTAX, or
 * -ENOMEM.
 */
int deb_contents_parse_line(const char *line, DebEntry *ret);
void deb_entry_clear(DebEntry *entry);

/*
 * Every member of deb's data, in order: `dpkg-deb --fsys-tarfile deb |
 * tar -tv ...`, read a line at a time (no bound on how many), each given
 * to fn (a non-zero return stops the walk and is returned once both tools
 * are waited for). 0; DEB_CONTENTS_E_SYNTAX, with *ret_error saying why
 * (a line tar should not print, a line longer than DEB_CONTENTS_LINE_MAX,
 * either tool failing: the archive is not one dpkg would unpack as
 * listed); fn's value; or -errno.
 */
int deb_contents_read(const char *deb, int (*fn)(const DebEntry *entry, void *userdata),
                      void *userdata, char **ret_error);
