/* The device maker's map from APT repositories to the device policy's origins. */
#pragma once

#include <stddef.h>

#include "diagnostic.h"
#include "macro.h"

/*
 * /etc/mssf/repositories.conf: deb822 paragraphs, '#' comments, in order
 * of trust (the first that matches wins):
 *
 *     Mssf-Origin: system
 *     Release-Origin: Nokia
 *     Release-Label: Harmattan
 *     Signed-By: /usr/share/keyrings/device-maker.gpg
 *
 * A repository maps to Mssf-Origin when its Release file, as apt stored
 * it, is signed by a key in one of the Signed-By keyrings and its Origin
 * and Label fields are exactly Release-Origin and Release-Label.
 */
typedef struct Repository {
        char *mssf_origin;
        char *release_origin;
        char *release_label;
        char **keyrings;                /* absolute paths */
        size_t n_keyrings;
        unsigned line;                  /* of its paragraph */
} Repository;

typedef struct Repositories {
        char *file;
        Repository *items;
        size_t n_items;
} Repositories;

enum {
        REPOSITORIES_E_INVALID = 1,     /* errors (file:line) are in diag */
};

/* 0 and *ret (empty when the file does not exist), REPOSITORIES_E_INVALID, or -errno. */
int repositories_load(const char *path, Diagnostics *diag, Repositories **ret);
int repositories_parse(const char *text, size_t size, const char *file, Diagnostics *diag,
                       Repositories **ret);
Repositories *repositories_free(Repositories *repos);

DEFINE_CLEANUP(Repositories *, repositories_free);
