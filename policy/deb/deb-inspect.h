/* What the package files of one apt run would put into the device's MSSF configuration (deb-inspect.c). */
#pragma once

#include "macro.h"

typedef struct DebRun DebRun;

/* A run unpacking into the tree whose root is root_fd (borrowed, O_PATH will do). */
int deb_run_new(int root_fd, DebRun **ret);
DebRun *deb_run_free(DebRun *run);

/*
 * List deb's members with the real dpkg-deb and tar, as the run's next
 * package file (index: how many were added before). 0; a DEB_CONTENTS_E_*
 * code with *ret_error (owned) when the file cannot be listed as dpkg
 * would unpack it, or past the run's bound on members; or -errno.
 * A file that fails is not added.
 */
int deb_run_add(DebRun *run, const char *deb, char **ret_error);

/* Every file added: where the run's symlinks land (before deb_run_inspect). 0 or -errno. */
int deb_run_seal(DebRun *run);

/*
 * Whether the package file at index would put anything into /etc/mssf or
 * /etc/smack/accesses.d: 0 with *ret_finding NULL when not, or set
 * (owned) to the first member that would, phrased to follow "package
 * NAME VERSION " ("ships the hard link ... to ..."); -ELOOP,
 * -ENAMETOOLONG when a member cannot be followed, or another -errno. A
 * caller refuses on anything but 0 with no finding.
 */
int deb_run_inspect(const DebRun *run, size_t index, char **ret_finding);

DEFINE_CLEANUP(DebRun *, deb_run_free);
