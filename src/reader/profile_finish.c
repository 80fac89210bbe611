/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_finish.c -- the last pass of a load: what can only be decided
 * once every file was read.
 *
 *  - interactions with a begin record and no complete record are open
 *    (F-65); entries created only because spans named their cause are not
 *    interactions: their spans become "unknown cause";
 *  - begin records still waiting for an end are incomplete spans (F-68);
 *  - interactions are sorted by cause, spans by id (unique: a repeated id
 *    was refused during the load, F-92), strings by id;
 *  - span aggregates are compacted into one array, ascending kind per
 *    interaction;
 *  - repeated keys in the SESSION and STATS entries keep the last (F-60);
 *  - totals and the clean-stop verdict (F-42) are computed.
 *
 * Runs even after a limit stopped loading, on whatever was loaded, and
 * allocates only under the budget (a refusal degrades, never fails).
 */
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "reader/profile.h"

static int cmp_ix (const void *a, const void *b)
{
  uint64_t x = ((const struct emlat_interaction *)a)->cause;
  uint64_t y = ((const struct emlat_interaction *)b)->cause;
  return x < y ? -1 : x > y;
}

static int cmp_span (const void *a, const void *b)
{
  uint64_t x = ((const struct emlat_span *)a)->id, y = ((const struct emlat_span *)b)->id;
  return x < y ? -1 : x > y;
}

static int cmp_string (const void *a, const void *b)
{
  uint64_t x = ((const struct emlat_string_entry *)a)->id;
  uint64_t y = ((const struct emlat_string_entry *)b)->id;
  return x < y ? -1 : x > y;
}

/* Interactions: open ones, placeholders out, aggregates compacted. */
static void finish_interactions (struct emlat_profile *p)
{
  struct emlat_vec out = { 0 };
  int compact = emlat_vec_reserve (&p->budget, &out, p->aggs.n ? p->aggs.n : 1,
                                   sizeof (struct emlat_span_agg), SIZE_MAX / 32) == 0;
  size_t keep = 0;
  for (size_t i = 0; i < p->ix.n; i++)
    {
      struct emlat_interaction ix = EMLAT_VEC_AT (p->ix, struct emlat_interaction, i);
      struct emlat_span_agg local[EMLAT_SPAN_KIND_MAX + 1];
      uint32_t n = 0;
      for (uint32_t k = ix.priv_agg_off; k && n <= EMLAT_SPAN_KIND_MAX; )
        {
          const struct emlat_agg_node *nd = &EMLAT_VEC_AT (p->aggs, struct emlat_agg_node, k - 1);
          local[n++] = nd->agg;
          k = nd->next;
        }
      if (!(ix.flags & (EMLAT_IX_HAS_BEGIN | EMLAT_IX_HAS_COMPLETE)))
        {
          /* Spans named a cause that no INTERACTION record defines. */
          for (uint32_t a = 0; a < n; a++)
            {
              struct emlat_span_agg *u = &p->unattributed[local[a].kind];
              u->kind = local[a].kind;
              u->count += local[a].count;
              u->total_ns += local[a].total_ns;
              p->totals.spans_unknown_cause += local[a].count;
            }
          continue;
        }
      /* F-65: a begin without complete record is open; the writer also
         writes a complete record with status open at stop. */
      if (!(ix.flags & EMLAT_IX_HAS_COMPLETE) || ix.status == EMLAT_STATUS_OPEN)
        {
          p->totals.interactions_open++;
          emlat_profile_diag (p, EMLAT_DIAG_OPEN_INTERACTION, ix.file, ix.offset, ix.cause, 0, "");
        }
      /* Insertion sort by kind: at most 22 entries. */
      for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a; b > 0 && local[b - 1].kind > local[b].kind; b--)
          {
            struct emlat_span_agg t = local[b];
            local[b] = local[b - 1];
            local[b - 1] = t;
          }
      if (compact)
        {
          ix.priv_agg_off = (uint32_t)out.n;
          ix.priv_agg_n = n;
          memcpy (&EMLAT_VEC_AT (out, struct emlat_span_agg, out.n), local, n * sizeof *local);
          out.n += n;
        }
      else
        ix.priv_agg_n = 0;
      EMLAT_VEC_AT (p->ix, struct emlat_interaction, keep++) = ix;
    }
  p->ix.n = keep;
  emlat_vec_free (&p->budget, &p->aggs, sizeof (struct emlat_agg_node));
  p->aggs = out;
  if (p->ix.n > 1)
    qsort (p->ix.p, p->ix.n, sizeof (struct emlat_interaction), cmp_ix);
  emlat_u64map_free (&p->ix_ids, &p->budget);
  p->totals.interactions = p->ix.n;
}

static void on_incomplete (void *ctx, const struct emlat_open_span *o)
{
  struct emlat_profile *p = ctx;
  p->totals.spans_incomplete++;
  emlat_profile_diag (p, EMLAT_DIAG_INCOMPLETE_SPAN, o->file, o->offset, o->s.id, o->s.cause, "");
  if ((p->flags & EMLAT_LOAD_SPANS) && !p->totals.limit_hit)
    {
      struct emlat_span s = o->s;
      s.flags &= ~EMLAT_SPAN_HAS_CPU; /* a reading, not a duration */
      s.cpu_ns = 0;
      s.counter_mask = 0;
      if (emlat_spanset_push (&p->budget, &p->spans, &p->span_counters, &s, NULL,
                              p->lim.max_spans))
        emlat_profile_limit (p, "max_spans");
    }
}

static void finish_spans (struct emlat_profile *p)
{
  emlat_spanjoin_each_open (&p->join, on_incomplete, p);
  emlat_spanjoin_free (&p->join);
  emlat_idset_free (&p->span_ids, &p->budget);
  emlat_idset_free (&p->batch_ids, &p->budget);
  if (p->spans.n > 1)
    qsort (p->spans.p, p->spans.n, sizeof (struct emlat_span), cmp_span);
}

/* F-60: keep the last entry of each key, in first-seen order otherwise. */
static void dedupe_kv (struct emlat_profile *p, struct emlat_vec *v)
{
  struct emlat_kv *kv = v->p;
  size_t n = v->n, keep = 0;
  /* Quadratic only up to a few hundred entries; larger sets (never written
     by the recorder) are left as they are rather than cost time. */
  if (n > 512)
    return;
  (void)p;
  for (size_t i = 0; i < n; i++)
    {
      int later = 0;
      for (size_t j = i + 1; j < n && !later; j++)
        later = kv[j].key_len == kv[i].key_len
                && memcmp (kv[j].key, kv[i].key, kv[i].key_len) == 0;
      if (!later)
        kv[keep++] = kv[i];
    }
  v->n = keep;
}

/* EMLAT_LOAD_STREAM: what finish_interactions decides, from the stream. */
static void finish_stream (struct emlat_profile *p)
{
  int rc = emlat_ixs_finish (&p->ixs, p->unattributed, &p->totals.spans_unknown_cause);
  if (rc < 0)
    emlat_profile_limit (p, p->ixs.limit);
  p->totals.interactions = p->ixs.interactions;
  p->totals.interactions_open = p->ixs.open;
  emlat_ixs_free (&p->ixs);
}

void emlat_profile_finish (struct emlat_profile *p)
{
  if (p->flags & EMLAT_LOAD_STREAM)
    finish_stream (p);
  else
    finish_interactions (p);
  finish_spans (p);
  if (p->strings.n > 1)
    qsort (p->strings.p, p->strings.n, sizeof (struct emlat_string_entry), cmp_string);
  emlat_u64map_free (&p->string_ids, &p->budget);
  dedupe_kv (p, &p->session);
  dedupe_kv (p, &p->stats);

  size_t last_used = SIZE_MAX;
  for (size_t i = 0; i < p->n_files; i++)
    {
      const struct emlat_file_summary *f = &p->summaries[i];
      if (f->ignored || f->read_error)
        continue;
      if (!f->scan.header_ok)
        {
          p->totals.damaged_files++;
          continue;
        }
      last_used = i;
      p->totals.chunks_invalid += f->scan.chunks_invalid;
      p->totals.chunks_skipped += f->scan.chunks_skipped;
      p->totals.sequence_gaps += f->scan.sequence_gaps;
      if (f->scan.stop != EMLAT_STOP_CLEAN)
        p->totals.damaged_files++;
    }
  /* F-42: the session stopped cleanly iff its last file ends in a final
     STATS chunk. */
  if (last_used != SIZE_MAX)
    {
      const struct emlat_file_summary *f = &p->summaries[last_used];
      p->totals.clean_stop = f->scan.final_stats && f->scan.stop == EMLAT_STOP_CLEAN;
      if (!p->totals.clean_stop)
        emlat_profile_diag (p, EMLAT_DIAG_NO_FINAL_STATS, (uint32_t)last_used,
                            f->scan.stop_offset, 0, 0, "");
    }
  p->totals.alloc_bytes = p->budget.used;
}
