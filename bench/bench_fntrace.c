/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_fntrace.c -- what -finstrument-functions tracing adds to a call
 * (docs/API.md "Function tracing").  Built with -finstrument-functions
 * (Makefile): callee_traced is instrumented; callee_plain, the same
 * function, is not (no_instrument_function), and neither is the timing
 * code.
 *
 *   bench_fntrace [--runs R] [--batch N]
 *       METRIC lines for bench/run.sh:
 *         fntrace_plain_call_ns      a call of the uninstrumented function
 *         fntrace_disabled_call_ns   an instrumented call without a session
 *                                    (both hooks: a load and a branch each)
 *         fntrace_call_ns            an instrumented call with a session
 *                                    (two records, two clock reads)
 *         fntrace_added_ns           fntrace_call_ns - fntrace_plain_call_ns
 *         fntrace_records_dropped    must be 0
 *   bench_fntrace --callgrind on|off N
 *       hot_traced (N instrumented calls) with or without a session, for
 *       instruction counts (bench/run.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat.h"

#define NOI __attribute__ ((no_instrument_function))

static volatile uint64_t sink;

__attribute__ ((noinline)) static uint64_t
callee_traced (uint64_t x)
{
  return x * 3 + 1;
}

NOI __attribute__ ((noinline)) static uint64_t
callee_plain (uint64_t x)
{
  return x * 3 + 1;
}

NOI __attribute__ ((noinline)) static void
hot_traced (uint64_t n)
{
  uint64_t s = 0;
  for (uint64_t i = 0; i < n; i++)
    s += callee_traced (i);
  sink = s;
}

NOI __attribute__ ((noinline)) static void
hot_plain (uint64_t n)
{
  uint64_t s = 0;
  for (uint64_t i = 0; i < n; i++)
    s += callee_plain (i);
  sink = s;
}

NOI static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

NOI static double
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
  qsort (v, runs, sizeof *v, cmp_u64);
  uint64_t m = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
  return (double)m / (double)batch;
}

static char dir[4096];

NOI static int
start_session (uint32_t slots)
{
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/emlat-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    return -1;
  char path[4200];
  snprintf (path, sizeof path, "%s/bench.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = slots };
  if (emlat_start (&o) != 0)
    {
      rmdir (dir);
      return -1;
    }
  return 0;
}

NOI static void
stop_session (void)
{
  struct emlat_status st;
  emlat_stop ();
  emlat_status (&st);
  unlink (st.path);
  rmdir (dir);
}

NOI int
main (int argc, char **argv)
{
  uint64_t runs = 201, batch = 4096;
  if (argc == 4 && strcmp (argv[1], "--callgrind") == 0)
    {
      uint64_t n = strtoull (argv[3], NULL, 10);
      if (strcmp (argv[2], "on") == 0)
        {
          uint32_t slots = 1024;
          while (slots < 2 * n + 1024 && slots < (1u << 24))
            slots <<= 1;
          if (start_session (slots) != 0)
            return 1;
          hot_traced (1); /* the ring claim and the module lookup: outside */
          hot_traced (n);
          stop_session ();
        }
      else
        hot_traced (n);
      return 0;
    }
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
      runs = strtoull (argv[++i], NULL, 10);
    else if (strcmp (argv[i], "--batch") == 0 && i + 1 < argc)
      batch = strtoull (argv[++i], NULL, 10);
    else
      {
        fprintf (stderr, "usage: bench_fntrace [--runs R] [--batch N] | --callgrind on|off N\n");
        return 2;
      }
  if (runs == 0 || batch == 0 || batch > 1u << 20)
    return 2;
  uint64_t *v = calloc (runs, sizeof *v);
  if (!v)
    return 1;
  double plain = timed (hot_plain, runs, batch, v, 0);
  double disabled = timed (hot_traced, runs, batch, v, 0);
  uint32_t slots = 1024;
  while (slots < 2 * batch + 1024)
    slots <<= 1;
  if (start_session (slots) != 0)
    return 1;
  hot_traced (1);
  emlat_flush ();
  double on = timed (hot_traced, runs, batch, v, 1);
  struct emlat_status st;
  emlat_flush ();
  emlat_status (&st);
  uint64_t dropped = st.records_dropped;
  stop_session ();
  printf ("METRIC fntrace_plain_call_ns %.3f ns\n", plain);
  printf ("METRIC fntrace_disabled_call_ns %.3f ns\n", disabled);
  printf ("METRIC fntrace_call_ns %.2f ns\n", on);
  printf ("METRIC fntrace_added_ns %.2f ns\n", on - plain);
  printf ("METRIC fntrace_records_dropped %llu records\n", (unsigned long long)dropped);
  free (v);
  return dropped ? 1 : 0;
}
