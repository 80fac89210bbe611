/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crc32c.h -- CRC32C (Castagnoli), FORMAT.md F-6.
 *
 * emlat_crc32c() picks, once, the SSE4.2 crc32 instruction when the CPU has
 * it and the portable slicing-by-8 table otherwise.  Both implementations are
 * exported for tests, which check them against the standard check value
 * (CRC32C("123456789") == 0xE3069283) and against each other.
 */
#ifndef EMLAT_CRC32C_H
#define EMLAT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC of LEN bytes at P, continuing from CRC (0 to start). */
uint32_t emlat_crc32c (uint32_t crc, const void *p, size_t len);
uint32_t emlat_crc32c_portable (uint32_t crc, const void *p, size_t len);
/* Returns 0 and computes nothing useful when the CPU lacks SSE4.2; callers
   check emlat_crc32c_hw_available() first. */
uint32_t emlat_crc32c_hw (uint32_t crc, const void *p, size_t len);
int emlat_crc32c_hw_available (void);

#endif /* EMLAT_CRC32C_H */
