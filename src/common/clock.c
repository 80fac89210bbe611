/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock.c -- choice and calibration of the profiler clock (see clock.h).
 *
 * Invariant: emlat_clock_id never changes after emlat_clock_init() returned
 * once; before that it is CLOCK_MONOTONIC, so a read before init is still
 * monotonic (and init runs before the first session anyway).
 */
#include "common/clock.h"

#include <pthread.h>
#include <stdlib.h>

clockid_t emlat_clock_id = CLOCK_MONOTONIC;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;
static uint64_t clock_res_ns;
static uint64_t clock_cost_ns;

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
  if (clock_getres (emlat_clock_id, &ts) == 0)
    clock_res_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  /* 9 x 32 reads: the median is steady to a nanosecond or two, and the
     calibration costs a few microseconds of every session start, not the
     200 of 9 x 1000 reads. */
  enum { RUNS = 9, READS = 32 };
  uint64_t per[RUNS];
  for (int r = 0; r < RUNS; r++)
    {
      uint64_t t0 = emlat_clock_now (), t1 = t0;
      for (int i = 0; i < READS; i++)
        t1 = emlat_clock_now ();
      per[r] = (t1 - t0) / READS;
    }
  qsort (per, RUNS, sizeof per[0], cmp_u64);
  clock_cost_ns = per[RUNS / 2];
}

void
emlat_clock_init (void)
{
  pthread_once (&clock_once, clock_init_once);
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
