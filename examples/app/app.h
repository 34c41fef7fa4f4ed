/* mssf-demo-app: the script of steps and the state the steps share. */
#pragma once

#include <gio/gio.h>

typedef struct App {
        GDBusConnection *connection;
        int timeout_ms;                 /* for each call */
        GHashTable *owners;             /* unique name -> well-known name, both owned */
        GPtrArray *names;               /* well-known names the script calls (borrowed) */
        unsigned n_signals;             /* signals printed so far */
        char **signal_senders;          /* (nullable) print only signals from these names */
} App;

/* One step of the script: its kind, its plain words and its typed values. */
typedef struct Step {
        const struct StepKind *kind;
        char **words;                   /* (borrowed from argv) */
        int n_words;
        GVariant *values;               /* (nullable) tuple of the TYPE:VALUE words */
} Step;

typedef struct StepKind {
        const char *name;
        const char *usage;
        int n_words;                    /* plain words after the name */
        int n_optional;                 /* more plain words it may take (object paths) */
        int min_values, max_values;     /* TYPE:VALUE words; max -1: any number */
        void (*run)(App *app, const Step *step);
} StepKind;

/*
 * Parse argv[0..argc) into steps: an array of Step that frees its
 * elements, or NULL after a message on stderr.
 */
GArray *script_parse(int argc, char **argv);

/* The step kinds, one line each, for --help. */
char *script_usage(void);

/* The steps (steps.c); each prints what happened and never stops the script. */
void step_call(App *app, const Step *step);
void step_get_property(App *app, const Step *step);
void step_set_property(App *app, const Step *step);
void step_get_all(App *app, const Step *step);
void step_get_managed_objects(App *app, const Step *step);
void step_introspect(App *app, const Step *step);
void step_listen_signals(App *app, const Step *step);

/* Print every signal the app receives from now on (when the main loop runs). */
guint app_subscribe_signals(App *app);

/* Learn which unique name owns each of app->names, to name signal senders. */
void app_resolve_owners(App *app);
