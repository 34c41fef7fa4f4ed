/* The packages whose judged findings wait for the end of a package manager's run (pending-findings.c). */
#pragma once

#include <stddef.h>

typedef struct ToolPaths ToolPaths;

/* Beyond this the list is refused (-EFBIG): one name a line, each a package label. */
#define PENDING_FINDINGS_MAX_SIZE (1024u * 1024u)

/* The list's file: findings-pending beside the lock file (NULL: out of memory). */
char *pending_findings_path(const ToolPaths *paths);

/* Under the lock: add package, once. 0 or -errno. */
int pending_findings_add(const ToolPaths *paths, const char *package);

/*
 * Under the lock: the names listed, in order, each once (lines that are
 * no valid package label skipped); none when there is no list. 0 or -errno.
 */
int pending_findings_read(const ToolPaths *paths, char ***ret, size_t *ret_n);

/* Under the lock: take names off the list (the file goes when nothing is left). 0 or -errno. */
int pending_findings_remove(const ToolPaths *paths, char *const *names, size_t n_names);

void pending_findings_free(char **names, size_t n_names);
