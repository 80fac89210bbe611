/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ix_spans.c -- the spans of a loaded set again, without keeping them:
 * every span (emlat_profile_each_span, for the Chrome export) or those of
 * one interaction (emlat_profile_ix_spans, for a waterfall).  The
 * profile's files are re-scanned (emlat_profile_rescan: read again, one
 * chunk at a time) and begin and end records joined as in the load.
 *
 * Bounded by limits.max_spans (one interaction's result, and the words of
 * the span-id set) and max_open_spans; the scan itself validates everything again, so a file
 * is never trusted more than at load, and the spans the load did not use
 * are not used here either: a repeated span id (F-92: every id is tracked,
 * whatever its cause, as at load) and a span that ends before it starts
 * (F-93, refused by the join).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "reader/profile.h"

/* One walk over every span of the set (or of one cause). */
struct walk
{
  const struct emlat_profile *p;
  struct emlat_budget budget;
  struct emlat_spanjoin join;
  struct emlat_idset ids;     /* every span id begun or completed (F-92) */
  emlat_span_fn fn;
  void *ctx;
  uint32_t file;
  int rc;                     /* FN's nonzero return, or a negative errno */
};

/* Hand span S (counters by index in C, NULL: none) to the walk's FN. */
static int hand_over (struct walk *w, const struct emlat_span *s, const uint64_t *c)
{
  struct emlat_span x = *s;
  uint64_t pool[EMLAT_C_COUNTER_COUNT];
  unsigned n = 0;
  for (unsigned k = 0; c && k < EMLAT_C_COUNTER_COUNT; k++)
    if (x.counter_mask & (1u << k))
      pool[n++] = c[k];
  x.counter_off = 0;
  int rc = w->fn (w->ctx, &x, pool);
  if (rc)
    w->rc = rc;
  return rc != 0;
}

static int w_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  struct walk *w = ctx;
  if (r->kind != EMLAT_REC_SPAN_COMPLETE && r->kind != EMLAT_REC_SPAN_BEGIN
      && r->kind != EMLAT_REC_SPAN_END)
    return 0;
  if (r->kind != EMLAT_REC_SPAN_END)
    switch (emlat_idset_add (&w->ids, &w->budget, r->u.span.id, w->p->lim.max_spans))
      {
      case 1: /* the load reported it and used the first */
        return 0;
      case -1:
        w->rc = -E2BIG;
        return 1;
      }
  struct emlat_joined j;
  switch (emlat_spanjoin_feed (&w->join, r, w->file, ci->offset, &j))
    {
    case EMLAT_JOIN_DONE:
      return hand_over (w, &j.s, j.counters);
    case EMLAT_JOIN_LIMIT:
      w->rc = -E2BIG;
      return 1;
    default:
      return 0;
    }
}

static void w_incomplete (void *ctx, const struct emlat_open_span *o)
{
  struct walk *w = ctx;
  if (w->rc)
    return;
  struct emlat_span s = o->s;
  s.flags &= ~EMLAT_SPAN_HAS_CPU; /* a reading, not a duration */
  s.cpu_ns = 0;
  s.counter_mask = 0;
  hand_over (w, &s, NULL);
}

/* Every span of P, of cause CAUSE only when not 0. */
static int walk_spans (const struct emlat_profile *p, uint64_t cause, emlat_span_fn fn, void *ctx)
{
  struct walk w;
  memset (&w, 0, sizeof w);
  w.p = p;
  w.fn = fn;
  w.ctx = ctx;
  w.budget.limit = p->lim.max_alloc_bytes;
  w.join.budget = &w.budget;
  w.join.max_open = p->lim.max_open_spans < UINT32_MAX ? p->lim.max_open_spans : UINT32_MAX;
  w.join.filter_cause = cause;
  for (size_t i = 0; i < p->n_files && !w.rc; i++)
    {
      if (!p->files[i].in_session || p->summaries[i].ignored || p->summaries[i].read_error)
        continue;
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.limits = &p->lim;
      sp.file_index = (uint32_t)i;
      sp.visitor.ctx = &w;
      sp.visitor.on_record = w_record;
      sp.decode_types = 1u << EMLAT_CHUNK_SPAN;
      w.file = (uint32_t)i;
      int rc = emlat_profile_rescan (p, i, &sp, &res);
      if (rc < 0 && rc != -EINVAL && !w.rc)
        w.rc = rc;
    }
  if (!w.rc)
    emlat_spanjoin_each_open (&w.join, w_incomplete, &w);
  emlat_spanjoin_free (&w.join);
  emlat_idset_free (&w.ids, &w.budget);
  return w.rc;
}

EMLAT_API int emlat_profile_each_span (const struct emlat_profile *p, emlat_span_fn fn, void *ctx)
{
  if (!p || !fn)
    return -EINVAL;
  if (p->totals.limit_hit)
    return -ECANCELED;
  return walk_spans (p, 0, fn, ctx);
}

/* Collecting one interaction's spans. */
struct collect
{
  const struct emlat_profile *p;
  struct emlat_budget budget; /* max_alloc_bytes, for the result */
  struct emlat_vec spans;     /* struct emlat_span */
  struct emlat_vec counters;  /* uint64_t */
};

static int collect_one (void *ctx, const struct emlat_span *s, const uint64_t *pool)
{
  struct collect *c = ctx;
  uint64_t by_index[EMLAT_C_COUNTER_COUNT];
  unsigned n = 0;
  for (unsigned k = 0; k < EMLAT_C_COUNTER_COUNT; k++)
    if (s->counter_mask & (1u << k))
      by_index[k] = pool[n++];
  if (emlat_spanset_push (&c->budget, &c->spans, &c->counters, s, by_index, c->p->lim.max_spans))
    return -E2BIG;
  return 0;
}

static int cmp_start (const void *a, const void *b)
{
  const struct emlat_span *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

EMLAT_API int emlat_profile_ix_spans (const struct emlat_profile *p, uint64_t cause,
                                      struct emlat_span_set *set)
{
  memset (set, 0, sizeof *set);
  if (cause == 0)
    return -EINVAL;
  struct collect c;
  memset (&c, 0, sizeof c);
  c.p = p;
  c.budget.limit = p->lim.max_alloc_bytes;
  int rc = walk_spans (p, cause, collect_one, &c);
  if (rc)
    {
      emlat_vec_free (NULL, &c.spans, 0);
      emlat_vec_free (NULL, &c.counters, 0);
      return rc < 0 ? rc : -E2BIG;
    }
  if (c.spans.n > 1)
    qsort (c.spans.p, c.spans.n, sizeof (struct emlat_span), cmp_start);
  set->spans = c.spans.p;
  set->n = c.spans.n;
  set->counters = c.counters.p;
  set->n_counters = c.counters.n;
  return 0;
}

EMLAT_API void emlat_span_set_free (struct emlat_span_set *set)
{
  free (set->spans);
  free (set->counters);
  memset (set, 0, sizeof *set);
}
