/* Comparing test output with a committed golden file (MSSF_UPDATE_GOLDEN=1 rewrites it). */
#pragma once

#include <stddef.h>

/* Fails the test, showing where they differ, unless data equals dir/file. */
void golden_compare(const char *dir, const char *file, const void *data, size_t size);
