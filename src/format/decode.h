/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode.h -- byte-level decoding of .emlat files (docs/FORMAT.md).
 *
 * Everything here works on a bounded buffer [start, end) and never reads
 * outside it.  Framing (file header, chunk header, padding, CRCs) reports an
 * enum emlat_stop (F-10, F-26); payload decoding reports an enum
 * emlat_invalid and the payload offset of the offending byte (F-27).  Every
 * payload corruption exit goes through EMLAT_CORRUPT, so a failure always
 * names its reason.  No allocation, no global state.
 */
#ifndef EMLAT_DECODE_H
#define EMLAT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "emlat/emlat_reader.h"

/* A payload cursor. */
struct emlat_dec
{
  const uint8_t *start, *p, *end;
  enum emlat_invalid why; /* set by EMLAT_CORRUPT */
  size_t at;              /* payload offset where decoding failed */
};

/* The single exit for corrupt payload bytes: records REASON and the current
   offset, then returns -1 from the calling decoder. */
#define EMLAT_CORRUPT(d, reason)                                               \
  do                                                                           \
    {                                                                          \
      (d)->why = (reason);                                                     \
      (d)->at = (size_t)((d)->p - (d)->start);                                 \
      return -1;                                                               \
    }                                                                          \
  while (0)

/* Framing of the chunk at OFF in BUF[0..LEN): checks F-20..F-22 and F-26
   (magic, header CRC, sizes, bounds, padding, payload CRC) against
   MAX_PAYLOAD (<= EMLAT_CHUNK_PAYLOAD_MAX; a larger valid size yields
   EMLAT_STOP_LIMIT).  On EMLAT_STOP_CLEAN fills *CI (block fields zero),
   *PAYLOAD and *NEXT (offset of the following chunk). */
enum emlat_stop emlat_frame_chunk (const uint8_t *buf, size_t len, size_t off,
                                   uint32_t max_payload,
                                   struct emlat_chunk_info *ci,
                                   const uint8_t **payload, size_t *next);

/* Called once per decoded record; a nonzero return stops decoding and is
   returned by emlat_decode_block. */
typedef int (*emlat_record_fn) (void *ctx, const struct emlat_chunk_info *ci,
                                const struct emlat_record *r);

/* Decode the record block of a chunk of known type CI->type and a type
   version this reader knows (emlat_type_version_max, section 6).  Fills CI's block fields.  FN may be NULL (validation only).
   Returns 0 when the whole payload decoded, -1 when it is invalid
   (D->why, D->at say why and where), or FN's nonzero value. */
int emlat_decode_block (const uint8_t *payload, size_t len,
                        struct emlat_chunk_info *ci, emlat_record_fn fn,
                        void *ctx, struct emlat_dec *d);

#endif /* EMLAT_DECODE_H */
