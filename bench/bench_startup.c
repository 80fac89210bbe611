/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_startup.c -- what libemlat-tty.so adds to the CPU of a process
 * that starts, writes one line to its terminal and exits: the fixed cost
 * of a session (loading the library, its start, its stop), the part of a
 * short program's whole CPU that no per-key figure shows.
 *
 *   BUILD=build bench_startup [--rounds N] [--spawns K] [--arms LIST]
 *
 * The program is this binary itself in child mode: on a pseudo-terminal
 * (its stdin, stdout and stderr the slave), it writes a line and exits.
 * Its CPU is what wait4 reports (user + system, every thread of it).
 *
 * Arms, interleaved (the order rotated every round), K spawns each per
 * round, the median of the K kept:
 *   none      the library not loaded
 *   loaded    LD_PRELOAD, EMLAT_TRACE unset: the wrappers forward
 *   on        EMLAT_TRACE=1, EMLAT_FILE in a temporary directory: the
 *             program writes and finishes its own profile
 *   driven    as on, with EMLAT_FINISH=reader:OUR_PID, as under `emlat
 *             replay --interpose` and `emlat record`: this process creates
 *             the profile, empty, for the program to write into; the last
 *             records are left in the ring file, and this process finishes
 *             the profile (neither timed: not the program's CPU)
 *   driven_self_created   as driven, but the program creates its profile
 *             itself, as under the drivers before EMLAT_OPT_ADOPT_EMPTY:
 *             driven_self_created - driven is what that creation costs
 *   drained   as driven, with EMLAT_FINISH=drain:OUR_PID, as under the
 *             drivers now (docs/DESIGN.md 8.7): this process drains the
 *             program's rings while it runs (its drain thread started
 *             after the fork, stopped after the wait; not timed), and the
 *             program starts no writer thread; with EMLAT_MACHINE, the
 *             machine's facts read once here (src/common/machine.h)
 *   drained_self_read   as drained, without EMLAT_MACHINE, as under the
 *             drivers before it: the program reads the machine's facts
 *             itself (sysfs, /proc/cpuinfo); drained_self_read - drained
 *             is what they cost it
 * two floors, without the library, for what any recorder with a writer
 * thread and a file pays:
 *   thread    the program starts a thread that waits on a futex, wakes it
 *             before exiting and joins it
 *   file      the program creates a file in the temporary directory
 *             (O_EXCL) and writes 64 bytes into it
 * and two floors of interposition itself, with bench/floor_preload.c
 * (libemlat-floor.so, next to this program) instead of the library, for
 * what any recorder loaded by LD_PRELOAD that records each call pays:
 *   floor_loaded  LD_PRELOAD of the floor, EMLAT_FLOOR unset: a library
 *             of three wrappers loaded, its three dlsym, every call
 *             forwarded
 *   floor     the same with EMLAT_FLOOR=tsc1: its ring file made in
 *             /dev/shm without a name, sized and mapped, and the
 *             program's write recorded (one counter read, one slot)
 *
 * --arms LIST (comma-separated arm names) runs only those arms and none,
 * to profile a few of them (perf record of the whole bench) or to spend
 * the rounds on them.
 *
 * Prints "METRIC startup_cpu_us_<arm> V us" (median over rounds), "METRIC
 * startup_minflt_<arm> V faults" (the minor page faults of the child, from
 * wait4, median over rounds of the medians per round) and
 * "METRIC startup_added_us_<arm> V us" (median over rounds of the round's
 * arm - none), with its 95 % bootstrap interval over rounds as
 * startup_added_us_<arm>_lo and _hi, for every arm run; and, when both
 * drained arms run, "METRIC startup_machine_facts_us", drained_self_read
 * - drained paired by round, with its interval.
 * docs/PERFORMANCE.md ("The start-up", "The machine's facts from the driver",
 * "What any preloaded recorder pays at start") reports the numbers.
 *
 * The files the spawns create stay until the end: deleting each at once
 * would time ext4's search for a free inode past the many just deleted
 * (find_inode_bit, recently_deleted), a cost of this harness, not of a
 * profile's start.
 *
 * Invariants: every child is reaped; profiles and files live in one
 * mkdtemp directory under TMPDIR (default /tmp), removed at the end; a
 * driven spawn's ring file is removed by emlat_recover.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <pty.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "common/machine.h"
#include "record/drain.h"

enum arm
{
  A_NONE,
  A_LOADED,
  A_ON,
  A_DRIVEN,
  A_SELF_CREATED,
  A_DRAINED,
  A_DRAINED_SELF_READ,
  A_THREAD,
  A_FILE,
  A_FLOOR_LOADED,
  A_FLOOR,
  N_ARMS
};
static const char *const arm_name[N_ARMS] = {
  "none",   "loaded", "on",           "driven", "driven_self_created", "drained",
  "drained_self_read", "thread", "file", "floor_loaded", "floor"
};

#define MAX_ROUNDS 64
#define MAX_SPAWNS 1000
#define RESAMPLES 2000

static char self_path[PATH_MAX];
static char tty_lib[PATH_MAX];
static char floor_lib[PATH_MAX];
/* EMLAT_MACHINE for the drained arm, read once, as the drivers do. */
static char machine_env[EMLAT_MACHINE_VALUE_MAX];
static char tmp_dir[PATH_MAX];

/* ------------------------------------------------------------------ */
/* The child                                                           */

static atomic_int wake_word;

static void *
waiter (void *arg)
{
  (void)arg;
  /* Acquire: pairs with the release store in child_main. */
  while (!atomic_load_explicit (&wake_word, memory_order_acquire))
    syscall (SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  return NULL;
}

static int
child_main (const char *mode, const char *dir)
{
  static const char line[] = "emlat bench_startup\r\n";
  if (strcmp (mode, "thread") == 0)
    {
      pthread_t t;
      if (pthread_create (&t, NULL, waiter, NULL) != 0)
        return 2;
      /* Release: the waiter's acquire load sees it. */
      atomic_store_explicit (&wake_word, 1, memory_order_release);
      syscall (SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
      pthread_join (t, NULL);
    }
  else if (strcmp (mode, "file") == 0)
    {
      char path[PATH_MAX];
      snprintf (path, sizeof path, "%s/floor-%ld", dir, (long)getpid ());
      int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      char block[64] = { 0 };
      if (fd < 0 || write (fd, block, sizeof block) != (ssize_t)sizeof block)
        return 2;
      close (fd);
    }
  return write (1, line, sizeof line - 1) == (ssize_t)(sizeof line - 1) ? 0 : 2;
}

/* ------------------------------------------------------------------ */
/* Spawning                                                            */

/* Remove every file in the temporary directory. */
static void
empty_dir (void)
{
  DIR *d = opendir (tmp_dir);
  if (!d)
    return;
  char path[PATH_MAX];
  for (struct dirent *e; (e = readdir (d));)
    if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0
        && snprintf (path, sizeof path, "%s/%s", tmp_dir, e->d_name) < (int)sizeof path)
      unlink (path);
  closedir (d);
}

/* One spawn of arm A; its CPU in microseconds, or -1; its minor page
   faults in *FAULTS. */
static double
spawn (enum arm a, unsigned n, double *faults)
{
  char profile[PATH_MAX + 32];
  snprintf (profile, sizeof profile, "%s/p%u.emlat", tmp_dir, n);
  int drained = a == A_DRAINED || a == A_DRAINED_SELF_READ;
  if (a == A_DRIVEN || drained)
    {
      /* As the drivers do: the profile made here, empty, for the program
         to write into (EMLAT_OPT_ADOPT_EMPTY). */
      int fd = open (profile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd < 0)
        return -1;
      close (fd);
    }
  int master;
  pid_t pid = forkpty (&master, NULL, NULL, NULL);
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      unsetenv ("EMLAT_TRACE");
      unsetenv ("EMLAT_FILE");
      unsetenv ("EMLAT_FINISH");
      unsetenv ("EMLAT_TRACE_CHILDREN");
      unsetenv ("EMLAT_MACHINE");
      unsetenv ("LD_PRELOAD");
      unsetenv ("EMLAT_FLOOR");
      unsetenv ("EMLAT_FLOOR_PAGES");
      unsetenv ("EMLAT_FLOOR_LINES");
      unsetenv ("EMLAT_FLOOR_CODE");
      if (a == A_FLOOR_LOADED || a == A_FLOOR)
        setenv ("LD_PRELOAD", floor_lib, 1);
      if (a == A_FLOOR)
        setenv ("EMLAT_FLOOR", "tsc1", 1);
      int driven = a == A_DRIVEN || a == A_SELF_CREATED || drained;
      if (a == A_LOADED || a == A_ON || driven)
        setenv ("LD_PRELOAD", tty_lib, 1);
      if (a == A_ON || driven)
        {
          setenv ("EMLAT_TRACE", "1", 1);
          setenv ("EMLAT_FILE", profile, 1);
        }
      if (driven)
        {
          char v[32];
          snprintf (v, sizeof v, "%s:%ld", drained ? "drain" : "reader", (long)getppid ());
          setenv ("EMLAT_FINISH", v, 1);
        }
      if (a == A_DRAINED)
        setenv ("EMLAT_MACHINE", machine_env, 1);
      const char *mode = a == A_THREAD ? "thread" : a == A_FILE ? "file" : "plain";
      execl (self_path, self_path, "--child", mode, tmp_dir, (char *)NULL);
      _exit (127);
    }
  struct emlat_drainer *drainer = NULL;
  if (drained && emlat_drainer_start (profile, pid, &drainer) != 0)
    {
      fprintf (stderr, "bench_startup: cannot start draining %s\n", profile);
      drainer = NULL;
    }
  /* Drain the terminal until the child closed it, so that it never
     blocks on a full buffer. */
  char buf[4096];
  while (read (master, buf, sizeof buf) > 0)
    ;
  int st;
  struct rusage ru;
  while (wait4 (pid, &st, 0, &ru) < 0)
    if (errno != EINTR)
      {
        close (master);
        return -1;
      }
  close (master);
  emlat_drainer_stop (drainer, NULL);
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0)
    {
      fprintf (stderr, "bench_startup: the %s child failed (status %d)\n", arm_name[a], st);
      return -1;
    }
  if (a == A_DRIVEN || a == A_SELF_CREATED || drained)
    {
      struct emlat_recovery rec;
      int rc = emlat_recover (profile, &rec);
      if (rc != 0)
        fprintf (stderr, "bench_startup: %s: cannot finish: %s\n", profile, strerror (-rc));
    }
  *faults = (double)ru.ru_minflt;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6
         + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */

static int
cmp_double (const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static double
median (double *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of D[0..N) and a percentile bootstrap interval of it. */
static void
median_ci (const double *d, unsigned n, double *point, double *lo, double *hi)
{
  double v[MAX_ROUNDS], *boot = malloc (RESAMPLES * sizeof *boot);
  memcpy (v, d, n * sizeof *v);
  *point = median (v, n);
  if (!boot)
    {
      *lo = *hi = *point;
      return;
    }
  struct emlat_report_rng rng;
  emlat_report_rng_seed (&rng, 20261203);
  for (unsigned k = 0; k < RESAMPLES; k++)
    {
      for (unsigned i = 0; i < n; i++)
        v[i] = d[emlat_report_rng_next (&rng) % n];
      boot[k] = median (v, n);
    }
  qsort (boot, RESAMPLES, sizeof *boot, cmp_double);
  *lo = boot[(size_t)(0.025 * RESAMPLES)];
  *hi = boot[(size_t)(0.975 * RESAMPLES) - 1];
  free (boot);
}

/* ------------------------------------------------------------------ */

static void
cleanup (void)
{
  empty_dir ();
  rmdir (tmp_dir);
}

/* The arms --arms names (none always); exit 2 on an unknown name. */
static void
parse_arms (const char *v, int run[N_ARMS])
{
  for (int a = 0; a < N_ARMS; a++)
    run[a] = a == A_NONE;
  if (!v || !*v)
    {
      fprintf (stderr, "bench_startup: --arms wants a comma-separated list of arms\n");
      exit (2);
    }
  while (*v)
    {
      size_t len = strcspn (v, ",");
      int a = 0;
      while (a < N_ARMS && (strlen (arm_name[a]) != len || strncmp (v, arm_name[a], len) != 0))
        a++;
      if (a == N_ARMS)
        {
          fprintf (stderr, "bench_startup: --arms: no arm named '%.*s'\n", (int)len, v);
          exit (2);
        }
      run[a] = 1;
      v += len + (v[len] == ',');
    }
}

static unsigned
parse_count (const char *flag, const char *v, unsigned max)
{
  char *end;
  unsigned long n = v ? strtoul (v, &end, 10) : 0;
  if (!v || *end || n == 0 || n > max)
    {
      fprintf (stderr, "bench_startup: %s wants a number from 1 to %u\n", flag, max);
      exit (2);
    }
  return (unsigned)n;
}

int
main (int argc, char **argv)
{
  unsigned rounds = 9, spawns = 40;
  int run[N_ARMS];
  for (int a = 0; a < N_ARMS; a++)
    run[a] = 1;
  if (argc == 4 && strcmp (argv[1], "--child") == 0)
    return child_main (argv[2], argv[3]);
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--rounds") == 0)
        rounds = parse_count ("--rounds", argv[++i < argc ? i : 0], MAX_ROUNDS);
      else if (strcmp (argv[i], "--spawns") == 0)
        spawns = parse_count ("--spawns", argv[++i < argc ? i : 0], MAX_SPAWNS);
      else if (strcmp (argv[i], "--arms") == 0)
        parse_arms (++i < argc ? argv[i] : NULL, run);
      else
        {
          fprintf (stderr, "usage: bench_startup [--rounds N] [--spawns K] [--arms LIST]\n");
          return 2;
        }
    }
  const char *build = getenv ("BUILD");
  snprintf (tty_lib, sizeof tty_lib, "%s/libemlat-tty.so", build && *build ? build : "build");
  snprintf (floor_lib, sizeof floor_lib, "%s/bench/libemlat-floor.so",
            build && *build ? build : "build");
  struct emlat_machine machine;
  emlat_machine_read (&machine);
  if (emlat_machine_format (&machine, machine_env, sizeof machine_env) < 0)
    {
      fprintf (stderr, "bench_startup: cannot format the machine's facts\n");
      return 1;
    }
  char *real = realpath (tty_lib, NULL);
  ssize_t n = readlink ("/proc/self/exe", self_path, sizeof self_path - 1);
  if (!real || n <= 0)
    {
      fprintf (stderr, "bench_startup: %s: %s\n", tty_lib, real ? "cannot find myself" : strerror (errno));
      return 1;
    }
  snprintf (tty_lib, sizeof tty_lib, "%s", real);
  free (real);
  if (!(real = realpath (floor_lib, NULL)))
    {
      fprintf (stderr, "bench_startup: %s: %s\n", floor_lib, strerror (errno));
      return 1;
    }
  snprintf (floor_lib, sizeof floor_lib, "%s", real);
  free (real);
  self_path[n] = 0;
  const char *tmp = getenv ("TMPDIR");
  snprintf (tmp_dir, sizeof tmp_dir, "%s/emlat-bench-startup.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp (tmp_dir))
    {
      fprintf (stderr, "bench_startup: mkdtemp: %s\n", strerror (errno));
      return 1;
    }
  atexit (cleanup);

  static double per_round[N_ARMS][MAX_ROUNDS], faults_per_round[N_ARMS][MAX_ROUNDS];
  double cpu[MAX_SPAWNS], faults[MAX_SPAWNS];
  unsigned seq = 0;
  for (unsigned r = 0; r < rounds; r++)
    for (unsigned k = 0; k < N_ARMS; k++)
      {
        enum arm a = (enum arm)((k + r) % N_ARMS);
        if (!run[a])
          continue;
        for (unsigned s = 0; s < spawns; s++)
          if ((cpu[s] = spawn (a, seq++, &faults[s])) < 0)
            return 1;
        per_round[a][r] = median (cpu, spawns);
        faults_per_round[a][r] = median (faults, spawns);
      }

  printf ("# bench_startup: %u rounds x %u spawns per arm, CPU of the child (wait4)\n", rounds,
          spawns);
  for (int a = 0; a < N_ARMS; a++)
    {
      if (!run[a])
        continue;
      double v[MAX_ROUNDS];
      memcpy (v, per_round[a], rounds * sizeof *v);
      printf ("METRIC startup_cpu_us_%s %.1f us\n", arm_name[a], median (v, rounds));
      memcpy (v, faults_per_round[a], rounds * sizeof *v);
      printf ("METRIC startup_minflt_%s %.1f faults\n", arm_name[a], median (v, rounds));
    }
  for (int a = A_LOADED; a < N_ARMS; a++)
    {
      if (!run[a])
        continue;
      double d[MAX_ROUNDS], point, lo, hi;
      for (unsigned r = 0; r < rounds; r++)
        d[r] = per_round[a][r] - per_round[A_NONE][r];
      median_ci (d, rounds, &point, &lo, &hi);
      printf ("METRIC startup_added_us_%s %.1f us\n", arm_name[a], point);
      printf ("METRIC startup_added_us_%s_lo %.1f us\n", arm_name[a], lo);
      printf ("METRIC startup_added_us_%s_hi %.1f us\n", arm_name[a], hi);
    }
  /* What reading the machine's facts costs the program: the two drained
     arms paired by round. */
  if (!run[A_DRAINED] || !run[A_DRAINED_SELF_READ])
    return 0;
  double d[MAX_ROUNDS], point, lo, hi;
  for (unsigned r = 0; r < rounds; r++)
    d[r] = per_round[A_DRAINED_SELF_READ][r] - per_round[A_DRAINED][r];
  median_ci (d, rounds, &point, &lo, &hi);
  printf ("METRIC startup_machine_facts_us %.1f us\n", point);
  printf ("METRIC startup_machine_facts_us_lo %.1f us\n", lo);
  printf ("METRIC startup_machine_facts_us_hi %.1f us\n", hi);
  return 0;
}
