/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_overflow.c -- forced ring overflow: every record a producer could not
 * place in its full ring is counted, and the LOSS records of the file add up
 * to exactly the producer's drop count (DESIGN.md section 8.4, FORMAT.md F-70).
 *
 * Method: a 64-slot ring and a burst of 5000 span pairs: the writer wakes
 * at every high-water crossing (32 slots), but a pass takes far longer than
 * the burst needs to fill the ring again, so most of the burst overflows
 * (how much depends on scheduling; before the high-water wake-up was fixed
 * the writer slept after its first pass and all but 64 were dropped).  The
 * drop counter is
 * read from the ring itself (internal header), independently of the writer.
 * Every record produced is then either in the file or in a LOSS record:
 * complete spans carry 2 records, begin/end records 1.  A second burst,
 * of 100 begins, runs with the writer held stopped (tests/lib/hold.h), so
 * that exactly 100 - 64 are dropped whatever the scheduling.
 */
#include <stdio.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "hold.h"
#include "record/state.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/overflow.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = 64, .drain_interval_us = 2000000 };
  CHECK_EQ_I64 (emlat_start (&o), 0);

  enum { PAIRS = 5000 };
  for (int i = 0; i < PAIRS; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_WAIT, 0);
      CHECK (s != 0, "span handle is nonzero even when the ring is full");
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  /* The producer's own count, before the writer reports anything. */
  struct emlat_ring *r = emlat_thread_line.ring;
  uint64_t dropped = atomic_load (&r->drop_records);
  uint64_t dropped_bytes = atomic_load (&r->drop_bytes);
  TEST_DIAG ("produced %d records, ring dropped %llu", 2 * PAIRS, (unsigned long long)dropped);
  CHECK_GT_U64 (dropped, 0); /* the burst really overflowed */
  CHECK_EQ_U64 (dropped_bytes, dropped * 32);

  struct emlat_status st;
  CHECK_EQ_I64 (emlat_stop (), 0);
  emlat_status (&st);
  CHECK_EQ_U64 (st.records_dropped, dropped);

  struct tally t;
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  CHECK_EQ_U64 (res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (t.loss_records, dropped);
  CHECK_EQ_U64 (t.loss_records_by_reason[EMLAT_LOSS_RING_FULL], dropped);
  uint64_t in_file = 2 * t.span_complete + t.span_begin + t.span_end;
  CHECK_EQ_U64 (in_file + dropped, (uint64_t)(2 * PAIRS));
  CHECK_EQ_U64 (t.stats_final, 1);
  CHECK_EQ_U64 (t.stats_records_dropped, dropped);
  CHECK_EQ_U64 (t.stats_records_written + t.stats_records_dropped, t.stats_records_accepted + dropped);
  tally_free (&t);

  /* A second burst in a new session: drops are per session, and a drop of
     an end whose begin was kept shows as an incomplete span, not silence. */
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path, .flags = EMLAT_OPT_OVERWRITE,
                                                       .ring_slots = 64,
                                                       .drain_interval_us = 2000000 }),
                0);
  struct tu_held held_thread;
  int held = tu_hold_writer (&held_thread, "the exact count of the second burst's drops is not "
                                           "checked");
  for (int i = 0; i < 100; i++)
    emlat_span_begin (EMLAT_SPAN_WAIT, 0);
  tu_release_thread (&held_thread);
  CHECK_EQ_I64 (emlat_stop (), 0);
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  CHECK_EQ_U64 (t.span_begin + t.loss_records, 100);
  if (held)
    CHECK_EQ_U64 (t.loss_records, 100 - 64);
  tally_free (&t);
  free (path);
  TEST_DONE ();
}
