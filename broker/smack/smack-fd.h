/* Whether a label could receive a file descriptor: the kernel's smack_file_receive(), asked ahead. */
#pragma once

#include "smack-oracle.h"

/* Expected outcomes of smack_fd_check() (positive). */
enum {
        SMACK_FD_E_DENIED = 1,          /* the kernel would refuse it: see SmackFdLabel */
        SMACK_FD_E_UNREADABLE,          /* its label cannot be read through it: only the kernel can judge */
};

/* What smack_fd_check() judged, for the error text and the log. */
typedef struct SmackFdLabel {
        const SmackLabel *label;        /* (nullable) the label that was judged: on DENIED, the one refused */
        const char *access;             /* (nullable) the access asked of it: "r", "w" or "rw" */
        int error;                      /* UNREADABLE: the negative errno reading it gave */
} SmackFdLabel;

/*
 * Whether subject could receive fd (passed in SCM_RIGHTS). The kernel's
 * rule (security/smack/smack_lsm.c, smack_file_receive): for a socket,
 * the receiver needs write access to the socket's SMACK64IPOUT label and
 * read access to its SMACK64IPIN label; asked here as both "rw" on both,
 * which can only refuse more. For anything else, access to the file's
 * SMACK64 label in the mode it was opened in ("r", "w" or "rw"). The
 * labels are read from the descriptor itself (fgetxattr), so a path
 * renamed or relabelled since does not matter.
 *
 * Returns 0 (receivable), SMACK_FD_E_DENIED (a label was read and the
 * rules deny it: the kernel would certainly refuse, unless the receiver
 * holds CAP_MAC_OVERRIDE, which this does not know), SMACK_FD_E_UNREADABLE
 * (an O_PATH descriptor, whose xattrs cannot be read through it; an inode
 * the kernel keeps private, such as an eventfd's; a file system without
 * labels: the kernel may well let it through), or a negative errno (a bad
 * argument, fstat failing, the oracle failing). *ret is written for
 * DENIED and UNREADABLE.
 */
int smack_fd_check(SmackOracle *oracle, const SmackLabel *subject, int fd, SmackFdLabel *ret);

/*
 * smack_fd_check() for a caller that must fail closed: 1 yes, 0 no
 * (DENIED), or a negative errno, a "no" too (UNREADABLE gives the errno
 * reading the label gave). Observers are judged by this, by their label
 * alone: a process with CAP_MAC_OVERRIDE would be let through by the
 * kernel where this says no.
 */
int smack_fd_receivable(SmackOracle *oracle, const SmackLabel *subject, int fd);
