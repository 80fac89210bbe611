/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ixstream.c -- see ixstream.h.
 *
 * Invariants: a cause is in PENDING (seen, not complete) or in DONE
 * (complete) or unseen, never two of these; CREATED counts every cause
 * that left "unseen", so a set hits max_interactions at the same record
 * as a load keeping every interaction; an entry's span aggregates exist
 * only while no begin or complete record defined its cause.
 */
#include "reader/ixstream.h"

#include <stdlib.h>
#include <string.h>

#include "reader/profile.h"

struct emlat_ixs_entry
{
  uint64_t cause, ordinal;
  uint64_t thread, t_dispatch, parent, scheduled_by, offset;
  uint64_t name; /* an application interaction's name (F-66a), 0 = none */
  uint32_t file, root_kind, has_begin;
  uint32_t agg; /* unknown-cause span aggregates: AGGS index + 1, 0 none */
};

/* A complete record with status open, told at the end with the others. */
struct emlat_ixs_open
{
  uint64_t ordinal, cause, offset;
  uint32_t file;
};

static void
tell (struct emlat_ixstream *s, enum emlat_diag_kind k, uint32_t file, uint64_t offset,
      uint64_t cause)
{
  if (s->diag)
    s->diag (s->ctx, k, file, offset, cause);
}

static int
limit (struct emlat_ixstream *s, const char *what)
{
  s->limit = what;
  return -1;
}

/* The pending entry of CAUSE, or NULL. */
static struct emlat_ixs_entry *
find (struct emlat_ixstream *s, uint64_t cause)
{
  uint64_t *v = emlat_u64map_get (&s->pending, cause);
  return v ? &EMLAT_VEC_AT (s->entries, struct emlat_ixs_entry, *v - 1) : NULL;
}

/* A new pending entry for CAUSE (unseen so far); NULL at a limit. */
static struct emlat_ixs_entry *
create (struct emlat_ixstream *s, uint64_t cause)
{
  if (s->created >= s->max_interactions)
    {
      limit (s, "max_interactions");
      return NULL;
    }
  uint64_t *v;
  int added;
  if (emlat_u64map_put (&s->pending, s->budget, cause, &v, &added))
    {
      limit (s, "max_alloc_bytes (interaction index)");
      return NULL;
    }
  uint32_t at;
  if (s->free_entries.n)
    at = EMLAT_VEC_AT (s->free_entries, uint32_t, --s->free_entries.n);
  else if (s->entries.n < UINT32_MAX - 1
           && emlat_vec_reserve (s->budget, &s->entries, s->entries.n + 1,
                                 sizeof (struct emlat_ixs_entry), UINT32_MAX - 1)
                  == 0)
    at = (uint32_t)s->entries.n++;
  else
    {
      emlat_u64map_del (&s->pending, cause);
      limit (s, "max_alloc_bytes (interaction index)");
      return NULL;
    }
  v = emlat_u64map_get (&s->pending, cause); /* the map may have grown */
  *v = (uint64_t)at + 1;
  struct emlat_ixs_entry *e = &EMLAT_VEC_AT (s->entries, struct emlat_ixs_entry, at);
  memset (e, 0, sizeof *e);
  e->cause = cause;
  e->ordinal = s->created++;
  return e;
}

/* Return E's span aggregate nodes to the free list. */
static void
drop_aggs (struct emlat_ixstream *s, struct emlat_ixs_entry *e)
{
  while (e->agg)
    {
      struct emlat_agg_node *nd = &EMLAT_VEC_AT (s->aggs, struct emlat_agg_node, e->agg - 1);
      uint32_t next = nd->next;
      nd->next = s->agg_free;
      s->agg_free = e->agg;
      e->agg = next;
    }
}

/* Forget pending entry E (its cause completed). */
static void
release (struct emlat_ixstream *s, struct emlat_ixs_entry *e)
{
  drop_aggs (s, e);
  uint32_t at = (uint32_t)(e - (struct emlat_ixs_entry *)s->entries.p);
  emlat_u64map_del (&s->pending, e->cause);
  /* The free list never outgrows the entries: reserve cannot fail past
     what the entries took. */
  if (emlat_vec_reserve (s->budget, &s->free_entries, s->free_entries.n + 1, sizeof (uint32_t),
                         UINT32_MAX)
      == 0)
    EMLAT_VEC_AT (s->free_entries, uint32_t, s->free_entries.n++) = at;
}

int
emlat_ixs_begin (struct emlat_ixstream *s, const struct emlat_rd_ix_begin *b, uint64_t thread,
                 uint32_t file, uint64_t offset)
{
  struct emlat_ixs_entry *e = find (s, b->cause);
  if ((!e && emlat_idset_has (&s->done, b->cause)) || (e && e->has_begin))
    {
      /* F-65, F-92: after the complete record, or repeated: adds nothing. */
      tell (s, EMLAT_DIAG_DUPLICATE_BEGIN, file, offset, b->cause);
      return 0;
    }
  if (!e && !(e = create (s, b->cause)))
    return -1;
  drop_aggs (s, e); /* its spans are this interaction's */
  e->has_begin = 1;
  e->root_kind = b->root_kind;
  e->name = b->name;
  e->thread = thread;
  e->t_dispatch = b->t_dispatch_begin;
  e->parent = b->parent;
  e->scheduled_by = b->scheduled_by;
  e->file = file;
  e->offset = offset;
  return 0;
}

/* Hand over IX (its packed fields in S->words). */
static int
hand_over (struct emlat_ixstream *s, struct emlat_interaction *ix)
{
  ix->flags |= EMLAT_IX_PRIV_DIRECT;
  ix->priv_slot = (uint64_t)(uintptr_t)s->words;
  s->interactions++;
  return s->deliver ? s->deliver (s->ctx, ix) : 0;
}

int
emlat_ixs_complete (struct emlat_ixstream *s, const struct emlat_rd_ix *c, uint64_t thread,
                    uint32_t file, uint64_t offset)
{
  struct emlat_ixs_entry *e = find (s, c->cause);
  if (!e)
    {
      if (emlat_idset_has (&s->done, c->cause))
        {
          tell (s, EMLAT_DIAG_DUPLICATE_COMPLETE, file, offset, c->cause); /* F-65 */
          return 0;
        }
      if (!(e = create (s, c->cause)))
        return -1;
    }
  if (c->cause && emlat_idset_add (&s->done, s->budget, c->cause, UINT64_MAX) < 0)
    return limit (s, "max_alloc_bytes (interaction index)");
  struct emlat_interaction ix;
  memset (&ix, 0, sizeof ix);
  ix.cause = c->cause;
  ix.thread = thread;
  /* 0 keeps what a begin record said. */
  ix.root_kind = c->root_kind != 0 || !e->has_begin ? c->root_kind : e->root_kind;
  /* The same rule for an application interaction's name (F-66a). */
  ix.name = c->name != 0 || !e->has_begin ? c->name : e->name;
  ix.status = c->status;
  ix.flags = EMLAT_IX_HAS_COMPLETE | (e->has_begin ? EMLAT_IX_HAS_BEGIN : 0);
  ix.time_mask = c->time_mask;
  ix.value_mask = c->value_mask;
  ix.counter_mask = c->counter_mask;
  ix.file = file;
  ix.offset = offset;
  /* Only qualities that differ from the default are kept (F-64). */
  uint64_t *w = s->words;
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (c->time_mask & (1u << f))
      {
        *w++ = c->t[f];
        if (c->q[f] != (uint8_t)emlat_time_default_quality ((enum emlat_time_field)f))
          ix.q_mask |= 1u << f;
      }
  for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
    if (c->value_mask & (1u << f))
      *w++ = c->v[f];
  for (unsigned f = 0; f < EMLAT_C_COUNTER_COUNT; f++)
    if (c->counter_mask & (1u << f))
      *w++ = c->c[f];
  unsigned nq = 0;
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (ix.q_mask & (1u << f))
      {
        if (nq % 16 == 0)
          w[nq / 16] = 0;
        w[nq / 16] |= (uint64_t)(c->q[f] & 0xf) << (4 * (nq % 16));
        nq++;
      }
  if (c->status == EMLAT_STATUS_OPEN)
    {
      /* The writer's complete record of an interaction open at stop: told
         at the end, in the order its cause was first seen. */
      if (emlat_vec_reserve (s->budget, &s->open_done, s->open_done.n + 1,
                             sizeof (struct emlat_ixs_open), UINT64_MAX / 64))
        return limit (s, "max_alloc_bytes (interaction index)");
      struct emlat_ixs_open *o
          = &EMLAT_VEC_AT (s->open_done, struct emlat_ixs_open, s->open_done.n++);
      o->ordinal = e->ordinal;
      o->cause = c->cause;
      o->file = file;
      o->offset = offset;
      s->open++;
    }
  release (s, e);
  return hand_over (s, &ix);
}

int
emlat_ixs_span (struct emlat_ixstream *s, uint64_t cause, uint32_t kind, uint64_t duration)
{
  struct emlat_ixs_entry *e = find (s, cause);
  if (!e)
    {
      if (emlat_idset_has (&s->done, cause))
        return 0; /* its interaction's */
      if (!(e = create (s, cause)))
        return -1;
    }
  if (e->has_begin)
    return 0;
  for (uint32_t i = e->agg; i;)
    {
      struct emlat_agg_node *nd = &EMLAT_VEC_AT (s->aggs, struct emlat_agg_node, i - 1);
      if (nd->agg.kind == kind)
        {
          nd->agg.count++;
          nd->agg.total_ns += duration;
          return 0;
        }
      i = nd->next;
    }
  uint32_t at = s->agg_free;
  if (at)
    s->agg_free = EMLAT_VEC_AT (s->aggs, struct emlat_agg_node, at - 1).next;
  else
    {
      if (emlat_vec_reserve (s->budget, &s->aggs, s->aggs.n + 1, sizeof (struct emlat_agg_node),
                             UINT32_MAX - 1))
        return limit (s, "max_alloc_bytes (span aggregates)");
      at = (uint32_t)++s->aggs.n;
    }
  struct emlat_agg_node *nd = &EMLAT_VEC_AT (s->aggs, struct emlat_agg_node, at - 1);
  nd->agg.kind = kind;
  nd->agg.count = 1;
  nd->agg.total_ns = duration;
  nd->next = e->agg;
  e->agg = at;
  return 0;
}

/* What the end tells, in the order causes were first seen. */
struct ending
{
  uint64_t ordinal;
  int64_t entry; /* pending entry index, or -1 - open_done index */
};

static int
cmp_ending (const void *a, const void *b)
{
  uint64_t x = ((const struct ending *)a)->ordinal, y = ((const struct ending *)b)->ordinal;
  return x < y ? -1 : x > y;
}

int
emlat_ixs_finish (struct emlat_ixstream *s, struct emlat_span_agg *unattributed,
                  uint64_t *unknown_spans)
{
  size_t n = s->entries.n + s->open_done.n;
  struct ending *order = malloc ((n ? n : 1) * sizeof *order);
  if (!order)
    return limit (s, "max_alloc_bytes (interaction index)");
  size_t k = 0;
  for (size_t i = 0; i < s->entries.n; i++)
    {
      const struct emlat_ixs_entry *e = &EMLAT_VEC_AT (s->entries, struct emlat_ixs_entry, i);
      uint64_t *v = emlat_u64map_get (&s->pending, e->cause);
      if (v && *v == i + 1) /* a live entry, not a free one */
        order[k++] = (struct ending){ e->ordinal, (int64_t)i };
    }
  for (size_t i = 0; i < s->open_done.n; i++)
    order[k++] = (struct ending){ EMLAT_VEC_AT (s->open_done, struct emlat_ixs_open, i).ordinal,
                                  -1 - (int64_t)i };
  qsort (order, k, sizeof *order, cmp_ending);
  int rc = 0;
  for (size_t i = 0; i < k && rc == 0; i++)
    {
      if (order[i].entry < 0)
        {
          const struct emlat_ixs_open *o
              = &EMLAT_VEC_AT (s->open_done, struct emlat_ixs_open, (size_t)(-1 - order[i].entry));
          tell (s, EMLAT_DIAG_OPEN_INTERACTION, o->file, o->offset, o->cause);
          continue;
        }
      struct emlat_ixs_entry *e
          = &EMLAT_VEC_AT (s->entries, struct emlat_ixs_entry, (size_t)order[i].entry);
      if (!e->has_begin)
        {
          /* Spans named a cause that no INTERACTION record defines. */
          for (uint32_t a = e->agg; a;)
            {
              const struct emlat_agg_node *nd
                  = &EMLAT_VEC_AT (s->aggs, struct emlat_agg_node, a - 1);
              if (unattributed && nd->agg.kind <= EMLAT_SPAN_KIND_MAX)
                {
                  struct emlat_span_agg *u = &unattributed[nd->agg.kind];
                  u->kind = nd->agg.kind;
                  u->count += nd->agg.count;
                  u->total_ns += nd->agg.total_ns;
                }
              if (unknown_spans)
                *unknown_spans += nd->agg.count;
              a = nd->next;
            }
          continue;
        }
      /* F-65: a begin without complete record is open. */
      tell (s, EMLAT_DIAG_OPEN_INTERACTION, e->file, e->offset, e->cause);
      s->open++;
      struct emlat_interaction ix;
      memset (&ix, 0, sizeof ix);
      ix.cause = e->cause;
      ix.thread = e->thread;
      ix.root_kind = e->root_kind;
      ix.name = e->name;
      ix.status = EMLAT_STATUS_OPEN;
      ix.flags = EMLAT_IX_HAS_BEGIN;
      ix.time_mask = 1u << EMLAT_T_DISPATCH_BEGIN;
      ix.value_mask = (e->parent ? 1u << EMLAT_V_PARENT_CAUSE : 0)
                      | (e->scheduled_by ? 1u << EMLAT_V_SCHEDULED_BY_CAUSE : 0);
      ix.file = e->file;
      ix.offset = e->offset;
      uint64_t *w = s->words;
      *w++ = e->t_dispatch;
      if (e->parent)
        *w++ = e->parent;
      if (e->scheduled_by)
        *w++ = e->scheduled_by;
      rc = hand_over (s, &ix);
    }
  free (order);
  return rc;
}

void
emlat_ixs_free (struct emlat_ixstream *s)
{
  emlat_u64map_free (&s->pending, s->budget);
  emlat_vec_free (s->budget, &s->entries, sizeof (struct emlat_ixs_entry));
  emlat_vec_free (s->budget, &s->free_entries, sizeof (uint32_t));
  emlat_idset_free (&s->done, s->budget);
  emlat_vec_free (s->budget, &s->open_done, sizeof (struct emlat_ixs_open));
  emlat_vec_free (s->budget, &s->aggs, sizeof (struct emlat_agg_node));
}
