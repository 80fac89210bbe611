/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_model.c -- one pass over a profile's interactions that derives
 * every metric, files each sample under its root kind and population, then
 * sorts and summarizes (rules in emlat_report.h and docs/REPORT.md).
 *
 * Cost: one emlat_report_times gathering per interaction, appends to growable
 * arrays, then one radix sort per (group, metric) -- linear in the number
 * of samples.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

void
emlat_report_model_free (struct emlat_report_model *m)
{
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int p = 0; p < EMLAT_POP_COUNT; p++)
      for (int i = 0; i < EMLAT_RM_COUNT; i++)
        {
          free (m->g[k][p].s[i].v);
          m->g[k][p].s[i].v = NULL;
          m->g[k][p].s[i].n = m->g[k][p].s[i].cap = 0;
        }
}

int
emlat_report_group_primary (const struct emlat_report_group *g)
{
  static const enum emlat_report_metric order[] = {
    EMLAT_RM_INPUT_TO_FLUSH_MAX, EMLAT_RM_EXTERNAL_FIRST_OUTPUT, EMLAT_RM_INPUT_TO_COMMAND_MAX,
    EMLAT_RM_COMMAND, EMLAT_RM_WALL,
  };
  for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
    if (g->s[order[i]].n)
      return (int)order[i];
  return -1;
}

/* 1 when string ids A and B of P name the same bytes (an id P lacks is
   only equal to itself). */
static int
same_name (const struct emlat_profile *p, uint64_t a, uint64_t b)
{
  if (a == b)
    return 1;
  size_t la, lb;
  const uint8_t *sa = emlat_profile_string (p, a, &la), *sb = emlat_profile_string (p, b, &lb);
  return sa && sb && la == lb && memcmp (sa, sb, la) == 0;
}

/* The group index of an interaction of root kind KIND named NAME. */
static unsigned
group_of (struct emlat_report_model *m, unsigned kind, uint64_t name)
{
  if (kind != EMLAT_ROOT_APPLICATION || name == 0)
    return kind;
  for (uint32_t i = 0; i < m->n_app_names; i++)
    if (same_name (m->p, m->app_names[i], name))
      return EMLAT_REPORT_KINDS + i;
  if (m->n_app_names == EMLAT_REPORT_APP_NAMES)
    {
      m->app_names_overflow++;
      return kind;
    }
  unsigned gi = EMLAT_REPORT_KINDS + m->n_app_names;
  m->app_names[m->n_app_names++] = name;
  for (int q = 0; q < EMLAT_POP_COUNT; q++)
    m->g[gi][q].name = name;
  return gi;
}

int
emlat_report_model_build (const struct emlat_profile *p, struct emlat_report_model *m)
{
  memset (m, 0, sizeof *m);
  m->p = p;
  for (int k = 0; k < EMLAT_REPORT_GROUPS; k++)
    for (int q = 0; q < EMLAT_POP_COUNT; q++)
      {
        m->g[k][q].root_kind = k < EMLAT_REPORT_KINDS ? (uint32_t)k : EMLAT_ROOT_APPLICATION;
        m->g[k][q].pop = (enum emlat_report_pop)q;
      }
  int rc = 0;

  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
  struct emlat_report_times t;
  struct emlat_report_metrics mt;
  for (size_t i = 0; i < n && rc == 0; i++)
    {
      emlat_report_times_from_profile (p, &ix[i], &t);
      emlat_report_metrics_compute (&t, &mt);
      enum emlat_report_pop pop = emlat_report_population (&t);
      unsigned kind = ix[i].root_kind <= EMLAT_ROOT_KIND_MAX ? ix[i].root_kind : 0;
      unsigned gi = group_of (m, kind, ix[i].name);
      struct emlat_report_group *g = &m->g[gi][pop];
      g->n++;
      m->n_ix++;
      m->n_pop[pop]++;
      m->n_kind[kind]++;
      if (gi != kind)
        m->n_kind[gi]++;
      m->n_status[ix[i].status <= EMLAT_STATUS_MAX ? ix[i].status : 0]++;
      for (uint32_t b = t.tmask; b; b &= b - 1)
        m->present_t[pop][__builtin_ctz (b)]++;
      m->present_cpu_begin[pop] += (uint64_t)t.has_cpu_begin;
      m->present_cpu_end[pop] += (uint64_t)t.has_cpu_end;
      for (uint32_t b = mt.mask; b; b &= b - 1)
        {
          unsigned k = (unsigned)__builtin_ctz (b);
          if (push (&g->s[k], mt.v[k]) != 0)
            rc = -ENOMEM;
        }
      for (uint32_t b = mt.inverted; b; b &= b - 1)
        g->inverted[__builtin_ctz (b)]++;
      for (uint32_t b = mt.clamped; b; b &= b - 1)
        g->clamped[__builtin_ctz (b)]++;
    }
  for (int k = 0; k < EMLAT_REPORT_GROUPS && rc == 0; k++)
    for (int q = 0; q < EMLAT_POP_COUNT && rc == 0; q++)
      for (int i = 0; i < EMLAT_RM_COUNT && rc == 0; i++)
        {
          struct emlat_report_series *s = &m->g[k][q].s[i];
          if (emlat_report_sort_u64 (s->v, NULL, s->n) != 0)
            rc = -ENOMEM;
          else
            emlat_report_dist_of_sorted (s->v, s->n, &m->g[k][q].d[i]);
        }
  if (rc)
    emlat_report_model_free (m);
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
