/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_status_live.c -- emlat_status is current (emlat.h): the slots
 * accepted and the records dropped are the producers' own counters summed
 * by the call, so they are right at any moment, before the writer has
 * drained anything, and they count on across a ring's successive owners.
 *
 *  - one thread records N one-slot records into a 16-slot ring while
 *    the writer thread is held stopped (ptrace from a child process, so
 *    that no pass can drain during the burst, however slow the build):
 *    right after, accepted + dropped == N exactly, and dropped > 0,
 *    without a flush;
 *  - threads that exit hand their rings to later threads (max_threads
 *    2): the sums still add up to every record made;
 *  - after emlat_flush the dropped count equals the sum of the LOSS
 *    records in the file (F-70), and after emlat_stop the last status
 *    still does, with the session's path and totals; a second session's
 *    stop replaces it, path included.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "hold.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

enum { N = 1000 };

static void *
burst (void *arg)
{
  (void)arg;
  for (int i = 0; i < N / 2; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  return NULL;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  char *path = tu_strf ("%s/live.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = 16, .max_threads = 2 };
  CHECK_OK (emlat_start (&o));
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_U64 (st.session_records, 0);
  CHECK_EQ_U64 (st.records_dropped, 0);

  /* The writer cannot drain during the burst: held stopped. */
  struct tu_held held_thread;
  int held = tu_hold_writer (&held_thread, "whether drops are counted live is not checked here");
  burst (NULL);
  emlat_status (&st);
  tu_release_thread (&held_thread);
  TEST_DIAG ("after %d records on this thread: accepted %llu, dropped %llu", N,
             (unsigned long long)st.session_records, (unsigned long long)st.records_dropped);
  CHECK_EQ_U64 (st.session_records + st.records_dropped, N);
  if (held)
    CHECK (st.records_dropped > 0, "a 16-slot ring, its writer held, dropped some of %d records",
           N);

  /* Three more threads, one after the other: the second and third claim
     the ring the first one left (two rings in all). */
  for (int t = 0; t < 3; t++)
    {
      pthread_t th;
      CHECK_OK (pthread_create (&th, NULL, burst, NULL));
      pthread_join (th, NULL);
      emlat_status (&st);
      CHECK (st.session_records + st.records_dropped == (uint64_t)N * (t + 2),
             "after thread %d: accepted %llu + dropped %llu == %d", t,
             (unsigned long long)st.session_records, (unsigned long long)st.records_dropped,
             N * (t + 2));
    }

  CHECK_OK (emlat_flush ());
  emlat_status (&st);
  uint64_t live_dropped = st.records_dropped;
  struct emlat_status before_stop;
  emlat_status (&before_stop);
  CHECK_OK (emlat_stop ());
  struct emlat_status last;
  emlat_status (&last);
  CHECK_EQ_U64 (last.active, 0);
  /* After the stop: the session's path and totals (the path is kept
     apart from the counters, session.c). */
  CHECK (strcmp (last.path, path) == 0, "the last status names the profile (%s)", last.path);
  CHECK_EQ_U64 (last.ring_slots, before_stop.ring_slots);
  CHECK_EQ_U64 (last.files, 1);
  CHECK (last.records_written >= before_stop.records_written && last.bytes_written > 0,
         "the last status keeps the totals (%llu records, %llu bytes)",
         (unsigned long long)last.records_written, (unsigned long long)last.bytes_written);
  struct tally t;
  struct emlat_scan_result res;
  CHECK_OK (tally_file (path, &t, 100000, &res));
  CHECK_EQ_U64 (t.loss_records, last.records_dropped);
  CHECK (live_dropped == t.loss_records, "the live count after the flush (%llu) is the file's (%llu)",
         (unsigned long long)live_dropped, (unsigned long long)t.loss_records);
  CHECK_EQ_U64 (t.stats_records_accepted, (uint64_t)4 * N - t.loss_records);
  tally_free (&t);

  /* A second session's stop replaces the last status, its path too. */
  char *second = tu_strf ("%s/second.emlat", dir);
  struct emlat_options o2 = { .path = second };
  CHECK_OK (emlat_start (&o2));
  CHECK_OK (emlat_stop ());
  emlat_status (&last);
  CHECK_EQ_U64 (last.active, 0);
  CHECK (strcmp (last.path, second) == 0, "the second stop's status names its profile (%s)",
         last.path);
  CHECK_EQ_U64 (last.session_records, 0);
  free (second);
  free (path);
  TEST_DONE ();
}
