/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * producer.c -- the recording calls of emlat.h.
 *
 * Each function: find the calling thread's ring (emlat_my_ring: TLS read,
 * relaxed load, compare), read the profiler clock if the record has a time,
 * reserve slots, store the record (ringrec.h) and publish it with one
 * release store.  No lock, no allocation, no system call (except the *_cpu
 * variants' thread-CPU clock and a thread's first-record claim).  Invalid
 * enum values are not checked here: the writer validates every record and
 * turns a malformed one into a LOSS record_invalid, keeping this path short.
 *
 * A span handle is (span id << 1) | cpu flag, so that emlat_span_end knows
 * whether to read the thread CPU clock again without any per-span state.
 */
#include "emlat/emlat.h"

#include <string.h>

#include "common/clock.h"
#include "common/hot.h"
#include "record/ringrec.h"
#include "record/state.h"

EMLAT_HOT uint64_t
emlat_now (void)
{
  return emlat_clock_now ();
}

uint64_t
emlat_thread_cpu_now (void)
{
  return emlat_thread_cpu_ns ();
}

/* Span begin and end have a fast path that handles only the common case
   (session active, ring claimed, id block not exhausted, ring not full, no
   CPU reading) and tail-calls a complete out-of-line version for anything
   else.  In the fast path the record is filled before the clock is read and
   the values needed after the clock call are reloaded from the slot and the
   ring, so that only two registers live across the call: this keeps the
   path near 40 instructions (docs/PERFORMANCE.md).  The recorded time is
   therefore taken right after the slot was reserved. */

/* The handle of a span whose begin found no ring (a session is active but
   every ring is taken): its end and counters are dropped and counted as
   no_ring too, like the begin (id 0 is no span, so no real handle is 1). */
#define SPAN_NO_RING 1u

/* The complete version of the span begins.  With T, the begin's time is
   stored there: the record's, or the clock read here when no record
   carries one (emlat_span_begin_timed).  AT, when nonzero, is that time,
   already read (emlat_span_switch), instead of a clock read here. */
static __attribute__ ((noinline)) uint64_t
span_begin_slow (enum emlat_span_kind kind, uint64_t cause, unsigned cpu, uint64_t *t,
                 uint64_t at)
{
  unsigned n = cpu ? 2 : 1;
  struct emlat_ring *r = emlat_my_ring (n);
  if (EMLAT_UNLIKELY (!r))
    {
      if (t)
        *t = at ? at : emlat_clock_now ();
      /* Relaxed: see emlat_g_active_gen in state.h. */
      return atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed) ? SPAN_NO_RING
                                                                               : 0;
    }
  uint64_t id = r->next_span_id;
  if (id == r->span_id_end)
    id = emlat_span_id_refill (r);
  r->next_span_id = id + 1;
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, n, 0, &h);
  if (!s)
    {
      if (t)
        *t = at ? at : emlat_clock_now ();
      /* A dropped begin still returns a handle: its end is then an orphan
         end, reported by the reader, and the drop is in a LOSS record. */
      return id << 1 | cpu;
    }
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_BEGIN, kind, cpu, n);
  s->w[1] = id;
  s->w[2] = cause;
  if (cpu)
    emlat_ring_next (r, s)->w[0] = emlat_thread_cpu_ns ();
  uint64_t now = at ? at : emlat_clock_now ();
  s->w[3] = now;
  if (t)
    *t = now;
  emlat_ring_publish (r, h, n);
  return id << 1 | cpu;
}

/* No SLP vectorization: pairing two 8-byte stores through an SSE register
   costs more instructions than it saves here (GCC; Clang does not pair
   them and has no such attribute). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__ ((optimize ("no-tree-slp-vectorize")))
#endif
uint64_t
emlat_span_begin (enum emlat_span_kind kind, uint64_t cause)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen))
    return gen ? span_begin_slow (kind, cause, 0, 0, 0) : 0;
  uint64_t id = r->next_span_id;
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  /* Past the limit (high water or full): the slow path sees to it. */
  if (EMLAT_UNLIKELY (id == r->span_id_end || h + 1 > r->limit))
    return span_begin_slow (kind, cause, 0, 0, 0);
  r->next_span_id = id + 1;
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_BEGIN, kind, 0, 1);
  s->w[1] = id;
  s->w[2] = cause;
  s->w[3] = emlat_clock_now ();
  emlat_ring_publish (r, atomic_load_explicit (&r->head, memory_order_relaxed), 1);
  return s->w[1] << 1;
}

uint64_t
emlat_span_begin_cpu (enum emlat_span_kind kind, uint64_t cause)
{
  return span_begin_slow (kind, cause, 1, 0, 0);
}

/* As emlat_span_begin's fast path, the time handed back too. */
uint64_t
emlat_span_begin_timed (enum emlat_span_kind kind, uint64_t cause, uint64_t *t)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen))
    {
      if (gen)
        return span_begin_slow (kind, cause, 0, t, 0);
      *t = emlat_clock_now ();
      return 0;
    }
  uint64_t id = r->next_span_id;
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (id == r->span_id_end || h + 1 > r->limit))
    return span_begin_slow (kind, cause, 0, t, 0);
  r->next_span_id = id + 1;
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_BEGIN, kind, 0, 1);
  s->w[1] = id;
  s->w[2] = cause;
  uint64_t now = emlat_clock_now ();
  s->w[3] = now;
  *t = now;
  emlat_ring_publish (r, h, 1);
  return id << 1;
}

/* The complete version of the span ends; T as for span_begin_slow. */
static __attribute__ ((noinline)) void
span_end_slow (uint64_t span, enum emlat_span_status status, uint64_t detail, uint64_t *t)
{
  struct emlat_ring *r = 0;
  if (span == SPAN_NO_RING)
    emlat_count_noring (1);
  else if (span != 0)
    r = emlat_my_ring ((span & 1) ? 2 : 1);
  uint64_t h;
  unsigned cpu = (unsigned)(span & 1);
  unsigned n = cpu ? 2 : 1;
  struct emlat_slot *s = r ? emlat_ring_reserve (r, n, 0, &h) : 0;
  if (!s)
    {
      if (t)
        *t = emlat_clock_now ();
      return;
    }
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_END, status, cpu, n);
  s->w[1] = span >> 1;
  s->w[3] = detail;
  uint64_t now = emlat_clock_now ();
  s->w[2] = now;
  if (t)
    *t = now;
  if (cpu)
    emlat_ring_next (r, s)->w[0] = emlat_thread_cpu_ns ();
  emlat_ring_publish (r, h, n);
}

void
emlat_span_end (uint64_t span, enum emlat_span_status status, uint64_t detail)
{
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  /* Relaxed: only this thread stores head. */
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen || (span & 1) || span == 0))
    {
      if (gen)
        span_end_slow (span, status, detail, 0);
      return;
    }
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (h + 1 > r->limit))
    {
      span_end_slow (span, status, detail, 0);
      return;
    }
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_END, status, 0, 1);
  s->w[1] = span >> 1;
  s->w[3] = detail;
  s->w[2] = emlat_clock_now ();
  emlat_ring_publish (r, atomic_load_explicit (&r->head, memory_order_relaxed), 1);
}

/* As emlat_span_end's fast path, the time handed back too. */
uint64_t
emlat_span_end_timed (uint64_t span, enum emlat_span_status status, uint64_t detail)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  uint64_t t;
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen || (span & 1) || span == 0))
    {
      if (gen)
        span_end_slow (span, status, detail, &t);
      else
        t = emlat_clock_now ();
      return t;
    }
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (h + 1 > r->limit))
    {
      span_end_slow (span, status, detail, &t);
      return t;
    }
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_END, status, 0, 1);
  s->w[1] = span >> 1;
  s->w[3] = detail;
  t = emlat_clock_now ();
  s->w[2] = t;
  emlat_ring_publish (r, h, 1);
  return t;
}

/* The complete version of emlat_span_switch: the end, then the begin at
   the end's time. */
static __attribute__ ((noinline)) uint64_t
span_switch_slow (uint64_t span, enum emlat_span_status status, uint64_t detail,
                  enum emlat_span_kind kind, uint64_t cause, uint64_t *t)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  if (!atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed))
    {
      *t = emlat_clock_now ();
      return 0;
    }
  uint64_t now;
  span_end_slow (span, status, detail, &now);
  return span_begin_slow (kind, cause, 0, t, now);
}

/* The end and the begin in two one-slot records reserved and published
   together, filled before the one clock read that both carry (as the
   fast paths above), else the complete version. */
uint64_t
emlat_span_switch (uint64_t span, enum emlat_span_status status, uint64_t detail,
                   enum emlat_span_kind kind, uint64_t cause, uint64_t *t)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen || (span & 1) || span == 0))
    return span_switch_slow (span, status, detail, kind, cause, t);
  uint64_t id = r->next_span_id;
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (id == r->span_id_end || h + 2 > r->limit))
    return span_switch_slow (span, status, detail, kind, cause, t);
  r->next_span_id = id + 1;
  struct emlat_slot *e = &r->slots[h & r->mask];
  struct emlat_slot *b = &r->slots[(h + 1) & r->mask];
  e->w[0] = emlat_rr_head (EMLAT_RR_SPAN_END, status, 0, 1);
  e->w[1] = span >> 1;
  e->w[3] = detail;
  b->w[0] = emlat_rr_head (EMLAT_RR_SPAN_BEGIN, kind, 0, 1);
  b->w[1] = id;
  b->w[2] = cause;
  uint64_t now = emlat_clock_now ();
  e->w[2] = now;
  b->w[3] = now;
  *t = now;
  emlat_ring_publish (r, h, 2);
  return id << 1;
}

/* A one-slot record.  T is the record's time, or 0 when it has none (the
   drop path then reads the clock for the LOSS interval). */
static inline void
put1 (unsigned type, unsigned a, unsigned b, uint64_t w1, uint64_t w2, uint64_t t)
{
  struct emlat_ring *r = emlat_my_ring (1);
  if (EMLAT_UNLIKELY (!r))
    return;
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, 1, t, &h);
  if (EMLAT_UNLIKELY (!s))
    return;
  s->w[0] = emlat_rr_head (type, a, b, 1);
  s->w[1] = w1;
  s->w[2] = w2;
  s->w[3] = 0;
  emlat_ring_publish (r, h, 1);
}

/* SERVED: EMLAT_RR_SERVED or 0 (ringrec.h). */
static __attribute__ ((noinline)) void
span_count_slow (uint64_t span, enum emlat_counter c, uint64_t v, unsigned served)
{
  if (span == SPAN_NO_RING)
    emlat_count_noring (1);
  else if (span != 0)
    put1 (EMLAT_RR_SPAN_COUNT, c, served, span >> 1, v, 0);
}

/* A fast path as for emlat_span_end (the session and the ring claimed, a
   span with a ring, room below the limit), else the complete version. */
void
emlat_span_count (uint64_t span, enum emlat_counter c, uint64_t v)
{
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen || (span & 1) || span == 0))
    {
      if (gen)
        span_count_slow (span, c, v, 0);
      return;
    }
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (h + 1 > r->limit))
    {
      span_count_slow (span, c, v, 0);
      return;
    }
  struct emlat_slot *s = &r->slots[h & r->mask];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_COUNT, c, 0, 1);
  s->w[1] = span >> 1;
  s->w[2] = v;
  s->w[3] = 0;
  emlat_ring_publish (r, h, 1);
}

/* The set bits of M below bit I (I < 32), by shifts and masks: a
   popcount instruction is not in the baseline x86-64, and the builtin
   would be a libgcc call there. */
static inline unsigned
bits_below (uint32_t m, unsigned i)
{
  uint32_t x = m & ((1u << i) - 1u);
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

/* One counter at a time, as emlat_span_count: the complete version of
   emlat_span_counts (no session yet, a span without a ring, a ring near
   its limit). */
static __attribute__ ((noinline)) void
span_counts_slow (uint64_t span, uint32_t mask, const uint64_t *values, unsigned served)
{
  unsigned k = 0;
  for (uint32_t b = mask; b; b &= b - 1)
    span_count_slow (span, (enum emlat_counter)__builtin_ctz (b), values[k++], served);
}

/* Past the ring's limit: 1 when the NS slots at head H fit (the limit
   moved on, the writer rung past the high-water mark as for any record),
   0 when the ring is full: the counters then go one by one, each counted
   lost as emlat_span_count's would be. */
static __attribute__ ((noinline)) int
counts_room (struct emlat_ring *r, uint64_t h, unsigned ns)
{
  /* Acquire: the writer finished reading the slots below tail. */
  uint64_t tail = atomic_load_explicit (&r->tail, memory_order_acquire);
  return h + ns - tail <= r->nslots && emlat_ring_room (r, h, ns, 0);
}

/* One SPAN_COUNTS record (ringrec.h) of up to 29 counters: a fast path
   as emlat_span_count's, the values stored straight into the ring.
   SERVED: EMLAT_RR_SERVED or 0.  Inlined into both callers (no call in
   between). */
static inline __attribute__ ((always_inline)) void
span_counts (uint64_t span, uint32_t mask, const uint64_t *values, unsigned served)
{
  mask &= (1u << EMLAT_C_COUNTER_COUNT) - 1u;
  if (EMLAT_UNLIKELY (!mask || !values))
    return;
  /* Relaxed: see emlat_g_active_gen in state.h. */
  uint64_t gen = atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed);
  struct emlat_ring *r = emlat_thread_line.ring;
  if (EMLAT_UNLIKELY (gen != emlat_thread_line.gen || (span & 1) || span == 0))
    {
      if (gen)
        span_counts_slow (span, mask, values, served);
      return;
    }
  unsigned n = bits_below (mask, 31);
  /* The head slot holds the first value, each further slot four; at most
     8 slots, half the smallest ring (16 slots). */
  unsigned ns = 1 + (n + 2) / 4;
  /* Relaxed: only this thread stores head. */
  uint64_t h = atomic_load_explicit (&r->head, memory_order_relaxed);
  if (EMLAT_UNLIKELY (h + ns > r->limit) && !counts_room (r, h, ns))
    {
      span_counts_slow (span, mask, values, served);
      return;
    }
  /* In locals: the stores below could alias the ring's fields. */
  struct emlat_slot *slots = r->slots;
  uint64_t m = r->mask;
  struct emlat_slot *s = &slots[h & m];
  s->w[0] = emlat_rr_head (EMLAT_RR_SPAN_COUNTS, n, served, ns);
  s->w[1] = span >> 1;
  s->w[2] = mask;
  s->w[3] = values[0];
  /* Slot J holds values 4J - 3 .. 4J, zeros past the last: one run of
     words (a slot is four words without padding, ring.h) unless the
     record wraps around the ring's end. */
  uint64_t first = (h + 1) & m;
  if (EMLAT_LIKELY (first + (ns - 1) <= m + 1))
    {
      /* The last slot zeroed first (at most three of its words are
         padding), then the values. */
      if (ns > 1)
        slots[first + ns - 2] = (struct emlat_slot){ { 0, 0, 0, 0 } };
      uint64_t *d = (uint64_t *)(void *)&slots[first];
      for (unsigned k = 1; k < n; k++)
        *d++ = values[k];
    }
  else
    for (unsigned j = 1, k = 1; j < ns; j++, k += 4)
      {
        struct emlat_slot *d = &slots[(h + j) & m];
        d->w[0] = k < n ? values[k] : 0;
        d->w[1] = k + 1 < n ? values[k + 1] : 0;
        d->w[2] = k + 2 < n ? values[k + 2] : 0;
        d->w[3] = k + 3 < n ? values[k + 3] : 0;
      }
  emlat_ring_publish (r, h, ns);
}

void
emlat_span_counts (uint64_t span, uint32_t mask, const uint64_t *values)
{
  span_counts (span, mask, values, 0);
}

void
emlat_span_counts_served (uint64_t span, uint32_t mask, const uint64_t *values)
{
  span_counts (span, mask, values, EMLAT_RR_SERVED);
}

/* emlat_ix_begin and emlat_ix_begin_at: T is the dispatch time, 0 for
   now (read only once the interaction has a ring to go to). */
static inline uint64_t
ix_begin (enum emlat_root_kind kind, uint64_t parent, uint64_t scheduled_by, uint64_t t)
{
  struct emlat_ring *r = emlat_my_ring (2);
  /* Relaxed: see emlat_g_active_gen in state.h. */
  if (EMLAT_UNLIKELY (!r)
      && !atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed))
    return 0;
  uint64_t cause = emlat_next_cause ();
  if (EMLAT_UNLIKELY (!r))
    /* No ring (counted by the claim): the interaction still has a cause,
       so that each of its later records is counted as no_ring too. */
    return cause;
  if (!t)
    t = emlat_clock_now ();
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, 2, t, &h);
  if (EMLAT_LIKELY (s != 0))
    {
      s->w[0] = emlat_rr_head (EMLAT_RR_IX_BEGIN, kind, 0, 2);
      s->w[1] = cause;
      s->w[2] = parent;
      s->w[3] = scheduled_by;
      emlat_ring_next (r, s)->w[0] = t;
      emlat_ring_publish (r, h, 2);
    }
  return cause;
}

uint64_t
emlat_ix_begin (enum emlat_root_kind kind, uint64_t parent, uint64_t scheduled_by)
{
  return ix_begin (kind, parent, scheduled_by, 0);
}

uint64_t
emlat_ix_begin_at (enum emlat_root_kind kind, uint64_t parent, uint64_t scheduled_by,
                   uint64_t t)
{
  return ix_begin (kind, parent, scheduled_by, t);
}

void
emlat_ix_time (uint64_t cause, enum emlat_time_field f, uint64_t t)
{
  if (cause != 0)
    put1 (EMLAT_RR_IX_TIME, f, 0, cause, t, t);
}

void
emlat_ix_time_q (uint64_t cause, enum emlat_time_field f, uint64_t t, enum emlat_quality q)
{
  if (cause != 0)
    put1 (EMLAT_RR_IX_TIME, f, q, cause, t, t);
}

uint64_t
emlat_ix_mark (uint64_t cause, enum emlat_time_field f)
{
  uint64_t t = emlat_clock_now ();
  if (cause != 0)
    put1 (EMLAT_RR_IX_TIME, f, 0, cause, t, t);
  return t;
}

void
emlat_ix_value (uint64_t cause, enum emlat_value_field f, uint64_t v)
{
  if (cause != 0)
    put1 (EMLAT_RR_IX_VALUE, f, 0, cause, v, 0);
}

void
emlat_ix_count (uint64_t cause, enum emlat_counter c, uint64_t v)
{
  if (cause != 0)
    put1 (EMLAT_RR_IX_COUNT, c, 0, cause, v, 0);
}

void
emlat_ix_add (uint64_t cause, enum emlat_counter c, uint64_t d)
{
  if (cause != 0)
    put1 (EMLAT_RR_IX_COUNT, c, 1, cause, d, 0);
}

void
emlat_ix_end (uint64_t cause, enum emlat_ix_status status)
{
  if (cause != 0)
    {
      uint64_t t = emlat_clock_now ();
      put1 (EMLAT_RR_IX_END, status, 0, cause, t, t);
    }
}

uint64_t
emlat_input_batch_id (void)
{
  if (atomic_load_explicit (&emlat_g_active_gen, memory_order_relaxed) == 0)
    return 0;
  return emlat_next_batch ();
}

void
emlat_input_batch (const struct emlat_input_batch *b)
{
  if (!b || b->batch_id == 0)
    return;
  struct emlat_ring *r = emlat_my_ring (2);
  if (EMLAT_UNLIKELY (!r))
    return;
  uint64_t t = (b->mask & EMLAT_IB_READ_END) ? b->t_read_end : emlat_clock_now ();
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, 2, t, &h);
  if (EMLAT_UNLIKELY (!s))
    return;
  s->w[0] = emlat_rr_head (EMLAT_RR_INPUT, b->mask, b->ready_quality, 2);
  s->w[1] = b->batch_id;
  s->w[2] = b->t_known_empty;
  s->w[3] = b->t_first_ready;
  struct emlat_slot *s2 = emlat_ring_next (r, s);
  s2->w[0] = b->t_read_begin;
  s2->w[1] = b->t_read_end;
  s2->w[2] = b->bytes;
  emlat_ring_publish (r, h, 2);
}

/* The number of set bits of M, by shifts and masks (see bits_below). */
static inline unsigned
bits_set (uint32_t m)
{
  uint32_t x = m - ((m >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

/* Store the words of an IX_FIELDS record (ringrec.h) at W: the quality
   nibbles when QM is not 0 (nibble i of the pair: time field i), the
   times TM with field END_F = END_T when END_T is nonzero (the caller set
   its bit in TM), the values VM and the counters CM, each in ascending
   bit order, then zeros to a multiple of 4 words.  Returns the number of
   words.  Each loop walks only the bits it stores. */
static inline unsigned
fill_fields (const struct emlat_ix_fields *f, uint64_t *restrict w, uint32_t tm, uint32_t vm,
             uint32_t cm, uint32_t qm, unsigned end_f, uint64_t end_t)
{
  uint64_t *p = w;
  if (qm)
    {
      uint64_t q0 = 0, q1 = 0;
      for (uint32_t b = qm & 0xffffu; b; b &= b - 1)
        {
          unsigned i = (unsigned)__builtin_ctz (b);
          q0 |= (uint64_t)(f->q[i] & 0xfu) << (4 * i);
        }
      for (uint32_t b = qm >> 16; b; b &= b - 1)
        {
          unsigned i = (unsigned)__builtin_ctz (b);
          q1 |= (uint64_t)(f->q[16 + i] & 0xfu) << (4 * i);
        }
      p[0] = q0;
      p[1] = q1;
      p += 2;
    }
  uint32_t rest = tm;
  if (end_t)
    {
      for (uint32_t b = tm & ((1u << end_f) - 1u); b; b &= b - 1)
        *p++ = f->t[__builtin_ctz (b)];
      *p++ = end_t;
      /* The bits above END_F (none when it is bit 31). */
      rest = end_f < 31 ? tm & ~((2u << end_f) - 1u) : 0;
    }
  for (uint32_t b = rest; b; b &= b - 1)
    *p++ = f->t[__builtin_ctz (b)];
  for (uint32_t b = vm; b; b &= b - 1)
    *p++ = f->v[__builtin_ctz (b)];
  for (uint32_t b = cm; b; b &= b - 1)
    *p++ = f->c[__builtin_ctz (b)];
  while ((p - w) & 3)
    *p++ = 0;
  return (unsigned)(p - w);
}

/* emlat_ix_commit for a ring too small to hold the record: one record per
   field.  Out of line and cold (a ring that small is a test's), so that it
   adds nothing to the lines emlat_ix_commit's common path spans. */
static __attribute__ ((noinline, cold)) void
commit_by_fields (uint64_t cause, const struct emlat_ix_fields *f, enum emlat_ix_status status,
                  uint64_t end)
{
  for (uint32_t b = f->tmask & EMLAT_T_FIELD_MASK; b; b &= b - 1)
    {
      unsigned i = (unsigned)__builtin_ctz (b);
      if (status && i == EMLAT_T_INTERACTION_END)
        continue; /* emlat_ix_end sets it */
      put1 (EMLAT_RR_IX_TIME, i, f->q[i], cause, f->t[i], f->t[i]);
    }
  for (uint32_t b = f->vmask & ((1u << EMLAT_V_FIELD_COUNT) - 1); b; b &= b - 1)
    {
      unsigned i = (unsigned)__builtin_ctz (b);
      put1 (EMLAT_RR_IX_VALUE, i, 0, cause, f->v[i], 0);
    }
  for (uint32_t b = f->cmask & ((1u << EMLAT_C_COUNTER_COUNT) - 1); b; b &= b - 1)
    {
      unsigned i = (unsigned)__builtin_ctz (b);
      put1 (EMLAT_RR_IX_COUNT, i, 0, cause, f->c[i], 0);
    }
  if (status)
    put1 (EMLAT_RR_IX_END, status, 0, cause, end, end);
}

/* fill_fields for the N - 1 word slots of a record that wrap around the
   ring's end at slot FIRST: gathered first, then copied in two runs.  Out
   of line and cold, as it happens once per lap at most: emlat_ix_commit's
   common path keeps one copy of fill_fields and no 700-byte stack buffer,
   so it touches fewer lines of code and stack per call (a program calls
   it once or twice per key with cold caches: docs/PERFORMANCE.md). */
static __attribute__ ((noinline, cold)) void
fill_fields_wrapped (struct emlat_ring *r, uint64_t first, unsigned n,
                     const struct emlat_ix_fields *f, uint32_t tm, uint32_t vm, uint32_t cm,
                     uint32_t qm, uint64_t t)
{
  uint64_t words[4 * (EMLAT_RR_MAX_SLOTS - 1)];
  fill_fields (f, words, tm, vm, cm, qm, EMLAT_T_INTERACTION_END, t);
  uint64_t run = r->nslots - first;
  memcpy (&r->slots[first], words, run * sizeof (struct emlat_slot));
  memcpy (&r->slots[0], words + 4 * run, (n - 1 - run) * sizeof (struct emlat_slot));
}

/* emlat_ix_commit and emlat_ix_commit_at: the fields of F, whose masks
   are TM, VM, CM and whose quality words are needed when QM is not 0; END
   is the end time when STATUS is nonzero, 0 for now. */
static inline void
ix_commit (uint64_t cause, const struct emlat_ix_fields *f, uint32_t tm, uint32_t vm, uint32_t cm,
           uint32_t qm, enum emlat_ix_status status, uint64_t end)
{
  /* The end time travels as the interaction-end field, of its default
     quality. */
  uint64_t t = status ? (end ? end : emlat_clock_now ()) : 0;
  if (t)
    {
      tm |= 1u << EMLAT_T_INTERACTION_END;
      qm &= ~(1u << EMLAT_T_INTERACTION_END);
    }
  unsigned nw = (qm ? 2 : 0) + bits_set (tm) + bits_set (vm) + bits_set (cm);
  unsigned n = 1 + (nw + 3) / 4;
  struct emlat_ring *r = emlat_my_ring (n);
  if (EMLAT_UNLIKELY (!r))
    return;
  if (EMLAT_UNLIKELY (n > r->nslots / 2))
    {
      /* A ring too small for one record this size: one record per field. */
      commit_by_fields (cause, f, status, t);
      return;
    }
  uint64_t h;
  struct emlat_slot *s = emlat_ring_reserve (r, n, t, &h);
  if (EMLAT_UNLIKELY (!s))
    return;
  s->w[0] = emlat_rr_head (EMLAT_RR_IX_FIELDS, status, qm ? 1u : 0u, n);
  s->w[1] = cause;
  s->w[2] = (uint64_t)tm | (uint64_t)vm << 32;
  s->w[3] = cm;
  /* The words follow the head slot: stored in place when they do not
     wrap around the ring's end, else gathered first and copied in two
     runs. */
  uint64_t first = (h + 1) & r->mask;
  if (EMLAT_LIKELY (first + (n - 1) <= r->nslots))
    /* A slot is four uint64_t words without padding (ring.h): the run of
       slots is a run of words. */
    fill_fields (f, (uint64_t *)(void *)&r->slots[first], tm, vm, cm, qm,
                 EMLAT_T_INTERACTION_END, t);
  else
    fill_fields_wrapped (r, first, n, f, tm, vm, cm, qm, t);
  emlat_ring_publish (r, h, n);
}

/* emlat_ix_commit and emlat_ix_commit_at. */
static inline void
ix_commit_fields (uint64_t cause, const struct emlat_ix_fields *f, enum emlat_ix_status status,
                  uint64_t end)
{
  if (cause == 0 || !f)
    return;
  uint32_t tm = f->tmask & EMLAT_T_FIELD_MASK;
  ix_commit (cause, f, tm, f->vmask & ((1u << EMLAT_V_FIELD_COUNT) - 1),
             f->cmask & ((1u << EMLAT_C_COUNTER_COUNT) - 1), f->qmask & tm, status, end);
}

void
emlat_ix_commit (uint64_t cause, const struct emlat_ix_fields *f, enum emlat_ix_status status)
{
  ix_commit_fields (cause, f, status, 0);
}

void
emlat_ix_commit_at (uint64_t cause, const struct emlat_ix_fields *f,
                    enum emlat_ix_status status, uint64_t end)
{
  ix_commit_fields (cause, f, status, end);
}

