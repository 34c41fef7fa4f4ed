/*
 * The groups NSS gives a uid, remembered between connections.
 *
 * Why: dbus-daemon's connect check refuses a uid NSS does not know and
 * judges the others by the groups NSS gives them (creds_nss_user(),
 * creds_nss_groups(); the groups only where a connect rule names one),
 * and asking NSS costs, with the files module,
 * an open, read and close of /etc/passwd and of /etc/group, plus the
 * other modules nsswitch.conf names: about 20 of the 45 system calls a
 * connection cost, and a boot connects hundreds of clients of a handful
 * of uids within a second (bench/README.md has the storm's figures).
 *
 * When an answer is no longer used, so that no connection is ever judged
 * by groups that are no longer true (a faster connect that sees a group
 * a user left is a security bug, not a speed-up):
 *  - /etc/passwd, /etc/group or /etc/nsswitch.conf changed: an inotify
 *    watch on /etc (a directory watch: useradd, usermod and editors
 *    replace these files by rename). It is read, without blocking, at
 *    every lookup, not when the event loop gets to it: the kernel queues
 *    the event when the change is made, before the process that made it
 *    (or anyone it told) can connect, so no connection is judged between
 *    a change and its event. An overflowing queue flushes everything.
 *  - any other source nsswitch.conf names (systemd's userdb, LDAP, sss)
 *    tells nobody of a change: no answer is used longer than
 *    USERDB_MAX_AGE_USEC after NSS gave it. dbus-daemon keeps its
 *    answers until the next ReloadConfig, with no bound at all.
 *  - ReloadConfig and SIGHUP flush everything, as in dbus-daemon.
 *  - no watch (inotify refused), or /etc itself replaced or the watch
 *    failing: nothing is remembered from then on.
 * A uid NSS does not know is asked again every time (dbus-daemon does
 * not remember those either). The table holds at most USERDB_MAX_ENTRIES
 * uids; past that it starts again, empty.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "creds.h"
#include "userdb.h"

#define USERDB_MAX_ENTRIES 4096
#define USERDB_MAX_AGE_USEC (1000 * 1000)
#define USERDB_WATCH_EVENTS (IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
                             IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

typedef struct UserDbEntry {
        uid_t uid;
        uint64_t since;                 /* CLOCK_MONOTONIC, usec */
        gid_t *groups;                  /* NULL: only known to exist (userdb_user()) */
        size_t n_groups;
} UserDbEntry;

struct UserDb {
        int fd;                         /* inotify on dir */
        bool blind;                     /* the watch failed: nothing is remembered any more */
        char *dir;
        UserDbEntry *entries;
        size_t n_entries;
        UserDbStats stats;
};

static uint64_t userdb_now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

int userdb_new(const char *dir, UserDb **ret) {
        _cleanup_(userdb_freep) UserDb *db = calloc(1, sizeof(*db));

        if (!db)
                return -ENOMEM;
        db->fd = -1;
        db->dir = strdup(dir);
        if (!db->dir)
                return -ENOMEM;
        db->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (db->fd < 0)
                return -errno;
        if (inotify_add_watch(db->fd, dir, USERDB_WATCH_EVENTS) < 0)
                return -errno;
        *ret = TAKE_PTR(db);
        return 0;
}

void userdb_flush(UserDb *db) {
        if (!db)
                return;
        for (size_t i = 0; i < db->n_entries; i++)
                free(db->entries[i].groups);
        free(db->entries);
        db->entries = NULL;
        db->n_entries = 0;
        db->stats.flushes++;
}

UserDb *userdb_free(UserDb *db) {
        if (!db)
                return NULL;
        userdb_flush(db);
        safe_close(db->fd);
        free(db->dir);
        free(db);
        return NULL;
}

static bool userdb_names_a_source(const char *name) {
        return strcmp(name, "passwd") == 0 || strcmp(name, "group") == 0 ||
               strcmp(name, "nsswitch.conf") == 0;
}

/* Whatever the watch saw since the last lookup: true when the answers may be stale. */
static bool userdb_changed(UserDb *db) {
        char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool changed = false;
        ssize_t n;

        while ((n = read(db->fd, buffer, sizeof(buffer))) > 0)
                for (char *p = buffer; p < buffer + n;) {
                        const struct inotify_event *e = (const struct inotify_event *) p;

                        /* The directory itself replaced or gone: the watch no longer sees /etc. */
                        if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
                                db->blind = true;
                        /* Events lost, or one of NSS's files: anything may have changed. */
                        if ((e->mask & IN_Q_OVERFLOW) || db->blind ||
                            (e->len > 0 && userdb_names_a_source(e->name)))
                                changed = true;
                        p += sizeof(*e) + e->len;
                }
        /* A read error other than "nothing more" leaves us blind: trust nothing from now on. */
        if (n < 0 && errno != EAGAIN && errno != EINTR)
                db->blind = true;
        return changed || db->blind;
}

static UserDbEntry *userdb_find(UserDb *db, uid_t uid) {
        for (size_t i = 0; i < db->n_entries; i++)
                if (db->entries[i].uid == uid)
                        return &db->entries[i];
        return NULL;
}

static int userdb_copy(const gid_t *groups, size_t n, gid_t **ret) {
        *ret = malloc((n ? n : 1) * sizeof(gid_t));
        if (!*ret)
                return -ENOMEM;
        memcpy(*ret, groups, n * sizeof(gid_t));
        return 0;
}

/* groups NULL: that uid exists, nothing more. */
static void userdb_remember(UserDb *db, uid_t uid, const gid_t *groups, size_t n, uint64_t now) {
        UserDbEntry *entry = userdb_find(db, uid), *grown;
        gid_t *copy = NULL;

        if (groups && userdb_copy(groups, n, &copy) < 0)
                return;         /* Not remembered: asked again next time. */
        if (!entry) {
                if (db->n_entries >= USERDB_MAX_ENTRIES)
                        userdb_flush(db);
                grown = reallocarray(db->entries, db->n_entries + 1, sizeof(*grown));
                if (!grown) {
                        free(copy);
                        return;
                }
                db->entries = grown;
                entry = &db->entries[db->n_entries++];
                *entry = (UserDbEntry) { .uid = uid };
        }
        free(entry->groups);
        entry->groups = copy;
        entry->n_groups = n;
        entry->since = now;
}

/* uid's entry while it may be used, or NULL; false: remember nothing now. */
static bool userdb_usable(UserDb *db, uid_t uid, UserDbEntry **ret) {
        UserDbEntry *entry;

        *ret = NULL;
        if (!db || db->blind)
                return false;
        if (userdb_changed(db))
                userdb_flush(db);
        if (db->blind)
                return false;
        entry = userdb_find(db, uid);
        if (entry && userdb_now() - entry->since < USERDB_MAX_AGE_USEC)
                *ret = entry;
        return true;
}

int userdb_user(UserDb *db, uid_t uid) {
        UserDbEntry *entry;
        int r;

        if (!userdb_usable(db, uid, &entry))
                return creds_nss_user(uid);
        if (entry) {
                db->stats.hits++;
                return 0;
        }
        db->stats.misses++;
        r = creds_nss_user(uid);
        if (r == 0)
                userdb_remember(db, uid, NULL, 0, userdb_now());
        return r;
}

int userdb_groups(UserDb *db, uid_t uid, gid_t **ret, size_t *ret_n) {
        _cleanup_free_ gid_t *groups = NULL;
        UserDbEntry *entry;
        size_t n = 0;
        int r;

        if (!userdb_usable(db, uid, &entry))
                return creds_nss_groups(uid, ret, ret_n);
        if (entry && entry->groups) {
                r = userdb_copy(entry->groups, entry->n_groups, ret);
                if (r < 0)
                        return r;
                *ret_n = entry->n_groups;
                db->stats.hits++;
                return 0;
        }
        db->stats.misses++;
        r = creds_nss_groups(uid, &groups, &n);
        if (r != 0)
                return r;
        userdb_remember(db, uid, groups, n, userdb_now());
        *ret = TAKE_PTR(groups);
        *ret_n = n;
        return 0;
}

UserDbStats userdb_stats(const UserDb *db) {
        return db ? db->stats : (UserDbStats) {};
}
