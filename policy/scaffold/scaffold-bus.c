/*
 * The running service's introspection, for mssf-policy scaffold --dest:
 * Introspect on "/" of the destination, then on every child node it
 * names, breadth first, each reply parsed strictly (scaffold-xml.c) under
 * the name "DEST:PATH" in diagnostics.
 *
 * The service is another process, so it is bounded like a file: at most
 * SCAFFOLD_MAX_NODES objects (a service listing children without end
 * stops there, with an error), each reply at most SCAFFOLD_XML_MAX_SIZE,
 * each call within sd-bus's default timeout. A child that is gone by the
 * time it is asked (UnknownObject, UnknownMethod: objects come and go) is
 * skipped with a warning; any other failure is an error: a manifest made
 * from a partial walk would silently leave objects out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "scaffold.h"

static int open_bus(const char *address, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        if (!address)
                return sd_bus_open_system(ret);
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

/* A queue of object paths still to introspect (owned strings). */
typedef struct PathQueue {
        char **paths;
        size_t n, head;
} PathQueue;

static void queue_done(PathQueue *q) {
        for (size_t i = q->head; i < q->n; i++)
                free(q->paths[i]);
        free(q->paths);
}

/* Takes the strings of children. */
static int queue_add(PathQueue *q, char **children, size_t n_children) {
        char **grown = realloc(q->paths, (q->n + n_children + 1) * sizeof(char *));

        if (!grown) {
                for (size_t i = 0; i < n_children; i++)
                        free(children[i]);
                return -ENOMEM;
        }
        q->paths = grown;
        if (n_children > 0)
                memcpy(q->paths + q->n, children, n_children * sizeof(char *));
        q->n += n_children;
        return 0;
}

static bool error_means_gone(const sd_bus_error *error) {
        return sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_OBJECT) ||
               sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_METHOD) ||
               sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_INTERFACE);
}

/* Introspects one object and adds it; its children go to q. */
static int walk_one(sd_bus *bus, const char *destination, const char *path, ScaffoldTree *tree,
                    PathQueue *q, Diagnostics *diag) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char **children = NULL;
        size_t n_children = 0;
        char *where = NULL;
        const char *xml;
        int r;

        if (asprintf(&where, "%s:%s", destination, path) < 0)
                return -ENOMEM;
        r = sd_bus_call_method(bus, destination, path, "org.freedesktop.DBus.Introspectable", "Introspect",
                               &error, &reply, "");
        if (r < 0 && strcmp(path, "/") != 0 && error_means_gone(&error)) {
                r = diagnostics_add(diag, DIAGNOSTIC_WARNING, where, 0, 0, "skipped: %s (%s)",
                                    error.message ? error.message : "gone", error.name);
        } else if (r < 0) {
                r = diagnostics_add(diag, DIAGNOSTIC_ERROR, where, 0, 0, "cannot introspect: %s%s%s",
                                    error.message ? error.message : strerror(-r),
                                    error.name ? " " : "", error.name ? error.name : "") ?: SCAFFOLD_E_INVALID;
        } else if ((r = sd_bus_message_read(reply, "s", &xml)) < 0) {
                r = diagnostics_add(diag, DIAGNOSTIC_ERROR, where, 0, 0,
                                    "the Introspect reply is not a string: %s", strerror(-r)) ?: SCAFFOLD_E_INVALID;
        } else {
                r = scaffold_xml_parse(tree, xml, strlen(xml), where, path, diag, &children, &n_children);
                if (r == 0)
                        r = queue_add(q, children, n_children);
                free(children);
        }
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        free(where);
        return r;
}

int scaffold_walk_bus(ScaffoldTree *tree, const char *address, const char *destination, Diagnostics *diag) {
        PathQueue q = { 0 };
        sd_bus *bus = NULL;
        char *root = strdup("/");
        int r;

        if (!root || queue_add(&q, &root, 1) < 0)
                return -ENOMEM;
        r = open_bus(address, &bus);
        if (r < 0) {
                queue_done(&q);
                return diagnostics_add(diag, DIAGNOSTIC_ERROR, address ? address : "the system bus", 0, 0,
                                       "cannot connect: %s", strerror(-r)) ?: SCAFFOLD_E_INVALID;
        }
        while (r == 0 && q.head < q.n) {
                char *path = q.paths[q.head++];

                if (q.head > SCAFFOLD_MAX_NODES)
                        r = diagnostics_add(diag, DIAGNOSTIC_ERROR, destination, 0, 0,
                                            "more than %u objects: the walk stops here", SCAFFOLD_MAX_NODES)
                                ?: SCAFFOLD_E_INVALID;
                else
                        r = walk_one(bus, destination, path, tree, &q, diag);
                free(path);
        }
        queue_done(&q);
        sd_bus_flush_close_unref(bus);
        return r;
}
