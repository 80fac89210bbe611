/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_gate.c -- the overhead gate of issue 8 as one command: interleaved
 * A/B(/C) runs of real terminal programs under `emlat replay`, profiling
 * off and on (and, for Emacs, an Emacs built without emlat's patch), with
 * bootstrap 95% intervals and a verdict per gate; and the recorder's
 * wake-ups while the program idles.
 *
 *   BUILD=build bench_gate [--quick] [--floor] [--rounds N] [--keys N]
 *       [--only LIST] [--idle SECONDS] [--emacs PATH] [--emacs-vanilla PATH]
 *       [--emacs-thread-cpu on|off] [--resamples R] [--seed S] [--cpu N]
 *       [--doc FILE]
 *
 * Workloads (ids for --only, comma separated): less-paging (Debian's less
 * on a generated 20000-line file, `--workload paging`, --interpose),
 * vim-typing and nano-typing (`--workload typing` at 120 wpm into a new
 * file, --interpose), emacs-editing, emacs-typing (into *scratch*) and
 * emacs-paging (the generated file) with the profiled Emacs run as `emacs
 * -Q -nw` with and without --latency-profile=FILE, and the vanilla Emacs
 * of `make emacs-vanilla` as a third arm when it is built; idle-less and
 * idle-emacs (below).  With --emacs-thread-cpu off every Emacs arm runs
 * with `--eval (setq latency-profile-thread-cpu nil)`: the profiled arm
 * then reads no thread CPU clock (two system calls per interaction).
 * Each script is the built-in workload exactly (`emlat replay
 * --print-script`) followed by a pause and the program's quit keys, whose
 * sends are left out of the latency samples.
 *
 * Method (docs/PERFORMANCE.md "Overhead gate"):
 *  - Rounds: each round runs every workload once per arm, the arms in
 *    order A B (C) in even rounds and reversed in odd ones (ABBA), so that
 *    linear drift of the machine hits every arm alike.
 *  - CPU: the program's own CPU per run, user + system from wait4 (the
 *    driver's "cmd cpu:" line), so it includes the recorder's writer
 *    thread inside the program.  Added CPU = the median over rounds of
 *    (test - base) / base; its interval is a paired percentile bootstrap
 *    over rounds (rounds drawn with replacement, both arms of a drawn
 *    round kept together).  "CPU of the workload" leaves start-up out
 *    (about 35 ms of Emacs's CPU, which would dilute the ratio): each
 *    script begins with a 2 s pause, and the bench reads the program's
 *    CPU (its CPU-time clock) 1.5 s after it appeared, when
 *    start-up is over (--settle-max 1s) and the workload has not begun;
 *    the workload's CPU is the run's minus that sample (exit included).
 *  - Latency: every send's external time to first output (--tsv), pooled
 *    per arm.  Added median (in % of the base median) and added p99 (us),
 *    nearest-rank quantiles; intervals by the same paired bootstrap over
 *    rounds (each resample pools the sends of the drawn rounds), which
 *    keeps the correlation of sends within a run, unlike a bootstrap of
 *    pooled sends.
 *  - Verdict per gate: "pass" when the whole interval is inside the limit,
 *    "FAIL" when the whole interval is outside it, "unresolved" when the
 *    interval contains the limit (more rounds or a quieter machine needed).
 *    Limits (issue 8): CPU <= 0.5 %, median < 0.5 %, p99 < 50 us.
 *  - Idle: the profiled program (less under --interpose, Emacs with
 *    --latency-profile) runs a script that only pauses; once start-up has
 *    settled, the context switches (voluntary + involuntary, from
 *    /proc/PID/task/TID/status) of its thread named emlat-writer are read
 *    at the start and end of a window of SECONDS (default 30); pass when
 *    the difference is 0.  A program whose rings its driver drains (less
 *    under --interpose: docs/DESIGN.md 8.7) has no such thread: the
 *    driver's thread named emlat-drain (in `emlat replay`) is counted.  The profile's stats.writer_wakeups (the whole
 *    run, start-up and exit included) is shown beside it as a cross-check.
 *
 *  - --floor (a diagnostic, not the gate's mode): less, vim and nano get
 *    a third arm, "floor": the run of the on arm with the least
 *    interposing recorder (bench/floor_preload.c, libemlat-floor.so: one
 *    counter read and one 32-byte slot per terminal call, no model, no
 *    writer) preloaded in the place of libemlat-tty.so, through
 *    EMLAT_TTY_LIB and EMLAT_FLOOR=tsc1; the tables add "off -> floor"
 *    and "floor -> on".  A FAIL of off -> floor is a row that no recorder
 *    loaded with LD_PRELOAD that timestamps each call can pass on the
 *    machine; floor -> on is what this recorder adds above that least.
 *  - --cpu N (a diagnostic, not the gate's mode): the bench, and with it
 *    every driver and program, runs on CPU N only.  Unpinned, a key's
 *    external latency on a small guest is bimodal (the program woken on
 *    the driver's CPU or on another, idle one), and the mix of the modes,
 *    which varies from run to run, moves the median more than a recorder
 *    does; pinned, every key takes one wake-up path, but the driver's drain
 *    thread then runs on the program's CPU and its passes delay keys.
 *
 * Output: the tables (Markdown) and "METRIC name value unit" lines on
 * stdout, progress on stderr.  --doc FILE replaces the lines between
 * "<!-- gate:begin -->" and "<!-- gate:end -->" of FILE with the tables,
 * the date, the machine (uname, CPU model, CPUs online), the load average
 * before and after, and the exact command.  --quick: 3 rounds, short
 * workloads and a 5 s idle window, for smoke tests only; the full mode
 * (default) runs 10 rounds.  Exits 0 when every run worked (whatever the
 * verdicts: a missed gate is a finding), 1 when a run failed, 2 on usage.
 *
 * Invariants: every child is reaped (a run that outlives its deadline is
 * sent SIGTERM, then SIGKILL, and waited for); temporary files live in one
 * mkdtemp directory removed at the end (also after SIGINT/SIGTERM); the
 * bench takes no time stamps of its own for what it reports: CPU comes
 * from the kernel (wait4, the program's CPU-time clock, /proc), latency
 * from the driver; its own clock only places the idle window.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"

#define MAX_ROUNDS 64
#define GATE_CPU_PCT 0.5
#define GATE_MEDIAN_PCT 0.5
#define GATE_P99_US 50.0
#define DOC_BEGIN "<!-- gate:begin -->"
#define DOC_END "<!-- gate:end -->"

enum prog { P_LESS, P_VIM, P_NANO, P_EMACS };
enum arm { ARM_OFF, ARM_ON, ARM_VANILLA, ARM_FLOOR, N_ARMS };
static const char *const arm_label[N_ARMS] = { "off", "on", "vanilla", "floor" };

struct workload
{
  const char *id;      /* --only name */
  const char *label;   /* table row */
  enum prog prog;
  const char *builtin; /* emlat replay --workload */
  unsigned keys_full, keys_quick;
  int on_file;         /* the program opens the generated file */
};

static const struct workload workloads[] = {
  { "less-paging", "less, paging", P_LESS, "paging", 50, 12, 1 },
  { "vim-typing", "vim, typing", P_VIM, "typing", 100, 30, 0 },
  { "nano-typing", "nano, typing", P_NANO, "typing", 100, 30, 0 },
  { "emacs-editing", "Emacs, editing", P_EMACS, "editing", 60, 25, 0 },
  { "emacs-typing", "Emacs, typing", P_EMACS, "typing", 100, 30, 0 },
  { "emacs-paging", "Emacs, paging", P_EMACS, "paging", 50, 12, 1 },
};
#define N_WORKLOADS (sizeof workloads / sizeof workloads[0])

/* What one run gave. */
struct run
{
  double cpu_ms;
  double startup_ms;  /* CPU when start-up was over, before the workload */
  double *lat_us; /* first-output latency of each workload send */
  size_t n_lat;
  int have_stats;
  uint64_t wakeups, writer_cpu_ns;
  int writer_in_driver; /* stats.writer_in_driver: its CPU was the driver's */
};

struct wl_state
{
  const struct workload *w;
  int use[N_ARMS];
  unsigned rounds;              /* rounds completed */
  struct run runs[N_ARMS][MAX_ROUNDS];
  char *script;                 /* path */
  unsigned quit_sends;          /* trailing sends left out */
  double seconds;               /* expected duration of one run */
  char *error;                  /* why the workload stopped, or NULL */
};

struct idle_result
{
  enum prog prog;
  int ran;
  char *error;
  double window_s;
  int have_writer;
  int writer_in_driver; /* the thread counted is the driver's drain thread */
  uint64_t vol, nonvol;         /* writer's switches in the window */
  double prog_cpu_ms, writer_cpu_ms;
  int have_stats;
  uint64_t stats_wakeups;
};

/* Options and environment. */
static struct
{
  unsigned rounds, keys, resamples;
  double idle_s;
  uint64_t seed;
  int quick;
  const char *only;
  const char *doc;
  const char *emlat, *build;
  const char *emacs, *emacs_vanilla;
  int emacs_no_thread_cpu; /* --emacs-thread-cpu off */
  int cpu;                 /* --cpu N: every run on that CPU; -1 none */
  const char *less, *vim, *nano;
  int floor;               /* --floor: the floor arm for less, vim, nano */
  char *floor_lib;         /* its library (bench/floor_preload.c) */
  char *user_tty_lib;      /* EMLAT_TTY_LIB as given, for the on arm */
  char *dir;
  char *file;
} opt;

static volatile sig_atomic_t g_stop;

static void
on_signal (int sig)
{
  g_stop = sig;
}

static void *
xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);
  if (!p)
    {
      fprintf (stderr, "bench_gate: out of memory\n");
      exit (1);
    }
  return p;
}

static char *
xasprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static char *
xasprintf (const char *fmt, ...)
{
  va_list ap;
  char *s;
  va_start (ap, fmt);
  int n = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (n < 0)
    {
      fprintf (stderr, "bench_gate: out of memory\n");
      exit (1);
    }
  return s;
}

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* Children                                                           */

struct child
{
  pid_t pid;
  int fd;         /* its stdout and stderr */
  char *out;
  size_t n, cap;
};

/* Start ARGV in CWD with stdout and stderr into a pipe.  0 or -1. */
static int
child_start (struct child *c, char *const *argv, const char *cwd)
{
  int fd[2];
  memset (c, 0, sizeof *c);
  c->fd = -1;
  if (pipe2 (fd, O_CLOEXEC) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    {
      close (fd[0]);
      close (fd[1]);
      return -1;
    }
  if (pid == 0)
    {
      dup2 (fd[1], 1);
      dup2 (fd[1], 2);
      if (cwd && chdir (cwd) != 0)
        _exit (126);
      execv (argv[0], argv);
      _exit (127);
    }
  close (fd[1]);
  c->pid = pid;
  c->fd = fd[0];
  c->cap = 8192;
  c->out = xmalloc (c->cap);
  c->out[0] = 0;
  return 0;
}

/* Read what is there (waiting at most MS); 1 at end of file, else 0. */
static int
child_read (struct child *c, int ms)
{
  struct pollfd p = { c->fd, POLLIN, 0 };
  int r = poll (&p, 1, ms);
  if (r <= 0)
    return 0;
  if (c->n + 4096 + 1 > c->cap)
    {
      c->cap *= 2;
      char *nb = realloc (c->out, c->cap);
      if (!nb)
        return 1;
      c->out = nb;
    }
  ssize_t k = read (c->fd, c->out + c->n, c->cap - c->n - 1);
  if (k < 0 && (errno == EINTR || errno == EAGAIN))
    return 0;
  if (k <= 0)
    return 1;
  c->n += (size_t)k;
  c->out[c->n] = 0;
  return 0;
}

/* Collect the child's output until it exits, at most TIMEOUT_S seconds;
   then SIGTERM, 5 s later SIGKILL.  Always reaps it.  Returns its exit
   status, 128 + signal, or -1 when it had to be stopped. */
static int
child_finish (struct child *c, double timeout_s)
{
  double deadline = now_s () + timeout_s;
  int stopped = 0, eof = 0, st = 0;
  double kill_at = 0;
  for (;;)
    {
      if (!eof)
        eof = child_read (c, 50);
      else
        {
          pid_t w = waitpid (c->pid, &st, WNOHANG);
          if (w == c->pid)
            break;
          if (w < 0 && errno != EINTR)
            break;
          struct timespec ts = { 0, 20 * 1000 * 1000 };
          nanosleep (&ts, NULL);
        }
      double t = now_s ();
      if (!stopped && (g_stop || t > deadline))
        {
          fprintf (stderr, "bench_gate: stopping %s (%s)\n", "emlat replay",
                   g_stop ? "interrupted" : "deadline passed");
          kill (c->pid, SIGTERM);
          stopped = 1;
          kill_at = t + 5;
        }
      if (stopped && kill_at && t > kill_at)
        {
          kill (c->pid, SIGKILL);
          kill_at = 0;
        }
    }
  close (c->fd);
  c->fd = -1;
  if (stopped)
    return -1;
  if (WIFEXITED (st))
    return WEXITSTATUS (st);
  return WIFSIGNALED (st) ? 128 + WTERMSIG (st) : -1;
}

/* Run ARGV to its end (TIMEOUT_S); its output in *OUT (heap). */
static int
run_capture (char *const *argv, const char *cwd, double timeout_s, char **out)
{
  struct child c;
  *out = NULL;
  if (child_start (&c, argv, cwd) != 0)
    return -1;
  int rc = child_finish (&c, timeout_s);
  *out = c.out;
  return rc;
}

/* ------------------------------------------------------------------ */
/* /proc                                                              */

/* The pid of a child of PARENT, or 0. */
static pid_t
child_of (pid_t parent)
{
  DIR *d = opendir ("/proc");
  pid_t found = 0;
  if (!d)
    return 0;
  struct dirent *e;
  while (!found && (e = readdir (d)))
    {
      if (!isdigit ((unsigned char)e->d_name[0]))
        continue;
      char path[300], buf[512];
      snprintf (path, sizeof path, "/proc/%s/stat", e->d_name);
      int fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      ssize_t n = read (fd, buf, sizeof buf - 1);
      close (fd);
      if (n <= 0)
        continue;
      buf[n] = 0;
      /* pid (comm) state ppid: comm may hold spaces and parentheses. */
      char *rp = strrchr (buf, ')');
      char state;
      int ppid;
      if (rp && sscanf (rp + 1, " %c %d", &state, &ppid) == 2 && ppid == parent)
        found = (pid_t)atoi (e->d_name);
    }
  closedir (d);
  return found;
}

static int
read_small (const char *path, char *buf, size_t n)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t k = read (fd, buf, n - 1);
  close (fd);
  if (k < 0)
    return -1;
  buf[k] = 0;
  return 0;
}

/* The thread of PID named NAME (its comm), or 0. */
static pid_t
named_tid (pid_t pid, const char *name)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir (path);
  pid_t found = 0;
  if (!d)
    return 0;
  struct dirent *e;
  while (!found && (e = readdir (d)))
    {
      if (!isdigit ((unsigned char)e->d_name[0]))
        continue;
      char p2[320], buf[64];
      snprintf (p2, sizeof p2, "/proc/%d/task/%s/comm", (int)pid, e->d_name);
      size_t n = strlen (name);
      if (read_small (p2, buf, sizeof buf) == 0 && strncmp (buf, name, n) == 0
          && strcmp (buf + n, "\n") == 0)
        found = (pid_t)atoi (e->d_name);
    }
  closedir (d);
  return found;
}

/* Context switches of task TID of PID: 0 or -1. */
static int
task_switches (pid_t pid, pid_t tid, uint64_t *vol, uint64_t *nonvol)
{
  char path[96], buf[4096];
  snprintf (path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
  if (read_small (path, buf, sizeof buf) != 0)
    return -1;
  char *v = strstr (buf, "\nvoluntary_ctxt_switches:");
  char *nv = strstr (buf, "\nnonvoluntary_ctxt_switches:");
  if (!v || !nv)
    return -1;
  *vol = strtoull (strchr (v, ':') + 1, NULL, 10);
  *nonvol = strtoull (strchr (nv, ':') + 1, NULL, 10);
  return 0;
}

/* CPU time (ns on CPU, schedstat) of task TID, or of every task of PID
   when TID is 0; -1 when unreadable. */
static double
task_cpu_ns (pid_t pid, pid_t tid)
{
  char path[96], buf[256];
  if (tid)
    {
      snprintf (path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
      if (read_small (path, buf, sizeof buf) != 0)
        return -1;
      return strtod (buf, NULL);
    }
  snprintf (path, sizeof path, "/proc/%d/task", (int)pid);
  DIR *d = opendir (path);
  if (!d)
    return -1;
  double sum = 0;
  unsigned read = 0;
  struct dirent *e;
  while ((e = readdir (d)))
    if (isdigit ((unsigned char)e->d_name[0]))
      {
        double t = task_cpu_ns (pid, (pid_t)atoi (e->d_name));
        if (t >= 0)
          sum += t, read++;
      }
  closedir (d);
  return read ? sum : -1;
}

/* CPU time (ns) of process PID, every thread it ever had: its CPU-time
   clock (clock_getcpuclockid), else the schedstat of its live threads;
   -1 when neither can be read. */
static double
proc_cpu_ns (pid_t pid)
{
  clockid_t clk;
  struct timespec ts;
  if (clock_getcpuclockid (pid, &clk) == 0 && clock_gettime (clk, &ts) == 0)
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
  return task_cpu_ns (pid, 0);
}

/* ------------------------------------------------------------------ */
/* Files                                                              */

static int
write_text (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");
  if (!f)
    return -1;
  int bad = fputs (text, f) < 0;
  return fclose (f) != 0 || bad ? -1 : 0;
}

/* The tsv's first_output_ns column (4th) of every send but the last
   DROP, in microseconds, into R (sends without output are left out). */
static int
read_tsv (const char *path, unsigned drop, struct run *r)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return -1;
  size_t n = 0, cap = 256;
  double *v = xmalloc (cap * sizeof *v);
  char line[512];
  while (fgets (line, sizeof line, f))
    {
      if (line[0] == '#')
        continue;
      char *col = line;
      for (int k = 0; k < 3 && col; k++)
        if ((col = strchr (col, '\t')))
          col++;
      if (!col)
        continue;
      if (n == cap)
        {
          cap *= 2;
          double *nv = realloc (v, cap * sizeof *v);
          if (!nv)
            break;
          v = nv;
        }
      v[n++] = *col == '-' ? NAN : strtod (col, NULL) / 1e3;
    }
  fclose (f);
  n = n > drop ? n - drop : 0;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan (v[i]))
      v[k++] = v[i];
  r->lat_us = v;
  r->n_lat = k;
  return 0;
}

/* stats.writer_wakeups and stats.writer_cpu_ns of the profile PATH. */
static int
read_stats (const char *path, uint64_t *wakeups, uint64_t *cpu_ns, int *in_driver)
{
  struct emlat_profile *p = NULL;
  const char *paths[1] = { path };
  if (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_NO_RECOVER, &p) != 0 || !p)
    return -1;
  size_t n;
  const struct emlat_kv *kv = emlat_profile_stats (p, &n);
  const struct emlat_kv *w = emlat_kv_find (kv, n, "stats.writer_wakeups");
  const struct emlat_kv *c = emlat_kv_find (kv, n, "stats.writer_cpu_ns");
  const struct emlat_kv *d = emlat_kv_find (kv, n, "stats.writer_in_driver");
  *in_driver = d && d->u == 1;
  int rc = w && c ? 0 : -1;
  if (w)
    *wakeups = w->u;
  if (c)
    *cpu_ns = c->u;
  emlat_profile_free (p);
  return rc;
}

static int
rm_cb (const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb;
  (void)flag;
  (void)ftw;
  remove (path);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Runs                                                               */

static const char *
prog_path (enum prog p, enum arm a)
{
  switch (p)
    {
    case P_LESS:
      return opt.less;
    case P_VIM:
      return opt.vim;
    case P_NANO:
      return opt.nano;
    case P_EMACS:
      return a == ARM_VANILLA ? opt.emacs_vanilla : opt.emacs;
    }
  return NULL;
}

/* Script lines that end program P after its workload, and how many sends
   they make. */
static const char *
quit_lines (enum prog p, unsigned *sends)
{
  switch (p)
    {
    case P_LESS:
      *sends = 1;
      return "key q\n";
    case P_VIM:
      *sends = 5;
      return "key ESC\npause 300ms\ntype \":q!\\n\"\n";
    case P_NANO:
      *sends = 2;
      return "key C-x\npause 300ms\nkey n\n";
    case P_EMACS:
      *sends = 2;
      return "key C-x C-c\n";
    }
  *sends = 0;
  return "";
}

/* Build argv for one replay of program P in arm A with SCRIPT; TAG names
   its files.  *PROF receives the program's own profile path (or NULL). */
static char **
replay_argv (enum prog p, enum arm a, int on_file, const char *script,
             const char *tag, const char *extra_opt, double timeout_s,
             char **prof, char **tsv)
{
  char **v = xmalloc (40 * sizeof *v);
  size_t n = 0;
  v[n++] = xasprintf ("%s", opt.emlat);
  v[n++] = xasprintf ("replay");
  v[n++] = xasprintf ("--script");
  v[n++] = xasprintf ("%s", script);
  v[n++] = xasprintf ("--timeout");
  v[n++] = xasprintf ("%.0f", timeout_s);
  v[n++] = xasprintf ("-o");
  v[n++] = xasprintf ("%s/%s.emlat", opt.dir, tag);
  *tsv = xasprintf ("%s/%s.tsv", opt.dir, tag);
  v[n++] = xasprintf ("--tsv");
  v[n++] = xasprintf ("%s", *tsv);
  if (extra_opt)
    {
      v[n++] = xasprintf ("--settle-max");
      v[n++] = xasprintf ("%s", extra_opt);
    }
  *prof = NULL;
  /* The floor arm runs as the on arm does, with the floor's library in
     the place of libemlat-tty.so (one_run): the same driver, the same
     environment, a profile that stays empty. */
  if (p != P_EMACS && (a == ARM_ON || a == ARM_FLOOR))
    {
      v[n++] = xasprintf ("--interpose");
      *prof = xasprintf ("%s/%s.tty.emlat", opt.dir, tag);
    }
  v[n++] = xasprintf ("--");
  const char *exe = prog_path (p, a);
  v[n++] = xasprintf ("%s", exe ? exe : "/nonexistent");
  switch (p)
    {
    case P_LESS:
      break;
    case P_VIM:
      v[n++] = xasprintf ("-u");
      v[n++] = xasprintf ("NONE");
      v[n++] = xasprintf ("-i");
      v[n++] = xasprintf ("NONE");
      v[n++] = xasprintf ("-N");
      v[n++] = xasprintf ("-n");
      v[n++] = xasprintf ("-c");
      v[n++] = xasprintf ("startinsert");
      v[n++] = xasprintf ("%s/%s.txt", opt.dir, tag);
      break;
    case P_NANO:
      v[n++] = xasprintf ("--ignorercfiles");
      v[n++] = xasprintf ("%s/%s.txt", opt.dir, tag);
      break;
    case P_EMACS:
      v[n++] = xasprintf ("-Q");
      v[n++] = xasprintf ("-nw");
      if (a == ARM_ON)
        {
          *prof = xasprintf ("%s/%s.emacs.emlat", opt.dir, tag);
          v[n++] = xasprintf ("--latency-profile=%s", *prof);
        }
      if (opt.emacs_no_thread_cpu)
        {
          /* Every arm evaluates the same form, so that only the
             recording differs between them. */
          v[n++] = xasprintf ("--eval");
          v[n++] = xasprintf ("(setq latency-profile-thread-cpu nil)");
        }
      break;
    }
  if (on_file)
    v[n++] = xasprintf ("%s", opt.file);
  v[n] = NULL;
  return v;
}

static void
free_argv (char **v)
{
  for (size_t i = 0; v[i]; i++)
    free (v[i]);
  free (v);
}

/* The "cmd cpu:" milliseconds of a replay summary, or -1. */
static double
summary_cpu (const char *out)
{
  const char *c = out ? strstr (out, "cmd cpu:") : NULL;
  return c ? strtod (c + 8, NULL) : -1;
}

static int
summary_ok (const char *out)
{
  return out && strstr (out, "exited with status 0")
         && strstr (out, "result:        completed") && summary_cpu (out) >= 0;
}

/* Every workload script begins with a pause of WORKLOAD_LEAD_S and every
   run has --settle-max 1s: start-up is over (the driver settled) less than
   about 1.05 s after the program appeared, and the first workload send goes
   out no earlier than 0.3 s (the settle gap) + WORKLOAD_LEAD_S after it.
   The program's CPU sampled SAMPLE_AT_S after it appeared, while it idles
   in between, is its start-up CPU. */
#define WORKLOAD_LEAD_S 2.0
#define SAMPLE_AT_S 1.5

/* Wait for the program of replay child C to appear and sample its CPU
   (ns, every live thread) SAMPLE_AT_S later; -1 when it cannot. */
static double
sample_startup (struct child *c)
{
  double t0 = now_s ();
  pid_t pid = 0;
  while (!pid && !g_stop && now_s () - t0 < 5)
    {
      pid = child_of (c->pid);
      if (!pid)
        {
          struct timespec ts = { 0, 2 * 1000 * 1000 };
          nanosleep (&ts, NULL);
        }
    }
  if (!pid)
    return -1;
  double at = now_s () + SAMPLE_AT_S;
  while (!g_stop && now_s () < at)
    child_read (c, (int)((at - now_s ()) * 1000) + 1);
  return proc_cpu_ns (pid);
}

/* One run of workload S in arm A, round R.  0 or -1 (S->error set). */
static int
one_run (struct wl_state *s, enum arm a, unsigned r)
{
  char *tag = xasprintf ("%s-%s-%u", s->w->id, arm_label[a], r);
  char *prof, *tsv;
  double timeout = s->seconds * 3 + 60;
  char **argv = replay_argv (s->w->prog, a, s->w->on_file, s->script, tag,
                             "1s", timeout, &prof, &tsv);
  struct run *run = &s->runs[a][r];
  memset (run, 0, sizeof *run);
  struct child c;
  char *out = NULL;
  int rc = -1;
  double startup_ns = -1;
  /* The floor arm: `emlat replay --interpose` preloads the floor's
     library (EMLAT_TTY_LIB), active by EMLAT_FLOOR; the on arm gets the
     library the caller's environment names, if any. */
  if (a == ARM_FLOOR)
    {
      setenv ("EMLAT_TTY_LIB", opt.floor_lib, 1);
      setenv ("EMLAT_FLOOR", "tsc1", 1);
    }
  int started = child_start (&c, argv, opt.dir) == 0;
  if (a == ARM_FLOOR)
    {
      unsetenv ("EMLAT_FLOOR");
      if (opt.user_tty_lib)
        setenv ("EMLAT_TTY_LIB", opt.user_tty_lib, 1);
      else
        unsetenv ("EMLAT_TTY_LIB");
    }
  if (started)
    {
      startup_ns = sample_startup (&c);
      rc = child_finish (&c, timeout + 30);
      out = c.out;
    }
  int ok = rc == 0 && summary_ok (out) && startup_ns >= 0;
  if (ok)
    {
      run->cpu_ms = summary_cpu (out);
      run->startup_ms = startup_ns / 1e6;
      ok = read_tsv (tsv, s->quit_sends, run) == 0 && run->n_lat > 0;
      if (!ok)
        s->error = xasprintf ("%s: no sends measured in %s", tag, tsv);
      if (ok && prof && a == ARM_ON)
        run->have_stats
          = read_stats (prof, &run->wakeups, &run->writer_cpu_ns, &run->writer_in_driver) == 0;
      /* The floor writes no profile: one with bytes means the library,
         not the floor, was preloaded. */
      struct stat st;
      if (ok && prof && a == ARM_FLOOR && stat (prof, &st) == 0 && st.st_size > 0)
        {
          ok = 0;
          s->error = xasprintf ("%s: %s was written: the floor's library was not the one "
                                "preloaded", tag, prof);
        }
    }
  else if (rc == 0 && summary_ok (out))
    s->error = xasprintf ("%s: the program's CPU could not be read after its "
                          "start-up", tag);
  else
    s->error = xasprintf ("%s: emlat replay exited %d:\n%s", tag, rc, out ? out : "");
  if (!ok)
    fprintf (stderr, "bench_gate: %s\n", s->error);
  /* Keep the directory small: a run's files are not needed any more. */
  char *rm[] = { tsv, prof, NULL };
  for (int i = 0; rm[i]; i++)
    unlink (rm[i]);
  char *drv = xasprintf ("%s/%s.emlat", opt.dir, tag);
  char *txt = xasprintf ("%s/%s.txt", opt.dir, tag);
  unlink (drv);
  unlink (txt);
  free (drv);
  free (txt);
  free (out);
  free_argv (argv);
  free (prof);
  free (tsv);
  free (tag);
  return ok ? 0 : -1;
}

/* The idle measurement of program P (less or Emacs, profiled). */
static void
idle_run (struct idle_result *res)
{
  /* The window opens MARGIN s after the program appeared: later than
     start-up's end, which --settle-max 3s bounds. */
  const double margin = 3.5;
  char *tag = xasprintf ("idle-%s", res->prog == P_LESS ? "less" : "emacs");
  char *script = xasprintf ("%s/%s.script", opt.dir, tag);
  char *text = xasprintf ("# idle: nothing for %.0f s, then quit\npause %.0fms\n%s",
                          opt.idle_s, (opt.idle_s + margin + 5) * 1e3,
                          res->prog == P_LESS ? "key q\n" : "key C-x C-c\n");
  res->ran = 1;
  res->window_s = opt.idle_s;
  if (write_text (script, text) != 0)
    {
      res->error = xasprintf ("cannot write %s", script);
      free (tag);
      free (script);
      free (text);
      return;
    }
  char *prof, *tsv;
  double timeout = opt.idle_s + 60;
  char **argv = replay_argv (res->prog, ARM_ON, res->prog == P_LESS, script, tag,
                             "3s", timeout, &prof, &tsv);
  struct child c;
  fprintf (stderr, "bench_gate: idle %s, %.0f s window\n",
           res->prog == P_LESS ? "less" : "Emacs", opt.idle_s);
  if (child_start (&c, argv, opt.dir) != 0)
    {
      res->error = xasprintf ("cannot start emlat replay");
      goto out;
    }
  pid_t pid = 0;
  double t0 = now_s ();
  while (!pid && !g_stop && now_s () - t0 < 10)
    {
      child_read (&c, 10);
      pid = child_of (c.pid);
    }
  if (pid)
    {
      /* Start-up has settled (--settle-max 3s) before the window opens. */
      double open_at = t0 + margin;
      while (!g_stop && now_s () < open_at)
        child_read (&c, 50);
      /* The program's writer thread, or its driver's drain thread. */
      pid_t wpid = pid, tid = named_tid (pid, "emlat-writer");
      if (!tid && (tid = named_tid (c.pid, "emlat-drain")))
        {
          wpid = c.pid;
          res->writer_in_driver = 1;
        }
      uint64_t v0 = 0, n0 = 0, v1 = 0, n1 = 0;
      double pc0 = proc_cpu_ns (pid), wc0 = tid ? task_cpu_ns (wpid, tid) : 0;
      int ok0 = !tid || task_switches (wpid, tid, &v0, &n0) == 0;
      double close_at = now_s () + opt.idle_s;
      while (!g_stop && now_s () < close_at)
        child_read (&c, 100);
      int ok1 = !tid || task_switches (wpid, tid, &v1, &n1) == 0;
      double pc1 = proc_cpu_ns (pid), wc1 = tid ? task_cpu_ns (wpid, tid) : 0;
      if (!ok0 || !ok1 || pc0 < 0 || pc1 < 0)
        res->error = xasprintf ("the program or its writer thread went away "
                                "during the window");
      else
        {
          res->have_writer = tid != 0;
          res->vol = v1 - v0;
          res->nonvol = n1 - n0;
          res->prog_cpu_ms = (pc1 - pc0) / 1e6;
          res->writer_cpu_ms = (wc1 - wc0) / 1e6;
        }
    }
  else
    res->error = xasprintf ("the program did not start");
  int rc = child_finish (&c, timeout + 30);
  if (!res->error && (rc != 0 || !summary_ok (c.out)))
    res->error = xasprintf ("emlat replay exited %d:\n%s", rc, c.out);
  if (!res->error && prof)
    res->have_stats = read_stats (prof, &res->stats_wakeups, &(uint64_t){ 0 }, &(int){ 0 }) == 0;
  /* No writer thread in the window counts as no wake-up only when the
     program did record (its profile has final STATS). */
  if (!res->error && !res->have_writer && !res->have_stats)
    res->error = xasprintf ("no emlat-writer thread and no profile: did the "
                            "program record at all?");
  if (res->error)
    fprintf (stderr, "bench_gate: idle: %s\n", res->error);
  free (c.out);
out:
  free_argv (argv);
  free (prof);
  free (tsv);
  free (tag);
  free (script);
  free (text);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                         */

static int
cmp_d (const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* Nearest-rank quantile P (0..1) of V[0..N), sorting V. */
static double
quantile (double *v, size_t n, double p)
{
  if (!n)
    return NAN;
  qsort (v, n, sizeof *v, cmp_d);
  size_t k = (size_t)ceil (p * (double)n);
  return v[k ? k - 1 : 0];
}

/* The median of V[0..N) (the mean of the middle two when N is even),
   sorting V: for the few per-round values of CPU. */
static double
median (double *v, size_t n)
{
  if (!n)
    return NAN;
  qsort (v, n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum metric { M_CPU, M_WORK, M_MEDIAN, M_P99, N_METRICS };

/* The CPU of run R for metric M: the whole run, or the workload alone
   (the run minus the CPU read when start-up was over). */
static double
cpu_of (const struct run *r, enum metric m)
{
  return m == M_WORK ? r->cpu_ms - r->startup_ms : r->cpu_ms;
}

struct scratch
{
  double *a, *b;
  size_t cap;
};

/* Statistic M of arms BASE -> TEST over the rounds IDX[0..N). */
static double
stat_of (const struct wl_state *s, enum arm base, enum arm test, enum metric m,
         const unsigned *idx, unsigned n, struct scratch *sc)
{
  if (m == M_CPU || m == M_WORK)
    {
      double d[MAX_ROUNDS];
      for (unsigned i = 0; i < n; i++)
        {
          double b = cpu_of (&s->runs[base][idx[i]], m);
          double t = cpu_of (&s->runs[test][idx[i]], m);
          d[i] = 100.0 * (t - b) / b;
        }
      return median (d, n);
    }
  size_t na = 0, nb = 0;
  for (unsigned i = 0; i < n; i++)
    {
      const struct run *rb = &s->runs[base][idx[i]], *rt = &s->runs[test][idx[i]];
      memcpy (sc->a + na, rb->lat_us, rb->n_lat * sizeof *sc->a);
      na += rb->n_lat;
      memcpy (sc->b + nb, rt->lat_us, rt->n_lat * sizeof *sc->b);
      nb += rt->n_lat;
    }
  double p = m == M_MEDIAN ? 0.5 : 0.99;
  double qa = quantile (sc->a, na, p), qb = quantile (sc->b, nb, p);
  return m == M_MEDIAN ? 100.0 * (qb - qa) / qa : qb - qa;
}

struct estimate
{
  double point, lo, hi;
  double base, test;   /* the arms' own values: CPU median ms, quantile us */
};

/* Point estimate and paired bootstrap interval over rounds. */
static void
estimate (const struct wl_state *s, enum arm base, enum arm test, enum metric m,
          struct estimate *e)
{
  unsigned n = s->rounds, idx[MAX_ROUNDS];
  struct scratch sc;
  /* A resample may draw the largest run N times. */
  size_t most = 0;
  for (int a = 0; a < N_ARMS; a++)
    for (unsigned r = 0; r < n; r++)
      if (s->runs[a][r].n_lat > most)
        most = s->runs[a][r].n_lat;
  sc.cap = most * n + 1;
  sc.a = xmalloc (sc.cap * sizeof *sc.a);
  sc.b = xmalloc (sc.cap * sizeof *sc.b);
  for (unsigned i = 0; i < n; i++)
    idx[i] = i;
  e->point = stat_of (s, base, test, m, idx, n, &sc);
  /* The arms' own values. */
  if (m == M_CPU || m == M_WORK)
    {
      double v[MAX_ROUNDS];
      for (unsigned i = 0; i < n; i++)
        v[i] = cpu_of (&s->runs[base][i], m);
      e->base = median (v, n);
      for (unsigned i = 0; i < n; i++)
        v[i] = cpu_of (&s->runs[test][i], m);
      e->test = median (v, n);
    }
  else
    {
      double p = m == M_MEDIAN ? 0.5 : 0.99;
      size_t na = 0, nb = 0;
      for (unsigned i = 0; i < n; i++)
        {
          memcpy (sc.a + na, s->runs[base][i].lat_us, s->runs[base][i].n_lat * sizeof *sc.a);
          na += s->runs[base][i].n_lat;
          memcpy (sc.b + nb, s->runs[test][i].lat_us, s->runs[test][i].n_lat * sizeof *sc.b);
          nb += s->runs[test][i].n_lat;
        }
      e->base = quantile (sc.a, na, p);
      e->test = quantile (sc.b, nb, p);
    }
  unsigned R = opt.resamples;
  double *d = xmalloc (R * sizeof *d);
  struct emlat_report_rng rng;
  /* The same seed for every comparison: resample k draws the same rounds
     in every row, so the rows' intervals are reproducible run to run. */
  emlat_report_rng_seed (&rng, opt.seed);
  for (unsigned k = 0; k < R; k++)
    {
      unsigned bi[MAX_ROUNDS];
      for (unsigned i = 0; i < n; i++)
        bi[i] = (unsigned)(emlat_report_rng_next (&rng) % n);
      d[k] = stat_of (s, base, test, m, bi, n, &sc);
    }
  qsort (d, R, sizeof *d, cmp_d);
  /* Nearest-rank 2.5th and 97.5th percentiles. */
  size_t klo = (size_t)ceil (0.025 * R), khi = (size_t)ceil (0.975 * R);
  e->lo = d[klo ? klo - 1 : 0];
  e->hi = d[khi ? khi - 1 : 0];
  free (d);
  free (sc.a);
  free (sc.b);
}

/* "pass", "FAIL" or "unresolved" for interval [LO, HI] against LIMIT
   (INCLUSIVE: the gate is value <= limit, else value < limit). */
static const char *
verdict (double lo, double hi, double limit, int inclusive)
{
  if (inclusive ? hi <= limit : hi < limit)
    return "pass";
  if (inclusive ? lo > limit : lo >= limit)
    return "FAIL";
  return "unresolved";
}

/* ------------------------------------------------------------------ */
/* Report                                                             */

struct text
{
  char *s;
  size_t n, cap;
};

static void
tprintf (struct text *t, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

static void
tprintf (struct text *t, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *s;
  int n = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (n < 0)
    exit (1);
  if (t->n + (size_t)n + 1 > t->cap)
    {
      t->cap = (t->n + (size_t)n + 1) * 2;
      char *ns = realloc (t->s, t->cap);
      if (!ns)
        exit (1);
      t->s = ns;
    }
  memcpy (t->s + t->n, s, (size_t)n + 1);
  t->n += (size_t)n;
  free (s);
}

static void
metric_name (char *buf, size_t n, const struct wl_state *s, enum arm base,
             enum arm test, const char *what)
{
  snprintf (buf, n, "gate_%s_%s_%s_%s", s->w->id, arm_label[test], arm_label[base], what);
  for (char *p = buf; *p; p++)
    if (*p == '-')
      *p = '_';
}

static void
report_comparison (struct text *tab, struct text *met, const struct wl_state *s,
                   enum arm base, enum arm test, int first)
{
  static const char *const gate_name[N_METRICS] = { "CPU of the program",
                                                    "CPU of the workload",
                                                    "median first output",
                                                    "p99 first output" };
  static const char *const mname[N_METRICS] = { "cpu_added_pct", "work_cpu_added_pct",
                                                "median_added_pct", "p99_added_us" };
  char arms[32];
  snprintf (arms, sizeof arms, "%s -> %s", arm_label[base], arm_label[test]);
  /* The workload's CPU is a difference: it needs a positive base in
     every round. */
  int work_ok = 1;
  for (unsigned r = 0; r < s->rounds; r++)
    work_ok &= cpu_of (&s->runs[base][r], M_WORK) > 0.01;
  for (int m = 0; m < N_METRICS; m++)
    {
      if (m == M_WORK && !work_ok)
        {
          tprintf (tab, "| | | %s | no result: a run's workload used no measurable CPU "
                   "(beyond start-up) | | | | | |\n", gate_name[m]);
          continue;
        }
      struct estimate e;
      estimate (s, base, test, (enum metric)m, &e);
      const char *v;
      char base_s[32], test_s[32], add_s[32], ci_s[48], lim_s[16];
      if (m == M_CPU || m == M_WORK)
        {
          snprintf (base_s, sizeof base_s, "%.2f ms", e.base);
          snprintf (test_s, sizeof test_s, "%.2f ms", e.test);
          snprintf (add_s, sizeof add_s, "%+.2f %%", e.point);
          snprintf (ci_s, sizeof ci_s, "[%+.2f, %+.2f] %%", e.lo, e.hi);
          snprintf (lim_s, sizeof lim_s, "<= %.1f %%", GATE_CPU_PCT);
          v = verdict (e.lo, e.hi, GATE_CPU_PCT, 1);
        }
      else if (m == M_MEDIAN)
        {
          snprintf (base_s, sizeof base_s, "%.1f us", e.base);
          snprintf (test_s, sizeof test_s, "%.1f us", e.test);
          snprintf (add_s, sizeof add_s, "%+.2f %%", e.point);
          snprintf (ci_s, sizeof ci_s, "[%+.2f, %+.2f] %%", e.lo, e.hi);
          snprintf (lim_s, sizeof lim_s, "< %.1f %%", GATE_MEDIAN_PCT);
          v = verdict (e.lo, e.hi, GATE_MEDIAN_PCT, 0);
        }
      else
        {
          snprintf (base_s, sizeof base_s, "%.1f us", e.base);
          snprintf (test_s, sizeof test_s, "%.1f us", e.test);
          snprintf (add_s, sizeof add_s, "%+.1f us", e.point);
          snprintf (ci_s, sizeof ci_s, "[%+.1f, %+.1f] us", e.lo, e.hi);
          snprintf (lim_s, sizeof lim_s, "< %.0f us", GATE_P99_US);
          v = verdict (e.lo, e.hi, GATE_P99_US, 0);
        }
      tprintf (tab, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
               first && m == 0 ? s->w->label : "",
               m == 0 ? arms : "",
               gate_name[m], base_s, test_s, add_s, ci_s, lim_s, v);
      char name[128];
      const char *unit = m == M_P99 ? "us" : "%";
      metric_name (name, sizeof name, s, base, test, mname[m]);
      tprintf (met, "METRIC %s %.3f %s\n", name, e.point, unit);
      tprintf (met, "METRIC %s_lo %.3f %s\n", name, e.lo, unit);
      tprintf (met, "METRIC %s_hi %.3f %s\n", name, e.hi, unit);
    }
}

static void
report_notes (struct text *notes, struct text *met, const struct wl_state *s)
{
  size_t sends[N_ARMS] = { 0 };
  for (int a = 0; a < N_ARMS; a++)
    for (unsigned r = 0; r < s->rounds; r++)
      sends[a] += s->runs[a][r].n_lat;
  double wk[MAX_ROUNDS], wc[MAX_ROUNDS], share[MAX_ROUNDS];
  unsigned n = 0, in_driver = 0;
  for (unsigned r = 0; r < s->rounds; r++)
    if (s->runs[ARM_ON][r].have_stats)
      {
        in_driver += s->runs[ARM_ON][r].writer_in_driver != 0;
        wk[n] = (double)s->runs[ARM_ON][r].wakeups;
        wc[n] = s->runs[ARM_ON][r].writer_cpu_ns / 1e6;
        share[n] = 100.0 * wc[n] / s->runs[ARM_ON][r].cpu_ms;
        n++;
      }
  tprintf (notes, "- %s: %u rounds%s, sends per arm %zu (off)", s->w->label, s->rounds,
           s->error ? " (then a run failed: see the messages on stderr)" : "",
           sends[ARM_OFF]);
  tprintf (notes, ", %zu (on)", sends[ARM_ON]);
  if (s->use[ARM_VANILLA])
    tprintf (notes, ", %zu (vanilla)", sends[ARM_VANILLA]);
  if (s->use[ARM_FLOOR])
    tprintf (notes, ", %zu (floor)", sends[ARM_FLOOR]);
  tprintf (notes, "; CPU at the end of start-up (median)");
  for (int a = 0; a < N_ARMS; a++)
    if (s->use[a])
      {
        double v[MAX_ROUNDS];
        for (unsigned r = 0; r < s->rounds; r++)
          v[r] = s->runs[a][r].startup_ms;
        tprintf (notes, " %s %.2f ms", arm_label[a], median (v, s->rounds));
      }
  if (n)
    {
      double mwk = median (wk, n), mwc = median (wc, n), msh = median (share, n);
      if (in_driver == n)
        tprintf (notes, "; profiled runs: median %.0f writer wake-ups and %.3f ms "
                 "writer CPU per run, in the driver (%.2f %% of the program's CPU, "
                 "not part of it)", mwk, mwc, msh);
      else
        tprintf (notes, "; profiled runs: median %.0f writer wake-ups and %.3f ms "
                 "writer CPU per run (%.2f %% of the program's CPU)", mwk, mwc, msh);
      char name[128];
      snprintf (name, sizeof name, "gate_%s_writer_wakeups_per_run", s->w->id);
      for (char *p = name; *p; p++)
        if (*p == '-')
          *p = '_';
      tprintf (met, "METRIC %s %.0f count\n", name, mwk);
      snprintf (name, sizeof name, "gate_%s_writer_cpu_ms_per_run", s->w->id);
      for (char *p = name; *p; p++)
        if (*p == '-')
          *p = '_';
      tprintf (met, "METRIC %s %.3f ms\n", name, mwc);
    }
  tprintf (notes, "\n");
}

static void
report_idle (struct text *tab, struct text *met, const struct idle_result *r)
{
  const char *name = r->prog == P_LESS ? "less (--interpose)" : "Emacs (--latency-profile)";
  const char *id = r->prog == P_LESS ? "less" : "emacs";
  if (r->error)
    {
      tprintf (tab, "| %s | %.0f s | error: %s | | | | |\n", name, r->window_s,
               strchr (r->error, '\n') ? "the run failed (stderr)" : r->error);
      return;
    }
  uint64_t sw = r->vol + r->nonvol;
  char stats[32];
  if (r->have_stats)
    snprintf (stats, sizeof stats, "%llu", (unsigned long long)r->stats_wakeups);
  else
    snprintf (stats, sizeof stats, "-");
  if (!r->have_writer)
    tprintf (tab, "| %s | %.0f s | no emlat-writer thread | - | %s | %.3f ms | pass |\n",
             name, r->window_s, stats, r->prog_cpu_ms);
  else
    tprintf (tab, "| %s | %.0f s | %llu (%llu voluntary, %llu involuntary)%s | %.3f | %s "
             "| %.3f ms (%s %.3f ms) | %s |\n",
             name, r->window_s, (unsigned long long)sw, (unsigned long long)r->vol,
             (unsigned long long)r->nonvol, r->writer_in_driver ? " in the driver" : "",
             sw / r->window_s, stats, r->prog_cpu_ms,
             r->writer_in_driver ? "drain thread" : "writer", r->writer_cpu_ms,
             sw == 0 ? "pass" : "FAIL");
  tprintf (met, "METRIC gate_idle_%s_writer_switches %llu count\n", id,
           (unsigned long long)(r->have_writer ? sw : 0));
  tprintf (met, "METRIC gate_idle_%s_cpu_ms %.3f ms\n", id, r->prog_cpu_ms);
  if (r->have_stats)
    tprintf (met, "METRIC gate_idle_%s_stats_writer_wakeups %llu count\n", id,
             (unsigned long long)r->stats_wakeups);
}

/* The load average, as uptime prints it. */
static char *
load_average (void)
{
  char buf[128];
  double a = 0, b = 0, c = 0;
  if (read_small ("/proc/loadavg", buf, sizeof buf) == 0)
    sscanf (buf, "%lf %lf %lf", &a, &b, &c);
  return xasprintf ("%.2f, %.2f, %.2f", a, b, c);
}

static char *
cpu_model (void)
{
  FILE *f = fopen ("/proc/cpuinfo", "r");
  char line[512];
  char *m = NULL;
  while (f && !m && fgets (line, sizeof line, f))
    if (strncmp (line, "model name", 10) == 0)
      {
        char *c = strchr (line, ':');
        if (c)
          {
            c++;
            while (*c == ' ' || *c == '\t')
              c++;
            c[strcspn (c, "\n")] = 0;
            m = xasprintf ("%s", c);
          }
      }
  if (f)
    fclose (f);
  return m ? m : xasprintf ("unknown CPU");
}

/* The command line, shell-quoted where needed, with the environment the
   bench read. */
static char *
command_line (int argc, char **argv)
{
  struct text t = { 0 };
  tprintf (&t, "%s", "");
  const char *env[] = { "BUILD", "EMACS_BIN", "EMACS_VANILLA_BIN", NULL };
  for (int i = 0; env[i]; i++)
    if (getenv (env[i]) && *getenv (env[i]))
      tprintf (&t, "%s=%s ", env[i], getenv (env[i]));
  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i];
      int plain = *a != 0;
      for (const char *p = a; *p; p++)
        if (!isalnum ((unsigned char)*p) && !strchr ("-_./=,:+@%", *p))
          plain = 0;
      if (plain)
        tprintf (&t, "%s%s", i ? " " : "", a);
      else
        {
          tprintf (&t, "%s'", i ? " " : "");
          for (const char *p = a; *p; p++)
            if (*p == '\'')
              tprintf (&t, "'\\''");
            else
              tprintf (&t, "%c", *p);
          tprintf (&t, "'");
        }
    }
  return t.s;
}

/* Replace the block between the markers of PATH with BLOCK. */
static int
write_doc (const char *path, const char *block)
{
  FILE *f = fopen (path, "r");
  if (!f)
    {
      fprintf (stderr, "bench_gate: cannot read %s: %s\n", path, strerror (errno));
      return -1;
    }
  struct text t = { 0 };
  char buf[4096];
  size_t k;
  while ((k = fread (buf, 1, sizeof buf - 1, f)) > 0)
    {
      buf[k] = 0;
      tprintf (&t, "%s", buf);
    }
  fclose (f);
  char *b = t.s ? strstr (t.s, DOC_BEGIN "\n") : NULL;
  char *e = b ? strstr (b, "\n" DOC_END) : NULL;
  if (!b || !e)
    {
      fprintf (stderr, "bench_gate: %s has no %s ... %s block\n", path, DOC_BEGIN, DOC_END);
      free (t.s);
      return -1;
    }
  b += strlen (DOC_BEGIN "\n");
  char *tmp = xasprintf ("%s.tmp", path);
  FILE *o = fopen (tmp, "w");
  int bad = !o;
  if (o)
    {
      bad |= fwrite (t.s, 1, (size_t)(b - t.s), o) != (size_t)(b - t.s);
      bad |= fputs (block, o) < 0;
      bad |= fputs (e + 1, o) < 0;
      bad |= fclose (o) != 0;
    }
  if (!bad)
    bad = rename (tmp, path) != 0;
  if (bad)
    {
      fprintf (stderr, "bench_gate: cannot write %s\n", path);
      unlink (tmp);
    }
  free (tmp);
  free (t.s);
  return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Setup                                                              */

static const char *
find_exe (const char *const *cand)
{
  for (size_t i = 0; cand[i]; i++)
    if (access (cand[i], X_OK) == 0)
      return cand[i];
  return NULL;
}

static int
selected (const char *id)
{
  if (!opt.only)
    return 1;
  size_t n = strlen (id);
  for (const char *p = opt.only; *p;)
    {
      size_t k = strcspn (p, ",");
      if (k == n && strncmp (p, id, n) == 0)
        return 1;
      p += k;
      if (*p == ',')
        p++;
    }
  return 0;
}

/* Does the Emacs at PATH carry emlat's patch?  1 yes, 0 no, -1 unknown. */
static int
emacs_is_profiled (const char *path)
{
  char *argv[] = { (char *)path, "-Q", "--batch", "--eval",
                   "(princ (if (fboundp 'latency-profile-start) \"profiled\" \"vanilla\"))",
                   NULL };
  char *out;
  int rc = run_capture (argv, opt.dir, 60, &out);
  int r = rc != 0 || !out ? -1 : strstr (out, "profiled") ? 1 : strstr (out, "vanilla") ? 0 : -1;
  free (out);
  return r;
}

/* --cpu's value: a CPU number.  1 when valid. */
static int
parse_cpu (const char *v, int *cpu)
{
  char *end;
  errno = 0;
  long n = strtol (v, &end, 10);
  if (errno || end == v || *end || n < 0 || n >= CPU_SETSIZE)
    return 0;
  *cpu = (int)n;
  return 1;
}

/* --cpu: this process, and so every driver and program it starts (the
   affinity is inherited across fork and exec), runs on CPU only.  A key's
   external latency on an unpinned 2-vCPU guest is bimodal -- the program
   woken on the driver's CPU or on the other, idle one -- and the mix of the
   two modes moves the median by far more than the recorder does
   (docs/PERFORMANCE.md, "The nano median").  A diagnostic: the driver's
   drain thread shares the CPU too.  0, or -1 with a message. */
static int
pin_to_cpu (int cpu)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  if (sched_setaffinity (0, sizeof set, &set) != 0)
    {
      fprintf (stderr, "bench_gate: --cpu %d: not a CPU this process may run on (%s)\n", cpu,
               strerror (errno));
      return -1;
    }
  return 0;
}

static void
usage (void)
{
  fprintf (stderr,
           "usage: bench_gate [--quick] [--floor] [--rounds N] [--keys N] [--only LIST]\n"
           "                  [--idle SECONDS]\n"
           "                  [--emacs PATH] [--emacs-vanilla PATH] [--resamples R] [--seed S]\n"
           "                  [--emacs-thread-cpu on|off] [--cpu N] [--doc FILE]\n"
           "LIST: comma-separated of less-paging vim-typing nano-typing emacs-editing\n"
           "      emacs-typing emacs-paging idle-less idle-emacs\n");
}

int
main (int argc, char **argv)
{
  opt.rounds = 0;
  opt.idle_s = -1;
  opt.cpu = -1;
  opt.resamples = EMLAT_REPORT_BOOT_DEFAULT_RESAMPLES;
  opt.seed = EMLAT_REPORT_BOOT_DEFAULT_SEED;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (strcmp (a, "--quick") == 0)
        {
          opt.quick = 1;
          continue;
        }
      if (strcmp (a, "--floor") == 0)
        {
          opt.floor = 1;
          continue;
        }
      if (!v)
        {
          usage ();
          return 2;
        }
      i++;
      if (strcmp (a, "--rounds") == 0)
        opt.rounds = (unsigned)atoi (v);
      else if (strcmp (a, "--keys") == 0)
        opt.keys = (unsigned)atoi (v);
      else if (strcmp (a, "--only") == 0)
        opt.only = v;
      else if (strcmp (a, "--idle") == 0)
        opt.idle_s = atof (v);
      else if (strcmp (a, "--emacs") == 0)
        opt.emacs = v;
      else if (strcmp (a, "--emacs-vanilla") == 0)
        opt.emacs_vanilla = v;
      else if (strcmp (a, "--emacs-thread-cpu") == 0
               && (strcmp (v, "on") == 0 || strcmp (v, "off") == 0))
        opt.emacs_no_thread_cpu = strcmp (v, "off") == 0;
      else if (strcmp (a, "--resamples") == 0)
        opt.resamples = (unsigned)atoi (v);
      else if (strcmp (a, "--seed") == 0)
        opt.seed = strtoull (v, NULL, 0);
      else if (strcmp (a, "--doc") == 0)
        opt.doc = v;
      else if (strcmp (a, "--cpu") == 0 && parse_cpu (v, &opt.cpu))
        ;
      else
        {
          usage ();
          return 2;
        }
    }
  if (!opt.rounds)
    opt.rounds = opt.quick ? 3 : 10;
  if (opt.idle_s < 0)
    opt.idle_s = opt.quick ? 5 : 30;
  if (opt.rounds < 2 || opt.rounds > MAX_ROUNDS || opt.keys > 100000
      || opt.resamples < 100 || opt.resamples > 1000000 || opt.idle_s > 3600)
    {
      usage ();
      return 2;
    }
  if (opt.only)
    {
      /* Every name must be known. */
      static const char *const extra[] = { "idle-less", "idle-emacs" };
      for (const char *p = opt.only; *p;)
        {
          size_t k = strcspn (p, ",");
          int known = 0;
          for (size_t w = 0; w < N_WORKLOADS; w++)
            known |= strlen (workloads[w].id) == k && strncmp (p, workloads[w].id, k) == 0;
          for (size_t w = 0; w < 2; w++)
            known |= strlen (extra[w]) == k && strncmp (p, extra[w], k) == 0;
          if (!known)
            {
              fprintf (stderr, "bench_gate: unknown workload '%.*s'\n", (int)k, p);
              usage ();
              return 2;
            }
          p += k;
          if (*p == ',')
            p++;
        }
    }

  if (opt.cpu >= 0 && pin_to_cpu (opt.cpu) != 0)
    return 2;

  const char *build = getenv ("BUILD");
  opt.build = build && *build ? build : "build";
  char *emlat_rel = xasprintf ("%s/emlat", opt.build);
  char *emlat_abs = realpath (emlat_rel, NULL);
  if (!emlat_abs || access (emlat_abs, X_OK) != 0)
    {
      fprintf (stderr, "bench_gate: no %s (make all)\n", emlat_rel);
      return 1;
    }
  opt.emlat = emlat_abs;
  const char *user_lib = getenv ("EMLAT_TTY_LIB");
  opt.user_tty_lib = user_lib ? xasprintf ("%s", user_lib) : NULL;
  unsetenv ("EMLAT_FLOOR");
  if (opt.floor)
    {
      char *floor_rel = xasprintf ("%s/bench/libemlat-floor.so", opt.build);
      opt.floor_lib = realpath (floor_rel, NULL);
      if (!opt.floor_lib)
        {
          fprintf (stderr, "bench_gate: --floor: no %s (make tests-build)\n", floor_rel);
          return 1;
        }
      free (floor_rel);
    }
  if (!opt.emacs && getenv ("EMACS_BIN") && *getenv ("EMACS_BIN"))
    opt.emacs = getenv ("EMACS_BIN");
  if (!opt.emacs_vanilla && getenv ("EMACS_VANILLA_BIN") && *getenv ("EMACS_VANILLA_BIN"))
    opt.emacs_vanilla = getenv ("EMACS_VANILLA_BIN");
  /* Children run in the temporary directory: absolute paths. */
  char *emacs_abs = opt.emacs ? realpath (opt.emacs, NULL) : NULL;
  char *vanilla_abs = opt.emacs_vanilla ? realpath (opt.emacs_vanilla, NULL) : NULL;
  if (emacs_abs)
    opt.emacs = emacs_abs;
  if (vanilla_abs)
    opt.emacs_vanilla = vanilla_abs;
  static const char *const c_less[] = { "/usr/bin/less", "/bin/less", NULL };
  static const char *const c_vim[] = { "/usr/bin/vim.basic", "/usr/bin/vim", NULL };
  static const char *const c_nano[] = { "/usr/bin/nano", "/bin/nano", NULL };
  opt.less = find_exe (c_less);
  opt.vim = find_exe (c_vim);
  opt.nano = find_exe (c_nano);

  /* Children see no user settings of less, and less writes no history. */
  setenv ("LESSHISTFILE", "-", 1);
  unsetenv ("LESS");
  unsetenv ("LESSOPEN");
  unsetenv ("LESSCLOSE");

  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);

  const char *tmpdir = getenv ("TMPDIR");
  char *tmpl = xasprintf ("%s/emlat-bench-gate-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  opt.dir = mkdtemp (tmpl);
  if (!opt.dir)
    {
      fprintf (stderr, "bench_gate: cannot create a temporary directory: %s\n",
               strerror (errno));
      return 1;
    }
  char *load_before = load_average ();
  int status = 0;
  struct text notes = { 0 }, skipped = { 0 };
  tprintf (&notes, "%s", "");
  tprintf (&skipped, "%s", "");

  /* Which Emacs arms can run. */
  int emacs_ok = 0, vanilla_ok = 0;
  int want_emacs = 0;
  for (size_t w = 0; w < N_WORKLOADS; w++)
    want_emacs |= workloads[w].prog == P_EMACS && selected (workloads[w].id);
  want_emacs |= selected ("idle-emacs");
  if (want_emacs)
    {
      if (!opt.emacs || access (opt.emacs, X_OK) != 0)
        tprintf (&skipped, "- Emacs: skipped, the profiled Emacs is not built (%s; make emacs)\n",
                 opt.emacs ? opt.emacs : "no --emacs or EMACS_BIN");
      else if (emacs_is_profiled (opt.emacs) != 1)
        tprintf (&skipped, "- Emacs: skipped, %s is not emlat's profiled Emacs\n", opt.emacs);
      else
        emacs_ok = 1;
      if (emacs_ok)
        {
          if (!opt.emacs_vanilla || access (opt.emacs_vanilla, X_OK) != 0)
            tprintf (&skipped, "- Emacs, vanilla arm: skipped, the Emacs without emlat's patch "
                     "is not built (%s; make emacs-vanilla)\n",
                     opt.emacs_vanilla ? opt.emacs_vanilla : "no --emacs-vanilla or EMACS_VANILLA_BIN");
          else if (emacs_is_profiled (opt.emacs_vanilla) != 0)
            tprintf (&skipped, "- Emacs, vanilla arm: skipped, %s is not a vanilla Emacs\n",
                     opt.emacs_vanilla);
          else
            vanilla_ok = 1;
        }
    }

  /* The generated file and the scripts. */
  opt.file = xasprintf ("%s/pages.txt", opt.dir);
  {
    char *mk[] = { (char *)opt.emlat, "replay", "--make-file", opt.file, "--lines", "20000", NULL };
    char *junk;
    int rc = run_capture (mk, opt.dir, 60, &junk);
    free (junk);
    if (rc != 0)
      {
        fprintf (stderr, "bench_gate: emlat replay --make-file failed\n");
        status = 1;
      }
  }
  struct wl_state *st = calloc (N_WORKLOADS, sizeof *st);
  if (!st)
    return 1;
  for (size_t w = 0; w < N_WORKLOADS && status == 0; w++)
    {
      const struct workload *wl = &workloads[w];
      struct wl_state *s = &st[w];
      s->w = wl;
      if (!selected (wl->id))
        continue;
      const char *path = prog_path (wl->prog, ARM_OFF);
      if (wl->prog == P_EMACS ? !emacs_ok : !path)
        {
          if (wl->prog != P_EMACS)
            tprintf (&skipped, "- %s: skipped, not installed (Debian package %s)\n", wl->label,
                     wl->prog == P_LESS ? "less" : wl->prog == P_VIM ? "vim" : "nano");
          continue;
        }
      s->use[ARM_OFF] = s->use[ARM_ON] = 1;
      s->use[ARM_VANILLA] = wl->prog == P_EMACS && vanilla_ok;
      s->use[ARM_FLOOR] = wl->prog != P_EMACS && opt.floor;
      unsigned keys = opt.keys ? opt.keys : opt.quick ? wl->keys_quick : wl->keys_full;
      char k[16];
      snprintf (k, sizeof k, "%u", keys);
      int typing = strcmp (wl->builtin, "paging") != 0;
      char *ps[] = { (char *)opt.emlat, "replay", "--workload", (char *)wl->builtin,
                     "--keys", k, "--print-script", NULL, NULL, NULL };
      if (typing)
        ps[7] = "--wpm", ps[8] = "120";
      char *text;
      int rc = run_capture (ps, opt.dir, 60, &text);
      unsigned qs;
      const char *quit = quit_lines (wl->prog, &qs);
      s->quit_sends = qs;
      s->script = xasprintf ("%s/%s.script", opt.dir, wl->id);
      char *full = xasprintf ("# the program idles while bench_gate reads its start-up CPU\n"
                              "pause %.0fms\n%s\n# end of the workload: settle, then quit "
                              "(%u sends, not measured)\npause 500ms\n%s",
                              WORKLOAD_LEAD_S * 1e3, text ? text : "", qs, quit);
      if (rc != 0 || write_text (s->script, full) != 0)
        {
          fprintf (stderr, "bench_gate: cannot make the script of %s\n", wl->id);
          status = 1;
        }
      /* Expected duration: typing at 120 wpm is 100 ms a key, paging 200
         ms, editing at most 150 ms; plus start-up, settle and quit. */
      s->seconds = keys * (typing ? 0.15 : 0.2) + WORKLOAD_LEAD_S + 5;
      free (text);
      free (full);
    }

  printf ("# emlat overhead gate (bench/bench_gate.c): %u rounds%s, arms interleaved "
          "ABBA, 95%% paired bootstrap intervals over rounds (%u resamples)\n",
          opt.rounds, opt.quick ? " (quick mode: a smoke test, not a measurement)" : "",
          opt.resamples);
  fflush (stdout);

  /* The rounds. */
  for (unsigned r = 0; r < opt.rounds && !g_stop; r++)
    for (size_t w = 0; w < N_WORKLOADS && !g_stop; w++)
      {
        struct wl_state *s = &st[w];
        if (!s->use[ARM_OFF] || s->error)
          continue;
        enum arm order[N_ARMS];
        unsigned na = 0;
        static const enum arm base_order[N_ARMS] = { ARM_OFF, ARM_ON, ARM_VANILLA, ARM_FLOOR };
        for (int a = 0; a < N_ARMS; a++)
          if (s->use[base_order[a]])
            order[na++] = base_order[a];
        if (r & 1)
          for (unsigned i = 0; i < na / 2; i++)
            {
              enum arm t = order[i];
              order[i] = order[na - 1 - i];
              order[na - 1 - i] = t;
            }
        fprintf (stderr, "bench_gate: round %u/%u: %s (", r + 1, opt.rounds, s->w->id);
        for (unsigned i = 0; i < na; i++)
          fprintf (stderr, "%s%s", i ? " " : "", arm_label[order[i]]);
        fprintf (stderr, ")\n");
        int ok = 1;
        for (unsigned i = 0; i < na && ok && !g_stop; i++)
          ok = one_run (s, order[i], r) == 0;
        if (ok && !g_stop)
          s->rounds = r + 1;
        if (!ok)
          status = 1; /* S->error is set: its later rounds are skipped */
      }

  /* Idle. */
  struct idle_result idle[2];
  memset (idle, 0, sizeof idle);
  idle[0].prog = P_LESS;
  idle[1].prog = P_EMACS;
  if (opt.idle_s > 0 && !g_stop)
    {
      if (selected ("idle-less"))
        {
          if (opt.less)
            idle_run (&idle[0]);
          else
            tprintf (&skipped, "- idle less: skipped, less is not installed\n");
        }
      if (selected ("idle-emacs") && emacs_ok && !g_stop)
        idle_run (&idle[1]);
    }
  for (int i = 0; i < 2; i++)
    if (idle[i].error)
      status = 1;

  /* The tables. */
  struct text tab = { 0 }, met = { 0 };
  tprintf (&tab, "| Program, workload | Arms | Gate | Baseline | Profiled | Added | "
           "95%% interval | Limit | Verdict |\n|---|---|---|---:|---:|---:|---|---|---|\n");
  tprintf (&met, "%s", "");
  for (size_t w = 0; w < N_WORKLOADS; w++)
    {
      struct wl_state *s = &st[w];
      if (!s->use[ARM_OFF])
        continue;
      if (s->rounds < 2)
        {
          tprintf (&tab, "| %s | | no result: %s | | | | | | |\n", s->w->label,
                   s->error ? "a run failed (stderr)" : "fewer than 2 rounds");
          continue;
        }
      report_comparison (&tab, &met, s, ARM_OFF, ARM_ON, 1);
      if (s->use[ARM_VANILLA])
        {
          report_comparison (&tab, &met, s, ARM_VANILLA, ARM_ON, 0);
          report_comparison (&tab, &met, s, ARM_VANILLA, ARM_OFF, 0);
        }
      if (s->use[ARM_FLOOR])
        {
          report_comparison (&tab, &met, s, ARM_OFF, ARM_FLOOR, 0);
          report_comparison (&tab, &met, s, ARM_FLOOR, ARM_ON, 0);
        }
      report_notes (&notes, &met, s);
    }
  struct text itab = { 0 };
  tprintf (&itab, "%s", "");
  if (idle[0].ran || idle[1].ran)
    {
      tprintf (&itab, "| Idle program | Window | Writer context switches | Per second | "
               "stats.writer_wakeups (whole run) | Program CPU in the window | Verdict |\n"
               "|---|---|---|---:|---:|---|---|\n");
      for (int i = 0; i < 2; i++)
        if (idle[i].ran)
          report_idle (&itab, &met, &idle[i]);
    }
  char *load_after = load_average ();
  struct utsname u;
  uname (&u);
  char *model = cpu_model ();
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);
  time_t t = time (NULL);
  char date[64];
  strftime (date, sizeof date, "%Y-%m-%d %H:%M %Z", localtime (&t));
  char *cmd = command_line (argc, argv);

  struct text out = { 0 };
  tprintf (&out, "Measured %s on %s %s %s, %s, %ld CPUs online; load average "
           "(uptime) %s before, %s after.%s\n\n",
           date, u.sysname, u.release, u.machine, model, ncpu, load_before, load_after,
           opt.quick ? "  **Quick mode: a smoke test of the harness, not a measurement.**"
           : opt.rounds < 10 ? "  Fewer than 10 rounds: the intervals (a bootstrap over so few "
             "rounds) are too narrow and the verdicts indicative only." : "");
  tprintf (&out, "Command: `%s`\n\n", cmd);
  if (opt.cpu >= 0)
    tprintf (&out, "Every driver and program ran on CPU %d only (`--cpu`): one wake-up "
             "path for every key (docs/PERFORMANCE.md, \"The nano median\"); the driver's "
             "drain thread shares that CPU, so its passes add to the profiled arm's latency.\n\n",
             opt.cpu);
  tprintf (&out, "%s", tab.s);
  if (itab.n)
    tprintf (&out, "\n%s", itab.s);
  if (notes.n || skipped.n)
    tprintf (&out, "\n%s%s", notes.s, skipped.s);
  if (g_stop)
    tprintf (&out, "\n**Interrupted**: the tables hold the rounds completed.\n");
  printf ("%s\n%s", out.s, met.s);
  fflush (stdout);

  if (opt.doc && !g_stop)
    {
      if (status != 0)
        fprintf (stderr, "bench_gate: a run failed: %s not updated\n", opt.doc);
      else if (write_doc (opt.doc, out.s) != 0)
        status = 1;
      else
        fprintf (stderr, "bench_gate: wrote the tables into %s\n", opt.doc);
    }

  nftw (opt.dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
  for (size_t w = 0; w < N_WORKLOADS; w++)
    {
      for (int a = 0; a < N_ARMS; a++)
        for (unsigned r = 0; r < MAX_ROUNDS; r++)
          free (st[w].runs[a][r].lat_us);
      free (st[w].script);
      free (st[w].error);
    }
  for (int i = 0; i < 2; i++)
    free (idle[i].error);
  free (st);
  free (tab.s);
  free (met.s);
  free (itab.s);
  free (notes.s);
  free (skipped.s);
  free (out.s);
  free (cmd);
  free (model);
  free (load_before);
  free (load_after);
  free (emlat_rel);
  free (emlat_abs);
  free (emacs_abs);
  free (vanilla_abs);
  free (opt.file);
  free (tmpl);
  return g_stop ? 130 : status;
}
