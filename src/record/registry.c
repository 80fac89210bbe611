/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * registry.c -- the pool of per-thread rings: allocation at session start,
 * claim on a thread's first record, release at thread exit (DESIGN.md
 * section 14: no registry lock, a claim is a compare-and-swap).
 *
 * Ring states (ring.h) and who moves them:
 *   FREE -> CLAIMING   claiming producer, CAS (acq_rel)
 *   CLAIMING -> OWNED  claiming producer, RELEASE store after initialising
 *                      head/tail/drop counters/thread id, so the writer,
 *                      which ACQUIRE-loads state, sees an initialised ring
 *   OWNED -> RETIRING  the owner's thread-exit destructor, RELEASE store
 *                      after its last record was published
 *   RETIRING -> FREE   the writer, RELEASE store once the ring is drained
 *                      and its drops are reported (writer.c)
 * A thread whose session ended keeps a stale TLS pointer; the generation
 * check in emlat_my_ring() keeps it from using it.
 */
#include "record/state.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/clock.h"

_Atomic uint64_t emlat_g_active_gen;
struct emlat_pool *_Atomic emlat_g_pool;
_Atomic uint64_t emlat_g_next_cause;
_Atomic uint64_t emlat_g_next_span_block;
_Atomic uint64_t emlat_g_next_batch;
_Atomic uint64_t emlat_g_next_thread;
_Atomic uint64_t emlat_g_noring_records;
_Atomic uint64_t emlat_g_noring_bytes;
_Atomic uint64_t emlat_g_noring_first_t;
_Atomic uint64_t emlat_g_noring_last_t;

__thread struct emlat_tls emlat_tls __attribute__ ((tls_model ("initial-exec")))
  = { 0, EMLAT_GEN_NONE };

static pthread_key_t exit_key;
/* Every pool ever created, newest first (see state.h: pools are never
   unmapped).  Written under session.c's control mutex. */
static struct emlat_pool *all_pools;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

/* Thread-exit destructor: hand the ring to the writer for the final drain. */
static void
ring_thread_exit (void *p)
{
  struct emlat_ring *r = p;
  /* A record made later in this thread's exit (another key's destructor)
     must not use the ring after the writer may have freed it: forget it,
     so such a record claims a fresh ring (and re-registers this
     destructor, which glibc then runs again). */
  emlat_tls.ring = 0;
  emlat_tls.gen = EMLAT_GEN_NONE;
  int owned = EMLAT_RING_OWNED;
  /* Release: every record this thread published happens-before the writer
     sees RETIRING.  A CAS, because a ring of an old pool may have been
     reset in between; then the store is simply not done. */
  atomic_compare_exchange_strong_explicit (&r->state, &owned, EMLAT_RING_RETIRING,
                                           memory_order_release, memory_order_relaxed);
}

static void
registry_init (void)
{
  pthread_key_create (&exit_key, ring_thread_exit);
}

void
emlat_registry_init_once (void)
{
  pthread_once (&registry_once, registry_init);
}

struct emlat_pool *
emlat_pool_create (uint32_t nrings, uint64_t nslots)
{
  struct emlat_pool *p = calloc (1, sizeof *p);
  if (!p)
    return 0;
  p->nrings = nrings;
  p->nslots = nslots;
  if (posix_memalign ((void **)&p->rings, 64, nrings * sizeof *p->rings) != 0)
    {
      free (p);
      return 0;
    }
  memset (p->rings, 0, nrings * sizeof *p->rings);
  p->slab_bytes = (size_t)nrings * nslots * sizeof (struct emlat_slot);
  /* Lazily backed: only the slots a thread actually uses become resident. */
  void *m = mmap (0, p->slab_bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    {
      free (p->rings);
      free (p);
      return 0;
    }
  p->slab = m;
  for (uint32_t i = 0; i < nrings; i++)
    {
      struct emlat_ring *r = &p->rings[i];
      r->slots = p->slab + (size_t)i * nslots;
      r->nslots = nslots;
      r->mask = nslots - 1;
      atomic_init (&r->state, EMLAT_RING_FREE);
    }
  p->older = all_pools;
  all_pools = p;
  return p;
}

static void
count_noring (unsigned n)
{
  uint64_t t = emlat_clock_now ();
  uint64_t prev = atomic_fetch_add_explicit (&emlat_g_noring_records, 1, memory_order_relaxed);
  if (prev == 0)
    atomic_store_explicit (&emlat_g_noring_first_t, t, memory_order_relaxed);
  atomic_store_explicit (&emlat_g_noring_last_t, t, memory_order_relaxed);
  atomic_fetch_add_explicit (&emlat_g_noring_bytes, (uint64_t)n * EMLAT_SLOT_BYTES,
                             memory_order_relaxed);
}

struct emlat_ring *
emlat_ring_claim_slow (unsigned n)
{
  /* Acquire: pairs with the release store in session start, so the pool
     and id counters it published are visible. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  if (gen == 0)
    return 0;
  if (emlat_tls.gen == gen)
    return emlat_tls.ring; /* a session started between the two loads */
  struct emlat_pool *p = atomic_load_explicit (&emlat_g_pool, memory_order_acquire);
  for (uint32_t i = 0; i < p->nrings; i++)
    {
      struct emlat_ring *r = &p->rings[i];
      int expected = EMLAT_RING_FREE;
      /* Acq_rel: acquire pairs with the writer's release of FREE (it is
         done with the ring); release is irrelevant here. */
      if (!atomic_compare_exchange_strong_explicit (&r->state, &expected, EMLAT_RING_CLAIMING,
                                                    memory_order_acq_rel, memory_order_relaxed))
        continue;
      /* Relaxed stores: published by the release store of OWNED below. */
      atomic_store_explicit (&r->head, 0, memory_order_relaxed);
      atomic_store_explicit (&r->tail, 0, memory_order_relaxed);
      r->cached_tail = 0;
      r->next_span_id = 0;
      r->span_id_end = 0;
      atomic_store_explicit (&r->drop_records, 0, memory_order_relaxed);
      atomic_store_explicit (&r->drop_bytes, 0, memory_order_relaxed);
      atomic_store_explicit (&r->drop_first_t, 0, memory_order_relaxed);
      atomic_store_explicit (&r->drop_last_t, 0, memory_order_relaxed);
      atomic_store_explicit (&r->drop_acked, 0, memory_order_relaxed);
      r->thread_id = atomic_fetch_add_explicit (&emlat_g_next_thread, 1, memory_order_relaxed);
      /* Release: the initialisation above is visible to the writer's
         acquire load of state. */
      atomic_store_explicit (&r->state, EMLAT_RING_OWNED, memory_order_release);
      /* Make sure the writer scans this ring: raise the used bound
         (release; the writer acquires it before loading states). */
      uint32_t used = atomic_load_explicit (&p->used, memory_order_relaxed);
      while (used < i + 1
             && !atomic_compare_exchange_weak_explicit (&p->used, &used, i + 1,
                                                        memory_order_release,
                                                        memory_order_relaxed))
        ;
      emlat_tls.ring = r;
      emlat_tls.gen = gen;
      pthread_setspecific (exit_key, r);
      return r;
    }
  count_noring (n);
  return 0;
}

uint64_t
emlat_span_id_refill (struct emlat_ring *r)
{
  uint64_t start = atomic_fetch_add_explicit (&emlat_g_next_span_block, EMLAT_SPAN_ID_BLOCK,
                                              memory_order_relaxed);
  r->next_span_id = start;
  r->span_id_end = start + EMLAT_SPAN_ID_BLOCK;
  return start;
}

void
emlat_ring_drop (struct emlat_ring *r, unsigned n, uint64_t t)
{
  /* Only this thread stores the drop_* fields; relaxed loads of its own
     values.  drop_acked is the writer's hint that everything so far was
     reported, so this drop starts a new LOSS interval. */
  if (t == 0)
    t = emlat_clock_now ();
  uint64_t d = atomic_load_explicit (&r->drop_records, memory_order_relaxed);
  if (d == atomic_load_explicit (&r->drop_acked, memory_order_relaxed))
    atomic_store_explicit (&r->drop_first_t, t, memory_order_relaxed);
  atomic_store_explicit (&r->drop_last_t, t, memory_order_relaxed);
  atomic_store_explicit (&r->drop_bytes,
                         atomic_load_explicit (&r->drop_bytes, memory_order_relaxed)
                           + (uint64_t)n * EMLAT_SLOT_BYTES,
                         memory_order_relaxed);
  /* Release: the writer that acquire-loads the new count sees the times
     and bytes stored above. */
  atomic_store_explicit (&r->drop_records, d + 1, memory_order_release);
}
