/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_tty_ab.c -- the cost of libemlat-tty.so inside a real program: an
 * A/B of one `emlat replay` workload with tracing off and on.
 *
 *   BUILD=build bench_tty_ab [--rounds N] [--keys K] [--gap MS]
 *
 * Workload: less (Debian's) pages through a generated 100000-line file:
 * K PGDN keys (default 60) GAP ms apart (default 40), then q, so less exits
 * by itself.  Each round runs it twice, A = without --interpose (the
 * library is not loaded) and B = with --interpose (loaded, EMLAT_TRACE=1,
 * writing its profile), in ABBA order over rounds so that drift of the
 * machine hits both arms alike.
 *
 * Per run: CMD's CPU time (the driver's "cmd cpu:" line, wait4 rusage of
 * less) and every send's external time to first output (its --tsv file).
 * Printed as "METRIC name value unit" lines (bench/run.sh takes medians
 * over invocations):
 *   tty_ab_cpu_off_ms / tty_ab_cpu_on_ms    median CPU of less per run
 *   tty_ab_cpu_added_pct                    median over rounds of
 *                                           (on - off) / off, in percent
 *   tty_ab_first_median_{off,on}_us         median first-output latency
 *   tty_ab_first_p99_{off,on}_us            p99 of all sends of the arm
 *   tty_ab_first_median_added_us, tty_ab_first_p99_added_us   on - off
 * Targets (issue 4): CPU added < 1 %, p99 added < 50 us.  docs/PERFORMANCE.md
 * reports the numbers.  Exits 0 with a note when less is not installed.
 *
 * Invariants: every child is reaped; temporary files live in one mkdtemp
 * directory removed at the end; nothing is timed here (the driver times).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SENDS 4096

struct arm
{
  double cpu_ms[64];
  size_t runs;
  double *lat_us; /* first-output latencies of all runs */
  size_t n_lat, cap_lat;
};

static char *xstrf (const char *fmt, const char *a, const char *b)
{
  char *s;
  if (asprintf (&s, fmt, a, b) < 0)
    exit (2);
  return s;
}

/* Run ARGV with stdout captured into OUT (heap, NUL-terminated).  Returns
   the exit status or -1. */
static int run_capture (char *const *argv, char **out)
{
  int fd[2];
  *out = NULL;
  if (pipe (fd) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      dup2 (fd[1], 1);
      close (fd[0]);
      close (fd[1]);
      execv (argv[0], argv);
      _exit (127);
    }
  close (fd[1]);
  size_t cap = 8192, n = 0;
  char *buf = malloc (cap);
  for (;;)
    {
      if (n + 4096 > cap)
        {
          cap *= 2;
          char *nb = realloc (buf, cap);
          if (!nb)
            break;
          buf = nb;
        }
      ssize_t r = read (fd[0], buf + n, cap - n - 1);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      n += (size_t)r;
    }
  close (fd[0]);
  buf[n] = 0;
  *out = buf;
  int st;
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED (st) ? WEXITSTATUS (st) : -1;
}

/* The tsv's first_output_ns column (4th) into ARM. */
static int read_tsv (const char *path, struct arm *a)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return -1;
  char line[512];
  while (fgets (line, sizeof line, f))
    {
      if (line[0] == '#')
        continue;
      char *col = line;
      for (int k = 0; k < 3 && col; k++)
        if ((col = strchr (col, '\t')))
          col++;
      if (!col || *col == '-')
        continue;
      if (a->n_lat == a->cap_lat)
        {
          a->cap_lat = a->cap_lat ? a->cap_lat * 2 : 1024;
          a->lat_us = realloc (a->lat_us, a->cap_lat * sizeof *a->lat_us);
          if (!a->lat_us)
            exit (2);
        }
      a->lat_us[a->n_lat++] = strtod (col, NULL) / 1e3;
    }
  fclose (f);
  return 0;
}

static int cmp_d (const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* Nearest-rank percentile of V[0..N) (sorts V). */
static double pct (double *v, size_t n, unsigned p)
{
  if (!n)
    return 0;
  qsort (v, n, sizeof *v, cmp_d);
  size_t k = (n * p + 99) / 100;
  return v[k ? k - 1 : 0];
}

/* One replay run; 0 or -1. */
static int one_run (const char *emlat, const char *dir, const char *script,
                    const char *less, const char *file, int on, int idx,
                    struct arm *a)
{
  char tag[32];
  snprintf (tag, sizeof tag, "%s%d", on ? "on" : "off", idx);
  char *prof = xstrf ("%s/%s.emlat", dir, tag);
  char *tsv = xstrf ("%s/%s.tsv", dir, tag);
  char *argv[20];
  size_t n = 0;
  argv[n++] = (char *)emlat;
  argv[n++] = "replay";
  argv[n++] = "--script";
  argv[n++] = (char *)script;
  argv[n++] = "--settle";
  argv[n++] = "200ms";
  argv[n++] = "-o";
  argv[n++] = prof;
  argv[n++] = "--tsv";
  argv[n++] = tsv;
  if (on)
    argv[n++] = "--interpose";
  argv[n++] = "--";
  argv[n++] = (char *)less;
  argv[n++] = (char *)file;
  argv[n] = NULL;
  char *out;
  int rc = run_capture (argv, &out);
  const char *cpu = out ? strstr (out, "cmd cpu:") : NULL;
  int ok = rc == 0 && cpu && out && strstr (out, "exited with status 0");
  if (ok)
    {
      a->cpu_ms[a->runs++] = strtod (cpu + 8, NULL);
      ok = read_tsv (tsv, a) == 0;
    }
  else
    fprintf (stderr, "bench_tty_ab: run %s failed (exit %d):\n%s\n", tag, rc,
             out ? out : "");
  free (out);
  free (prof);
  free (tsv);
  return ok ? 0 : -1;
}

int main (int argc, char **argv)
{
  unsigned rounds = 3, keys = 60, gap = 40;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      if (strcmp (argv[i], "--rounds") == 0)
        rounds = (unsigned)atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--keys") == 0)
        keys = (unsigned)atoi (argv[i + 1]);
      else if (strcmp (argv[i], "--gap") == 0)
        gap = (unsigned)atoi (argv[i + 1]);
    }
  if (rounds < 1 || rounds > 32 || keys < 1 || keys > MAX_SENDS || gap < 1)
    {
      fprintf (stderr, "usage: bench_tty_ab [--rounds 1..32] [--keys N] [--gap MS]\n");
      return 2;
    }
  const char *less = access ("/usr/bin/less", X_OK) == 0 ? "/usr/bin/less" : NULL;
  if (!less)
    {
      printf ("# bench_tty_ab: less is not installed (Debian package less): skipped\n");
      return 0;
    }
  const char *build = getenv ("BUILD");
  char *emlat = xstrf ("%s/%s", build && *build ? build : "build", "emlat");
  char tmpl[] = "/tmp/emlat-bench-tty-XXXXXX";
  char *dir = mkdtemp (tmpl);
  if (!dir || access (emlat, X_OK) != 0)
    {
      fprintf (stderr, "bench_tty_ab: no %s or no temporary directory\n", emlat);
      return 1;
    }
  char *file = xstrf ("%s/%s", dir, "pages.txt");
  char *script = xstrf ("%s/%s", dir, "paging.script");
  char *mk[] = { emlat, "replay", "--make-file", file, "--lines", "100000", NULL };
  char *junk;
  int rc = run_capture (mk, &junk);
  free (junk);
  FILE *f = fopen (script, "w");
  if (rc != 0 || !f)
    {
      fprintf (stderr, "bench_tty_ab: cannot prepare %s\n", dir);
      return 1;
    }
  fprintf (f, "set gap %ums\nkey PGDN*%u\nkey q\n", gap, keys);
  fclose (f);

  static struct arm off, on;
  double added_pct[32];
  int status = 0;
  for (unsigned r = 0; r < rounds && status == 0; r++)
    {
      /* ABBA: even rounds off first, odd rounds on first. */
      int first_on = r & 1;
      for (int k = 0; k < 2 && status == 0; k++)
        {
          int is_on = k == 0 ? first_on : !first_on;
          if (one_run (emlat, dir, script, less, file, is_on, (int)r,
                       is_on ? &on : &off))
            status = 1;
        }
      if (status == 0)
        added_pct[r] = 100.0 * (on.cpu_ms[r] - off.cpu_ms[r]) / off.cpu_ms[r];
    }
  if (status == 0)
    {
      double cpu_off = pct (off.cpu_ms, off.runs, 50);
      double cpu_on = pct (on.cpu_ms, on.runs, 50);
      double added = pct (added_pct, rounds, 50);
      double m_off = pct (off.lat_us, off.n_lat, 50);
      double m_on = pct (on.lat_us, on.n_lat, 50);
      double p_off = pct (off.lat_us, off.n_lat, 99);
      double p_on = pct (on.lat_us, on.n_lat, 99);
      printf ("# %u rounds of %u PGDN %u ms apart in less; %zu/%zu sends\n",
              rounds, keys, gap, off.n_lat, on.n_lat);
      printf ("METRIC tty_ab_cpu_off_ms %.3f ms\n", cpu_off);
      printf ("METRIC tty_ab_cpu_on_ms %.3f ms\n", cpu_on);
      printf ("METRIC tty_ab_cpu_added_pct %.3f %%\n", added);
      printf ("METRIC tty_ab_first_median_off_us %.1f us\n", m_off);
      printf ("METRIC tty_ab_first_median_on_us %.1f us\n", m_on);
      printf ("METRIC tty_ab_first_median_added_us %.1f us\n", m_on - m_off);
      printf ("METRIC tty_ab_first_p99_off_us %.1f us\n", p_off);
      printf ("METRIC tty_ab_first_p99_on_us %.1f us\n", p_on);
      printf ("METRIC tty_ab_first_p99_added_us %.1f us\n", p_on - p_off);
    }
  char *rm[] = { "/bin/rm", "-rf", dir, NULL };
  rc = run_capture (rm, &junk);
  free (junk);
  free (off.lat_us);
  free (on.lat_us);
  free (emlat);
  free (file);
  free (script);
  return status;
}
