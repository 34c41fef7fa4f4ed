/*
 * mssf-policy scaffold and mssf-policy check --xml/--dest: the commands
 * around scaffold-xml.c (parsing), scaffold-bus.c (walking a running
 * service), scaffold-write.c (the manifest) and scaffold-check.c (what a
 * manifest leaves uncovered). Nothing here changes any file or the
 * kernel: scaffold writes to standard output, check only reads.
 *
 * The token given with --token is checked with the rule every token name
 * follows (policy_token_resolve()); a bare name that is not one of the
 * device policy's global tokens is the package's own, so the manifest
 * declares it in <provide>, as the author would.
 */
#include <errno.h>
#include <string.h>

#include "device-policy.h"
#include "fileio.h"
#include "manifest.h"
#include "model.h"
#include "context.h"
#include "scaffold.h"
#include "token-name.h"

static int fail(ToolContext *c, const char *what, const char *message) {
        return diagnostics_add(c->diag, DIAGNOSTIC_ERROR, what, 0, 0, "%s", message) ?: TOOL_E_INVALID;
}

/* One --xml file into tree. */
static int read_xml(ToolContext *c, ScaffoldTree *tree, const char *path) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0;
        int r = fileio_read(path, &data, &size);

        if (r == -EFBIG || (r == 0 && size > SCAFFOLD_XML_MAX_SIZE))
                return fail(c, path, "too large: introspection data is at most 4 MiB");
        if (r < 0)
                return diagnostics_add(c->diag, DIAGNOSTIC_ERROR, path, 0, 0, "cannot read: %s",
                                       strerror(-r)) ?: TOOL_E_INVALID;
        return scaffold_xml_parse(tree, data, size, path, NULL, c->diag, NULL, NULL);
}

/* The service's objects, from the --xml files or from the bus. */
static int build_tree(ToolContext *c, const ScaffoldArgs *args, ScaffoldTree **ret) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        size_t n_interfaces = 0;
        int r;

        if ((args->n_xml > 0) == (args->destination != NULL))
                return fail(c, "mssf-policy", "give the introspection data with --xml FILE (repeatable) or "
                                              "--dest NAME (the running service), one of the two");
        if (args->address && !args->destination)
                return fail(c, "mssf-policy", "--address is for --dest: the bus to find NAME on");
        r = scaffold_tree_new(&tree);
        if (r < 0)
                return r;
        if (args->destination)
                r = scaffold_walk_bus(tree, args->address, args->destination, c->diag);
        for (size_t i = 0; r == 0 && i < args->n_xml; i++)
                r = read_xml(c, tree, args->xml[i]);
        if (r != 0)
                return r == SCAFFOLD_E_INVALID ? TOOL_E_INVALID : r;
        for (size_t i = 0; i < tree->n_nodes; i++)
                n_interfaces += tree->nodes[i]->n_interfaces;
        if (n_interfaces == 0)
                return fail(c, args->destination ? args->destination : args->xml[0],
                            "the introspection data lists no interface: nothing to declare");
        r = scaffold_tree_complete(tree);
        if (r < 0)
                return r;
        scaffold_tree_sort(tree);
        *ret = TAKE_PTR(tree);
        return 0;
}

/* --token: a token name; *ret_own when it is the package's own (bare, and not global). */
static int check_token(ToolContext *c, const char *token, bool *ret_own) {
        _cleanup_(device_policy_freep) DevicePolicy *device = NULL;
        char label[POLICY_TOKEN_LABEL_SIZE];
        int r;

        if (!token || !token[0])
                return fail(c, "mssf-policy", "scaffold needs --token TOKEN: what every interface requires "
                                              "until you edit it");
        r = policy_token_resolve(token, NULL, NULL, NULL, label, sizeof(label));
        if (r > 0)
                return diagnostics_add(c->diag, DIAGNOSTIC_ERROR, "mssf-policy", 0, 0, "--token '%s' is %s",
                                       token, policy_token_error_to_string(r)) ?: TOOL_E_INVALID;
        if (r < 0)
                return r;
        r = device_policy_load(c->paths.device_policy, c->diag, &device);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        *ret_own = !strstr(token, "::") && !device_policy_has_global_token(device, token);
        return 0;
}

static int check_bus_name(ToolContext *c, const char *name) {
        if (!name)
                return fail(c, "mssf-policy", "scaffold needs --name BUSNAME: the well-known name the service "
                                              "owns, which the manifest declares");
        if (!manifest_valid_bus_name(name) || strcmp(name, "org.freedesktop.DBus") == 0)
                return diagnostics_add(c->diag, DIAGNOSTIC_ERROR, "mssf-policy", 0, 0,
                                       "--name '%s' is not a well-known bus name a package may declare",
                                       name) ?: TOOL_E_INVALID;
        return 0;
}

/* A description of where the data came from, for the manifest's comment. */
static char *describe_source(const ScaffoldArgs *args) {
        char *text = NULL;

        if (args->destination) {
                if (asprintf(&text, "the introspection of %s%s%s", args->destination,
                             args->address ? " at " : " on the system bus", args->address ? args->address : "") < 0)
                        return NULL;
                return text;
        }
        text = strdup("");
        for (size_t i = 0; text && i < args->n_xml; i++) {
                char *longer = NULL;

                if (asprintf(&longer, "%s%s%s", text, i ? ", " : "", args->xml[i]) < 0)
                        longer = NULL;
                free(text);
                text = longer;
        }
        return text;
}

int tool_scaffold(ToolContext *c, const ScaffoldArgs *args) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_free_ char *source = NULL;
        ScaffoldManifest manifest = { .name = args->name, .token = args->token };
        int r;

        r = check_bus_name(c, args->name);
        if (r == 0)
                r = check_token(c, args->token, &manifest.provide_token);
        if (r == 0)
                r = build_tree(c, args, &tree);
        if (r != 0)
                return r;
        source = describe_source(args);
        if (!source)
                return -ENOMEM;
        manifest.source = source;
        return scaffold_write_manifest(tree, &manifest, c->out);
}

/* The name to check: --name, else --dest when well-known, else the manifest's only one. */
static const char *coverage_name(const ScaffoldArgs *args, const Package *package) {
        if (args->name)
                return args->name;
        if (args->destination && args->destination[0] != ':')
                return args->destination;
        return package->n_names == 1 ? package->names[0]->name : NULL;
}

int tool_check_coverage(ToolContext *c, const char *manifest, const ScaffoldArgs *args) {
        _cleanup_(scaffold_tree_freep) ScaffoldTree *tree = NULL;
        _cleanup_(package_freep) Package *package = NULL;
        _cleanup_free_ char *package_name = NULL;
        const char *name;
        size_t uncovered = 0;
        int r;

        r = manifest_package_name_from_path(manifest, &package_name);
        if (r > 0)
                return fail(c, manifest, "no package name can be derived from this file name: call it "
                                         "PACKAGE.xml or PACKAGE.aegis");
        if (r == 0)
                r = manifest_parse_file(manifest, package_name, NULL, c->diag, &package);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = build_tree(c, args, &tree);
        if (r != 0)
                return r;
        name = coverage_name(args, package);
        if (!name)
                return fail(c, manifest, "the manifest declares several bus names: say which one with --name");
        r = scaffold_check_coverage(tree, package, name, c->out, &uncovered);
        if (r == -ENOENT)
                return diagnostics_add(c->diag, DIAGNOSTIC_ERROR, manifest, 0, 0,
                                       "the manifest does not declare %s", name) ?: TOOL_E_INVALID;
        if (r < 0)
                return r;
        if (uncovered == 0) {
                fprintf(c->out, "%s covers everything %s offers\n", manifest, name);
                return 0;
        }
        fprintf(c->out, "%zu uncovered in %s\n", uncovered, manifest);
        return SCAFFOLD_E_UNCOVERED;
}
