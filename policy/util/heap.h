/* The compile's heap: reserved once, in huge pages where the kernel allows. */
#pragma once

#include <stddef.h>

/*
 * Grow the malloc heap by about bytes at once and ask the kernel to back
 * it with transparent huge pages (madvise MADV_HUGEPAGE). Only a hint:
 * when the heap is not glibc's brk heap (sanitizers), or the kernel says
 * no, nothing changes and nothing fails.
 */
void heap_reserve(size_t bytes);
