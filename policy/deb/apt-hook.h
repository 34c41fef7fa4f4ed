/* mssf-policy apt-hook: the origin of each package file, from what apt verified (apt-hook.c). */
#pragma once

#include <stdio.h>

typedef struct ToolContext ToolContext;

/*
 * Read apt's DPkg::Pre-Install-Pkgs protocol version 3 from input and
 * write a record for every package file that ships an MSSF manifest.
 * 0, TOOL_E_INVALID (diagnostics say why; apt then stops), or -errno.
 */
int tool_apt_hook(ToolContext *c, FILE *input);
