/* mssf-policy verify: do the installed packages' files still carry what was set, and match it? */
#pragma once

typedef struct ToolContext ToolContext;

/* package NULL: every installed package. 0, TOOL_E_MISMATCH, TOOL_E_NOT_INSTALLED, ... */
int tool_verify(ToolContext *c, const char *package);
