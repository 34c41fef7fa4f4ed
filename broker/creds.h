/* Peer credentials, read from the kernel once when a connection is accepted. */
#pragma once

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
} Creds;

#define CREDS_NULL ((Creds) { .pidfd = -1 })

/* Fills ret from the socket; fails only when SO_PEERCRED fails. */
int creds_read(int fd, Creds *ret);
void creds_deinit(Creds *creds);
