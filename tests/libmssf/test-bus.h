/* A private bus for libmssf's tests: a daemon started with a permissive configuration. */
#pragma once

#include <sys/types.h>

typedef struct TestBus {
        pid_t pid;
        char dir[64];
        char address[512];
} TestBus;

/* Starts daemon (mssf-broker or dbus-daemon) and waits for its address; the test fails if it cannot. */
void test_bus_start(TestBus *bus, const char *daemon);
void test_bus_stop(TestBus *bus);
