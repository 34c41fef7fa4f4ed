/* Peer credentials, read from the kernel once when a connection is accepted. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

typedef struct Creds {
        pid_t pid;
        uid_t uid;
        gid_t gid;
        gid_t *groups;          /* (owned, nullable) SO_PEERGROUPS */
        size_t n_groups;
        char *label;            /* (owned, nullable) SO_PEERSEC, NULL without an LSM */
        int pidfd;              /* (owned) SO_PEERPIDFD, -1 when the kernel has none */
        gid_t *nss_groups;      /* (owned, nullable) creds_nss_groups(), once the connection authenticated */
        size_t n_nss_groups;
        bool mac_override;      /* CAP_MAC_OVERRIDE effective at connect (creds-caps.h); read only with Smack */
} Creds;

#define CREDS_NULL ((Creds) { .pidfd = -1 })

/* Expected outcomes. */
enum {
        CREDS_E_NO_USER = 1,    /* the uid has no passwd entry: its NSS groups cannot be known */
};

/* Fills ret from the socket; fails only when SO_PEERCRED fails. */
int creds_read(int fd, Creds *ret);
void creds_deinit(Creds *creds);

/*
 * The groups NSS gives uid: its passwd entry's primary group first, then
 * getgrouplist()'s (dbus-daemon's _dbus_unix_groups_from_uid(), which its
 * connect check uses instead of the kernel's groups). *ret (owned) and
 * *ret_n; CREDS_E_NO_USER, or -errno (ENOMEM, or NSS failing). Does I/O:
 * call it once per connection, not per message.
 */
int creds_nss_groups(uid_t uid, gid_t **ret, size_t *ret_n);

/* Whether NSS knows uid (its passwd entry): 0, CREDS_E_NO_USER, or -errno. */
int creds_nss_user(uid_t uid);
