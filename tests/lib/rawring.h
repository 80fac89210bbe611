/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * rawring.h -- header-only: store a ring record straight into the calling
 * thread's ring, as a broken or hostile producer could, for the tests of
 * what the writer makes of records it cannot trust
 * (tests/record/test_span_counts.c, tests/record/test_ring_records.c).
 * The thread must have a ring (one recorded call claims it).
 */
#ifndef EMLAT_TEST_RAWRING_H
#define EMLAT_TEST_RAWRING_H

#include <stdatomic.h>
#include <stdint.h>

#include "record/ring.h"
#include "record/state.h"

/* Publish NS slots whose first word is HEAD, whose next NWORDS words are
   WORDS, and whose other words are 1 + their index (4 * slot + word). */
static inline void
rawring_put (uint64_t head, unsigned ns, const uint64_t *words, unsigned nwords)
{
  struct emlat_ring *r = emlat_thread_line.ring;
  /* Relaxed: this thread is the ring's only producer. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  for (unsigned i = 0; i < ns; i++)
    {
      struct emlat_slot *s = &r->slots[(h + i) & r->mask];
      for (unsigned w = 0; w < 4; w++)
        {
          unsigned k = 4 * i + w;
          s->w[w] = k == 0 ? head : k - 1 < nwords ? words[k - 1] : 1 + k;
        }
    }
  emlat_ring_publish (r, h, ns);
}

#endif /* EMLAT_TEST_RAWRING_H */
