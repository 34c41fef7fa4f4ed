/* Whether this process may set security.* xattrs here (root on a file system that keeps them). */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The tests that need them exit 77 (SKIP) without: never a silent pass. */
static inline bool security_xattrs_available(void) {
        char path[] = "/tmp/xattr-probe.XXXXXX";
        int fd = mkstemp(path);
        bool ok;

        if (fd < 0)
                return false;
        ok = fsetxattr(fd, "security.SMACK64EXEC", "probe", 5, 0) == 0;
        close(fd);
        unlink(path);
        if (!ok)
                printf("SKIP: cannot set security.* xattrs (needs root)\n");
        return ok;
}
