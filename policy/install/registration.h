/* What mssf-policy records about an installed package beside its manifest: origin, and for dpkg its version. */
#pragma once

#include <stdbool.h>

#include "macro.h"

/*
 * ORIGIN_DIR/PACKAGE. Its first line is the origin ("-" when unknown); a
 * package installed through dpkg (mssf-policy dpkg configure) has more
 * lines, "Field: value" as in Debian control files:
 *
 *     system
 *     Version: 1.0-1
 *     Architecture: amd64
 *     Manifest-SHA256: 3a7bd3e2...
 *     Repository: MSSF Test System / MSSF Test System (file:/srv/repo ./)
 *     Unpacked: 2049:1835012 1733390000.123456789
 *
 * Version, Architecture and Manifest-SHA256 say which package file the
 * origin was established for; Unpacked says which unpack of it: the
 * device and inode of dpkg's info/PACKAGE.list and its change time, which
 * dpkg writes anew at every unpack. A reconfigure of that same unpack
 * (dpkg-reconfigure, dpkg --configure -a after a crash) keeps the origin;
 * anything else, a .deb of the same name, version and manifest given to
 * dpkg included, must prove its origin again (docs/packaging.md).
 * Registrations written before Unpacked existed lack it: theirs is
 * proven again too.
 *
 * A package rpm installed (policy/rpm) has the same first four fields
 * (Version is rpm's EPOCH:VERSION-RELEASE, Repository says which key
 * signed it) and "Package-Manager: rpm"; without that field a
 * registration with a Version is dpkg's.
 */
typedef struct Registration {
        char *origin;                   /* (nullable) unknown */
        char *version;                  /* (nullable) not installed through dpkg */
        char *architecture;             /* (nullable) */
        char *manifest_sha256;          /* (nullable) */
        char *repository;               /* (nullable) how the origin was established */
        char *unpacked;                 /* (nullable) which unpack, as above */
        char *package_manager;          /* (nullable) "rpm"; NULL: dpkg's, when it has a version */
} Registration;

enum {
        REGISTRATION_E_INVALID = 1,     /* not an origin file */
};

/* Parse an origin file's bytes (text[size] is NUL): 0, REGISTRATION_E_INVALID or -ENOMEM. */
int registration_parse(const char *text, size_t size, Registration *ret);
/* The file's text: 0 or -ENOMEM. */
int registration_format(const Registration *reg, char **ret);
/* Whether the package was registered by dpkg (it has a version, and no other package manager). */
bool registration_from_dpkg(const Registration *reg);
/* Whether rpm registered it (policy/rpm). */
bool registration_from_rpm(const Registration *reg);
void registration_clear(Registration *reg);
