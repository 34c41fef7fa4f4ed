/*
 * The steps of mssf-demo-app, and the signals it prints.
 *
 * Each step makes its calls synchronously and prints one line per thing
 * that happened, in words: what a service answered, what the bus refused
 * (org.freedesktop.DBus.Error.AccessDenied), what failed otherwise. A
 * refusal is an outcome to show, not an error of the app: the script goes
 * on. The bus also hides things without an error: it drops signals and
 * removes properties the app may not see from GetAll, GetManagedObjects,
 * PropertiesChanged and InterfacesAdded. To make that visible, get-all
 * and get-managed-objects compare what came with what the object's
 * introspection data (open in the demo manifests) says it has, and name
 * each missing property "not visible (hidden by the bus)".
 *
 * Signals are subscribed before the first step, so that none emitted in
 * answer to a call is missed; they are printed whenever the main loop
 * runs, which is during listen-signals: those that arrived during earlier
 * steps first, in order, then the new ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "format.h"

#define DBUS_INTERFACE_PROPERTIES "org.freedesktop.DBus.Properties"
#define DBUS_INTERFACE_OBJECT_MANAGER "org.freedesktop.DBus.ObjectManager"
#define DBUS_INTERFACE_INTROSPECTABLE "org.freedesktop.DBus.Introspectable"

/* A method call; the reply, or NULL with error set. */
static GVariant *app_call(App *app, const char *destination, const char *path,
                          const char *interface, const char *method, GVariant *parameters,
                          const GVariantType *reply_type, GError **error) {
        return g_dbus_connection_call_sync(app->connection, destination, path, interface, method,
                                           parameters, reply_type, G_DBUS_CALL_FLAGS_NONE,
                                           app->timeout_ms, NULL, error);
}

static void print_failure(const char *what, const GError *error) {
        g_autofree char *text = format_error(error);

        printf("%s %s\n", what, text);
}

void step_call(App *app, const Step *step) {
        char **w = step->words;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL;
        g_auto(GStrv) lines = NULL;
        g_autofree char *text = NULL;

        reply = app_call(app, w[0], w[1], w[2], w[3], step->values, NULL, &error);
        if (!reply) {
                print_failure(w[3], error);
                return;
        }
        text = format_reply(reply, &lines);
        printf("%s answered: %s\n", w[3], text);
        for (char **line = lines; line && *line; line++)
                printf("  %s\n", *line);
}

void step_get_property(App *app, const Step *step) {
        char **w = step->words;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL, value = NULL;
        g_autofree char *text = NULL;

        reply = app_call(app, w[0], w[1], DBUS_INTERFACE_PROPERTIES, "Get",
                         g_variant_new("(ss)", w[2], w[3]), G_VARIANT_TYPE("(v)"), &error);
        if (!reply) {
                print_failure(w[3], error);
                return;
        }
        g_variant_get(reply, "(v)", &value);
        text = format_value(value);
        printf("%s: %s\n", w[3], text);
}

void step_set_property(App *app, const Step *step) {
        char **w = step->words;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL, value = g_variant_get_child_value(step->values, 0);
        g_autofree char *text = format_value(value);
        g_autofree char *what = g_strdup_printf("setting %s to %s", w[3], text);

        reply = app_call(app, w[0], w[1], DBUS_INTERFACE_PROPERTIES, "Set",
                         g_variant_new("(ssv)", w[2], w[3], value), G_VARIANT_TYPE_UNIT, &error);
        if (!reply) {
                print_failure(what, error);
                return;
        }
        printf("%s: done\n", what);
}

/*
 * The introspection data of the object at path, or NULL (the object
 * cannot be introspected: then nothing is said about hidden properties).
 */
static GDBusNodeInfo *app_introspect(App *app, const char *destination, const char *path,
                                     GError **error) {
        g_autoptr(GVariant) reply = NULL;
        const char *xml;

        reply = app_call(app, destination, path, DBUS_INTERFACE_INTROSPECTABLE, "Introspect",
                         NULL, G_VARIANT_TYPE("(s)"), error);
        if (!reply)
                return NULL;
        g_variant_get(reply, "(&s)", &xml);
        return g_dbus_node_info_new_for_xml(xml, error);
}

/*
 * Print each property of properties (an a{sv}) as "INDENTNAME: VALUE",
 * then each readable property that interface_info declares and
 * properties lacks as hidden.
 */
static void print_properties(GVariant *properties, const GDBusInterfaceInfo *interface_info,
                             const char *indent) {
        GVariantIter iter;
        const char *name;
        GVariant *value;

        g_variant_iter_init(&iter, properties);
        while (g_variant_iter_loop(&iter, "{&sv}", &name, &value)) {
                g_autofree char *text = format_value(value);

                printf("%s%s: %s\n", indent, name, text);
        }
        if (!interface_info)
                return;
        for (GDBusPropertyInfo **p = interface_info->properties; p && *p; p++) {
                g_autoptr(GVariant) present = NULL;

                if (!((*p)->flags & G_DBUS_PROPERTY_INFO_FLAGS_READABLE))
                        continue;
                present = g_variant_lookup_value(properties, (*p)->name, NULL);
                if (!present)
                        printf("%s%s: not visible (hidden by the bus)\n", indent, (*p)->name);
        }
}

void step_get_all(App *app, const Step *step) {
        char **w = step->words;
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL, properties = NULL;
        g_autoptr(GDBusNodeInfo) node = NULL;
        g_autofree char *what = g_strdup_printf("GetAll %s", w[2]);
        gsize n;

        reply = app_call(app, w[0], w[1], DBUS_INTERFACE_PROPERTIES, "GetAll",
                         g_variant_new("(s)", w[2]), G_VARIANT_TYPE("(a{sv})"), &error);
        if (!reply) {
                print_failure(what, error);
                return;
        }
        properties = g_variant_get_child_value(reply, 0);
        n = g_variant_n_children(properties);
        printf("%s answered: %" G_GSIZE_FORMAT " propert%s\n", what, n, n == 1 ? "y" : "ies");
        node = app_introspect(app, w[0], w[1], NULL);
        print_properties(properties, node ? g_dbus_node_info_lookup_interface(node, w[2]) : NULL,
                         "  ");
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* One object of a GetManagedObjects reply: its interfaces and their properties. */
static void print_managed_object(App *app, const char *destination, const char *path,
                                 GVariant *interfaces) {
        g_autoptr(GDBusNodeInfo) node = app_introspect(app, destination, path, NULL);
        GVariantIter iter;
        const char *interface;
        GVariant *properties;

        printf("  %s\n", path);
        g_variant_iter_init(&iter, interfaces);
        while (g_variant_iter_loop(&iter, "{&s@a{sv}}", &interface, &properties)) {
                printf("    %s\n", interface);
                print_properties(properties,
                                 node ? g_dbus_node_info_lookup_interface(node, interface) : NULL,
                                 "      ");
        }
}

void step_get_managed_objects(App *app, const Step *step) {
        char **w = step->words;
        const char *path = step->n_words > 1 ? w[1] : "/";
        g_autoptr(GError) error = NULL;
        g_autoptr(GVariant) reply = NULL, objects = NULL;
        g_autofree const char **paths = NULL;
        gsize n;

        reply = app_call(app, w[0], path, DBUS_INTERFACE_OBJECT_MANAGER, "GetManagedObjects",
                         NULL, G_VARIANT_TYPE("(a{oa{sa{sv}}})"), &error);
        if (!reply) {
                print_failure("GetManagedObjects", error);
                return;
        }
        objects = g_variant_get_child_value(reply, 0);
        n = g_variant_n_children(objects);
        printf("GetManagedObjects answered: %" G_GSIZE_FORMAT " object%s\n", n, n == 1 ? "" : "s");
        /* In path order, whatever order the service keeps them in. */
        paths = g_new0(const char *, n + 1);
        for (gsize i = 0; i < n; i++)
                g_variant_get_child(objects, i, "{&o@a{sa{sv}}}", &paths[i], NULL);
        qsort(paths, n, sizeof(*paths), compare_strings);
        for (gsize i = 0; i < n; i++) {
                g_autoptr(GVariant) interfaces =
                        g_variant_lookup_value(objects, paths[i], G_VARIANT_TYPE("a{sa{sv}}"));

                print_managed_object(app, w[0], paths[i], interfaces);
        }
}

/* "NAME, NAME" of the names of a NULL-terminated array of GDBus*Info. */
static char *join_names(void **infos, size_t name_offset) {
        GString *out = g_string_new(NULL);

        for (void **info = infos; info && *info; info++) {
                if (out->len > 0)
                        g_string_append(out, ", ");
                g_string_append(out, *(const char **) ((char *) *info + name_offset));
        }
        return g_string_free(out, FALSE);
}

static void print_interface_info(const GDBusInterfaceInfo *interface) {
        g_autofree char *methods = join_names((void **) interface->methods,
                                              G_STRUCT_OFFSET(GDBusMethodInfo, name));
        g_autofree char *signals = join_names((void **) interface->signals,
                                              G_STRUCT_OFFSET(GDBusSignalInfo, name));
        g_autofree char *properties = join_names((void **) interface->properties,
                                                 G_STRUCT_OFFSET(GDBusPropertyInfo, name));

        printf("  interface %s", interface->name);
        if (methods[0])
                printf("; methods %s", methods);
        if (signals[0])
                printf("; signals %s", signals);
        if (properties[0])
                printf("; properties %s", properties);
        printf("\n");
}

void step_introspect(App *app, const Step *step) {
        char **w = step->words;
        g_autoptr(GError) error = NULL;
        g_autoptr(GDBusNodeInfo) node = app_introspect(app, w[0], w[1], &error);
        g_autofree char *children = NULL;

        if (!node) {
                print_failure("Introspect", error);
                return;
        }
        printf("Introspect answered: %s\n", w[1]);
        /* The standard interfaces are on every object: leave them out. */
        for (GDBusInterfaceInfo **i = node->interfaces; i && *i; i++)
                if (!g_str_has_prefix((*i)->name, "org.freedesktop.DBus."))
                        print_interface_info(*i);
        children = join_names((void **) node->nodes, G_STRUCT_OFFSET(GDBusNodeInfo, path));
        if (children[0])
                printf("  child nodes %s\n", children);
}

static gboolean quit_loop(gpointer userdata) {
        g_main_loop_quit(userdata);
        return G_SOURCE_REMOVE;
}

void step_listen_signals(App *app, const Step *step) {
        double seconds = g_ascii_strtod(step->words[0], NULL);
        g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);
        unsigned before = app->n_signals, n;

        if (step->n_words > 1) {
                g_autofree char *senders = NULL;

                app->signal_senders = g_new0(char *, (gsize) step->n_words);
                for (int i = 1; i < step->n_words; i++)
                        app->signal_senders[i - 1] = g_strdup(step->words[i]);
                senders = g_strjoinv(", ", app->signal_senders);
                printf("listening for signals from %s for %s s\n", senders, step->words[0]);
        } else {
                printf("listening for signals for %s s\n", step->words[0]);
        }
        fflush(stdout);
        app_resolve_owners(app);
        g_timeout_add((guint) (seconds * 1000.0), quit_loop, loop);
        g_main_loop_run(loop);
        g_clear_pointer(&app->signal_senders, g_strfreev);
        n = app->n_signals - before;
        if (n == 0)
                printf("no signal received\n");
        else
                printf("%u signal%s received\n", n, n == 1 ? "" : "s");
}

/* "INTERFACE: NAME=VALUE, ..." of a PropertiesChanged, in words. */
static char *format_properties_changed(GVariant *parameters) {
        g_autoptr(GVariant) changed = NULL;
        g_autofree const char **invalidated = NULL;
        GString *out = g_string_new(NULL);
        const char *interface, *name;
        GVariantIter iter;
        GVariant *value;
        unsigned n = 0;

        g_variant_get(parameters, "(&s@a{sv}^a&s)", &interface, &changed, &invalidated);
        g_string_append_printf(out, "%s: ", interface);
        g_variant_iter_init(&iter, changed);
        while (g_variant_iter_loop(&iter, "{&sv}", &name, &value)) {
                g_autofree char *text = format_value(value);

                g_string_append_printf(out, "%s%s=%s", n++ ? ", " : "", name, text);
        }
        for (const char **i = invalidated; i && *i; i++)
                g_string_append_printf(out, "%s%s changed", n++ ? ", " : "", *i);
        if (n == 0)
                g_string_append(out, "no property left (hidden by the bus)");
        return g_string_free(out, FALSE);
}

static void on_signal(GDBusConnection *connection G_GNUC_UNUSED, const char *sender,
                      const char *path G_GNUC_UNUSED, const char *interface, const char *member,
                      GVariant *parameters, gpointer userdata) {
        App *app = userdata;
        const char *who = sender ? g_hash_table_lookup(app->owners, sender) : NULL;
        g_autofree char *text = NULL;

        /* NameAcquired and friends: the bus talking to us, not a service. */
        if (g_strcmp0(sender, "org.freedesktop.DBus") == 0)
                return;
        if (app->signal_senders &&
            !(who && g_strv_contains((const char *const *) app->signal_senders, who)))
                return;
        app->n_signals++;
        if (strcmp(interface, DBUS_INTERFACE_PROPERTIES) == 0 &&
            strcmp(member, "PropertiesChanged") == 0 &&
            g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sa{sv}as)")))
                text = format_properties_changed(parameters);
        else
                text = format_tuple_members(parameters);
        printf("received %s(%s) from %s\n", member, text, who ? who : sender ? sender : "?");
        fflush(stdout);
}

guint app_subscribe_signals(App *app) {
        return g_dbus_connection_signal_subscribe(app->connection, NULL, NULL, NULL, NULL, NULL,
                                                  G_DBUS_SIGNAL_FLAGS_NONE, on_signal, app, NULL);
}

void app_resolve_owners(App *app) {
        for (guint i = 0; i < app->names->len; i++) {
                const char *name = g_ptr_array_index(app->names, i);
                g_autoptr(GVariant) reply = NULL;
                const char *owner;

                reply = app_call(app, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "GetNameOwner",
                                 g_variant_new("(s)", name), G_VARIANT_TYPE("(s)"), NULL);
                if (!reply)
                        continue;
                g_variant_get(reply, "(&s)", &owner);
                g_hash_table_replace(app->owners, g_strdup(owner), g_strdup(name));
        }
}
