/* Keyed hashing for the registry's tables (SipHash-1-3). */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Clients choose the strings and serials the bus hashes (names, match
 * keys, reply serials), so every table hashes with SipHash under a
 * per-process key taken from the kernel's AT_RANDOM bytes: a client
 * cannot precompute colliding keys. No I/O, no failure.
 */
uint64_t hash_bytes(const void *data, size_t n);

/* Hash of a small tuple of integers (pointers and serials). */
uint64_t hash_u64_pair(uint64_t a, uint64_t b);
