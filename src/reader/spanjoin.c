/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spanjoin.c -- see spanjoin.h.  Invariant: ids maps exactly the open slots
 * (slot + 1), and every slot is either mapped or on free_slots.
 */
#include "reader/spanjoin.h"

#include <string.h>

/* Fill the counter fields of S and the by-index array from a record. */
static void take_counters (const struct emlat_rd_span *r, struct emlat_span *s,
                           uint64_t *counters)
{
  s->counter_mask = 0;
  for (uint32_t i = 0; i < r->n_counters; i++)
    {
      unsigned c = r->counter_id[i]; /* < 29: checked by the decoder */
      s->counter_mask |= 1u << c;
      counters[c] = r->counter_val[i]; /* repeated: the last wins */
    }
}

enum emlat_join_result emlat_spanjoin_feed (struct emlat_spanjoin *j,
                                            const struct emlat_record *r,
                                            uint32_t file, uint64_t offset,
                                            struct emlat_joined *out)
{
  const struct emlat_rd_span *rs = &r->u.span;
  if (r->kind == EMLAT_REC_SPAN_COMPLETE || r->kind == EMLAT_REC_SPAN_BEGIN)
    {
      if (j->filter_cause && rs->cause != j->filter_cause)
        return EMLAT_JOIN_NONE;
      struct emlat_span s;
      memset (&s, 0, sizeof s);
      s.id = rs->id;
      s.parent = rs->parent;
      s.cause = rs->cause;
      s.thread = r->thread;
      s.start = rs->start;
      s.kind = rs->kind;
      if (r->kind == EMLAT_REC_SPAN_COMPLETE)
        {
          s.end = rs->end;
          s.status = rs->status;
          s.flags = EMLAT_SPAN_HAS_END;
          if (rs->flags & EMLAT_RD_SPAN_CPU)
            {
              s.flags |= EMLAT_SPAN_HAS_CPU;
              s.cpu_ns = rs->cpu; /* a duration in complete records */
            }
          if (rs->flags & EMLAT_RD_SPAN_DETAIL)
            {
              s.flags |= EMLAT_SPAN_HAS_DETAIL;
              s.detail = rs->detail;
            }
          out->s = s;
          take_counters (rs, &out->s, out->counters);
          return s.end < s.start ? EMLAT_JOIN_BACKWARDS : EMLAT_JOIN_DONE; /* F-93 */
        }
      /* Begin: wait for the end. */
      if (emlat_u64map_get (&j->ids, s.id))
        return EMLAT_JOIN_DUPLICATE;
      if (j->ids.n >= j->max_open)
        return EMLAT_JOIN_LIMIT;
      uint32_t slot;
      if (j->free_slots.n)
        slot = EMLAT_VEC_AT (j->free_slots, uint32_t, --j->free_slots.n);
      else
        {
          if (emlat_vec_reserve (j->budget, &j->open, j->open.n + 1,
                                 sizeof (struct emlat_open_span), j->max_open))
            return EMLAT_JOIN_LIMIT;
          slot = (uint32_t)j->open.n++;
        }
      uint64_t *v;
      int added;
      if (emlat_u64map_put (&j->ids, j->budget, s.id, &v, &added))
        {
          /* Give the slot back so the invariant holds. */
          if (slot + 1 == j->open.n)
            j->open.n--;
          else
            j->free_slots.n++; /* it was just popped: still in the array */
          return EMLAT_JOIN_LIMIT;
        }
      *v = (uint64_t)slot + 1;
      struct emlat_open_span *o = &EMLAT_VEC_AT (j->open, struct emlat_open_span, slot);
      o->s = s;
      o->s.status = EMLAT_SPAN_INCOMPLETE;
      if (rs->flags & EMLAT_RD_SPAN_CPU)
        {
          o->s.flags |= EMLAT_SPAN_HAS_CPU;
          o->s.cpu_ns = rs->cpu; /* absolute reading until the end */
        }
      o->file = file;
      o->offset = offset;
      return EMLAT_JOIN_OPENED;
    }
  if (r->kind != EMLAT_REC_SPAN_END)
    return EMLAT_JOIN_NONE;
  uint64_t *v = emlat_u64map_get (&j->ids, rs->id);
  if (!v)
    return j->filter_cause ? EMLAT_JOIN_NONE : EMLAT_JOIN_ORPHAN;
  uint32_t slot = (uint32_t)(*v - 1);
  struct emlat_open_span *o = &EMLAT_VEC_AT (j->open, struct emlat_open_span, slot);
  out->s = o->s;
  out->s.end = rs->end;
  out->s.status = rs->status;
  out->s.flags = EMLAT_SPAN_HAS_END;
  /* A CPU duration needs both readings. */
  if ((o->s.flags & EMLAT_SPAN_HAS_CPU) && (rs->flags & EMLAT_RD_SPAN_CPU))
    {
      out->s.flags |= EMLAT_SPAN_HAS_CPU;
      out->s.cpu_ns = rs->cpu - o->s.cpu_ns;
    }
  else
    out->s.cpu_ns = 0;
  if (rs->flags & EMLAT_RD_SPAN_DETAIL)
    {
      out->s.flags |= EMLAT_SPAN_HAS_DETAIL;
      out->s.detail = rs->detail;
    }
  take_counters (rs, &out->s, out->counters);
  emlat_u64map_del (&j->ids, rs->id);
  /* free_slots never needs more room than open has slots. */
  if (emlat_vec_reserve (j->budget, &j->free_slots, j->free_slots.n + 1, sizeof (uint32_t),
                         j->max_open) == 0)
    EMLAT_VEC_AT (j->free_slots, uint32_t, j->free_slots.n++) = slot;
  return out->s.end < out->s.start ? EMLAT_JOIN_BACKWARDS : EMLAT_JOIN_DONE; /* F-93 */
}

void emlat_spanjoin_each_open (const struct emlat_spanjoin *j,
                               void (*fn) (void *ctx, const struct emlat_open_span *o),
                               void *ctx)
{
  for (size_t i = 0; i < j->ids.cap; i++)
    if (j->ids.keys[i])
      fn (ctx, &EMLAT_VEC_AT (j->open, struct emlat_open_span, j->ids.vals[i] - 1));
}

void emlat_spanjoin_free (struct emlat_spanjoin *j)
{
  emlat_vec_free (j->budget, &j->open, sizeof (struct emlat_open_span));
  emlat_vec_free (j->budget, &j->free_slots, sizeof (uint32_t));
  emlat_u64map_free (&j->ids, j->budget);
}

int emlat_spanset_push (struct emlat_budget *b, struct emlat_vec *spans,
                        struct emlat_vec *pool, const struct emlat_span *span,
                        const uint64_t *counters, uint64_t max_spans)
{
  unsigned nc = (unsigned)__builtin_popcount (span->counter_mask);
  if (emlat_vec_reserve (b, spans, spans->n + 1, sizeof (struct emlat_span), max_spans)
      || emlat_vec_reserve (b, pool, pool->n + nc, sizeof (uint64_t), SIZE_MAX / 16))
    return -1;
  struct emlat_span *s = &EMLAT_VEC_AT (*spans, struct emlat_span, spans->n++);
  *s = *span;
  s->counter_off = pool->n;
  for (unsigned c = 0; c < EMLAT_C_COUNTER_COUNT; c++)
    if (span->counter_mask & (1u << c))
      EMLAT_VEC_AT (*pool, uint64_t, pool->n++) = counters[c];
  return 0;
}
