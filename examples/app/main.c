/*
 * mssf-demo-app: the demo's client. It runs the script of steps on its
 * command line against the system bus and says in plain words what
 * happened: what was answered, what the bus refused, which signals
 * arrived and which properties were hidden (see script.c for the script,
 * steps.c for the steps).
 *
 * The same program is installed once per demo package, as
 * /usr/lib/mssf-demo/trusted-app and /usr/lib/mssf-demo/untrusted-app, so
 * that each package's <for path> labels its own copy and the two run with
 * different Smack labels and tokens; the lines it prints start with no
 * name, the first one says which copy runs and with which label. Exit
 * status: 0 when every step ran, whatever the bus decided; 1 when the bus
 * cannot be reached; 2 for a bad command line.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "demo-bus.h"

/* The process's Smack label, or NULL where the kernel has no Smack. */
static char *smack_label(void) {
        static const char *const files[] = {
                "/proc/self/attr/smack/current",
                "/proc/self/attr/current",
        };
        char *label = NULL;

        if (!g_file_test("/sys/fs/smackfs/load2", G_FILE_TEST_EXISTS))
                return NULL;
        for (size_t i = 0; i < G_N_ELEMENTS(files) && !label; i++)
                if (g_file_get_contents(files[i], &label, NULL, NULL))
                        g_strchomp(label);
        return label;
}

/* The well-known names the script calls, for naming signal senders. */
static GPtrArray *script_names(GArray *steps) {
        GPtrArray *names = g_ptr_array_new();

        for (guint i = 0; i < steps->len; i++) {
                const Step *step = &g_array_index(steps, Step, i);
                const char *name;

                if (step->n_words == 0 || !g_dbus_is_name(step->words[0]) ||
                    g_dbus_is_unique_name(step->words[0]))
                        continue;
                name = step->words[0];
                if (!g_ptr_array_find_with_equal_func(names, name, g_str_equal, NULL))
                        g_ptr_array_add(names, (gpointer) name);
        }
        return names;
}

static int run_script(GDBusConnection *connection, GArray *steps, int timeout_ms) {
        g_autoptr(GHashTable) owners = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                                            g_free);
        g_autoptr(GPtrArray) names = script_names(steps);
        App app = {
                .connection = connection,
                .timeout_ms = timeout_ms,
                .owners = owners,
                .names = names,
        };
        guint subscription = app_subscribe_signals(&app);

        app_resolve_owners(&app);
        for (guint i = 0; i < steps->len; i++) {
                const Step *step = &g_array_index(steps, Step, i);

                step->kind->run(&app, step);
                fflush(stdout);
        }
        g_dbus_connection_signal_unsubscribe(connection, subscription);
        return 0;
}

int main(int argc, char **argv) {
        g_autofree char *address = NULL;
        int timeout_ms = 10000;
        const GOptionEntry options[] = {
                { "address", 0, 0, G_OPTION_ARG_STRING, &address,
                  "bus address (default: $DBUS_SYSTEM_BUS_ADDRESS or the system bus)", "ADDR" },
                { "timeout-ms", 0, 0, G_OPTION_ARG_INT, &timeout_ms,
                  "wait at most MS milliseconds for each answer (10000)", "MS" },
                G_OPTION_ENTRY_NULL,
        };
        g_autoptr(GOptionContext) context = g_option_context_new("STEP...");
        g_autoptr(GDBusConnection) connection = NULL;
        g_autoptr(GArray) steps = NULL;
        g_autoptr(GError) error = NULL;
        g_autofree char *usage = script_usage();
        g_autofree char *label = NULL;
        int status;

        setvbuf(stdout, NULL, _IOLBF, 0);
        g_option_context_add_main_entries(context, options, NULL);
        g_option_context_set_summary(context, "Run a script of D-Bus steps on the system bus and "
                                              "say what happened.");
        g_option_context_set_description(context, usage);
        /* Options first; everything from the first step on is the script. */
        g_option_context_set_strict_posix(context, TRUE);
        if (!g_option_context_parse(context, &argc, &argv, &error) || timeout_ms <= 0) {
                g_printerr("%s: %s\n", g_get_prgname(),
                           error ? error->message : "--timeout-ms must be positive");
                return 2;
        }
        if (argc < 2) {
                g_printerr("%s: no steps given\n%s", g_get_prgname(), usage);
                return 2;
        }
        steps = script_parse(argc - 1, argv + 1);
        if (!steps)
                return 2;

        connection = demo_bus_connect(address, &error);
        if (!connection) {
                g_printerr("%s: cannot connect to the bus: %s\n", g_get_prgname(), error->message);
                return 1;
        }
        label = smack_label();
        printf("%s: connected to the system bus as %s, Smack label %s\n", g_get_prgname(),
               g_dbus_connection_get_unique_name(connection), label ? label : "(no Smack)");
        status = run_script(connection, steps, timeout_ms);
        printf("%s: done\n", g_get_prgname());
        return status;
}
