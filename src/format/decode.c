/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode.c -- framing checks and record-block decoders (docs/FORMAT.md).
 *
 * Invariants: every read is bounds-checked against the cursor's end before
 * it happens; every loop consumes at least one byte per iteration or ends;
 * every corrupt-payload exit goes through EMLAT_CORRUPT.  Time arithmetic
 * is unsigned and wraps modulo 2^64 (F-4).  A record is handed to the
 * callback only once it decoded completely.
 */
#include "format/decode.h"

#include <string.h>

#include "common/crc32c.h"
#include "common/endian.h"
#include "common/leb128.h"
#include "emlat/emlat.h"
#include "format/format.h"

/* The INPUT mask of 6.4 is the producer's EMLAT_IB_* bits. */
_Static_assert (EMLAT_INPUT_MASK_ALL
                  == (EMLAT_IB_KNOWN_EMPTY | EMLAT_IB_FIRST_READY | EMLAT_IB_READ_BEGIN
                      | EMLAT_IB_READ_END | EMLAT_IB_BYTES),
                "INPUT mask bits");

/* ------------------------------------------------------------------ */
/* File header (section 3)                                             */

enum emlat_stop
emlat_parse_file_header (const uint8_t *buf, size_t len, struct emlat_file_header *h)
{
  memset (h, 0, sizeof *h);
  /* F-10: the magic first, so that a short non-emlat file says so. */
  size_t m = len < EMLAT_FILE_MAGIC_LEN ? len : EMLAT_FILE_MAGIC_LEN;
  if (memcmp (buf, EMLAT_FILE_MAGIC, m) != 0)
    return EMLAT_STOP_BAD_MAGIC;
  if (len < EMLAT_FILE_HEADER_SIZE)
    return EMLAT_STOP_TRUNCATED_HEADER;
  h->major = emlat_le16 (buf + EMLAT_FH_MAJOR);
  h->minor = emlat_le16 (buf + EMLAT_FH_MINOR);
  h->flags = emlat_le32 (buf + EMLAT_FH_FLAGS);
  memcpy (h->uuid, buf + EMLAT_FH_UUID, 16);
  h->rotation = emlat_le64 (buf + EMLAT_FH_ROTATION);
  h->realtime_start = emlat_le64 (buf + EMLAT_FH_REALTIME);
  h->monotonic_start = emlat_le64 (buf + EMLAT_FH_MONOTONIC);
  h->crc = emlat_le32 (buf + EMLAT_FH_CRC);
  h->reserved = emlat_le32 (buf + EMLAT_FH_RESERVED);
  if (emlat_crc32c (0, buf, EMLAT_FH_CRC) != h->crc)
    return EMLAT_STOP_HEADER_CRC;
  if (h->major != EMLAT_FORMAT_MAJOR) /* F-11 */
    return EMLAT_STOP_BAD_VERSION;
  return EMLAT_STOP_CLEAN;
}

/* ------------------------------------------------------------------ */
/* Chunk framing (section 4)                                           */

enum emlat_stop
emlat_frame_chunk (const uint8_t *buf, size_t len, size_t off, uint32_t max_payload,
                   struct emlat_chunk_info *ci, const uint8_t **payload, size_t *next)
{
  memset (ci, 0, sizeof *ci);
  ci->offset = off;
  if (off > len || len - off < EMLAT_CHUNK_HEADER_SIZE) /* F-26 */
    return EMLAT_STOP_TRUNCATED_HEADER;
  const uint8_t *h = buf + off;
  if (memcmp (h + EMLAT_CH_MAGIC, EMLAT_CHUNK_MAGIC, 4) != 0)
    return EMLAT_STOP_BAD_MAGIC;
  uint32_t hsize = emlat_le32 (h + EMLAT_CH_HEADER_SIZE);
  /* The header size is covered by the header CRC, but the CRC's extent is
     that size, so it is bounded before the CRC is computed (F-21). */
  if (hsize < EMLAT_CHUNK_HEADER_SIZE || hsize > EMLAT_CHUNK_HEADER_MAX || (hsize & 7u))
    return EMLAT_STOP_IMPOSSIBLE_SIZE;
  if (len - off < hsize)
    return EMLAT_STOP_TRUNCATED_HEADER;
  static const uint8_t zero4[4];
  uint32_t crc = emlat_crc32c (0, h, EMLAT_CH_HEADER_CRC);
  crc = emlat_crc32c (crc, zero4, 4);
  crc = emlat_crc32c (crc, h + EMLAT_CHUNK_HEADER_SIZE, hsize - EMLAT_CHUNK_HEADER_SIZE);
  if (crc != emlat_le32 (h + EMLAT_CH_HEADER_CRC))
    return EMLAT_STOP_HEADER_CRC;
  ci->type = emlat_le16 (h + EMLAT_CH_TYPE);
  ci->version = emlat_le16 (h + EMLAT_CH_VERSION);
  ci->flags = emlat_le32 (h + EMLAT_CH_FLAGS);
  ci->header_size = hsize;
  ci->stored = emlat_le32 (h + EMLAT_CH_STORED);
  ci->uncompressed = emlat_le32 (h + EMLAT_CH_UNCOMPRESSED);
  ci->sequence = emlat_le64 (h + EMLAT_CH_SEQUENCE);
  /* F-22 */
  if (ci->stored > EMLAT_CHUNK_PAYLOAD_MAX)
    return EMLAT_STOP_IMPOSSIBLE_SIZE;
  if ((ci->flags & EMLAT_CH_CODEC_MASK) == EMLAT_CODEC_NONE && ci->uncompressed != ci->stored)
    return EMLAT_STOP_IMPOSSIBLE_SIZE;
  if (ci->stored > max_payload)
    return EMLAT_STOP_LIMIT;
  size_t body = (size_t)ci->stored + EMLAT_PAD8 (ci->stored);
  size_t pstart = off + hsize;
  if (len - pstart < body)
    return EMLAT_STOP_TRUNCATED_PAYLOAD;
  for (size_t i = ci->stored; i < body; i++) /* F-20 */
    if (buf[pstart + i] != 0)
      return EMLAT_STOP_NONZERO_PADDING;
  /* The payload CRC is of the uncompressed payload; with codec 0 that is the
     stored bytes.  Other codecs cannot be checked and are skipped (F-30). */
  if ((ci->flags & EMLAT_CH_CODEC_MASK) == EMLAT_CODEC_NONE
      && emlat_crc32c (0, buf + pstart, ci->stored) != emlat_le32 (h + EMLAT_CH_PAYLOAD_CRC))
    return EMLAT_STOP_PAYLOAD_CRC;
  *payload = buf + pstart;
  *next = pstart + body;
  return EMLAT_STOP_CLEAN;
}

/* ------------------------------------------------------------------ */
/* Primitive field decoders                                            */

/* A varint failed: SHORT when the payload ended inside it, else VARINT. */
static int varint_fail (struct emlat_dec *d)
{
  size_t left = (size_t)(d->end - d->p);
  int ran_out = left < EMLAT_VARINT_MAX;
  for (size_t i = 0; ran_out && i < left; i++)
    if (!(d->p[i] & 0x80))
      ran_out = 0;
  EMLAT_CORRUPT (d, ran_out ? EMLAT_INVALID_SHORT : EMLAT_INVALID_VARINT);
}

static inline int get_u (struct emlat_dec *d, uint64_t *v)
{
  if (d->p < d->end && !(*d->p & 0x80)) /* one-byte fast path */
    {
      *v = *d->p++;
      return 0;
    }
  size_t n = emlat_get_uvarint (d->p, d->end, v);
  if (n == 0)
    {
      *v = 0; /* defined even on failure, for the compiler's flow analysis */
      return varint_fail (d);
    }
  d->p += n;
  return 0;
}

static inline int get_s (struct emlat_dec *d, int64_t *v)
{
  size_t n = emlat_get_svarint (d->p, d->end, v);
  if (n == 0)
    {
      *v = 0;
      return varint_fail (d);
    }
  d->p += n;
  return 0;
}

/* A uvarint in [lo, hi]; the cursor is left on the value when it is out of
   range so the reported offset names it. */
static inline int get_range (struct emlat_dec *d, uint64_t lo, uint64_t hi, uint64_t *v)
{
  const uint8_t *at = d->p;
  if (get_u (d, v))
    return -1;
  if (*v < lo || *v > hi)
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
    }
  return 0;
}

/* A uvarint mask with no bit at or above BITS. */
static inline int get_mask (struct emlat_dec *d, unsigned bits, uint64_t *v)
{
  const uint8_t *at = d->p;
  if (get_u (d, v))
    return -1;
  if (*v >> bits)
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_RESERVED);
    }
  return 0;
}

static inline int get_bytes (struct emlat_dec *d, uint64_t n, const uint8_t **out)
{
  if ((uint64_t)(d->end - d->p) < n)
    EMLAT_CORRUPT (d, EMLAT_INVALID_SHORT);
  *out = d->p;
  d->p += n;
  return 0;
}

/* Time deltas: the first as svarint from prev_t (updating it), later ones
   from the first (6.4, 6.5). */
static inline int get_times (struct emlat_dec *d, uint64_t mask, unsigned nbits,
                             uint64_t *prev_t, uint64_t *t)
{
  uint64_t first = 0;
  int have_first = 0;
  for (unsigned i = 0; i < nbits; i++)
    {
      if (!(mask & ((uint64_t)1 << i)))
        continue;
      int64_t delta;
      if (get_s (d, &delta))
        return -1;
      if (!have_first)
        {
          first = *prev_t + (uint64_t)delta;
          *prev_t = first;
          have_first = 1;
          t[i] = first;
        }
      else
        t[i] = first + (uint64_t)delta;
    }
  return 0;
}

/* The record thread (F-52). */
static inline int get_thread (struct emlat_dec *d, const struct emlat_chunk_info *ci,
                              uint64_t *thread)
{
  if (ci->thread != 0)
    {
      *thread = ci->thread;
      return 0;
    }
  return get_u (d, thread);
}

/* ------------------------------------------------------------------ */
/* Per-type record decoders                                            */

static int is_key_byte (uint8_t c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* 6.2 key/value entry. */
static int dec_kv (struct emlat_dec *d, struct emlat_kv *kv)
{
  uint64_t n, type;
  if (get_range (d, 1, EMLAT_KEY_MAX, &n))
    return -1;
  if (get_bytes (d, n, &kv->key))
    return -1;
  for (uint64_t i = 0; i < n; i++)
    if (!is_key_byte (kv->key[i]))
      {
        d->p = kv->key + i;
        EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
      }
  kv->key_len = (uint32_t)n;
  if (get_range (d, EMLAT_KV_UINT, EMLAT_KV_STR, &type))
    return -1;
  kv->type = (uint32_t)type;
  kv->u = 0;
  kv->i = 0;
  kv->s = NULL;
  kv->s_len = 0;
  if (type == EMLAT_KV_UINT)
    return get_u (d, &kv->u);
  if (type == EMLAT_KV_SINT)
    return get_s (d, &kv->i);
  if (get_range (d, 0, EMLAT_KV_STRING_MAX, &n))
    return -1;
  kv->s_len = (uint32_t)n;
  return get_bytes (d, n, &kv->s);
}

/* 6.3 */
static int dec_string (struct emlat_dec *d, struct emlat_record *r)
{
  uint64_t len;
  if (get_range (d, 1, UINT64_MAX, &r->u.str.id))
    return -1;
  if (get_range (d, 0, EMLAT_STRING_MAX, &len))
    return -1;
  r->u.str.len = (uint32_t)len;
  return get_bytes (d, len, &r->u.str.bytes);
}

/* 6.4 */
static int dec_input (struct emlat_dec *d, const struct emlat_chunk_info *ci,
                      uint64_t *prev_t, struct emlat_record *r)
{
  struct emlat_rd_input *in = &r->u.input;
  uint64_t tag, mask, t[4] = { 0, 0, 0, 0 };
  if (get_range (d, EMLAT_INPUT_TAG_BATCH, EMLAT_INPUT_TAG_BATCH, &tag))
    return -1;
  if (get_thread (d, ci, &r->thread))
    return -1;
  in->thread = r->thread;
  if (get_range (d, 1, UINT64_MAX, &in->batch_id))
    return -1;
  if (get_mask (d, 5, &mask))
    return -1;
  in->mask = (uint32_t)mask;
  in->ready_quality = 0;
  if (mask & EMLAT_IB_FIRST_READY)
    {
      uint64_t q;
      if (get_range (d, 1, EMLAT_Q_MAX, &q))
        return -1;
      in->ready_quality = (uint32_t)q;
    }
  /* The four time bits, in the order of t[]. */
  if (get_times (d, mask & (EMLAT_IB_KNOWN_EMPTY | EMLAT_IB_FIRST_READY | EMLAT_IB_READ_BEGIN
                            | EMLAT_IB_READ_END), 4, prev_t, t))
    return -1;
  in->t_known_empty = t[0];
  in->t_first_ready = t[1];
  in->t_read_begin = t[2];
  in->t_read_end = t[3];
  in->bytes = 0;
  if (mask & EMLAT_IB_BYTES)
    return get_u (d, &in->bytes);
  return 0;
}

/* The root kinds of the chunk's type version (F-9): 0..10 in version 1,
   0..11 (application) in version 2. */
static uint64_t root_kind_max (const struct emlat_chunk_info *ci)
{
  return ci->version >= EMLAT_IX_VERSION_NAMED ? EMLAT_ROOT_KIND_MAX : EMLAT_ROOT_KIND_MAX_V1;
}

/* 6.5 begin record. */
static int dec_ix_begin (struct emlat_dec *d, const struct emlat_chunk_info *ci,
                         uint64_t *prev_t, struct emlat_record *r)
{
  struct emlat_rd_ix_begin *b = &r->u.ix_begin;
  uint64_t kind;
  int64_t delta;
  if (get_thread (d, ci, &r->thread))
    return -1;
  if (get_range (d, 1, UINT64_MAX, &b->cause))
    return -1;
  if (get_range (d, 0, root_kind_max (ci), &kind))
    return -1;
  b->root_kind = (uint32_t)kind;
  b->name = 0;
  if (ci->version >= EMLAT_IX_VERSION_NAMED && get_u (d, &b->name))
    return -1;
  if (get_u (d, &b->parent) || get_u (d, &b->scheduled_by) || get_s (d, &delta))
    return -1;
  b->t_dispatch_begin = *prev_t + (uint64_t)delta;
  *prev_t = b->t_dispatch_begin;
  return 0;
}

EMLAT_API enum emlat_quality emlat_time_default_quality (enum emlat_time_field f)
{
  if ((unsigned)f >= EMLAT_T_FIELD_COUNT)
    return (enum emlat_quality)0;
  return (enum emlat_quality)emlat_default_quality[f];
}

/* 6.5 complete record. */
static int dec_ix_complete (struct emlat_dec *d, const struct emlat_chunk_info *ci,
                            uint64_t *prev_t, struct emlat_record *r)
{
  struct emlat_rd_ix *ix = &r->u.ix;
  uint64_t v, mask, n;
  if (get_thread (d, ci, &r->thread))
    return -1;
  if (get_range (d, 1, UINT64_MAX, &ix->cause))
    return -1;
  if (get_range (d, 0, root_kind_max (ci), &v))
    return -1;
  ix->root_kind = (uint32_t)v;
  ix->name = 0;
  if (ci->version >= EMLAT_IX_VERSION_NAMED && get_u (d, &ix->name))
    return -1;
  if (get_range (d, 1, EMLAT_STATUS_MAX, &v))
    return -1;
  ix->status = (uint32_t)v;
  /* The write bounds (bits 28..31) only in version 2 (F-66b). */
  unsigned nt = emlat_ix_time_fields (ci->version);
  if (get_mask (d, nt, &mask))
    return -1;
  ix->time_mask = (uint32_t)mask;
  if (get_times (d, mask, nt, prev_t, ix->t))
    return -1;
  memcpy (ix->q, emlat_default_quality, sizeof ix->q); /* F-64 */
  ix->q_explicit_mask = 0;
  if (get_range (d, 0, nt, &n))
    return -1;
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t f, q;
      const uint8_t *at = d->p;
      if (get_range (d, 0, nt - 1, &f))
        return -1;
      /* The field's bit must be set, and each field appears once. */
      if (!(ix->time_mask & (1u << f)))
        {
          d->p = at;
          EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
        }
      if (ix->q_explicit_mask & (1u << f))
        {
          d->p = at;
          EMLAT_CORRUPT (d, EMLAT_INVALID_DUPLICATE);
        }
      if (get_range (d, 1, EMLAT_Q_MAX, &q))
        return -1;
      ix->q[f] = (uint8_t)q;
      ix->q_explicit_mask |= 1u << f;
    }
  if (get_mask (d, EMLAT_V_FIELD_COUNT, &mask))
    return -1;
  ix->value_mask = (uint32_t)mask;
  for (unsigned i = 0; i < EMLAT_V_FIELD_COUNT; i++)
    if ((mask & (1u << i)) && get_u (d, &ix->v[i]))
      return -1;
  if (get_mask (d, EMLAT_C_COUNTER_COUNT, &mask))
    return -1;
  ix->counter_mask = (uint32_t)mask;
  for (unsigned i = 0; i < EMLAT_C_COUNTER_COUNT; i++)
    if ((mask & (1u << i)) && get_u (d, &ix->c[i]))
      return -1;
  return 0;
}

/* Span counters: n (1..29) pairs of counter index and value, each counter
   at most once (6.6). */
static int dec_span_counters (struct emlat_dec *d, struct emlat_rd_span *s)
{
  uint64_t n;
  uint32_t seen = 0;
  if (get_range (d, 1, EMLAT_C_COUNTER_COUNT, &n))
    return -1;
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t c;
      const uint8_t *at = d->p;
      if (get_range (d, 0, EMLAT_C_COUNTER_COUNT - 1, &c))
        return -1;
      if (seen & (1u << c))
        {
          d->p = at;
          EMLAT_CORRUPT (d, EMLAT_INVALID_DUPLICATE);
        }
      seen |= 1u << c;
      s->counter_id[i] = (uint8_t)c;
      if (get_u (d, &s->counter_val[i]))
        return -1;
    }
  s->n_counters = (uint32_t)n;
  s->flags |= EMLAT_RD_SPAN_COUNTERS;
  return 0;
}

/* 6.6: one SPAN record of any kind. */
static int dec_span (struct emlat_dec *d, uint64_t *prev_t, uint64_t *prev_span,
                     uint64_t *prev_cause, struct emlat_record *r)
{
  struct emlat_rd_span *s = &r->u.span;
  uint64_t head, v;
  int64_t delta;
  const uint8_t *at = d->p;
  if (get_u (d, &head))
    return -1;
  unsigned rec = (unsigned)(head & EMLAT_SPAN_HEAD_KIND_MASK);
  unsigned status = (unsigned)((head & EMLAT_SPAN_HEAD_STATUS_MASK) >> EMLAT_SPAN_HEAD_STATUS_SHIFT);
  if (head > EMLAT_SPAN_HEAD_MAX
      || (rec == EMLAT_SPAN_REC_BEGIN && (head & EMLAT_SPAN_HEAD_NOT_IN_BEGIN)))
    {
      /* Bits 8.. are reserved; a begin record carries no detail, counters
         or status, so its bits 3..7 are reserved too. */
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_RESERVED);
    }
  if (rec == 0 || status > EMLAT_SPAN_UNWOUND) /* 6.6, 7.6 */
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
    }
  s->status = status;
  s->flags = 0;
  s->n_counters = 0;
  s->kind = 0;
  s->parent = 0;
  s->cause = 0;
  s->start = 0;
  s->end = 0;
  s->cpu = 0;
  s->detail = 0;
  if (rec != EMLAT_SPAN_REC_END)
    {
      r->kind = rec == EMLAT_SPAN_REC_COMPLETE ? EMLAT_REC_SPAN_COMPLETE : EMLAT_REC_SPAN_BEGIN;
      if (get_range (d, 1, EMLAT_SPAN_KIND_MAX, &v))
        return -1;
      s->kind = (uint32_t)v;
    }
  else
    r->kind = EMLAT_REC_SPAN_END;
  /* Span id: delta from prev_span, result >= 1. */
  at = d->p;
  if (get_s (d, &delta))
    return -1;
  s->id = *prev_span + (uint64_t)delta;
  if (s->id == 0)
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
    }
  *prev_span = s->id;
  if (rec == EMLAT_SPAN_REC_END)
    {
      if (get_s (d, &delta))
        return -1;
      s->end = *prev_t + (uint64_t)delta;
      *prev_t = s->end;
      if ((head & EMLAT_SPAN_HEAD_CPU) && get_u (d, &s->cpu))
        return -1;
    }
  else
    {
      /* Parent: id - parent_id, 0 = none; a nonzero delta equal to the id
         would name parent 0, which is not an id (F-5). */
      at = d->p;
      if (get_s (d, &delta))
        return -1;
      if (delta != 0)
        {
          s->parent = s->id - (uint64_t)delta;
          if (s->parent == 0)
            {
              d->p = at;
              EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
            }
        }
      if (get_s (d, &delta))
        return -1;
      s->cause = *prev_cause + (uint64_t)delta;
      *prev_cause = s->cause;
      if (get_s (d, &delta))
        return -1;
      s->start = *prev_t + (uint64_t)delta;
      *prev_t = s->start;
      if (rec == EMLAT_SPAN_REC_COMPLETE)
        {
          if (get_u (d, &v))
            return -1;
          s->end = s->start + v;
        }
      if ((head & EMLAT_SPAN_HEAD_CPU) && get_u (d, &s->cpu))
        return -1;
    }
  if (head & EMLAT_SPAN_HEAD_CPU)
    s->flags |= EMLAT_RD_SPAN_CPU;
  if (head & EMLAT_SPAN_HEAD_DETAIL)
    {
      if (get_u (d, &s->detail))
        return -1;
      s->flags |= EMLAT_RD_SPAN_DETAIL;
    }
  if ((head & EMLAT_SPAN_HEAD_COUNTERS) && dec_span_counters (d, s))
    return -1;
  return 0;
}

/* 6.7 */
static int dec_loss (struct emlat_dec *d, uint64_t *prev_t, struct emlat_record *r)
{
  struct emlat_rd_loss *l = &r->u.loss;
  uint64_t reason, span;
  int64_t delta;
  if (get_u (d, &l->stream))
    return -1;
  if (get_range (d, 1, EMLAT_LOSS_REASON_MAX, &reason))
    return -1;
  l->reason = (uint32_t)reason;
  if (get_s (d, &delta) || get_u (d, &span))
    return -1;
  l->first = *prev_t + (uint64_t)delta;
  *prev_t = l->first;
  l->last = l->first + span;
  if (get_u (d, &l->records) || get_u (d, &l->bytes))
    return -1;
  r->thread = l->stream;
  return 0;
}

/* 6.9: tag, name, time, then the id (async and flow records) and the
   value (counters).  The thread is the block's (F-53). */
static int dec_event (struct emlat_dec *d, uint64_t *prev_t, struct emlat_record *r)
{
  struct emlat_rd_event *e = &r->u.event;
  uint64_t tag;
  int64_t delta;
  if (get_range (d, 1, EMLAT_EV_TAG_MAX, &tag))
    return -1;
  e->tag = (uint32_t)tag;
  const uint8_t *at = d->p;
  if (get_u (d, &e->name))
    return -1;
  /* A thread or process name without a name says nothing; a function
     record names its module. */
  if (e->name == 0 && EMLAT_EVENT_NEEDS_NAME (tag))
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
    }
  if (get_s (d, &delta))
    return -1;
  e->t = *prev_t + (uint64_t)delta;
  *prev_t = e->t;
  e->id = 0;
  e->iv = 0;
  e->fv = 0;
  if (EMLAT_EVENT_HAS_ID (tag) && get_range (d, 1, UINT64_MAX, &e->id))
    return -1;
  if (EMLAT_EVENT_IS_FN (tag) && get_u (d, &e->id)) /* the offset: any value */
    return -1;
  if (tag == EMLAT_EV_COUNTER)
    return get_s (d, &e->iv);
  if (tag == EMLAT_EV_COUNTER_F)
    {
      const uint8_t *b;
      if (get_bytes (d, 8, &b))
        return -1;
      uint64_t bits = emlat_le64 (b);
      memcpy (&e->fv, &bits, 8);
    }
  return 0;
}

/* 6.10: time, presence mask, a uvarint per present field. */
static int dec_sample (struct emlat_dec *d, uint64_t *prev_t, struct emlat_record *r)
{
  struct emlat_rd_sample *s = &r->u.sample;
  int64_t delta;
  uint64_t mask;
  if (get_s (d, &delta))
    return -1;
  s->t = *prev_t + (uint64_t)delta;
  *prev_t = s->t;
  if (get_mask (d, EMLAT_RES_FIELDS, &mask))
    return -1;
  s->mask = (uint32_t)mask;
  for (unsigned i = 0; i < EMLAT_RES_FIELDS; i++)
    {
      s->v[i] = 0;
      if ((mask & (1u << i)) && get_u (d, &s->v[i]))
        return -1;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Record block (6.1)                                                  */

int emlat_decode_block (const uint8_t *payload, size_t len, struct emlat_chunk_info *ci,
                        emlat_record_fn fn, void *ctx, struct emlat_dec *d)
{
  d->start = d->p = payload;
  d->end = payload + len;
  d->why = EMLAT_INVALID_NONE;
  d->at = 0;
  uint64_t schema;
  const uint8_t *at = d->p;
  if (get_u (d, &schema))
    return -1;
  if (schema != ci->version)
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_SCHEMA);
    }
  at = d->p;
  if (get_u (d, &ci->base_time))
    return -1;
  int timeless = ci->type == EMLAT_CHUNK_SESSION || ci->type == EMLAT_CHUNK_STRING
                 || ci->type == EMLAT_CHUNK_STATS;
  if (timeless && ci->base_time != 0) /* 6.1: base time 0 in these */
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_BLOCK);
    }
  at = d->p;
  if (get_u (d, &ci->thread))
    return -1;
  /* 6.1: no thread in the blocks of timeless chunks and of LOSS (whose
     stream field names the thread, 6.7); a SPAN block is one thread's. */
  if (((timeless || ci->type == EMLAT_CHUNK_LOSS || ci->type == EMLAT_CHUNK_RESOURCE)
       && ci->thread != 0)
      || ((ci->type == EMLAT_CHUNK_SPAN || ci->type == EMLAT_CHUNK_EVENT) && ci->thread == 0))
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_BLOCK);
    }
  at = d->p;
  if (get_u (d, &ci->count))
    return -1;
  /* Every record takes at least one byte: a larger count cannot fit (F-50). */
  if (ci->count > (uint64_t)(d->end - d->p))
    {
      d->p = at;
      EMLAT_CORRUPT (d, EMLAT_INVALID_SHORT);
    }

  uint64_t prev_t = ci->base_time, prev_span = 0, prev_cause = 0; /* F-51 */
  struct emlat_record r;
  r.chunk_type = ci->type;
  for (uint64_t i = 0; i < ci->count; i++)
    {
      int rc;
      r.thread = ci->thread;
      switch (ci->type)
        {
        case EMLAT_CHUNK_SESSION:
        case EMLAT_CHUNK_STATS:
          r.kind = EMLAT_REC_KV;
          rc = dec_kv (d, &r.u.kv);
          break;
        case EMLAT_CHUNK_STRING:
          r.kind = EMLAT_REC_STRING;
          rc = dec_string (d, &r);
          break;
        case EMLAT_CHUNK_INPUT:
          r.kind = EMLAT_REC_INPUT;
          rc = dec_input (d, ci, &prev_t, &r);
          break;
        case EMLAT_CHUNK_INTERACTION:
          {
            uint64_t tag;
            if (get_range (d, EMLAT_IX_TAG_COMPLETE, EMLAT_IX_TAG_BEGIN, &tag))
              return -1;
            if (tag == EMLAT_IX_TAG_BEGIN)
              {
                r.kind = EMLAT_REC_IX_BEGIN;
                rc = dec_ix_begin (d, ci, &prev_t, &r);
              }
            else
              {
                r.kind = EMLAT_REC_IX_COMPLETE;
                rc = dec_ix_complete (d, ci, &prev_t, &r);
              }
            break;
          }
        case EMLAT_CHUNK_SPAN:
          rc = dec_span (d, &prev_t, &prev_span, &prev_cause, &r);
          break;
        case EMLAT_CHUNK_LOSS:
          r.kind = EMLAT_REC_LOSS;
          rc = dec_loss (d, &prev_t, &r);
          break;
        case EMLAT_CHUNK_EVENT:
          r.kind = EMLAT_REC_EVENT;
          rc = dec_event (d, &prev_t, &r);
          break;
        case EMLAT_CHUNK_RESOURCE:
          r.kind = EMLAT_REC_SAMPLE;
          rc = dec_sample (d, &prev_t, &r);
          break;
        default:
          /* Callers decode known types only; refuse rather than guess. */
          EMLAT_CORRUPT (d, EMLAT_INVALID_RANGE);
        }
      if (rc)
        return -1;
      if (fn)
        {
          int stop = fn (ctx, ci, &r);
          if (stop) /* positive, so it never reads as "invalid" (-1) */
            return stop > 0 ? stop : 1;
        }
    }
  if (d->p != d->end) /* F-50 */
    EMLAT_CORRUPT (d, EMLAT_INVALID_TRAILING);
  return 0;
}
