/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * endian.h -- explicit little-endian loads and stores (FORMAT.md F-1).
 * Byte by byte, never through struct casts, so the layout is independent of
 * the host's byte order and alignment.
 */
#ifndef EMLAT_ENDIAN_H
#define EMLAT_ENDIAN_H

#include <stdint.h>

static inline uint16_t emlat_le16 (const uint8_t *p)
{ return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t emlat_le32 (const uint8_t *p)
{ return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24); }
static inline uint64_t emlat_le64 (const uint8_t *p)
{ return (uint64_t)emlat_le32 (p) | ((uint64_t)emlat_le32 (p + 4) << 32); }
static inline void emlat_put16 (uint8_t *p, uint16_t v)
{ p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void emlat_put32 (uint8_t *p, uint32_t v)
{ p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static inline void emlat_put64 (uint8_t *p, uint64_t v)
{ emlat_put32 (p, (uint32_t)v); emlat_put32 (p + 4, (uint32_t)(v >> 32)); }

#endif /* EMLAT_ENDIAN_H */
