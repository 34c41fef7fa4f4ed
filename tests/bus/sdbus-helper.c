/* sdbus-helper: an sd-bus client and service for the bus tests.
 *
 * usage: bus-sdbus-helper ADDRESS serve NAME
 *        bus-sdbus-helper ADDRESS call DEST TEXT
 *        bus-sdbus-helper ADDRESS send-fd DEST TEXT
 *        bus-sdbus-helper ADDRESS emit MEMBER ARG0
 *
 * The same modes as libdbus-helper, through sd_bus_set_address() +
 * sd_bus_set_bus_client() + sd_bus_start(): "serve" exports
 * org.mssf.Test.Echo(s) -> s, Fail() -> org.mssf.Test.Error.Failed and
 * Exit() on /org/mssf/Test with a vtable and prints "READY <unique>".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#define TEST_PATH "/org/mssf/Test"
#define TEST_IFACE "org.mssf.Test"
#define TIMEOUT_USEC (5 * 1000 * 1000ULL)

static sd_bus *connect_bus(const char *address)
{
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_negotiate_fds(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                fprintf(stderr, "connect: %s\n", strerror(-r));
                exit(2);
        }
        return bus;
}

static int method_echo(sd_bus_message *m, void *data, sd_bus_error *error)
{
        const char *text;
        int r = sd_bus_message_read(m, "s", &text);

        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, "s", text);
}

static int method_fail(sd_bus_message *m, void *data, sd_bus_error *error)
{
        return sd_bus_error_set(error, TEST_IFACE ".Error.Failed",
                                "failed as asked");
}

static int method_exit(sd_bus_message *m, void *data, sd_bus_error *error)
{
        exit(0);
}

static const sd_bus_vtable test_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Echo", "s", "s", method_echo, 0),
        SD_BUS_METHOD("Fail", "", "", method_fail, 0),
        SD_BUS_METHOD("Exit", "", "", method_exit, 0),
        SD_BUS_VTABLE_END
};

static int serve(sd_bus *bus, const char *name)
{
        const char *unique;
        int r;

        r = sd_bus_add_object_vtable(bus, NULL, TEST_PATH, TEST_IFACE,
                                     test_vtable, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, name, 0);
        if (r >= 0)
                r = sd_bus_get_unique_name(bus, &unique);
        if (r < 0) {
                fprintf(stderr, "serve %s: %s\n", name, strerror(-r));
                return 2;
        }
        printf("READY %s\n", unique);
        fflush(stdout);
        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r == -ECONNRESET || r == -ENOTCONN ? 0 : 2;
                if (r > 0)
                        continue;
                r = sd_bus_wait(bus, UINT64_MAX);
                if (r < 0)
                        return 0;
        }
}

static int print_reply(int r, sd_bus_message *reply, sd_bus_error *error)
{
        const char *text;

        if (r < 0) {
                printf("%s\n", error->name ? error->name : strerror(-r));
                return 1;
        }
        r = sd_bus_message_read(reply, "s", &text);
        if (r < 0) {
                printf("bad reply: %s\n", strerror(-r));
                return 1;
        }
        printf("%s\n", text);
        return 0;
}

static int call(sd_bus *bus, const char *dest, const char *text)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r, status;

        r = sd_bus_call_method(bus, dest, TEST_PATH, TEST_IFACE, "Echo",
                               &error, &reply, "s", text);
        status = print_reply(r, reply, &error);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        return status;
}

static int send_fd(sd_bus *bus, const char *dest, const char *text)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *call = NULL, *reply = NULL;
        int fds[2], r, status;

        if (sd_bus_can_send(bus, SD_BUS_TYPE_UNIX_FD) <= 0) {
                printf("no fd passing on this connection\n");
                return 1;
        }
        if (pipe(fds) < 0 || write(fds[1], text, strlen(text)) < 0)
                return 2;
        close(fds[1]);
        r = sd_bus_message_new_method_call(bus, &call, dest, TEST_PATH,
                                           TEST_IFACE, "ReadFd");
        if (r >= 0)
                r = sd_bus_message_append(call, "h", fds[0]);
        close(fds[0]);
        if (r >= 0)
                r = sd_bus_call(bus, call, TIMEOUT_USEC, &error, &reply);
        status = print_reply(r, reply, &error);
        sd_bus_message_unref(call);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        return status;
}

static int emit(sd_bus *bus, const char *member, const char *arg0)
{
        int r = sd_bus_emit_signal(bus, TEST_PATH, TEST_IFACE, member, "s",
                                   arg0);

        if (r >= 0)
                r = sd_bus_flush(bus);
        return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
        sd_bus *bus;
        int status = 2;

        alarm(30);
        if (argc < 4) {
                fprintf(stderr, "usage: %s ADDRESS MODE ARGS\n", argv[0]);
                return 2;
        }
        bus = connect_bus(argv[1]);
        if (strcmp(argv[2], "serve") == 0)
                status = serve(bus, argv[3]);
        else if (strcmp(argv[2], "call") == 0 && argc == 5)
                status = call(bus, argv[3], argv[4]);
        else if (strcmp(argv[2], "send-fd") == 0 && argc == 5)
                status = send_fd(bus, argv[3], argv[4]);
        else if (strcmp(argv[2], "emit") == 0 && argc == 5)
                status = emit(bus, argv[3], argv[4]);
        else
                fprintf(stderr, "unknown mode %s\n", argv[2]);
        sd_bus_flush_close_unref(bus);
        return status;
}
