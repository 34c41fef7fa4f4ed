/* What apt's hook found out about a package file before dpkg unpacked it. */
#pragma once

#include "macro.h"
#include "paths.h"

/*
 * APT_ORIGIN_DIR/PACKAGE, written by `mssf-policy apt-hook` (apt runs it
 * as root before dpkg, with the package files it verified) and read, then
 * removed, by `mssf-policy dpkg configure`. A deb822 paragraph:
 *
 *     Package: mssf-test-app
 *     Architecture: all
 *     Version: 1.0
 *     Deb-SHA256: 9f86d081...
 *     Manifest-SHA256: 3a7bd3e2...
 *     Md5sums-SHA256: 5e884898...
 *     Mssf-Origin: system
 *     Repository: MSSF Test System / MSSF Test System (file:/srv/system ./)
 *
 * Mssf-Origin is absent when no repository the device maker maps vouched
 * for the file: the package then has the unknown origin. Md5sums-SHA256
 * is the SHA-256 of the file's md5sums member, which dpkg installs as
 * info/PACKAGE.md5sums: configure uses the record only when that file is
 * the same, so a record left behind by an interrupted apt run cannot
 * lend its origin to another file of the same name, version and
 * manifest given to dpkg later. Records written before it existed lack
 * it and are used for nothing.
 */
typedef struct AptRecord {
        char *package;
        char *architecture;
        char *version;
        char *deb_sha256;
        char *manifest_sha256;
        char *md5sums_sha256;           /* (nullable) a record of an older mssf-policy */
        char *origin;                   /* (nullable) unknown */
        char *repository;               /* (nullable) */
} AptRecord;

enum {
        APT_RECORD_E_INVALID = 1,       /* the file is not a record */
};

/* 0 and *ret (package NULL when there is none), APT_RECORD_E_INVALID, or -errno. */
int apt_record_read(const ToolPaths *paths, const char *package, AptRecord *ret);
int apt_record_write(const ToolPaths *paths, const AptRecord *record);
int apt_record_remove(const ToolPaths *paths, const char *package);
char *apt_record_path(const ToolPaths *paths, const char *package);
void apt_record_clear(AptRecord *record);
