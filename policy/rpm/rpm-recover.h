/* Finishing what a killed rpm transaction left, and what mssf-policy reports about rpm's packages. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct RpmDb RpmDb;
typedef struct ToolContext ToolContext;

/*
 * With rpm's transaction lock held (no rpm transaction running but the
 * caller's, which has not begun its own): finish or undo what the record
 * of an interrupted transaction (rpm-record.h) names, against what rpm's
 * database (db) shows rpm completed, then compile policy.db (if it
 * differs; the bus is told when c->paths.reload_bus) and forget the
 * record. Also undoes an interrupted change's journal first
 * (install_lock()). *ret_written (nullable): policy.db was written.
 * 0, a TOOL_E_* code (diagnostics), or -errno; the record stays unless
 * all of it was done.
 */
int rpm_recover(ToolContext *c, RpmDb *db, bool *ret_written);

/*
 * mssf-policy rpm recover: rpm_recover() for the root c names, under
 * rpm's transaction lock (waiting for a running rpm to finish).
 */
int tool_rpm_recover(ToolContext *c);

/*
 * For mssf-policy verify: what rpm's packages say against the
 * registrations, one line each on out ("NAME: MANIFEST: what"): a package
 * rpm installed with a manifest and no registration (installed without
 * the plugin: rpm --noplugins, or a registration that failed), or one
 * registered for another version; a package rpm registered that rpm no
 * longer has with a manifest; the record of an interrupted transaction.
 * Only package's (nullable: all). *ret_findings: how many. 0 or -errno.
 */
int rpm_verify_registrations(ToolContext *c, const char *package, FILE *out,
                             size_t *ret_findings);
