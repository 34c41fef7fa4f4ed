/*
 * libmssf-probe: a test service that asks libmssf about its callers, in
 * each of libmssf's forms, so that tests can drive it with real clients
 * (gdbus, busctl) and read libmssf's answer from the reply.
 *
 *   libmssf-probe [--address ADDR] gio|sd-bus NAME
 *
 * Owns NAME on ADDR (default: the system bus, DBUS_SYSTEM_BUS_ADDRESS
 * honoured), prints "ready NAME UNIQUE-NAME" and serves org.mssf.Probe
 * at /org/mssf/Probe (probe-gio.c, probe-sd-bus.c) until the bus goes.
 */
#include <stdio.h>
#include <string.h>

#include "probe.h"

int main(int argc, char **argv) {
        const char *address = NULL;
        int i = 1;

        if (argc > 2 && strcmp(argv[1], "--address") == 0) {
                address = argv[2];
                i = 3;
        }
        if (argc - i != 2) {
                fprintf(stderr, "usage: libmssf-probe [--address ADDR] gio|sd-bus NAME\n");
                return 2;
        }
        if (strcmp(argv[i], "gio") == 0)
                return probe_serve_gio(address, argv[i + 1]);
        if (strcmp(argv[i], "sd-bus") == 0)
                return probe_serve_sd_bus(address, argv[i + 1]);
        fprintf(stderr, "libmssf-probe: unknown binding %s\n", argv[i]);
        return 2;
}
