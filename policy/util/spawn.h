/* Running the package tools mssf-policy asks (dpkg-query, dpkg-deb, apt-get, gpgv). */
#pragma once

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "macro.h"

/*
 * A child with its standard output on a pipe and its standard error kept
 * in memory (shown only when it fails), so a tool's chatter never reaches
 * the package manager's output. No shell is involved: argv[0] is a path or
 * a name looked up in PATH.
 */
typedef struct Spawned {
        pid_t pid;
        FILE *out;                      /* (owned) the child's stdout */
        int err_fd;                     /* memfd holding the child's stderr */
        const char *name;               /* (not owned) argv[0], for messages */
} Spawned;

/* Start argv; stdin is input_fd (-1: /dev/null). */
int spawn_start(char *const argv[], int input_fd, Spawned *ret);
/*
 * Wait for it (closing out first): 0 and *ret_status (its exit status, or
 * 128 + the signal that killed it), or -errno. *ret_stderr (nullable) gets
 * what it wrote to stderr, at most 4 KiB, without a final newline.
 */
int spawn_finish(Spawned *s, int *ret_status, char **ret_stderr);

/*
 * Run argv to the end with its stdout in *ret (NUL-terminated; more than
 * max bytes is -EFBIG): 0 and *ret_status, or -errno (then nothing is
 * returned, *ret_stderr included).
 */
int spawn_capture(char *const argv[], size_t max, char **ret, size_t *ret_size, int *ret_status,
                  char **ret_stderr);
/* The same with stdin from input_fd (another child's output, say). */
int spawn_capture_from(char *const argv[], int input_fd, size_t max, char **ret, size_t *ret_size,
                       int *ret_status, char **ret_stderr);
