/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_span_timed.c -- emlat_span_begin_timed and emlat_span_end_timed
 * (emlat.h) record what emlat_span_begin and emlat_span_end record, and
 * hand back the very times the records carry.
 *
 * 1. Spans begun and ended by the timed calls, flat and nested, with the
 *    CPU variant's end through the timed end, over a ring of 64 slots that
 *    wraps many times: every span's start and end in the profile equal
 *    the times handed back, to the nanosecond, and the CPU span keeps its
 *    CPU reading.
 * 2. Without a session: no span (handle 0), and the times are still the
 *    clock's, in order between two emlat_now () calls.
 * 3. A ring of 16 slots run full: the begins and ends that are dropped
 *    still hand back the clock's time, in order; every loss is accounted.
 */
#include <stdio.h>
#include <stdlib.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

#define N_SPANS 300

static uint64_t t_begin[2 * N_SPANS + 1], t_end[2 * N_SPANS + 1];
static unsigned char is_cpu[2 * N_SPANS + 1];

int
main (void)
{
  const char *dir = tu_tmpdir ();

  /* 1. Round trip of the times. */
  char *path = tu_strf ("%s/timed.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = path, .ring_slots = 64 }));
  for (unsigned k = 0; k < N_SPANS; k++)
    {
      uint64_t tb, ti;
      uint64_t s = emlat_span_begin_timed (EMLAT_SPAN_COMMAND, k + 1, &tb);
      uint64_t inner = k % 3 == 0 ? emlat_span_begin_timed (EMLAT_SPAN_GC, k + 1, &ti)
                       : k % 3 == 1 ? emlat_span_begin_cpu (EMLAT_SPAN_GC, k + 1)
                                    : 0;
      CHECK (s != 0 && (s >> 1) <= 2 * N_SPANS, "span %u: handle %llu", k,
             (unsigned long long)s);
      if (s == 0 || (s >> 1) > 2 * N_SPANS)
        break;
      t_begin[s >> 1] = tb;
      if (inner)
        {
          if (k % 3 == 0)
            t_begin[inner >> 1] = ti;
          else
            is_cpu[inner >> 1] = 1;
          t_end[inner >> 1] = emlat_span_end_timed (inner, EMLAT_SPAN_OK, 0);
        }
      t_end[s >> 1] = emlat_span_end_timed (s, EMLAT_SPAN_OK, k);
      CHECK_OK (emlat_flush ());
    }
  CHECK_OK (emlat_stop ());
  const char *paths[] = { path };
  struct emlat_profile *p = 0;
  CHECK_OK (emlat_profile_load (paths, 1, 0, EMLAT_LOAD_SPANS, &p));
  if (p)
    {
      size_t n;
      const uint64_t *pool;
      const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
      CHECK_EQ_U64 (n, N_SPANS + 2 * (N_SPANS / 3));
      size_t bad = 0, cpu_seen = 0, cpu_spans = 0;
      for (size_t i = 0; i < n; i++)
        {
          uint64_t id = sp[i].id;
          if (id > 2 * N_SPANS || !(sp[i].flags & EMLAT_SPAN_HAS_END))
            {
              bad++;
              continue;
            }
          int wrong = sp[i].end != t_end[id];
          if (is_cpu[id])
            {
              cpu_spans++;
              cpu_seen += (sp[i].flags & EMLAT_SPAN_HAS_CPU) != 0;
            }
          else
            wrong |= sp[i].start != t_begin[id];
          if (wrong && !bad)
            TEST_DIAG ("span %llu: start %llu end %llu, handed back %llu and %llu",
                       (unsigned long long)id, (unsigned long long)sp[i].start,
                       (unsigned long long)sp[i].end, (unsigned long long)t_begin[id],
                       (unsigned long long)t_end[id]);
          bad += wrong;
        }
      CHECK (bad == 0, "every span's times are the ones handed back (%zu differ)", bad);
      CHECK (cpu_spans == N_SPANS / 3 && cpu_seen == cpu_spans,
             "the CPU spans ended by the timed end keep their CPU readings (%zu of %zu)",
             cpu_seen, cpu_spans);
      emlat_profile_free (p);
    }
  free (path);

  /* 2. No session. */
  uint64_t a = emlat_now (), tb = 0;
  uint64_t s = emlat_span_begin_timed (EMLAT_SPAN_COMMAND, 0, &tb);
  uint64_t te = emlat_span_end_timed (s, EMLAT_SPAN_OK, 0);
  uint64_t b = emlat_now ();
  CHECK_EQ_U64 (s, 0);
  CHECK (a <= tb && tb <= te && te <= b, "no session: %llu <= %llu <= %llu <= %llu",
         (unsigned long long)a, (unsigned long long)tb, (unsigned long long)te,
         (unsigned long long)b);

  /* 3. A full ring. */
  char *full = tu_strf ("%s/full.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = full, .ring_slots = 16 }));
  uint64_t last = emlat_now (), disorder = 0;
  for (unsigned k = 0; k < 5000; k++)
    {
      uint64_t t;
      uint64_t h = emlat_span_begin_timed (EMLAT_SPAN_REDISPLAY, 0, &t);
      disorder += t < last;
      last = t;
      t = emlat_span_end_timed (h, EMLAT_SPAN_OK, 0);
      disorder += t < last;
      last = t;
    }
  CHECK_OK (emlat_stop ());
  CHECK_EQ_U64 (disorder, 0);
  struct tally t = { 0 };
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (full, &t, 0, &res), 0);
  TEST_DIAG ("full ring: %llu records dropped", (unsigned long long)t.stats_records_dropped);
  CHECK_EQ_U64 (t.loss_records, t.stats_records_dropped);
  CHECK_EQ_U64 (t.stats_final, 1);
  tally_free (&t);
  free (full);
  TEST_DONE ();
}
