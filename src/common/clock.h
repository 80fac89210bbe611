/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.h -- the profiler-private monotonic clock (DESIGN.md section 2.1).
 *
 * One clock is chosen once per process, on first use: CLOCK_MONOTONIC_RAW
 * when clock_gettime accepts it, else CLOCK_MONOTONIC.  Neither counts
 * suspend time.  emlat_clock_now() is inline: one clock_gettime through the
 * vDSO, no system call on Linux.  Normal program timekeeping is untouched.
 */
#ifndef EMLAT_CLOCK_H
#define EMLAT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* The chosen clock id; valid after emlat_clock_init() (idempotent,
   thread-safe).  Written once under pthread_once, then only read. */
extern __attribute__ ((visibility ("hidden"))) clockid_t emlat_clock_id;

void emlat_clock_init (void);
const char *emlat_clock_name (void);
uint64_t emlat_clock_resolution_ns (void);
/* Median cost of one emlat_clock_now() in ns, measured once (short
   calibration: 9 runs of 32 reads). */
uint64_t emlat_clock_read_cost_ns (void);

static inline uint64_t
emlat_clock_now (void)
{
  struct timespec ts;
  clock_gettime (emlat_clock_id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
