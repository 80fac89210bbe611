/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_churn.c -- threads that come and go find rings (DESIGN.md section
 * 14): an exiting thread's ring is drained and freed at once (its exit
 * rings the writer's doorbell), not at the writer's next pass; and while
 * fewer than a quarter of the rings are free, the exiting thread waits
 * for its ring to be freed, so that a writer scheduled late (a loaded
 * machine, a sanitizer) slows the churn instead of losing records.
 *
 *  1. 16 threads at a time, 20 rounds with no gap between rounds, each
 *     thread recording 2000 span pairs and an interaction, at the default
 *     sizes (128 rings), and again with 64 rings (a quarter of them, the
 *     level below which exits wait, is the 16 threads of a round: the
 *     exits wait from the third round on): nothing is lost, every span is
 *     in the profile -- in every build, sanitizers too.
 *  2. With 4 rings for 16 threads, every record a thread without a ring
 *     makes is counted as no_ring -- the begin, the end and the counter of
 *     a span, and the interaction's fields -- so that the LOSS records sum
 *     to exactly what was not written (F-70).
 * Rounds: EMLAT_CHURN_ROUNDS (default 20); part 1 is repeated
 * EMLAT_CHURN_LOOPS times (default 3), each a new session.
 */
#include <pthread.h>
#include <stdlib.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

#define THREADS 16
#define PAIRS 2000

static void *
worker (void *arg)
{
  (void)arg;
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_THREAD_WAKEUP, 0, 0);
  for (int i = 0; i < PAIRS; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, c);
      emlat_span_count (s, EMLAT_C_TTY_BYTES, (uint64_t)i);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  emlat_ix_mark (c, EMLAT_T_ROOT_WORK_END);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  return 0;
}

/* Records produced by one worker: per pair begin, count, end; the
   interaction's begin (one record of 2 slots), a time and an end. */
#define RECORDS_PER_WORKER (3u * PAIRS + 3u)

static void
churn (const char *path, uint32_t max_threads, int rounds, struct tally *t)
{
  struct emlat_options o = { .path = path, .max_threads = max_threads };
  CHECK_OK (emlat_start (&o));
  for (int r = 0; r < rounds; r++)
    {
      pthread_t th[THREADS];
      for (int k = 0; k < THREADS; k++)
        pthread_create (&th[k], 0, worker, 0);
      for (int k = 0; k < THREADS; k++)
        pthread_join (th[k], 0);
    }
  CHECK_OK (emlat_stop ());
  struct emlat_scan_result res;
  tally_file (path, t, 0, &res);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  const char *env = getenv ("EMLAT_CHURN_ROUNDS");
  int rounds = env ? atoi (env) : 20;
  uint64_t produced = (uint64_t)rounds * THREADS * RECORDS_PER_WORKER;

  const char *lenv = getenv ("EMLAT_CHURN_LOOPS");
  int loops = lenv ? atoi (lenv) : 3;
  static const uint32_t ring_counts[] = { 0, 64 }; /* 0: the default, 256 */
  for (int loop = 0; loop < loops; loop++)
    for (int rc = 0; rc < 2; rc++)
      {
        char *p1 = tu_strf ("%s/churn%d-%d.emlat", dir, loop, rc);
        struct tally t = { 0 };
        churn (p1, ring_counts[rc], rounds, &t);
        TEST_DIAG ("%s rings: %llu spans whole, %llu begun and ended apart, %llu records lost (%llu no_ring)",
                   rc ? "64" : "default", (unsigned long long)t.span_complete,
                   (unsigned long long)t.span_end, (unsigned long long)t.loss_records,
                   (unsigned long long)t.loss_records_by_reason[EMLAT_LOSS_NO_RING]);
        CHECK_EQ_U64 (t.loss_records, 0);
        /* A pair whose end arrived in a later pass than its begin is
           written as a begin and an end record (FORMAT.md 6.6): together
           they are every span. */
        CHECK_EQ_U64 (t.span_begin, t.span_end);
        CHECK_EQ_U64 (t.span_complete + t.span_end, (uint64_t)rounds * THREADS * PAIRS);
        CHECK_EQ_U64 (t.stats_records_written, produced);
        tally_free (&t);
        free (p1);
      }

  /* Too few rings: every record of a ringless thread is counted. */
  char *p2 = tu_strf ("%s/few.emlat", dir);
  struct tally u = { 0 };
  churn (p2, 4, rounds < 3 ? rounds : 3, &u);
  uint64_t produced2 = (uint64_t)(rounds < 3 ? rounds : 3) * THREADS * RECORDS_PER_WORKER;
  TEST_DIAG ("4 rings for %d threads: written %llu, dropped %llu (no_ring %llu), produced %llu",
             THREADS, (unsigned long long)u.stats_records_written,
             (unsigned long long)u.stats_records_dropped,
             (unsigned long long)u.loss_records_by_reason[EMLAT_LOSS_NO_RING],
             (unsigned long long)produced2);
  CHECK_EQ_U64 (u.loss_records, u.stats_records_dropped);
  CHECK_EQ_U64 (u.stats_records_written + u.stats_records_dropped, produced2);
  tally_free (&u);
  free (p2);
  TEST_DONE ();
}
