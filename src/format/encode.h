/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * encode.h -- building complete chunks in memory (FORMAT.md sections 4 and
 * 6), for the writer thread only.
 *
 * A pass of the writer appends chunks to one growable arena.  A chunk is
 * built as: 80 bytes of head room, the encoded records, then at finish the
 * block header is placed right before the records and the 40-byte chunk
 * header right before it, and zero padding is appended; the chunk is then one
 * contiguous byte range of the arena (emlat_chunk_ref), ready for writev.
 * The chunk sequence and the header CRC are filled in only when the chunk is
 * about to be written (emlat_chunk_seal), because rotation may insert chunks.
 *
 * Invariants: a finished chunk's payload is at most the builder's limit plus
 * one record (records are never split); every record encoder bounds its own
 * size (EMLAT_REC_MAX) and asks for room first, so encoding never writes past
 * the arena; an allocation failure makes the arena "failed" and the pass is
 * then accounted as loss (writer_memory).
 */
#ifndef EMLAT_ENCODE_H
#define EMLAT_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/leb128.h"
#include "emlat/emlat_types.h"
#include "format/format.h"

/* Fields of a RESOURCE record (format.h EMLAT_RES_FIELDS). */
#define EMLAT_RES_FIELDS_MAX 6

/* Largest encoded record: an interaction with every field present. */
#define EMLAT_REC_MAX 1024

struct emlat_arena
{
  uint8_t *buf;
  size_t len, cap;
  int failed;
};

struct emlat_chunk_ref
{
  size_t off, len;      /* bytes in the arena */
  uint16_t type;
  uint64_t records;     /* ring records this chunk represents (loss accounting) */
  uint64_t first_t, last_t;
};

struct emlat_chunk_list
{
  struct emlat_chunk_ref *v;
  size_t n, cap;
};

struct emlat_cb
{
  struct emlat_arena *a;
  uint16_t type;
  uint64_t base_t, thread;
  uint64_t count;     /* records in the block */
  size_t rec_start;   /* arena offset of the first record byte */
  uint64_t prev_t, prev_span, prev_cause; /* F-51 running values */
  uint64_t represents;
  uint64_t first_t, last_t;
  int open;
  uint16_t version;   /* type version written: 1, or what
                         emlat_cb_set_version chose before any record */
};

void emlat_arena_reset (struct emlat_arena *a);
void emlat_arena_free (struct emlat_arena *a);
void emlat_chunk_list_reset (struct emlat_chunk_list *l);
void emlat_chunk_list_free (struct emlat_chunk_list *l);

/* Start a chunk of TYPE whose block has BASE_T and THREAD (F-50..F-52). */
void emlat_cb_begin (struct emlat_cb *cb, struct emlat_arena *a, uint16_t type,
                     uint64_t base_t, uint64_t thread);
/* Make room for NEED more bytes in A (out of line); 0, or -1 when the
   arena failed. */
int emlat_arena_reserve (struct emlat_arena *a, size_t need);

/* Write the chunk as type version VERSION (INTERACTION 2, FORMAT.md 6.5);
   before the first record only. */
void emlat_cb_set_version (struct emlat_cb *cb, uint16_t version);
/* Room for one record of at most MAX bytes; NULL if the arena failed. */
static inline uint8_t *
emlat_cb_room (struct emlat_cb *cb, size_t max)
{
  struct emlat_arena *a = cb->a;
  if (__builtin_expect (a->len + max > a->cap || a->failed, 0) && emlat_arena_reserve (a, max) != 0)
    return 0;
  return a->buf + a->len;
}

/* Account a record of N bytes written at the room pointer, representing
   REPRESENTS ring records with time T (0 = none). */
static inline void
emlat_cb_commit (struct emlat_cb *cb, size_t n, uint64_t represents, uint64_t t)
{
  cb->a->len += n;
  cb->count++;
  cb->represents += represents;
  if (t)
    {
      if (!cb->first_t || t < cb->first_t)
        cb->first_t = t;
      if (t > cb->last_t)
        cb->last_t = t;
    }
}

static inline size_t
emlat_cb_payload_bytes (const struct emlat_cb *cb)
{
  return cb->a->len - cb->rec_start;
}
/* Finish the chunk and append its reference to OUT.  An empty chunk (no
   records) is dropped unless KEEP_EMPTY.  Returns 0, or -1 on allocation
   failure. */
int emlat_cb_finish (struct emlat_cb *cb, struct emlat_chunk_list *out, int keep_empty);

/* Fill in the sequence number and header CRC of a finished chunk. */
void emlat_chunk_seal (uint8_t *chunk, uint64_t sequence);

/* Build the 64-byte file header. */
void emlat_file_header (uint8_t out[64], const uint8_t uuid[16], uint64_t rotation,
                        uint64_t realtime_ns, uint64_t mono_ns);

/* Record encoders: each writes into cb (asking for room) and commits. */
int emlat_enc_kv_uint (struct emlat_cb *cb, const char *key, uint64_t v);
int emlat_enc_kv_sint (struct emlat_cb *cb, const char *key, int64_t v);
int emlat_enc_kv_str (struct emlat_cb *cb, const char *key, const char *s, size_t len);
int emlat_enc_string (struct emlat_cb *cb, uint64_t id, const char *s, size_t len);

struct emlat_enc_input
{
  uint64_t thread, batch;
  unsigned mask, quality;
  uint64_t t[4]; /* known-empty, first-ready, read-begin, read-end */
  uint64_t bytes;
};
int emlat_enc_input (struct emlat_cb *cb, const struct emlat_enc_input *in);

struct emlat_enc_ix
{
  uint64_t thread, cause;
  unsigned kind, status;
  uint64_t parent, sched, t_dispatch; /* begin records */
  uint32_t tmask, vmask, cmask;
  uint64_t t[EMLAT_T_FIELD_COUNT];
  uint8_t q[EMLAT_T_FIELD_COUNT]; /* 0 = default quality */
  uint64_t v[EMLAT_V_FIELD_COUNT];
  uint64_t c[EMLAT_C_COUNTER_COUNT];
  uint64_t name; /* string id naming it (version 2 chunks only), 0 = none */
};
/* Whether IX's record needs an INTERACTION chunk of type version 2
   (FORMAT.md F-66a, F-66b): root kind application, or, for a complete
   record (COMPLETE nonzero), a time field of bits 28..31 (the write
   bounds).  Every other record goes in a version 1 chunk. */
static inline int
emlat_enc_ix_needs_v2 (const struct emlat_enc_ix *ix, int complete)
{
  return ix->kind == EMLAT_ROOT_APPLICATION
         || (complete && (ix->tmask & ~EMLAT_T_FIELD_MASK_V1 & EMLAT_T_FIELD_MASK));
}
int emlat_enc_ix_begin (struct emlat_cb *cb, const struct emlat_enc_ix *ix, uint64_t represents);
int emlat_enc_ix_complete (struct emlat_cb *cb, const struct emlat_enc_ix *ix, uint64_t represents);

struct emlat_counter_pair
{
  uint32_t counter;
  uint64_t value;
};

struct emlat_enc_span
{
  unsigned rec;    /* EMLAT_SPAN_REC_* */
  unsigned kind, status;
  int has_cpu;
  uint64_t id, parent, cause;
  uint64_t t_start, t_end;
  uint64_t cpu_a, cpu_b; /* complete: begin/end; begin: cpu_a; end: cpu_b */
  uint64_t detail;
  const struct emlat_counter_pair *counters;
  uint32_t ncounters;
};
int emlat_enc_span (struct emlat_cb *cb, const struct emlat_enc_span *s, uint64_t represents);

/* The record emlat_enc_span writes for a complete span without CPU
   readings or counters (the writer's common case), inline: the same
   bytes, checked by tests/record/test_writer_bytes.c.  The _at form writes
   at P, which the caller knows has room for EMLAT_SPAN_COMPLETE_MAX bytes
   (emlat_cb_room would return it), and commits. */
#define EMLAT_SPAN_COMPLETE_MAX (8 * EMLAT_VARINT_MAX)
static inline __attribute__ ((always_inline)) void
emlat_enc_span_complete_at (struct emlat_cb *cb, uint8_t *p, unsigned kind, unsigned status,
                            uint64_t id, uint64_t parent, uint64_t cause, uint64_t t_start,
                            uint64_t t_end, uint64_t detail, uint64_t represents)
{
  size_t n = emlat_put_uvarint (p, EMLAT_SPAN_REC_COMPLETE | status << EMLAT_SPAN_HEAD_STATUS_SHIFT
                                     | (detail ? EMLAT_SPAN_HEAD_DETAIL : 0));
  n += emlat_put_uvarint (p + n, kind);
  n += emlat_put_svarint (p + n, (int64_t)(id - cb->prev_span));
  cb->prev_span = id;
  n += emlat_put_svarint (p + n, parent ? (int64_t)(id - parent) : 0);
  n += emlat_put_svarint (p + n, (int64_t)(cause - cb->prev_cause));
  cb->prev_cause = cause;
  n += emlat_put_svarint (p + n, (int64_t)(t_start - cb->prev_t));
  cb->prev_t = t_start;
  n += emlat_put_uvarint (p + n, t_end - t_start);
  if (detail)
    n += emlat_put_uvarint (p + n, detail);
  emlat_cb_commit (cb, n, represents, t_start);
}

static inline int
emlat_enc_span_complete (struct emlat_cb *cb, unsigned kind, unsigned status, uint64_t id,
                         uint64_t parent, uint64_t cause, uint64_t t_start, uint64_t t_end,
                         uint64_t detail, uint64_t represents)
{
  uint8_t *p = emlat_cb_room (cb, EMLAT_SPAN_COMPLETE_MAX);
  if (!p)
    return -1;
  emlat_enc_span_complete_at (cb, p, kind, status, id, parent, cause, t_start, t_end, detail,
                              represents);
  return 0;
}

int emlat_enc_loss (struct emlat_cb *cb, uint64_t stream, unsigned reason, uint64_t first,
                    uint64_t last, uint64_t records, uint64_t bytes);

/* One EVENT record (6.9) of a block whose thread is the event's; the
   value is IV for EMLAT_EV_COUNTER, the bits of FV for EMLAT_EV_COUNTER_F
   (encode_event.c). */
struct emlat_enc_event
{
  unsigned tag;
  uint64_t name, t, id;
  int64_t iv;
  double fv;
};
int emlat_enc_event (struct emlat_cb *cb, const struct emlat_enc_event *e, uint64_t represents);

/* One RESOURCE record (6.10): time T, fields V[i] for each bit i of MASK
   (EMLAT_RES_*), in bit order. */
struct emlat_enc_sample
{
  uint64_t t;
  uint32_t mask;
  uint64_t v[EMLAT_RES_FIELDS_MAX];
};
int emlat_enc_sample (struct emlat_cb *cb, const struct emlat_enc_sample *s);

#endif /* EMLAT_ENCODE_H */
