/*
 * What systemd hands a service in its environment: the sockets it
 * listens on for us (LISTEN_PID, LISTEN_FDS: sd_listen_fds(3)) and the
 * watchdog's period (WATCHDOG_USEC, WATCHDOG_PID: sd_watchdog_enabled(3)).
 *
 * Why not libsystemd, whose sd-daemon calls these are: the broker would
 * use four of its functions (these two, sd_journal_sendv() in log.c and
 * sd_uid_get_seats(), which busconfig now loads only where a policy asks
 * for at_console), and linking it maps libsystemd and the five libraries
 * it needs (libgcrypt, libgpg-error, libzstd, liblzma, liblz4) into every
 * bus: 0.98 MiB of a fresh bus's 4.0 MiB RSS, measured with
 * bench/run-bench's "RSS of a fresh bus" (dbus-broker, which implements
 * these protocols itself, has 2.6 MiB). The protocols are small, stable
 * and documented in those man pages; notify.c already speaks
 * NOTIFY_SOCKET's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "service-env.h"

/* A decimal number that fits, else -EINVAL. */
static int parse_u64(const char *s, uint64_t *ret) {
        char *end = NULL;
        unsigned long long v;

        if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || !end || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Whether the variable names this process (LISTEN_PID, WATCHDOG_PID); absent counts as yes where allowed. */
static int names_us(const char *variable, bool absent_ok) {
        const char *value = getenv(variable);
        uint64_t pid;

        if (!value)
                return absent_ok;
        if (parse_u64(value, &pid) < 0)
                return -EINVAL;
        return pid == (uint64_t) getpid();
}

int service_env_listen_fds(void) {
        uint64_t n;
        int r;

        r = names_us("LISTEN_PID", false);
        if (r <= 0)
                goto done;
        r = parse_u64(getenv("LISTEN_FDS"), &n);
        if (r < 0)
                goto done;
        if (n > (uint64_t) (INT32_MAX - SERVICE_ENV_LISTEN_FDS_START)) {
                r = -EINVAL;
                goto done;
        }
        for (int fd = SERVICE_ENV_LISTEN_FDS_START; fd < SERVICE_ENV_LISTEN_FDS_START + (int) n; fd++) {
                int flags = fcntl(fd, F_GETFD);

                if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0) {
                        r = -errno;
                        goto done;
                }
        }
        r = (int) n;
done:
        /* Not for our children (activated services), whatever it said. */
        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDS");
        unsetenv("LISTEN_FDNAMES");
        return r;
}

int service_env_watchdog_usec(uint64_t *ret) {
        uint64_t usec;
        int r;

        *ret = 0;
        if (!getenv("WATCHDOG_USEC"))
                return 0;
        r = parse_u64(getenv("WATCHDOG_USEC"), &usec);
        if (r < 0 || usec == 0)
                return r < 0 ? r : -EINVAL;
        r = names_us("WATCHDOG_PID", true);
        if (r <= 0)
                return r;
        *ret = usec;
        return 1;
}
