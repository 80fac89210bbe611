/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_ix.c -- turns what the interposed calls saw on one thread into
 * interactions, input batches and their fields (docs/TTY.md, "The model").
 *
 *   read of terminal input (bytes > 0)  -> an input batch; opens an
 *        interaction of root kind TTY command, or, when the program read
 *        again without waiting and without output, extends it (extra read,
 *        new decisive batch).
 *   write / stdio flush of terminal output -> the output epoch of the open
 *        interaction; with none open, an unattributed-output interaction.
 *        The first and the last call that emitted bytes give the write
 *        bounds (t_write_first_begin .. t_write_last_end): the interval of
 *        the call, read right before and right after it, holds the write.
 *   a wait for terminal input (nonzero timeout), or a read after output or
 *        after blocking  -> the open interaction is complete: the last
 *        successful write or flush before it is its t_flush_end.
 *
 * Arrival bounds of a batch: earliest = the last time the input was known
 * empty (a wait that found it not readable, a read that returned EAGAIN or
 * 0, or -- quality inferred -- the start of a wait or read that blocked);
 * latest = the first readable observation when the batch is one byte, else
 * the end of the read (the decisive byte of a multi-byte batch may have
 * arrived after the first readable observation).
 *
 * An interaction's fields are gathered in thread-local memory and recorded
 * with one emlat_ix_commit when it closes: one ring record instead of one
 * per field.  (An interaction still open when the program dies then keeps
 * its begin record only; it was not complete anyway.)
 *
 * Invariants: all state is thread-local and touched only with tty_nest > 0
 * (the interposed call in progress), so a signal handler's interposed call
 * never sees it half-updated; recording calls are the producer API's (no
 * allocation, lock or system call); an absent time is never recorded.
 */
#include "tty.h"

#include <errno.h>
#include <string.h>

#define TTY_STREAMS 4

struct tty_stream_seen
{
  FILE *fp;
  size_t pending; /* __fpending after the last observed call */
  uint64_t t;     /* when */
};

struct tty_thread
{
  /* Input knowledge. */
  uint64_t t_empty; /* last known-empty time, 0 = never */
  enum emlat_quality empty_q;
  uint64_t t_ready; /* first main-poll readable since the last batch */

  /* The open interaction. */
  uint64_t cause; /* 0 = none */
  int kind;
  int out;            /* an output epoch has begun */
  uint64_t epoch;
  uint64_t t_out_begin, t_out_end;
  enum emlat_quality out_begin_q;
  /* The first and the last call that emitted bytes: when it began and
     ended, and the quality of each time (the write bounds, FORMAT.md
     F-66b: the bytes reached the kernel inside [begin, end]). */
  uint64_t t_wfirst_begin, t_wfirst_end, t_wlast_begin, t_wlast_end;
  enum emlat_quality wfirst_q0, wfirst_q1, wlast_q0, wlast_q1;
  int have_last;      /* a successful write or flush is known */
  uint64_t t_last_begin, t_last_end;
  enum emlat_quality last_q;
  uint64_t bytes, writes, stdio_calls, flush_failures, extra_reads;
  /* Arrival bounds of the interaction's first batch (0 = absent). */
  uint64_t first_earliest, first_latest;
  enum emlat_quality first_earliest_q, first_latest_q;
  /* Stdio calls seen before any interaction opened on this thread. */
  uint64_t stdio_pending;
  /* The open interaction's fields, gathered here and recorded with one
     emlat_ix_commit when it closes (one ring record instead of one per
     field: docs/PERFORMANCE.md). */
  struct emlat_ix_fields f;

  struct tty_stream_seen streams[TTY_STREAMS];
};

static __thread struct tty_thread tty_t TTY_TLS;

/* Output epochs are numbered across the process. */
static _Atomic uint64_t tty_epoch_seq;

static void
tty_ix_reset (struct tty_thread *s)
{
  s->cause = 0;
  s->kind = 0;
  s->out = 0;
  s->have_last = 0;
  s->bytes = s->writes = s->stdio_calls = s->flush_failures = 0;
  s->extra_reads = 0;
}

static void
tty_ix_time (struct tty_thread *s, enum emlat_time_field f, uint64_t t,
             enum emlat_quality q, enum emlat_quality dflt)
{
  emlat_ixf_time_q (&s->f, f, t, q == dflt ? 0 : q);
}

static void
tty_ix_close (struct tty_thread *s, uint64_t t)
{
  uint64_t c = s->cause;
  if (!c)
    return;
  struct emlat_ix_fields *f = &s->f;
  emlat_ixf_time (f, EMLAT_T_ROOT_WORK_END, t);
  if (s->out)
    {
      tty_ix_time (s, EMLAT_T_OUTPUT_BEGIN, s->t_out_begin, s->out_begin_q,
                   EMLAT_Q_WRITE);
      emlat_ixf_time (f, EMLAT_T_OUTPUT_END, s->t_out_end);
      emlat_ixf_value (f, EMLAT_V_FINAL_OUTPUT_EPOCH, s->epoch);
      emlat_ixf_count (f, EMLAT_C_TTY_BYTES, s->bytes);
      emlat_ixf_count (f, EMLAT_C_OUTPUT_EPOCHS, 1);
      tty_ix_time (s, EMLAT_T_WRITE_FIRST_BEGIN, s->t_wfirst_begin, s->wfirst_q0,
                   EMLAT_Q_WRITE);
      tty_ix_time (s, EMLAT_T_WRITE_FIRST_END, s->t_wfirst_end, s->wfirst_q1,
                   EMLAT_Q_WRITE);
      tty_ix_time (s, EMLAT_T_WRITE_LAST_BEGIN, s->t_wlast_begin, s->wlast_q0,
                   EMLAT_Q_WRITE);
      tty_ix_time (s, EMLAT_T_WRITE_LAST_END, s->t_wlast_end, s->wlast_q1,
                   EMLAT_Q_WRITE);
    }
  if (s->have_last)
    {
      tty_ix_time (s, EMLAT_T_FLUSH_BEGIN, s->t_last_begin, s->last_q,
                   EMLAT_Q_FLUSH);
      tty_ix_time (s, EMLAT_T_FLUSH_END, s->t_last_end, s->last_q,
                   EMLAT_Q_FLUSH);
    }
  if (s->writes)
    emlat_ixf_count (f, EMLAT_C_WRITE_CALLS, s->writes);
  if (s->stdio_calls)
    emlat_ixf_count (f, EMLAT_C_STDIO_CALLS, s->stdio_calls);
  if (s->flush_failures)
    emlat_ixf_count (f, EMLAT_C_FLUSH_FAILURES, s->flush_failures);
  if (s->extra_reads)
    emlat_ixf_count (f, EMLAT_C_EXTRA_READS, s->extra_reads);
  /* It ended at T (ROOT_WORK_END above): no clock read of its own. */
  emlat_ix_commit_at (c, f, EMLAT_STATUS_NORMAL, t);
  tty_ix_reset (s);
}

/* Open an interaction of KIND dispatched at T (0: now). */
static void
tty_ix_open (struct tty_thread *s, enum emlat_root_kind kind, uint64_t t)
{
  s->cause = emlat_ix_begin_at (kind, 0, 0, t);
  s->kind = kind;
  emlat_ixf_clear (&s->f);
  s->stdio_calls = s->stdio_pending;
  s->stdio_pending = 0;
}

void
tty_ix_wait_begin (uint64_t t)
{
  tty_ix_close (&tty_t, t);
}

static void
tty_ix_mark_empty (struct tty_thread *s, uint64_t t, enum emlat_quality q)
{
  if (t >= s->t_empty)
    {
      s->t_empty = t;
      s->empty_q = q;
    }
  s->t_ready = 0;
  tty_observer_rearm ();
}

void
tty_ix_wait_end (uint64_t t0, uint64_t t1, int ready, uint64_t empty_at,
                 int blocked)
{
  struct tty_thread *s = &tty_t;
  if (!ready)
    {
      tty_ix_mark_empty (s, empty_at, EMLAT_Q_MAIN_POLL_READY);
      return;
    }
  if (s->t_ready)
    return; /* readable since an earlier observation */
  /* A wait that reports input only after blocking found none at its start
     (docs/TTY.md, "Arrival bounds"). */
  if (blocked && t0 > s->t_empty)
    {
      s->t_empty = t0;
      s->empty_q = EMLAT_Q_INFERRED;
    }
  s->t_ready = t1;
}

uint64_t
tty_ix_ensure (void)
{
  struct tty_thread *s = &tty_t;
  if (!s->cause)
    tty_ix_open (s, EMLAT_ROOT_UNATTRIBUTED_OUTPUT, 0);
  return s->cause;
}

void
tty_ix_read (int fd, uint64_t t0, uint64_t t1, ssize_t r, int err)
{
  struct tty_thread *s = &tty_t;
  if (r < 0)
    {
      if (err == EAGAIN || err == EWOULDBLOCK)
        tty_ix_mark_empty (s, t1, EMLAT_Q_READ);
      return; /* EINTR, EIO...: no input, nothing learned */
    }
  if (r == 0)
    {
      /* A terminal read returns 0 when nothing is there (VMIN 0) or at
         end of file: no input either way. */
      tty_ix_mark_empty (s, t1, EMLAT_Q_READ);
      return;
    }

  int blocked = t1 - t0 >= TTY_BLOCK_NS;
  uint64_t obs = 0;
  int have_obs = fd == tty_observer_source () && tty_observer_take (&obs);
  if (have_obs && obs > t1)
    have_obs = 0;
  /* A read that blocked with no readiness seen found the input empty. */
  if (blocked && !s->t_ready && !have_obs && t0 > s->t_empty)
    {
      s->t_empty = t0;
      s->empty_q = EMLAT_Q_INFERRED;
    }
  /* The program came back for input after output, or after blocking: the
     previous interaction is complete. */
  if (s->cause && (s->out || s->kind != EMLAT_ROOT_TTY_COMMAND || blocked))
    tty_ix_close (s, t0);

  struct emlat_input_batch b;
  memset (&b, 0, sizeof b);
  b.batch_id = emlat_input_batch_id ();
  b.mask = EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END | EMLAT_IB_BYTES;
  b.t_read_begin = t0;
  b.t_read_end = t1;
  b.bytes = (uint64_t)r;
  if (s->t_empty && s->empty_q != EMLAT_Q_INFERRED)
    {
      b.mask |= EMLAT_IB_KNOWN_EMPTY;
      b.t_known_empty = s->t_empty;
    }
  uint64_t ready = 0;
  enum emlat_quality ready_q = EMLAT_Q_MAIN_POLL_READY;
  if (s->t_ready)
    ready = s->t_ready;
  if (have_obs && (!ready || obs <= ready))
    {
      ready = obs;
      ready_q = EMLAT_Q_OBSERVER_READY;
    }
  if (ready)
    {
      b.mask |= EMLAT_IB_FIRST_READY;
      b.t_first_ready = ready;
      b.ready_quality = ready_q;
    }
  emlat_input_batch (&b);
  s->t_ready = 0;

  int first = !s->cause;
  if (first)
    tty_ix_open (s, EMLAT_ROOT_TTY_COMMAND, t1);
  else
    s->extra_reads++;
  uint64_t c = s->cause;
  if (!c)
    return;

  /* Arrival bounds of the decisive (this) batch. */
  uint64_t latest = t1;
  enum emlat_quality latest_q = EMLAT_Q_READ;
  if (ready && r == 1)
    {
      latest = ready;
      latest_q = ready_q;
    }
  struct emlat_ix_fields *f = &s->f;
  if (s->t_empty)
    tty_ix_time (s, EMLAT_T_INPUT_EARLIEST, s->t_empty, s->empty_q,
                 EMLAT_Q_READ);
  tty_ix_time (s, EMLAT_T_INPUT_LATEST, latest, latest_q, EMLAT_Q_READ);
  if (ready)
    tty_ix_time (s, EMLAT_T_INPUT_READY, ready, ready_q,
                 EMLAT_Q_MAIN_POLL_READY);
  emlat_ixf_time (f, EMLAT_T_READ_BEGIN, t0);
  emlat_ixf_time (f, EMLAT_T_READ_END, t1);
  emlat_ixf_value (f, EMLAT_V_DECISIVE_SOURCE_BATCH, b.batch_id);
  emlat_ixf_value (f, EMLAT_V_DECISIVE_SOURCE_BEGIN, 0);
  emlat_ixf_value (f, EMLAT_V_DECISIVE_SOURCE_END, (uint64_t)r);
  if (first)
    {
      emlat_ixf_value (f, EMLAT_V_FIRST_SOURCE_BATCH, b.batch_id);
      emlat_ixf_value (f, EMLAT_V_FIRST_SOURCE_BEGIN, 0);
      emlat_ixf_value (f, EMLAT_V_FIRST_SOURCE_END, (uint64_t)r);
      emlat_ixf_count (f, EMLAT_C_READ_BATCH_BYTES, (uint64_t)r);
      s->first_earliest = s->t_empty;
      s->first_earliest_q = s->empty_q;
      s->first_latest = latest;
      s->first_latest_q = latest_q;
    }
  else
    {
      /* The first batch's bounds, kept apart from the decisive ones (DESIGN.md
         section 3.4: prefix dwell). */
      if (s->extra_reads == 1)
        {
          if (s->first_earliest)
            tty_ix_time (s, EMLAT_T_FIRST_INPUT_EARLIEST, s->first_earliest,
                         s->first_earliest_q, EMLAT_Q_READ);
          tty_ix_time (s, EMLAT_T_FIRST_INPUT_LATEST, s->first_latest,
                       s->first_latest_q, EMLAT_Q_READ);
        }
      emlat_ixf_add (f, EMLAT_C_READ_BATCH_BYTES, (uint64_t)r);
    }
}

void
tty_ix_output (uint64_t t0, uint64_t t1, uint64_t bytes, enum emlat_quality q0,
               enum emlat_quality q1, int ok)
{
  struct tty_thread *s = &tty_t;
  if (!bytes)
    return;
  if (!tty_ix_ensure ())
    return;
  if (!s->out)
    {
      s->out = 1;
      s->t_out_begin = t0;
      s->out_begin_q = q0;
      /* relaxed: a unique number, no data published with it. */
      s->epoch = atomic_fetch_add_explicit (&tty_epoch_seq, 1,
                                            memory_order_relaxed) + 1;
      s->t_wfirst_begin = t0;
      s->t_wfirst_end = t1;
      s->wfirst_q0 = q0;
      s->wfirst_q1 = q1;
    }
  s->t_wlast_begin = t0;
  s->t_wlast_end = t1;
  s->wlast_q0 = q0;
  s->wlast_q1 = q1;
  s->t_out_end = t1;
  s->bytes += bytes;
  if (ok)
    {
      s->have_last = 1;
      s->t_last_begin = t0;
      s->t_last_end = t1;
      s->last_q = q1;
    }
}

void
tty_ix_write_call (int failed)
{
  struct tty_thread *s = &tty_t;
  s->writes++;
  if (failed)
    s->flush_failures++;
}

void
tty_ix_stdio_call (int flush_failed)
{
  struct tty_thread *s = &tty_t;
  if (s->cause)
    {
      s->stdio_calls++;
      s->flush_failures += flush_failed != 0;
    }
  else
    s->stdio_pending++;
}

size_t
tty_ix_stream_last (FILE *fp, uint64_t *t)
{
  struct tty_thread *s = &tty_t;
  for (int i = 0; i < TTY_STREAMS; i++)
    if (s->streams[i].fp == fp)
      {
        *t = s->streams[i].t;
        return s->streams[i].pending;
      }
  *t = 0;
  return 0;
}

void
tty_ix_stream_save (FILE *fp, size_t pending, uint64_t t)
{
  struct tty_thread *s = &tty_t;
  int victim = -1;
  for (int i = 0; i < TTY_STREAMS && victim < 0; i++)
    if (s->streams[i].fp == fp)
      victim = i;
  for (int i = 0; i < TTY_STREAMS && victim < 0; i++)
    if (!s->streams[i].fp)
      victim = i;
  if (victim < 0) /* all taken: replace the one seen longest ago */
    {
      victim = 0;
      for (int i = 1; i < TTY_STREAMS; i++)
        if (s->streams[i].t < s->streams[victim].t)
          victim = i;
    }
  s->streams[victim].fp = fp;
  s->streams[victim].pending = pending;
  s->streams[victim].t = t;
}

void
tty_ix_close_thread (uint64_t t)
{
  tty_ix_close (&tty_t, t);
}
