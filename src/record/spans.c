/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spans.c -- see spans.h.
 *
 * Cost (docs/PERFORMANCE.md, "Writer"): this is the writer's inner loop for
 * spans, one pass over the ring's records with every helper inlined.  The
 * staging queue is touched only while an open span of the pass holds back
 * the records after it; a begin directly followed by its end, with nothing
 * waiting, goes straight to the encoder.
 */
#include "record/spans.h"

#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "record/ringrec.h"

static int
grow (void **v, size_t *cap, size_t need, size_t elem)
{
  if (need <= *cap)
    return 0;
  size_t c = *cap ? *cap : 64;
  while (c < need)
    c *= 2;
  void *p = realloc (*v, c * elem);
  if (!p)
    return -1;
  *v = p;
  *cap = c;
  return 0;
}

/* The cause a begin record's word stands for: the ring's open terminal
   interaction for EMLAT_CAUSE_OPEN_TTY (ringrec.h). */
static inline uint64_t
span_cause (const struct emlat_span_state *ss, uint64_t w)
{
  return w == EMLAT_CAUSE_OPEN_TTY ? ss->tty_cause : w;
}

void
emlat_spans_reset (struct emlat_span_state *ss, uint64_t thread)
{
  ss->thread = thread;
  ss->depth = 0;
  ss->nstaged = 0;
  ss->head = 0;
  ss->npairs = 0;
  ss->discarded = 0;
  ss->lost_memory = 0;
  ss->cb_open = 0;
  ss->enc_failed = 0;
  ss->fast_end = 0;
  ss->served_cause = 0;
  ss->served_mask = 0;
  ss->tty_cause = 0;
}

void
emlat_spans_free (struct emlat_span_state *ss)
{
  free (ss->stack);
  free (ss->staged);
  free (ss->pairs);
  memset (ss, 0, sizeof *ss);
}

void
emlat_spans_pass_begin (struct emlat_span_state *ss, struct emlat_arena *a,
                        struct emlat_chunk_list *out, size_t chunk_bytes)
{
  ss->arena = a;
  ss->out = out;
  ss->chunk_bytes = chunk_bytes;
  ss->cb_open = 0;
  ss->enc_failed = 0;
  ss->fast_end = 0;
}

/* ---- encoding into the pass's chunk ---- */

/* An allocation failed: the open chunk's records and REP more are lost,
   and so is every record of the rest of the pass (the arena has failed). */
static void
enc_fail (struct emlat_span_state *ss, uint64_t rep)
{
  ss->enc_failed = 1;
  ss->lost_memory += ss->cb.represents + rep;
  ss->cb_open = 0;
  ss->fast_end = 0;
}

/* Recompute fast_end after the chunk, the arena or the failure state
   changed. */
static void
fast_update (struct emlat_span_state *ss)
{
  struct emlat_arena *a = ss->arena;
  size_t end = 0;
  if (ss->cb_open && !ss->enc_failed && !a->failed && a->cap >= EMLAT_SPAN_COMPLETE_MAX)
    {
      end = ss->cb.rec_start + ss->chunk_bytes;
      if (end > a->cap - EMLAT_SPAN_COMPLETE_MAX)
        end = a->cap - EMLAT_SPAN_COMPLETE_MAX;
    }
  ss->fast_end = end;
}

/* Ready the chunk for one more record whose time is T: the first record
   of the pass opens it (T is its base time, F-50), a chunk whose payload
   reached the limit is finished and a new one opened.  0, or -1 after
   enc_fail. */
static inline int
chunk_ready (struct emlat_span_state *ss, uint64_t t, uint64_t rep)
{
  if (__builtin_expect (ss->enc_failed, 0))
    {
      ss->lost_memory += rep;
      return -1;
    }
  if (__builtin_expect (ss->cb_open, 1))
    {
      if (__builtin_expect (emlat_cb_payload_bytes (&ss->cb) < ss->chunk_bytes, 1))
        {
          fast_update (ss); /* the arena may have grown since */
          return 0;
        }
      if (emlat_cb_finish (&ss->cb, ss->out, 0) != 0)
        {
          enc_fail (ss, rep);
          return -1;
        }
    }
  emlat_cb_begin (&ss->cb, ss->arena, EMLAT_CHUNK_SPAN, t, ss->thread);
  ss->cb_open = 1;
  fast_update (ss);
  return 0;
}

static void
put (struct emlat_span_state *ss, const struct emlat_enc_span *e, uint64_t rep)
{
  int simple = e->rec == EMLAT_SPAN_REC_COMPLETE && !e->has_cpu && !e->ncounters;
  struct emlat_arena *a = ss->arena;
  if (simple && a->len < ss->fast_end)
    {
      emlat_enc_span_complete_at (&ss->cb, a->buf + a->len, e->kind, e->status, e->id, e->parent,
                                  e->cause, e->t_start, e->t_end, e->detail, rep);
      return;
    }
  if (chunk_ready (ss, e->rec == EMLAT_SPAN_REC_END ? e->t_end : e->t_start, rep) != 0)
    return;
  int rc = simple ? emlat_enc_span_complete (&ss->cb, e->kind, e->status, e->id, e->parent,
                                             e->cause, e->t_start, e->t_end, e->detail, rep)
                  : emlat_enc_span (&ss->cb, e, rep);
  if (rc != 0)
    enc_fail (ss, rep); /* (a grown arena leaves fast_end valid: cap only grows) */
}

/* Encode the filled records at the head of the queue. */
static void
flush (struct emlat_span_state *ss)
{
  while (ss->head < ss->nstaged && ss->staged[ss->head].filled)
    {
      struct emlat_staged_span *st = &ss->staged[ss->head++];
      st->enc.counters = st->enc.ncounters ? ss->pairs + st->pair_off : 0;
      put (ss, &st->enc, st->represents);
    }
  if (ss->head == ss->nstaged)
    ss->head = ss->nstaged = ss->npairs = 0; /* nothing waits */
}

static struct emlat_staged_span *
stage (struct emlat_span_state *ss)
{
  if (__builtin_expect (ss->nstaged == ss->staged_cap, 0)
      && grow ((void **)&ss->staged, &ss->staged_cap, ss->nstaged + 1, sizeof *ss->staged) != 0)
    return 0;
  struct emlat_staged_span *s = &ss->staged[ss->nstaged++];
  /* Only what every path reads; the rest is set where the record is
     filled (close_span, emlat_spans_emit, orphan ends). */
  s->enc.ncounters = 0;
  s->enc.detail = 0;
  s->enc.has_cpu = 0;
  s->pair_off = 0;
  s->represents = 0;
  s->filled = 0;
  return s;
}

/* ---- the pairing ---- */

static inline void
span_begin (struct emlat_span_state *ss, uint64_t id, unsigned kind, uint64_t cause, uint64_t t,
            int has_cpu, uint64_t cpu, uint64_t name)
{
  if (ss->depth >= EMLAT_SPAN_STACK_MAX)
    {
      ss->discarded++;
      return;
    }
  struct emlat_staged_span *st;
  if ((__builtin_expect (ss->depth == ss->stack_cap, 0)
       && grow ((void **)&ss->stack, &ss->stack_cap, ss->depth + 1, sizeof *ss->stack) != 0)
      || !(st = stage (ss)))
    {
      ss->lost_memory++;
      return;
    }
  struct emlat_open_span *o = &ss->stack[ss->depth];
  o->id = id;
  o->parent = ss->depth ? ss->stack[ss->depth - 1].id : 0;
  o->cause = cause;
  o->t_start = t;
  o->cpu_begin = cpu;
  o->name = name;
  o->kind = (uint8_t)kind;
  o->has_cpu = (uint8_t)has_cpu;
  o->begin_written = 0;
  o->staged = (long)(st - ss->staged);
  o->ncounters = 0;
  o->count_records = 0;
  ss->depth++;
  st->enc.id = id;
  st->represents = 1;
}

/* Close stack entry O at T with STATUS; REP ring records end it.  Its
   record is encoded now when nothing waits before it (its slot is the
   head of the queue, or it has none and the queue is empty), else filled
   in and left to flush. */
static void
close_span (struct emlat_span_state *ss, struct emlat_open_span *o, unsigned status, uint64_t t,
            uint64_t detail, int has_cpu, uint64_t cpu, uint64_t rep)
{
  int begun_here = o->staged >= 0;
  int now = begun_here ? (size_t)o->staged == ss->head : ss->head == ss->nstaged;
  struct emlat_enc_span local;
  struct emlat_enc_span *e = &local;
  struct emlat_staged_span *st = 0;
  uint64_t represents = begun_here ? ss->staged[o->staged].represents : 0;
  uint32_t kept = 0;         /* counters carried by the record */
  uint32_t kept_records = 0; /* the ring records that set them */
  if (now)
    {
      /* Encoded before O's counters can change: use them in place. */
      kept = o->ncounters;
      kept_records = o->count_records;
      e->counters = o->counters;
    }
  else
    {
      if (begun_here)
        st = &ss->staged[o->staged];
      else if (!(st = stage (ss)))
        {
          /* The end and the counters it would have carried. */
          ss->lost_memory += rep + o->count_records;
          return;
        }
      e = &st->enc;
      size_t off = ss->npairs;
      if (o->ncounters)
        {
          if (grow ((void **)&ss->pairs, &ss->pairs_cap, ss->npairs + o->ncounters,
                    sizeof *ss->pairs)
              == 0)
            {
              memcpy (ss->pairs + off, o->counters, o->ncounters * sizeof *o->counters);
              ss->npairs += o->ncounters;
              kept = o->ncounters;
              kept_records = o->count_records;
            }
          else
            ss->lost_memory += o->count_records; /* the record goes without them */
        }
      st->pair_off = off;
    }
  e->rec = begun_here ? EMLAT_SPAN_REC_COMPLETE : EMLAT_SPAN_REC_END;
  e->kind = o->kind;
  e->status = status;
  e->id = o->id;
  e->parent = o->parent;
  e->cause = o->cause;
  e->t_start = o->t_start;
  e->t_end = t;
  e->has_cpu = o->has_cpu && has_cpu;
  e->cpu_a = o->cpu_begin;
  e->cpu_b = cpu;
  e->detail = detail ? detail : o->name; /* a named section, F-44 */
  e->ncounters = kept;
  /* A begin record already written in an earlier pass: the end record
     carries the absolute CPU reading (6.6). */
  represents = begun_here ? represents + rep + kept_records : rep + kept_records;
  if (now)
    {
      if (begun_here)
        ss->head++;
      put (ss, e, represents);
      if (begun_here)
        flush (ss);
      return;
    }
  st->represents = represents;
  st->filled = 1;
}

static void
span_end (struct emlat_span_state *ss, uint64_t id, unsigned status, uint64_t t, uint64_t detail,
          int has_cpu, uint64_t cpu)
{
  size_t i = ss->depth;
  while (i > 0 && ss->stack[i - 1].id != id)
    i--;
  if (i == 0)
    {
      /* Orphan end: its begin was lost (F-68).  Written, reported by the
         reader, never joined. */
      struct emlat_enc_span local;
      struct emlat_enc_span *e = &local;
      struct emlat_staged_span *st = 0;
      int now = ss->head == ss->nstaged;
      if (!now)
        {
          if (!(st = stage (ss)))
            {
              ss->lost_memory++;
              return;
            }
          e = &st->enc;
        }
      e->rec = EMLAT_SPAN_REC_END;
      e->id = id;
      e->status = status;
      e->t_end = t;
      e->has_cpu = has_cpu;
      e->cpu_b = cpu;
      e->detail = detail;
      e->ncounters = 0;
      if (now)
        put (ss, e, 1);
      else
        {
          st->represents = 1;
          st->filled = 1;
        }
      return;
    }
  /* Spans opened inside it and still open end as unwound (F-67). */
  while (ss->depth > i)
    {
      struct emlat_open_span *o = &ss->stack[--ss->depth];
      close_span (ss, o, EMLAT_SPAN_UNWOUND, t, 0, 0, 0, 0);
    }
  struct emlat_open_span *o = &ss->stack[--ss->depth];
  close_span (ss, o, status, t, detail, has_cpu, cpu, 1);
}

/* The open span ID, or 0. */
static struct emlat_open_span *
find_open (struct emlat_span_state *ss, uint64_t id)
{
  for (size_t i = ss->depth; i > 0; i--)
    if (ss->stack[i - 1].id == id)
      return &ss->stack[i - 1];
  return 0;
}

/* Counter COUNTER = V of open span O; when SERVED, also waiting to be
   added to the counters of the interaction the span serves.  The caller
   counts the ring record (count_records). */
static void
set_counter (struct emlat_span_state *ss, struct emlat_open_span *o, unsigned counter,
             uint64_t v, unsigned served)
{
  if (served && o->cause)
    {
      ss->served_cause = o->cause;
      ss->served_mask |= 1u << counter;
      ss->served[counter] = v;
    }
  for (uint32_t k = 0; k < o->ncounters; k++)
    if (o->counters[k].counter == counter)
      {
        o->counters[k].value = v;
        return;
      }
  o->counters[o->ncounters].counter = counter;
  o->counters[o->ncounters].value = v;
  o->ncounters++;
}

/* A SPAN_COUNT record: counter COUNTER = V of span ID. */
static void
span_count (struct emlat_span_state *ss, uint64_t id, unsigned counter, uint64_t v, unsigned served)
{
  struct emlat_open_span *o = find_open (ss, id);
  if (!o)
    {
      ss->discarded++; /* counter for a span that is not open */
      return;
    }
  set_counter (ss, o, counter, v, served);
  o->count_records++;
}

/* The SPAN_COUNTS record of NS slots at TAIL (ringrec.h): each of its
   counters as a SPAN_COUNT record's, the record counted once (lost as one
   record when its span is not open); -1 when malformed (nothing
   applied). */
static int
span_counts (struct emlat_span_state *ss, const struct emlat_slot *slots, uint64_t mask,
             uint64_t tail, unsigned ns)
{
  const struct emlat_slot *a = &slots[tail & mask];
  unsigned n = EMLAT_RR_A (a->w[0]), served = EMLAT_RR_B (a->w[0]);
  uint64_t cmask = a->w[2];
  if (a->w[1] == 0 || n == 0 || served > EMLAT_RR_SERVED || EMLAT_RR_NAME (a->w[0]) != 0
      || cmask >> EMLAT_C_COUNTER_COUNT != 0 || (unsigned)__builtin_popcountll (cmask) != n
      || ns != 1 + (n + 2) / 4)
    return -1;
  struct emlat_open_span *o = find_open (ss, a->w[1]);
  if (!o)
    {
      ss->discarded++; /* counters for a span that is not open */
      return 0;
    }
  unsigned k = 0;
  for (uint64_t b = cmask; b; b &= b - 1, k++)
    {
      uint64_t v = k == 0 ? a->w[3] : slots[(tail + 1 + (k - 1) / 4) & mask].w[(k - 1) & 3];
      set_counter (ss, o, (unsigned)__builtin_ctzll (b), v, served);
    }
  o->count_records++;
  return 0;
}

void
emlat_spans_abandon (struct emlat_span_state *ss)
{
  for (size_t i = 0; i < ss->depth; i++)
    {
      ss->discarded += ss->stack[i].count_records;
      ss->stack[i].ncounters = 0;
      ss->stack[i].count_records = 0;
    }
}

/* A begin directly followed by its own end, with nothing waiting and room
   on the stack: exactly what span_begin + span_end would encode (a
   complete record, no CPU, no counters, REP 2), without the stack or the
   queue. */
static inline void
span_pair (struct emlat_span_state *ss, uint64_t id, unsigned kind, uint64_t cause,
           uint64_t t_start, unsigned status, uint64_t t_end, uint64_t detail)
{
  uint64_t parent = ss->depth ? ss->stack[ss->depth - 1].id : 0;
  struct emlat_arena *a = ss->arena;
  if (__builtin_expect (a->len < ss->fast_end, 1))
    {
      emlat_enc_span_complete_at (&ss->cb, a->buf + a->len, kind, status, id, parent, cause,
                                  t_start, t_end, detail, 2);
      return;
    }
  if (chunk_ready (ss, t_start, 2) != 0)
    return;
  if (emlat_enc_span_complete (&ss->cb, kind, status, id, parent, cause, t_start, t_end, detail, 2)
      != 0)
    enc_fail (ss, 2);
}

/* The same pair while records wait before it: its record is staged,
   complete, where its begin would have reserved a slot (and filled at
   once by its end).  0, or -1 when staging failed (the caller then takes
   the two records one by one, which accounts for it). */
static inline int
span_pair_staged (struct emlat_span_state *ss, uint64_t id, unsigned kind, uint64_t cause,
                  uint64_t t_start, unsigned status, uint64_t t_end, uint64_t detail)
{
  struct emlat_staged_span *st = stage (ss);
  if (!st)
    return -1;
  struct emlat_enc_span *e = &st->enc;
  e->rec = EMLAT_SPAN_REC_COMPLETE;
  e->kind = kind;
  e->status = status;
  e->id = id;
  e->parent = ss->depth ? ss->stack[ss->depth - 1].id : 0;
  e->cause = cause;
  e->t_start = t_start;
  e->t_end = t_end;
  e->cpu_a = e->cpu_b = 0;
  e->detail = detail;
  st->represents = 2;
  st->filled = 1;
  return 0;
}

/* Head words with the a field (bits 8..15: kind or status) masked out:
   type, the CPU flag and the slot count of one-slot begin and end records
   without CPU. */
#define HEAD1_MASK 0xff0100ffull
#define BEGIN1_HEAD ((uint64_t)EMLAT_RR_SPAN_BEGIN | (uint64_t)1 << 24)
#define END1_HEAD ((uint64_t)EMLAT_RR_SPAN_END | (uint64_t)1 << 24)

uint64_t
emlat_spans_drain (struct emlat_span_state *ss, const struct emlat_slot *slots, uint64_t mask,
                   uint64_t tail, uint64_t snap)
{
  /* Whether a begin directly followed by its end is a pair: the stack has
     room (else the begin is discarded); and whether its record goes to
     the encoder now (span_pair: nothing waits) or is staged.  Only the
     general path below changes either. */
  int pairs = ss->depth < EMLAT_SPAN_STACK_MAX;
  int now = ss->head == ss->nstaged;
  while (tail < snap)
    {
      const struct emlat_slot *a = &slots[tail & mask];
      uint64_t h = a->w[0];
      if ((h & HEAD1_MASK) == BEGIN1_HEAD && pairs && snap - tail >= 2)
        {
          const struct emlat_slot *b = &slots[(tail + 1) & mask];
          uint64_t hb = b->w[0];
          unsigned kind = EMLAT_RR_A (h), status = EMLAT_RR_A (hb);
          uint64_t name = EMLAT_RR_NAME (h);
          if ((hb & HEAD1_MASK) == END1_HEAD && kind - 1 < EMLAT_SPAN_KIND_MAX
              && status <= EMLAT_SPAN_THROW && a->w[1] != 0 && b->w[1] == a->w[1]
              && (!name || kind == EMLAT_SPAN_USER))
            {
              /* A named section's name is its detail unless the end gives
                 one (as close_span does). */
              uint64_t detail = b->w[3] ? b->w[3] : name;
              if (now)
                span_pair (ss, a->w[1], kind, span_cause (ss, a->w[2]), a->w[3], status, b->w[2],
                           detail);
              else if (span_pair_staged (ss, a->w[1], kind, span_cause (ss, a->w[2]), a->w[3],
                                         status, b->w[2],
                                         detail)
                       != 0)
                goto general;
              tail += 2;
              continue;
            }
        }
    general:;
      unsigned type = EMLAT_RR_TYPE (h), ns = EMLAT_RR_NSLOTS (h);
      unsigned fa = EMLAT_RR_A (h), fb = EMLAT_RR_B (h);
      unsigned max_ns = type == EMLAT_RR_SPAN_COUNTS ? EMLAT_RR_SPAN_COUNTS_MAX_SLOTS : 2;
      if (ns < 1 || ns > max_ns || tail + ns > snap)
        break;
      const struct emlat_slot *b = &slots[(tail + 1) & mask];
      switch (type)
        {
        case EMLAT_RR_SPAN_BEGIN:
          if (fa < 1 || fa > EMLAT_SPAN_KIND_MAX || a->w[1] == 0
              || (fb & EMLAT_RR_CPU) != (ns == 2) || (EMLAT_RR_NAME (h) && fa != EMLAT_SPAN_USER))
            return tail;
          span_begin (ss, a->w[1], fa, span_cause (ss, a->w[2]), a->w[3], ns == 2,
                      ns == 2 ? b->w[0] : 0,
                      EMLAT_RR_NAME (h));
          break;
        case EMLAT_RR_SPAN_END:
          if (fa > EMLAT_SPAN_THROW || a->w[1] == 0 || (fb & EMLAT_RR_CPU) != (ns == 2))
            return tail;
          span_end (ss, a->w[1], fa, a->w[2], a->w[3], ns == 2, ns == 2 ? b->w[0] : 0);
          break;
        case EMLAT_RR_SPAN_COUNT:
          if (fa >= EMLAT_C_COUNTER_COUNT || fb > EMLAT_RR_SERVED)
            return tail;
          span_count (ss, a->w[1], fa, a->w[2], fb);
          break;
        case EMLAT_RR_SPAN_COUNTS:
          if (span_counts (ss, slots, mask, tail, ns) != 0)
            return tail;
          break;
        default:
          return tail;
        }
      tail += ns;
      if (ss->served_cause)
        return tail; /* the caller adds the served counts first */
      pairs = ss->depth < EMLAT_SPAN_STACK_MAX;
      now = ss->head == ss->nstaged;
    }
  return tail;
}

int
emlat_spans_idle (const struct emlat_span_state *ss)
{
  return ss->depth == 0 && ss->nstaged == 0;
}

int
emlat_spans_emit (struct emlat_span_state *ss)
{
  /* Spans begun this pass and still open become begin records. */
  for (size_t i = 0; i < ss->depth; i++)
    {
      struct emlat_open_span *o = &ss->stack[i];
      if (o->staged < 0)
        continue;
      struct emlat_staged_span *st = &ss->staged[o->staged];
      struct emlat_enc_span *e = &st->enc;
      e->rec = EMLAT_SPAN_REC_BEGIN;
      e->kind = o->kind;
      e->id = o->id;
      e->parent = o->parent;
      e->cause = o->cause;
      e->t_start = o->t_start;
      e->has_cpu = o->has_cpu;
      e->cpu_a = o->cpu_begin;
      st->filled = 1;
      o->staged = -1;
      o->begin_written = 1;
    }
  flush (ss); /* everything is filled now */
  int rc = 0;
  if (ss->enc_failed)
    rc = -1;
  else if (ss->cb_open && emlat_cb_finish (&ss->cb, ss->out, 0) != 0)
    {
      /* Out of memory: the open chunk's records are lost. */
      ss->lost_memory += ss->cb.represents;
      rc = -1;
    }
  ss->cb_open = 0;
  ss->enc_failed = 0;
  ss->fast_end = 0;
  ss->nstaged = ss->head = ss->npairs = 0;
  return rc;
}
