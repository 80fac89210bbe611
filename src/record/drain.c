/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * drain.c -- the driver as the writer (drain.h, docs/DESIGN.md 8.7).
 *
 * The drainer thread's life: FIND the program's driven session: its ring
 * file in /dev/shm names the program's process id, the profile (which must
 * be the one given, if any) and the session's UUID, once the session is
 * ready (inotify on /dev/shm; a 10 ms poll when inotify is unavailable);
 * open the ring file with the drainers' lock (EMLAT_RF_OPEN_DRAIN: only a
 * DRIVEN file), wait for the program's first checkpoint (the header's
 * driver_ready futex word), set up a writer session over the file
 * (rfsession.h), write the profile's start the program kept in the ring
 * file (F-106) and run the writer's loop (emlat_writer_main) in this
 * thread until the program stops its session or emlat_drainer_stop asks.
 * Then the writer's counts go into the ring file's header (stop_*: the
 * STATS a later recovery writes carry them), and the files are closed.
 *
 * Locking: `mu` orders the attach against emlat_drainer_stop: the thread
 * attaches only while `stop` is 0, under mu; stop sets it under mu and,
 * when attached, asks the writer loop to end (its session lock) and rings
 * the ring file's doorbell.
 */
#include "record/drain.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "format/format.h"
#include "record/rfsession.h"
#include "record/session.h"

/* How long the drainer waits for the program's first checkpoint once the
   profile has its header (the program writes it right after). */
#define READY_WAIT_NS (5000000000ull)
/* After a file appeared in /dev/shm, how long its header is looked for
   (the program writes it right after creating the file). */
#define LOOK_AFTER_CREATE_NS (2000000000ull)

struct emlat_drainer
{
  pthread_t thread;
  pthread_mutex_t mu;
  int stop;          /* under mu */
  int attached;      /* under mu: the writer loop runs on `s` */
  int s_inited;      /* `s` was set up (emlat_rfs_init): release it */
  int wake_fd;       /* eventfd: emlat_drainer_stop wakes the WAIT */
  pid_t pid;
  char profile[4096];
  struct emlat_session s;
  struct emlat_pool pool;
  struct emlat_drain_result res;
};

static int
stopping (struct emlat_drainer *d)
{
  pthread_mutex_lock (&d->mu);
  int stop = d->stop;
  pthread_mutex_unlock (&d->mu);
  return stop;
}

/* Whether A and B name the same file. */
static int
same_file (const char *a, const char *b)
{
  struct stat sa, sb;
  return stat (a, &sa) == 0 && stat (b, &sb) == 0 && sa.st_dev == sb.st_dev
         && sa.st_ino == sb.st_ino;
}

/* The program's driven session: its ring file in /dev/shm names the
   program's process id and, once the session is ready, the profile and
   the session's UUID (the program writes nothing into its profile: the
   driver writes its start, F-106).  When the caller named the profile, a
   session writing another is not ours.  Woken by inotify when a file
   appears in /dev/shm; after that, a look every millisecond for a while,
   since a new ring file gets its header through its mapping, which
   inotify does not see; so too when a look finds a ring file without its
   header (created before the watch was added).  With no file appearing
   it sleeps.  0, or
   -ECANCELED when asked to stop first. */
static int
find_session_of_pid (struct emlat_drainer *d, uint8_t uuid[16])
{
  int in = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  if (in >= 0 && inotify_add_watch (in, "/dev/shm", IN_CREATE | IN_MOVED_TO) < 0)
    {
      close (in);
      in = -1;
    }
  uint64_t look_until = 0; /* look every millisecond until then */
  int unwritten_seen = 0;
  int rc;
  for (;;)
    {
      int pending, unwritten;
      char found[sizeof d->profile];
      /* Looked at after the watch was added: a file created before it is
         found here. */
      if (emlat_rf_driven_of_process ((uint64_t)d->pid, found, sizeof found, uuid, &pending,
                                      &unwritten)
            == 0
          && (!d->profile[0] || same_file (found, d->profile)))
        {
          strcpy (d->profile, found);
          rc = 0;
          break;
        }
      if (stopping (d))
        {
          rc = -ECANCELED;
          break;
        }
      if (pending)
        {
          /* Its session is starting: sleep until it says it is ready
             (a futex wake), in slices so that a stop is seen. */
          emlat_rf_wait_ready (uuid, 10);
          continue;
        }
      uint64_t now = emlat_clock_now ();
      if (unwritten && !unwritten_seen)
        {
          /* A ring file without its header yet: perhaps the program's,
             created before the watch was added, so that no event will
             come for it.  Look every millisecond for a while (once: a
             file that never gets a header must not keep this busy). */
          unwritten_seen = 1;
          look_until = now + LOOK_AFTER_CREATE_NS;
        }
      int timeout = in < 0 || now < look_until ? 1 : -1;
      struct pollfd p[2] = { { .fd = d->wake_fd, .events = POLLIN },
                             { .fd = in, .events = POLLIN } };
      poll (p, in >= 0 ? 2 : 1, in < 0 ? 10 : timeout);
      if (in >= 0 && (p[1].revents & POLLIN))
        {
          char buf[4096];
          while (read (in, buf, sizeof buf) > 0)
            ;
          look_until = emlat_clock_now () + LOOK_AFTER_CREATE_NS;
        }
    }
  if (in >= 0)
    close (in);
  return rc;
}

/* Wait for the program's first checkpoint (session.c, call_driver).
   0; -ECANCELED when asked to stop; -ETIMEDOUT; -ESHUTDOWN when the
   session ended or gave the file up first. */
static int
wait_for_ready (struct emlat_drainer *d, struct emlat_rf_header *h)
{
  uint64_t deadline = emlat_clock_now () + READY_WAIT_NS;
  for (;;)
    {
      /* Acquire: pairs with the program's release after its checkpoint. */
      if (atomic_load_explicit (&h->driver_ready, memory_order_acquire))
        return 0;
      /* Relaxed: only ends the wait. */
      if (atomic_load_explicit (&h->state, memory_order_relaxed) != EMLAT_RF_RECORDING)
        return -ESHUTDOWN;
      uint64_t now = emlat_clock_now ();
      if (stopping (d))
        return -ECANCELED;
      if (now >= deadline)
        return -ETIMEDOUT;
      /* A slice, so that a stop is seen without a wake of this word. */
      struct timespec ts = { 0, 10 * 1000 * 1000 };
      syscall (SYS_futex, &h->driver_ready, FUTEX_WAIT, 0, &ts, 0, 0);
    }
}

/* Set up the writer session over the opened ring file RF. */
static int
attach (struct emlat_drainer *d, struct emlat_ringfile *rf)
{
  struct emlat_session *s = &d->s;
  struct emlat_rfs_checkpoint ck;
  int rc = emlat_rfs_init (s, &d->pool, rf, d->profile, &ck);
  d->s_inited = 1;
  /* Each ring's tail in the file is the truth while the program lives:
     only a drainer stores it, and the program's checkpoint precedes any
     drain. */
  free (ck.tails);
  free (ck.threads);
  free (ck.retired);
  if (rc != 0)
    return rc;
  struct emlat_rf_header *h = rf->h;
  s->ring = *rf; /* the session owns the file from here */
  s->external = 1;
  s->writer_in_driver = 1;
  s->defer_finish = 1; /* the last records are the reader's */
  s->ckpt_seq = ck.seq;
  s->map_ahead = !(h->flags & EMLAT_RF_NO_MAP_AHEAD);
  emlat_sampler_init (&s->sampler, 0, s->stats_ms);
  s->sampler.pid = d->pid;
  s->last_stats_t = emlat_clock_now ();
  s->last_pass_t = s->last_stats_t;
  /* Relaxed: nothing was answered before this drainer. */
  s->flush_asked = s->flush_answered = atomic_load_explicit (&h->flush_done, memory_order_relaxed);
  return emlat_rfs_reopen_profile (s, &s->ring);
}

/* After the writer loop: its counts into the header for the recovery's
   STATS (keep_max there), then close everything. */
static void
detach (struct emlat_drainer *d)
{
  struct emlat_session *s = &d->s;
  struct emlat_rf_header *h = s->ring.h;
  if (h)
    {
      /* Relaxed: read after this process released the drainers' lock. */
      atomic_store_explicit (&h->stop_writer_cpu_ns, s->writer_cpu_ns, memory_order_relaxed);
      atomic_store_explicit (&h->stop_wakeups, s->wakeups, memory_order_relaxed);
      atomic_store_explicit (&h->stop_highwater_wakes, s->highwater_wakes, memory_order_relaxed);
      atomic_store_explicit (&h->stop_ahead_wakes, s->ahead_wakes, memory_order_relaxed);
    }
  d->res.passes = s->passes_started;
  d->res.wakeups = s->wakeups;
  d->res.writer_cpu_ns = s->writer_cpu_ns;
  emlat_out_close (&s->out);
  emlat_rf_close (&s->ring, 0);
}

static void *
drainer_main (void *arg)
{
  struct emlat_drainer *d = arg;
  sigset_t all;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, 0);
  uint8_t uuid[16];
  int rc = find_session_of_pid (d, uuid);
  struct emlat_ringfile rf;
  memset (&rf, 0, sizeof rf);
  rf.fd = -1;
  if (rc == 0)
    rc = emlat_rf_open (&rf, d->profile, uuid, EMLAT_RF_OPEN_DRAIN);
  if (rc == 0)
    {
      rc = wait_for_ready (d, rf.h);
      if (rc != 0)
        emlat_rf_close (&rf, 0);
    }
  if (rc == 0)
    {
      pthread_mutex_lock (&d->mu);
      if (d->stop)
        rc = -ECANCELED;
      else
        {
          rc = attach (d, &rf);
          d->attached = rc == 0;
        }
      pthread_mutex_unlock (&d->mu);
      if (rc != 0)
        {
          if (d->s.ring.map)
            emlat_rf_close (&d->s.ring, 0);
          else
            emlat_rf_close (&rf, 0);
          emlat_out_close (&d->s.out);
        }
    }
  if (rc == 0)
    {
      d->res.attached = 1;
      emlat_writer_main (&d->s);
      /* Before the ring file is unmapped: a stop no longer rings it. */
      pthread_mutex_lock (&d->mu);
      d->attached = 0;
      pthread_mutex_unlock (&d->mu);
      detach (d);
    }
  d->res.error = rc;
  return 0;
}

int
emlat_drainer_start (const char *profile, pid_t pid, struct emlat_drainer **out)
{
  *out = 0;
  size_t cap = sizeof ((struct emlat_drainer *)0)->profile;
  if (pid <= 0 || (profile && (!*profile || strlen (profile) >= cap)))
    return -EINVAL;
  struct emlat_drainer *d = calloc (1, sizeof *d);
  if (!d)
    return -ENOMEM;
  if (profile)
    strcpy (d->profile, profile); /* else found by the program's id */
  d->pid = pid;
  pthread_mutex_init (&d->mu, 0);
  d->wake_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (d->wake_fd < 0)
    {
      int e = errno;
      free (d);
      return -e;
    }
  int e = pthread_create (&d->thread, 0, drainer_main, d);
  if (e != 0)
    {
      close (d->wake_fd);
      free (d);
      return -e;
    }
  *out = d;
  return 0;
}

void
emlat_drainer_stop (struct emlat_drainer *d, struct emlat_drain_result *res)
{
  if (!d)
    return;
  pthread_mutex_lock (&d->mu);
  d->stop = 1;
  if (d->attached)
    {
      pthread_mutex_lock (&d->s.lock);
      d->s.stop_req = 1;
      pthread_mutex_unlock (&d->s.lock);
      emlat_pool_doorbell_ring (&d->pool);
    }
  pthread_mutex_unlock (&d->mu);
  uint64_t one = 1;
  if (write (d->wake_fd, &one, sizeof one) < 0)
    {
      /* The counter cannot overflow from one write: nothing to do. */
    }
  pthread_join (d->thread, 0);
  if (d->s_inited)
    emlat_rfs_release (&d->s);
  if (res)
    *res = d->res;
  close (d->wake_fd);
  pthread_mutex_destroy (&d->mu);
  free (d);
}
