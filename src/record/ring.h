/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ring.h -- the per-thread single-producer/single-consumer record ring.
 *
 * Each recording thread owns one ring from a pool preallocated at session
 * start (registry.c); the writer thread (writer.c) is its only consumer.
 * A record is 1 or 2 slots of 32 bytes (ringrec.h).  Indices are free-running
 * 64-bit counters; slot i lives at slots[i & mask].  The rings live in the
 * session's ring file (ringfile.h), a shared mapping: a published record is
 * in the page cache and survives the process.
 *
 * SYNCHRONIZATION TABLE
 *
 *   field            written by          read by            ordering
 *   ---------------  ------------------  -----------------  -----------------------
 *   (head, tail and drop_records count on across the ring's owners in a
 *   session -- a claim does not reset them -- so that their sums are the
 *   session's totals; emlat_status reads them with relaxed loads.)
 *   head             producer            producer, writer   producer: relaxed store
 *                                                           after filling slots is
 *                                                           a RELEASE store; writer
 *                                                           ACQUIRE-loads it, then
 *                                                           reads the slots.
 *   tail             writer              producer, writer   writer RELEASE-stores it
 *                                                           after reading slots;
 *                                                           producer ACQUIRE-loads it
 *                                                           (only when its cached
 *                                                           copy says full) before
 *                                                           overwriting those slots.
 *   cached_tail,     producer only       producer           plain
 *   limit
 *   hw_wakes         producer            writer             relaxed: a count
 *   drop_*           producer            writer             drop_records is stored
 *                                                           with RELEASE after the
 *                                                           other drop_* fields; the
 *                                                           writer ACQUIRE-loads it.
 *   drop_acked       writer              producer           relaxed: a hint used only
 *                                                           to pick drop_first_t.
 *   state            claimer / exit /    writer, claimer    see registry.c
 *                    writer
 *   span ids         producer only       producer           plain
 *   ahead_wakes      producer            writer             relaxed: a count
 *   mapped           writer              producer, writer   relaxed: a hint of
 *                                                           where the producer
 *                                                           would fault; no
 *                                                           data depends on it.
 *
 * The producer fast path is ring_reserve + stores + ring_publish: no lock,
 * no allocation, no system call; it compares head with `limit` only.  Past
 * the limit, emlat_ring_room (out of line) re-reads the tail and either
 * finds room, wakes the writer when the fill passes the high-water mark (a
 * quarter of the ring; a futex wake, and only while the writer sleeps: the
 * named exception of the cost contract), or counts a drop
 * of a full ring (no lock, allocation or system call).  During the ring's
 * first lap it also rings when the head comes near the pages the writer
 * has mapped ahead (EMLAT_RING_AHEAD below): the same exception, for the
 * page faults it saves the producer.
 */
#ifndef EMLAT_RING_H
#define EMLAT_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include "format/format.h"
#include "record/ringrec.h"

/* The high-water mark: a producer whose ring holds more than
   nslots >> EMLAT_RING_HW_SHIFT slots rings the writer's doorbell at each
   look at the tail (emlat_ring_room), which leaves the rest of the ring
   as headroom for the time the writer takes to be scheduled.  A quarter
   was chosen by measurement (docs/DESIGN.md section 14); a build may set
   another shift to measure it. */
#ifndef EMLAT_RING_HW_SHIFT
#define EMLAT_RING_HW_SHIFT 2 /* a quarter */
#endif

static inline uint64_t
emlat_ring_mark (uint64_t nslots)
{
  return nslots >> EMLAT_RING_HW_SHIFT;
}

/* Whether the writer must drain a ring of NSLOTS slots whose published
   head is HEAD and tail TAIL: whether a producer may have rung for it.
   The producer rings while it reserves the record that would take the
   fill past the mark, before publishing it, and a record may take up to
   EMLAT_RR_MAX_SLOTS slots (an IX_FIELDS), never more than half the ring
   (producer.c): so any non-empty ring within that many slots of the mark
   is due.  tests/record/test_highwater_wake.c checks this against every
   record size and fill at which a producer rings. */
static inline int
emlat_ring_due (uint64_t nslots, uint64_t head, uint64_t tail)
{
  uint64_t fill = head - tail;
  uint64_t margin = nslots / 2 < EMLAT_RR_MAX_SLOTS ? nslots / 2 : EMLAT_RR_MAX_SLOTS;
  return fill != 0 && fill + margin > emlat_ring_mark (nslots);
}

/* Mapping ahead (docs/DESIGN.md section 14): during a ring's first lap
   the writer maps the ring's pages before its producer reaches them, so
   that the producer does not take the page faults.  It maps up to
   EMLAT_RING_AHEAD slots (128 KiB) beyond the head it last saw, and the
   producer rings the doorbell (a futex wake only while the writer sleeps,
   counted in ahead_wakes) when it comes within half of that of the mapped
   frontier.  Rings smaller than EMLAT_RING_AHEAD_MIN_SLOTS are not mapped
   ahead: their producers never ring for it. */
#ifndef EMLAT_RING_AHEAD
#define EMLAT_RING_AHEAD 4096u
#endif
#define EMLAT_RING_AHEAD_MIN_SLOTS (4u * EMLAT_RING_AHEAD)
_Static_assert (EMLAT_RING_AHEAD % 128u == 0, "a whole number of 4 KiB pages of slots");

static inline int
emlat_ring_maps_ahead (uint64_t nslots)
{
  return nslots >= EMLAT_RING_AHEAD_MIN_SLOTS;
}

/* Whether the writer should map more of a ring whose writer-mapped
   frontier is MAPPED (0: not yet looked at) and published head HEAD: the
   producer rings at this point (emlat_ring_room). */
static inline int
emlat_ring_ahead_due (uint64_t nslots, uint64_t head, uint64_t mapped)
{
  return mapped != 0 && mapped < nslots && head + EMLAT_RING_AHEAD / 2 > mapped;
}

#define EMLAT_LIKELY(x) __builtin_expect (!!(x), 1)
#define EMLAT_UNLIKELY(x) __builtin_expect (!!(x), 0)

struct emlat_slot
{
  uint64_t w[4];
};
_Static_assert (sizeof (struct emlat_slot) == EMLAT_SLOT_BYTES, "slot size");

/* The life of a ring (docs/DESIGN.md; transitions and their ordering in
   registry.c). */
enum emlat_ring_state {
  EMLAT_RING_FREE = 0,     /* in the pool, no owner */
  EMLAT_RING_OWNED = 1,    /* a live thread records into it */
  EMLAT_RING_RETIRING = 2, /* owner exited; writer drains, then frees */
  EMLAT_RING_CLAIMING = 3  /* a thread won the claim and is initialising it;
                              the writer skips it until OWNED */
};

/* Counters shared by every producer of a session, living in the ring file
   (ringfile.h) so that a recovering reader sees them too.  Atomics: each
   use states its order. */
struct emlat_shared_counters
{
  /* Records of threads that found no free ring (LOSS no_ring). */
  _Atomic uint64_t noring_records, noring_bytes, noring_first_t, noring_last_t;
  /* The next thread id a claim hands out (F-5: from 1). */
  _Atomic uint64_t next_thread;
  /* The next interaction (cause) id, input batch id and output epoch
     number (F-5: from 1), here so that a writer in another process and a
     recovering reader, which run the terminal model (ttymodel.c), take
     them from the same sequences as the producers.  Relaxed fetch_add:
     uniqueness needs only atomicity. */
  _Atomic uint64_t next_cause, next_batch, next_epoch;

  /* The ring pool's coordination words (state.h, registry.c), here rather
     than in the process's memory so that a writer in another process
     (the driver of DESIGN.md section 8.7) takes part: the futex words are
     waited on and woken with shared (not process-private) futex
     operations when this structure lives in the ring file. */
  /* One past the highest ring index ever claimed: the writer scans only
     rings below it.  Raised by claimers with a CAS loop (release), read
     by the writer with acquire before it looks at those rings' state; a
     writer in another process clamps it to the ring count it mapped. */
  _Atomic uint32_t used;
  /* Rings in state FREE: claims decrement it, the writer's frees
     increment it (relaxed: a count that only steers the wait below).
     While fewer than a quarter are left, a thread that exits waits -- at
     most EMLAT_EXIT_WAIT_NS -- for the writer to drain and free its ring
     (registry.c), so that threads that come and go faster than the
     writer is scheduled are held at their exit, not left without a
     ring. */
  _Atomic uint32_t free_rings;
  /* Bumped by the writer after a pass freed rings; exiting threads that
     wait (counted in exit_waiters) sleep on it (futex).  Both seq_cst:
     the waiter's increment of exit_waiters and read of its ring's state
     against the writer's store of FREE, bump and read of exit_waiters. */
  _Atomic uint32_t freed_seq;
  _Atomic uint32_t exit_waiters;
  /* The writer's doorbell and its sleepers (state.h,
     emlat_doorbell_ring). */
  _Atomic uint32_t doorbell;
  _Atomic uint32_t doorbell_sleepers;
};

struct emlat_ring
{
  /* Producer hot line: all that every record reads or writes, so that a
     record after idle finds one line of the control block cold, not two
     (docs/PERFORMANCE.md, "The library's excess priced"). */
  _Alignas (64) _Atomic uint64_t head;
  uint64_t limit;        /* head may grow to this without a look at tail:
                            the high-water mark, or, once the writer was
                            woken, the next look at the tail: a mark's
                            worth further, at most the end of the ring
                            (emlat_ring_room) */
  uint64_t cached_tail;
  uint64_t next_span_id; /* next id of this thread's current id block */
  uint64_t span_id_end;  /* one past the block */
  /* Set at claim (and by a recovering reader for its own mapping),
     read-only while OWNED. */
  uint64_t mask; /* nslots - 1 */
  uint64_t nslots;
  struct emlat_slot *slots;

  /* Producer cold line: drops and wake-up counts. */
  _Alignas (64) _Atomic uint64_t drop_records;
  _Atomic uint64_t drop_bytes;
  _Atomic uint64_t drop_first_t;
  _Atomic uint64_t drop_last_t;
  _Atomic uint64_t ahead_wakes; /* futex wakes made for mapping ahead */
  _Atomic uint64_t hw_wakes;    /* futex wakes made at high water */

  /* Writer line. */
  _Alignas (64) _Atomic uint64_t tail;
  _Atomic uint64_t drop_acked;
  /* The ring's first lap is mapped below this slot index (counted from
     the ring's first slot, at most nslots; 0 until the writer first maps
     it): the writer's frontier (writer.c, map_ahead), kept across the
     ring's owners. */
  _Atomic uint64_t mapped;

  /* Set at claim, read-only while OWNED. */
  _Alignas (64) _Atomic int state;
  uint64_t thread_id;
};

/* Out of line (registry.c): the record of N slots at head H passed the
   ring's limit.  Re-reads the tail; returns 1 when there is room (after
   ringing the writer's doorbell when past the high-water mark: the one
   system call a producer may make, and only while the writer sleeps), 0
   after counting a drop of the full ring. */
__attribute__ ((visibility ("hidden"))) int emlat_ring_room (struct emlat_ring *r, uint64_t h,
                                                          unsigned n, uint64_t t);

/* Room for N slots at the producer's head *H (loaded here), or NULL after
   counting a drop. */
static inline struct emlat_slot *
emlat_ring_reserve (struct emlat_ring *r, unsigned n, uint64_t t, uint64_t *hp)
{
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  *hp = h;
  if (EMLAT_UNLIKELY (h + n > r->limit) && !emlat_ring_room (r, h, n, t))
    return 0;
  struct emlat_slot *s = &r->slots[h & r->mask];
  if (!s)
    __builtin_unreachable (); /* slots is never NULL; lets callers drop the check */
  return s;
}

/* The slot following S in ring order (for 2-slot records). */
static inline struct emlat_slot *
emlat_ring_next (struct emlat_ring *r, struct emlat_slot *s)
{
  return s == &r->slots[r->mask] ? &r->slots[0] : s + 1;
}

/* Make the N slots reserved at head H visible to the writer. */
static inline void
emlat_ring_publish (struct emlat_ring *r, uint64_t h, unsigned n)
{
  /* Release: publishes the slot stores above to the writer's acquire load
     of head. */
  atomic_store_explicit (&r->head, h + n, memory_order_release);
}

#endif /* EMLAT_RING_H */
