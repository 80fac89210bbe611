/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.h -- the profiler-private monotonic clock (DESIGN.md section 2.1).
 *
 * One clock is chosen once per process, in emlat_clock_init():
 * CLOCK_MONOTONIC_RAW when clock_gettime accepts it, else CLOCK_MONOTONIC.
 * Neither counts suspend time.  Normal program timekeeping is untouched.
 *
 * emlat_clock_now() is inline.  Where the kernel itself keeps time with the
 * time-stamp counter (x86-64, clocksource "tsc") and the clock is
 * CLOCK_MONOTONIC_RAW -- a fixed linear function of the counter, never
 * slewed -- it reads the counter (rdtsc, no memory access of the kernel's)
 * and converts it with the calling thread's anchor: a (counter, ns) pair
 * read through the vDSO and a rate measured against the process's first
 * pair (clock.c).  An anchor holds for half the time since that first pair,
 * at most 2 s; then the next read takes a new one (one clock_gettime).  A
 * new anchor's prediction is checked against the vDSO: off by more than
 * EMLAT_CLOCK_COUNTER_MAX_ERROR_NS and the process goes back to
 * clock_gettime for good.  Otherwise, and on other machines, every read is
 * one clock_gettime through the vDSO, no system call.
 *
 * Invariants: the value a thread reads never decreases (a new anchor that
 * puts time earlier than the last value the old one could have given
 * starts from that value: the floor below); values of different threads
 * agree with the vDSO clock to within the check's bound.
 */
#ifndef EMLAT_CLOCK_H
#define EMLAT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* The chosen clock id; valid after emlat_clock_init() (idempotent,
   thread-safe).  Written once under pthread_once, then only read. */
extern __attribute__ ((visibility ("hidden"))) clockid_t emlat_clock_id;

void emlat_clock_init (void);
/* Before the init: the kernel's clocksource as a driver read it
   (machine.h; TSC 1 for "tsc"), so that the init does not read sysfs.
   Ignored once the init ran. */
void emlat_clock_kernel_tsc_hint (int tsc);
const char *emlat_clock_name (void);
uint64_t emlat_clock_resolution_ns (void);
/* Median cost of one emlat_clock_now() in ns, measured once (short
   calibration: 9 runs of 32 reads). */
uint64_t emlat_clock_read_cost_ns (void);

/* The chosen clock through the vDSO: what every read returns where the
   counter is not used. */
static inline uint64_t
emlat_clock_vdso_now (void)
{
  struct timespec ts;
  clock_gettime (emlat_clock_id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined __x86_64__
#define EMLAT_CLOCK_COUNTER 1
/* A new anchor whose predecessor's prediction is off by more than this
   turns the counter off for the process. */
#define EMLAT_CLOCK_COUNTER_MAX_ERROR_NS 2000u

/* The calling thread's anchor (in its emlat_thread_line, below).  LIMIT 0
   (a new thread, or no rate yet) sends a read to the slow path; VDSO set
   (the counter off for the process) sends every read to the vDSO. */
struct emlat_clock_anchor
{
  uint64_t tsc;   /* the counter at the anchor */
  uint64_t ns;    /* the clock at the anchor */
  uint64_t mult;  /* ns per counter tick, times 2^32 */
  uint64_t limit; /* counter ticks after TSC the anchor holds for */
  uint64_t floor; /* the least value to return: the old anchor's last */
  uint64_t vdso;  /* nonzero: read the vDSO (no more anchors) */
};
#else
#define EMLAT_CLOCK_COUNTER 0
#endif

/* The calling thread's hot words: one cache line of its static TLS, which
   a record's clock read and its ring lookup both touch, so that a call
   after idle finds one line of thread-local storage cold, not two
   (docs/PERFORMANCE.md, "nano's calls priced").  It holds the clock's
   anchor (with the counter) and two words the recorder keeps
   (record/state.h): the thread's ring, and the session generation the
   ring was claimed in -- EMLAT_THREAD_GEN_NONE until the thread's first
   claim, which is never an active generation (>= 1) nor "no session"
   (0), so that one compare selects the producer's fast path. */
struct emlat_ring;
#define EMLAT_THREAD_GEN_NONE UINT64_MAX
struct emlat_thread_line
{
#if EMLAT_CLOCK_COUNTER
  struct emlat_clock_anchor clock;
#endif
  struct emlat_ring *ring;
  uint64_t gen;
};
_Static_assert (sizeof (struct emlat_thread_line) <= 64, "the thread's hot words fill one line");
extern __attribute__ ((visibility ("hidden"))) __thread struct emlat_thread_line
  emlat_thread_line __attribute__ ((tls_model ("initial-exec"), aligned (64)));

#if EMLAT_CLOCK_COUNTER

/* Whether the counter and the clock have parted, judged when a thread
   replaces its anchor OLD by the pair (T, N) at NS_PER_TICK: the rate
   changed by more than 100 ppm, or, shortly after OLD ran out (less than
   its LIMIT later), OLD's prediction at T misses N by more than
   EMLAT_CLOCK_COUNTER_MAX_ERROR_NS. */
int emlat_clock_counter_parted (const struct emlat_clock_anchor *old, uint64_t t, uint64_t n,
                                double ns_per_tick);

/* A read whose anchor is missing or too old (clock.c): takes a new anchor
   when the counter is on, else reads the vDSO. */
uint64_t emlat_clock_now_slow (void);
/* A read of a thread whose counter is off (its anchor's VDSO set): the
   vDSO, never below the anchor's FLOOR.  Out of line, so that the
   counter's path, inlined at every read, needs no frame. */
uint64_t emlat_clock_now_vdso (void);

/* The clock D ticks after A's anchor (D below A's LIMIT, which keeps
   D * MULT below 2^64: at most 2 s of ticks, times 2^32). */
static inline uint64_t
emlat_clock_from_anchor (const struct emlat_clock_anchor *a, uint64_t d)
{
  uint64_t ns = a->ns + ((d * a->mult) >> 32);
  return ns < a->floor ? a->floor : ns;
}

static inline uint64_t
emlat_clock_now (void)
{
  struct emlat_clock_anchor *a = &emlat_thread_line.clock;
  if (__builtin_expect (a->vdso != 0, 0))
    return emlat_clock_now_vdso ();
  uint64_t d = __builtin_ia32_rdtsc () - a->tsc;
  if (__builtin_expect (d >= a->limit, 0))
    return emlat_clock_now_slow ();
  return emlat_clock_from_anchor (a, d);
}
#else
static inline uint64_t
emlat_clock_now (void)
{
  return emlat_clock_vdso_now ();
}
#endif

/* "tsc" while reads go through the time-stamp counter, else "vdso". */
const char *emlat_clock_source (void);

/* CLOCK_THREAD_CPUTIME_ID of the calling thread (a real system call). */
static inline uint64_t
emlat_thread_cpu_ns (void)
{
  struct timespec ts;
  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME in Unix nanoseconds (session metadata only). */
uint64_t emlat_realtime_ns (void);

#endif /* EMLAT_CLOCK_H */
