/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * publog.h -- header-only helpers for the tests that kill a recording
 * child and then look for what it published: the child records numbered
 * user spans (detail = 1, 2, ...) and logs, in memory shared with the
 * parent, how many it published and when, so that the parent knows which
 * ones were published 10 ms or more before a kill.  Used by
 * tests/faults/test_crash_recover.c and tests/record/test_drain.c.
 */
#ifndef EMLAT_TEST_PUBLOG_H
#define EMLAT_TEST_PUBLOG_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "emlat/emlat.h"

struct publog
{
  _Atomic uint64_t published; /* spans whose end call returned */
  /* (time, count) every 64 spans. */
  _Atomic uint64_t hist_t[4096];
  _Atomic uint64_t hist_n[4096];
  _Atomic uint64_t nhist;
};

/* Record span N, log it, and sleep 0.2 ms every 16 spans (about 80,000
   spans a second at most). */
static inline void
publog_span (struct publog *pl, uint64_t n)
{
  uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
  emlat_span_end (s, EMLAT_SPAN_OK, n);
  /* Release: the parent that reads N knows the span's records were stored
     before. */
  atomic_store_explicit (&pl->published, n, memory_order_release);
  if (n % 64 == 0)
    {
      uint64_t k = atomic_load (&pl->nhist);
      if (k < 4096)
        {
          pl->hist_t[k] = emlat_now ();
          pl->hist_n[k] = n;
          atomic_store (&pl->nhist, k + 1);
        }
    }
  if (n % 16 == 0)
    {
      struct timespec ts = { 0, 200000 };
      nanosleep (&ts, 0);
    }
}

/* The most spans logged as published at least 10 ms before T (all of
   them when T is UINT64_MAX). */
static inline uint64_t
publog_before (const struct publog *pl, uint64_t t)
{
  uint64_t early = 0;
  for (uint64_t k = 0; k < atomic_load (&pl->nhist); k++)
    if (t == UINT64_MAX || pl->hist_t[k] + 10000000u <= t)
      early = pl->hist_n[k];
  return early;
}

#endif /* EMLAT_TEST_PUBLOG_H */
