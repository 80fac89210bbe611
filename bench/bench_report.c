/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_report.c -- how long `emlat report` takes on a large profile.
 *
 *   bench_report [--interactions N] [--runs R] [--keep FILE]
 *
 * Records, through the public producer API, a profile of N interactions
 * (default 1,000,000) shaped like a terminal editing session
 * (session_shape.h).
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
#include "session_shape.h"

static uint64_t
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
  if (record_profile ("bench_report", path, n) != 0)
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
