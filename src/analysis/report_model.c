/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_model.c -- passes over a profile's interactions that derive every
 * metric, file each sample under its root kind and population, then sort
 * and summarize (rules in emlat_report.h and docs/REPORT.md).
 *
 * Two ways to the same numbers.  Keeping every sample: one pass, one
 * radix sort per (group, metric) -- 8 bytes per sample.  With
 * EMLAT_REPORT_MODEL_LEAD_ONLY: only each group's lead metric keeps its
 * samples (the charts and the histogram draw them); every other metric's
 * quantiles are found exactly by report_rank.c, from a histogram counted
 * in the first pass and, usually, one more pass -- memory that does not
 * grow with the interactions.  The interactions may come in any order:
 * nothing depends on it but the tail's ties, which report_tail.c breaks by
 * cause.
 *
 * Cost: one emlat_report_times gathering per interaction and pass, then one
 * radix sort per kept series -- linear in the number of samples.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_rank.h"
#include "analysis/report_tail.h"

/* The candidates for a group's lead metric, best first
   (emlat_report_group_primary). */
static const enum emlat_report_metric lead_order[] = {
  EMLAT_RM_LATENCY_LOWER, EMLAT_RM_INPUT_TO_FLUSH_MAX, EMLAT_RM_EXTERNAL_FIRST_OUTPUT, EMLAT_RM_INPUT_TO_COMMAND_MAX,
  EMLAT_RM_COMMAND, EMLAT_RM_WALL,
};
#define N_LEAD (int)(sizeof lead_order / sizeof lead_order[0])
#define N_SERIES (EMLAT_REPORT_GROUPS * EMLAT_POP_COUNT * EMLAT_RM_COUNT)

/* The quantiles a distribution reports, as rank fractions. */
static const struct { uint64_t num, den; } quantiles[5] = {
  { 1, 2 }, { 90, 100 }, { 95, 100 }, { 99, 100 }, { 999, 1000 },
};

/* What a model being built keeps besides the public fields. */
struct model_priv
{
  unsigned flags;
  int passes;                       /* passes ended */
  /* EMLAT_REPORT_MODEL_LEAD_ONLY: every series' first pass, the rank of
     each group's best lead candidate seen (N_LEAD: none), the ranks
     wanted of the series that are not their group's lead. */
  struct emlat_rank_series rs[EMLAT_REPORT_GROUPS][EMLAT_POP_COUNT][EMLAT_RM_COUNT];
  int best[EMLAT_REPORT_GROUPS][EMLAT_POP_COUNT];
  struct emlat_rank_set ranks;
  long target[N_SERIES][5];
  /* EMLAT_REPORT_MODEL_TAIL */
  struct emlat_report_tail_stream tail;
};

static int
push (struct emlat_report_series *s, uint64_t v)
{
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 64;
      uint64_t *nv = realloc (s->v, cap * sizeof *nv);
      if (!nv)
        return -1;
      s->v = nv;
      s->cap = cap;
    }
  s->v[s->n++] = v;
  return 0;
}

static void
series_free (struct emlat_report_series *s)
{
  free (s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

static void
priv_free (struct emlat_report_model *m)
{
  struct model_priv *mp = m->priv;
  if (!mp)
    return;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      for (int i = 0; i < EMLAT_RM_COUNT; i++)
        emlat_rank_series_free (&mp->rs[k][q][i]);
  emlat_rank_set_free (&mp->ranks);
  emlat_report_tail_stream_free (&mp->tail);
  free (mp);
  m->priv = NULL;
}

void
emlat_report_model_free (struct emlat_report_model *m)
{
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int p = 0; p < EMLAT_POP_COUNT; p++)
      for (int i = 0; i < EMLAT_RM_COUNT; i++)
        series_free (&m->g[k][p].s[i]);
  priv_free (m);
}

int
emlat_report_group_primary (const struct emlat_report_group *g)
{
  for (int i = 0; i < N_LEAD; i++)
    if (g->d[lead_order[i]].n)
      return (int)lead_order[i];
  return -1;
}

/* 1 when string ids A and B of P name the same bytes (an id P lacks, or
   any id without P, is only equal to itself). */
static int
same_name (const struct emlat_profile *p, uint64_t a, uint64_t b)
{
  if (a == b)
    return 1;
  if (!p)
    return 0;
  size_t la, lb;
  const uint8_t *sa = emlat_profile_string (p, a, &la), *sb = emlat_profile_string (p, b, &lb);
  return sa && sb && la == lb && memcmp (sa, sb, la) == 0;
}

/* The group index of an interaction of root kind KIND named NAME in P; a
   name past the first EMLAT_REPORT_APP_NAMES is counted once, in the first
   pass (FIRST).  An id already grouped keeps its group in every pass
   (while the first pass streams, P may not know every string yet). */
static unsigned
group_of (struct emlat_report_model *m, const struct emlat_profile *p, unsigned kind,
          uint64_t name, int first)
{
  if (kind != EMLAT_ROOT_APPLICATION || name == 0)
    return kind;
  for (uint32_t i = 0; i < m->n_app_names; i++)
    if (m->app_names[i] == name)
      return EMLAT_REPORT_KINDS + i;
  for (uint32_t i = 0; i < m->n_app_names; i++)
    if (same_name (p, m->app_names[i], name))
      return EMLAT_REPORT_KINDS + i;
  if (m->n_app_names == EMLAT_REPORT_APP_NAMES)
    {
      m->app_names_overflow += (uint64_t)first;
      return kind;
    }
  unsigned gi = EMLAT_REPORT_KINDS + m->n_app_names;
  m->app_names[m->n_app_names++] = name;
  for (int q = 0; q < EMLAT_POP_COUNT; q++)
    m->g[gi][q].name = name;
  return gi;
}

EMLAT_API int
emlat_report_model_begin (struct emlat_report_model *m, const struct emlat_profile *p,
                          unsigned flags)
{
  memset (m, 0, sizeof *m);
  m->p = p;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      {
        m->g[k][q].root_kind = k < EMLAT_REPORT_KINDS ? (uint32_t)k : EMLAT_ROOT_APPLICATION;
        m->g[k][q].pop = (enum emlat_report_pop)q;
      }
  struct model_priv *mp = calloc (1, sizeof *mp);
  if (!mp)
    return -ENOMEM;
  mp->flags = flags;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      mp->best[k][q] = N_LEAD;
  for (size_t i = 0; i < N_SERIES; i++)
    for (int j = 0; j < 5; j++)
      mp->target[i][j] = -1;
  emlat_report_tail_stream_init (&mp->tail);
  m->priv = mp;
  return 0;
}

/* Metric K's value V in group KIND (a group index), population POP, first pass.
   Returns 0 or -ENOMEM. */
static int
take (struct emlat_report_model *m, struct model_priv *mp, unsigned kind, int pop, unsigned k,
      uint64_t v)
{
  struct emlat_report_group *g = &m->g[kind][pop];
  if (!(mp->flags & EMLAT_REPORT_MODEL_LEAD_ONLY))
    return push (&g->s[k], v) ? -ENOMEM : 0;
  if (emlat_rank_add (&mp->rs[kind][pop][k], v) != 0)
    return -ENOMEM;
  /* Only the best lead candidate seen so far keeps its samples; a better
     one, once seen, is the lead for good: the others' are dropped. */
  int r = 0;
  while (r < N_LEAD && lead_order[r] != k)
    r++;
  int *best = &mp->best[kind][pop];
  if (r > *best)
    return 0;
  if (r < *best)
    {
      for (int worse = r + 1; worse < N_LEAD; worse++)
        series_free (&g->s[lead_order[worse]]);
      *best = r;
    }
  return push (&g->s[k], v) ? -ENOMEM : 0;
}

/* A refinement pass: the values of the series that still have ranks
   wanted. */
static void
refine (struct model_priv *mp, unsigned kind, int pop, const struct emlat_report_metrics *mt)
{
  uint32_t base = (uint32_t)((kind * EMLAT_POP_COUNT + (unsigned)pop) * EMLAT_RM_COUNT);
  for (uint32_t b = mt->mask; b; b &= b - 1)
    {
      unsigned k = (unsigned)__builtin_ctz (b);
      emlat_rank_feed (&mp->ranks, base + k, mt->v[k]);
    }
}

EMLAT_API int
emlat_report_model_add (struct emlat_report_model *m, const struct emlat_profile *p,
                        const struct emlat_interaction *ix)
{
  struct model_priv *mp = m->priv;
  struct emlat_report_times t;
  struct emlat_report_metrics mt;
  emlat_report_times_from_profile (p, ix, &t);
  emlat_report_metrics_compute (&t, &mt);
  enum emlat_report_pop pop = emlat_report_population (&t);
  unsigned kind = ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0;
  if (mp->passes > 0)
    {
      refine (mp, group_of (m, p, kind, ix->name, 0), (int)pop, &mt);
      return 0;
    }
  unsigned gi = group_of (m, p, kind, ix->name, 1);
  struct emlat_report_group *g = &m->g[gi][pop];
  g->n++;
  m->n_ix++;
  m->n_pop[pop]++;
  m->n_kind[kind]++;
  if (gi != kind)
    m->n_kind[gi]++;
  m->n_status[ix->status <= EMLAT_STATUS_MAX ? ix->status : 0]++;
  for (uint32_t b = t.tmask; b; b &= b - 1)
    m->present_t[pop][__builtin_ctz (b)]++;
  m->present_cpu_begin[pop] += (uint64_t)t.has_cpu_begin;
  /* has_cpu_end says where the reading lies (1 or 2): present is 1. */
  m->present_cpu_end[pop] += t.has_cpu_end != EMLAT_REPORT_CPU_END_ABSENT;
  for (uint32_t b = mt.mask; b; b &= b - 1)
    {
      unsigned k = (unsigned)__builtin_ctz (b);
      if (take (m, mp, gi, (int)pop, k, mt.v[k]) != 0)
        return -ENOMEM;
    }
  for (uint32_t b = mt.inverted; b; b &= b - 1)
    g->inverted[__builtin_ctz (b)]++;
  for (uint32_t b = mt.clamped; b; b &= b - 1)
    g->clamped[__builtin_ctz (b)]++;
  if ((mp->flags & EMLAT_REPORT_MODEL_TAIL)
      && emlat_report_tail_stream_add (&mp->tail, p, ix, &mt) != 0)
    return -ENOMEM;
  return 0;
}

/* The distribution of a series known by its first pass and its ranks. */
static void
dist_of_ranks (const struct emlat_rank_series *s, const struct emlat_rank_set *rs,
               const long target[5], struct emlat_report_dist *d)
{
  memset (d, 0, sizeof *d);
  d->n = s->n;
  if (s->n == 0)
    return;
  d->min = s->min;
  d->max = s->max;
  d->p50 = emlat_rank_value (rs, target[0]);
  d->p90 = emlat_rank_value (rs, target[1]);
  d->p95 = emlat_rank_value (rs, target[2]);
  d->p99 = emlat_rank_value (rs, target[3]);
  d->has_p999 = s->n >= EMLAT_REPORT_P999_MIN_N;
  if (d->has_p999)
    d->p999 = emlat_rank_value (rs, target[4]);
  if (s->sum_hi)
    {
      /* The exact sum does not fit: saturate, and the mean from it. */
      d->total = UINT64_MAX;
      d->total_saturated = 1;
      long double sum = (long double)s->sum_hi * 18446744073709551616.0L + (long double)s->sum_lo;
      d->mean = (double)(sum / (long double)s->n);
    }
  else
    {
      d->total = s->sum_lo;
      d->mean = (double)d->total / (double)s->n;
    }
}

/* The end of the first pass: every kept series sorted and summarized; with
   LEAD_ONLY, the ranks wanted of the others.  Returns 0 or -ENOMEM. */
static int
first_pass_end (struct emlat_report_model *m, struct model_priv *mp)
{
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      for (int i = 0; i < EMLAT_RM_COUNT; i++)
        {
          struct emlat_report_series *s = &m->g[k][q].s[i];
          int lead_only = mp->flags & EMLAT_REPORT_MODEL_LEAD_ONLY;
          const struct emlat_rank_series *r = &mp->rs[k][q][i];
          if (!lead_only || (mp->best[k][q] < N_LEAD && (int)lead_order[mp->best[k][q]] == i))
            {
              if (emlat_report_sort_u64 (s->v, NULL, s->n) != 0)
                return -ENOMEM;
              emlat_report_dist_of_sorted (s->v, s->n, &m->g[k][q].d[i]);
              continue;
            }
          series_free (s); /* a candidate that lost to a better lead */
          if (r->n == 0)
            continue;
          size_t sr = ((size_t)k * EMLAT_POP_COUNT + (size_t)q) * EMLAT_RM_COUNT + (size_t)i;
          for (int j = 0; j < 5; j++)
            {
              if (j == 4 && r->n < EMLAT_REPORT_P999_MIN_N)
                continue;
              uint64_t at = emlat_report_rank_index (r->n, quantiles[j].num, quantiles[j].den);
              if ((mp->target[sr][j] = emlat_rank_want (&mp->ranks, (uint32_t)sr, r, at)) < 0)
                return -ENOMEM;
            }
        }
  /* The histograms have given their ranks. */
  return 0;
}

/* Summarize the series that were ranked. */
static void
ranked_dists (struct emlat_report_model *m, struct model_priv *mp)
{
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      for (int i = 0; i < EMLAT_RM_COUNT; i++)
        {
          size_t sr = ((size_t)k * EMLAT_POP_COUNT + (size_t)q) * EMLAT_RM_COUNT + (size_t)i;
          if (mp->target[sr][0] >= 0)
            dist_of_ranks (&mp->rs[k][q][i], &mp->ranks, mp->target[sr], &m->g[k][q].d[i]);
        }
}

EMLAT_API int
emlat_report_model_pass_end (struct emlat_report_model *m)
{
  struct model_priv *mp = m->priv;
  int rc;
  if (!mp)
    return 0;
  if (mp->passes++ == 0)
    {
      if ((mp->flags & EMLAT_REPORT_MODEL_TAIL)
          && emlat_report_tail_stream_end (&mp->tail, &m->tail) != 0)
        goto nomem;
      if (first_pass_end (m, mp) != 0)
        goto nomem;
      rc = emlat_rank_pass_begin (&mp->ranks);
    }
  else
    {
      rc = emlat_rank_pass_end (&mp->ranks);
      if (rc == 0)
        rc = emlat_rank_pass_begin (&mp->ranks);
    }
  if (rc < 0)
    goto nomem;
  if (rc == 0)
    return 1; /* another pass */
  ranked_dists (m, mp);
  priv_free (m);
  return 0;
nomem:
  emlat_report_model_free (m);
  return -ENOMEM;
}

static int
add_one (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  return emlat_report_model_add (ctx, p, ix);
}

int
emlat_report_model_build (const struct emlat_profile *p, struct emlat_report_model *m)
{
  int rc = emlat_report_model_begin (m, p, 0);
  if (rc)
    return rc;
  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
  for (size_t i = 0; i < n && rc == 0; i++)
    rc = add_one (m, p, &ix[i]);
  if (rc)
    {
      emlat_report_model_free (m);
      return rc;
    }
  rc = emlat_report_model_pass_end (m);
  return rc < 0 ? rc : 0; /* keeping every sample, one pass is enough */
}

EMLAT_API int
emlat_report_model_build_each (struct emlat_profile *p, struct emlat_report_model *m,
                               unsigned flags)
{
  int rc = emlat_report_model_begin (m, p, flags);
  while (rc == 0)
    {
      rc = emlat_profile_each_interaction (p, NULL, 0, add_one, m);
      if (rc)
        {
          emlat_report_model_free (m);
          return rc;
        }
      rc = emlat_report_model_pass_end (m);
      if (rc == 1)
        rc = 0;
      else
        return rc;
    }
  return rc;
}

EMLAT_API const char *emlat_report_boundary_name (unsigned b)
{
  return b < EMLAT_T_FIELD_COUNT ? emlat_time_field_name (b)
         : b == EMLAT_T_FIELD_COUNT ? "thread_cpu_begin"
                                    : "thread_cpu_end";
}

EMLAT_API uint64_t emlat_report_boundary_missing (const struct emlat_report_model *m, unsigned b,
                                                  uint64_t miss[EMLAT_POP_COUNT])
{
  uint64_t total = 0;
  for (int q = 0; q < EMLAT_POP_COUNT; q++)
    {
      uint64_t have = b < EMLAT_T_FIELD_COUNT ? m->present_t[q][b]
                      : b == EMLAT_T_FIELD_COUNT ? m->present_cpu_begin[q]
                                                 : m->present_cpu_end[q];
      miss[q] = m->n_pop[q] - have;
      total += miss[q];
    }
  return total;
}
