/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_wait.c -- interposed wait calls: select, pselect, poll, ppoll,
 * epoll_wait and epoll_pwait, observed only when they watch terminal input
 * for readability; and epoll_ctl, to learn which epoll sets do.
 *
 * A watched wait with a nonzero timeout is the program waiting for terminal
 * input: it completes the open interaction at its start (and, with
 * EMLAT_TTY_SPANS=1, is recorded as an event_poll span).  Its result is a
 * main-poll observation: readable (upper bound for the arrival of pending
 * input) or not readable (the input was empty at a time no earlier than
 * the call's start; for an expired timeout, no earlier than start +
 * timeout, clamped to the return).
 * None of them touches errno: what they record after the call keeps it
 * (tty.h), and they need no error code.
 */
#include "tty.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

typedef int (*tty_select_fn) (int, fd_set *, fd_set *, fd_set *,
                              struct timeval *);
typedef int (*tty_pselect_fn) (int, fd_set *, fd_set *, fd_set *,
                               const struct timespec *, const sigset_t *);
typedef int (*tty_poll_fn) (struct pollfd *, nfds_t, int);
typedef int (*tty_ppoll_fn) (struct pollfd *, nfds_t, const struct timespec *,
                             const sigset_t *);
typedef int (*tty_epoll_wait_fn) (int, struct epoll_event *, int, int);
typedef int (*tty_epoll_pwait_fn) (int, struct epoll_event *, int, int,
                                   const sigset_t *);
typedef int (*tty_epoll_ctl_fn) (int, int, int, struct epoll_event *);

#define TTY_FOREVER UINT64_MAX

/* State of one observed wait call. */
struct tty_wait
{
  uint64_t t0;
  uint64_t timeout_ns; /* TTY_FOREVER: none */
  uint64_t span;
};

EMLAT_HOT TTY_LINE_ALIGNED static void
tty_wait_begin (struct tty_wait *w, uint64_t timeout_ns)
{
  tty_self.nest++;
  w->t0 = emlat_now ();
  w->timeout_ns = timeout_ns;
  w->span = 0;
  if (timeout_ns != 0)
    {
      tty_ix_wait_begin (w->t0);
      if (tty_spans ())
        w->span = emlat_span_begin (EMLAT_SPAN_EVENT_POLL, 0);
    }
}

/* R: the call's result; READY: it reported terminal input readable. */
EMLAT_HOT TTY_LINE_ALIGNED static void
tty_wait_end (struct tty_wait *w, int r, int ready)
{
  /* A zero-timeout wait that found nothing readable tells only that the
     input was empty at its start (empty_at = t0 below): its end is not
     needed, and a program that checks for typeahead between keys (nano
     polls five times a key) reads the clock once per check, not twice. */
  int need_end = w->timeout_ns != 0 || (r > 0 && ready) || w->span;
  uint64_t t1 = need_end ? emlat_now () : w->t0;
  if (w->span)
    emlat_span_end (w->span, r < 0 ? EMLAT_SPAN_ERROR : EMLAT_SPAN_OK, 0);
  if (r >= 0)
    {
      uint64_t empty_at = w->t0;
      if (r == 0 && w->timeout_ns != TTY_FOREVER)
        {
          empty_at = w->t0 + w->timeout_ns;
          if (empty_at > t1 || empty_at < w->t0)
            empty_at = t1;
        }
      tty_ix_wait_end (w->t0, t1, ready, empty_at,
                       t1 - w->t0 >= EMLAT_TTY_BLOCK_NS);
    }
  tty_self.nest--;
}

/* A check for typeahead: a wait with a zero timeout and no span
   (EMLAT_TTY_SPANS unset), which nano makes five times a key and vim
   eight.  It records what tty_wait_begin and tty_wait_end would for it --
   nothing at its start; at its end, when the input was not readable, the
   observation that it was empty at the call's start (their empty_at for
   a zero timeout), else a readable wait over [t0, t1] -- without their
   state (docs/PERFORMANCE.md, "A check for typeahead in one pass").
   tty_check_begin returns the call's start. */
EMLAT_HOT static inline uint64_t
tty_check_begin (void)
{
  tty_self.nest++;
  return emlat_now ();
}

/* R: the call's result; READY: it reported terminal input readable.  A
   check never counts as blocked, however long it took: with a zero
   timeout it cannot wait, so a long one was preempted, and the input may
   have been there before it began (no inferred known-empty time). */
EMLAT_HOT static void
tty_check_end (uint64_t t0, int r, int ready)
{
  if (r >= 0)
    {
      if (!ready)
        tty_ix_note_empty (t0, 1);
      else
        tty_ix_wait_end (t0, emlat_now (), 1, t0, 0);
    }
  tty_self.nest--;
}

EMLAT_HOT static uint64_t
tty_ms_ns (int ms)
{
  return ms < 0 ? TTY_FOREVER : (uint64_t)ms * 1000000u;
}

EMLAT_HOT static uint64_t
tty_ts_ns (const struct timespec *ts)
{
  if (!ts)
    return TTY_FOREVER;
  if (ts->tv_sec < 0 || ts->tv_nsec < 0)
    return 0;
  return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* The terminal input descriptor in the read set of a select, or -1. */
EMLAT_HOT static int
tty_select_input (int nfds, const fd_set *rfds)
{
  if (!rfds || !tty_active () || tty_self.nest)
    return -1;
  int lim = nfds < FD_SETSIZE ? nfds : FD_SETSIZE;
  if (lim > TTY_FD_MAX)
    lim = TTY_FD_MAX;
  for (int fd = 0; fd < lim; fd++)
    if ((tty_fd_role (fd) & TTY_ROLE_IN) && FD_ISSET (fd, rfds))
      return fd;
  return -1;
}

/* The traced path of select (out of line: the wrapper is a check and a
   jump, as in tty_io.c). */
EMLAT_HOT TTY_LINE_ALIGNED __attribute__ ((noinline)) static int
tty_select_traced (tty_select_fn f, int nfds, fd_set *rfds, fd_set *wfds, fd_set *efds,
                   struct timeval *tv)
{
  int fd = tty_select_input (nfds, rfds);
  if (fd < 0)
    return f (nfds, rfds, wfds, efds, tv);
  uint64_t to = TTY_FOREVER;
  if (tv)
    to = tv->tv_sec < 0 || tv->tv_usec < 0
           ? 0
           : (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
  if (to == 0 && !tty_spans ())
    {
      uint64_t t0 = tty_check_begin ();
      int r = f (nfds, rfds, wfds, efds, tv);
      tty_check_end (t0, r, r > 0 && FD_ISSET (fd, rfds));
      return r;
    }
  struct tty_wait w;
  tty_wait_begin (&w, to);
  int r = f (nfds, rfds, wfds, efds, tv);
  tty_wait_end (&w, r, r > 0 && FD_ISSET (fd, rfds));
  return r;
}

TTY_EXPORT EMLAT_HOT TTY_LINE_ALIGNED int
select (int nfds, fd_set *rfds, fd_set *wfds, fd_set *efds,
        struct timeval *tv)
{
  tty_select_fn f = (tty_select_fn)tty_real_hot (TR_select);
  if (!rfds || !tty_active () || tty_self.nest)
    return f (nfds, rfds, wfds, efds, tv);
  return tty_select_traced (f, nfds, rfds, wfds, efds, tv);
}

TTY_EXPORT EMLAT_HOT int
pselect (int nfds, fd_set *rfds, fd_set *wfds, fd_set *efds,
         const struct timespec *ts, const sigset_t *mask)
{
  tty_pselect_fn f = (tty_pselect_fn)tty_real (TR_pselect);
  int fd = tty_select_input (nfds, rfds);
  if (fd < 0)
    return f (nfds, rfds, wfds, efds, ts, mask);
  uint64_t to = tty_ts_ns (ts);
  if (to == 0 && !tty_spans ())
    {
      uint64_t t0 = tty_check_begin ();
      int r = f (nfds, rfds, wfds, efds, ts, mask);
      tty_check_end (t0, r, r > 0 && FD_ISSET (fd, rfds));
      return r;
    }
  struct tty_wait w;
  tty_wait_begin (&w, to);
  int r = f (nfds, rfds, wfds, efds, ts, mask);
  tty_wait_end (&w, r, r > 0 && FD_ISSET (fd, rfds));
  return r;
}

/* Index of the terminal input entry of a poll set, or -1. */
EMLAT_HOT static long
tty_poll_input (const struct pollfd *fds, nfds_t n)
{
  if (!fds || !tty_active () || tty_self.nest)
    return -1;
  for (nfds_t i = 0; i < n; i++)
    if (fds[i].fd >= 0 && (fds[i].events & POLLIN)
        && (tty_fd_role (fds[i].fd) & TTY_ROLE_IN))
      return (long)i;
  return -1;
}

/* The traced path of poll (as select's). */
EMLAT_HOT TTY_LINE_ALIGNED __attribute__ ((noinline)) static int
tty_poll_traced (tty_poll_fn f, struct pollfd *fds, nfds_t n, int timeout)
{
  long i = tty_poll_input (fds, n);
  if (i < 0)
    return f (fds, n, timeout);
  if (timeout == 0 && !tty_spans ())
    {
      uint64_t t0 = tty_check_begin ();
      int r = f (fds, n, 0);
      tty_check_end (t0, r, r > 0 && (fds[i].revents & POLLIN));
      return r;
    }
  struct tty_wait w;
  tty_wait_begin (&w, tty_ms_ns (timeout));
  int r = f (fds, n, timeout);
  tty_wait_end (&w, r, r > 0 && (fds[i].revents & POLLIN));
  return r;
}

TTY_EXPORT EMLAT_HOT TTY_LINE_ALIGNED int
poll (struct pollfd *fds, nfds_t n, int timeout)
{
  tty_poll_fn f = (tty_poll_fn)tty_real_hot (TR_poll);
  if (!fds || !tty_active () || tty_self.nest)
    return f (fds, n, timeout);
  return tty_poll_traced (f, fds, n, timeout);
}

TTY_EXPORT EMLAT_HOT_RARE int
ppoll (struct pollfd *fds, nfds_t n, const struct timespec *ts,
       const sigset_t *mask)
{
  tty_ppoll_fn f = (tty_ppoll_fn)tty_real (TR_ppoll);
  long i = tty_poll_input (fds, n);
  if (i < 0)
    return f (fds, n, ts, mask);
  struct tty_wait w;
  tty_wait_begin (&w, tty_ts_ns (ts));
  int r = f (fds, n, ts, mask);
  tty_wait_end (&w, r, r > 0 && (fds[i].revents & POLLIN));
  return r;
}

EMLAT_HOT_RARE static int
tty_epoll_ready (const struct epoll_event *ev, int r, uint64_t data)
{
  for (int k = 0; k < r; k++)
    if (ev[k].data.u64 == data && (ev[k].events & EPOLLIN))
      return 1;
  return 0;
}

TTY_EXPORT EMLAT_HOT_RARE int
epoll_wait (int epfd, struct epoll_event *ev, int max, int timeout)
{
  tty_epoll_wait_fn f = (tty_epoll_wait_fn)tty_real (TR_epoll_wait);
  uint64_t data;
  if (!tty_active () || tty_self.nest || !tty_epoll_watches (epfd, &data))
    return f (epfd, ev, max, timeout);
  struct tty_wait w;
  tty_wait_begin (&w, tty_ms_ns (timeout));
  int r = f (epfd, ev, max, timeout);
  /* A full result array may have left the terminal out: then say nothing
     about emptiness (passed on as a failed call). */
  int ready = r > 0 && tty_epoll_ready (ev, r, data);
  tty_wait_end (&w, !ready && r > 0 && r == max ? -1 : r, ready);
  return r;
}

TTY_EXPORT EMLAT_HOT_RARE int
epoll_pwait (int epfd, struct epoll_event *ev, int max, int timeout,
             const sigset_t *mask)
{
  tty_epoll_pwait_fn f = (tty_epoll_pwait_fn)tty_real (TR_epoll_pwait);
  uint64_t data;
  if (!tty_active () || tty_self.nest || !tty_epoll_watches (epfd, &data))
    return f (epfd, ev, max, timeout, mask);
  struct tty_wait w;
  tty_wait_begin (&w, tty_ms_ns (timeout));
  int r = f (epfd, ev, max, timeout, mask);
  int ready = r > 0 && tty_epoll_ready (ev, r, data);
  tty_wait_end (&w, !ready && r > 0 && r == max ? -1 : r, ready); /* as above */
  return r;
}

TTY_EXPORT int
epoll_ctl (int epfd, int op, int fd, struct epoll_event *ev)
{
  tty_epoll_ctl_fn f = (tty_epoll_ctl_fn)tty_real (TR_epoll_ctl);
  int r = f (epfd, op, fd, ev);
  if (r == 0 && tty_active ())
    tty_epoll_noted (epfd, op, fd, ev ? ev->events : 0,
                     ev ? ev->data.u64 : 0);
  return r;
}
