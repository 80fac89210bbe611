/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peer_spsc.c -- the minimal single-producer single-consumer ring peer of
 * the peers benchmark.
 *
 * Producer (the recording thread), per event: one
 * clock_gettime(CLOCK_MONOTONIC), a fixed 24-byte record {time, value,
 * id} stored into the next slot, and a release store of the head.  It
 * reloads the consumer's tail (acquire) only when its cached copy says the
 * ring is full; a full ring drops the event and counts it (never blocks).
 * Ring: 131,072 slots, as many as emlat's default ring.
 *
 * Consumer (one thread): copies the published records out into a 64 KiB
 * buffer (2,730 records at most), releases them (release store of the
 * tail), and writes the buffer with write(2).  When the ring is empty it
 * sleeps 1 ms (polling; no doorbell).  At stop it drains what is left.
 * Its CPU is its thread CPU clock, read by itself when it exits.
 *
 * Invariants: head is written only by the producer, tail only by the
 * consumer; a slot is read by the consumer only below the head it loaded
 * with acquire, and rewritten by the producer only below the tail it
 * loaded with acquire plus the ring size.  Measured by peer_harness.h.
 */
#define PEER_NAME "spsc"
#include "peer_harness.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>

#define SPSC_SLOTS 131072u
#define SPSC_OUT_RECORDS (65536u / sizeof (struct spsc_rec))

struct spsc_rec
{
  uint64_t t, value;
  uint32_t id, pad;
};

static struct spsc_rec *spsc_ring;
static _Atomic uint64_t spsc_head; /* producer's; release after a slot */
static _Atomic uint64_t spsc_tail; /* consumer's; release after copy-out */
static _Atomic int spsc_stop;      /* release by the producer's thread after
                                      its last head store */
static uint64_t spsc_cached_tail, spsc_dropped; /* producer-private */
static uint64_t spsc_consumer_cpu;              /* consumer's, read after join */
static int spsc_fd, spsc_write_failed;
static pthread_t spsc_thread;
static char spsc_path[4200];
static unsigned spsc_sessions;

static inline uint64_t
rec_clock (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void
spsc_event (uint32_t id, uint64_t value)
{
  uint64_t t = rec_clock ();
  /* Relaxed: the head is this thread's own variable. */
  uint64_t h = atomic_load_explicit (&spsc_head, memory_order_relaxed);
  if (h - spsc_cached_tail >= SPSC_SLOTS)
    {
      /* Acquire: the consumer's copy-out of the slots below tail happened
         before we overwrite them. */
      spsc_cached_tail = atomic_load_explicit (&spsc_tail, memory_order_acquire);
      if (h - spsc_cached_tail >= SPSC_SLOTS)
        {
          spsc_dropped++;
          return;
        }
    }
  struct spsc_rec *r = &spsc_ring[h & (SPSC_SLOTS - 1)];
  r->t = t;
  r->value = value;
  r->id = id;
  /* Release: the slot's contents are visible before the new head. */
  atomic_store_explicit (&spsc_head, h + 1, memory_order_release);
}

static inline void
rec_pair (uint64_t value)
{
  spsc_event (1, value);
  spsc_event (2, value);
}

static void *
spsc_consumer (void *arg)
{
  (void)arg;
  static struct spsc_rec out[SPSC_OUT_RECORDS];
  uint64_t tail = atomic_load_explicit (&spsc_tail, memory_order_relaxed);
  for (;;)
    {
      /* Acquire: the slots below head are fully written. */
      uint64_t head = atomic_load_explicit (&spsc_head, memory_order_acquire);
      if (head == tail)
        {
          /* Acquire: pairs with the release of stop, which follows the
             producer's last head store; re-read the head after it. */
          if (atomic_load_explicit (&spsc_stop, memory_order_acquire)
              && atomic_load_explicit (&spsc_head, memory_order_acquire) == tail)
            break;
          sleep_ns (1000000);
          continue;
        }
      uint64_t n = head - tail;
      if (n > SPSC_OUT_RECORDS)
        n = SPSC_OUT_RECORDS;
      for (uint64_t i = 0; i < n; i++)
        out[i] = spsc_ring[(tail + i) & (SPSC_SLOTS - 1)];
      tail += n;
      /* Release: our copy-out happened before the producer reuses them. */
      atomic_store_explicit (&spsc_tail, tail, memory_order_release);
      size_t len = (size_t)n * sizeof out[0];
      if (write (spsc_fd, out, len) != (ssize_t)len)
        spsc_write_failed = 1;
    }
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  spsc_consumer_cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return NULL;
}

static int
rec_open (const char *dir)
{
  snprintf (spsc_path, sizeof spsc_path, "%s/spsc-%u.bin", dir, spsc_sessions++);
  spsc_fd = open (spsc_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (spsc_fd < 0)
    {
      fprintf (stderr, "peer_spsc: %s: %s\n", spsc_path, strerror (errno));
      return -1;
    }
  spsc_ring = calloc (SPSC_SLOTS, sizeof *spsc_ring);
  if (!spsc_ring)
    {
      close (spsc_fd);
      return -1;
    }
  atomic_store_explicit (&spsc_head, 0, memory_order_relaxed);
  atomic_store_explicit (&spsc_tail, 0, memory_order_relaxed);
  atomic_store_explicit (&spsc_stop, 0, memory_order_relaxed);
  spsc_cached_tail = spsc_dropped = 0;
  spsc_write_failed = 0;
  /* pthread_create orders the stores above before the consumer starts. */
  if (pthread_create (&spsc_thread, NULL, spsc_consumer, NULL) != 0)
    {
      free (spsc_ring);
      close (spsc_fd);
      return -1;
    }
  return 0;
}

static int
rec_close (struct rec_result *r)
{
  /* Release: every head store of this thread precedes the stop flag. */
  atomic_store_explicit (&spsc_stop, 1, memory_order_release);
  pthread_join (spsc_thread, NULL);
  close (spsc_fd);
  free (spsc_ring);
  *r = (struct rec_result){ .lost = spsc_dropped,
                            .bytes = file_bytes (spsc_path),
                            .consumer_cpu_ns = spsc_consumer_cpu,
                            .has_consumer = 1 };
  if (rec_verify)
    {
      r->on_disk = r->bytes / sizeof (struct spsc_rec);
      r->has_on_disk = r->bytes % sizeof (struct spsc_rec) == 0;
    }
  unlink (spsc_path);
  if (spsc_write_failed)
    fprintf (stderr, "peer_spsc: a write failed\n");
  return spsc_write_failed ? -1 : 0;
}
