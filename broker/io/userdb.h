/* The groups NSS gives a uid, remembered between connections while they stay true (userdb.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

typedef struct UserDb UserDb;

typedef struct UserDbStats {
        uint64_t hits;                  /* answered from what NSS said before */
        uint64_t misses;                /* NSS asked */
        uint64_t flushes;               /* everything forgotten: a change, a reload, a full table */
} UserDbStats;

/*
 * Watch dir (normally /etc) for changes to passwd, group and
 * nsswitch.conf. -errno when inotify refuses: then use no UserDb (NULL),
 * which asks NSS every time.
 */
int userdb_new(const char *dir, UserDb **ret);
UserDb *userdb_free(UserDb *db);
DEFINE_CLEANUP(UserDb *, userdb_free);

/*
 * creds_nss_groups(), answered from memory while that answer is still
 * true (db NULL: NSS every time). The same results: *ret (owned) and
 * *ret_n, CREDS_E_NO_USER, or -errno.
 */
int userdb_groups(UserDb *db, uid_t uid, gid_t **ret, size_t *ret_n);

/* creds_nss_user(), answered from memory the same way. */
int userdb_user(UserDb *db, uid_t uid);

/* Forget everything (ReloadConfig, SIGHUP). */
void userdb_flush(UserDb *db);

UserDbStats userdb_stats(const UserDb *db);
