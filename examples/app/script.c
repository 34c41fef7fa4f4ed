/*
 * The script mssf-demo-app runs: its command line is a list of steps, each
 * a step name followed by its words, e.g.
 *
 *     call org.mssf.Cellular /org/mssf/Cellular org.mssf.Cellular Dial s:+123
 *     get-all org.mssf.Cellular /org/mssf/Cellular org.mssf.Cellular
 *     listen-signals 3
 *
 * Values for the bus are written TYPE:VALUE, TYPE being a D-Bus type
 * string: s:, o: and g: take the rest of the word as it is, every other
 * type the GVariant text format (u:5, b:true, d:1.5, (dd):(60.1,24.9),
 * as:['a','b']). Step names never contain ':', so where one step's values
 * end and the next step begins is never ambiguous. The whole script is
 * parsed, and every name, path and value checked, before the first step
 * runs: a typo never leaves a demo half done.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

static const StepKind step_kinds[] = {
        { "call", "call DEST PATH INTERFACE METHOD [TYPE:VALUE...]", 4, 0, 0, -1, step_call },
        { "get-property", "get-property DEST PATH INTERFACE PROPERTY", 4, 0, 0, 0,
          step_get_property },
        { "set-property", "set-property DEST PATH INTERFACE PROPERTY TYPE:VALUE", 4, 0, 1, 1,
          step_set_property },
        { "get-all", "get-all DEST PATH INTERFACE", 3, 0, 0, 0, step_get_all },
        { "get-managed-objects", "get-managed-objects DEST [PATH] (default PATH: /)", 1, 1, 0, 0,
          step_get_managed_objects },
        { "introspect", "introspect DEST PATH", 2, 0, 0, 0, step_introspect },
        { "listen-signals", "listen-signals SECONDS [DEST...] (only signals from these names)", 1,
          G_MAXINT, 0, 0, step_listen_signals },
};

static const StepKind *step_kind_find(const char *name) {
        for (size_t i = 0; i < G_N_ELEMENTS(step_kinds); i++)
                if (strcmp(step_kinds[i].name, name) == 0)
                        return &step_kinds[i];
        return NULL;
}

char *script_usage(void) {
        GString *out = g_string_new("steps:\n");

        for (size_t i = 0; i < G_N_ELEMENTS(step_kinds); i++)
                g_string_append_printf(out, "  %s\n", step_kinds[i].usage);
        g_string_append(out, "values: TYPE:VALUE, e.g. s:+123 o:/org/mssf/Cellular/call0 u:5 "
                             "b:true (dd):(60.17,24.94)\n");
        return g_string_free(out, FALSE);
}

/* The type of a TYPE:VALUE word, or NULL when word is not one. */
static char *typed_word_type(const char *word) {
        const char *colon = strchr(word, ':');
        g_autofree char *type = NULL;

        if (!colon || colon == word)
                return NULL;
        type = g_strndup(word, (gsize) (colon - word));
        if (!g_variant_type_string_is_valid(type))
                return NULL;
        return g_steal_pointer(&type);
}

/* The value of a TYPE:VALUE word, or NULL with a message on stderr. */
static GVariant *typed_word_parse(const char *word) {
        g_autofree char *type_string = typed_word_type(word);
        const char *text = strchr(word, ':') + 1;
        g_autoptr(GError) error = NULL;
        GVariant *value;

        if (strcmp(type_string, "s") == 0)
                return g_variant_new_string(text);
        if (strcmp(type_string, "o") == 0 || strcmp(type_string, "g") == 0) {
                if (type_string[0] == 'o' ? !g_variant_is_object_path(text)
                                          : !g_variant_is_signature(text)) {
                        fprintf(stderr, "'%s' is not a valid %s\n", text,
                                type_string[0] == 'o' ? "object path" : "signature");
                        return NULL;
                }
                return type_string[0] == 'o' ? g_variant_new_object_path(text)
                                             : g_variant_new_signature(text);
        }
        value = g_variant_parse(G_VARIANT_TYPE(type_string), text, NULL, NULL, &error);
        if (!value)
                fprintf(stderr, "'%s' is not a value of type %s: %s\n", text, type_string,
                        error->message);
        return value;
}

/* The plain words of a step are names, paths or numbers: check each. */
static bool step_words_valid(const Step *step) {
        const char *kind = step->kind->name;

        for (int i = 0; i < step->n_words; i++) {
                const char *word = step->words[i];
                const char *what = NULL;

                if (strcmp(kind, "listen-signals") == 0 && i > 0) {
                        if (!g_dbus_is_name(word))
                                what = "a bus name";
                } else if (strcmp(kind, "listen-signals") == 0) {
                        char *end = NULL;
                        double seconds = g_ascii_strtod(word, &end);

                        if (end == word || *end || !(seconds >= 0 && seconds <= 3600))
                                what = "a number of seconds (0 to 3600)";
                } else if (i == 0 && !g_dbus_is_name(word)) {
                        what = "a bus name";
                } else if (i == 1 && !g_variant_is_object_path(word)) {
                        what = "an object path";
                } else if (i == 2 && !g_dbus_is_interface_name(word)) {
                        what = "an interface name";
                } else if (i == 3 && !g_dbus_is_member_name(word)) {
                        what = strcmp(kind, "call") == 0 ? "a method name" : "a property name";
                }
                if (what) {
                        fprintf(stderr, "%s: '%s' is not %s\n", kind, word, what);
                        return false;
                }
        }
        return true;
}

/* An optional plain word: anything that is neither a step name nor TYPE:VALUE. */
static bool optional_word(const char *word) {
        g_autofree char *type = typed_word_type(word);

        return !type && !step_kind_find(word);
}

static void step_clear(gpointer data) {
        Step *step = data;

        g_clear_pointer(&step->values, g_variant_unref);
}

/* The TYPE:VALUE words from argv[*i] on, as a tuple; NULL after a message. */
static GVariant *parse_values(const StepKind *kind, int argc, char **argv, int *i) {
        g_auto(GVariantBuilder) values = G_VARIANT_BUILDER_INIT(G_VARIANT_TYPE_TUPLE);
        int n = 0;

        for (; *i < argc; (*i)++) {
                g_autofree char *type = typed_word_type(argv[*i]);
                GVariant *value;

                if (!type || (kind->max_values >= 0 && n >= kind->max_values))
                        break;
                value = typed_word_parse(argv[*i]);
                if (!value)
                        return NULL;
                g_variant_builder_add_value(&values, value);
                n++;
        }
        if (n < kind->min_values) {
                fprintf(stderr, "%s needs a TYPE:VALUE word: %s\n", kind->name, kind->usage);
                return NULL;
        }
        return g_variant_ref_sink(g_variant_builder_end(&values));
}

GArray *script_parse(int argc, char **argv) {
        g_autoptr(GArray) steps = g_array_new(FALSE, TRUE, sizeof(Step));
        int i = 0;

        g_array_set_clear_func(steps, step_clear);
        while (i < argc) {
                Step step = { .kind = step_kind_find(argv[i]) };

                if (!step.kind) {
                        fprintf(stderr, "unknown step '%s' (see --help)\n", argv[i]);
                        return NULL;
                }
                i++;
                step.words = argv + i;
                if (argc - i < step.kind->n_words) {
                        fprintf(stderr, "%s needs %d words: %s\n", step.kind->name,
                                step.kind->n_words, step.kind->usage);
                        return NULL;
                }
                step.n_words = step.kind->n_words;
                i += step.n_words;
                for (int extra = 0; extra < step.kind->n_optional && i < argc &&
                                    optional_word(argv[i]);
                     extra++) {
                        step.n_words++;
                        i++;
                }
                if (!step_words_valid(&step))
                        return NULL;
                step.values = parse_values(step.kind, argc, argv, &i);
                if (!step.values)
                        return NULL;
                g_array_append_val(steps, step);
        }
        return g_steal_pointer(&steps);
}
