/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench_tty_cold.c -- what libemlat-tty.so adds to one keystroke of a
 * terminal program, with the caches warm and with them cold, as in a real
 * program where the library runs once per key between long stretches of
 * the program's own work.
 *
 *   BUILD=build bench_tty_cold [--runs R] [--keys K] [--trash-mib M]
 *                              [--idle-ms MS] [--idle-keys K] [--spread-kib K]
 *                              [--work-kib K] [--modes LIST]
 *                              [--finish drain|reader] [--cpu N] [--compare LIB]
 *
 * A child process plays a pager on a pseudo-terminal (its stdin, stdout and
 * stderr are the slave, in raw mode).  Per key it does what `less` does for
 * PGDN: poll the terminal with a timeout, read the four bytes of the key
 * one at a time, write three 1 KiB pieces of screen.  It writes the key
 * into the master itself, waits for it to reach the slave, and drains the
 * master after the timed part, so nothing but the child runs and no wait
 * for the pty's kernel worker is timed.  The timed part, poll to last write, is read
 * with CLOCK_MONOTONIC around it; per run the median over K keys.
 *
 * Modes: warm (the keys back to back) and cold (before each key the child
 * writes one byte per 64-byte line of an M MiB buffer, default 16: the
 * library's code and data, the vDSO and the ring leave the caches and the
 * TLB, as they do while a program renders a page), and idle (before each
 * of --idle-keys keys, default 40, the child sleeps --idle-ms, default 200:
 * the state a typed key finds, the vCPU idle since the last one, which
 * turns out colder than the 16 MiB: docs/PERFORMANCE.md, "A key after
 * idle"; after 200 ms the intervals are a third as wide as after 20 ms,
 * the earlier default: "The library's excess priced"), and spread
 * (before each of the key's eight calls the child writes one byte per
 * line of --spread-kib KiB, default 1024, and times the call alone, the
 * key's time being the sum of its calls': each call finds the library's
 * lines evicted from the first two cache levels, as
 * in `less` or `nano`, whose own work of about a million instructions a
 * key runs between their calls; docs/PERFORMANCE.md, "What a key
 * touches"), and nano (after --idle-ms, a typed character handled with
 * nano's own calls -- a read, three writes and five polls of zero
 * timeout that find nothing -- and --work-kib KiB, default 32, touched
 * before each call as the program's work between them; the key's time,
 * work included, from the read to the last write: docs/PERFORMANCE.md,
 * "nano's calls priced").  --modes picks some of warm, cold, idle, spread
 * and nano (default all).
 *
 * Arms, interleaved in ABBA order per round and mode: none (the library
 * not loaded), loaded (LD_PRELOAD, EMLAT_TRACE unset: the wrappers forward)
 * and on (EMLAT_TRACE=1, a profile in a temporary directory).  A traced
 * child runs as `emlat record` and `emlat replay --interpose` run a
 * program: its profile created empty for it, EMLAT_FINISH=drain:PID, its
 * rings drained by this process (record/drain.h) and its profile finished
 * here, so it runs no writer thread -- and stays single-threaded, which
 * spares every libc system call wrapper its cancellation path.  --finish
 * reader runs it as before (EMLAT_FINISH=reader: its own writer thread).
 * --cpu N runs every child on CPU N and this process (with the drainer)
 * on the other CPUs.
 *
 * Prints "METRIC name value unit" lines: tty_cold_key_ns_<arm>_<mode> (the
 * median over runs of the runs' medians), tty_cold_added_ns_<mode> (the
 * median over rounds of on - none) with _lo and _hi (95 % paired bootstrap
 * over rounds), and the same for on - loaded (tty_cold_recording_ns_*).
 * --compare LIB adds a fourth arm, "other": tracing on with another
 * build's library, and prints other - on with its interval (an A/B of two
 * versions of the library in one interleaved run) and other - none.
 * `--compare $BUILD/bench/libemlat-floor.so` measures against the floor of any
 * interposing recorder (bench/floor_preload.c); EMLAT_FLOOR=tsc or tsc1 in
 * the environment picks its cheaper-clock variants.
 * docs/PERFORMANCE.md, "Where the added CPU goes", uses them.
 *
 * Invariants: every child is reaped; its files live in one mkdtemp
 * directory, removed at the end; a traced child's ring file in /dev/shm is
 * removed by emlat_recover, which finishes its profile.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
#include "record/drain.h"
#include "tty_child.h"

enum { ARM_NONE, ARM_LOADED, ARM_ON, ARM_OTHER, NARMS };
static const char *const arm_name[NARMS] = { "none", "loaded", "on", "other" };
enum { MODE_WARM, MODE_COLD, MODE_IDLE, MODE_SPREAD, MODE_NANO, NMODES };
static const char *const mode_name[NMODES] = { "warm", "cold", "idle", "spread", "nano" };

#define MAX_RUNS 64

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double
median_d (double *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------------ */
/* The child: one run of K keys                                        */

/* Read WANT bytes of the child's output from the master: 0, or -1 with
   errno (EIO at end of file). */
static int
drain (int master, size_t want)
{
  char buf[4096];
  size_t got = 0;
  while (got < want)
    {
      ssize_t r = read (master, buf, sizeof buf);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          if (r == 0)
            errno = EIO;
          return -1;
        }
      got += (size_t)r;
    }
  return 0;
}

/* A failed child says what failed on its result pipe (its stderr is the
   terminal under test). */
static int
child_fail (int result_fd, const char *what)
{
  char line[160];
  int n = snprintf (line, sizeof line, "error %s: %s\n", what, strerror (errno));
  if (write (result_fd, line, (size_t)n) != n)
    return 2;
  return 2;
}

/* The timed part's bounds as instruction addresses, for
   bench_tty_footprint, which traces the child under valgrind's lackey and
   counts the distinct lines a key touches between them.  Called outside
   the timed part in every arm; out of line, with distinct bodies (no
   identical-code folding) and their addresses taken (no clones), they
   stay two real functions whose first instructions the trace shows. */
__attribute__ ((noinline)) static void
window_open (void)
{
  __asm__ volatile ("nop");
}

__attribute__ ((noinline)) static void
window_close (void)
{
  __asm__ volatile ("nop; nop");
}

/* With EMLAT_BENCH_MARKS set (bench_tty_footprint), the child reports the
   two markers' addresses and the bounds of its own code on its result
   pipe before the keys, and its /proc/self/maps after them, before its
   result line. */
static void
report_marks (int result_fd)
{
  /* The program's own code (the linker's symbols): what the counts call
     a call is a run of instructions outside it. */
  extern char __executable_start[], etext[];
  char line[160];
  int n = snprintf (line, sizeof line, "marks %p %p %p %p\n", (void *)window_open,
                    (void *)window_close, (void *)__executable_start, (void *)etext);
  if (write (result_fd, line, (size_t)n) != n)
    _exit (2);
}

static void
report_maps (int result_fd)
{
  int fd = open ("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  char buf[4096];
  ssize_t r;
  while ((r = read (fd, buf, sizeof buf)) > 0)
    if (write (result_fd, buf, (size_t)r) != r)
      break;
  close (fd);
  if (write (result_fd, "endmaps\n", 8) != 8)
    _exit (2);
}

/* The spread mode's stand-in for the program's own work between two
   calls: one store per line of BYTES bytes at P. */
static void
spread_touch (volatile char *p, size_t bytes)
{
  for (size_t i = 0; i < bytes; i += 64)
    p[i] = (char)(p[i] + 1);
}

/* The nano mode's keys: after --idle-ms, a typed character read and
   echoed as nano 7.2 does it (strace of the gate's nano-typing): read the
   byte, then write 6, poll, poll, poll, write 12, poll, poll, write 1,
   every poll of zero timeout finding nothing, and before each call
   WORK_BYTES touched, the program's own work between its calls, timed
   with them.  Each key's time goes to NS[k]: 0, or 2 after a message on
   RESULT_FD. */
static int
child_nano_keys (int master, int result_fd, long keys, long idle_ms, size_t work_bytes,
                 uint64_t *ns)
{
  /* Page-aligned: the work covers the same lines and pages in every arm,
     wherever the preloaded library's own allocations leave the heap. */
  volatile char *work = aligned_alloc (4096, (work_bytes + 4095) / 4096 * 4096);
  if (!work)
    return child_fail (result_fd, "aligned_alloc");
  static const char hide[6] = "\33[?25l", show[12] = "\33[?12l\33[?25h";
  enum { POLL, W_HIDE, W_SHOW, W_ECHO };
  static const unsigned char calls[8] = { W_HIDE, POLL, POLL, POLL, W_SHOW, POLL, POLL, W_ECHO };
  for (long k = 0; k < keys; k++)
    {
      struct timespec ts = { idle_ms / 1000, (idle_ms % 1000) * 1000000L };
      while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
        ;
      char key = (char)('a' + k % 26);
      if (write (master, &key, 1) != 1)
        return child_fail (result_fd, "write to the master");
      struct pollfd in = { .fd = 0, .events = POLLIN };
      if (syscall (SYS_ppoll, &in, 1, NULL, NULL, sizeof (sigset_t)) != 1)
        return child_fail (result_fd, "ppoll");
      window_open ();
      uint64_t t0 = now_ns ();
      char c;
      spread_touch (work, work_bytes);
      if (read (0, &c, 1) != 1)
        return child_fail (result_fd, "read");
      for (int i = 0; i < 8; i++)
        {
          spread_touch (work, work_bytes);
          struct pollfd p = { .fd = 0, .events = POLLIN };
          int ok = calls[i] == POLL     ? poll (&p, 1, 0) == 0
                   : calls[i] == W_HIDE ? write (1, hide, sizeof hide) == (ssize_t)sizeof hide
                   : calls[i] == W_SHOW ? write (1, show, sizeof show) == (ssize_t)sizeof show
                                        : write (1, &c, 1) == 1;
          if (!ok)
            return child_fail (result_fd, calls[i] == POLL ? "poll" : "write");
        }
      ns[k] = now_ns () - t0;
      window_close ();
      if (drain (master, sizeof hide + sizeof show + 1) != 0)
        return child_fail (result_fd, "read from the master");
    }
  return 0;
}

static int
child_main (int master, int result_fd, int mode, long keys, long trash_mib, long idle_ms,
            long spread_kib)
{
  int marks = getenv ("EMLAT_BENCH_MARKS") != NULL;
  if (marks)
    report_marks (result_fd);
  int cold = mode == MODE_COLD;
  struct termios tio;
  if (tcgetattr (0, &tio) == 0)
    {
      cfmakeraw (&tio);
      tcsetattr (0, TCSANOW, &tio);
    }
  size_t trash_bytes = (size_t)trash_mib << 20;
  volatile char *trash = cold ? malloc (trash_bytes) : NULL;
  if (cold && !trash)
    return child_fail (result_fd, "malloc");
  size_t spread_bytes = (size_t)spread_kib << 10;
  volatile char *spread = mode == MODE_SPREAD ? malloc (spread_bytes) : NULL;
  if (mode == MODE_SPREAD && !spread)
    return child_fail (result_fd, "malloc");
  char screen[1024];
  memset (screen, 'x', sizeof screen);
  uint64_t *ns = calloc ((size_t)keys, sizeof *ns);
  if (!ns)
    return child_fail (result_fd, "calloc");
  static const char key[4] = { 0x1b, '[', '6', '~' };
  if (mode == MODE_NANO)
    {
      int rc = child_nano_keys (master, result_fd, keys, idle_ms, (size_t)spread_kib << 10, ns);
      if (rc != 0)
        return rc;
    }
  for (long k = 0; mode != MODE_NANO && k < keys; k++)
    {
      if (cold)
        for (size_t i = 0; i < trash_bytes; i += 64)
          trash[i] = (char)(trash[i] + 1);
      if (mode == MODE_IDLE)
        {
          struct timespec ts = { idle_ms / 1000, (idle_ms % 1000) * 1000000L };
          while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
            ;
        }
      if (write (master, key, sizeof key) != (ssize_t)sizeof key)
        return child_fail (result_fd, "write to the master");
      /* The pty delivers the key to the slave from a kernel worker: wait
         for it outside the timed part, with a system call the library
         does not see. */
      struct pollfd in = { .fd = 0, .events = POLLIN };
      if (syscall (SYS_ppoll, &in, 1, NULL, NULL, sizeof (sigset_t)) != 1)
        return child_fail (result_fd, "ppoll");
      /* The spread mode times each call alone, after touching its
         buffer: the calls' times are summed, the touching is not timed. */
#define SPREAD_BEFORE()                                                        \
  uint64_t c0 = 0;                                                             \
  if (spread)                                                                  \
    {                                                                          \
      spread_touch (spread, spread_bytes);                                     \
      c0 = now_ns ();                                                          \
    }
#define SPREAD_AFTER()                                                         \
  if (spread)                                                                  \
    spent += now_ns () - c0
      uint64_t spent = 0;
      window_open ();
      uint64_t t0 = now_ns ();
      struct pollfd p = { .fd = 0, .events = POLLIN };
      {
        SPREAD_BEFORE ();
        if (poll (&p, 1, 1000) != 1)
          return child_fail (result_fd, "poll");
        SPREAD_AFTER ();
      }
      for (int i = 0; i < 4; i++)
        {
          char c;
          SPREAD_BEFORE ();
          if (read (0, &c, 1) != 1)
            return child_fail (result_fd, "read");
          SPREAD_AFTER ();
        }
      for (int i = 0; i < 3; i++)
        {
          SPREAD_BEFORE ();
          if (write (1, screen, sizeof screen) != (ssize_t)sizeof screen)
            return child_fail (result_fd, "write");
          SPREAD_AFTER ();
        }
#undef SPREAD_BEFORE
#undef SPREAD_AFTER
      ns[k] = spread ? spent : now_ns () - t0;
      window_close ();
      if (drain (master, 3 * sizeof screen) != 0)
        return child_fail (result_fd, "read from the master");
    }
  if (marks)
    report_maps (result_fd);
  qsort (ns, (size_t)keys, sizeof *ns, cmp_u64);
  char line[64];
  int n = snprintf (line, sizeof line, "%llu\n", (unsigned long long)ns[keys / 2]);
  if (write (result_fd, line, (size_t)n) != n)
    return 2;
  return 0;
}

/* ------------------------------------------------------------------ */
/* The parent                                                          */

/* Parse LIST, comma-separated mode names, into the bit set *MODES: 0, or
   -1 for an unknown name or an empty list. */
static int
parse_modes (const char *list, unsigned *modes)
{
  *modes = 0;
  const char *p = list;
  while (*p)
    {
      size_t len = strcspn (p, ",");
      int m = 0;
      while (m < NMODES && !(strlen (mode_name[m]) == len && strncmp (p, mode_name[m], len) == 0))
        m++;
      if (m == NMODES)
        return -1;
      *modes |= 1u << m;
      p += len;
      if (*p == ',')
        p++;
    }
  return *modes ? 0 : -1;
}

struct options
{
  int runs;
  long keys;
  long trash_mib;
  long idle_ms;   /* the idle mode's pause before each key */
  long idle_keys; /* and its keys per run */
  long spread_kib; /* the spread mode's KiB touched before each call */
  long work_kib;   /* the nano mode's */
  unsigned modes; /* bit m: mode m runs (--modes) */
  const char *lib;
  const char *other; /* --compare: a second build's library, or NULL */
  int reader_finish; /* --finish reader: the child runs a writer thread */
  int child_cpu;     /* --cpu N: the child on CPU N, this process (and the
                        drainer) on the others; -1: no pinning */
  int narms;
  const char *self;
  char dir[64];
};

/* A traced run's finished profile holds an interaction per key and lost
   nothing: 0, or -1 with a message (the arm did not record what it was
   timed for). */
static int
profile_check (const char *profile, long keys)
{
  const char *paths[1] = { profile };
  struct emlat_profile *p = NULL;
  int rc = emlat_profile_load (paths, 1, NULL, 0, &p);
  if (rc != 0)
    {
      fprintf (stderr, "bench_tty_cold: %s: cannot load: %s\n", profile, strerror (-rc));
      return -1;
    }
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  int ok = t->interactions >= (uint64_t)keys && t->lost_records == 0 && t->damaged_files == 0;
  if (!ok)
    fprintf (stderr, "bench_tty_cold: %s: %llu interactions for %ld keys, %llu records lost, "
             "%llu damaged files\n", profile, (unsigned long long)t->interactions, keys,
             (unsigned long long)t->lost_records, (unsigned long long)t->damaged_files);
  emlat_profile_free (p);
  return ok ? 0 : -1;
}

/* The keys of one run of MODE: the paused modes' --idle-keys, else --keys. */
static long
mode_keys (const struct options *o, int mode)
{
  return mode == MODE_IDLE || mode == MODE_NANO ? o->idle_keys : o->keys;
}

/* One run: the child's median key time in ns, or -1. */
static double
run_child (const struct options *o, int arm, int mode, int run)
{
  int master = posix_openpt (O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt (master) != 0 || unlockpt (master) != 0)
    return -1;
  const char *slave_path = ptsname (master);
  int res[2];
  if (!slave_path || pipe (res) != 0)
    return -1;
  char profile[128];
  snprintf (profile, sizeof profile, "%s/run-%d-%d-%d.emlat", o->dir, run, mode, arm);
  int traced = arm == ARM_ON || arm == ARM_OTHER;
  if (traced && !o->reader_finish)
    if (tty_child_profile_create (profile) != 0)
      return -1;
  pid_t self_pid = getpid ();
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      tty_child_attach (slave_path);
      close (res[0]);
      char m[16], r[16], k[32], t[32], i[32], sp[32];
      snprintf (m, sizeof m, "%d", master);
      snprintf (r, sizeof r, "%d", res[1]);
      snprintf (k, sizeof k, "%ld", mode_keys (o, mode));
      snprintf (t, sizeof t, "%ld", o->trash_mib);
      snprintf (i, sizeof i, "%ld", o->idle_ms);
      snprintf (sp, sizeof sp, "%ld", mode == MODE_NANO ? o->work_kib : o->spread_kib);
      unsetenv ("EMLAT_TRACE");
      unsetenv ("LD_PRELOAD");
      if (o->child_cpu >= 0)
        {
          cpu_set_t one;
          CPU_ZERO (&one);
          CPU_SET (o->child_cpu, &one);
          if (sched_setaffinity (0, sizeof one, &one) != 0)
            _exit (2);
        }
      if (arm != ARM_NONE)
        setenv ("LD_PRELOAD", arm == ARM_OTHER ? o->other : o->lib, 1);
      if (arm == ARM_ON || arm == ARM_OTHER)
        {
          setenv ("EMLAT_TRACE", "1", 1);
          setenv ("EMLAT_FILE", profile, 1);
          /* drain:PID, as `emlat record` and `emlat replay --interpose`
             run a program: this process drains its rings and finishes its
             profile, the child runs no writer thread.  --finish reader:
             the child's own writer thread drains them. */
          char finish[32];
          snprintf (finish, sizeof finish, "drain:%ld", (long)self_pid);
          setenv ("EMLAT_FINISH", o->reader_finish ? "reader" : finish, 1);
          /* libemlat-floor.so's switch; a variant already in the
             environment (EMLAT_FLOOR=tsc, tsc1) is kept. */
          setenv ("EMLAT_FLOOR", "1", 0);
        }
      execl (o->self, o->self, "--child", mode_name[mode], m, r, k, t, i, sp, (char *)NULL);
      _exit (127);
    }
  close (res[1]);
  struct emlat_drainer *drainer = NULL;
  if (traced && !o->reader_finish && emlat_drainer_start (profile, pid, &drainer) != 0)
    drainer = NULL; /* the rings keep what they hold; a loss is counted */
  char buf[64];
  ssize_t n = 0, r;
  while ((r = read (res[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
    n += r;
  buf[n > 0 ? n : 0] = 0;
  close (res[0]);
  close (master);
  /* The drainer stops once the child exited, before it is reaped (as
     `emlat record` does). */
  siginfo_t si;
  while (waitid (P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
    ;
  if (drainer)
    emlat_drainer_stop (drainer, NULL);
  int st;
  while (waitpid (pid, &st, 0) < 0 && errno == EINTR)
    ;
  /* The profile is finished (tty_child.h), checked and removed.  The
     floor library (--compare) writes no profile: its file stays empty. */
  int fin = traced ? tty_child_finish ("bench_tty_cold", pid, st, profile) : 1;
  if (arm == ARM_ON && fin == 1)
    fprintf (stderr, "bench_tty_cold: %s: the traced child wrote no profile\n", profile);
  if (arm == ARM_ON
      && (fin != 0 || profile_check (profile, mode_keys (o, mode)) != 0))
    n = 0; /* the library did not record what it ran: not a measurement
              (the other arm's may be an ablation that records less) */
  unlink (profile);
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0 || n <= 0)
    {
      fprintf (stderr, "bench_tty_cold: %s/%s run failed (status %d): %s\n", arm_name[arm],
               mode_name[mode], st, buf);
      return -1;
    }
  return strtod (buf, NULL);
}

/* xorshift64*: the bootstrap's resampling, fixed seed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t
rng (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

/* Median of the paired differences D[0..N) and its 95 % bootstrap
   interval over rounds. */
static void
paired (const double *d, int n, double *med, double *lo, double *hi)
{
  double tmp[MAX_RUNS], boot[2000];
  memcpy (tmp, d, (size_t)n * sizeof *d);
  *med = median_d (tmp, (size_t)n);
  for (int b = 0; b < 2000; b++)
    {
      for (int i = 0; i < n; i++)
        tmp[i] = d[rng () % (uint64_t)n];
      boot[b] = median_d (tmp, (size_t)n);
    }
  qsort (boot, 2000, sizeof *boot, cmp_double);
  *lo = boot[49];
  *hi = boot[1949];
}

int
main (int argc, char **argv)
{
  if (argc == 9 && strcmp (argv[1], "--child") == 0)
    {
      int mode = 0;
      while (mode < NMODES && strcmp (argv[2], mode_name[mode]) != 0)
        mode++;
      if (mode == NMODES)
        {
          fprintf (stderr, "bench_tty_cold --child: %s: not a mode\n", argv[2]);
          return 2;
        }
      return child_main (atoi (argv[3]), atoi (argv[4]), mode, atol (argv[5]), atol (argv[6]),
                         atol (argv[7]), atol (argv[8]));
    }
  struct options o = { .runs = 8, .keys = 1000, .trash_mib = 16, .idle_ms = 200, .spread_kib = 1024,
                       .work_kib = 32, .child_cpu = -1,
                       .idle_keys = 40, .modes = (1u << NMODES) - 1, .narms = ARM_OTHER };
  static char other[4096];
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--runs") == 0 && i + 1 < argc)
        o.runs = atoi (argv[++i]);
      else if (strcmp (argv[i], "--keys") == 0 && i + 1 < argc)
        o.keys = atol (argv[++i]);
      else if (strcmp (argv[i], "--trash-mib") == 0 && i + 1 < argc)
        o.trash_mib = atol (argv[++i]);
      else if (strcmp (argv[i], "--idle-ms") == 0 && i + 1 < argc)
        o.idle_ms = atol (argv[++i]);
      else if (strcmp (argv[i], "--spread-kib") == 0 && i + 1 < argc)
        o.spread_kib = atol (argv[++i]);
      else if (strcmp (argv[i], "--work-kib") == 0 && i + 1 < argc)
        o.work_kib = atol (argv[++i]);
      else if (strcmp (argv[i], "--idle-keys") == 0 && i + 1 < argc)
        o.idle_keys = atol (argv[++i]);
      else if (strcmp (argv[i], "--modes") == 0 && i + 1 < argc)
        {
          if (parse_modes (argv[++i], &o.modes) != 0)
            {
              fprintf (stderr, "bench_tty_cold: --modes %s: a comma-separated list of warm, "
                       "cold, idle, spread and nano\n", argv[i]);
              return 2;
            }
        }
      else if (strcmp (argv[i], "--cpu") == 0 && i + 1 < argc)
        {
          char *end;
          long c = strtol (argv[++i], &end, 10);
          if (*end || c < 0 || c >= CPU_SETSIZE)
            {
              fprintf (stderr, "bench_tty_cold: --cpu %s: a CPU number\n", argv[i]);
              return 2;
            }
          o.child_cpu = (int)c;
        }
      else if (strcmp (argv[i], "--finish") == 0 && i + 1 < argc)
        {
          if (tty_child_parse_finish ("bench_tty_cold", argv[++i], &o.reader_finish) != 0)
            return 2;
        }
      else if (strcmp (argv[i], "--compare") == 0 && i + 1 < argc)
        {
          if (!realpath (argv[++i], other))
            {
              fprintf (stderr, "bench_tty_cold: %s: %s\n", argv[i], strerror (errno));
              return 2;
            }
          o.other = other;
          o.narms = NARMS;
        }
      else
        {
          fprintf (stderr, "usage: bench_tty_cold [--runs R] [--keys K] [--trash-mib M] "
                   "[--idle-ms MS] [--idle-keys K] [--spread-kib K] [--work-kib K] "
                   "[--modes LIST] "
                   "[--finish drain|reader] [--cpu N] "
                   "[--compare OTHER-libemlat-tty.so]\n");
          return 2;
        }
    }
  if (o.runs < 2 || o.runs > MAX_RUNS || o.keys < 10 || o.trash_mib < 1 || o.idle_ms < 0
      || o.idle_ms > 10000 || o.idle_keys < 10 || o.spread_kib < 1 || o.spread_kib > (1l << 20)
      || o.work_kib < 1 || o.work_kib > (1l << 20))
    {
      fprintf (stderr, "bench_tty_cold: --runs 2..%d, --keys >= 10, --trash-mib >= 1, "
               "--idle-ms 0..10000, --idle-keys >= 10, --spread-kib and --work-kib "
               "1..1048576\n", MAX_RUNS);
      return 2;
    }
  if (o.child_cpu >= 0)
    {
      /* This process and its drainer threads keep off the child's CPU. */
      cpu_set_t others;
      if (sched_getaffinity (0, sizeof others, &others) != 0 || !CPU_ISSET (o.child_cpu, &others))
        {
          fprintf (stderr, "bench_tty_cold: --cpu %d: not a CPU this process may run on\n",
                   o.child_cpu);
          return 2;
        }
      CPU_CLR (o.child_cpu, &others);
      if (CPU_COUNT (&others) > 0)
        sched_setaffinity (0, sizeof others, &others);
    }
  static char lib[4096], self[4096];
  const char *build = getenv ("BUILD") ? getenv ("BUILD") : "build";
  if (!realpath (build, lib))
    {
      fprintf (stderr, "bench_tty_cold: %s: %s\n", build, strerror (errno));
      return 2;
    }
  strncat (lib, "/libemlat-tty.so", sizeof lib - strlen (lib) - 1);
  if (access (lib, R_OK) != 0)
    {
      fprintf (stderr, "bench_tty_cold: %s: %s (make all first)\n", lib, strerror (errno));
      return 2;
    }
  ssize_t sl = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0)
    return 2;
  self[sl] = 0;
  o.lib = lib;
  o.self = self;
  if (tty_child_mkdtemp ("bench_tty_cold", "emlat-cold", o.dir, sizeof o.dir) != 0)
    return 2;

  static double key_ns[NMODES][NARMS][MAX_RUNS];
  int failed = 0;
  for (int run = 0; run < o.runs && !failed; run++)
    for (int mode = 0; mode < NMODES && !failed; mode++)
      for (int j = 0; j < o.narms && !failed && (o.modes >> mode & 1); j++)
        {
          int arm = run % 2 ? o.narms - 1 - j : j; /* ABBA over rounds */
          double v = run_child (&o, arm, mode, run);
          if (v < 0)
            failed = 1;
          key_ns[mode][arm][run] = v;
        }
  rmdir (o.dir);
  if (failed)
    return 1;

  printf ("# bench_tty_cold: %d runs per arm and mode of %ld keys (warm, cold) and %ld keys "
          "(idle); cold = %ld MiB touched before each key, idle = a %ld ms sleep before each "
          "key, spread = %ld KiB touched before each call; traced children %s; ", o.runs,
          o.keys, o.idle_keys, o.trash_mib, o.idle_ms, o.spread_kib,
          o.reader_finish ? "drain their own rings (--finish reader)"
                          : "drained by this process, as under emlat record");
  if (o.child_cpu >= 0)
    printf ("children on CPU %d, this process on the others\n", o.child_cpu);
  else
    printf ("no CPU pinning\n");
  for (int mode = 0; mode < NMODES; mode++)
    {
      if (!(o.modes >> mode & 1))
        continue;
      for (int arm = 0; arm < o.narms; arm++)
        {
          double tmp[MAX_RUNS];
          memcpy (tmp, key_ns[mode][arm], (size_t)o.runs * sizeof *tmp);
          printf ("METRIC tty_cold_key_ns_%s_%s %.0f ns\n", arm_name[arm], mode_name[mode],
                  median_d (tmp, (size_t)o.runs));
        }
      double d[MAX_RUNS], med, lo, hi;
      for (int r = 0; r < o.runs; r++)
        d[r] = key_ns[mode][ARM_ON][r] - key_ns[mode][ARM_NONE][r];
      paired (d, o.runs, &med, &lo, &hi);
      printf ("METRIC tty_cold_added_ns_%s %.0f ns\n", mode_name[mode], med);
      printf ("METRIC tty_cold_added_ns_%s_lo %.0f ns\n", mode_name[mode], lo);
      printf ("METRIC tty_cold_added_ns_%s_hi %.0f ns\n", mode_name[mode], hi);
      for (int r = 0; r < o.runs; r++)
        d[r] = key_ns[mode][ARM_ON][r] - key_ns[mode][ARM_LOADED][r];
      paired (d, o.runs, &med, &lo, &hi);
      printf ("METRIC tty_cold_recording_ns_%s %.0f ns\n", mode_name[mode], med);
      printf ("METRIC tty_cold_recording_ns_%s_lo %.0f ns\n", mode_name[mode], lo);
      printf ("METRIC tty_cold_recording_ns_%s_hi %.0f ns\n", mode_name[mode], hi);
      if (!o.other)
        continue;
      for (int r = 0; r < o.runs; r++)
        d[r] = key_ns[mode][ARM_OTHER][r] - key_ns[mode][ARM_ON][r];
      paired (d, o.runs, &med, &lo, &hi);
      printf ("METRIC tty_cold_other_minus_on_ns_%s %.0f ns [%.0f, %.0f]\n", mode_name[mode],
              med, lo, hi);
      for (int r = 0; r < o.runs; r++)
        d[r] = key_ns[mode][ARM_OTHER][r] - key_ns[mode][ARM_NONE][r];
      paired (d, o.runs, &med, &lo, &hi);
      printf ("METRIC tty_cold_other_added_ns_%s %.0f ns [%.0f, %.0f]\n", mode_name[mode], med,
              lo, hi);
    }
  return 0;
}
