/* A peer's effective capabilities at connect time, from /proc/PID/status (untrusted text). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most of /proc/PID/status read; a longer one is refused (-E2BIG). */
#define CREDS_CAPS_STATUS_MAX (64u * 1024u)

/*
 * The "CapEff:" line of a /proc/PID/status text (size bytes, not
 * NUL-terminated, NULs inside refused): exactly one such line, exactly
 * "CapEff:\t" and 16 lower- or upper-case hex digits then a newline, as
 * the kernel writes it. 0 with *ret_effective, or -ENODATA (no such
 * line), -EBADMSG (any other shape, or two of them), -E2BIG (size above
 * CREDS_CAPS_STATUS_MAX). *ret_effective is not written on failure.
 */
int creds_caps_parse_status(const char *text, size_t size, uint64_t *ret_effective);

/*
 * The effective capabilities of process pid, read from /proc/pid/status.
 * pidfd (or -1): the same process's pidfd (SO_PEERPIDFD, which the
 * kernel took with SO_PEERCRED's pid): when it is still running after the
 * read, the pid was not reused meanwhile. 0, or a negative errno (-ESRCH
 * for a pid of 0 or below, or a process gone; the parser's errors; what
 * open and read give, -EACCES where Smack keeps the bus out). Does I/O:
 * once per connection.
 */
int creds_caps_read(pid_t pid, int pidfd, uint64_t *ret_effective);

/*
 * Whether the process behind a connection could receive any descriptor
 * whatever its Smack label (CAP_MAC_OVERRIDE effective): true only when
 * creds_caps_read() succeeded and says so.
 */
bool creds_caps_mac_override(pid_t pid, int pidfd);
