/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_bench.c -- `emlat bench`: what recording costs on this machine, in
 * a few seconds, for a user deciding whether to leave profiling on.
 *
 * Measures through the public producer API, in a scratch directory that is
 * removed afterwards: the profiler clock's read cost, the thread CPU
 * clock's (a system call), one span record
 * (timed, median of runs), bytes per span on disk, and the highest rate of
 * span records the writer sustains without loss (bisection over short
 * trials with the library's default ring and drain interval).  The
 * developers' benchmarks (bench/, `make bench`) measure the same things
 * more thoroughly, with instruction counts; docs/PERFORMANCE.md has their
 * numbers.
 *
 * Exit codes: 0 measured, 1 a measurement could not be made (the reason is
 * printed) or a write error, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "emlat/emlat.h"

struct bench_ctx
{
  char dir[4096];
  unsigned trial;
};

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

static int
start (struct bench_ctx *b, char *path, size_t len, uint32_t ring_slots)
{
  snprintf (path, len, "%s/trial-%u.emlat", b->dir, b->trial++);
  struct emlat_options o = { .path = path, .ring_slots = ring_slots };
  int rc = emlat_start (&o);
  if (rc != 0)
    emlat_cli_error (path, UINT64_MAX, "cannot start a session: %s", strerror (-rc));
  return rc;
}

/* Stop, report drops and written records, remove the file. */
static void
stop (const char *path, uint64_t *dropped, uint64_t *bytes)
{
  struct emlat_status st;
  emlat_stop ();
  emlat_status (&st);
  struct stat sb;
  if (dropped)
    *dropped = st.records_dropped;
  if (bytes)
    *bytes = stat (path, &sb) == 0 ? (uint64_t)sb.st_size : st.bytes_written;
  unlink (path);
}

/* ns per span record (half a begin/end pair), clock read included. */
static int
span_cost (struct bench_ctx *b, double *out)
{
  enum { RUNS = 7, PAIRS = 100000 };
  double v[RUNS];
  char path[4200];
  if (start (b, path, sizeof path, 1u << 19) != 0)
    return -1;
  for (int r = 0; r < RUNS; r++)
    {
      uint64_t t0 = emlat_now ();
      for (int i = 0; i < PAIRS; i++)
        emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
      v[r] = (double)(emlat_now () - t0) / (2.0 * PAIRS);
      emlat_flush (); /* outside the timed region: the ring never fills */
    }
  uint64_t dropped;
  stop (path, &dropped, 0);
  *out = median (v, RUNS);
  return dropped ? -1 : 0;
}

/* ns per call of READ (a clock): the median of 9 runs of CALLS calls,
   each run timed with the profiler clock. */
static double
read_cost (uint64_t (*read) (void), int calls)
{
  enum { RUNS = 9 };
  double v[RUNS];
  for (int r = 0; r < RUNS; r++)
    {
      uint64_t t0 = emlat_now ();
      for (int i = 0; i < calls; i++)
        (void)read ();
      v[r] = (double)(emlat_now () - t0) / calls;
    }
  return median (v, RUNS);
}

static int
bytes_per_span (struct bench_ctx *b, double *out)
{
  enum { PAIRS = 200000 };
  char path[4200];
  uint64_t empty, full, dropped;
  if (start (b, path, sizeof path, 0) != 0)
    return -1;
  stop (path, 0, &empty);
  if (start (b, path, sizeof path, 0) != 0)
    return -1;
  for (int i = 0; i < PAIRS; i++)
    {
      emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
      if (i % 8192 == 8191)
        emlat_flush ();
    }
  stop (path, &dropped, &full);
  *out = (double)(full - empty) / PAIRS;
  return dropped ? -1 : 0;
}

static void
sleep_ns (uint64_t ns)
{
  struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
  nanosleep (&ts, 0);
}

/* One trial: span records at RATE per second for SECONDS; dropped count. */
static int
trial (struct bench_ctx *b, double rate, double seconds, uint64_t *dropped)
{
  char path[4200];
  if (start (b, path, sizeof path, 0) != 0)
    return -1;
  uint64_t t0 = emlat_now (), end = t0 + (uint64_t)(seconds * 1e9), pairs = 0;
  double pps = rate / 2;
  for (;;)
    {
      uint64_t now = emlat_now ();
      if (now >= end)
        break;
      uint64_t due = t0 + (uint64_t)((double)pairs / pps * 1e9);
      if (due > now)
        {
          sleep_ns (due - now);
          continue;
        }
      for (int i = 0; i < 256; i++)
        emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
      pairs += 256;
    }
  stop (path, dropped, 0);
  return 0;
}

/* The highest rate (records/s) with zero loss, by bisection. */
static int
zero_loss_rate (struct bench_ctx *b, int steps, double *out)
{
  double lo = 0, hi = 64e6;
  for (int s = 0; s < steps; s++)
    {
      double mid = (lo + hi) / 2;
      uint64_t dropped;
      if (trial (b, mid, 0.3, &dropped) != 0)
        return -1;
      if (dropped == 0)
        lo = mid;
      else
        hi = mid;
    }
  /* Every step lost records (a slow or busy machine): halve until a rate
     passes, so the answer is a measured rate, not 0. */
  while (lo == 0 && hi > 1000)
    {
      hi /= 2;
      uint64_t dropped;
      if (trial (b, hi, 0.3, &dropped) != 0)
        return -1;
      if (dropped == 0)
        lo = hi;
    }
  *out = lo;
  return 0;
}

static void
usage (FILE *f)
{
  fputs ("usage: emlat bench [--json] [--quick]\n"
         "\n"
         "Measure what recording costs on this machine (a few seconds):\n"
         "the profiler clock's read cost, the thread CPU clock's, one span\n"
         "record, bytes per span on disk, and the highest span-record rate\n"
         "the writer sustains without loss.  Files go to a scratch\n"
         "directory under $TMPDIR that is removed.  `make bench` measures\n"
         "more (docs/PERFORMANCE.md).\n"
         "\n"
         "  --json       one JSON object on stdout\n"
         "  --quick      fewer bisection steps for the writer rate\n"
         "  -h, --help   this text;  -V, --version  the version\n"
         "\n"
         "Exit codes: 0 measured; 1 a measurement failed (the reason is\n"
         "printed), or a write error; 2 invalid arguments.\n",
         f);
}

static int
cmd_bench (int argc, char **argv)
{
  static const struct option opts[] = { { "json", no_argument, 0, 'j' },
                                        { "quick", no_argument, 0, 'q' },
                                        { "help", no_argument, 0, 'h' },
                                        { "version", no_argument, 0, 'V' },
                                        { 0, 0, 0, 0 } };
  int json = 0, quick = 0, c;
  while ((c = getopt_long (argc, argv, ":jqhV", opts, 0)) != -1)
    switch (c)
      {
      case 'j': json = 1; break;
      case 'q': quick = 1; break;
      case 'h': usage (stdout); return EMLAT_EXIT_OK;
      case 'V': emlat_cli_version ("bench"); return EMLAT_EXIT_OK;
      default: return emlat_cli_bad_option ("bench", c, argv, opts);
      }
  if (optind != argc)
    return emlat_cli_usage_error ("bench", "unexpected argument '%s'", argv[optind]);
  if (emlat_active ())
    {
      emlat_cli_error (0, UINT64_MAX, "a recording session is already active");
      return EMLAT_EXIT_FAIL;
    }
  struct bench_ctx b = { .trial = 0 };
  const char *tmp = getenv ("TMPDIR");
  snprintf (b.dir, sizeof b.dir, "%s/emlat-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (b.dir))
    {
      emlat_cli_error (b.dir, UINT64_MAX, "cannot create a scratch directory: %s",
                       strerror (errno));
      return EMLAT_EXIT_FAIL;
    }
  /* The profiler clock, and the thread CPU clock (a system call), which a
     profiled Emacs reads twice per interaction unless
     `latency-profile-thread-cpu' is nil. */
  double clk = read_cost (emlat_now, 100000), cpu = read_cost (emlat_thread_cpu_now, 10000);
  double span = 0, bps = 0, rate = 0;
  int failed = 0;
  if (!json)
    emlat_cli_error (NULL, UINT64_MAX, "measuring (a few seconds)...");
  if (span_cost (&b, &span) != 0)
    failed = 1;
  if (!failed && bytes_per_span (&b, &bps) != 0)
    failed = 1;
  if (!failed && zero_loss_rate (&b, quick ? 5 : 8, &rate) != 0)
    failed = 1;
  rmdir (b.dir);
  if (failed)
    {
      emlat_cli_error (0, UINT64_MAX, "a measurement lost records or could not run");
      return EMLAT_EXIT_FAIL;
    }
  if (json)
    {
      printf ("{\"clock_read_ns\":%.2f,\"thread_cpu_read_ns\":%.2f,\"span_record_ns\":%.2f,"
              "\"bytes_per_span\":%.2f,\"writer_zero_loss_records_per_s\":%.0f}\n",
              clk, cpu, span, bps, rate);
      return EMLAT_EXIT_OK;
    }
  printf ("profiler clock read          %8.1f ns\n", clk);
  printf ("thread CPU clock read        %8.1f ns (a system call)\n", cpu);
  printf ("one span record (with clock) %8.1f ns\n", span);
  printf ("bytes per span on disk       %8.2f\n", bps);
  printf ("writer, zero loss            %8.1f M records/s (lower bound of the bisection)\n",
          rate / 1e6);
  printf ("\nA terminal command in Emacs records about 30-100 records; at these costs\n"
          "that is %.1f-%.1f us of the recording thread per interaction, plus\n"
          "%.1f us for its two thread CPU readings (latency-profile-thread-cpu).\n",
          30 * span / 1000, 100 * span / 1000, 2 * cpu / 1000);
  return EMLAT_EXIT_OK;
}

EMLAT_VERB (bench_verb, "bench", "measure what recording costs on this machine", cmd_bench)
