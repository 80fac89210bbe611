/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_producer.c -- what one producer call costs the recording thread,
 * measured through the public API (include/emlat/emlat.h).
 *
 *   bench_producer [--runs R] [--batch N]
 *       Timed mode.  Each run records N span begin/end pairs back to back
 *       on one thread, timed with the profiler clock, then flushes (not
 *       timed) so the ring never fills: R runs, median reported.  Prints
 *       "METRIC name value unit" lines for bench/run.sh:
 *         clock_read_ns           one emlat_now()
 *         span_record_ns          one span record (half a begin/end pair),
 *                                 clock read included
 *         span_record_ex_clock_ns the same minus one clock read
 *         ix_mark_ns              one emlat_ix_mark (time field = now)
 *         inactive_span_pair_ns   a begin/end pair with no session
 *         records_dropped         must be 0, or the numbers are invalid
 *
 *   bench_producer --callgrind spans|clock|inactive N
 *       For instruction counts: does only the setup and then calls
 *       hot_spans (N begin/end pairs), hot_clock (N clock reads) or
 *       hot_spans without a session, once.  bench/run.sh runs it under
 *       valgrind --tool=callgrind --toggle-collect=<that function> for two
 *       values of N and divides the difference of the collected counts by
 *       the difference of N, which cancels every fixed cost.
 *
 * Invariants: the ring is large enough for one batch (no drops while
 * timing); the file goes to a new directory under $TMPDIR that is removed
 * at the end.
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

static uint64_t
median (uint64_t *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_u64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The measured loops; noinline so that callgrind can toggle on them. */
__attribute__ ((noinline)) static void
hot_spans (uint64_t n, uint64_t cause)
{
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_WINDOW_UPDATE, cause);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
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

__attribute__ ((noinline)) static void
hot_marks (uint64_t n, uint64_t cause)
{
  for (uint64_t i = 0; i < n; i++)
    emlat_ix_mark (cause, EMLAT_T_REDISPLAY_BEGIN);
}

static char dir[4096];

static int
start_session (uint32_t ring_slots, uint32_t drain_us)
{
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/emlat-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      fprintf (stderr, "bench_producer: mkdtemp: %s\n", strerror (errno));
      return -1;
    }
  char path[4200];
  snprintf (path, sizeof path, "%s/bench.emlat", dir);
  struct emlat_options opt = { .path = path,
                               .ring_slots = ring_slots,
                               .drain_interval_us = drain_us };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      fprintf (stderr, "bench_producer: emlat_start: %s\n", strerror (-rc));
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
  if (strcmp (what, "inactive") == 0)
    {
      hot_spans (n, 0);
      return 0;
    }
  /* Room for every record without a drain during the loop, and a writer
     that sleeps through it. */
  uint32_t slots = 1024;
  while (slots < 2 * n + 1024 && slots < (1u << 24))
    slots <<= 1;
  if (start_session (slots, 1000000) != 0)
    return 1;
  uint64_t cause = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  /* The thread's first record claims its ring: outside the measurement. */
  emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, cause), EMLAT_SPAN_OK, 0);
  if (strcmp (what, "spans") == 0)
    hot_spans (n, cause);
  else if (strcmp (what, "clock") == 0)
    hot_clock (n);
  else
    {
      fprintf (stderr, "bench_producer: --callgrind spans|clock|inactive N\n");
      stop_session ();
      return 2;
    }
  emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
  stop_session ();
  return 0;
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
          fprintf (stderr, "usage: bench_producer [--runs R] [--batch N]\n"
                           "       bench_producer --callgrind "
                           "spans|clock|inactive N\n");
          return 2;
        }
    }
  if (runs == 0 || batch == 0 || batch > 1u << 20)
    {
      fprintf (stderr, "bench_producer: bad --runs or --batch\n");
      return 2;
    }
  uint64_t *v = calloc (runs, sizeof *v);
  if (!v)
    return 1;

  /* Clock alone. */
  for (uint64_t r = 0; r < runs; r++)
    {
      uint64_t t0 = emlat_now ();
      hot_clock (batch);
      v[r] = emlat_now () - t0;
    }
  double clock_ns = (double)median (v, runs) / (double)batch;

  /* No session: the disabled path. */
  for (uint64_t r = 0; r < runs; r++)
    {
      uint64_t t0 = emlat_now ();
      hot_spans (batch, 0);
      v[r] = emlat_now () - t0;
    }
  double inactive_ns = (double)median (v, runs) / (double)batch;

  uint32_t slots = 1024;
  while (slots < 2 * batch + 1024)
    slots <<= 1;
  if (start_session (slots, 0) != 0)
    return 1;
  uint64_t cause = emlat_ix_begin (EMLAT_ROOT_SYNTHETIC_COMMAND, 0, 0);
  hot_spans (batch, cause); /* warm-up: claims the ring, faults pages */
  emlat_flush ();
  for (uint64_t r = 0; r < runs; r++)
    {
      uint64_t t0 = emlat_now ();
      hot_spans (batch, cause);
      v[r] = emlat_now () - t0;
      emlat_flush ();
    }
  double pair_ns = (double)median (v, runs) / (double)batch;
  for (uint64_t r = 0; r < runs; r++)
    {
      uint64_t t0 = emlat_now ();
      hot_marks (batch, cause);
      v[r] = emlat_now () - t0;
      emlat_flush ();
    }
  double mark_ns = (double)median (v, runs) / (double)batch;
  emlat_ix_end (cause, EMLAT_STATUS_NORMAL);
  emlat_flush ();
  struct emlat_status st;
  emlat_status (&st);
  uint64_t dropped = st.records_dropped;
  stop_session ();
  free (v);

  printf ("METRIC clock_read_ns %.2f ns\n", clock_ns);
  printf ("METRIC span_record_ns %.2f ns\n", pair_ns / 2);
  printf ("METRIC span_record_ex_clock_ns %.2f ns\n", pair_ns / 2 - clock_ns);
  printf ("METRIC ix_mark_ns %.2f ns\n", mark_ns);
  printf ("METRIC inactive_span_pair_ns %.2f ns\n", inactive_ns);
  printf ("METRIC records_dropped %llu records\n", (unsigned long long)dropped);
  return dropped ? 1 : 0;
}
