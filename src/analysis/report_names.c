/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_names.c -- the work of a names-policy profile grouped by name
 * (rules in emlat_report.h "names" and docs/REPORT.md "Names").
 *
 * A profile keeps per interaction only span aggregates, not the spans'
 * details, so the names are found by one more scan of the loaded files
 * (emlat_profile_rescan, which reads a streamed file again), keeping
 * only the naming spans: a complete record names its cause at once; a
 * begin record is remembered by span id until its end record brings the
 * detail.  Only sessions whose privacy.policy is "names" are scanned.
 *
 * Invariants: only the public reader API is used; the first name of a
 * cause wins (as the first definition does, F-92); the groups point into
 * the profile's strings; every allocation is checked and freed on failure.
 */
#include "emlat/emlat_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hash map of nonzero uint64_t keys (0 marks a free slot), linear
   probing, capacity a power of two, at most half full. */
struct names_map
{
  uint64_t *k, *v;
  size_t cap, n;
};

static uint64_t *
map_slot (const struct names_map *m, uint64_t key)
{
  size_t i = (size_t)((key * 0x9e3779b97f4a7c15u) >> 20) & (m->cap - 1);
  while (m->k[i] && m->k[i] != key)
    i = (i + 1) & (m->cap - 1);
  return &m->k[i];
}

static uint64_t *
map_get (const struct names_map *m, uint64_t key)
{
  if (!m->cap)
    return NULL;
  uint64_t *slot = map_slot (m, key);
  return *slot ? &m->v[slot - m->k] : NULL;
}

/* Set KEY to VAL unless KEY is present.  0, or -1 without memory. */
static int
map_add (struct names_map *m, uint64_t key, uint64_t val)
{
  if ((m->n + 1) * 2 > m->cap)
    {
      size_t cap = m->cap ? m->cap * 2 : 256;
      struct names_map g = { calloc (cap, sizeof (uint64_t)), calloc (cap, sizeof (uint64_t)), cap, 0 };
      if (!g.k || !g.v)
        {
          free (g.k);
          free (g.v);
          return -1;
        }
      for (size_t i = 0; i < m->cap; i++)
        if (m->k[i])
          {
            uint64_t *s = map_slot (&g, m->k[i]);
            *s = m->k[i];
            g.v[s - g.k] = m->v[i];
            g.n++;
          }
      free (m->k);
      free (m->v);
      *m = g;
    }
  uint64_t *slot = map_slot (m, key);
  if (*slot)
    return 0;
  *slot = key;
  m->v[slot - m->k] = val;
  m->n++;
  return 0;
}

static void
map_free (struct names_map *m)
{
  free (m->k);
  free (m->v);
  memset (m, 0, sizeof *m);
}

struct scan_ctx
{
  struct names_map named;   /* cause -> string id */
  struct names_map open;    /* span id -> cause of a naming span begun */
  int err;
};

static int
naming_kind (uint32_t kind)
{
  return kind == EMLAT_SPAN_COMMAND || kind == EMLAT_SPAN_TIMER
         || kind == EMLAT_SPAN_PROCESS_FILTER || kind == EMLAT_SPAN_PROCESS_SENTINEL;
}

static int
on_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  (void)c;
  struct scan_ctx *x = ctx;
  const struct emlat_rd_span *s = &r->u.span;
  int named = (s->flags & EMLAT_RD_SPAN_DETAIL) && s->detail;
  int rc = 0;
  switch (r->kind)
    {
    case EMLAT_REC_SPAN_COMPLETE:
      if (naming_kind (s->kind) && s->cause && named)
        rc = map_add (&x->named, s->cause, s->detail);
      break;
    case EMLAT_REC_SPAN_BEGIN:
      if (naming_kind (s->kind) && s->cause && s->id)
        rc = map_add (&x->open, s->id, s->cause);
      break;
    case EMLAT_REC_SPAN_END:
      if (named && s->id)
        {
          uint64_t *cause = map_get (&x->open, s->id);
          if (cause)
            rc = map_add (&x->named, *cause, s->detail);
        }
      break;
    default:
      break;
    }
  if (rc)
    {
      x->err = -ENOMEM;
      return 1;
    }
  return 0;
}

/* 1 when P's session declares the names policy. */
static int
names_policy (const struct emlat_profile *p)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  const struct emlat_kv *e = emlat_kv_find (kv, n, "privacy.policy");
  return e && e->type == 2 && e->s_len == 5 && memcmp (e->s, "names", 5) == 0;
}

/* A group being filled: its key and its samples. */
struct acc
{
  uint32_t kind;
  uint64_t id;
  uint64_t n;
  uint64_t *v, *cause;
  size_t nv, cap;
};

static int
acc_push (struct acc *a, uint64_t v, uint64_t cause)
{
  if (a->nv == a->cap)
    {
      size_t cap = a->cap ? a->cap * 2 : 16;
      uint64_t *nv = realloc (a->v, cap * sizeof *nv);
      if (!nv)
        return -1;
      a->v = nv;
      uint64_t *nc = realloc (a->cause, cap * sizeof *nc);
      if (!nc)
        return -1;
      a->cause = nc;
      a->cap = cap;
    }
  a->v[a->nv] = v;
  a->cause[a->nv] = cause;
  a->nv++;
  return 0;
}

static int
cmp_group (const void *a, const void *b)
{
  const struct emlat_report_name_group *x = a, *y = b;
  if (x->d.total != y->d.total)
    return x->d.total > y->d.total ? -1 : 1;
  if (x->root_kind != y->root_kind)
    return x->root_kind < y->root_kind ? -1 : 1;
  if (x->has_name != y->has_name)
    return x->has_name ? -1 : 1;
  size_t l = x->name_len < y->name_len ? x->name_len : y->name_len;
  int c = l ? memcmp (x->name, y->name, l) : 0;
  if (c)
    return c;
  if (x->name_len != y->name_len)
    return x->name_len < y->name_len ? -1 : 1;
  return x->string_id < y->string_id ? -1 : x->string_id > y->string_id;
}

void
emlat_report_names_free (struct emlat_report_names *nm)
{
  for (size_t i = 0; i < nm->n; i++)
    free (nm->g[i].samples);
  free (nm->g);
  free (nm->priv_cause);
  free (nm->priv_id);
  memset (nm, 0, sizeof *nm);
}

/* Scan P's files for the naming spans into X->named.  0 or -ENOMEM. */
static int
scan_names (const struct emlat_profile *p, struct scan_ctx *x)
{
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
  for (size_t i = 0; i < nf && !x->err; i++)
    {
      if (fs[i].ignored)
        continue;
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.file_index = (uint32_t)i;
      sp.visitor.ctx = x;
      sp.visitor.on_record = on_record;
      /* Held in memory or streamed, the file is read again the same way;
         one that cannot be read again names nothing. */
      emlat_profile_rescan (p, i, &sp, &res);
    }
  return x->err;
}

/* The accumulator of (KIND, ID) in ACCS[0..*N), added if new. */
static struct acc *
acc_find (struct acc **accs, size_t *n, size_t *cap, struct names_map *index, uint32_t kind,
          uint64_t id)
{
  /* Key: the string id in the low 56 bits, the kind above; ids beyond
     2^56 - 1 cannot come from a writer (2^20 strings per session). */
  uint64_t key = ((uint64_t)kind << 56 | (id & ((UINT64_C (1) << 56) - 1))) + 1;
  uint64_t *at = map_get (index, key);
  if (at)
    return &(*accs)[*at];
  if (*n == *cap)
    {
      size_t c = *cap ? *cap * 2 : 32;
      struct acc *na = realloc (*accs, c * sizeof *na);
      if (!na)
        return NULL;
      *accs = na;
      *cap = c;
    }
  if (map_add (index, key, *n) != 0)
    return NULL;
  struct acc *a = &(*accs)[(*n)++];
  memset (a, 0, sizeof *a);
  a->kind = kind;
  a->id = id;
  return a;
}

/* What one walk over the interactions fills: the cause -> name pairs of
   NM, and one accumulator per (root kind, name). */
struct name_pass
{
  struct emlat_report_names *nm;
  const struct names_map *named;
  struct acc *accs;
  size_t n_acc, cap_acc, cap_priv;
  struct names_map index;
  int rc;
};

static int
name_one (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  struct name_pass *np = ctx;
  struct emlat_report_names *nm = np->nm;
  uint64_t *id = map_get (np->named, ix->cause);
  uint64_t sid = id ? *id : 0;
  if (sid)
    {
      if (nm->priv_n == np->cap_priv)
        {
          size_t cap = np->cap_priv ? np->cap_priv * 2 : 256;
          uint64_t *c = realloc (nm->priv_cause, cap * sizeof *c);
          if (!c)
            return np->rc = -ENOMEM, 1;
          nm->priv_cause = c;
          uint64_t *v = realloc (nm->priv_id, cap * sizeof *v);
          if (!v)
            return np->rc = -ENOMEM, 1;
          nm->priv_id = v;
          np->cap_priv = cap;
        }
      nm->named++;
      nm->priv_cause[nm->priv_n] = ix->cause;
      nm->priv_id[nm->priv_n++] = sid;
    }
  else
    nm->unnamed++;
  uint32_t kind = ix->root_kind <= EMLAT_ROOT_KIND_MAX ? ix->root_kind : 0;
  struct acc *a = acc_find (&np->accs, &np->n_acc, &np->cap_acc, &np->index, kind, sid);
  if (!a)
    return np->rc = -ENOMEM, 1;
  a->n++;
  struct emlat_report_times t;
  struct emlat_report_metrics mt;
  emlat_report_times_from_profile (p, ix, &t);
  emlat_report_metrics_compute (&t, &mt);
  if ((mt.mask >> EMLAT_REPORT_NAME_METRIC) & 1u)
    if (acc_push (a, mt.v[EMLAT_REPORT_NAME_METRIC], ix->cause) != 0)
      return np->rc = -ENOMEM, 1;
  return 0;
}

static int
cmp_pair (const void *a, const void *b)
{
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sort NM's cause -> name pairs by cause.  0 or -1 without memory. */
static int
sort_pairs (struct emlat_report_names *nm)
{
  uint64_t *pairs = malloc (nm->priv_n * 2 * sizeof *pairs);
  if (!pairs)
    return -1;
  for (size_t i = 0; i < nm->priv_n; i++)
    {
      pairs[2 * i] = nm->priv_cause[i];
      pairs[2 * i + 1] = nm->priv_id[i];
    }
  qsort (pairs, nm->priv_n, 2 * sizeof *pairs, cmp_pair);
  for (size_t i = 0; i < nm->priv_n; i++)
    {
      nm->priv_cause[i] = pairs[2 * i];
      nm->priv_id[i] = pairs[2 * i + 1];
    }
  free (pairs);
  return 0;
}

EMLAT_API int
emlat_report_names_build (const struct emlat_profile *p, struct emlat_report_names *nm)
{
  memset (nm, 0, sizeof *nm);
  if (!names_policy (p))
    return 0;
  nm->has = 1;

  struct scan_ctx x;
  memset (&x, 0, sizeof x);
  int rc = scan_names (p, &x);
  map_free (&x.open);

  struct name_pass np;
  memset (&np, 0, sizeof np);
  np.nm = nm;
  np.named = &x.named;
  if (!rc)
    {
      /* Every interaction, kept by the profile or streamed again (a
         streamed profile keeps only a few): with no cause to keep, the
         walk leaves the profile as it is (emlat_reader.h). */
      rc = emlat_profile_each_interaction ((struct emlat_profile *)p, NULL, 0, name_one, &np);
      if (rc > 0)
        rc = np.rc;
    }
  struct acc *accs = np.accs;
  size_t n_acc = np.n_acc;
  struct names_map index = np.index;
  /* cause -> name pairs in cause order, for emlat_report_name_id. */
  if (!rc && nm->priv_n > 1 && sort_pairs (nm) != 0)
    rc = -ENOMEM;
  map_free (&x.named);
  map_free (&index);

  if (!rc && n_acc)
    {
      nm->g = calloc (n_acc, sizeof *nm->g);
      if (!nm->g)
        rc = -ENOMEM;
    }
  for (size_t k = 0; k < n_acc && !rc; k++)
    {
      struct acc *a = &accs[k];
      struct emlat_report_name_group *g = &nm->g[nm->n++];
      g->root_kind = a->kind;
      g->has_name = a->id != 0;
      g->string_id = a->id;
      if (a->id)
        g->name = emlat_profile_string (p, a->id, &g->name_len);
      g->n = a->n;
      /* Sorting by value carries the causes along. */
      if (emlat_report_sort_u64 (a->v, a->cause, a->nv) != 0)
        rc = -ENOMEM;
      else
        {
          emlat_report_dist_of_sorted (a->v, a->nv, &g->d);
          /* Among equal slowest values, the greatest cause (the walk's
             order is not the causes'). */
          g->slowest_cause = 0;
          for (size_t i = a->nv; i-- > 0 && a->v[i] == a->v[a->nv - 1];)
            if (a->cause[i] > g->slowest_cause)
              g->slowest_cause = a->cause[i];
          g->samples = a->v;
          a->v = NULL;
        }
    }
  for (size_t k = 0; k < n_acc; k++)
    {
      free (accs[k].v);
      free (accs[k].cause);
    }
  free (accs);
  if (rc)
    {
      emlat_report_names_free (nm);
      return rc;
    }
  if (nm->n > 1)
    qsort (nm->g, nm->n, sizeof *nm->g, cmp_group);
  return 0;
}

EMLAT_API uint64_t
emlat_report_name_id (const struct emlat_report_names *nm, uint64_t cause)
{
  /* priv_cause is ascending (sort_pairs). */
  size_t lo = 0, hi = nm->priv_n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (nm->priv_cause[mid] < cause)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < nm->priv_n && nm->priv_cause[lo] == cause ? nm->priv_id[lo] : 0;
}

EMLAT_API const char *
emlat_report_name_format (const struct emlat_profile *p, uint64_t id, char *buf, size_t n)
{
  if (!n)
    return buf;
  size_t len = 0;
  const uint8_t *s = id ? emlat_profile_string (p, id, &len) : NULL;
  if (s)
    {
      if (len >= n)
        len = n - 1;
      memcpy (buf, s, len);
      buf[len] = 0;
    }
  else
    snprintf (buf, n, "#%" PRIu64, id);
  return buf;
}
