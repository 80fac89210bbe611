/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ttymodel.c -- the terminal interaction model (ttymodel.h): what the
 * terminal calls of one thread, read from its ring, mean.
 *
 *   read of terminal input (bytes > 0)  -> an input batch; opens an
 *        interaction of root kind TTY command, or, when the program read
 *        again without waiting and without output, extends it (extra read,
 *        new decisive batch).
 *   write / stdio call with terminal output -> the output epoch of the
 *        open interaction; with none open, an unattributed-output
 *        interaction.  The first and the last call that emitted bytes give
 *        the write bounds (t_write_first_begin .. t_write_last_end).
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
 * The model writes straight into the interaction's entry of the writer's
 * table (a field's quality 0 when it is the field's default), found by
 * its cause at each record; an entry that could not be added (memory) was
 * counted as lost there, and the calls that would have filled it change
 * nothing.  Every call record is accounted for: a read that made a batch
 * is the batch's record; any other is folded into the interaction open
 * when it arrives, or else the one it opens, or else the next one that
 * opens (EMLAT_TTY_*, "unfolded").
 */
#include "record/ttymodel.h"

#include <string.h>

#include "emlat/emlat.h"
#include "record/session.h"
#include "record/ttycall.h"

void
emlat_tty_model_reset (struct emlat_tty_model *m)
{
  memset (m, 0, sizeof *m);
}

void
emlat_tty_model_gap (struct emlat_tty_model *m)
{
  m->t_empty = 0;
  m->t_ready = 0;
}

/* Time field K of E: T of quality Q, where DFLT is the field's default. */
static inline void
set_time (struct emlat_ix_entry *e, unsigned k, uint64_t t, unsigned q, unsigned dflt)
{
  e->ix.tmask |= 1u << k;
  e->ix.t[k] = t;
  e->ix.q[k] = (uint8_t)(q == dflt ? 0 : q);
}
#define TIME0(e, k, t) set_time (e, k, t, 0, 0)

static inline void
set_value (struct emlat_ix_entry *e, unsigned k, uint64_t v)
{
  e->ix.vmask |= 1u << k;
  e->ix.v[k] = v;
}

static inline void
set_count (struct emlat_ix_entry *e, unsigned k, uint64_t v)
{
  e->ix.cmask |= 1u << k;
  e->ix.c[k] = v;
}

/* Add D to counter K (absent: 0). */
static inline void
add_count (struct emlat_ix_entry *e, unsigned k, uint64_t d)
{
  set_count (e, k, (e->ix.cmask & (1u << k) ? e->ix.c[k] : 0) + d);
}

/* The open interaction's entry, or NULL (none open, or its entry was
   lost). */
static struct emlat_ix_entry *
open_entry (struct emlat_session *s, const struct emlat_tty_model *m)
{
  if (!m->cause)
    return 0;
  struct emlat_ix_entry *e = emlat_ixtable_find (&s->ix, m->cause);
  return e && !e->ended_pass ? e : 0;
}

static void
ix_close (struct emlat_session *s, struct emlat_tty_model *m, uint64_t t)
{
  struct emlat_ix_entry *e = open_entry (s, m);
  if (e)
    {
      TIME0 (e, EMLAT_T_ROOT_WORK_END, t);
      TIME0 (e, EMLAT_T_INTERACTION_END, t);
      e->ix.status = EMLAT_STATUS_NORMAL;
      e->ended_pass = s->pass;
    }
  m->cause = 0;
  m->kind = 0;
}

/* Open an interaction of KIND dispatched at T on the ring's THREAD. */
static struct emlat_ix_entry *
ix_open (struct emlat_session *s, struct emlat_tty_model *m, uint64_t thread,
         enum emlat_root_kind kind, uint64_t t)
{
  /* Relaxed: a unique number (ring.h). */
  uint64_t cause = atomic_fetch_add_explicit (&s->pool->shared->next_cause, 1,
                                              memory_order_relaxed);
  /* A cause already in the table: the sequence in the ring file was
     damaged (a recovery trusts nothing there). */
  int taken = emlat_ixtable_find (&s->ix, cause) != 0;
  struct emlat_ix_entry *e = taken ? 0 : emlat_ixtable_add (&s->ix, cause);
  if (!e)
    {
      emlat_writer_loss (s, thread, taken ? EMLAT_LOSS_RECORD_INVALID : EMLAT_LOSS_WRITER_MEMORY,
                         t, t, 1, EMLAT_SLOT_BYTES);
      m->cause = 0;
      m->kind = 0;
      return 0;
    }
  e->has_begin = 1;
  e->represents = m->unfolded;
  m->unfolded = 0;
  e->ix.thread = thread;
  e->ix.kind = kind;
  e->ix.t_dispatch = t;
  e->ix.name = 0;
  TIME0 (e, EMLAT_T_DISPATCH_BEGIN, t);
  if (m->stdio_pending)
    set_count (e, EMLAT_C_STDIO_CALLS, m->stdio_pending);
  if (m->flush_failures_pending)
    set_count (e, EMLAT_C_FLUSH_FAILURES, m->flush_failures_pending);
  m->stdio_pending = 0;
  m->flush_failures_pending = 0;
  m->cause = cause;
  m->kind = (uint8_t)kind;
  return e;
}

/* The open interaction, opening an unattributed-output one at T if none
   is. */
static struct emlat_ix_entry *
ix_ensure (struct emlat_session *s, struct emlat_tty_model *m, uint64_t thread, uint64_t t)
{
  if (m->cause)
    return open_entry (s, m);
  return ix_open (s, m, thread, EMLAT_ROOT_UNATTRIBUTED_OUTPUT, t);
}

static void
mark_empty (struct emlat_tty_model *m, uint64_t t, unsigned q)
{
  if (t >= m->t_empty)
    {
      m->t_empty = t;
      m->empty_q = (uint8_t)q;
    }
  m->t_ready = 0;
}

static void
wait_end (struct emlat_tty_model *m, uint64_t t0, uint64_t t1, unsigned flags, uint64_t empty_at)
{
  if (!(flags & EMLAT_TTY_F_READY))
    {
      mark_empty (m, empty_at, EMLAT_Q_MAIN_POLL_READY);
      return;
    }
  if (m->t_ready)
    return; /* readable since an earlier observation */
  /* A wait that reports input only after blocking found none at its start
     (docs/TTY.md, "Arrival bounds"). */
  if ((flags & EMLAT_TTY_F_BLOCKED) && t0 > m->t_empty)
    {
      m->t_empty = t0;
      m->empty_q = EMLAT_Q_INFERRED;
    }
  m->t_ready = t1;
}

/* A read of R > 0 bytes over [T0, T1]; OBS (nonzero) the observer's first
   readable time; NS the slots of its record, which is the batch's (or
   the batch's loss, counted). */
static void
read_bytes (struct emlat_session *s, struct emlat_tty_model *m, uint64_t thread, uint64_t t0,
            uint64_t t1, uint64_t r, uint64_t obs, unsigned ns)
{
  int blocked = t1 - t0 >= EMLAT_TTY_BLOCK_NS;
  if (obs > t1)
    obs = 0;
  /* A read that blocked with no readiness seen found the input empty. */
  if (blocked && !m->t_ready && !obs && t0 > m->t_empty)
    {
      m->t_empty = t0;
      m->empty_q = EMLAT_Q_INFERRED;
    }
  /* The program came back for input after output, or after blocking: the
     previous interaction is complete. */
  if (m->cause)
    {
      struct emlat_ix_entry *o = open_entry (s, m);
      if ((o && (o->ix.tmask & (1u << EMLAT_T_OUTPUT_BEGIN)))
          || m->kind != EMLAT_ROOT_TTY_COMMAND || blocked)
        ix_close (s, m, t0);
    }

  /* Relaxed: a unique number (ring.h). */
  uint64_t batch = atomic_fetch_add_explicit (&s->pool->shared->next_batch, 1,
                                              memory_order_relaxed);
  uint64_t ready = m->t_ready;
  unsigned ready_q = EMLAT_Q_MAIN_POLL_READY;
  if (obs && (!ready || obs <= ready))
    {
      ready = obs;
      ready_q = EMLAT_Q_OBSERVER_READY;
    }
  struct emlat_enc_input *in = emlat_writer_input (s, thread, ns);
  if (in)
    {
      in->thread = thread;
      in->batch = batch;
      in->mask = EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END | EMLAT_IB_BYTES;
      in->quality = 0;
      in->t[0] = in->t[1] = 0;
      in->t[2] = t0;
      in->t[3] = t1;
      in->bytes = r;
      if (m->t_empty && m->empty_q != EMLAT_Q_INFERRED)
        {
          in->mask |= EMLAT_IB_KNOWN_EMPTY;
          in->t[0] = m->t_empty;
        }
      if (ready)
        {
          in->mask |= EMLAT_IB_FIRST_READY;
          in->t[1] = ready;
          in->quality = ready_q;
        }
    }
  m->t_ready = 0;

  int first = !m->cause;
  struct emlat_ix_entry *e = first ? ix_open (s, m, thread, EMLAT_ROOT_TTY_COMMAND, t1)
                                   : open_entry (s, m);
  if (!e)
    return;
  if (!first)
    add_count (e, EMLAT_C_EXTRA_READS, 1);

  /* Arrival bounds of the decisive (this) batch. */
  uint64_t latest = t1;
  unsigned latest_q = EMLAT_Q_READ;
  if (ready && r == 1)
    {
      latest = ready;
      latest_q = ready_q;
    }
  if (m->t_empty)
    set_time (e, EMLAT_T_INPUT_EARLIEST, m->t_empty, m->empty_q, EMLAT_Q_READ);
  set_time (e, EMLAT_T_INPUT_LATEST, latest, latest_q, EMLAT_Q_READ);
  if (ready)
    set_time (e, EMLAT_T_INPUT_READY, ready, ready_q, EMLAT_Q_MAIN_POLL_READY);
  TIME0 (e, EMLAT_T_READ_BEGIN, t0);
  TIME0 (e, EMLAT_T_READ_END, t1);
  set_value (e, EMLAT_V_DECISIVE_SOURCE_BATCH, batch);
  set_value (e, EMLAT_V_DECISIVE_SOURCE_BEGIN, 0);
  set_value (e, EMLAT_V_DECISIVE_SOURCE_END, r);
  if (first)
    {
      set_value (e, EMLAT_V_FIRST_SOURCE_BATCH, batch);
      set_value (e, EMLAT_V_FIRST_SOURCE_BEGIN, 0);
      set_value (e, EMLAT_V_FIRST_SOURCE_END, r);
      set_count (e, EMLAT_C_READ_BATCH_BYTES, r);
      /* Staged: set only if a second batch follows (0: absent). */
      m->first_earliest = m->t_empty;
      m->first_earliest_q = m->empty_q == EMLAT_Q_READ ? 0 : m->empty_q;
      m->first_latest = latest;
      m->first_latest_q = latest_q == EMLAT_Q_READ ? 0 : (uint8_t)latest_q;
    }
  else
    {
      /* The first batch's bounds, kept apart from the decisive ones
         (DESIGN.md section 3.4: prefix dwell). */
      if (e->ix.c[EMLAT_C_EXTRA_READS] == 1)
        {
          if (m->first_earliest)
            {
              e->ix.tmask |= 1u << EMLAT_T_FIRST_INPUT_EARLIEST;
              e->ix.t[EMLAT_T_FIRST_INPUT_EARLIEST] = m->first_earliest;
              e->ix.q[EMLAT_T_FIRST_INPUT_EARLIEST] = m->first_earliest_q;
            }
          e->ix.tmask |= 1u << EMLAT_T_FIRST_INPUT_LATEST;
          e->ix.t[EMLAT_T_FIRST_INPUT_LATEST] = m->first_latest;
          e->ix.q[EMLAT_T_FIRST_INPUT_LATEST] = m->first_latest_q;
        }
      add_count (e, EMLAT_C_READ_BATCH_BYTES, r);
    }
}

static void
output (struct emlat_session *s, struct emlat_tty_model *m, uint64_t thread, unsigned flags,
        uint64_t t0, uint64_t t1, uint64_t bytes, unsigned q0, unsigned q1)
{
  struct emlat_ix_entry *e;
  if (flags & EMLAT_TTY_F_WRITE_CALL)
    {
      /* A traced write serves the open interaction whatever it emits. */
      if ((e = ix_ensure (s, m, thread, t0)))
        {
          add_count (e, EMLAT_C_WRITE_CALLS, 1);
          if (flags & EMLAT_TTY_F_WRITE_FAILED)
            add_count (e, EMLAT_C_FLUSH_FAILURES, 1);
        }
    }
  if (flags & EMLAT_TTY_F_STDIO_CALL)
    {
      if (m->cause)
        {
          if ((e = open_entry (s, m)))
            {
              add_count (e, EMLAT_C_STDIO_CALLS, 1);
              if (flags & EMLAT_TTY_F_FLUSH_FAILED)
                add_count (e, EMLAT_C_FLUSH_FAILURES, 1);
            }
        }
      else
        {
          m->stdio_pending++;
          if (flags & EMLAT_TTY_F_FLUSH_FAILED)
            m->flush_failures_pending++;
        }
    }
  if (!bytes || !(e = ix_ensure (s, m, thread, t0)))
    return;
  if (!(e->ix.tmask & (1u << EMLAT_T_OUTPUT_BEGIN)))
    {
      /* The interaction's output epoch begins.  Relaxed: a unique number
         (ring.h). */
      set_time (e, EMLAT_T_OUTPUT_BEGIN, t0, q0, EMLAT_Q_WRITE);
      set_value (e, EMLAT_V_FINAL_OUTPUT_EPOCH,
                 atomic_fetch_add_explicit (&s->pool->shared->next_epoch, 1,
                                            memory_order_relaxed));
      set_count (e, EMLAT_C_OUTPUT_EPOCHS, 1);
      set_time (e, EMLAT_T_WRITE_FIRST_BEGIN, t0, q0, EMLAT_Q_WRITE);
      set_time (e, EMLAT_T_WRITE_FIRST_END, t1, q1, EMLAT_Q_WRITE);
    }
  set_time (e, EMLAT_T_WRITE_LAST_BEGIN, t0, q0, EMLAT_Q_WRITE);
  set_time (e, EMLAT_T_WRITE_LAST_END, t1, q1, EMLAT_Q_WRITE);
  TIME0 (e, EMLAT_T_OUTPUT_END, t1);
  add_count (e, EMLAT_C_TTY_BYTES, bytes);
  if (flags & EMLAT_TTY_F_OK)
    {
      /* The last successful write or flush: both bounds of the quality of
         its end. */
      set_time (e, EMLAT_T_FLUSH_BEGIN, t0, q1, EMLAT_Q_FLUSH);
      set_time (e, EMLAT_T_FLUSH_END, t1, q1, EMLAT_Q_FLUSH);
    }
}

/* Whether the record's words are what ttycall.h allows. */
static int
well_formed (unsigned op, unsigned flags, uint64_t aux, unsigned ns, uint64_t t0, uint64_t t1,
             uint64_t v)
{
  static const unsigned allowed[EMLAT_TTY_OP_MAX + 1] = {
    [EMLAT_TTY_WAIT_END] = EMLAT_TTY_F_READY | EMLAT_TTY_F_BLOCKED,
    [EMLAT_TTY_READ] = EMLAT_TTY_F_OBS,
    [EMLAT_TTY_OUTPUT] = EMLAT_TTY_F_OK | EMLAT_TTY_F_WRITE_CALL | EMLAT_TTY_F_WRITE_FAILED
                         | EMLAT_TTY_F_STDIO_CALL | EMLAT_TTY_F_FLUSH_FAILED,
  };
  if (op < 1 || op > EMLAT_TTY_OP_MAX || (flags & ~allowed[op]) || t0 == 0)
    return 0;
  if (ns != (op == EMLAT_TTY_READ && (flags & EMLAT_TTY_F_OBS) ? 2u : 1u))
    return 0;
  switch (op)
    {
    case EMLAT_TTY_WAIT_END:
      return t1 >= t0 && ((flags & EMLAT_TTY_F_READY) ? v == 0 : v >= t0 && v <= t1) && !aux;
    case EMLAT_TTY_READ:
      return t1 >= t0 && !aux && v <= (UINT64_MAX >> 1) && (v || !(flags & EMLAT_TTY_F_OBS));
    case EMLAT_TTY_OUTPUT:
      {
        unsigned q0 = aux & 0xff, q1 = (aux >> 8) & 0xff;
        if (t1 < t0 || (aux >> 16))
          return 0;
        return v ? q0 >= 1 && q0 <= EMLAT_Q_MAX && q1 >= 1 && q1 <= EMLAT_Q_MAX : aux == 0;
      }
    default:
      return t1 == 0 && v == 0 && !aux;
    }
}

int
emlat_tty_drain (struct emlat_session *s, struct emlat_ring_ws *ws, unsigned ns,
                 const struct emlat_slot *a, const struct emlat_slot *b)
{
  uint64_t h = a->w[0];
  unsigned op = EMLAT_RR_A (h), flags = EMLAT_RR_B (h);
  uint64_t aux = h >> 32, t0 = a->w[1], t1 = a->w[2], v = a->w[3];
  if (!well_formed (op, flags, aux, ns, t0, t1, v))
    return -1;
  struct emlat_tty_model *m = &ws->tty;
  uint64_t thread = ws->thread;
  uint64_t before = m->cause;
  int batch = 0;
  switch (op)
    {
    case EMLAT_TTY_WAIT_BEGIN:
    case EMLAT_TTY_CLOSE:
      ix_close (s, m, t0);
      break;
    case EMLAT_TTY_WAIT_END:
      wait_end (m, t0, t1, flags, v);
      break;
    case EMLAT_TTY_READ:
      if (v == 0)
        /* The read found no input: it returned EAGAIN, or 0 (nothing
           there with VMIN 0, or end of file). */
        mark_empty (m, t1, EMLAT_Q_READ);
      else
        {
          read_bytes (s, m, thread, t0, t1, v, (flags & EMLAT_TTY_F_OBS) ? b->w[0] : 0, ns);
          batch = 1;
        }
      break;
    case EMLAT_TTY_OUTPUT:
      output (s, m, thread, flags, t0, t1, v, aux & 0xff, (aux >> 8) & 0xff);
      break;
    case EMLAT_TTY_ENSURE:
      ix_ensure (s, m, thread, t0);
      break;
    }
  ws->spans.tty_cause = m->cause;
  if (batch)
    return 0; /* the batch carries the record */
  /* The interaction open when it came, else the one it opened, else the
     next one. */
  struct emlat_ix_entry *e = 0;
  if (before)
    e = emlat_ixtable_find (&s->ix, before);
  if (!e && m->cause)
    e = emlat_ixtable_find (&s->ix, m->cause);
  if (e)
    e->represents++;
  else
    m->unfolded++;
  return 0;
}
