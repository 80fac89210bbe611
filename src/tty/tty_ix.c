/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_ix.c -- what the interposed calls saw, stored as they saw it: one
 * terminal call record per traced call in the thread's ring (ttycall.h).
 * The interaction model that turns those calls into interactions, input
 * batches and their fields runs where the ring is read (the writer, in
 * this process or in the driver, or a recovering reader: ttymodel.c), not
 * here: a traced call stores its times, result and flags and returns
 * (docs/TTY.md, "The model"; docs/PERFORMANCE.md, "The library's excess
 * priced": a key after idle pays for every line of code and data it
 * touches, and the model touched most of them).
 *
 * What stays here is what only the program's thread can know: the
 * observer's hand-off (its readable time is taken, and the observer
 * rearmed, at the read that consumes the input) and the stdio streams'
 * buffer levels between calls (tty_stdio.c).
 *
 * Invariants: called only with tty_self.nest > 0 (the interposed call in
 * progress), so a signal handler's interposed call never interleaves with
 * a record half stored; recording calls are producer calls (no
 * allocation, lock or system call); an absent time is never recorded.
 */
#include "tty.h"

#include <errno.h>

/* The last observation that the input was empty, not yet stored: a wait
   that found it not readable (KIND 1) or a read that returned 0 or EAGAIN
   (KIND 2), at T.  The model's only use of such an observation is "the
   input was empty at T" (ttymodel.c, mark_empty), and of several in a row
   only the last counts: so a program that checks for typeahead between
   keys (nano polls five times a key, vim eight) stores one record for
   the run, right before the thread's next record, instead of one per
   check -- the same file, and a check touches one thread-local line
   instead of the ring's.  An observation still pending when the process
   dies informed no key: none followed it.  Kept in tty_self.empty_kind
   and .empty_t (tty.h). */

/* Store the pending empty observation, before the thread's next record
   (through tty_ix_put, which finds none pending then).  Out of line, but
   not cold: a program that checks for typeahead runs it once a key. */
EMLAT_HOT static __attribute__ ((noinline)) void
tty_empty_store (void)
{
  struct tty_thread_words *me = &tty_self;
  uint64_t t = me->empty_t;
  unsigned kind = me->empty_kind;
  me->empty_kind = 0;
  if (kind == 1)
    tty_ix_put (TTY_OPF (EMLAT_TTY_WAIT_END, 0), 0, t, t, t);
  else
    tty_ix_put (TTY_OPF (EMLAT_TTY_READ, 0), 0, t, t, 0);
}

/* tty_ix_put's record when its common path cannot take it (no session
   or ring yet, the ring's limit reached): the general store, off the
   key's page. */
EMLAT_HOT_RARE static __attribute__ ((noinline)) void
tty_ix_put_general (uint32_t opf, uint32_t aux, uint64_t t0, uint64_t t1, uint64_t value)
{
  emlat_tty_put (opf & 0xffu, opf >> 8, aux, t0, t1, value, 0, 0);
}

/* tty_ix_put with an observation pending: the observation's record
   first, then the call's. */
EMLAT_HOT static __attribute__ ((noinline)) void
tty_ix_put_after_empty (uint32_t opf, uint32_t aux, uint64_t t0, uint64_t t1, uint64_t value)
{
  tty_empty_store ();
  tty_ix_put (opf, aux, t0, t1, value);
}

/* Every other path is a tail call, so that the common one -- no
   observation pending, the ring claimed, room -- calls nothing and
   saves no register. */
EMLAT_HOT TTY_LINE_ALIGNED void
tty_ix_put (uint32_t opf, uint32_t aux, uint64_t t0, uint64_t t1, uint64_t value)
{
  if (EMLAT_UNLIKELY (tty_self.empty_kind != 0))
    {
      tty_ix_put_after_empty (opf, aux, t0, t1, value);
      return;
    }
  if (EMLAT_UNLIKELY (!emlat_tty_put1_try (opf & 0xffu, opf >> 8, aux, t0, t1, value)))
    tty_ix_put_general (opf, aux, t0, t1, value);
}

void
tty_ix_read_observed (uint64_t t0, uint64_t t1, uint64_t bytes)
{
  uint64_t obs = 0;
  if (!tty_observer_take (&obs) || !obs)
    {
      tty_ix_put (TTY_OPF (EMLAT_TTY_READ, 0), 0, t0, t1, bytes);
      return;
    }
  if (EMLAT_UNLIKELY (tty_self.empty_kind != 0))
    tty_empty_store ();
  emlat_tty_put (EMLAT_TTY_READ, EMLAT_TTY_F_OBS, 0, t0, t1, bytes, 1, obs);
}

void
tty_ix_output (uint64_t t0, uint64_t t1, uint64_t bytes, enum emlat_quality q0,
               enum emlat_quality q1, int ok, int stdio_call, int flush_failed)
{
  unsigned flags = (ok && bytes ? EMLAT_TTY_F_OK : 0)
                   | (stdio_call ? EMLAT_TTY_F_STDIO_CALL : 0)
                   | (flush_failed ? EMLAT_TTY_F_FLUSH_FAILED : 0);
  if (!bytes && !stdio_call)
    return;
  tty_ix_put (TTY_OPF (EMLAT_TTY_OUTPUT, flags), bytes ? (uint32_t)q0 | (uint32_t)q1 << 8 : 0,
              t0, t1, bytes);
}

uint64_t
tty_ix_ensure (void)
{
  tty_ix_put (TTY_OPF (EMLAT_TTY_ENSURE, 0), 0, emlat_now (), 0, 0);
  return EMLAT_CAUSE_OPEN_TTY;
}

EMLAT_HOT_RARE size_t
tty_ix_stream_last (FILE *fp, uint64_t *t)
{
  for (int i = 0; i < TTY_STREAMS; i++)
    if (tty_self.streams[i].fp == fp)
      {
        *t = tty_self.streams[i].t;
        return tty_self.streams[i].pending;
      }
  *t = 0;
  return 0;
}

EMLAT_HOT_RARE void
tty_ix_stream_save (FILE *fp, size_t pending, uint64_t t)
{
  struct tty_stream_seen *st = tty_self.streams;
  int victim = -1;
  for (int i = 0; i < TTY_STREAMS && victim < 0; i++)
    if (st[i].fp == fp)
      victim = i;
  for (int i = 0; i < TTY_STREAMS && victim < 0; i++)
    if (!st[i].fp)
      victim = i;
  if (victim < 0) /* all taken: replace the one seen longest ago */
    {
      victim = 0;
      for (int i = 1; i < TTY_STREAMS; i++)
        if (st[i].t < st[victim].t)
          victim = i;
    }
  st[victim].fp = fp;
  st[victim].pending = pending;
  st[victim].t = t;
}

void
tty_ix_close_thread (uint64_t t)
{
  tty_ix_put (TTY_OPF (EMLAT_TTY_CLOSE, 0), 0, t, 0, 0);
}
