/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_probe.c -- a terminal program whose every call is known, run by the
 * tests in tests/tty/ on the slave side of a pseudo-terminal with
 * libemlat-tty.so preloaded, so that a test can compare what the library
 * recorded with what the program did.
 *
 *   tty_probe batch         raw mode; "READY"; each blocking read(0) is
 *                           acknowledged by "<n>;" (bytes read); 'q' ends
 *   tty_probe pollbatch     the same, waiting with poll(-1) before each read
 *   tty_probe typeahead     the same, but never blocking: poll(0) checks for
 *                           input, with 1 ms of sleep after each that found
 *                           none, until one finds it; then the read; its
 *                           acknowledgement "<n>;G<us>;" also says the
 *                           microseconds from the start of the last check
 *                           that found nothing to the end of the one that
 *                           found the input (CLOCK_MONOTONIC)
 *   tty_probe typeahead-select, typeahead-pselect
 *                           the same with select or pselect and a zero
 *                           timeout (vim's checks are pselect's)
 *   tty_probe prefix        raw mode; "READY"; per key: a blocking read(0)
 *                           of one byte, then zero-timeout polls (1 ms of
 *                           sleep after each that found nothing) until the
 *                           next byte is there, its read, and "2;" (one
 *                           interaction of two batches: a prefix key and
 *                           the key it completes); a 'q' first ends
 *   tty_probe busy MS       "READY"; reads one byte; "BUSY"; spins MS ms on
 *                           the CPU without looking at the terminal; reads;
 *                           "DONE"
 *   tty_probe stdio MS      per byte read: fputs of "stdio-out" (buffered),
 *                           MS ms of sleep, fflush; 'q' ends
 *   tty_probe flood KIB     per byte read: KIB KiB in one write(1); "END"
 *                           after it; 'q' ends
 *   tty_probe ticks N MS    no input: N times "tick" then poll(0) with an MS
 *                           ms timeout (which expires)
 *   tty_probe badwrite      raw mode; "READY"; per byte read: a write(1)
 *                           that fails (EFAULT: an unmapped buffer), then
 *                           "ok" (one write); 'q' ends
 *   tty_probe errno         checks that traced calls preserve errno; prints
 *                           "ERRNO OK" or "ERRNO BAD <what>"
 *   tty_probe env           prints "PRELOAD=<LD_PRELOAD or ->" and exits
 *   tty_probe fork          a forked child writes "child" and exits through
 *                           exit(); then the parent writes "parent"
 *
 * Invariants: only the calls named above touch the terminal; no mode reads
 * more than it acknowledges, so a test knows each batch's size.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static struct termios saved;

static void
restore (void)
{
  tcsetattr (0, TCSANOW, &saved);
}

static void
raw_mode (void)
{
  struct termios t;
  if (tcgetattr (0, &saved) != 0)
    {
      perror ("tcgetattr");
      exit (2);
    }
  t = saved;
  cfmakeraw (&t);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  tcsetattr (0, TCSANOW, &t);
  atexit (restore);
}

static void
say (const char *s)
{
  size_t n = strlen (s);
  while (n > 0)
    {
      ssize_t w = write (1, s, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        exit (3);
      s += w;
      n -= (size_t)w;
    }
}

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* How a batch mode waits before each read. */
enum batch_wait
{
  WAIT_NONE,      /* the read blocks */
  WAIT_POLL,      /* poll(-1) */
  WAIT_TYPEAHEAD, /* poll(0), 1 ms of sleep after each that found nothing */
  WAIT_SELECT0,   /* the same with select and a zero timeval */
  WAIT_PSELECT0   /* the same with pselect and a zero timespec */
};

/* A zero-timeout select (or pselect with PSELECT) on descriptor 0: its
   result, and whether it reported 0 readable. */
static int
select_zero (int pselect_call, int *readable)
{
  fd_set r;
  FD_ZERO (&r);
  FD_SET (0, &r);
  int sr;
  if (pselect_call)
    {
      struct timespec ts = { 0, 0 };
      sr = pselect (1, &r, NULL, NULL, &ts, NULL);
    }
  else
    {
      struct timeval tv = { 0, 0 };
      sr = select (1, &r, NULL, NULL, &tv);
    }
  *readable = sr > 0 && FD_ISSET (0, &r);
  return sr;
}

static int
mode_batch (enum batch_wait wait)
{
  raw_mode ();
  say ("READY");
  int checks = wait == WAIT_TYPEAHEAD || wait == WAIT_SELECT0 || wait == WAIT_PSELECT0;
  uint64_t empty_start = 0, found_end = 0; /* checks: the last empty one's start */
  for (;;)
    {
      uint64_t check_start = now_ns ();
      if (wait == WAIT_SELECT0 || wait == WAIT_PSELECT0)
        {
          int readable;
          if (select_zero (wait == WAIT_PSELECT0, &readable) < 0)
            continue;
          if (!readable)
            {
              empty_start = check_start;
              sleep_ms (1);
              continue;
            }
        }
      else if (wait != WAIT_NONE)
        {
          struct pollfd p = { .fd = 0, .events = POLLIN };
          int pr = poll (&p, 1, wait == WAIT_POLL ? -1 : 0);
          if (pr < 0)
            continue;
          if (wait == WAIT_TYPEAHEAD && (pr == 0 || !(p.revents & POLLIN)))
            {
              empty_start = check_start;
              sleep_ms (1);
              continue;
            }
        }
      found_end = now_ns ();
      char buf[256];
      ssize_t r = read (0, buf, sizeof buf);
      if (r <= 0)
        return 1;
      char ack[64];
      if (checks)
        snprintf (ack, sizeof ack, "%zd;G%llu;", r,
                  (unsigned long long)(empty_start ? (found_end - empty_start) / 1000u : 0));
      else
        snprintf (ack, sizeof ack, "%zd;", r);
      empty_start = 0;
      say (ack);
      if (memchr (buf, 'q', (size_t)r))
        return 0;
    }
}

/* Read one key byte from the terminal: 1 for a key, 0 for 'q' (the end),
   -1 when the read failed. */
static int
next_key (void)
{
  char c;
  if (read (0, &c, 1) != 1)
    return -1;
  return c != 'q';
}

static int
mode_prefix (void)
{
  raw_mode ();
  say ("READY");
  for (;;)
    {
      int k = next_key ();
      if (k <= 0)
        return k < 0;
      for (;;)
        {
          struct pollfd p = { .fd = 0, .events = POLLIN };
          int pr = poll (&p, 1, 0);
          if (pr > 0 && (p.revents & POLLIN))
            break;
          sleep_ms (1);
        }
      char c;
      if (read (0, &c, 1) != 1)
        return 1;
      say ("2;");
    }
}

static int
mode_busy (long ms)
{
  raw_mode ();
  say ("READY");
  char c;
  if (read (0, &c, 1) != 1)
    return 1;
  say ("BUSY");
  uint64_t end = now_ns () + (uint64_t)ms * 1000000u;
  volatile uint64_t spin = 0;
  while (now_ns () < end)
    spin++;
  if (read (0, &c, 1) != 1)
    return 1;
  say ("DONE");
  return 0;
}

static int
mode_stdio (long ms)
{
  raw_mode ();
  setvbuf (stdout, NULL, _IOFBF, 4096);
  say ("READY");
  for (;;)
    {
      int k = next_key ();
      if (k <= 0)
        return k < 0;
      fputs ("stdio-out", stdout);
      sleep_ms (ms);
      fflush (stdout);
    }
}

static int
mode_flood (long kib)
{
  raw_mode ();
  size_t n = (size_t)kib * 1024;
  char *big = malloc (n + 1);
  if (!big)
    return 1;
  memset (big, 'x', n);
  big[n] = '\0';
  say ("READY");
  int rc;
  for (;;)
    {
      char c;
      if (read (0, &c, 1) != 1)
        {
          rc = 1;
          break;
        }
      if (c == 'q')
        {
          rc = 0;
          break;
        }
      say (big);
      say ("END");
    }
  free (big);
  return rc;
}

static int
mode_ticks (long n, long ms)
{
  for (long i = 0; i < n; i++)
    {
      say ("tick\r\n");
      struct pollfd p = { .fd = 0, .events = POLLIN };
      poll (&p, 1, (int)ms);
    }
  return 0;
}

static int
mode_badwrite (void)
{
  raw_mode ();
  say ("READY");
  for (;;)
    {
      char c;
      if (read (0, &c, 1) != 1)
        return 1;
      if (c == 'q')
        return 0;
      /* The kernel copies from an address no mapping holds: EFAULT
         (volatile: the compiler is not to judge the address). */
      const void *volatile bad = (const void *)(uintptr_t)8;
      if (write (1, bad, 4) != -1 || errno != EFAULT)
        return 1;
      say ("ok");
    }
}

static void
on_alarm (int sig)
{
  (void)sig;
}

static int
mode_errno (void)
{
  raw_mode ();
  /* A successful traced write leaves errno alone. */
  errno = 4242;
  say ("x");
  if (errno != 4242)
    {
      printf ("ERRNO BAD write %d\r\n", errno);
      return 1;
    }
  /* A nonblocking read of empty input fails with EAGAIN. */
  int fl = fcntl (0, F_GETFL);
  fcntl (0, F_SETFL, fl | O_NONBLOCK);
  char c;
  errno = 0;
  ssize_t r = read (0, &c, 1);
  int e = errno;
  fcntl (0, F_SETFL, fl);
  if (r != -1 || e != EAGAIN)
    {
      printf ("ERRNO BAD read %zd %d\r\n", r, e);
      return 1;
    }
  /* A zero-timeout poll that finds nothing leaves errno alone (the wait
     wrappers never touch it, docs/TTY.md). */
  errno = 4343;
  struct pollfd p0 = { .fd = 0, .events = POLLIN };
  int p0r = poll (&p0, 1, 0);
  if (p0r != 0 || errno != 4343)
    {
      printf ("ERRNO BAD empty poll %d %d\r\n", p0r, errno);
      return 1;
    }
  /* A poll interrupted by a signal fails with EINTR. */
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm; /* no SA_RESTART */
  sigaction (SIGALRM, &sa, NULL);
  alarm (1);
  struct pollfd p = { .fd = 0, .events = POLLIN };
  errno = 0;
  int pr = poll (&p, 1, 5000);
  e = errno;
  if (pr != -1 || e != EINTR)
    {
      printf ("ERRNO BAD poll %d %d\r\n", pr, e);
      return 1;
    }
  /* A stdio call on the terminal leaves errno alone too. */
  errno = 77;
  fputs ("y", stdout);
  fflush (stdout);
  if (errno != 77)
    {
      printf ("ERRNO BAD stdio %d\r\n", errno);
      return 1;
    }
  say ("ERRNO OK\r\n");
  return 0;
}

static int
mode_env (void)
{
  const char *p = getenv ("LD_PRELOAD");
  char buf[4200];
  snprintf (buf, sizeof buf, "PRELOAD=%s;\r\n", p && *p ? p : "-");
  say (buf);
  return 0;
}

/* LeakSanitizer's exit-time check can deadlock in the child of a
   multi-threaded process (the recorder's writer thread may hold the ASan
   allocator lock at the fork); the sanitizer calls this hook and skips the
   check when it returns nonzero.  Unused in plain builds. */
static volatile sig_atomic_t in_fork_child;
int __lsan_is_turned_off (void);
int
__lsan_is_turned_off (void)
{
  return in_fork_child;
}

static int
mode_fork (void)
{
  pid_t pid = fork ();
  if (pid < 0)
    return 1;
  if (pid == 0)
    {
      in_fork_child = 1;
      say ("child\r\n");
      exit (0);
    }
  int st;
  waitpid (pid, &st, 0);
  say ("parent\r\n");
  return WIFEXITED (st) && WEXITSTATUS (st) == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  const char *m = argc > 1 ? argv[1] : "";
  long a = argc > 2 ? strtol (argv[2], NULL, 10) : 0;
  long b = argc > 3 ? strtol (argv[3], NULL, 10) : 0;
  if (strcmp (m, "batch") == 0)
    return mode_batch (WAIT_NONE);
  if (strcmp (m, "pollbatch") == 0)
    return mode_batch (WAIT_POLL);
  if (strcmp (m, "prefix") == 0)
    return mode_prefix ();
  if (strcmp (m, "typeahead") == 0)
    return mode_batch (WAIT_TYPEAHEAD);
  if (strcmp (m, "typeahead-select") == 0)
    return mode_batch (WAIT_SELECT0);
  if (strcmp (m, "typeahead-pselect") == 0)
    return mode_batch (WAIT_PSELECT0);
  if (strcmp (m, "busy") == 0)
    return mode_busy (a);
  if (strcmp (m, "stdio") == 0)
    return mode_stdio (a);
  if (strcmp (m, "flood") == 0)
    return mode_flood (a);
  if (strcmp (m, "ticks") == 0)
    return mode_ticks (a, b);
  if (strcmp (m, "badwrite") == 0)
    return mode_badwrite ();
  if (strcmp (m, "errno") == 0)
    return mode_errno ();
  if (strcmp (m, "env") == 0)
    return mode_env ();
  if (strcmp (m, "fork") == 0)
    return mode_fork ();
  fprintf (stderr, "usage: tty_probe batch|pollbatch|prefix|busy MS|stdio MS|"
                   "flood KIB|ticks N MS|badwrite|errno|env|fork\n");
  return 2;
}
