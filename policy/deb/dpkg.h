/* mssf-policy dpkg: the maintainer-script and trigger side of packaging (dpkg.c). */
#pragma once

typedef struct ToolContext ToolContext;

/*
 * action "configure", "remove" or "purge" with package, or "triggered"
 * with package NULL. 0, a TOOL_E_* code (diagnostics say why), -EINVAL for
 * an unknown action, or -errno.
 */
int tool_dpkg(ToolContext *c, const char *action, const char *package);
