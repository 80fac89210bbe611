/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_repair.h -- for the fuzz targets that read profiles: a copy of an
 * input with its CRCs recomputed, so that a mutation inside a header or a
 * payload reaches what comes after the CRC checks (framing, decoding, the
 * profile, the report) instead of stopping at them.  Without it nearly
 * every mutation of a real recording ends at the first CRC it touches.
 *
 * What is recomputed, as docs/FORMAT.md defines it: the file header CRC
 * (F-10) when the magic is there, then chunk by chunk while the framing
 * holds (magic, a header size F-21 allows, the header within the input):
 * the payload CRC of a codec-0 chunk whose payload is within the input,
 * and the header CRC (with its own field as zero).  Nothing else changes:
 * sizes, padding and magic stay as mutated, so those checks are still
 * reached.  The unrepaired inputs keep testing the CRC checks themselves:
 * each target says which inputs it repairs.  Header only (static).
 */
#ifndef EMLAT_FUZZ_REPAIR_H
#define EMLAT_FUZZ_REPAIR_H

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/endian.h"
#include "format/format.h"

/* A malloc'ed copy of DATA (SIZE bytes) with its CRCs recomputed. */
static __attribute__ ((unused)) uint8_t *fuzz_repair_crcs (const uint8_t *data, size_t size)
{
  uint8_t *b = malloc (size ? size : 1);
  if (!b)
    abort ();
  if (size)
    memcpy (b, data, size);
  if (size < EMLAT_FILE_HEADER_SIZE || memcmp (b, EMLAT_FILE_MAGIC, EMLAT_FILE_MAGIC_LEN) != 0)
    return b;
  emlat_put32 (b + EMLAT_FH_CRC, emlat_crc32c (0, b, EMLAT_FH_CRC));
  static const uint8_t zero4[4];
  size_t off = EMLAT_FILE_HEADER_SIZE;
  while (off <= size && size - off >= EMLAT_CHUNK_HEADER_SIZE
         && memcmp (b + off + EMLAT_CH_MAGIC, EMLAT_CHUNK_MAGIC, 4) == 0)
    {
      uint8_t *h = b + off;
      uint32_t hsize = emlat_le32 (h + EMLAT_CH_HEADER_SIZE);
      if (hsize < EMLAT_CHUNK_HEADER_SIZE || hsize > EMLAT_CHUNK_HEADER_MAX || (hsize & 7u)
          || size - off < hsize)
        break;
      uint32_t stored = emlat_le32 (h + EMLAT_CH_STORED);
      size_t pstart = off + hsize;
      int fits = size - pstart >= stored;
      if (fits && (emlat_le32 (h + EMLAT_CH_FLAGS) & EMLAT_CH_CODEC_MASK) == EMLAT_CODEC_NONE)
        emlat_put32 (h + EMLAT_CH_PAYLOAD_CRC, emlat_crc32c (0, b + pstart, stored));
      uint32_t crc = emlat_crc32c (0, h, EMLAT_CH_HEADER_CRC);
      crc = emlat_crc32c (crc, zero4, 4);
      crc = emlat_crc32c (crc, h + EMLAT_CHUNK_HEADER_SIZE, hsize - EMLAT_CHUNK_HEADER_SIZE);
      emlat_put32 (h + EMLAT_CH_HEADER_CRC, crc);
      if (!fits)
        break;
      off = pstart + stored + EMLAT_PAD8 (stored);
    }
  return b;
}

#endif /* EMLAT_FUZZ_REPAIR_H */
