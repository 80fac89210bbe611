/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_load.c -- the records of a load: the scan visitor that turns
 * each decoded record of the session's files into the profile (sessions,
 * strings, interactions, span aggregates and spans, inputs, losses) and
 * the diagnostics and limit reports of a load.
 *
 * The set around it (taking the files, ordering them by rotation, F-81)
 * is profile_set.c; the public entry points are profile_input.c; what can
 * only be decided after the last file is profile_finish.c.
 *
 * Invariants: interactions are created once per cause id and never moved
 * out of the array before finishing; every growth goes through the budget
 * and a count bound, and a refusal stops loading with EMLAT_DIAG_LIMIT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_reader.h"
#include "format/format.h"
#include "reader/limits.h"
#include "reader/profile.h"

void emlat_profile_diag_push (struct emlat_profile *p, const struct emlat_diag *d)
{
  p->totals.diagnostics++;
  if (emlat_diag_is_damage (d->kind)) /* F-94: counted even when not kept */
    {
      p->totals.damage++;
      if (d->file < p->n_files && emlat_diag_of_file (d->kind))
        p->summaries[d->file].damage++;
    }
  if (p->diags.n >= p->lim.max_diagnostics
      || emlat_vec_reserve (&p->budget, &p->diags, p->diags.n + 1, sizeof *d,
                            p->lim.max_diagnostics))
    {
      p->totals.diagnostics_dropped++;
      return;
    }
  EMLAT_VEC_AT (p->diags, struct emlat_diag, p->diags.n++) = *d;
}

void emlat_profile_diag (struct emlat_profile *p, enum emlat_diag_kind kind, uint32_t file,
                         uint64_t offset, uint64_t a, uint64_t b, const char *what)
{
  struct emlat_diag d = { kind, file, offset, a, b, 0, 0, what ? what : "" };
  emlat_profile_diag_push (p, &d);
}

void emlat_profile_limit (struct emlat_profile *p, const char *what)
{
  if (p->totals.limit_hit)
    return;
  p->totals.limit_hit = 1;
  p->stop_all = 1;
  /* Make room for this one even past max_diagnostics: it must be seen. */
  struct emlat_diag d = { EMLAT_DIAG_LIMIT, p->cur_file, UINT64_MAX, 0, 0, 0, 0, what };
  p->totals.diagnostics++;
  p->totals.damage++;
  if (emlat_vec_reserve (&p->budget, &p->diags, p->diags.n + 1, sizeof d, SIZE_MAX / 64) == 0)
    EMLAT_VEC_AT (p->diags, struct emlat_diag, p->diags.n++) = d;
  else
    p->totals.diagnostics_dropped++;
}

/* ------------------------------------------------------------------ */
/* Interactions                                                        */

/* The interaction of CAUSE, created empty if new; NULL at a limit. */
static struct emlat_interaction *ix_get (struct emlat_profile *p, uint64_t cause)
{
  uint64_t *v;
  int added;
  if (emlat_u64map_get (&p->ix_ids, cause) == NULL && p->ix.n >= p->lim.max_interactions)
    {
      emlat_profile_limit (p, "max_interactions");
      return NULL;
    }
  if (emlat_u64map_put (&p->ix_ids, &p->budget, cause, &v, &added))
    {
      emlat_profile_limit (p, "max_alloc_bytes (interaction index)");
      return NULL;
    }
  if (added)
    {
      if (emlat_vec_reserve (&p->budget, &p->ix, p->ix.n + 1, sizeof (struct emlat_interaction),
                             p->lim.max_interactions))
        {
          emlat_u64map_del (&p->ix_ids, cause);
          emlat_profile_limit (p, "max_alloc_bytes (interactions)");
          return NULL;
        }
      struct emlat_interaction *ix = &EMLAT_VEC_AT (p->ix, struct emlat_interaction, p->ix.n);
      memset (ix, 0, sizeof *ix);
      ix->cause = cause;
      *v = ++p->ix.n;
    }
  return &EMLAT_VEC_AT (p->ix, struct emlat_interaction, *v - 1);
}

/* WORDS new arena words; returns the slot index or UINT64_MAX at a limit. */
static uint64_t arena_take (struct emlat_profile *p, uint32_t words)
{
  if (emlat_vec_reserve (&p->budget, &p->arena, p->arena.n + words, sizeof (uint64_t),
                         SIZE_MAX / 16))
    {
      emlat_profile_limit (p, "max_alloc_bytes (interaction fields)");
      return UINT64_MAX;
    }
  uint64_t slot = p->arena.n;
  p->arena.n += words;
  return slot;
}

/* ------------------------------------------------------------------ */
/* Streaming (EMLAT_LOAD_STREAM): interactions through ixstream.c      */

static void stream_diag (void *ctx, enum emlat_diag_kind kind, uint32_t file, uint64_t offset,
                         uint64_t cause)
{
  emlat_profile_diag (ctx, kind, file, offset, cause, 0, "");
}

static int stream_deliver (void *ctx, const struct emlat_interaction *ix)
{
  struct emlat_profile *p = ctx;
  if (!p->deliver || p->deliver_rc)
    return 0;
  int rc = p->deliver (p->deliver_ctx, p, ix);
  if (rc)
    {
      p->deliver_rc = rc;
      p->stop_all = 1;
    }
  return rc;
}

void emlat_profile_stream_init (struct emlat_profile *p)
{
  memset (&p->ixs, 0, sizeof p->ixs);
  p->ixs.budget = &p->budget;
  p->ixs.max_interactions = p->lim.max_interactions;
  p->ixs.track_spans = 1;
  p->ixs.diag = stream_diag;
  p->ixs.deliver = stream_deliver;
  p->ixs.ctx = p;
}

/* An ixstream return: 0 go on, else stop (a limit is reported). */
static int stream_rc (struct emlat_profile *p, int rc)
{
  if (rc < 0)
    emlat_profile_limit (p, p->ixs.limit);
  return rc != 0;
}

static int on_ix_begin (struct emlat_profile *p, const struct emlat_chunk_info *ci,
                        const struct emlat_record *r)
{
  if (p->flags & EMLAT_LOAD_STREAM)
    return stream_rc (p, emlat_ixs_begin (&p->ixs, &r->u.ix_begin, r->thread, p->cur_file,
                                          ci->offset));
  const struct emlat_rd_ix_begin *b = &r->u.ix_begin;
  struct emlat_interaction *ix = ix_get (p, b->cause);
  if (!ix)
    return 1;
  if (ix->flags & (EMLAT_IX_HAS_COMPLETE | EMLAT_IX_HAS_BEGIN))
    {
      /* F-65: the complete record supersedes; a repeated begin, or one after
         the complete record, adds nothing (F-92). */
      emlat_profile_diag (p, EMLAT_DIAG_DUPLICATE_BEGIN, p->cur_file, ci->offset, b->cause, 0, "");
      ix->flags |= EMLAT_IX_HAS_BEGIN;
      return 0;
    }
  uint32_t vmask = (b->parent ? 1u << EMLAT_V_PARENT_CAUSE : 0)
                   | (b->scheduled_by ? 1u << EMLAT_V_SCHEDULED_BY_CAUSE : 0);
  uint32_t tmask = 1u << EMLAT_T_DISPATCH_BEGIN;
  uint64_t slot = arena_take (p, emlat_ix_slot_words (tmask, vmask, 0, 0));
  if (slot == UINT64_MAX)
    return 1;
  /* Re-fetch: arena growth does not move interactions, but keep it simple. */
  ix = &EMLAT_VEC_AT (p->ix, struct emlat_interaction,
                      *emlat_u64map_get (&p->ix_ids, b->cause) - 1);
  uint64_t *w = &EMLAT_VEC_AT (p->arena, uint64_t, slot);
  *w++ = b->t_dispatch_begin;
  if (b->parent)
    *w++ = b->parent;
  if (b->scheduled_by)
    *w++ = b->scheduled_by;
  ix->flags |= EMLAT_IX_HAS_BEGIN;
  ix->root_kind = b->root_kind;
  ix->name = b->name;
  ix->status = EMLAT_STATUS_OPEN;
  ix->thread = r->thread;
  ix->time_mask = tmask;
  ix->value_mask = vmask;
  ix->counter_mask = 0;
  ix->q_mask = 0;
  ix->priv_slot = slot;
  ix->file = p->cur_file;
  ix->offset = ci->offset;
  return 0;
}

static int on_ix_complete (struct emlat_profile *p, const struct emlat_chunk_info *ci,
                           const struct emlat_record *r)
{
  if (p->flags & EMLAT_LOAD_STREAM)
    return stream_rc (p, emlat_ixs_complete (&p->ixs, &r->u.ix, r->thread, p->cur_file,
                                             ci->offset));
  const struct emlat_rd_ix *c = &r->u.ix;
  struct emlat_interaction *ix = ix_get (p, c->cause);
  if (!ix)
    return 1;
  if (ix->flags & EMLAT_IX_HAS_COMPLETE) /* F-65: at most one */
    {
      emlat_profile_diag (p, EMLAT_DIAG_DUPLICATE_COMPLETE, p->cur_file, ci->offset,
                          c->cause, 0, "");
      return 0;
    }
  /* Only qualities that differ from the default are kept (F-64). */
  uint32_t qmask = 0;
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if ((c->time_mask & (1u << f))
        && c->q[f] != (uint8_t)emlat_time_default_quality ((enum emlat_time_field)f))
      qmask |= 1u << f;
  uint64_t slot = arena_take (p, emlat_ix_slot_words (c->time_mask, c->value_mask,
                                                      c->counter_mask, qmask));
  if (slot == UINT64_MAX)
    return 1;
  uint64_t *w = &EMLAT_VEC_AT (p->arena, uint64_t, slot);
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (c->time_mask & (1u << f))
      *w++ = c->t[f];
  for (unsigned f = 0; f < EMLAT_V_FIELD_COUNT; f++)
    if (c->value_mask & (1u << f))
      *w++ = c->v[f];
  for (unsigned f = 0; f < EMLAT_C_COUNTER_COUNT; f++)
    if (c->counter_mask & (1u << f))
      *w++ = c->c[f];
  unsigned nq = 0;
  for (unsigned f = 0; f < EMLAT_T_FIELD_COUNT; f++)
    if (qmask & (1u << f))
      {
        if (nq % 16 == 0)
          w[nq / 16] = 0;
        w[nq / 16] |= (uint64_t)(c->q[f] & 0xf) << (4 * (nq % 16));
        nq++;
      }
  if (c->root_kind != 0 || !(ix->flags & EMLAT_IX_HAS_BEGIN))
    ix->root_kind = c->root_kind; /* 0 keeps what a begin record said */
  if (c->name != 0 || !(ix->flags & EMLAT_IX_HAS_BEGIN))
    ix->name = c->name;
  ix->flags |= EMLAT_IX_HAS_COMPLETE;
  ix->status = c->status;
  ix->thread = r->thread;
  ix->time_mask = c->time_mask;
  ix->value_mask = c->value_mask;
  ix->counter_mask = c->counter_mask;
  ix->q_mask = qmask;
  ix->priv_slot = slot;
  ix->file = p->cur_file;
  ix->offset = ci->offset;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Spans                                                               */

/* Add a finished span to its interaction's aggregates (or the
   unattributed ones for cause 0). */
static int agg_add (struct emlat_profile *p, const struct emlat_span *s)
{
  uint64_t dur = s->end - s->start;
  if (s->cause == 0)
    {
      p->totals.spans_no_cause++;
      p->unattributed[s->kind].kind = s->kind;
      p->unattributed[s->kind].count++;
      p->unattributed[s->kind].total_ns += dur;
      return 0;
    }
  if (p->flags & EMLAT_LOAD_STREAM)
    return stream_rc (p, emlat_ixs_span (&p->ixs, s->cause, s->kind, dur));
  struct emlat_interaction *ix = ix_get (p, s->cause);
  if (!ix)
    return 1;
  for (uint32_t i = ix->priv_agg_off; i; )
    {
      struct emlat_agg_node *nd = &EMLAT_VEC_AT (p->aggs, struct emlat_agg_node, i - 1);
      if (nd->agg.kind == s->kind)
        {
          nd->agg.count++;
          nd->agg.total_ns += dur;
          return 0;
        }
      i = nd->next;
    }
  if (emlat_vec_reserve (&p->budget, &p->aggs, p->aggs.n + 1, sizeof (struct emlat_agg_node),
                         UINT32_MAX - 1))
    {
      emlat_profile_limit (p, "max_alloc_bytes (span aggregates)");
      return 1;
    }
  struct emlat_agg_node *nd = &EMLAT_VEC_AT (p->aggs, struct emlat_agg_node, p->aggs.n);
  nd->agg.kind = s->kind;
  nd->agg.count = 1;
  nd->agg.total_ns = dur;
  nd->next = ix->priv_agg_off;
  ix->priv_agg_off = (uint32_t)++p->aggs.n;
  ix->priv_agg_n++;
  return 0;
}

static int on_span (struct emlat_profile *p, const struct emlat_chunk_info *ci,
                    const struct emlat_record *r)
{
  struct emlat_joined j;
  if (r->kind != EMLAT_REC_SPAN_END) /* F-92: one begin or complete per id */
    switch (emlat_profile_first_id (p, &p->span_ids, r->u.span.id, p->lim.max_spans,
                                    EMLAT_DIAG_DUPLICATE_SPAN, ci, "max_spans (span ids)"))
      {
      case 1: return 0;
      case -1: return 1;
      }
  switch (emlat_spanjoin_feed (&p->join, r, p->cur_file, ci->offset, &j))
    {
    case EMLAT_JOIN_NONE:
    case EMLAT_JOIN_OPENED:
      return 0;
    case EMLAT_JOIN_ORPHAN: /* F-68 */
      p->totals.spans_orphan_end++;
      emlat_profile_diag (p, EMLAT_DIAG_ORPHAN_END, p->cur_file, ci->offset, r->u.span.id, 0,
                          "");
      return 0;
    case EMLAT_JOIN_DUPLICATE:
      emlat_profile_diag (p, EMLAT_DIAG_DUPLICATE_SPAN, p->cur_file, ci->offset, r->u.span.id,
                          0, "");
      return 0;
    case EMLAT_JOIN_LIMIT:
      emlat_profile_limit (p, "max_open_spans");
      return 1;
    case EMLAT_JOIN_BACKWARDS: /* F-93 */
      emlat_profile_diag (p, EMLAT_DIAG_SPAN_BACKWARDS, p->cur_file, ci->offset, j.s.id,
                          j.s.cause, "");
      return 0;
    case EMLAT_JOIN_DONE:
      break;
    }
  p->totals.spans_complete++;
  if (j.s.status == EMLAT_SPAN_UNWOUND)
    p->totals.spans_unwound++;
  if (agg_add (p, &j.s) || emlat_profile_on_named_span (p, &j.s))
    return 1;
  if ((p->flags & EMLAT_LOAD_SPANS) && !(p->flags & EMLAT_LOAD_STREAM)
      && emlat_spanset_push (&p->budget, &p->spans, &p->span_counters, &j.s, j.counters,
                             p->lim.max_spans))
    {
      emlat_profile_limit (p, "max_spans");
      return 1;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Other records                                                       */

/* Keep KV in V, its key and string value copied into STORE (the record
   points into a chunk that does not outlive the scan). */
static int push_kv (struct emlat_profile *p, struct emlat_vec *v, struct emlat_bytestore *store,
                    const struct emlat_kv *kv)
{
  struct emlat_kv copy = *kv;
  if (emlat_vec_reserve (&p->budget, v, v->n + 1, sizeof *kv, SIZE_MAX / 64)
      || !(copy.key = emlat_bytestore_copy (store, &p->budget, kv->key, kv->key_len))
      || (kv->s && !(copy.s = emlat_bytestore_copy (store, &p->budget, kv->s, kv->s_len))))
    {
      emlat_profile_limit (p, "max_alloc_bytes (key/value entries)");
      return 1;
    }
  EMLAT_VEC_AT (*v, struct emlat_kv, v->n++) = copy;
  return 0;
}

/* The SESSION entries the reader itself interprets (FORMAT.md 8.1.1); a
   later entry replaces an earlier one, as in the entry list. */
static void note_session_entry (struct emlat_profile *p, const struct emlat_kv *kv)
{
  static const char key[] = "ix.thread_cpu_end_at", at_end[] = "interaction_end";
  if (kv->key_len == sizeof key - 1 && memcmp (kv->key, key, sizeof key - 1) == 0)
    p->cpu_end_at_end = kv->type == 2 && kv->s_len == sizeof at_end - 1
                        && memcmp (kv->s, at_end, sizeof at_end - 1) == 0;
}

static int on_string (struct emlat_profile *p, const struct emlat_chunk_info *ci,
                      const struct emlat_record *r)
{
  uint64_t *v = emlat_u64map_get (&p->string_ids, r->u.str.id);
  if (v) /* F-41: rotated files repeat the dictionary */
    {
      const struct emlat_string_entry *e
        = &EMLAT_VEC_AT (p->strings, struct emlat_string_entry, *v - 1);
      if (e->len != r->u.str.len || memcmp (e->bytes, r->u.str.bytes, e->len) != 0)
        emlat_profile_diag (p, EMLAT_DIAG_STRING_CONFLICT, p->cur_file, ci->offset,
                            r->u.str.id, 0, "");
      return 0;
    }
  if (p->strings.n >= p->lim.max_strings)
    {
      emlat_profile_limit (p, "max_strings");
      return 1;
    }
  if (p->string_bytes + r->u.str.len > p->lim.max_string_bytes)
    {
      emlat_profile_limit (p, "max_string_bytes");
      return 1;
    }
  int added;
  const uint8_t *bytes = NULL;
  if (emlat_vec_reserve (&p->budget, &p->strings, p->strings.n + 1,
                         sizeof (struct emlat_string_entry), p->lim.max_strings)
      || !(bytes = emlat_bytestore_copy (&p->bytes, &p->budget, r->u.str.bytes, r->u.str.len))
      || emlat_u64map_put (&p->string_ids, &p->budget, r->u.str.id, &v, &added))
    {
      emlat_profile_limit (p, "max_alloc_bytes (strings)");
      return 1;
    }
  struct emlat_string_entry *e = &EMLAT_VEC_AT (p->strings, struct emlat_string_entry,
                                                p->strings.n++);
  e->id = r->u.str.id;
  e->bytes = bytes;
  e->len = r->u.str.len;
  *v = p->strings.n;
  p->string_bytes += r->u.str.len;
  return 0;
}

int emlat_profile_on_record (struct emlat_profile *p, const struct emlat_chunk_info *ci,
                             const struct emlat_record *r)
{
  p->totals.records++;
  switch (r->kind)
    {
    case EMLAT_REC_KV:
      if (ci->type == EMLAT_CHUNK_STATS)
        return push_kv (p, &p->stats, &p->stats_bytes, &r->u.kv);
      if (p->taking_session)
        {
          note_session_entry (p, &r->u.kv);
          return push_kv (p, &p->session, &p->bytes, &r->u.kv);
        }
      return 0;
    case EMLAT_REC_STRING:
      return on_string (p, ci, r);
    case EMLAT_REC_INPUT:
      switch (emlat_profile_first_id (p, &p->batch_ids, r->u.input.batch_id,
                                      p->lim.max_input_batches, EMLAT_DIAG_DUPLICATE_INPUT,
                                      ci, "max_input_batches (batch ids)"))
        {
        case 1: return 0; /* F-92 */
        case -1: return 1;
        }
      if (!(p->flags & EMLAT_LOAD_STREAM)) /* streamed: counted, not kept */
        {
          if (emlat_vec_reserve (&p->budget, &p->inputs, p->inputs.n + 1,
                                 sizeof (struct emlat_rd_input), p->lim.max_input_batches))
            {
              emlat_profile_limit (p, "max_input_batches");
              return 1;
            }
          EMLAT_VEC_AT (p->inputs, struct emlat_rd_input, p->inputs.n++) = r->u.input;
        }
      p->totals.input_batches++;
      return 0;
    case EMLAT_REC_IX_BEGIN:
      return on_ix_begin (p, ci, r);
    case EMLAT_REC_IX_COMPLETE:
      return on_ix_complete (p, ci, r);
    case EMLAT_REC_SPAN_COMPLETE:
    case EMLAT_REC_SPAN_BEGIN:
    case EMLAT_REC_SPAN_END:
      return on_span (p, ci, r);
    case EMLAT_REC_EVENT:
      return emlat_profile_on_event (p, r);
    case EMLAT_REC_SAMPLE:
      return emlat_profile_on_sample (p, r);
    case EMLAT_REC_LOSS:
      p->totals.loss_records++;
      p->totals.lost_records += r->u.loss.records;
      p->totals.lost_bytes += r->u.loss.bytes;
      if (emlat_vec_reserve (&p->budget, &p->losses, p->losses.n + 1,
                             sizeof (struct emlat_loss_entry), p->lim.max_losses))
        {
          emlat_profile_limit (p, "max_losses");
          return 1;
        }
      {
        struct emlat_loss_entry *l = &EMLAT_VEC_AT (p->losses, struct emlat_loss_entry,
                                                    p->losses.n++);
        l->loss = r->u.loss;
        l->file = p->cur_file;
        l->offset = ci->offset;
      }
      return 0;
    }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Visitor                                                             */

static int v_chunk (void *ctx, const struct emlat_chunk_info *ci, int decoded)
{
  struct emlat_profile *p = ctx;
  p->totals.chunks++;
  p->taking_session = 0;
  if (!decoded)
    return 0;
  if (ci->type == EMLAT_CHUNK_STATS)
    {
      p->stats.n = 0; /* keep only the last STATS chunk's entries */
      emlat_bytestore_clear (&p->stats_bytes, &p->budget);
    }
  else if (ci->type == EMLAT_CHUNK_SESSION && !p->session_done)
    {
      p->session_done = 1;
      p->taking_session = 1;
    }
  return 0;
}

static int v_record (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  return emlat_profile_on_record (ctx, ci, r);
}

static void v_diag (void *ctx, const struct emlat_diag *d)
{
  struct emlat_profile *p = ctx;
  struct emlat_diag copy = *d;
  copy.file = p->cur_file;
  emlat_profile_diag_push (p, &copy);
}

void emlat_profile_visitor (struct emlat_profile *p, struct emlat_scan_visitor *v)
{
  v->ctx = p;
  v->on_chunk = v_chunk;
  v->on_record = v_record;
  v->on_diag = v_diag;
}
