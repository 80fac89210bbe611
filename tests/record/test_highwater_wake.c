/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_highwater_wake.c -- a ring filled past half always gets drained: the
 * high-water doorbell (docs/DESIGN.md section 14) is never lost, however the
 * writer's look at the ring interleaves with the producer's publishing.
 *
 * The writer has no period, so the doorbell is the only thing that wakes
 * it.  Two races once lost it for good, after which the ring filled and
 * every later record was dropped while the writer slept (found by
 * bench/bench_burst in the profiled Emacs flooded by a process):
 *  - the producer rings before it publishes the record that crossed the
 *    mark, so a writer that wakes at once sees the ring at exactly half and
 *    goes back to sleep;
 *  - a ring that comes while a pass is running is answered by that pass,
 *    whose snapshot predates the crossing; the producer, having rung for
 *    this fill, ran on to the end of the ring without ringing again.
 *
 * Method: a 256-slot ring.  Many times over: record (1- and 2-slot records
 * mixed) until the fill passes half, then a few records more (0..N/8, so
 * that the ring can never overflow), then stop and wait for the writer to
 * bring the fill back to half or below.  Each wait must end within 2 s (it
 * takes tens of microseconds); the fill is read from the ring itself.  No
 * record may be dropped.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "emlat/emlat.h"
#include "record/state.h"
#include "tap.h"
#include "testutil.h"

enum { SLOTS = 256, ROUNDS = 4000 };

/* The ring's fill: its own head, and the tail the writer release-stores
   (ring.h); sequentially consistent loads. */
static uint64_t
fill_of (struct emlat_ring *r)
{
  return atomic_load (&r->head) - atomic_load (&r->tail);
}

/* One record of 1 or 2 slots, chosen by I. */
static void
record_one (unsigned i)
{
  if (i % 5 == 0)
    emlat_ix_end (emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0), EMLAT_STATUS_NORMAL);
  else
    emlat_span_end (emlat_span_begin (EMLAT_SPAN_WAIT, 0), EMLAT_SPAN_OK, 0);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/hw.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = SLOTS };
  CHECK_EQ_I64 (emlat_start (&o), 0);
  record_one (1); /* claims the ring */
  struct emlat_ring *r = emlat_tls.ring;
  CHECK (r != 0, "the thread has a ring");
  if (!r)
    TEST_DONE ();

  uint64_t seed = 12345, stuck = 0, worst_ns = 0;
  unsigned i = 0;
  for (int round = 0; round < ROUNDS && !stuck; round++)
    {
      while (fill_of (r) <= SLOTS / 2)
        record_one (i++);
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      unsigned extra = (unsigned)(seed >> 33) % (SLOTS / 8 / 3);
      for (unsigned k = 0; k < extra; k++)
        record_one (i++);
      uint64_t t0 = emlat_now ();
      while (fill_of (r) > SLOTS / 2)
        {
          if (emlat_now () - t0 > 2000000000u)
            {
              stuck = 1;
              TEST_DIAG ("round %d: the writer sleeps with %llu of %d slots full", round,
                         (unsigned long long)fill_of (r), SLOTS);
              break;
            }
          nanosleep (&(struct timespec){ .tv_nsec = 20000 }, 0);
        }
      uint64_t dt = emlat_now () - t0;
      if (dt > worst_ns)
        worst_ns = dt;
    }
  CHECK (!stuck, "every fill past half is drained (no lost doorbell)");
  TEST_DIAG ("%u records; longest wait for the writer %.3f ms", i, (double)worst_ns / 1e6);
  CHECK_EQ_U64 (atomic_load (&r->drop_records), 0);
  CHECK_EQ_I64 (emlat_stop (), 0);
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_U64 (st.records_dropped, 0);
  free (path);
  TEST_DONE ();
}
