/*
 * mssf-policy: the command the package manager runs (see
 * docs/mssf-policy.md). This file is only the command line: it parses
 * options, runs one operation, prints the diagnostics the policy modules
 * collected (file:line:column first, so editors can jump to them) and maps
 * the outcome to the documented exit code. All the work, and every
 * promise about rollback and locking, is in install.c and its helpers.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apt-hook.h"
#include "device-policy.h"
#include "dpkg-db.h"
#include "dpkg.h"
#include "manifest.h"
#include "model.h"
#include "context.h"
#include "verify.h"
#include "install.h"
#include "explain.h"
#include "scaffold.h"
#if MSSF_HAVE_RPM
#include "rpm-recover.h"
#endif

#define EXIT_USAGE 2

enum {
        OPT_ROOT = 0x100,
        OPT_PATH_FIRST,                 /* + ToolPathKind */
        OPT_NO_RELOAD = OPT_PATH_FIRST + _TOOL_PATH_MAX,
        OPT_NO_KERNEL,
        OPT_ORIGIN,
        OPT_OUTPUT,
        OPT_LABEL,
        OPT_DEST,
        OPT_PATH,
        OPT_INTERFACE,
        OPT_MEMBER,
        OPT_SIGNAL,
        OPT_XML,                        /* scaffold and check (scaffold.c) */
        OPT_ADDRESS,
        OPT_NAME,
        OPT_TOKEN,
        OPT_HELP,
};

typedef struct Arguments {
        ToolPathOptions paths;
        const char *origin;
        const char *output;
        ExplainQuery query;
        ScaffoldArgs scaffold;          /* its destination is query.destination */
        char **positional;
        int n_positional;
} Arguments;

static const char usage_text[] =
        "usage: mssf-policy COMMAND [OPTIONS] [ARGS]\n"
        "  install [--origin O] PACKAGE MANIFEST   install or upgrade a package's manifest\n"
        "  remove PACKAGE                          remove it and everything it added\n"
        "  compile [--manifest-dir DIR] [--output FILE]\n"
        "                                          recompile policy.db from the manifests\n"
        "  check MANIFEST...                       validate manifests on their own\n"
        "  list                                    installed packages and their origins\n"
        "  dump                                    the compiled policy as text\n"
        "  verify [PACKAGE]                        files changed since install, lost xattrs,\n"
        "                                          changed labels (exit 6 when any)\n"
        "  explain --label L --dest NAME [--path P] [--interface I] --member M [--signal]\n"
        "                                          would the bus allow it, and which rule decides\n"
        "  scaffold (--xml FILE... | --dest NAME [--address ADDR]) --name BUSNAME --token TOKEN\n"
        "                                          a manifest from a service's introspection data\n"
        "  check MANIFEST (--xml FILE... | --dest NAME [--address ADDR]) [--name BUSNAME]\n"
        "                                          what the service offers that MANIFEST does not cover\n"
        "  dpkg configure|remove|purge PACKAGE     maintainer scripts (dh_mssf); dpkg triggered\n"
        "  apt-hook                                apt's DPkg::Pre-Install-Pkgs (version 3 on stdin)\n"
        "  rpm recover                             finish what a killed rpm transaction left\n"
        "options of every command: --root DIR, --manifest-dir DIR, --origin-dir DIR,\n"
        "  --policy-db FILE, --rules-dir DIR, --device-policy FILE, --lock-file FILE,\n"
        "  --smackfs DIR, --aegis-dir DIR, --apt-origin-dir DIR, --repositories FILE,\n"
        "  --no-kernel, --no-reload (see docs/mssf-policy.md)\n";

static int usage_error(const char *message) {
        if (message)
                fprintf(stderr, "mssf-policy: %s\n", message);
        fputs(usage_text, stderr);
        return EXIT_USAGE;
}

static void options_table(struct option *options) {
        size_t n = 0;

        options[n++] = (struct option) { "root", required_argument, NULL, OPT_ROOT };
        for (int kind = 0; kind < _TOOL_PATH_MAX; kind++)
                options[n++] = (struct option) { tool_path_option(kind), required_argument, NULL,
                                                 OPT_PATH_FIRST + kind };
        options[n++] = (struct option) { "no-reload", no_argument, NULL, OPT_NO_RELOAD };
        options[n++] = (struct option) { "no-kernel", no_argument, NULL, OPT_NO_KERNEL };
        options[n++] = (struct option) { "origin", required_argument, NULL, OPT_ORIGIN };
        options[n++] = (struct option) { "output", required_argument, NULL, OPT_OUTPUT };
        options[n++] = (struct option) { "label", required_argument, NULL, OPT_LABEL };
        options[n++] = (struct option) { "dest", required_argument, NULL, OPT_DEST };
        options[n++] = (struct option) { "path", required_argument, NULL, OPT_PATH };
        options[n++] = (struct option) { "interface", required_argument, NULL, OPT_INTERFACE };
        options[n++] = (struct option) { "member", required_argument, NULL, OPT_MEMBER };
        options[n++] = (struct option) { "signal", no_argument, NULL, OPT_SIGNAL };
        options[n++] = (struct option) { "xml", required_argument, NULL, OPT_XML };
        options[n++] = (struct option) { "address", required_argument, NULL, OPT_ADDRESS };
        options[n++] = (struct option) { "name", required_argument, NULL, OPT_NAME };
        options[n++] = (struct option) { "token", required_argument, NULL, OPT_TOKEN };
        options[n++] = (struct option) { "help", no_argument, NULL, OPT_HELP };
        options[n] = (struct option) {};
}

/* 0, EXIT_USAGE after a message, or -1 for --help. */
static int parse_options(int argc, char **argv, Arguments *args) {
        struct option options[_TOOL_PATH_MAX + 20];
        int option;

        options_table(options);
        optind = 1;
        while ((option = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                if (option >= OPT_PATH_FIRST && option < OPT_PATH_FIRST + _TOOL_PATH_MAX) {
                        args->paths.paths[option - OPT_PATH_FIRST] = optarg;
                        continue;
                }
                switch (option) {
                case OPT_ROOT: args->paths.root = optarg; break;
                case OPT_NO_RELOAD: args->paths.no_reload = true; break;
                case OPT_NO_KERNEL: args->paths.no_kernel = true; break;
                case OPT_ORIGIN: args->origin = optarg; break;
                case OPT_OUTPUT: args->output = optarg; break;
                case OPT_LABEL: args->query.label = optarg; break;
                case OPT_DEST: args->query.destination = optarg; break;
                case OPT_PATH: args->query.path = optarg; break;
                case OPT_INTERFACE: args->query.interface = optarg; break;
                case OPT_MEMBER: args->query.member = optarg; break;
                case OPT_SIGNAL: args->query.signal = 1; break;
                case OPT_XML: args->scaffold.xml[args->scaffold.n_xml++] = optarg; break;
                case OPT_ADDRESS: args->scaffold.address = optarg; break;
                case OPT_NAME: args->scaffold.name = optarg; break;
                case OPT_TOKEN: args->scaffold.token = optarg; break;
                case OPT_HELP: return -1;
                default: return usage_error(NULL);
                }
        }
        args->positional = argv + optind;
        args->n_positional = argc - optind;
        return 0;
}

static void print_diagnostics(const Diagnostics *diag) {
        for (size_t i = 0; i < diag->n_items; i++) {
                _cleanup_free_ char *line = NULL;

                if (diagnostic_format(diag->items[i], &line) >= 0)
                        fprintf(stderr, "%s\n", line);
        }
        if (diag->n_items < diag->n_errors + diag->n_warnings)
                fprintf(stderr, "(%zu more not shown)\n",
                        diag->n_errors + diag->n_warnings - diag->n_items);
}

static int run_check(ToolContext *c, const Arguments *args) {
        _cleanup_(device_policy_freep) DevicePolicy *device = NULL;
        int r;

        if (args->n_positional < 1)
                return usage_error("check needs at least one MANIFEST");
        if (args->scaffold.n_xml > 0 || args->scaffold.destination) {
                if (args->n_positional != 1)
                        return usage_error("check --xml/--dest takes one MANIFEST");
                return tool_check_coverage(c, args->positional[0], &args->scaffold);
        }
        r = device_policy_load(c->paths.device_policy, c->diag, &device);
        if (r != 0)
                return r > 0 ? TOOL_E_INVALID : r;
        r = manifest_check((const char *const *) args->positional, NULL,
                           (size_t) args->n_positional, device, c->diag);
        if (r == MANIFEST_E_INVALID)
                return TOOL_E_INVALID;
        return r;
}

static int want_positional(const Arguments *args, int n, const char *message) {
        return args->n_positional == n ? 0 : usage_error(message);
}

static int run_explain(ToolContext *c, const Arguments *args) {
        int r = want_positional(args, 0, "explain takes options only");

        if (r != 0)
                return r;
        if (!args->query.label || !args->query.destination || !args->query.member)
                return usage_error("explain needs --label, --dest and --member");
        return tool_explain(c, &args->query);
}

static int run_dpkg(ToolContext *c, const Arguments *args) {
        const char *action = args->n_positional > 0 ? args->positional[0] : "";
        bool triggered = strcmp(action, "triggered") == 0;
        int r;

        if (args->n_positional != (triggered ? 1 : 2))
                return usage_error("dpkg needs configure|remove|purge PACKAGE, or triggered");
        r = tool_dpkg(c, action, triggered ? NULL : args->positional[1]);
        return r == -EINVAL ? usage_error("dpkg: unknown action") : r;
}

static int run_rpm(ToolContext *c, const Arguments *args) {
        if (args->n_positional != 1 || strcmp(args->positional[0], "recover") != 0)
                return usage_error("rpm needs recover");
#if MSSF_HAVE_RPM
        return tool_rpm_recover(c);
#else
        diagnostics_add(c->diag, DIAGNOSTIC_ERROR, NULL, 0, 0, "this mssf-policy was built "
                        "without the RPM side (meson -Drpm=enabled)");
        return TOOL_E_INVALID;
#endif
}

static int run_command(ToolContext *c, const char *command, const Arguments *args) {
        char *const *p = args->positional;
        int r;

        if (strcmp(command, "install") == 0) {
                r = want_positional(args, 2, "install needs PACKAGE MANIFEST");
                return r != 0 ? r : tool_install(c, p[0], p[1], args->origin);
        }
        if (strcmp(command, "remove") == 0) {
                r = want_positional(args, 1, "remove needs PACKAGE");
                return r != 0 ? r : tool_remove(c, p[0]);
        }
        if (strcmp(command, "compile") == 0) {
                r = want_positional(args, 0, "compile takes options only");
                return r != 0 ? r : tool_compile(c, args->output);
        }
        if (strcmp(command, "check") == 0)
                return run_check(c, args);
        if (strcmp(command, "list") == 0) {
                r = want_positional(args, 0, "list takes no arguments");
                return r != 0 ? r : tool_list(c);
        }
        if (strcmp(command, "verify") == 0) {
                if (args->n_positional > 1)
                        return usage_error("verify takes at most one PACKAGE");
                return tool_verify(c, args->n_positional ? p[0] : NULL);
        }
        if (strcmp(command, "dump") == 0) {
                r = want_positional(args, 0, "dump takes no arguments");
                return r != 0 ? r : tool_dump(c);
        }
        if (strcmp(command, "explain") == 0)
                return run_explain(c, args);
        if (strcmp(command, "scaffold") == 0) {
                r = want_positional(args, 0, "scaffold takes options only");
                return r != 0 ? r : tool_scaffold(c, &args->scaffold);
        }
        if (strcmp(command, "dpkg") == 0)
                return run_dpkg(c, args);
        if (strcmp(command, "rpm") == 0)
                return run_rpm(c, args);
        if (strcmp(command, "apt-hook") == 0) {
                r = want_positional(args, 0, "apt-hook reads apt's package list on stdin");
                return r != 0 ? r : tool_apt_hook(c, stdin);
        }
        return usage_error("unknown command");
}

/* Options that belong to one command only. */
static bool options_fit(const char *command, const Arguments *args) {
        bool install = strcmp(command, "install") == 0;
        bool compile = strcmp(command, "compile") == 0;
        bool explain = strcmp(command, "explain") == 0;
        bool scaffold = strcmp(command, "scaffold") == 0 || strcmp(command, "check") == 0;
        const ExplainQuery *q = &args->query;
        const ScaffoldArgs *s = &args->scaffold;

        if (args->origin && !install)
                return false;
        if (args->output && !compile)
                return false;
        if ((s->n_xml > 0 || s->address || s->name || s->token) && !scaffold)
                return false;
        if (q->destination && !explain && !scaffold)
                return false;
        return explain || !(q->label || q->path || q->interface || q->member || q->signal);
}

static int exit_code(int r, const char *command) {
        if (r >= 0)
                return r;
        fprintf(stderr, "mssf-policy %s: %s; nothing was changed\n", command, strerror(-r));
        return 1;
}

int main(int argc, char **argv) {
        _cleanup_(diagnostics_freep) Diagnostics *diag = NULL;
        _cleanup_free_ const char **xml_files = NULL;
        Arguments args = {};
        ToolContext context = { .out = stdout, .err = stderr };
        DpkgDb *dpkg = NULL;
        const char *command;
        int r;

        if (argc < 2)
                return usage_error("no command given");
        command = argv[1];
        if (strcmp(command, "--help") == 0 || strcmp(command, "help") == 0) {
                fputs(usage_text, stdout);
                return 0;
        }
        /* --xml may be given at most once per word of the command line. */
        xml_files = calloc((size_t) argc, sizeof(char *));
        if (!xml_files)
                return exit_code(-ENOMEM, command);
        args.scaffold.xml = xml_files;
        r = parse_options(argc - 1, argv + 1, &args);
        if (r < 0) {
                fputs(usage_text, stdout);
                return 0;
        }
        if (r > 0)
                return r;
        if (!options_fit(command, &args))
                return usage_error("an option given does not belong to this command");
        if (diagnostics_new(&diag) < 0 || tool_paths_init(&context.paths, &args.paths) < 0)
                return exit_code(-ENOMEM, command);
        context.diag = diag;
        /* A Debian device: dpkg's database says whose each file is (an absent one lists nothing). */
        r = dpkg_db_new_for(&context.paths, &dpkg);
        if (r < 0)
                return exit_code(r, command);
        context.package_db = dpkg_db_package_db(TAKE_PTR(dpkg));
        args.scaffold.destination = args.query.destination;
        r = run_command(&context, command, &args);
        print_diagnostics(diag);
        context.package_db = package_db_free(context.package_db);
        tool_paths_deinit(&context.paths);
        if (fflush(stdout) != 0 && r == 0)
                r = -EIO;
        return exit_code(r, command);
}
