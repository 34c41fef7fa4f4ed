/* One run of mssf-policy: where its files are, where its words go, which package manager asks. */
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
