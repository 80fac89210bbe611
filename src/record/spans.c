/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spans.c -- see spans.h.
 */
#include "record/spans.h"

#include <stdlib.h>
#include <string.h>

#include "format/format.h"

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

void
emlat_spans_reset (struct emlat_span_state *ss, uint64_t thread)
{
  ss->thread = thread;
  ss->depth = 0;
  ss->nstaged = 0;
  ss->npairs = 0;
  ss->discarded = 0;
  ss->lost_memory = 0;
}

void
emlat_spans_free (struct emlat_span_state *ss)
{
  free (ss->stack);
  free (ss->staged);
  free (ss->pairs);
  memset (ss, 0, sizeof *ss);
}

static struct emlat_staged_span *
stage (struct emlat_span_state *ss)
{
  if (grow ((void **)&ss->staged, &ss->staged_cap, ss->nstaged + 1, sizeof *ss->staged) != 0)
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

void
emlat_spans_begin (struct emlat_span_state *ss, uint64_t id, unsigned kind, uint64_t cause,
                   uint64_t t, int has_cpu, uint64_t cpu)
{
  if (ss->depth >= EMLAT_SPAN_STACK_MAX)
    {
      ss->discarded++;
      return;
    }
  struct emlat_staged_span *st;
  if (grow ((void **)&ss->stack, &ss->stack_cap, ss->depth + 1, sizeof *ss->stack) != 0
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
  o->name = 0;
  o->kind = (uint8_t)kind;
  o->has_cpu = (uint8_t)has_cpu;
  o->begin_written = 0;
  o->staged = (long)(st - ss->staged);
  o->ncounters = 0;
  ss->depth++;
  st->enc.id = id;
  st->represents = 1;
}

/* Close stack entry O at T with STATUS; REP ring records end it. */
static void
close_span (struct emlat_span_state *ss, struct emlat_open_span *o, unsigned status, uint64_t t,
            uint64_t detail, int has_cpu, uint64_t cpu, uint64_t rep)
{
  struct emlat_staged_span *st;
  if (o->staged >= 0)
    st = &ss->staged[o->staged];
  else if (!(st = stage (ss)))
    {
      /* The end and the counters it would have carried. */
      ss->lost_memory += rep + o->ncounters;
      return;
    }
  size_t off = ss->npairs;
  uint32_t kept = 0; /* counters carried by the record */
  if (o->ncounters)
    {
      if (grow ((void **)&ss->pairs, &ss->pairs_cap, ss->npairs + o->ncounters,
                sizeof *ss->pairs)
          == 0)
        {
          memcpy (ss->pairs + off, o->counters, o->ncounters * sizeof *o->counters);
          ss->npairs += o->ncounters;
          kept = o->ncounters;
        }
      else
        ss->lost_memory += o->ncounters; /* the record goes without them */
    }
  struct emlat_enc_span *e = &st->enc;
  e->rec = o->staged >= 0 ? EMLAT_SPAN_REC_COMPLETE : EMLAT_SPAN_REC_END;
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
  e->detail = detail ? detail : o->name;
  e->ncounters = kept;
  st->pair_off = off;
  st->represents += rep + kept;
  st->filled = 1;
  /* A begin record already written in an earlier pass had no CPU flag
     problem: the end record then carries the absolute reading (6.6). */
  if (o->staged < 0)
    st->represents = rep + kept;
}

void
emlat_spans_end (struct emlat_span_state *ss, uint64_t id, unsigned status, uint64_t t,
                 uint64_t detail, int has_cpu, uint64_t cpu)
{
  size_t i = ss->depth;
  while (i > 0 && ss->stack[i - 1].id != id)
    i--;
  if (i == 0)
    {
      /* Orphan end: its begin was lost (F-68).  Written, reported by the
         reader, never joined. */
      struct emlat_staged_span *st = stage (ss);
      if (!st)
        {
          ss->lost_memory++;
          return;
        }
      st->enc.rec = EMLAT_SPAN_REC_END;
      st->enc.id = id;
      st->enc.status = status;
      st->enc.t_end = t;
      st->enc.has_cpu = has_cpu;
      st->enc.cpu_b = cpu;
      st->enc.detail = detail;
      st->represents = 1;
      st->filled = 1;
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

void
emlat_spans_count (struct emlat_span_state *ss, uint64_t id, unsigned counter, uint64_t v)
{
  for (size_t i = ss->depth; i > 0; i--)
    {
      struct emlat_open_span *o = &ss->stack[i - 1];
      if (o->id != id)
        continue;
      for (uint32_t k = 0; k < o->ncounters; k++)
        if (o->counters[k].counter == counter)
          {
            o->counters[k].value = v;
            return;
          }
      o->counters[o->ncounters].counter = counter;
      o->counters[o->ncounters].value = v;
      o->ncounters++;
      return;
    }
  ss->discarded++; /* counter for a span that is not open */
}

void
emlat_spans_name_top (struct emlat_span_state *ss, uint64_t id, uint64_t name)
{
  if (ss->depth && ss->stack[ss->depth - 1].id == id)
    ss->stack[ss->depth - 1].name = name;
}

int
emlat_spans_idle (const struct emlat_span_state *ss)
{
  return ss->depth == 0 && ss->nstaged == 0;
}

int
emlat_spans_emit (struct emlat_span_state *ss, struct emlat_arena *a,
                  struct emlat_chunk_list *out, size_t chunk_bytes)
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
  int rc = 0;
  if (ss->nstaged)
    {
      struct emlat_cb cb;
      uint64_t base = ss->staged[0].enc.rec == EMLAT_SPAN_REC_END ? ss->staged[0].enc.t_end
                                                                   : ss->staged[0].enc.t_start;
      emlat_cb_begin (&cb, a, EMLAT_CHUNK_SPAN, base, ss->thread);
      size_t i;
      for (i = 0; i < ss->nstaged; i++)
        {
          struct emlat_staged_span *st = &ss->staged[i];
          if (!st->filled)
            continue;
          if (emlat_cb_payload_bytes (&cb) >= chunk_bytes)
            {
              if (emlat_cb_finish (&cb, out, 0) != 0)
                {
                  rc = -1;
                  break;
                }
              uint64_t b = st->enc.rec == EMLAT_SPAN_REC_END ? st->enc.t_end : st->enc.t_start;
              emlat_cb_begin (&cb, a, EMLAT_CHUNK_SPAN, b, ss->thread);
            }
          st->enc.counters = st->enc.ncounters ? ss->pairs + st->pair_off : 0;
          if (emlat_enc_span (&cb, &st->enc, st->represents) != 0)
            {
              rc = -1;
              break;
            }
        }
      if (rc == 0 && emlat_cb_finish (&cb, out, 0) != 0)
        rc = -1;
      if (rc != 0)
        {
          /* Out of memory: the open chunk's records and those never
             encoded are lost (the staging area is cleared below). */
          ss->lost_memory += cb.represents;
          for (; i < ss->nstaged; i++)
            if (ss->staged[i].filled)
              ss->lost_memory += ss->staged[i].represents;
        }
    }
  ss->nstaged = 0;
  ss->npairs = 0;
  return rc;
}
