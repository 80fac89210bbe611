/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format.h -- the single source of truth for the bytes of an .emlat file.
 *
 * Mirrors docs/FORMAT.md section by section; rule identifiers (F-n) refer to
 * that document.  The encoder (src/format/encode.c), the decoder
 * (src/format/decode.c) and the conformance tests include this file and no
 * other place spells an offset or a tag.  Change both in the same commit.
 *
 * All multi-byte fixed fields are little-endian and are accessed only through
 * the explicit load/store helpers in src/common/endian.h (F-1).
 */
#ifndef EMLAT_FORMAT_H
#define EMLAT_FORMAT_H

#include <stdint.h>

#include "emlat/emlat_types.h"

/* File header (FORMAT.md section 3). */
#define EMLAT_FILE_MAGIC "EMLAT\0\r\n" /* 8 bytes, includes the NUL */
#define EMLAT_FILE_MAGIC_LEN 8
#define EMLAT_FILE_HEADER_SIZE 64
#define EMLAT_FORMAT_MAJOR 1
#define EMLAT_FORMAT_MINOR 1 /* 1.1: EVENT chunks, INTERACTION version 2 */
#define EMLAT_FH_MAGIC 0     /* 8 */
#define EMLAT_FH_MAJOR 8     /* u16 */
#define EMLAT_FH_MINOR 10    /* u16 */
#define EMLAT_FH_FLAGS 12    /* u32 */
#define EMLAT_FH_UUID 16     /* 16 bytes */
#define EMLAT_FH_ROTATION 32 /* u64 */
#define EMLAT_FH_REALTIME 40 /* u64 */
#define EMLAT_FH_MONOTONIC 48/* u64 */
#define EMLAT_FH_CRC 56      /* u32, CRC32C of bytes 0..55 */
#define EMLAT_FH_RESERVED 60 /* u32 */

/* Chunk header (section 4.1). */
#define EMLAT_CHUNK_MAGIC "CHNK"
#define EMLAT_CHUNK_HEADER_SIZE 40
#define EMLAT_CHUNK_HEADER_MAX 4096       /* F-21 */
#define EMLAT_CHUNK_PAYLOAD_MAX (16u << 20) /* F-22 */
#define EMLAT_CH_MAGIC 0        /* 4 */
#define EMLAT_CH_TYPE 4         /* u16 */
#define EMLAT_CH_VERSION 6      /* u16 */
#define EMLAT_CH_FLAGS 8        /* u32, bits 0..7 codec */
#define EMLAT_CH_HEADER_SIZE 12 /* u32 */
#define EMLAT_CH_STORED 16      /* u32 */
#define EMLAT_CH_UNCOMPRESSED 20/* u32 */
#define EMLAT_CH_SEQUENCE 24    /* u64 */
#define EMLAT_CH_PAYLOAD_CRC 32 /* u32 */
#define EMLAT_CH_HEADER_CRC 36  /* u32, computed with this field zeroed */
#define EMLAT_CH_CODEC_MASK 0xffu
#define EMLAT_CODEC_NONE 0

/* Padding after a payload of N bytes (F-20). */
#define EMLAT_PAD8(n) ((8u - ((uint32_t)(n) & 7u)) & 7u)

/* Chunk types (section 5). */
enum emlat_chunk_type {
  EMLAT_CHUNK_SESSION = 1,
  EMLAT_CHUNK_STRING = 2,
  EMLAT_CHUNK_INPUT = 3,
  EMLAT_CHUNK_INTERACTION = 4,
  EMLAT_CHUNK_SPAN = 5,
  EMLAT_CHUNK_LOSS = 6,
  EMLAT_CHUNK_STATS = 7,
  EMLAT_CHUNK_EVENT = 8, /* format 1.1: application events (6.9) */
  EMLAT_CHUNK_RESOURCE = 9, /* format 1.1: process resource samples (6.10) */
  EMLAT_CHUNK_TYPE_MAX_KNOWN = 9,
  EMLAT_CHUNK_EXPERIMENTAL_MIN = 0x8000 /* F-32 */
};
#define EMLAT_TYPE_VERSION 1 /* every type of format 1.0 */
/* INTERACTION type version 2 (format 1.1): a name after the root kind of
   both records, and root kind 11 (application). */
#define EMLAT_IX_VERSION_NAMED 2
/* The highest root kind of INTERACTION type version 1. */
#define EMLAT_ROOT_KIND_MAX_V1 10
/* The time fields of INTERACTION type version 1 (bits 0..27); version 2
   adds the write bounds, bits 28..31 (F-66b). */
#define EMLAT_T_FIELD_COUNT_V1 28
#define EMLAT_T_FIELD_MASK_V1 ((1u << EMLAT_T_FIELD_COUNT_V1) - 1)

/* The time fields a chunk of INTERACTION type version VERSION may hold. */
static inline unsigned
emlat_ix_time_fields (unsigned version)
{
  return version >= EMLAT_IX_VERSION_NAMED ? EMLAT_T_FIELD_COUNT : EMLAT_T_FIELD_COUNT_V1;
}

/* The newest type version of chunk TYPE this reader and writer know
   (F-31); 0 for an unknown type. */
static inline unsigned
emlat_type_version_max (unsigned type)
{
  if (type == EMLAT_CHUNK_INTERACTION)
    return EMLAT_IX_VERSION_NAMED;
  return type >= 1 && type <= EMLAT_CHUNK_TYPE_MAX_KNOWN ? EMLAT_TYPE_VERSION : 0;
}

/* Key/value entries (6.2). */
#define EMLAT_KEY_MAX 64
#define EMLAT_KV_STRING_MAX 1024
#define EMLAT_KV_UINT 0
#define EMLAT_KV_SINT 1
#define EMLAT_KV_STR 2

/* STRING (6.3). */
#define EMLAT_STRING_MAX 4096

/* INPUT (6.4). */
#define EMLAT_INPUT_TAG_BATCH 1
#define EMLAT_INPUT_MASK_ALL 0x1fu

/* INTERACTION (6.5). */
#define EMLAT_IX_TAG_COMPLETE 1
#define EMLAT_IX_TAG_BEGIN 2

/* SPAN (6.6) head bits. */
#define EMLAT_SPAN_REC_COMPLETE 1
#define EMLAT_SPAN_REC_BEGIN 2
#define EMLAT_SPAN_REC_END 3
#define EMLAT_SPAN_HEAD_KIND_MASK 0x3u
#define EMLAT_SPAN_HEAD_CPU 0x4u
#define EMLAT_SPAN_HEAD_DETAIL 0x8u
#define EMLAT_SPAN_HEAD_COUNTERS 0x10u
#define EMLAT_SPAN_HEAD_STATUS_SHIFT 5
#define EMLAT_SPAN_HEAD_STATUS_MASK 0xe0u
#define EMLAT_SPAN_HEAD_MAX 0xffu /* bits 8.. are reserved */
/* Head bits that MUST be 0 in a begin record: it carries no detail, no
   counters and no status. */
#define EMLAT_SPAN_HEAD_NOT_IN_BEGIN                                           \
  (EMLAT_SPAN_HEAD_DETAIL | EMLAT_SPAN_HEAD_COUNTERS | EMLAT_SPAN_HEAD_STATUS_MASK)

/* Default quality of each time field (7.3), indexed by enum
   emlat_time_field: the encoder writes a quality pair only for a quality
   that differs from it, the decoder fills it in for fields without a pair
   (F-64).  The one table of both. */
static const uint8_t emlat_default_quality[EMLAT_T_FIELD_COUNT] = {
  EMLAT_Q_READ, EMLAT_Q_READ, EMLAT_Q_MAIN_POLL_READY, EMLAT_Q_READ, EMLAT_Q_READ,
  EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL,
  EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL,
  EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL, EMLAT_Q_INTERNAL,
  EMLAT_Q_INTERNAL, EMLAT_Q_WRITE, EMLAT_Q_WRITE, EMLAT_Q_FLUSH, EMLAT_Q_FLUSH,
  EMLAT_Q_READ, EMLAT_Q_READ, EMLAT_Q_INTERNAL, EMLAT_Q_EXTERNAL,
  EMLAT_Q_EXTERNAL, EMLAT_Q_EXTERNAL, EMLAT_Q_WRITE, EMLAT_Q_WRITE, EMLAT_Q_WRITE,
  EMLAT_Q_WRITE
};

/* EVENT (6.9). */
#define EMLAT_EVENT_HAS_ID(tag) ((tag) >= EMLAT_EV_ASYNC_BEGIN && (tag) <= EMLAT_EV_FLOW_END)
/* Function records: an offset (any value) after the time. */
#define EMLAT_EVENT_IS_FN(tag) ((tag) == EMLAT_EV_FN_ENTER || (tag) == EMLAT_EV_FN_EXIT)
/* Records whose name is required (F-96). */
#define EMLAT_EVENT_NEEDS_NAME(tag)                                            \
  ((tag) == EMLAT_EV_THREAD_NAME || (tag) == EMLAT_EV_PROCESS_NAME || EMLAT_EVENT_IS_FN (tag))

/* RESOURCE (6.10): presence bits of a sample's fields. */
#define EMLAT_RES_RSS 0x01u          /* resident set, bytes */
#define EMLAT_RES_CPU_USER 0x02u     /* process user CPU time, ns */
#define EMLAT_RES_CPU_SYS 0x04u      /* process system CPU time, ns */
#define EMLAT_RES_CPU_SHARE 0x08u    /* (user + sys) / wall since the previous
                                        sample, parts per million */
#define EMLAT_RES_VCSW 0x10u         /* voluntary context switches */
#define EMLAT_RES_IVCSW 0x20u        /* involuntary context switches */
#define EMLAT_RES_MASK_ALL 0x3fu
#define EMLAT_RES_FIELDS 6

/* Ring slot size: the unit of LOSS byte counts (6.7). */
#define EMLAT_SLOT_BYTES 32

#endif /* EMLAT_FORMAT_H */
