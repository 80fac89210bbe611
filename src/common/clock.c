/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.c -- choice and calibration of the profiler clock (see clock.h),
 * and the anchors of its reads through the time-stamp counter.
 *
 * Invariants: emlat_clock_id never changes after the init (run by a
 * session's start, or by the first read that finds it not begun) is
 * done; before that it is CLOCK_MONOTONIC.  The counter is used only after
 * init found CLOCK_MONOTONIC_RAW, the kernel's clocksource "tsc" and no
 * EMLAT_CLOCK_VIA=vdso, and stops being used, for the whole process, the
 * first time an anchor's prediction misses the vDSO by more than the
 * bound (every thread's anchor runs out within 2 s after that).
 */
#include "common/clock.h"
#include "common/machine.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

clockid_t emlat_clock_id = CLOCK_MONOTONIC;
/* 0: not begun; 1: one thread runs clock_init_once; 2: done.  Claimed
   by a compare-and-swap (acq_rel) and completed with a release store, so
   that a read that finds the clock undecided can start it without
   blocking (a signal handler that interrupted this very thread's init
   just reads the vDSO), and emlat_clock_init() waits for it. */
static _Atomic int init_state;
static int clock_init_claim (void);
static uint64_t clock_res_ns;
static uint64_t clock_cost_ns;

__thread struct emlat_thread_line emlat_thread_line
  __attribute__ ((tls_model ("initial-exec"), aligned (64)))
  = { .gen = EMLAT_THREAD_GEN_NONE };

#if EMLAT_CLOCK_COUNTER

/* Whether reads may go through the counter: undecided until init, then
   on or off; on is set (release) by init after the origin below is
   written; off by init, or by a failed check (relaxed: a thread that
   still sees on only takes one more anchor, checked like any other).  A
   thread that finds it off reads the vDSO from then on (its anchor's
   VDSO flag). */
enum counter_state
{
  COUNTER_UNDECIDED,
  COUNTER_ON,
  COUNTER_OFF
};
static _Atomic int counter_state;
/* The process's first (counter, ns) pair: every anchor's rate is measured
   from it.  Written once by init before counter_state is set on. */
static uint64_t origin_tsc, origin_ns;

/* An anchor is taken only once this much time separates it from the
   origin: before, the rate's error (the pairs' windows over the baseline)
   would be too large, and reads go to the vDSO. */
#define ANCHOR_MIN_BASELINE_NS 1000000u
/* The same in counter ticks, before the rate is known: at least 1 ms for
   a counter of up to 2 GHz (0.2 ms at 10 GHz; ANCHOR_MIN_BASELINE_NS is
   checked too). */
#define ANCHOR_MIN_TICKS 2000000u
/* The longest an anchor holds: LIMIT * MULT stays below 2^64 (2^32 times
   2e9 ns), and a machine whose counter stops agreeing with the kernel is
   caught within it. */
#define ANCHOR_MAX_AGE_NS 2000000000u
/* A pair whose counter window is wider than this (preempted, or a slow
   vDSO) is not used as an anchor: with every pair within half of it of
   the truth, an honest prediction misses by at most 1 us, half the
   check's bound. */
#define PAIR_MAX_WINDOW_NS 500u
/* Between an anchor's rate and the next one's, a change larger than this
   (parts per million) means the counter and the clock have parted. */
#define RATE_MAX_CHANGE_PPM 100.0
/* The origin's pair must be tighter still (it is the start of every
   rate's baseline): 1,024 ticks, 0.2 to 0.5 us at 2 to 5 GHz. */
#define ORIGIN_MAX_WINDOW_TICKS 1024u

/* EMLAT_CLOCK_EMULATED: a build for counting, never for recording
   (bench/bench_tty_footprint.c runs the library under valgrind, where one
   clock read is a system call of some microseconds and no pair is tight
   enough to anchor on, so every read would go to clock_gettime, a path
   the library does not take on the machine).  Pairs of any width are
   accepted and the counter is never judged parted from the clock: reads
   take the counter's path, as they do natively, with times only as good
   as the pairs.  The Makefile builds it into bench/ only. */
#ifndef EMLAT_CLOCK_EMULATED
#define EMLAT_CLOCK_EMULATED 0
#endif
#if EMLAT_CLOCK_EMULATED
#undef PAIR_MAX_WINDOW_NS
#define PAIR_MAX_WINDOW_NS 1e12
#undef ORIGIN_MAX_WINDOW_TICKS
#define ORIGIN_MAX_WINDOW_TICKS ((uint64_t)1 << 62)
#endif

static inline uint64_t
rdtsc_ordered (void)
{
  __builtin_ia32_lfence ();
  uint64_t t = __builtin_ia32_rdtsc ();
  __builtin_ia32_lfence ();
  return t;
}

/* One (counter, ns) pair: the counter read just before and just after the
   clock, the middle kept; the narrowest of up to four tries.  Returns the
   window's width in ticks. */
static uint64_t
read_pair (uint64_t *tsc, uint64_t *ns)
{
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 4; i++)
    {
      uint64_t t0 = rdtsc_ordered ();
      uint64_t n = emlat_clock_vdso_now ();
      uint64_t t1 = rdtsc_ordered ();
      if (t1 - t0 < best)
        {
          best = t1 - t0;
          *tsc = t0 + best / 2;
          *ns = n;
        }
      /* About 100 ticks is a clean read: no need for another. */
      if (best < 256)
        break;
    }
  return best;
}

/* What a driver said of the kernel's clocksource (machine.h): -1 when
   nothing was said, else 1 for "tsc", 0 for another.  Relaxed atomic: set
   by emlat_clock_kernel_tsc_hint before the init reads it; an init that
   runs first (a read before any session) reads sysfs itself, and either
   value is a reading of the same fact. */
static _Atomic int kernel_tsc_hint = -1;

/* The kernel keeps time with the counter: CLOCK_MONOTONIC_RAW is then a
   fixed linear function of it. */
static int
kernel_uses_tsc (void)
{
  int hint = atomic_load_explicit (&kernel_tsc_hint, memory_order_relaxed);
  return hint >= 0 ? hint : emlat_machine_kernel_tsc ();
}

static void
counter_init (void)
{
  int on = 0;
#ifdef CLOCK_MONOTONIC_RAW
  /* EMLAT_CLOCK_VIA=vdso: every read through clock_gettime (for a
     program, or a test, that replaces clock_gettime; or a machine whose
     counter one does not trust). */
  const char *via = getenv ("EMLAT_CLOCK_VIA");
  uint64_t t, n;
  on = !(via && strcmp (via, "vdso") == 0) && emlat_clock_id == CLOCK_MONOTONIC_RAW
       && kernel_uses_tsc () && read_pair (&t, &n) <= ORIGIN_MAX_WINDOW_TICKS;
  if (on)
    {
      origin_tsc = t;
      origin_ns = n;
    }
#endif
  /* Release: the origin before the state that lets readers use it. */
  atomic_store_explicit (&counter_state, on ? COUNTER_ON : COUNTER_OFF, memory_order_release);
}

int
emlat_clock_counter_parted (const struct emlat_clock_anchor *old, uint64_t t, uint64_t n,
                            double ns_per_tick)
{
  double old_ns_per_tick = (double)old->mult / 4294967296.0;
  double change_ppm = (old_ns_per_tick - ns_per_tick) / ns_per_tick * 1e6;
  if (change_ppm > RATE_MAX_CHANGE_PPM || change_ppm < -RATE_MAX_CHANGE_PPM)
    return 1;
  /* The prediction only a short time after the anchor ran out, so that
     its own rate error has not grown past the bound. */
  uint64_t d = t - old->tsc;
  if (d >= 2 * old->limit)
    return 0;
  double miss = (double)old->ns + (double)d * old_ns_per_tick - (double)n;
  return miss > EMLAT_CLOCK_COUNTER_MAX_ERROR_NS || miss < -(double)EMLAT_CLOCK_COUNTER_MAX_ERROR_NS;
}

static inline uint64_t
max_u64 (uint64_t a, uint64_t b)
{
  return a > b ? a : b;
}

/* The counter off for the process (relaxed: see counter_state) and this
   thread on the vDSO from now on; N, the vDSO's time, is this read's. */
static uint64_t
counter_give_up (struct emlat_clock_anchor *a, uint64_t n)
{
  atomic_store_explicit (&counter_state, COUNTER_OFF, memory_order_relaxed);
  a->limit = 0;
  a->vdso = 1;
  return max_u64 (n, a->floor);
}

static uint64_t clock_now_slow (void);

uint64_t
emlat_clock_now_vdso (void)
{
  uint64_t ns = emlat_clock_vdso_now ();
  uint64_t floor = emlat_thread_line.clock.floor;
  return ns < floor ? floor : ns;
}

/* errno is kept: the first read of a process decides the clock (reading
   sysfs), and a producer call never changes errno (record/state.h). */
uint64_t
emlat_clock_now_slow (void)
{
  int saved = errno;
  uint64_t t = clock_now_slow ();
  errno = saved;
  return t;
}

static uint64_t
clock_now_slow (void)
{
  struct emlat_clock_anchor *a = &emlat_thread_line.clock;
  /* Acquire: pairs with init's release, so the origin is visible. */
  int state = atomic_load_explicit (&counter_state, memory_order_acquire);
  /* A read before any session: the first decides the clock, as a
     session's start would. */
  if (state == COUNTER_UNDECIDED && clock_init_claim ())
    state = atomic_load_explicit (&counter_state, memory_order_acquire);
  if (state != COUNTER_ON)
    {
      /* Off for good: this thread reads the vDSO from now on, through
         emlat_clock_now's first test.  Undecided (no init yet): this
         read only. */
      a->limit = 0;
      if (state == COUNTER_OFF)
        a->vdso = 1;
      return max_u64 (emlat_clock_vdso_now (), a->floor);
    }
  /* Too early for any rate (less than ANCHOR_MIN_TICKS after the origin):
     the vDSO alone, without the pair's fenced counter reads. */
  if (__builtin_ia32_rdtsc () - origin_tsc < ANCHOR_MIN_TICKS)
    {
      a->limit = 0;
      return max_u64 (emlat_clock_vdso_now (), a->floor);
    }
  /* Every value the old anchor gave lies below its prediction at LIMIT. */
  if (a->limit)
    a->floor = max_u64 (a->floor, a->ns + ((a->limit * a->mult) >> 32));
  uint64_t t, n;
  uint64_t window = read_pair (&t, &n);
  /* A counter that went back past the origin (reset by a resume) no
     longer measures from it, so it serves no more. */
  if (t < origin_tsc)
    return counter_give_up (a, n);
  uint64_t base_ticks = t - origin_tsc, base_ns = n - origin_ns;
  double ns_per_tick = base_ticks ? (double)base_ns / (double)base_ticks : 0;
  if (base_ns < ANCHOR_MIN_BASELINE_NS || (double)window * ns_per_tick > PAIR_MAX_WINDOW_NS)
    {
      /* Too early, or a pair too loose to anchor on: this read only. */
      a->limit = 0;
      return max_u64 (n, a->floor);
    }
  if (!EMLAT_CLOCK_EMULATED && a->limit && base_ns > 1000 * (uint64_t)ANCHOR_MIN_BASELINE_NS
      && emlat_clock_counter_parted (a, t, n, ns_per_tick))
    return counter_give_up (a, n);
  uint64_t age_ns = base_ns / 2 < ANCHOR_MAX_AGE_NS ? base_ns / 2 : ANCHOR_MAX_AGE_NS;
  /* A signal handler of this thread that reads the clock while the anchor
     is half written finds LIMIT 0 and anchors itself; the fences keep the
     compiler from moving LIMIT's stores.  (Its anchor may then be mixed
     with this one's: a pair whose halves lie microseconds apart, for at
     most 2 s, and never read as earlier than FLOOR.) */
  a->limit = 0;
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  a->tsc = t;
  a->ns = n;
  a->mult = (uint64_t)(ns_per_tick * 4294967296.0);
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  a->limit = (uint64_t)((double)age_ns / ns_per_tick);
  return max_u64 (n, a->floor);
}

const char *
emlat_clock_source (void)
{
  emlat_clock_init ();
  return atomic_load_explicit (&counter_state, memory_order_relaxed) == COUNTER_ON ? "tsc"
                                                                                  : "vdso";
}
#else
const char *
emlat_clock_source (void)
{
  return "vdso";
}
#endif

void
emlat_clock_kernel_tsc_hint (int tsc)
{
#if EMLAT_CLOCK_COUNTER
  atomic_store_explicit (&kernel_tsc_hint, tsc ? 1 : 0, memory_order_relaxed);
#else
  (void)tsc;
#endif
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void
clock_init_once (void)
{
  struct timespec ts;
#ifdef CLOCK_MONOTONIC_RAW
  if (clock_gettime (CLOCK_MONOTONIC_RAW, &ts) == 0)
    emlat_clock_id = CLOCK_MONOTONIC_RAW;
#endif
#if EMLAT_CLOCK_COUNTER
  counter_init ();
#endif
  if (clock_getres (emlat_clock_id, &ts) == 0)
    clock_res_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  /* 9 x 32 reads: the median is steady to a nanosecond or two, and the
     calibration costs a few microseconds of every session start, not the
     200 of 9 x 1000 reads. */
  enum { RUNS = 9, READS = 32 };
  uint64_t per[RUNS];
#if EMLAT_CLOCK_COUNTER
  if (atomic_load_explicit (&counter_state, memory_order_relaxed) == COUNTER_ON)
    {
      /* Through the counter, with an anchor of this calibration's own
         (the thread's first anchor comes only after
         ANCHOR_MIN_BASELINE_NS); any rate costs the same. */
      struct emlat_clock_anchor cal = { origin_tsc, origin_ns,
                                        (uint64_t)(0.4 * 4294967296.0), UINT64_MAX, 0, 0 };
      for (int r = 0; r < RUNS; r++)
        {
          volatile uint64_t sink = 0;
          uint64_t t0 = emlat_clock_vdso_now ();
          for (int i = 0; i < READS; i++)
            sink = emlat_clock_from_anchor (&cal, __builtin_ia32_rdtsc () - cal.tsc);
          (void)sink;
          per[r] = (emlat_clock_vdso_now () - t0) / READS;
        }
    }
  else
#endif
    for (int r = 0; r < RUNS; r++)
      {
        uint64_t t0 = emlat_clock_vdso_now (), t1 = t0;
        for (int i = 0; i < READS; i++)
          t1 = emlat_clock_vdso_now ();
        per[r] = (t1 - t0) / READS;
      }
  qsort (per, RUNS, sizeof per[0], cmp_u64);
  clock_cost_ns = per[RUNS / 2];
}

/* Run the init if no thread has begun it; 1 when this call ran it. */
static int
clock_init_claim (void)
{
  int expected = 0;
  if (!atomic_compare_exchange_strong_explicit (&init_state, &expected, 1,
                                                memory_order_acq_rel, memory_order_acquire))
    return 0;
  clock_init_once ();
  atomic_store_explicit (&init_state, 2, memory_order_release);
  return 1;
}

void
emlat_clock_init (void)
{
  if (clock_init_claim ())
    return;
  /* Acquire: pairs with the release above, so the init's writes are
     seen. */
  while (atomic_load_explicit (&init_state, memory_order_acquire) != 2)
    sched_yield ();
}

const char *
emlat_clock_name (void)
{
  emlat_clock_init ();
#ifdef CLOCK_MONOTONIC_RAW
  if (emlat_clock_id == CLOCK_MONOTONIC_RAW)
    return "CLOCK_MONOTONIC_RAW";
#endif
  return "CLOCK_MONOTONIC";
}

uint64_t
emlat_clock_resolution_ns (void)
{
  emlat_clock_init ();
  return clock_res_ns;
}

uint64_t
emlat_clock_read_cost_ns (void)
{
  emlat_clock_init ();
  return clock_cost_ns;
}

uint64_t
emlat_realtime_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
