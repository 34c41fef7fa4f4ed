/* Writing policy.db atomically: temporary file, fsync, rename. */
#pragma once

#include <stddef.h>

/*
 * Replace path with size bytes of data so that a reader sees either the
 * old file or the complete new one, also after a crash: the bytes go to a
 * temporary file in the same directory, which is fsync'ed, made 0644 and
 * renamed over path; then the directory is fsync'ed. On failure the
 * temporary file is removed and path is untouched. 0 or a negative errno.
 */
int policy_db_write(const char *path, const void *data, size_t size);
