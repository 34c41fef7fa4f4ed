/*
 * Whether a peer held CAP_MAC_OVERRIDE when it connected. The bus refuses
 * a message carrying a descriptor its recipient's label could not receive
 * (mediate.c), because the kernel would refuse it at the recipient's
 * recvmsg() and its library would hang up; a recipient with
 * CAP_MAC_OVERRIDE is let through by the kernel, so the bus must know.
 *
 * The kernel offers no socket option for it, so this reads the
 * "CapEff:" line of /proc/PID/status, which is text the bus does not
 * control: it is parsed strictly and bounded, and every failure means
 * "no override". That errs only one way: the bus refuses a descriptor the
 * kernel might have let through (fail closed). /proc races with PID reuse
 * (DESIGN decision 2); with the peer's pidfd the read is confirmed by the
 * process still running afterwards. Without one (older kernels) a reused
 * pid can at worst make the bus believe in an override that is not
 * there, which gives back what every bus did before: delivery, and the
 * kernel's refusal at receipt.
 */
#include "creds-caps.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"

#define CAPEFF_PREFIX "CapEff:\t"
#define CAPEFF_DIGITS 16

/* One "CapEff:" line without its newline: 0 or -EBADMSG. */
static int parse_capeff(const char *line, size_t size, uint64_t *ret) {
        size_t prefix = strlen(CAPEFF_PREFIX);
        uint64_t value = 0;

        if (size != prefix + CAPEFF_DIGITS || memcmp(line, CAPEFF_PREFIX, prefix) != 0)
                return -EBADMSG;
        for (size_t i = prefix; i < size; i++) {
                int digit = hex_digit_value(line[i]);

                if (digit < 0)
                        return -EBADMSG;
                value = value << 4 | (uint64_t) digit;
        }
        *ret = value;
        return 0;
}

int creds_caps_parse_status(const char *text, size_t size, uint64_t *ret_effective) {
        bool found = false;
        uint64_t value = 0;
        size_t at = 0;

        if (size > CREDS_CAPS_STATUS_MAX)
                return -E2BIG;
        if (memchr(text, '\0', size))
                return -EBADMSG;
        while (at < size) {
                const char *line = text + at, *end = memchr(line, '\n', size - at);
                size_t length = end ? (size_t) (end - line) : size - at;

                if (length >= 7 && memcmp(line, "CapEff:", 7) == 0) {
                        /* The kernel ends every line; a second CapEff is not its text. */
                        if (!end || found || parse_capeff(line, length, &value) < 0)
                                return -EBADMSG;
                        found = true;
                }
                at += length + 1;
        }
        if (!found)
                return -ENODATA;
        *ret_effective = value;
        return 0;
}

/* Reads all of fd into buffer (size bytes at most): the count, or -E2BIG / a negative errno. */
static ssize_t read_bounded(int fd, char *buffer, size_t size) {
        size_t done = 0;

        for (;;) {
                ssize_t n = read(fd, buffer + done, size - done);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return (ssize_t) done;
                done += (size_t) n;
                if (done == size)
                        return -E2BIG;
        }
}

/* A pidfd is readable once its process has exited: 1 running, 0 gone, or a negative errno. */
static int pidfd_running(int pidfd) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int n = poll(&p, 1, 0);

        if (n < 0)
                return -errno;
        if (p.revents & (POLLERR | POLLNVAL))
                return -EBADF;
        return n == 0;
}

int creds_caps_read(pid_t pid, int pidfd, uint64_t *ret_effective) {
        /* One byte more than the parser takes, so that a longer file is seen as such. */
        static char text[CREDS_CAPS_STATUS_MAX + 1];
        _cleanup_close_ int fd = -1;
        char path[64];
        uint64_t effective;
        ssize_t size;
        int r;

        if (pid <= 0)
                return -ESRCH;
        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size = read_bounded(fd, text, sizeof(text));
        if (size < 0)
                return (int) size;
        r = creds_caps_parse_status(text, (size_t) size, &effective);
        if (r < 0)
                return r;
        if (pidfd >= 0) {
                r = pidfd_running(pidfd);
                if (r <= 0)
                        return r < 0 ? r : -ESRCH;
        }
        *ret_effective = effective;
        return 0;
}

bool creds_caps_mac_override(pid_t pid, int pidfd) {
        uint64_t effective;

        if (creds_caps_read(pid, pidfd, &effective) < 0)
                return false;
        return effective & (UINT64_C(1) << CAP_MAC_OVERRIDE);
}
