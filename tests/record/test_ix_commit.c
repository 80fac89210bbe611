/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_ix_commit.c -- emlat_ix_commit records the same interaction as the
 * one-field calls do (emlat.h): two sessions record the same interactions,
 * one field per call and gathered into one commit, and every field, quality,
 * status and counter reads back equal.  Also: commits that merge into one
 * interaction, a commit that ends it, rings wrapped many times over, that
 * the committed profile holds far fewer ring records, and a ring too small
 * for the record (the call falls back to one record per field; every loss
 * of the overflowing ring is accounted).  emlat_ix_begin_at and
 * emlat_ix_commit_at record the dispatch and end times they are given
 * (0: now).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

#define N_IX 500

/* The fields of interaction K: a deterministic mixture. */
static void
fields_of (unsigned k, struct emlat_ix_fields *f, uint64_t base)
{
  emlat_ixf_clear (f);
  for (unsigned i = 0; i < EMLAT_T_FIELD_COUNT; i++)
    if (i != EMLAT_T_INTERACTION_END && i != EMLAT_T_DISPATCH_BEGIN && (k + i) % 3 != 0)
      emlat_ixf_time_q (f, i, base + 1000u * i + k, (k + i) % 5 == 0 ? EMLAT_Q_INFERRED : 0);
  for (unsigned i = 0; i < EMLAT_V_FIELD_COUNT; i++)
    if ((k + i) % 2)
      emlat_ixf_value (f, i, 7u * k + i + 1);
  for (unsigned i = 0; i < EMLAT_C_COUNTER_COUNT; i++)
    if ((k * i) % 4 == 1)
      emlat_ixf_count (f, i, (uint64_t)k << i % 20);
}

/* Record N_IX interactions into PATH with ring size SLOTS: one call per
   field (COMMIT 0), or two commits each (COMMIT 1: half the fields, then
   the rest with the end). */
static void
record (const char *path, uint32_t slots, int commit)
{
  struct emlat_options o = { .path = path, .ring_slots = slots };
  CHECK_OK (emlat_start (&o));
  uint64_t base = 1000000000u; /* the same in both sessions */
  for (unsigned k = 0; k < N_IX; k++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      struct emlat_ix_fields f;
      fields_of (k, &f, base);
      if (!commit)
        {
          for (unsigned i = 0; i < EMLAT_T_FIELD_COUNT; i++)
            if (f.tmask & (1u << i))
              {
                if (f.q[i])
                  emlat_ix_time_q (c, i, f.t[i], f.q[i]);
                else
                  emlat_ix_time (c, i, f.t[i]);
              }
          for (unsigned i = 0; i < EMLAT_V_FIELD_COUNT; i++)
            if (f.vmask & (1u << i))
              emlat_ix_value (c, i, f.v[i]);
          for (unsigned i = 0; i < EMLAT_C_COUNTER_COUNT; i++)
            if (f.cmask & (1u << i))
              emlat_ix_count (c, i, f.c[i]);
          emlat_ix_end (c, k % 7 ? EMLAT_STATUS_NORMAL : EMLAT_STATUS_ERROR);
        }
      else
        {
          /* Split: the even time fields first (no end), then the rest. */
          struct emlat_ix_fields a = f, b = f;
          a.tmask &= 0x55555555u;
          a.vmask = a.cmask = 0;
          b.tmask &= ~0x55555555u;
          enum emlat_ix_status st = k % 7 ? EMLAT_STATUS_NORMAL : EMLAT_STATUS_ERROR;
          emlat_ix_commit (c, &a, 0);
          emlat_ix_commit (c, &b, st);
        }
      /* A small ring holds one or two interactions: drain after each. */
      if (slots < 1024 || k % 50 == 49)
        CHECK_OK (emlat_flush ());
    }
  CHECK_OK (emlat_stop ());
}

/* Every interaction of A equals the one of B, but for the times the
   recorder itself takes (dispatch, end). */
static void
compare (const struct emlat_profile *a, const struct emlat_profile *b, const char *what)
{
  size_t na, nb;
  const struct emlat_interaction *ia = emlat_profile_interactions (a, &na);
  const struct emlat_interaction *ib = emlat_profile_interactions (b, &nb);
  CHECK (na == N_IX && nb == N_IX, "%s: %zu and %zu interactions, want %d", what, na, nb, N_IX);
  size_t bad = 0;
  for (size_t i = 0; i < na && i < nb; i++)
    {
      if (ia[i].status != ib[i].status || ia[i].value_mask != ib[i].value_mask
          || ia[i].counter_mask != ib[i].counter_mask || ia[i].time_mask != ib[i].time_mask
          || ia[i].q_mask != ib[i].q_mask)
        {
          if (!bad)
            TEST_DIAG ("%s: interaction %zu: status %u/%u masks t %x/%x v %x/%x c %x/%x q %x/%x",
                       what, i, ia[i].status, ib[i].status, ia[i].time_mask, ib[i].time_mask,
                       ia[i].value_mask, ib[i].value_mask, ia[i].counter_mask,
                       ib[i].counter_mask, ia[i].q_mask, ib[i].q_mask);
          bad++;
          continue;
        }
      for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
        {
          if (f == EMLAT_T_INTERACTION_END || f == EMLAT_T_DISPATCH_BEGIN)
            continue;
          uint64_t x = 0, y = 0;
          enum emlat_quality qx = 0, qy = 0;
          int hx = emlat_profile_ix_time (a, &ia[i], f, &x, &qx);
          int hy = emlat_profile_ix_time (b, &ib[i], f, &y, &qy);
          if (hx != hy || x != y || qx != qy)
            {
              if (!bad)
                TEST_DIAG ("%s: interaction %zu time field %u: %d %llu q%d / %d %llu q%d", what,
                           i, f, hx, (unsigned long long)x, qx, hy, (unsigned long long)y, qy);
              bad++;
            }
        }
      for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
        {
          uint64_t x = 0, y = 0;
          if (emlat_profile_ix_value (a, &ia[i], f, &x) != emlat_profile_ix_value (b, &ib[i], f, &y)
              || x != y)
            bad++;
        }
      for (unsigned f = 0; f < EMLAT_C_COUNTER_COUNT; f++)
        {
          uint64_t x = 0, y = 0;
          if (emlat_profile_ix_counter (a, &ia[i], f, &x)
                != emlat_profile_ix_counter (b, &ib[i], f, &y)
              || x != y)
            bad++;
        }
    }
  CHECK (bad == 0, "%s: %zu differences", what, bad);
}

/* emlat_ix_begin_at / emlat_ix_commit_at into a ring of SLOTS: interaction
   k dispatched at BASE + 10 k and ended at BASE + 10 k + 7 for k odd; for k
   even, T 0 and END 0 (now), each read back between the session's start
   and its stop.  A commit without a status ignores its END. */
static void
check_at_times (const char *path, uint32_t slots)
{
  enum { N = 60 };
  const uint64_t base = 5000000000u;
  struct emlat_options o = { .path = path, .ring_slots = slots };
  CHECK_OK (emlat_start (&o));
  uint64_t t_start = emlat_now ();
  for (unsigned k = 0; k < N; k++)
    {
      uint64_t t = k % 2 ? base + 10u * k : 0;
      uint64_t c = emlat_ix_begin_at (EMLAT_ROOT_TTY_COMMAND, 0, 0, t);
      struct emlat_ix_fields f;
      fields_of (k, &f, base);
      emlat_ix_commit_at (c, &f, 0, 1); /* no status: END ignored */
      emlat_ixf_clear (&f);
      emlat_ixf_count (&f, EMLAT_C_TTY_BYTES, k + 1);
      emlat_ix_commit_at (c, &f, EMLAT_STATUS_NORMAL, t ? t + 7 : 0);
      if (slots < 1024)
        CHECK_OK (emlat_flush ());
    }
  uint64_t t_stop = emlat_now ();
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = profile_of (path, 0);
  if (!p)
    return;
  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
  CHECK (n == N, "ring of %u slots: %zu interactions, want %d", slots, n, N);
  size_t bad = 0;
  for (size_t k = 0; k < n && k < N; k++)
    {
      uint64_t d = 0, e = 0, bytes = 0;
      enum emlat_quality q = 0;
      int hd = emlat_profile_ix_time (p, &ix[k], EMLAT_T_DISPATCH_BEGIN, &d, &q);
      int he = emlat_profile_ix_time (p, &ix[k], EMLAT_T_INTERACTION_END, &e, &q);
      emlat_profile_ix_counter (p, &ix[k], EMLAT_C_TTY_BYTES, &bytes);
      int ok = hd && he && bytes == k + 1 && ix[k].status == EMLAT_STATUS_NORMAL;
      if (k % 2)
        ok = ok && d == base + 10u * k && e == d + 7;
      else
        ok = ok && d >= t_start && d <= e && e <= t_stop;
      if (!ok)
        {
          if (!bad)
            TEST_DIAG ("ring of %u slots: interaction %zu: dispatch %d %llu end %d %llu "
                       "bytes %llu status %u",
                       slots, k, hd, (unsigned long long)d, he, (unsigned long long)e,
                       (unsigned long long)bytes, ix[k].status);
          bad++;
        }
    }
  CHECK (bad == 0, "ring of %u slots: the given dispatch and end times (%zu wrong)", slots,
         bad);
  emlat_profile_free (p);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  static const uint32_t sizes[] = { 65536, 64 };
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      char *one = tu_strf ("%s/fields-%u.emlat", dir, sizes[s]);
      char *com = tu_strf ("%s/commit-%u.emlat", dir, sizes[s]);
      record (one, sizes[s], 0);
      record (com, sizes[s], 1);
      struct emlat_profile *a = profile_of (one, 0), *b = profile_of (com, 0);
      if (a && b)
        {
          char what[64];
          snprintf (what, sizeof what, "ring of %u slots", sizes[s]);
          compare (a, b, what);
          CHECK_EQ_U64 (profile_stat_u (a, "stats.records_dropped"), 0);
          CHECK_EQ_U64 (profile_stat_u (b, "stats.records_dropped"), 0);
          uint64_t ra = profile_stat_u (a, "stats.records_written");
          uint64_t rb = profile_stat_u (b, "stats.records_written");
          TEST_DIAG ("%s: %llu ring records one field per call, %llu with commits", what,
                     (unsigned long long)ra, (unsigned long long)rb);
          if (sizes[s] >= 64)
            /* Begin + two commits per interaction, against begin + about
               30 fields + end. */
            CHECK (rb * 5 < ra, "commits take far fewer records (%llu vs %llu)",
                   (unsigned long long)rb, (unsigned long long)ra);
        }
      emlat_profile_free (a);
      emlat_profile_free (b);
      free (one);
      free (com);
    }
  /* A ring of 16 slots cannot take a commit of more than 8: it falls back
     to one record per field, which overflows such a ring as the one-field
     calls do; every loss is still accounted (F-70). */
  char *tiny = tu_strf ("%s/tiny.emlat", dir);
  record (tiny, 16, 1);
  struct tally t = { 0 };
  struct emlat_scan_result res;
  tally_file (tiny, &t, 0, &res);
  TEST_DIAG ("tiny ring: %llu records dropped (whether it overflows depends on the writer's "
             "timing)", (unsigned long long)t.stats_records_dropped);
  CHECK_EQ_U64 (t.loss_records, t.stats_records_dropped);
  CHECK_EQ_U64 (t.stats_final, 1);
  tally_free (&t);
  free (tiny);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    {
      char *at = tu_strf ("%s/at-%u.emlat", dir, sizes[s]);
      check_at_times (at, sizes[s]);
      free (at);
    }
  TEST_DONE ();
}
