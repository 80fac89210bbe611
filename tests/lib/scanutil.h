/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scanutil.h -- header-only helpers for the recorder tests: scan an .emlat
 * file with the public reader scanner and tally what it holds (spans by
 * record kind, distinct span ids, LOSS totals by reason, interactions).
 * Also: a profile loaded through the public reader, one of its STATS
 * values, and the numbered spans it holds.  Used by tests/record, tests/stress and tests/faults (hence in
 * tests/lib).
 */
#ifndef EMLAT_TEST_SCANUTIL_H
#define EMLAT_TEST_SCANUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "tap.h"

struct tally
{
  uint64_t span_complete, span_begin, span_end, span_unwound;
  uint64_t span_dup;            /* a complete span id seen twice */
  uint64_t end_unmatched;       /* an end record whose begin was not seen */
  uint64_t ix_complete, ix_begin;
  uint64_t loss_records_by_reason[EMLAT_LOSS_REASON_MAX + 1];
  uint64_t loss_bytes_by_reason[EMLAT_LOSS_REASON_MAX + 1];
  uint64_t loss_records;
  uint64_t inputs, strings, kv;
  uint64_t events, samples;
  uint64_t stats_final;
  uint64_t stats_records_written, stats_records_dropped, stats_records_accepted;
  uint64_t stats_checkpoints_failed, stats_encodings_deferred;
  /* Bitmap of span ids seen in complete or begin records. */
  uint8_t *seen;
  uint64_t seen_bits;
};

static inline int
tally_rec (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  struct tally *t = ctx;
  (void)c;
  switch (r->kind)
    {
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
      if (r->kind == EMLAT_REC_SPAN_COMPLETE)
        t->span_complete++;
      else
        t->span_begin++;
      if (r->u.span.status == EMLAT_SPAN_UNWOUND)
        t->span_unwound++;
      if (t->seen && r->u.span.id < t->seen_bits)
        {
          uint64_t id = r->u.span.id;
          if (t->seen[id / 8] & (1u << (id % 8)))
            t->span_dup++;
          t->seen[id / 8] |= (uint8_t)(1u << (id % 8));
        }
      break;
    case EMLAT_REC_SPAN_END:
      t->span_end++;
      if (t->seen && r->u.span.id < t->seen_bits
          && !(t->seen[r->u.span.id / 8] & (1u << (r->u.span.id % 8))))
        t->end_unmatched++;
      break;
    case EMLAT_REC_IX_COMPLETE:
      t->ix_complete++;
      break;
    case EMLAT_REC_IX_BEGIN:
      t->ix_begin++;
      break;
    case EMLAT_REC_LOSS:
      t->loss_records += r->u.loss.records;
      if (r->u.loss.reason <= EMLAT_LOSS_REASON_MAX)
        {
          t->loss_records_by_reason[r->u.loss.reason] += r->u.loss.records;
          t->loss_bytes_by_reason[r->u.loss.reason] += r->u.loss.bytes;
        }
      break;
    case EMLAT_REC_INPUT:
      t->inputs++;
      break;
    case EMLAT_REC_EVENT:
      t->events++;
      break;
    case EMLAT_REC_SAMPLE:
      t->samples++;
      break;
    case EMLAT_REC_STRING:
      t->strings++;
      break;
    case EMLAT_REC_KV:
      t->kv++;
      if (r->chunk_type == 7)
        {
          const struct emlat_kv *kv = &r->u.kv;
#define KEYIS(s) (kv->key_len == strlen (s) && memcmp (kv->key, s, kv->key_len) == 0)
          if (KEYIS ("stats.final"))
            t->stats_final = kv->u;
          else if (KEYIS ("stats.records_written"))
            t->stats_records_written = kv->u;
          else if (KEYIS ("stats.records_dropped"))
            t->stats_records_dropped = kv->u;
          else if (KEYIS ("stats.records_accepted"))
            t->stats_records_accepted = kv->u;
          else if (KEYIS ("stats.checkpoints_failed"))
            t->stats_checkpoints_failed = kv->u;
          else if (KEYIS ("stats.encodings_deferred"))
            t->stats_encodings_deferred = kv->u;
#undef KEYIS
        }
      break;
    }
  return 0;
}

/* Scan PATH into *T (zeroed first; SEEN_BITS > 0 tracks span ids below it).
   Returns 0 and fills *RES, or -1 when the file cannot be read. */
static inline int
tally_file (const char *path, struct tally *t, uint64_t seen_bits, struct emlat_scan_result *res)
{
  memset (t, 0, sizeof *t);
  if (seen_bits)
    {
      t->seen = calloc (seen_bits / 8 + 1, 1);
      t->seen_bits = seen_bits;
    }
  uint8_t *buf;
  size_t len;
  if (emlat_read_file (path, 0, &buf, &len) != 0)
    return -1;
  struct emlat_scan_params p;
  memset (&p, 0, sizeof p);
  p.visitor.ctx = t;
  p.visitor.on_record = tally_rec;
  int rc = emlat_scan (buf, len, &p, res);
  free (buf);
  return rc;
}

static inline void
tally_free (struct tally *t)
{
  free (t->seen);
  t->seen = 0;
}

/* The profile of the one file PATH, loaded with FLAGS (EMLAT_LOAD_*) and
   the default limits; the load is a check.  NULL when it failed. */
static inline struct emlat_profile *
profile_of (const char *path, unsigned flags)
{
  const char *paths[] = { path };
  struct emlat_profile *p = 0;
  CHECK_OK (emlat_profile_load (paths, 1, 0, flags, &p));
  return p;
}

/* The unsigned STATS value KEY of P, or UINT64_MAX when P has none. */
static inline uint64_t
profile_stat_u (const struct emlat_profile *p, const char *key)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_stats (p, &n);
  const struct emlat_kv *e = emlat_kv_find (kv, n, key);
  return e ? e->u : UINT64_MAX;
}

/* Spans numbered by their detail (1, 2, ...: tests that number what they
   publish): which numbers a profile holds, with an end record. */
struct numbered
{
  uint8_t *have;   /* have[d]: span d seen (CAP entries, caller's) */
  uint64_t cap, dup, bad, max;
  uint64_t unended; /* begun, never ended (the process died inside it) */
};

static inline void
numbered_spans_of (const struct emlat_profile *p, struct numbered *sn)
{
  size_t n;
  const uint64_t *pool;
  const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
  for (size_t i = 0; i < n; i++)
    {
      uint64_t d = sp[i].detail;
      if (!(sp[i].flags & EMLAT_SPAN_HAS_END))
        {
          /* Its begin record was stored, its end never was: it has no
             number (detail). */
          sn->unended++;
          continue;
        }
      if (d == 0 || d >= sn->cap)
        {
          sn->bad++;
          continue;
        }
      if (sn->have[d])
        sn->dup++;
      sn->have[d] = 1;
      if (d > sn->max)
        sn->max = d;
    }
}

#endif /* EMLAT_TEST_SCANUTIL_H */
