/*
 * How mssf-demo-app shows what came back: the demo is watched by people,
 * so values are printed the way one would say them ("72", not
 * "<byte 0x48>"), and an error says whether the bus refused (AccessDenied:
 * the mediation said no) or the call failed for another reason (the
 * service said no, or nobody answered). Nothing here talks to the bus.
 */
#include "format.h"

#include <string.h>

#define DBUS_ERROR_ACCESS_DENIED "org.freedesktop.DBus.Error.AccessDenied"

static void append_value(GString *out, GVariant *value, gboolean nested);

static void append_children(GString *out, GVariant *container, const char *open,
                            const char *close) {
        gsize n = g_variant_n_children(container);

        g_string_append(out, open);
        for (gsize i = 0; i < n; i++) {
                g_autoptr(GVariant) child = g_variant_get_child_value(container, i);

                if (i > 0)
                        g_string_append(out, ", ");
                append_value(out, child, TRUE);
        }
        g_string_append(out, close);
}

static void append_dict_entry(GString *out, GVariant *entry) {
        g_autoptr(GVariant) key = g_variant_get_child_value(entry, 0);
        g_autoptr(GVariant) item = g_variant_get_child_value(entry, 1);

        append_value(out, key, FALSE);
        g_string_append(out, ": ");
        append_value(out, item, TRUE);
}

static void append_number(GString *out, GVariant *value) {
        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_BYTE:
                g_string_append_printf(out, "%u", g_variant_get_byte(value));
                break;
        case G_VARIANT_CLASS_INT16:
                g_string_append_printf(out, "%d", g_variant_get_int16(value));
                break;
        case G_VARIANT_CLASS_UINT16:
                g_string_append_printf(out, "%u", g_variant_get_uint16(value));
                break;
        case G_VARIANT_CLASS_INT32:
                g_string_append_printf(out, "%d", g_variant_get_int32(value));
                break;
        case G_VARIANT_CLASS_UINT32:
                g_string_append_printf(out, "%u", g_variant_get_uint32(value));
                break;
        case G_VARIANT_CLASS_INT64:
                g_string_append_printf(out, "%" G_GINT64_FORMAT, g_variant_get_int64(value));
                break;
        case G_VARIANT_CLASS_UINT64:
                g_string_append_printf(out, "%" G_GUINT64_FORMAT, g_variant_get_uint64(value));
                break;
        case G_VARIANT_CLASS_DOUBLE: {
                char buffer[G_ASCII_DTOSTR_BUF_SIZE];

                g_string_append(out, g_ascii_formatd(buffer, sizeof(buffer), "%.10g",
                                                     g_variant_get_double(value)));
                break;
        }
        default: {
                g_autofree char *text = g_variant_print(value, FALSE);

                g_string_append(out, text);
                break;
        }
        }
}

static void append_value(GString *out, GVariant *value, gboolean nested) {
        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_STRING:
                if (nested)
                        g_string_append_printf(out, "'%s'", g_variant_get_string(value, NULL));
                else
                        g_string_append(out, g_variant_get_string(value, NULL));
                break;
        case G_VARIANT_CLASS_OBJECT_PATH:
        case G_VARIANT_CLASS_SIGNATURE:
                g_string_append(out, g_variant_get_string(value, NULL));
                break;
        case G_VARIANT_CLASS_BOOLEAN:
                g_string_append(out, g_variant_get_boolean(value) ? "true" : "false");
                break;
        case G_VARIANT_CLASS_VARIANT: {
                g_autoptr(GVariant) inner = g_variant_get_variant(value);

                append_value(out, inner, nested);
                break;
        }
        case G_VARIANT_CLASS_TUPLE:
                append_children(out, value, "(", ")");
                break;
        case G_VARIANT_CLASS_ARRAY:
                if (g_variant_type_is_dict_entry(g_variant_type_element(g_variant_get_type(value))))
                        append_children(out, value, "{", "}");
                else
                        append_children(out, value, "[", "]");
                break;
        case G_VARIANT_CLASS_DICT_ENTRY:
                append_dict_entry(out, value);
                break;
        default:
                append_number(out, value);
                break;
        }
}

char *format_value(GVariant *value) {
        GString *out = g_string_new(NULL);

        append_value(out, value, FALSE);
        return g_string_free(out, FALSE);
}

char *format_tuple_members(GVariant *tuple) {
        GString *out = g_string_new(NULL);
        gsize n = g_variant_n_children(tuple);

        for (gsize i = 0; i < n; i++) {
                g_autoptr(GVariant) child = g_variant_get_child_value(tuple, i);

                if (i > 0)
                        g_string_append(out, ", ");
                append_value(out, child, FALSE);
        }
        return g_string_free(out, FALSE);
}

/* A single array of tuples or dict entries, shown one element per line. */
static gboolean reply_is_list(GVariant *reply) {
        const GVariantType *type;

        if (g_variant_n_children(reply) != 1)
                return FALSE;
        type = g_variant_type_first(g_variant_get_type(reply));
        return g_variant_type_is_array(type) &&
               g_variant_type_is_container(g_variant_type_element(type)) &&
               !g_variant_type_is_dict_entry(g_variant_type_element(type));
}

char *format_reply(GVariant *reply, char ***ret_lines) {
        g_autoptr(GVariant) list = NULL;
        g_autoptr(GPtrArray) lines = NULL;
        gsize n;

        *ret_lines = NULL;
        if (!reply || g_variant_n_children(reply) == 0)
                return g_strdup("no values");
        if (!reply_is_list(reply))
                return format_tuple_members(reply);
        list = g_variant_get_child_value(reply, 0);
        n = g_variant_n_children(list);
        lines = g_ptr_array_new_with_free_func(g_free);
        for (gsize i = 0; i < n; i++) {
                g_autoptr(GVariant) element = g_variant_get_child_value(list, i);

                g_ptr_array_add(lines, format_value(element));
        }
        g_ptr_array_add(lines, NULL);
        *ret_lines = (char **) g_ptr_array_free(g_steal_pointer(&lines), FALSE);
        if (n == 0)
                return g_strdup("no items");
        return g_strdup_printf("%" G_GSIZE_FORMAT " item%s", n, n == 1 ? "" : "s");
}

char *format_error(const GError *error) {
        g_autoptr(GError) copy = g_error_copy(error);
        g_autofree char *name = g_dbus_error_get_remote_error(copy);

        if (!name)
                return g_strdup_printf("failed: %s", error->message);
        g_dbus_error_strip_remote_error(copy);
        return g_strdup_printf("%s: %s: %s",
                               strcmp(name, DBUS_ERROR_ACCESS_DENIED) == 0 ? "refused" : "failed",
                               name, copy->message);
}
