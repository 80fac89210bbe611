/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_app.c -- the application API's records summarized per name
 * (emlat_report.h "application", docs/REPORT.md "Sections, counters and
 * events").
 *
 * Sections: the (name, duration) samples of the profile are sorted by
 * name id and duration; ids whose bytes are equal are mapped to the
 * smallest of them first, so that one name is one group whatever ids it
 * had; each run is then one distribution.  Cost: one sort of the samples.
 * Counters and instants: one pass over the events with a small table per
 * kind, searched by name id (a program has few names).
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_pair (const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

static int
cmp_section (const void *a, const void *b)
{
  const struct emlat_report_section *x = a, *y = b;
  if (x->d.total != y->d.total)
    return x->d.total > y->d.total ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

/* Map every id of PAIRS[0..N) (sorted by id) to the smallest id with the
   same bytes; returns 1 when an id changed.  Quadratic in the distinct
   names, so only up to a bound: past it, ids stay as they are. */
static int
canonical_ids (const struct emlat_profile *p, uint64_t *pairs, size_t n)
{
  enum { MAX_DISTINCT = 4096 };
  uint64_t ids[MAX_DISTINCT], canon[MAX_DISTINCT];
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || pairs[2 * i] != pairs[2 * (i - 1)])
      {
        if (k == MAX_DISTINCT)
          return 0;
        ids[k++] = pairs[2 * i];
      }
  int changed = 0;
  for (size_t i = 0; i < k; i++)
    {
      canon[i] = ids[i];
      size_t li;
      const uint8_t *si = emlat_profile_string (p, ids[i], &li);
      for (size_t j = 0; si && j < i; j++)
        {
          size_t lj;
          const uint8_t *sj = emlat_profile_string (p, ids[j], &lj);
          if (sj && lj == li && memcmp (si, sj, li) == 0)
            {
              canon[i] = canon[j];
              changed = 1;
              break;
            }
        }
    }
  if (!changed)
    return 0;
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    {
      while (ids[c] != pairs[2 * i])
        c++;
      pairs[2 * i] = canon[c];
    }
  return 1;
}

static int
sections (const struct emlat_profile *p, struct emlat_report_app *a)
{
  size_t n;
  const struct emlat_named_span *s = emlat_profile_named_spans (p, &n);
  a->n_section_samples = n;
  if (!n)
    return 0;
  uint64_t *pairs = malloc (2 * n * sizeof *pairs);
  uint64_t *dur = malloc (n * sizeof *dur);
  if (!pairs || !dur)
    {
      free (pairs);
      free (dur);
      return -ENOMEM;
    }
  for (size_t i = 0; i < n; i++)
    {
      pairs[2 * i] = s[i].name;
      pairs[2 * i + 1] = s[i].duration;
    }
  qsort (pairs, n, 2 * sizeof *pairs, cmp_pair);
  if (canonical_ids (p, pairs, n))
    qsort (pairs, n, 2 * sizeof *pairs, cmp_pair);
  size_t groups = 0;
  for (size_t i = 0; i < n; i++)
    groups += i == 0 || pairs[2 * i] != pairs[2 * (i - 1)];
  a->sections = calloc (groups, sizeof *a->sections);
  if (!a->sections)
    {
      free (pairs);
      free (dur);
      return -ENOMEM;
    }
  for (size_t i = 0; i < n;)
    {
      size_t j = i;
      while (j < n && pairs[2 * j] == pairs[2 * i])
        {
          dur[j - i] = pairs[2 * j + 1];
          j++;
        }
      struct emlat_report_section *g = &a->sections[a->n_sections++];
      g->name = pairs[2 * i];
      g->bytes = emlat_profile_string (p, g->name, &g->len);
      emlat_report_dist_of_sorted (dur, j - i, &g->d);
      i = j;
    }
  free (pairs);
  free (dur);
  qsort (a->sections, a->n_sections, sizeof *a->sections, cmp_section);
  return 0;
}

static int
grow (void **v, size_t n, size_t elem)
{
  if (n & (n - 1) || n == 0)
    return 0; /* room left: capacities are powers of two */
  void *q = realloc (*v, 2 * n * elem);
  if (!q)
    return -1;
  *v = q;
  return 0;
}

static struct emlat_report_counter *
counter_of (const struct emlat_profile *p, struct emlat_report_app *a, uint64_t name, int fl)
{
  for (size_t i = 0; i < a->n_counters; i++)
    if (a->counters[i].name == name && a->counters[i].floating == fl)
      return &a->counters[i];
  if (a->n_counters == 0)
    a->counters = malloc (sizeof *a->counters);
  else if (grow ((void **)&a->counters, a->n_counters, sizeof *a->counters) != 0)
    return NULL;
  if (!a->counters)
    return NULL;
  struct emlat_report_counter *c = &a->counters[a->n_counters++];
  memset (c, 0, sizeof *c);
  c->name = name;
  c->floating = fl;
  c->bytes = emlat_profile_string (p, name, &c->len);
  c->fmin = NAN;
  c->fmax = NAN;
  return c;
}

static struct emlat_report_instant *
instant_of (const struct emlat_profile *p, struct emlat_report_app *a, uint64_t name)
{
  for (size_t i = 0; i < a->n_instants; i++)
    if (a->instants[i].name == name)
      return &a->instants[i];
  if (a->n_instants == 0)
    a->instants = malloc (sizeof *a->instants);
  else if (grow ((void **)&a->instants, a->n_instants, sizeof *a->instants) != 0)
    return NULL;
  if (!a->instants)
    return NULL;
  struct emlat_report_instant *in = &a->instants[a->n_instants++];
  in->name = name;
  in->bytes = emlat_profile_string (p, name, &in->len);
  in->n = 0;
  return in;
}

static int
events (const struct emlat_profile *p, struct emlat_report_app *a)
{
  size_t n;
  const struct emlat_event *e = emlat_profile_events (p, &n);
  for (size_t i = 0; i < n; i++)
    {
      const struct emlat_rd_event *v = &e[i].ev;
      switch (v->tag)
        {
        case EMLAT_EV_INSTANT:
          {
            struct emlat_report_instant *in = instant_of (p, a, v->name);
            if (!in)
              return -ENOMEM;
            in->n++;
            break;
          }
        case EMLAT_EV_COUNTER:
        case EMLAT_EV_COUNTER_F:
          {
            int fl = v->tag == EMLAT_EV_COUNTER_F;
            struct emlat_report_counter *c = counter_of (p, a, v->name, fl);
            if (!c)
              return -ENOMEM;
            if (fl)
              {
                if (!isnan (v->fv))
                  {
                    if (isnan (c->fmin) || v->fv < c->fmin)
                      c->fmin = v->fv;
                    if (isnan (c->fmax) || v->fv > c->fmax)
                      c->fmax = v->fv;
                  }
              }
            else
              {
                if (!c->n || v->iv < c->imin)
                  c->imin = v->iv;
                if (!c->n || v->iv > c->imax)
                  c->imax = v->iv;
              }
            /* The last value by time (events of several threads are not
               in time order). */
            if (!c->n || v->t >= c->t_last)
              {
                c->t_last = v->t;
                c->ilast = v->iv;
                c->flast = v->fv;
              }
            if (!c->n || v->t < c->t_first)
              c->t_first = v->t;
            c->n++;
            break;
          }
        case EMLAT_EV_ASYNC_BEGIN:
          a->async_begun++;
          break;
        case EMLAT_EV_ASYNC_END:
          a->async_ended++;
          break;
        case EMLAT_EV_FLOW_BEGIN:
          a->flows_begun++;
          break;
        case EMLAT_EV_FLOW_END:
          a->flows_ended++;
          break;
        case EMLAT_EV_THREAD_NAME:
          a->threads_named++;
          break;
        }
    }
  return 0;
}

EMLAT_API int
emlat_report_app_build (const struct emlat_profile *p, struct emlat_report_app *a)
{
  memset (a, 0, sizeof *a);
  if (sections (p, a) != 0 || events (p, a) != 0)
    {
      emlat_report_app_free (a);
      return -ENOMEM;
    }
  return 0;
}

EMLAT_API void
emlat_report_app_free (struct emlat_report_app *a)
{
  free (a->sections);
  free (a->counters);
  free (a->instants);
  memset (a, 0, sizeof *a);
}
