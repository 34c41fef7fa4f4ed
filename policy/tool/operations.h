/* The mssf-policy operations: install, remove, compile, list, dump, explain. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "diagnostic.h"
#include "paths.h"

typedef struct PackageDb PackageDb;

/*
 * Expected outcomes, one per exit code of the command (docs/mssf-policy.md);
 * negative errno values are failures (exit 1). Every operation that fails
 * leaves files, labels, kernel rules and policy.db as they were.
 */
enum {
        TOOL_E_INVALID = 3,             /* a manifest (or the installed set) has errors: see diag */
        TOOL_E_NOT_INSTALLED = 4,       /* no such package, or no policy.db */
        TOOL_E_DENIED = 5,              /* explain: the message would be denied */
        TOOL_E_MISMATCH = 6,            /* verify: a file or label differs from what was installed */
};

typedef struct ToolContext {
        ToolPaths paths;
        Diagnostics *diag;              /* manifest problems, with file:line:column */
        FILE *out;                      /* what the user reads */
        FILE *err;                      /* notes and warnings */
        /*
         * dpkg's configure and remove steps (dpkg.c): labels, rule files and
         * kernel rules change at once, but policy.db and the bus reload are
         * left to the trigger that batches a dpkg run. policy_db_stale says
         * a committed change left policy.db behind.
         */
        bool defer_policy_db;
        bool policy_db_stale;
        /*
         * (nullable) The package manager's database: which package installed
         * which file, and what it recorded of them (package-db.h). Whoever
         * starts the run chooses it (main.c: dpkg's), so that the install
         * path never knows which package manager it serves.
         */
        PackageDb *package_db;
} ToolContext;

int tool_install(ToolContext *c, const char *package, const char *manifest, const char *origin);
int tool_remove(ToolContext *c, const char *package);
/* output NULL: paths.policy_db (and the bus is asked to reload). */
int tool_compile(ToolContext *c, const char *output);
/* verify.c: package NULL = every installed package. 0, TOOL_E_MISMATCH, ... */
int tool_verify(ToolContext *c, const char *package);
int tool_list(ToolContext *c);
int tool_dump(ToolContext *c);

typedef struct ExplainQuery {
        const char *label;
        const char *destination;
        const char *path;               /* (nullable) "/" */
        const char *interface;          /* (nullable) */
        const char *member;
        int signal;                     /* a signal from destination to label */
} ExplainQuery;

int tool_explain(ToolContext *c, const ExplainQuery *query);
