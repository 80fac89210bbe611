/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_highwater_wake.c -- a producer that passes its ring's high-water mark
 * gets its ring drained, with no flush and no writer period (docs/DESIGN.md:
 * the writer sleeps until a ring passes its high-water mark, a quarter of
 * the ring; emlat_ring_room rings the doorbell at every look past it).
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
 *   - a producer that rang and finds the fill still past the mark at its
 *     next look rings again (once it did so only at a newer tail);
 *   - a producer that rang looks at the tail again a mark's worth later,
 *     not only at the end of the ring: the writer drained and slept while
 *     the producer went on, and a producer that waited for the end of the
 *     ring left the second round's records unwritten (with a mark of a
 *     quarter it would stall here; a flat-out producer lost records with
 *     three quarters of its ring free).
 * Every round must be drained, and nothing dropped.
 *
 * The writer's side of the rule (emlat_ring_due, ring.h) is checked
 * against the producer's for every ring size, record size and fill: a
 * producer rings while reserving the record that takes the fill past the
 * mark, before publishing it, so the writer must find the ring due at the
 * fill the producer saw.  It once allowed for records of 2 slots; an
 * emlat_ix_commit record takes up to EMLAT_RR_MAX_SLOTS, and a writer that
 * looked before such a record was published would go back to sleep while
 * the producer, having rung once for that tail, ran its ring full.  The
 * race itself cannot be forced here; the last part runs the crossing by
 * a large commit record 50 times in fresh sessions and requires each one
 * drained without a flush.
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

/* Every (ring size, record size, published fill) at which a producer
   rings (emlat_ring_room: the fill with the record passes the mark) must
   be due for the writer; an empty ring must not be (the writer would
   spin), nor one far below the mark. */
static void
check_due_rule (void)
{
  uint64_t misses = 0, cases = 0;
  for (uint64_t nslots = 16; nslots <= 65536; nslots *= 2)
    {
      uint64_t mark = emlat_ring_mark (nslots);
      uint64_t maxn = nslots / 2 < EMLAT_RR_MAX_SLOTS ? nslots / 2 : EMLAT_RR_MAX_SLOTS;
      for (uint64_t n = 1; n <= maxn; n++)
        for (uint64_t p = 1; p + n <= nslots; p++)
          if (p + n > mark)
            {
              cases++;
              if (!emlat_ring_due (nslots, 1000 + p, 1000))
                {
                  if (misses++ < 5)
                    TEST_DIAG ("not due: %llu slots, record of %llu at fill %llu",
                               (unsigned long long)nslots, (unsigned long long)n,
                               (unsigned long long)p);
                }
            }
      CHECK (!emlat_ring_due (nslots, 77, 77), "an empty ring of %llu slots is not due",
             (unsigned long long)nslots);
      if (mark > EMLAT_RR_MAX_SLOTS + 1)
        CHECK (!emlat_ring_due (nslots, 1, 0), "one record in %llu slots is not due",
               (unsigned long long)nslots);
    }
  CHECK (cases > 0, "cases checked");
  CHECK_EQ_U64 (misses, 0);
}

/* A fresh session whose ring fills to 4 slots below its mark with
   one-slot records and an interaction begin, then crosses it with one
   commit record of many slots; the writer must drain it without a flush. */
static int
commit_crossing_drained (const char *path)
{
  struct emlat_options o = { .path = path, .ring_slots = 1024 };
  if (emlat_start (&o) != 0)
    return -1;
  uint64_t mark = emlat_ring_mark (1024);
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0); /* 2 slots */
  for (uint64_t i = 2; i < mark - 4; i += 2)
    emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, c), EMLAT_SPAN_OK, 0);
  struct emlat_ix_fields f;
  emlat_ixf_clear (&f);
  uint64_t now = emlat_now ();
  for (unsigned k = 0; k < EMLAT_T_INTERACTION_END; k++)
    emlat_ixf_time (&f, (enum emlat_time_field)k, now);
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    emlat_ixf_count (&f, (enum emlat_counter)k, k);
  emlat_ix_commit (c, &f, (enum emlat_ix_status)0); /* 24 + 29 words: 15 slots */
  uint64_t t0 = tu_now_ns ();
  while (written () == 0 && tu_now_ns () - t0 < 2000000000ull)
    {
      struct timespec ts = { 0, 1000000 };
      nanosleep (&ts, 0);
    }
  int drained = written () > 0;
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  emlat_stop ();
  unlink (path);
  return drained;
}

int
main (void)
{
  check_due_rule ();
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

  int undrained = 0;
  for (int round = 0; round < 50; round++)
    {
      int d = commit_crossing_drained (path);
      CHECK (d >= 0, "session %d started", round);
      if (d == 0)
        undrained++;
    }
  CHECK_EQ_I64 (undrained, 0);
  free (path);
  TEST_DONE ();
}
