/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peer_batch.c -- the classic batched text tracer of the peers benchmark:
 * per-thread text buffers under a lock, handed to a writer thread.
 *
 * Producer, per event: one clock_gettime(CLOCK_MONOTONIC); then, under
 * its thread buffer's mutex, one snprintf of "NANOSECONDS ID VALUE\n"
 * into the thread's current 64 KiB buffer.  When the buffer has less than
 * a line's room left it is handed off under the queue's mutex (pushed on
 * the full queue, the writer signalled on a condition variable) and a
 * free buffer taken in exchange.  With no free buffer the producer has
 * none and drops (and counts) its events until one is free again: it
 * never blocks on the writer.  Pool: 32 buffers of 64 KiB (2 MiB, like
 * emlat's default ring).
 *
 * Writer (one thread): waits on the condition variable, writes each full
 * buffer with write(2) and returns it to the free list.  Every 100 ms
 * without a full buffer, and at stop, it also takes each thread's partial
 * buffer under that buffer's mutex (which is why the producer locks it).
 * Its CPU is its thread CPU clock, read by itself when it exits.
 *
 * Lock order: a thread buffer's mutex, then the queue's.  The writer never
 * holds the queue's mutex while taking a buffer's.  Measured by
 * peer_harness.h.
 */
#define PEER_NAME "batch"
#include "peer_harness.h"

#include <fcntl.h>
#include <pthread.h>

#define BATCH_BUF 65536u
#define BATCH_POOL 32
#define BATCH_LINE_MAX 64 /* 20 + 1 + 10 + 1 + 20 + 1 bytes at most */

struct tbuf
{
  pthread_mutex_t lock; /* this buffer's: the producer, the writer's flush */
  char *cur;            /* NULL: none free, events are dropped */
  size_t used;
  uint64_t dropped;
  struct tbuf *next;
};

static struct
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  char *full[BATCH_POOL];
  size_t full_len[BATCH_POOL];
  int nfull;
  char *free[BATCH_POOL];
  int nfree;
  int stop;
  struct tbuf *threads; /* every thread buffer of the session */
} bq = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static char *batch_mem;
static unsigned batch_session; /* bumped per session: thread buffers are
                                  claimed again */
static __thread struct tbuf *batch_tb;
static __thread unsigned batch_tb_session;
static pthread_t batch_thread;
static uint64_t batch_writer_cpu;
static int batch_fd, batch_write_failed;
static char batch_path[4200];

static inline uint64_t
rec_clock (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A free buffer, or NULL.  Caller holds bq.lock. */
static char *
take_free_locked (void)
{
  return bq.nfree ? bq.free[--bq.nfree] : NULL;
}

/* Queue B's current buffer (caller holds B's lock) and take a free one. */
static void
hand_off (struct tbuf *b)
{
  pthread_mutex_lock (&bq.lock);
  if (b->cur && b->used)
    {
      bq.full[bq.nfull] = b->cur;
      bq.full_len[bq.nfull++] = b->used;
      b->cur = NULL;
      pthread_cond_signal (&bq.cond);
    }
  if (!b->cur)
    b->cur = take_free_locked ();
  b->used = 0;
  pthread_mutex_unlock (&bq.lock);
}

__attribute__ ((noinline)) static struct tbuf *
claim_thread_buffer (void)
{
  struct tbuf *b = calloc (1, sizeof *b);
  if (!b)
    abort ();
  pthread_mutex_init (&b->lock, NULL);
  pthread_mutex_lock (&bq.lock);
  b->cur = take_free_locked ();
  b->next = bq.threads;
  bq.threads = b;
  pthread_mutex_unlock (&bq.lock);
  batch_tb = b;
  batch_tb_session = batch_session;
  return b;
}

static inline void
batch_event (uint32_t id, uint64_t value)
{
  struct tbuf *b = batch_tb_session == batch_session ? batch_tb
                                                     : claim_thread_buffer ();
  uint64_t t = rec_clock ();
  pthread_mutex_lock (&b->lock);
  if (__builtin_expect (!b->cur, 0))
    {
      hand_off (b);
      if (!b->cur)
        {
          b->dropped++;
          pthread_mutex_unlock (&b->lock);
          return;
        }
    }
  b->used += (size_t)snprintf (b->cur + b->used, BATCH_BUF - b->used,
                               "%" PRIu64 " %" PRIu32 " %" PRIu64 "\n", t, id,
                               value);
  if (BATCH_BUF - b->used < BATCH_LINE_MAX)
    hand_off (b);
  pthread_mutex_unlock (&b->lock);
}

static inline void
rec_pair (uint64_t value)
{
  batch_event (1, value);
  batch_event (2, value);
}

/* The writer's timed flush: every thread's partial buffer to the queue. */
static void
flush_partials (void)
{
  pthread_mutex_lock (&bq.lock);
  struct tbuf *list = bq.threads;
  pthread_mutex_unlock (&bq.lock);
  for (struct tbuf *b = list; b; b = b->next)
    {
      pthread_mutex_lock (&b->lock);
      if (b->cur && b->used)
        hand_off (b);
      pthread_mutex_unlock (&b->lock);
    }
}

static void *
batch_writer (void *arg)
{
  (void)arg;
  int final_flush = 0;
  pthread_mutex_lock (&bq.lock);
  for (;;)
    {
      while (bq.nfull)
        {
          char *buf = bq.full[0];
          size_t len = bq.full_len[0];
          bq.nfull--;
          memmove (bq.full, bq.full + 1, (size_t)bq.nfull * sizeof bq.full[0]);
          memmove (bq.full_len, bq.full_len + 1,
                   (size_t)bq.nfull * sizeof bq.full_len[0]);
          pthread_mutex_unlock (&bq.lock);
          if (write (batch_fd, buf, len) != (ssize_t)len)
            batch_write_failed = 1;
          pthread_mutex_lock (&bq.lock);
          bq.free[bq.nfree++] = buf;
        }
      if (bq.stop && final_flush)
        break;
      if (bq.stop)
        {
          /* The producers are done: their partial buffers go out last. */
          final_flush = 1;
          pthread_mutex_unlock (&bq.lock);
          flush_partials ();
          pthread_mutex_lock (&bq.lock);
          continue;
        }
      struct timespec until;
      clock_gettime (CLOCK_REALTIME, &until);
      until.tv_nsec += 100000000;
      if (until.tv_nsec >= 1000000000)
        {
          until.tv_sec++;
          until.tv_nsec -= 1000000000;
        }
      if (pthread_cond_timedwait (&bq.cond, &bq.lock, &until) == ETIMEDOUT
          && !bq.nfull && !bq.stop)
        {
          pthread_mutex_unlock (&bq.lock);
          flush_partials ();
          pthread_mutex_lock (&bq.lock);
        }
    }
  pthread_mutex_unlock (&bq.lock);
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  batch_writer_cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  return NULL;
}

static int
rec_open (const char *dir)
{
  snprintf (batch_path, sizeof batch_path, "%s/batch-%u.txt", dir,
            batch_session);
  batch_fd = open (batch_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (batch_fd < 0)
    {
      fprintf (stderr, "peer_batch: %s: %s\n", batch_path, strerror (errno));
      return -1;
    }
  batch_mem = malloc ((size_t)BATCH_BUF * BATCH_POOL);
  if (!batch_mem)
    {
      close (batch_fd);
      return -1;
    }
  batch_session++;
  bq.nfull = 0;
  bq.nfree = BATCH_POOL;
  for (int i = 0; i < BATCH_POOL; i++)
    bq.free[i] = batch_mem + (size_t)i * BATCH_BUF;
  bq.stop = 0;
  bq.threads = NULL;
  batch_write_failed = 0;
  if (pthread_create (&batch_thread, NULL, batch_writer, NULL) != 0)
    {
      free (batch_mem);
      close (batch_fd);
      return -1;
    }
  return 0;
}

static int
rec_close (struct rec_result *r)
{
  pthread_mutex_lock (&bq.lock);
  bq.stop = 1;
  pthread_cond_signal (&bq.cond);
  pthread_mutex_unlock (&bq.lock);
  pthread_join (batch_thread, NULL);
  uint64_t dropped = 0;
  for (struct tbuf *b = bq.threads, *next; b; b = next)
    {
      next = b->next;
      dropped += b->dropped;
      pthread_mutex_destroy (&b->lock);
      free (b);
    }
  bq.threads = NULL;
  close (batch_fd);
  free (batch_mem);
  *r = (struct rec_result){ .lost = dropped,
                            .bytes = file_bytes (batch_path),
                            .consumer_cpu_ns = batch_writer_cpu,
                            .has_consumer = 1 };
  if (rec_verify)
    {
      r->on_disk = count_lines (batch_path);
      r->has_on_disk = 1;
    }
  unlink (batch_path);
  if (batch_write_failed)
    fprintf (stderr, "peer_batch: a write failed\n");
  return batch_write_failed ? -1 : 0;
}
