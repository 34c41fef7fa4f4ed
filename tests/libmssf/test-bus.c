/*
 * A private bus for the libmssf tests: daemon --config-file with a
 * permissive session-type configuration in a fresh directory, its
 * address read from --print-address.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test-bus.h"

void test_bus_start(TestBus *bus, const char *daemon) {
        char config[128], arg[160];
        int pipe_fds[2];
        FILE *f;
        ssize_t n;
        size_t got = 0;

        strcpy(bus->dir, "/tmp/libmssf-test-XXXXXX");
        assert_non_null(mkdtemp(bus->dir));
        snprintf(config, sizeof(config), "%s/bus.conf", bus->dir);
        f = fopen(config, "w");
        assert_non_null(f);
        fprintf(f, "<busconfig><type>session</type><listen>unix:dir=%s</listen><auth>EXTERNAL</auth>"
                   "<policy context=\"default\"><allow send_destination=\"*\" eavesdrop=\"true\"/>"
                   "<allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n", bus->dir);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(pipe(pipe_fds), 0);
        bus->pid = fork();
        assert_true(bus->pid >= 0);
        if (bus->pid == 0) {
                /* A test that dies takes its bus with it. */
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                snprintf(arg, sizeof(arg), "--config-file=%s", config);
                dup2(pipe_fds[1], 1);
                execl(daemon, daemon, arg, "--nofork", "--nopidfile", "--print-address", (char *) NULL);
                _exit(127);
        }
        close(pipe_fds[1]);
        /* Nothing read yet: an empty string, never the stack's old bytes (a stray '\n' there ended the wait early). */
        bus->address[0] = '\0';
        while (got < sizeof(bus->address) - 1 && !strchr(bus->address, '\n')) {
                n = read(pipe_fds[0], bus->address + got, sizeof(bus->address) - 1 - got);
                if (n < 0 && errno == EINTR)
                        continue;
                assert_true(n > 0);
                got += (size_t) n;
                bus->address[got] = '\0';
        }
        close(pipe_fds[0]);
        bus->address[strcspn(bus->address, "\n")] = '\0';
}

void test_bus_stop(TestBus *bus) {
        char command[128];

        kill(bus->pid, SIGTERM);
        waitpid(bus->pid, NULL, 0);
        snprintf(command, sizeof(command), "rm -rf '%s'", bus->dir);
        assert_int_equal(system(command), 0);
}
