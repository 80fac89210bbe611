/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_open_span_counters.c -- counters of a span that never ends are
 * accounted (FORMAT.md F-70: every record is encoded or counted lost).
 *
 * A span's counters travel in its end (or complete) record; a begin record
 * carries none (FORMAT.md 6.6).  A span whose begin was written by one
 * pass and whose end never comes -- its end was dropped, its thread
 * exited, or the session stopped -- leaves its counters with nothing to
 * carry them: they must be counted as lost (record_invalid), not vanish.
 * bench/bench_burst found 9-11 such records missing from the totals of
 * 16 threads losing most of their records to full rings.
 *
 * Method: a span with two counters, a flush (its begin record is written),
 * then (1) the session stops with it open, and (2) its thread exits with
 * it open.  In each profile: records written + records lost = records
 * made, with the two counters in a LOSS record.
 */
#include <pthread.h>
#include <stdio.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

/* Begin a span, flush (its begin record is written), count twice. */
static void
open_span_with_counters (void)
{
  uint64_t s = emlat_span_begin (EMLAT_SPAN_TTY_WRITE, 0);
  emlat_flush ();
  emlat_span_count (s, EMLAT_C_TTY_BYTES, 100);
  emlat_span_count (s, EMLAT_C_WRITE_CALLS, 2);
  /* ... and never end it. */
}

static void *
worker (void *arg)
{
  (void)arg;
  open_span_with_counters ();
  return 0;
}

static void
check_profile (const char *path, const char *what)
{
  struct tally t;
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  TEST_DIAG ("%s: written %llu, dropped %llu, LOSS records %llu", what,
             (unsigned long long)t.stats_records_written,
             (unsigned long long)t.stats_records_dropped, (unsigned long long)t.loss_records);
  /* Made: the span begin and two counters. */
  CHECK_EQ_U64 (t.stats_records_written + t.stats_records_dropped, 3);
  CHECK_EQ_U64 (t.loss_records, t.stats_records_dropped);
  CHECK_EQ_U64 (t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID], 2);
  CHECK_EQ_U64 (t.span_begin, 1);
  tally_free (&t);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/open.emlat", dir);

  /* 1. The session stops while the span is open. */
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path }), 0);
  open_span_with_counters ();
  CHECK_EQ_I64 (emlat_stop (), 0);
  check_profile (path, "stop");

  /* 2. The thread exits while the span is open. */
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path, .flags = EMLAT_OPT_OVERWRITE }),
                0);
  pthread_t th;
  CHECK_EQ_I64 (pthread_create (&th, 0, worker, 0), 0);
  pthread_join (th, 0);
  emlat_flush ();
  CHECK_EQ_I64 (emlat_stop (), 0);
  check_profile (path, "thread exit");
  free (path);
  TEST_DONE ();
}
