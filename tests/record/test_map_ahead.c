/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_map_ahead.c -- the writer maps a ring's first lap ahead of its
 * producer (docs/DESIGN.md section 14, src/record/ring.h): the producer
 * does not take the page faults of its ring, and the pages mapped ahead
 * stay within a step of what it used.
 *
 *  - A session with the default ring: the main thread claims ring 0, which
 *    the writer mapped at its start; it then writes 2 MiB of records (512
 *    pages) as 1,366 "keys" of 48 one-slot records each, 150 us apart.  The
 *    thread's own minor faults (RUSAGE_THREAD) over those keys must be at
 *    least 7/8 of a fault per page fewer than over the same keys in a
 *    session with EMLAT_OPT_NO_MAP_AHEAD (there each page is one fault,
 *    and no wake is made to map ahead; relative, so that the faults of a
 *    sanitiser's shadow memory cancel); the ring file's resident pages
 *    (mincore) must cover what
 *    was written and exceed it by at most EMLAT_RING_AHEAD slots and a
 *    page; the profile must hold every record, with stats.ahead_wakes
 *    present and at most one per quarter step.
 *  - A ring smaller than EMLAT_RING_AHEAD_MIN_SLOTS is never mapped ahead
 *    and its producer never rings for it (stats.ahead_wakes 0).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "record/ring.h"
#include "record/state.h"
#include "tap.h"
#include "testutil.h"

#define KEY_PAIRS 24 /* begin + end: 48 one-slot records per key */

static uint64_t
thread_minflt (void)
{
  struct rusage ru;
  getrusage (RUSAGE_THREAD, &ru);
  return (uint64_t)ru.ru_minflt;
}

static void
one_key (void)
{
  for (int i = 0; i < KEY_PAIRS; i++)
    emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
}

static void
sleep_us (long us)
{
  struct timespec ts = { 0, us * 1000 };
  nanosleep (&ts, 0);
}

/* Resident pages of [P, P + LEN) (page-aligned). */
static uint64_t
resident_pages (void *p, size_t len)
{
  size_t page = (size_t)sysconf (_SC_PAGESIZE);
  size_t n = (len + page - 1) / page;
  unsigned char *v = malloc (n);
  if (!v || mincore (p, len, v) != 0)
    {
      free (v);
      return UINT64_MAX;
    }
  uint64_t r = 0;
  for (size_t i = 0; i < n; i++)
    r += v[i] & 1;
  free (v);
  return r;
}

static const struct emlat_kv *
stat_of (struct emlat_profile *p, const char *key)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_stats (p, &n);
  return emlat_kv_find (kv, n, key);
}

static struct emlat_profile *
load (const char *path)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, 0, &p));
  return p;
}

/* Stop a session whose ring 0 must never have been mapped ahead, and
   check that its profile counts no wake for it (WHY says which case);
   frees PATH. */
static void
stop_unmapped (struct emlat_pool *pool, char *path, const char *why)
{
  CHECK_EQ_U64 (atomic_load_explicit (&pool->rings[0].mapped, memory_order_relaxed), 0);
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = load (path);
  if (p)
    {
      const struct emlat_kv *aw = stat_of (p, "stats.ahead_wakes");
      CHECK (aw && aw->u == 0, "%s: no wake to map ahead", why);
      emlat_profile_free (p);
    }
  unlink (path);
  free (path);
}

#define SLOTS 65536u                                 /* 2 MiB */
#define PAGES (SLOTS * EMLAT_SLOT_BYTES / 4096u)     /* 512 */
#define KEYS ((SLOTS + 2 * KEY_PAIRS - 1) / (2 * KEY_PAIRS))

/* KEYS keys 150 us apart; the minor faults this thread took meanwhile. */
static uint64_t
type_keys (void)
{
  uint64_t f0 = thread_minflt ();
  for (unsigned k = 0; k < KEYS; k++)
    {
      one_key ();
      sleep_us (150);
    }
  return thread_minflt () - f0;
}

/* The faults of the same keys in a session with EMLAT_OPT_NO_MAP_AHEAD,
   whose ring is never mapped ahead and whose producer never rings for
   it. */
static uint64_t
unmapped_faults (const char *dir)
{
  char *path = tu_strf ("%s/off.emlat", dir);
  struct emlat_options o = { .path = path, .flags = EMLAT_OPT_NO_MAP_AHEAD };
  CHECK_OK (emlat_start (&o));
  struct emlat_pool *pool = atomic_load_explicit (&emlat_g_pool, memory_order_acquire);
  sleep_us (20000);
  uint64_t faults = type_keys ();
  stop_unmapped (pool, path, "EMLAT_OPT_NO_MAP_AHEAD");
  return faults;
}

static void
test_default_ring (const char *dir)
{
  /* The same keys without mapping ahead first, in a session of their own. */
  uint64_t faults_off = unmapped_faults (dir);
  char *path = tu_strf ("%s/ahead.emlat", dir);
  struct emlat_options o = { .path = path };
  CHECK_OK (emlat_start (&o));
  /* Acquire: the session published its pool before returning. */
  struct emlat_pool *pool = atomic_load_explicit (&emlat_g_pool, memory_order_acquire);
  struct emlat_ring *r = &pool->rings[0];
  CHECK (emlat_ring_maps_ahead (pool->nslots), "the default ring (%llu slots) is mapped ahead",
         (unsigned long long)pool->nslots);
  /* The writer maps ring 0 when it starts. */
  uint64_t t0 = tu_now_ns ();
  while (atomic_load_explicit (&r->mapped, memory_order_relaxed) < EMLAT_RING_AHEAD
         && tu_now_ns () - t0 < 2000000000ull)
    sleep_us (1000);
  CHECK (atomic_load_explicit (&r->mapped, memory_order_relaxed) >= EMLAT_RING_AHEAD,
         "ring 0 mapped by the writer's start (%llu slots)",
         (unsigned long long)atomic_load_explicit (&r->mapped, memory_order_relaxed));

  uint64_t faults = type_keys ();
  TEST_DIAG ("%llu slots: %llu minor faults on the producer, %llu without mapping ahead",
             (unsigned long long)SLOTS, (unsigned long long)faults,
             (unsigned long long)faults_off);
  /* Relative to the same keys without mapping ahead, so that what a
     sanitiser's shadow memory adds (the same in both) cancels. */
  CHECK (faults + PAGES * 7 / 8 <= faults_off,
         "mapping ahead spared the producer %lld of %llu page faults (at least %llu)",
         (long long)faults_off - (long long)faults, (unsigned long long)PAGES,
         (unsigned long long)(PAGES * 7 / 8));

  /* Relaxed: only this thread stores head. */
  uint64_t head = atomic_load_explicit (&r->head, memory_order_relaxed);
  size_t page = (size_t)sysconf (_SC_PAGESIZE);
  uint64_t used_pages = (head * EMLAT_SLOT_BYTES + page - 1) / page;
  uint64_t res = resident_pages (r->slots, pool->nslots * EMLAT_SLOT_BYTES);
  uint64_t bound = used_pages + (EMLAT_RING_AHEAD * EMLAT_SLOT_BYTES) / page + 1;
  CHECK (res >= used_pages && res <= bound,
         "ring 0 resident: %llu pages for %llu used (at most %llu)", (unsigned long long)res,
         (unsigned long long)used_pages, (unsigned long long)bound);

  uint64_t records = head;
  CHECK_OK (emlat_stop ());
  struct emlat_profile *p = load (path);
  if (p)
    {
      const struct emlat_kv *aw = stat_of (p, "stats.ahead_wakes");
      const struct emlat_kv *rw = stat_of (p, "stats.records_written");
      const struct emlat_kv *rd = stat_of (p, "stats.records_dropped");
      CHECK (aw != NULL, "stats.ahead_wakes present");
      TEST_DIAG ("stats.ahead_wakes %llu", aw ? (unsigned long long)aw->u : 0ull);
      CHECK (aw && aw->u <= records / (EMLAT_RING_AHEAD / 4) + 1,
             "at most a wake per quarter step (%llu for %llu slots)",
             aw ? (unsigned long long)aw->u : 0ull, (unsigned long long)records);
      CHECK (rw && rw->u == records, "every record written (%llu of %llu)",
             rw ? (unsigned long long)rw->u : 0ull, (unsigned long long)records);
      CHECK (rd && rd->u == 0, "none dropped");
      emlat_profile_free (p);
    }
  unlink (path);
  free (path);
}

static void
test_small_ring (const char *dir)
{
  char *path = tu_strf ("%s/small.emlat", dir);
  uint32_t n = EMLAT_RING_AHEAD_MIN_SLOTS / 2;
  struct emlat_options o = { .path = path, .ring_slots = n };
  CHECK_OK (emlat_start (&o));
  struct emlat_pool *pool = atomic_load_explicit (&emlat_g_pool, memory_order_acquire);
  for (uint64_t k = 0; k < 4u * n / (2 * KEY_PAIRS); k++)
    {
      one_key ();
      if (k % 16 == 0)
        sleep_us (200);
    }
  stop_unmapped (pool, path, "a ring under EMLAT_RING_AHEAD_MIN_SLOTS");
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  test_default_ring (dir);
  test_small_ring (dir);
  TEST_DONE ();
}
