/* e2e-tree: a service that serves a subtree, for tests/e2e (sd-bus fallback vtable).
 *
 *   e2e-tree [NAME]   owns NAME (default org.mssf.E2ETree), prints
 *       "ready NAME UNIQUE" (or "refused NAME ERROR", exit 1), then one
 *       line per event, flushed, for 120 s.
 *
 * Interface org.mssf.E2E.Location is a fallback vtable at
 * /org/mssf/E2ETree/Location: sd-bus serves it there and at every path
 * below, as many real services serve their objects. Methods:
 * GetPosition() -> s "position-secret"; Emit(s kind): kind "self" emits
 * InterfacesAdded for /org/mssf/E2ETree/Location, "child" for
 * /org/mssf/E2ETree/Location/3, "removed-child" InterfacesRemoved for
 * it. Properties (read-only, s): Position "position-secret", Accuracy
 * "accuracy-open". An object manager at /org/mssf/E2ETree lists
 * /org/mssf/E2ETree/Location and its children 1 and 2. Prints "CALL
 * IFACE.MEMBER PATH SENDER" for every call it receives (before sd-bus
 * dispatches it) and "GET PATH PROPERTY" for each property read.
 *
 * The manifest (e2e-svc.xml) declares only /org/mssf/E2ETree and
 * /org/mssf/E2ETree/Location: everything the subtree adds below is the
 * bus's to hide.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

#define ROOT "/org/mssf/E2ETree"
#define LOCATION ROOT "/Location"
#define INTERFACE "org.mssf.E2E.Location"

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
        fflush(stdout);
}

static double now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int get_position(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        (void) userdata;
        (void) error;
        return sd_bus_reply_method_return(m, "s", "position-secret");
}

static int emit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        sd_bus *bus = sd_bus_message_get_bus(m);
        const char *kind;
        int r;

        (void) userdata;
        r = sd_bus_message_read(m, "s", &kind);
        if (r < 0)
                return r;
        if (strcmp(kind, "self") == 0)
                r = sd_bus_emit_object_added(bus, LOCATION);
        else if (strcmp(kind, "child") == 0)
                r = sd_bus_emit_object_added(bus, LOCATION "/3");
        else if (strcmp(kind, "removed-child") == 0)
                r = sd_bus_emit_object_removed(bus, LOCATION "/3");
        else
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "unknown kind");
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, "");
}

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        (void) bus;
        (void) interface;
        (void) userdata;
        (void) error;
        say("GET %s %s", path, property);
        return sd_bus_message_append(reply, "s",
                                     strcmp(property, "Position") == 0 ? "position-secret" : "accuracy-open");
}

static const sd_bus_vtable location_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("GetPosition", "", "s", get_position, 0),
        SD_BUS_METHOD("Emit", "s", "", emit, 0),
        SD_BUS_PROPERTY("Position", "s", get_property, 0, 0),
        SD_BUS_PROPERTY("Accuracy", "s", get_property, 0, 0),
        SD_BUS_VTABLE_END
};

/* Every path under the fallback exists. */
static int find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                sd_bus_error *error) {
        (void) bus;
        (void) path;
        (void) interface;
        (void) error;
        *found = userdata;
        return 1;
}

static int enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***nodes, sd_bus_error *error) {
        static const char *const paths[] = { LOCATION, LOCATION "/1", LOCATION "/2" };
        char **list = calloc(4, sizeof(char *));

        (void) bus;
        (void) prefix;
        (void) userdata;
        (void) error;
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < 3; i++)
                if (!(list[i] = strdup(paths[i])))
                        return -ENOMEM;
        *nodes = list;
        return 0;
}

static int log_call(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *interface = sd_bus_message_get_interface(m);

        (void) userdata;
        (void) error;
        if (sd_bus_message_is_method_call(m, NULL, NULL))
                say("CALL %s.%s %s %s", interface ? interface : "-", sd_bus_message_get_member(m),
                    sd_bus_message_get_path(m), sd_bus_message_get_sender(m));
        return 0;
}

int main(int argc, char **argv) {
        const char *name = argc > 1 ? argv[1] : "org.mssf.E2ETree";
        const char *unique = NULL;
        sd_bus *bus = NULL;
        double end;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                say("error open: %s", strerror(-r));
                return 2;
        }
        if ((r = sd_bus_add_filter(bus, NULL, log_call, NULL)) < 0 ||
            (r = sd_bus_add_fallback_vtable(bus, NULL, LOCATION, INTERFACE, location_vtable, find, NULL)) < 0 ||
            (r = sd_bus_add_node_enumerator(bus, NULL, ROOT, enumerate, NULL)) < 0 ||
            (r = sd_bus_add_object_manager(bus, NULL, ROOT)) < 0) {
                say("error setup: %s", strerror(-r));
                return 2;
        }
        r = sd_bus_request_name(bus, name, 0);
        if (r < 0) {
                say("refused %s %s", name, strerror(-r));
                return 1;
        }
        sd_bus_get_unique_name(bus, &unique);
        say("ready %s %s", name, unique);
        end = now() + 120;
        while (now() < end) {
                r = sd_bus_process(bus, NULL);
                if (r < 0) {
                        say("error process: %s", strerror(-r));
                        return 1;
                }
                if (r == 0 && sd_bus_wait(bus, 100 * 1000) < 0)
                        return 1;
        }
        sd_bus_unref(bus);
        return 0;
}
