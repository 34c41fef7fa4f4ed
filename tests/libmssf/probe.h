/* libmssf-probe: a service that answers org.mssf.Probe with libmssf (both bindings). */
#pragma once

#define PROBE_PATH "/org/mssf/Probe"
#define PROBE_INTERFACE "org.mssf.Probe"

/* Own name at address (NULL: the system bus) and serve until the bus goes; 1 then. */
int probe_serve_gio(const char *address, const char *name);
int probe_serve_sd_bus(const char *address, const char *name);
