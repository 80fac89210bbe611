/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * encode.c -- chunk building and record encoders (see encode.h), following
 * docs/FORMAT.md; rule ids F-n are cited where a choice is made.
 */
#include "format/encode.h"

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/endian.h"
#include "common/leb128.h"
#include "emlat/emlat.h"
#include "format/format.h"

#define HEAD_ROOM (EMLAT_CHUNK_HEADER_SIZE + 4 * EMLAT_VARINT_MAX)

int
emlat_arena_reserve (struct emlat_arena *a, size_t need)
{
  if (a->failed)
    return -1;
  if (a->len + need <= a->cap)
    return 0;
  /* The first buffer is what NEED asks, in pages: a SESSION chunk's
     start (a driven program's one chunk, under a kilobyte) touches one
     page of the heap, not the first and the 64th of a 64 KiB buffer
     (the allocator's mark after it); a writer's chunks double it to
     their size within a few passes. */
  size_t cap = a->cap ? a->cap : 1 << 12;
  while (cap < a->len + need)
    cap *= 2;
  uint8_t *b = realloc (a->buf, cap);
  if (!b)
    {
      a->failed = 1;
      return -1;
    }
  a->buf = b;
  a->cap = cap;
  return 0;
}

void
emlat_arena_reset (struct emlat_arena *a)
{
  a->len = 0;
  a->failed = 0;
}

void
emlat_arena_free (struct emlat_arena *a)
{
  free (a->buf);
  memset (a, 0, sizeof *a);
}

void
emlat_chunk_list_reset (struct emlat_chunk_list *l)
{
  l->n = 0;
}

void
emlat_chunk_list_free (struct emlat_chunk_list *l)
{
  free (l->v);
  memset (l, 0, sizeof *l);
}

void
emlat_cb_begin (struct emlat_cb *cb, struct emlat_arena *a, uint16_t type, uint64_t base_t,
                uint64_t thread)
{
  memset (cb, 0, sizeof *cb);
  cb->a = a;
  cb->type = type;
  cb->base_t = base_t;
  cb->thread = thread;
  cb->prev_t = base_t;
  cb->open = 1;
  cb->version = EMLAT_TYPE_VERSION;
  /* Head room for the chunk header and the block header (placed at finish). */
  if (emlat_arena_reserve (a, HEAD_ROOM) == 0)
    a->len += HEAD_ROOM;
  cb->rec_start = a->len;
}

void
emlat_cb_set_version (struct emlat_cb *cb, uint16_t version)
{
  cb->version = version;
}

int
emlat_cb_finish (struct emlat_cb *cb, struct emlat_chunk_list *out, int keep_empty)
{
  struct emlat_arena *a = cb->a;
  cb->open = 0;
  if (a->failed)
    return -1;
  if (cb->count == 0 && !keep_empty)
    {
      a->len = cb->rec_start - HEAD_ROOM;
      return 0;
    }
  /* Block header (6.1): schema version, base time, thread id, count. */
  uint8_t bh[4 * EMLAT_VARINT_MAX];
  size_t bn = 0;
  bn += emlat_put_uvarint (bh + bn, cb->version);
  bn += emlat_put_uvarint (bh + bn, cb->base_t);
  bn += emlat_put_uvarint (bh + bn, cb->thread);
  bn += emlat_put_uvarint (bh + bn, cb->count);
  size_t payload_off = cb->rec_start - bn;
  memcpy (a->buf + payload_off, bh, bn);
  size_t payload = a->len - payload_off;
  uint32_t pad = EMLAT_PAD8 (payload);
  if (emlat_arena_reserve (a, pad) != 0)
    return -1;
  memset (a->buf + a->len, 0, pad);
  a->len += pad;
  size_t hoff = payload_off - EMLAT_CHUNK_HEADER_SIZE;
  uint8_t *h = a->buf + hoff;
  memcpy (h + EMLAT_CH_MAGIC, EMLAT_CHUNK_MAGIC, 4);
  emlat_put16 (h + EMLAT_CH_TYPE, cb->type);
  emlat_put16 (h + EMLAT_CH_VERSION, cb->version);
  emlat_put32 (h + EMLAT_CH_FLAGS, EMLAT_CODEC_NONE);
  emlat_put32 (h + EMLAT_CH_HEADER_SIZE, EMLAT_CHUNK_HEADER_SIZE);
  emlat_put32 (h + EMLAT_CH_STORED, (uint32_t)payload);
  emlat_put32 (h + EMLAT_CH_UNCOMPRESSED, (uint32_t)payload);
  emlat_put64 (h + EMLAT_CH_SEQUENCE, 0);
  emlat_put32 (h + EMLAT_CH_PAYLOAD_CRC, emlat_crc32c (0, a->buf + payload_off, payload));
  emlat_put32 (h + EMLAT_CH_HEADER_CRC, 0);
  if (out->n == out->cap)
    {
      size_t cap = out->cap ? out->cap * 2 : 64;
      struct emlat_chunk_ref *v = realloc (out->v, cap * sizeof *v);
      if (!v)
        {
          a->failed = 1;
          return -1;
        }
      out->v = v;
      out->cap = cap;
    }
  struct emlat_chunk_ref *r = &out->v[out->n++];
  r->off = hoff;
  r->len = a->len - hoff;
  r->type = cb->type;
  r->records = cb->represents;
  r->first_t = cb->first_t;
  r->last_t = cb->last_t;
  return 0;
}

void
emlat_chunk_seal (uint8_t *h, uint64_t sequence)
{
  emlat_put64 (h + EMLAT_CH_SEQUENCE, sequence);
  emlat_put32 (h + EMLAT_CH_HEADER_CRC, 0);
  emlat_put32 (h + EMLAT_CH_HEADER_CRC, emlat_crc32c (0, h, EMLAT_CHUNK_HEADER_SIZE));
}

void
emlat_file_header (uint8_t out[64], const uint8_t uuid[16], uint64_t rotation,
                   uint64_t realtime_ns, uint64_t mono_ns)
{
  memset (out, 0, 64);
  memcpy (out + EMLAT_FH_MAGIC, EMLAT_FILE_MAGIC, EMLAT_FILE_MAGIC_LEN);
  emlat_put16 (out + EMLAT_FH_MAJOR, EMLAT_FORMAT_MAJOR);
  emlat_put16 (out + EMLAT_FH_MINOR, EMLAT_FORMAT_MINOR);
  memcpy (out + EMLAT_FH_UUID, uuid, 16);
  emlat_put64 (out + EMLAT_FH_ROTATION, rotation);
  emlat_put64 (out + EMLAT_FH_REALTIME, realtime_ns);
  emlat_put64 (out + EMLAT_FH_MONOTONIC, mono_ns);
  emlat_put32 (out + EMLAT_FH_CRC, emlat_crc32c (0, out, EMLAT_FH_CRC));
}

/* ---- key/value entries (6.2) ---- */

static uint8_t *
kv_key (struct emlat_cb *cb, const char *key, size_t extra, size_t *n)
{
  size_t klen = strlen (key);
  uint8_t *p = emlat_cb_room (cb, EMLAT_VARINT_MAX + klen + 2 * EMLAT_VARINT_MAX + extra);
  if (!p)
    return 0;
  *n = emlat_put_uvarint (p, klen);
  memcpy (p + *n, key, klen);
  *n += klen;
  return p;
}

int
emlat_enc_kv_uint (struct emlat_cb *cb, const char *key, uint64_t v)
{
  size_t n;
  uint8_t *p = kv_key (cb, key, 0, &n);
  if (!p)
    return -1;
  n += emlat_put_uvarint (p + n, EMLAT_KV_UINT);
  n += emlat_put_uvarint (p + n, v);
  emlat_cb_commit (cb, n, 0, 0);
  return 0;
}

int
emlat_enc_kv_sint (struct emlat_cb *cb, const char *key, int64_t v)
{
  size_t n;
  uint8_t *p = kv_key (cb, key, 0, &n);
  if (!p)
    return -1;
  n += emlat_put_uvarint (p + n, EMLAT_KV_SINT);
  n += emlat_put_svarint (p + n, v);
  emlat_cb_commit (cb, n, 0, 0);
  return 0;
}

int
emlat_enc_kv_str (struct emlat_cb *cb, const char *key, const char *s, size_t len)
{
  if (len > EMLAT_KV_STRING_MAX)
    len = EMLAT_KV_STRING_MAX;
  size_t n;
  uint8_t *p = kv_key (cb, key, len, &n);
  if (!p)
    return -1;
  n += emlat_put_uvarint (p + n, EMLAT_KV_STR);
  n += emlat_put_uvarint (p + n, len);
  memcpy (p + n, s, len);
  n += len;
  emlat_cb_commit (cb, n, 0, 0);
  return 0;
}

int
emlat_enc_string (struct emlat_cb *cb, uint64_t id, const char *s, size_t len)
{
  uint8_t *p = emlat_cb_room (cb, 2 * EMLAT_VARINT_MAX + len);
  if (!p)
    return -1;
  size_t n = emlat_put_uvarint (p, id);
  n += emlat_put_uvarint (p + n, len);
  memcpy (p + n, s, len);
  n += len;
  emlat_cb_commit (cb, n, 0, 0);
  return 0;
}

/* ---- INPUT (6.4) ---- */

int
emlat_enc_input (struct emlat_cb *cb, const struct emlat_enc_input *in)
{
  uint8_t *p = emlat_cb_room (cb, 12 * EMLAT_VARINT_MAX);
  if (!p)
    return -1;
  size_t n = emlat_put_uvarint (p, EMLAT_INPUT_TAG_BATCH);
  if (cb->thread == 0)
    n += emlat_put_uvarint (p + n, in->thread);
  n += emlat_put_uvarint (p + n, in->batch);
  n += emlat_put_uvarint (p + n, in->mask);
  if (in->mask & EMLAT_IB_FIRST_READY)
    n += emlat_put_uvarint (p + n, in->quality);
  uint64_t first = 0, t_any = 0;
  int have_first = 0;
  for (int i = 0; i < 4; i++)
    {
      if (!(in->mask & (1u << i)))
        continue;
      if (!have_first)
        {
          first = in->t[i];
          n += emlat_put_svarint (p + n, (int64_t)(first - cb->prev_t));
          cb->prev_t = first;
          have_first = 1;
          t_any = first;
        }
      else
        n += emlat_put_svarint (p + n, (int64_t)(in->t[i] - first));
    }
  if (in->mask & EMLAT_IB_BYTES)
    n += emlat_put_uvarint (p + n, in->bytes);
  emlat_cb_commit (cb, n, 1, t_any);
  return 0;
}

/* ---- INTERACTION (6.5) ---- */

int
emlat_enc_ix_begin (struct emlat_cb *cb, const struct emlat_enc_ix *ix, uint64_t represents)
{
  uint8_t *p = emlat_cb_room (cb, 8 * EMLAT_VARINT_MAX);
  if (!p)
    return -1;
  size_t n = emlat_put_uvarint (p, EMLAT_IX_TAG_BEGIN);
  if (cb->thread == 0)
    n += emlat_put_uvarint (p + n, ix->thread);
  n += emlat_put_uvarint (p + n, ix->cause);
  n += emlat_put_uvarint (p + n, ix->kind);
  if (cb->version >= EMLAT_IX_VERSION_NAMED)
    n += emlat_put_uvarint (p + n, ix->name);
  n += emlat_put_uvarint (p + n, ix->parent);
  n += emlat_put_uvarint (p + n, ix->sched);
  n += emlat_put_svarint (p + n, (int64_t)(ix->t_dispatch - cb->prev_t));
  cb->prev_t = ix->t_dispatch;
  emlat_cb_commit (cb, n, represents, ix->t_dispatch);
  return 0;
}

int
emlat_enc_ix_complete (struct emlat_cb *cb, const struct emlat_enc_ix *ix, uint64_t represents)
{
  uint8_t *p = emlat_cb_room (cb, EMLAT_REC_MAX);
  if (!p)
    return -1;
  size_t n = emlat_put_uvarint (p, EMLAT_IX_TAG_COMPLETE);
  if (cb->thread == 0)
    n += emlat_put_uvarint (p + n, ix->thread);
  n += emlat_put_uvarint (p + n, ix->cause);
  n += emlat_put_uvarint (p + n, ix->kind);
  if (cb->version >= EMLAT_IX_VERSION_NAMED)
    n += emlat_put_uvarint (p + n, ix->name);
  n += emlat_put_uvarint (p + n, ix->status);
  /* Fields in increasing index order: the set bits of each mask, lowest
     first (the masks never have bits at or above the field counts). */
  /* The time fields the chunk's version holds (F-66b): a version 1
     chunk never carries bits 28..31 (the writer puts an interaction that
     has them in a version 2 chunk, emlat_enc_ix_needs_v2). */
  uint32_t tmask = ix->tmask
                   & (cb->version >= EMLAT_IX_VERSION_NAMED ? EMLAT_T_FIELD_MASK
                                                            : EMLAT_T_FIELD_MASK_V1);
  n += emlat_put_uvarint (p + n, tmask);
  uint64_t first = 0;
  uint32_t qmask = 0; /* fields with a quality pair (F-64) */
  unsigned nq = 0;
  if (tmask)
    {
      int i = __builtin_ctz (tmask);
      first = ix->t[i];
      n += emlat_put_svarint (p + n, (int64_t)(first - cb->prev_t));
      cb->prev_t = first;
      for (uint32_t m = tmask;;)
        {
          if (ix->q[i] && ix->q[i] != emlat_default_quality[i])
            {
              qmask |= 1u << i;
              nq++;
            }
          m &= m - 1;
          if (!m)
            break;
          i = __builtin_ctz (m);
          n += emlat_put_svarint (p + n, (int64_t)(ix->t[i] - first));
        }
    }
  n += emlat_put_uvarint (p + n, nq);
  for (uint32_t m = qmask; m; m &= m - 1)
    {
      int i = __builtin_ctz (m);
      n += emlat_put_uvarint (p + n, (uint64_t)i);
      n += emlat_put_uvarint (p + n, ix->q[i]);
    }
  n += emlat_put_uvarint (p + n, ix->vmask);
  for (uint32_t m = ix->vmask & ((1u << EMLAT_V_FIELD_COUNT) - 1); m; m &= m - 1)
    n += emlat_put_uvarint (p + n, ix->v[__builtin_ctz (m)]);
  n += emlat_put_uvarint (p + n, ix->cmask);
  for (uint32_t m = ix->cmask & ((1u << EMLAT_C_COUNTER_COUNT) - 1); m; m &= m - 1)
    n += emlat_put_uvarint (p + n, ix->c[__builtin_ctz (m)]);
  emlat_cb_commit (cb, n, represents, first);
  return 0;
}

/* ---- SPAN (6.6) ---- */

int
emlat_enc_span (struct emlat_cb *cb, const struct emlat_enc_span *s, uint64_t represents)
{
  uint32_t nc = s->ncounters > EMLAT_C_COUNTER_COUNT ? EMLAT_C_COUNTER_COUNT : s->ncounters;
  uint8_t *p = emlat_cb_room (cb, (10 + 2 * nc) * EMLAT_VARINT_MAX);
  if (!p)
    return -1;
  unsigned head = s->rec;
  if (s->has_cpu)
    head |= EMLAT_SPAN_HEAD_CPU;
  int detail = s->rec != EMLAT_SPAN_REC_BEGIN && s->detail != 0;
  int counters = s->rec != EMLAT_SPAN_REC_BEGIN && nc != 0;
  if (detail)
    head |= EMLAT_SPAN_HEAD_DETAIL;
  if (counters)
    head |= EMLAT_SPAN_HEAD_COUNTERS;
  if (s->rec != EMLAT_SPAN_REC_BEGIN)
    head |= s->status << EMLAT_SPAN_HEAD_STATUS_SHIFT;
  size_t n = emlat_put_uvarint (p, head);
  uint64_t t_rec;
  if (s->rec == EMLAT_SPAN_REC_END)
    {
      n += emlat_put_svarint (p + n, (int64_t)(s->id - cb->prev_span));
      cb->prev_span = s->id;
      n += emlat_put_svarint (p + n, (int64_t)(s->t_end - cb->prev_t));
      cb->prev_t = t_rec = s->t_end;
      if (s->has_cpu)
        n += emlat_put_uvarint (p + n, s->cpu_b);
    }
  else
    {
      n += emlat_put_uvarint (p + n, s->kind);
      n += emlat_put_svarint (p + n, (int64_t)(s->id - cb->prev_span));
      cb->prev_span = s->id;
      n += emlat_put_svarint (p + n, s->parent ? (int64_t)(s->id - s->parent) : 0);
      n += emlat_put_svarint (p + n, (int64_t)(s->cause - cb->prev_cause));
      cb->prev_cause = s->cause;
      n += emlat_put_svarint (p + n, (int64_t)(s->t_start - cb->prev_t));
      cb->prev_t = t_rec = s->t_start;
      if (s->rec == EMLAT_SPAN_REC_COMPLETE)
        {
          n += emlat_put_uvarint (p + n, s->t_end - s->t_start);
          if (s->has_cpu)
            n += emlat_put_uvarint (p + n, s->cpu_b - s->cpu_a);
        }
      else if (s->has_cpu)
        n += emlat_put_uvarint (p + n, s->cpu_a);
    }
  if (detail)
    n += emlat_put_uvarint (p + n, s->detail);
  if (counters)
    {
      n += emlat_put_uvarint (p + n, nc);
      for (uint32_t i = 0; i < nc; i++)
        {
          n += emlat_put_uvarint (p + n, s->counters[i].counter);
          n += emlat_put_uvarint (p + n, s->counters[i].value);
        }
    }
  emlat_cb_commit (cb, n, represents, t_rec);
  return 0;
}

/* ---- LOSS (6.7) ---- */

int
emlat_enc_loss (struct emlat_cb *cb, uint64_t stream, unsigned reason, uint64_t first,
                uint64_t last, uint64_t records, uint64_t bytes)
{
  uint8_t *p = emlat_cb_room (cb, 6 * EMLAT_VARINT_MAX);
  if (!p)
    return -1;
  if (last < first)
    last = first;
  size_t n = emlat_put_uvarint (p, stream);
  n += emlat_put_uvarint (p + n, reason);
  n += emlat_put_svarint (p + n, (int64_t)(first - cb->prev_t));
  cb->prev_t = first;
  n += emlat_put_uvarint (p + n, last - first);
  n += emlat_put_uvarint (p + n, records);
  n += emlat_put_uvarint (p + n, bytes);
  emlat_cb_commit (cb, n, 0, first);
  return 0;
}
