/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_fn.c -- calls of a -finstrument-functions trace rebuilt from the
 * fn_enter / fn_exit events (emlat_report.h "functions").
 *
 * One stack per thread, grown as needed; threads are found by a linear
 * search of the few that traced.  Every allocation is checked; a failure
 * ends the walk with -ENOMEM after the calls already delivered.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct frame
{
  uint64_t module, offset, start;
  int recursive;
};

struct tstack
{
  uint64_t thread;
  struct frame *f;
  size_t n, cap;
};

struct walk
{
  struct tstack *t;
  size_t n, cap;
};

static struct tstack *
stack_of (struct walk *w, uint64_t thread)
{
  for (size_t i = 0; i < w->n; i++)
    if (w->t[i].thread == thread)
      return &w->t[i];
  if (w->n == w->cap)
    {
      size_t c = w->cap ? 2 * w->cap : 8;
      struct tstack *v = realloc (w->t, c * sizeof *v);
      if (!v)
        return NULL;
      w->t = v;
      w->cap = c;
    }
  struct tstack *s = &w->t[w->n++];
  memset (s, 0, sizeof *s);
  s->thread = thread;
  return s;
}

EMLAT_API int
emlat_report_calls_walk (const struct emlat_profile *p,
                         void (*fn) (void *ctx, const struct emlat_report_call *c), void *ctx)
{
  size_t ne;
  const struct emlat_event *e = emlat_profile_events (p, &ne);
  struct walk w = { 0 };
  int rc = 0;
  for (size_t i = 0; i < ne && rc == 0; i++)
    {
      const struct emlat_rd_event *v = &e[i].ev;
      if (v->tag != EMLAT_EV_FN_ENTER && v->tag != EMLAT_EV_FN_EXIT)
        continue;
      struct tstack *s = stack_of (&w, e[i].thread);
      if (!s)
        {
          rc = -ENOMEM;
          break;
        }
      if (v->tag == EMLAT_EV_FN_ENTER)
        {
          if (s->n == s->cap)
            {
              size_t c = s->cap ? 2 * s->cap : 64;
              struct frame *f = realloc (s->f, c * sizeof *f);
              if (!f)
                {
                  rc = -ENOMEM;
                  break;
                }
              s->f = f;
              s->cap = c;
            }
          int rec = 0;
          for (size_t k = s->n; k-- > 0 && !rec;)
            rec = s->f[k].module == v->name && s->f[k].offset == v->id;
          s->f[s->n++] = (struct frame){ v->name, v->id, v->t, rec };
          continue;
        }
      size_t k = s->n;
      while (k > 0 && !(s->f[k - 1].module == v->name && s->f[k - 1].offset == v->id))
        k--;
      if (k == 0)
        continue; /* its entry was not recorded */
      while (s->n >= k)
        {
          struct frame *f = &s->f[s->n - 1];
          struct emlat_report_call c = { s->thread, f->module, f->offset, f->start,
                                         v->t >= f->start ? v->t : f->start, 1, (int)s->n - 1,
                                         f->recursive };
          fn (ctx, &c);
          s->n--;
        }
    }
  for (size_t t = 0; t < w.n; t++)
    {
      struct tstack *s = &w.t[t];
      for (size_t k = 0; rc == 0 && k < s->n; k++)
        {
          struct emlat_report_call c = { s->thread, s->f[k].module, s->f[k].offset,
                                         s->f[k].start, 0, 0, (int)k, s->f[k].recursive };
          fn (ctx, &c);
        }
      free (s->f);
    }
  free (w.t);
  return rc;
}

struct agg
{
  struct emlat_report_function *v;
  size_t n, cap;
  uint64_t *slot; /* hash: index + 1 */
  size_t nslot;
  int oom;
};

static uint64_t
mix (uint64_t a, uint64_t b)
{
  uint64_t h = a * 0x9e3779b97f4a7c15ull ^ b;
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

static int
agg_rehash (struct agg *a)
{
  size_t ns = a->nslot ? 2 * a->nslot : 1024;
  uint64_t *sl = calloc (ns, sizeof *sl);
  if (!sl)
    return -1;
  for (size_t i = 0; i < a->n; i++)
    {
      size_t j = mix (a->v[i].module, a->v[i].offset) & (ns - 1);
      while (sl[j])
        j = (j + 1) & (ns - 1);
      sl[j] = i + 1;
    }
  free (a->slot);
  a->slot = sl;
  a->nslot = ns;
  return 0;
}

static void
agg_call (void *ctx, const struct emlat_report_call *c)
{
  struct agg *a = ctx;
  if (a->oom || !c->has_end)
    return;
  if ((a->n + 1) * 2 > a->nslot && agg_rehash (a) != 0)
    {
      a->oom = 1;
      return;
    }
  size_t j = mix (c->module, c->offset) & (a->nslot - 1);
  while (a->slot[j])
    {
      struct emlat_report_function *f = &a->v[a->slot[j] - 1];
      if (f->module == c->module && f->offset == c->offset)
        {
          uint64_t d = c->recursive ? 0 : c->end - c->start;
          f->calls++;
          f->total_ns = f->total_ns + d < f->total_ns ? UINT64_MAX : f->total_ns + d;
          if (d > f->max_ns)
            f->max_ns = d;
          return;
        }
      j = (j + 1) & (a->nslot - 1);
    }
  if (a->n == a->cap)
    {
      size_t c2 = a->cap ? 2 * a->cap : 256;
      struct emlat_report_function *v = realloc (a->v, c2 * sizeof *v);
      if (!v)
        {
          a->oom = 1;
          return;
        }
      a->v = v;
      a->cap = c2;
    }
  uint64_t d = c->end - c->start;
  a->v[a->n] = (struct emlat_report_function){ c->module, c->offset, 1, c->recursive ? 0 : d, d };
  a->slot[j] = ++a->n;
}

static int
cmp_total (const void *x, const void *y)
{
  const struct emlat_report_function *a = x, *b = y;
  if (a->total_ns != b->total_ns)
    return a->total_ns > b->total_ns ? -1 : 1;
  if (a->module != b->module)
    return a->module < b->module ? -1 : 1;
  return (a->offset > b->offset) - (a->offset < b->offset);
}

EMLAT_API int
emlat_report_functions (const struct emlat_profile *p, size_t max,
                        struct emlat_report_function **out, size_t *n, uint64_t *others)
{
  struct agg a = { 0 };
  *out = NULL;
  *n = 0;
  *others = 0;
  int rc = emlat_report_calls_walk (p, agg_call, &a);
  free (a.slot);
  if (rc != 0 || a.oom)
    {
      free (a.v);
      return -ENOMEM;
    }
  if (a.n > 1)
    qsort (a.v, a.n, sizeof *a.v, cmp_total);
  if (a.n > max)
    {
      *others = a.n - max;
      a.n = max;
    }
  *out = a.v;
  *n = a.n;
  return 0;
}
