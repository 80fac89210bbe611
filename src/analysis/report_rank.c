/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_rank.c -- see report_rank.h.
 *
 * Invariants of an open target: its value lies in [LO, HI]; exactly BELOW
 * values of its series are smaller than LO and COUNT lie in [LO, HI], so
 * its value is the (RANK - BELOW)-th smallest of those (0-based).  A pass
 * either collects the COUNT values (then sorts them: done) or counts them
 * in EMLAT_RANK_PARTS equal parts of the range (then keeps the one part
 * that holds the rank: the range shrinks 4096-fold).  Targets of one
 * series with the same range share one collection or count (ALIAS).
 */
#include "analysis/report_rank.h"

#include <stdlib.h>
#include <string.h>

#include "emlat/emlat_report.h"

struct emlat_rank_target
{
  uint32_t series;
  uint64_t rank;
  uint64_t lo, hi, below, count;
  int known;
  uint64_t value;
  long alias;     /* the target whose collection or count this shares, or -1 */
  uint64_t *vals; /* collecting: COUNT values */
  size_t nvals;
  uint64_t *parts; /* counting: EMLAT_RANK_PARTS counts of width STEP */
  uint64_t step;
};

/* ------------------------------------------------------------------ */
/* Buckets                                                             */

static unsigned
bucket_of (uint64_t v)
{
  if (v < 2u << EMLAT_RANK_SUB_BITS)
    return (unsigned)v;
  unsigned shift = (unsigned)(63 - __builtin_clzll (v)) - EMLAT_RANK_SUB_BITS;
  return (shift << EMLAT_RANK_SUB_BITS) + (unsigned)(v >> shift);
}

static void
bucket_range (unsigned b, uint64_t *lo, uint64_t *hi)
{
  if (b < 2u << EMLAT_RANK_SUB_BITS)
    {
      *lo = *hi = b;
      return;
    }
  unsigned shift = (b >> EMLAT_RANK_SUB_BITS) - 1;
  uint64_t top = b - ((uint64_t)shift << EMLAT_RANK_SUB_BITS);
  *lo = top << shift;
  *hi = *lo + (((uint64_t)1 << shift) - 1);
}

int
emlat_rank_add (struct emlat_rank_series *s, uint64_t v)
{
  if (!s->hist && !(s->hist = calloc (EMLAT_RANK_BUCKETS, sizeof *s->hist)))
    return -1;
  s->hist[bucket_of (v)]++;
  if (s->n == 0 || v < s->min)
    s->min = v;
  if (s->n == 0 || v > s->max)
    s->max = v;
  s->n++;
  uint64_t lo = s->sum_lo + v;
  s->sum_hi += lo < v;
  s->sum_lo = lo;
  return 0;
}

void
emlat_rank_series_free (struct emlat_rank_series *s)
{
  free (s->hist);
  s->hist = NULL;
}

/* ------------------------------------------------------------------ */
/* Targets                                                             */

long
emlat_rank_want (struct emlat_rank_set *rs, uint32_t series, const struct emlat_rank_series *s,
                 uint64_t rank)
{
  if (rs->n == rs->cap)
    {
      size_t cap = rs->cap ? rs->cap * 2 : 64;
      struct emlat_rank_target *t = realloc (rs->t, cap * sizeof *t);
      if (!t)
        return -1;
      rs->t = t;
      rs->cap = cap;
    }
  struct emlat_rank_target *t = &rs->t[rs->n];
  memset (t, 0, sizeof *t);
  t->series = series;
  t->rank = rank;
  t->alias = -1;
  /* The bucket of the rank, from the first pass's histogram. */
  uint64_t below = 0;
  unsigned b = 0;
  for (; b < EMLAT_RANK_BUCKETS; b++)
    {
      if (below + s->hist[b] > rank)
        break;
      below += s->hist[b];
    }
  if (b == EMLAT_RANK_BUCKETS) /* cannot happen for RANK < N */
    b = EMLAT_RANK_BUCKETS - 1;
  bucket_range (b, &t->lo, &t->hi);
  /* The extremes are known exactly: the range never needs to reach
     past them. */
  if (t->lo < s->min)
    t->lo = s->min;
  if (t->hi > s->max)
    t->hi = s->max;
  t->below = below;
  t->count = s->hist[b];
  t->known = t->lo == t->hi;
  t->value = t->lo;
  return (long)rs->n++;
}

static void
target_free (struct emlat_rank_target *t)
{
  free (t->vals);
  free (t->parts);
  t->vals = t->parts = NULL;
  t->nvals = 0;
}

/* Index the targets that take values in this pass by series. */
static int
index_active (struct emlat_rank_set *rs)
{
  free (rs->active);
  free (rs->first);
  rs->active = rs->first = NULL;
  uint32_t max = 0;
  for (size_t i = 0; i < rs->n; i++)
    if (rs->t[i].series + 1 > max)
      max = rs->t[i].series + 1;
  rs->n_series = max;
  rs->first = calloc ((size_t)max + 1, sizeof *rs->first);
  rs->active = malloc ((rs->n ? rs->n : 1) * sizeof *rs->active);
  if (!rs->first || !rs->active)
    return -1;
  for (size_t i = 0; i < rs->n; i++)
    if (!rs->t[i].known && rs->t[i].alias < 0)
      rs->first[rs->t[i].series + 1]++;
  for (uint32_t k = 0; k < max; k++)
    rs->first[k + 1] += rs->first[k];
  uint32_t *at = calloc ((size_t)max + 1, sizeof *at);
  if (!at)
    return -1;
  for (size_t i = 0; i < rs->n; i++)
    if (!rs->t[i].known && rs->t[i].alias < 0)
      {
        uint32_t sr = rs->t[i].series;
        rs->active[rs->first[sr] + at[sr]++] = (uint32_t)i;
      }
  free (at);
  return 0;
}

int
emlat_rank_pass_begin (struct emlat_rank_set *rs)
{
  size_t collect = 0, max = rs->collect_max ? rs->collect_max : EMLAT_RANK_COLLECT_MAX;
  int open = 0;
  for (size_t i = 0; i < rs->n; i++)
    {
      struct emlat_rank_target *t = &rs->t[i];
      t->alias = -1;
      if (t->known)
        continue;
      open = 1;
      for (size_t k = 0; k < i && t->alias < 0; k++)
        if (!rs->t[k].known && rs->t[k].alias < 0 && rs->t[k].series == t->series
            && rs->t[k].lo == t->lo && rs->t[k].hi == t->hi)
          t->alias = (long)k;
      if (t->alias >= 0)
        continue;
      if (t->count <= max - collect)
        {
          collect += t->count;
          t->vals = malloc ((t->count ? t->count : 1) * sizeof *t->vals);
          t->nvals = 0;
          if (!t->vals)
            return -1;
        }
      else
        {
          uint64_t width = t->hi - t->lo; /* + 1, without overflow */
          t->step = width / EMLAT_RANK_PARTS + 1;
          t->parts = calloc (EMLAT_RANK_PARTS, sizeof *t->parts);
          if (!t->parts)
            return -1;
        }
    }
  if (open && index_active (rs) != 0)
    return -1;
  rs->pass_open = open;
  return open ? 0 : 1;
}

int
emlat_rank_wants_series (const struct emlat_rank_set *rs, uint32_t series)
{
  return rs->pass_open && series < rs->n_series && rs->first[series] < rs->first[series + 1];
}

void
emlat_rank_feed (struct emlat_rank_set *rs, uint32_t series, uint64_t v)
{
  if (!rs->pass_open || series >= rs->n_series)
    return;
  for (uint32_t k = rs->first[series]; k < rs->first[series + 1]; k++)
    {
      struct emlat_rank_target *t = &rs->t[rs->active[k]];
      if (v < t->lo || v > t->hi)
        continue;
      if (t->vals)
        {
          if (t->nvals < t->count) /* the same values as counted: never more */
            t->vals[t->nvals++] = v;
        }
      else if (t->parts)
        t->parts[(v - t->lo) / t->step]++;
    }
}

/* Narrow or settle T from the pass's collection or count in OWNER. */
static int
settle (struct emlat_rank_target *t, struct emlat_rank_target *owner)
{
  uint64_t r = t->rank - t->below;
  if (owner->vals)
    {
      if (owner->nvals != owner->count || r >= owner->nvals)
        return -1; /* the values changed between passes */
      t->value = owner->vals[r];
      t->known = 1;
      return 0;
    }
  uint64_t below = 0;
  size_t part = 0;
  for (; part < EMLAT_RANK_PARTS; part++)
    {
      if (below + owner->parts[part] > r)
        break;
      below += owner->parts[part];
    }
  if (part == EMLAT_RANK_PARTS)
    return -1;
  uint64_t lo = owner->lo + part * owner->step;
  uint64_t hi = owner->hi - lo < owner->step - 1 ? owner->hi : lo + owner->step - 1;
  t->below += below;
  t->count = owner->parts[part];
  t->lo = lo;
  t->hi = hi;
  t->known = lo == hi;
  t->value = lo;
  return 0;
}

int
emlat_rank_pass_end (struct emlat_rank_set *rs)
{
  int rc = 0;
  /* Sort each collection once, before any target reads it. */
  for (size_t i = 0; i < rs->n; i++)
    {
      struct emlat_rank_target *t = &rs->t[i];
      if (!t->known && t->alias < 0 && t->vals
          && emlat_report_sort_u64 (t->vals, NULL, t->nvals) != 0)
        rc = -1;
    }
  /* Aliases first: they read their owner's data before it is narrowed. */
  for (int aliases = 1; aliases >= 0 && rc == 0; aliases--)
    for (size_t i = 0; i < rs->n && rc == 0; i++)
      {
        struct emlat_rank_target *t = &rs->t[i];
        if (t->known || (t->alias >= 0) != aliases)
          continue;
        rc = settle (t, t->alias >= 0 ? &rs->t[t->alias] : t);
      }
  for (size_t i = 0; i < rs->n; i++)
    target_free (&rs->t[i]);
  rs->pass_open = 0;
  if (rc)
    return -1;
  for (size_t i = 0; i < rs->n; i++)
    if (!rs->t[i].known)
      return 0;
  return 1;
}

uint64_t
emlat_rank_value (const struct emlat_rank_set *rs, long t)
{
  return t >= 0 && (size_t)t < rs->n ? rs->t[t].value : 0;
}

void
emlat_rank_set_free (struct emlat_rank_set *rs)
{
  for (size_t i = 0; i < rs->n; i++)
    target_free (&rs->t[i]);
  free (rs->t);
  free (rs->active);
  free (rs->first);
  size_t keep = rs->collect_max;
  memset (rs, 0, sizeof *rs);
  rs->collect_max = keep;
}
