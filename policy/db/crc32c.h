/* CRC32C (Castagnoli), the checksum of the compiled policy file. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC32C over more bytes; start with crc = 0. */
uint32_t crc32c_update(uint32_t crc, const void *data, size_t size);

/*
 * The checksum stored in a policy file's header: the CRC32C of all size
 * bytes of data with the 4-byte checksum field counted as zero. The writer
 * stores it and the reader compares it; tests use it to re-seal a file they
 * corrupted on purpose, so that structural validation is what they test.
 */
uint32_t policy_db_compute_checksum(const void *data, size_t size);
