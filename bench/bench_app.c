/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_app.c -- what the application API (include/emlat/emlat_app.h)
 * costs the calling thread, disabled and enabled.
 *
 *   bench_app [--runs R] [--batch N]
 *       Timed mode, like bench_producer: each run makes N calls back to
 *       back on one thread, timed with the profiler clock; R runs, median
 *       per call.  "METRIC name value unit" lines for bench/run.sh:
 *         app_disabled_call_ns      one EMLAT_SECTION_BEGIN or
 *                                   emlat_section_end with no session (a
 *                                   load and a branch, inlined)
 *         app_disabled_counter_ns   one EMLAT_COUNTER with no session
 *         app_section_record_ns     one named-section record (half a
 *                                   begin/end pair), clock read included
 *         app_section_record_ex_clock_ns   the same minus one clock read
 *         app_scope_pair_ns         one EMLAT_SCOPE block (begin + end)
 *         app_counter_record_ns     one EMLAT_COUNTER record
 *         app_instant_record_ns     one EMLAT_INSTANT record
 *         app_records_dropped       must be 0, or the numbers are invalid
 *
 *   bench_app --callgrind sections|disabled N
 *       For instruction counts: the setup, then hot_sections (N named
 *       section pairs) with or without a session, once; bench/run.sh
 *       divides the difference of two runs by the difference of N.
 *
 * Invariants: the ring holds a whole batch (no drops while timing); the
 * file goes to a new directory under $TMPDIR, removed at the end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat.h"

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static double
median_per (uint64_t *v, size_t n, uint64_t per)
{
  qsort (v, n, sizeof *v, cmp_u64);
  uint64_t m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return (double)m / (double)per;
}

/* The measured loops; noinline so that callgrind can toggle on them. */
__attribute__ ((noinline)) static void
hot_sections (uint64_t n)
{
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t s = EMLAT_SECTION_BEGIN ("bench");
      emlat_section_end (s);
    }
}

__attribute__ ((noinline)) static void
hot_scopes (uint64_t n)
{
  for (uint64_t i = 0; i < n; i++)
    {
      EMLAT_SCOPE ("scope");
      __asm__ volatile ("" ::: "memory");
    }
}

__attribute__ ((noinline)) static void
hot_counters (uint64_t n)
{
  for (uint64_t i = 0; i < n; i++)
    EMLAT_COUNTER ("queue", (int64_t)i);
}

__attribute__ ((noinline)) static void
hot_instants (uint64_t n)
{
  for (uint64_t i = 0; i < n; i++)
    EMLAT_INSTANT ("tick");
}

static volatile uint64_t sink;

__attribute__ ((noinline)) static void
hot_clock (uint64_t n)
{
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; i++)
    x += emlat_now ();
  sink = x;
}

static char dir[4096];

static int
start_session (uint32_t ring_slots)
{
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/emlat-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      fprintf (stderr, "bench_app: mkdtemp: %s\n", strerror (errno));
      return -1;
    }
  char path[4200];
  snprintf (path, sizeof path, "%s/bench.emlat", dir);
  struct emlat_options opt = { .path = path, .ring_slots = ring_slots };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      fprintf (stderr, "bench_app: emlat_start: %s\n", strerror (-rc));
      rmdir (dir);
      return -1;
    }
  return 0;
}

static void
stop_session (void)
{
  struct emlat_status st;
  emlat_stop ();
  emlat_status (&st);
  unlink (st.path);
  rmdir (dir);
}

static int
callgrind_mode (const char *what, uint64_t n)
{
  if (strcmp (what, "disabled") == 0)
    {
      hot_sections (n);
      return 0;
    }
  if (strcmp (what, "sections") != 0)
    {
      fprintf (stderr, "bench_app: --callgrind sections|disabled N\n");
      return 2;
    }
  uint32_t slots = 1024;
  while (slots < 2 * n + 1024 && slots < (1u << 24))
    slots <<= 1;
  if (start_session (slots) != 0)
    return 1;
  /* The first record claims the ring and interns the name: outside. */
  hot_sections (1);
  hot_sections (n);
  stop_session ();
  return 0;
}

/* R runs of FN (BATCH calls each, CALLS_PER records per call): the median
   ns per call. */
static double
timed (void (*fn) (uint64_t), uint64_t runs, uint64_t batch, uint64_t *v, int flush)
{
  for (uint64_t r = 0; r < runs; r++)
    {
      uint64_t t0 = emlat_now ();
      fn (batch);
      v[r] = emlat_now () - t0;
      if (flush)
        emlat_flush ();
    }
  return median_per (v, runs, batch);
}

int
main (int argc, char **argv)
{
  uint64_t runs = 201, batch = 4096;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--callgrind") == 0 && i + 2 < argc)
        return callgrind_mode (argv[i + 1], strtoull (argv[i + 2], NULL, 10));
      else if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        runs = strtoull (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--batch") == 0 && i + 1 < argc)
        batch = strtoull (argv[++i], NULL, 10);
      else
        {
          fprintf (stderr, "usage: bench_app [--runs R] [--batch N]\n"
                           "       bench_app --callgrind sections|disabled N\n");
          return 2;
        }
    }
  if (runs == 0 || batch == 0 || batch > 1u << 20)
    {
      fprintf (stderr, "bench_app: bad --runs or --batch\n");
      return 2;
    }
  uint64_t *v = calloc (runs, sizeof *v);
  if (!v)
    return 1;

  double clock_ns = timed (hot_clock, runs, batch, v, 0);
  /* No session: each pair is two disabled calls. */
  double disabled_pair = timed (hot_sections, runs, batch, v, 0);
  double disabled_counter = timed (hot_counters, runs, batch, v, 0);

  uint32_t slots = 1024;
  while (slots < 2 * batch + 1024)
    slots <<= 1;
  if (start_session (slots) != 0)
    return 1;
  hot_sections (1);
  hot_scopes (1);
  hot_counters (1);
  hot_instants (1);
  emlat_flush ();
  double pair = timed (hot_sections, runs, batch, v, 1);
  double scope = timed (hot_scopes, runs, batch, v, 1);
  double counter = timed (hot_counters, runs, batch, v, 1);
  double instant = timed (hot_instants, runs, batch, v, 1);
  struct emlat_status st;
  emlat_flush ();
  emlat_status (&st);
  uint64_t dropped = st.records_dropped;
  stop_session ();

  printf ("METRIC app_disabled_call_ns %.3f ns\n", disabled_pair / 2);
  printf ("METRIC app_disabled_counter_ns %.3f ns\n", disabled_counter);
  printf ("METRIC app_section_record_ns %.2f ns\n", pair / 2);
  printf ("METRIC app_section_record_ex_clock_ns %.2f ns\n", pair / 2 - clock_ns);
  printf ("METRIC app_scope_pair_ns %.2f ns\n", scope);
  printf ("METRIC app_counter_record_ns %.2f ns\n", counter);
  printf ("METRIC app_instant_record_ns %.2f ns\n", instant);
  printf ("METRIC app_records_dropped %llu records\n", (unsigned long long)dropped);
  free (v);
  return dropped ? 1 : 0;
}
