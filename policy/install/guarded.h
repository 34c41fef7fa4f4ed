/* The device's MSSF configuration: the files only the most trusted origin's packages may ship. */
#pragma once

#include <stdbool.h>

/*
 * /etc/mssf (repositories.conf, rpm-origins.conf, device-policy.conf, the
 * keyrings they name) decides every package's origin and what each origin
 * may be granted; /etc/smack/accesses.d is the rules the kernel loads at
 * boot. A package that ships a file there speaks for every other package,
 * so only the device maker's most trusted origin may (rpm's plugin,
 * apt's hook and dpkg's configure each refuse the rest).
 */
extern const char *const guarded_dirs[];

/* Whether path (absolute, normal) is one of guarded_dirs or under one. */
bool guarded_path(const char *path);

/*
 * Whether path (absolute, normal) is guarded or an ancestor of a guarded
 * directory ("/", "/etc", "/etc/smack"): a symlink to it leads there.
 */
bool guarded_reaches(const char *path);

enum {
        GUARDED_E_DOTDOT = 1,           /* a ".." component: only the file system can say where it goes */
        GUARDED_E_UNKNOWN = 2,          /* a ".." after a component that is not there */
};

/*
 * A name as a package archive or a file list spells it ("./etc/mssf/x",
 * "etc/mssf/x/", "/etc//mssf/./x") as an absolute normal path
 * ("/etc/mssf/x"; "/" for the root itself): 0 and *ret, GUARDED_E_DOTDOT,
 * or -ENOMEM.
 */
int guarded_normalize(const char *name, char **ret);

/*
 * The symlinks a package manager's run is about to unpack, which the tree
 * does not have yet: link_at (nullable) gives the target of the one the
 * run puts at path (absolute, normal), or NULL.
 */
typedef struct GuardedRun {
        const char *(*link_at)(const char *path, void *userdata);
        void *userdata;
} GuardedRun;

/*
 * Where path (absolute, any spelling) leads in the tree whose root is
 * root_fd, as the kernel would resolve it with that tree as its root:
 * each component followed if it is a symlink (an absolute target starts
 * again at the root, ".." never leaves it), the last one too when
 * follow_last; a component that is not in the tree is taken as named.
 *
 * run NULL: the tree is as it will be read (dpkg's files are in place),
 * and a ".." after a component that is not there is GUARDED_E_UNKNOWN
 * (the kernel finds no file that way). run set: the tree before run
 * unpacks; a component not there becomes a directory or stays away, so
 * ".." goes back to its parent, unless run->link_at makes it a symlink,
 * which is followed (where the tree has no directory: dpkg leaves one).
 *
 * 0 and *ret (absolute, normal), GUARDED_E_UNKNOWN, -ELOOP after 40
 * symlinks, -ENAMETOOLONG, or another -errno.
 */
int guarded_resolve(int root_fd, const GuardedRun *run, const char *path, bool follow_last,
                    char **ret);
