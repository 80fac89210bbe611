/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_span_switch.c -- emlat_span_switch (emlat.h) ends one span and
 * begins the next at one instant: the profile holds what
 * emlat_span_end_timed then emlat_span_begin_timed would record, with the
 * end of the one and the start of the other both equal to the time handed
 * back.
 *
 * 1. Chains of three phases inside an outer span, over a ring of 64 slots
 *    that wraps many times (so that the two slots of a switch straddle the
 *    ring's end): every phase's start is the time handed back when it
 *    began, its end the time handed back by the switch that ended it; its
 *    kind, cause, status and detail are the ones given; its parent is the
 *    outer span, not the phase it followed.  A chain may begin with a CPU
 *    span (it keeps its CPU reading) or from no span at all (SPAN 0: only
 *    the begin).
 * 2. Without a session: handle 0, and the time is the clock's.
 * 3. A ring of 16 slots run full (its writer held stopped meanwhile, so
 *    that it runs full in any build): the switches dropped in part or whole
 *    still hand back the clock's time, in order; every loss is accounted
 *    (LOSS records against STATS, records written plus dropped against
 *    records attempted).
 */
#include <stdio.h>
#include <stdlib.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "hold.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

#define N_CHAINS 200
#define MAX_ID (8 * N_CHAINS)

struct expect
{
  uint64_t start, end, cause, detail, parent;
  unsigned kind, status, cpu, seen;
};

static struct expect want[MAX_ID + 1];

/* Note what span HANDLE, begun at T, must look like. */
static void
expect_begin (uint64_t handle, uint64_t t, unsigned kind, uint64_t cause, uint64_t parent)
{
  uint64_t id = handle >> 1;
  if (id == 0 || id > MAX_ID)
    return;
  want[id].start = t;
  want[id].kind = kind;
  want[id].cause = cause;
  want[id].parent = parent;
  want[id].cpu = handle & 1;
}

static void
expect_end (uint64_t handle, uint64_t t, unsigned status, uint64_t detail)
{
  uint64_t id = handle >> 1;
  if (id == 0 || id > MAX_ID)
    return;
  want[id].end = t;
  want[id].status = status;
  want[id].detail = detail;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();

  /* 1. Chains of phases. */
  char *path = tu_strf ("%s/switch.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = path, .ring_slots = 64 }));
  unsigned handles_bad = 0, spans_expected = 0;
  for (unsigned k = 0; k < N_CHAINS; k++)
    {
      uint64_t cause = 1000 + k, t;
      uint64_t outer = emlat_span_begin_timed (EMLAT_SPAN_COMMAND_LOOP, cause, &t);
      expect_begin (outer, t, EMLAT_SPAN_COMMAND_LOOP, cause, 0);
      /* The first phase: a plain span, a CPU span, or none. */
      uint64_t s = 0;
      if (k % 3 == 0)
        {
          s = emlat_span_begin_timed (EMLAT_SPAN_PRE_COMMAND, cause, &t);
          expect_begin (s, t, EMLAT_SPAN_PRE_COMMAND, cause, outer >> 1);
        }
      else if (k % 3 == 1)
        {
          s = emlat_span_begin_cpu (EMLAT_SPAN_PRE_COMMAND, cause);
          expect_begin (s, 0, EMLAT_SPAN_PRE_COMMAND, cause, outer >> 1);
        }
      const unsigned kinds[] = { EMLAT_SPAN_COMMAND, EMLAT_SPAN_POST_COMMAND };
      for (unsigned j = 0; j < 2; j++)
        {
          unsigned status = j == 1 && k % 5 == 0 ? EMLAT_SPAN_ERROR : EMLAT_SPAN_OK;
          uint64_t detail = k * 4 + j;
          uint64_t next = emlat_span_switch (s, status, detail, kinds[j], cause, &t);
          handles_bad += next == 0 || (next & 1);
          expect_end (s, t, status, detail);
          expect_begin (next, t, kinds[j], cause, outer >> 1);
          s = next;
        }
      t = emlat_span_end_timed (s, EMLAT_SPAN_OK, 7);
      expect_end (s, t, EMLAT_SPAN_OK, 7);
      t = emlat_span_end_timed (outer, EMLAT_SPAN_OK, 0);
      expect_end (outer, t, EMLAT_SPAN_OK, 0);
      spans_expected += k % 3 == 2 ? 3 : 4;
      if (k % 7 == 0)
        CHECK_OK (emlat_flush ());
    }
  CHECK_OK (emlat_stop ());
  CHECK (handles_bad == 0, "every switch returns a plain span handle (%u do not)", handles_bad);
  const char *paths[] = { path };
  struct emlat_profile *p = 0;
  CHECK_OK (emlat_profile_load (paths, 1, 0, EMLAT_LOAD_SPANS, &p));
  if (p)
    {
      size_t n;
      const uint64_t *pool;
      const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
      CHECK_EQ_U64 (n, spans_expected);
      size_t bad = 0, cpu_spans = 0, cpu_seen = 0;
      for (size_t i = 0; i < n; i++)
        {
          uint64_t id = sp[i].id;
          if (id == 0 || id > MAX_ID || want[id].seen || !(sp[i].flags & EMLAT_SPAN_HAS_END))
            {
              bad++;
              continue;
            }
          const struct expect *w = &want[id];
          want[id].seen = 1;
          int wrong = sp[i].end != w->end || sp[i].kind != w->kind || sp[i].cause != w->cause
                      || sp[i].status != w->status || sp[i].detail != w->detail
                      || sp[i].parent != w->parent;
          if (w->cpu)
            {
              cpu_spans++;
              cpu_seen += (sp[i].flags & EMLAT_SPAN_HAS_CPU) != 0;
            }
          else
            wrong |= sp[i].start != w->start;
          if (wrong && !bad)
            TEST_DIAG ("span %llu: start %llu end %llu kind %u cause %llu status %u detail %llu "
                       "parent %llu; expected %llu %llu %u %llu %u %llu %llu",
                       (unsigned long long)id, (unsigned long long)sp[i].start,
                       (unsigned long long)sp[i].end, sp[i].kind,
                       (unsigned long long)sp[i].cause, sp[i].status,
                       (unsigned long long)sp[i].detail, (unsigned long long)sp[i].parent,
                       (unsigned long long)w->start, (unsigned long long)w->end, w->kind,
                       (unsigned long long)w->cause, w->status, (unsigned long long)w->detail,
                       (unsigned long long)w->parent);
          bad += wrong;
        }
      CHECK (bad == 0, "every span's times, kind, cause, status, detail and parent are the "
                       "ones given and handed back (%zu differ)", bad);
      CHECK (cpu_spans == (N_CHAINS + 1) / 3 && cpu_seen == cpu_spans,
             "the CPU spans ended by a switch keep their CPU readings (%zu of %zu)", cpu_seen,
             cpu_spans);
      CHECK_EQ_U64 (profile_stat_u (p, "stats.records_dropped"), 0);
      emlat_profile_free (p);
    }
  free (path);

  /* 2. No session. */
  uint64_t a = emlat_now (), t = 0;
  uint64_t s = emlat_span_switch (0, EMLAT_SPAN_OK, 0, EMLAT_SPAN_COMMAND, 0, &t);
  uint64_t b = emlat_now ();
  CHECK_EQ_U64 (s, 0);
  CHECK (a <= t && t <= b, "no session: %llu <= %llu <= %llu", (unsigned long long)a,
         (unsigned long long)t, (unsigned long long)b);

  /* 3. A full ring. */
  char *full = tu_strf ("%s/full.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = full, .ring_slots = 16 }));
  /* The writer held stopped, so that the ring runs full in any build. */
  struct tu_held held_thread;
  int held = tu_hold_writer (&held_thread, "the ring may not run full");
  uint64_t last = emlat_now (), disorder = 0, zero = 0;
  s = emlat_span_begin_timed (EMLAT_SPAN_COMMAND, 0, &t);
  for (unsigned k = 0; k < 5000; k++)
    {
      s = emlat_span_switch (s, EMLAT_SPAN_OK, 0, EMLAT_SPAN_COMMAND, 0, &t);
      zero += s == 0;
      disorder += t < last;
      last = t;
    }
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
  tu_release_thread (&held_thread);
  CHECK_OK (emlat_stop ());
  CHECK_EQ_U64 (disorder, 0);
  CHECK_EQ_U64 (zero, 0);
  struct tally ta = { 0 };
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (full, &ta, 0, &res), 0);
  TEST_DIAG ("full ring: %llu records dropped, %llu written",
             (unsigned long long)ta.stats_records_dropped,
             (unsigned long long)ta.stats_records_written);
  if (held)
    CHECK (ta.stats_records_dropped > 0, "the ring of 16 slots, its writer held, ran full");
  CHECK_EQ_U64 (ta.loss_records, ta.stats_records_dropped);
  CHECK_EQ_U64 (ta.stats_records_written + ta.stats_records_dropped, 2 * 5000 + 2);
  CHECK_EQ_U64 (ta.stats_final, 1);
  tally_free (&ta);
  free (full);
  TEST_DONE ();
}
