/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ix_spans.c -- every span of one interaction, for a waterfall, without
 * keeping every span of the session in memory: the profile's files are
 * re-scanned and only spans whose cause matches are kept (their begin and
 * end records joined as in the load).
 *
 * Bounded by limits.max_spans (result, and the words of the span-id set)
 * and max_open_spans; the scan itself validates everything again, so a file
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

struct fetch
{
  const struct emlat_profile *p;
  struct emlat_budget budget;
  struct emlat_spanjoin join;
  struct emlat_idset ids;     /* every span id begun or completed (F-92) */
  struct emlat_vec spans;     /* struct emlat_span */
  struct emlat_vec counters;  /* uint64_t */
  uint32_t file;
  int err;                    /* negative errno */
};

static int f_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  struct fetch *f = ctx;
  if (ci->type != EMLAT_CHUNK_SPAN)
    return 0;
  if (r->kind != EMLAT_REC_SPAN_END)
    switch (emlat_idset_add (&f->ids, &f->budget, r->u.span.id, f->p->lim.max_spans))
      {
      case 1: /* the load reported it and used the first */
        return 0;
      case -1:
        f->err = -E2BIG;
        return 1;
      }
  struct emlat_joined j;
  switch (emlat_spanjoin_feed (&f->join, r, f->file, ci->offset, &j))
    {
    case EMLAT_JOIN_DONE:
      if (emlat_spanset_push (&f->budget, &f->spans, &f->counters, &j.s, j.counters,
                              f->p->lim.max_spans))
        {
          f->err = -E2BIG;
          return 1;
        }
      return 0;
    case EMLAT_JOIN_LIMIT:
      f->err = -E2BIG;
      return 1;
    default:
      return 0;
    }
}

static void f_incomplete (void *ctx, const struct emlat_open_span *o)
{
  struct fetch *f = ctx;
  if (f->err)
    return;
  struct emlat_span s = o->s;
  s.flags &= ~EMLAT_SPAN_HAS_CPU;
  s.cpu_ns = 0;
  s.counter_mask = 0;
  if (emlat_spanset_push (&f->budget, &f->spans, &f->counters, &s, NULL, f->p->lim.max_spans))
    f->err = -E2BIG;
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
  struct fetch f;
  memset (&f, 0, sizeof f);
  f.p = p;
  f.budget.limit = p->lim.max_alloc_bytes;
  f.join.budget = &f.budget;
  f.join.max_open = p->lim.max_open_spans < UINT32_MAX ? p->lim.max_open_spans : UINT32_MAX;
  f.join.filter_cause = cause;
  for (size_t i = 0; i < p->n_files && !f.err; i++)
    {
      if (p->summaries[i].ignored || !p->files[i].buf)
        continue;
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.limits = &p->lim;
      sp.file_index = (uint32_t)i;
      sp.visitor.ctx = &f;
      sp.visitor.on_record = f_record;
      f.file = (uint32_t)i;
      emlat_scan (p->files[i].buf, p->files[i].len, &sp, &res);
    }
  if (!f.err)
    emlat_spanjoin_each_open (&f.join, f_incomplete, &f);
  emlat_spanjoin_free (&f.join);
  emlat_idset_free (&f.ids, &f.budget);
  if (f.err)
    {
      emlat_vec_free (NULL, &f.spans, 0);
      emlat_vec_free (NULL, &f.counters, 0);
      return f.err;
    }
  if (f.spans.n > 1)
    qsort (f.spans.p, f.spans.n, sizeof (struct emlat_span), cmp_start);
  set->spans = f.spans.p;
  set->n = f.spans.n;
  set->counters = f.counters.p;
  set->n_counters = f.counters.n;
  return 0;
}

EMLAT_API void emlat_span_set_free (struct emlat_span_set *set)
{
  free (set->spans);
  free (set->counters);
  memset (set, 0, sizeof *set);
}
