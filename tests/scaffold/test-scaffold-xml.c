/*
 * The introspection parser (policy/scaffold/scaffold-xml.c): what it builds
 * from valid documents (files and Introspect replies, nested nodes,
 * documentation in other namespaces, entities) and every refusal, each
 * with the file:line:column and the words the author reads. Signatures,
 * bounds, the coverage check and the manifest writer's escaping.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diagnostic.h"
#include "manifest.h"
#include "model.h"
#include "scaffold.h"

#define HEAD "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n" \
             " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"

static int parse(ScaffoldTree *tree, const char *text, const char *path, Diagnostics *diag) {
        return scaffold_xml_parse(tree, text, strlen(text), "t.xml", path, diag, NULL, NULL);
}

static const ScaffoldInterface *interface_at(const ScaffoldTree *tree, const char *path, size_t i) {
        const ScaffoldNode *node = scaffold_tree_find(tree, path);

        assert_non_null(node);
        assert_true(i < node->n_interfaces);
        return node->interfaces[i];
}

static void test_file_document(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        const ScaffoldInterface *iface;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, HEAD
                "<node name=\"/org/example\" xmlns:doc=\"http://www.freedesktop.org/dbus/1.0/doc.dtd\">\n"
                "  <interface name=\"org.example.Calendar\">\n"
                "    <doc:doc><doc:para>Any <doc:tt>text</doc:tt> here.</doc:para></doc:doc>\n"
                "    <method name=\"List\"><arg name=\"which\" type=\"s\" direction=\"in\"/>"
                "<arg type=\"a(sss)\" direction=\"out\"/>"
                "<annotation name=\"org.freedesktop.DBus.Deprecated\" value=\"true\"/></method>\n"
                "    <signal name=\"Changed\"><arg type=\"a{sv}\"/></signal>\n"
                "    <property name=\"Count\" type=\"u\" access=\"read\"/>\n"
                "    <!-- a comment -->\n"
                "  </interface>\n"
                "  <node name=\"work\"><interface name=\"org.example.Calendar\"/></node>\n"
                "  <node name=\"a/b\"/>\n"
                "</node>\n", NULL, diag), 0);
        assert_int_equal(diag->n_items, 0);
        scaffold_tree_sort(tree);
        assert_int_equal(tree->n_nodes, 3);
        assert_string_equal(tree->nodes[0]->path, "/org/example");
        assert_string_equal(tree->nodes[1]->path, "/org/example/a/b");
        assert_string_equal(tree->nodes[2]->path, "/org/example/work");
        iface = interface_at(tree, "/org/example", 0);
        assert_string_equal(iface->name, "org.example.Calendar");
        assert_int_equal(iface->n_members, 3);
        assert_int_equal(iface->members[0]->kind, SCAFFOLD_METHOD);
        assert_string_equal(iface->members[0]->name, "List");
        assert_int_equal(iface->members[1]->kind, SCAFFOLD_SIGNAL);
        assert_int_equal(iface->members[2]->kind, SCAFFOLD_PROPERTY);
        assert_string_equal(iface->members[2]->type, "u");
        assert_string_equal(iface->members[2]->access, "read");
        assert_int_equal(iface->line, 4);
        assert_int_equal(interface_at(tree, "/org/example/work", 0)->n_members, 0);
}

/* An Introspect reply: children come back as paths to walk; their content is their own reply's. */
static void test_reply_children(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        char **children = NULL;
        size_t n = 0;
        const char *reply = "<node><interface name=\"a.B\"><method name=\"M\"/></interface>"
                            "<node name=\"x\"><interface name=\"c.D\"/></node><node name=\"y\"/></node>";

        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(scaffold_xml_parse(tree, reply, strlen(reply), "svc:/p", "/p", NULL, &children, &n), 0);
        assert_int_equal(n, 2);
        assert_string_equal(children[0], "/p/x");
        assert_string_equal(children[1], "/p/y");
        assert_int_equal(tree->n_nodes, 1);
        for (size_t i = 0; i < n; i++)
                free(children[i]);
        free(children);
        /* At the root, children are "/x"; a root named as the object is fine. */
        reply = "<node name=\"/\"><node name=\"x\"/></node>";
        assert_int_equal(scaffold_xml_parse(tree, reply, strlen(reply), "svc:/", "/", NULL, &children, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(children[0], "/x");
        free(children[0]);
        free(children);
}

/* Two files at one path merge; one interface twice at one path does not. */
static void test_merge_and_duplicates(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        char *line = NULL;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, "<node name=\"/\"><interface name=\"a.B\"/></node>", NULL, diag), 0);
        assert_int_equal(parse(tree, "<node name=\"/\"><interface name=\"a.C\"/></node>", NULL, diag), 0);
        assert_int_equal(scaffold_tree_find(tree, "/")->n_interfaces, 2);
        assert_int_equal(scaffold_xml_parse(tree, "<node name=\"/\">\n<interface name=\"a.B\"/></node>", 45, "u.xml",
                                            NULL, diag, NULL, NULL), SCAFFOLD_E_INVALID);
        assert_int_equal(diagnostic_format(diag->items[0], &line), 0);
        assert_string_equal(line, "u.xml:2:1: error: interface a.B at / is described twice (first at t.xml:1)");
        free(line);
}

/* The interface named name at node, which must be there exactly once. */
static const ScaffoldInterface *find_interface_once(const ScaffoldNode *node, const char *name) {
        const ScaffoldInterface *found = NULL;

        for (size_t i = 0; i < node->n_interfaces; i++)
                if (strcmp(node->interfaces[i]->name, name) == 0) {
                        if (found)
                                fail_msg("%s at %s is there twice", name, node->path);
                        found = node->interfaces[i];
                }
        if (!found)
                fail_msg("no %s at %s", name, node->path);
        return found;
}

/* The member names of iface, in order, separated by spaces. */
static void assert_members(const ScaffoldInterface *iface, const char *expected) {
        char names[256] = "";

        for (size_t i = 0; i < iface->n_members; i++) {
                assert_int_equal(iface->members[i]->kind, SCAFFOLD_METHOD);
                strcat(names, i ? " " : "");
                strcat(names, iface->members[i]->name);
        }
        assert_string_equal(names, expected);
}

/*
 * Every object answers Introspect and Peer's Ping and GetMachineId (the
 * D-Bus libraries do): completed with both interfaces, after its own,
 * whether its data lists them or not, and never twice.
 */
static void test_complete(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, "<node name=\"/\"><node name=\"org\"/>"
                                     "<node name=\"org/x\"><interface name=\"a.B\"><method name=\"M\"/></interface></node>"
                                     "<node name=\"org/y\"><interface name=\"org.freedesktop.DBus.Peer\">"
                                     "<method name=\"Ping\"/><method name=\"Extra\"/></interface>"
                                     "<interface name=\"org.freedesktop.DBus.Introspectable\">"
                                     "<method name=\"Introspect\"/></interface>"
                                     "<interface name=\"a.B\"/></node>"
                                     "</node>", NULL, diag), 0);
        for (int round = 0; round < 2; round++) {
                /* Completing twice changes nothing. */
                assert_int_equal(scaffold_tree_complete(tree), 0);
                scaffold_tree_sort(tree);
                assert_int_equal(tree->n_nodes, 4);
                for (size_t i = 0; i < 2; i++) {
                        /* A path prefix: the two alone. */
                        assert_int_equal(tree->nodes[i]->n_interfaces, 2);
                        assert_string_equal(tree->nodes[i]->interfaces[0]->name,
                                            "org.freedesktop.DBus.Introspectable");
                        assert_members(tree->nodes[i]->interfaces[0], "Introspect");
                        assert_string_equal(tree->nodes[i]->interfaces[1]->name, "org.freedesktop.DBus.Peer");
                        assert_members(tree->nodes[i]->interfaces[1], "Ping GetMachineId");
                }
                /* An object with interfaces of its own, but neither of the two: both after its own. */
                assert_string_equal(tree->nodes[2]->path, "/org/x");
                assert_int_equal(tree->nodes[2]->n_interfaces, 3);
                assert_string_equal(tree->nodes[2]->interfaces[0]->name, "a.B");
                assert_members(tree->nodes[2]->interfaces[0], "M");
                assert_string_equal(tree->nodes[2]->interfaces[1]->name, "org.freedesktop.DBus.Introspectable");
                assert_members(tree->nodes[2]->interfaces[1], "Introspect");
                assert_string_equal(tree->nodes[2]->interfaces[2]->name, "org.freedesktop.DBus.Peer");
                assert_members(tree->nodes[2]->interfaces[2], "Ping GetMachineId");
                /* Listed by the data: kept in its order, with its members, and what it leaves out added. */
                assert_string_equal(tree->nodes[3]->path, "/org/y");
                assert_int_equal(tree->nodes[3]->n_interfaces, 3);
                assert_string_equal(tree->nodes[3]->interfaces[0]->name, "org.freedesktop.DBus.Peer");
                assert_members(find_interface_once(tree->nodes[3], "org.freedesktop.DBus.Peer"),
                               "Ping Extra GetMachineId");
                assert_members(find_interface_once(tree->nodes[3], "org.freedesktop.DBus.Introspectable"),
                               "Introspect");
                assert_string_equal(tree->nodes[3]->interfaces[2]->name, "a.B");
        }
}

/* tree (completed and sorted) parsed from text, written by scaffold, and the manifest parsed back. */
static void scaffold_round_trip(const char *text, ScaffoldTree **ret_tree, Package **ret_package) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        ScaffoldManifest manifest = { .name = "org.example.Svc", .token = "Tok", .provide_token = true };
        char *written = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&written, &size);

        assert_non_null(out);
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, text, NULL, diag), 0);
        assert_int_equal(scaffold_tree_complete(tree), 0);
        scaffold_tree_sort(tree);
        assert_int_equal(scaffold_write_manifest(tree, &manifest, out), 0);
        assert_int_equal(fclose(out), 0);
        assert_int_equal(manifest_parse_buffer(written, size, "svc.xml", "svc", NULL, diag, ret_package), 0);
        assert_int_equal(diag->n_errors, 0);
        free(written);
        *ret_tree = TAKE_PTR(tree);
}

/* What check writes about tree under package's org.example.Svc, and how many it counts uncovered. */
static size_t coverage(const ScaffoldTree *tree, const Package *package, char **ret_text) {
        size_t uncovered = SIZE_MAX, size = 0;
        FILE *out = open_memstream(ret_text, &size);

        assert_non_null(out);
        assert_int_equal(scaffold_check_coverage(tree, package, "org.example.Svc", out, &uncovered), 0);
        assert_int_equal(fclose(out), 0);
        return uncovered;
}

static const Interface *model_interface(const Node *node, const char *name) {
        const Interface *found = NULL;

        for (size_t i = 0; i < node->n_interfaces; i++)
                if (strcmp(node->interfaces[i]->name, name) == 0) {
                        if (found)
                                fail_msg("%s at %s is declared twice", name, node->path);
                        found = node->interfaces[i];
                }
        if (!found)
                fail_msg("%s at %s is not declared", name, node->path);
        return found;
}

/*
 * Data that lists neither Introspectable nor Peer (an interface file, a
 * hand-written document): the manifest scaffold writes opens both on
 * every object, and check finds it covers the same data.
 */
static void test_scaffold_opens_standard_interfaces(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_free_ char *report = NULL;
        const DbusName *name;

        scaffold_round_trip("<node name=\"/org/example\">"
                            "<interface name=\"org.example.Svc\"><method name=\"Do\"/><signal name=\"Done\"/>"
                            "<property name=\"Level\" type=\"u\" access=\"read\"/></interface>"
                            "<node name=\"a\"><interface name=\"org.example.Svc.Item\"><method name=\"Get\"/>"
                            "</interface></node>"
                            "<node name=\"a/b\"/>"
                            "</node>", &tree, &package);
        assert_int_equal(package->n_names, 1);
        name = package->names[0];
        assert_int_equal(name->n_nodes, 3);
        for (size_t i = 0; i < name->n_nodes; i++) {
                const Node *node = name->nodes[i];
                const Interface *introspectable = model_interface(node, "org.freedesktop.DBus.Introspectable");
                const Interface *peer = model_interface(node, "org.freedesktop.DBus.Peer");

                assert_int_equal(introspectable->default_require.kind, REQUIREMENT_OPEN);
                assert_int_equal(introspectable->n_members, 1);
                assert_string_equal(introspectable->members[0]->name, "Introspect");
                assert_int_equal(peer->default_require.kind, REQUIREMENT_OPEN);
                assert_int_equal(peer->n_members, 2);
                assert_string_equal(peer->members[0]->name, "Ping");
                assert_string_equal(peer->members[1]->name, "GetMachineId");
        }
        assert_int_equal(model_interface(name->nodes[0], "org.example.Svc")->default_require.kind,
                         REQUIREMENT_TOKEN);
        assert_int_equal(coverage(tree, package, &report), 0);
        assert_string_equal(report, "");
}

/* A manifest that declares org.example.Svc at /x: a.B (M listed), open, nothing else. */
static void parse_svc_manifest(Package **ret) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        static const char manifest[] =
                "<aegis><provide><dbus name=\"org.example.Svc\" own=\"SELF\" bus=\"system\">"
                "<node name=\"/x\"><interface name=\"a.B\"><annotation name=\"com.maemo.Aegis\" value=\"\"/>"
                "<method name=\"M\"/></interface></node>"
                "</dbus></provide></aegis>";

        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(manifest_parse_buffer(manifest, strlen(manifest), "svc.xml", "svc", NULL, diag, ret), 0);
}

/*
 * check judges as the bus does: a manifest that leaves Introspectable
 * out at an object leaves Introspect refused there (uncovered), whether
 * the data lists it or not; Peer's Ping and GetMachineId, which the bus
 * lets through whatever a manifest says, are not reported.
 */
static void test_check_introspect_missing(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_free_ char *report = NULL;

        parse_svc_manifest(&package);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, "<node name=\"/x\"><interface name=\"a.B\"><method name=\"M\"/></interface>"
                                     "</node>", NULL, NULL), 0);
        assert_int_equal(scaffold_tree_complete(tree), 0);
        assert_int_equal(coverage(tree, package, &report), 1);
        assert_string_equal(report, "uncovered: method /x org.freedesktop.DBus.Introspectable.Introspect: "
                                    "no annotation covers it, so the bus refuses it to every caller\n");
}

/*
 * Of Peer, the bus lets only Ping and GetMachineId through whatever a
 * manifest says (the D-Bus libraries answer them); another member the
 * data lists under Peer is the service's own method, refused unless the
 * manifest covers it: check reports it, as it does Introspect.
 */
static void test_check_peer_members(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_free_ char *report = NULL;

        parse_svc_manifest(&package);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, "<node name=\"/x\"><interface name=\"a.B\"/>"
                                     "<interface name=\"org.freedesktop.DBus.Peer\"><method name=\"Extra\"/>"
                                     "<method name=\"Ping\"/></interface></node>", NULL, NULL), 0);
        assert_int_equal(scaffold_tree_complete(tree), 0);
        assert_int_equal(coverage(tree, package, &report), 2);
        assert_string_equal(report, "uncovered: method /x org.freedesktop.DBus.Peer.Extra: "
                                    "no annotation covers it, so the bus refuses it to every caller\n"
                                    "uncovered: method /x org.freedesktop.DBus.Introspectable.Introspect: "
                                    "no annotation covers it, so the bus refuses it to every caller\n");
}

/* Scaffold's own manifest covers such a member: Peer's default (open) does. */
static void test_scaffold_keeps_peer_members(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_free_ char *report = NULL;
        const Node *node;

        scaffold_round_trip("<node name=\"/x\"><interface name=\"org.freedesktop.DBus.Peer\">"
                            "<method name=\"Extra\"/></interface><interface name=\"a.B\"/></node>",
                            &tree, &package);
        node = package->names[0]->nodes[0];
        assert_int_equal(model_interface(node, "org.freedesktop.DBus.Peer")->n_members, 3);
        assert_int_equal(coverage(tree, package, &report), 0);
        assert_string_equal(report, "");
}

typedef struct Refusal {
        const char *text;
        const char *path;               /* walking, or NULL: a file */
        const char *at;                 /* where the error points: the first occurrence of this; NULL: the end */
        const char *message;
} Refusal;

static const Refusal refusals[] = {
        { "", NULL, NULL, "broken XML: no element found" },
        { "<node name=\"/\">", NULL, NULL, "broken XML: no element found" },
        { "<node><interface name=\"a.B\"/></node>", NULL, "<node>", "the root <node> needs a name" },
        { "<node name=\"relative\"/>", NULL, "<node", "'relative' is not a valid object path" },
        { "<node name=\"/a//b\"/>", NULL, "<node", "'/a//b' is not a valid object path" },
        { "<node name=\"/a\"/>", "/b", "<node", "the root <node> is named '/a', but this is the introspection of '/b'" },
        { "<interface name=\"a.B\"/>", NULL, "<interface", "the root element is <interface>" },
        { "<node name=\"/\">\n  <method name=\"M\"/></node>", NULL, "<method", "<method> is not allowed in <node>" },
        { "<node name=\"/\"><interface name=\"a.B\"><foo/></interface></node>", NULL, "<foo", "<foo> is not allowed in <interface>" },
        { "<node name=\"/\"><interface name=\"a.B\"><method name=\"M\"><property name=\"P\" type=\"s\" access=\"read\"/></method></interface></node>",
          NULL, "<property", "<property> is not allowed in <method>" },
        { "<node name=\"/\" id=\"x\"/>", NULL, "<node", "<node> has no attribute 'id'" },
        { "<node name=\"/\"><interface/></node>", NULL, "<interface", "<interface> needs a name attribute" },
        { "<node name=\"/\"><interface name=\"nodots\"/></node>", NULL, "<interface", "'nodots' is not a valid interface name" },
        { "<node name=\"/\"><interface name=\"a.B\"><method name=\"1x\"/></interface></node>", NULL, "<method",
          "'1x' is not a valid method name" },
        { "<node name=\"/\"><interface name=\"a.B\"><method name=\"M\"/><signal name=\"M\"/>\n<method name=\"M\"/></interface></node>",
          NULL, "\n<method", "method a.B.M is described twice" },
        { "<node name=\"/\"><interface name=\"a.B\"><property name=\"P\" access=\"read\"/></interface></node>", NULL, "<property",
          "<property> needs a type attribute" },
        { "<node name=\"/\"><interface name=\"a.B\"><property name=\"P\" type=\"a\" access=\"read\"/></interface></node>", NULL,
          "<property", "property P: 'a' is not a single complete D-Bus type" },
        { "<node name=\"/\"><interface name=\"a.B\"><property name=\"P\" type=\"s\" access=\"rw\"/></interface></node>", NULL,
          "<property", "property P: access='rw': write read, write or readwrite" },
        { "<node name=\"/\"><interface name=\"a.B\"><method name=\"M\"><arg type=\"ss\"/></method></interface></node>", NULL, "<arg",
          "'ss' is not a single complete D-Bus type" },
        { "<node name=\"/\"><interface name=\"a.B\"><method name=\"M\"><arg type=\"s\" direction=\"both\"/></method></interface></node>",
          NULL, "<arg", "direction='both': write in or out" },
        { "<node name=\"/\"><interface name=\"a.B\"><signal name=\"S\"><arg type=\"s\" direction=\"in\"/></signal></interface></node>",
          NULL, "<arg", "direction='in': write out (or nothing) for a signal's argument" },
        { "<node name=\"/\"><interface name=\"a.B\"><annotation name=\"x\"/></interface></node>", NULL, "<annotation",
          "<annotation> needs a value attribute" },
        { "<node name=\"/\"><node name=\"../up\"/></node>", NULL, "<node name=\"..", "'../up' is not a child node name of '/'" },
        { "<node name=\"/a\"><node name=\"/b/c\"/></node>", NULL, "<node name=\"/b", "'/b/c' is not a child node name of '/a'" },
        { "<node name=\"/a\"><node/></node>", NULL, "<node/>", "a child <node> needs a name" },
        { "<node><node name=\"x\"/><node name=\"x\"/></node>", "/", "<node name=\"x\"/></node>", "child node 'x' is listed twice" },
        { "<node name=\"/\">text</node>", NULL, "text", "text in <node>" },
        { "<!DOCTYPE node [<!ENTITY % p \"x\">]><node name=\"/\"/>", NULL, "\"x\">]", "entity p: only internal general entities" },
        { "<!DOCTYPE node [<!ENTITY e SYSTEM \"/etc/passwd\">]><node name=\"/\">&e;</node>", NULL, ">]><node",
          "entity e: only internal general entities" },
        { "<!DOCTYPE node [<!ENTITY a \"x\"><!ENTITY b \"&a;&a;\">]><node name=\"/\"/>", NULL, "\"&a;&a;\"",
          "entity b: at most 64 entities" },
        { "<node name=\"/\"/><node name=\"/x\"/>", NULL, "<node name=\"/x", "broken XML: junk after document element" },
};

static void test_refusals(void **state) {
        for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
                const Refusal *r = &refusals[i];
                _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
                _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
                const Diagnostic *d;

                assert_int_equal(diagnostics_new(&diag), 0);
                assert_int_equal(scaffold_tree_new(&tree), 0);
                if (parse(tree, r->text, r->path, diag) != SCAFFOLD_E_INVALID)
                        fail_msg("accepted: %s", r->text);
                assert_true(diag->n_errors >= 1);
                d = diag->items[0];
                /* The position of r->at: its line, and its column (1-based) in that line. */
                const char *at = r->at ? strstr(r->text, r->at) : r->text + strlen(r->text);
                unsigned line = 1, column = 1;

                assert_non_null(at);
                if (r->at && r->at[0] == '\n')
                        at++;
                for (const char *c = r->text; c < at; c++) {
                        column = *c == '\n' ? 1 : column + 1;
                        line += *c == '\n';
                }
                if (!strstr(d->message, r->message) || d->line != line || d->column != column)
                        fail_msg("%s\n  got %u:%u %s\n  expected %u:%u %s", r->text, d->line, d->column, d->message,
                                 line, column, r->message);
                assert_string_equal(d->file, "t.xml");
        }
}

/* Plain internal entities (upower's files) are fine. */
static void test_plain_entities(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;

        assert_int_equal(scaffold_tree_new(&tree), 0);
        assert_int_equal(parse(tree, "<!DOCTYPE node [<!ENTITY ERR \"org.example.Error\">]>"
                                     "<node name=\"/\" xmlns:doc=\"d\"><interface name=\"a.B\">"
                                     "<doc:doc>&ERR;</doc:doc></interface></node>", NULL, NULL), 0);
}

static void test_bounds(void **state) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        size_t size = SCAFFOLD_XML_MAX_SIZE + 1, n = 0;
        char *big = malloc(size + 1);
        char *deep = malloc(64 * 40 + 64);

        assert_non_null(big);
        assert_non_null(deep);
        assert_int_equal(diagnostics_new(&diag), 0);
        assert_int_equal(scaffold_tree_new(&tree), 0);
        memset(big, ' ', size);
        big[size] = '\0';
        assert_int_equal(scaffold_xml_parse(tree, big, size, "big.xml", NULL, diag, NULL, NULL), SCAFFOLD_E_INVALID);
        assert_non_null(diagnostics_find(diag, "introspection data is at most 4194304 bytes"));
        assert_int_equal(scaffold_xml_parse(tree, "<node name=\"/\">\0</node>", 24, "nul.xml", NULL, diag, NULL, NULL),
                         SCAFFOLD_E_INVALID);
        assert_non_null(diagnostics_find(diag, "contains a NUL byte"));
        /* 40 nested nodes: deeper than 32. */
        n += (size_t) sprintf(deep, "<node name=\"/\">");
        for (int i = 0; i < 39; i++)
                n += (size_t) sprintf(deep + n, "<node name=\"n\">");
        assert_int_equal(parse(tree, deep, NULL, diag), SCAFFOLD_E_INVALID);
        assert_non_null(diagnostics_find(diag, "elements nested more than 32 deep"));
        /* More elements than allowed: annotations, cheap to write. */
        free(big);
        size = 32 + (SCAFFOLD_XML_MAX_ELEMENTS + 1) * 36;
        big = malloc(size);
        assert_non_null(big);
        n = (size_t) sprintf(big, "<node name=\"/\"><interface name=\"a.B\">");
        for (unsigned i = 0; i <= SCAFFOLD_XML_MAX_ELEMENTS && n + 40 < size; i++)
                n += (size_t) sprintf(big + n, "<annotation name=\"a\" value=\"b\"/>");
        assert_int_equal(scaffold_xml_parse(tree, big, n, "many.xml", NULL, diag, NULL, NULL), SCAFFOLD_E_INVALID);
        assert_non_null(diagnostics_find(diag, "more than 100000 elements"));
        free(big);
        free(deep);
}

static void test_signatures(void **state) {
        const char *good[] = { "y", "v", "as", "a{sv}", "a{oa{sa{sv}}}", "(ii)", "a(sss)", "aav", "((y)(y))", "h", "g" };
        const char *bad[] = { "", "a", "ss", "(", "()", "{sv}", "a{vs}", "a{s}", "a{svs}", "z", "(i", "i)", "a{sv" };
        char deep[80];

        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
                if (!scaffold_valid_single_type(good[i]))
                        fail_msg("refused %s", good[i]);
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                if (scaffold_valid_single_type(bad[i]))
                        fail_msg("accepted %s", bad[i]);
        memset(deep, 'a', 32);
        strcpy(deep + 32, "y");
        assert_true(scaffold_valid_single_type(deep));
        memset(deep, 'a', 33);
        strcpy(deep + 33, "y");
        assert_false(scaffold_valid_single_type(deep));
        assert_false(scaffold_valid_single_type(NULL));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_file_document),
                cmocka_unit_test(test_reply_children),
                cmocka_unit_test(test_merge_and_duplicates),
                cmocka_unit_test(test_complete),
                cmocka_unit_test(test_scaffold_opens_standard_interfaces),
                cmocka_unit_test(test_check_introspect_missing),
                cmocka_unit_test(test_check_peer_members),
                cmocka_unit_test(test_scaffold_keeps_peer_members),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_plain_entities),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_signatures),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
