/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_marks.c -- the timeline's marks: all interactions up to a bound,
 * past it the highest ones and a seeded uniform sample of the others, and
 * an exact aggregate over session time (see report_marks.h).
 *
 * Invariants: at most REPORT_MARKS_TOP marks in the heap and
 * REPORT_MARKS_MAX - REPORT_MARKS_TOP in the reservoir, whatever the
 * number of interactions; every interaction offered is either kept or
 * was offered to the reservoir exactly once (so the reservoir is a uniform
 * sample of the interactions not in the final heap: algorithm R does not
 * depend on the order its items come in, and that order depends on the
 * values only, never on the random draws).
 */
#include "render/report_marks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The order of the metrics a mark is drawn at: emlat_report_group_primary's. */
static const enum emlat_report_metric draw_order[] = {
  EMLAT_RM_LATENCY_LOWER, EMLAT_RM_INPUT_TO_FLUSH_MAX, EMLAT_RM_EXTERNAL_FIRST_OUTPUT,
  EMLAT_RM_INPUT_TO_COMMAND_MAX, EMLAT_RM_COMMAND, EMLAT_RM_WALL,
};

static const enum emlat_time_field start_order[] = {
  EMLAT_T_INPUT_LATEST, EMLAT_T_DISPATCH_BEGIN, EMLAT_T_INPUT_EARLIEST, EMLAT_T_INTERACTION_END,
};

void
report_marks_init (struct report_marks *k)
{
  memset (k, 0, sizeof *k);
  emlat_report_rng_seed (&k->rng, REPORT_MARKS_SEED);
}

void
report_marks_free (struct report_marks *k)
{
  free (k->top);
  free (k->res);
  k->top = k->res = NULL;
  k->n_top = k->n_res = k->cap_res = 0;
}

int
report_marks_sampled (const struct report_marks *k)
{
  return k->offered - k->undrawn > k->n_top + k->n_res;
}

/* A below B in the heap's order. */
static int
below (const struct report_mark *a, const struct report_mark *b)
{
  return a->value < b->value || (a->value == b->value && a->cause < b->cause);
}

static void
sift_down (struct report_mark *h, size_t n, size_t i)
{
  for (;;)
    {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && below (&h[l], &h[m]))
        m = l;
      if (r < n && below (&h[r], &h[m]))
        m = r;
      if (m == i)
        return;
      struct report_mark t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
}

static void
sift_up (struct report_mark *h, size_t i)
{
  while (i > 0)
    {
      size_t p = (i - 1) / 2;
      if (!below (&h[i], &h[p]))
        return;
      struct report_mark t = h[i];
      h[i] = h[p];
      h[p] = t;
      i = p;
    }
}

/* Algorithm R over the marks that are not among the highest. */
static int
offer_reservoir (struct report_marks *k, const struct report_mark *m)
{
  const size_t cap = REPORT_MARKS_MAX - REPORT_MARKS_TOP;
  k->res_offered++;
  if (k->n_res < cap)
    {
      if (k->n_res == k->cap_res)
        {
          size_t nc = k->cap_res ? k->cap_res * 2 : 256;
          if (nc > cap)
            nc = cap;
          struct report_mark *r = realloc (k->res, nc * sizeof *r);
          if (!r)
            return -ENOMEM;
          k->res = r;
          k->cap_res = nc;
        }
      k->res[k->n_res++] = *m;
      return 0;
    }
  uint64_t j = emlat_report_rng_next (&k->rng) % k->res_offered;
  if (j < cap)
    k->res[j] = *m;
  return 0;
}

/* The aggregate: bin of T, widening the bins while T is past the last. */
static void
bin_add (struct report_marks *k, const struct emlat_profile *p, uint64_t t, int has_v, uint64_t v)
{
  if (!k->has_bins)
    {
      const struct emlat_file_header *h = emlat_profile_header (p);
      k->bin_origin = h && h->monotonic_start <= t ? h->monotonic_start : t;
      k->bin_width = 1000000; /* 1 ms */
      k->has_bins = 1;
    }
  uint64_t off = t < k->bin_origin ? 0 : t - k->bin_origin;
  while (off / k->bin_width >= REPORT_MARKS_BINS)
    {
      for (unsigned i = 0; i < REPORT_MARKS_BINS / 2; i++)
        {
          unsigned a = 2 * i, b = a + 1;
          k->bin_n[i] = k->bin_n[a] + k->bin_n[b];
          int ha = k->bin_has_max[a], hb = k->bin_has_max[b];
          k->bin_has_max[i] = ha || hb;
          k->bin_max[i] = !hb || (ha && k->bin_max[a] > k->bin_max[b]) ? k->bin_max[a]
                                                                      : k->bin_max[b];
        }
      for (unsigned i = REPORT_MARKS_BINS / 2; i < REPORT_MARKS_BINS; i++)
        {
          k->bin_n[i] = k->bin_max[i] = 0;
          k->bin_has_max[i] = 0;
        }
      k->bin_width *= 2;
    }
  unsigned b = (unsigned)(off / k->bin_width);
  k->bin_n[b]++;
  if (has_v && (!k->bin_has_max[b] || v > k->bin_max[b]))
    {
      k->bin_max[b] = v;
      k->bin_has_max[b] = 1;
    }
}

int
report_marks_add (struct report_marks *k, const struct emlat_profile *p,
                  const struct emlat_interaction *ix)
{
  struct report_mark m;
  memset (&m, 0, sizeof m);
  k->offered++;
  emlat_report_times_from_profile (p, ix, &m.times);
  int has_t = 0;
  for (size_t i = 0; i < sizeof start_order / sizeof start_order[0] && !has_t; i++)
    if (m.times.tmask >> start_order[i] & 1u)
      {
        m.t = m.times.t[start_order[i]];
        has_t = 1;
      }
  if (!has_t)
    {
      k->undrawn++;
      return 0;
    }
  struct emlat_report_metrics mx;
  emlat_report_metrics_compute (&m.times, &mx);
  m.cause = ix->cause;
  m.thread = ix->thread;
  m.root_kind = ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0;
  m.pop = emlat_report_population (&m.times);
  m.metric = -1;
  for (size_t i = 0; i < sizeof draw_order / sizeof draw_order[0]; i++)
    if (mx.mask >> draw_order[i] & 1u)
      {
        m.metric = (int)draw_order[i];
        m.value = mx.v[draw_order[i]];
        break;
      }
  if (!k->has_t || m.t < k->t_min)
    k->t_min = m.t;
  if (!k->has_t || m.t > k->t_max)
    k->t_max = m.t;
  k->has_t = 1;
  bin_add (k, p, m.t, m.metric >= 0, m.value);

  if (!k->top)
    {
      k->top = malloc (REPORT_MARKS_TOP * sizeof *k->top);
      if (!k->top)
        return -ENOMEM;
    }
  if (k->n_top < REPORT_MARKS_TOP)
    {
      k->top[k->n_top] = m;
      sift_up (k->top, k->n_top++);
      return 0;
    }
  if (below (&k->top[0], &m))
    {
      struct report_mark out = k->top[0];
      k->top[0] = m;
      sift_down (k->top, k->n_top, 0);
      return offer_reservoir (k, &out);
    }
  return offer_reservoir (k, &m);
}

static int
by_time (const void *a, const void *b)
{
  const struct report_mark *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->cause < y->cause ? -1 : x->cause > y->cause;
}

size_t
report_marks_sorted (const struct report_marks *k, struct report_mark **out)
{
  size_t n = k->n_top + k->n_res;
  *out = NULL;
  if (!n)
    return 0;
  struct report_mark *a = malloc (n * sizeof *a);
  if (!a)
    return (size_t)-1;
  if (k->n_top)
    memcpy (a, k->top, k->n_top * sizeof *a);
  if (k->n_res)
    memcpy (a + k->n_top, k->res, k->n_res * sizeof *a);
  qsort (a, n, sizeof *a, by_time);
  *out = a;
  return n;
}
