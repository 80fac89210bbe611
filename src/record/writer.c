/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * writer.c -- the writer thread: drains every ring, turns ring records into
 * chunks (FORMAT.md), and appends them to the file with writev.
 *
 * When it runs: only when asked.  The rings live in the ring file
 * (ringfile.h), so a published record survives the process without the
 * writer; the writer sleeps on the doorbell (state.h) and runs a pass when
 * a ring passes its high-water mark (a quarter of the ring), a thread
 * exits, or a flush, rotation or stop asks for one -- never on a timer
 * while nothing happens (an optional period, drain_interval_us, is off by
 * default).  During a ring's first lap its producer also rings when it
 * nears the pages the writer mapped ahead of it: the writer then maps
 * more (step 8 below) without a pass.
 *
 * One pass:
 *   1. snapshot every live ring's head (acquire) -- records published before
 *      the snapshot are drained in this pass;
 *   2. take the strings defined so far (under the session lock, after the
 *      snapshot: a string defined before a record that uses it is therefore
 *      always written in the same pass or earlier, F-41);
 *   3. drain each ring up to its snapshot into per-ring span state, the
 *      interaction table and the input list; turn drop counters into LOSS
 *      records;
 *   4. encode: STRING, SPAN (per thread), INPUT, INTERACTION (complete records
 *      of interactions that ended in an earlier pass, begin records of new
 *      open ones), LOSS, and STATS when due;
 *   5. rotate if the file would grow past the rotation size, seal chunk
 *      sequence numbers, and append everything with one writev.  A failed
 *      write is accounted as loss (write_error) and rolled back (fileout.c);
 *   6. checkpoint: save the writer's state into the ring file, naming the
 *      profile's size and each ring's drained position (checkpoint.h);
 *   7. release the drained slots (tail, release store) and free the rings
 *      of exited threads;
 *   8. map the first lap of each ring ahead of its producer (map_ahead,
 *      DESIGN.md section 14), unless a ring is due for another pass.
 * Until step 7 the drained records stay in the ring file, so a process that
 * dies at any point leaves a ring file from which a reader recovers exactly
 * what the profile lacks (recover.c).
 * The writer never takes a lock that a producer takes (producers take none)
 * and holds the session lock only at the start and the end of a pass.
 */
#include "record/session.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/leb128.h"
#include "format/format.h"
#include "record/app.h"
#include "record/checkpoint.h"
#include "record/rfsession.h"
#include "record/ringrec.h"


/* ------------------------------------------------------------------ */
/* Loss bookkeeping                                                    */

static void
loss_merge (struct emlat_pending_loss *l, uint64_t first, uint64_t last, uint64_t records,
            uint64_t bytes)
{
  if (first && (first < l->first || !l->first))
    l->first = first;
  if (last > l->last)
    l->last = last;
  l->records += records;
  l->bytes += bytes;
}

/* A free entry of the pending-loss list.  The list is allocated at session
   start with EMLAT_LOSSES_MIN entries, more than there are loss reasons, and
   grows; when it cannot grow, two entries of the same reason (there always
   are two) become one of stream 0, the writer itself, and the freed entry
   is used: a loss is never dropped for want of memory (F-70). */
static struct emlat_pending_loss *
loss_entry (struct emlat_session *s)
{
  if (s->nlosses == s->losses_cap)
    {
      size_t c = s->losses_cap ? s->losses_cap * 2 : EMLAT_LOSSES_MIN;
      struct emlat_pending_loss *v = realloc (s->losses, c * sizeof *v);
      if (v)
        {
          s->losses = v;
          s->losses_cap = c;
        }
    }
  if (s->nlosses < s->losses_cap)
    return &s->losses[s->nlosses++];
  for (size_t i = 0; i < s->nlosses; i++)
    for (size_t j = i + 1; j < s->nlosses; j++)
      if (s->losses[j].reason == s->losses[i].reason)
        {
          struct emlat_pending_loss *a = &s->losses[i], *b = &s->losses[j];
          a->stream = 0;
          loss_merge (a, b->first, b->last, b->records, b->bytes);
          return b;
        }
  return 0; /* fewer entries than reasons: not after emlat_start */
}

static void
add_loss (struct emlat_session *s, uint64_t stream, unsigned reason, uint64_t first,
          uint64_t last, uint64_t records, uint64_t bytes)
{
  if (records == 0)
    return;
  s->records_dropped += records;
  /* What producers dropped is counted where they dropped it (the rings'
     and the shared counters, summed live by emlat_status); the rest is
     the writer's own. */
  if (reason != EMLAT_LOSS_RING_FULL && reason != EMLAT_LOSS_NO_RING)
    s->writer_dropped += records;
  /* Merge with a pending loss of the same stream and reason. */
  for (size_t i = 0; i < s->nlosses; i++)
    {
      struct emlat_pending_loss *l = &s->losses[i];
      if (l->stream == stream && l->reason == reason)
        {
          loss_merge (l, first, last, records, bytes);
          return;
        }
    }
  struct emlat_pending_loss *l = loss_entry (s);
  if (l)
    *l = (struct emlat_pending_loss){ stream, reason, first, last, records, bytes };
}

/* ------------------------------------------------------------------ */
/* Interaction records                                                 */

static inline struct emlat_ix_entry *
ix_get (struct emlat_session *s, uint64_t cause, uint64_t thread, uint64_t t)
{
  struct emlat_ix_entry *e = emlat_ixtable_find (&s->ix, cause);
  if (!e)
    /* Unknown cause: its begin was lost (counted there) or it was already
       written.  The record cannot be attached to anything. */
    add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, t, t, 1, EMLAT_SLOT_BYTES);
  return e;
}

/* Add D to counter C of E (an absent counter starts at 0), as
   emlat_ix_add does. */
static inline void
ix_count_add (struct emlat_ix_entry *e, unsigned c, uint64_t d)
{
  e->ix.c[c] = (e->ix.cmask & (1u << c) ? e->ix.c[c] : 0) + d;
  e->ix.cmask |= 1u << c;
}

/* Inlined into the drain loop (one call per ring record otherwise). */
static inline __attribute__ ((always_inline)) void
drain_ix (struct emlat_session *s, uint64_t thread, unsigned type, uint64_t h,
          const struct emlat_slot *a, const struct emlat_slot *b)
{
  uint64_t cause = a->w[1];
  unsigned fa = EMLAT_RR_A (h), fb = EMLAT_RR_B (h);
  struct emlat_ix_entry *e;
  switch (type)
    {
    case EMLAT_RR_IX_BEGIN:
      if (fa < 1 || fa > EMLAT_ROOT_KIND_MAX || emlat_ixtable_find (&s->ix, cause))
        {
          add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, b->w[0], b->w[0], 1, 2 * EMLAT_SLOT_BYTES);
          return;
        }
      e = emlat_ixtable_add (&s->ix, cause);
      if (!e)
        {
          add_loss (s, thread, EMLAT_LOSS_WRITER_MEMORY, b->w[0], b->w[0], 1, 2 * EMLAT_SLOT_BYTES);
          return;
        }
      e->has_begin = 1;
      e->represents = 1;
      e->ix.thread = thread;
      e->ix.kind = fa;
      e->ix.parent = a->w[2];
      e->ix.sched = a->w[3];
      e->ix.t_dispatch = b->w[0];
      /* An application interaction's name (app.c); other producers leave
         that word as it was. */
      e->ix.name = fa == EMLAT_ROOT_APPLICATION ? b->w[1] : 0;
      e->ix.tmask |= 1u << EMLAT_T_DISPATCH_BEGIN;
      e->ix.t[EMLAT_T_DISPATCH_BEGIN] = b->w[0];
      if (a->w[2])
        {
          e->ix.vmask |= 1u << EMLAT_V_PARENT_CAUSE;
          e->ix.v[EMLAT_V_PARENT_CAUSE] = a->w[2];
        }
      if (a->w[3])
        {
          e->ix.vmask |= 1u << EMLAT_V_SCHEDULED_BY_CAUSE;
          e->ix.v[EMLAT_V_SCHEDULED_BY_CAUSE] = a->w[3];
        }
      return;
    case EMLAT_RR_IX_TIME:
      if (fa >= EMLAT_T_FIELD_COUNT || fb > EMLAT_Q_MAX)
        break;
      if (!(e = ix_get (s, cause, thread, a->w[2])))
        return;
      e->ix.tmask |= 1u << fa;
      e->ix.t[fa] = a->w[2];
      e->ix.q[fa] = (uint8_t)fb;
      e->represents++;
      return;
    case EMLAT_RR_IX_VALUE:
      if (fa >= EMLAT_V_FIELD_COUNT)
        break;
      if (!(e = ix_get (s, cause, thread, 0)))
        return;
      e->ix.vmask |= 1u << fa;
      e->ix.v[fa] = a->w[2];
      e->represents++;
      return;
    case EMLAT_RR_IX_COUNT:
      if (fa >= EMLAT_C_COUNTER_COUNT || fb > 1)
        break;
      if (!(e = ix_get (s, cause, thread, 0)))
        return;
      if (fb == 1)
        ix_count_add (e, fa, a->w[2]);
      else
        {
          e->ix.c[fa] = a->w[2];
          e->ix.cmask |= 1u << fa;
        }
      e->represents++;
      return;
    case EMLAT_RR_IX_END:
      if (fa < 1 || fa > EMLAT_STATUS_MAX)
        break;
      if (!(e = ix_get (s, cause, thread, a->w[2])))
        return;
      if (e->ended_pass)
        break; /* ended twice */
      e->ix.status = fa;
      e->ix.tmask |= 1u << EMLAT_T_INTERACTION_END;
      e->ix.t[EMLAT_T_INTERACTION_END] = a->w[2];
      e->ended_pass = s->pass;
      e->represents++;
      return;
    }
  add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, 0, 0, 1, EMLAT_SLOT_BYTES);
}

/* The counts of a served span record (ringrec.h, EMLAT_RR_SERVED) added
   to the counters of the interaction the span serves, as emlat_ix_add
   would (an absent counter starts at 0), while it is open.  Once it has
   ended, or when it is unknown, the counts stay the span's only: nothing
   is lost, and nothing is counted. */
static void
add_served (struct emlat_session *s, struct emlat_span_state *ss)
{
  struct emlat_ix_entry *e = emlat_ixtable_find (&s->ix, ss->served_cause);
  if (e && !e->ended_pass)
    {
      for (uint32_t b = ss->served_mask; b; b &= b - 1)
        {
          unsigned c = (unsigned)__builtin_ctz (b);
          ix_count_add (e, c, ss->served[c]);
        }
    }
  ss->served_cause = 0;
  ss->served_mask = 0;
}

/* An IX_FIELDS record of NS slots at ring position AT (ringrec.h): every
   field it carries, merged into its interaction as the one-field records
   would be.  Returns -1 for a malformed record (counted by the caller),
   0 otherwise (an unknown cause is counted here, as for one field). */
static int
drain_ix_fields (struct emlat_session *s, uint64_t thread, uint64_t h,
                 const struct emlat_slot *slots, uint64_t mask, uint64_t at, unsigned ns)
{
  const struct emlat_slot *a = &slots[at & mask];
  unsigned status = EMLAT_RR_A (h), has_q = EMLAT_RR_B (h);
  uint64_t tm = a->w[2] & 0xffffffffu, vm = a->w[2] >> 32, cm = a->w[3];
  if (ns < 2 || has_q > 1 || status > EMLAT_STATUS_MAX || (tm >> EMLAT_T_FIELD_COUNT)
      || (vm >> EMLAT_V_FIELD_COUNT) || (cm >> EMLAT_C_COUNTER_COUNT)
      || (status && !(tm & (1u << EMLAT_T_INTERACTION_END))))
    return -1;
  unsigned nw = (has_q ? 2 : 0) + (unsigned)__builtin_popcountll (tm)
                + (unsigned)__builtin_popcountll (vm) + (unsigned)__builtin_popcountll (cm);
  if ((nw + 3) / 4 != ns - 1)
    return -1;
  uint64_t w[4 * (EMLAT_RR_MAX_SLOTS - 1)];
  for (unsigned i = 0; i < ns - 1; i++)
    memcpy (&w[4 * i], slots[(at + 1 + i) & mask].w, 32);
  /* Nibble f of the quality pair: the quality of time field f (the
     nibbles of fields the record does not carry are 0). */
  unsigned k = has_q ? 2 : 0;
  if (has_q)
    for (uint64_t b = tm; b; b &= b - 1)
      {
        unsigned f = (unsigned)__builtin_ctzll (b);
        if (((w[f / 16] >> (4 * (f % 16))) & 0xf) > EMLAT_Q_MAX)
          return -1;
      }
  struct emlat_ix_entry *e = ix_get (s, a->w[1], thread, 0);
  if (!e)
    return 0;
  if (e->ended_pass)
    return -1; /* fields after the end (emlat.h): not applied */
  for (uint64_t b = tm; b; b &= b - 1)
    {
      unsigned f = (unsigned)__builtin_ctzll (b);
      e->ix.tmask |= 1u << f;
      e->ix.t[f] = w[k++];
      e->ix.q[f] = has_q ? (uint8_t)((w[f / 16] >> (4 * (f % 16))) & 0xf) : 0;
    }
  for (uint64_t b = vm; b; b &= b - 1)
    {
      unsigned f = (unsigned)__builtin_ctzll (b);
      e->ix.vmask |= 1u << f;
      e->ix.v[f] = w[k++];
    }
  for (uint64_t b = cm; b; b &= b - 1)
    {
      unsigned f = (unsigned)__builtin_ctzll (b);
      e->ix.cmask |= 1u << f;
      e->ix.c[f] = w[k++];
    }
  e->represents++;
  if (status)
    {
      e->ix.status = status;
      e->ended_pass = s->pass;
    }
  return 0;
}

struct emlat_enc_input *
emlat_writer_input (struct emlat_session *s, uint64_t thread, unsigned nslots)
{
  if (s->ninputs == s->inputs_cap)
    {
      size_t c = s->inputs_cap ? s->inputs_cap * 2 : 64;
      struct emlat_enc_input *v = realloc (s->inputs, c * sizeof *v);
      if (!v)
        {
          add_loss (s, thread, EMLAT_LOSS_WRITER_MEMORY, 0, 0, 1, nslots * EMLAT_SLOT_BYTES);
          return 0;
        }
      s->inputs = v;
      s->inputs_cap = c;
    }
  return &s->inputs[s->ninputs++];
}

static void
drain_input (struct emlat_session *s, uint64_t thread, uint64_t h, const struct emlat_slot *a,
             const struct emlat_slot *b)
{
  unsigned mask = EMLAT_RR_A (h), q = EMLAT_RR_B (h);
  if ((mask & ~EMLAT_INPUT_MASK_ALL) || ((mask & EMLAT_IB_FIRST_READY) && (q < 1 || q > EMLAT_Q_MAX)))
    {
      add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, 0, 0, 1, 2 * EMLAT_SLOT_BYTES);
      return;
    }
  struct emlat_enc_input *in = emlat_writer_input (s, thread, 2);
  if (!in)
    return;
  in->thread = thread;
  in->batch = a->w[1];
  in->mask = mask;
  in->quality = (mask & EMLAT_IB_FIRST_READY) ? q : 0;
  in->t[0] = a->w[2];
  in->t[1] = a->w[3];
  in->t[2] = b->w[0];
  in->t[3] = b->w[1];
  in->bytes = b->w[2];
}

/* The most slots a record of each type may have, less 2 (zero for every
   other type, defined or not: 2), so that one load and one compare bound
   a record's length. */
static const uint8_t rr_extra_slots[256] = {
  [EMLAT_RR_IX_FIELDS] = EMLAT_RR_MAX_SLOTS - 2,
  [EMLAT_RR_SPAN_COUNTS] = EMLAT_RR_SPAN_COUNTS_MAX_SLOTS - 2,
};

/* Drain ring R from its tail up to SNAP. */
static void
drain_ring (struct emlat_session *s, struct emlat_ring *r, struct emlat_ring_ws *ws, uint64_t snap)
{
  /* Relaxed: only the writer stores tail. */
  uint64_t tail = atomic_load_explicit (&r->tail, memory_order_relaxed);
  if (snap - tail > s->ring_high_water)
    s->ring_high_water = snap - tail;
  uint64_t thread = ws->thread;
  /* The ring's slots in this process's mapping of the pool, from the
     pool's own sizes: not from the ring's slots, mask and nslots, which
     its producer wrote for its own address space (a writer in another
     process, DESIGN.md section 8.7, maps the ring file elsewhere, and
     trusts nothing a producer wrote but the records it validates). */
  size_t ring_index = (size_t)(r - s->pool->rings);
  const struct emlat_slot *slots = s->pool->slab + ring_index * s->pool->nslots;
  uint64_t mask = s->pool->nslots - 1;
  while (tail < snap)
    {
      const struct emlat_slot *a = &slots[tail & mask];
      uint64_t h = a->w[0];
      unsigned type = EMLAT_RR_TYPE (h), ns = EMLAT_RR_NSLOTS (h);
      unsigned max_ns = 2u + rr_extra_slots[type];
      /* 1 <= ns <= max_ns in one unsigned compare (ns 0 wraps). */
      if (ns - 1u >= max_ns || tail + ns > snap)
        {
          /* Cannot happen with our producers; never trust it anyway. */
          add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, 0, 0, 1, (snap - tail) * EMLAT_SLOT_BYTES);
          tail = snap;
          break;
        }
      /* The second slot of a 2-slot record. */
#define SLOT_B (&slots[(tail + 1) & mask])
      switch (type)
        {
        case EMLAT_RR_SPAN_BEGIN:
        case EMLAT_RR_SPAN_END:
        case EMLAT_RR_SPAN_COUNT:
        case EMLAT_RR_SPAN_COUNTS:
          {
            /* The run of span records from here, validated as the other
               types are below; it stops at the first other or malformed
               record, which is invalid when it is this one. */
            uint64_t next = emlat_spans_drain (&ws->spans, slots, mask, tail, snap);
            if (next == tail)
              goto invalid;
            if (ws->spans.served_cause)
              add_served (s, &ws->spans);
            tail = next;
            continue;
          }
        case EMLAT_RR_IX_BEGIN:
          if (ns != 2)
            goto invalid;
          drain_ix (s, thread, EMLAT_RR_IX_BEGIN, h, a, SLOT_B);
          break;
        /* One call per type, each with its type a constant: the
           compiler keeps only that type's case of drain_ix's switch
           (docs/PERFORMANCE.md, "Writer"). */
        case EMLAT_RR_IX_TIME:
          drain_ix (s, thread, EMLAT_RR_IX_TIME, h, a, a);
          break;
        case EMLAT_RR_IX_VALUE:
          drain_ix (s, thread, EMLAT_RR_IX_VALUE, h, a, a);
          break;
        case EMLAT_RR_IX_COUNT:
          drain_ix (s, thread, EMLAT_RR_IX_COUNT, h, a, a);
          break;
        case EMLAT_RR_IX_END:
          drain_ix (s, thread, EMLAT_RR_IX_END, h, a, a);
          break;
        case EMLAT_RR_INPUT:
          if (ns != 2)
            goto invalid;
          drain_input (s, thread, h, a, SLOT_B);
          break;
        case EMLAT_RR_IX_FIELDS:
          if (drain_ix_fields (s, thread, h, slots, mask, tail, ns) != 0)
            goto invalid;
          break;
        case EMLAT_RR_APP:
          if (ns != 1 || emlat_app_drain (s, thread, h, a) != 0)
            goto invalid;
          break;
        case EMLAT_RR_TTY:
          if (emlat_tty_drain (s, ws, ns, a, ns == 2 ? SLOT_B : a) != 0)
            goto invalid;
          break;
        default:
        invalid:
          add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, 0, 0, 1, ns * EMLAT_SLOT_BYTES);
        }
#undef SLOT_B
      tail += ns;
    }
  if (ws->spans.discarded)
    {
      add_loss (s, thread, EMLAT_LOSS_RECORD_INVALID, 0, 0, ws->spans.discarded,
                ws->spans.discarded * EMLAT_SLOT_BYTES);
      ws->spans.discarded = 0;
    }
  /* The tail is released after the pass is written and checkpointed
     (release_rings): until then these slots are what a recovering reader
     would drain again. */

  /* Relaxed: a count for STATS. */
  uint64_t hw = atomic_load_explicit (&r->hw_wakes, memory_order_relaxed);
  if (hw > ws->hw_seen)
    s->highwater_wakes += hw - ws->hw_seen;
  ws->hw_seen = hw;
  uint64_t aw = atomic_load_explicit (&r->ahead_wakes, memory_order_relaxed);
  if (aw > ws->ahead_seen)
    s->ahead_wakes += aw - ws->ahead_seen;
  ws->ahead_seen = aw;

  /* Ring-full drops (F-70).  Acquire pairs with the producer's release
     store of drop_records, making first/last/bytes visible. */
  uint64_t d = atomic_load_explicit (&r->drop_records, memory_order_acquire);
  if (d != ws->drops_reported)
    {
      uint64_t bytes = atomic_load_explicit (&r->drop_bytes, memory_order_relaxed);
      uint64_t first = atomic_load_explicit (&r->drop_first_t, memory_order_relaxed);
      uint64_t last = atomic_load_explicit (&r->drop_last_t, memory_order_relaxed);
      add_loss (s, thread, EMLAT_LOSS_RING_FULL, first, last, d - ws->drops_reported,
                bytes - ws->drop_bytes_reported);
      emlat_tty_model_gap (&ws->tty);
      ws->drops_reported = d;
      ws->drop_bytes_reported = bytes;
      /* Relaxed: only a hint for the producer's choice of drop_first_t. */
      atomic_store_explicit (&r->drop_acked, d, memory_order_relaxed);
    }
}

/* ------------------------------------------------------------------ */
/* Encoding a pass                                                     */

static int
encode_strings (struct emlat_session *s, size_t from, size_t to)
{
  if (from >= to)
    return 0;
  struct emlat_cb cb;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_STRING, 0, 0);
  for (size_t i = from; i < to; i++)
    {
      if (emlat_cb_payload_bytes (&cb) >= s->chunk_bytes)
        {
          if (emlat_cb_finish (&cb, &s->chunks, 0) != 0)
            return -1;
          emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_STRING, 0, 0);
        }
      if (emlat_enc_string (&cb, i + 1, s->strings[i].s, s->strings[i].len) != 0)
        return -1;
    }
  return emlat_cb_finish (&cb, &s->chunks, 0);
}

/* Input batches; each carries one ring record.  On failure (memory), the
   batches of the open chunk and those never encoded are added to *LOST
   (the finished chunks' are the caller's to count); none is kept for the
   next pass. */
static int
encode_inputs (struct emlat_session *s, uint64_t *lost)
{
  if (!s->ninputs)
    return 0;
  struct emlat_cb cb;
  uint64_t base = s->inputs[0].t[2];
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_INPUT, base, 0);
  size_t done = 0; /* batches committed to a chunk */
  int rc = 0;
  for (size_t i = 0; i < s->ninputs; i++)
    {
      if (emlat_cb_payload_bytes (&cb) >= s->chunk_bytes)
        {
          if ((rc = emlat_cb_finish (&cb, &s->chunks, 0)) != 0)
            break;
          emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_INPUT, base, 0);
        }
      if ((rc = emlat_enc_input (&cb, &s->inputs[i])) != 0)
        break;
      done++;
    }
  if (rc == 0)
    rc = emlat_cb_finish (&cb, &s->chunks, 0);
  if (rc != 0)
    *lost += cb.represents + (s->ninputs - done);
  s->ninputs = 0;
  return rc;
}

/* Interactions: complete records for those that ended before this pass (or
   all of them when FINAL), begin records for new open ones.  On failure
   (memory), the records of the open chunk are added to *LOST; an
   interaction whose record was not encoded stays in the table. */
static int
encode_interactions (struct emlat_session *s, int final, uint64_t *lost)
{
  if (!s->ix.nentries)
    return 0;
  struct emlat_cb cb;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_INTERACTION, s->ix.entries[0].ix.t_dispatch, 0);
  for (size_t i = s->ix.nentries; i-- > 0;)
    {
      struct emlat_ix_entry *e = &s->ix.entries[i];
      int complete = final || (e->ended_pass && e->ended_pass < s->pass);
      if (emlat_enc_ix_needs_v2 (&e->ix, complete))
        continue; /* INTERACTION version 2: emlat_app_encode */
      if (!complete && e->begin_written)
        continue;
      if (emlat_cb_payload_bytes (&cb) >= s->chunk_bytes)
        {
          if (emlat_cb_finish (&cb, &s->chunks, 0) != 0)
            goto lost;
          emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_INTERACTION, e->ix.t_dispatch, 0);
        }
      if (complete)
        {
          if (!e->ended_pass)
            e->ix.status = EMLAT_STATUS_OPEN;
          if (emlat_enc_ix_complete (&cb, &e->ix, e->represents) != 0)
            goto lost;
          emlat_ixtable_remove_at (&s->ix, i);
        }
      else
        {
          if (emlat_enc_ix_begin (&cb, &e->ix, 0) != 0)
            goto lost;
          e->begin_written = 1;
        }
    }
  if (emlat_cb_finish (&cb, &s->chunks, 0) == 0)
    return 0;
lost:
  *lost += cb.represents;
  return -1;
}

static int
encode_losses (struct emlat_session *s)
{
  if (!s->nlosses)
    return 0;
  struct emlat_cb cb;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_LOSS, s->losses[0].first, 0);
  for (size_t i = 0; i < s->nlosses; i++)
    {
      struct emlat_pending_loss *l = &s->losses[i];
      if (emlat_enc_loss (&cb, l->stream, l->reason, l->first, l->last, l->records, l->bytes) != 0)
        return -1;
    }
  return emlat_cb_finish (&cb, &s->chunks, 0);
}

static uint64_t
records_accepted (struct emlat_session *s)
{
  /* Heads count on across a ring's owners (registry.c): their sum is
     every slot accepted in the session. */
  return emlat_rings_accepted (s->pool);
}

static int
encode_stats (struct emlat_session *s, int final, uint64_t now, uint64_t carried)
{
  struct emlat_cb cb;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_STATS, 0, 0);
  int rc = 0;
  rc |= emlat_enc_kv_uint (&cb, "stats.time", now);
  rc |= emlat_enc_kv_uint (&cb, "stats.records_accepted", s->records_accepted);
  rc |= emlat_enc_kv_uint (&cb, "stats.records_written", s->records_written + carried);
  rc |= emlat_enc_kv_uint (&cb, "stats.records_dropped", s->records_dropped);
  rc |= emlat_enc_kv_uint (&cb, "stats.bytes_written", s->bytes_written);
  rc |= emlat_enc_kv_uint (&cb, "stats.chunks_written", s->chunks_written);
  /* Relaxed: a count. */
  rc |= emlat_enc_kv_uint (&cb, "stats.threads",
                           atomic_load_explicit (&s->pool->shared->next_thread,
                                                 memory_order_relaxed) - 1);
  rc |= emlat_enc_kv_uint (&cb, "stats.ring_slots", s->ring_slots);
  rc |= emlat_enc_kv_uint (&cb, "stats.ring_high_water", s->ring_high_water);
  rc |= emlat_enc_kv_uint (&cb, "stats.writer_cpu_ns", s->writer_cpu_ns);
  rc |= emlat_enc_kv_uint (&cb, "stats.clock_read_ns", emlat_clock_read_cost_ns ());
  rc |= emlat_enc_kv_uint (&cb, "stats.write_errors", s->write_errors);
  rc |= emlat_enc_kv_uint (&cb, "stats.writer_wakeups", s->wakeups);
  rc |= emlat_enc_kv_uint (&cb, "stats.highwater_wakes", s->highwater_wakes);
  rc |= emlat_enc_kv_uint (&cb, "stats.ahead_wakes", s->ahead_wakes);
  if (s->checkpoints_failed)
    rc |= emlat_enc_kv_uint (&cb, "stats.checkpoints_failed", s->checkpoints_failed);
  if (s->encodings_deferred)
    rc |= emlat_enc_kv_uint (&cb, "stats.encodings_deferred", s->encodings_deferred);
  if (s->recovering)
    rc |= emlat_enc_kv_uint (&cb, "stats.recovered", 1);
  /* How the recording process ended, when the recovery was told: its
     parent reaped it (`emlat record`, `emlat replay`). */
  if (s->recovering && s->exit_known && WIFEXITED (s->exit_status))
    rc |= emlat_enc_kv_uint (&cb, "stats.exit_code", (uint64_t)WEXITSTATUS (s->exit_status));
  else if (s->recovering && s->exit_known && WIFSIGNALED (s->exit_status))
    rc |= emlat_enc_kv_uint (&cb, "stats.exit_signal", (uint64_t)WTERMSIG (s->exit_status));
  /* The passes ran in the driver (DESIGN.md 8.7): writer_cpu_ns is its
     drain thread's CPU, not the recording process's. */
  if (s->writer_in_driver)
    rc |= emlat_enc_kv_uint (&cb, "stats.writer_in_driver", 1);
  /* A recovered profile ends cleanly only if its process had stopped. */
  rc |= emlat_enc_kv_uint (&cb, "stats.final",
                           final && (!s->recovering || s->recovered_stopped) ? 1 : 0);
  if (rc)
    return -1;
  return emlat_cb_finish (&cb, &s->chunks, 1);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static int
encode_session (struct emlat_session *s)
{
  struct emlat_cb cb;
  emlat_cb_begin (&cb, &s->arena, EMLAT_CHUNK_SESSION, 0, 0);
  for (size_t i = 0; i < s->nmeta; i++)
    {
      struct emlat_meta_kv *kv = &s->meta[i];
      int rc = kv->type == EMLAT_META_UINT   ? emlat_enc_kv_uint (&cb, kv->key, kv->u)
               : kv->type == EMLAT_META_SINT ? emlat_enc_kv_sint (&cb, kv->key, kv->i)
                                             : emlat_enc_kv_str (&cb, kv->key, kv->s, kv->s_len);
      if (rc)
        return -1;
    }
  return emlat_cb_finish (&cb, &s->chunks, 1);
}

/* Write the chunks of s->chunks[from..] as one writev, prefixed by HDR
   (64 bytes) when not NULL, into the profile, or with TO_RING into the
   ring file's prologue area for the driver to write (F-106: the file
   then counts them as written).  Seals sequence numbers.  Returns 0 or
   -errno; on failure the sequence counter is rewound. */
static int
write_chunks (struct emlat_session *s, const uint8_t *hdr, size_t from, int to_ring)
{
  size_t n = s->chunks.n - from + (hdr ? 1 : 0);
  if (n == 0)
    return 0;
  struct iovec stackv[64];
  struct iovec *v = n <= 64 ? stackv : malloc (n * sizeof *v);
  if (!v)
    return -ENOMEM;
  size_t k = 0, bytes = 0;
  uint64_t seq0 = s->chunk_seq;
  if (hdr)
    {
      v[k].iov_base = (void *)hdr;
      v[k++].iov_len = EMLAT_FILE_HEADER_SIZE;
      bytes += EMLAT_FILE_HEADER_SIZE;
    }
  for (size_t i = from; i < s->chunks.n; i++)
    {
      struct emlat_chunk_ref *c = &s->chunks.v[i];
      emlat_chunk_seal (s->arena.buf + c->off, ++s->chunk_seq);
      v[k].iov_base = s->arena.buf + c->off;
      v[k++].iov_len = c->len;
      bytes += c->len;
    }
  int rc = to_ring ? emlat_rf_prologue_write (&s->ring, v, (int)k, bytes)
                   : emlat_out_append (&s->out, v, (int)k);
  if (v != stackv)
    free (v);
  if (rc != 0)
    {
      s->chunk_seq = seq0;
      return rc;
    }
  if (to_ring)
    s->out.size += bytes;
  s->bytes_written += bytes;
  s->chunks_written += k - (hdr ? 1 : 0);
  return 0;
}

/* Start file number s->rotation at PATH: header, SESSION, all strings;
   TO_RING: kept in the ring file for the driver (write_chunks). */
static int
start_file (struct emlat_session *s, int to_ring)
{
  uint8_t hdr[EMLAT_FILE_HEADER_SIZE];
  emlat_file_header (hdr, s->uuid, s->rotation, s->realtime0, s->mono0);
  size_t from = s->chunks.n;
  /* The strings already written in earlier files; strings new in the
     current pass follow in the pass's own STRING chunk (F-41, F-62). */
  size_t total = s->strings_in_file;
  pthread_mutex_lock (&s->lock);
  int rc = encode_session (s);
  if (rc == 0)
    rc = encode_strings (s, 0, total);
  pthread_mutex_unlock (&s->lock);
  if (rc != 0)
    return -ENOMEM;
  rc = write_chunks (s, hdr, from, to_ring);
  s->chunks.n = from;
  return rc;
}

int
emlat_writer_open_first (struct emlat_session *s)
{
  /* A driven session leaves the profile's start in its ring file: its
     driver, or the recovery that finishes the profile, writes it (F-106);
     an empty file made for it is only checked, not opened. */
  int to_ring = s->driven && s->ring.fd >= 0;
  /* Already open when emlat_start reserved a name in a directory. */
  enum emlat_out_mode mode = s->overwrite      ? EMLAT_OUT_OVERWRITE
                             : s->adopt_empty ? EMLAT_OUT_ADOPT_EMPTY
                                              : EMLAT_OUT_NEW;
  int rc = s->out.fd >= 0                 ? 0
           : !s->base_path || !s->base_path[0] ? -EINVAL
           : to_ring && s->adopt_empty ? emlat_out_adopt_unopened (&s->out, s->base_path)
                                          : emlat_out_open (&s->out, s->base_path, mode);
  if (rc != 0)
    return rc;
  emlat_arena_reset (&s->arena);
  emlat_chunk_list_reset (&s->chunks);
  rc = start_file (s, to_ring);
  s->start_in_ring = to_ring && rc == 0;
  if (rc != 0 && rc != -ENOMEM && to_ring)
    /* A SESSION too large for the ring file's area, or the area not
       writable (tmpfs full): the profile gets the start now. */
    rc = emlat_writer_start_in_profile (s);
  if (rc != 0)
    {
      emlat_out_close (&s->out);
      unlink (s->base_path);
    }
  return rc;
}

int
emlat_writer_start_in_profile (struct emlat_session *s)
{
  enum emlat_out_mode mode = s->overwrite ? EMLAT_OUT_OVERWRITE : EMLAT_OUT_ADOPT_EMPTY;
  s->start_in_ring = 0;
  s->chunk_seq = 0;
  s->bytes_written = s->chunks_written = 0;
  s->out.size = 0;
  emlat_arena_reset (&s->arena);
  emlat_chunk_list_reset (&s->chunks);
  /* The file exists: checked empty and ours, or created, by
     emlat_writer_open_first, which left its path in out (released before
     the open takes a new one). */
  int rc = 0;
  if (s->out.fd < 0)
    {
      emlat_out_free (&s->out);
      rc = emlat_out_open (&s->out, s->base_path, mode);
    }
  if (rc == 0)
    rc = start_file (s, 0);
  if (rc != 0)
    {
      emlat_out_close (&s->out);
      unlink (s->base_path);
    }
  return rc;
}

static int
rotate (struct emlat_session *s)
{
  char name[4096];
  if (emlat_out_rotated_name (name, sizeof name, s->base_path, s->rotation + 1) != 0)
    return -ENAMETOOLONG;
  struct emlat_out next;
  /* A rotated file is always new (nobody creates it for us). */
  int rc = emlat_out_open (&next, name, s->overwrite ? EMLAT_OUT_OVERWRITE : EMLAT_OUT_NEW);
  if (rc != 0)
    return rc;
  struct emlat_out prev = s->out;
  s->out = next;
  s->rotation++;
  rc = start_file (s, 0);
  if (rc != 0)
    {
      /* Keep writing into the previous file. */
      emlat_out_free (&s->out);
      unlink (name);
      s->out = prev;
      s->rotation--;
      return rc;
    }
  emlat_out_free (&prev);
  return 0;
}

/* ------------------------------------------------------------------ */
/* The pass                                                            */

/* What the steps of one pass share. */
struct pass_state
{
  int final;          /* the last pass: every interaction is written */
  int want_rotate;    /* emlat_rotate asked for a new file */
  uint32_t used;      /* rings ever claimed, when the pass began */
  uint64_t *snaps;    /* snaps[i]: ring i's head at the snapshot */
  int *states;        /* states[i]: ring i's state at the snapshot */
  size_t nstr;        /* strings defined at the snapshot */
  int rc;             /* nonzero: an encoder ran out of memory */
  uint64_t enc_lost;  /* records a failed encoder could not place */
  uint64_t now;       /* after encoding: STATS time */
  int write_stats;    /* a STATS chunk is due */
  int losses_encoded; /* the pending losses are in this pass's chunks */
  uint64_t carried;   /* ring records in the pass's data chunks */
  uint64_t first_t, last_t; /* their time range */
};

static int
ring_has_owner (int state)
{
  return state == EMLAT_RING_OWNED || state == EMLAT_RING_RETIRING;
}

/* Number the pass, measure the time since the previous snapshot and take
   the rotation request (under the session lock). */
static void
pass_begin (struct emlat_session *s, struct pass_state *ps)
{
  pthread_mutex_lock (&s->lock);
  s->pass = ++s->passes_started;
  s->last_pass_t = emlat_clock_now ();
  ps->want_rotate = s->rotate_req;
  s->rotate_req = 0;
  pthread_mutex_unlock (&s->lock);
}

/* Step 1: snapshot every live ring's head; a ring with a new owner gets
   fresh writer state. */
static void
snapshot_heads (struct emlat_session *s, struct pass_state *ps)
{
  for (uint32_t i = 0; i < ps->used; i++)
    {
      struct emlat_ring *r = &s->pool->rings[i];
      /* Acquire: pairs with the claimer's release of OWNED (ring
         initialised) and the exit destructor's release of RETIRING. */
      ps->states[i] = atomic_load_explicit (&r->state, memory_order_acquire);
      if (!ring_has_owner (ps->states[i]))
        continue;
      if (s->ws[i].thread != r->thread_id)
        {
          /* A new owner: the drop counters count on (registry.c), and
             the old owner's were all reported before its ring was freed,
             so drops_reported stays. */
          emlat_spans_reset (&s->ws[i].spans, r->thread_id);
          emlat_tty_model_reset (&s->ws[i].tty);
          s->ws[i].thread = r->thread_id;
        }
      /* Acquire: the slots below head are fully written. */
      ps->snaps[i] = atomic_load_explicit (&r->head, memory_order_acquire);
    }
}

/* Step 2: the strings defined so far, taken after the snapshot (F-41), and
   the strings refused since the last pass as a LOSS. */
static void
encode_new_strings (struct emlat_session *s, struct pass_state *ps)
{
  pthread_mutex_lock (&s->lock);
  if (s->external)
    {
      /* The recording process's strings, from the ring file's log (its
         count is acquire-loaded there, after this pass's snapshot), and
         its count of refused ones.  Relaxed: a count, reported by the
         next pass if it moves on. */
      emlat_rfs_take_strings (s, &s->ring);
      s->strings_refused = atomic_load_explicit (&s->ring.h->strings_refused, memory_order_relaxed);
    }
  ps->nstr = s->nstrings;
  ps->rc |= encode_strings (s, s->strings_in_file, ps->nstr);
  uint64_t refused = s->strings_refused - s->strings_refused_reported;
  s->strings_refused_reported = s->strings_refused;
  pthread_mutex_unlock (&s->lock);
  if (refused)
    {
      uint64_t t = emlat_clock_now ();
      add_loss (s, 0, EMLAT_LOSS_STRING_FULL, t, t, refused, 0);
    }
}

/* Step 3, with the SPAN chunks of step 4: drain each ring up to its
   snapshot, encode its spans, and free the rings whose owner exited. */
static void
drain_rings (struct emlat_session *s, struct pass_state *ps)
{
  for (uint32_t i = 0; i < ps->used; i++)
    {
      if (!ring_has_owner (ps->states[i]))
        continue;
      struct emlat_ring *r = &s->pool->rings[i];
      struct emlat_ring_ws *ws = &s->ws[i];
      /* The ring's SPAN chunk is open in the arena from here to emit. */
      emlat_spans_pass_begin (&ws->spans, &s->arena, &s->chunks, s->chunk_bytes);
      drain_ring (s, r, ws, ps->snaps[i]);
      ps->rc |= emlat_spans_emit (&ws->spans);
      if (ws->spans.lost_memory)
        {
          uint64_t n = ws->spans.lost_memory;
          add_loss (s, ws->thread, EMLAT_LOSS_WRITER_MEMORY, 0, 0, n, n * EMLAT_SLOT_BYTES);
          ws->spans.lost_memory = 0;
        }
      if (ps->final || ps->states[i] == EMLAT_RING_RETIRING)
        {
          /* Terminal calls that informed no interaction (a wait with no
             input after it) were read: they are accounted as written. */
          ps->carried += ws->tty.unfolded;
          ws->tty.unfolded = 0;
          /* Spans still open stay begin records, which carry no counters:
             the counters they had are lost, and counted (F-70). */
          emlat_spans_abandon (&ws->spans);
          if (ws->spans.discarded)
            {
              uint64_t n = ws->spans.discarded;
              add_loss (s, ws->thread, EMLAT_LOSS_RECORD_INVALID, 0, 0, n, n * EMLAT_SLOT_BYTES);
              ws->spans.discarded = 0;
            }
        }
      if (ps->states[i] == EMLAT_RING_RETIRING)
        {
          /* The owner exited: nothing more will be published.  Open spans
             stay as begin records (incomplete, F-68).  The ring is freed
             by release_rings, after the checkpoint. */
          emlat_spans_reset (&ws->spans, 0);
          emlat_tty_model_reset (&ws->tty);
          ws->thread = 0;
          ws->hw_seen = 0;
          ws->ahead_seen = 0;
        }
    }
}

/* Step 3, end: the records of threads that found no ring as a LOSS. */
static void
account_noring (struct emlat_session *s)
{
  struct emlat_shared_counters *c = s->pool->shared;
  /* Relaxed: counters only; a record counted after this load is reported
     by the next pass. */
  uint64_t nr = atomic_load_explicit (&c->noring_records, memory_order_relaxed);
  if (nr == s->noring_reported)
    return;
  uint64_t nb = atomic_load_explicit (&c->noring_bytes, memory_order_relaxed);
  add_loss (s, 0, EMLAT_LOSS_NO_RING,
            atomic_load_explicit (&c->noring_first_t, memory_order_relaxed),
            atomic_load_explicit (&c->noring_last_t, memory_order_relaxed),
            nr - s->noring_reported, nb - s->noring_bytes_reported);
  s->noring_reported = nr;
  s->noring_bytes_reported = nb;
}

/* Step 4, the rest: INPUT and INTERACTION chunks; if an encoder ran out of
   memory, the pass's data chunks are dropped and their records (and those
   the encoders could not place) become a LOSS; then LOSS and STATS. */
static void
encode_pass (struct emlat_session *s, struct pass_state *ps)
{
  ps->rc |= encode_inputs (s, &ps->enc_lost);
  ps->rc |= emlat_app_encode (s, ps->final, &ps->enc_lost);
  ps->rc |= emlat_sampler_encode (s, ps->final);
  ps->rc |= encode_interactions (s, ps->final, &ps->enc_lost);

  ps->now = emlat_clock_now ();
  ps->write_stats
    = ps->final || ps->now - s->last_stats_t >= (uint64_t)s->stats_ms * 1000000u;
  /* The thread-CPU clock is a system call: read it when there is something
     to account for, not on every idle wake-up. */
  if ((s->chunks.n || ps->write_stats || s->nlosses) && !s->recovering)
    s->writer_cpu_ns = emlat_thread_cpu_ns ();
  s->records_accepted = records_accepted (s);

  /* Chunks that carry ring records, for write-error accounting. */
  if (ps->rc != 0 || s->arena.failed)
    {
      /* Out of memory while encoding: this pass's records are lost, those
         of its finished chunks and those the encoders could not place
         (the spans' are already counted per thread). */
      uint64_t lost = ps->enc_lost;
      for (size_t i = 0; i < s->chunks.n; i++)
        lost += s->chunks.v[i].records;
      emlat_arena_reset (&s->arena);
      emlat_chunk_list_reset (&s->chunks);
      add_loss (s, 0, EMLAT_LOSS_WRITER_MEMORY, ps->now, ps->now, lost,
                lost * EMLAT_SLOT_BYTES);
    }
  for (size_t i = 0; i < s->chunks.n; i++)
    {
      struct emlat_chunk_ref *c = &s->chunks.v[i];
      ps->carried += c->records;
      if (c->first_t && (!ps->first_t || c->first_t < ps->first_t))
        ps->first_t = c->first_t;
      if (c->last_t > ps->last_t)
        ps->last_t = c->last_t;
    }

  size_t n_data = s->chunks.n;
  /* LOSS and STATS go last; their loss on a write error is re-counted. */
  ps->losses_encoded = 1;
  if (encode_losses (s) != 0
      || (ps->write_stats && encode_stats (s, ps->final, ps->now, ps->carried) != 0))
    {
      /* Write what we have.  Nothing is lost: the losses stay pending and
         STATS stays due, both encoded again by the next pass; the next
         STATS that is written counts the deferral. */
      s->chunks.n = n_data;
      ps->losses_encoded = 0;
      ps->write_stats = 0;
      s->encodings_deferred++;
    }
}

static void
note_write_error (struct emlat_session *s, int neg_errno)
{
  s->write_errors++;
  s->last_error = -neg_errno;
  if (!s->first_error)
    s->first_error = -neg_errno;
}

/* Step 5, first half: rotate when asked or when the pass would take the
   file past the rotation size, and answer the rotation request. */
static void
rotate_if_due (struct emlat_session *s, struct pass_state *ps)
{
  uint64_t pass_bytes = 0;
  for (size_t i = 0; i < s->chunks.n; i++)
    pass_bytes += s->chunks.v[i].len;
  if (!ps->final && s->out.fd >= 0
      && (ps->want_rotate
          || (s->rotate_bytes && s->out.size > EMLAT_FILE_HEADER_SIZE
              && s->out.size + pass_bytes > s->rotate_bytes)))
    {
      /* start_file encodes its own chunks after ours; they are written and
         dropped before ours are sealed, so sequence numbers stay in order. */
      size_t keep = s->chunks.n;
      int r = rotate (s);
      s->chunks.n = keep;
      pthread_mutex_lock (&s->lock);
      s->rotate_result = r;
      pthread_mutex_unlock (&s->lock);
      if (r != 0)
        note_write_error (s, r);
    }
  else if (ps->want_rotate)
    {
      pthread_mutex_lock (&s->lock);
      s->rotate_result = s->out.fd >= 0 ? 0 : -EBADF;
      pthread_mutex_unlock (&s->lock);
    }
}

/* Step 5, second half: seal and append the pass's chunks with one writev;
   a failed write is accounted as loss (write_error). */
static void
write_pass (struct emlat_session *s, struct pass_state *ps)
{
  int rc = s->chunks.n ? write_chunks (s, 0, 0, 0) : 0;
  if (rc == 0)
    {
      s->records_written += ps->carried;
      s->strings_in_file = ps->nstr;
      if (ps->losses_encoded)
        s->nlosses = 0;
      if (ps->write_stats)
        s->last_stats_t = ps->now;
      return;
    }
  note_write_error (s, rc);
  /* The LOSS records of this pass were not written: keep them pending
     (they are re-encoded next pass), and add the records the failed data
     chunks carried. */
  add_loss (s, 0, EMLAT_LOSS_WRITE_ERROR, ps->first_t ? ps->first_t : ps->now,
            ps->last_t ? ps->last_t : ps->now, ps->carried, ps->carried * EMLAT_SLOT_BYTES);
}

/* Step 6: save the writer's state into the ring file (checkpoint.h), so
   that a reader recovering the ring file after a crash knows what the
   profile holds.  Without a ring file, or once a checkpoint failed (the
   ring file then says it cannot be trusted), nothing. */
static void
checkpoint (struct emlat_session *s, struct pass_state *ps)
{
  if (s->recovering || s->ring.fd < 0 || !s->ring.h)
    return;
  struct emlat_ckpt_body body;
  int rc = emlat_ckpt_save (s, ps->snaps, ps->states, ps->used, &body);
  if (rc == 0)
    {
      rc = emlat_rf_ckpt_write (&s->ring, ++s->ckpt_seq, body.v, body.n, body.len);
      emlat_ckpt_body_free (&body);
    }
  if (rc != 0)
    {
      /* Relaxed: the state word is read after the process ended. */
      atomic_store_explicit (&s->ring.h->state, EMLAT_RF_BROKEN, memory_order_relaxed);
      pthread_mutex_lock (&s->lock); /* emlat_string reads ring.fd under it */
      emlat_rf_detach (&s->ring, 0);
      pthread_mutex_unlock (&s->lock);
      /* The profile itself is whole; what is lost is the protection of
         the records not yet drained, which STATS says. */
      s->checkpoints_failed++;
    }
}

/* Step 7: hand the drained slots back to their producers and free the
   rings whose owner exited. */
static void
release_rings (struct emlat_session *s, struct pass_state *ps)
{
  uint32_t freed = 0;
  for (uint32_t i = 0; i < ps->used; i++)
    {
      if (!ring_has_owner (ps->states[i]))
        continue;
      struct emlat_ring *r = &s->pool->rings[i];
      /* Release: we are done reading the slots below the snapshot; the
         producer's acquire load of tail lets it overwrite them. */
      atomic_store_explicit (&r->tail, ps->snaps[i], memory_order_release);
      if (ps->states[i] == EMLAT_RING_RETIRING)
        {
          /* Seq_cst (a release, and ordered before emlat_rings_freed's
             read of exit_waiters, state.h): our reads of the ring are done
             before a new owner claims it (its CAS acquires this). */
          atomic_store (&r->state, EMLAT_RING_FREE);
          freed++;
        }
    }
  if (freed)
    emlat_rings_freed (s->pool, freed);
}

/* A driver draining another process's ring file (drain.c): its status in
   the file's header for that process's emlat_status, and the answer to
   its flushes once the passes they asked for are done. */
static void
publish_external_status (struct emlat_session *s)
{
  struct emlat_rf_header *h = s->ring.h;
  /* Relaxed: counts for a status, published by the release below when a
     flush is answered. */
  atomic_store_explicit (&h->d_records_written, s->records_written, memory_order_relaxed);
  atomic_store_explicit (&h->d_records_dropped, s->writer_dropped, memory_order_relaxed);
  atomic_store_explicit (&h->d_bytes_written, s->bytes_written, memory_order_relaxed);
  atomic_store_explicit (&h->d_chunks_written, s->chunks_written, memory_order_relaxed);
  atomic_store_explicit (&h->d_ring_high_water, s->ring_high_water, memory_order_relaxed);
  atomic_store_explicit (&h->d_writer_cpu_ns, s->writer_cpu_ns, memory_order_relaxed);
  atomic_store_explicit (&h->d_write_errors, s->write_errors, memory_order_relaxed);
  atomic_store_explicit (&h->d_last_error, s->last_error, memory_order_relaxed);
  if (s->flush_answered == s->flush_asked || s->passes_done < s->flush_target)
    return;
  s->flush_answered = s->flush_asked;
  /* Release: the passes' writes and the status above happen-before the
     flusher's acquire load of the answer. */
  atomic_store_explicit (&h->flush_done, s->flush_answered, memory_order_release);
  syscall (SYS_futex, &h->flush_done, FUTEX_WAKE, INT_MAX, 0, 0, 0);
}

/* A driver's look at the recording process's requests (drain.c): a new
   flush asks for a pass that starts after it and one more, as
   emlat_flush does in-process.  Returns 1 when the process stopped its
   session (its last records are the reader's, as at any deferred stop).
   Caller holds the session lock. */
static int
external_requests (struct emlat_session *s)
{
  struct emlat_rf_header *h = s->ring.h;
  /* Relaxed: the stop only ends the waiting; records are read through
     each ring's head. */
  if (atomic_load_explicit (&h->state, memory_order_relaxed) == EMLAT_RF_STOPPED)
    return 1;
  /* Acquire: pairs with the flusher's increment; what it published before
     asking is visible to the passes that follow. */
  uint32_t asked = atomic_load_explicit (&h->flush_req, memory_order_acquire);
  if (asked != s->flush_asked)
    {
      s->flush_asked = asked;
      if (s->flush_target < s->passes_started + 2)
        s->flush_target = s->passes_started + 2;
    }
  return 0;
}

/* The status snapshot emlat_status reads, and wake the flushers. */
static void
publish_status (struct emlat_session *s)
{
  pthread_mutex_lock (&s->lock);
  s->passes_done = s->pass;
  s->st.session_records = s->records_accepted;
  s->st.records_written = s->records_written;
  s->st.records_dropped = s->records_dropped;
  s->st.bytes_written = s->bytes_written;
  s->st.chunks_written = s->chunks_written;
  s->st.files = s->rotation + 1;
  s->st.ring_high_water = s->ring_high_water;
  s->st.writer_cpu_ns = s->writer_cpu_ns;
  s->st.write_errors = s->write_errors;
  s->st_writer_dropped = s->writer_dropped;
  s->st.last_error = s->last_error;
  /* Relaxed: a count for the status only. */
  s->st.threads = atomic_load_explicit (&s->pool->shared->next_thread, memory_order_relaxed) - 1;
  if (s->out.path && (!s->st_path || strcmp (s->st_path, s->out.path) != 0))
    {
      /* A new file (rotation, or a drainer's reopened profile).  Without
         memory for its name the status keeps the previous one, and the
         next pass tries again. */
      char *p = strdup (s->out.path);
      if (p)
        {
          free (s->st_path);
          s->st_path = p;
        }
    }
  if (s->external && s->ring.h)
    publish_external_status (s);
  pthread_cond_broadcast (&s->done);
  pthread_mutex_unlock (&s->lock);
}

/* ------------------------------------------------------------------ */
/* Mapping ahead (ring.h, DESIGN.md section 14)                        */

/* Load one byte of the page at P and discard it.  A producer may be
   storing into that page at the same moment (when it outran the writer):
   the load is of a byte whose value is not used, made only so that the
   processor's page tables -- and a hypervisor's shadow of them -- map the
   page for this process before the producer's first store, and is kept
   out of the thread sanitiser's view for that reason. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMLAT_NO_TSAN __attribute__ ((no_sanitize ("thread")))
#endif
#endif
#if !defined(EMLAT_NO_TSAN) && defined(__SANITIZE_THREAD__)
#define EMLAT_NO_TSAN __attribute__ ((no_sanitize_thread))
#endif
#ifndef EMLAT_NO_TSAN
#define EMLAT_NO_TSAN
#endif

static EMLAT_NO_TSAN void
touch_pages (const unsigned char *from, const unsigned char *to, size_t page)
{
  for (const unsigned char *p = from; p < to; p += page)
    (void)*(const volatile unsigned char *)p;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14's value, for older headers */
#endif

/* Map the pages of [FROM, TO) (page-aligned) writable: MADV_POPULATE_WRITE
   allocates them in the kernel without a fault per page, then a read of
   each page fills the translation caches of this process.  Returns 0, or
   -1 when the kernel refused (before Linux 5.14), or could not allocate
   the pages (a full tmpfs: it reports what the producer's store would
   have met as SIGBUS): the pages are then left to the producer, as
   without mapping ahead, and nothing is read. */
static int
map_pages (struct emlat_session *s, unsigned char *from, unsigned char *to)
{
  if (s->populate_unsupported)
    return -1;
  if (madvise (from, (size_t)(to - from), MADV_POPULATE_WRITE) != 0)
    {
      if (errno == EINVAL)
        s->populate_unsupported = 1;
      return -1;
    }
  touch_pages (from, to, s->page_bytes);
  return 0;
}

/* Ring I's first lap mapped to EMLAT_RING_AHEAD slots beyond HEAD (or its
   end), from where it was mapped or HEAD's page, whichever is further. */
static void
map_ring_ahead (struct emlat_session *s, uint32_t i, uint64_t head)
{
  struct emlat_ring *r = &s->pool->rings[i];
  uint64_t nslots = s->pool->nslots;
  /* Relaxed: only this thread stores it (ring.h). */
  uint64_t mapped = atomic_load_explicit (&r->mapped, memory_order_relaxed);
  if (mapped >= nslots)
    return;
  /* A ring's slots are a whole number of pages (a power of two of at
     least EMLAT_RING_AHEAD_MIN_SLOTS slots, page-aligned in the ring
     file and in anonymous memory). */
  const uint64_t page_slots = s->page_bytes / EMLAT_SLOT_BYTES;
  uint64_t target = head + EMLAT_RING_AHEAD;
  target = target >= nslots ? nslots : (target + page_slots - 1) / page_slots * page_slots;
  if (target <= mapped)
    return;
  uint64_t from = head / page_slots * page_slots;
  if (from < mapped)
    from = mapped;
  if (from < target)
    {
      unsigned char *base = (unsigned char *)(s->pool->slab + (size_t)i * nslots);
      if (map_pages (s, base + from * EMLAT_SLOT_BYTES, base + target * EMLAT_SLOT_BYTES) != 0)
        /* Not mapped: the producer maps its pages by its stores, and
           rings for this no more. */
        target = nslots;
    }
  /* Relaxed: a hint for the producer (ring.h); the pages are mapped
     whether or not it sees the new value. */
  atomic_store_explicit (&r->mapped, target, memory_order_relaxed);
}

static int rings_need_pass (struct emlat_session *s, int *any_pending, int *ahead);

/* Every owned ring in its first lap mapped ahead of its head: after each
   pass, and when a producer rang for it.  Draining comes first: once a
   ring is due for a pass (high water, a thread's exit), the rest waits
   for the pass, which maps ahead again at its end. */
static void
map_ahead (struct emlat_session *s)
{
  if (!s->map_ahead || !emlat_ring_maps_ahead (s->pool->nslots))
    return;
  uint32_t used = emlat_pool_used (s->pool);
  for (uint32_t i = 0; i < used; i++)
    {
      int pending, ahead;
      if (i > 0 && rings_need_pass (s, &pending, &ahead))
        return;
      struct emlat_ring *r = &s->pool->rings[i];
      /* Acquire: pairs with the claimer's release of OWNED. */
      if (atomic_load_explicit (&r->state, memory_order_acquire) != EMLAT_RING_OWNED)
        continue;
      /* Relaxed: where the producer is, as a hint (its slots are not read). */
      map_ring_ahead (s, i, atomic_load_explicit (&r->head, memory_order_relaxed));
    }
}

/* One pass, the steps of the comment at the top of this file. */
static void
pass (struct emlat_session *s, int final)
{
  /* Rings above the bound were never claimed (their state would read FREE
     anyway). */
  uint32_t used = emlat_pool_used (s->pool);
  uint64_t snaps[used ? used : 1];
  int states[used ? used : 1];
  struct pass_state ps = { .final = final, .used = used, .snaps = snaps, .states = states };

  pass_begin (s, &ps);
  snapshot_heads (s, &ps);
  emlat_arena_reset (&s->arena);
  emlat_chunk_list_reset (&s->chunks);
  encode_new_strings (s, &ps);
  drain_rings (s, &ps);
  account_noring (s);
  encode_pass (s, &ps);
  rotate_if_due (s, &ps);
  write_pass (s, &ps);
  checkpoint (s, &ps);
  release_rings (s, &ps);
  publish_status (s);
  if (!final)
    map_ahead (s);
}

/* Whether a ring needs the writer now: its owner exited, or it is filled
   past its high-water mark (emlat_ring_due).  ANY_PENDING: whether any
   ring holds records not yet written.  AHEAD: whether a ring's producer
   may have rung for mapping ahead (emlat_ring_ahead_due; the producer
   rings while reserving a record, before publishing it, hence the margin
   of a record). */
static int
rings_need_pass (struct emlat_session *s, int *any_pending, int *ahead)
{
  uint32_t used = emlat_pool_used (s->pool);
  int need = 0;
  *any_pending = 0;
  *ahead = 0;
  for (uint32_t i = 0; i < used && !need; i++)
    {
      struct emlat_ring *r = &s->pool->rings[i];
      /* Acquire: pairs with the release of OWNED / RETIRING. */
      int st = atomic_load_explicit (&r->state, memory_order_acquire);
      if (st == EMLAT_RING_RETIRING)
        need = 1;
      if (st != EMLAT_RING_OWNED)
        continue;
      /* Relaxed: a hint; the pass acquire-loads head before reading. */
      uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
      uint64_t tl = atomic_load_explicit (&r->tail, memory_order_relaxed);
      if (h != tl)
        *any_pending = 1;
      /* Within a record of the mark (ring.h; should this look still
         miss a ring, the producer rings again at its next look, a
         mark's worth later). */
      if (emlat_ring_due (s->pool->nslots, h, tl))
        need = 1;
      /* Relaxed: only this thread stores it (0, never due, for a ring not
         mapped ahead). */
      uint64_t mapped = atomic_load_explicit (&r->mapped, memory_order_relaxed);
      if (emlat_ring_ahead_due (s->pool->nslots, h + EMLAT_RR_MAX_SLOTS, mapped))
        *ahead = 1;
    }
  return need;
}

/* A driver stops draining (the program stopped, or the driver gives up).
   The program's resource samples are the driver's alone: the recovery that
   writes the last records runs where the program cannot be sampled, and
   samples are not ring records.  So the last sample is taken now, while
   the program may still be there to read (the drivers stop the drainer
   after the program exited and before they reap it; a reaped one gives
   none), and one more pass writes the samples not yet written with what
   the rings hold; nothing is mapped ahead any more. */
static void
external_last_samples (struct emlat_session *s)
{
  emlat_sampler_take (&s->sampler, emlat_clock_now ());
  if (s->sampler.npending == 0)
    return;
  s->map_ahead = 0;
  pass (s, 0);
}

void *
emlat_writer_main (void *arg)
{
  struct emlat_session *s = arg;
  /* The host's signals are delivered to its own threads, never here. */
  sigset_t all;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, 0);
  /* A driver draining another process's rings names its thread apart
     from its own session's writer (bench_gate's idle count finds it). */
  prctl (PR_SET_NAME, s->external ? "emlat-drain" : "emlat-writer", 0, 0, 0);
  /* The baseline resource sample (sample.h). */
  emlat_sampler_take (&s->sampler, emlat_clock_now ());
  /* The first ring a thread will claim (claims take the lowest free
     ring, registry.c): usually the thread that started the session, the
     program's main thread, whose first records would otherwise fault in
     the pages one by one. */
  if (s->map_ahead && emlat_ring_maps_ahead (s->pool->nslots))
    map_ring_ahead (s, 0, 0);

  for (;;)
    {
      /* Acquire: pairs with the ringers' release (state.h); loaded before
         looking for work, so a ring after the look ends the wait. */
      uint32_t seen = atomic_load_explicit (&s->pool->shared->doorbell, memory_order_acquire);
      pthread_mutex_lock (&s->lock);
      int stop = s->stop_req || (s->external && external_requests (s));
      int asked = s->rotate_req || s->passes_started < s->flush_target;
      pthread_mutex_unlock (&s->lock);
      if (stop)
        break;
      int pending, ahead;
      int need = rings_need_pass (s, &pending, &ahead);
      /* The optional period (drain_interval_us): a pass at most that long
         after the last one while records wait, and a look every period
         (producers below high water do not ring).  Off by default: a
         record is safe in the ring file as soon as it is published. */
      uint64_t timeout = 0;
      if (s->drain_us)
        {
          uint64_t period = (uint64_t)s->drain_us * 1000u;
          uint64_t since = emlat_clock_now () - s->last_pass_t;
          if (pending && since >= period)
            need = 1;
          else
            timeout = pending ? period - since : period;
        }
      /* Resource samples with a period of their own (sample.h): the
         wait ends at the next one, which a pass writes. */
      uint64_t now = emlat_clock_now ();
      if (emlat_sampler_due (&s->sampler, now, 0))
        need = 1;
      uint64_t st = emlat_sampler_timeout (&s->sampler, now);
      if (st && (!timeout || st < timeout))
        timeout = st;
      if (asked || need)
        {
          pass (s, 0); /* maps ahead at its end */
          continue;
        }
      if (ahead)
        {
          map_ahead (s);
          continue;
        }
      /* Nothing to do: sleep until the doorbell rings (high water, a
         thread exit, flush, rotation, stop) -- no timer while idle. */
      emlat_doorbell_wait (s->pool, seen, timeout);
      s->wakeups++;
    }
  if (s->defer_finish && s->ring.fd >= 0)
    {
      /* emlat_stop leaves the last records in the ring file (session.c),
         and so does a driver that stops draining (drain.c); only the
         writer's own CPU time is taken for STATS. */
      if (s->external)
        external_last_samples (s);
      s->writer_cpu_ns = emlat_thread_cpu_ns ();
      return 0;
    }
  emlat_writer_finish (s);
  return 0;
}

void
emlat_writer_loss (struct emlat_session *s, uint64_t stream, unsigned reason, uint64_t first,
                   uint64_t last, uint64_t records, uint64_t bytes)
{
  add_loss (s, stream, reason, first, last, records, bytes);
}

int
emlat_writer_checkpoint_first (struct emlat_session *s)
{
  if (s->ring.fd < 0)
    return 0;
  uint64_t snap = 0;
  int state = EMLAT_RING_FREE;
  struct pass_state ps = { .used = 0, .snaps = &snap, .states = &state };
  checkpoint (s, &ps);
  return s->ring.fd >= 0 ? 0 : -EIO;
}

void
emlat_writer_finish (struct emlat_session *s)
{
  /* Two passes: the first drains everything; the second writes the
     interactions that ended in the first and the final STATS. */
  pass (s, 0);
  pass (s, 1);
  emlat_out_close (&s->out);
}
