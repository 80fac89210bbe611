/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_model_stream.c -- the report model built in bounded memory gives
 * the numbers of the model that keeps every sample (emlat_report.h,
 * "model"; docs/REPORT.md "Percentiles"):
 *
 *  - the exact-rank passes (src/analysis/report_rank.c) find every
 *    nearest-rank quantile of series shaped to be hard -- all values
 *    equal, two values, values crowded into one histogram bucket, values
 *    across the whole 64-bit range, latency-like values -- equal to the
 *    sorted series' element, also when collection is capped so low that
 *    ranges must be counted again and again, and within six more passes;
 *  - on a recorded profile (every root kind, flushed, superseded and
 *    timer interactions, four left open) the model of a streamed load
 *    with EMLAT_REPORT_MODEL_LEAD_ONLY | EMLAT_REPORT_MODEL_TAIL, its
 *    interactions handed over in file order, equals field for field the
 *    model kept in full from the same profile: every group's counts and
 *    distributions, the lead series, and the tail with its slowest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_rank.h"
#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "tap.h"
#include "testutil.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next (void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static int cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Every quantile of V[0..N) through the rank passes, collection capped at
   CAP values; compared with the sorted copy. */
static void ranks_of (const char *what, uint64_t *v, size_t n, size_t cap)
{
  struct emlat_rank_series s;
  memset (&s, 0, sizeof s);
  for (size_t i = 0; i < n; i++)
    CHECK_OK (emlat_rank_add (&s, v[i]));
  struct emlat_rank_set rs;
  memset (&rs, 0, sizeof rs);
  rs.collect_max = cap;
  static const uint64_t q[][2] = { { 1, 2 }, { 90, 100 }, { 95, 100 }, { 99, 100 },
                                   { 999, 1000 }, { 1, 1000000 }, { 1, 1 } };
  long t[7];
  for (int j = 0; j < 7; j++)
    t[j] = emlat_rank_want (&rs, 3, &s, emlat_report_rank_index (n, q[j][0], q[j][1]));
  int passes = 0, rc = emlat_rank_pass_begin (&rs);
  while (rc == 0 && passes < 10)
    {
      for (size_t i = 0; i < n; i++) /* another order each pass */
        emlat_rank_feed (&rs, 3, v[(i * 7919 + (size_t)passes) % n]);
      passes++;
      rc = emlat_rank_pass_end (&rs);
      if (rc == 0)
        rc = emlat_rank_pass_begin (&rs);
    }
  CHECK (rc == 1, "%s: every rank found (rc %d)", what, rc);
  CHECK (passes <= 7, "%s: %d passes", what, passes);
  qsort (v, n, sizeof *v, cmp_u64);
  for (int j = 0; j < 7; j++)
    {
      uint64_t want = v[emlat_report_rank_index (n, q[j][0], q[j][1])];
      CHECK (emlat_rank_value (&rs, t[j]) == want, "%s: quantile %llu/%llu: %llu, sorted %llu",
             what, (unsigned long long)q[j][0], (unsigned long long)q[j][1],
             (unsigned long long)emlat_rank_value (&rs, t[j]), (unsigned long long)want);
    }
  CHECK (s.min == v[0] && s.max == v[n - 1] && s.n == n, "%s: min, max, n", what);
  TEST_DIAG ("%s: %zu values, cap %zu: %d more passes", what, n, cap, passes);
  emlat_rank_set_free (&rs);
  emlat_rank_series_free (&s);
}

static void hard_series (void)
{
  enum { N = 20000 };
  uint64_t *v = malloc (N * sizeof *v);
  size_t caps[3] = { 0, 1000, 3 };
  for (int c = 0; c < 3; c++)
    {
      char what[64];
      for (size_t i = 0; i < N; i++)
        v[i] = 123456789;
      snprintf (what, sizeof what, "all equal");
      ranks_of (what, v, N, caps[c]);
      for (size_t i = 0; i < N; i++)
        v[i] = i % 3 ? 1000 : 1u << 30;
      ranks_of ("two values", v, N, caps[c]);
      for (size_t i = 0; i < N; i++)
        v[i] = ((uint64_t)1 << 40) + next () % 5000; /* one bucket 2^33 wide */
      ranks_of ("crowded in one bucket", v, N, caps[c]);
      for (size_t i = 0; i < N; i++)
        v[i] = next () >> (next () % 64);
      ranks_of ("the whole 64-bit range", v, N, caps[c]);
      for (size_t i = 0; i < N; i++)
        v[i] = UINT64_MAX - next () % 100;
      ranks_of ("near 2^64", v, N, caps[c]);
      for (size_t i = 0; i < N; i++)
        v[i] = 20000 + next () % 80000 + (next () % 100 == 0 ? next () % 20000000 : 0);
      ranks_of ("latency-like", v, N, caps[c]);
      for (size_t i = 0; i < N; i++)
        v[i] = i % 200; /* every value its own exact bucket */
      ranks_of ("small values", v, N, caps[c]);
    }
  v[0] = 42;
  ranks_of ("one value", v, 1, 0);
  free (v);
}

/* ------------------------------------------------------------------ */

static void record (const char *path)
{
  struct emlat_options o = { .path = path };
  CHECK_OK (emlat_start (&o));
  uint64_t t = 1000000000ull;
  for (unsigned i = 0; i < 30000; i++)
    {
      int timer = i % 13 == 0, superseded = i % 10 == 9;
      uint64_t c = emlat_ix_begin (timer ? EMLAT_ROOT_TIMER : EMLAT_ROOT_TTY_COMMAND, 0, 0);
      uint64_t d = 1000 + next () % 50000 + (next () % 200 == 0 ? next () % 10000000 : 0);
      if (!timer)
        {
          emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, t);
          emlat_ix_time (c, EMLAT_T_INPUT_LATEST, t + next () % 3000);
          emlat_ix_time (c, EMLAT_T_KEY_DECODE_DONE, t + 4000);
        }
      emlat_ix_time (c, EMLAT_T_DISPATCH_BEGIN, t + 5000);
      emlat_ix_time (c, EMLAT_T_COMMAND_BEGIN, t + 6000);
      emlat_ix_time (c, EMLAT_T_COMMAND_END, t + 6000 + d);
      emlat_ix_time (c, EMLAT_T_ROOT_WORK_END, t + 6000 + d);
      emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, (uint64_t)i * 1000000);
      emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, (uint64_t)i * 1000000 + d / 2);
      if (!superseded && !timer)
        {
          emlat_ix_time (c, EMLAT_T_REDISPLAY_BEGIN, t + 7000 + d);
          emlat_ix_time (c, EMLAT_T_REDISPLAY_END, t + 9000 + d + next () % 9000);
          emlat_ix_time (c, EMLAT_T_FLUSH_END, t + 20000 + d + next () % 9000);
        }
      /* Equal values, for the tail's ties. */
      if (i % 97 == 0 && !timer && !superseded)
        emlat_ix_time (c, EMLAT_T_FLUSH_END, t + 5000000);
      if (i < 29996)
        emlat_ix_end (c, superseded ? EMLAT_STATUS_SUPERSEDED : EMLAT_STATUS_NORMAL);
      t += 10000000;
      if (i % 1000 == 0)
        emlat_flush ();
    }
  CHECK_OK (emlat_stop ());
}

static int add (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  return emlat_report_model_add (ctx, p, ix);
}

static void same_models (const struct emlat_report_model *a, const struct emlat_report_model *b)
{
  CHECK_EQ_U64 (a->n_ix, b->n_ix);
  CHECK (memcmp (a->n_pop, b->n_pop, sizeof a->n_pop) == 0
           && memcmp (a->n_status, b->n_status, sizeof a->n_status) == 0
           && memcmp (a->n_kind, b->n_kind, sizeof a->n_kind) == 0
           && memcmp (a->present_t, b->present_t, sizeof a->present_t) == 0,
         "counts");
  size_t groups = 0, dists = 0, bad = 0;
  for (int k = 0; k < EMLAT_REPORT_KINDS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      {
        const struct emlat_report_group *x = &a->g[k][q], *y = &b->g[k][q];
        groups += x->n > 0;
        bad += x->n != y->n || memcmp (x->inverted, y->inverted, sizeof x->inverted) != 0
               || memcmp (x->clamped, y->clamped, sizeof x->clamped) != 0;
        for (int i = 0; i < EMLAT_RM_COUNT; i++)
          {
            dists += x->d[i].n > 0;
            if (memcmp (&x->d[i], &y->d[i], sizeof x->d[i]) != 0)
              {
                bad++;
                TEST_DIAG ("kind %d pop %d metric %s: p50 %llu/%llu p99 %llu/%llu", k, q,
                           emlat_report_metric_name ((enum emlat_report_metric)i),
                           (unsigned long long)x->d[i].p50, (unsigned long long)y->d[i].p50,
                           (unsigned long long)x->d[i].p99, (unsigned long long)y->d[i].p99);
              }
          }
        int lead = emlat_report_group_primary (x);
        CHECK (lead == emlat_report_group_primary (y), "kind %d pop %d: the same lead", k, q);
        if (lead >= 0)
          CHECK (x->s[lead].n == y->s[lead].n
                   && memcmp (x->s[lead].v, y->s[lead].v, x->s[lead].n * sizeof (uint64_t)) == 0,
                 "kind %d pop %d: the lead series", k, q);
      }
  CHECK (bad == 0, "%zu of %zu distributions in %zu groups differ", bad, dists, groups);
  CHECK (groups >= 3 && dists >= 15, "%zu groups, %zu distributions compared", groups, dists);
  CHECK (memcmp (&a->tail, &b->tail, sizeof a->tail) == 0, "the tail and the slowest");
  CHECK (a->tail.has && a->tail.n_slow == EMLAT_REPORT_SLOWEST, "a tail with its slowest");
}

static void recorded (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return;
  char *path = tu_strf ("%s/m.emlat", dir);
  record (path);
  const char *paths[1] = { path };
  struct emlat_profile *p = NULL, *s = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
  struct emlat_input in = { .path = path, .fd = -1 };
  struct emlat_report_model full, lean;
  CHECK_OK (emlat_report_model_begin (&lean, NULL,
                                      EMLAT_REPORT_MODEL_LEAD_ONLY | EMLAT_REPORT_MODEL_TAIL));
  CHECK_OK (emlat_profile_load_each (&in, 1, NULL, 0, add, &lean, &s));
  if (!p || !s)
    return;
  lean.p = s;
  int rc = emlat_report_model_pass_end (&lean), passes = 1;
  while (rc == 1)
    {
      CHECK_OK (emlat_profile_each_interaction (s, NULL, 0, add, &lean));
      rc = emlat_report_model_pass_end (&lean);
      passes++;
    }
  CHECK_EQ_I64 (rc, 0);
  TEST_DIAG ("lead-only model: %d passes", passes);
  CHECK_OK (emlat_report_model_build (p, &full));
  CHECK_OK (emlat_report_tail_pick (p, &full.tail));
  same_models (&full, &lean);
  /* The same through the one-call form. */
  struct emlat_report_model each;
  CHECK_OK (emlat_report_model_build_each (s, &each, EMLAT_REPORT_MODEL_LEAD_ONLY
                                                       | EMLAT_REPORT_MODEL_TAIL));
  same_models (&full, &each);
  emlat_report_model_free (&each);
  emlat_report_model_free (&full);
  emlat_report_model_free (&lean);
  emlat_profile_free (p);
  emlat_profile_free (s);
  free (path);
}

int main (void)
{
  hard_series ();
  recorded ();
  TEST_DONE ();
}
