/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_each.c -- every interaction of a loaded profile, one at a time
 * (emlat_profile_each_interaction): from the array of a profile that keeps
 * them, or, for a streamed one (EMLAT_LOAD_STREAM), by scanning the
 * session's files again through the same interaction stream as the load
 * (ixstream.c), so that the interactions are the load's, field for field.
 * Interactions whose cause the caller names are kept in the profile on the
 * way (the tail interaction of a report, the slowest ones), so that the
 * accessors that take a cause find them.
 *
 * Invariants: only the session's files that the load read are scanned, in
 * the load's order; a profile whose load a limit stopped is refused (its
 * set is not whole); the profile is changed only by appending kept
 * interactions and re-sorting them at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "reader/profile.h"

struct each
{
  struct emlat_profile *p;
  struct emlat_ixstream s;
  struct emlat_budget budget;
  uint64_t *keep; /* sorted */
  size_t n_keep;
  size_t kept_before; /* P's kept interactions before this call */
  uint32_t file;      /* the file being scanned */
  emlat_interaction_fn fn;
  void *ctx;
  int rc; /* FN's nonzero return, or a negative errno */
};

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int
cmp_ix (const void *a, const void *b)
{
  uint64_t x = ((const struct emlat_interaction *)a)->cause;
  uint64_t y = ((const struct emlat_interaction *)b)->cause;
  return x < y ? -1 : x > y;
}

static int
wanted (const struct each *e, uint64_t cause)
{
  return e->n_keep && bsearch (&cause, e->keep, e->n_keep, sizeof *e->keep, cmp_u64) != NULL;
}

/* Keep a copy of IX (handed over by the stream) in P.  0 or -ENOMEM. */
static int
keep (struct each *e, const struct emlat_interaction *ix)
{
  struct emlat_profile *p = e->p;
  size_t n;
  const struct emlat_interaction *have = emlat_profile_interactions (p, &n);
  for (size_t i = 0; i < e->kept_before; i++) /* kept by an earlier call */
    if (have[i].cause == ix->cause)
      return 0;
  uint32_t words
      = emlat_ix_slot_words (ix->time_mask, ix->value_mask, ix->counter_mask, ix->q_mask);
  if (emlat_vec_reserve (&p->budget, &p->ix, p->ix.n + 1, sizeof *ix, SIZE_MAX / 128)
      || emlat_vec_reserve (&p->budget, &p->arena, p->arena.n + words, sizeof (uint64_t),
                            SIZE_MAX / 16))
    return -ENOMEM;
  struct emlat_interaction *k = &EMLAT_VEC_AT (p->ix, struct emlat_interaction, p->ix.n++);
  *k = *ix;
  k->flags &= ~EMLAT_IX_PRIV_DIRECT;
  k->priv_slot = p->arena.n;
  k->priv_agg_off = k->priv_agg_n = 0;
  memcpy (&EMLAT_VEC_AT (p->arena, uint64_t, p->arena.n), emlat_ix_words (p, ix),
          words * sizeof (uint64_t));
  p->arena.n += words;
  return 0;
}

static int
each_deliver (void *ctx, const struct emlat_interaction *ix)
{
  struct each *e = ctx;
  if (wanted (e, ix->cause) && keep (e, ix) != 0)
    return e->rc = -ENOMEM;
  if (e->fn && (e->rc = e->fn (e->ctx, e->p, ix)) != 0)
    return e->rc;
  return 0;
}

/* The stream's return: 0 go on, else stop (E->rc says why). */
static int
stream_rc (struct each *e, int rc)
{
  if (rc < 0 && !e->rc)
    e->rc = -EFBIG; /* a limit the load passed: this scan's own budget */
  return rc != 0;
}

static int
each_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  struct each *e = ctx;
  switch (r->kind)
    {
    case EMLAT_REC_IX_BEGIN:
      return stream_rc (e, emlat_ixs_begin (&e->s, &r->u.ix_begin, r->thread, e->file, ci->offset));
    case EMLAT_REC_IX_COMPLETE:
      return stream_rc (e, emlat_ixs_complete (&e->s, &r->u.ix, r->thread, e->file, ci->offset));
    default:
      return 0;
    }
}

/* Every interaction of the streamed profile E->p through E's stream. */
static int
each_streamed (struct each *e)
{
  struct emlat_profile *p = e->p;
  for (size_t i = 0; i < p->n_files && !e->rc; i++)
    {
      const struct emlat_pfile *f = &p->files[i];
      const struct emlat_file_summary *sum = &p->summaries[i];
      if (!f->in_session || sum->ignored || sum->read_error)
        continue;
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.limits = &p->lim;
      sp.file_index = (uint32_t)i;
      sp.visitor.ctx = e;
      sp.visitor.on_record = each_record;
      sp.decode_types = 1u << EMLAT_CHUNK_INTERACTION;
      e->file = (uint32_t)i;
      int rc = emlat_pfile_scan (f, &sp, &res, &e->budget);
      if (rc < 0 && !e->rc)
        e->rc = rc;
    }
  if (!e->rc)
    stream_rc (e, emlat_ixs_finish (&e->s, NULL, NULL));
  return e->rc;
}

EMLAT_API int
emlat_profile_each_interaction (struct emlat_profile *p, const uint64_t *keep_ids, size_t n_keep,
                                emlat_interaction_fn fn, void *ctx)
{
  if (!p || (n_keep && !keep_ids))
    return -EINVAL;
  if (!(p->flags & EMLAT_LOAD_STREAM))
    {
      size_t n;
      const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
      for (size_t i = 0; i < n; i++)
        {
          int rc = fn ? fn (ctx, p, &ix[i]) : 0;
          if (rc)
            return rc;
        }
      return 0;
    }
  if (p->totals.limit_hit)
    return -ECANCELED;
  struct each e;
  memset (&e, 0, sizeof e);
  e.p = p;
  e.fn = fn;
  e.ctx = ctx;
  e.budget.limit = p->lim.max_alloc_bytes;
  e.kept_before = p->ix.n;
  if (n_keep)
    {
      e.keep = malloc (n_keep * sizeof *e.keep);
      if (!e.keep)
        return -ENOMEM;
      memcpy (e.keep, keep_ids, n_keep * sizeof *e.keep);
      qsort (e.keep, n_keep, sizeof *e.keep, cmp_u64);
      e.n_keep = n_keep;
    }
  e.s.budget = &e.budget;
  e.s.max_interactions = p->lim.max_interactions;
  e.s.deliver = each_deliver;
  e.s.ctx = &e;
  int rc = each_streamed (&e);
  emlat_ixs_free (&e.s);
  free (e.keep);
  if (p->ix.n > 1)
    qsort (p->ix.p, p->ix.n, sizeof (struct emlat_interaction), cmp_ix);
  return rc;
}
