/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * craft.h -- a test-side builder of .emlat bytes, valid or deliberately not.
 *
 * Independent of the recorder's encoder (crafting invalid input is the
 * point): a growable byte buffer, varint and fixed-width appenders, a file
 * header and chunks with correct CRCs (docs/FORMAT.md sections 3, 4),
 * whose fields a test may then corrupt.  Header-only, used by tests/reader
 * and tests/damage.  Aborts on allocation failure (tests only).
 */
#ifndef EMLAT_TEST_CRAFT_H
#define EMLAT_TEST_CRAFT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "emlat/emlat_types.h"
#include "common/endian.h"
#include "common/leb128.h"
#include "format/format.h"

struct craft
{
  uint8_t *b;
  size_t n, cap;
};

static inline void craft_room (struct craft *c, size_t more)
{
  if (c->n + more <= c->cap)
    return;
  size_t cap = c->cap ? c->cap : 256;
  while (cap < c->n + more)
    cap *= 2;
  c->b = realloc (c->b, cap);
  if (!c->b)
    abort ();
  c->cap = cap;
}

static inline void craft_bytes (struct craft *c, const void *p, size_t n)
{
  craft_room (c, n);
  if (n)
    memcpy (c->b + c->n, p, n);
  c->n += n;
}

static inline void craft_u8 (struct craft *c, uint8_t v) { craft_bytes (c, &v, 1); }

static inline void craft_uv (struct craft *c, uint64_t v)
{
  craft_room (c, EMLAT_VARINT_MAX);
  c->n += emlat_put_uvarint (c->b + c->n, v);
}

static inline void craft_sv (struct craft *c, int64_t v)
{
  craft_room (c, EMLAT_VARINT_MAX);
  c->n += emlat_put_svarint (c->b + c->n, v);
}

static inline void craft_free (struct craft *c)
{
  free (c->b);
  memset (c, 0, sizeof *c);
}

/* A valid 64-byte file header (F-10..F-13). */
static inline void craft_file_header (struct craft *c, const uint8_t uuid[16], uint64_t rotation)
{
  uint8_t h[EMLAT_FILE_HEADER_SIZE];
  memset (h, 0, sizeof h);
  memcpy (h, EMLAT_FILE_MAGIC, EMLAT_FILE_MAGIC_LEN);
  emlat_put16 (h + EMLAT_FH_MAJOR, EMLAT_FORMAT_MAJOR);
  emlat_put16 (h + EMLAT_FH_MINOR, EMLAT_FORMAT_MINOR);
  memcpy (h + EMLAT_FH_UUID, uuid, 16);
  emlat_put64 (h + EMLAT_FH_ROTATION, rotation);
  emlat_put64 (h + EMLAT_FH_REALTIME, 1700000000000000000ull);
  emlat_put64 (h + EMLAT_FH_MONOTONIC, 1000000);
  emlat_put32 (h + EMLAT_FH_CRC, emlat_crc32c (0, h, EMLAT_FH_CRC));
  craft_bytes (c, h, sizeof h);
}

/* Recompute the header CRC of the chunk header at OFF (after a test edited
   a field, so that only the intended check fails). */
static inline void craft_fix_chunk_crc (struct craft *c, size_t off)
{
  uint8_t *h = c->b + off;
  uint32_t hs = emlat_le32 (h + EMLAT_CH_HEADER_SIZE);
  emlat_put32 (h + EMLAT_CH_HEADER_CRC, 0);
  emlat_put32 (h + EMLAT_CH_HEADER_CRC, emlat_crc32c (0, h, hs));
}

/* Append a chunk (header, payload, zero padding) with valid CRCs; returns
   the offset of its header. */
static inline size_t craft_chunk_ex (struct craft *c, uint16_t type, uint16_t version,
                                     uint32_t flags, uint64_t seq, const uint8_t *payload,
                                     size_t len)
{
  size_t off = c->n;
  uint8_t h[EMLAT_CHUNK_HEADER_SIZE];
  memset (h, 0, sizeof h);
  memcpy (h, EMLAT_CHUNK_MAGIC, 4);
  emlat_put16 (h + EMLAT_CH_TYPE, type);
  emlat_put16 (h + EMLAT_CH_VERSION, version);
  emlat_put32 (h + EMLAT_CH_FLAGS, flags);
  emlat_put32 (h + EMLAT_CH_HEADER_SIZE, EMLAT_CHUNK_HEADER_SIZE);
  emlat_put32 (h + EMLAT_CH_STORED, (uint32_t)len);
  emlat_put32 (h + EMLAT_CH_UNCOMPRESSED, (uint32_t)len);
  emlat_put64 (h + EMLAT_CH_SEQUENCE, seq);
  emlat_put32 (h + EMLAT_CH_PAYLOAD_CRC, emlat_crc32c (0, payload, len));
  craft_bytes (c, h, sizeof h);
  craft_fix_chunk_crc (c, off);
  craft_bytes (c, payload, len);
  static const uint8_t zero[8];
  craft_bytes (c, zero, EMLAT_PAD8 (len));
  return off;
}

static inline size_t craft_chunk (struct craft *c, uint16_t type, uint64_t seq,
                                  const struct craft *payload)
{
  return craft_chunk_ex (c, type, EMLAT_TYPE_VERSION, 0, seq, payload->b, payload->n);
}

/* Start a record block (6.1) in P. */
static inline void craft_block (struct craft *p, uint64_t base, uint64_t thread, uint64_t count)
{
  p->n = 0;
  craft_uv (p, EMLAT_TYPE_VERSION);
  craft_uv (p, base);
  craft_uv (p, thread);
  craft_uv (p, count);
}

/* A SESSION payload with one unsigned entry KEY = V. */
static inline void craft_session (struct craft *p, const char *key, uint64_t v)
{
  craft_block (p, 0, 0, 1);
  craft_uv (p, strlen (key));
  craft_bytes (p, key, strlen (key));
  craft_uv (p, EMLAT_KV_UINT);
  craft_uv (p, v);
}

/* A SPAN payload of thread 1 with one complete span (no optional fields). */
static inline void craft_span1 (struct craft *p, uint64_t id, uint64_t cause, uint64_t start,
                                uint64_t dur, unsigned kind)
{
  craft_block (p, start, 1, 1);
  craft_uv (p, EMLAT_SPAN_REC_COMPLETE);
  craft_uv (p, kind);
  craft_sv (p, (int64_t)id);
  craft_sv (p, 0);
  craft_sv (p, (int64_t)cause);
  craft_sv (p, 0);
  craft_uv (p, dur);
}

static const uint8_t craft_uuid_a[16] = { 1, 2, 3, 4, 5, 6, 0x47, 8, 0x89, 10, 11, 12, 13, 14, 15, 16 };

#endif /* EMLAT_TEST_CRAFT_H */
