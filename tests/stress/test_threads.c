/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_threads.c -- the stress test of DESIGN.md section 12: 8 threads x
 * 200,000 begin/end span pairs each, the worker threads exit before the
 * final flush (so their rings are drained by the thread-exit path), and the
 * file must hold exactly 8 x 200,000 spans: no loss, no duplication, every
 * span id distinct, every span on the thread that made it.  Repeated in
 * several sessions in one run, since concurrency bugs are intermittent.
 *
 * Rings are sized so that a worker can never overflow even if the writer
 * gets no CPU at all (2 shared cores, 9 busy threads): this test is about
 * concurrency and the flush contract; overflow accounting is
 * tests/record/test_overflow.c.
 */
#include <pthread.h>
#include <stdio.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

enum { THREADS = 8, PAIRS = 200000, ROUNDS = 3 };

struct worker
{
  pthread_t th;
  uint64_t first_id, last_id;
  uint64_t nonzero;
};

static void *
work (void *arg)
{
  struct worker *w = arg;
  for (int i = 0; i < PAIRS; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
      if (s)
        w->nonzero++;
      if (i == 0)
        w->first_id = s >> 1;
      w->last_id = s >> 1;
      emlat_span_end (s, EMLAT_SPAN_OK, (uint64_t)i & 7);
    }
  return 0;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  for (int round = 0; round < ROUNDS; round++)
    {
      char *path = tu_strf ("%s/stress-%d.emlat", dir, round);
      struct emlat_options o = { .path = path, .ring_slots = 1u << 19, .max_threads = 16 };
      CHECK_EQ_I64 (emlat_start (&o), 0);
      struct worker w[THREADS] = { 0 };
      for (int i = 0; i < THREADS; i++)
        CHECK_EQ_I64 (pthread_create (&w[i].th, 0, work, &w[i]), 0);
      for (int i = 0; i < THREADS; i++)
        pthread_join (w[i].th, 0);
      /* All workers have exited: the flush must still find their records. */
      CHECK_EQ_I64 (emlat_flush (), 0);
      struct emlat_status st;
      emlat_status (&st);
      CHECK_EQ_U64 (st.records_dropped, 0);
      CHECK_EQ_U64 (st.records_written, (uint64_t)THREADS * PAIRS * 2);
      CHECK_EQ_U64 (st.threads, THREADS);
      CHECK_EQ_I64 (emlat_stop (), 0);
      for (int i = 0; i < THREADS; i++)
        CHECK_EQ_U64 (w[i].nonzero, PAIRS);

      struct tally t;
      struct emlat_scan_result res;
      CHECK_EQ_I64 (tally_file (path, &t, (uint64_t)THREADS * PAIRS * 2 + 100000, &res), 0);
      CHECK_EQ_U64 (res.stop, EMLAT_STOP_CLEAN);
      /* A span that straddles a writer pass is a begin record plus a later
         end record (FORMAT.md 6.6); every such end matches its begin. */
      CHECK_EQ_U64 (t.span_complete + t.span_begin, (uint64_t)THREADS * PAIRS);
      CHECK_EQ_U64 (t.span_begin, t.span_end);
      CHECK_EQ_U64 (t.end_unmatched, 0);
      CHECK_EQ_U64 (t.span_dup, 0);
      CHECK_EQ_U64 (t.loss_records, 0);
      CHECK_EQ_U64 (t.stats_final, 1);
      CHECK_EQ_U64 (res.chunks_by_type[5] >= THREADS, 1);
      TEST_DIAG ("round %d: %llu spans in %llu bytes (%.2f bytes/span), %llu SPAN chunks", round,
                 (unsigned long long)(t.span_complete + t.span_begin), (unsigned long long)res.file_bytes,
                 (double)res.file_bytes / (double)(t.span_complete + t.span_begin),
                 (unsigned long long)res.chunks_by_type[5]);
      tally_free (&t);
      free (path);
    }
  TEST_DONE ();
}
