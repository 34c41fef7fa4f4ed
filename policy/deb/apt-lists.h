/* apt's verified package indexes: which repository offers which package file. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* A Packages index apt downloaded and verified, and the Release file that vouches for it. */
typedef struct AptIndex {
        char *filename;                 /* in apt's lists directory, maybe compressed */
        char *description;              /* apt's words for it ("file:/srv/repo ./ Packages") */
        char *inrelease;                /* (nullable) the signed InRelease beside it */
        char *release;                  /* (nullable) or Release ... */
        char *release_gpg;              /* (nullable) ... with its detached signature */
} AptIndex;

typedef struct AptIndexes {
        AptIndex *items;
        size_t n_items;
} AptIndexes;

/*
 * The Packages indexes `apt-get indextargets` lists as trusted (apt
 * verified their Release file's signature), with apt_options ("-o",
 * "Dir::State::lists=...", ...) passed on. 0, or -errno with *ret_error
 * (nullable) saying what went wrong.
 */
int apt_indexes_list(char *const *apt_options, size_t n_options, AptIndexes **ret,
                     char **ret_error);
AptIndexes *apt_indexes_free(AptIndexes *indexes);

/* A package file looked for in the indexes. */
typedef struct AptWanted {
        const char *package;
        const char *version;
        const char *architecture;
        const char *sha256;
        uint64_t size;
        /* Set by apt_index_scan(): the indexes that list exactly this file. */
        size_t *matches;
        size_t n_matches;
} AptWanted;

/*
 * Read index (through apt-helper cat-file, so any compression apt keeps)
 * and add index_id to the matches of every wanted file it lists with the
 * same name, version, architecture, size and SHA256. 0 or -errno
 * (*ret_error nullable).
 */
int apt_index_scan(const AptIndex *index, size_t index_id, AptWanted *wanted, size_t n_wanted,
                   char **ret_error);

/*
 * Whether index's Release file is signed by a key of keyrings (gpgv), and
 * if so its Origin and Label as signed: 0 with *ret_origin and *ret_label
 * (nullable when the file has none), APT_LISTS_E_UNSIGNED with
 * *ret_error, or -errno.
 */
enum {
        APT_LISTS_E_UNSIGNED = 1,
};
int apt_release_verify(const AptIndex *index, char *const *keyrings, size_t n_keyrings,
                       char **ret_origin, char **ret_label, char **ret_error);

DEFINE_CLEANUP(AptIndexes *, apt_indexes_free);
