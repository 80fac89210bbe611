/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_map_ahead.c -- what mapping a ring's first lap ahead of its thread
 * (docs/DESIGN.md section 14) saves the recording thread, and what it
 * costs the writer, in one interleaved A/B run of the real recorder.
 *
 *   BUILD=build bench_map_ahead [--rounds R] [--keys K] [--gap-us G]
 *
 * Each run is a fresh session (a new ring file: its pages have never been
 * touched, as in a program that just started) in which this thread types
 * K "keys" of 48 one-slot records (24 span begin/end pairs, about what the
 * profiled Emacs stores per keystroke), G microseconds apart, and stops.
 * Arms, in ABBA order per round: ahead (the default) and off
 * (EMLAT_OPT_NO_MAP_AHEAD).  Per run: the recording thread's CPU over the
 * keys (emlat_thread_cpu_now; the gaps are sleeps, not counted), its
 * minor page faults (RUSAGE_THREAD), and the writer thread's CPU for the
 * whole session (emlat_status after stop).
 *
 * Prints "METRIC name value unit" lines: map_ahead_thread_ns_per_key_<arm>,
 * map_ahead_faults_per_run_<arm>, map_ahead_writer_ns_per_key_<arm> and
 * map_ahead_total_ns_per_key_<arm> (medians over rounds), and the paired
 * differences ahead - off of the thread's and of the total CPU per key
 * (map_ahead_thread_saved_ns_per_key, map_ahead_total_saved_ns_per_key:
 * off - ahead, median over rounds, with _lo and _hi, a 95 % percentile
 * bootstrap over rounds).  docs/PERFORMANCE.md, "Mapping the ring ahead".
 *
 * Invariants: every profile lives in one mkdtemp directory under $TMPDIR
 * (or /tmp), removed at the end; a session that fails to start ends the
 * program with status 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"

enum { ARM_AHEAD, ARM_OFF, NARMS };
static const char *const arm_name[NARMS] = { "ahead", "off" };

#define KEY_PAIRS 24
#define MAX_ROUNDS 200

struct run
{
  double thread_ns, writer_ns, faults;
};

static uint64_t
thread_minflt (void)
{
  struct rusage ru;
  getrusage (RUSAGE_THREAD, &ru);
  return (uint64_t)ru.ru_minflt;
}

static int
one_run (const char *dir, int arm, int n, unsigned keys, long gap_us, struct run *out)
{
  char path[4096];
  int len = snprintf (path, sizeof path, "%s/%d-%s.emlat", dir, n, arm_name[arm]);
  if (len < 0 || (size_t)len >= sizeof path)
    {
      fprintf (stderr, "bench_map_ahead: %s: path too long\n", dir);
      return -1;
    }
  struct emlat_options o = { .path = path,
                             .flags = arm == ARM_OFF ? EMLAT_OPT_NO_MAP_AHEAD : 0 };
  if (emlat_start (&o) != 0)
    {
      fprintf (stderr, "bench_map_ahead: %s: cannot start a session\n", path);
      return -1;
    }
  /* Let the writer start (and, in the ahead arm, map ring 0's first step)
     as a program's start-up would. */
  struct timespec settle = { 0, 20 * 1000 * 1000 };
  nanosleep (&settle, NULL);
  struct timespec gap = { gap_us / 1000000, (gap_us % 1000000) * 1000 };
  uint64_t cpu = 0, f0 = thread_minflt ();
  for (unsigned k = 0; k < keys; k++)
    {
      uint64_t c0 = emlat_thread_cpu_now ();
      for (int i = 0; i < KEY_PAIRS; i++)
        emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
      cpu += emlat_thread_cpu_now () - c0;
      nanosleep (&gap, NULL);
    }
  uint64_t faults = thread_minflt () - f0;
  emlat_stop ();
  struct emlat_status st;
  emlat_status (&st);
  unlink (path);
  out->thread_ns = (double)cpu / keys;
  out->writer_ns = (double)st.writer_cpu_ns / keys;
  out->faults = (double)faults;
  return 0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double
median (const double *v, int n)
{
  double t[MAX_ROUNDS];
  memcpy (t, v, (size_t)n * sizeof *t);
  qsort (t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* 95 % percentile bootstrap of the median of D[0..N). */
static void
bootstrap (const double *d, int n, double *lo, double *hi)
{
  enum { B = 2000 };
  static double meds[B];
  uint64_t x = 0x9e3779b97f4a7c15u;
  double s[MAX_ROUNDS];
  for (int b = 0; b < B; b++)
    {
      for (int i = 0; i < n; i++)
        {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          s[i] = d[x % (uint64_t)n];
        }
      meds[b] = median (s, n);
    }
  qsort (meds, B, sizeof *meds, cmp_double);
  *lo = meds[B / 40];
  *hi = meds[B - 1 - B / 40];
}

int
main (int argc, char **argv)
{
  int rounds = 10;
  unsigned keys = 1366; /* 2 MiB of slots: half the default ring's first lap */
  long gap_us = 200;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--rounds") == 0 && i + 1 < argc)
        rounds = atoi (argv[++i]);
      else if (strcmp (argv[i], "--keys") == 0 && i + 1 < argc)
        keys = (unsigned)strtoul (argv[++i], NULL, 10);
      else if (strcmp (argv[i], "--gap-us") == 0 && i + 1 < argc)
        gap_us = atol (argv[++i]);
      else
        {
          fprintf (stderr, "usage: bench_map_ahead [--rounds R] [--keys K] [--gap-us G]\n");
          return 2;
        }
    }
  if (rounds < 2 || rounds > MAX_ROUNDS || keys == 0 || gap_us < 0 || gap_us > 1000000)
    {
      fprintf (stderr, "bench_map_ahead: --rounds 2..%d, --keys > 0, --gap-us 0..1000000\n",
               MAX_ROUNDS);
      return 2;
    }
  char dir[3072];
  const char *tmp = getenv ("TMPDIR");
  snprintf (dir, sizeof dir, "%s/emlat-bench-ahead-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (dir))
    {
      perror ("bench_map_ahead: mkdtemp");
      return 1;
    }
  static struct run runs[NARMS][MAX_ROUNDS];
  int rc = 0;
  for (int r = 0; r < rounds && rc == 0; r++)
    for (int k = 0; k < NARMS && rc == 0; k++)
      {
        int arm = (r % 2 == 0) ? k : NARMS - 1 - k;
        rc = one_run (dir, arm, r, keys, gap_us, &runs[arm][r]);
      }
  rmdir (dir);
  if (rc != 0)
    return 1;

  double v[MAX_ROUNDS], saved_thread[MAX_ROUNDS], saved_total[MAX_ROUNDS];
  for (int a = 0; a < NARMS; a++)
    {
      for (int r = 0; r < rounds; r++)
        v[r] = runs[a][r].thread_ns;
      printf ("METRIC map_ahead_thread_ns_per_key_%s %.0f ns\n", arm_name[a], median (v, rounds));
      for (int r = 0; r < rounds; r++)
        v[r] = runs[a][r].faults;
      printf ("METRIC map_ahead_faults_per_run_%s %.0f count\n", arm_name[a], median (v, rounds));
      for (int r = 0; r < rounds; r++)
        v[r] = runs[a][r].writer_ns;
      printf ("METRIC map_ahead_writer_ns_per_key_%s %.0f ns\n", arm_name[a], median (v, rounds));
      for (int r = 0; r < rounds; r++)
        v[r] = runs[a][r].thread_ns + runs[a][r].writer_ns;
      printf ("METRIC map_ahead_total_ns_per_key_%s %.0f ns\n", arm_name[a], median (v, rounds));
    }
  for (int r = 0; r < rounds; r++)
    {
      saved_thread[r] = runs[ARM_OFF][r].thread_ns - runs[ARM_AHEAD][r].thread_ns;
      saved_total[r] = runs[ARM_OFF][r].thread_ns + runs[ARM_OFF][r].writer_ns
                       - runs[ARM_AHEAD][r].thread_ns - runs[ARM_AHEAD][r].writer_ns;
    }
  double lo, hi;
  bootstrap (saved_thread, rounds, &lo, &hi);
  printf ("METRIC map_ahead_thread_saved_ns_per_key %.0f ns\n", median (saved_thread, rounds));
  printf ("METRIC map_ahead_thread_saved_ns_per_key_lo %.0f ns\n", lo);
  printf ("METRIC map_ahead_thread_saved_ns_per_key_hi %.0f ns\n", hi);
  bootstrap (saved_total, rounds, &lo, &hi);
  printf ("METRIC map_ahead_total_saved_ns_per_key %.0f ns\n", median (saved_total, rounds));
  printf ("METRIC map_ahead_total_saved_ns_per_key_lo %.0f ns\n", lo);
  printf ("METRIC map_ahead_total_saved_ns_per_key_hi %.0f ns\n", hi);
  return 0;
}
