/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_span_counts.c -- emlat_span_counts attaches the same counters as one
 * emlat_span_count per counter (emlat.h), in one ring record.
 *
 * 1. Two sessions record the same spans, each with a deterministic set of
 *    counters (1, 2, 5, 7, 9, 28 and all 29 of them; the first set twice
 *    for some): one call per counter, and emlat_span_counts.  Rings of
 *    65536 slots and of 64 (a record of up to 8 slots wraps around it;
 *    past the ring's limit the call looks at the tail again, as any
 *    record does).  Every span's counters read back equal, and equal to
 *    what was set; stats.records_written counts ring records (one
 *    SPAN_COUNTS is one record, a counter set twice two).
 * 2. What the call ignores: a zero mask, bits at or above
 *    EMLAT_C_COUNTER_COUNT, no values, span 0; the record of the counters
 *    of a span already ended is counted lost (record_invalid): one
 *    record, as one emlat_span_count's is.
 * 3. Malformed SPAN_COUNTS records stored straight into the ring (a count
 *    that is not the mask's, a mask beyond the counters, a slot count that
 *    does not match, span id 0) are each one record_invalid LOSS; the
 *    records around them are intact.
 * 4. A ring of 16 slots run full: the records that do not fit go one
 *    counter at a time; every loss is accounted.
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

#define N_SPANS 600

/* The counters of span K: a mask and the values, ascending. */
static uint32_t
mask_of (unsigned k)
{
  static const uint32_t masks[] = {
    1u << 24,                                 /* one */
    (1u << 19) | (1u << 23),                  /* two */
    0x00f80000u,                              /* five redisplay counters */
    0x00fe0000u,                              /* seven: the redisplay's */
    0x1ff00000u,                              /* nine: two full slots */
    ((1u << EMLAT_C_COUNTER_COUNT) - 1u) & ~1u, /* 28 */
    (1u << EMLAT_C_COUNTER_COUNT) - 1u,       /* all 29: 8 slots */
    0x00000005u,
  };
  return masks[k % (sizeof masks / sizeof masks[0])];
}

static uint64_t
value_of (unsigned k, unsigned c)
{
  return (uint64_t)k * 1000003u + c * 7919u + ((uint64_t)c << (k % 40));
}

static unsigned
values_of (unsigned k, uint64_t *v)
{
  unsigned n = 0;
  for (uint32_t b = mask_of (k); b; b &= b - 1)
    v[n++] = value_of (k, (unsigned)__builtin_ctz (b));
  return n;
}

/* Record N_SPANS spans into PATH with ring size SLOTS, their counters one
   per call (BATCH 0) or in one emlat_span_counts (BATCH 1). */
static void
record (const char *path, uint32_t slots, int batch)
{
  struct emlat_options o = { .path = path, .ring_slots = slots };
  CHECK_OK (emlat_start (&o));
  for (unsigned k = 0; k < N_SPANS; k++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0);
      uint64_t v[EMLAT_C_COUNTER_COUNT];
      unsigned n = values_of (k, v);
      if (k % 5 == 0)
        /* Set first to something else: the last value wins. */
        emlat_span_count (s, (enum emlat_counter)__builtin_ctz (mask_of (k)), 99);
      if (batch)
        emlat_span_counts (s, mask_of (k), v);
      else
        {
          unsigned i = 0;
          for (uint32_t b = mask_of (k); b; b &= b - 1)
            emlat_span_count (s, (enum emlat_counter)__builtin_ctz (b), v[i++]);
        }
      (void)n;
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      /* A small ring holds about one span: drain after each. */
      if (slots < 1024 || k % 50 == 49)
        CHECK_OK (emlat_flush ());
    }
  CHECK_OK (emlat_stop ());
}

/* Every span of P has the counters span K was given (spans in order). */
static void
check_counters (const struct emlat_profile *p, const char *what)
{
  size_t n;
  const uint64_t *pool;
  const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
  CHECK (n == N_SPANS, "%s: %zu spans, want %d", what, n, N_SPANS);
  size_t bad = 0;
  for (size_t k = 0; k < n && k < N_SPANS; k++)
    {
      if (sp[k].counter_mask != mask_of ((unsigned)k))
        {
          if (!bad)
            TEST_DIAG ("%s: span %zu: counters %#x, want %#x", what, k, sp[k].counter_mask,
                       mask_of ((unsigned)k));
          bad++;
          continue;
        }
      for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
        {
          uint64_t x = 0;
          if (emlat_span_counter (&sp[k], pool, c, &x) && x != value_of ((unsigned)k, c))
            {
              if (!bad)
                TEST_DIAG ("%s: span %zu counter %u: %llu, want %llu", what, k, c,
                           (unsigned long long)x,
                           (unsigned long long)value_of ((unsigned)k, c));
              bad++;
            }
        }
    }
  CHECK (bad == 0, "%s: %zu differences", what, bad);
}

/* Store a SPAN_COUNTS record of NS slots with head word fields N and
   B, span id ID, mask CMASK and values 1, 2, ... into this thread's ring,
   as the producer would. */
static void
put_raw (unsigned n, unsigned b, unsigned ns, uint64_t id, uint64_t cmask)
{
  const uint64_t words[] = { id, cmask };
  rawring_put (emlat_rr_head (EMLAT_RR_SPAN_COUNTS, n, b, ns), ns, words, 2);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();

  /* 1. Per counter and batched give the same spans. */
  static const uint32_t sizes[] = { 65536, 64 };
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      char *one = tu_strf ("%s/one-%u.emlat", dir, sizes[s]);
      char *bat = tu_strf ("%s/batch-%u.emlat", dir, sizes[s]);
      record (one, sizes[s], 0);
      record (bat, sizes[s], 1);
      struct emlat_profile *a = profile_of (one, EMLAT_LOAD_SPANS);
      struct emlat_profile *b = profile_of (bat, EMLAT_LOAD_SPANS);
      char what[64];
      if (a && b)
        {
          snprintf (what, sizeof what, "one per call, ring of %u", sizes[s]);
          check_counters (a, what);
          snprintf (what, sizeof what, "emlat_span_counts, ring of %u", sizes[s]);
          check_counters (b, what);
          CHECK_EQ_U64 (profile_stat_u (a, "stats.records_dropped"), 0);
          CHECK_EQ_U64 (profile_stat_u (b, "stats.records_dropped"), 0);
          /* Ring records written: a begin, an end, one per counter or one
             SPAN_COUNTS, and the value set before for every fifth span
             (a counter set twice is two records). */
          uint64_t want_a = 0, want_b = 0;
          for (unsigned k = 0; k < N_SPANS; k++)
            {
              want_a += 2 + (unsigned)__builtin_popcount (mask_of (k)) + (k % 5 == 0);
              want_b += 2 + 1 + (k % 5 == 0);
            }
          CHECK_EQ_U64 (profile_stat_u (a, "stats.records_written"), want_a);
          CHECK_EQ_U64 (profile_stat_u (b, "stats.records_written"), want_b);
          uint64_t sa = profile_stat_u (a, "stats.records_accepted");
          uint64_t sb = profile_stat_u (b, "stats.records_accepted");
          TEST_DIAG ("ring of %u: ring slots %llu one per call, %llu batched", sizes[s],
                     (unsigned long long)sa, (unsigned long long)sb);
        }
      emlat_profile_free (a);
      emlat_profile_free (b);
      free (one);
      free (bat);
    }

  /* 2. What it ignores, and counters of an ended span. */
  char *ign = tu_strf ("%s/ignored.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = ign }));
  uint64_t v[EMLAT_C_COUNTER_COUNT] = { 5, 6, 7 };
  emlat_span_counts (0, 7, v);                  /* no span */
  uint64_t s1 = emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0);
  emlat_span_counts (s1, 0, v);                 /* no counter */
  emlat_span_counts (s1, 0xe0000000u, v);       /* only bits past the counters */
  emlat_span_counts (s1, 7, 0);                 /* no values */
  emlat_span_counts (s1, 0xe0000000u | 0x6u, v); /* counters 1 and 2 = 5, 6 */
  emlat_span_end (s1, EMLAT_SPAN_OK, 0);
  emlat_span_counts (s1, 0x7u, v);              /* ended: the record lost */
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = profile_of (ign, EMLAT_LOAD_SPANS);
  if (p)
    {
      size_t n;
      const uint64_t *pool;
      const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
      CHECK_EQ_U64 (n, 1);
      if (n == 1)
        {
          uint64_t x = 0, y = 0;
          CHECK_EQ_U64 (sp[0].counter_mask, 0x6u);
          CHECK (emlat_span_counter (&sp[0], pool, 1, &x) && x == 5, "counter 1 = 5");
          CHECK (emlat_span_counter (&sp[0], pool, 2, &y) && y == 6, "counter 2 = 6");
        }
      emlat_profile_free (p);
    }
  struct tally t = { 0 };
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (ign, &t, 0, &res), 0);
  CHECK_EQ_U64 (t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID], 1);
  CHECK_EQ_U64 (t.loss_records, t.stats_records_dropped);
  tally_free (&t);
  free (ign);

  /* 3. Malformed records: each one record_invalid LOSS; the span around
     them keeps its good counters. */
  char *bad = tu_strf ("%s/malformed.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = bad }));
  uint64_t s2 = emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0);
  uint64_t id = s2 >> 1;
  put_raw (2, 0, 2, id, 0x7u);      /* 3 counters, head says 2 */
  put_raw (3, 0, 2, id, 0x7u | (1u << EMLAT_C_COUNTER_COUNT)); /* past the counters */
  put_raw (3, 0, 1, id, 0x7u);      /* 3 values need 2 slots */
  put_raw (3, 0, 2, 0, 0x7u);       /* span id 0 */
  put_raw (3, 2, 2, id, 0x7u);      /* a flag that is not defined */
  put_raw (0, 0, 1, id, 0);         /* no counter */
  put_raw (3, 0, 2, id, 0x7u);      /* good: counters 0, 1, 2 = 4, 5, 6 */
  emlat_span_end (s2, EMLAT_SPAN_OK, 0);
  CHECK_OK (emlat_stop ());
  p = profile_of (bad, EMLAT_LOAD_SPANS);
  if (p)
    {
      size_t n;
      const uint64_t *pool;
      const struct emlat_span *sp = emlat_profile_spans (p, &n, &pool);
      CHECK_EQ_U64 (n, 1);
      if (n == 1)
        {
          CHECK_EQ_U64 (sp[0].counter_mask, 0x7u);
          for (unsigned c = 0; c < 3; c++)
            {
              uint64_t x = 0;
              CHECK (emlat_span_counter (&sp[0], pool, c, &x) && x == 4 + c,
                     "malformed: counter %u = %llu, want %u", c, (unsigned long long)x, 4 + c);
            }
        }
      emlat_profile_free (p);
    }
  memset (&t, 0, sizeof t);
  CHECK_EQ_I64 (tally_file (bad, &t, 0, &res), 0);
  CHECK_EQ_U64 (t.loss_records_by_reason[EMLAT_LOSS_RECORD_INVALID], 6);
  CHECK_EQ_U64 (t.span_complete, 1);
  tally_free (&t);
  free (bad);

  /* 4. A ring of 16 slots run full (no flush between spans): the records
     that do not fit go one counter at a time, each dropped counted; every
     loss is accounted (F-70). */
  char *full = tu_strf ("%s/full.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = full, .ring_slots = 16 }));
  for (unsigned k = 0; k < 200; k++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0);
      uint64_t vv[EMLAT_C_COUNTER_COUNT];
      values_of (6, vv);
      emlat_span_counts (s, mask_of (6), vv);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  CHECK_OK (emlat_stop ());
  memset (&t, 0, sizeof t);
  CHECK_EQ_I64 (tally_file (full, &t, 0, &res), 0);
  TEST_DIAG ("full ring: %llu records dropped, %llu spans", (unsigned long long)t.stats_records_dropped,
             (unsigned long long)t.span_complete);
  CHECK_EQ_U64 (t.loss_records, t.stats_records_dropped);
  CHECK_EQ_U64 (t.stats_final, 1);
  tally_free (&t);
  free (full);
  TEST_DONE ();
}
