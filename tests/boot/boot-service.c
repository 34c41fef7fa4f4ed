/*
 * boot-service: the bus-activated service of the boot test.
 *
 * Owns org.mssf.BootTest on the system bus and answers on
 * /org/mssf/BootTest, interface org.mssf.BootTest:
 *   Ping() -> s            "pong"
 *   Label() -> s           this process's Smack label (/proc/self/attr/current)
 *   CallerLabel() -> s     the caller's LinuxSecurityLabel, as the bus
 *                          reports it through GetConnectionCredentials
 * It is started by systemd (boot-service.service, Type=dbus) when the bus
 * activates the name; the unit sets its label with SmackProcessLabel=.
 * Nothing here is a security check: the test compares what it reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#define BOOT_NAME "org.mssf.BootTest"
#define BOOT_PATH "/org/mssf/BootTest"

static int read_own_label(char *buf, size_t size) {
        ssize_t n;
        int fd = open("/proc/self/attr/current", O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        close(fd);
        if (n < 0)
                return -errno;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
                n--;
        buf[n] = '\0';
        return 0;
}

static int method_ping(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return sd_bus_reply_method_return(m, "s", "pong");
}

static int method_label(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        char label[256];
        int r = read_own_label(label, sizeof(label));

        if (r < 0)
                return sd_bus_error_set_errnof(error, -r, "cannot read own label: %s", strerror(-r));
        return sd_bus_reply_method_return(m, "s", label);
}

/* Finds LinuxSecurityLabel (ay, NUL-terminated) in a{sv}; "" when absent. */
static int creds_find_label(sd_bus_message *reply, char *buf, size_t size) {
        int r;

        buf[0] = '\0';
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key;
                const void *bytes;
                size_t n;

                r = sd_bus_message_read(reply, "s", &key);
                if (r < 0)
                        return r;
                if (strcmp(key, "LinuxSecurityLabel") != 0) {
                        r = sd_bus_message_skip(reply, "v");
                } else {
                        r = sd_bus_message_enter_container(reply, 'v', "ay");
                        if (r < 0)
                                return r;
                        r = sd_bus_message_read_array(reply, 'y', &bytes, &n);
                        if (r < 0)
                                return r;
                        while (n > 0 && ((const char *) bytes)[n - 1] == '\0')
                                n--;
                        if (n >= size)
                                return -E2BIG;
                        memcpy(buf, bytes, n);
                        buf[n] = '\0';
                        r = sd_bus_message_exit_container(reply);
                }
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

static int method_caller_label(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        sd_bus_message *reply = NULL;
        char label[256];
        int r;

        r = sd_bus_call_method(sd_bus_message_get_bus(m), "org.freedesktop.DBus",
                               "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetConnectionCredentials", error, &reply, "s",
                               sd_bus_message_get_sender(m));
        if (r < 0)
                return r;
        r = creds_find_label(reply, label, sizeof(label));
        sd_bus_message_unref(reply);
        if (r < 0)
                return sd_bus_error_set_errnof(error, -r, "bad credentials reply: %s", strerror(-r));
        return sd_bus_reply_method_return(m, "s", label);
}

static const sd_bus_vtable boot_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Ping", "", "s", method_ping, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Label", "", "s", method_label, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("CallerLabel", "", "s", method_caller_label, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END
};

int main(void) {
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "boot-service: cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        r = sd_bus_add_object_vtable(bus, NULL, BOOT_PATH, BOOT_NAME, boot_vtable, NULL);
        if (r < 0) {
                fprintf(stderr, "boot-service: cannot add the object: %s\n", strerror(-r));
                return 1;
        }
        r = sd_bus_request_name(bus, BOOT_NAME, 0);
        if (r < 0) {
                fprintf(stderr, "boot-service: cannot own %s: %s\n", BOOT_NAME, strerror(-r));
                return 1;
        }
        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r > 0)
                        continue;
                r = sd_bus_wait(bus, UINT64_MAX);
                if (r < 0)
                        break;
        }
        if (r == -ECONNRESET || r == -ENOTCONN)
                r = 0;
        if (r < 0)
                fprintf(stderr, "boot-service: %s\n", strerror(-r));
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}
