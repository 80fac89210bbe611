/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_scale.c -- what `emlat report` and `emlat export --format=chrome`
 * cost as a profile grows, and what the hostile inputs of issue 12 cost
 * (docs/PERFORMANCE.md, "Reading at scale").  Not run by bench/run.sh:
 * `make bench-scale`, or by hand:
 *
 *   bench_scale [--interactions N,N,...] [--huge-bytes B] [--as-mib M]
 *               [--dir DIR] [--keep]
 *
 * 1. For each N (default 1,000,000 and 10,000,000) it records a profile of
 *    N interactions through the public producer API (session_shape.h, the
 *    session of bench_report), then runs `emlat report`, `emlat report
 *    --json` and `emlat export --format=chrome` on it, stdout to
 *    /dev/null, and measures each child's wall time, CPU time and peak
 *    resident memory (wait4's rusage).
 * 2. The huge inputs, each B bytes (default 1 GiB): a random file, and a
 *    valid profile of interactions begun and never completed
 *    (tests/progs/huge_input.c), and /dev/zero named as a file and given as
 *    standard input; `emlat check`, `report` and `export --format=chrome`
 *    run on each with their address space limited to M MiB (setrlimit
 *    RLIMIT_AS, default 1280: the reader's max_alloc_bytes, 1 GiB, plus
 *    256 MiB for the program) and the same measures plus the exit code.
 *
 * Output: "METRIC name value unit" lines (scale_<verb>_<N>_s, _rss_mib,
 * _ns_per_ix; huge_<input>_<verb>_s, _rss_mib, _exit) and the two tables
 * as Markdown, with the date, the machine and the load average.  Files go
 * to a new directory under $TMPDIR (or DIR) and are removed unless --keep.
 * The emlat binary is $EMLAT, else ../emlat next to this program.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "session_shape.h"
#include "../tests/lib/craft.h"
#define HUGE_INPUT_NO_MAIN 1
#include "../tests/progs/huge_input.c"

struct run
{
  double wall_s, cpu_s;
  long rss_kib;
  int exit;       /* exit code, or 128 + signal */
};

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run EMLAT with ARGV (NULL-terminated, argv[0] included), stdin from
   STDIN_PATH (NULL: /dev/null), stdout to /dev/null, stderr to /dev/null,
   address space limited to AS_MIB (0: none). */
static int
measure (const char *emlat, char *const argv[], const char *stdin_path, unsigned long as_mib,
         struct run *r)
{
  double t0 = now_s ();
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      int in = open (stdin_path ? stdin_path : "/dev/null", O_RDONLY);
      int out = open ("/dev/null", O_WRONLY);
      if (in < 0 || out < 0)
        _exit (126);
      dup2 (in, STDIN_FILENO);
      dup2 (out, STDOUT_FILENO);
      dup2 (out, STDERR_FILENO);
      if (as_mib)
        {
          struct rlimit rl = { (rlim_t)as_mib << 20, (rlim_t)as_mib << 20 };
          setrlimit (RLIMIT_AS, &rl);
        }
      execv (emlat, argv);
      _exit (127);
    }
  int status;
  struct rusage ru;
  while (wait4 (pid, &status, 0, &ru) < 0)
    if (errno != EINTR)
      return -1;
  r->wall_s = now_s () - t0;
  r->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6
             + (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
  r->rss_kib = ru.ru_maxrss;
  r->exit = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  return 0;
}

static void
machine (void)
{
  struct utsname u;
  char host[600] = "?", when[64];
  double load[3] = { 0, 0, 0 };
  time_t t = time (NULL);
  strftime (when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime (&t));
  uname (&u);
  getloadavg (load, 3);
  FILE *f = fopen ("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets (line, sizeof line, f))
    if (strncmp (line, "model name", 10) == 0)
      {
        char *c = strchr (line, ':');
        snprintf (host, sizeof host, "%s", c ? c + 2 : line);
        host[strcspn (host, "\n")] = 0;
        break;
      }
  if (f)
    fclose (f);
  printf ("# %s, %s %s, %ld CPUs (%s), load average %.2f %.2f %.2f\n", when, u.sysname,
          u.release, sysconf (_SC_NPROCESSORS_ONLN), host, load[0], load[1], load[2]);
}

static const char *
label_of (uint64_t n, char *buf, size_t len)
{
  if (n % 1000000 == 0)
    snprintf (buf, len, "%llum", (unsigned long long)(n / 1000000));
  else if (n % 1000 == 0)
    snprintf (buf, len, "%lluk", (unsigned long long)(n / 1000));
  else
    snprintf (buf, len, "%llu", (unsigned long long)n);
  return buf;
}

/* Part 1 for N interactions.  Returns 0 or -1. */
static int
scale (const char *emlat, const char *dir, uint64_t n, int keep)
{
  char path[PATH_MAX + 64], lab[32];
  snprintf (path, sizeof path, "%s/ix-%llu.emlat", dir, (unsigned long long)n);
  label_of (n, lab, sizeof lab);
  if (access (path, R_OK) != 0 && record_profile ("bench_scale", path, n) != 0)
    return -1;
  static const struct
  {
    const char *name, *a1, *a2;
  } verbs[] = {
    { "report", "report", NULL },
    { "report_json", "report", "--json" },
    { "chrome", "export", "--format=chrome" },
  };
  for (size_t v = 0; v < sizeof verbs / sizeof verbs[0]; v++)
    {
      char *argv[5] = { (char *)emlat, (char *)verbs[v].a1, (char *)verbs[v].a2, path, NULL };
      if (!verbs[v].a2)
        {
          argv[2] = path;
          argv[3] = NULL;
        }
      struct run r;
      if (measure (emlat, argv, NULL, 0, &r) != 0 || r.exit > 1)
        {
          fprintf (stderr, "bench_scale: %s on %s failed (%d)\n", verbs[v].name, path, r.exit);
          return -1;
        }
      printf ("METRIC scale_%s_%s_s %.3f s\n", verbs[v].name, lab, r.wall_s);
      printf ("METRIC scale_%s_%s_cpu_s %.3f s\n", verbs[v].name, lab, r.cpu_s);
      printf ("METRIC scale_%s_%s_rss_mib %.1f MiB\n", verbs[v].name, lab, r.rss_kib / 1024.0);
      printf ("METRIC scale_%s_%s_ns_per_ix %.0f ns\n", verbs[v].name, lab,
              r.wall_s * 1e9 / (double)n);
      printf ("# | %s | %s | %.2f s | %.2f s | %.0f ns | %.1f MiB | %.0f B |\n", verbs[v].name,
              lab, r.wall_s, r.cpu_s, r.wall_s * 1e9 / (double)n, r.rss_kib / 1024.0,
              r.rss_kib * 1024.0 / (double)n);
      fflush (stdout);
    }
  if (!keep)
    unlink (path);
  return 0;
}

/* Part 2: each huge input under the address-space limit. */
static int
huge (const char *emlat, const char *dir, uint64_t bytes, unsigned long as_mib, int keep)
{
  char rnd[PATH_MAX + 32], open_ix[PATH_MAX + 32];
  snprintf (rnd, sizeof rnd, "%s/random.bin", dir);
  snprintf (open_ix, sizeof open_ix, "%s/open.emlat", dir);
  if ((access (rnd, R_OK) != 0 && huge_input_write ("random", rnd, bytes) != 0)
      || (access (open_ix, R_OK) != 0 && huge_input_write ("open", open_ix, bytes) != 0))
    {
      fprintf (stderr, "bench_scale: cannot write the huge inputs in %s\n", dir);
      return -1;
    }
  static const struct
  {
    const char *name;
    int path; /* 0: named /dev/zero, 1: random, 2: open, 3: /dev/zero on stdin */
  } inputs[] = { { "random", 1 }, { "devzero", 0 }, { "devzero_stdin", 3 }, { "open", 2 } };
  static const struct
  {
    const char *name, *a1, *a2;
  } verbs[] = {
    { "check", "check", NULL },
    { "report", "report", NULL },
    { "chrome", "export", "--format=chrome" },
  };
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
    for (size_t v = 0; v < sizeof verbs / sizeof verbs[0]; v++)
      {
        const char *file = inputs[i].path == 1 ? rnd : inputs[i].path == 2 ? open_ix
                           : inputs[i].path == 0 ? "/dev/zero" : "-";
        char *argv[5] = { (char *)emlat, (char *)verbs[v].a1, (char *)verbs[v].a2,
                          (char *)file, NULL };
        if (!verbs[v].a2)
          {
            argv[2] = (char *)file;
            argv[3] = NULL;
          }
        struct run r;
        if (measure (emlat, argv, inputs[i].path == 3 ? "/dev/zero" : NULL, as_mib, &r) != 0)
          return -1;
        printf ("METRIC huge_%s_%s_s %.3f s\n", inputs[i].name, verbs[v].name, r.wall_s);
        printf ("METRIC huge_%s_%s_rss_mib %.1f MiB\n", inputs[i].name, verbs[v].name,
                r.rss_kib / 1024.0);
        printf ("METRIC huge_%s_%s_exit %d code\n", inputs[i].name, verbs[v].name, r.exit);
        printf ("# | %s | %s | %d | %.2f s | %.1f MiB |\n", inputs[i].name, verbs[v].name, r.exit,
                r.wall_s, r.rss_kib / 1024.0);
        fflush (stdout);
      }
  if (!keep)
    {
      unlink (rnd);
      unlink (open_ix);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  const char *sizes = "1000000,10000000", *dir_arg = NULL;
  uint64_t huge_bytes = (uint64_t)1 << 30;
  unsigned long as_mib = 1280;
  int keep = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--interactions") == 0 && i + 1 < argc)
        sizes = argv[++i];
      else if (strcmp (argv[i], "--huge-bytes") == 0 && i + 1 < argc)
        huge_bytes = strtoull (argv[++i], NULL, 0);
      else if (strcmp (argv[i], "--as-mib") == 0 && i + 1 < argc)
        as_mib = strtoul (argv[++i], NULL, 0);
      else if (strcmp (argv[i], "--dir") == 0 && i + 1 < argc)
        dir_arg = argv[++i];
      else if (strcmp (argv[i], "--keep") == 0)
        keep = 1;
      else
        {
          fprintf (stderr, "usage: bench_scale [--interactions N,N,...] [--huge-bytes B] "
                           "[--as-mib M] [--dir DIR] [--keep]\n");
          return 2;
        }
    }
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
  char dir[PATH_MAX];
  if (dir_arg)
    snprintf (dir, sizeof dir, "%s", dir_arg);
  else
    {
      const char *t = getenv ("TMPDIR");
      snprintf (dir, sizeof dir, "%s/bench-scale-XXXXXX", t && *t ? t : "/tmp");
      if (!mkdtemp (dir))
        return 1;
    }
  machine ();
  printf ("# | verb | interactions | wall | CPU | wall per interaction | peak RSS | RSS per "
          "interaction |\n");
  int rc = 0;
  for (const char *p = sizes; *p && rc == 0;)
    {
      uint64_t n = strtoull (p, NULL, 0);
      if (n)
        rc = scale (emlat, dir, n, keep);
      p = strchr (p, ',');
      p = p ? p + 1 : "";
    }
  if (rc == 0 && huge_bytes)
    {
      printf ("# | input (%llu bytes) | verb | exit | wall | peak RSS | (RLIMIT_AS %lu MiB)\n",
              (unsigned long long)huge_bytes, as_mib);
      rc = huge (emlat, dir, huge_bytes, as_mib, keep);
    }
  machine ();
  if (!dir_arg && !keep)
    rmdir (dir);
  return rc ? 1 : 0;
}
