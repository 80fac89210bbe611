/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_format_sample.c -- conformance of the writer to docs/FORMAT.md, checked
 * by an independent decoder written from the document alone.
 *
 * The decoder below does not use src/format or the reader library: it reads
 * the bytes as FORMAT.md sections 2-6 describe them (little-endian fixed
 * headers, CRC32C, LEB128, record blocks, running prev_t/prev_span/
 * prev_cause, presence masks) and checks every field of a sample recorded
 * with known values: SESSION keys, a STRING, an INPUT batch with every field,
 * a complete INTERACTION with times, a non-default quality, values (a zero
 * byte offset among them) and counters, an interaction open at stop, spans
 * complete (with CPU, detail and counters), unwound, straddling a pass
 * (begin + end records) and open at stop, a LOSS record and the final STATS.
 */
#include <stdio.h>
#include <string.h>

#include "emlat/emlat.h"
#include "tap.h"
#include "testutil.h"

/* ---- an independent decoder, from FORMAT.md ---- */

static uint32_t
crc32c_ref (const uint8_t *p, size_t n)
{
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++)
    {
      c ^= p[i];
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
  return ~c;
}

static uint64_t
le (const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

struct cur
{
  const uint8_t *p, *end;
  int bad;
};

static uint64_t
uv (struct cur *c)
{
  uint64_t v = 0;
  for (int s = 0; s < 70; s += 7)
    {
      if (c->p >= c->end)
        {
          c->bad = 1;
          return 0;
        }
      uint8_t b = *c->p++;
      v |= (uint64_t)(b & 0x7f) << s;
      if (!(b & 0x80))
        return v;
    }
  c->bad = 1;
  return 0;
}

static int64_t
sv (struct cur *c)
{
  uint64_t v = 0;
  int s = 0;
  for (; s < 70; s += 7)
    {
      if (c->p >= c->end)
        {
          c->bad = 1;
          return 0;
        }
      uint8_t b = *c->p++;
      v |= (uint64_t)(b & 0x7f) << s;
      if (!(b & 0x80))
        {
          s += 7;
          if (s < 64 && (b & 0x40))
            v |= ~(uint64_t)0 << s;
          return (int64_t)v;
        }
    }
  c->bad = 1;
  return 0;
}

/* What the sample is checked against. */
struct seen
{
  int session_ok, string_ok, input_ok, ix_ok, ix_open_ok, loss_ok, stats_final;
  int span_cpu_ok, span_unwound_ok, span_begin_open, span_begin_straddle, span_end_straddle;
  int chunks, bad_framing;
  char clock_id[64];
  uint64_t app_rows;
};

struct expect
{
  uint64_t cause, open_cause, batch, str_id;
  uint64_t t_cmd_begin, t_cmd_end, t_latest, t_empty, t_ready, t_rb, t_re;
  uint64_t span_cpu, span_inner, span_straddle, span_open;
};

static void
decode_kv (struct cur *c, uint64_t n, struct seen *w, int session)
{
  for (uint64_t r = 0; r < n && !c->bad; r++)
    {
      uint64_t kl = uv (c);
      if (kl < 1 || kl > 64 || (uint64_t)(c->end - c->p) < kl)
        {
          c->bad = 1;
          return;
        }
      char key[65];
      memcpy (key, c->p, kl);
      key[kl] = 0;
      c->p += kl;
      for (uint64_t i = 0; i < kl; i++)
        if (!((key[i] >= 'a' && key[i] <= 'z') || (key[i] >= '0' && key[i] <= '9') || key[i] == '_'
              || key[i] == '.'))
          c->bad = 1;
      uint64_t type = uv (c), u = 0;
      char s[1025] = "";
      if (type == 0)
        u = uv (c);
      else if (type == 1)
        (void)sv (c);
      else if (type == 2)
        {
          uint64_t l = uv (c);
          if (l > 1024 || (uint64_t)(c->end - c->p) < l)
            {
              c->bad = 1;
              return;
            }
          memcpy (s, c->p, l);
          s[l] = 0;
          c->p += l;
        }
      else
        c->bad = 1;
      if (session && !strcmp (key, "clock.id"))
        snprintf (w->clock_id, sizeof w->clock_id, "%s", s);
      if (session && !strcmp (key, "app.rows"))
        w->app_rows = u;
      if (!session && !strcmp (key, "stats.final"))
        w->stats_final = (int)u;
    }
}

static void
decode_file (const uint8_t *d, size_t n, const struct expect *e, struct seen *w)
{
  /* Section 3: the file header. */
  CHECK (n >= 64 && memcmp (d, "EMLAT\0\r\n", 8) == 0, "magic");
  CHECK_EQ_U64 (le (d + 8, 2), 1);
  CHECK_EQ_U64 (le (d + 10, 2), 1); /* format 1.1 */
  CHECK_EQ_U64 (le (d + 12, 4), 0);
  CHECK_EQ_U64 ((d[16 + 6] >> 4), 4); /* UUID version 4 */
  CHECK_EQ_U64 (le (d + 32, 8), 0);
  CHECK_EQ_U64 (le (d + 56, 4), crc32c_ref (d, 56));
  CHECK_EQ_U64 (le (d + 60, 4), 0);
  size_t off = 64;
  uint64_t expect_seq = 1;
  while (off < n)
    {
      /* Section 4.1. */
      const uint8_t *h = d + off;
      if (n - off < 40 || memcmp (h, "CHNK", 4) != 0)
        {
          w->bad_framing = 1;
          return;
        }
      uint64_t type = le (h + 4, 2), ver = le (h + 6, 2), flags = le (h + 8, 4);
      uint64_t hsz = le (h + 12, 4), stored = le (h + 16, 4), unc = le (h + 20, 4);
      uint64_t seq = le (h + 24, 8), pcrc = le (h + 32, 4), hcrc = le (h + 36, 4);
      uint8_t hz[40];
      memcpy (hz, h, 40);
      memset (hz + 36, 0, 4);
      CHECK_EQ_U64 (hcrc, crc32c_ref (hz, 40));
      CHECK_EQ_U64 (ver, 1);
      CHECK_EQ_U64 (flags, 0);
      CHECK_EQ_U64 (hsz, 40);
      CHECK_EQ_U64 (stored, unc);
      CHECK_EQ_U64 (seq, expect_seq);
      expect_seq++;
      if (w->chunks == 0)
        CHECK_EQ_U64 (type, 1); /* F-40 */
      w->chunks++;
      const uint8_t *pl = h + 40;
      CHECK_EQ_U64 (pcrc, crc32c_ref (pl, stored));
      size_t pad = (8 - stored % 8) % 8;
      for (size_t i = 0; i < pad; i++)
        CHECK_EQ_U64 (pl[stored + i], 0);
      /* Section 6.1. */
      struct cur c = { pl, pl + stored, 0 };
      uint64_t schema = uv (&c), base = uv (&c), thread = uv (&c), count = uv (&c);
      CHECK_EQ_U64 (schema, 1);
      uint64_t prev_t = base, prev_span = 0, prev_cause = 0;
      if (type == 1 || type == 7)
        {
          CHECK_EQ_U64 (base, 0);
          decode_kv (&c, count, w, type == 1);
          if (type == 1)
            w->session_ok = 1;
        }
      else if (type == 2)
        for (uint64_t r = 0; r < count; r++)
          {
            uint64_t id = uv (&c), l = uv (&c);
            if (id == e->str_id && l == 12 && memcmp (c.p, "sample-label", 12) == 0)
              w->string_ok = 1;
            c.p += l;
          }
      else if (type == 3)
        for (uint64_t r = 0; r < count; r++)
          {
            CHECK_EQ_U64 (uv (&c), 1);
            if (!thread)
              (void)uv (&c);
            uint64_t batch = uv (&c), mask = uv (&c), q = 0;
            if (mask & 2)
              q = uv (&c);
            uint64_t t[4] = { 0 }, first = 0;
            int have = 0;
            for (int i = 0; i < 4; i++)
              if (mask & (1u << i))
                {
                  if (!have)
                    {
                      first = prev_t + (uint64_t)sv (&c);
                      prev_t = first;
                      t[i] = first;
                      have = 1;
                    }
                  else
                    t[i] = first + (uint64_t)sv (&c);
                }
            uint64_t bytes = (mask & 16) ? uv (&c) : 0;
            if (batch == e->batch && mask == 31 && q == 1 && t[0] == e->t_empty
                && t[1] == e->t_ready && t[2] == e->t_rb && t[3] == e->t_re && bytes == 3)
              w->input_ok = 1;
          }
      else if (type == 4)
        for (uint64_t r = 0; r < count; r++)
          {
            uint64_t tag = uv (&c);
            if (!thread)
              (void)uv (&c);
            uint64_t cause = uv (&c), kind = uv (&c);
            if (tag == 2)
              {
                (void)uv (&c);
                (void)uv (&c);
                prev_t += (uint64_t)sv (&c);
                continue;
              }
            CHECK_EQ_U64 (tag, 1);
            uint64_t status = uv (&c), tmask = uv (&c), t[28] = { 0 }, first = 0;
            int have = 0;
            for (int i = 0; i < 28; i++)
              if (tmask & (1u << i))
                {
                  if (!have)
                    {
                      first = prev_t + (uint64_t)sv (&c);
                      prev_t = first;
                      t[i] = first;
                      have = 1;
                    }
                  else
                    t[i] = first + (uint64_t)sv (&c);
                }
            uint64_t nq = uv (&c), qf[28] = { 0 }, qv[28] = { 0 };
            for (uint64_t i = 0; i < nq && i < 28; i++)
              {
                qf[i] = uv (&c);
                qv[i] = uv (&c);
              }
            uint64_t vmask = uv (&c), v[15] = { 0 };
            for (int i = 0; i < 15; i++)
              if (vmask & (1u << i))
                v[i] = uv (&c);
            uint64_t cmask = uv (&c), cc[29] = { 0 };
            for (int i = 0; i < 29; i++)
              if (cmask & (1u << i))
                cc[i] = uv (&c);
            if (cause == e->cause)
              {
                uint64_t want_t = 1u << 1 | 1u << 8 | 1u << 12 | 1u << 13 | 1u << 24;
                uint64_t want_v = 1u << 7 | 1u << 8 | 1u << 9;
                w->ix_ok = kind == 1 && status == 3 && tmask == want_t && t[12] == e->t_cmd_begin
                           && t[13] == e->t_cmd_end && t[1] == e->t_latest && nq == 1 && qf[0] == 1
                           && qv[0] == 1 && vmask == want_v && v[7] == e->batch && v[8] == 0
                           && v[9] == 3 && cmask == (1u << 24 | 1u << 4) && cc[24] == 15
                           && cc[4] == 2;
              }
            if (cause == e->open_cause)
              w->ix_open_ok = kind == 3 && status == 7 && (vmask & 1) && v[0] == e->cause;
          }
      else if (type == 5)
        {
          CHECK (thread != 0, "SPAN blocks are per thread");
          for (uint64_t r = 0; r < count; r++)
            {
              uint64_t head = uv (&c), rec = head & 3, status = head >> 5;
              if (rec == 3)
                {
                  prev_span += (uint64_t)sv (&c);
                  prev_t += (uint64_t)sv (&c);
                  if (head & 4)
                    (void)uv (&c);
                  if (head & 8)
                    (void)uv (&c);
                  if (head & 16)
                    for (uint64_t k = uv (&c); k > 0; k--)
                      {
                        (void)uv (&c);
                        (void)uv (&c);
                      }
                  if (prev_span == e->span_straddle)
                    w->span_end_straddle = 1;
                  continue;
                }
              uint64_t kind = uv (&c);
              prev_span += (uint64_t)sv (&c);
              int64_t par = sv (&c);
              prev_cause += (uint64_t)sv (&c);
              prev_t += (uint64_t)sv (&c);
              uint64_t id = prev_span, parent = par ? id - (uint64_t)par : 0;
              uint64_t dur = 0, cpu = 0, detail = 0, nc = 0, cid[29], cval[29];
              if (rec == 1)
                {
                  dur = uv (&c);
                  if (head & 4)
                    cpu = uv (&c);
                }
              else if (head & 4)
                (void)uv (&c);
              if (head & 8)
                detail = uv (&c);
              if (head & 16)
                {
                  nc = uv (&c);
                  for (uint64_t k = 0; k < nc && k < 29; k++)
                    {
                      cid[k] = uv (&c);
                      cval[k] = uv (&c);
                    }
                }
              if (rec == 1 && id == e->span_cpu)
                w->span_cpu_ok = kind == 7 && prev_cause == e->cause && (head & 4) && cpu > 0
                                 && detail == e->str_id && nc == 1 && cid[0] == EMLAT_C_ROWS_REUSED && cval[0] == 80
                                 && dur > 0;
              if (rec == 1 && id == e->span_inner)
                w->span_unwound_ok = status == 4 && parent == e->span_cpu && kind == 9;
              if (rec == 2 && id == e->span_open)
                w->span_begin_open = 1;
              if (rec == 2 && id == e->span_straddle)
                w->span_begin_straddle = 1;
            }
        }
      else if (type == 9) /* 6.10 RESOURCE: time, mask, a value per bit */
        for (uint64_t r = 0; r < count; r++)
          {
            prev_t += (uint64_t)sv (&c);
            uint64_t mask = uv (&c);
            for (unsigned b = 0; b < 6; b++)
              if (mask & (1u << b))
                (void)uv (&c);
            if (mask >> 6)
              c.bad = 1;
          }
      else if (type == 6)
        for (uint64_t r = 0; r < count; r++)
          {
            uint64_t stream = uv (&c), reason = uv (&c);
            prev_t += (uint64_t)sv (&c);
            uint64_t span = uv (&c), recs = uv (&c), bytes = uv (&c);
            (void)span;
            if (stream != 0 && reason == 1 && recs > 0 && bytes == 32 * recs)
              w->loss_ok = 1;
          }
      CHECK (!c.bad && c.p == c.end, "chunk at %zu (type %llu) decodes exactly", off,
             (unsigned long long)type);
      off += 40 + stored + pad;
      (void)prev_cause;
    }
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/sample.emlat", dir);
  struct emlat_meta meta[] = { { .key = "app.rows", .type = EMLAT_META_UINT, .u = 24 } };
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path, .meta = meta, .n_meta = 1,
                                                       .drain_interval_us = 1000000 }),
                0);
  struct expect e = { 0 };
  e.str_id = emlat_string ("sample-label", 12);
  e.batch = emlat_input_batch_id ();
  uint64_t now = emlat_now ();
  e.t_empty = now - 5000;
  e.t_ready = now - 4000;
  e.t_rb = now - 3000;
  e.t_re = now - 2000;
  emlat_input_batch (&(struct emlat_input_batch){ .batch_id = e.batch, .mask = 0x1f,
                                                  .ready_quality = EMLAT_Q_OBSERVER_READY,
                                                  .t_known_empty = e.t_empty,
                                                  .t_first_ready = e.t_ready,
                                                  .t_read_begin = e.t_rb, .t_read_end = e.t_re,
                                                  .bytes = 3 });
  e.cause = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  e.t_latest = e.t_ready;
  emlat_ix_time_q (e.cause, EMLAT_T_INPUT_LATEST, e.t_latest, EMLAT_Q_OBSERVER_READY);
  emlat_ix_value (e.cause, EMLAT_V_DECISIVE_SOURCE_BATCH, e.batch);
  emlat_ix_value (e.cause, EMLAT_V_DECISIVE_SOURCE_BEGIN, 0);
  emlat_ix_value (e.cause, EMLAT_V_DECISIVE_SOURCE_END, 3);
  e.t_cmd_begin = emlat_ix_mark (e.cause, EMLAT_T_COMMAND_BEGIN);
  uint64_t sc = emlat_span_begin_cpu (EMLAT_SPAN_COMMAND, e.cause);
  e.span_cpu = sc >> 1;
  uint64_t si = emlat_span_begin (EMLAT_SPAN_GC, e.cause);
  e.span_inner = si >> 1;
  for (volatile int i = 0; i < 100000; i++)
    ;
  emlat_span_count (sc, EMLAT_C_ROWS_REUSED, 80);
  emlat_span_end (sc, EMLAT_SPAN_OK, e.str_id); /* ends si as unwound */
  e.t_cmd_end = emlat_now ();
  emlat_ix_time (e.cause, EMLAT_T_COMMAND_END, e.t_cmd_end);
  emlat_ix_add (e.cause, EMLAT_C_TTY_BYTES, 10);
  emlat_ix_add (e.cause, EMLAT_C_TTY_BYTES, 5);
  emlat_ix_count (e.cause, EMLAT_C_KEY_SEQUENCE_LENGTH, 2);
  emlat_ix_end (e.cause, EMLAT_STATUS_ERROR);
  e.open_cause = emlat_ix_begin (EMLAT_ROOT_TIMER, e.cause, 0);
  uint64_t st = emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0);
  e.span_straddle = st >> 1;
  CHECK_EQ_I64 (emlat_flush (), 0);
  emlat_span_end (st, EMLAT_SPAN_OK, 0);
  e.span_open = emlat_span_begin (EMLAT_SPAN_WAIT, 0) >> 1;
  CHECK_EQ_I64 (emlat_stop (), 0);

  /* A LOSS record: a second, overflowing session appended to the check. */
  char *path2 = tu_strf ("%s/sample-loss.emlat", dir);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path2, .ring_slots = 16,
                                                       .drain_interval_us = 1000000 }),
                0);
  /* Enough that the 16 slots overflow however fast the writer is woken
     (under ThreadSanitizer, 100 pairs were once all drained in time). */
  for (int i = 0; i < 20000; i++)
    emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
  CHECK_EQ_I64 (emlat_stop (), 0);

  uint8_t *buf;
  size_t len;
  struct seen w = { 0 };
  CHECK_EQ_I64 (tu_read_file (path, &buf, &len), 0);
  decode_file (buf, len, &e, &w);
  free (buf);
  CHECK (w.session_ok && w.app_rows == 24, "SESSION entries");
  CHECK (strncmp (w.clock_id, "CLOCK_MONOTONIC", 15) == 0, "clock.id '%s'", w.clock_id);
  CHECK (w.string_ok, "STRING record");
  CHECK (w.input_ok, "INPUT batch with every field");
  CHECK (w.ix_ok, "complete INTERACTION with times, quality, values, counters");
  CHECK (w.ix_open_ok, "interaction open at stop is complete with status open");
  CHECK (w.span_cpu_ok, "complete span with CPU, detail and counters");
  CHECK (w.span_unwound_ok, "unwound span with parent");
  CHECK (w.span_begin_straddle && w.span_end_straddle, "straddling span as begin + end records");
  CHECK (w.span_begin_open, "span open at stop as a begin record");
  CHECK (w.stats_final == 1, "final STATS");
  CHECK (!w.bad_framing, "framing");
  struct seen w2 = { 0 };
  CHECK_EQ_I64 (tu_read_file (path2, &buf, &len), 0);
  decode_file (buf, len, &e, &w2);
  free (buf);
  CHECK (w2.loss_ok, "LOSS record for the overflow");
  TEST_DIAG ("sample: %d chunks; loss sample: %d chunks", w.chunks, w2.chunks);
  free (path);
  free (path2);
  TEST_DONE ();
}
