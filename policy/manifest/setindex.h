/* The installed set's lookup tables: packages, tokens, bus names, who serves a token. */
#pragma once

#include <stddef.h>

#include "strmap.h"

typedef struct Package Package;

/* The packages that provide a token or guard something with it, in set order. */
typedef struct PackageList {
        const Package **packages;       /* (owned array) */
        size_t n_packages;
} PackageList;

/*
 * Every key borrows a string of a package in the set; the set clears and
 * refills the index whenever a package leaves it (set_index_rebuild).
 */
typedef struct SetIndex {
        StrMap packages;                /* name -> Package */
        StrMap tokens;                  /* provided token label -> Package */
        StrMap names[2];                /* per BusKind: bus name -> Package */
        StrMap servers;                 /* token label -> PackageList */
        PackageList **lists;            /* (owned) every PackageList, to free them */
        size_t n_lists;
} SetIndex;

int set_index_new(SetIndex **ret);
SetIndex *set_index_free(SetIndex *index);

/* Index one more package (the set has checked it conflicts with none). */
int set_index_add(SetIndex *index, const Package *package);
/* Forget everything and index packages[0..n) again. */
int set_index_rebuild(SetIndex *index, Package *const *packages, size_t n);

/* Who serves token (empty list: nobody). */
const PackageList *set_index_servers(const SetIndex *index, const char *token);

DEFINE_CLEANUP(SetIndex *, set_index_free);
