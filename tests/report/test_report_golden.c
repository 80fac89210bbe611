/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_report_golden.c -- `emlat report --json` on a synthetic session
 * whose every number is known by hand.
 *
 * The session (timestamps chosen through emlat_ix_time, see
 * report_fixture.h for the shape of each interaction):
 *   tty_command flushed, i = 1..10: input uncertainty i*10 us, command
 *     i ms, thread CPU i*0.5 ms.  Nearest rank over n = 10: median = x[5],
 *     p90 = x[9], p95 = p99 = max = x[10].  So command_ns: min 1 ms,
 *     median 5 ms, p90 9 ms, p99 10 ms, total 55 ms;
 *     input_to_flush_max_ns = (i + 1) ms + 280 us: median 6.28 ms, p90
 *     10.28 ms, p99 11.28 ms; input_uncertainty_ns: median 50 us, max 100
 *     us; latency_lower_ns = t_output_begin - t_input_latest = (i + 1) ms
 *     + 250 us - i*10 us: median 6.20 ms, p90 10.16 ms, p99 11.15 ms;
 *     latency_upper_ns = input_to_flush_max_ns.  Interaction 10 also waits in a real WAIT span of about 1 ms
 *     (its boundaries are placed around the real clock for that).
 *   tty_command superseded, 3: command 2, 3, 4 ms, no redisplay or flush.
 *   tty_command no output, 1: only t_input_earliest of the input bounds,
 *     so no uncertainty and no input_to_command_min -- reported as absent.
 *   timer no output, 2: wall 300 us and 500 us, no input.
 * The tail is the p99 of latency_lower_ns (the headline): rank 10 of 10,
 * i = 10;
 * its split: wall 10.28 ms, CPU 5 ms, measured waits = the WAIT span
 * clipped to the wall interval (read back through the reader API), unknown
 * off-CPU = wall - CPU - waits.
 */
#include <inttypes.h>
#include <time.h>

#include "emlat/emlat_reader.h"
#include "report_fixture.h"

static uint64_t tail_cause, wait_ns_expected;

static void
record (const char *path)
{
  if (fx_start (path, "1", 24, 0) != 0)
    return;
  uint64_t base = 1000000000ull; /* 1 s of profiler clock: long past */
  for (uint64_t i = 1; i <= 9; i++)
    fx_flushed (EMLAT_ROOT_TTY_COMMAND, base + i * 100 * MS, i * 10 * US, i * MS, i * MS / 2);
  /* i = 10 around the real clock, with a real WAIT span inside. */
  uint64_t now = emlat_now ();
  uint64_t b = now - 2 * MS;
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  uint64_t w = emlat_span_begin (EMLAT_SPAN_WAIT, c);
  struct timespec ts = { 0, 1000000 };
  nanosleep (&ts, NULL);
  emlat_span_end (w, EMLAT_SPAN_OK, 0);
  /* The same boundaries as fx_flushed (b, 100 us, 10 ms, 5 ms), by hand. */
  uint64_t d = b + 1 * MS, ce = d + 10 * MS, rb = ce + 50 * US, re = rb + 200 * US;
  emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, b);
  emlat_ix_time (c, EMLAT_T_INPUT_LATEST, b + 100 * US);
  emlat_ix_time (c, EMLAT_T_DISPATCH_BEGIN, d);
  emlat_ix_time (c, EMLAT_T_COMMAND_BEGIN, d);
  emlat_ix_time (c, EMLAT_T_COMMAND_END, ce);
  emlat_ix_time (c, EMLAT_T_ROOT_WORK_END, ce);
  emlat_ix_time (c, EMLAT_T_REDISPLAY_BEGIN, rb);
  emlat_ix_time (c, EMLAT_T_REDISPLAY_END, re);
  emlat_ix_time (c, EMLAT_T_OUTPUT_BEGIN, re);
  emlat_ix_time (c, EMLAT_T_FLUSH_END, re + 30 * US);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, 0);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, 5 * MS);
  emlat_ix_count (c, EMLAT_C_TTY_BYTES, 110);
  emlat_ix_count (c, EMLAT_C_ROWS_GENERATED, 3);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  tail_cause = c;
  for (uint64_t k = 2; k <= 4; k++)
    fx_no_output (EMLAT_ROOT_TTY_COMMAND, base + (20 + k) * 100 * MS, k * MS, 30 * US, 1,
                  EMLAT_STATUS_SUPERSEDED);
  /* Only the earliest input bound. */
  uint64_t o = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  emlat_ix_time (o, EMLAT_T_INPUT_EARLIEST, base + 3000 * MS);
  emlat_ix_time (o, EMLAT_T_DISPATCH_BEGIN, base + 3001 * MS);
  emlat_ix_time (o, EMLAT_T_COMMAND_BEGIN, base + 3001 * MS);
  emlat_ix_time (o, EMLAT_T_COMMAND_END, base + 3005 * MS);
  emlat_ix_end (o, EMLAT_STATUS_NORMAL);
  fx_no_output (EMLAT_ROOT_TIMER, base + 4000 * MS, 300 * US, UINT64_MAX, 0, EMLAT_STATUS_NORMAL);
  fx_no_output (EMLAT_ROOT_TIMER, base + 4100 * MS, 500 * US, UINT64_MAX, 0, EMLAT_STATUS_NORMAL);
  fx_stop ();

  /* The real WAIT span, read back, clipped to [d, completion). */
  const char *paths[1] = { path };
  struct emlat_profile *p;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
  struct emlat_span_set set;
  CHECK_OK (emlat_profile_ix_spans (p, c, &set));
  CHECK_EQ_U64 (set.n, 1);
  if (set.n == 1)
    {
      uint64_t s0 = set.spans[0].start, s1 = set.spans[0].end, lo = d, hi = re + 30 * US;
      s0 = s0 < lo ? lo : s0;
      s1 = s1 > hi ? hi : s1;
      wait_ns_expected = s1 > s0 ? s1 - s0 : 0;
      TEST_DIAG ("wait span %" PRIu64 " ns inside the wall interval", wait_ns_expected);
    }
  emlat_span_set_free (&set);
  emlat_profile_free (p);
}

static void
check_flushed (const struct jv *doc)
{
  const struct jv *g = fx_group (doc, "tty_command", "flushed");
  CHECK (g != NULL, "tty_command/flushed group");
  CHECK_EQ_U64 (jv_u64 (jv_get (g, "interactions")), 10);
  CHECK_EQ_STR (jv_str (jv_get (g, "primary_metric")), "latency_lower_ns");
  CHECK_EQ_U64 (fx_stat (g, "latency_lower_ns", "median"), 6 * MS + 200 * US);
  CHECK_EQ_U64 (fx_stat (g, "latency_lower_ns", "p90"), 10 * MS + 160 * US);
  CHECK_EQ_U64 (fx_stat (g, "latency_lower_ns", "p99"), 11 * MS + 150 * US);
  CHECK_EQ_U64 (fx_stat (g, "latency_upper_ns", "median"), 6 * MS + 280 * US);
  CHECK_EQ_U64 (fx_stat (g, "latency_upper_ns", "max"), 11 * MS + 280 * US);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "n"), 10);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "min"), 1 * MS);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "median"), 5 * MS);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "p90"), 9 * MS);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "p95"), 10 * MS);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "p99"), 10 * MS);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "max"), 10 * MS);
  CHECK_EQ_U64 (fx_stat (g, "command_ns", "total"), 55 * MS);
  CHECK (jv_get (jv_get (jv_get (g, "metrics"), "command_ns"), "p99_9")->type == JV_NULL,
         "p99.9 is null below 1000 samples");
  CHECK_EQ_STR (jv_get (jv_get (jv_get (g, "metrics"), "command_ns"), "mean")->s, "5500000");
  CHECK_EQ_U64 (fx_stat (g, "input_to_flush_max_ns", "median"), 6 * MS + 280 * US);
  CHECK_EQ_U64 (fx_stat (g, "input_to_flush_max_ns", "p90"), 10 * MS + 280 * US);
  CHECK_EQ_U64 (fx_stat (g, "input_to_flush_max_ns", "p99"), 11 * MS + 280 * US);
  /* min bound = max bound - uncertainty: i = 1 gives 2.28 ms - 10 us. */
  CHECK_EQ_U64 (fx_stat (g, "input_to_flush_min_ns", "min"), 2 * MS + 270 * US);
  CHECK_EQ_U64 (fx_stat (g, "input_uncertainty_ns", "median"), 50 * US);
  CHECK_EQ_U64 (fx_stat (g, "input_uncertainty_ns", "max"), 100 * US);
  CHECK_EQ_U64 (fx_stat (g, "tty_emit_ns", "max"), 30 * US);
  CHECK_EQ_U64 (fx_stat (g, "wall_ns", "median"), 5 * MS + 280 * US);
  CHECK_EQ_U64 (fx_stat (g, "main_cpu_ns", "max"), 5 * MS);
  /* Never recorded: n = 0 and every statistic null, not 0. */
  CHECK_EQ_U64 (fx_stat (g, "batch_ready_wait_ns", "n"), 0);
  CHECK (jv_get (jv_get (jv_get (g, "metrics"), "batch_ready_wait_ns"), "min")->type == JV_NULL,
         "absent metric has a null minimum");
}

static void
check_others (const struct jv *doc)
{
  const struct jv *s = fx_group (doc, "tty_command", "superseded");
  CHECK (s != NULL, "superseded group");
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "interactions")), 3);
  CHECK_EQ_U64 (fx_stat (s, "command_ns", "median"), 3 * MS);
  CHECK_EQ_U64 (fx_stat (s, "input_to_flush_max_ns", "n"), 0);
  CHECK_EQ_STR (jv_str (jv_get (s, "primary_metric")), "input_to_command_max_ns");
  /* input ends at B - 1 ms + 30 us, command ends at B + k ms. */
  CHECK_EQ_U64 (fx_stat (s, "input_to_command_max_ns", "median"), 4 * MS);
  CHECK_EQ_U64 (fx_stat (s, "input_to_command_min_ns", "median"), 4 * MS - 30 * US);

  const struct jv *o = fx_group (doc, "tty_command", "no_output");
  CHECK (o != NULL, "tty no-output group");
  CHECK_EQ_U64 (fx_stat (o, "input_to_command_max_ns", "n"), 1);
  CHECK_EQ_U64 (fx_stat (o, "input_to_command_max_ns", "max"), 5 * MS);
  CHECK_EQ_U64 (fx_stat (o, "input_to_command_min_ns", "n"), 0);
  CHECK_EQ_U64 (fx_stat (o, "input_uncertainty_ns", "n"), 0);
  /* No root work, redisplay or flush end: wall falls back to t_interaction_end. */
  CHECK_EQ_U64 (fx_stat (o, "wall_ns", "n"), 1);

  const struct jv *t = fx_group (doc, "timer", "no_output");
  CHECK (t != NULL, "timer group");
  CHECK_EQ_U64 (fx_stat (t, "wall_ns", "min"), 300 * US);
  CHECK_EQ_U64 (fx_stat (t, "wall_ns", "max"), 500 * US);
  CHECK_EQ_U64 (fx_stat (t, "wall_ns", "total"), 800 * US);
  CHECK_EQ_U64 (fx_stat (t, "command_ns", "n"), 0);

  const struct jv *ix = jv_get (doc, "interactions");
  CHECK_EQ_U64 (jv_u64 (jv_get (ix, "total")), 16);
  CHECK_EQ_U64 (jv_u64 (jv_get (ix, "flushed")), 10);
  CHECK_EQ_U64 (jv_u64 (jv_get (ix, "no_output")), 3);
  CHECK_EQ_U64 (jv_u64 (jv_get (ix, "superseded")), 3);

  /* Unavailable boundaries, per population. */
  const struct jv *u = jv_get (doc, "unavailable");
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (u, "flushed"), "missing"), "t_input_ready")), 10);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (u, "flushed"), "missing"), "t_flush_end")), 0);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (u, "no_output"), "missing"), "t_input_earliest")),
                2);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (u, "no_output"), "missing"), "t_input_latest")), 3);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (u, "superseded"), "missing"), "t_flush_end")), 3);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (u, "superseded"), "missing"), "thread_cpu_end")),
                3);
}

static void
check_tail (const struct jv *doc)
{
  const struct jv *t = jv_get (doc, "tail");
  CHECK (t && t->type == JV_OBJ, "a tail interaction");
  CHECK_EQ_STR (jv_str (jv_get (t, "reason")), "tail");
  CHECK_EQ_STR (jv_str (jv_get (t, "metric")), "latency_lower_ns");
  CHECK_EQ_U64 (jv_u64 (jv_get (t, "rank")), 10);
  CHECK_EQ_U64 (jv_u64 (jv_get (t, "of")), 10);
  CHECK_EQ_U64 (jv_u64 (jv_get (t, "cause")), tail_cause);
  CHECK_EQ_U64 (jv_u64 (jv_get (t, "value_ns")), 11 * MS + 150 * US);
  const struct jv *s = jv_get (t, "split");
  uint64_t wall = 10 * MS + 280 * US, cpu = 5 * MS;
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "wall_ns")), wall);
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "main_cpu_ns")), cpu);
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "wait_spans")), 1);
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "measured_wait_ns")), wait_ns_expected);
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "unknown_off_cpu_ns")), wall - cpu - wait_ns_expected);
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "unknown_off_cpu_excess_ns")), 0);
  CHECK_EQ_U64 (jv_u64 (jv_get (s, "tty_emit_ns")), 30 * US);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (t, "counters"), "tty_bytes")), 110);
  /* Rows: the input interval, then the one span. */
  const struct jv *rows = jv_get (t, "rows");
  CHECK (rows && rows->n == 2, "two waterfall rows");
  CHECK_EQ_STR (jv_str (jv_get (jv_at (rows, 0), "type")), "input");
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (rows, 0), "end_ns")) - jv_u64 (jv_get (jv_at (rows, 0),
                                                                              "start_ns")),
                100 * US);
  CHECK_EQ_STR (jv_str (jv_get (jv_at (rows, 1), "name")), "wait");
  const struct jv *slow = jv_get (jv_get (doc, "slowest"), "interactions");
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (slow, 0), "cause")), tail_cause);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (slow, 1), "value_ns")), 10 * MS + 160 * US);
}

/* The first screen: tty_command by its flushed group's headline, the
   timers (no input, no output) by their wall time; the five slowest with
   their dominant phase (the command: i ms against 200 us of redisplay). */
static void
check_headline (const struct jv *doc)
{
  const struct jv *h = jv_get (doc, "headline");
  CHECK (h && h->type == JV_OBJ, "a headline");
  CHECK_EQ_STR (jv_str (jv_get (h, "metric")), "latency_lower_ns");
  const struct jv *kinds = jv_get (h, "kinds");
  CHECK (kinds && kinds->n == 2, "two root kinds on the first screen");
  const struct jv *k0 = jv_at (kinds, 0);
  CHECK_EQ_STR (jv_str (jv_get (k0, "root_kind")), "tty_command");
  CHECK_EQ_STR (jv_str (jv_get (k0, "population")), "flushed");
  CHECK_EQ_U64 (jv_u64 (jv_get (k0, "n")), 10);
  CHECK_EQ_U64 (jv_u64 (jv_get (k0, "median")), 6 * MS + 200 * US);
  CHECK_EQ_U64 (jv_u64 (jv_get (k0, "max")), 11 * MS + 150 * US);
  CHECK_EQ_U64 (jv_u64 (jv_at (jv_get (k0, "over"), 0)), 0);
  CHECK_EQ_U64 (jv_u64 (jv_get (k0, "idle_median")), 50 * US);
  const struct jv *k1 = jv_at (kinds, 1);
  CHECK_EQ_STR (jv_str (jv_get (k1, "root_kind")), "timer");
  CHECK_EQ_STR (jv_str (jv_get (k1, "metric")), "wall_ns");
  const struct jv *s = jv_get (h, "slowest");
  CHECK (s && s->n == 5, "five slowest");
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (s, 0), "cause")), tail_cause);
  CHECK_EQ_STR (jv_str (jv_get (jv_at (s, 0), "dominant_phase")), "command_ns");
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (s, 0), "dominant_phase_ns")), 10 * MS);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (s, 1), "latency_lower_ns")), 10 * MS + 160 * US);
  CHECK_EQ_U64 (jv_u64 (jv_get (jv_at (s, 1), "latency_upper_ns")), 10 * MS + 280 * US);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    TEST_DONE ();
  char *path = tu_strf ("%s/golden.emlat", dir);
  record (path);

  struct tu_result r;
  if (fx_emlat (&r, "report", "--json", path, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "report exit 0 (got %d): %s", r.exit_code, r.err);
      struct jv *doc = fx_json (&r);
      if (doc)
        {
          CHECK_EQ_STR (jv_str (jv_get (doc, "schema")), "emlat-report/1");
          check_flushed (doc);
          check_others (doc);
          check_tail (doc);
          check_headline (doc);
          CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (doc, "losses"), "loss_records")), 0);
          jv_free (doc);
        }
      tu_result_free (&r);
    }

  /* --interaction picks another; an unknown one is exit 2. */
  if (fx_emlat (&r, "report", "--json", "--interaction", "1", path, NULL) == 0)
    {
      struct jv *doc = fx_json (&r);
      CHECK_EQ_STR (jv_str (jv_get (jv_get (doc, "tail"), "reason")), "requested");
      CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (doc, "tail"), "cause")), 1);
      CHECK_EQ_U64 (jv_u64 (jv_get (jv_get (jv_get (doc, "tail"), "split"), "wall_ns")),
                    1 * MS + 280 * US);
      jv_free (doc);
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "report", "--interaction", "99999", path, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 2, "unknown --interaction: exit 2 (got %d)", r.exit_code);
      CHECK_CONTAINS (r.err, "no interaction with cause id 99999");
      tu_result_free (&r);
    }

  /* Text: 80 columns, plain ASCII when not a terminal, the numbers. */
  if (fx_emlat (&r, "report", path, NULL, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 0, "text report exit 0");
      size_t col = 0, widest = 0;
      int ascii = 1;
      for (size_t i = 0; i < r.out_len; i++)
        {
          if ((unsigned char)r.out[i] >= 0x80)
            ascii = 0;
          col = r.out[i] == '\n' ? 0 : col + 1;
          if (col > widest)
            widest = col;
        }
      CHECK (widest <= 80, "text lines are at most 80 columns (widest %zu)", widest);
      CHECK (ascii, "plain ASCII when stdout is not a terminal");
      CHECK_CONTAINS (r.out, "tty command, flushed: 10 interactions");
      CHECK_CONTAINS (r.out, "How fast is it?");
      CHECK_CONTAINS (r.out, "  tty command            10  6.20ms  10.2ms  11.2ms  11.2ms      0      0      0");
      CHECK_CONTAINS (r.out, "    upper bound: median 6.28ms, p99 11.3ms; idle: median 50.0us, p99 100us");
      CHECK_CONTAINS (r.out, "  timer *");
      CHECK_CONTAINS (r.out, "    timer: wall time");
      CHECK_CONTAINS (r.out, "The 5 slowest, by latency, lower bound");
      CHECK_CONTAINS (r.out, "11.2ms  11.3ms   100us  command 10.0ms");
      CHECK_CONTAINS (r.out, "  latency, lower bound      10  2.24ms  6.20ms  10.2ms  11.2ms  11.2ms");
      CHECK_CONTAINS (r.out, "  idle before arrival       10  10.0us  50.0us  90.0us   100us   100us");
      CHECK_CONTAINS (r.out, "chosen as the p99 of latency_lower_ns: rank 10 of 10, 11.2ms");
      CHECK_CONTAINS (r.out, "no LOSS records");
      tu_result_free (&r);
    }
  if (fx_emlat (&r, "report", "--unicode", path, NULL, NULL, NULL) == 0)
    {
      CHECK (strstr (r.out, "\u2502") != NULL, "--unicode draws box characters");
      tu_result_free (&r);
    }

  /* Usage and unusable input. */
  if (fx_emlat (&r, "report", NULL, NULL, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 2, "no FILE: exit 2");
      tu_result_free (&r);
    }
  char *missing = tu_strf ("%s/missing.emlat", dir);
  if (fx_emlat (&r, "report", missing, NULL, NULL, NULL, NULL) == 0)
    {
      CHECK (r.exited && r.exit_code == 2, "missing file: exit 2 (got %d)", r.exit_code);
      CHECK_CONTAINS (r.err, missing);
      tu_result_free (&r);
    }
  free (missing);
  free (path);
  TEST_DONE ();
}
