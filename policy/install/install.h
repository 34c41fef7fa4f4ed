/* install.c's steps, for the other ways of changing the installed set (dpkg.c). */
#pragma once

#include <stdbool.h>

typedef struct InstallPlan InstallPlan;
typedef struct ToolContext ToolContext;

/* mssf-policy install, remove, compile (output NULL: paths.policy_db, and the bus is asked to reload). */
int tool_install(ToolContext *c, const char *package, const char *manifest, const char *origin);
int tool_remove(ToolContext *c, const char *package);
int tool_compile(ToolContext *c, const char *output);

/*
 * Take the lock on the installed state (blocking) and first undo what an
 * interrupted run left (its journal): 0 and *ret_lock (close it to
 * release), a TOOL_E_* code with diagnostics, or -errno.
 */
int install_lock(ToolContext *c, int *ret_lock);

/*
 * With the lock held and plan loaded (install_plan_load): resolve,
 * compile and check everything, then journal and apply it all or nothing,
 * then tell the bus (or, with c->defer_policy_db, leave policy.db and the
 * bus to the caller). 0, a TOOL_E_* code, or -errno.
 */
int install_run(ToolContext *c, InstallPlan *plan);

/* After a change: one line for each other package it granted or revoked something (effects.c). */
void install_note_effects(ToolContext *c, const InstallPlan *plan);

/*
 * With the lock held and plan loaded: what install_run() checks before
 * it changes anything but the package's files, which a package manager
 * that asks before it has written them (rpm's plugin) checks its own way:
 * grants resolved, policy.db compiled and every rule file generated, in
 * memory. 0, a TOOL_E_* code (diagnostics say why), or -errno. The plan
 * is spent: a change runs a new one.
 */
int install_check(ToolContext *c, InstallPlan *plan);

/*
 * Compile every installed manifest into output (NULL: policy.db, under
 * the lock, then tell the bus). With if_changed, a file that already holds
 * the same bytes is left alone and the bus is not told. *ret_written
 * (nullable): whether the file was written.
 */
int install_compile(ToolContext *c, const char *output, bool if_changed, bool *ret_written);
