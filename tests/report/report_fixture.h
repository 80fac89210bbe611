/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_fixture.h -- what the report tests share (header only): record a
 * session through the public producer API with timestamps the test
 * chooses (emlat_ix_time), run the emlat binary on it and parse its JSON.
 *
 * Every interaction written by fx_flushed / fx_no_output has exactly the
 * boundaries its arguments say, so a test can compute every derived
 * number by hand.  Times are nanoseconds of the profiler clock; the
 * fixture's base is far in the past of the real clock, so no real
 * timestamp (span, interaction end) collides with a chosen one unless a
 * test wants it to.
 */
#ifndef EMLAT_TEST_REPORT_FIXTURE_H
#define EMLAT_TEST_REPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "jsonv.h"
#include "tap.h"
#include "testutil.h"

#define US 1000ull
#define MS 1000000ull

/* Start a session writing PATH with the identity metadata of the report
   tests; VERSION and ROWS vary it (for the comparison guards). */
static __attribute__ ((unused)) int
fx_start (const char *path, const char *version, uint64_t rows, uint32_t ring_slots)
{
  static const char name[] = "golden", term[] = "xterm", wl[] = "golden-1";
  struct emlat_meta meta[] = {
    { .key = "program.name", .type = EMLAT_META_STR, .s = name, .s_len = sizeof name - 1 },
    { .key = "program.version", .type = EMLAT_META_STR, .s = version, .s_len = strlen (version) },
    { .key = "tty.term", .type = EMLAT_META_STR, .s = term, .s_len = sizeof term - 1 },
    { .key = "tty.rows", .type = EMLAT_META_UINT, .u = rows },
    { .key = "tty.cols", .type = EMLAT_META_UINT, .u = 80 },
    { .key = "replay.workload", .type = EMLAT_META_STR, .s = wl, .s_len = sizeof wl - 1 },
  };
  struct emlat_options o = { .path = path, .meta = meta, .n_meta = sizeof meta / sizeof meta[0],
                             .ring_slots = ring_slots };
  int rc = emlat_start (&o);
  CHECK (rc == 0, "emlat_start %s: %d", path, rc);
  return rc;
}

static __attribute__ ((unused)) void
fx_stop (void)
{
  int rc = emlat_stop ();
  CHECK (rc == 0, "emlat_stop: %d", rc);
}

/* A TTY-like interaction that flushed output:
     input arrival [B, B + UNC], dispatch and command begin at B + 1 ms,
     command of CMD ns, root work ends with it, redisplay 50 us later for
     200 us, output begins at its end, flush ends 30 us later;
     thread CPU readings 0 and CPU.
   So: command_ns = CMD, input_uncertainty_ns = UNC,
   input_to_flush_max_ns = 1 ms + CMD + 280 us, _min = that - UNC,
   wall_ns = CMD + 280 us, tty_emit_ns = 30 us, main_cpu_ns = CPU.
   Returns the cause id. */
static __attribute__ ((unused)) uint64_t
fx_flushed (enum emlat_root_kind kind, uint64_t b, uint64_t unc, uint64_t cmd, uint64_t cpu)
{
  uint64_t c = emlat_ix_begin (kind, 0, 0);
  uint64_t d = b + 1 * MS, ce = d + cmd, rb = ce + 50 * US, re = rb + 200 * US;
  emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, b);
  emlat_ix_time (c, EMLAT_T_INPUT_LATEST, b + unc);
  emlat_ix_time (c, EMLAT_T_DISPATCH_BEGIN, d);
  emlat_ix_time (c, EMLAT_T_COMMAND_BEGIN, d);
  emlat_ix_time (c, EMLAT_T_COMMAND_END, ce);
  emlat_ix_time (c, EMLAT_T_ROOT_WORK_END, ce);
  emlat_ix_time (c, EMLAT_T_REDISPLAY_BEGIN, rb);
  emlat_ix_time (c, EMLAT_T_REDISPLAY_END, re);
  emlat_ix_time (c, EMLAT_T_OUTPUT_BEGIN, re);
  emlat_ix_time (c, EMLAT_T_FLUSH_END, re + 30 * US);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, 0);
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, cpu);
  emlat_ix_count (c, EMLAT_C_TTY_BYTES, 100 + cmd / MS);
  emlat_ix_count (c, EMLAT_C_ROWS_GENERATED, 3);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  return c;
}

/* An interaction without output: dispatch at B, root work ends at B + WORK;
   with input bounds [B - 1 ms, B - 1 ms + UNC] when UNC != UINT64_MAX and a
   command [B, B + WORK] when CMD is set.  STATUS as given. */
static __attribute__ ((unused)) uint64_t
fx_no_output (enum emlat_root_kind kind, uint64_t b, uint64_t work, uint64_t unc, int cmd,
              enum emlat_ix_status status)
{
  uint64_t c = emlat_ix_begin (kind, 0, 0);
  if (unc != UINT64_MAX)
    {
      emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, b - 1 * MS);
      emlat_ix_time (c, EMLAT_T_INPUT_LATEST, b - 1 * MS + unc);
    }
  emlat_ix_time (c, EMLAT_T_DISPATCH_BEGIN, b);
  if (cmd)
    {
      emlat_ix_time (c, EMLAT_T_COMMAND_BEGIN, b);
      emlat_ix_time (c, EMLAT_T_COMMAND_END, b + work);
    }
  emlat_ix_time (c, EMLAT_T_ROOT_WORK_END, b + work);
  emlat_ix_end (c, status);
  return c;
}

/* Run `emlat ARGS...` (NULL-terminated); its output in *RES. */
static __attribute__ ((unused)) int
fx_emlat (struct tu_result *res, const char *a0, const char *a1, const char *a2, const char *a3,
          const char *a4, const char *a5)
{
  const char *env = getenv ("EMLAT");
  char *bin = env && *env ? strdup (env) : tu_build_path ("emlat");
  char *argv[] = { bin, (char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5,
                   NULL };
  struct tu_cmd cmd = { .argv = argv, .timeout_ms = 60000 };
  int rc = tu_run (&cmd, res);
  free (bin);
  CHECK (rc == 0, "could not run emlat: %d", rc);
  return rc;
}

/* Parse RES's stdout as one JSON document (checked). */
static __attribute__ ((unused)) struct jv *
fx_json (const struct tu_result *res)
{
  size_t at = 0;
  struct jv *v = jv_parse (res->out, res->out_len, &at);
  CHECK (v != NULL, "stdout is not one JSON document (error at byte %zu): %.200s", at, res->out);
  return v;
}

/* The group of ROOT_KIND / POP in a report document. */
static __attribute__ ((unused)) struct jv *
fx_group (const struct jv *doc, const char *kind, const char *pop)
{
  struct jv *g = jv_get (doc, "groups");
  for (size_t i = 0; g && i < g->n; i++)
    {
      const char *k = jv_str (jv_get (g->items[i], "root_kind"));
      const char *p = jv_str (jv_get (g->items[i], "population"));
      if (k && p && strcmp (k, kind) == 0 && strcmp (p, pop) == 0)
        return g->items[i];
    }
  return NULL;
}

/* Statistic STAT of METRIC in group G; UINT64_MAX when absent or null. */
static __attribute__ ((unused)) uint64_t
fx_stat (const struct jv *g, const char *metric, const char *stat)
{
  return jv_u64 (jv_get (jv_get (jv_get (g, "metrics"), metric), stat));
}

#endif /* EMLAT_TEST_REPORT_FIXTURE_H */
