/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * registry.c -- the pool of per-thread rings: allocation at session start
 * (in the ring file, ringfile.h), claim on a thread's first record, release
 * at thread exit (DESIGN.md section 14: no registry lock, a claim is a
 * compare-and-swap); the out-of-line part of a producer's room check, and
 * the writer's doorbell.
 *
 * Ring states (ring.h) and who moves them:
 *   FREE -> CLAIMING   claiming producer, CAS (acq_rel)
 *   CLAIMING -> OWNED  claiming producer, RELEASE store after initialising
 *                      head/tail/drop counters/thread id, so the writer,
 *                      which ACQUIRE-loads state, sees an initialised ring
 *   OWNED -> RETIRING  the owner's thread-exit destructor, RELEASE store
 *                      after its last record was published
 *   RETIRING -> FREE   the writer, RELEASE store once the ring is drained,
 *                      its drops are reported and the checkpoint that says
 *                      so is written (writer.c); while few rings are free,
 *                      the exiting thread waits for this (bounded)
 * A thread whose session ended keeps a stale TLS pointer; the generation
 * check in emlat_my_ring() keeps it from using it.
 */
#include "record/state.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "record/ringfile.h"

/* In .data, not .bss: every record reads it, and in a shared library
   .data is the page of the library's other initialised hot words
   (libemlat-tty.so's tty_hot), which a record touches anyway; .bss is a
   page of its own (docs/PERFORMANCE.md, "nano's calls priced"). */
_Atomic uint64_t emlat_g_active_gen __attribute__ ((section (".data.emlat_g_active_gen")));
struct emlat_pool *_Atomic emlat_g_pool;
_Atomic uint64_t emlat_g_next_span_block;
struct emlat_shared_counters *_Atomic emlat_g_shared;

__thread uint64_t emlat_tls_cause __attribute__ ((tls_model ("initial-exec")));

static pthread_key_t exit_key;
/* Every pool ever created, newest first (see state.h: pools are never
   unmapped).  Written under session.c's control mutex. */
static struct emlat_pool *all_pools;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

/* While few rings are free, wait until the writer has drained and freed R
   (or EMLAT_EXIT_WAIT_NS passed, or the session stopped): threads that
   exit faster than the writer is scheduled are slowed at their exit -- a
   syscall here, never in a producer call -- instead of their successors
   finding no ring and losing their records (no_ring). */
static void
wait_if_rings_low (struct emlat_pool *pool, struct emlat_ring *r)
{
  struct emlat_shared_counters *c = pool->shared;
  /* Relaxed: a count that only decides whether to wait. */
  if (atomic_load_explicit (&c->free_rings, memory_order_relaxed) >= pool->nrings / 4)
    return;
  uint64_t deadline = emlat_clock_now () + EMLAT_EXIT_WAIT_NS;
  /* Seq_cst (see state.h): the writer that frees R after our read of its
     state below sees this count and wakes us. */
  atomic_fetch_add (&c->exit_waiters, 1);
  for (;;)
    {
      uint32_t seq = atomic_load (&c->freed_seq);
      /* Relaxed is enough for the generation: a stopped session ends the
         wait at the next wake-up or timeout anyway. */
      if (atomic_load (&r->state) != EMLAT_RING_RETIRING
          || atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed) == 0)
        break;
      uint64_t now = emlat_clock_now ();
      if (now >= deadline)
        break;
      uint64_t left = deadline - now;
      struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
      syscall (SYS_futex, &c->freed_seq, FUTEX_WAIT | pool->futex_private, seq, &ts, 0, 0);
    }
  atomic_fetch_sub (&c->exit_waiters, 1);
}

/* Thread-exit destructor: hand the ring to the writer for the final drain. */
static void
ring_thread_exit (void *p)
{
  struct emlat_ring *r = p;
  /* A record made later in this thread's exit (another key's destructor)
     must not use the ring after the writer may have freed it: forget it,
     so such a record claims a fresh ring (and re-registers this
     destructor, which glibc then runs again). */
  emlat_thread_line.ring = 0;
  emlat_thread_line.gen = EMLAT_GEN_NONE;
  int owned = EMLAT_RING_OWNED;
  /* Release: every record this thread published happens-before the writer
     sees RETIRING.  A CAS, because a ring of an old pool may have been
     reset in between; then the store is simply not done. */
  if (!atomic_compare_exchange_strong_explicit (&r->state, &owned, EMLAT_RING_RETIRING,
                                                memory_order_release, memory_order_relaxed))
    return;
  /* The writer drains and frees the ring now, not at its next pass, so
     that threads that come and go find free rings. */
  emlat_doorbell_ring ();
  /* Acquire: the pool of the active session is published before its
     generation. */
  struct emlat_pool *pool = atomic_load_explicit (&emlat_g_pool, memory_order_acquire);
  if (pool && r >= pool->rings && r < pool->rings + pool->nrings)
    wait_if_rings_low (pool, r);
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
emlat_pool_create (uint32_t nrings, uint64_t nslots, struct emlat_ringfile *rf)
{
  struct emlat_pool *p = calloc (1, sizeof *p);
  if (!p)
    return 0;
  p->nrings = nrings;
  p->nslots = nslots;
  p->slab_bytes = (size_t)nrings * nslots * sizeof (struct emlat_slot);
  if (rf && rf->map)
    {
      /* The ring file's blocks and slots (zero after ftruncate: FREE). */
      p->file_backed = 1;
      p->rings = emlat_rf_ring (rf, 0);
      p->slab = emlat_rf_slots (rf, 0);
      p->shared = &rf->h->shared;
    }
  else
    {
      p->shared = calloc (1, sizeof *p->shared);
      if (!p->shared
          || posix_memalign ((void **)&p->rings, 64, nrings * sizeof *p->rings) != 0)
        {
          free (p->shared);
          free (p);
          return 0;
        }
      memset (p->rings, 0, nrings * sizeof *p->rings);
      /* Lazily backed: only the slots a thread actually uses become
         resident. */
      void *m = mmap (0, p->slab_bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED)
        {
          free (p->rings);
          free (p->shared);
          free (p);
          return 0;
        }
      p->slab = m;
    }
  /* The ring blocks are zero (FREE, ring.h) in a new ring file or after
     the memset above; a claim fills in the rest, so that a session
     touches the pages of the rings its threads use, not of all of them. */
  p->futex_private = p->file_backed ? 0 : FUTEX_PRIVATE_FLAG;
  /* Relaxed: not yet published (the session's release of the pool). */
  atomic_store_explicit (&p->shared->free_rings, nrings, memory_order_relaxed);
  p->older = all_pools;
  all_pools = p;
  return p;
}

int
emlat_doorbell_ring (void)
{
  /* Acquire: the pool (and its shared words) was published before the
     generation that let the ringer record; a ringer without a pool has
     nobody to ring. */
  struct emlat_pool *pool = atomic_load_explicit (&emlat_g_pool, memory_order_acquire);
  return pool ? emlat_pool_doorbell_ring (pool) : 0;
}

int
emlat_pool_doorbell_ring (struct emlat_pool *pool)
{
  struct emlat_shared_counters *c = pool->shared;
  /* Seq_cst, as the sleepers' count below and in emlat_doorbell_wait (a
     store-load pattern on both sides): either this load sees the writer
     counted as a sleeper and wakes it, or the writer's futex wait, which
     compares the doorbell after counting itself, sees the new value and
     does not sleep.  The increment is also a release for whatever the
     ringer published before (ring slots, a request flag): the writer
     acquire-loads the doorbell before it looks.  The same holds between
     processes: the words are in a shared mapping. */
  atomic_fetch_add (&c->doorbell, 1);
  if (atomic_load (&c->doorbell_sleepers) == 0)
    return 0; /* the writer is awake and will look again before sleeping */
  syscall (SYS_futex, &c->doorbell, FUTEX_WAKE | pool->futex_private, 1, 0, 0, 0);
  return 1;
}

void
emlat_doorbell_wait (struct emlat_pool *pool, uint32_t seen, uint64_t timeout_ns)
{
  struct emlat_shared_counters *c = pool->shared;
  struct timespec ts = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
  /* Seq_cst: see emlat_doorbell_ring. */
  atomic_fetch_add (&c->doorbell_sleepers, 1);
  syscall (SYS_futex, &c->doorbell, FUTEX_WAIT | pool->futex_private, seen,
           timeout_ns ? &ts : 0, 0, 0);
  /* Relaxed: a ringer that still sees the count only makes a spare
     wake-up system call. */
  atomic_fetch_sub_explicit (&c->doorbell_sleepers, 1, memory_order_relaxed);
}

uint32_t
emlat_pool_used (const struct emlat_pool *pool)
{
  /* Acquire: pairs with the claimers' release of the bound. */
  uint32_t used = atomic_load_explicit (&pool->shared->used, memory_order_acquire);
  return used < pool->nrings ? used : pool->nrings;
}

static void
count_noring (struct emlat_shared_counters *c, unsigned n)
{
  /* Relaxed: counters; the writer reports them at its next pass. */
  uint64_t t = emlat_clock_now ();
  uint64_t prev = atomic_fetch_add_explicit (&c->noring_records, 1, memory_order_relaxed);
  if (prev == 0)
    atomic_store_explicit (&c->noring_first_t, t, memory_order_relaxed);
  atomic_store_explicit (&c->noring_last_t, t, memory_order_relaxed);
  atomic_fetch_add_explicit (&c->noring_bytes, (uint64_t)n * EMLAT_SLOT_BYTES,
                             memory_order_relaxed);
}

static uint64_t ahead_limit (struct emlat_ring *r, uint64_t h, unsigned n, uint64_t limit);

static struct emlat_ring *ring_claim (unsigned n);

/* errno is kept (state.h: a producer call never changes it). */
struct emlat_ring *
emlat_ring_claim_slow (unsigned n)
{
  int saved = errno;
  struct emlat_ring *r = ring_claim (n);
  errno = saved;
  return r;
}

static struct emlat_ring *
ring_claim (unsigned n)
{
  /* Acquire: pairs with the release store in session start, so the pool
     and id counters it published are visible. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_acquire);
  if (gen == 0)
    return 0;
  if (emlat_thread_line.gen == gen)
    return emlat_thread_line.ring; /* a session started between the two loads */
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
      /* Relaxed: a count (state.h). */
      atomic_fetch_sub_explicit (&p->shared->free_rings, 1, memory_order_relaxed);
      /* Plain stores: published by the release store of OWNED below (the
         same values for every owner of the ring). */
      r->slots = p->slab + (size_t)i * p->nslots;
      r->nslots = p->nslots;
      r->mask = p->nslots - 1;
      /* head, tail and the drop counters are not reset: they count on
         across the ring's owners of the session, so that emlat_status can
         sum them at any time (session.c); a new pool's rings start at 0
         (zeroed at pool creation).  A FREE ring was drained to its head
         (the writer frees it only then), so head == tail here.  Acquire:
         the writer's release of tail (and of FREE) covers it. */
      uint64_t t0 = atomic_load_explicit (&r->tail, memory_order_acquire);
      r->cached_tail = t0;
      /* The high-water mark of an empty ring, or before it the first look
         at the pages mapped ahead (the frontier, `mapped`, stays: it
         counts on across owners as head does). */
      r->limit = ahead_limit (r, t0, 0, t0 + emlat_ring_mark (r->nslots));
      /* Relaxed: per-owner counts, published by the release of OWNED. */
      atomic_store_explicit (&r->hw_wakes, 0, memory_order_relaxed);
      atomic_store_explicit (&r->ahead_wakes, 0, memory_order_relaxed);
      r->next_span_id = 0;
      r->span_id_end = 0;
      r->thread_id = atomic_fetch_add_explicit (&p->shared->next_thread, 1, memory_order_relaxed);
      /* Release: the initialisation above is visible to the writer's
         acquire load of state. */
      atomic_store_explicit (&r->state, EMLAT_RING_OWNED, memory_order_release);
      /* Make sure the writer scans this ring: raise the used bound
         (release; the writer acquires it before loading states). */
      uint32_t used = atomic_load_explicit (&p->shared->used, memory_order_relaxed);
      while (used < i + 1
             && !atomic_compare_exchange_weak_explicit (&p->shared->used, &used, i + 1,
                                                        memory_order_release,
                                                        memory_order_relaxed))
        ;
      emlat_thread_line.ring = r;
      emlat_thread_line.gen = gen;
      emlat_tls_cause = 0;
      pthread_setspecific (exit_key, r);
      return r;
    }
  count_noring (p->shared, n);
  return 0;
}

void
emlat_rings_freed (struct emlat_pool *pool, uint32_t n)
{
  /* Relaxed: a count (state.h). */
  struct emlat_shared_counters *c = pool->shared;
  atomic_fetch_add_explicit (&c->free_rings, n, memory_order_relaxed);
  /* Seq_cst: a thread waiting at its exit either sees its ring FREE or
     is counted in exit_waiters here (wait_if_rings_low). */
  atomic_fetch_add (&c->freed_seq, 1);
  if (atomic_load (&c->exit_waiters))
    syscall (SYS_futex, &c->freed_seq, FUTEX_WAKE | pool->futex_private, INT_MAX, 0, 0, 0);
}

uint64_t
emlat_rings_accepted (struct emlat_pool *p)
{
  uint32_t used = emlat_pool_used (p);
  uint64_t n = 0;
  for (uint32_t i = 0; i < used; i++)
    /* Relaxed: a count; head only grows within a session. */
    n += atomic_load_explicit (&p->rings[i].head, memory_order_relaxed);
  return n;
}

uint64_t
emlat_rings_dropped (struct emlat_pool *p)
{
  uint32_t used = emlat_pool_used (p);
  /* Relaxed: counts that only grow within a session. */
  uint64_t n = atomic_load_explicit (&p->shared->noring_records, memory_order_relaxed);
  for (uint32_t i = 0; i < used; i++)
    n += atomic_load_explicit (&p->rings[i].drop_records, memory_order_relaxed);
  return n;
}

void
emlat_count_noring (unsigned n)
{
  /* Acquire: the shared counters were published before the generation. */
  struct emlat_shared_counters *c = atomic_load_explicit (&emlat_g_shared, memory_order_acquire);
  if (c)
    count_noring (c, n);
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

static void
ring_drop (struct emlat_ring *r, unsigned n, uint64_t t)
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

/* Ring the doorbell for a ring's producer, counting the futex wake in
   *WAKES when it made one (only while the writer sleeps: the cost
   contract's one exception). */
static void
ring_doorbell (_Atomic uint64_t *wakes)
{
  if (emlat_doorbell_ring ())
    /* Relaxed: a count the writer reads for STATS; only this thread
       stores it. */
    atomic_store_explicit (wakes, atomic_load_explicit (wakes, memory_order_relaxed) + 1,
                           memory_order_relaxed);
}

/* Past the high-water mark. */
static void
wake_writer (struct emlat_ring *r)
{
  ring_doorbell (&r->hw_wakes);
}

/* The limit to use instead of LIMIT for a producer at head H reserving N
   slots, during the first lap of a ring mapped ahead (ring.h): ring the
   doorbell when the head comes within half a step of the writer's mapped
   frontier, and look again at that point, or, having rung, a quarter of a
   step later (a writer that has not mapped by then is rung again).  A
   ring the writer has not looked at yet (frontier 0) is looked at every
   half step without ringing: a thread's first records never ring. */
static uint64_t
ahead_limit (struct emlat_ring *r, uint64_t h, unsigned n, uint64_t limit)
{
  uint64_t at = h + n;
  if (!emlat_ring_maps_ahead (r->nslots) || at >= r->nslots)
    return limit;
  /* Relaxed: a hint of where this thread would take page faults. */
  uint64_t mapped = atomic_load_explicit (&r->mapped, memory_order_relaxed);
  if (mapped >= r->nslots)
    return limit;
  uint64_t next;
  if (emlat_ring_ahead_due (r->nslots, at, mapped))
    {
      ring_doorbell (&r->ahead_wakes);
      next = at + EMLAT_RING_AHEAD / 4;
    }
  else if (mapped == 0)
    next = at + EMLAT_RING_AHEAD / 2;
  else
    next = mapped - EMLAT_RING_AHEAD / 2;
  return next < limit ? next : limit;
}

static int ring_room (struct emlat_ring *r, uint64_t h, unsigned n, uint64_t t);

/* errno is kept (state.h: a producer call never changes it), across the
   doorbell's system call. */
int
emlat_ring_room (struct emlat_ring *r, uint64_t h, unsigned n, uint64_t t)
{
  int saved = errno;
  int room = ring_room (r, h, n, t);
  errno = saved;
  return room;
}

static int
ring_room (struct emlat_ring *r, uint64_t h, unsigned n, uint64_t t)
{
  /* Acquire: the writer finished reading the slots below tail. */
  uint64_t tail = atomic_load_explicit (&r->tail, memory_order_acquire);
  r->cached_tail = tail;
  uint64_t fill = h + n - tail;
  if (fill > r->nslots)
    {
      ring_drop (r, n, t);
      /* A full ring is a look past the mark too: should the writer sleep
         (a ring it missed), wake it, or the ring would stay full until
         a flush.  No system call while the writer is awake. */
      wake_writer (r);
      return 0;
    }
  uint64_t mark = emlat_ring_mark (r->nslots);
  if (fill > mark)
    {
      /* Past the high-water mark: ring the doorbell, and look at the
         tail again a mark's worth of slots later (or at the end of the
         ring).  Every look past the mark rings: a ring costs a system
         call only while the writer sleeps, and a writer that slept
         through one (it looked before this record was published: the
         ring comes before the publication) is woken by the next look,
         with the fill well past the mark, instead of never -- the
         producer would otherwise run its ring full.  Looking again
         before the end of the ring matters when the writer went to sleep
         right after a pass. */
      wake_writer (r);
      uint64_t end = tail + r->nslots;
      r->limit = ahead_limit (r, h, n, h + n + mark < end ? h + n + mark : end);
    }
  else
    {
      r->limit = ahead_limit (r, h, n, tail + mark);
    }
  return 1;
}
