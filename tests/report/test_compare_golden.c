/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_compare_golden.c -- `emlat compare` on synthetic sessions with known
 * verdicts and guards.
 *
 *   A: 40 flushed TTY commands of 1..40 ms, 5 timers;
 *   B: the same commands 20 ms slower (21..60 ms), 5 timers;
 *   C: identical to A;
 *   D: like A but program.version "2" and tty.rows 40;
 *   E: 10 flushed commands only.
 * Hand-computed (nearest rank, n = 40: median = x[20], p90 = x[36], p99 =
 * x[40]): A vs B command_ns median 20 ms -> 40 ms, delta +20 ms for every
 * quantile, verdict slower (the interval lies above 0); B vs A faster; A vs C delta 0,
 * no significant change; the timers (5 < 30) are named and not compared;
 * A vs D refused, naming program.version ("1" / "2") and tty.rows (24 /
 * 40); A vs E: nothing comparable yet.  All exit 0; a missing file exits 1,
 * a wrong argument count 2.  The same seed gives the same output twice.
 */
#include "report_fixture.h"

static void
session (const char *path, const char *version, uint64_t rows, uint64_t n, uint64_t extra_ms,
         int timers)
{
  if (fx_start (path, version, rows, 0) != 0)
    return;
  uint64_t base = 1000000000ull;
  for (uint64_t i = 1; i <= n; i++)
    fx_flushed (EMLAT_ROOT_TTY_COMMAND, base + i * 200 * MS, 10 * US, i * MS + extra_ms * MS,
                i * MS / 2);
  for (int t = 0; t < timers; t++)
    fx_no_output (EMLAT_ROOT_TIMER, base + 20000 * MS + (uint64_t)t * MS * 10, 300 * US,
                  UINT64_MAX, 0, EMLAT_STATUS_NORMAL);
  fx_stop ();
}

static const struct jv *
metric (const struct jv *doc, const char *kind, const char *pop, const char *name)
{
  const struct jv *ps = jv_get (doc, "populations");
  for (size_t i = 0; ps && i < ps->n; i++)
    {
      const struct jv *p = ps->items[i];
      if (strcmp (jv_str (jv_get (p, "root_kind")), kind) || strcmp (jv_str (jv_get (p, "population")), pop))
        continue;
      const struct jv *ms = jv_get (p, "metrics");
      for (size_t k = 0; ms && k < ms->n; k++)
        if (strcmp (jv_str (jv_get (ms->items[k], "metric")), name) == 0)
          return ms->items[k];
    }
  return NULL;
}

static const struct jv *
population (const struct jv *doc, const char *kind, const char *pop)
{
  const struct jv *ps = jv_get (doc, "populations");
  for (size_t i = 0; ps && i < ps->n; i++)
    if (!strcmp (jv_str (jv_get (ps->items[i], "root_kind")), kind)
        && !strcmp (jv_str (jv_get (ps->items[i], "population")), pop))
      return ps->items[i];
  return NULL;
}

/* Every quantile of METRIC: delta DELTA (signed ns), verdict VERDICT, and
   the interval around the delta. */
static void
check_metric (const struct jv *doc, const char *name, int64_t delta, const char *verdict)
{
  const struct jv *m = metric (doc, "tty_command", "flushed", name);
  CHECK (m != NULL, "metric %s compared", name);
  if (!m)
    return;
  CHECK (jv_get (m, "compared")->b == 1, "%s compared", name);
  const struct jv *qs = jv_get (m, "quantiles");
  CHECK (qs && qs->n == 3, "three quantiles of %s", name);
  for (size_t i = 0; qs && i < qs->n; i++)
    {
      const struct jv *q = qs->items[i];
      long long d = strtoll (jv_get (q, "delta_ns")->s, NULL, 10);
      long long lo = strtoll (jv_get (q, "ci_low_ns")->s, NULL, 10);
      long long hi = strtoll (jv_get (q, "ci_high_ns")->s, NULL, 10);
      CHECK (d == delta, "%s %s delta %lld, want %lld", name, jv_str (jv_get (q, "quantile")), d,
             (long long)delta);
      CHECK (lo <= d && d <= hi, "%s interval [%lld, %lld] holds the delta %lld", name, lo, hi, d);
      CHECK_EQ_STR (jv_str (jv_get (q, "verdict")), verdict);
    }
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  char *a = tu_strf ("%s/a.emlat", dir), *b = tu_strf ("%s/b.emlat", dir);
  char *c = tu_strf ("%s/c.emlat", dir), *d = tu_strf ("%s/d.emlat", dir);
  char *e = tu_strf ("%s/e.emlat", dir);
  session (a, "1", 24, 40, 0, 5);
  session (b, "1", 24, 40, 20, 5);
  session (c, "1", 24, 40, 0, 5);
  session (d, "2", 40, 40, 0, 5);
  session (e, "1", 24, 10, 0, 0);

  struct tu_result r;
  if (fx_emlat (&r, "compare", "--json", a, b, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "A vs B exit 0 (got %d): %s", r.exit_code, r.err);
      struct jv *doc = fx_json (&r);
      CHECK (jv_get (doc, "comparable")->b == 1, "A and B comparable");
      CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (doc, "bootstrap"), "resamples")), 2000);
      check_metric (doc, "command_ns", 20 * (int64_t)MS, "slower");
      check_metric (doc, "latency_lower_ns", 20 * (int64_t)MS, "slower");
      const struct jv *m = metric (doc, "tty_command", "flushed", "command_ns");
      const struct jv *q0 = jv_at (jv_get (m, "quantiles"), 0);
      CHECK_EQ_U64 (jv_u64 (jv_get (q0, "a_ns")), 20 * MS);
      CHECK_EQ_U64 (jv_u64 (jv_get (q0, "b_ns")), 40 * MS);
      const struct jv *t = population (doc, "timer", "no_output");
      CHECK (t && jv_get (t, "compared")->b == 0, "timers (5 < 30) not compared");
      CHECK_EQ_U64 (jv_u64 (jv_get (t, "n_a")), 5);
      CHECK_EQ_U64 (jv_u64 (jv_get (doc, "populations_compared")), 1);
      jv_free (doc);
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "compare", "--json", b, a, NULL, NULL) == 0)
    {
      struct jv *doc = fx_json (&r);
      check_metric (doc, "command_ns", -20 * (int64_t)MS, "faster");
      jv_free (doc);
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "compare", "--json", a, c, NULL, NULL) == 0)
    {
      struct jv *doc = fx_json (&r);
      check_metric (doc, "command_ns", 0, "no_change");
      jv_free (doc);
      tu_result_free (&r);
    }
  /* Deterministic: the same seed twice gives the same bytes; another seed
     changes the intervals, not the deltas. */
  struct tu_result r2;
  if (fx_emlat (&r, "compare", a, c, NULL, NULL, NULL) == 0
      && fx_emlat (&r2, "compare", a, c, NULL, NULL, NULL) == 0)
    {
      CHECK (r.out_len == r2.out_len && memcmp (r.out, r2.out, r.out_len) == 0,
             "same output for the same seed");
      CHECK_CONTAINS (r.out, "no sig. change");
      CHECK_CONTAINS (r.out, "timer, no output: A n=5, B n=5 -- not compared (fewer than 30)");
      tu_result_free (&r);
      tu_result_free (&r2);
    }
  if (fx_emlat (&r, "compare", a, d, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "refusal exit 0 (got %d)", r.exit_code);
      CHECK_CONTAINS (r.out, "NOT COMPARABLE: 2 guards failed");
      CHECK_CONTAINS (r.out, "identity program.version: A \"1\", B \"2\"");
      CHECK_CONTAINS (r.out, "terminal tty.rows: A 24, B 40");
      CHECK (strstr (r.out, "95% interval") == NULL, "no deltas for incomparable sessions");
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "compare", "--json", a, d, NULL, NULL) == 0)
    {
      struct jv *doc = fx_json (&r);
      CHECK (jv_get (doc, "comparable")->b == 0, "A and D not comparable");
      const struct jv *g = jv_get (doc, "guards_failed");
      CHECK (g && g->n == 2, "two failing keys");
      CHECK_EQ_STR (jv_str (jv_get (jv_at (g, 1), "key")), "tty.rows");
      /* Typed SESSION values: numbers stay numbers, strings strings. */
      CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (g, 1), "a")), 24);
      CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (g, 1), "b")), 40);
      CHECK_EQ_STR (jv_str (jv_get (jv_at (g, 0), "key")), "program.version");
      CHECK_EQ_STR (jv_str (jv_get (jv_at (g, 0), "a")), "1");
      CHECK_EQ_STR (jv_str (jv_get (jv_at (g, 0), "b")), "2");
      CHECK (jv_get (doc, "populations")->n == 0, "no populations when refused");
      jv_free (doc);
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "compare", a, e, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "nothing comparable: exit 0");
      CHECK_CONTAINS (r.out, "Nothing comparable yet");
      tu_result_free (&r);
    }
  char *missing = tu_strf ("%s/none.emlat", dir);
  if (fx_emlat (&r, "compare", a, missing, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 2, "missing file: exit 2 (got %d)", r.exit_code);
      CHECK_CONTAINS (r.err, missing);
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "compare", a, NULL, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 2, "one file: exit 2 (got %d)", r.exit_code);
      tu_result_free (&r);
    }
  free (a), free (b), free (c), free (d), free (e), free (missing);
  TEST_DONE ();
}
