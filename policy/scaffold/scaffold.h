/* mssf-policy scaffold: a manifest from a service's introspection data, and what a manifest leaves uncovered. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diagnostic.h"
#include "macro.h"

typedef struct Package Package;
typedef struct ToolContext ToolContext;

/*
 * Introspection XML comes from another process (a file a service ships,
 * or its Introspect reply): parsed strictly and within these bounds.
 */
#define SCAFFOLD_XML_MAX_SIZE (4u * 1024u * 1024u)     /* bytes in one document */
#define SCAFFOLD_XML_MAX_DEPTH 32u                     /* nested elements */
#define SCAFFOLD_XML_MAX_ELEMENTS 100000u              /* elements in one document */
#define SCAFFOLD_MAX_NODES 10000u                      /* objects in one tree */
#define SCAFFOLD_MAX_MEMBERS 4096u                     /* members of one interface */

/* Expected outcomes (positive). */
enum {
        SCAFFOLD_E_INVALID = 3,         /* input refused: diag says where and why (TOOL_E_INVALID) */
        SCAFFOLD_E_UNCOVERED = 6,       /* check: the manifest leaves something uncovered */
};

typedef enum ScaffoldMemberKind {
        SCAFFOLD_METHOD,
        SCAFFOLD_SIGNAL,
        SCAFFOLD_PROPERTY,
} ScaffoldMemberKind;

typedef struct ScaffoldMember {
        ScaffoldMemberKind kind;
        char *name;
        char *type;                     /* property: its signature; else NULL */
        char *access;                   /* property: "read", "write" or "readwrite"; else NULL */
} ScaffoldMember;

typedef struct ScaffoldInterface {
        char *name;
        ScaffoldMember **members;       /* in document order */
        size_t n_members;
        char *file;                     /* where it was described, for diagnostics */
        unsigned line;
} ScaffoldInterface;

typedef struct ScaffoldNode {
        char *path;
        ScaffoldInterface **interfaces; /* in document order */
        size_t n_interfaces;
} ScaffoldNode;

/* Everything a service offers: its objects, each with its interfaces. */
typedef struct ScaffoldTree {
        ScaffoldNode **nodes;           /* sorted by path once complete (scaffold_tree_sort()) */
        size_t n_nodes;
} ScaffoldTree;

int scaffold_tree_new(ScaffoldTree **ret);
ScaffoldTree *scaffold_tree_free(ScaffoldTree *tree);
void scaffold_tree_sort(ScaffoldTree *tree);
/*
 * Every object gets org.freedesktop.DBus.Introspectable (Introspect) and
 * org.freedesktop.DBus.Peer (Ping, GetMachineId), which it answers
 * whatever its data lists: each interface and method the data leaves
 * out is appended, nothing the data lists is repeated or dropped.
 */
int scaffold_tree_complete(ScaffoldTree *tree);
/* Grows *array (an array of pointers, n long) by one slot for item; -ENOMEM leaves it as it was. */
int scaffold_push(void *array, size_t *n, void *item);
const ScaffoldNode *scaffold_tree_find(const ScaffoldTree *tree, const char *path);
ScaffoldInterface *scaffold_interface_free(ScaffoldInterface *iface);
ScaffoldMember *scaffold_member_free(ScaffoldMember *member);

/*
 * Adds one introspection document (size bytes of data, named file in
 * diagnostics) to tree.
 *  - path NULL (a file): the root <node name="/object/path"> says which
 *    object it describes; nested <node>s with interfaces describe the
 *    objects below it.
 *  - path given (an Introspect reply of that object): the root node's
 *    name, if any, must be that path; the names of its child nodes (full
 *    paths) are returned in *ret_children (may be NULL) for the caller to
 *    introspect in turn; what nested nodes contain is left to their own
 *    reply.
 * An interface described twice at one path is an error. Returns 0,
 * SCAFFOLD_E_INVALID (errors in diag, with file:line:column), or a
 * negative errno.
 */
int scaffold_xml_parse(ScaffoldTree *tree, const char *data, size_t size, const char *file,
                       const char *path, Diagnostics *diag, char ***ret_children, size_t *ret_n_children);

/* Whether s is one complete D-Bus type ("a{sv}", "(ii)"); validators shared by the parser. */
bool scaffold_valid_single_type(const char *s);

/*
 * Walks the object tree of destination from "/" (Introspect, then each
 * child) on the bus at address (NULL: the system bus, honouring
 * DBUS_SYSTEM_BUS_ADDRESS), adding every object to tree. An object that
 * is gone by the time it is introspected is skipped with a warning; any
 * other failure is an error. At most SCAFFOLD_MAX_NODES objects.
 */
int scaffold_walk_bus(ScaffoldTree *tree, const char *address, const char *destination,
                      Diagnostics *diag);

/* What scaffold writes the manifest for. */
typedef struct ScaffoldManifest {
        const char *name;               /* the well-known bus name it declares */
        const char *token;              /* each interface's default */
        bool provide_token;             /* token is the package's own: declare it in <provide> */
        const char *source;             /* where the introspection data came from, for the comment */
} ScaffoldManifest;

/* A complete manifest for tree on out: every node, interface and member. */
int scaffold_write_manifest(const ScaffoldTree *tree, const ScaffoldManifest *manifest, FILE *out);

/*
 * What tree offers that name's declaration in package does not cover,
 * one line each on out: methods no annotation covers (the bus refuses
 * them to everyone), signals and properties no annotation covers (open
 * to everyone), and, as notes, members covered only by their interface's
 * default (the manifest does not list them). *ret_uncovered counts the
 * first kind; the notes are not counted.
 */
int scaffold_check_coverage(const ScaffoldTree *tree, const Package *package, const char *name,
                            FILE *out, size_t *ret_uncovered);

/* The command line's part (main.c). */
typedef struct ScaffoldArgs {
        const char **xml;               /* --xml FILE, repeatable */
        size_t n_xml;
        const char *destination;        /* --dest NAME */
        const char *address;            /* --address ADDR */
        const char *name;               /* --name BUSNAME */
        const char *token;              /* --token TOKEN */
} ScaffoldArgs;

/* mssf-policy scaffold (--xml ... | --dest NAME [--address ADDR]) --name BUSNAME --token TOKEN */
int tool_scaffold(ToolContext *c, const ScaffoldArgs *args);
/* mssf-policy check MANIFEST (--xml ... | --dest NAME) [--name BUSNAME] */
int tool_check_coverage(ToolContext *c, const char *manifest, const ScaffoldArgs *args);

DEFINE_CLEANUP(ScaffoldTree *, scaffold_tree_free);
