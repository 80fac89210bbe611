/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_ring_records.c -- the writer trusts no ring record's head word
 * (docs/DESIGN.md section 18): records stored straight into the ring, as a
 * broken or hostile producer could, become exact record_invalid LOSS
 * records, and the good records around them are kept.
 *
 * The head's slot count bounds each type (ringrec.h): at most
 * EMLAT_RR_MAX_SLOTS for IX_FIELDS, EMLAT_RR_SPAN_COUNTS_MAX_SLOTS for
 * SPAN_COUNTS, 2 for every other type, defined or not.  A record within
 * its bound is one lost record of its own slots, and draining goes on
 * after it; a record whose count is 0 or beyond its bound has no length
 * to skip, so the rest of the pass's snapshot of that ring goes with it
 * (counted as one record, with all of those bytes).
 *
 * Session 1, one pass (no flush between the records): a good span, then
 *   - a record of type 200 (undefined) of 2 slots and one of type 0 of 1,
 *   - an IX_TIME for a cause nobody began,
 *   - an IX_BEGIN of 1 slot (it needs 2), an INPUT of 1 (it needs 2),
 *   - a good span:
 *   5 record_invalid records, both spans in the profile.
 * Session 2: a good span, a flush, then a record of 0 slots and a good
 *   span behind it: 1 record_invalid record of the 2 + 1 slots from the
 *   bad head to the snapshot's end, the first span kept and the second
 *   lost with it.
 * Session 3 as session 2, the bad head an undefined type of 3 slots, and
 * session 4 a SPAN_COUNTS of EMLAT_RR_SPAN_COUNTS_MAX_SLOTS + 1 slots:
 *   the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/ring.h"
#include "record/ringrec.h"
#include "record/state.h"
#include "rawring.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

/* Store a record of NS slots whose head has TYPE, fields A and B and
   slot count HEAD_NS into this thread's ring, as a producer would. */
static void
put_raw (unsigned type, unsigned a, unsigned b, unsigned head_ns, unsigned ns)
{
  rawring_put (emlat_rr_head (type, a, b, head_ns), ns, 0, 0);
}

static void
good_span (void)
{
  emlat_span_end (emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0), EMLAT_SPAN_OK, 0);
}

/* The profile at PATH: its complete spans and record_invalid LOSS
   records (with their bytes), and whether the LOSS records add up to
   stats.records_dropped. */
static void
check (const char *path, const char *what, uint64_t spans, uint64_t invalid,
       uint64_t invalid_bytes)
{
  struct tally t = { 0 };
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  CHECK (t.span_complete == spans, "%s: %llu spans, want %llu", what,
         (unsigned long long)t.span_complete, (unsigned long long)spans);
  CHECK (t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID] == invalid,
         "%s: %llu record_invalid, want %llu", what,
         (unsigned long long)t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID],
         (unsigned long long)invalid);
  CHECK (t.loss_bytes_by_reason[EMLAT_LOSS_RECORD_INVALID] == invalid_bytes,
         "%s: %llu bytes record_invalid, want %llu", what,
         (unsigned long long)t.loss_bytes_by_reason[EMLAT_LOSS_RECORD_INVALID],
         (unsigned long long)invalid_bytes);
  CHECK (t.loss_records == t.stats_records_dropped, "%s: LOSS %llu, STATS dropped %llu", what,
         (unsigned long long)t.loss_records, (unsigned long long)t.stats_records_dropped);
  tally_free (&t);
}

/* A session whose second pass meets a head with no length to skip: TYPE
   with slot count HEAD_NS (0, or beyond the type's bound), NS slots
   published, and a good span behind it. */
static void
unskippable (const char *dir, const char *name, unsigned type, unsigned head_ns, unsigned ns)
{
  char *path = tu_strf ("%s/%s.emlat", dir, name);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = path }));
  good_span ();
  CHECK_OK (emlat_flush ());
  put_raw (type, 0, 0, head_ns, ns);
  good_span (); /* 2 slots behind the bad head, in the same snapshot */
  CHECK_OK (emlat_stop ());
  check (path, name, 1, 1, (ns + 2) * EMLAT_SLOT_BYTES);
  free (path);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();

  char *one = tu_strf ("%s/skippable.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = one }));
  good_span ();
  put_raw (200, 0, 0, 2, 2);               /* undefined type, 2 slots */
  put_raw (0, 0, 0, 1, 1);                 /* type 0 */
  put_raw (EMLAT_RR_IX_TIME, 1, 0, 1, 1);  /* nobody began cause 2 */
  put_raw (EMLAT_RR_IX_BEGIN, 1, 0, 1, 1); /* a begin needs 2 slots */
  put_raw (EMLAT_RR_INPUT, 0, 0, 1, 1);    /* so does an input batch */
  good_span ();
  CHECK_OK (emlat_stop ());
  check (one, "skippable", 2, 5, 6 * EMLAT_SLOT_BYTES);
  free (one);

  unskippable (dir, "zero-slots", EMLAT_RR_SPAN_END, 0, 1);
  unskippable (dir, "undefined-3-slots", 200, 3, 3);
  unskippable (dir, "span-counts-too-long", EMLAT_RR_SPAN_COUNTS,
               EMLAT_RR_SPAN_COUNTS_MAX_SLOTS + 1, EMLAT_RR_SPAN_COUNTS_MAX_SLOTS + 1);
  return tap_done ();
}
