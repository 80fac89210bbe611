/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_highwater_wake.c -- a producer that passes its ring's high-water mark
 * gets its ring drained, with no flush and no writer period (docs/DESIGN.md:
 * the writer sleeps until a ring passes its high-water mark, a quarter of
 * the ring; emlat_ring_room rings the doorbell once per tail).
 *
 * The doorbell is rung while the record that crosses the mark is being
 * reserved, before it is published: a writer woken at once sees the ring
 * exactly at the mark.  It used to require more than the mark and went
 * back to sleep, and the producer, having rung for this fill, never rang
 * again: the ring filled and every later record was dropped (a flat-out
 * producer thread lost 99% of its records).  The writer now runs when a
 * ring is within one record of the mark.
 *
 * Method: a 1024-slot ring (mark 256); in each of 100 rounds the thread
 * publishes 257 one-slot records (span begins and ends, alternating),
 * enough to cross the mark once more, then waits, without flushing, until
 * the status says the ring is at most at the mark again (2 s at most; the
 * writer may have taken its snapshot a record or two before the end of
 * the round, when the ring was within a record of the mark: the rest
 * waits for the next crossing, safe in the ring file).  The rounds cross
 * the mark with the producer's limit in either of its states (the mark
 * beyond a tail it read after the last pass, or the mark beyond the head
 * where it rang), so the two later holes are reached too:
 *   - a producer that rang at one tail and finds the fill still past the
 *     mark at a newer tail rings again;
 *   - a producer that rang looks at the tail again a mark's worth later,
 *     not only at the end of the ring: the writer drained and slept while
 *     the producer went on, and a producer that waited for the end of the
 *     ring left the second round's records unwritten (with a mark of a
 *     quarter it would stall here; a flat-out producer lost records with
 *     three quarters of its ring free).
 * Every round must be drained, and nothing dropped.
 */
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "record/ring.h"
#include "tap.h"
#include "testutil.h"

static uint64_t
written (void)
{
  struct emlat_status st;
  emlat_status (&st);
  return st.records_written;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/hw.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = 1024 };
  CHECK_EQ_I64 (emlat_start (&o), 0);
  emlat_flush ();
  const uint64_t mark = emlat_ring_mark (1024);
  CHECK_EQ_U64 (mark, 256);
  uint64_t base = written (), published = 0, stalled = 0, open = 0;
  for (int round = 0; round < 100; round++)
    {
      for (uint64_t i = 0; i < mark + 1; i++)
        {
          if (open)
            {
              emlat_span_end (open, EMLAT_SPAN_OK, 0);
              open = 0;
            }
          else
            open = emlat_span_begin (EMLAT_SPAN_USER, 0);
        }
      published += mark + 1;
      uint64_t t0 = tu_now_ns ();
      while (written () - base + mark < published && tu_now_ns () - t0 < 2000000000ull)
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, 0);
        }
      if (written () - base + mark < published)
        {
          stalled++;
          TEST_DIAG ("round %d: %llu of %llu records written", round,
                     (unsigned long long)(written () - base), (unsigned long long)published);
          emlat_flush (); /* the next round starts from an empty ring */
        }
    }
  CHECK_EQ_U64 (stalled, 0);
  if (open)
    emlat_span_end (open, EMLAT_SPAN_OK, 0);
  CHECK_EQ_I64 (emlat_stop (), 0);
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_U64 (st.records_dropped, 0);
  unlink (path);
  free (path);
  TEST_DONE ();
}
