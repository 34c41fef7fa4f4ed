/*
 * The manifest mssf-policy scaffold writes: one <dbus> declaration of the
 * service's name with every object (sorted by path), interface and
 * member of the completed tree (scaffold_tree_complete()), in the
 * service's order.
 *
 * The defaults are the safe ones, to be edited: each interface needs the
 * token given (an interface-level com.maemo.Aegis annotation, which also
 * covers members a later version adds), except
 * org.freedesktop.DBus.Introspectable and org.freedesktop.DBus.Peer,
 * which are open (value=""), so that clients can still find the
 * service's objects and ping it. The completed tree has both on every
 * object, whether the introspection data listed them or not (an
 * interface file seldom does): under a declared name the bus refuses a
 * method no annotation covers, Introspect included. The bus answers
 * Peer's Ping and GetMachineId whatever a manifest says; declaring Peer
 * open says so to the reader, and covers any other member the data
 * lists under Peer, which the bus judges like any other method.
 * Properties (org.freedesktop.DBus.Properties) keeps the token too: the
 * bus judges Get and Set by the property they name as well, so opening
 * it leaves every listed property guarded by its own interface. Every
 * name written was validated by the parser; the writer escapes them all
 * the same.
 */
#include <errno.h>
#include <string.h>

#include "scaffold.h"

#define AEGIS "com.maemo.Aegis"

static bool is_open_interface(const char *name) {
        return strcmp(name, "org.freedesktop.DBus.Introspectable") == 0 ||
               strcmp(name, "org.freedesktop.DBus.Peer") == 0;
}

/* An attribute value, escaped. */
static void put_escaped(FILE *out, const char *s) {
        for (; *s; s++)
                switch (*s) {
                case '&': fputs("&amp;", out); break;
                case '<': fputs("&lt;", out); break;
                case '>': fputs("&gt;", out); break;
                case '"': fputs("&quot;", out); break;
                case '\'': fputs("&apos;", out); break;
                default: fputc(*s, out);
                }
}

/* <tag name="value" [attr="v"]... [/]> with indent. */
static void put_element(FILE *out, int indent, const char *tag, bool close, const char *const *attrs) {
        fprintf(out, "%*s<%s", indent, "", tag);
        for (size_t i = 0; attrs[i]; i += 2) {
                fprintf(out, " %s=\"", attrs[i]);
                put_escaped(out, attrs[i + 1]);
                fputc('"', out);
        }
        fputs(close ? "/>\n" : ">\n", out);
}

static void put_member(FILE *out, const ScaffoldMember *m) {
        if (m->kind == SCAFFOLD_PROPERTY)
                put_element(out, 10, "property", true,
                            (const char *const[]) { "name", m->name, "type", m->type, "access", m->access, NULL });
        else
                put_element(out, 10, m->kind == SCAFFOLD_METHOD ? "method" : "signal", true,
                            (const char *const[]) { "name", m->name, NULL });
}

static void put_interface(FILE *out, const ScaffoldInterface *iface, const char *token) {
        put_element(out, 8, "interface", false, (const char *const[]) { "name", iface->name, NULL });
        put_element(out, 10, "annotation", true,
                    (const char *const[]) { "name", AEGIS, "value", is_open_interface(iface->name) ? "" : token,
                                            NULL });
        for (size_t i = 0; i < iface->n_members; i++)
                put_member(out, iface->members[i]);
        fputs("        </interface>\n", out);
}

static void put_comment(FILE *out, const ScaffoldManifest *manifest) {
        fputs("<!--\n", out);
        fputs("  Made by mssf-policy scaffold from ", out);
        /* The source names files or a bus name: no "--" can close the comment early. */
        for (const char *s = manifest->source ? manifest->source : "introspection data"; *s; s++)
                fputc(s[0] == '-' && s[1] == '-' ? '_' : s[0], out);
        fputs(".\n", out);
        fprintf(out, "  Every interface needs %s by default, except Introspectable and Peer,\n",
                manifest->token);
        fputs("  which are open. Edit before installing: open what everyone may use\n"
              "  (value=\"\"), guard single members with their own token, and add a\n"
              "  <request> with <for path=\"...\"/> for the service's binary.\n"
              "  mssf-policy check, given this file and the service's introspection data\n"
              "  (its xml or dest option), lists what a later version of the service\n"
              "  offers that this manifest does not cover.\n", out);
        fputs("-->\n", out);
}

int scaffold_write_manifest(const ScaffoldTree *tree, const ScaffoldManifest *manifest, FILE *out) {
        if (!tree || !manifest || !manifest->name || !manifest->token || !out)
                return -EINVAL;
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
        put_comment(out, manifest);
        fputs("<aegis>\n  <provide>\n", out);
        if (manifest->provide_token)
                put_element(out, 4, "credential", true, (const char *const[]) { "name", manifest->token, NULL });
        put_element(out, 4, "dbus", false,
                    (const char *const[]) { "name", manifest->name, "own", "SELF", "bus", "system", NULL });
        for (size_t i = 0; i < tree->n_nodes; i++) {
                const ScaffoldNode *node = tree->nodes[i];

                if (node->n_interfaces == 0)
                        continue;       /* an incomplete tree: nothing there to call */
                put_element(out, 6, "node", false, (const char *const[]) { "name", node->path, NULL });
                for (size_t j = 0; j < node->n_interfaces; j++)
                        put_interface(out, node->interfaces[j], manifest->token);
                fputs("      </node>\n", out);
        }
        fputs("    </dbus>\n  </provide>\n</aegis>\n", out);
        return ferror(out) ? -EIO : 0;
}
