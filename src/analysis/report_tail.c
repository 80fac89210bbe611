/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_tail.c -- pick the tail interaction and the slowest ones (see
 * emlat_report.h, "tail"), from interactions handed over one at a time in
 * any order (report_tail.h).  A candidate metric's value is computed
 * exactly as emlat_report_metrics_compute defines it: both boundaries
 * present and in order.
 */
#include "analysis/report_tail.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


const enum emlat_report_metric emlat_report_tail_chain[EMLAT_REPORT_TAIL_CHAIN] = {
  EMLAT_RM_LATENCY_LOWER, EMLAT_RM_INPUT_TO_FLUSH_MAX, EMLAT_RM_EXTERNAL_FIRST_OUTPUT,
  EMLAT_RM_COMMAND, EMLAT_RM_WALL,
};

/* Candidate C's value for the interaction of metrics MT: 1 and *V when
   present. */
static int
value_of (const struct emlat_report_metrics *mt, int c, uint64_t *v)
{
  enum emlat_report_metric k = emlat_report_tail_chain[c];
  if (!(mt->mask >> k & 1u))
    return 0;
  *v = mt->v[k];
  return 1;
}

/* (value, cause) order: the order of the old stable sort by value of
   interactions sorted by cause. */
static int
pair_less (const struct emlat_tail_pair *a, const struct emlat_tail_pair *b)
{
  return a->value != b->value ? a->value < b->value : a->cause < b->cause;
}

void
emlat_report_tail_stream_init (struct emlat_report_tail_stream *ts)
{
  memset (ts, 0, sizeof *ts);
  ts->c = EMLAT_REPORT_TAIL_CHAIN;
}

void
emlat_report_tail_stream_free (struct emlat_report_tail_stream *ts)
{
  free (ts->v);
  ts->v = NULL;
  ts->n = ts->cap = 0;
}

/* Keep X among the slowest (a min-heap of at most EMLAT_REPORT_SLOWEST). */
static void
slow_offer (struct emlat_report_tail_stream *ts, struct emlat_tail_pair x)
{
  struct emlat_tail_pair *h = ts->slow;
  size_t n = ts->n_slow, i;
  if (n < EMLAT_REPORT_SLOWEST)
    {
      for (i = n++; i > 0 && pair_less (&x, &h[(i - 1) / 2]); i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
      h[i] = x;
      ts->n_slow = n;
      return;
    }
  if (!pair_less (&h[0], &x))
    return;
  /* Replace the smallest and sift down. */
  for (i = 0;;)
    {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      const struct emlat_tail_pair *least = &x;
      if (l < n && pair_less (&h[l], least))
        m = l, least = &h[l];
      if (r < n && pair_less (&h[r], least))
        m = r;
      if (m == i)
        break;
      h[i] = h[m];
      i = m;
    }
  h[i] = x;
}

int
emlat_report_tail_stream_add (struct emlat_report_tail_stream *ts,
                              const struct emlat_profile *p,
                              const struct emlat_interaction *ix,
                              const struct emlat_report_metrics *mt)
{
  (void)p; /* the value comes from MT, computed by the caller */
  uint64_t v;
  for (int c = 0; c <= ts->c && c < EMLAT_REPORT_TAIL_CHAIN; c++)
    {
      if (!value_of (mt, c, &v))
        continue;
      if (c < ts->c)
        {
          /* A better candidate metric: the worse one's pairs go. */
          ts->c = c;
          ts->n = 0;
          ts->n_slow = 0;
        }
      if (ts->n == ts->cap)
        {
          size_t cap = ts->cap ? ts->cap * 2 : 1024;
          struct emlat_tail_pair *nv = realloc (ts->v, cap * sizeof *nv);
          if (!nv)
            return -ENOMEM;
          ts->v = nv;
          ts->cap = cap;
        }
      struct emlat_tail_pair x = { v, ix->cause };
      ts->v[ts->n++] = x;
      slow_offer (ts, x);
      return 0;
    }
  return 0;
}

/* Byte B (15: the value's highest .. 0: the cause's lowest) of X's key. */
static unsigned
key_byte (const struct emlat_tail_pair *x, int b)
{
  return b >= 8 ? (unsigned)(x->value >> (8 * (b - 8))) & 0xffu
                : (unsigned)(x->cause >> (8 * b)) & 0xffu;
}

/* The element of 0-based rank R of A[0..N) in (value, cause) order: an
   in-place most-significant-byte radix select (the array is reordered). */
static struct emlat_tail_pair
select_rank (struct emlat_tail_pair *a, size_t n, size_t r)
{
  size_t lo = 0, hi = n;
  for (int b = 15; b >= 0 && hi - lo > 1; b--)
    {
      size_t count[256] = { 0 };
      for (size_t i = lo; i < hi; i++)
        count[key_byte (&a[i], b)]++;
      unsigned d = 0;
      size_t below = 0;
      while (below + count[d] <= r)
        below += count[d++];
      if (count[d] == hi - lo)
        continue; /* every candidate has this byte */
      size_t w = lo;
      for (size_t i = lo; i < hi; i++)
        if (key_byte (&a[i], b) == d)
          {
            struct emlat_tail_pair t = a[w];
            a[w++] = a[i];
            a[i] = t;
          }
      r -= below;
      hi = w;
    }
  return a[lo + r];
}

int
emlat_report_tail_stream_end (struct emlat_report_tail_stream *ts, struct emlat_report_tail *t)
{
  memset (t, 0, sizeof *t);
  if (ts->n == 0)
    {
      emlat_report_tail_stream_free (ts);
      return 0;
    }
  size_t k = ts->n, at = emlat_report_rank_index (k, 99, 100);
  struct emlat_tail_pair x = select_rank (ts->v, k, at);
  t->has = 1;
  t->metric = emlat_report_tail_chain[ts->c];
  t->n = k;
  t->rank = at + 1;
  t->cause = x.cause;
  t->value = x.value;
  /* The slowest first. */
  struct emlat_tail_pair s[EMLAT_REPORT_SLOWEST];
  size_t n = ts->n_slow;
  memcpy (s, ts->slow, n * sizeof *s);
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && pair_less (&s[j - 1], &s[j]); j--)
      {
        struct emlat_tail_pair tmp = s[j];
        s[j] = s[j - 1];
        s[j - 1] = tmp;
      }
  for (size_t i = 0; i < n; i++)
    {
      t->slow[i].cause = s[i].cause;
      t->slow[i].value = s[i].value;
    }
  t->n_slow = n;
  emlat_report_tail_stream_free (ts);
  return 0;
}

int
emlat_report_tail_pick (const struct emlat_profile *p, struct emlat_report_tail *t)
{
  struct emlat_report_tail_stream ts;
  emlat_report_tail_stream_init (&ts);
  size_t n;
  const struct emlat_interaction *ix = emlat_profile_interactions (p, &n);
  for (size_t i = 0; i < n; i++)
    {
      struct emlat_report_times tm;
      struct emlat_report_metrics mt;
      emlat_report_times_from_profile (p, &ix[i], &tm);
      emlat_report_metrics_compute (&tm, &mt);
      if (emlat_report_tail_stream_add (&ts, p, &ix[i], &mt) != 0)
        {
          emlat_report_tail_stream_free (&ts);
          memset (t, 0, sizeof *t);
          return -ENOMEM;
        }
    }
  return emlat_report_tail_stream_end (&ts, t);
}
