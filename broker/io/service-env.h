/* The sockets and the watchdog systemd hands a service in its environment (service-env.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define SERVICE_ENV_LISTEN_FDS_START 3

/*
 * sd_listen_fds(true): how many sockets, from fd 3 on, systemd passed
 * this process (LISTEN_PID must be ours), made close-on-exec; 0 when none
 * were passed, -EINVAL for a malformed environment, -errno. The variables
 * are removed from the environment either way.
 */
int service_env_listen_fds(void);

/*
 * sd_watchdog_enabled(false, ...): 1 and the period in *ret when systemd
 * expects keep-alive pings from this process (WATCHDOG_USEC, and
 * WATCHDOG_PID ours if set), 0 when not, -EINVAL when malformed.
 */
int service_env_watchdog_usec(uint64_t *ret);
