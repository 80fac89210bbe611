/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile_access.c -- read-only accessors of a loaded profile, and freeing.
 *
 * Invariant: a field is read from the packed arena only when its mask bit
 * is set; an absent field is reported as absent (return 0), never as 0
 * (F-64).  Every index comes from the profile itself, not from a caller,
 * except the enum arguments, which are range-checked.
 */
#include <stdlib.h>
#include <string.h>

#include "reader/profile.h"

EMLAT_API const struct emlat_profile_totals *emlat_profile_totals (const struct emlat_profile *p)
{
  return &p->totals;
}

EMLAT_API const struct emlat_file_summary *emlat_profile_files (const struct emlat_profile *p,
                                                                size_t *n)
{
  *n = p->n_files;
  return p->summaries;
}

EMLAT_API const struct emlat_diag *emlat_profile_diags (const struct emlat_profile *p, size_t *n)
{
  *n = p->diags.n;
  return p->diags.p;
}

EMLAT_API const struct emlat_file_header *emlat_profile_header (const struct emlat_profile *p)
{
  return p->have_header ? &p->header : NULL;
}

EMLAT_API const struct emlat_kv *emlat_profile_session (const struct emlat_profile *p, size_t *n)
{
  *n = p->session.n;
  return p->session.p;
}

EMLAT_API int emlat_profile_cpu_end_at_end (const struct emlat_profile *p)
{
  return p->cpu_end_at_end;
}

EMLAT_API const struct emlat_kv *emlat_profile_stats (const struct emlat_profile *p, size_t *n)
{
  *n = p->stats.n;
  return p->stats.p;
}

EMLAT_API const struct emlat_kv *emlat_kv_find (const struct emlat_kv *kv, size_t n,
                                                const char *key)
{
  size_t len = strlen (key);
  for (size_t i = 0; i < n; i++)
    if (kv[i].key_len == len && memcmp (kv[i].key, key, len) == 0)
      return &kv[i];
  return NULL;
}

EMLAT_API const uint8_t *emlat_profile_string (const struct emlat_profile *p, uint64_t id,
                                               size_t *len)
{
  const struct emlat_string_entry *s = p->strings.p;
  size_t lo = 0, hi = p->strings.n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (s[mid].id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < p->strings.n && s[lo].id == id)
    {
      *len = s[lo].len;
      return s[lo].bytes;
    }
  return NULL;
}

EMLAT_API const struct emlat_interaction *
emlat_profile_interactions (const struct emlat_profile *p, size_t *n)
{
  *n = p->ix.n;
  return p->ix.p;
}

EMLAT_API const struct emlat_interaction *
emlat_profile_find_interaction (const struct emlat_profile *p, uint64_t cause)
{
  const struct emlat_interaction *ix = p->ix.p;
  size_t lo = 0, hi = p->ix.n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (ix[mid].cause < cause)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < p->ix.n && ix[lo].cause == cause ? &ix[lo] : NULL;
}

/* Bits of MASK below BIT. */
static inline unsigned below (uint32_t mask, unsigned bit)
{
  return (unsigned)__builtin_popcount (mask & ((1u << bit) - 1u));
}

static inline const uint64_t *slot (const struct emlat_profile *p,
                                    const struct emlat_interaction *ix)
{
  return emlat_ix_words (p, ix);
}

EMLAT_API int emlat_profile_ix_time (const struct emlat_profile *p,
                                     const struct emlat_interaction *ix,
                                     enum emlat_time_field f, uint64_t *out,
                                     enum emlat_quality *q)
{
  if ((unsigned)f >= EMLAT_T_FIELD_COUNT || !(ix->time_mask & (1u << f)))
    return 0;
  const uint64_t *w = slot (p, ix);
  *out = w[below (ix->time_mask, f)];
  if (q)
    {
      if (ix->q_mask & (1u << f))
        {
          unsigned skip = (unsigned)(__builtin_popcount (ix->time_mask)
                                     + __builtin_popcount (ix->value_mask)
                                     + __builtin_popcount (ix->counter_mask));
          unsigned k = below (ix->q_mask, f);
          *q = (enum emlat_quality)((w[skip + k / 16] >> (4 * (k % 16))) & 0xf);
        }
      else
        *q = emlat_time_default_quality (f);
    }
  return 1;
}

EMLAT_API int emlat_profile_ix_value (const struct emlat_profile *p,
                                      const struct emlat_interaction *ix,
                                      enum emlat_value_field f, uint64_t *out)
{
  if ((unsigned)f >= EMLAT_V_FIELD_COUNT || !(ix->value_mask & (1u << f)))
    return 0;
  *out = slot (p, ix)[__builtin_popcount (ix->time_mask) + below (ix->value_mask, f)];
  return 1;
}

EMLAT_API int emlat_profile_ix_counter (const struct emlat_profile *p,
                                        const struct emlat_interaction *ix,
                                        enum emlat_counter c, uint64_t *out)
{
  if ((unsigned)c >= EMLAT_C_COUNTER_COUNT || !(ix->counter_mask & (1u << c)))
    return 0;
  *out = slot (p, ix)[__builtin_popcount (ix->time_mask) + __builtin_popcount (ix->value_mask)
                      + below (ix->counter_mask, c)];
  return 1;
}

EMLAT_API int emlat_profile_ix_duration (const struct emlat_profile *p,
                                         const struct emlat_interaction *ix,
                                         enum emlat_time_field from, enum emlat_time_field to,
                                         uint64_t *out)
{
  uint64_t a, b;
  if (!emlat_profile_ix_time (p, ix, from, &a, NULL) || !emlat_profile_ix_time (p, ix, to, &b, NULL)
      || b < a)
    return 0;
  *out = b - a;
  return 1;
}

EMLAT_API const struct emlat_span_agg *emlat_profile_ix_aggs (const struct emlat_profile *p,
                                                              const struct emlat_interaction *ix,
                                                              size_t *n)
{
  *n = ix->priv_agg_n;
  if (!ix->priv_agg_n)
    return NULL;
  return &EMLAT_VEC_AT (p->aggs, struct emlat_span_agg, ix->priv_agg_off);
}

EMLAT_API const struct emlat_span_agg *
emlat_profile_unattributed_aggs (const struct emlat_profile *p)
{
  return p->unattributed;
}

EMLAT_API const struct emlat_span *emlat_profile_spans (const struct emlat_profile *p, size_t *n,
                                                        const uint64_t **pool)
{
  *n = p->spans.n;
  if (pool)
    *pool = p->span_counters.p;
  return p->spans.p;
}

EMLAT_API int emlat_span_counter (const struct emlat_span *s, const uint64_t *pool,
                                  enum emlat_counter c, uint64_t *out)
{
  if ((unsigned)c >= EMLAT_C_COUNTER_COUNT || !(s->counter_mask & (1u << c)))
    return 0;
  *out = pool[s->counter_off + below (s->counter_mask, c)];
  return 1;
}

EMLAT_API const struct emlat_rd_input *emlat_profile_inputs (const struct emlat_profile *p,
                                                             size_t *n)
{
  *n = p->inputs.n;
  return p->inputs.p;
}

EMLAT_API const struct emlat_loss_entry *emlat_profile_losses (const struct emlat_profile *p,
                                                               size_t *n)
{
  *n = p->losses.n;
  return p->losses.p;
}

EMLAT_API void emlat_profile_free (struct emlat_profile *p)
{
  if (!p)
    return;
  for (size_t i = 0; p->files && i < p->n_files; i++)
    {
      free (p->files[i].path);
      emlat_pfile_release (&p->files[i]);
    }
  free (p->files);
  free (p->summaries);
  emlat_vec_free (NULL, &p->session, 0);
  emlat_vec_free (NULL, &p->stats, 0);
  emlat_bytestore_free (&p->bytes, NULL);
  emlat_bytestore_free (&p->stats_bytes, NULL);
  emlat_vec_free (NULL, &p->strings, 0);
  emlat_u64map_free (&p->string_ids, NULL);
  emlat_vec_free (NULL, &p->ix, 0);
  emlat_u64map_free (&p->ix_ids, NULL);
  emlat_vec_free (NULL, &p->arena, 0);
  emlat_vec_free (NULL, &p->aggs, 0);
  emlat_spanjoin_free (&p->join);
  emlat_vec_free (NULL, &p->spans, 0);
  emlat_vec_free (NULL, &p->span_counters, 0);
  emlat_vec_free (NULL, &p->inputs, 0);
  emlat_vec_free (NULL, &p->events, 0);
  emlat_vec_free (NULL, &p->named, 0);
  emlat_vec_free (NULL, &p->samples, 0);
  emlat_vec_free (NULL, &p->losses, 0);
  emlat_vec_free (NULL, &p->diags, 0);
  emlat_ixs_free (&p->ixs);
  /* Freed when the load finished; a load its receiver stopped early
     (emlat_profile_load_each's callback) did not finish. */
  emlat_idset_free (&p->span_ids, NULL);
  emlat_idset_free (&p->batch_ids, NULL);
  free (p);
}
