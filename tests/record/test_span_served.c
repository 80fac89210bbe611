/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_span_served.c -- emlat_span_counts_served (emlat.h): the counters of
 * a span, also added to the counters of the interaction the span serves
 * while that interaction is open.
 *
 * 1. N_IX interactions, each served by two spans whose counters are given
 *    by emlat_span_counts_served (the second a CPU span, whose counters go
 *    one ring record per counter: the same flag on each), some with a
 *    counter of the interaction's own set before (the served counts add
 *    to it), and some with a counter set by the interaction after them
 *    (the set value wins).  Rings of 65536 and of 64 slots.  Every span
 *    keeps exactly its counters; every interaction's counters are its own
 *    plus the sum of its spans'.
 * 2. Counts served to an interaction that has ended, to no interaction
 *    (cause 0) and to a cause that never began: the span keeps them, the
 *    interactions are unchanged, and nothing is counted lost.
 */
#include <stdio.h>
#include <stdlib.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

#define N_IX 300

/* The counters of span J (0 or 1) of interaction K: masks that overlap,
   and values that differ. */
static uint32_t
span_mask (unsigned k, unsigned j)
{
  static const uint32_t masks[] = { 0x00fe0000u, 0x00f80000u, 0x1u, 0x1ff00000u, 0x00840001u };
  return masks[(k + 3 * j) % (sizeof masks / sizeof masks[0])];
}

static uint64_t
span_value (unsigned k, unsigned j, unsigned c)
{
  return (uint64_t)k * 1009u + j * 100003u + c * 31u + 1;
}

/* The interaction's own counter set before the spans (k % 4 == 1) and the
   one set after them (k % 4 == 2). */
#define OWN_BEFORE EMLAT_C_ROWS_GENERATED /* bit 21: in most span masks */
#define OWN_AFTER EMLAT_C_GLYPHS_EMITTED  /* bit 23 */

static void
served_span (unsigned k, unsigned j, uint64_t cause)
{
  uint64_t s = (j == 0 ? emlat_span_begin (EMLAT_SPAN_REDISPLAY, cause)
                       : emlat_span_begin_cpu (EMLAT_SPAN_REDISPLAY, cause));
  uint64_t v[EMLAT_C_COUNTER_COUNT];
  unsigned n = 0;
  for (uint32_t b = span_mask (k, j); b; b &= b - 1)
    v[n++] = span_value (k, j, (unsigned)__builtin_ctz (b));
  emlat_span_counts_served (s, span_mask (k, j), v);
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
}

static void
record (const char *path, uint32_t slots)
{
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = path, .ring_slots = slots }));
  for (unsigned k = 0; k < N_IX; k++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      if (k % 4 == 1)
        emlat_ix_count (c, OWN_BEFORE, 7000 + k);
      served_span (k, 0, c);
      served_span (k, 1, c);
      if (k % 4 == 2)
        emlat_ix_count (c, OWN_AFTER, 9000 + k);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
      if (slots < 1024 || k % 50 == 49)
        CHECK_OK (emlat_flush ());
    }
  CHECK_OK (emlat_stop ());
}

/* What interaction K's counter C must be; 0 with *HAS 0 when absent. */
static uint64_t
expected_ix (unsigned k, unsigned c, int *has)
{
  uint64_t x = 0;
  *has = 0;
  if (k % 4 == 1 && c == OWN_BEFORE)
    {
      x = 7000 + k;
      *has = 1;
    }
  for (unsigned j = 0; j < 2; j++)
    if (span_mask (k, j) & (1u << c))
      {
        x += span_value (k, j, c);
        *has = 1;
      }
  if (k % 4 == 2 && c == OWN_AFTER)
    {
      x = 9000 + k;
      *has = 1;
    }
  return x;
}

static void
check (const struct emlat_profile *p, const char *what)
{
  size_t nix, nsp;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &nix);
  const uint64_t *pool;
  const struct emlat_span *sp = emlat_profile_spans (p, &nsp, &pool);
  CHECK (nix == N_IX && nsp == 2 * N_IX, "%s: %zu interactions, %zu spans", what, nix, nsp);
  size_t bad = 0;
  for (size_t k = 0; k < nix && k < N_IX; k++)
    for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
      {
        int want_has;
        uint64_t want = expected_ix ((unsigned)k, c, &want_has), x = 0;
        int has = emlat_profile_ix_counter (p, &ix[k], c, &x);
        if (has != want_has || (has && x != want))
          {
            if (!bad)
              TEST_DIAG ("%s: interaction %zu counter %u: %d %llu, want %d %llu", what, k, c,
                         has, (unsigned long long)x, want_has, (unsigned long long)want);
            bad++;
          }
      }
  CHECK (bad == 0, "%s: interactions carry their own counters plus their spans' (%zu wrong)",
         what, bad);
  bad = 0;
  for (size_t i = 0; i < nsp && i < 2 * N_IX; i++)
    {
      unsigned k = (unsigned)(i / 2), j = (unsigned)(i % 2);
      if (sp[i].counter_mask != span_mask (k, j))
        {
          bad++;
          continue;
        }
      for (uint32_t b = span_mask (k, j); b; b &= b - 1)
        {
          unsigned c = (unsigned)__builtin_ctz (b);
          uint64_t x = 0;
          if (!emlat_span_counter (&sp[i], pool, c, &x) || x != span_value (k, j, c))
            bad++;
        }
    }
  CHECK (bad == 0, "%s: spans carry exactly their counters (%zu wrong)", what, bad);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  static const uint32_t sizes[] = { 65536, 64 };
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      char *path = tu_strf ("%s/served-%u.emlat", dir, sizes[s]);
      record (path, sizes[s]);
      struct emlat_profile *p = profile_of (path, EMLAT_LOAD_SPANS);
      if (p)
        {
          char what[64];
          snprintf (what, sizeof what, "ring of %u slots", sizes[s]);
          check (p, what);
          CHECK_EQ_U64 (profile_stat_u (p, "stats.records_dropped"), 0);
        }
      emlat_profile_free (p);
      free (path);
    }

  /* 2. Served to an ended interaction, to none, to an unknown cause. */
  char *late = tu_strf ("%s/late.emlat", dir);
  CHECK_OK (emlat_start (&(struct emlat_options){ .path = late }));
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  emlat_ix_count (c, EMLAT_C_FRAMES_UPDATED, 3);
  uint64_t s1 = emlat_span_begin (EMLAT_SPAN_REDISPLAY, c);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  uint64_t v[] = { 10, 20 };
  uint32_t m = 1u << EMLAT_C_FRAMES_UPDATED | 1u << EMLAT_C_ROWS_GENERATED;
  emlat_span_counts_served (s1, m, v);
  emlat_span_end (s1, EMLAT_SPAN_OK, 0);
  uint64_t s2 = emlat_span_begin (EMLAT_SPAN_REDISPLAY, 0);
  emlat_span_counts_served (s2, m, v);
  emlat_span_end (s2, EMLAT_SPAN_OK, 0);
  uint64_t s3 = emlat_span_begin (EMLAT_SPAN_REDISPLAY, c + 1000);
  emlat_span_counts_served (s3, m, v);
  emlat_span_end (s3, EMLAT_SPAN_OK, 0);
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = profile_of (late, EMLAT_LOAD_SPANS);
  if (p)
    {
      size_t nix, nsp;
      const struct emlat_interaction *ix = emlat_profile_interactions (p, &nix);
      const uint64_t *pool;
      const struct emlat_span *sp = emlat_profile_spans (p, &nsp, &pool);
      CHECK_EQ_U64 (nix, 1);
      CHECK_EQ_U64 (nsp, 3);
      if (nix == 1)
        {
          uint64_t x = 0;
          CHECK_EQ_U64 (ix[0].counter_mask, 1u << EMLAT_C_FRAMES_UPDATED);
          CHECK (emlat_profile_ix_counter (p, &ix[0], EMLAT_C_FRAMES_UPDATED, &x) && x == 3,
                 "an ended interaction keeps its counter (3), got %llu", (unsigned long long)x);
        }
      for (size_t i = 0; i < nsp; i++)
        {
          uint64_t a = 0, b = 0;
          CHECK (sp[i].counter_mask == m
                     && emlat_span_counter (&sp[i], pool, EMLAT_C_FRAMES_UPDATED, &a) && a == 10
                     && emlat_span_counter (&sp[i], pool, EMLAT_C_ROWS_GENERATED, &b) && b == 20,
                 "span %zu keeps its served counters", i);
        }
      emlat_profile_free (p);
    }
  struct tally t = { 0 };
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (late, &t, 0, &res), 0);
  CHECK_EQ_U64 (t.loss_records, 0);
  CHECK_EQ_U64 (t.stats_records_dropped, 0);
  tally_free (&t);
  free (late);
  TEST_DONE ();
}
