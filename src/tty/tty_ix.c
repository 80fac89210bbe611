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
 * with one ring record when it closes (one record instead of one per
 * field).  They are kept in a dense store (record/ixdense.h) of the 29
 * fields this model sets, five cache lines with the rest of the thread's
 * state instead of the sixteen a struct emlat_ix_fields spans: a key typed
 * after the machine idled finds each of those lines cold (PERFORMANCE.md,
 * "A key after idle").  Each field is stored when the call that learns it
 * ends, so closing an interaction only adds its end.  (An interaction still
 * open when the program dies keeps its begin record only; it was not
 * complete anyway.)
 *
 * Invariants: all state is thread-local and touched only with tty_nest > 0
 * (the interposed call in progress), so a signal handler's interposed call
 * never sees it half-updated; recording calls are the producer API's (no
 * allocation, lock or system call); an absent time is never recorded.  The
 * dense store holds the open interaction's fields only: it is cleared when
 * one opens; the first batch's bounds are staged in their words and set
 * (their mask bits) only when a second batch makes them differ from the
 * decisive ones.
 */
#include "tty.h"
#include "record/ixdense.h"

#include <errno.h>
#include <string.h>

#define TTY_STREAMS 4

struct tty_stream_seen
{
  FILE *fp;
  size_t pending; /* __fpending after the last observed call */
  uint64_t t;     /* when */
};

/* The fields the model sets (the dense store's layout). */
#define TTY_LT                                                               \
  ((1u << EMLAT_T_INPUT_EARLIEST) | (1u << EMLAT_T_INPUT_LATEST)             \
   | (1u << EMLAT_T_INPUT_READY) | (1u << EMLAT_T_READ_BEGIN)                \
   | (1u << EMLAT_T_READ_END) | (1u << EMLAT_T_ROOT_WORK_END)                \
   | (1u << EMLAT_T_OUTPUT_BEGIN) | (1u << EMLAT_T_OUTPUT_END)               \
   | (1u << EMLAT_T_FLUSH_BEGIN) | (1u << EMLAT_T_FLUSH_END)                 \
   | (1u << EMLAT_T_FIRST_INPUT_EARLIEST) | (1u << EMLAT_T_FIRST_INPUT_LATEST) \
   | (1u << EMLAT_T_WRITE_FIRST_BEGIN) | (1u << EMLAT_T_WRITE_FIRST_END)     \
   | (1u << EMLAT_T_WRITE_LAST_BEGIN) | (1u << EMLAT_T_WRITE_LAST_END))
#define TTY_LV                                                               \
  ((1u << EMLAT_V_FIRST_SOURCE_BATCH) | (1u << EMLAT_V_FIRST_SOURCE_BEGIN)   \
   | (1u << EMLAT_V_FIRST_SOURCE_END) | (1u << EMLAT_V_DECISIVE_SOURCE_BATCH) \
   | (1u << EMLAT_V_DECISIVE_SOURCE_BEGIN)                                   \
   | (1u << EMLAT_V_DECISIVE_SOURCE_END) | (1u << EMLAT_V_FINAL_OUTPUT_EPOCH))
#define TTY_LC                                                               \
  ((1u << EMLAT_C_READ_BATCH_BYTES) | (1u << EMLAT_C_EXTRA_READS)            \
   | (1u << EMLAT_C_TTY_BYTES) | (1u << EMLAT_C_STDIO_CALLS)                 \
   | (1u << EMLAT_C_FLUSH_FAILURES) | (1u << EMLAT_C_WRITE_CALLS)            \
   | (1u << EMLAT_C_OUTPUT_EPOCHS))
#define TTY_WORDS EMLAT_IXD_WORDS (TTY_LT, TTY_LV, TTY_LC)

_Static_assert (!(TTY_LT & (1u << EMLAT_T_INTERACTION_END)),
                "the interaction's end is the commit's argument");

/* The word of time field K, value field K, counter K (a compile-time
   error for a field outside the layout). */
#define TTY_TW(s, k)                                                         \
  (*({ EMLAT_IXD_CHECK (TTY_LT, k);                                          \
       &(s)->fw[emlat_ixd_tindex (TTY_LT, k)]; }))
#define TTY_VW(s, k)                                                         \
  (*({ EMLAT_IXD_CHECK (TTY_LV, k);                                          \
       &(s)->fw[emlat_ixd_vindex (TTY_LT, TTY_LV, k)]; }))
#define TTY_CW(s, k)                                                         \
  (*({ EMLAT_IXD_CHECK (TTY_LC, k);                                          \
       &(s)->fw[emlat_ixd_cindex (TTY_LT, TTY_LV, TTY_LC, k)]; }))

struct tty_thread
{
  /* The open interaction (0 = none) and its root kind. */
  uint64_t cause;
  uint8_t kind;
  /* The quality of t_empty. */
  uint8_t empty_q;
  /* The qualities of the first batch's staged bounds, as recorded (0 for
     the default). */
  uint8_t first_earliest_q, first_latest_q;
  /* Input knowledge: the last known-empty time (0 = never); the first
     main-poll readable since the last batch. */
  uint64_t t_empty;
  uint64_t t_ready;
  /* Stdio calls seen before any interaction opened on this thread. */
  uint64_t stdio_pending;
  /* The open interaction's fields (layout TTY_LT, TTY_LV, TTY_LC). */
  struct emlat_ixd_head fh;
  uint64_t fw[TTY_WORDS];

  struct tty_stream_seen streams[TTY_STREAMS];
};

static __thread struct tty_thread tty_t TTY_TLS __attribute__ ((aligned (64)));

/* Output epochs are numbered across the process. */
static _Atomic uint64_t tty_epoch_seq;

/* Set time field K (its word W) to T, of quality Q where DFLT is the
   field's default. */
EMLAT_HOT static inline void
tty_set_time (struct tty_thread *s, unsigned k, uint64_t *w, uint64_t t,
              enum emlat_quality q, enum emlat_quality dflt)
{
  *w = t;
  s->fh.tmask |= 1u << k;
  emlat_ixd_quality (&s->fh, k, q == dflt ? 0 : q);
}
#define TTY_TIME(s, k, t, q, dflt)                                           \
  tty_set_time (s, k, &TTY_TW (s, k), t, q, dflt)
/* A field always of its default quality. */
#define TTY_TIME0(s, k, t)                                                   \
  (TTY_TW (s, k) = (t), (s)->fh.tmask |= 1u << (k))
#define TTY_VALUE(s, k, v)                                                   \
  (TTY_VW (s, k) = (v), (s)->fh.vmask |= 1u << (k))
#define TTY_COUNT(s, k, v)                                                   \
  (TTY_CW (s, k) = (v), (s)->fh.cmask |= 1u << (k))
/* Add D to counter K (absent: 0). */
#define TTY_ADD(s, k, d)                                                     \
  (TTY_CW (s, k) = ((s)->fh.cmask & (1u << (k)) ? TTY_CW (s, k) : 0) + (d),   \
   (s)->fh.cmask |= 1u << (k))

EMLAT_HOT static void
tty_ix_close (struct tty_thread *s, uint64_t t)
{
  uint64_t c = s->cause;
  if (!c)
    return;
  TTY_TIME0 (s, EMLAT_T_ROOT_WORK_END, t);
  /* It ended at T (ROOT_WORK_END above): no clock read of its own. */
  emlat_ix_commit_dense (c, &s->fh, s->fw, TTY_LT, TTY_LV, TTY_LC,
                         EMLAT_STATUS_NORMAL, t);
  s->cause = 0;
  s->kind = 0;
}

/* Open an interaction of KIND dispatched at T (0: now). */
EMLAT_HOT static void
tty_ix_open (struct tty_thread *s, enum emlat_root_kind kind, uint64_t t)
{
  s->cause = emlat_ix_begin_at (kind, 0, 0, t);
  s->kind = (uint8_t)kind;
  emlat_ixd_clear (&s->fh);
  if (s->stdio_pending)
    TTY_COUNT (s, EMLAT_C_STDIO_CALLS, s->stdio_pending);
  s->stdio_pending = 0;
}

EMLAT_HOT void
tty_ix_wait_begin (uint64_t t)
{
  tty_ix_close (&tty_t, t);
}

EMLAT_HOT static void
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

EMLAT_HOT void
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

EMLAT_HOT uint64_t
tty_ix_ensure (void)
{
  struct tty_thread *s = &tty_t;
  if (!s->cause)
    tty_ix_open (s, EMLAT_ROOT_UNATTRIBUTED_OUTPUT, 0);
  return s->cause;
}

EMLAT_HOT void
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
  if (s->cause
      && ((s->fh.tmask & (1u << EMLAT_T_OUTPUT_BEGIN))
          || s->kind != EMLAT_ROOT_TTY_COMMAND || blocked))
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
    TTY_ADD (s, EMLAT_C_EXTRA_READS, 1);
  if (!s->cause)
    return;

  /* Arrival bounds of the decisive (this) batch. */
  uint64_t latest = t1;
  enum emlat_quality latest_q = EMLAT_Q_READ;
  if (ready && r == 1)
    {
      latest = ready;
      latest_q = ready_q;
    }
  if (s->t_empty)
    TTY_TIME (s, EMLAT_T_INPUT_EARLIEST, s->t_empty, s->empty_q,
              EMLAT_Q_READ);
  TTY_TIME (s, EMLAT_T_INPUT_LATEST, latest, latest_q, EMLAT_Q_READ);
  if (ready)
    TTY_TIME (s, EMLAT_T_INPUT_READY, ready, ready_q, EMLAT_Q_MAIN_POLL_READY);
  TTY_TIME0 (s, EMLAT_T_READ_BEGIN, t0);
  TTY_TIME0 (s, EMLAT_T_READ_END, t1);
  TTY_VALUE (s, EMLAT_V_DECISIVE_SOURCE_BATCH, b.batch_id);
  TTY_VALUE (s, EMLAT_V_DECISIVE_SOURCE_BEGIN, 0);
  TTY_VALUE (s, EMLAT_V_DECISIVE_SOURCE_END, (uint64_t)r);
  if (first)
    {
      TTY_VALUE (s, EMLAT_V_FIRST_SOURCE_BATCH, b.batch_id);
      TTY_VALUE (s, EMLAT_V_FIRST_SOURCE_BEGIN, 0);
      TTY_VALUE (s, EMLAT_V_FIRST_SOURCE_END, (uint64_t)r);
      TTY_COUNT (s, EMLAT_C_READ_BATCH_BYTES, (uint64_t)r);
      /* Staged: set only if a second batch follows (0: absent). */
      TTY_TW (s, EMLAT_T_FIRST_INPUT_EARLIEST) = s->t_empty;
      s->first_earliest_q = s->empty_q == EMLAT_Q_READ ? 0 : s->empty_q;
      TTY_TW (s, EMLAT_T_FIRST_INPUT_LATEST) = latest;
      s->first_latest_q = latest_q == EMLAT_Q_READ ? 0 : latest_q;
    }
  else
    {
      /* The first batch's bounds, kept apart from the decisive ones (DESIGN.md
         section 3.4: prefix dwell). */
      if (TTY_CW (s, EMLAT_C_EXTRA_READS) == 1)
        {
          if (TTY_TW (s, EMLAT_T_FIRST_INPUT_EARLIEST))
            {
              s->fh.tmask |= 1u << EMLAT_T_FIRST_INPUT_EARLIEST;
              emlat_ixd_quality (&s->fh, EMLAT_T_FIRST_INPUT_EARLIEST,
                                 s->first_earliest_q);
            }
          s->fh.tmask |= 1u << EMLAT_T_FIRST_INPUT_LATEST;
          emlat_ixd_quality (&s->fh, EMLAT_T_FIRST_INPUT_LATEST,
                             s->first_latest_q);
        }
      TTY_ADD (s, EMLAT_C_READ_BATCH_BYTES, (uint64_t)r);
    }
}

EMLAT_HOT void
tty_ix_output (uint64_t t0, uint64_t t1, uint64_t bytes, enum emlat_quality q0,
               enum emlat_quality q1, int ok)
{
  struct tty_thread *s = &tty_t;
  if (!bytes)
    return;
  if (!tty_ix_ensure ())
    return;
  if (!(s->fh.tmask & (1u << EMLAT_T_OUTPUT_BEGIN)))
    {
      /* The interaction's output epoch begins. */
      TTY_TIME (s, EMLAT_T_OUTPUT_BEGIN, t0, q0, EMLAT_Q_WRITE);
      /* relaxed: a unique number, no data published with it. */
      TTY_VALUE (s, EMLAT_V_FINAL_OUTPUT_EPOCH,
                 atomic_fetch_add_explicit (&tty_epoch_seq, 1,
                                            memory_order_relaxed) + 1);
      TTY_COUNT (s, EMLAT_C_OUTPUT_EPOCHS, 1);
      TTY_TIME (s, EMLAT_T_WRITE_FIRST_BEGIN, t0, q0, EMLAT_Q_WRITE);
      TTY_TIME (s, EMLAT_T_WRITE_FIRST_END, t1, q1, EMLAT_Q_WRITE);
    }
  TTY_TIME (s, EMLAT_T_WRITE_LAST_BEGIN, t0, q0, EMLAT_Q_WRITE);
  TTY_TIME (s, EMLAT_T_WRITE_LAST_END, t1, q1, EMLAT_Q_WRITE);
  TTY_TIME0 (s, EMLAT_T_OUTPUT_END, t1);
  TTY_ADD (s, EMLAT_C_TTY_BYTES, bytes);
  if (ok)
    {
      /* The last successful write or flush: both bounds of the quality of
         its end. */
      TTY_TIME (s, EMLAT_T_FLUSH_BEGIN, t0, q1, EMLAT_Q_FLUSH);
      TTY_TIME (s, EMLAT_T_FLUSH_END, t1, q1, EMLAT_Q_FLUSH);
    }
}

EMLAT_HOT void
tty_ix_write_call (int failed)
{
  struct tty_thread *s = &tty_t;
  TTY_ADD (s, EMLAT_C_WRITE_CALLS, 1);
  if (failed)
    TTY_ADD (s, EMLAT_C_FLUSH_FAILURES, 1);
}

EMLAT_HOT void
tty_ix_stdio_call (int flush_failed)
{
  struct tty_thread *s = &tty_t;
  if (s->cause)
    {
      TTY_ADD (s, EMLAT_C_STDIO_CALLS, 1);
      if (flush_failed)
        TTY_ADD (s, EMLAT_C_FLUSH_FAILURES, 1);
    }
  else
    s->stdio_pending++;
}

EMLAT_HOT size_t
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

EMLAT_HOT void
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
