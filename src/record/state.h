/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * state.h -- process-wide recorder state shared by producer.c, registry.c,
 * writer.c and session.c.  Internal; nothing here is exported.
 *
 * The session generation (emlat_g_active_gen) is the single switch that
 * producers test: 0 means no session; a nonzero value names the session that
 * is active.  A thread's TLS remembers the generation its ring was claimed
 * in, so one relaxed load and one compare decide between the fast path, the
 * claim slow path and "inactive".
 *
 * A producer call never changes errno: its fast path makes no system call,
 * and its out-of-line paths that may (a ring's claim, the room check that
 * rings the writer's doorbell, a new clock anchor) save and restore it.
 * So a wrapper around a C library call (the terminal library, docs/TTY.md)
 * reads errno only when the call failed and never writes it back.
 */
#ifndef EMLAT_STATE_H
#define EMLAT_STATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "record/ring.h"

/* Hidden: the library's own globals are reached RIP-relative, not through
   the GOT, which keeps the producer fast path short in the shared library. */
#define EMLAT_HIDDEN __attribute__ ((visibility ("hidden")))

/* Rings and their slot memory for one session.  Never unmapped while the
   process lives (a straggling producer of an old session may still store
   into its old ring); a later session allocates a new pool. */
struct emlat_pool
{
  struct emlat_ring *rings; /* nrings, 64-byte aligned */
  uint32_t nrings;
  uint64_t nslots;
  struct emlat_slot *slab; /* nrings * nslots slots */
  size_t slab_bytes;
  int file_backed;          /* rings and slab live in the ring file */
  struct emlat_shared_counters *shared; /* in the ring file, or heap */
  struct emlat_pool *older; /* every pool stays reachable from the newest */
  /* FUTEX_PRIVATE_FLAG for rings in anonymous memory, 0 (shared futex
     operations) for rings in the ring file, whose coordination words
     (shared) a writer in another process may wait on. */
  int futex_private;
};

/* The longest a thread's exit waits for its ring to be freed. */
#define EMLAT_EXIT_WAIT_NS (250u * 1000u * 1000u)

/* Generation of the active session, 0 when none.  Stored with RELEASE by
   session start after the pool and the ids are ready, and with RELEASE 0 at
   stop; producers load it RELAXED on the fast path (a stale nonzero value
   only lets a straggler store into its still-mapped ring) and with ACQUIRE
   on the claim slow path before touching the pool. */
extern EMLAT_HIDDEN _Atomic uint64_t emlat_g_active_gen;
/* The active session's pool; published before emlat_g_active_gen. */
extern EMLAT_HIDDEN struct emlat_pool *_Atomic emlat_g_pool;

/* Identifier sources, reset at session start (F-5).  RELAXED fetch_add:
   uniqueness needs only atomicity, not ordering.  (Interaction and input
   batch ids come from the shared counters, ring.h.) */
extern EMLAT_HIDDEN _Atomic uint64_t emlat_g_next_span_block;
extern EMLAT_HIDDEN _Atomic uint64_t emlat_g_next_thread;

/* The active session's shared counters (no_ring drops, thread ids): the
   pool's, published with the pool before the generation. */
extern EMLAT_HIDDEN struct emlat_shared_counters *_Atomic emlat_g_shared;

/* The writer's doorbell: producers ring it when a ring passes its
   high-water mark, exiting threads when their ring retires, the setup
   calls for flush, rotation and stop.  A counter in the active pool's
   shared words (ring.h) the writer futex-waits on (emlat_doorbell_wait);
   ringing adds one and wakes it -- with a system call only while a writer
   sleeps (doorbell_sleepers).  Returns 1 when it made that call. */
EMLAT_HIDDEN int emlat_doorbell_ring (void);
/* Ring POOL's doorbell (emlat_doorbell_ring rings the active pool's). */
EMLAT_HIDDEN int emlat_pool_doorbell_ring (struct emlat_pool *pool);
/* Wait until POOL's doorbell differs from SEEN (a value loaded before the
   caller checked for work), or TIMEOUT_NS passed (0: no timeout).  Returns
   after a spurious wake too: the caller re-checks. */
EMLAT_HIDDEN void emlat_doorbell_wait (struct emlat_pool *pool, uint32_t seen,
                                       uint64_t timeout_ns);
/* The rings of POOL a writer must look at: the claimed bound, at most the
   pool's ring count (acquire: pairs with the claimers' release). */
EMLAT_HIDDEN uint32_t emlat_pool_used (const struct emlat_pool *pool);

#define EMLAT_SPAN_ID_BLOCK 4096

/* The next interaction (cause) id and input batch id of the active
   session, from its shared counters (ring.h); 0 before the first session.
   Acquire: the shared counters were published before the generation
   (session.c), as for emlat_count_noring; the increment itself is relaxed
   (uniqueness needs only atomicity). */
static inline uint64_t
emlat_next_cause (void)
{
  struct emlat_shared_counters *c = atomic_load_explicit (&emlat_g_shared, memory_order_acquire);
  return c ? atomic_fetch_add_explicit (&c->next_cause, 1, memory_order_relaxed) : 0;
}
static inline uint64_t
emlat_next_batch (void)
{
  struct emlat_shared_counters *c = atomic_load_explicit (&emlat_g_shared, memory_order_acquire);
  return c ? atomic_fetch_add_explicit (&c->next_batch, 1, memory_order_relaxed) : 0;
}


/* The calling thread's ring and the generation it was claimed in are
   emlat_thread_line.ring and .gen (common/clock.h), on the line of the
   thread's clock anchor.  GEN starts as EMLAT_GEN_NONE, which never
   equals an active generation (>= 1) nor "no session" (0), so one compare
   selects the fast path. */
#define EMLAT_GEN_NONE EMLAT_THREAD_GEN_NONE
/* The interaction the thread's named sections serve (app.c); reset to 0
   with every claim, so that it is of the session of
   emlat_thread_line.gen whenever that matches (cause ids restart with
   every session). */
extern EMLAT_HIDDEN __thread uint64_t emlat_tls_cause
  __attribute__ ((tls_model ("initial-exec")));

/* Claim a ring for the calling thread in the active session (registry.c).
   Returns NULL (after counting a no_ring drop of N slots) when no ring is
   left, or when no session is active. */
EMLAT_HIDDEN struct emlat_ring *emlat_ring_claim_slow (unsigned n);

/* Slots accepted into the rings of POOL and records the producers dropped
   (ring_full in each ring, no_ring in the shared counters) so far: sums of
   monotonic counters, readable at any time by any thread (relaxed loads:
   counts, possibly a few records behind a producer that is storing). */
EMLAT_HIDDEN uint64_t emlat_rings_accepted (struct emlat_pool *pool);
EMLAT_HIDDEN uint64_t emlat_rings_dropped (struct emlat_pool *pool);

/* The writer freed N rings of POOL (RETIRING -> FREE, seq_cst stores
   made before this call): count them and wake the threads waiting at
   their exit (state.h free_rings). */
EMLAT_HIDDEN void emlat_rings_freed (struct emlat_pool *pool, uint32_t n);

/* Count a record of N slots that found no ring (LOSS no_ring). */
EMLAT_HIDDEN void emlat_count_noring (unsigned n);

/* Refill the calling thread's span-id block; returns the next id. */
EMLAT_HIDDEN uint64_t emlat_span_id_refill (struct emlat_ring *r);

/* Pool lifecycle (registry.c), called by session.c under its lock.  With
   RF (a mapped ring file), the rings live in it; without, in anonymous
   memory (no crash durability). */
struct emlat_ringfile;
struct emlat_pool *emlat_pool_create (uint32_t nrings, uint64_t nslots, struct emlat_ringfile *rf);
void emlat_registry_init_once (void);

/* The calling thread's ring for the active session, or NULL when no session
   is active or no ring could be claimed.  The fast path is one TLS read, one
   relaxed load and a compare. */
static inline struct emlat_ring *
emlat_my_ring (unsigned n)
{
  /* Relaxed: see emlat_g_active_gen. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  if (EMLAT_LIKELY (gen == emlat_thread_line.gen))
    {
      struct emlat_ring *r = emlat_thread_line.ring;
      if (!r)
        __builtin_unreachable (); /* a matching generation implies a ring */
      return r;
    }
  if (gen == 0)
    return 0; /* no session */
  return emlat_ring_claim_slow (n);
}

#endif /* EMLAT_STATE_H */
