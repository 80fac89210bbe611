/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_clock.c -- the profiler clock (src/common/clock.h, DESIGN.md 2.1):
 * read through the time-stamp counter where the kernel keeps time with it,
 * it agrees with the vDSO clock and never goes back.
 *
 * Checked: after init the clock is CLOCK_MONOTONIC_RAW when the kernel
 * has it, and reads through the counter exactly when the machine is
 * x86-64 and the kernel's clocksource is "tsc"; four threads for about
 * 3.5 s each, reading emlat_clock_now() between two vDSO reads in bursts
 * separated by pauses of 0 to 300 ms and one of 2.2 s (past an anchor's
 * longest life): every value lies within 1 us of the bracket, and no
 * thread's value is ever below its previous one; a SIGALRM handler every
 * 0.5 ms on the main thread reads the clock too (the reads interrupted
 * include anchor changes) and its values lie within the same bound; the
 * check that turns the counter off (emlat_clock_counter_parted) says
 * parted for a 200 ppm rate change and for a 3 us miss shortly after an
 * anchor ran out, and not for a 1 ppm change, a 500 ns miss, or a miss
 * long after; a child started with EMLAT_CLOCK_VIA=vdso reads through the
 * vDSO, one with EMLAT_CLOCK_VIA=other as the machine allows.
 *
 * Not checked: what a read costs (bench/bench_clock_floor.c).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "tap.h"

#define TOLERANCE_NS 1000u

struct reader_result
{
  unsigned long reads, outside, backwards;
  long worst_below, worst_above;
};

static void
sleep_ms (unsigned ms)
{
  struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) != 0)
    ;
}

static void *
reader (void *arg)
{
  struct reader_result *r = arg;
  unsigned seed = (unsigned)(uintptr_t)arg;
  uint64_t last = 0;
  for (int burst = 0; burst < 40; burst++)
    {
      for (int i = 0; i < 2000; i++)
        {
          uint64_t before = emlat_clock_vdso_now ();
          uint64_t now = emlat_clock_now ();
          uint64_t after = emlat_clock_vdso_now ();
          r->reads++;
          if (now + TOLERANCE_NS < before || now > after + TOLERANCE_NS)
            r->outside++;
          long below = (long)(before - now), above = (long)(now - after);
          if (below > r->worst_below)
            r->worst_below = below;
          if (above > r->worst_above)
            r->worst_above = above;
          if (now < last)
            r->backwards++;
          last = now;
        }
      sleep_ms (burst == 20 ? 2200 : (unsigned)(rand_r (&seed) % 300) / 10);
    }
  return NULL;
}

static volatile sig_atomic_t handler_reads, handler_outside;

static void
on_alarm (int sig)
{
  (void)sig;
  uint64_t before = emlat_clock_vdso_now ();
  uint64_t now = emlat_clock_now ();
  uint64_t after = emlat_clock_vdso_now ();
  handler_reads++;
  if (now + TOLERANCE_NS < before || now > after + TOLERANCE_NS)
    handler_outside++;
}

static int
kernel_clocksource_is_tsc (void)
{
  FILE *f = fopen ("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f)
    return 0;
  char buf[32] = "";
  int tsc = fgets (buf, sizeof buf, f) && strcmp (buf, "tsc\n") == 0;
  fclose (f);
  return tsc;
}

static void
check_parted (void)
{
#if EMLAT_CLOCK_COUNTER
  /* An anchor of 0.4 ns per tick at tick 1e9, 1e6 ticks long. */
  const double rate = 0.4;
  struct emlat_clock_anchor old = { 1000000000u, 5000000000u,
                                    (uint64_t)(rate * 4294967296.0), 1000000u, 0, 0 };
  uint64_t t = old.tsc + 1500000u; /* half a LIMIT after it ran out */
  uint64_t n = old.ns + (uint64_t)(1500000u * rate);
  CHECK (!emlat_clock_counter_parted (&old, t, n, rate), "an exact prediction is not parted");
  CHECK (!emlat_clock_counter_parted (&old, t, n, rate * 1.000001), "a 1 ppm rate change is not parted");
  CHECK (emlat_clock_counter_parted (&old, t, n, rate * 1.0002), "a +200 ppm rate change is parted");
  CHECK (emlat_clock_counter_parted (&old, t, n, rate * 0.9998), "a -200 ppm rate change is parted");
  CHECK (!emlat_clock_counter_parted (&old, t, n + 500, rate), "a 500 ns miss is not parted");
  CHECK (emlat_clock_counter_parted (&old, t, n + 3000, rate), "a 3 us miss (clock ahead) is parted");
  CHECK (emlat_clock_counter_parted (&old, t, n - 3000, rate), "a 3 us miss (clock behind) is parted");
  /* Long after (two LIMITs or more): only the rate is judged. */
  uint64_t t_late = old.tsc + 5000000u;
  uint64_t n_late = old.ns + (uint64_t)(5000000u * rate);
  CHECK (!emlat_clock_counter_parted (&old, t_late, n_late + 3000, rate), "a miss long after the anchor ran out is not judged");
#endif
}

/* The source a child of ours chooses with EMLAT_CLOCK_VIA=VIA. */
static void
check_child (const char *self, const char *via, const char *want)
{
  char cmd[4096];
  snprintf (cmd, sizeof cmd, "EMLAT_CLOCK_VIA=%s '%s' --source", via, self);
  FILE *p = popen (cmd, "r");
  char buf[32] = "";
  if (p)
    {
      if (!fgets (buf, sizeof buf, p))
        buf[0] = 0;
      pclose (p);
    }
  buf[strcspn (buf, "\n")] = 0;
  CHECK (strcmp (buf, want) == 0, "EMLAT_CLOCK_VIA=%s reads through %s, not '%s'", via, want, buf);
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--source") == 0)
    {
      emlat_clock_init ();
      puts (emlat_clock_source ());
      return 0;
    }
  emlat_clock_init ();
#ifdef CLOCK_MONOTONIC_RAW
  struct timespec ts;
  if (clock_gettime (CLOCK_MONOTONIC_RAW, &ts) == 0)
    CHECK (strcmp (emlat_clock_name (), "CLOCK_MONOTONIC_RAW") == 0, "the clock is CLOCK_MONOTONIC_RAW");
#endif
  int want_tsc = EMLAT_CLOCK_COUNTER && kernel_clocksource_is_tsc ()
                 && strcmp (emlat_clock_name (), "CLOCK_MONOTONIC_RAW") == 0;
  printf ("# clock reads through %s (expected %s)\n", emlat_clock_source (),
          want_tsc ? "tsc" : "vdso");
  CHECK (strcmp (emlat_clock_source (), want_tsc ? "tsc" : "vdso") == 0, "the clock reads through %s", want_tsc ? "tsc" : "vdso");

  check_parted ();
  check_child (argv[0], "vdso", "vdso");
  check_child (argv[0], "other", want_tsc ? "tsc" : "vdso");

  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction (SIGALRM, &sa, NULL);
  struct itimerval it = { { 0, 500 }, { 0, 500 } };
  setitimer (ITIMER_REAL, &it, NULL);

  enum { THREADS = 4 };
  pthread_t th[THREADS];
  struct reader_result res[THREADS];
  memset (res, 0, sizeof res);
  for (int i = 1; i < THREADS; i++)
    pthread_create (&th[i], NULL, reader, &res[i]);
  /* The main thread reads too, interrupted by SIGALRM. */
  reader (&res[0]);
  for (int i = 1; i < THREADS; i++)
    pthread_join (th[i], NULL);
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer (ITIMER_REAL, &off, NULL);

  for (int i = 0; i < THREADS; i++)
    {
      printf ("# thread %d: %lu reads, worst %ld ns before the bracket, %ld after\n", i,
              res[i].reads, res[i].worst_below, res[i].worst_above);
      CHECK_EQ_U64 (res[i].outside, 0);
      CHECK_EQ_U64 (res[i].backwards, 0);
    }
  printf ("# signal handler: %d reads\n", (int)handler_reads);
  CHECK (handler_reads > 100, "the SIGALRM handler read the clock");
  CHECK_EQ_U64 ((uint64_t)handler_outside, 0);
  CHECK (strcmp (emlat_clock_source (), want_tsc ? "tsc" : "vdso") == 0, "the clock reads through %s", want_tsc ? "tsc" : "vdso");
  return tap_done ();
}
