/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_observer.c -- the optional readiness observer (EMLAT_OBSERVER=1,
 * DESIGN.md section 2.5): a thread that polls the terminal input without
 * reading it and records when it first became readable after the program
 * last consumed input, so that a batch's readiness is known even while the
 * program is busy and not polling.
 *
 * It polls its own duplicate of the input descriptor (F_DUPFD_CLOEXEC), so
 * it never touches the program's descriptor number, never changes flags
 * (O_NONBLOCK lives in the shared open file description, which poll does
 * not change) and never consumes input.  Before the program closes or
 * replaces the observed descriptor, tty_observer_detach_fd tells it to stop
 * and close its duplicate.
 *
 * Hand-off (no lock, no system call on the program's side):
 *
 *   tty_obs_word = (generation << 1) | fired
 *   tty_obs_slot[generation & 1] = time of the observation
 *
 *   observer: g = word; if !fired: poll(dup, POLLIN); on readable:
 *             slot[g & 1] = now; CAS(word, g -> g | 1)   (fails if the
 *             program consumed in the meantime: the observation is stale)
 *   program:  on a consuming read, w = exchange(word, (gen + 1) << 1);
 *             if w was fired, the observation is slot[w's gen & 1].
 *
 * The observer writes slot[g & 1] only while word holds generation g
 * unfired; the program reads that slot only after taking the word away from
 * g, and the observer cannot write it again before generation g + 2, which
 * only the program's next consuming read creates.
 *
 * While fired, the observer sleeps 1 ms at a time until the program reads
 * (the cost of the observer while input waits unread); while armed it polls
 * with a 20 ms timeout so that detaching takes at most that long.
 *
 * The gate (DESIGN.md section 8.5): once a second the observer reads its
 * own thread's CPU time; above its budget (EMLAT_OBSERVER_BUDGET, 1 % of
 * the wall time since it started by default) it records an EVENT counter
 * "tty.observer_gated" whose value is that CPU time in ns, turns itself off
 * (no attach or rearm does anything after), closes its duplicate and ends.
 * The duplicate is taken with an exchange by whoever closes it -- the
 * observer at detach or gate, or an attach that raced with the gate -- so
 * it is closed exactly once.
 */
#include "tty.h"
#include "emlat/emlat_app.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

typedef int (*tty_poll_fn) (struct pollfd *, nfds_t, int);
typedef int (*tty_close_fn) (int);

static atomic_int tty_obs_enabled;
static uint32_t tty_obs_budget_ppm = 10000; /* set before the thread starts */
static atomic_int tty_obs_dup = -1;     /* observer's duplicate */
static atomic_int tty_obs_detach;       /* 1: stop observing tty_obs_dup */
static atomic_int tty_obs_stopping;
static atomic_int tty_obs_started;
static _Atomic uint64_t tty_obs_word;
static _Atomic uint64_t tty_obs_slot[2];

#define TTY_OBS_GATE_PERIOD_NS 1000000000u

void
tty_observer_enable (uint32_t budget_ppm)
{
  /* Plain store: set at load, before any attach starts the thread
     (pthread_create orders it). */
  tty_obs_budget_ppm = budget_ppm;
  /* relaxed: set at load, before any attach. */
  atomic_store_explicit (&tty_obs_enabled, 1, memory_order_relaxed);
}

int
tty_observer_enabled (void)
{
  return atomic_load_explicit (&tty_obs_enabled, memory_order_relaxed);
}

static void
tty_obs_sleep_ms (long ms)
{
  struct timespec ts = { 0, ms * 1000000L };
  nanosleep (&ts, NULL);
}

/* Over budget: say so in the profile, turn off for good, close the
   duplicate.  CPU_NS: the observer's CPU time so far. */
static void
tty_obs_gate (uint64_t cpu_ns, tty_close_fn do_close)
{
  EMLAT_COUNTER ("tty.observer_gated", cpu_ns);
  /* seq_cst: ordered before the exchange below, so that an attach which
     installed a duplicate after it sees the observer off and takes that
     duplicate back itself (tty_observer_attach). */
  atomic_store (&tty_obs_enabled, 0);
  /* relaxed: the program stops taking observations at once. */
  atomic_store_explicit (&tty_hot.obs_src, -1, memory_order_relaxed);
  int fd = atomic_exchange (&tty_obs_dup, -1); /* seq_cst: see above */
  if (fd >= 0)
    do_close (fd);
}

/* Over budget: CPU_NS of the observer's thread in WALL_NS since it started,
   against BUDGET_PPM millionths. */
static int
tty_obs_over_budget (uint64_t cpu_ns, uint64_t wall_ns, uint32_t budget_ppm)
{
  return (double)cpu_ns * 1e6 > (double)budget_ppm * (double)wall_ns;
}

static void *
tty_obs_main (void *arg)
{
  (void)arg;
  tty_self.nest = 1; /* this thread's own poll and close are never traced */
  tty_poll_fn do_poll = (tty_poll_fn)tty_real (TR_poll);
  tty_close_fn do_close = (tty_close_fn)tty_real (TR_close);
  uint64_t t_start = emlat_now ();
  uint64_t next_check = t_start + TTY_OBS_GATE_PERIOD_NS;
  for (;;)
    {
      /* acquire: pairs with the release stores of attach and stop. */
      if (atomic_load_explicit (&tty_obs_stopping, memory_order_acquire))
        return NULL;
      uint64_t now = emlat_now ();
      if (now >= next_check)
        {
          next_check = now + TTY_OBS_GATE_PERIOD_NS;
          uint64_t cpu = emlat_thread_cpu_now ();
          if (cpu && tty_obs_over_budget (cpu, now - t_start, tty_obs_budget_ppm))
            {
              tty_obs_gate (cpu, do_close);
              return NULL;
            }
        }
      int fd = atomic_load_explicit (&tty_obs_dup, memory_order_acquire);
      if (fd < 0)
        {
          tty_obs_sleep_ms (20);
          continue;
        }
      if (atomic_load_explicit (&tty_obs_detach, memory_order_acquire))
        {
          /* seq_cst exchange: the one who takes the duplicate closes it
             (see tty_obs_gate); a new attach installs another only once
             this is -1. */
          int mine = atomic_exchange (&tty_obs_dup, -1);
          if (mine >= 0)
            do_close (mine);
          continue;
        }
      /* acquire: pairs with the program's exchange in take/rearm. */
      uint64_t w = atomic_load_explicit (&tty_obs_word, memory_order_acquire);
      if (w & 1)
        {
          tty_obs_sleep_ms (1);
          continue;
        }
      struct pollfd p = { .fd = fd, .events = POLLIN, .revents = 0 };
      int r = do_poll (&p, 1, 20);
      if (r > 0 && (p.revents & POLLIN))
        {
          uint64_t t = emlat_now ();
          /* relaxed: published by the release CAS below. */
          atomic_store_explicit (&tty_obs_slot[(w >> 1) & 1], t,
                                 memory_order_relaxed);
          uint64_t expect = w;
          /* release: the slot store is visible to whoever sees fired. */
          atomic_compare_exchange_strong_explicit (&tty_obs_word, &expect,
                                                   w | 1, memory_order_release,
                                                   memory_order_relaxed);
        }
      else if (r > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
        {
          /* Hung up or gone: nothing more to observe. */
          atomic_store_explicit (&tty_obs_detach, 1, memory_order_release);
        }
    }
}

void
tty_observer_attach (int fd)
{
  if (!tty_observer_enabled () || tty_observer_source () >= 0)
    return;
  if (atomic_load_explicit (&tty_obs_dup, memory_order_acquire) >= 0)
    return; /* the previous duplicate is not closed yet */
  int d = fcntl (fd, F_DUPFD_CLOEXEC, 512);
  if (d < 0)
    d = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  if (d < 0)
    return;
  /* relaxed stores, published by the release store of tty_obs_dup. */
  atomic_store_explicit (&tty_obs_detach, 0, memory_order_relaxed);
  atomic_store_explicit (&tty_obs_word,
                         (atomic_load_explicit (&tty_obs_word,
                                                memory_order_relaxed)
                          | 1) + 1,
                         memory_order_relaxed); /* new generation, armed */
  atomic_store_explicit (&tty_hot.obs_src, fd, memory_order_relaxed);
  /* seq_cst (release for the stores above): then the check below cannot
     miss a gate that turned the observer off meanwhile (tty_obs_gate). */
  atomic_store (&tty_obs_dup, d);
  if (!atomic_load (&tty_obs_enabled))
    {
      /* Gated while we attached: take the duplicate back unless the
         observer already closed it. */
      atomic_store_explicit (&tty_hot.obs_src, -1, memory_order_relaxed);
      int mine = atomic_exchange (&tty_obs_dup, -1);
      if (mine >= 0)
        ((tty_close_fn)tty_real (TR_close)) (mine);
      return;
    }
  if (!atomic_exchange_explicit (&tty_obs_started, 1, memory_order_relaxed))
    {
      /* The observer takes no signals: they stay the program's. */
      sigset_t all, old;
      sigfillset (&all);
      pthread_sigmask (SIG_SETMASK, &all, &old);
      pthread_t th;
      if (pthread_create (&th, NULL, tty_obs_main, NULL) == 0)
        pthread_detach (th);
      pthread_sigmask (SIG_SETMASK, &old, NULL);
    }
}

void
tty_observer_detach_fd (int fd)
{
  if (fd < 0 || tty_observer_source () != fd)
    return;
  /* relaxed: the program stops taking observations at once; release: the
     observer sees the request with everything before it. */
  atomic_store_explicit (&tty_hot.obs_src, -1, memory_order_relaxed);
  atomic_store_explicit (&tty_obs_detach, 1, memory_order_release);
}

EMLAT_HOT int
tty_observer_take (uint64_t *t)
{
  /* acq_rel: acquire the observer's slot store (released by its CAS);
     release nothing in particular, but an RMW must be at least acquire. */
  uint64_t w = atomic_load_explicit (&tty_obs_word, memory_order_relaxed);
  uint64_t next = ((w >> 1) + 1) << 1;
  w = atomic_exchange_explicit (&tty_obs_word, next, memory_order_acq_rel);
  if (!(w & 1))
    return 0;
  /* relaxed: ordered after the exchange that acquired it. */
  *t = atomic_load_explicit (&tty_obs_slot[(w >> 1) & 1],
                             memory_order_relaxed);
  return 1;
}

EMLAT_HOT void
tty_observer_rearm (void)
{
  if (tty_observer_source () < 0)
    return; /* not observing: the next attach starts a new generation */
  /* relaxed load: only the program's thread changes the generation. */
  uint64_t w = atomic_load_explicit (&tty_obs_word, memory_order_relaxed);
  if (w & 1)
    atomic_store_explicit (&tty_obs_word, ((w >> 1) + 1) << 1,
                           memory_order_release);
}

void
tty_observer_stop (void)
{
  /* release: pairs with the observer's acquire load. */
  atomic_store_explicit (&tty_obs_stopping, 1, memory_order_release);
  atomic_store_explicit (&tty_hot.obs_src, -1, memory_order_relaxed);
}
