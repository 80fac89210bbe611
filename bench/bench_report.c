/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_report.c -- how long `emlat report` takes on a large profile.
 *
 *   bench_report [--interactions N] [--runs R] [--keep FILE]
 *
 * Records, through the public producer API, a profile of N interactions
 * (default 1,000,000) shaped like a terminal editing session: every
 * interaction has the input, queue, decode, command, redisplay, output and
 * flush boundaries of a TTY command (1 in 10 superseded without output,
 * 1 in 50 a timer without input), thread CPU readings, four counters and
 * three spans.  Timestamps are synthetic (a fixed pseudo-random sequence),
 * so every run records the same distribution.  The recorder is flushed
 * every 512 interactions so that nothing is lost; the benchmark refuses a
 * profile with losses.
 *
 * Then it runs `emlat report FILE` (stdout to /dev/null) R times (default 3)
 * and prints the median wall time, and once `emlat report --json`:
 *   METRIC report_1m_s          median seconds of `emlat report`
 *   METRIC report_json_1m_s     seconds of `emlat report --json`
 *   METRIC report_interactions  N
 * The target of issue 3 is report_1m_s < 2 s for N = 1,000,000.
 *
 * The emlat binary is $EMLAT, else ../emlat next to this program.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"

static uint64_t
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
next_rand (uint64_t *s)
{
  /* splitmix64: a fixed, portable sequence. */
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* A latency-like duration: mostly tens of microseconds, a long tail. */
static uint64_t
draw_ns (uint64_t *s, uint64_t base)
{
  uint64_t r = next_rand (s);
  uint64_t d = base + r % (base * 4 + 1);
  if ((r >> 32) % 100 == 0)
    d *= 20;
  return d;
}

static void
one_interaction (uint64_t i, uint64_t *rng, uint64_t *t)
{
  int timer = i % 50 == 49;
  int superseded = !timer && i % 10 == 9;
  uint64_t c = emlat_ix_begin (timer ? EMLAT_ROOT_TIMER : EMLAT_ROOT_TTY_COMMAND, 0, 0);
  uint64_t now = *t;
  if (!timer)
    {
      emlat_ix_time (c, EMLAT_T_INPUT_EARLIEST, now);
      now += draw_ns (rng, 2000);
      emlat_ix_time (c, EMLAT_T_INPUT_LATEST, now);
      emlat_ix_time (c, EMLAT_T_INPUT_READY, now);
      now += draw_ns (rng, 1000);
      emlat_ix_time (c, EMLAT_T_READ_BEGIN, now);
      now += 3000;
      emlat_ix_time (c, EMLAT_T_READ_END, now);
      emlat_ix_time (c, EMLAT_T_QUEUE_INSERT, now);
      now += draw_ns (rng, 1000);
      emlat_ix_time (c, EMLAT_T_QUEUE_REMOVE, now);
      now += draw_ns (rng, 5000);
      emlat_ix_time (c, EMLAT_T_KEY_DECODE_DONE, now);
    }
  emlat_ix_time (c, EMLAT_T_DISPATCH_BEGIN, now);
  uint64_t cpu = i * 1000000u;
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_BEGIN, cpu);
  uint64_t loop = emlat_span_begin (EMLAT_SPAN_COMMAND_LOOP, c);
  uint64_t cmd = emlat_span_begin (EMLAT_SPAN_COMMAND, c);
  emlat_ix_time (c, EMLAT_T_COMMAND_BEGIN, now);
  now += draw_ns (rng, 40000);
  emlat_ix_time (c, EMLAT_T_COMMAND_END, now);
  emlat_span_end (cmd, EMLAT_SPAN_OK, 0);
  emlat_span_end (loop, EMLAT_SPAN_OK, 0);
  emlat_ix_time (c, EMLAT_T_ROOT_WORK_END, now);
  if (!superseded)
    {
      uint64_t red = emlat_span_begin (EMLAT_SPAN_REDISPLAY, c);
      now += draw_ns (rng, 2000);
      emlat_ix_time (c, EMLAT_T_REDISPLAY_BEGIN, now);
      now += draw_ns (rng, 30000);
      emlat_ix_time (c, EMLAT_T_REDISPLAY_END, now);
      emlat_ix_time (c, EMLAT_T_OUTPUT_BEGIN, now);
      now += draw_ns (rng, 5000);
      emlat_ix_time (c, EMLAT_T_OUTPUT_END, now);
      emlat_ix_time (c, EMLAT_T_FLUSH_BEGIN, now);
      now += draw_ns (rng, 5000);
      emlat_ix_time (c, EMLAT_T_FLUSH_END, now);
      emlat_span_end (red, EMLAT_SPAN_OK, 0);
      emlat_ix_count (c, EMLAT_C_REDISPLAY_ATTEMPTS, 1);
      emlat_ix_count (c, EMLAT_C_TTY_BYTES, 20 + next_rand (rng) % 400);
    }
  emlat_ix_value (c, EMLAT_V_THREAD_CPU_END, cpu + (now - *t) / 2);
  emlat_ix_count (c, EMLAT_C_WINDOW_ROWS, 22);
  emlat_ix_count (c, EMLAT_C_WINDOW_COLS, 80);
  emlat_ix_end (c, superseded ? EMLAT_STATUS_SUPERSEDED : EMLAT_STATUS_NORMAL);
  *t = now + draw_ns (rng, 100000);
}

static int
record_profile (const char *path, uint64_t n)
{
  static const char name[] = "bench_report";
  const struct emlat_meta meta[] = {
    { .key = "program.name", .type = EMLAT_META_STR, .s = name,
      .s_len = sizeof name - 1 },
  };
  struct emlat_options opt = { .path = path, .ring_slots = 1u << 16,
                               .meta = meta, .n_meta = 1 };
  int rc = emlat_start (&opt);
  if (rc != 0)
    {
      fprintf (stderr, "bench_report: %s: %s\n", path, strerror (-rc));
      return -1;
    }
  uint64_t rng = 42, t = 1000000000u;
  for (uint64_t i = 0; i < n; i++)
    {
      one_interaction (i, &rng, &t);
      if (i % 512 == 511)
        emlat_flush ();
    }
  rc = emlat_stop ();
  struct emlat_status st;
  emlat_status (&st);
  if (rc != 0 || st.records_dropped != 0)
    {
      fprintf (stderr, "bench_report: recording failed (%d) or lost %llu records\n",
               rc, (unsigned long long)st.records_dropped);
      return -1;
    }
  fprintf (stderr, "bench_report: %llu interactions, %llu bytes in %s\n",
           (unsigned long long)n, (unsigned long long)st.bytes_written, path);
  return 0;
}

/* Wall seconds of EMLAT report [--json] PATH, stdout to /dev/null; -1 on
   failure. */
static double
time_report (const char *emlat, const char *path, int json)
{
  uint64_t t0 = mono_ns ();
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      int fd = open ("/dev/null", O_WRONLY);
      if (fd >= 0)
        dup2 (fd, STDOUT_FILENO);
      if (json)
        execl (emlat, emlat, "report", "--json", path, (char *)NULL);
      else
        execl (emlat, emlat, "report", path, (char *)NULL);
      _exit (127);
    }
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  double s = (double)(mono_ns () - t0) / 1e9;
  /* 0 and 1 (damaged but reported) are both reports. */
  if (!WIFEXITED (status) || WEXITSTATUS (status) > 1)
    {
      fprintf (stderr, "bench_report: %s report failed (status %d)\n", emlat, status);
      return -1;
    }
  return s;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  uint64_t n = 1000000;
  int runs = 3;
  const char *keep = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--interactions") == 0 && i + 1 < argc)
        n = strtoull (argv[++i], NULL, 0);
      else if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        runs = atoi (argv[++i]);
      else if (strcmp (argv[i], "--keep") == 0 && i + 1 < argc)
        keep = argv[++i];
      else
        {
          fprintf (stderr, "usage: bench_report [--interactions N] [--runs R] [--keep FILE]\n");
          return 2;
        }
    }
  if (runs < 1 || runs > 100 || n == 0)
    return 2;

  char emlat[PATH_MAX + 16];
  const char *env = getenv ("EMLAT");
  if (env && *env)
    snprintf (emlat, sizeof emlat, "%s", env);
  else
    {
      char self[PATH_MAX];
      ssize_t len = readlink ("/proc/self/exe", self, sizeof self - 1);
      if (len <= 0)
        return 1;
      self[len] = 0;
      char *slash = strrchr (self, '/');
      if (slash)
        *slash = 0;
      snprintf (emlat, sizeof emlat, "%s/../emlat", self);
    }
  if (access (emlat, X_OK) != 0)
    {
      fprintf (stderr, "bench_report: no emlat binary at %s (set EMLAT)\n", emlat);
      return 1;
    }

  char dir[] = "/tmp/bench-report-XXXXXX";
  char path[PATH_MAX];
  if (keep)
    snprintf (path, sizeof path, "%s", keep);
  else
    {
      if (!mkdtemp (dir))
        return 1;
      snprintf (path, sizeof path, "%s/big.emlat", dir);
    }
  int rc = 1;
  if (record_profile (path, n) != 0)
    goto out;
  double t[100];
  for (int r = 0; r < runs; r++)
    if ((t[r] = time_report (emlat, path, 0)) < 0)
      goto out;
  qsort (t, (size_t)runs, sizeof t[0], cmp_double);
  double tj = time_report (emlat, path, 1);
  if (tj < 0)
    goto out;
  printf ("METRIC report_interactions %llu count\n", (unsigned long long)n);
  printf ("METRIC report_1m_s %.3f s\n", t[runs / 2]);
  printf ("METRIC report_json_1m_s %.3f s\n", tj);
  rc = 0;
out:
  if (!keep)
    {
      unlink (path);
      rmdir (dir);
    }
  return rc;
}
