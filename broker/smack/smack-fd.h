/* Whether a label could receive a file descriptor: the kernel's smack_file_receive(), asked ahead. */
#pragma once

#include "smack-oracle.h"

/*
 * Whether subject could receive fd (passed in SCM_RIGHTS): 1 yes, 0 no,
 * or a negative errno (a "no" too: the caller fails closed). The
 * kernel's rule (security/smack/smack_lsm.c, smack_file_receive): for a
 * socket, the receiver needs write access to the socket's SMACK64IPOUT
 * label and read access to its SMACK64IPIN label; asked here as both "rw"
 * on both, which can only refuse more. For anything else, access to the
 * file's SMACK64 label in the mode it was opened in ("r", "w" or "rw").
 * A label that cannot be read (an O_PATH descriptor, whose xattrs cannot
 * be read through it; an inode the kernel keeps private, such as an
 * eventfd's) is a "no", where the kernel may let it through. The labels are read from the
 * descriptor itself (fgetxattr), so a path renamed or relabelled since
 * does not matter. A process with CAP_MAC_OVERRIDE would be let through by
 * the kernel where this says no: observers are judged by their label alone.
 */
int smack_fd_receivable(SmackOracle *oracle, const SmackLabel *subject, int fd);
